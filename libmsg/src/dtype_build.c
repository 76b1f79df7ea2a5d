// SPDX-License-Identifier: MIT
/*
 * Derived datatype constructors (MPI-3.1 section 4.1): contiguous,
 * vector, hvector, indexed, hindexed, indexed_block, hindexed_block,
 * struct, subarray, resized, dup.
 *
 * Each constructor places copies of its old type(s) and builds the new
 * type's layout once (lm.h): the blocks in typemap order, as segments.
 * A copy of a one-segment type folds into a single strided segment
 * (a vector of doubles is one segment however long); a small layout is
 * copied in; anything else is referenced as a node segment, so nested
 * types cost a segment per level, never one per block.  Adjacent
 * blocks merge, so a vector with stride == blocklength is one run and
 * takes the contiguous path.  Leaves only merge when their basic
 * elements have the same size, which is what MPI_Get_elements needs.
 *
 * Bounds follow section 4.1.6: lb and ub are the least and greatest
 * displacement of the copies (with the old type's own lb and extent),
 * a struct's extent is rounded up to the largest alignment of its
 * members unless a member has explicit bounds (create_resized,
 * subarray), and the true bounds count data bytes only.
 */

#include <stdlib.h>
#include <string.h>

#include "lm.h"

/* A sub-layout of at most this many segments is copied, not referenced. */
#define LM_EXPAND_MAX 16

struct builder {
	struct lm_seg *segs;
	uint32_t n, cap;
	int err;		/* MPI_ERR_NO_MEM, or MPI_ERR_ARG: too large */
	int any;		/* something placed: the bounds are set */
	int explicit_bounds;	/* a member had them */
	int64_t lb, ub, tlb, tub;
	uint32_t align;
	MPI_Datatype basic;	/* the one basic type of all members */
	int mixed;
	uint64_t size, nelem;
};

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
	s->epe = lm_dt_basic_elements(dt);
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
	if (p->sub || s->sub || p->esize != s->esize || p->epe != s->epe)
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

static void push(struct builder *b, struct lm_seg s)
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

static void builder_drop(struct builder *b)
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

static void grow_bounds(struct builder *b, int64_t lo, int64_t hi,
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
static void emit(struct builder *b, int64_t off, uint64_t count,
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
static void set_flags(struct libmsg_datatype *dt)
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
static struct libmsg_datatype *build(struct builder *b, int *err)
{
	struct libmsg_datatype *dt;
	struct lm_layout *l;

	*err = b->err;
	if (b->err) {
		builder_drop(b);
		return NULL;
	}
	l = malloc(sizeof(*l) + b->n * sizeof(struct lm_seg));
	dt = dt_alloc();
	if (!l || !dt) {
		free(l);
		free(dt);
		builder_drop(b);
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
	set_flags(dt);
	return dt;
}

static int done(const char *fn, struct builder *b, MPI_Datatype *newtype)
{
	int err;
	struct libmsg_datatype *dt = build(b, &err);

	if (!dt)
		return lm_error(NULL, fn, err, "%s", err == MPI_ERR_NO_MEM ?
				"out of memory for a datatype" :
				"the datatype would be larger than 2^63 bytes");
	*newtype = dt;
	return MPI_SUCCESS;
}

/* count copies of old, back to back: an internal building block. */
static struct libmsg_datatype *run_of(MPI_Datatype old, uint64_t count,
				      int *err)
{
	struct builder b = { 0 };

	emit(&b, 0, count, old->extent, old);
	return build(&b, err);
}

/* ---- Argument checks ---------------------------------------------------------- */

static int check_base(const char *fn, int count, MPI_Datatype old,
		      MPI_Datatype *newtype)
{
	lm_check_init(fn);
	if (count < 0)
		return lm_error(NULL, fn, MPI_ERR_COUNT, "count %d is negative",
				count);
	if (old != NULL && !lm_datatype_valid(old))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "oldtype: %s",
				lm_datatype_why(old));
	if (!newtype)
		return lm_error(NULL, fn, MPI_ERR_ARG, "newtype is NULL");
	return MPI_SUCCESS;
}

static int check_old(const char *fn, MPI_Datatype old)
{
	if (!old)
		return lm_error(NULL, fn, MPI_ERR_TYPE, "oldtype: %s",
				lm_datatype_why(old));
	return MPI_SUCCESS;
}

static int check_blocklen(const char *fn, int bl, int i)
{
	if (bl >= 0)
		return MPI_SUCCESS;
	if (i < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"blocklength %d is negative", bl);
	return lm_error(NULL, fn, MPI_ERR_ARG,
			"blocklength %d of block %d is negative", bl, i);
}

static int check_array(const char *fn, int count, const void *p,
		       const char *what)
{
	if (count > 0 && !p)
		return lm_error(NULL, fn, MPI_ERR_ARG, "%s is NULL", what);
	return MPI_SUCCESS;
}

#define TRY(x) do { int _e = (x); if (_e) return _e; } while (0)

/* ---- Contiguous, vector, hvector ----------------------------------------- */

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_contiguous";
	struct builder b = { 0 };

	struct lm_ints ints = { &count, 1 };

	TRY(check_base(fn, count, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	emit(&b, 0, (uint64_t)count, oldtype->extent, oldtype);
	return lm_dt_made(fn, done(fn, &b, newtype), newtype,
			  MPI_COMBINER_CONTIGUOUS, &ints, 1, NULL, 0, &oldtype, 1);
}

static int hvector(const char *fn, int count, int blocklength, int64_t stride,
		   MPI_Datatype old, MPI_Datatype *newtype)
{
	struct libmsg_datatype *block;
	struct builder b = { 0 };
	int err;

	block = run_of(old, (uint64_t)blocklength, &err);
	if (!block)
		return lm_error(NULL, fn, err, "out of memory for a datatype");
	emit(&b, 0, (uint64_t)count, stride, block);
	lm_dt_release(block);
	return done(fn, &b, newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
			    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_hvector";
	struct lm_ints ints[2] = { { &count, 1 }, { &blocklength, 1 } };

	TRY(check_base(fn, count, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	TRY(check_blocklen(fn, blocklength, -1));
	return lm_dt_made(fn, hvector(fn, count, blocklength, stride, oldtype,
				      newtype), newtype, MPI_COMBINER_HVECTOR,
			  ints, 2, &stride, 1, &oldtype, 1);
}

int MPI_Type_vector(int count, int blocklength, int stride,
		    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_vector";
	int args[3] = { count, blocklength, stride };
	struct lm_ints ints = { args, 3 };
	int64_t bytes;

	TRY(check_base(fn, count, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	TRY(check_blocklen(fn, blocklength, -1));
	if (__builtin_mul_overflow((int64_t)stride, oldtype->extent, &bytes))
		return lm_error(NULL, fn, MPI_ERR_ARG, "stride %d is too large",
				stride);
	return lm_dt_made(fn, hvector(fn, count, blocklength, bytes, oldtype,
				      newtype), newtype, MPI_COMBINER_VECTOR,
			  &ints, 1, NULL, 0, &oldtype, 1);
}

/* ---- Indexed families ------------------------------------------------------ */

/*
 * Blocks of blocklengths[i] (block: blocklength) copies of old at
 * displacements displs[i] (bytes: adispls[i]; else in extents of old).
 */
static int indexed(const char *fn, int count, int block,
		   const int blocklengths[], int blocklength, int bytes,
		   const int displs[], const MPI_Aint adispls[],
		   MPI_Datatype old, MPI_Datatype *newtype)
{
	struct builder b = { 0 };
	int64_t off;
	int i, bl;

	TRY(check_base(fn, count, old, newtype));
	TRY(check_old(fn, old));
	if (block)
		TRY(check_blocklen(fn, blocklength, -1));
	else
		TRY(check_array(fn, count, blocklengths,
				"array_of_blocklengths"));
	TRY(check_array(fn, count, bytes ? (const void *)adispls :
			(const void *)displs, "array_of_displacements"));
	for (i = 0; i < count; i++) {
		bl = block ? blocklength : blocklengths[i];
		if (!block && bl < 0) {
			builder_drop(&b);
			return check_blocklen(fn, bl, i);
		}
		if (bytes)
			off = adispls[i];
		else if (__builtin_mul_overflow((int64_t)displs[i], old->extent, &off)) {
			builder_drop(&b);
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"displacement %d is too large", displs[i]);
		}
		emit(&b, off, (uint64_t)bl, old->extent, old);
	}
	return done(fn, &b, newtype);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[],
		     const int array_of_displacements[], MPI_Datatype oldtype,
		     MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_indexed";
	struct lm_ints ints[3] = { { &count, 1 }, { array_of_blocklengths, count },
				   { array_of_displacements, count } };

	return lm_dt_made(fn, indexed(fn, count, 0, array_of_blocklengths, 0, 0,
				      array_of_displacements, NULL, oldtype,
				      newtype), newtype, MPI_COMBINER_INDEXED,
			  ints, 3, NULL, 0, &oldtype, 1);
}

/* MPI_Type_create_hindexed's type, unrecorded: a building block. */
int lm_dt_hindexed(const char *fn, int count, const int *blocklengths,
		   const MPI_Aint *displs, MPI_Datatype old, MPI_Datatype *out)
{
	return indexed(fn, count, 0, blocklengths, 0, 1, NULL, displs, old, out);
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
			     const MPI_Aint array_of_displacements[],
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_hindexed";
	struct lm_ints ints[2] = { { &count, 1 }, { array_of_blocklengths, count } };

	return lm_dt_made(fn, indexed(fn, count, 0, array_of_blocklengths, 0, 1,
				      NULL, array_of_displacements, oldtype,
				      newtype), newtype, MPI_COMBINER_HINDEXED,
			  ints, 2, array_of_displacements, count, &oldtype, 1);
}

int MPI_Type_create_indexed_block(int count, int blocklength,
				  const int array_of_displacements[],
				  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_indexed_block";
	struct lm_ints ints[3] = { { &count, 1 }, { &blocklength, 1 },
				   { array_of_displacements, count } };

	return lm_dt_made(fn, indexed(fn, count, 1, NULL, blocklength, 0,
				      array_of_displacements, NULL, oldtype,
				      newtype), newtype,
			  MPI_COMBINER_INDEXED_BLOCK, ints, 3, NULL, 0,
			  &oldtype, 1);
}

int MPI_Type_create_hindexed_block(int count, int blocklength,
				   const MPI_Aint array_of_displacements[],
				   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_hindexed_block";
	struct lm_ints ints[2] = { { &count, 1 }, { &blocklength, 1 } };

	return lm_dt_made(fn, indexed(fn, count, 1, NULL, blocklength, 1, NULL,
				      array_of_displacements, oldtype, newtype),
			  newtype, MPI_COMBINER_HINDEXED_BLOCK, ints, 2,
			  array_of_displacements, count, &oldtype, 1);
}

/* ---- Struct ------------------------------------------------------------------- */

int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
			   const MPI_Aint array_of_displacements[],
			   const MPI_Datatype array_of_types[],
			   MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_struct";
	struct lm_ints ints[2] = { { &count, 1 }, { array_of_blocklengths, count } };
	struct libmsg_datatype *dt;
	struct builder b = { 0 };
	MPI_Datatype t;
	int64_t ext;
	int i;

	TRY(check_base(fn, count, NULL, newtype));
	TRY(check_array(fn, count, array_of_blocklengths, "array_of_blocklengths"));
	TRY(check_array(fn, count, array_of_displacements,
			"array_of_displacements"));
	TRY(check_array(fn, count, array_of_types, "array_of_types"));
	for (i = 0; i < count; i++) {
		t = array_of_types[i];
		if (array_of_blocklengths[i] < 0) {
			builder_drop(&b);
			return check_blocklen(fn, array_of_blocklengths[i], i);
		}
		if (!lm_datatype_valid(t)) {
			builder_drop(&b);
			return lm_error(NULL, fn, MPI_ERR_TYPE, "type %d: %s", i,
					lm_datatype_why(t));
		}
		emit(&b, array_of_displacements[i],
		     (uint64_t)array_of_blocklengths[i], t->extent, t);
	}
	TRY(lm_dt_made(fn, done(fn, &b, newtype), newtype,
		       MPI_COMBINER_STRUCT, ints, 2, array_of_displacements,
		       count, array_of_types, count));
	dt = *newtype;
	/* Like a C struct: arrays of it keep every member aligned. */
	if (!dt->explicit_bounds && dt->extent > 0 && dt->extent % dt->align) {
		ext = dt->extent + dt->align - dt->extent % dt->align;
		dt->extent = ext;
		set_flags(dt);
	}
	return MPI_SUCCESS;
}

/* ---- Resized, dup --------------------------------------------------------------- */

/* A new type with old's data and the given bounds (layout shared). */
static struct libmsg_datatype *with_bounds(MPI_Datatype old, int64_t lb,
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
	set_flags(dt);
	return dt;
}

/* MPI_Type_create_resized's type, unrecorded: a building block. */
int lm_dt_resized(const char *fn, MPI_Datatype old, MPI_Aint lb,
		  MPI_Aint extent, MPI_Datatype *out)
{
	struct libmsg_datatype *dt = with_bounds(old, lb, extent);

	if (!dt)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory for a datatype");
	dt->explicit_bounds = 1;
	*out = dt;
	return MPI_SUCCESS;
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
			    MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_resized";
	MPI_Aint bounds[2] = { lb, extent };

	TRY(check_base(fn, 0, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	return lm_dt_made(fn, lm_dt_resized(fn, oldtype, lb, extent, newtype),
			  newtype, MPI_COMBINER_RESIZED, NULL, 0, bounds, 2,
			  &oldtype, 1);
}

int lm_dt_dup(const char *fn, MPI_Datatype old, MPI_Datatype *out)
{
	struct libmsg_datatype *dt = with_bounds(old, old->lb, old->extent);

	if (!dt)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory for a datatype");
	dt->explicit_bounds = old->explicit_bounds;
	dt->committed = old->committed;
	if (dt->committed)
		lm_dt_tile_cache(dt);
	*out = dt;
	return MPI_SUCCESS;
}

/* ---- Subarray ---------------------------------------------------------------- */

static int check_subarray(const char *fn, int ndims, const int sizes[],
			  const int subsizes[], const int starts[], int order)
{
	int i;

	if (ndims <= 0)
		return lm_error(NULL, fn, MPI_ERR_ARG, "ndims %d is not positive",
				ndims);
	if (!sizes || !subsizes || !starts)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"array_of_sizes, subsizes or starts is NULL");
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN",
				order);
	for (i = 0; i < ndims; i++) {
		if (sizes[i] < 1 || subsizes[i] < 1 || starts[i] < 0 ||
		    subsizes[i] > sizes[i] || starts[i] > sizes[i] - subsizes[i])
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"dimension %d: size %d, subsize %d, start %d do not fit",
					i, sizes[i], subsizes[i], starts[i]);
	}
	return MPI_SUCCESS;
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
			     const int array_of_subsizes[],
			     const int array_of_starts[], int order,
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_subarray";
	struct lm_ints ints[5] = { { &ndims, 1 }, { array_of_sizes, ndims },
				   { array_of_subsizes, ndims },
				   { array_of_starts, ndims }, { &order, 1 } };
	struct libmsg_datatype *t, *next;
	struct builder b = { 0 };
	int64_t stride, disp = 0, full;
	int k, d, err;

	TRY(check_base(fn, 0, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	TRY(check_subarray(fn, ndims, array_of_sizes, array_of_subsizes,
			   array_of_starts, order));
	/* Innermost (fastest) dimension first: the last in C order. */
	stride = oldtype->extent;
	t = NULL;
	for (k = 0; k < ndims; k++) {
		d = order == MPI_ORDER_C ? ndims - 1 - k : k;
		if (k == 0) {
			t = run_of(oldtype, (uint64_t)array_of_subsizes[d], &err);
		} else {
			struct builder v = { 0 };

			emit(&v, 0, (uint64_t)array_of_subsizes[d], stride, t);
			next = build(&v, &err);
			lm_dt_release(t);
			t = next;
		}
		if (!t)
			return lm_error(NULL, fn, err, "out of memory for a datatype");
		if (__builtin_mul_overflow((int64_t)array_of_starts[d], stride, &full) ||
		    __builtin_add_overflow(disp, full, &disp) ||
		    __builtin_mul_overflow(stride, (int64_t)array_of_sizes[d], &stride)) {
			lm_dt_release(t);
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"the array is larger than 2^63 bytes");
		}
	}
	/* stride is now the whole array: the extent, from 0. */
	emit(&b, disp, 1, 0, t);
	lm_dt_release(t);
	TRY(done(fn, &b, newtype));
	t = *newtype;
	t->lb = 0;
	t->extent = stride;
	t->explicit_bounds = 1;
	set_flags(t);
	return lm_dt_made(fn, MPI_SUCCESS, newtype, MPI_COMBINER_SUBARRAY, ints,
			  5, NULL, 0, &oldtype, 1);
}
