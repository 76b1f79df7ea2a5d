// SPDX-License-Identifier: MIT
/*
 * The large-count reductions of MPI-4.0 (MPI_Reduce_c, MPI_Iallreduce_c,
 * MPI_Scan_init_c, ...).  A count that fits in an int goes to the int
 * call as it is; beyond, the reduction runs in slices of LM_BIG_SLICE
 * elements, each a reduction of its own: reductions work element by
 * element and every rank has the same count, so slice k on one rank
 * meets slice k on the others.
 *   - blocking: one slice after the other;
 *   - nonblocking: every slice's I call is made at once, in order (as a
 *     program may make several: every rank starts them in the same
 *     place among its other collectives), each under a request of a
 *     schedule of their own (the chain) that holds it, and the user's
 *     request completes when the last slice has;
 *   - persistent: each MPI_Start runs the nonblocking form under the
 *     persistent request (coll_persist.c keeps the count whole).
 * The cost is the int call's for each slice, plus a schedule and a
 * request for a nonblocking one: nothing next to 2^30 elements.
 * Reduce_scatter_block beyond an int is MPI_ERR_COUNT (a slice of every
 * rank's block is no contiguous buffer; libmsg/README.md, Not yet).
 */

#include <limits.h>
#include <stdlib.h>

#include "coll/coll_big.h"

#define LM_BIG_SLICE	((MPI_Count)1 << 30)

/*
 * A reduction's count: itself if it fits in an int; else, where slices
 * do (non-zero), the caller goes slice by slice.
 */
static int red_count(const char *fn, MPI_Comm comm, MPI_Count count,
		     MPI_Datatype dt, int slices, int64_t *extent)
{
	if (count < 0)
		return lm_error(comm, fn, MPI_ERR_COUNT, "count %lld is negative",
				(long long)count);
	if (count <= INT_MAX)
		return MPI_SUCCESS;
	if (!slices)
		return lm_error(comm, fn, MPI_ERR_COUNT,
				"%lld elements: libmsg's reduce_scatter_block takes at most INT_MAX (Not yet)",
				(long long)count);
	if (lm_check_datatype(dt))
		return lm_error(comm, fn, MPI_ERR_TYPE, "%s", lm_datatype_why(dt));
	*extent = dt->extent;
	return MPI_SUCCESS;
}

/* Slice k of a buffer: MPI_IN_PLACE and NULL stay what they are. */
static inline void *slice(const void *buf, MPI_Count at, int64_t extent)
{
	if (buf == MPI_IN_PLACE || !buf)
		return (void *)buf;
	return (char *)buf + at * extent;
}

static inline int slice_n(MPI_Count count, MPI_Count at)
{
	return (int)(count - at < LM_BIG_SLICE ? count - at : LM_BIG_SLICE);
}

/* ---- Nonblocking and persistent: the chain ------------------------------- */

enum big_red_kind { BR_REDUCE, BR_ALLREDUCE, BR_SCAN, BR_EXSCAN };

/* A nonblocking reduction beyond an int: its arguments and its slices. */
struct big_red {
	enum big_red_kind kind;
	const void *sbuf;
	void *rbuf;
	MPI_Count count;
	int64_t ext;
	MPI_Datatype dt;
	MPI_Op op;
	int root;
	MPI_Comm comm;
	int nslices;
	struct libmsg_request sub[];	/* slice k runs under sub[k] */
};

/* Slice at..: the int call's I form, run under r. */
static int big_red_slice(const struct big_red *b, MPI_Count at,
			 struct libmsg_request *r)
{
	const void *sb = slice(b->sbuf, at, b->ext);
	void *rb = slice(b->rbuf, at, b->ext);
	int n = slice_n(b->count, at), err = MPI_ERR_INTERN;
	MPI_Request ignored;

	lm_coll_into = r;
	switch (b->kind) {
	case BR_REDUCE:
		err = MPI_Ireduce(sb, rb, n, b->dt, b->op, b->root, b->comm,
				  &ignored);
		break;
	case BR_ALLREDUCE:
		err = MPI_Iallreduce(sb, rb, n, b->dt, b->op, b->comm, &ignored);
		break;
	case BR_SCAN:
		err = MPI_Iscan(sb, rb, n, b->dt, b->op, b->comm, &ignored);
		break;
	case BR_EXSCAN:
		err = MPI_Iexscan(sb, rb, n, b->dt, b->op, b->comm, &ignored);
		break;
	}
	lm_coll_into = NULL;
	return err;
}

/*
 * The chain's one step: start every slice, each a hold on the chain
 * until its request completes (lm_sched_step_done).  A slice that
 * cannot start (its call raised the error) ends the chain with that
 * error once those started are over.
 */
static int big_red_start(struct lm_sched *s, struct lm_step *st)
{
	struct big_red *b = st->dst;
	int k, err;

	for (k = 0; k < b->nslices; k++) {
		lm_req_init(&b->sub[k], LM_REQ_COLL);
		b->sub[k].sched = s;
		lm_sched_hold(s);
		err = big_red_slice(b, (MPI_Count)k * LM_BIG_SLICE, &b->sub[k]);
		if (err) {
			lm_sched_release(s, err);
			return err;
		}
	}
	return MPI_SUCCESS;
}

/*
 * Start the chain for a (count beyond an int, datatype checked): under
 * the persistent request MPI_Start runs (lm_pcoll_into), else a new one
 * in *request.  What the slices would all refuse is refused here.
 */
static int big_red_run(const char *fn, const struct big_red *a,
		       MPI_Request *request)
{
	struct libmsg_request *into = lm_pcoll_into, *req;
	struct libmsg_comm *comm = a->comm;
	int n = (int)((a->count + LM_BIG_SLICE - 1) / LM_BIG_SLICE), err;
	const char *why = "invalid operation";
	struct big_red *b;
	struct lm_step *st;
	struct lm_sched *s;

	lm_pcoll_into = NULL;
	if (!request)
		return lm_error(comm, fn, MPI_ERR_REQUEST, "request is NULL");
	if (comm->inter && (a->kind == BR_SCAN || a->kind == BR_EXSCAN))
		return lm_error(comm, fn, MPI_ERR_COMM,
				"no such collective on an intercommunicator");
	if (!comm->inter && a->kind == BR_REDUCE) {
		err = lm_coll_check_root(fn, comm, a->root);
		if (err)
			return err;
	}
	err = lm_op_check(a->op, a->dt, &why);
	if (err)
		return lm_error(comm, fn, err, "%s", why);
	s = lm_coll_sched(fn, comm);
	if (!s)
		return MPI_ERR_NO_MEM;
	b = lm_sched_tmp(s, sizeof(*b) + (size_t)n * sizeof(b->sub[0]));
	st = b ? lm_sched_call(s, big_red_start) : NULL;
	req = into ? into : lm_req_new(LM_REQ_COLL);
	if (!st || !req) {
		if (req && !into)
			lm_req_release(req);
		lm_sched_free(s);
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	*b = *a;
	b->nslices = n;
	st->dst = b;
	req->comm = comm;
	*request = req;
	lm_sched_start(s, req);
	return MPI_SUCCESS;
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	static const char fn[] = "MPI_Reduce_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Reduce(sendbuf, recvbuf, (int)count, datatype, op,
				  root, comm);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Reduce(slice(sendbuf, at, ext),
				 slice(recvbuf, at, ext), slice_n(count, at),
				 datatype, op, root, comm);
	return err;
}

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	static const char fn[] = "MPI_Ireduce_c";
	struct big_red b = {
		.kind = BR_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf,
		.count = count, .dt = datatype, .op = op, .root = root,
		.comm = comm,
	};
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &b.ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Ireduce(sendbuf, recvbuf, (int)count, datatype, op,
				   root, comm, request);
	return big_red_run(fn, &b, request);
}

int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		      MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Reduce_init_c";
	int64_t ext = 0;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Reduce_init(sendbuf, recvbuf, (int)count, datatype,
				       op, root, comm, info, request);
	return lm_pcoll_big_reduction(fn, LM_REDUCE, sendbuf, recvbuf, count,
				      datatype, op, root, comm, info, request);
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	static const char fn[] = "MPI_Allreduce_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Allreduce(sendbuf, recvbuf, (int)count, datatype, op,
				comm);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Allreduce(slice(sendbuf, at, ext),
				    slice(recvbuf, at, ext), slice_n(count, at),
				    datatype, op, comm);
	return err;
}

int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		     MPI_Request *request)
{
	static const char fn[] = "MPI_Iallreduce_c";
	struct big_red b = {
		.kind = BR_ALLREDUCE, .sbuf = sendbuf, .rbuf = recvbuf,
		.count = count, .dt = datatype, .op = op, .root = 0,
		.comm = comm,
	};
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &b.ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Iallreduce(sendbuf, recvbuf, (int)count, datatype,
				      op, comm, request);
	return big_red_run(fn, &b, request);
}

int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			 MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Allreduce_init_c";
	int64_t ext = 0;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Allreduce_init(sendbuf, recvbuf, (int)count,
					  datatype, op, comm, info, request);
	return lm_pcoll_big_reduction(fn, LM_ALLREDUCE, sendbuf, recvbuf, count,
				      datatype, op, 0, comm, info, request);
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
	       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	static const char fn[] = "MPI_Scan_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Scan(sendbuf, recvbuf, (int)count, datatype, op,
				comm);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Scan(slice(sendbuf, at, ext), slice(recvbuf, at, ext),
			       slice_n(count, at), datatype, op, comm);
	return err;
}

int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		MPI_Request *request)
{
	static const char fn[] = "MPI_Iscan_c";
	struct big_red b = {
		.kind = BR_SCAN, .sbuf = sendbuf, .rbuf = recvbuf,
		.count = count, .dt = datatype, .op = op, .root = 0,
		.comm = comm,
	};
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &b.ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Iscan(sendbuf, recvbuf, (int)count, datatype, op,
				 comm, request);
	return big_red_run(fn, &b, request);
}

int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Scan_init_c";
	int64_t ext = 0;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Scan_init(sendbuf, recvbuf, (int)count, datatype,
				     op, comm, info, request);
	return lm_pcoll_big_reduction(fn, LM_SCAN, sendbuf, recvbuf, count,
				      datatype, op, 0, comm, info, request);
}

int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	static const char fn[] = "MPI_Exscan_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Exscan(sendbuf, recvbuf, (int)count, datatype, op,
				comm);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Exscan(slice(sendbuf, at, ext),
				 slice(recvbuf, at, ext), slice_n(count, at),
				 datatype, op, comm);
	return err;
}

int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		  MPI_Request *request)
{
	static const char fn[] = "MPI_Iexscan_c";
	struct big_red b = {
		.kind = BR_EXSCAN, .sbuf = sendbuf, .rbuf = recvbuf,
		.count = count, .dt = datatype, .op = op, .root = 0,
		.comm = comm,
	};
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &b.ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Iexscan(sendbuf, recvbuf, (int)count, datatype, op,
				   comm, request);
	return big_red_run(fn, &b, request);
}

int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		      MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Exscan_init_c";
	int64_t ext = 0;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Exscan_init(sendbuf, recvbuf, (int)count, datatype,
				       op, comm, info, request);
	return lm_pcoll_big_reduction(fn, LM_EXSCAN, sendbuf, recvbuf, count,
				      datatype, op, 0, comm, info, request);
}

int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
		       MPI_Datatype datatype, MPI_Op op)
{
	static const char fn[] = "MPI_Reduce_local_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = red_count(fn, NULL, count, datatype, 1, &ext);

	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Reduce_local(inbuf, inoutbuf, (int)count, datatype,
					op);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Reduce_local(slice(inbuf, at, ext),
				       slice(inoutbuf, at, ext),
				       slice_n(count, at), datatype, op);
	return err;
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
			       MPI_Count recvcount, MPI_Datatype datatype,
			       MPI_Op op, MPI_Comm comm)
{
	static const char fn[] = "MPI_Reduce_scatter_block_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, recvcount, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Reduce_scatter_block(sendbuf, recvbuf, (int)recvcount,
					datatype, op, comm);
}

int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf,
				MPI_Count recvcount, MPI_Datatype datatype,
				MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ireduce_scatter_block_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, recvcount, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Ireduce_scatter_block(sendbuf, recvbuf, (int)recvcount,
					 datatype, op, comm, request);
}

int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf,
				    MPI_Count recvcount, MPI_Datatype datatype,
				    MPI_Op op, MPI_Comm comm, MPI_Info info,
				    MPI_Request *request)
{
	static const char fn[] = "MPI_Reduce_scatter_block_init_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, recvcount, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Reduce_scatter_block_init(sendbuf, recvbuf, (int)recvcount,
					     datatype, op, comm, info, request);
}
