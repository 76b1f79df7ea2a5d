// SPDX-License-Identifier: MIT
/*
 * MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: the
 * portable "external32" representation (MPI-3.1 13.5.2), the only
 * datarep there is; any other name is MPI_ERR_UNSUPPORTED_DATAREP.
 *
 * Every basic element is written big-endian at the size MPI's table
 * gives its type: integers two's complement, floating point IEEE (long
 * double as the 16-byte binary128, "Double Extended" in MPI's words),
 * a complex two of its parts, a pair its two members one after the
 * other.  Most types keep their size and are only byte-swapped; MPI_LONG
 * and MPI_UNSIGNED_LONG are 4 bytes (a value that does not fit is
 * MPI_ERR_CONVERSION), MPI_WCHAR 2 (likewise above 0xffff), long double
 * goes through __float128.  A derived type's elements go in typemap
 * order, found by walking its layout: each leaf knows how its elements
 * convert (lm_seg.x32, set from the basic type when the layout was
 * built).
 */

#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "datatype/datatype.h"

/* The parts an element is made of. */
enum { P_COPY1, P_SWAP2, P_SWAP4, P_SWAP8, P_SWAP16, P_LONG, P_ULONG,
       P_WCHAR, P_LDOUBLE, NPARTS };

/* Bytes of a part in memory and in external32. */
static const uint8_t native_size[NPARTS] = {
	[P_COPY1] = 1, [P_SWAP2] = 2, [P_SWAP4] = 4, [P_SWAP8] = 8,
	[P_SWAP16] = 16, [P_LONG] = sizeof(long), [P_ULONG] = sizeof(long),
	[P_WCHAR] = sizeof(wchar_t), [P_LDOUBLE] = sizeof(long double),
};
static const uint8_t ext_size[NPARTS] = {
	[P_COPY1] = 1, [P_SWAP2] = 2, [P_SWAP4] = 4, [P_SWAP8] = 8,
	[P_SWAP16] = 16, [P_LONG] = 4, [P_ULONG] = 4, [P_WCHAR] = 2,
	[P_LDOUBLE] = 16,
};

/* An element: one part, or two (a complex, a pair). */
static const struct recipe {
	uint8_t n;
	uint8_t part[2];
} recipes[] = {
	[LM_X32_COPY1] = { 1, { P_COPY1 } },
	[LM_X32_SWAP2] = { 1, { P_SWAP2 } },
	[LM_X32_SWAP4] = { 1, { P_SWAP4 } },
	[LM_X32_SWAP8] = { 1, { P_SWAP8 } },
	[LM_X32_SWAP16] = { 1, { P_SWAP16 } },
	[LM_X32_LONG] = { 1, { P_LONG } },
	[LM_X32_ULONG] = { 1, { P_ULONG } },
	[LM_X32_WCHAR] = { 1, { P_WCHAR } },
	[LM_X32_LDOUBLE] = { 1, { P_LDOUBLE } },
	[LM_X32_2SWAP4] = { 2, { P_SWAP4, P_SWAP4 } },
	[LM_X32_2SWAP8] = { 2, { P_SWAP8, P_SWAP8 } },
	[LM_X32_2SWAP16] = { 2, { P_SWAP16, P_SWAP16 } },
	[LM_X32_2LDOUBLE] = { 2, { P_LDOUBLE, P_LDOUBLE } },
	[LM_X32_DOUBLE_INT] = { 2, { P_SWAP8, P_SWAP4 } },
	[LM_X32_LONG_INT] = { 2, { P_LONG, P_SWAP4 } },
	[LM_X32_LDOUBLE_INT] = { 2, { P_LDOUBLE, P_SWAP4 } },
};

/* Each basic type's elements (MPI-3.1 table 13.2). */
static const uint8_t x32_of[LM_DT_NTYPES] = {
	[LM_DT_CHAR] = LM_X32_COPY1, [LM_DT_SIGNED_CHAR] = LM_X32_COPY1,
	[LM_DT_UNSIGNED_CHAR] = LM_X32_COPY1, [LM_DT_BYTE] = LM_X32_COPY1,
	[LM_DT_WCHAR] = LM_X32_WCHAR, [LM_DT_SHORT] = LM_X32_SWAP2,
	[LM_DT_UNSIGNED_SHORT] = LM_X32_SWAP2, [LM_DT_INT] = LM_X32_SWAP4,
	[LM_DT_UNSIGNED] = LM_X32_SWAP4, [LM_DT_LONG] = LM_X32_LONG,
	[LM_DT_UNSIGNED_LONG] = LM_X32_ULONG,
	[LM_DT_LONG_LONG] = LM_X32_SWAP8,
	[LM_DT_UNSIGNED_LONG_LONG] = LM_X32_SWAP8,
	[LM_DT_FLOAT] = LM_X32_SWAP4, [LM_DT_DOUBLE] = LM_X32_SWAP8,
	[LM_DT_LONG_DOUBLE] = LM_X32_LDOUBLE, [LM_DT_C_BOOL] = LM_X32_COPY1,
	[LM_DT_INT8_T] = LM_X32_COPY1, [LM_DT_INT16_T] = LM_X32_SWAP2,
	[LM_DT_INT32_T] = LM_X32_SWAP4, [LM_DT_INT64_T] = LM_X32_SWAP8,
	[LM_DT_UINT8_T] = LM_X32_COPY1, [LM_DT_UINT16_T] = LM_X32_SWAP2,
	[LM_DT_UINT32_T] = LM_X32_SWAP4, [LM_DT_UINT64_T] = LM_X32_SWAP8,
	[LM_DT_AINT] = LM_X32_SWAP8, [LM_DT_OFFSET] = LM_X32_SWAP8,
	[LM_DT_COUNT] = LM_X32_SWAP8,
	[LM_DT_C_FLOAT_COMPLEX] = LM_X32_2SWAP4,
	[LM_DT_C_DOUBLE_COMPLEX] = LM_X32_2SWAP8,
	[LM_DT_C_LONG_DOUBLE_COMPLEX] = LM_X32_2LDOUBLE,
	[LM_DT_PACKED] = LM_X32_COPY1,
	[LM_DT_FLOAT_INT] = LM_X32_2SWAP4,
	[LM_DT_DOUBLE_INT] = LM_X32_DOUBLE_INT,
	[LM_DT_LONG_INT] = LM_X32_LONG_INT, [LM_DT_2INT] = LM_X32_2SWAP4,
	[LM_DT_SHORT_INT] = LM_X32_SWAP4,	/* its layout has two leaves */
	[LM_DT_LONG_DOUBLE_INT] = LM_X32_LDOUBLE_INT,
	[LM_DT_2REAL] = LM_X32_2SWAP4, [LM_DT_2DOUBLE_PRECISION] = LM_X32_2SWAP8,
	[LM_DT_2INTEGER] = LM_X32_2SWAP4,
	[LM_DT_CXX_BOOL] = LM_X32_COPY1,
	[LM_DT_CXX_FLOAT_COMPLEX] = LM_X32_2SWAP4,
	[LM_DT_CXX_DOUBLE_COMPLEX] = LM_X32_2SWAP8,
	[LM_DT_CXX_LONG_DOUBLE_COMPLEX] = LM_X32_2LDOUBLE,
	[LM_DT_CHARACTER] = LM_X32_COPY1, [LM_DT_LOGICAL] = LM_X32_SWAP4,
	[LM_DT_INTEGER] = LM_X32_SWAP4, [LM_DT_REAL] = LM_X32_SWAP4,
	[LM_DT_DOUBLE_PRECISION] = LM_X32_SWAP8,
	[LM_DT_COMPLEX] = LM_X32_2SWAP4, [LM_DT_DOUBLE_COMPLEX] = LM_X32_2SWAP8,
	[LM_DT_INTEGER1] = LM_X32_COPY1, [LM_DT_INTEGER2] = LM_X32_SWAP2,
	[LM_DT_INTEGER4] = LM_X32_SWAP4, [LM_DT_INTEGER8] = LM_X32_SWAP8,
	[LM_DT_INTEGER16] = LM_X32_SWAP16, [LM_DT_REAL2] = LM_X32_SWAP2,
	[LM_DT_REAL4] = LM_X32_SWAP4, [LM_DT_REAL8] = LM_X32_SWAP8,
	[LM_DT_REAL16] = LM_X32_SWAP16, [LM_DT_COMPLEX8] = LM_X32_2SWAP4,
	[LM_DT_COMPLEX16] = LM_X32_2SWAP8, [LM_DT_COMPLEX32] = LM_X32_2SWAP16,
};

uint16_t lm_x32_of(int index)
{
	return index >= 0 && index < LM_DT_NTYPES ? x32_of[index] :
		LM_X32_COPY1;
}

/* Bytes of one element of recipe r: in memory (native) or external32. */
static unsigned recipe_bytes(unsigned r, int ext)
{
	const struct recipe *c = &recipes[r];
	unsigned i, n = 0;

	for (i = 0; i < c->n; i++)
		n += ext ? ext_size[c->part[i]] : native_size[c->part[i]];
	return n;
}

/* ---- One part ------------------------------------------------------------- */

/* n bytes from s to d in the other order (little- <-> big-endian). */
static void swap(unsigned char *d, const unsigned char *s, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		d[i] = s[n - 1 - i];
}

static void put_be32(unsigned char *d, uint32_t v)
{
	d[0] = (unsigned char)(v >> 24);
	d[1] = (unsigned char)(v >> 16);
	d[2] = (unsigned char)(v >> 8);
	d[3] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *s)
{
	return (uint32_t)s[0] << 24 | (uint32_t)s[1] << 16 |
		(uint32_t)s[2] << 8 | s[3];
}

/* A part of memory m to external32 e: 0, or MPI_ERR_CONVERSION. */
static int part_out(unsigned p, const unsigned char *m, unsigned char *e)
{
	long l;
	unsigned long ul;
	wchar_t w;
	long double ld;
	__float128 q;

	switch (p) {
	case P_COPY1:
		*e = *m;
		return 0;
	case P_LONG:
		memcpy(&l, m, sizeof(l));
		if (l < INT32_MIN || l > INT32_MAX)
			return MPI_ERR_CONVERSION;
		put_be32(e, (uint32_t)(int32_t)l);
		return 0;
	case P_ULONG:
		memcpy(&ul, m, sizeof(ul));
		if (ul > UINT32_MAX)
			return MPI_ERR_CONVERSION;
		put_be32(e, (uint32_t)ul);
		return 0;
	case P_WCHAR:
		memcpy(&w, m, sizeof(w));
		if (w < 0 || (unsigned long)w > 0xffff)
			return MPI_ERR_CONVERSION;
		e[0] = (unsigned char)((unsigned long)w >> 8);
		e[1] = (unsigned char)w;
		return 0;
	case P_LDOUBLE:
		memcpy(&ld, m, sizeof(ld));
		q = (__float128)ld;
		swap(e, (const unsigned char *)&q, sizeof(q));
		return 0;
	default:
		swap(e, m, native_size[p]);
		return 0;
	}
}

/* A part of external32 e into memory m. */
static void part_in(unsigned p, const unsigned char *e, unsigned char *m)
{
	long l;
	unsigned long ul;
	wchar_t w;
	long double ld;
	__float128 q;

	switch (p) {
	case P_COPY1:
		*m = *e;
		return;
	case P_LONG:
		l = (int32_t)get_be32(e);
		memcpy(m, &l, sizeof(l));
		return;
	case P_ULONG:
		ul = get_be32(e);
		memcpy(m, &ul, sizeof(ul));
		return;
	case P_WCHAR:
		w = (wchar_t)((unsigned)e[0] << 8 | e[1]);
		memcpy(m, &w, sizeof(w));
		return;
	case P_LDOUBLE:
		swap((unsigned char *)&q, e, sizeof(q));
		ld = (long double)q;
		memcpy(m, &ld, sizeof(ld));
		return;
	default:
		swap(m, e, native_size[p]);
		return;
	}
}

/* ---- Walking a type ------------------------------------------------------- */

struct xwalk {
	int pack;		/* else unpack */
	unsigned char *ext;	/* the external32 cursor */
	int err;
};

/* An address in the user's buffer (MPI_BOTTOM: absolute displacements). */
static inline unsigned char *at(const void *base, int64_t off)
{
	return (unsigned char *)((uintptr_t)base + (uintptr_t)off);
}

/* n elements of recipe r at m (esize bytes apart in memory). */
static void elements(struct xwalk *w, unsigned r, unsigned char *m,
		     uint64_t n)
{
	const struct recipe *c = &recipes[r];
	uint64_t k;
	unsigned i;
	int err;

	for (k = 0; k < n && !w->err; k++) {
		for (i = 0; i < c->n; i++) {
			if (w->pack) {
				err = part_out(c->part[i], m, w->ext);
				if (err) {
					w->err = err;
					return;
				}
			} else {
				part_in(c->part[i], w->ext, m);
			}
			m += native_size[c->part[i]];
			w->ext += ext_size[c->part[i]];
		}
	}
}

static void walk_layout(struct xwalk *w, const struct lm_layout *l,
			unsigned char *base)
{
	const struct lm_seg *s;
	uint64_t b;
	uint32_t k;

	for (k = 0; k < l->nsegs && !w->err; k++) {
		s = &l->segs[k];
		for (b = 0; b < s->count && !w->err; b++) {
			unsigned char *p = at(base, s->off + (int64_t)b * s->stride);

			if (s->sub)
				walk_layout(w, s->sub, p);
			else
				elements(w, s->x32, p, s->len / s->esize);
		}
	}
}

static void walk(struct xwalk *w, const void *buf, int64_t count,
		 MPI_Datatype dt)
{
	int64_t k;

	for (k = 0; k < count && !w->err; k++) {
		unsigned char *p = at(buf, k * dt->extent);

		if (dt->layout)
			walk_layout(w, dt->layout, p);
		else if (dt->size)
			elements(w, lm_x32_of(dt->index), at(p, dt->true_lb),
				 (uint64_t)dt->size /
				 recipe_bytes(lm_x32_of(dt->index), 0));
	}
}

/* external32 bytes of one element of l. */
static uint64_t layout_ext(const struct lm_layout *l)
{
	const struct lm_seg *s;
	uint64_t n = 0;
	uint32_t k;

	for (k = 0; k < l->nsegs; k++) {
		s = &l->segs[k];
		n += s->count * (s->sub ? layout_ext(s->sub) :
				 s->len / s->esize * recipe_bytes(s->x32, 1));
	}
	return n;
}

/* external32 bytes of one element of dt. */
static uint64_t ext_bytes(MPI_Datatype dt)
{
	unsigned r;

	if (dt->layout)
		return layout_ext(dt->layout);
	if (!dt->size)
		return 0;
	r = lm_x32_of(dt->index);
	return (uint64_t)dt->size / recipe_bytes(r, 0) * recipe_bytes(r, 1);
}

/* ---- The calls -------------------------------------------------------------- */

/* The shared checks; *bytes: the external32 bytes of count elements. */
static int check(const char *fn, const char *datarep, int64_t count,
		 MPI_Datatype dt, uint64_t *bytes)
{
	uint64_t one;

	lm_check_init(fn);
	if (!datarep)
		return lm_error(NULL, fn, MPI_ERR_ARG, "datarep is NULL");
	if (strcmp(datarep, "external32"))
		return lm_error(NULL, fn, MPI_ERR_UNSUPPORTED_DATAREP,
				"data representation \"%.64s\": libmsg has \"external32\" only",
				datarep);
	if (count < 0)
		return lm_error(NULL, fn, MPI_ERR_COUNT, "count %lld is negative",
				(long long)count);
	if (!lm_datatype_valid(dt))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "%s", lm_datatype_why(dt));
	one = ext_bytes(dt);
	if (count && one > (uint64_t)INT64_MAX / (uint64_t)count)
		return lm_error(NULL, fn, MPI_ERR_COUNT,
				"%lld elements are more than 2^63 bytes",
				(long long)count);
	*bytes = one * (uint64_t)count;
	return MPI_SUCCESS;
}

static int pack_external_size(const char *fn, const char datarep[],
			      int64_t incount, MPI_Datatype datatype,
			      int64_t *size)
{
	uint64_t bytes;
	int err = check(fn, datarep, incount, datatype, &bytes);

	if (err)
		return err;
	if (!size)
		return lm_error(NULL, fn, MPI_ERR_ARG, "size is NULL");
	*size = (int64_t)bytes;
	return MPI_SUCCESS;
}

int MPI_Pack_external_size(const char datarep[], int incount,
			   MPI_Datatype datatype, MPI_Aint *size)
{
	LM_GUARD();
	int64_t n = 0;
	int err = pack_external_size("MPI_Pack_external_size", datarep, incount,
				     datatype, size ? &n : NULL);

	if (!err)
		*size = (MPI_Aint)n;
	return err;
}

int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount,
			     MPI_Datatype datatype, MPI_Count *size)
{
	LM_GUARD();
	int64_t n = 0;
	int err = pack_external_size("MPI_Pack_external_size_c", datarep,
				     incount, datatype, size ? &n : NULL);

	if (!err)
		*size = n;
	return err;
}

/* Pack (pack: 1) or unpack count elements of dt at buf, *pos in ext. */
static int external(const char *fn, int pk, const char datarep[],
		    const void *buf, int64_t count, MPI_Datatype datatype,
		    const void *ext, int64_t size, int64_t *pos)
{
	struct xwalk w = { .pack = pk };
	uint64_t bytes;
	int err = check(fn, datarep, count, datatype, &bytes);

	if (err)
		return err;
	if (lm_check_datatype(datatype))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(datatype));
	if (!pos || *pos < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG, "position is %s",
				pos ? "negative" : "NULL");
	if (size < 0 || (uint64_t)*pos + bytes > (uint64_t)size)
		return lm_error(NULL, fn, MPI_ERR_TRUNCATE, pk ?
				"%llu bytes do not fit at position %lld of %lld" :
				"%llu bytes to unpack at position %lld, but insize is %lld",
				(unsigned long long)bytes, (long long)*pos,
				(long long)size);
	if (bytes && !ext)
		return lm_error(NULL, fn, MPI_ERR_BUFFER, "%s is NULL",
				pk ? "outbuf" : "inbuf");
	if (bytes && !buf && datatype->predefined)
		return lm_error(NULL, fn, MPI_ERR_BUFFER, "%s is NULL",
				pk ? "inbuf" : "outbuf");
	w.ext = (unsigned char *)ext + *pos;
	walk(&w, buf, count, datatype);
	if (w.err)
		return lm_error(NULL, fn, w.err,
				"a value does not fit its external32 size (MPI_LONG, MPI_UNSIGNED_LONG: 4 bytes, MPI_WCHAR: 2)");
	*pos += (int64_t)bytes;
	return MPI_SUCCESS;
}

int MPI_Pack_external(const char datarep[], const void *inbuf, int incount,
		      MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
		      MPI_Aint *position)
{
	LM_GUARD();
	int64_t pos = position ? *position : 0;
	int err = external("MPI_Pack_external", 1, datarep, inbuf, incount,
			   datatype, outbuf, outsize, position ? &pos : NULL);

	if (!err)
		*position = (MPI_Aint)pos;
	return err;
}

int MPI_Pack_external_c(const char datarep[], const void *inbuf,
			MPI_Count incount, MPI_Datatype datatype, void *outbuf,
			MPI_Count outsize, MPI_Count *position)
{
	LM_GUARD();
	int64_t pos = position ? *position : 0;
	int err = external("MPI_Pack_external_c", 1, datarep, inbuf, incount,
			   datatype, outbuf, outsize, position ? &pos : NULL);

	if (!err)
		*position = pos;
	return err;
}

int MPI_Unpack_external(const char datarep[], const void *inbuf,
			MPI_Aint insize, MPI_Aint *position, void *outbuf,
			int outcount, MPI_Datatype datatype)
{
	LM_GUARD();
	int64_t pos = position ? *position : 0;
	int err = external("MPI_Unpack_external", 0, datarep, outbuf, outcount,
			   datatype, inbuf, insize, position ? &pos : NULL);

	if (!err)
		*position = (MPI_Aint)pos;
	return err;
}

int MPI_Unpack_external_c(const char datarep[], const void *inbuf,
			  MPI_Count insize, MPI_Count *position, void *outbuf,
			  MPI_Count outcount, MPI_Datatype datatype)
{
	LM_GUARD();
	int64_t pos = position ? *position : 0;
	int err = external("MPI_Unpack_external_c", 0, datarep, outbuf,
			   outcount, datatype, inbuf, insize,
			   position ? &pos : NULL);

	if (!err)
		*position = pos;
	return err;
}
