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
 *     persistent request (coll_persist.c keeps the count, or
 *     reduce_scatter's counts, whole);
 *   - reduce_scatter (block or v, the int calls' too when the vector
 *     passes an int): one reduction a rank, of its block, in slices
 *     (lm_big_reduce_scatter).
 * The cost is the int call's for each slice, plus a schedule and a
 * request for a nonblocking one: nothing next to 2^30 elements.
 * An intercommunicator's reduce_scatter beyond an int is MPI_ERR_COUNT
 * (libmsg/README.md, Not yet).
 */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_big.h"

#define LM_BIG_SLICE	((MPI_Count)1 << 30)

/* A reduction's count: negative is an error; beyond an int, dt is checked. */
static int red_count(const char *fn, MPI_Comm comm, MPI_Count count,
		     MPI_Datatype dt, int64_t *extent)
{
	if (count < 0)
		return lm_error(comm, fn, MPI_ERR_COUNT, "count %lld is negative",
				(long long)count);
	if (count <= INT_MAX)
		return MPI_SUCCESS;
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

enum big_red_kind { BR_REDUCE, BR_ALLREDUCE, BR_SCAN, BR_EXSCAN, BR_RS };

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
	/* BR_RS: every rank's block count; in place, this rank's result. */
	MPI_Count *counts;
	void *tmp;
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
	case BR_RS:	/* big_rs_start's */
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
static int big_rs_prepare(struct lm_sched *s, struct big_red *b);
static int big_rs_start(struct lm_sched *s, struct big_red *b);

static int big_red_start(struct lm_sched *s, struct lm_step *st)
{
	struct big_red *b = st->dst;
	int k, err;

	if (b->kind == BR_RS)
		return big_rs_start(s, b);
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
	int n = a->kind == BR_RS ? a->nslices :
		(int)((a->count + LM_BIG_SLICE - 1) / LM_BIG_SLICE), err;
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
	if (a->kind == BR_RS && big_rs_prepare(s, b)) {
		if (!into)
			lm_req_release(req);
		lm_sched_free(s);
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	st->dst = b;
	req->comm = comm;
	*request = req;
	lm_sched_start(s, req);
	return MPI_SUCCESS;
}

/* ---- Reduce_scatter beyond an int ------------------------------------------ */

/*
 * Reduce_scatter (block or v) with a block or the whole vector beyond
 * an int: one reduction a rank, of its block to it as the root, in
 * slices, all started at once under the chain.  Every rank has the
 * same counts (MPI asks it), so every rank makes the same slices in the
 * same order.  Cost: each rank sends every block but its own once, as
 * a direct reduce-scatter does, and each root reduces the P blocks it
 * gets (a tree of them, the reduce algorithm's); no copy but, in
 * place, the root's result, kept aside while the other blocks still
 * leave from where it goes (a block's worth of memory).
 */

/* Copy the in-place result where it goes, once no block reads it. */
static void big_rs_fini(struct lm_sched *s)
{
	struct big_red *b = s->fini_arg;

	if (!s->err && b->tmp)
		memcpy(b->rbuf, b->tmp,
		       (size_t)(b->counts[b->comm->rank] * b->ext));
}

/* The chain's own copy of the counts, and the in-place temporary. */
static int big_rs_prepare(struct lm_sched *s, struct big_red *b)
{
	int np = b->comm->size, me = b->comm->rank;
	const MPI_Count *given = b->counts;

	b->counts = lm_sched_tmp(s, (uint64_t)np * sizeof(*b->counts));
	if (!b->counts)
		return -1;
	memcpy(b->counts, given, (size_t)np * sizeof(*b->counts));
	b->tmp = NULL;
	if (b->sbuf == MPI_IN_PLACE && me > 0 && b->counts[me] > 0) {
		b->tmp = lm_sched_tmp(s, (uint64_t)(b->counts[me] * b->ext));
		if (!b->tmp)
			return -1;
	}
	s->fini = big_rs_fini;
	s->fini_arg = b;
	return 0;
}

/*
 * Every block's slices: block i's (from the send buffer, or in place
 * from the receive buffer's vector) reduced to rank i, into its
 * receive buffer (in place: rank 0's own block is there already, the
 * others' results go to tmp).
 */
static int big_rs_start(struct lm_sched *s, struct big_red *b)
{
	int np = b->comm->size, me = b->comm->rank, in_place, i, k = 0, n;
	const char *base;
	MPI_Count off = 0, at;
	MPI_Request ignored;
	const void *sb;
	void *rb;
	int err;

	in_place = b->sbuf == MPI_IN_PLACE;
	base = in_place ? b->rbuf : b->sbuf;
	for (i = 0; i < np; off += b->counts[i], i++) {
		for (at = 0; at < b->counts[i]; at += LM_BIG_SLICE) {
			n = slice_n(b->counts[i], at);
			sb = base + (off + at) * b->ext;
			rb = NULL;
			if (i == me && !in_place)
				rb = (char *)b->rbuf + at * b->ext;
			else if (i == me && me == 0) {
				sb = MPI_IN_PLACE;
				rb = (char *)b->rbuf + at * b->ext;
			} else if (i == me)
				rb = (char *)b->tmp + at * b->ext;
			lm_req_init(&b->sub[k], LM_REQ_COLL);
			b->sub[k].sched = s;
			lm_sched_hold(s);
			lm_coll_into = &b->sub[k++];
			err = MPI_Ireduce(sb, rb, n, b->dt, b->op, i, b->comm,
					  &ignored);
			lm_coll_into = NULL;
			if (err) {
				lm_sched_release(s, err);
				return err;
			}
		}
	}
	return MPI_SUCCESS;
}

int lm_big_reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
			  const MPI_Count counts[], MPI_Datatype dt, MPI_Op op,
			  MPI_Comm comm, MPI_Request *request)
{
	struct big_red b = {
		.kind = BR_RS, .sbuf = sendbuf, .rbuf = recvbuf, .dt = dt,
		.op = op, .comm = comm, .counts = (MPI_Count *)counts,
	};
	MPI_Request r;
	int i, err;

	if (comm->inter)
		return lm_error(comm, fn, MPI_ERR_COUNT,
				"an intercommunicator's reduce_scatter takes at most INT_MAX elements in all (Not yet)");
	if (lm_check_datatype(dt))
		return lm_error(comm, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(dt));
	b.ext = dt->extent;
	for (i = 0; i < comm->size; i++)
		b.nslices += (int)((counts[i] + LM_BIG_SLICE - 1) /
				   LM_BIG_SLICE);
	if (request)
		return big_red_run(fn, &b, request);
	err = big_red_run(fn, &b, &r);
	if (!err)
		err = MPI_Wait(&r, MPI_STATUS_IGNORE);
	return err;
}

/* The same with int counts (NULL: block for every rank), made MPI_Counts. */
int lm_big_reduce_scatter_n(const char *fn, const void *sendbuf,
			    void *recvbuf, const int counts[], MPI_Count block,
			    MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			    MPI_Request *request)
{
	MPI_Count *c = malloc((size_t)(comm->size ? comm->size : 1) *
			      sizeof(*c));
	int i, err;

	if (!c)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < comm->size; i++)
		c[i] = counts ? counts[i] : block;
	err = lm_big_reduce_scatter(fn, sendbuf, recvbuf, c, dt, op, comm,
				    request);
	free(c);
	return err;
}

/* ---- The entries ------------------------------------------------------------- */

enum big_red_mode { BR_BLOCKING, BR_NONBLOCKING, BR_PERSISTENT };

/* The int call of b's kind in mode, on n elements from sb into rb. */
static int red_int(const struct big_red *b, enum big_red_mode mode,
		   const void *sb, void *rb, int n, MPI_Info info,
		   MPI_Request *r)
{
	MPI_Datatype dt = b->dt;
	MPI_Comm c = b->comm;
	MPI_Op op = b->op;

	switch (b->kind) {
	case BR_REDUCE:
		return mode == BR_BLOCKING ?
			MPI_Reduce(sb, rb, n, dt, op, b->root, c) :
			mode == BR_NONBLOCKING ?
			MPI_Ireduce(sb, rb, n, dt, op, b->root, c, r) :
			MPI_Reduce_init(sb, rb, n, dt, op, b->root, c, info, r);
	case BR_ALLREDUCE:
		return mode == BR_BLOCKING ?
			MPI_Allreduce(sb, rb, n, dt, op, c) :
			mode == BR_NONBLOCKING ?
			MPI_Iallreduce(sb, rb, n, dt, op, c, r) :
			MPI_Allreduce_init(sb, rb, n, dt, op, c, info, r);
	case BR_SCAN:
		return mode == BR_BLOCKING ? MPI_Scan(sb, rb, n, dt, op, c) :
			mode == BR_NONBLOCKING ?
			MPI_Iscan(sb, rb, n, dt, op, c, r) :
			MPI_Scan_init(sb, rb, n, dt, op, c, info, r);
	case BR_EXSCAN:
		return mode == BR_BLOCKING ? MPI_Exscan(sb, rb, n, dt, op, c) :
			mode == BR_NONBLOCKING ?
			MPI_Iexscan(sb, rb, n, dt, op, c, r) :
			MPI_Exscan_init(sb, rb, n, dt, op, c, info, r);
	case BR_RS:	/* lm_big_reduce_scatter's */
		break;
	}
	return MPI_ERR_INTERN;
}

/*
 * Every reduction's _c call: the int call when the count fits; beyond,
 * slice after slice (blocking), the chain (nonblocking), or a
 * persistent request that runs the chain at each start.
 */
static int big_red_entry(const char *fn, struct big_red *b,
			 enum big_red_mode mode, MPI_Info info,
			 MPI_Request *request)
{
	static const enum lm_coll pcoll[] = {
		[BR_REDUCE] = LM_REDUCE, [BR_ALLREDUCE] = LM_ALLREDUCE,
		[BR_SCAN] = LM_SCAN, [BR_EXSCAN] = LM_EXSCAN,
	};
	int err = lm_check_comm(b->comm, fn);
	MPI_Count at;

	if (!err)
		err = red_count(fn, b->comm, b->count, b->dt, &b->ext);
	if (err)
		return err;
	if (b->count <= INT_MAX)
		return red_int(b, mode, b->sbuf, b->rbuf, (int)b->count, info,
			       request);
	switch (mode) {
	case BR_NONBLOCKING:
		return big_red_run(fn, b, request);
	case BR_PERSISTENT:
		return lm_pcoll_big_reduction(fn, pcoll[b->kind], b->sbuf,
					      b->rbuf, b->count, NULL, b->dt,
					      b->op, b->root, b->comm, info,
					      request);
	case BR_BLOCKING:
		break;
	}
	for (at = 0; at < b->count && !err; at += LM_BIG_SLICE)
		err = red_int(b, BR_BLOCKING, slice(b->sbuf, at, b->ext),
			      slice(b->rbuf, at, b->ext), slice_n(b->count, at),
			      MPI_INFO_NULL, NULL);
	return err;
}

#define BIG_RED(k, sb, rb, n, t, o, r, c)				\
	((struct big_red){ .kind = (k), .sbuf = (sb), .rbuf = (rb),	\
			   .count = (n), .dt = (t), .op = (o),		\
			   .root = (r), .comm = (c) })

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	struct big_red b = BIG_RED(BR_REDUCE, sendbuf, recvbuf, count,
				   datatype, op, root, comm);

	return big_red_entry("MPI_Reduce_c", &b, BR_BLOCKING, MPI_INFO_NULL,
			     NULL);
}

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	struct big_red b = BIG_RED(BR_REDUCE, sendbuf, recvbuf, count,
				   datatype, op, root, comm);

	return big_red_entry("MPI_Ireduce_c", &b, BR_NONBLOCKING,
			     MPI_INFO_NULL, request);
}

int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		      MPI_Info info, MPI_Request *request)
{
	struct big_red b = BIG_RED(BR_REDUCE, sendbuf, recvbuf, count,
				   datatype, op, root, comm);

	return big_red_entry("MPI_Reduce_init_c", &b, BR_PERSISTENT, info,
			     request);
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	struct big_red b = BIG_RED(BR_ALLREDUCE, sendbuf, recvbuf, count,
				   datatype, op, 0, comm);

	return big_red_entry("MPI_Allreduce_c", &b, BR_BLOCKING,
			     MPI_INFO_NULL, NULL);
}

int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		     MPI_Request *request)
{
	struct big_red b = BIG_RED(BR_ALLREDUCE, sendbuf, recvbuf, count,
				   datatype, op, 0, comm);

	return big_red_entry("MPI_Iallreduce_c", &b, BR_NONBLOCKING,
			     MPI_INFO_NULL, request);
}

int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			 MPI_Info info, MPI_Request *request)
{
	struct big_red b = BIG_RED(BR_ALLREDUCE, sendbuf, recvbuf, count,
				   datatype, op, 0, comm);

	return big_red_entry("MPI_Allreduce_init_c", &b, BR_PERSISTENT, info,
			     request);
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
	       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	struct big_red b = BIG_RED(BR_SCAN, sendbuf, recvbuf, count, datatype,
				   op, 0, comm);

	return big_red_entry("MPI_Scan_c", &b, BR_BLOCKING, MPI_INFO_NULL,
			     NULL);
}

int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		MPI_Request *request)
{
	struct big_red b = BIG_RED(BR_SCAN, sendbuf, recvbuf, count, datatype,
				   op, 0, comm);

	return big_red_entry("MPI_Iscan_c", &b, BR_NONBLOCKING, MPI_INFO_NULL,
			     request);
}

int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	struct big_red b = BIG_RED(BR_SCAN, sendbuf, recvbuf, count, datatype,
				   op, 0, comm);

	return big_red_entry("MPI_Scan_init_c", &b, BR_PERSISTENT, info,
			     request);
}

int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	struct big_red b = BIG_RED(BR_EXSCAN, sendbuf, recvbuf, count,
				   datatype, op, 0, comm);

	return big_red_entry("MPI_Exscan_c", &b, BR_BLOCKING, MPI_INFO_NULL,
			     NULL);
}

int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		  MPI_Request *request)
{
	struct big_red b = BIG_RED(BR_EXSCAN, sendbuf, recvbuf, count,
				   datatype, op, 0, comm);

	return big_red_entry("MPI_Iexscan_c", &b, BR_NONBLOCKING,
			     MPI_INFO_NULL, request);
}

int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		      MPI_Info info, MPI_Request *request)
{
	struct big_red b = BIG_RED(BR_EXSCAN, sendbuf, recvbuf, count,
				   datatype, op, 0, comm);

	return big_red_entry("MPI_Exscan_init_c", &b, BR_PERSISTENT, info,
			     request);
}

int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
		       MPI_Datatype datatype, MPI_Op op)
{
	static const char fn[] = "MPI_Reduce_local_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = red_count(fn, NULL, count, datatype, &ext);

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

/*
 * Reduce_scatter_block's three forms: a block beyond an int is
 * lm_big_reduce_scatter's (persistent: at each start).
 */
static int rs_block(const char *fn, const void *sendbuf, void *recvbuf,
		    MPI_Count recvcount, MPI_Datatype dt, MPI_Op op,
		    MPI_Comm comm, enum big_red_mode mode, MPI_Info info,
		    MPI_Request *request)
{
	int64_t ext = 0;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, recvcount, dt, &ext);
	if (err)
		return err;
	if (recvcount <= INT_MAX) {
		int n = (int)recvcount;

		return mode == BR_BLOCKING ?
			MPI_Reduce_scatter_block(sendbuf, recvbuf, n, dt, op,
						 comm) :
			mode == BR_NONBLOCKING ?
			MPI_Ireduce_scatter_block(sendbuf, recvbuf, n, dt, op,
						  comm, request) :
			MPI_Reduce_scatter_block_init(sendbuf, recvbuf, n, dt,
						      op, comm, info, request);
	}
	if (mode == BR_PERSISTENT && !comm->inter)
		return lm_pcoll_big_reduction(fn, LM_REDUCE_SCATTER_BLOCK,
					      sendbuf, recvbuf, recvcount, NULL,
					      dt, op, 0, comm, info, request);
	return lm_big_reduce_scatter_n(fn, sendbuf, recvbuf, NULL, recvcount,
				       dt, op, comm,
				       mode == BR_BLOCKING ? NULL : request);
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
			       MPI_Count recvcount, MPI_Datatype datatype,
			       MPI_Op op, MPI_Comm comm)
{
	return rs_block("MPI_Reduce_scatter_block_c", sendbuf, recvbuf,
			recvcount, datatype, op, comm, BR_BLOCKING,
			MPI_INFO_NULL, NULL);
}

int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf,
				MPI_Count recvcount, MPI_Datatype datatype,
				MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return rs_block("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf,
			recvcount, datatype, op, comm, BR_NONBLOCKING,
			MPI_INFO_NULL, request);
}

int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf,
				    MPI_Count recvcount, MPI_Datatype datatype,
				    MPI_Op op, MPI_Comm comm, MPI_Info info,
				    MPI_Request *request)
{
	return rs_block("MPI_Reduce_scatter_block_init_c", sendbuf, recvbuf,
			recvcount, datatype, op, comm, BR_PERSISTENT, info,
			request);
}
