// SPDX-License-Identifier: MIT
/*
 * Broadcast algorithms.  Ranks are numbered relative to the root
 * (vrank 0 is the root) so every tree below is rooted at vrank 0.
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   binomial            lg (msg(b) + R)
 *   knomial (k = 4)     ceil(lg / 2) (3 msg(b) + R)
 *   linear              (n - 1) msg(b) + R
 *   scatter_allgather   lg (alpha + R) + (n - 1)/n bytes(b) + (n - 1) (msg(b / n) + R)
 *   direct              rndv + (n - 1) alpha + 2 R + b beta max(1, (n - 1) / copies)
 *                       (the receivers copy at once from one source: the memory
 *                       system serves `copies` of them at full speed)
 *   area                no model (coll_cost.c says why): only when forced
 */

#include <errno.h>

#include "coll/algo/algo.h"


static inline int real(const struct lm_sched *s, int root, int v)
{
	return (v + root) % s->comm->size;
}

/*
 * k-nomial tree: a rank receives once from its parent, then sends to up
 * to k - 1 children per level, largest subtrees first.  k = 2 is the
 * binomial tree (log2 n rounds); a larger k has fewer levels and more
 * sends per level, which suits small messages on few CPUs.
 */
static int knomial(struct lm_sched *s, void *buf, uint64_t bytes, int root,
		   int k)
{
	int n = s->comm->size, v = (s->comm->rank - root + n) % n;
	int mask = 1, j;

	while (mask < n) {
		if (v % (k * mask)) {
			TRY(lm_sched_recv(s, buf, bytes,
					  real(s, root, v - v % (k * mask))));
			TRY(lm_sched_round(s));
			break;
		}
		mask *= k;
	}
	for (mask /= k; mask > 0; mask /= k)
		for (j = 1; j < k; j++)
			if (v + j * mask < n)
				TRY(lm_sched_send(s, buf, bytes,
						  real(s, root, v + j * mask)));
	return MPI_SUCCESS;
}

LM_ALGO(lm_bcast_binomial)
{
	return knomial(s, a->rbuf, a->bytes, a->root, 2);
}

LM_ALGO(lm_bcast_knomial)
{
	return knomial(s, a->rbuf, a->bytes, a->root, 4);
}

/* The root sends to everyone itself. */
LM_ALGO(lm_bcast_linear)
{
	int n = s->comm->size, r = s->comm->rank, i;

	if (r != a->root)
		return lm_sched_recv(s, a->rbuf, a->bytes, a->root);
	for (i = 0; i < n; i++)
		if (i != r)
			TRY(lm_sched_send(s, a->rbuf, a->bytes, i));
	return MPI_SUCCESS;
}

/* Bytes [off, off + len) of chunk range [first, last) clipped to the buffer. */
static void chunk_span(uint64_t bytes, uint64_t c, int first, int last,
		       uint64_t *off, uint64_t *len)
{
	uint64_t lo = (uint64_t)first * c, hi = (uint64_t)last * c;

	if (lo > bytes)
		lo = bytes;
	if (hi > bytes)
		hi = bytes;
	*off = lo;
	*len = hi - lo;
}

/*
 * Large messages (van de Geijn): the root scatters n chunks down a
 * binomial tree, then a ring allgather completes every copy.  Each
 * byte crosses about two links instead of log2 n.
 */
LM_ALGO(lm_bcast_scatter_allgather)
{
	int n = s->comm->size, root = a->root;
	int v = (s->comm->rank - root + n) % n, mask = 1, i, sc, rc;
	unsigned char *buf = a->rbuf;
	uint64_t c = (a->bytes + (uint64_t)n - 1) / (uint64_t)n, off, len;

	/* Scatter: vrank v ends with chunk v, its subtree's chunks pass by. */
	while (mask < n) {
		if (v & mask) {
			chunk_span(a->bytes, c, v, v + mask < n ? v + mask : n,
				   &off, &len);
			TRY(lm_sched_recv(s, buf + off, len,
					  real(s, root, v - mask)));
			TRY(lm_sched_round(s));
			break;
		}
		mask <<= 1;
	}
	for (mask >>= 1; mask > 0; mask >>= 1) {
		if (v + mask >= n)
			continue;
		chunk_span(a->bytes, c, v + mask,
			   v + 2 * mask < n ? v + 2 * mask : n, &off, &len);
		TRY(lm_sched_send(s, buf + off, len, real(s, root, v + mask)));
	}
	TRY(lm_sched_round(s));
	/* Ring allgather in vrank space: pass on what came last round. */
	for (i = 0; i < n - 1; i++) {
		sc = (v - i + n) % n;
		rc = (v - i - 1 + n) % n;
		chunk_span(a->bytes, c, sc, sc + 1, &off, &len);
		TRY(lm_sched_send(s, buf + off, len, real(s, root, v + 1)));
		chunk_span(a->bytes, c, rc, rc + 1, &off, &len);
		TRY(lm_sched_recv(s, buf + off, len, real(s, root, v - 1 + n)));
		TRY(lm_sched_round(s));
	}
	return MPI_SUCCESS;
}

/* The root: one offer that every other rank takes (see lm_bcast_direct). */
static int direct_offer(struct lm_sched *s, struct lm_step *st)
{
	struct lm_rts *rts = st->dst;
	int err;

	memset(rts, 0, sizeof(*rts));
	err = lm.job.t->rndv_offer_multi(&lm.job, (uint32_t)st->count,
					 s->comm->ctx + 1, s->tag, st->src,
					 st->bytes, rts);
	return err ? lm_errno_class(err) : MPI_SUCCESS;
}

/* A receiver: the single copy straight from the root's buffer. */
static int direct_take(struct lm_sched *s, struct lm_step *st)
{
	const struct lm_rts *rts = st->src;
	int err;

	if (rts->size != st->bytes)
		return MPI_ERR_TRUNCATE;
	err = lm.job.t->rndv_take(&lm.job,
				  (uint32_t)lm_comm_world(s->comm, st->peer),
				  s->comm->ctx + 1, s->tag, rts, st->dst,
				  st->bytes, NULL);
	/*
	 * The module closes a multi-send when any rank of the job leaves
	 * before it took it; a take then finds no such send.  That is a
	 * death, not a protocol error.
	 */
	if (err == -ENOENT &&
	    __atomic_load_n(&lm.job.hdr->dead_count, __ATOMIC_ACQUIRE))
		return MPI_ERR_PROC_FAILED;
	return err ? lm_errno_class(err) : MPI_SUCCESS;
}

/*
 * Large messages over the module: the root's buffer is offered once to
 * all n - 1 receivers (one MPICHAN_SEND_MULTI, pinned once; without the
 * device its address, read with process_vm_readv); the offer goes to
 * each receiver as a small message, each copies the whole message
 * straight from the root's pages (in the kernel or through its receive
 * window) and acks with an empty message.  The root's buffer is free
 * again when every ack is in.  Every byte is copied once per receiver,
 * all receivers copy at once, and nothing is forwarded.
 */
LM_ALGO(lm_bcast_direct)
{
	int n = s->comm->size, r = s->comm->rank, i;
	struct lm_rts *rts;
	struct lm_step *st;

	if (n == 1 || !a->bytes)
		return MPI_SUCCESS;
	rts = lm_sched_tmp(s, sizeof(*rts));
	if (!rts)
		return MPI_ERR_NO_MEM;
	if (r == a->root) {
		st = lm_sched_call(s, direct_offer);
		if (!st)
			return MPI_ERR_NO_MEM;
		st->src = a->rbuf;
		st->dst = rts;
		st->bytes = a->bytes;
		st->count = n - 1;
		for (i = 0; i < n; i++)
			if (i != r)
				TRY(lm_sched_send(s, rts, sizeof(*rts), i));
		TRY(lm_sched_round(s));
		for (i = 0; i < n; i++)
			if (i != r)
				TRY(lm_sched_recv(s, NULL, 0, i));
		return MPI_SUCCESS;
	}
	TRY(lm_sched_recv(s, rts, sizeof(*rts), a->root));
	TRY(lm_sched_round(s));
	st = lm_sched_call(s, direct_take);
	if (!st)
		return MPI_ERR_NO_MEM;
	st->src = rts;
	st->dst = a->rbuf;
	st->bytes = a->bytes;
	st->peer = a->root;
	/* Posted after the copy: the root learns this rank is done. */
	return lm_sched_send(s, NULL, 0, a->root);
}
