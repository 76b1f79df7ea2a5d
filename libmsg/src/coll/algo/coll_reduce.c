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
 *   binomial            lg (msg(b) + b gamma + R) + b beta (the root's
 *                       copy of the result out of its temporary)
 *                       + spill(b)
 *   rabenseifner        coll_rsag.c's + spill(b)
 *   (spill(b) = b beta when b is beyond the L2 cache: a whole-vector
 *   temporary goes to memory and back)
 *   linear              (n - 1) (msg(b) + b gamma) + R + 2 b beta (the root's
 *                       copies in and out) + n spill(b)
 *   pipeline            (n - 2 + k) (msg(b/k) + (b/k) gamma + R), k
 *                       segments of a cache's worth: large vectors,
 *                       where the others' whole-vector temporaries and
 *                       copies go through memory and this one's stay
 *                       in the cache (lm_reduce_segment())
 *   area                no model (coll_cost.c says why): only when forced
 */

#include <pthread.h>
#include <unistd.h>

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

/*
 * A pipeline's segment: half the CPU's L2 cache (read at run time), so
 * that a segment received, reduced and sent on stays in it; 64 KiB to
 * 1 MiB, 256 KiB where the cache is not known.
 */
static uint64_t segment;

static void segment_init(void)
{
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	uint64_t seg = l2 > 0 ? (uint64_t)l2 / 2 : 256 << 10;

	segment = seg < (64 << 10) ? 64 << 10 : seg > (1 << 20) ? 1 << 20 :
		seg;
}

uint64_t lm_reduce_segment(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, segment_init);
	return segment;
}

/* Segment k of nseg (seg elements each, the last what is left): its
 * byte offset and its elements. */
static void seg_at(const struct lm_coll_args *a, uint64_t esize,
		   uint64_t seg, uint64_t nseg, uint64_t k, uint64_t *at,
		   uint64_t *len)
{
	*at = k * seg * esize;
	*len = k == nseg - 1 ? (uint64_t)a->count - k * seg : seg;
}

/*
 * Pipeline: the ranks in a chain that ends at the root (rank 0 when the
 * op does not commute, in rank order, the result then handed to the
 * root), the vector in segments.  Each rank receives segment k from the
 * rank before it in the chain, reduces its own segment k into it and
 * passes it on while segment k + 1 comes in (two segment buffers); the
 * end of the chain receives straight into the receive buffer and
 * reduces its own data there.  No whole-vector temporary but at rank 0
 * for a non-commutative op with another root, and each segment is
 * reduced while still in the cache.
 */
LM_ALGO(lm_reduce_pipeline)
{
	int n = s->comm->size, r = s->comm->rank;
	int end = lm_op_commutes(a->op) ? a->root : 0;
	int p = (r - end + n) % n;	/* 0: the chain's end, n - 1: its head */
	uint64_t esize = s->esize, bytes = (uint64_t)a->count * esize;
	uint64_t seg = lm_reduce_segment() / esize, nseg, k, at, len;
	const unsigned char *own = a->sbuf;
	unsigned char *dest = a->rbuf, *t[2];
	int i;

	if (n == 1)
		return a->in_place ? MPI_SUCCESS :
			lm_sched_copy(s, own, dest, bytes);
	seg = seg ? seg : 1;
	nseg = ((uint64_t)a->count + seg - 1) / seg;
	if (p == 0 && r != a->root) {	/* the result goes on to the root */
		dest = lm_sched_tmp(s, bytes);
		if (!dest)
			return MPI_ERR_NO_MEM;
	}
	for (i = 0; i < 2; i++) {
		t[i] = lm_sched_tmp(s, seg * esize);
		if (!t[i])
			return MPI_ERR_NO_MEM;
	}
	/*
	 * Round k: segment k - 1 reduced (the round's local steps run
	 * first) and sent on, segment k received; the head sends its own.
	 */
	for (k = 0; k <= nseg; k++) {
		if (k && p < n - 1) {
			seg_at(a, esize, seg, nseg, k - 1, &at, &len);
			if (p > 0 || a->in_place) {
				/* buffer = own op buffer */
				TRY(lm_sched_reduce(s, own + at, t[(k - 1) & 1],
						    (int)len));
				if (p > 0)
					TRY(lm_sched_send(s, t[(k - 1) & 1],
							  len * esize,
							  (end + p - 1) % n));
				else
					TRY(lm_sched_copy(s, t[(k - 1) & 1],
							  dest + at, len * esize));
			} else {
				TRY(lm_sched_reduce(s, own + at, dest + at,
						    (int)len));
			}
		}
		if (k < nseg) {
			seg_at(a, esize, seg, nseg, k, &at, &len);
			if (p == n - 1)
				TRY(lm_sched_send(s, own + at, len * esize,
						  (end + p - 1) % n));
			else
				TRY(lm_sched_recv(s, p > 0 || a->in_place ?
						  t[k & 1] : dest + at,
						  len * esize, (end + p + 1) % n));
		}
		TRY(lm_sched_round(s));
	}
	if (p == 0 && r != a->root)
		return lm_sched_send(s, dest, bytes, a->root);
	if (r == a->root && p != 0)
		return lm_sched_recv(s, a->rbuf, bytes, end);
	return MPI_SUCCESS;
}
