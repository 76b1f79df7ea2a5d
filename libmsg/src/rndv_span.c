// SPDX-License-Identifier: MIT
/*
 * A large non-contiguous send without a packing copy.
 *
 * When a message is n blocks of len bytes, stride apart (a vector, an
 * hvector, a two-dimensional subarray, count copies of one that tile),
 * the sender offers the span from the first block's start to the last
 * block's end as it lies in the user's buffer: the module pins it and
 * nothing is copied.  The RTS says where the blocks lie in it
 * (LM_RTS_SPAN, stride and blen).  The receiver maps the span (or has
 * it copied) and takes the blocks from there straight into its own
 * buffer: one copy in all, as for contiguous data, where packing made
 * two (pack on the sender, then the receiver's copy).
 *
 * The gaps between the blocks are the sender's own bytes: the receiver
 * may see them (read-only, in its window) and never uses them.  Ranks of
 * one job can read each other's memory anyway (the fallback reads with
 * process_vm_readv, and each rank lets its siblings, PR_SET_PTRACER).
 * A span more than LM_SPAN_SPARSE times the data is packed instead: it
 * would pin mostly gaps.
 *
 * It pays where the receiver maps the span (the device transport with a
 * receive window): the module copies nothing.  The fallback's receiver
 * reads the blocks alone with process_vm_readv (a remote iovec of up to
 * 1024 blocks per call, never the gaps): a system call per 1024 blocks,
 * which beat packing for 64 KiB blocks (0.91 of contiguous against 0.66,
 * sender-typed), not clearly for 4 KiB ones, and lost badly below (0.02
 * for 64-byte blocks), so there blocks of LM_SPAN_VM_MIN and more go
 * this way.  When the module
 * will not pin a span (RLIMIT_MEMLOCK, a gap that is not readable
 * memory), the send is packed after all.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "lm.h"

#define LM_SPAN_SPARSE	4		/* span / data, at most */
#define LM_SPAN_VM_MIN	16384		/* fallback: smallest block */
#define LM_SPAN_BOUNCE	(64UL << 10)	/* blocks gathered per unpack */
#define LM_SPAN_IOV	1024		/* blocks per process_vm_readv */
#define LM_SPAN_STAGE	(256UL << 10)	/* ... and bytes, into a type */

/*
 * count elements of dt as n blocks of len bytes, stride apart, the
 * first at buf + off?  Only ascending blocks that do not overlap.
 */
int lm_dt_strided(MPI_Datatype dt, int64_t count, struct lm_strided *s)
{
	const struct lm_seg *g;

	if (count < 1 || !dt->layout || dt->layout->nsegs != 1)
		return 0;
	g = &dt->layout->segs[0];
	if (g->sub || !g->len)
		return 0;
	s->off = g->off;
	s->len = g->len;
	s->stride = g->count > 1 ? g->stride : dt->extent;
	if (count > 1 && g->count > 1 &&
	    dt->extent != (int64_t)g->count * g->stride)
		return 0;
	if (__builtin_mul_overflow(g->count, (uint64_t)count, &s->n))
		return 0;
	if (s->n < 2 || s->stride < (int64_t)s->len)
		return 0;
	return 1;
}

/* Bytes from the first block's start to the last one's end. */
static uint64_t span_bytes(int64_t stride, uint64_t len, uint64_t n)
{
	return n ? (n - 1) * (uint64_t)stride + len : 0;
}

/* Sender: offer r's blocks where they lie?  Then r->buf is the span. */
int lm_span_prepare(struct libmsg_request *r)
{
	struct lm_strided s;

	if (!lm.span || r->mode == LM_MODE_BUFFERED || r->bytes <= lm.eager ||
	    !lm_dt_strided(r->dt, r->count, &s) ||
	    span_bytes(s.stride, s.len, s.n) / LM_SPAN_SPARSE > r->bytes ||
	    (lm.span == LM_SPAN_AUTO && !lm.job.window && s.len < LM_SPAN_VM_MIN))
		return 0;
	r->span = 1;
	r->span_stride = s.stride;
	r->span_blen = s.len;
	/* MPI_BOTTOM with absolute displacements: add as integers. */
	r->buf = (void *)((uintptr_t)r->ubuf + (uintptr_t)s.off);
	return 1;
}

/*
 * The module would not pin the span (RLIMIT_MEMLOCK, a gap that is not
 * readable memory): pack r after all.  0 or -ENOMEM.
 */
int lm_span_abandon(struct libmsg_request *r)
{
	r->span = 0;
	r->buf = lm_scratch_get(r->bytes);
	if (!r->buf)
		return -ENOMEM;
	lm_dt_pack(r->ubuf, r->count, r->dt, r->buf);
	return 0;
}

uint64_t lm_span_offer_bytes(const struct libmsg_request *r)
{
	return span_bytes(r->span_stride, r->span_blen, r->bytes / r->span_blen);
}

/* The RTS of a span offer: the message's size, and where its blocks are. */
void lm_span_mark(struct lm_rts *rts, const struct libmsg_request *r)
{
	rts->flags |= LM_RTS_SPAN;
	rts->size = r->bytes;
	rts->stride = r->span_stride;
	rts->blen = r->span_blen;
}

/* A span RTS from the ring: is it one a sender could have made? */
int lm_span_valid(const struct lm_rts *rts)
{
	uint64_t n, last;

	if (!rts->blen || rts->size % rts->blen || rts->stride < 0 ||
	    (uint64_t)rts->stride < rts->blen)
		return 0;
	n = rts->size / rts->blen;
	return !__builtin_mul_overflow(n, (uint64_t)rts->stride, &last) &&
		last <= INT64_MAX;
}

/* Where the blocks go: a contiguous buffer, or a receive's own type. */
struct span_dest {
	unsigned char *buf;
	const struct libmsg_request *req;
	struct lm_strided rs;	/* req's type, when it is strided too */
	int same;		/* ... with the sender's block length */
	unsigned char *bounce;
};

/* bytes of the message from packed offset p, at src, into place. */
static void dest_piece(struct span_dest *d, uint64_t p,
		       const unsigned char *src, uint64_t bytes)
{
	const struct libmsg_request *q = d->req;

	if (d->buf)
		memcpy(d->buf + p, src, bytes);
	else
		lm_dt_unpack_range(src, p, p + bytes, q->ubuf, q->count, q->dt);
}

/* Blocks b .. b + k - 1 of the message, whole, the first at src. */
static void dest_blocks(struct span_dest *d, uint64_t b, uint64_t k,
			const unsigned char *src, int64_t stride, uint64_t len)
{
	const struct libmsg_request *q = d->req;
	uint64_t m;

	if (d->buf) {
		lm_copy_blocks(d->buf + b * len, (int64_t)len, src, stride, len, k);
		return;
	}
	if (d->same) {
		lm_copy_blocks((unsigned char *)((uintptr_t)q->ubuf +
			(uintptr_t)(d->rs.off + (int64_t)b * d->rs.stride)),
			d->rs.stride, src, stride, len, k);
		return;
	}
	/* Any other layout: gather a run of blocks, unpack it from there. */
	for (; k; k -= m, b += m, src += m * (uint64_t)stride) {
		m = len <= LM_SPAN_BOUNCE && d->bounce ? LM_SPAN_BOUNCE / len : 1;
		if (m > k)
			m = k;
		if (m == 1) {
			dest_piece(d, b * len, src, len);
			continue;
		}
		lm_copy_blocks(d->bounce, (int64_t)len, src, stride, len, m);
		dest_piece(d, b * len, d->bounce, m * len);
	}
}

struct span_sink {
	struct lm_sink k;
	struct span_dest *d;
	const struct lm_rts *rts;
	uint64_t n;		/* message bytes wanted */
};

/* Span bytes [from, from + len) at src: the block bytes among them. */
static void span_copy(struct span_dest *d, const struct lm_rts *rts,
		      uint64_t n, uint64_t from, const unsigned char *src,
		      uint64_t len)
{
	uint64_t S = (uint64_t)rts->stride, L = rts->blen;
	uint64_t at = from, to = from + len, b, o, p, k, m;

	while (at < to) {
		b = at / S;
		o = at - b * S;
		if (o >= L) {			/* a gap: on to block b + 1 */
			at = (b + 1) * S;
			continue;
		}
		p = b * L + o;
		if (p >= n)
			return;
		if (!o && to - at >= L) {
			k = (to - at - L) / S + 1;	/* whole blocks in range */
			if (k > (n - p) / L)
				k = (n - p) / L;
			if (k) {
				dest_blocks(d, b, k, src + (at - from),
					    (int64_t)S, L);
				at += k * S;
				continue;
			}
		}
		m = L - o;
		if (m > to - at)
			m = to - at;
		if (m > n - p)
			m = n - p;
		dest_piece(d, p, src + (at - from), m);
		at += m;
	}
}

/*
 * A plain-address offer (lm_rndv_offer_vm: the fallback's, or one the
 * module did not queue): read the blocks alone
 * with process_vm_readv, LM_SPAN_IOV of them at a time, never the gaps,
 * straight into a contiguous destination or through a staging piece.
 */
static int span_take_vm(struct span_dest *d, const struct lm_rts *rts,
			uint64_t n, uint64_t span)
{
	uint64_t S = (uint64_t)rts->stride, L = rts->blen, p, chunk, b, o, m;
	struct iovec riov[LM_SPAN_IOV], liov;
	unsigned char *stage = NULL;
	int k, err = 0;
	ssize_t r;

	if ((pid_t)rts->pid == getpid()) {	/* a send to oneself */
		span_copy(d, rts, n, 0,
			  (const unsigned char *)(uintptr_t)rts->addr, span);
		return 0;
	}
	if (!d->buf && !(stage = lm_scratch_get(LM_SPAN_STAGE)))
		return -ENOMEM;
	for (p = 0; p < n && !err; p += chunk) {
		for (k = 0, chunk = 0; k < LM_SPAN_IOV && p + chunk < n; k++) {
			b = (p + chunk) / L;
			o = p + chunk - b * L;
			m = L - o < n - p - chunk ? L - o : n - p - chunk;
			if (stage && m > LM_SPAN_STAGE - chunk)
				m = LM_SPAN_STAGE - chunk;
			if (!m)
				break;
			riov[k].iov_base = (void *)(uintptr_t)(rts->addr + b * S + o);
			riov[k].iov_len = m;
			chunk += m;
		}
		liov.iov_base = stage ? stage : d->buf + p;
		liov.iov_len = chunk;
		do
			r = process_vm_readv((pid_t)rts->pid, &liov, 1, riov,
					     (unsigned long)k, 0);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			err = -errno;
		else if ((uint64_t)r != chunk)
			err = -EFAULT;
		else if (stage)
			dest_piece(d, p, stage, chunk);
	}
	lm_scratch_put(stage, LM_SPAN_STAGE);
	return err;
}

static void span_put(struct lm_sink *k, uint64_t off, const void *src,
		     uint64_t len)
{
	struct span_sink *s = (struct span_sink *)k;

	span_copy(s->d, s->rts, s->n, off, src, len);
}

/*
 * Receiver: n bytes of the span offer rts into buf (contiguous), or
 * into req's buffer as its type lays them out.  0 or -errno; the caller
 * tells the sender (FIN) when the module does not.
 */
int lm_span_take(int wsrc, uint32_t ctx, int tag, const struct lm_rts *rts,
		 uint64_t n, void *buf, const struct libmsg_request *req)
{
	struct span_dest d = { .buf = buf, .req = buf ? NULL : req };
	struct span_sink s = { { span_put, 0, 0 }, &d, rts, n };
	uint64_t nb = (n + rts->blen - 1) / rts->blen;
	uint64_t sb = nb ? (nb - 1) * (uint64_t)rts->stride +
		(n - (nb - 1) * rts->blen) : 0;
	unsigned char *tmp;
	uint64_t end;
	int err;

	if (!n)
		return rts->flags & LM_RTS_HANDLE ?
			lm.job.t->rndv_take(&lm.job, (uint32_t)wsrc, ctx, tag,
					    rts, NULL, 0, NULL) : 0;
	if (!(rts->flags & LM_RTS_HANDLE))
		return span_take_vm(&d, rts, n, sb);
	if (d.req)
		d.same = lm_dt_strided(req->dt, req->count, &d.rs) &&
			 d.rs.len == rts->blen;
	/* What the transport copies: the partial pages around a mapping. */
	tmp = lm_scratch_get(sb);
	if (d.req && !d.same)
		d.bounce = lm_scratch_get(LM_SPAN_BOUNCE);
	if (!tmp || (d.req && !d.same && !d.bounce)) {
		lm_scratch_put(tmp, sb);
		lm_scratch_put(d.bounce, LM_SPAN_BOUNCE);
		/* Still take the message out (the sender must complete). */
		lm.job.t->rndv_take(&lm.job, (uint32_t)wsrc, ctx, tag, rts,
				    NULL, 0, NULL);
		return -ENOMEM;
	}
	err = lm.job.t->rndv_take(&lm.job, (uint32_t)wsrc, ctx, tag, rts, tmp,
				  sb, &s.k);
	if (!err) {
		end = s.k.done_off + s.k.done_len;
		if (!s.k.done_len)
			span_copy(&d, rts, n, 0, tmp, sb);
		else {
			span_copy(&d, rts, n, 0, tmp, s.k.done_off);
			if (end < sb)
				span_copy(&d, rts, n, end, tmp + end, sb - end);
		}
	}
	lm_scratch_put(tmp, sb);
	lm_scratch_put(d.bounce, LM_SPAN_BOUNCE);
	return err;
}
