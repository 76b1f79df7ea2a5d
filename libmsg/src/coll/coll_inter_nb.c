// SPDX-License-Identifier: MIT
/*
 * Nonblocking collectives on intercommunicators (MPI-3.1 5.12 with
 * 5.2.2's semantics): MPI_Ibarrier, Ibcast, Igather(v), Iscatter(v),
 * Iallgather(v), Ialltoall(v, w), Ireduce, Iallreduce,
 * Ireduce_scatter(_block); the persistent ones (coll_persist.c) start
 * these.  Reductions: coll_inter_nbred.c.
 *
 * Each is one schedule (coll_sched.c) on the intercommunicator itself,
 * whose steps name remote ranks: its messages go between the groups on
 * ctx + 1, as xc's do, so the progress engine runs them like any other
 * collective and the call returns at once.  Every process of both
 * groups takes one collective sequence number of the intercommunicator
 * per call (the calls come in the same order everywhere, as MPI asks),
 * so both sides' steps carry the same tag; the tags are put at
 * LM_ITAG_NB and above, where the blocking forms' leader messages on
 * xc (small fixed tags, coll_inter.c) and uc's agreements (2^30 and
 * above) never are.  Messages within a group (lc's) come from other
 * world ranks, so never match these.
 *
 * The algorithms are direct, one round of messages then the local
 * steps, with l local and r remote processes:
 *   Ibarrier        every process sends to and hears from every remote
 *                   one (l x r empty messages, one latency)
 *   Ibcast          the root sends to each remote process
 *   Igather(v)      each remote process sends its block to the root
 *   Iscatter(v)     the root sends each remote process its block
 *   Iallgather(v), Ialltoall(v, w): each process sends its block(s) to
 *                   and receives from each remote one
 *   Ireduce         each remote process sends its vector to the root,
 *                   which reduces the r vectors in rank order
 *   Iallreduce      every process sends its vector to every remote one
 *                   and reduces the r it gets
 *   Ireduce_scatter(_block): every process sends its whole vector to
 *                   every remote one (the remote group's counts are not
 *                   known here) and reduces its own block of the r
 * All one latency; l x r messages where the blocking forms need two
 * or three local collectives and a leaders' exchange.
 */

#include <stdlib.h>

#include "coll/coll_inter.h"

/* The schedule's messages on ctx + 1 have tags of this bit and up. */
#define LM_ITAG_NB	(1 << 29)

struct lm_sched *lm_inter_sched(const char *fn, MPI_Comm ic)
{
	struct lm_sched *s = lm_coll_sched(fn, ic);

	if (s)
		s->tag = (s->tag & (LM_ITAG_NB - 1)) | LM_ITAG_NB;
	return s;
}

/* The steps are all there already. */
static int built(struct lm_sched *s, const struct lm_coll_args *a)
{
	(void)a;
	return lm_sched_round(s);
}

int lm_inter_run(const char *fn, struct lm_sched *s, int err,
		 struct lm_coll_args *a, MPI_Request *request)
{
	struct libmsg_comm *ic = s->comm;

	if (!err)
		err = lm_sched_round(s);
	if (err) {
		lm_sched_free(s);
		return lm_inter_fail(ic, fn, err);
	}
	return lm_coll_run(s, built, fn, a, request);
}

int lm_inter_req(MPI_Comm ic, const char *fn, MPI_Request *request)
{
	if (!request)
		return lm_error(ic, fn, MPI_ERR_REQUEST, "request is NULL");
	return MPI_SUCCESS;
}

#define NEW(s, fn, ic) do {					\
	(s) = lm_inter_sched(fn, ic);				\
	if (!(s))						\
		return MPI_ERR_NO_MEM;				\
} while (0)

static inline uint64_t nbytes(int count, MPI_Datatype dt)
{
	return (uint64_t)count * (uint64_t)dt->size;
}

int lm_inter_ibarrier(const char *fn, MPI_Comm ic, MPI_Request *request)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int i, err = MPI_SUCCESS;

	TRY(lm_inter_req(ic, fn, request));
	NEW(s, fn, ic);
	for (i = 0; i < ic->rsize && !err; i++) {
		err = lm_sched_recv(s, NULL, 0, i);
		if (!err)
			err = lm_sched_send(s, NULL, 0, i);
	}
	return lm_inter_run(fn, s, err, &a, request);
}

int lm_inter_ibcast(const char *fn, void *buf, int count, MPI_Datatype dt,
		    int root, MPI_Comm ic, MPI_Request *request)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int i, err = MPI_SUCCESS;
	void *p = buf;

	TRY(lm_inter_req(ic, fn, request));
	TRY(lm_inter_root(ic, fn, root));
	if (root != MPI_PROC_NULL) {
		TRY(lm_inter_no_in_place(ic, fn, buf));
		TRY(lm_coll_check_data(fn, ic, buf, count, dt, "buffer's"));
	}
	NEW(s, fn, ic);
	if (root == MPI_ROOT) {
		err = lm_coll_send_buf(s, (const void **)&p, count, dt);
		for (i = 0; i < ic->rsize && !err; i++)
			err = lm_sched_send(s, p, nbytes(count, dt), i);
	} else if (root != MPI_PROC_NULL) {
		err = lm_coll_recv_buf(s, &p, count, dt);
		if (!err)
			err = lm_sched_recv(s, p, nbytes(count, dt), root);
	}
	return lm_inter_run(fn, s, err, &a, request);
}

/*
 * r blocks in a row (count elements of dt each) to (send) or from each
 * remote process, packed when dt is not in place.
 */
static int each_block(struct lm_sched *s, int send, const void *buf,
		      int count, MPI_Datatype dt)
{
	uint64_t b = nbytes(count, dt);
	int64_t n = (int64_t)count * s->comm->rsize;
	void *p = (void *)buf;
	int i, err;

	err = send ? lm_coll_send_buf(s, (const void **)&p, n, dt) :
		lm_coll_recv_buf(s, &p, n, dt);
	for (i = 0; i < s->comm->rsize && !err; i++)
		err = send ? lm_sched_send(s, (char *)p + i * b, b, i) :
			lm_sched_recv(s, (char *)p + i * b, b, i);
	return err;
}

/* One block (count of dt) to (send) or from each remote process, or peer. */
static int one_block(struct lm_sched *s, int send, const void *buf,
		     int count, MPI_Datatype dt, int peer)
{
	void *p = (void *)buf;
	int i, err;

	err = send ? lm_coll_send_buf(s, (const void **)&p, count, dt) :
		lm_coll_recv_buf(s, &p, count, dt);
	for (i = 0; i < s->comm->rsize && !err; i++) {
		if (peer >= 0 && i != peer)
			continue;
		err = send ? lm_sched_send(s, p, nbytes(count, dt), i) :
			lm_sched_recv(s, p, nbytes(count, dt), i);
	}
	return err;
}

/*
 * Gather (scatter 0) and scatter (1): the root's buffer holds a block
 * per remote process, each remote process's one block goes to or comes
 * from the root.
 */
static int rooted(const char *fn, int scatter, const void *rootbuf,
		  int rootcount, MPI_Datatype roottype, const void *leafbuf,
		  int leafcount, MPI_Datatype leaftype, int root, MPI_Comm ic,
		  MPI_Request *request)
{
	static const char *const side[2] = { "receive", "send" };
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int err = MPI_SUCCESS;

	TRY(lm_inter_req(ic, fn, request));
	TRY(lm_inter_root(ic, fn, root));
	if (root == MPI_ROOT) {
		TRY(lm_inter_no_in_place(ic, fn, rootbuf));
		TRY(lm_coll_check_data(fn, ic, rootbuf, rootcount, roottype,
				       side[scatter]));
	} else if (root != MPI_PROC_NULL) {
		TRY(lm_inter_no_in_place(ic, fn, leafbuf));
		TRY(lm_coll_check_data(fn, ic, leafbuf, leafcount, leaftype,
				       side[!scatter]));
	}
	NEW(s, fn, ic);
	if (root == MPI_ROOT)
		err = each_block(s, scatter, rootbuf, rootcount, roottype);
	else if (root != MPI_PROC_NULL)
		err = one_block(s, !scatter, leafbuf, leafcount, leaftype, root);
	return lm_inter_run(fn, s, err, &a, request);
}

int lm_inter_igather(const char *fn, const void *sbuf, int scount,
		     MPI_Datatype stype, void *rbuf, int rcount,
		     MPI_Datatype rtype, int root, MPI_Comm ic,
		     MPI_Request *request)
{
	return rooted(fn, 0, rbuf, rcount, rtype, sbuf, scount, stype, root,
		      ic, request);
}

int lm_inter_iscatter(const char *fn, const void *sbuf, int scount,
		      MPI_Datatype stype, void *rbuf, int rcount,
		      MPI_Datatype rtype, int root, MPI_Comm ic,
		      MPI_Request *request)
{
	return rooted(fn, 1, sbuf, scount, stype, rbuf, rcount, rtype, root,
		      ic, request);
}

/*
 * The blocks of a v/w side, one per remote process: counts[i] of
 * types[i] (or dt) at displs[i] (elements, or bytes when bytes), sent
 * (recv 0) to or received from process i.
 */
static int v_blocks(const char *fn, struct lm_sched *s, int recv,
		    const void *buf, const int counts[], const int displs[],
		    const MPI_Datatype types[], MPI_Datatype dt, int bytes,
		    int *reported)
{
	int n = s->comm->rsize, i, err;
	void *p = (void *)buf;
	MPI_Datatype t;
	uint64_t *arr;
	int64_t *uoff, *wide;

	*reported = 1;
	if (!counts || !displs || (!types && !dt))
		return lm_error(s->comm, fn, MPI_ERR_ARG,
				"a count, displacement or type array is NULL");
	arr = lm_sched_tmp(s, 2 * (uint64_t)n * sizeof(*arr) + 1);
	uoff = lm_sched_tmp(s, (uint64_t)n * sizeof(*uoff) + 1);
	wide = lm_sched_tmp(s, (uint64_t)n * sizeof(*wide) + 1);
	if (!arr || !uoff || !wide)
		return lm_error(s->comm, fn, MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < n; i++) {
		t = types ? types[i] : dt;
		err = lm_coll_check_data(fn, s->comm, buf, counts[i], t,
					 "block");
		if (err)
			return err;
		if (displs[i] < 0)
			return lm_error(s->comm, fn, MPI_ERR_ARG,
					"displacement %d for remote rank %d is negative",
					displs[i], i);
		arr[i] = nbytes(counts[i], t);
		uoff[i] = bytes ? displs[i] : (int64_t)displs[i] * t->extent;
		wide[i] = counts[i];
	}
	*reported = 0;
	err = lm_coll_blocks(s, recv, &p, n, wide, uoff, types, dt, arr);
	for (i = 0; i < n && !err; i++)
		err = recv ? lm_sched_recv(s, (char *)p + arr[n + i], arr[i], i) :
			lm_sched_send(s, (char *)p + arr[n + i], arr[i], i);
	return err;
}

/* Run s unless v_blocks reported its error already. */
static int v_run(const char *fn, struct lm_sched *s, int err, int reported,
		 struct lm_coll_args *a, MPI_Request *request)
{
	if (err && reported) {
		lm_sched_free(s);
		return err;
	}
	return lm_inter_run(fn, s, err, a, request);
}

/* Gatherv (scatter 0) and scatterv (1): rooted()'s v form. */
static int rooted_v(const char *fn, int scatter, const void *rootbuf,
		    const int counts[], const int displs[],
		    MPI_Datatype roottype, const void *leafbuf, int leafcount,
		    MPI_Datatype leaftype, int root, MPI_Comm ic,
		    MPI_Request *request)
{
	static const char *const side[2] = { "receive", "send" };
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int err = MPI_SUCCESS, rep = 0;

	TRY(lm_inter_req(ic, fn, request));
	TRY(lm_inter_root(ic, fn, root));
	if (root == MPI_ROOT) {
		TRY(lm_inter_no_in_place(ic, fn, rootbuf));
	} else if (root != MPI_PROC_NULL) {
		TRY(lm_inter_no_in_place(ic, fn, leafbuf));
		TRY(lm_coll_check_data(fn, ic, leafbuf, leafcount, leaftype,
				       side[!scatter]));
	}
	NEW(s, fn, ic);
	if (root == MPI_ROOT)
		err = v_blocks(fn, s, !scatter, rootbuf, counts, displs, NULL,
			       roottype, 0, &rep);
	else if (root != MPI_PROC_NULL)
		err = one_block(s, !scatter, leafbuf, leafcount, leaftype, root);
	return v_run(fn, s, err, rep, &a, request);
}

int lm_inter_igatherv(const char *fn, const void *sbuf, int scount,
		      MPI_Datatype stype, void *rbuf, const int rcounts[],
		      const int displs[], MPI_Datatype rtype, int root,
		      MPI_Comm ic, MPI_Request *request)
{
	return rooted_v(fn, 0, rbuf, rcounts, displs, rtype, sbuf, scount,
			stype, root, ic, request);
}

int lm_inter_iscatterv(const char *fn, const void *sbuf, const int scounts[],
		       const int displs[], MPI_Datatype stype, void *rbuf,
		       int rcount, MPI_Datatype rtype, int root, MPI_Comm ic,
		       MPI_Request *request)
{
	return rooted_v(fn, 1, sbuf, scounts, displs, stype, rbuf, rcount,
			rtype, root, ic, request);
}

int lm_inter_iallgather(const char *fn, const void *sbuf, int scount,
			MPI_Datatype stype, void *rbuf, int rcount,
			MPI_Datatype rtype, MPI_Comm ic, MPI_Request *request)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int err;

	TRY(lm_inter_req(ic, fn, request));
	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	TRY(lm_coll_check_data(fn, ic, sbuf, scount, stype, "send"));
	TRY(lm_coll_check_data(fn, ic, rbuf, rcount, rtype, "receive"));
	NEW(s, fn, ic);
	err = one_block(s, 1, sbuf, scount, stype, -1);
	if (!err)
		err = each_block(s, 0, rbuf, rcount, rtype);
	return lm_inter_run(fn, s, err, &a, request);
}

int lm_inter_iallgatherv(const char *fn, const void *sbuf, int scount,
			 MPI_Datatype stype, void *rbuf, const int rcounts[],
			 const int displs[], MPI_Datatype rtype, MPI_Comm ic,
			 MPI_Request *request)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int err, rep = 0;

	TRY(lm_inter_req(ic, fn, request));
	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	TRY(lm_coll_check_data(fn, ic, sbuf, scount, stype, "send"));
	NEW(s, fn, ic);
	err = one_block(s, 1, sbuf, scount, stype, -1);
	if (!err)
		err = v_blocks(fn, s, 1, rbuf, rcounts, displs, NULL, rtype, 0,
			       &rep);
	return v_run(fn, s, err, rep, &a, request);
}

int lm_inter_ialltoall(const char *fn, const void *sbuf, int scount,
		       MPI_Datatype stype, void *rbuf, int rcount,
		       MPI_Datatype rtype, MPI_Comm ic, MPI_Request *request)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int err;

	TRY(lm_inter_req(ic, fn, request));
	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	TRY(lm_coll_check_data(fn, ic, sbuf, scount, stype, "send"));
	TRY(lm_coll_check_data(fn, ic, rbuf, rcount, rtype, "receive"));
	NEW(s, fn, ic);
	err = each_block(s, 1, sbuf, scount, stype);
	if (!err)
		err = each_block(s, 0, rbuf, rcount, rtype);
	return lm_inter_run(fn, s, err, &a, request);
}

int lm_inter_ialltoallvw(const char *fn, const void *sbuf,
			 const int scounts[], const int sdispls[],
			 const MPI_Datatype *stypes, MPI_Datatype stype,
			 void *rbuf, const int rcounts[], const int rdispls[],
			 const MPI_Datatype *rtypes, MPI_Datatype rtype,
			 MPI_Comm ic, int w, MPI_Request *request)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int err, rep = 0;

	TRY(lm_inter_req(ic, fn, request));
	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	TRY(lm_inter_no_in_place(ic, fn, rbuf));
	if (w && (!stypes || !rtypes))
		return lm_error(ic, fn, MPI_ERR_ARG, "a type array is NULL");
	NEW(s, fn, ic);
	err = v_blocks(fn, s, 0, sbuf, scounts, sdispls, stypes, stype, w,
		       &rep);
	if (!err)
		err = v_blocks(fn, s, 1, rbuf, rcounts, rdispls, rtypes, rtype,
			       w, &rep);
	return v_run(fn, s, err, rep, &a, request);
}
