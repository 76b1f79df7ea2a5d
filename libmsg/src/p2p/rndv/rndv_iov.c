// SPDX-License-Identifier: MIT
/*
 * A large non-contiguous message the module gathers, and scatters: one
 * MPICHAN_IOC_SEND whose iovec lists the sender's blocks where they lie.
 *
 * rndv_span.c and rndv_layout.c offer the span of a send's blocks, gaps
 * and all, for the receiver to map and copy from.  A span that is mostly
 * gaps (more than MPICHAN_SPAN_SPARSE times its data), larger than the
 * receive window, or of a layout the RTS cannot describe is not offered
 * that way, and such a send used to be packed: a copy on the sender,
 * then the receiver's.  Over the module it now goes as a send of at
 * most MPICHAN_IOV_MAX segments, one per run of bytes: the module pins
 * only the pages the blocks are on, and the receiver's MPICHAN_IOC_RECV
 * copies from them in the kernel.  The RTS says so (LM_RTS_IOV), and a
 * receive into a non-contiguous type of at most MPICHAN_IOV_MAX runs
 * hands the module its own blocks too: one copy, block to block, and
 * no packing on either side.  Any other receive takes the offer like
 * any other (into its buffer, or a temporary it unpacks from).
 *
 * It pays where blocks are large: pinning a page to send a few bytes of
 * it costs more than copying them twice, and each segment costs the
 * module a step of its copy.  So (MPICHAN_IOV=auto, the default) a send
 * goes this way when its runs average LM_IOV_MIN bytes or more; with
 * MPICHAN_IOV=on whenever it has few enough runs; off: never.
 */

#include <errno.h>
#include <stdlib.h>

#include "p2p/p2p.h"

/* Runs of bytes listed for a send or a receive. */
struct iov_fill {
	struct mpichan_iovec *v;
	uint32_t n, max;
	uint64_t left;		/* bytes still to list */
	int over;		/* more runs than max */
};

/* len bytes at p: joined to the last run when they follow it.  0: stop. */
static int iov_add(struct iov_fill *f, uintptr_t p, uint64_t len)
{
	struct mpichan_iovec *last = f->n ? &f->v[f->n - 1] : NULL;

	if (len > f->left)
		len = f->left;
	if (last && last->base + last->len == p) {
		last->len += len;
	} else if (f->n == f->max) {
		f->over = 1;
		return 0;
	} else {
		f->v[f->n++] = (struct mpichan_iovec){ .base = p, .len = len };
	}
	f->left -= len;
	return f->left != 0;
}

/* The runs of one element of layout l at address at.  0: stop. */
static int iov_layout(struct iov_fill *f, const struct lm_layout *l,
		      uintptr_t at)
{
	const struct lm_seg *s;
	uint64_t i;
	uint32_t k;

	for (k = 0; k < l->nsegs; k++) {
		s = &l->segs[k];
		/* Blocks back to back are one run. */
		if (!s->sub && (uint64_t)s->stride == s->len) {
			if (!iov_add(f, at + (uintptr_t)s->off, s->count * s->len))
				return 0;
			continue;
		}
		for (i = 0; i < s->count; i++) {
			uintptr_t e = at + (uintptr_t)s->off +
				      (uintptr_t)((int64_t)i * s->stride);

			if (s->sub ? !iov_layout(f, s->sub, e) :
				     !iov_add(f, e, s->len))
				return 0;
		}
	}
	return 1;
}

/*
 * The first `bytes` bytes of count dt's at buf as runs in v[0..max):
 * how many, or 0 when they take more than max.  Addresses are added as
 * integers (MPI_BOTTOM with absolute displacements).
 */
static uint32_t iov_of(const void *buf, int64_t count, MPI_Datatype dt,
		       uint64_t bytes, struct mpichan_iovec *v, uint32_t max)
{
	struct iov_fill f = { .v = v, .max = max, .left = bytes };
	int64_t e;

	if (!dt->layout || !bytes)
		return 0;
	for (e = 0; e < count && f.left; e++)
		if (!iov_layout(&f, dt->layout,
				(uintptr_t)buf + (uintptr_t)(e * dt->extent)))
			break;
	return f.over || f.left ? 0 : f.n;
}

/* Sender: r's blocks listed for the module (sets r->span)?  1 if so. */
int lm_iov_prepare(struct libmsg_request *r)
{
	uint64_t max = MPICHAN_IOV_MAX;
	struct mpichan_iovec *v;
	uint32_t n;

	if (lm.iov == LM_SPAN_OFF || !lm.job.t->rndv_offer_iov ||
	    r->mode == LM_MODE_BUFFERED || r->bytes <= lm.eager)
		return 0;
	/* auto: at most as many runs as leave LM_IOV_MIN bytes to each. */
	if (lm.iov == LM_SPAN_AUTO && r->bytes / LM_IOV_MIN < max)
		max = r->bytes / LM_IOV_MIN;
	if (!max)
		return 0;
	v = malloc(max * sizeof(*v));
	if (!v)
		return 0;
	n = iov_of(r->ubuf, r->count, r->dt, r->bytes, v, (uint32_t)max);
	if (!n)
		goto no;
	r->span = calloc(1, sizeof(*r->span));
	if (!r->span)
		goto no;
	r->span->iov = v;
	r->span->niov = n;
	r->span->bytes = r->bytes;
	r->buf = NULL;
	return 1;
no:
	free(v);
	return 0;
}

/* Sender: offer r's runs to world rank dst.  0, or -errno: pack it. */
int lm_iov_offer(struct libmsg_request *r, uint32_t dst)
{
	return lm.job.t->rndv_offer_iov(&lm.job, dst, r->ctx, r->tag,
					r->span->iov, r->span->niov, r->bytes,
					(uintptr_t)r, &r->rts);
}

/*
 * Receiver: take the n bytes of an LM_RTS_IOV offer straight into req's
 * non-contiguous type, if it has few enough runs: 1 (*err set), or 0
 * for the caller to take it as any other offer.
 */
int lm_iov_take(const struct libmsg_request *req, int wsrc, uint32_t ctx,
		int tag, const struct lm_rts *rts, uint64_t n, int *err)
{
	struct mpichan_iovec *v;
	uint32_t k;

	/* Runs are only ever offered as a module send (a handle). */
	if ((rts->flags & (LM_RTS_IOV | LM_RTS_HANDLE)) !=
	    (LM_RTS_IOV | LM_RTS_HANDLE) || !lm.job.t->rndv_take_iov)
		return 0;
	v = malloc(MPICHAN_IOV_MAX * sizeof(*v));
	if (!v)
		return 0;
	k = iov_of(req->ubuf, req->count, req->dt, n, v, MPICHAN_IOV_MAX);
	if (k)
		*err = lm.job.t->rndv_take_iov(&lm.job, (uint32_t)wsrc, ctx,
					       tag, rts, v, k);
	free(v);
	return k != 0;
}
