// SPDX-License-Identifier: MIT
/*
 * Nonblocking collectives on intercommunicators, reductions: Ireduce,
 * Iallreduce, Ireduce_scatter, Ireduce_scatter_block (schedules as in
 * coll_inter_nb.c, whose opening comment gives their cost).  A group's
 * result is the reduction of the other group's vectors, in that
 * group's rank order: v0 op (v1 op (... op v(r-1))), which is what a
 * non-commutative op must see.  Derived types go through the same
 * views as the intracommunicator's reductions (coll_dt.c).
 */

#include "coll/coll_inter.h"

/* One side's buffer, count, type and op, checked as MPI asks. */
static int red_check(const char *fn, MPI_Comm ic, const void *buf, int count,
		     MPI_Datatype dt, MPI_Op op, const char *what)
{
	const char *why = "invalid operation";
	int err;

	TRY(lm_inter_no_in_place(ic, fn, buf));
	TRY(lm_coll_check_data(fn, ic, buf, count, dt, what));
	err = lm_op_check(op, dt, &why);
	return err ? lm_error(ic, fn, err, "%s", why) : MPI_SUCCESS;
}

/*
 * Receive a vector of n elements (e bytes each) from every remote
 * process, then (next round) make acc elements [off, off + len) of
 * their reduction in rank order.
 */
static int fold_remote(struct lm_sched *s, void *acc, uint64_t e, int n,
		       int off, int len)
{
	int r = s->comm->rsize, i, err = MPI_SUCCESS;
	int direct = off == 0 && len == n;	/* the last straight into acc */
	uint64_t vb = (uint64_t)n * e, o = (uint64_t)off * e;
	char *t = lm_sched_tmp(s, (uint64_t)(direct ? r - 1 : r) * vb);

	if (!t)
		return MPI_ERR_NO_MEM;
	for (i = 0; i < r && !err; i++)
		err = lm_sched_recv(s, direct && i == r - 1 ? acc :
				    t + (uint64_t)i * vb, vb, i);
	if (!err)
		err = lm_sched_round(s);
	if (!err && !direct)
		err = lm_sched_copy(s, t + (uint64_t)(r - 1) * vb + o, acc,
				    (uint64_t)len * e);
	for (i = r - 2; i >= 0 && !err; i--)
		err = lm_sched_reduce(s, t + (uint64_t)i * vb + o, acc, len);
	return err;
}

/* The reduction's view of a (coll_dt.c); an error frees s. */
static int view(const char *fn, struct lm_sched *s, struct lm_coll_args *a,
		int64_t rcount, uint64_t *mult)
{
	const char *why = "failed";
	struct libmsg_comm *ic = s->comm;
	int err = lm_coll_reduce_view(s, a, rcount, mult, &why);

	if (!err)
		return MPI_SUCCESS;
	lm_sched_free(s);
	return lm_error(ic, fn, err, "%s", why);
}

/* The vector in a to every remote process. */
static int send_all(struct lm_sched *s, const struct lm_coll_args *a)
{
	int i, err = MPI_SUCCESS;

	for (i = 0; i < s->comm->rsize && !err; i++)
		err = lm_sched_send(s, a->sbuf,
				    (uint64_t)a->count * lm_coll_esize(a), i);
	return err;
}

int lm_inter_ireduce(const char *fn, const void *sbuf, void *rbuf, int count,
		     MPI_Datatype dt, MPI_Op op, int root, MPI_Comm ic,
		     MPI_Request *request)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	uint64_t mult;
	int err;

	TRY(lm_inter_req(ic, fn, request));
	TRY(lm_inter_root(ic, fn, root));
	if (root == MPI_ROOT)
		TRY(red_check(fn, ic, rbuf, count, dt, op, "receive"));
	else if (root != MPI_PROC_NULL)
		TRY(red_check(fn, ic, sbuf, count, dt, op, "send"));
	s = lm_inter_sched(fn, ic);
	if (!s)
		return MPI_ERR_NO_MEM;
	if (root == MPI_PROC_NULL)
		return lm_inter_run(fn, s, MPI_SUCCESS, &a, request);
	/* The root's view reads rbuf for a send buffer it has not. */
	a.sbuf = root == MPI_ROOT ? rbuf : sbuf;
	a.rbuf = rbuf;
	a.count = count;
	a.dt = dt;
	a.op = op;
	TRY(view(fn, s, &a, root == MPI_ROOT ? count : 0, &mult));
	if (root == MPI_ROOT)
		err = fold_remote(s, a.rbuf, lm_coll_esize(&a), a.count, 0,
				  a.count);
	else
		err = lm_sched_send(s, a.sbuf,
				    (uint64_t)a.count * lm_coll_esize(&a), root);
	return lm_inter_run(fn, s, err, &a, request);
}

int lm_inter_iallreduce(const char *fn, const void *sbuf, void *rbuf,
			int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ic,
			MPI_Request *request)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	uint64_t mult;
	int err;

	TRY(lm_inter_req(ic, fn, request));
	TRY(red_check(fn, ic, sbuf, count, dt, op, "send"));
	TRY(lm_inter_no_in_place(ic, fn, rbuf));
	TRY(lm_coll_check_data(fn, ic, rbuf, count, dt, "receive"));
	s = lm_inter_sched(fn, ic);
	if (!s)
		return MPI_ERR_NO_MEM;
	a.sbuf = sbuf;
	a.rbuf = rbuf;
	a.count = count;
	a.dt = dt;
	a.op = op;
	TRY(view(fn, s, &a, count, &mult));
	err = send_all(s, &a);
	if (!err)
		err = fold_remote(s, a.rbuf, lm_coll_esize(&a), a.count, 0,
				  a.count);
	return lm_inter_run(fn, s, err, &a, request);
}

/* counts: one per local process; NULL: count each (_block). */
int lm_inter_ireduce_scatter(const char *fn, const void *sbuf, void *rbuf,
			     const int counts[], int count, MPI_Datatype dt,
			     MPI_Op op, MPI_Comm ic, MPI_Request *request)
{
	struct lm_coll_args a = { 0 };
	int64_t total = 0, off = 0;
	struct lm_sched *s;
	int i, k, mine, err;
	uint64_t mult;

	TRY(lm_inter_req(ic, fn, request));
	for (i = 0; i < ic->size; i++) {
		k = counts ? counts[i] : count;
		if (k < 0)
			return lm_error(ic, fn, MPI_ERR_COUNT,
					"count %d for rank %d is negative", k, i);
		if (i < ic->rank)
			off += k;
		total += k;
	}
	if (total > 0x7fffffff)
		return lm_error(ic, fn, MPI_ERR_COUNT,
				"%lld elements in all: more than an int",
				(long long)total);
	mine = counts ? counts[ic->rank] : count;
	TRY(red_check(fn, ic, sbuf, (int)total, dt, op, "send"));
	TRY(lm_inter_no_in_place(ic, fn, rbuf));
	TRY(lm_coll_check_data(fn, ic, rbuf, mine, dt, "receive"));
	s = lm_inter_sched(fn, ic);
	if (!s)
		return MPI_ERR_NO_MEM;
	a.sbuf = sbuf;
	a.rbuf = rbuf;
	a.count = (int)total;
	a.dt = dt;
	a.op = op;
	TRY(view(fn, s, &a, mine, &mult));
	/* The remote group's blocks differ: every vector goes whole. */
	err = send_all(s, &a);
	if (!err)
		err = fold_remote(s, a.rbuf, lm_coll_esize(&a), a.count,
				  (int)((uint64_t)off * mult),
				  (int)((uint64_t)mine * mult));
	return lm_inter_run(fn, s, err, &a, request);
}
