// SPDX-License-Identifier: MIT
/*
 * The collective calls: argument checks, MPI_IN_PLACE, and the common
 * path that builds a schedule with the selected algorithm and runs it,
 * to completion (blocking) or under a request (the I variants).
 * Rooted and all-to-all data movement: coll_api_data.c.
 */

#include <stdlib.h>
#include <string.h>

#include "coll/coll_inter.h"

int lm_coll_check(const char *fn, MPI_Comm comm, MPI_Request *request,
		  int nonblocking)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	/*
	 * Those that have a form for them went to coll_inter*.c: Scan,
	 * Exscan and the neighbourhood ones have none (MPI-3.1 5.2.2).
	 */
	if (comm->inter)
		return lm_error(comm, fn, MPI_ERR_COMM,
				"no such collective on an intercommunicator");
	LM_CC(lm_cc_begin(fn, comm));
	if (nonblocking && !request)
		return lm_error(comm, fn, MPI_ERR_REQUEST, "request is NULL");
	return MPI_SUCCESS;
}

int lm_coll_check_data(const char *fn, MPI_Comm comm, const void *buf,
		       int64_t count, MPI_Datatype dt, const char *what)
{
	if (count < 0)
		return lm_error(comm, fn, MPI_ERR_COUNT, "%s count %lld is negative",
				what, (long long)count);
	if (lm_check_datatype(dt))
		return lm_error(comm, fn, MPI_ERR_TYPE, "%s %s", what,
				lm_datatype_why(dt));
	/* NULL is MPI_BOTTOM: fine with a derived type (absolute addresses). */
	if (!buf && count > 0 && dt->predefined && dt->size)
		return lm_error(comm, fn, MPI_ERR_BUFFER, "%s buffer is NULL", what);
	return MPI_SUCCESS;
}

int lm_coll_check_root(const char *fn, MPI_Comm comm, int root)
{
	if (root < 0 || root >= comm->size)
		return lm_error(comm, fn, MPI_ERR_ROOT,
				"root %d (communicator has %d ranks)", root,
				comm->size);
	return MPI_SUCCESS;
}

static int check_op(const char *fn, MPI_Comm comm, MPI_Op op, MPI_Datatype dt)
{
	const char *why = "invalid operation";
	int err = lm_op_check(op, dt, &why);

	if (err)
		return lm_error(comm, fn, err, "%s", why);
	return MPI_SUCCESS;
}

static const char *failure(int err)
{
	switch (err) {
	case MPI_ERR_TRUNCATE:
		return "message sizes differ between ranks (counts or types do not match)";
	case MPI_ERR_PROC_FAILED:
		return "a rank of the communicator died";
	case MPI_ERR_NO_MEM:
		return "out of memory";
	default:
		return "failed";
	}
}

struct lm_sched *lm_coll_sched(const char *fn, MPI_Comm comm)
{
	struct lm_sched *s = lm_sched_new(comm);

	if (!s)
		lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a schedule");
	return s;
}

/*
 * Build the schedule with the selected algorithm and run it: to the
 * end when request is NULL, else under a new request.
 */
int lm_coll_start(struct lm_sched *s, enum lm_coll c, const char *fn,
		  struct lm_coll_args *a, MPI_Request *request)
{
	a->blocking = !request;
	a->rooted = c == LM_BCAST || c == LM_GATHER || c == LM_GATHERV ||
		c == LM_SCATTER || c == LM_SCATTERV || c == LM_REDUCE;
	return lm_coll_run(s, lm_coll_select(c, s->comm, a), fn, a, request);
}

__thread struct libmsg_request *lm_coll_into
	__attribute__((tls_model("initial-exec")));

int lm_coll_run(struct lm_sched *s, lm_algo_fn algo, const char *fn,
		struct lm_coll_args *a, MPI_Request *request)
{
	struct libmsg_comm *comm = s->comm;
	struct libmsg_request r, *req;
	int err, done = 0;
	const char *why;

	s->dt = a->dt;
	s->op = a->op;
	s->esize = lm_coll_esize(a);
	err = 0;
	LM_CC(err = lm_cc_rounds(s, &done));
	if (!err && !done)
		err = algo(s, a);
	if (err) {
		lm_sched_free(s);
		return lm_error(comm, fn, err, "%s", failure(err));
	}
	if (request) {
		/*
		 * MPI_Start of a persistent collective: under its request;
		 * a large-count reduction's slice: under the chain's.
		 */
		req = lm_pcoll_into ? lm_pcoll_into : lm_coll_into;
		lm_pcoll_into = NULL;
		lm_coll_into = NULL;
		if (!req)
			req = lm_req_new(LM_REQ_COLL);
		if (!req) {
			lm_sched_free(s);
			return lm_req_nomem(comm, fn);
		}
		req->comm = comm;
		*request = req;
		LM_CC(lm_cc_started());
		lm_sched_start(s, req);
		return MPI_SUCCESS;
	}
	lm_req_init(&r, LM_REQ_COLL);
	r.comm = comm;
	s->blocking = 1;
	LM_CC(lm_cc_started());
	lm_sched_start(s, &r);
	if (!r.done) {
		struct lm_blocked b;

		lm_blocked_comm(&b, fn, MPICHAN_WAIT_COLL, comm,
				a->rooted ? a->root : MPI_PROC_NULL, s->tag,
				a->bytes);
		lm_blocked_enter(&b);
		while (!r.done)
			lm_progress_block();
		lm_blocked_leave(&b);
	}
	err = r.status.MPI_ERROR;
	if (err) {
		why = lm_cc_on ? lm_cc_why(comm, err) : NULL;
		return lm_error(comm, fn, err, "%s", why ? why : failure(err));
	}
	return MPI_SUCCESS;
}

#define NEW_SCHED(s, fn, comm) do {				\
	(s) = lm_coll_sched(fn, comm);				\
	if (!(s))						\
		return MPI_ERR_NO_MEM;				\
} while (0)


/* After the schedule exists, an error lets it go first. */
static int sched_error(struct lm_sched *s, const char *fn, int err,
		       const char *why)
{
	struct libmsg_comm *comm = s->comm;

	lm_sched_free(s);
	return lm_error(comm, fn, err, "%s", why);
}

/* ---- Barrier, broadcast ------------------------------------------------ */

static int barrier(const char *fn, MPI_Comm comm, MPI_Request *request,
		   int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;

	if (lm_comm_is_inter(comm))
		return nb ? lm_inter_ibarrier(fn, comm, request) :
			lm_inter_barrier(fn, comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	NEW_SCHED(s, fn, comm);
	return lm_coll_start(s, LM_BARRIER, fn, &a, nb ? request : NULL);
}

int MPI_Barrier(MPI_Comm comm)
{
	LM_GUARD();
	return barrier("MPI_Barrier", comm, NULL, 0);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return barrier("MPI_Ibarrier", comm, request, 1);
}

static int bcast(const char *fn, void *buf, int count, MPI_Datatype dt,
		 int root, MPI_Comm comm, MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;

	if (lm_comm_is_inter(comm))
		return nb ? lm_inter_ibcast(fn, buf, count, dt, root, comm,
					    request) :
			lm_inter_bcast(fn, buf, count, dt, root, comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	TRY(lm_coll_check_data(fn, comm, buf, count, dt, "buffer's"));
	TRY(lm_coll_check_root(fn, comm, root));
	if (buf == MPI_IN_PLACE)
		return lm_error(comm, fn, MPI_ERR_BUFFER,
				"MPI_IN_PLACE is not allowed here");
	a.rbuf = buf;
	a.root = root;
	a.bytes = (uint64_t)count * (uint64_t)dt->size;
	LM_CC(lm_cc_args(root, NULL, 0, count, dt, 0, NULL));
	NEW_SCHED(s, fn, comm);
	/* Non-contiguous: the root sends a packed copy, the others unpack. */
	if (comm->rank == root) {
		const void *p = buf;

		if (lm_coll_send_buf(s, &p, count, dt))
			return sched_error(s, fn, MPI_ERR_NO_MEM, "out of memory for packing");
		a.rbuf = (void *)p;
	} else if (lm_coll_recv_buf(s, &a.rbuf, count, dt)) {
		return sched_error(s, fn, MPI_ERR_NO_MEM, "out of memory for packing");
	}
	return lm_coll_start(s, LM_BCAST, fn, &a, nb ? request : NULL);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
	      MPI_Comm comm)
{
	LM_GUARD();
	return bcast("MPI_Bcast", buffer, count, datatype, root, comm, NULL, 0);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
	       MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return bcast("MPI_Ibcast", buffer, count, datatype, root, comm,
		     request, 1);
}

/* ---- Reductions ------------------------------------------------------------ */

/*
 * Derived types: what the algorithms reduce (coll_dt.c).  rcount: the
 * elements of the result this rank gets in recvbuf.
 */
static int reduce_view(const char *fn, struct lm_sched *s,
		       struct lm_coll_args *a, int64_t rcount, uint64_t *mult)
{
	const char *why = "failed";
	uint64_t m;
	int err = lm_coll_reduce_view(s, a, rcount, mult ? mult : &m, &why);

	return err ? sched_error(s, fn, err, why) : MPI_SUCCESS;
}

/*
 * The checks every reduction shares.  sendbuf may be MPI_IN_PLACE where
 * `in_place_ok`; it then becomes recvbuf.
 */
static int reduction_args(const char *fn, MPI_Comm comm, const void *sendbuf,
			  void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
			  int in_place_ok, int need_recv,
			  struct lm_coll_args *a)
{
	a->in_place = sendbuf == MPI_IN_PLACE;
	if (a->in_place && !in_place_ok)
		return lm_error(comm, fn, MPI_ERR_BUFFER,
				"MPI_IN_PLACE is not allowed on this rank");
	TRY(lm_coll_check_data(fn, comm, a->in_place ? recvbuf : sendbuf,
			       count, dt, "send"));
	if (need_recv || a->in_place)
		TRY(lm_coll_check_data(fn, comm, recvbuf, count, dt, "receive"));
	if (recvbuf == MPI_IN_PLACE)
		return lm_error(comm, fn, MPI_ERR_BUFFER,
				"MPI_IN_PLACE given as the receive buffer");
	TRY(check_op(fn, comm, op, dt));
	a->sbuf = a->in_place ? recvbuf : sendbuf;
	a->rbuf = recvbuf;
	a->count = count;
	a->dt = dt;
	a->op = op;
	a->bytes = (uint64_t)count * (uint64_t)dt->size;
	return MPI_SUCCESS;
}

static int reduce(const char *fn, const void *sendbuf, void *recvbuf,
		  int count, MPI_Datatype dt, MPI_Op op, int root,
		  MPI_Comm comm, MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;

	if (lm_comm_is_inter(comm))
		return nb ? lm_inter_ireduce(fn, sendbuf, recvbuf, count, dt,
				       op, root, comm, request) :
			lm_inter_reduce(fn, sendbuf, recvbuf, count, dt,
				       op, root, comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	TRY(lm_coll_check_root(fn, comm, root));
	TRY(reduction_args(fn, comm, sendbuf, recvbuf, count, dt, op,
			   comm->rank == root, comm->rank == root, &a));
	a.root = root;
	LM_CC(lm_cc_args(root, op, a.in_place, count, dt, 0, NULL));
	NEW_SCHED(s, fn, comm);
	TRY(reduce_view(fn, s, &a, comm->rank == root ? count : 0, NULL));
	return lm_coll_start(s, LM_REDUCE, fn, &a, nb ? request : NULL);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	LM_GUARD();
	return reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op,
		      root, comm, NULL, 0);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
		MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		MPI_Request *request)
{
	LM_GUARD();
	return reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op,
		      root, comm, request, 1);
}

static int allreduce(const char *fn, const void *sendbuf, void *recvbuf,
		     int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
		     MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;

	if (lm_comm_is_inter(comm))
		return nb ? lm_inter_iallreduce(fn, sendbuf, recvbuf, count,
					  dt, op, comm, request) :
			lm_inter_allreduce(fn, sendbuf, recvbuf, count,
					  dt, op, comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	TRY(reduction_args(fn, comm, sendbuf, recvbuf, count, dt, op, 1, 1, &a));
	LM_CC(lm_cc_args(-1, op, a.in_place, count, dt, 0, NULL));
	NEW_SCHED(s, fn, comm);
	TRY(reduce_view(fn, s, &a, count, NULL));
	return lm_coll_start(s, LM_ALLREDUCE, fn, &a, nb ? request : NULL);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	LM_GUARD();
	return allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype,
			 op, comm, NULL, 0);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
		   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		   MPI_Request *request)
{
	LM_GUARD();
	return allreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype,
			 op, comm, request, 1);
}

/*
 * Reduce_scatter and _block: recvcounts[i] elements for rank i (block
 * form: recvcount each).  In place, the whole vector is in recvbuf.
 */
static int reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
			  const int recvcounts[], int recvcount,
			  MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			  MPI_Request *request, int nb, enum lm_coll c)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	uint64_t *cnt, total = 0, mult;
	int n, i, mine;

	if (lm_comm_is_inter(comm)) {
		if (c == LM_REDUCE_SCATTER && !recvcounts)
			return lm_error(comm, fn, MPI_ERR_ARG,
					"recvcounts is NULL");
		if (nb)
			return lm_inter_ireduce_scatter(fn, sendbuf, recvbuf,
							recvcounts, recvcount,
							dt, op, comm, request);
		return lm_inter_reduce_scatter(fn, sendbuf, recvbuf,
					       recvcounts, recvcount, dt,
					       op, comm);
	}
	TRY(lm_coll_check(fn, comm, request, nb));
	n = comm->size;
	if (c == LM_REDUCE_SCATTER && !recvcounts)
		return lm_error(comm, fn, MPI_ERR_ARG, "recvcounts is NULL");
	for (i = 0; i < n; i++) {
		int k = recvcounts ? recvcounts[i] : recvcount;

		if (k < 0)
			return lm_error(comm, fn, MPI_ERR_COUNT,
					"count %d for rank %d is negative", k, i);
		total += (uint64_t)k;
	}
	if (total > 0x7fffffff)
		/* More than an int in all (the blocks fit): by blocks. */
		return lm_big_reduce_scatter_n(fn, sendbuf, recvbuf,
					       recvcounts, recvcount, dt, op,
					       comm, nb ? request : NULL);
	mine = recvcounts ? recvcounts[comm->rank] : recvcount;
	TRY(reduction_args(fn, comm, sendbuf, recvbuf, (int)total, dt, op, 1,
			   0, &a));
	TRY(lm_coll_check_data(fn, comm, recvbuf, mine, dt, "receive"));
	LM_CC(lm_cc_args(-1, op, a.in_place, recvcounts ? (int64_t)total :
			 recvcount, dt, 0, NULL));
	if (recvcounts)
		LM_CC(lm_cc_counts(recvcounts, n));
	NEW_SCHED(s, fn, comm);
	TRY(reduce_view(fn, s, &a, mine, &mult));
	cnt = lm_sched_tmp(s, (uint64_t)n * sizeof(*cnt));
	if (!cnt) {
		lm_sched_free(s);
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	/* In the algorithm's elements (basic ones for a derived type). */
	for (i = 0; i < n; i++)
		cnt[i] = (uint64_t)(recvcounts ? recvcounts[i] : recvcount) * mult;
	a.rcounts = cnt;
	return lm_coll_start(s, c, fn, &a, nb ? request : NULL);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
		       const int recvcounts[], MPI_Datatype datatype,
		       MPI_Op op, MPI_Comm comm)
{
	LM_GUARD();
	return reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf,
			      recvcounts, 0, datatype, op, comm, NULL, 0,
			      LM_REDUCE_SCATTER);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
			const int recvcounts[], MPI_Datatype datatype,
			MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf,
			      recvcounts, 0, datatype, op, comm, request, 1,
			      LM_REDUCE_SCATTER);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
			     int recvcount, MPI_Datatype datatype, MPI_Op op,
			     MPI_Comm comm)
{
	LM_GUARD();
	return reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf,
			      NULL, recvcount, datatype, op, comm, NULL, 0,
			      LM_REDUCE_SCATTER_BLOCK);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
			      int recvcount, MPI_Datatype datatype, MPI_Op op,
			      MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return reduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf,
			      NULL, recvcount, datatype, op, comm, request, 1,
			      LM_REDUCE_SCATTER_BLOCK);
}

static int scan(const char *fn, const void *sendbuf, void *recvbuf, int count,
		MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
		MPI_Request *request, int nb, enum lm_coll c)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;

	TRY(lm_coll_check(fn, comm, request, nb));
	TRY(reduction_args(fn, comm, sendbuf, recvbuf, count, dt, op, 1, 1, &a));
	LM_CC(lm_cc_args(-1, op, a.in_place, count, dt, 0, NULL));
	NEW_SCHED(s, fn, comm);
	/* Exscan leaves rank 0's recvbuf alone. */
	TRY(reduce_view(fn, s, &a,
			c == LM_EXSCAN && comm->rank == 0 ? 0 : count, NULL));
	return lm_coll_start(s, c, fn, &a, nb ? request : NULL);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
	     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	LM_GUARD();
	return scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm,
		    NULL, 0, LM_SCAN);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count,
	      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
	      MPI_Request *request)
{
	LM_GUARD();
	return scan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm,
		    request, 1, LM_SCAN);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	LM_GUARD();
	return scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm,
		    NULL, 0, LM_EXSCAN);
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
		MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		MPI_Request *request)
{
	LM_GUARD();
	return scan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm,
		    request, 1, LM_EXSCAN);
}
