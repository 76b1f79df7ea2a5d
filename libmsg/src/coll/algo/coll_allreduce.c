// SPDX-License-Identifier: MIT
/*
 * Allreduce algorithms (Rabenseifner's: coll_rsag.c).
 *
 * Every rank must end with the same bits.  Recursive doubling gets
 * that by always combining the lower group's partial result on the
 * left: both partners of an exchange compute lower op upper from the
 * same two operands.  The ring reduces each block on one rank only and
 * then copies it, so it is identical everywhere by construction.
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   area                (n + 1) line + R + (2n + 1) b beta + (n - 1) b gamma
 *                       (coll_area.c: the last to arrive reads and writes every slot)
 *   recursive_doubling  lg p (msg(b) + b gamma + R) + b beta + fold, p = largest
 *                       power of two <= n, fold = 2 (msg(b) + R) + b gamma when n != p
 *   rabenseifner        coll_rsag.c
 *   ring                2 (n - 1) (alpha + R) + 2 (n - 1) bytes(b / n) + (n - 1)/n b gamma
 *                       + b beta
 *   (b beta: each first copies the send buffer into its accumulator)
 *   reduce_bcast        reduce binomial + bcast binomial
 */

#include <string.h>

#include "coll/algo/algo.h"


/*
 * This rank's number among the p survivors of the fold below (the
 * inverse of lm_fold_real()), or -1 for a rank that folds out.
 */
static int fold_number(const struct lm_sched *s)
{
	int n = s->comm->size, r = s->comm->rank;
	int rem = n - lm_pof2_floor(n);

	if (r >= 2 * rem)
		return r - rem;
	return r % 2 ? r / 2 : -1;
}

/*
 * Ranks beyond the largest power of two p fold their vector into a
 * neighbour first (rank 2i into 2i + 1 for i < n - p, keeping rank
 * order), take no part in the exchange, and get the result at the end.
 * Returns the rank's number among the p survivors (fold_number()), -1
 * for a rank that folded out, or -2 when out of memory.
 */
int lm_fold_in(struct lm_sched *s, void *acc, void *tmp, int count)
{
	int n = s->comm->size, r = s->comm->rank, v = fold_number(s);
	uint64_t bytes = (uint64_t)count * s->esize;

	if (r >= 2 * (n - lm_pof2_floor(n)))
		return v;
	if (v < 0) {
		if (lm_sched_send(s, acc, bytes, r + 1) || lm_sched_round(s))
			return -2;
		return -1;
	}
	if (lm_sched_recv(s, tmp, bytes, r - 1) || lm_sched_round(s) ||
	    lm_sched_reduce(s, tmp, acc, count))
		return -2;
	return v;
}

/* The survivors' result goes back to the folded ranks. */
int lm_fold_out(struct lm_sched *s, void *acc, int count)
{
	int n = s->comm->size, r = s->comm->rank, p = lm_pof2_floor(n);
	uint64_t bytes = (uint64_t)count * s->esize;

	if (r >= 2 * (n - p))
		return MPI_SUCCESS;
	TRY(lm_sched_round(s));
	if (r % 2)
		return lm_sched_send(s, acc, bytes, r - 1);
	return lm_sched_recv(s, acc, bytes, r + 1);
}

/* Real rank of survivor number v. */
int lm_fold_real(const struct lm_sched *s, int v)
{
	int rem = s->comm->size - lm_pof2_floor(s->comm->size);

	return v < rem ? 2 * v + 1 : v + rem;
}

/*
 * Recursive doubling: log2 p exchanges of the whole vector.  Best for
 * small vectors, where the number of rounds is what costs.
 */
LM_ALGO(lm_allreduce_recursive_doubling)
{
	int count = a->count, p = lm_pof2_floor(s->comm->size), v, mask;
	uint64_t bytes = (uint64_t)count * s->esize;
	void *acc = a->rbuf, *other, *t;
	int swaps = 0;

	other = lm_sched_tmp(s, bytes);
	if (!other)
		return MPI_ERR_NO_MEM;
	/*
	 * The partial result changes buffers in every round where this
	 * rank is the lower partner (a zero bit of its number): start in
	 * the temporary when that happens an odd number of times, so that
	 * it ends in rbuf with no copy.
	 */
	v = fold_number(s);
	for (mask = 1; v >= 0 && mask < p; mask <<= 1)
		swaps += !(v & mask);
	if (swaps % 2) {
		acc = other;
		other = a->rbuf;
	}
	TRY(lm_sched_copy(s, a->sbuf, acc, bytes));
	v = lm_fold_in(s, acc, other, count);
	if (v == -2)
		return MPI_ERR_NO_MEM;
	if (v >= 0) {
		for (mask = 1; mask < p; mask <<= 1) {
			int partner = v ^ mask, peer = lm_fold_real(s, partner);

			TRY(lm_sched_send(s, acc, bytes, peer));
			TRY(lm_sched_recv(s, other, bytes, peer));
			TRY(lm_sched_round(s));
			if (partner < v) {
				TRY(lm_sched_reduce(s, other, acc, count));
			} else {
				/* acc op other lands in other: swap roles. */
				TRY(lm_sched_reduce(s, acc, other, count));
				t = acc;
				acc = other;
				other = t;
			}
		}
		if (acc != a->rbuf)
			TRY(lm_sched_copy(s, acc, a->rbuf, bytes));
	}
	return lm_fold_out(s, a->rbuf, count);
}

/* Block i of n over count elements: [*first, *first + *len). */
void lm_block(int count, int n, int i, int *first, int *len)
{
	int q = count / n, rem = count % n;

	*first = i * q + (i < rem ? i : rem);
	*len = q + (i < rem);
}

/*
 * Ring: a reduce-scatter around the ring (n - 1 steps, block i ends
 * complete on rank i - 1), then a ring allgather.  Each rank sends and
 * receives about 2 (n - 1) / n of the vector, the least of all, in n - 1
 * rounds each way: for large vectors.  Needs a commutative op.
 */
LM_ALGO(lm_allreduce_ring)
{
	int n = s->comm->size, r = s->comm->rank, count = a->count;
	int es = (int)s->esize, i, sb, rb, f, l, right = (r + 1) % n;
	int left = (r - 1 + n) % n;
	unsigned char *acc = a->rbuf, *tmp;
	uint64_t bytes = (uint64_t)count * (uint64_t)es;

	tmp = lm_sched_tmp(s, bytes);
	if (!tmp)
		return MPI_ERR_NO_MEM;
	TRY(lm_sched_copy(s, a->sbuf, acc, bytes));
	for (i = 0; i < n - 1; i++) {
		sb = (r - i + n) % n;
		rb = (r - i - 1 + n) % n;
		lm_block(count, n, sb, &f, &l);
		TRY(lm_sched_send(s, acc + (uint64_t)f * es, (uint64_t)l * es,
				  right));
		lm_block(count, n, rb, &f, &l);
		TRY(lm_sched_recv(s, tmp + (uint64_t)f * es, (uint64_t)l * es,
				  left));
		TRY(lm_sched_round(s));
		TRY(lm_sched_reduce(s, tmp + (uint64_t)f * es,
				    acc + (uint64_t)f * es, l));
	}
	for (i = 0; i < n - 1; i++) {
		sb = (r + 1 - i + n) % n;
		rb = (r - i + n) % n;
		lm_block(count, n, sb, &f, &l);
		TRY(lm_sched_send(s, acc + (uint64_t)f * es, (uint64_t)l * es,
				  right));
		lm_block(count, n, rb, &f, &l);
		TRY(lm_sched_recv(s, acc + (uint64_t)f * es, (uint64_t)l * es,
				  left));
		TRY(lm_sched_round(s));
	}
	return MPI_SUCCESS;
}

/* Reduce to rank 0, broadcast from there: any op, any size. */
LM_ALGO(lm_allreduce_reduce_bcast)
{
	struct lm_coll_args b = *a;

	b.root = 0;
	TRY(lm_reduce_binomial(s, &b));
	TRY(lm_sched_round(s));
	b.bytes = (uint64_t)a->count * s->esize;
	return lm_bcast_binomial(s, &b);
}
