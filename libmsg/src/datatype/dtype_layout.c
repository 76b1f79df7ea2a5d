// SPDX-License-Identifier: MIT
/*
 * Building a derived type's layout (datatype.h): the blocks in typemap
 * order, as segments, and its bounds, from copies of old types placed
 * by a constructor (dtype_build.c; dtype_darray.c builds on those).
 *
 * A copy of a one-segment type folds into a single strided segment
 * (a vector of doubles is one segment however long); a small layout is
 * copied in; anything else is referenced as a node segment, so nested
 * types cost a segment per level, never one per block.  Adjacent
 * blocks merge, so a vector with stride == blocklength is one run and
 * takes the contiguous path.  Leaves only merge when their basic
 * elements have the same size, which is what MPI_Get_elements needs,
 * and convert to external32 alike (a long and a double do not).
 *
 * Bounds follow section 4.1.6: lb and ub are the least and greatest
 * displacement of the copies (with the old type's own lb and extent),
 * and the true bounds count data bytes only.
 */

#include <stdlib.h>
#include <string.h>

#include "datatype/dtype_layout.h"

/* A sub-layout of at most this many segments is copied, not referenced. */
#define LM_EXPAND_MAX 16

/* ---- Layouts -------------------------------------------------------------- */

static struct lm_layout *layout_get(struct lm_layout *l)
{
	__atomic_add_fetch(&l->refs, 1, __ATOMIC_RELAXED);
	return l;
}

void lm_layout_put(struct lm_layout *l)
{
	uint32_t i;

	if (__atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (i = 0; i < l->nsegs; i++)
		if (l->segs[i].sub)
			lm_layout_put(l->segs[i].sub);
	free(l->tiles);
	free(l);
}

/* A basic type as a segment: one block of its size. */
static void basic_leaf(MPI_Datatype dt, struct lm_seg *s)
{
	memset(s, 0, sizeof(*s));
	s->count = 1;
	s->len = (uint64_t)dt->size;
	s->esize = (uint32_t)dt->size;
	s->epe = (uint16_t)lm_dt_basic_elements(dt);
	s->x32 = lm_x32_of(dt->index);
}

static void normalize(struct lm_seg *s)
{
	if (!s->sub && s->count > 1 && s->stride == (int64_t)s->len) {
		s->len *= s->count;
		s->count = 1;
	}
	if (s->count == 1)
		s->stride = 0;
}

/* Fold s into p, the segment before it, when they continue each other. */
static int merge(struct lm_seg *p, const struct lm_seg *s)
{
	if (p->sub || s->sub || p->esize != s->esize || p->epe != s->epe ||
	    p->x32 != s->x32)
		return 0;
	if (p->count == 1 && s->count == 1 && p->off + (int64_t)p->len == s->off) {
		p->len += s->len;
		return 1;
	}
	if (p->len != s->len)
		return 0;
	if (p->count == 1 && s->count == 1) {
		p->stride = s->off - p->off;
		p->count = 2;
		return 1;
	}
	if (p->count > 1 && (s->count == 1 || s->stride == p->stride) &&
	    s->off == p->off + (int64_t)p->count * p->stride) {
		p->count += s->count;
		return 1;
	}
	if (p->count == 1 && s->count > 1 && s->off - s->stride == p->off) {
		p->stride = s->stride;
		p->count = s->count + 1;
		return 1;
	}
	return 0;
}

static void push(struct lm_dt_builder *b, struct lm_seg s)
{
	struct lm_seg *n;
	uint32_t cap;

	normalize(&s);
	if (b->n && merge(&b->segs[b->n - 1], &s)) {
		normalize(&b->segs[b->n - 1]);
		return;
	}
	if (b->n == b->cap) {
		cap = b->cap ? 2 * b->cap : 4;
		n = realloc(b->segs, cap * sizeof(*n));
		if (!n) {
			b->err = MPI_ERR_NO_MEM;
			return;
		}
		b->segs = n;
		b->cap = cap;
	}
	if (s.sub)
		layout_get(s.sub);
	b->segs[b->n++] = s;
}

void lm_dtb_drop(struct lm_dt_builder *b)
{
	uint32_t i;

	for (i = 0; i < b->n; i++)
		if (b->segs[i].sub)
			lm_layout_put(b->segs[i].sub);
	free(b->segs);
	b->segs = NULL;
	b->n = b->cap = 0;
}

/* ---- Placing copies of a type -------------------------------------------- */

static uint64_t elements_of(MPI_Datatype c)
{
	return c->layout ? c->layout->nelem : lm_dt_basic_elements(c);
}

static void grow_bounds(struct lm_dt_builder *b, int64_t lo, int64_t hi,
			MPI_Datatype c)
{
	int64_t lb = lo + c->lb, ub = hi + c->lb + c->extent;
	int64_t tlb = lo + c->true_lb, tub = hi + c->true_lb + c->true_extent;

	if (!b->any) {
		b->lb = lb;
		b->ub = ub;
		b->tlb = tlb;
		b->tub = tub;
		b->any = 1;
	} else {
		b->lb = lb < b->lb ? lb : b->lb;
		b->ub = ub > b->ub ? ub : b->ub;
		b->tlb = tlb < b->tlb ? tlb : b->tlb;
		b->tub = tub > b->tub ? tub : b->tub;
	}
	if (c->align > b->align)
		b->align = c->align;
	if (!c->basic)
		b->mixed = 1;
	else if (!b->basic)
		b->basic = c->basic;
	else if (b->basic != c->basic)
		b->mixed = 1;
}

/*
 * Place `count` copies of type c at off, off + stride, ... (bytes).
 * A type without data places nothing (nor bounds).
 */
void lm_dtb_place(struct lm_dt_builder *b, int64_t off, uint64_t count,
		  int64_t stride, MPI_Datatype c)
{
	const struct lm_seg *segs;
	struct lm_seg one, s;
	uint64_t k, bytes, nel;
	int64_t span, at;
	uint32_t n, j;

	if (!count || !c->size || b->err)
		return;
	if (count > INT64_MAX ||
	    __builtin_mul_overflow((int64_t)(count - 1), stride, &span) ||
	    __builtin_mul_overflow(count, (uint64_t)c->size, &bytes) ||
	    __builtin_mul_overflow(count, elements_of(c), &nel) ||
	    __builtin_add_overflow(b->size, bytes, &b->size) ||
	    b->size > INT64_MAX) {
		b->err = MPI_ERR_ARG;
		return;
	}
	b->nelem += nel;
	if (c->explicit_bounds)
		b->explicit_bounds = 1;
	grow_bounds(b, off + (span < 0 ? span : 0), off + (span > 0 ? span : 0), c);

	if (c->layout) {
		segs = c->layout->segs;
		n = c->layout->nsegs;
	} else {
		basic_leaf(c, &one);
		segs = &one;
		n = 1;
	}
	/* One segment: the copies are one strided segment too. */
	if (n == 1 && (segs[0].count == 1 ||
		       stride == (int64_t)segs[0].count * segs[0].stride)) {
		s = segs[0];
		s.off += off;
		if (s.count == 1) {
			s.count = count;
			s.stride = stride;
		} else {
			s.count *= count;
		}
		push(b, s);
		return;
	}
	if (count * n <= LM_EXPAND_MAX) {
		for (k = 0, at = off; k < count; k++, at += stride) {
			for (j = 0; j < n; j++) {
				s = segs[j];
				s.off += at;
				push(b, s);
			}
		}
		return;
	}
	memset(&s, 0, sizeof(s));
	s.off = off;
	s.count = count;
	s.stride = stride;
	s.len = (uint64_t)c->size;
	s.sub = c->layout;
	push(b, s);
}

/* ---- Turning a builder into a type --------------------------------------- */

/* Is this segment one run of bytes?  Then *start, *len say where. */
static int seg_run(const struct lm_seg *s, int64_t *start, uint64_t *len);

static int layout_run(const struct lm_layout *l, int64_t *start, uint64_t *len)
{
	int64_t st;
	uint64_t ln, total = 0;
	uint32_t i;

	for (i = 0; i < l->nsegs; i++) {
		if (!seg_run(&l->segs[i], &st, &ln))
			return 0;
		if (i == 0)
			*start = st;
		else if (st != *start + (int64_t)total)
			return 0;
		total += ln;
	}
	*len = total;
	return 1;
}

static int seg_run(const struct lm_seg *s, int64_t *start, uint64_t *len)
{
	int64_t st;
	uint64_t ln;

	if (!s->sub) {
		if (s->count != 1)
			return 0;
		*start = s->off;
		*len = s->len;
		return 1;
	}
	if (!layout_run(s->sub, &st, &ln) ||
	    (s->count > 1 && s->stride != (int64_t)ln))
		return 0;
	*start = s->off + st;
	*len = ln * s->count;
	return 1;
}

/* Contiguity follows from the layout and the bounds: set both flags. */
void lm_dt_set_flags(struct libmsg_datatype *dt)
{
	int64_t start = 0;
	uint64_t len = 0;

	dt->contig1 = dt->size == 0 ||
		(layout_run(dt->layout, &start, &len) && start == dt->true_lb &&
		 len == (uint64_t)dt->size);
	dt->dense = dt->contig1 && dt->extent == dt->size;
}

static struct libmsg_datatype *dt_alloc(void)
{
	struct lm_dt_box *b = calloc(1, sizeof(*b));
	struct libmsg_datatype *dt;

	if (!b)
		return NULL;
	dt = &b->dt;
	dt->magic = LM_MAGIC_DT;
	dt->index = LM_DT_DERIVED;
	dt->name = dt->name_buf;
	dt->refs = 1;
	return dt;
}

/* The builder's type (uncommitted), or NULL with *err set. */
struct libmsg_datatype *lm_dtb_build(struct lm_dt_builder *b, int *err)
{
	struct libmsg_datatype *dt;
	struct lm_layout *l;

	*err = b->err;
	if (b->err) {
		lm_dtb_drop(b);
		return NULL;
	}
	l = malloc(sizeof(*l) + b->n * sizeof(struct lm_seg));
	dt = dt_alloc();
	if (!l || !dt) {
		free(l);
		free(dt);
		lm_dtb_drop(b);
		*err = MPI_ERR_NO_MEM;
		return NULL;
	}
	l->refs = 1;
	l->tiles = NULL;
	l->nsegs = b->n;
	l->size = b->size;
	l->nelem = b->nelem;
	if (b->n)
		memcpy(l->segs, b->segs, b->n * sizeof(struct lm_seg));
	free(b->segs);
	dt->layout = l;
	dt->size = (int64_t)b->size;
	if (b->any) {
		dt->lb = b->lb;
		dt->extent = b->ub - b->lb;
		dt->true_lb = b->tlb;
		dt->true_extent = b->tub - b->tlb;
	}
	dt->align = b->align ? b->align : 1;
	dt->explicit_bounds = (uint8_t)b->explicit_bounds;
	dt->basic = b->mixed ? NULL : b->basic;
	dt->nbasic = dt->basic ? b->size / (uint64_t)dt->basic->size : 0;
	lm_dt_set_flags(dt);
	return dt;
}

int lm_dtb_done(const char *fn, struct lm_dt_builder *b,
		MPI_Datatype *newtype)
{
	int err;
	struct libmsg_datatype *dt = lm_dtb_build(b, &err);

	if (!dt)
		return lm_error(NULL, fn, err, "%s", err == MPI_ERR_NO_MEM ?
				"out of memory for a datatype" :
				"the datatype would be larger than 2^63 bytes");
	*newtype = dt;
	return MPI_SUCCESS;
}

/* count copies of old, back to back: an internal building block. */
struct libmsg_datatype *lm_dt_run_of(MPI_Datatype old, uint64_t count,
				     int *err)
{
	struct lm_dt_builder b = { 0 };

	lm_dtb_place(&b, 0, count, old->extent, old);
	return lm_dtb_build(&b, err);
}

/* A new type with old's data and the given bounds (layout shared). */
struct libmsg_datatype *lm_dt_with_bounds(MPI_Datatype old, int64_t lb,
					  int64_t extent)
{
	struct libmsg_datatype *dt = dt_alloc();
	struct lm_seg one;
	struct lm_layout *l;

	if (!dt)
		return NULL;
	if (old->layout) {
		l = layout_get(old->layout);
	} else {
		l = malloc(sizeof(*l) + sizeof(struct lm_seg));
		if (!l) {
			free(dt);
			return NULL;
		}
		basic_leaf(old, &one);
		l->refs = 1;
		l->tiles = NULL;
		l->nsegs = 1;
		l->size = (uint64_t)old->size;
		l->nelem = lm_dt_basic_elements(old);
		l->segs[0] = one;
	}
	dt->layout = l;
	dt->size = old->size;
	dt->lb = lb;
	dt->extent = extent;
	dt->true_lb = old->true_lb;
	dt->true_extent = old->true_extent;
	dt->align = old->align;
	dt->basic = old->basic;
	dt->nbasic = old->basic ? (uint64_t)old->size / (uint64_t)old->basic->size : 0;
	lm_dt_set_flags(dt);
	return dt;
}
