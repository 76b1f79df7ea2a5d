// SPDX-License-Identifier: MIT
/*
 * Allgather and allgatherv.  Every rank's block goes to every rank;
 * the algorithms differ in rounds (log2 n or n - 1) and in how far data
 * is relayed.  Blocks are a->bytes long (allgather) or a->rcounts[i]
 * bytes at a->rdispls[i] (allgatherv).  Own block first goes into
 * place, unless MPI_IN_PLACE put it there.
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   recursive_doubling  lg (alpha + R) + (n - 1) b beta          (n a power of two)
 *   bruck               lg (alpha + R) + (n - 1) b beta + n b beta (the last rotation)
 *   ring                (n - 1) (msg(b) + R)
 *   allgatherv linear   (n - 1) msg(b) + (n - 2) b beta + R (all posted at once:
 *                       all but the first arrive unexpected, copied once more)
 */

#include "coll/algo/algo.h"


static int own_block(struct lm_sched *s, const struct lm_coll_args *a,
		     void *at, uint64_t bytes)
{
	if (a->in_place)
		return MPI_SUCCESS;
	return lm_sched_copy(s, a->sbuf, at, bytes);
}

/*
 * Recursive doubling (n a power of two): in round k, pairs at distance
 * 2^k swap everything they have, 2^k blocks.  log2 n rounds.
 */
LM_ALGO(lm_allgather_recursive_doubling)
{
	int n = s->comm->size, r = s->comm->rank, mask, mine, theirs;
	unsigned char *out = a->rbuf;
	uint64_t blk = a->bytes;

	TRY(own_block(s, a, out + (uint64_t)r * blk, blk));
	for (mask = 1; mask < n; mask <<= 1) {
		mine = r & ~(mask - 1);
		theirs = (r ^ mask) & ~(mask - 1);
		TRY(lm_sched_send(s, out + (uint64_t)mine * blk,
				  (uint64_t)mask * blk, r ^ mask));
		TRY(lm_sched_recv(s, out + (uint64_t)theirs * blk,
				  (uint64_t)mask * blk, r ^ mask));
		TRY(lm_sched_round(s));
	}
	return MPI_SUCCESS;
}

/*
 * Bruck: ceil(log2 n) rounds for any n.  Blocks collect in a buffer in
 * the order "mine, rank + 1, rank + 2...", doubling each round, and are
 * rotated into place at the end.
 */
LM_ALGO(lm_allgather_bruck)
{
	int n = s->comm->size, r = s->comm->rank, k, cnt;
	uint64_t blk = a->bytes, head;
	unsigned char *out = a->rbuf, *t;

	t = lm_sched_tmp(s, (uint64_t)n * blk);
	if (!t)
		return MPI_ERR_NO_MEM;
	TRY(lm_sched_copy(s, a->in_place ? out + (uint64_t)r * blk : a->sbuf,
			  t, blk));
	for (k = 1; k < n; k <<= 1) {
		cnt = k < n - k ? k : n - k;
		TRY(lm_sched_send(s, t, (uint64_t)cnt * blk, (r - k + n) % n));
		TRY(lm_sched_recv(s, t + (uint64_t)k * blk, (uint64_t)cnt * blk,
				  (r + k) % n));
		TRY(lm_sched_round(s));
	}
	/* t[j] is rank (r + j) % n's block. */
	head = (uint64_t)(n - r) * blk;
	TRY(lm_sched_copy(s, t, out + (uint64_t)r * blk, head));
	return lm_sched_copy(s, t + head, out, (uint64_t)r * blk);
}

/*
 * Ring: n - 1 rounds, each passing on the block received the round
 * before.  Every link carries (n - 1) blocks once: for large blocks.
 */
LM_ALGO(lm_allgather_ring)
{
	int n = s->comm->size, r = s->comm->rank, i, sb, rb;
	unsigned char *out = a->rbuf;
	uint64_t blk = a->bytes;

	TRY(own_block(s, a, out + (uint64_t)r * blk, blk));
	for (i = 0; i < n - 1; i++) {
		sb = (r - i + n) % n;
		rb = (r - i - 1 + n) % n;
		TRY(lm_sched_send(s, out + (uint64_t)sb * blk, blk, (r + 1) % n));
		TRY(lm_sched_recv(s, out + (uint64_t)rb * blk, blk,
				  (r - 1 + n) % n));
		TRY(lm_sched_round(s));
	}
	return MPI_SUCCESS;
}

LM_ALGO(lm_allgatherv_ring)
{
	int n = s->comm->size, r = s->comm->rank, i, sb, rb;
	unsigned char *out = a->rbuf;

	TRY(own_block(s, a, out + a->rdispls[r], a->rcounts[r]));
	for (i = 0; i < n - 1; i++) {
		sb = (r - i + n) % n;
		rb = (r - i - 1 + n) % n;
		TRY(lm_sched_send(s, out + a->rdispls[sb], a->rcounts[sb],
				  (r + 1) % n));
		TRY(lm_sched_recv(s, out + a->rdispls[rb], a->rcounts[rb],
				  (r - 1 + n) % n));
		TRY(lm_sched_round(s));
	}
	return MPI_SUCCESS;
}

/* Everyone sends its block to everyone at once: one round. */
LM_ALGO(lm_allgatherv_linear)
{
	int n = s->comm->size, r = s->comm->rank, i;
	unsigned char *out = a->rbuf;

	TRY(own_block(s, a, out + a->rdispls[r], a->rcounts[r]));
	TRY(lm_sched_round(s));
	for (i = 0; i < n; i++) {
		if (i == r)
			continue;
		TRY(lm_sched_send(s, out + a->rdispls[r], a->rcounts[r], i));
		TRY(lm_sched_recv(s, out + a->rdispls[i], a->rcounts[i], i));
	}
	return MPI_SUCCESS;
}
