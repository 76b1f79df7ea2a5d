// SPDX-License-Identifier: MIT
/*
 * Rabenseifner's reduction for large vectors: a reduce-scatter by
 * recursive halving leaves each of p = 2^k ranks with one fully reduced
 * block, then recursive doubling gathers the blocks, to every rank
 * (allreduce) or to one (reduce).  Each rank sends about 2 (p-1)/p of
 * the vector in 2 log2 p rounds.  Ranks beyond p fold into a neighbour
 * first (coll_allreduce.c), as in Rabenseifner and Traeff's
 * "More efficient reduction algorithms for non-power-of-two numbers
 * of processors" (the simple variant).  Needs a commutative op.
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   reduce, allreduce   2 lg p (alpha + R) + 2 sum_{i=1..lg p} bytes(b / 2^i)
 *                       + (p - 1)/p b gamma + b beta (the first copy)
 *                       + (n != p: msg(b) + R + b gamma for the fold)
 *   (each halving's message pays its own handshake; reduce adds its
 *   whole-vector temporaries' spill beyond the cache, as binomial)
 */

#include "coll/algo/algo.h"


/* Elements in blocks [lo, hi) of p: offset and length. */
static void span(int count, int p, int lo, int hi, int *first, int *len)
{
	int f, l, fh;

	lm_block(count, p, lo, &f, &l);
	if (hi >= p) {
		fh = count;
	} else {
		lm_block(count, p, hi, &fh, &l);
	}
	*first = f;
	*len = fh - f;
}

/*
 * The exchange on acc (count elements) among survivors v of p.  target
 * < 0: every survivor ends with the whole result; otherwise only
 * survivor `target` does (the others drop out as they hand over).
 */
static int rsag(struct lm_sched *s, unsigned char *acc, unsigned char *tmp,
		int count, int v, int p, int target)
{
	int es = (int)s->esize, mask, partner, peer, send_idx = 0, recv_idx = 0;
	int last_idx = p, sf, sl, rf, rl;

	for (mask = 1; mask < p; mask <<= 1) {
		partner = v ^ mask;
		peer = lm_fold_real(s, partner);
		if (v < partner) {
			send_idx = recv_idx + p / (mask * 2);
			span(count, p, send_idx, last_idx, &sf, &sl);
			span(count, p, recv_idx, send_idx, &rf, &rl);
		} else {
			recv_idx = send_idx + p / (mask * 2);
			span(count, p, send_idx, recv_idx, &sf, &sl);
			span(count, p, recv_idx, last_idx, &rf, &rl);
		}
		TRY(lm_sched_send(s, acc + (uint64_t)sf * es, (uint64_t)sl * es,
				  peer));
		TRY(lm_sched_recv(s, tmp + (uint64_t)rf * es, (uint64_t)rl * es,
				  peer));
		TRY(lm_sched_round(s));
		TRY(lm_sched_reduce(s, tmp + (uint64_t)rf * es,
				    acc + (uint64_t)rf * es, rl));
		send_idx = recv_idx;
		if (mask * 2 < p)
			last_idx = recv_idx + p / (mask * 2);
	}
	/* Survivor v holds blocks [recv_idx, last_idx): one block. */
	for (mask = p >> 1; mask > 0; mask >>= 1) {
		partner = v ^ mask;
		peer = lm_fold_real(s, partner);
		if (v < partner) {
			if (mask != p / 2)
				last_idx = last_idx + p / (mask * 2);
			recv_idx = send_idx + p / (mask * 2);
			span(count, p, send_idx, recv_idx, &sf, &sl);
			span(count, p, recv_idx, last_idx, &rf, &rl);
		} else {
			recv_idx = send_idx - p / (mask * 2);
			span(count, p, send_idx, last_idx, &sf, &sl);
			span(count, p, recv_idx, send_idx, &rf, &rl);
		}
		if (target < 0 || (target & mask) != (v & mask))
			TRY(lm_sched_send(s, acc + (uint64_t)sf * es,
					  (uint64_t)sl * es, peer));
		if (target < 0 || (target & mask) == (v & mask))
			TRY(lm_sched_recv(s, acc + (uint64_t)rf * es,
					  (uint64_t)rl * es, peer));
		TRY(lm_sched_round(s));
		if (target >= 0 && (target & mask) != (v & mask))
			return 1;	/* handed over: out */
		if (v > partner)
			send_idx = recv_idx;
	}
	return MPI_SUCCESS;
}

LM_ALGO(lm_allreduce_rabenseifner)
{
	int p = lm_pof2_floor(s->comm->size), v, err;
	uint64_t bytes = (uint64_t)a->count * s->esize;
	void *tmp = lm_sched_tmp(s, bytes);

	if (!tmp)
		return MPI_ERR_NO_MEM;
	TRY(lm_sched_copy(s, a->sbuf, a->rbuf, bytes));
	v = lm_fold_in(s, a->rbuf, tmp, a->count);
	if (v == -2)
		return MPI_ERR_NO_MEM;
	if (v >= 0) {
		err = rsag(s, a->rbuf, tmp, a->count, v, p, -1);
		if (err)
			return err;
	}
	return lm_fold_out(s, a->rbuf, a->count);
}

/*
 * Reduce: the gather half ends at one survivor: the root if it took
 * part, else the neighbour it folded into, which then sends the result
 * to the root.
 */
LM_ALGO(lm_reduce_rabenseifner)
{
	int n = s->comm->size, r = s->comm->rank, p = lm_pof2_floor(n);
	int rem = n - p, root = a->root, v, err, target, treal;
	uint64_t bytes = (uint64_t)a->count * s->esize;
	unsigned char *acc, *tmp;

	acc = r == root ? a->rbuf : lm_sched_tmp(s, bytes);
	tmp = lm_sched_tmp(s, bytes);
	if (!acc || !tmp)
		return MPI_ERR_NO_MEM;
	TRY(lm_sched_copy(s, a->sbuf, acc, bytes));
	/* The survivor that gathers: root, or root + 1 when root folded. */
	treal = root < 2 * rem && root % 2 == 0 ? root + 1 : root;
	target = treal < 2 * rem ? treal / 2 : treal - rem;
	v = lm_fold_in(s, acc, tmp, a->count);
	if (v == -2)
		return MPI_ERR_NO_MEM;
	if (v < 0) {
		if (r != root)
			return MPI_SUCCESS;
		TRY(lm_sched_round(s));
		return lm_sched_recv(s, acc, bytes, treal);
	}
	err = rsag(s, acc, tmp, a->count, v, p, target);
	if (err < 0 || err > 1)
		return err;
	if (err == 0 && r != root) {
		TRY(lm_sched_round(s));
		return lm_sched_send(s, acc, bytes, root);
	}
	return MPI_SUCCESS;
}
