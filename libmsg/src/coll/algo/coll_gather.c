// SPDX-License-Identifier: MIT
/*
 * Gather and scatter (and their v variants).  Blocks are a->bytes long
 * for the regular ones; the v variants take byte counts and offsets
 * from a->rcounts/rdispls (gatherv) or a->scounts/sdispls (scatterv).
 * The binomial trees work in vranks (rank - root), where each subtree
 * is a contiguous range, so a subtree's blocks travel as one message.
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   binomial            lg (alpha + R) + (n - 1) bytes(b)   (gather and scatter)
 *   linear              (n - 1) msg(b) + R
 *   (the v variants have one algorithm each)
 */

#include "coll/algo/algo.h"


static inline int real(const struct lm_sched *s, int root, int v)
{
	return (v + root) % s->comm->size;
}

static inline int min_int(int a, int b)
{
	return a < b ? a : b;
}

/*
 * Copy n blocks between vrank order (`tree`, block v) and rank order
 * (`ranks`, block (v + root) % n): two contiguous pieces.
 */
static int rotate(struct lm_sched *s, int root, unsigned char *tree,
		  unsigned char *ranks, uint64_t blk, int to_ranks)
{
	int n = s->comm->size;
	uint64_t head = (uint64_t)(n - root) * blk, tail = (uint64_t)root * blk;

	if (to_ranks) {
		TRY(lm_sched_copy(s, tree, ranks + tail, head));
		return lm_sched_copy(s, tree + head, ranks, tail);
	}
	TRY(lm_sched_copy(s, ranks + tail, tree, head));
	return lm_sched_copy(s, ranks, tree + head, tail);
}

LM_ALGO(lm_gather_binomial)
{
	int n = s->comm->size, root = a->root, mask, sub;
	int v = (s->comm->rank - root + n) % n;
	uint64_t blk = a->bytes;
	unsigned char *tree;

	/* Subtree of v: vranks [v, v + its lowest set bit) within n. */
	for (mask = 1; mask < n && !(v & mask); mask <<= 1)
		;
	sub = min_int(mask, n - v);
	if (sub == 1 && v) {
		/* A leaf sends its own block. */
		return lm_sched_send(s, a->sbuf, blk, real(s, root, v - mask));
	}
	tree = root == 0 && v == 0 ? a->rbuf :
		lm_sched_tmp(s, (uint64_t)sub * blk);
	if (!tree)
		return MPI_ERR_NO_MEM;
	if (!(v == 0 && a->in_place))
		TRY(lm_sched_copy(s, a->sbuf, tree, blk));
	else if (root)
		TRY(lm_sched_copy(s, (unsigned char *)a->rbuf +
				  (uint64_t)root * blk, tree, blk));
	for (mask = 1; mask < n && !(v & mask); mask <<= 1)
		if (v + mask < n)
			TRY(lm_sched_recv(s, tree + (uint64_t)mask * blk,
					  (uint64_t)min_int(mask, n - v - mask) * blk,
					  real(s, root, v + mask)));
	TRY(lm_sched_round(s));
	if (v)
		return lm_sched_send(s, tree, (uint64_t)sub * blk,
				     real(s, root, v - mask));
	if (root)
		return rotate(s, root, tree, a->rbuf, blk, 1);
	return MPI_SUCCESS;
}

LM_ALGO(lm_scatter_binomial)
{
	int n = s->comm->size, root = a->root, mask, sub;
	int v = (s->comm->rank - root + n) % n;
	uint64_t blk = a->bytes;
	unsigned char *tree;

	for (mask = 1; mask < n && !(v & mask); mask <<= 1)
		;
	sub = min_int(mask, n - v);
	if (sub == 1 && v)
		return lm_sched_recv(s, a->rbuf, blk, real(s, root, v - mask));
	if (v == 0) {
		tree = (unsigned char *)a->sbuf;
		if (root) {
			tree = lm_sched_tmp(s, (uint64_t)n * blk);
			if (!tree)
				return MPI_ERR_NO_MEM;
			TRY(rotate(s, root, tree, (unsigned char *)a->sbuf, blk, 0));
		}
	} else {
		tree = lm_sched_tmp(s, (uint64_t)sub * blk);
		if (!tree)
			return MPI_ERR_NO_MEM;
		TRY(lm_sched_recv(s, tree, (uint64_t)sub * blk,
				  real(s, root, v - mask)));
		TRY(lm_sched_round(s));
	}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (v + mask < n)
			TRY(lm_sched_send(s, tree + (uint64_t)mask * blk,
					  (uint64_t)min_int(mask, n - v - mask) * blk,
					  real(s, root, v + mask)));
	if (v == 0 && a->in_place)
		return MPI_SUCCESS;
	return lm_sched_copy(s, tree, a->rbuf, blk);
}

LM_ALGO(lm_gather_linear)
{
	int n = s->comm->size, r = s->comm->rank, i;
	unsigned char *out = a->rbuf;

	if (r != a->root)
		return lm_sched_send(s, a->sbuf, a->bytes, a->root);
	for (i = 0; i < n; i++)
		if (i != r)
			TRY(lm_sched_recv(s, out + (uint64_t)i * a->bytes,
					  a->bytes, i));
	if (a->in_place)
		return MPI_SUCCESS;
	return lm_sched_copy(s, a->sbuf, out + (uint64_t)r * a->bytes, a->bytes);
}

LM_ALGO(lm_scatter_linear)
{
	int n = s->comm->size, r = s->comm->rank, i;
	const unsigned char *in = a->sbuf;

	if (r != a->root)
		return lm_sched_recv(s, a->rbuf, a->bytes, a->root);
	for (i = 0; i < n; i++)
		if (i != r)
			TRY(lm_sched_send(s, in + (uint64_t)i * a->bytes,
					  a->bytes, i));
	if (a->in_place)
		return MPI_SUCCESS;
	return lm_sched_copy(s, in + (uint64_t)r * a->bytes, a->rbuf, a->bytes);
}

LM_ALGO(lm_gatherv_linear)
{
	int n = s->comm->size, r = s->comm->rank, i;
	unsigned char *out = a->rbuf;

	if (r != a->root)
		return lm_sched_send(s, a->sbuf, a->sbytes, a->root);
	for (i = 0; i < n; i++)
		if (i != r)
			TRY(lm_sched_recv(s, out + a->rdispls[i], a->rcounts[i], i));
	if (a->in_place)
		return MPI_SUCCESS;
	return lm_sched_copy(s, a->sbuf, out + a->rdispls[r], a->rcounts[r]);
}

LM_ALGO(lm_scatterv_linear)
{
	int n = s->comm->size, r = s->comm->rank, i;
	const unsigned char *in = a->sbuf;

	if (r != a->root)
		return lm_sched_recv(s, a->rbuf, a->rbytes, a->root);
	for (i = 0; i < n; i++)
		if (i != r)
			TRY(lm_sched_send(s, in + a->sdispls[i], a->scounts[i], i));
	if (a->in_place)
		return MPI_SUCCESS;
	return lm_sched_copy(s, in + a->sdispls[r], a->rbuf, a->scounts[r]);
}
