// SPDX-License-Identifier: MIT
/*
 * Persistent collectives (MPI-4.0 6.13): MPI_Bcast_init and the rest
 * make an inactive request holding the call's arguments; each
 * MPI_Start runs the nonblocking collective they describe under that
 * same request, and MPI_Wait or MPI_Test completes it and leaves it
 * inactive for the next start, until MPI_Request_free.
 *
 * The init calls are local: they check what they can (communicator,
 * info, root, counts, datatypes, op), hold the datatypes and the op,
 * and keep the rest, buffers and count arrays included, as given (MPI
 * says those stay untouched while the request exists).  A start builds
 * the schedule afresh through the I variant's own path, which checks
 * the rest; a start is a collective, started in the same order on
 * every member, as MPI asks.  The schedule runs under the persistent
 * request itself (lm_coll_run() takes it from lm_pcoll_into), so Wait,
 * Test and their families need nothing new.  A datatype freed after
 * the init makes later starts fail (MPI_ERR_TYPE).
 */

#include <stdlib.h>
#include <string.h>

#include "coll/coll_inter.h"

enum lm_pc {
	PC_BARRIER, PC_BCAST, PC_GATHER, PC_GATHERV, PC_SCATTER, PC_SCATTERV,
	PC_ALLGATHER, PC_ALLGATHERV, PC_ALLTOALL, PC_ALLTOALLV, PC_ALLTOALLW,
	PC_REDUCE, PC_ALLREDUCE, PC_REDUCE_SCATTER, PC_REDUCE_SCATTER_BLOCK,
	PC_SCAN, PC_EXSCAN, PC_NB_ALLGATHER, PC_NB_ALLGATHERV,
	PC_NB_ALLTOALL, PC_NB_ALLTOALLV, PC_NB_ALLTOALLW,
};

/* One persistent collective's arguments. */
struct lm_pcoll {
	enum lm_pc kind;
	MPI_Comm comm;
	const void *sbuf;
	void *rbuf;
	int scount, rcount, root;
	/* A reduction's count beyond an int; reduce_scatter's counts. */
	MPI_Count bcount;
	const MPI_Count *bcounts;	/* in kept[0] */
	MPI_Datatype stype, rtype;	/* reductions: stype */
	MPI_Op op;
	uint8_t held_s, held_r;		/* stype, rtype held */
	const int *scounts, *sdispls, *rcounts, *rdispls;
	const MPI_Aint *sadispls, *radispls;	/* neighbour alltoallw */
	const MPI_Datatype *stypes, *rtypes;	/* alltoallw */
	/* A large-count call's arrays and types, made for it (lm_pcoll_keep). */
	void *kept[4];
	MPI_Datatype *kept_types;
	int nkept_types;
};

__thread struct libmsg_request *lm_pcoll_into
	__attribute__((tls_model("initial-exec")));

static void pcoll_unkeep(struct lm_pcoll *pc);

void lm_pcoll_free(struct lm_pcoll *pc)
{
	if (!pc)
		return;
	if (pc->held_s)
		lm_dt_release(pc->stype);
	if (pc->held_r)
		lm_dt_release(pc->rtype);
	if (pc->op)
		lm_op_release(pc->op);
	pcoll_unkeep(pc);
	free(pc);
}

static void pcoll_unkeep(struct lm_pcoll *pc)
{
	int i;

	for (i = 0; i < pc->nkept_types; i++)
		if (pc->kept_types[i] != MPI_DATATYPE_NULL)
			MPI_Type_free(&pc->kept_types[i]);
	free(pc->kept_types);
	for (i = 0; i < 4; i++)
		free(pc->kept[i]);
}

void lm_pcoll_keep(MPI_Request r, void *const mem[4], MPI_Datatype *types,
		   int ntypes)
{
	struct lm_pcoll *pc = r->pcoll;
	int i;

	for (i = 0; i < 4; i++)
		pc->kept[i] = mem[i];
	pc->kept_types = types;
	pc->nkept_types = ntypes;
}

/* The I variant of pc, run under the request lm_pcoll_into names. */
static int pcoll_call(struct lm_pcoll *pc, MPI_Request *r)
{
	switch (pc->kind) {
	case PC_BARRIER:
		return MPI_Ibarrier(pc->comm, r);
	case PC_BCAST:
		return MPI_Ibcast(pc->rbuf, pc->rcount, pc->rtype, pc->root,
				  pc->comm, r);
	case PC_GATHER:
		return MPI_Igather(pc->sbuf, pc->scount, pc->stype, pc->rbuf,
				   pc->rcount, pc->rtype, pc->root, pc->comm, r);
	case PC_GATHERV:
		return MPI_Igatherv(pc->sbuf, pc->scount, pc->stype, pc->rbuf,
				    pc->rcounts, pc->rdispls, pc->rtype,
				    pc->root, pc->comm, r);
	case PC_SCATTER:
		return MPI_Iscatter(pc->sbuf, pc->scount, pc->stype, pc->rbuf,
				    pc->rcount, pc->rtype, pc->root, pc->comm, r);
	case PC_SCATTERV:
		return MPI_Iscatterv(pc->sbuf, pc->scounts, pc->sdispls,
				     pc->stype, pc->rbuf, pc->rcount, pc->rtype,
				     pc->root, pc->comm, r);
	case PC_ALLGATHER:
		return MPI_Iallgather(pc->sbuf, pc->scount, pc->stype, pc->rbuf,
				      pc->rcount, pc->rtype, pc->comm, r);
	case PC_ALLGATHERV:
		return MPI_Iallgatherv(pc->sbuf, pc->scount, pc->stype,
				       pc->rbuf, pc->rcounts, pc->rdispls,
				       pc->rtype, pc->comm, r);
	case PC_ALLTOALL:
		return MPI_Ialltoall(pc->sbuf, pc->scount, pc->stype, pc->rbuf,
				     pc->rcount, pc->rtype, pc->comm, r);
	case PC_ALLTOALLV:
		return MPI_Ialltoallv(pc->sbuf, pc->scounts, pc->sdispls,
				      pc->stype, pc->rbuf, pc->rcounts,
				      pc->rdispls, pc->rtype, pc->comm, r);
	case PC_ALLTOALLW:
		return MPI_Ialltoallw(pc->sbuf, pc->scounts, pc->sdispls,
				      pc->stypes, pc->rbuf, pc->rcounts,
				      pc->rdispls, pc->rtypes, pc->comm, r);
	case PC_REDUCE:
		if (pc->bcount)
			return MPI_Ireduce_c(pc->sbuf, pc->rbuf, pc->bcount,
					     pc->stype, pc->op, pc->root,
					     pc->comm, r);
		return MPI_Ireduce(pc->sbuf, pc->rbuf, pc->scount, pc->stype,
				   pc->op, pc->root, pc->comm, r);
	case PC_ALLREDUCE:
		if (pc->bcount)
			return MPI_Iallreduce_c(pc->sbuf, pc->rbuf, pc->bcount,
						pc->stype, pc->op, pc->comm, r);
		return MPI_Iallreduce(pc->sbuf, pc->rbuf, pc->scount,
				      pc->stype, pc->op, pc->comm, r);
	case PC_REDUCE_SCATTER:
		if (pc->bcounts)
			return MPI_Ireduce_scatter_c(pc->sbuf, pc->rbuf,
						     pc->bcounts, pc->stype,
						     pc->op, pc->comm, r);
		return MPI_Ireduce_scatter(pc->sbuf, pc->rbuf, pc->rcounts,
					   pc->stype, pc->op, pc->comm, r);
	case PC_REDUCE_SCATTER_BLOCK:
		if (pc->bcount)
			return MPI_Ireduce_scatter_block_c(pc->sbuf, pc->rbuf,
							   pc->bcount,
							   pc->stype, pc->op,
							   pc->comm, r);
		return MPI_Ireduce_scatter_block(pc->sbuf, pc->rbuf,
						 pc->scount, pc->stype, pc->op,
						 pc->comm, r);
	case PC_SCAN:
		if (pc->bcount)
			return MPI_Iscan_c(pc->sbuf, pc->rbuf, pc->bcount,
					   pc->stype, pc->op, pc->comm, r);
		return MPI_Iscan(pc->sbuf, pc->rbuf, pc->scount, pc->stype,
				 pc->op, pc->comm, r);
	case PC_EXSCAN:
		if (pc->bcount)
			return MPI_Iexscan_c(pc->sbuf, pc->rbuf, pc->bcount,
					     pc->stype, pc->op, pc->comm, r);
		return MPI_Iexscan(pc->sbuf, pc->rbuf, pc->scount, pc->stype,
				   pc->op, pc->comm, r);
	case PC_NB_ALLGATHER:
		return MPI_Ineighbor_allgather(pc->sbuf, pc->scount, pc->stype,
					       pc->rbuf, pc->rcount, pc->rtype,
					       pc->comm, r);
	case PC_NB_ALLGATHERV:
		return MPI_Ineighbor_allgatherv(pc->sbuf, pc->scount,
						pc->stype, pc->rbuf,
						pc->rcounts, pc->rdispls,
						pc->rtype, pc->comm, r);
	case PC_NB_ALLTOALL:
		return MPI_Ineighbor_alltoall(pc->sbuf, pc->scount, pc->stype,
					      pc->rbuf, pc->rcount, pc->rtype,
					      pc->comm, r);
	case PC_NB_ALLTOALLV:
		return MPI_Ineighbor_alltoallv(pc->sbuf, pc->scounts,
					       pc->sdispls, pc->stype,
					       pc->rbuf, pc->rcounts,
					       pc->rdispls, pc->rtype,
					       pc->comm, r);
	case PC_NB_ALLTOALLW:
		return MPI_Ineighbor_alltoallw(pc->sbuf, pc->scounts,
					       pc->sadispls, pc->stypes,
					       pc->rbuf, pc->rcounts,
					       pc->radispls, pc->rtypes,
					       pc->comm, r);
	}
	return MPI_ERR_INTERN;
}

/* MPI_Start of an inactive persistent collective (p2p.c's start_one). */
int lm_pcoll_start(struct libmsg_request *req)
{
	MPI_Request r = MPI_REQUEST_NULL;
	int err;

	lm_pcoll_into = req;
	err = pcoll_call(req->pcoll, &r);
	lm_pcoll_into = NULL;
	if (err) {
		req->active = 0;
		req->done = 1;
	}
	return err;
}

/* ---- The init calls ------------------------------------------------------- */

/* What an init checks now: which arguments count on this rank. */
enum {
	CHK_ROOT = 1 << 0,	/* root is a rank of comm */
	CHK_S = 1 << 1,		/* send count and type, everywhere */
	CHK_S_ROOT = 1 << 2,	/* ... at the root only */
	CHK_R = 1 << 3,		/* receive count and type, everywhere */
	CHK_R_ROOT = 1 << 4,	/* ... at the root only */
	CHK_OP = 1 << 5,	/* op on stype (reductions) */
};

static int check_data(const char *fn, MPI_Comm comm, const void *buf,
		      int count, MPI_Datatype dt, const char *what)
{
	if (buf == MPI_IN_PLACE)
		return MPI_SUCCESS;
	return lm_coll_check_data(fn, comm, buf, count, dt, what);
}

static int check_args(const char *fn, const struct lm_pcoll *a,
		      unsigned int chk)
{
	MPI_Comm comm = a->comm;
	int root = !(chk & CHK_ROOT) || comm->rank == a->root;
	const char *why = "invalid operation";
	int err = MPI_SUCCESS;

	if (chk & CHK_ROOT)
		err = lm_coll_check_root(fn, comm, a->root);
	if (!err && ((chk & CHK_S) || ((chk & CHK_S_ROOT) && root)))
		err = check_data(fn, comm, a->sbuf, a->scount, a->stype,
				 "send");
	if (!err && ((chk & CHK_R) || ((chk & CHK_R_ROOT) && root)))
		err = check_data(fn, comm, a->rbuf, a->rcount, a->rtype,
				 "receive");
	if (!err && (chk & CHK_OP) && lm_check_datatype(a->stype))
		err = lm_error(comm, fn, MPI_ERR_TYPE, "%s",
			       lm_datatype_why(a->stype));
	if (!err && (chk & CHK_OP)) {
		err = lm_op_check(a->op, a->stype, &why);
		if (err)
			err = lm_error(comm, fn, err, "%s", why);
	}
	return err;
}

/*
 * On an intercommunicator (the start runs coll_inter_nb*.c): no Scan,
 * Exscan or neighbourhood form; the root is MPI_ROOT, MPI_PROC_NULL or
 * a remote rank, and which buffers count depends on it, so the start
 * checks them; the op is checked where one is used.
 */
static int inter_check(const char *fn, const struct lm_pcoll *a,
		       unsigned int chk, MPI_Request *request)
{
	const char *why = "invalid operation";
	MPI_Comm ic = a->comm;
	int err;

	if (a->kind == PC_SCAN || a->kind == PC_EXSCAN ||
	    a->kind >= PC_NB_ALLGATHER)
		return lm_error(ic, fn, MPI_ERR_COMM,
				"no such collective on an intercommunicator");
	if (!request)
		return lm_error(ic, fn, MPI_ERR_REQUEST, "request is NULL");
	if (chk & CHK_ROOT)
		TRY(lm_inter_root(ic, fn, a->root));
	if (!(chk & CHK_OP) || a->root == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (lm_check_datatype(a->stype))
		return lm_error(ic, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(a->stype));
	err = lm_op_check(a->op, a->stype, &why);
	return err ? lm_error(ic, fn, err, "%s", why) : MPI_SUCCESS;
}

/*
 * Every init: check, then make the inactive request holding a copy of
 * *a, its valid datatypes and its op held until the request goes.
 */
static int pcoll_init(const char *fn, const struct lm_pcoll *a,
		      unsigned int chk, MPI_Info info, MPI_Request *request)
{
	int inter = lm_comm_is_inter(a->comm);
	struct libmsg_request *req;
	struct lm_pcoll *pc;
	int err = inter ? inter_check(fn, a, chk, request) :
		lm_coll_check(fn, a->comm, request, 1);

	if (!err)
		err = lm_check_info_arg(a->comm, info, fn);
	if (!err && !inter)
		err = check_args(fn, a, chk);
	if (err)
		return err;
	*request = MPI_REQUEST_NULL;
	req = lm_req_new(LM_REQ_COLL);
	pc = malloc(sizeof(*pc));
	if (!req || !pc) {
		free(req);
		free(pc);
		return lm_req_nomem(a->comm, fn);
	}
	*pc = *a;
	pc->held_s = lm_datatype_valid(pc->stype);
	pc->held_r = lm_datatype_valid(pc->rtype);
	if (pc->held_s)
		lm_dt_hold(pc->stype);
	if (pc->held_r)
		lm_dt_hold(pc->rtype);
	if (!(chk & CHK_OP) || (inter && a->root == MPI_PROC_NULL))
		pc->op = NULL;
	if (pc->op)
		lm_op_hold(pc->op);
	req->pcoll = pc;
	req->comm = a->comm;
	req->persistent = 1;
	req->active = 0;
	req->done = 1;		/* inactive: nothing to wait for */
	*request = req;
	return MPI_SUCCESS;
}

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_BARRIER, .comm = comm };

	return pcoll_init("MPI_Barrier_init", &a, 0, info, request);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
		   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_BCAST, .comm = comm, .rbuf = buffer,
			      .rcount = count, .rtype = datatype,
			      .root = root };

	return pcoll_init("MPI_Bcast_init", &a, CHK_ROOT | CHK_R, info,
			  request);
}

int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		    void *recvbuf, int recvcount, MPI_Datatype recvtype,
		    int root, MPI_Comm comm, MPI_Info info,
		    MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_GATHER, .comm = comm,
			      .sbuf = sendbuf, .scount = sendcount,
			      .stype = sendtype, .rbuf = recvbuf,
			      .rcount = recvcount, .rtype = recvtype,
			      .root = root };

	return pcoll_init("MPI_Gather_init", &a,
			  CHK_ROOT | CHK_S | CHK_R_ROOT, info, request);
}

int MPI_Gatherv_init(const void *sendbuf, int sendcount,
		     MPI_Datatype sendtype, void *recvbuf,
		     const int recvcounts[], const int displs[],
		     MPI_Datatype recvtype, int root, MPI_Comm comm,
		     MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_GATHERV, .comm = comm,
			      .sbuf = sendbuf, .scount = sendcount,
			      .stype = sendtype, .rbuf = recvbuf,
			      .rcounts = recvcounts, .rdispls = displs,
			      .rtype = recvtype, .root = root };

	return pcoll_init("MPI_Gatherv_init", &a, CHK_ROOT | CHK_S, info,
			  request);
}

int MPI_Scatter_init(const void *sendbuf, int sendcount,
		     MPI_Datatype sendtype, void *recvbuf, int recvcount,
		     MPI_Datatype recvtype, int root, MPI_Comm comm,
		     MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_SCATTER, .comm = comm,
			      .sbuf = sendbuf, .scount = sendcount,
			      .stype = sendtype, .rbuf = recvbuf,
			      .rcount = recvcount, .rtype = recvtype,
			      .root = root };

	return pcoll_init("MPI_Scatter_init", &a,
			  CHK_ROOT | CHK_S_ROOT | CHK_R, info, request);
}

int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[],
		      const int displs[], MPI_Datatype sendtype,
		      void *recvbuf, int recvcount, MPI_Datatype recvtype,
		      int root, MPI_Comm comm, MPI_Info info,
		      MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_SCATTERV, .comm = comm,
			      .sbuf = sendbuf, .scounts = sendcounts,
			      .sdispls = displs, .stype = sendtype,
			      .rbuf = recvbuf, .rcount = recvcount,
			      .rtype = recvtype, .root = root };

	return pcoll_init("MPI_Scatterv_init", &a, CHK_ROOT | CHK_R, info,
			  request);
}

int MPI_Allgather_init(const void *sendbuf, int sendcount,
		       MPI_Datatype sendtype, void *recvbuf, int recvcount,
		       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
		       MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_ALLGATHER, .comm = comm,
			      .sbuf = sendbuf, .scount = sendcount,
			      .stype = sendtype, .rbuf = recvbuf,
			      .rcount = recvcount, .rtype = recvtype };

	return pcoll_init("MPI_Allgather_init", &a, CHK_S | CHK_R, info,
			  request);
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount,
			MPI_Datatype sendtype, void *recvbuf,
			const int recvcounts[], const int displs[],
			MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_ALLGATHERV, .comm = comm,
			      .sbuf = sendbuf, .scount = sendcount,
			      .stype = sendtype, .rbuf = recvbuf,
			      .rcounts = recvcounts, .rdispls = displs,
			      .rtype = recvtype };

	return pcoll_init("MPI_Allgatherv_init", &a, CHK_S, info, request);
}

int MPI_Alltoall_init(const void *sendbuf, int sendcount,
		      MPI_Datatype sendtype, void *recvbuf, int recvcount,
		      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
		      MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_ALLTOALL, .comm = comm,
			      .sbuf = sendbuf, .scount = sendcount,
			      .stype = sendtype, .rbuf = recvbuf,
			      .rcount = recvcount, .rtype = recvtype };

	return pcoll_init("MPI_Alltoall_init", &a, CHK_S | CHK_R, info,
			  request);
}

int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[],
		       const int sdispls[], MPI_Datatype sendtype,
		       void *recvbuf, const int recvcounts[],
		       const int rdispls[], MPI_Datatype recvtype,
		       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_ALLTOALLV, .comm = comm,
			      .sbuf = sendbuf, .scounts = sendcounts,
			      .sdispls = sdispls, .stype = sendtype,
			      .rbuf = recvbuf, .rcounts = recvcounts,
			      .rdispls = rdispls, .rtype = recvtype };

	return pcoll_init("MPI_Alltoallv_init", &a, 0, info, request);
}

int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[],
		       const int sdispls[], const MPI_Datatype sendtypes[],
		       void *recvbuf, const int recvcounts[],
		       const int rdispls[], const MPI_Datatype recvtypes[],
		       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_ALLTOALLW, .comm = comm,
			      .sbuf = sendbuf, .scounts = sendcounts,
			      .sdispls = sdispls, .stypes = sendtypes,
			      .rbuf = recvbuf, .rcounts = recvcounts,
			      .rdispls = rdispls, .rtypes = recvtypes };

	return pcoll_init("MPI_Alltoallw_init", &a, 0, info, request);
}

/* The reductions: count and datatype in scount and stype. */
static int reduction_init(const char *fn, enum lm_pc kind,
			  const void *sendbuf, void *recvbuf, int count,
			  const int *recvcounts, MPI_Datatype datatype,
			  MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
			  MPI_Request *request)
{
	struct lm_pcoll a = { .kind = kind, .comm = comm, .sbuf = sendbuf,
			      .rbuf = recvbuf, .scount = count,
			      .rcounts = recvcounts, .stype = datatype,
			      .op = op, .root = root };
	/*
	 * Count and type matter everywhere; sendbuf may be MPI_IN_PLACE
	 * (where MPI allows it, the start checks).
	 */
	unsigned int chk = CHK_S | CHK_OP | (kind == PC_REDUCE ? CHK_ROOT : 0);

	return pcoll_init(fn, &a, chk, info, request);
}

int lm_pcoll_big_reduction(const char *fn, enum lm_coll c, const void *sbuf,
			   void *rbuf, MPI_Count count, const MPI_Count *counts,
			   MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
			   MPI_Info info, MPI_Request *request)
{
	static const enum lm_pc kinds[LM_NCOLL] = {
		[LM_REDUCE] = PC_REDUCE, [LM_ALLREDUCE] = PC_ALLREDUCE,
		[LM_SCAN] = PC_SCAN, [LM_EXSCAN] = PC_EXSCAN,
		[LM_REDUCE_SCATTER] = PC_REDUCE_SCATTER,
		[LM_REDUCE_SCATTER_BLOCK] = PC_REDUCE_SCATTER_BLOCK,
	};
	MPI_Count *copy = NULL;
	struct lm_pcoll *pc;
	int err;

	LM_GUARD();
	if (counts) {	/* comm is valid: the _c call checked it */
		copy = malloc((size_t)(comm->size ? comm->size : 1) *
			      sizeof(*copy));
		if (!copy)
			return lm_error(comm, fn, MPI_ERR_NO_MEM,
					"out of memory");
		memcpy(copy, counts, (size_t)comm->size * sizeof(*copy));
	}
	err = reduction_init(fn, kinds[c], sbuf, rbuf, 0, NULL, dt, op, root,
			     comm, info, request);
	if (err) {
		free(copy);
		return err;
	}
	pc = (*request)->pcoll;
	pc->bcount = count;
	pc->bcounts = copy;
	pc->kept[0] = copy;
	return MPI_SUCCESS;
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
		    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	return reduction_init("MPI_Reduce_init", PC_REDUCE, sendbuf, recvbuf,
			      count, NULL, datatype, op, root, comm, info,
			      request);
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
		       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		       MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	return reduction_init("MPI_Allreduce_init", PC_ALLREDUCE, sendbuf,
			      recvbuf, count, NULL, datatype, op, 0, comm,
			      info, request);
}

int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
			    const int recvcounts[], MPI_Datatype datatype,
			    MPI_Op op, MPI_Comm comm, MPI_Info info,
			    MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Reduce_scatter_init";

	if (!recvcounts) {
		lm_check_init(fn);
		return lm_error(comm, fn, MPI_ERR_ARG, "recvcounts is NULL");
	}
	return reduction_init(fn, PC_REDUCE_SCATTER, sendbuf, recvbuf, 0,
			      recvcounts, datatype, op, 0, comm, info,
			      request);
}

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf,
				  int recvcount, MPI_Datatype datatype,
				  MPI_Op op, MPI_Comm comm, MPI_Info info,
				  MPI_Request *request)
{
	LM_GUARD();
	return reduction_init("MPI_Reduce_scatter_block_init",
			      PC_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf,
			      recvcount, NULL, datatype, op, 0, comm, info,
			      request);
}

int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		  MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	return reduction_init("MPI_Scan_init", PC_SCAN, sendbuf, recvbuf,
			      count, NULL, datatype, op, 0, comm, info,
			      request);
}

int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	return reduction_init("MPI_Exscan_init", PC_EXSCAN, sendbuf, recvbuf,
			      count, NULL, datatype, op, 0, comm, info,
			      request);
}

/* ---- Neighbourhood collectives ------------------------------------------ */

int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount,
				MPI_Datatype sendtype, void *recvbuf,
				int recvcount, MPI_Datatype recvtype,
				MPI_Comm comm, MPI_Info info,
				MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_NB_ALLGATHER, .comm = comm,
			      .sbuf = sendbuf, .scount = sendcount,
			      .stype = sendtype, .rbuf = recvbuf,
			      .rcount = recvcount, .rtype = recvtype };

	return pcoll_init("MPI_Neighbor_allgather_init", &a, CHK_S | CHK_R,
			  info, request);
}

int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount,
				 MPI_Datatype sendtype, void *recvbuf,
				 const int recvcounts[], const int displs[],
				 MPI_Datatype recvtype, MPI_Comm comm,
				 MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_NB_ALLGATHERV, .comm = comm,
			      .sbuf = sendbuf, .scount = sendcount,
			      .stype = sendtype, .rbuf = recvbuf,
			      .rcounts = recvcounts, .rdispls = displs,
			      .rtype = recvtype };

	return pcoll_init("MPI_Neighbor_allgatherv_init", &a, CHK_S, info,
			  request);
}

int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount,
			       MPI_Datatype sendtype, void *recvbuf,
			       int recvcount, MPI_Datatype recvtype,
			       MPI_Comm comm, MPI_Info info,
			       MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_NB_ALLTOALL, .comm = comm,
			      .sbuf = sendbuf, .scount = sendcount,
			      .stype = sendtype, .rbuf = recvbuf,
			      .rcount = recvcount, .rtype = recvtype };

	return pcoll_init("MPI_Neighbor_alltoall_init", &a, CHK_S | CHK_R,
			  info, request);
}

int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
				const int sdispls[], MPI_Datatype sendtype,
				void *recvbuf, const int recvcounts[],
				const int rdispls[], MPI_Datatype recvtype,
				MPI_Comm comm, MPI_Info info,
				MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_NB_ALLTOALLV, .comm = comm,
			      .sbuf = sendbuf, .scounts = sendcounts,
			      .sdispls = sdispls, .stype = sendtype,
			      .rbuf = recvbuf, .rcounts = recvcounts,
			      .rdispls = rdispls, .rtype = recvtype };

	return pcoll_init("MPI_Neighbor_alltoallv_init", &a, 0, info,
			  request);
}

int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
				const MPI_Aint sdispls[],
				const MPI_Datatype sendtypes[], void *recvbuf,
				const int recvcounts[],
				const MPI_Aint rdispls[],
				const MPI_Datatype recvtypes[], MPI_Comm comm,
				MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	struct lm_pcoll a = { .kind = PC_NB_ALLTOALLW, .comm = comm,
			      .sbuf = sendbuf, .scounts = sendcounts,
			      .sadispls = sdispls, .stypes = sendtypes,
			      .rbuf = recvbuf, .rcounts = recvcounts,
			      .radispls = rdispls, .rtypes = recvtypes };

	return pcoll_init("MPI_Neighbor_alltoallw_init", &a, 0, info,
			  request);
}
