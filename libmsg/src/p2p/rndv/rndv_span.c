// SPDX-License-Identifier: MIT
/*
 * A large non-contiguous send without a packing copy.
 *
 * When a message is a tile (dtype_tile.c): elements stride apart, each
 * the same few blocks (a vector, an hvector, a two-dimensional
 * subarray, a struct with gaps, count copies of one of these), the
 * sender offers the span from the first block's start to the last
 * block's end as it lies in the user's buffer: the module pins it and
 * nothing is copied.  The RTS says where the blocks lie in it
 * (LM_RTS_SPAN: stride, bytes per element, the blocks of one).  The
 * receiver maps the span (or has it copied) and takes the blocks from
 * there straight into its own buffer: one copy in all, as for
 * contiguous data, where packing made two (pack on the sender, then the
 * receiver's copy).
 *
 * The gaps between the blocks are the sender's own bytes: the receiver
 * may see them (read-only, in its window) and never uses them.  Ranks of
 * one job can read each other's memory anyway (the fallback reads with
 * process_vm_readv, and each rank lets its siblings, PR_SET_PTRACER).
 * A span that is mostly gaps, or larger than the receive window, is
 * packed instead (lm_span_worth).
 *
 * It pays where the receiver maps the span (the device transport with a
 * receive window): the module copies nothing.  The fallback's receiver
 * reads the blocks alone with process_vm_readv (a remote iovec of up to
 * 1024 blocks per call, never the gaps): a system call per 1024 blocks,
 * which beat packing for 64 KiB blocks (0.91 of contiguous against 0.66,
 * sender-typed), not clearly for 4 KiB ones, and lost badly below (0.02
 * for 64-byte blocks), so there blocks of LM_SPAN_VM_MIN and more go
 * this way.  When the module will not pin a span (RLIMIT_MEMLOCK, a gap
 * that is not readable memory), the module gathers the blocks alone
 * (rndv_iov.c) if they are worth it, else the send is packed after all.
 *
 * A type that is not a tile is offered with its whole layout instead
 * (rndv_layout.c: lm_span_prepare hands it over); both kinds of offer
 * put what they take through rndv_dest.c.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "p2p/p2p.h"

#define LM_SPAN_VM_MIN	16384		/* fallback: smallest block */
#define LM_SPAN_IOV	1024		/* blocks per process_vm_readv */
#define LM_SPAN_STAGE	(256UL << 10)	/* ... and bytes, into a type */

/*
 * Is a span of span bytes worth offering for bytes of data, rather than
 * packing them?  Not when it is more than lm.span_sparse times the
 * data: the module would pin, and the receiver map, mostly gaps.  Nor,
 * with a receive window, when the span is larger than the window (the
 * receiver's is taken to be as large as this rank's: one setting for
 * the job): the module would copy what does not fit in the kernel, gaps
 * and all, which ran 100 times slower than packing (a 128 MiB span of
 * 4 MiB of data through a 64 MiB window, in the VM).
 */
int lm_span_worth(uint64_t span, uint64_t bytes)
{
	if (span / lm.span_sparse > bytes)
		return 0;
	return !lm.job.window || span <= lm.job.window_bytes;
}

/* Sender: offer r's blocks where they lie?  Then r->buf is the span. */
int lm_span_prepare(struct libmsg_request *r)
{
	struct lm_tile t;
	uint64_t minlen = UINT64_MAX;
	uint32_t j;

	if (!lm.span || r->mode == LM_MODE_BUFFERED || r->bytes <= lm.eager)
		return 0;
	if (!lm_dt_tile(r->dt, r->count, &t) || t.n * t.size != r->bytes)
		return lm_layout_prepare(r);
	if (!lm_span_worth(lm_tile_span(&t), r->bytes))
		return 0;
	for (j = 0; j < t.k; j++)
		if (t.blen[j] < minlen)
			minlen = t.blen[j];
	/* The RTS carries the blocks of an element in 32 bits. */
	if (t.k > 1 && t.boff[t.k - 1] + t.blen[t.k - 1] > UINT32_MAX)
		return 0;
	if (lm.span == LM_SPAN_AUTO && !lm.job.window && minlen < LM_SPAN_VM_MIN)
		return 0;
	r->span = calloc(1, sizeof(*r->span));
	if (!r->span)
		return 0;
	r->span->t = t;
	r->span->bytes = lm_tile_span(&t);
	/* MPI_BOTTOM with absolute displacements: add as integers. */
	r->buf = (void *)((uintptr_t)r->ubuf + (uintptr_t)t.off);
	return 1;
}

void lm_span_drop(struct libmsg_request *r)
{
	if (r->span)
		free(r->span->iov);
	free(r->span);
	r->span = NULL;
}

/*
 * The module would not pin the span (RLIMIT_MEMLOCK, a gap that is not
 * readable memory): pack r after all.  0 or -ENOMEM.
 */
int lm_span_abandon(struct libmsg_request *r)
{
	lm_span_drop(r);
	r->buf = lm_scratch_get(r->bytes);
	if (!r->buf)
		return -ENOMEM;
	lm_dt_pack(r->ubuf, r->count, r->dt, r->buf);
	return 0;
}

uint64_t lm_span_offer_bytes(const struct libmsg_request *r)
{
	return r->span->bytes;
}

/*
 * The RTS of a span offer: the message's size, and where its blocks are
 * (a layout's segments follow the RTS in the ring).
 */
void lm_span_mark(struct lm_rts *rts, const struct libmsg_request *r)
{
	const struct lm_tile *t = &r->span->t;
	uint32_t j;

	rts->size = r->bytes;
	if (r->span->nseg) {
		rts->flags |= LM_RTS_LAYOUT;
		rts->blen = r->span->bytes;
		rts->nblk = r->span->nseg;
		return;
	}
	rts->flags |= LM_RTS_SPAN;
	rts->stride = t->stride;
	rts->blen = t->size;
	rts->nblk = t->k > 1 ? t->k : 0;
	for (j = 0; j < rts->nblk; j++) {
		rts->blk[j].off = (uint32_t)t->boff[j];
		rts->blk[j].len = (uint32_t)t->blen[j];
	}
}

/*
 * A span RTS as a tile, if it is one a sender could have made: blocks
 * ascending and apart inside an element, elements apart, the whole
 * span addressable.
 */
static int rts_tile(const struct lm_rts *rts, struct lm_tile *t)
{
	uint64_t end = 0, sum = 0, last;
	uint32_t j;

	if (!rts->blen || rts->size % rts->blen || rts->stride < 0 ||
	    rts->nblk > LM_RTS_BLOCKS)
		return 0;
	memset(t, 0, sizeof(*t));
	t->stride = rts->stride;
	t->size = rts->blen;
	t->n = rts->size / rts->blen;
	t->k = rts->nblk ? rts->nblk : 1;
	t->blen[0] = rts->blen;
	for (j = 0; j < rts->nblk; j++) {
		if (!rts->blk[j].len || rts->blk[j].off < end ||
		    (!j && rts->blk[j].off))
			return 0;
		t->boff[j] = rts->blk[j].off;
		t->blen[j] = rts->blk[j].len;
		end = t->boff[j] + t->blen[j];
		sum += t->blen[j];
	}
	if (rts->nblk && sum != rts->blen)
		return 0;
	end = t->boff[t->k - 1] + t->blen[t->k - 1];
	return (uint64_t)t->stride >= end &&
		!__builtin_mul_overflow(t->n, (uint64_t)t->stride, &last) &&
		last <= INT64_MAX;
}

/* A span RTS from the ring: is it one a sender could have made? */
int lm_span_valid(const struct lm_rts *rts)
{
	struct lm_tile t;

	return rts_tile(rts, &t);
}

/*
 * Message byte p: where it lies in the span, and how many bytes from
 * there are the message's, in a row.
 */
static uint64_t tile_locate(const struct lm_tile *t, uint64_t p, uint64_t *run)
{
	uint64_t e = p / t->size, q = p - e * t->size;
	uint32_t j = 0;

	while (q >= t->blen[j])
		q -= t->blen[j++];
	*run = t->blen[j] - q;
	return e * (uint64_t)t->stride + t->boff[j] + q;
}

/*
 * Whole elements go a run at a time, block column by block column
 * (lm_tile_columns): one strided copy per block of the tile, into the
 * buffer, the receive's own tile or the bounce.
 */

/* Can elements go whole into d (else block by block)? */
static int dest_whole(const struct lm_dest *d, const struct lm_tile *t)
{
	return d->buf || d->same || t->size <= LM_DEST_BOUNCE;
}

/* Elements e .. e + cnt - 1 of the message, whole, the first at src. */
static void dest_elems(struct lm_dest *d, const struct lm_tile *t,
		       uint64_t e, uint64_t cnt, const unsigned char *src)
{
	uint64_t pre[LM_TILE_BLOCKS], room, m;

	lm_tile_prefix(t, pre);
	if (d->buf) {
		lm_tile_columns(d->buf + e * t->size, (int64_t)t->size, pre,
				src, t->stride, t->boff, t, cnt);
		return;
	}
	if (d->same) {
		lm_tile_columns((unsigned char *)((uintptr_t)d->req->ubuf +
				(uintptr_t)(d->rt.off + (int64_t)e * d->rt.stride)),
				d->rt.stride, t->boff, src, t->stride, t->boff,
				t, cnt);
		return;
	}
	for (; cnt; cnt -= m, e += m, src += m * (uint64_t)t->stride) {
		room = lm_dest_room(d, e * t->size) / t->size;
		if (!room) {	/* the bounce is full for this size */
			lm_dest_flush(d);
			room = lm_dest_room(d, e * t->size) / t->size;
		}
		m = cnt < room ? cnt : room;
		lm_tile_columns(d->bounce + d->staged, (int64_t)t->size, pre,
				src, t->stride, t->boff, t, m);
		d->staged += m * t->size;
	}
}

/*
 * Span bytes [from, from + len) at src: the message bytes among them,
 * of the first n, into place.  Finds the element and block `from` falls
 * in once, then walks on: runs of whole elements to dest_elems, the
 * rest block by block.
 */
static void span_copy(struct lm_dest *d, const struct lm_tile *t,
		      uint64_t n, uint64_t from, const unsigned char *src,
		      uint64_t len)
{
	uint64_t S = (uint64_t)t->stride, to = from + len;
	uint64_t end = t->boff[t->k - 1] + t->blen[t->k - 1];
	uint64_t e = from / S, base = e * S, pre = 0, start, stop, p, m;
	uint32_t j = 0;

	while (j < t->k && base + t->boff[j] + t->blen[j] <= from)
		pre += t->blen[j++];
	for (;;) {
		if (j == t->k) {	/* on to the next element */
			e++;
			base += S;
			j = 0;
			pre = 0;
		}
		if (!j && base >= from && base + end <= to &&
		    (e + 1) * t->size <= n && dest_whole(d, t)) {
			m = (to - base - end) / S + 1;
			if (m > n / t->size - e)
				m = n / t->size - e;
			dest_elems(d, t, e, m, src + (base - from));
			e += m - 1;
			base += (m - 1) * S;
			j = t->k;
			continue;
		}
		start = base + t->boff[j];
		p = e * t->size + pre;
		if (start >= to || p >= n)
			return;
		stop = start + t->blen[j];
		if (start < from) {	/* the block began before this piece */
			p += from - start;
			start = from;
		}
		m = (stop < to ? stop : to) - start;
		if (m > n - p)
			m = n - p;
		lm_dest_piece(d, p, src + (start - from), m);
		pre += t->blen[j++];
	}
}

/*
 * A plain-address offer (lm_rndv_offer_vm: the fallback's, or one the
 * module did not queue): read the blocks alone
 * with process_vm_readv, LM_SPAN_IOV of them at a time, never the gaps,
 * straight into a contiguous destination or through a staging piece.
 */
static int span_take_vm(struct lm_dest *d, const struct lm_rts *rts,
			const struct lm_tile *t, uint64_t n, uint64_t span)
{
	struct iovec riov[LM_SPAN_IOV], liov;
	unsigned char *stage = NULL;
	uint64_t p, chunk, at, m;
	int k, err = 0;
	ssize_t r;

	if ((pid_t)rts->pid == getpid()) {	/* a send to oneself */
		span_copy(d, t, n, 0,
			  (const unsigned char *)(uintptr_t)rts->addr, span);
		return 0;
	}
	if (!d->buf && !(stage = lm_scratch_get(LM_SPAN_STAGE)))
		return -ENOMEM;
	for (p = 0; p < n && !err; p += chunk) {
		for (k = 0, chunk = 0; k < LM_SPAN_IOV && p + chunk < n; k++) {
			at = tile_locate(t, p + chunk, &m);
			if (m > n - p - chunk)
				m = n - p - chunk;
			if (stage && m > LM_SPAN_STAGE - chunk)
				m = LM_SPAN_STAGE - chunk;
			if (!m)
				break;
			riov[k].iov_base = (void *)(uintptr_t)(rts->addr + at);
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
			lm_dest_piece(d, p, stage, chunk);
	}
	lm_scratch_put(stage, LM_SPAN_STAGE);
	return err;
}

/* Is the receive's tile rt of the same blocks as t (at any stride)? */
static int same_blocks(const struct lm_tile *t, const struct lm_tile *rt)
{
	uint32_t j;

	if (rt->k != t->k)
		return 0;
	for (j = 0; j < t->k; j++)
		if (rt->boff[j] != t->boff[j] || rt->blen[j] != t->blen[j])
			return 0;
	return 1;
}

struct span_sink {
	struct lm_sink k;
	struct lm_dest *d;
	const struct lm_tile *t;
	uint64_t n;		/* message bytes wanted */
};

static void span_put(struct lm_sink *k, uint64_t off, const void *src,
		     uint64_t len)
{
	struct span_sink *s = (struct span_sink *)k;

	span_copy(s->d, s->t, s->n, off, src, len);
}

/*
 * Receiver: n bytes of the span offer rts into buf (contiguous), or
 * into req's buffer as its type lays them out.  0 or -errno; the caller
 * tells the sender (FIN) when the module does not.
 */
int lm_span_take(int wsrc, uint32_t ctx, int tag, const struct lm_rts *rts,
		 uint64_t n, void *buf, const struct libmsg_request *req)
{
	struct lm_dest d = { .buf = buf, .req = buf ? NULL : req };
	struct lm_tile t;
	struct span_sink s = { { span_put, 0, 0 }, &d, &t, n };
	unsigned char *tmp;
	uint64_t sb, end;
	int err;

	if (!n || !rts_tile(rts, &t))	/* rts_tile: checked on arrival */
		return rts->flags & LM_RTS_HANDLE ?
			lm.job.t->rndv_take(&lm.job, (uint32_t)wsrc, ctx, tag,
					    rts, NULL, 0, NULL) : 0;
	sb = tile_locate(&t, n - 1, &end) + 1;	/* span bytes to take */
	if (!(rts->flags & LM_RTS_HANDLE))
		return span_take_vm(&d, rts, &t, n, sb);
	if (d.req)
		d.same = lm_dt_tile(req->dt, req->count, &d.rt) &&
			 same_blocks(&t, &d.rt);
	/* What the transport copies: the partial pages around a mapping. */
	tmp = lm_scratch_get(sb);
	if (d.req && !d.same)
		d.bounce = lm_scratch_get(LM_DEST_BOUNCE);
	if (!tmp || (d.req && !d.same && !d.bounce)) {
		lm_scratch_put(tmp, sb);
		lm_scratch_put(d.bounce, LM_DEST_BOUNCE);
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
			span_copy(&d, &t, n, 0, tmp, sb);
		else {
			span_copy(&d, &t, n, 0, tmp, s.k.done_off);
			if (end < sb)
				span_copy(&d, &t, n, end, tmp + end, sb - end);
		}
		lm_dest_flush(&d);
	}
	lm_scratch_put(tmp, sb);
	lm_scratch_put(d.bounce, LM_DEST_BOUNCE);
	return err;
}
