// SPDX-License-Identifier: MIT
/*
 * A datatype as a tile: n elements, stride apart, each made of the same
 * few blocks in ascending order.  That is what a rendezvous needs to
 * send a message where it lies (rndv_span.c) and for the receiver to
 * find its bytes: a vector is one block per element, a struct with
 * gaps (or count of them) a handful.  Types whose bytes come in any
 * other order, overlap, or need more than LM_TILE_BLOCKS blocks per
 * repeating unit have no tile: rndv_layout.c offers them with their
 * whole layout instead.
 */

#include <stdlib.h>
#include <string.h>

#include "datatype/datatype.h"

/* Steps a layout walk may take before the type counts as irregular. */
#define TILE_STEPS	256

/*
 * count elements of dt as n blocks of one length, stride apart: a tile
 * of one block (a vector, an hvector, a two-dimensional subarray, count
 * copies of a type that tile)?  Its layout is one leaf segment; only
 * ascending blocks that do not overlap.
 */
static int tile_strided(MPI_Datatype dt, int64_t count, struct lm_tile *t)
{
	const struct lm_seg *g;
	int64_t stride;
	uint64_t n;

	if (count < 1 || !dt->layout || dt->layout->nsegs != 1)
		return 0;
	g = &dt->layout->segs[0];
	if (g->sub || !g->len)
		return 0;
	stride = g->count > 1 ? g->stride : dt->extent;
	if (count > 1 && g->count > 1 &&
	    dt->extent != (int64_t)g->count * g->stride)
		return 0;
	if (__builtin_mul_overflow(g->count, (uint64_t)count, &n) || n < 2 ||
	    stride < (int64_t)g->len)
		return 0;
	memset(t, 0, sizeof(*t));
	t->off = g->off;
	t->stride = stride;
	t->n = n;
	t->size = g->len;
	t->k = 1;
	t->blen[0] = g->len;
	return 1;
}

/* Blocks of one element while they are gathered: buffer offsets. */
struct flat {
	uint32_t k;
	unsigned int steps;
	int64_t at[LM_TILE_BLOCKS];
	uint64_t len[LM_TILE_BLOCKS];
};

/* Append len bytes at buffer offset at: 0 when the tile cannot be. */
static int flat_add(struct flat *f, int64_t at, uint64_t len)
{
	int64_t end;

	if (!len)
		return 1;
	if (f->k) {
		end = f->at[f->k - 1] + (int64_t)f->len[f->k - 1];
		if (at == end) {		/* runs on: one block */
			f->len[f->k - 1] += len;
			return 1;
		}
		if (at < end)			/* descends or overlaps */
			return 0;
	}
	if (f->k == LM_TILE_BLOCKS)
		return 0;
	f->at[f->k] = at;
	f->len[f->k++] = len;
	return 1;
}

/* Every block of layout l placed at buffer offset base, in typemap order. */
static int flat_walk(struct flat *f, const struct lm_layout *l, int64_t base)
{
	const struct lm_seg *g;
	uint64_t r, len;
	int64_t at;
	uint32_t i;

	for (i = 0; i < l->nsegs; i++) {
		g = &l->segs[i];
		if (!g->sub && g->stride == (int64_t)g->len) {
			/* A dense leaf is one block, however long. */
			if (__builtin_mul_overflow(g->len, g->count, &len) ||
			    __builtin_add_overflow(base, g->off, &at) ||
			    !flat_add(f, at, len))
				return 0;
			continue;
		}
		for (r = 0; r < g->count; r++) {
			if (++f->steps > TILE_STEPS ||
			    __builtin_mul_overflow((int64_t)r, g->stride, &at) ||
			    __builtin_add_overflow(at, g->off, &at) ||
			    __builtin_add_overflow(at, base, &at))
				return 0;
			if (g->sub ? !flat_walk(f, g->sub, at) :
				     !flat_add(f, at, g->len))
				return 0;
		}
	}
	return 1;
}

/*
 * count elements of dt as a tile?  Descends through repetitions of one
 * sub-layout that tile (a contiguous or vector of structs), so that the
 * repeating unit, not the whole type, has to fit in LM_TILE_BLOCKS.
 */
static int tile_of(MPI_Datatype dt, int64_t count, struct lm_tile *t)
{
	const struct lm_layout *l = dt->layout;
	const struct lm_seg *g;
	struct flat f;
	int64_t base = 0, x = dt->extent;
	uint64_t n = (uint64_t)count, end;
	uint32_t j;

	if (tile_strided(dt, count, t))
		return 1;
	if (count < 1 || !l || !l->size)
		return 0;
	while (l->nsegs == 1 && l->segs[0].sub && l->segs[0].stride > 0 &&
	       (n == 1 || x == (int64_t)l->segs[0].count * l->segs[0].stride)) {
		g = &l->segs[0];
		if (__builtin_mul_overflow(n, g->count, &n))
			return 0;
		base += g->off;
		x = g->stride;
		l = g->sub;
	}
	memset(&f, 0, sizeof(f));
	if (!flat_walk(&f, l, base) || !f.k)
		return 0;
	end = (uint64_t)(f.at[f.k - 1] - f.at[0]) + f.len[f.k - 1];
	if (n == 1)
		x = (int64_t)end;
	if (x <= 0 || (uint64_t)x < end)	/* elements would interleave */
		return 0;
	memset(t, 0, sizeof(*t));
	t->off = f.at[0];
	t->stride = x;
	t->n = n;
	t->k = f.k;
	for (j = 0; j < f.k; j++) {
		t->boff[j] = (uint64_t)(f.at[j] - f.at[0]);
		t->blen[j] = f.len[j];
		t->size += f.len[j];
	}
	return t->size == l->size;
}

/*
 * What lm_dt_tile answers for a committed type, worked out once and
 * kept with its layout.  tile_of looks at the layout and the extent
 * only; types that share a layout (resized, dup) may differ in extent,
 * so the cache says which it holds.  Every count from 2 takes the same
 * way through tile_of (only count 1 is special), so the tile of count
 * is that of 2 with n scaled.
 */
struct lm_tile_cache {
	int64_t extent;
	int one, two;		/* count 1, count 2: a tile? */
	struct lm_tile t1, t2;
};

void lm_dt_tile_cache(MPI_Datatype dt)
{
	struct lm_tile_cache *c;

	if (!dt->layout || dt->layout->tiles)
		return;
	c = malloc(sizeof(*c));
	if (!c)
		return;		/* lm_dt_tile works it out each time */
	c->extent = dt->extent;
	c->one = tile_of(dt, 1, &c->t1);
	c->two = tile_of(dt, 2, &c->t2);
	dt->layout->tiles = c;
}

int lm_dt_tile(MPI_Datatype dt, int64_t count, struct lm_tile *t)
{
	const struct lm_tile_cache *c = dt->layout ? dt->layout->tiles : NULL;

	if (!c || c->extent != dt->extent)
		return tile_of(dt, count, t);
	if (count == 1) {
		*t = c->t1;
		return c->one;
	}
	if (count < 1 || !c->two)
		return 0;
	*t = c->t2;
	return !__builtin_mul_overflow(c->t2.n / 2, (uint64_t)count, &t->n);
}

/*
 * Bytes from the first block's start to the last one's end (UINT64_MAX
 * when that does not fit: such a span is never offered).
 */
uint64_t lm_tile_span(const struct lm_tile *t)
{
	uint64_t span;

	if (!t->n)
		return 0;
	if (__builtin_mul_overflow(t->n - 1, (uint64_t)t->stride, &span) ||
	    __builtin_add_overflow(span, t->boff[t->k - 1] + t->blen[t->k - 1],
				   &span))
		return UINT64_MAX;
	return span;
}

/*
 * m elements' blocks, column by column: block j of element i goes from
 * src + i * sstep + soff[j] to dst + i * dstep + doff[j].  Runs of
 * LM_TILE_RUN elements, so that a run is still in the cache for the
 * next column.
 */
void lm_tile_columns(unsigned char *dst, int64_t dstep, const uint64_t *doff,
		     const unsigned char *src, int64_t sstep,
		     const uint64_t *soff, const struct lm_tile *t, uint64_t m)
{
	uint64_t r;
	uint32_t j;

	for (; m; m -= r, dst += r * dstep, src += r * sstep) {
		r = m < LM_TILE_RUN ? m : LM_TILE_RUN;
		for (j = 0; j < t->k; j++)
			lm_copy_blocks(dst + doff[j], dstep, src + soff[j], sstep,
				       t->blen[j], r);
	}
}

/* Where each block starts in an element's packed bytes. */
void lm_tile_prefix(const struct lm_tile *t, uint64_t *pre)
{
	uint64_t sum = 0;
	uint32_t j;

	for (j = 0; j < t->k; sum += t->blen[j++])
		pre[j] = sum;
}

/* Pack the message laid out by tile t at buf into out: all t->n elements. */
void lm_tile_pack(const struct lm_tile *t, const void *buf, void *out)
{
	uint64_t pre[LM_TILE_BLOCKS];

	lm_tile_prefix(t, pre);
	lm_tile_columns(out, (int64_t)t->size, pre,
			(const unsigned char *)((uintptr_t)buf + (uintptr_t)t->off),
			t->stride, t->boff, t, t->n);
}

/*
 * Message bytes [from, to), packed at in, into the buffer buf laid out
 * by tile t: whole elements column by column, the rest block by block.
 */
void lm_tile_unpack(const struct lm_tile *t, void *buf, const void *in,
		    uint64_t from, uint64_t to)
{
	const unsigned char *src = in;
	uint64_t pre[LM_TILE_BLOCKS], p = from, e, q, o, m;
	unsigned char *dst;
	uint32_t j;

	lm_tile_prefix(t, pre);
	while (p < to) {
		e = p / t->size;
		q = p - e * t->size;
		dst = (unsigned char *)((uintptr_t)buf +
			(uintptr_t)(t->off + (int64_t)e * t->stride));
		if (!q && to - p >= t->size) {
			m = (to - p) / t->size;
			lm_tile_columns(dst, t->stride, t->boff, src,
					(int64_t)t->size, pre, t, m);
			p += m * t->size;
			src += m * t->size;
			continue;
		}
		for (j = 0; j < t->k && p < to; j++) {
			if (q >= pre[j] + t->blen[j])
				continue;
			o = q - pre[j];
			m = t->blen[j] - o < to - p ? t->blen[j] - o : to - p;
			lm_copy_blocks(dst + t->boff[j] + o, 0, src, 0, m, 1);
			p += m;
			src += m;
			q += m;
		}
	}
}
