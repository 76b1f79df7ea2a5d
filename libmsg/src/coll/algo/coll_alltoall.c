// SPDX-License-Identifier: MIT
/*
 * All-to-all.  Block i of the send buffer goes to rank i, into block
 * (sender) of its receive buffer.  Regular blocks are a->sbytes and
 * a->rbytes long; the v and w variants use byte counts and offsets
 * (a->scounts/sdispls, a->rcounts/rdispls).  MPI_IN_PLACE was turned
 * into a copy of the receive buffer by the API layer.
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   bruck               lg (alpha + R) + lg bytes(n b / 2) + 2 lg (n / 2) b beta
 *                       (packing, unpacking) + 2 n b beta (rotations)
 *   pairwise            (n - 1) (msg(b) + R)
 *   linear              (n - 1) msg(b) + (n - 2) b beta + R: one round, but all
 *                       messages in flight at once arrive unexpected but the first
 */

#include "coll/algo/algo.h"


/*
 * Bruck (small blocks): ceil(log2 n) rounds.  Blocks are rotated so
 * block j is for rank (r + j) % n; in round k every block whose index
 * has bit k set moves k ranks on, packed into one message.  At the end
 * block j came from rank (r - j) % n.
 */
LM_ALGO(lm_alltoall_bruck)
{
	int n = s->comm->size, r = s->comm->rank, k, j, cnt;
	uint64_t blk = a->sbytes, head;
	const unsigned char *in = a->sbuf;
	unsigned char *out = a->rbuf, *t, *pk, *up;

	t = lm_sched_tmp(s, (uint64_t)n * blk);
	pk = lm_sched_tmp(s, (uint64_t)n * blk);
	up = lm_sched_tmp(s, (uint64_t)n * blk);
	if (!t || !pk || !up)
		return MPI_ERR_NO_MEM;
	head = (uint64_t)(n - r) * blk;
	TRY(lm_sched_copy(s, in + (uint64_t)r * blk, t, head));
	TRY(lm_sched_copy(s, in, t + head, (uint64_t)r * blk));
	for (k = 1; k < n; k <<= 1) {
		for (j = 0, cnt = 0; j < n; j++)
			if (j & k)
				TRY(lm_sched_copy(s, t + (uint64_t)j * blk,
						  pk + (uint64_t)cnt++ * blk, blk));
		TRY(lm_sched_send(s, pk, (uint64_t)cnt * blk, (r + k) % n));
		TRY(lm_sched_recv(s, up, (uint64_t)cnt * blk, (r - k + n) % n));
		TRY(lm_sched_round(s));
		for (j = 0, cnt = 0; j < n; j++)
			if (j & k)
				TRY(lm_sched_copy(s, up + (uint64_t)cnt++ * blk,
						  t + (uint64_t)j * blk, blk));
	}
	for (j = 0; j < n; j++)
		TRY(lm_sched_copy(s, t + (uint64_t)j * blk,
				  out + (uint64_t)((r - j + n) % n) * blk, blk));
	return MPI_SUCCESS;
}

/* Byte offset and length of block i, regular or v/w. */
static void sblock(const struct lm_coll_args *a, int i, uint64_t *off,
		   uint64_t *len)
{
	if (a->scounts) {
		*off = a->sdispls[i];
		*len = a->scounts[i];
	} else {
		*off = (uint64_t)i * a->sbytes;
		*len = a->sbytes;
	}
}

static void rblock(const struct lm_coll_args *a, int i, uint64_t *off,
		   uint64_t *len)
{
	if (a->rcounts) {
		*off = a->rdispls[i];
		*len = a->rcounts[i];
	} else {
		*off = (uint64_t)i * a->rbytes;
		*len = a->rbytes;
	}
}

static int own(struct lm_sched *s, const struct lm_coll_args *a)
{
	int r = s->comm->rank;
	uint64_t so, sl, ro, rl;

	sblock(a, r, &so, &sl);
	rblock(a, r, &ro, &rl);
	return lm_sched_copy(s, (const unsigned char *)a->sbuf + so,
			     (unsigned char *)a->rbuf + ro, sl < rl ? sl : rl);
}

/*
 * Pairwise exchange: n - 1 rounds, in round i send to rank + i and
 * receive from rank - i (XOR partners when n is a power of two, so
 * each round is a perfect matching).  One message in flight each way:
 * for large blocks.
 */
static int pairwise(struct lm_sched *s, const struct lm_coll_args *a)
{
	int n = s->comm->size, r = s->comm->rank, i, to, from;
	uint64_t off, len;

	TRY(own(s, a));
	for (i = 1; i < n; i++) {
		if (lm_is_pof2(n)) {
			to = from = r ^ i;
		} else {
			to = (r + i) % n;
			from = (r - i + n) % n;
		}
		sblock(a, to, &off, &len);
		TRY(lm_sched_send(s, (const unsigned char *)a->sbuf + off, len, to));
		rblock(a, from, &off, &len);
		TRY(lm_sched_recv(s, (unsigned char *)a->rbuf + off, len, from));
		TRY(lm_sched_round(s));
	}
	return MPI_SUCCESS;
}

/* Everything posted at once, in an order that spreads the load. */
static int linear(struct lm_sched *s, const struct lm_coll_args *a)
{
	int n = s->comm->size, r = s->comm->rank, i, p;
	uint64_t off, len;

	TRY(own(s, a));
	for (i = 1; i < n; i++) {
		p = (r - i + n) % n;
		rblock(a, p, &off, &len);
		TRY(lm_sched_recv(s, (unsigned char *)a->rbuf + off, len, p));
	}
	for (i = 1; i < n; i++) {
		p = (r + i) % n;
		sblock(a, p, &off, &len);
		TRY(lm_sched_send(s, (const unsigned char *)a->sbuf + off, len, p));
	}
	return MPI_SUCCESS;
}

LM_ALGO(lm_alltoall_pairwise)
{
	return pairwise(s, a);
}

LM_ALGO(lm_alltoall_linear)
{
	return linear(s, a);
}

LM_ALGO(lm_alltoallv_pairwise)
{
	return pairwise(s, a);
}

LM_ALGO(lm_alltoallv_linear)
{
	return linear(s, a);
}
