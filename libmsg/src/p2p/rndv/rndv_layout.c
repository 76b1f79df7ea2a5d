// SPDX-License-Identifier: MIT
/*
 * A large non-contiguous send that is not a tile, offered where it lies.
 *
 * rndv_span.c offers a tile (elements stride apart, each the same few
 * blocks, ascending) and describes it in the RTS's fixed fields.  Other
 * types were packed: a three-dimensional subarray (two strides), an
 * indexed type of many blocks, a transpose (blocks out of address
 * order), a struct of more than LM_RTS_BLOCKS fields.  Their layouts
 * are small trees all the same (a segment is count elements stride
 * apart, an element a block or a few segments), so the sender offers
 * the span from the lowest byte it sends to the highest and puts the
 * tree after the RTS (LM_RTS_LAYOUT, at most LM_RTS_SEGS segments).
 * The receiver walks the tree over the span, mapped in its window, and
 * copies each run of blocks straight into its buffer or its own type:
 * one copy in all, where packing made two.
 *
 * The segments come from another process: before any walk they are
 * checked to nest forward only (no cycles), to add up to the message's
 * size, and to reach no byte outside the span (lm_layout_valid).  As
 * for tiles, a span lm_span_worth refuses (mostly gaps, or larger than
 * the receive window) is packed.
 * Over the fallback the span would be read whole, gaps and all, before
 * the gather: that saves nothing over packing, so there (unless
 * MPICHAN_SPAN=on) such sends are packed.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p2p/p2p.h"

/* What a segment amounts to, worked out from its last segment up. */
struct seg_reach {
	uint64_t size;		/* bytes of data */
	int64_t lo, hi;		/* bytes touched, from the enclosing base */
	uint32_t depth;
};

/* *r = a + b + c, or 0 on overflow. */
static int add3(int64_t a, int64_t b, int64_t c, int64_t *r)
{
	return !__builtin_add_overflow(a, b, r) &&
		!__builtin_add_overflow(*r, c, r);
}

/* An element's data and reach: its block, or its segments'. */
static int elem_reach(const struct lm_rts_seg *s, uint32_t i, uint32_t k,
		      const struct seg_reach *in, struct seg_reach *e)
{
	uint32_t c;

	memset(e, 0, sizeof(*e));
	if (!s->nsub) {
		e->size = s->len;
		e->hi = (int64_t)s->len;
		return s->len && s->len <= INT64_MAX;
	}
	if (s->sub <= i || s->sub >= k || s->nsub > k - s->sub)
		return 0;
	e->lo = INT64_MAX;
	e->hi = INT64_MIN;
	for (c = s->sub; c < s->sub + s->nsub; c++) {
		if (__builtin_add_overflow(e->size, in[c].size, &e->size))
			return 0;
		e->lo = in[c].lo < e->lo ? in[c].lo : e->lo;
		e->hi = in[c].hi > e->hi ? in[c].hi : e->hi;
		e->depth = in[c].depth > e->depth ? in[c].depth : e->depth;
	}
	return e->size == s->len;
}

/*
 * in[i] for every segment, last first (an element's segments come after
 * their parent's): 0 when the segments are not a layout a sender could
 * have made.  Segment 0 is then the whole message.
 */
static int seg_measure(const struct lm_rts_seg *seg, uint32_t k,
		       struct seg_reach *in)
{
	struct seg_reach e;
	int64_t reach;
	uint32_t i;

	if (!k || k > LM_RTS_SEGS)
		return 0;
	for (i = k; i-- > 0;) {
		const struct lm_rts_seg *s = &seg[i];

		if (!s->count || s->count > INT64_MAX ||
		    !elem_reach(s, i, k, in, &e) || e.depth >= LM_RTS_DEPTH ||
		    __builtin_mul_overflow((int64_t)(s->count - 1), s->stride,
					   &reach) ||
		    __builtin_mul_overflow(s->count, e.size, &in[i].size) ||
		    !add3(s->off, e.lo, reach < 0 ? reach : 0, &in[i].lo) ||
		    !add3(s->off, e.hi, reach > 0 ? reach : 0, &in[i].hi))
			return 0;
		in[i].depth = e.depth + 1;
	}
	return 1;
}

/* Receiver: a layout RTS's segments describe size bytes in the span. */
int lm_layout_valid(const struct lm_rts *rts, const struct lm_rts_seg *seg)
{
	struct seg_reach in[LM_RTS_SEGS];

	return rts->blen <= INT64_MAX && seg_measure(seg, rts->nblk, in) &&
		in[0].size == rts->size && in[0].lo >= 0 &&
		(uint64_t)in[0].hi <= rts->blen;
}

/* ---- Sender ------------------------------------------------------------ */

/* The segments of l at seg[*k] on, then their elements': first, or -1. */
static int emit(struct lm_rts_seg *seg, uint32_t *k, const struct lm_layout *l)
{
	uint32_t first = *k, j;
	int sub;

	if (l->nsegs > LM_RTS_SEGS - *k)
		return -1;
	*k += l->nsegs;
	for (j = 0; j < l->nsegs; j++) {
		const struct lm_seg *g = &l->segs[j];
		struct lm_rts_seg *s = &seg[first + j];

		s->off = g->off;
		s->stride = g->stride;
		s->count = g->count;
		s->len = g->len;
		s->sub = 0;
		s->nsub = 0;
		if (!g->sub)
			continue;
		sub = emit(seg, k, g->sub);
		if (sub < 0)
			return -1;
		s->sub = (uint32_t)sub;
		s->nsub = g->sub->nsegs;
	}
	return (int)first;
}

/* count elements of dt as segments (root at 0): how many, or 0. */
static uint32_t layout_segs(MPI_Datatype dt, int count,
			    struct lm_rts_seg *seg)
{
	uint32_t k = 1;

	if (!dt->layout || count < 1)
		return 0;
	seg[0] = (struct lm_rts_seg){
		.stride = dt->extent, .count = (uint64_t)count,
		.len = (uint64_t)dt->size, .sub = 1, .nsub = dt->layout->nsegs,
	};
	return emit(seg, &k, dt->layout) < 0 ? 0 : k;
}

int lm_layout_prepare(struct libmsg_request *r)
{
	struct lm_rts_seg seg[LM_RTS_SEGS];
	struct seg_reach in[LM_RTS_SEGS];
	uint32_t k;
	uint64_t span;

	if (lm.span == LM_SPAN_AUTO && !lm.job.window)
		return 0;
	k = layout_segs(r->dt, r->count, seg);
	if (!k || !seg_measure(seg, k, in) || in[0].size != r->bytes ||
	    LM_RTS_FIXED + k * sizeof(seg[0]) > mcr_max_payload(&lm.job.ep))
		return 0;
	span = (uint64_t)in[0].hi - (uint64_t)in[0].lo;
	if (!lm_span_worth(span, r->bytes))
		return 0;
	r->span = calloc(1, sizeof(*r->span) + k * sizeof(seg[0]));
	if (!r->span)
		return 0;
	seg[0].off = -in[0].lo;	/* the span starts at the lowest byte */
	memcpy(r->span->seg, seg, k * sizeof(seg[0]));
	r->span->nseg = k;
	r->span->bytes = span;
	/* MPI_BOTTOM with absolute displacements: add as integers. */
	r->buf = (void *)((uintptr_t)r->ubuf + (uintptr_t)in[0].lo);
	return 1;
}

/* ---- Receiver ---------------------------------------------------------- */

/*
 * The span as the receiver holds it: bytes [wlo, whi) mapped in its
 * window at win, the rest (the partial pages around them, or all of
 * it) copied to tmp at their own offsets.  When the receive's own type
 * has the sender's layout (the same type on both sides, the common
 * case), span byte `at` goes to at + rbase: blocks go straight from
 * block to block, with no bounce and no unpacking.
 */
struct lay_walk {
	struct lm_dest *d;
	const struct lm_rts_seg *seg;
	const unsigned char *tmp, *win;
	uint64_t wlo, whi;
	uint64_t p, n;		/* message bytes placed, wanted */
	int same;		/* ... the receive has the sender's layout */
	uintptr_t rbase;
};

/* Which piece span bytes [at, at + len) lie in: 0, 1 (win), 2; -1 both. */
static int piece_of(const struct lay_walk *w, uint64_t at, uint64_t len)
{
	if (at + len <= w->wlo)
		return 0;
	if (at >= w->whi)
		return 2;
	return at >= w->wlo && at + len <= w->whi ? 1 : -1;
}

static const unsigned char *piece_at(const struct lay_walk *w, int piece,
				     uint64_t at)
{
	return piece == 1 ? w->win + (at - w->wlo) : w->tmp + at;
}

/* len bytes of the span from at, next in the message, a piece at a time. */
static void take_bytes(struct lay_walk *w, uint64_t at, uint64_t len)
{
	const unsigned char *src;
	uint64_t m;

	for (; len; len -= m, at += m, w->p += m) {
		m = len;
		if (at < w->wlo && at + m > w->wlo)
			m = w->wlo - at;
		else if (at >= w->wlo && at < w->whi && at + m > w->whi)
			m = w->whi - at;
		src = piece_at(w, piece_of(w, at, m), at);
		if (w->same)
			memcpy((void *)(w->rbase + (uintptr_t)at), src, m);
		else
			lm_dest_piece(w->d, w->p, src, m);
	}
}

/* cnt blocks of len bytes, stride apart from span byte at. */
static void take_blocks(struct lay_walk *w, uint64_t at, int64_t stride,
			uint64_t len, uint64_t cnt)
{
	uint64_t whole = (w->n - w->p) / len, last, i;
	int piece;

	if (whole > cnt)
		whole = cnt;
	if (whole) {
		/* Block addresses are monotonic: both ends in one piece,
		 * all of them are. */
		last = at + (whole - 1) * (uint64_t)stride;
		piece = piece_of(w, at, len);
		if (piece >= 0 && piece == piece_of(w, last, len)) {
			if (w->same)
				lm_copy_blocks((unsigned char *)(w->rbase +
								 (uintptr_t)at),
					       stride, piece_at(w, piece, at),
					       stride, len, whole);
			else
				lm_dest_run(w->d, w->p, piece_at(w, piece, at),
					    stride, len, whole);
			w->p += whole * len;
		} else {
			for (i = 0; i < whole; i++)
				take_bytes(w, at + i * (uint64_t)stride, len);
		}
	}
	if (whole < cnt && w->p < w->n)	/* the receive ends in a block */
		take_bytes(w, at + whole * (uint64_t)stride, w->n - w->p);
}

/* Segments first .. first + nsub - 1 of an element at span byte base. */
static void walk(struct lay_walk *w, uint32_t first, uint32_t nsub,
		 uint64_t base)
{
	const struct lm_rts_seg *s;
	uint64_t at, i;
	uint32_t j;

	for (j = first; j < first + nsub && w->p < w->n; j++) {
		s = &w->seg[j];
		at = base + (uint64_t)s->off;
		if (!s->nsub) {
			take_blocks(w, at, s->stride, s->len, s->count);
			continue;
		}
		for (i = 0; i < s->count && w->p < w->n;
		     i++, at += (uint64_t)s->stride)
			walk(w, s->sub, s->nsub, at);
	}
}

struct lay_sink {
	struct lm_sink k;
	struct lay_walk *w;
};

/* The device mapped span bytes [off, off + len): walk while it is. */
static void lay_put(struct lm_sink *k, uint64_t off, const void *src,
		    uint64_t len)
{
	struct lay_walk *w = ((struct lay_sink *)k)->w;

	w->win = src;
	w->wlo = off;
	w->whi = off + len;
	walk(w, 0, 1, 0);
}

/*
 * Does req's type lay the message out as the sender's segments do
 * (apart from where the span starts)?  Then rbase places span bytes.
 */
static int same_layout(struct lay_walk *w, const struct lm_rts *rts,
		       const struct libmsg_request *req)
{
	struct lm_rts_seg mine[LM_RTS_SEGS];
	const struct lm_rts_seg *seg = w->seg;
	uint32_t k = layout_segs(req->dt, req->count, mine);

	if (k != rts->nblk || w->n != rts->size ||
	    memcmp(mine + 1, seg + 1, (k - 1) * sizeof(mine[0])))
		return 0;
	mine[0].off = seg[0].off;
	if (memcmp(&mine[0], &seg[0], sizeof(mine[0])))
		return 0;
	/* Span byte at is buffer byte at - seg[0].off, in either rank. */
	w->rbase = (uintptr_t)req->ubuf - (uintptr_t)seg[0].off;
	return 1;
}

/*
 * Receiver: n bytes of the layout offer rts (its segments seg, checked
 * on arrival) into buf (contiguous), or into req's buffer as its type
 * lays them out.  0 or -errno; the caller tells the sender (FIN) when
 * the module does not.
 */
int lm_layout_take(int wsrc, uint32_t ctx, int tag, const struct lm_rts *rts,
		   const struct lm_rts_seg *seg, uint64_t n, void *buf,
		   const struct libmsg_request *req)
{
	const struct lm_transport *t = lm.job.t;
	struct lm_dest d;
	struct lay_walk w = { .d = &d, .seg = seg, .n = n };
	struct lay_sink s = { { lay_put, 0, 0 }, &w };
	uint64_t sb = rts->blen;
	unsigned char *tmp = NULL;
	int handle = !!(rts->flags & LM_RTS_HANDLE), err;

	w.wlo = w.whi = sb;	/* nothing mapped: all of it in tmp */
	w.same = !buf && n && same_layout(&w, rts, req);
	err = n ? lm_dest_init(&d, w.same ? NULL : buf,
			       w.same ? NULL : req) : 0;
	if (!n || err)
		goto out;
	if (!handle && (pid_t)rts->pid == getpid()) {	/* a send to oneself */
		w.tmp = (const unsigned char *)(uintptr_t)rts->addr;
		walk(&w, 0, 1, 0);
		goto done;
	}
	tmp = lm_scratch_get(sb);
	if (!tmp) {
		err = -ENOMEM;
		goto done;
	}
	w.tmp = tmp;
	err = t->rndv_take(&lm.job, (uint32_t)wsrc, ctx, tag, rts, tmp, sb,
			   handle ? &s.k : NULL);
	if (!err && !s.k.done_len)
		walk(&w, 0, 1, 0);
	lm_scratch_put(tmp, sb);
done:
	lm_dest_finish(&d);
	if (!err)
		return 0;
out:
	/* Still take the message out (the sender must complete). */
	if (handle && !tmp)
		t->rndv_take(&lm.job, (uint32_t)wsrc, ctx, tag, rts, NULL, 0,
			     NULL);
	return err;
}
