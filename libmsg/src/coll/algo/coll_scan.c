// SPDX-License-Identifier: MIT
/*
 * Scan (inclusive prefix) and Exscan (exclusive).  Rank r gets
 * v_0 op v_1 op ... op v_r (Exscan: up to v_(r-1); rank 0's buffer is
 * left alone).  The order is always rank order, so non-commutative ops
 * work.
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   recursive_doubling  lg (msg(b) + 2 b gamma + R)   (scan and exscan)
 *   linear              (n - 1) (msg(b) + b gamma + R)
 */

#include "coll/algo/algo.h"


/*
 * Recursive doubling: in round k, partners at distance 2^k swap the
 * reduction of their 2^k-rank groups; the higher one folds it into its
 * prefix.  log2 n rounds.
 */
static int doubling(struct lm_sched *s, const struct lm_coll_args *a,
		    int exclusive)
{
	int n = s->comm->size, r = s->comm->rank, count = a->count, mask;
	uint64_t bytes = (uint64_t)count * s->esize;
	void *total, *in, *t;
	int have = !exclusive;	/* does rbuf hold a prefix yet? */

	total = lm_sched_tmp(s, bytes);
	in = lm_sched_tmp(s, bytes);
	if (!total || !in)
		return MPI_ERR_NO_MEM;
	TRY(lm_sched_copy(s, a->sbuf, total, bytes));
	if (!exclusive)
		TRY(lm_sched_copy(s, a->sbuf, a->rbuf, bytes));
	for (mask = 1; mask < n; mask <<= 1) {
		int partner = r ^ mask;

		if (partner >= n)
			continue;
		TRY(lm_sched_send(s, total, bytes, partner));
		TRY(lm_sched_recv(s, in, bytes, partner));
		TRY(lm_sched_round(s));
		if (partner < r) {
			/* From lower ranks: in op prefix, in op total. */
			if (have) {
				TRY(lm_sched_reduce(s, in, a->rbuf, count));
			} else {
				TRY(lm_sched_copy(s, in, a->rbuf, bytes));
				have = 1;
			}
			TRY(lm_sched_reduce(s, in, total, count));
		} else {
			/* total op in lands in `in`: swap roles. */
			TRY(lm_sched_reduce(s, total, in, count));
			t = total;
			total = in;
			in = t;
		}
	}
	return MPI_SUCCESS;
}

LM_ALGO(lm_scan_recursive_doubling)
{
	return doubling(s, a, 0);
}

LM_ALGO(lm_exscan_recursive_doubling)
{
	return doubling(s, a, 1);
}

/* The prefix walks down the ranks: n - 1 rounds, for tests and tiny n. */
static int chain(struct lm_sched *s, const struct lm_coll_args *a,
		 int exclusive)
{
	int n = s->comm->size, r = s->comm->rank, count = a->count;
	uint64_t bytes = (uint64_t)count * s->esize;
	void *t = lm_sched_tmp(s, bytes), *in;

	if (!t)
		return MPI_ERR_NO_MEM;
	TRY(lm_sched_copy(s, a->sbuf, t, bytes));	/* before in-place writes */
	if (r > 0) {
		in = exclusive ? a->rbuf : lm_sched_tmp(s, bytes);
		if (!in)
			return MPI_ERR_NO_MEM;
		TRY(lm_sched_recv(s, in, bytes, r - 1));
		TRY(lm_sched_round(s));
		/* t = prefix op mine */
		TRY(lm_sched_reduce(s, in, t, count));
	}
	if (!exclusive)
		TRY(lm_sched_copy(s, t, a->rbuf, bytes));
	if (r < n - 1)
		TRY(lm_sched_send(s, t, bytes, r + 1));
	return MPI_SUCCESS;
}

LM_ALGO(lm_scan_linear)
{
	return chain(s, a, 0);
}

LM_ALGO(lm_exscan_linear)
{
	return chain(s, a, 1);
}
