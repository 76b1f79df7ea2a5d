// SPDX-License-Identifier: MIT
/*
 * Reduce algorithms (large vectors: coll_rsag.c).
 *
 * Every combination keeps MPI's order, lower ranks' data on the left,
 * so non-commutative operations work and every run of a call computes
 * the same bits.  lm_op_apply() computes inout = in op inout: to put the
 * accumulator on the left it writes into the received block, and the
 * accumulator moves there (the two buffers swap roles, no copy).
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   binomial            lg (msg(b) + b gamma + R)
 *   rabenseifner        coll_rsag.c
 *   linear              (n - 1) (msg(b) + b gamma) + R
 *   area                no model (coll_cost.c says why): only when forced
 */

#include "coll/algo/algo.h"


/*
 * Binomial tree over vranks (rank - root, or rank itself with the
 * result sent to the root when the op does not commute, so that each
 * subtree is a contiguous range of ranks).  The result ends in `out`
 * at vrank 0.
 */
static int binomial(struct lm_sched *s, const struct lm_coll_args *a,
		    int treeroot, void *out)
{
	int n = s->comm->size, r = s->comm->rank, count = a->count;
	int v = (r - treeroot + n) % n, mask;
	uint64_t bytes = (uint64_t)count * s->esize;
	const void *acc = a->sbuf;	/* what this subtree reduced so far */
	void *spare = NULL, *other = NULL;

	for (mask = 1; mask < n; mask <<= 1) {
		if (v & mask)
			break;
		if (v + mask >= n)
			continue;
		/* Receive the child's subtree, then acc = acc op child. */
		if (!other) {
			other = lm_sched_tmp(s, bytes);
			if (!other)
				return MPI_ERR_NO_MEM;
		}
		TRY(lm_sched_recv(s, other, bytes, (v + mask + treeroot) % n));
		TRY(lm_sched_round(s));
		TRY(lm_sched_reduce(s, acc, other, count));
		acc = other;
		if (!spare) {
			spare = lm_sched_tmp(s, bytes);
			if (!spare)
				return MPI_ERR_NO_MEM;
		}
		/* The old accumulator's buffer (never the send buffer) is free. */
		other = spare;
		spare = (void *)acc;
	}
	/* spare aliases acc from here; only `acc` is used below. */
	if (v) {
		TRY(lm_sched_send(s, acc, bytes, (v - mask + treeroot) % n));
		return MPI_SUCCESS;
	}
	return lm_sched_copy(s, acc, out, bytes);
}

LM_ALGO(lm_reduce_binomial)
{
	uint64_t bytes = (uint64_t)a->count * s->esize;
	int r = s->comm->rank;

	if (lm_op_commutes(a->op) || a->root == 0)
		return binomial(s, a, a->root, a->rbuf);
	/* Reduce at rank 0 in rank order, then hand the result over. */
	if (r == 0) {
		void *t = lm_sched_tmp(s, bytes);

		if (!t)
			return MPI_ERR_NO_MEM;
		TRY(binomial(s, a, 0, t));
		TRY(lm_sched_round(s));
		return lm_sched_send(s, t, bytes, a->root);
	}
	TRY(binomial(s, a, 0, NULL));
	if (r == a->root) {
		TRY(lm_sched_round(s));
		TRY(lm_sched_recv(s, a->rbuf, bytes, 0));
	}
	return MPI_SUCCESS;
}

/*
 * The root receives every vector and combines them in rank order:
 * right to left, so each step is in op acc with the accumulator on
 * the right, as lm_op_apply() wants it.
 */
LM_ALGO(lm_reduce_linear)
{
	int n = s->comm->size, r = s->comm->rank, i;
	uint64_t bytes = (uint64_t)a->count * s->esize;
	unsigned char *all;

	if (r != a->root)
		return lm_sched_send(s, a->sbuf, bytes, a->root);
	all = lm_sched_tmp(s, bytes * (uint64_t)n);
	if (!all)
		return MPI_ERR_NO_MEM;
	for (i = 0; i < n; i++)
		if (i != r)
			TRY(lm_sched_recv(s, all + (uint64_t)i * bytes, bytes, i));
	TRY(lm_sched_copy(s, a->sbuf, all + (uint64_t)r * bytes, bytes));
	TRY(lm_sched_round(s));
	for (i = n - 2; i >= 0; i--)
		TRY(lm_sched_reduce(s, all + (uint64_t)i * bytes,
				    all + (uint64_t)(n - 1) * bytes, a->count));
	return lm_sched_copy(s, all + (uint64_t)(n - 1) * bytes, a->rbuf,
			     bytes);
}
