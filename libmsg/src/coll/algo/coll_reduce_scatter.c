// SPDX-License-Identifier: MIT
/*
 * Reduce_scatter (and _block): the vector of a->count elements is the
 * concatenation of n blocks, block i (a->rcounts[i] elements) ends
 * reduced at rank i.
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   halving             lg (alpha + R) + (n - 1) (bytes(b) + b gamma)   (b: a block)
 *   pairwise            (n - 1) (msg(b) + b gamma + R)
 *   reduce_scatterv     reduce binomial of n b + (n - 1) msg(b) + R
 */

#include <stdlib.h>

#include "coll/algo/algo.h"


/* Element offset of block i. */
static uint64_t first_of(const struct lm_coll_args *a, int i)
{
	uint64_t f = 0;
	int j;

	for (j = 0; j < i; j++)
		f += a->rcounts[j];
	return f;
}

/*
 * Recursive halving (n a power of two, commutative op): in round k the
 * pair at distance n / 2^(k+1) splits the blocks both still reduce,
 * each keeps half and sends the other half.  log2 n rounds, each rank
 * sends about (n - 1) / n of the vector.
 */
LM_ALGO(lm_reduce_scatter_halving)
{
	int n = s->comm->size, r = s->comm->rank, lo = 0, hi = n, mask;
	int es = (int)s->esize;
	uint64_t total = (uint64_t)a->count * (uint64_t)es, kf, kl, sf, sl;
	unsigned char *w, *t;

	w = lm_sched_tmp(s, total);
	t = lm_sched_tmp(s, total);
	if (!w || !t)
		return MPI_ERR_NO_MEM;
	TRY(lm_sched_copy(s, a->sbuf, w, total));
	for (mask = n >> 1; mask > 0; mask >>= 1) {
		int keep_lo = r < (r ^ mask);
		int klo = keep_lo ? lo : lo + mask, khi = keep_lo ? lo + mask : hi;
		int slo = keep_lo ? lo + mask : lo, shi = keep_lo ? hi : lo + mask;

		kf = first_of(a, klo) * es;
		kl = first_of(a, khi) * es - kf;
		sf = first_of(a, slo) * es;
		sl = first_of(a, shi) * es - sf;
		TRY(lm_sched_send(s, w + sf, sl, r ^ mask));
		TRY(lm_sched_recv(s, t + kf, kl, r ^ mask));
		TRY(lm_sched_round(s));
		TRY(lm_sched_reduce(s, t + kf, w + kf, (int)(kl / es)));
		lo = klo;
		hi = khi;
	}
	return lm_sched_copy(s, w + first_of(a, r) * es, a->rbuf,
			     a->rcounts[r] * es);
}

/*
 * Pairwise (commutative op, any n): every rank sends block i straight
 * to rank i and reduces the n - 1 contributions to its own block.  One
 * round of messages, n - 1 reductions.
 */
LM_ALGO(lm_reduce_scatter_pairwise)
{
	int n = s->comm->size, r = s->comm->rank, es = (int)s->esize, i;
	uint64_t blk = a->rcounts[r] * es;
	const unsigned char *in = a->sbuf;
	unsigned char *acc = a->rbuf, *t;

	t = lm_sched_tmp(s, blk * (uint64_t)n);
	if (!t)
		return MPI_ERR_NO_MEM;
	/* In place: sbuf is rbuf, and own block must be read first. */
	TRY(lm_sched_copy(s, in + first_of(a, r) * es, t + (uint64_t)r * blk,
			  blk));
	TRY(lm_sched_round(s));
	for (i = 0; i < n; i++) {
		if (i == r)
			continue;
		TRY(lm_sched_send(s, in + first_of(a, i) * es,
				  a->rcounts[i] * es, i));
		TRY(lm_sched_recv(s, t + (uint64_t)i * blk, blk, i));
	}
	TRY(lm_sched_round(s));
	/* Rank order, right to left: t[n-1] accumulates, then goes out. */
	for (i = n - 2; i >= 0; i--)
		TRY(lm_sched_reduce(s, t + (uint64_t)i * blk,
				    t + (uint64_t)(n - 1) * blk,
				    (int)a->rcounts[r]));
	return lm_sched_copy(s, t + (uint64_t)(n - 1) * blk, acc, blk);
}

/*
 * Reduce the whole vector at rank 0 (binomial, rank order: any op),
 * then scatter the blocks.
 */
LM_ALGO(lm_reduce_scatter_reduce_scatterv)
{
	int n = s->comm->size, r = s->comm->rank, es = (int)s->esize, i;
	uint64_t total = (uint64_t)a->count * (uint64_t)es, *cnt, *disp;
	struct lm_coll_args b = *a;
	void *full = NULL;

	if (r == 0) {
		full = lm_sched_tmp(s, total);
		if (!full)
			return MPI_ERR_NO_MEM;
	}
	cnt = lm_sched_tmp(s, 2 * (uint64_t)n * sizeof(*cnt));
	if (!cnt)
		return MPI_ERR_NO_MEM;
	disp = cnt + n;
	for (i = 0; i < n; i++) {
		cnt[i] = a->rcounts[i] * es;
		disp[i] = first_of(a, i) * es;
	}
	b.root = 0;
	b.rbuf = full;
	b.in_place = 0;
	TRY(lm_reduce_binomial(s, &b));
	TRY(lm_sched_round(s));
	b.sbuf = full;
	b.rbuf = a->rbuf;
	b.scounts = cnt;
	b.sdispls = disp;
	b.rbytes = cnt[r];
	return lm_scatterv_linear(s, &b);
}
