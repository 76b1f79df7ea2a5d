// SPDX-License-Identifier: MIT
/*
 * MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size
 * with "external32" (MPI-3.1 13.5.2), against a big-endian encoding
 * written here bit by bit, without the library: every predefined type
 * at the size of MPI's table 13.2 (MPI_LONG 4 bytes, MPI_WCHAR 2,
 * MPI_LONG_DOUBLE 16 as IEEE binary128, complexes two parts, pairs
 * member by member, the Fortran types), a struct mixing them (a long
 * beside a double: the same size in memory, not in external32), a
 * vector and a type of pairs with gaps, each packed, compared and
 * unpacked back (gaps untouched), and packed bytes broadcast from the
 * last rank, unpacked by every rank.  Refused: any other datarep name
 * (MPI_ERR_UNSUPPORTED_DATAREP), a long or wchar_t external32 cannot
 * hold (MPI_ERR_CONVERSION), too small a buffer (MPI_ERR_TRUNCATE).
 */
#include <complex.h>
#include <math.h>
#include <stddef.h>
#include <wchar.h>

#include "test.h"

/* ---- An independent big-endian encoder ---------------------------------- */

struct bits {
	unsigned char *p;
	unsigned nbit;		/* bits written */
};

static void bit(struct bits *b, int v)
{
	unsigned char *c = b->p + b->nbit / 8;

	if (v)
		*c |= (unsigned char)(0x80 >> (b->nbit % 8));
	else
		*c &= (unsigned char)~(0x80 >> (b->nbit % 8));
	b->nbit++;
}

/* An integer, two's complement, n bytes, big-endian (n up to 16). */
static unsigned char *enc_int(unsigned char *p, long long v, unsigned n)
{
	struct bits b = { p, 0 };
	int i;

	for (i = (int)n * 8 - 1; i >= 0; i--)
		bit(&b, i >= 63 ? v < 0 : (int)((v >> i) & 1));
	return p + n;
}

/*
 * An IEEE number with ebits of exponent and mbits of fraction,
 * big-endian.  v is 0 or a normal number with few significant bits.
 */
static unsigned char *enc_ieee(unsigned char *p, double v, unsigned ebits,
			       unsigned mbits)
{
	struct bits b = { p, 0 };
	unsigned i;
	int e = 0;
	double m;
	long long exp;

	bit(&b, signbit(v) != 0);
	if (v == 0) {
		for (i = 0; i < ebits + mbits; i++)
			bit(&b, 0);
		return p + (1 + ebits + mbits) / 8;
	}
	m = frexp(fabs(v), &e);		/* v = m * 2^e, m in [0.5, 1) */
	exp = (long long)e - 1 + ((1LL << (ebits - 1)) - 1);
	for (i = ebits; i-- > 0;)
		bit(&b, (int)((exp >> i) & 1));
	m = m * 2 - 1;			/* the fraction of 1.f */
	for (i = 0; i < mbits; i++) {
		m *= 2;
		bit(&b, m >= 1);
		if (m >= 1)
			m -= 1;
	}
	return p + (1 + ebits + mbits) / 8;
}

#define F16(p, v)	enc_ieee(p, v, 5, 10)
#define F32(p, v)	enc_ieee(p, v, 8, 23)
#define F64(p, v)	enc_ieee(p, v, 11, 52)
#define F128(p, v)	enc_ieee(p, v, 15, 112)

/* ---- Every predefined type ---------------------------------------------- */

/* Three values per type: small integers, or reals with few bits. */
static const double rv[3] = { 1.5, -2.25, 1024.375 };
static const long long iv[3] = { 5, -3, 100 };

enum kind { K_INT, K_UINT, K_REAL, K_CPLX, K_PAIR_I, K_PAIR_R, K_FPAIR };

static const struct ptype {
	MPI_Datatype dt;
	const char *name;
	enum kind kind;
	unsigned ext;		/* external32 bytes of one element */
	unsigned v;		/* the value: bytes (ints), or IEEE kind */
} ptypes[] = {
#define T(d, k, e, v)	{ d, #d, k, e, v }
	T(MPI_CHAR, K_INT, 1, 1), T(MPI_SIGNED_CHAR, K_INT, 1, 1),
	T(MPI_UNSIGNED_CHAR, K_UINT, 1, 1), T(MPI_BYTE, K_UINT, 1, 1),
	T(MPI_PACKED, K_UINT, 1, 1), T(MPI_WCHAR, K_UINT, 2, 2),
	T(MPI_SHORT, K_INT, 2, 2), T(MPI_UNSIGNED_SHORT, K_UINT, 2, 2),
	T(MPI_INT, K_INT, 4, 4), T(MPI_UNSIGNED, K_UINT, 4, 4),
	T(MPI_LONG, K_INT, 4, 4), T(MPI_UNSIGNED_LONG, K_UINT, 4, 4),
	T(MPI_LONG_LONG, K_INT, 8, 8), T(MPI_UNSIGNED_LONG_LONG, K_UINT, 8, 8),
	T(MPI_FLOAT, K_REAL, 4, 32), T(MPI_DOUBLE, K_REAL, 8, 64),
	T(MPI_LONG_DOUBLE, K_REAL, 16, 128), T(MPI_C_BOOL, K_UINT, 1, 1),
	T(MPI_INT8_T, K_INT, 1, 1), T(MPI_INT16_T, K_INT, 2, 2),
	T(MPI_INT32_T, K_INT, 4, 4), T(MPI_INT64_T, K_INT, 8, 8),
	T(MPI_UINT8_T, K_UINT, 1, 1), T(MPI_UINT16_T, K_UINT, 2, 2),
	T(MPI_UINT32_T, K_UINT, 4, 4), T(MPI_UINT64_T, K_UINT, 8, 8),
	T(MPI_AINT, K_INT, 8, 8), T(MPI_OFFSET, K_INT, 8, 8),
	T(MPI_COUNT, K_INT, 8, 8),
	T(MPI_C_FLOAT_COMPLEX, K_CPLX, 8, 32),
	T(MPI_C_DOUBLE_COMPLEX, K_CPLX, 16, 64),
	T(MPI_C_LONG_DOUBLE_COMPLEX, K_CPLX, 32, 128),
	T(MPI_FLOAT_INT, K_PAIR_R, 8, 32), T(MPI_DOUBLE_INT, K_PAIR_R, 12, 64),
	T(MPI_LONG_INT, K_PAIR_I, 8, 4), T(MPI_2INT, K_PAIR_I, 8, 4),
	T(MPI_SHORT_INT, K_PAIR_I, 6, 2),
	T(MPI_LONG_DOUBLE_INT, K_PAIR_R, 20, 128),
	T(MPI_CXX_BOOL, K_UINT, 1, 1),
	T(MPI_CXX_FLOAT_COMPLEX, K_CPLX, 8, 32),
	T(MPI_CXX_DOUBLE_COMPLEX, K_CPLX, 16, 64),
	T(MPI_CXX_LONG_DOUBLE_COMPLEX, K_CPLX, 32, 128),
	T(MPI_CHARACTER, K_INT, 1, 1), T(MPI_LOGICAL, K_INT, 4, 4),
	T(MPI_INTEGER, K_INT, 4, 4), T(MPI_REAL, K_REAL, 4, 32),
	T(MPI_DOUBLE_PRECISION, K_REAL, 8, 64), T(MPI_COMPLEX, K_CPLX, 8, 32),
	T(MPI_DOUBLE_COMPLEX, K_CPLX, 16, 64),
	T(MPI_2REAL, K_FPAIR, 8, 32), T(MPI_2DOUBLE_PRECISION, K_FPAIR, 16, 64),
	T(MPI_2INTEGER, K_FPAIR, 8, 4),
	T(MPI_INTEGER1, K_INT, 1, 1), T(MPI_INTEGER2, K_INT, 2, 2),
	T(MPI_INTEGER4, K_INT, 4, 4), T(MPI_INTEGER8, K_INT, 8, 8),
	T(MPI_INTEGER16, K_INT, 16, 16), T(MPI_REAL2, K_REAL, 2, 16),
	T(MPI_REAL4, K_REAL, 4, 32), T(MPI_REAL8, K_REAL, 8, 64),
	T(MPI_REAL16, K_REAL, 16, 129), T(MPI_COMPLEX8, K_CPLX, 8, 32),
	T(MPI_COMPLEX16, K_CPLX, 16, 64), T(MPI_COMPLEX32, K_CPLX, 32, 129),
#undef T
};
#define NP ((int)(sizeof(ptypes) / sizeof(ptypes[0])))

/*
 * A real of IEEE kind k (16, 32, 64 bits; 128: long double, 129:
 * __float128) stored at m as the C type holds it.
 */
static size_t put_real(unsigned char *m, unsigned k, double v)
{
	_Float16 h = (_Float16)v;
	float f = (float)v;
	long double l = v;
	__float128 q = v;

	switch (k) {
	case 16: memcpy(m, &h, 2); return 2;
	case 32: memcpy(m, &f, 4); return 4;
	case 64: memcpy(m, &v, 8); return 8;
	case 128: memcpy(m, &l, sizeof(l)); return sizeof(l);
	default: memcpy(m, &q, 16); return 16;
	}
}

static unsigned char *enc_real(unsigned char *p, unsigned k, double v)
{
	switch (k) {
	case 16: return F16(p, v);
	case 32: return F32(p, v);
	case 64: return F64(p, v);
	default: return F128(p, v);
	}
}

/* An integer of n bytes stored at m (little-endian, as x86-64 has it). */
static void put_int(unsigned char *m, size_t n, long long v)
{
	size_t i;

	for (i = 0; i < n; i++)
		m[i] = (unsigned char)(i < 8 ? (unsigned long long)v >> (8 * i) :
				       v < 0 ? 0xff : 0);
}

/*
 * Element k of t in memory at m (its C layout, extent bytes) and its
 * external32 encoding at e; the encoding's end.
 */
static unsigned char *element(const struct ptype *t, unsigned char *m,
			      unsigned char *e, int k)
{
	MPI_Aint lb, ext;
	int size;
	long long v = iv[k];
	size_t h;

	MPI_OK(MPI_Type_get_extent(t->dt, &lb, &ext));
	MPI_OK(MPI_Type_size(t->dt, &size));
	if (t->kind == K_UINT && v < 0)
		v = -v;
	if (t->dt == MPI_C_BOOL || t->dt == MPI_CXX_BOOL)
		v = k == 1;
	switch (t->kind) {
	case K_INT:
	case K_UINT:
		put_int(m, (size_t)size, v);
		return enc_int(e, v, t->ext);
	case K_REAL:
		put_real(m, t->v, rv[k]);
		return enc_real(e, t->v, rv[k]);
	case K_CPLX:
		h = put_real(m, t->v, rv[k]);
		put_real(m + h, t->v, -rv[k] / 2);
		e = enc_real(e, t->v, rv[k]);
		return enc_real(e, t->v, -rv[k] / 2);
	case K_PAIR_R:	/* value, then an int at the C struct's offset */
		h = put_real(m, t->v, rv[k]);
		h = t->v == 32 ? 4 : t->v == 64 ? 8 : sizeof(long double);
		put_int(m + h, 4, 10 + k);
		e = enc_real(e, t->v, rv[k]);
		return enc_int(e, 10 + k, 4);
	case K_PAIR_I:
		h = t->dt == MPI_LONG_INT ? sizeof(long) : (size_t)t->v;
		put_int(m, h, v);
		put_int(m + (t->dt == MPI_SHORT_INT ? 4 : h), 4, 10 + k);
		e = enc_int(e, v, t->v);
		return enc_int(e, 10 + k, 4);
	case K_FPAIR:	/* value and index of one type */
		if (t->v == 4) {
			put_int(m, 4, v);
			put_int(m + 4, 4, 10 + k);
			e = enc_int(e, v, 4);
			return enc_int(e, 10 + k, 4);
		}
		h = put_real(m, t->v, rv[k]);
		put_real(m + h, t->v, 10 + k);
		e = enc_real(e, t->v, rv[k]);
		return enc_real(e, t->v, 10 + k);
	}
	return e;
}

/* The typemap's bytes of n elements of dt: equal at a and b? */
static int same_data(MPI_Datatype dt, const void *a, const void *b, int n)
{
	int size, pa = 0, pb = 0;
	char *x, *y;
	int same;

	MPI_OK(MPI_Type_size(dt, &size));
	x = malloc((size_t)size * (size_t)n + 1);
	y = malloc((size_t)size * (size_t)n + 1);
	CHECK(x && y, "malloc");
	MPI_OK(MPI_Pack(a, n, dt, x, size * n + 1, &pa, MPI_COMM_WORLD));
	MPI_OK(MPI_Pack(b, n, dt, y, size * n + 1, &pb, MPI_COMM_WORLD));
	same = !memcmp(x, y, (size_t)size * (size_t)n);
	free(x);
	free(y);
	return same;
}

/* ---- Derived types ---------------------------------------------------------- */

struct mix {
	char c;
	long l;			/* 8 bytes here, 4 in external32 */
	double d[2];		/* 8 and 8 */
	long double ld;
	struct { double v; int i; } p;	/* MPI_DOUBLE_INT */
	short s;
};

/*
 * Element values of t equal at a and b?  A long double holds 10 bytes
 * of its 16: compare those by value, the rest by their bytes.
 */
static int same_elems(const struct ptype *t, const unsigned char *a,
		      const unsigned char *b, int n)
{
	MPI_Aint lb, ext;
	long double x, y, x2, y2;
	int k, i, j;

	if (t->v != 128)
		return same_data(t->dt, a, b, n);
	MPI_OK(MPI_Type_get_extent(t->dt, &lb, &ext));
	for (k = 0; k < n; k++, a += ext, b += ext) {
		memcpy(&x, a, sizeof(x));
		memcpy(&y, b, sizeof(y));
		if (x != y)
			return 0;
		if (t->kind == K_CPLX) {
			memcpy(&x2, a + sizeof(x), sizeof(x2));
			memcpy(&y2, b + sizeof(y), sizeof(y2));
			if (x2 != y2)
				return 0;
		} else if (t->kind == K_PAIR_R) {
			memcpy(&i, a + sizeof(x), sizeof(i));
			memcpy(&j, b + sizeof(y), sizeof(j));
			if (i != j)
				return 0;
		}
	}
	return 1;
}

static int same_mix(const struct mix *a, const struct mix *b, int n)
{
	int k;

	for (k = 0; k < n; k++)
		if (a[k].c != b[k].c || a[k].l != b[k].l ||
		    a[k].d[0] != b[k].d[0] || a[k].d[1] != b[k].d[1] ||
		    a[k].ld != b[k].ld || a[k].p.v != b[k].p.v ||
		    a[k].p.i != b[k].p.i || a[k].s != b[k].s)
			return 0;
	return 1;
}

static void hex(const char *what, const unsigned char *p, size_t n)
{
	size_t i;

	fprintf(stderr, "  %s:", what);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %02x", p[i]);
	fputc('\n', stderr);
}

static void predefined(const struct ptype *t)
{
	unsigned char mem[3 * 64], back[3 * 64], want[3 * 64], got[3 * 64 + 8];
	unsigned char *e = want;
	MPI_Aint lb, ext, size, pos = 4;
	int k;

	MPI_OK(MPI_Type_get_extent(t->dt, &lb, &ext));
	memset(mem, 0, sizeof(mem));
	for (k = 0; k < 3; k++)
		e = element(t, mem + k * ext, e, k);
	CHECK((unsigned)(e - want) == 3 * t->ext, "%s: encoded %d bytes",
	      t->name, (int)(e - want));
	MPI_OK(MPI_Pack_external_size("external32", 3, t->dt, &size));
	CHECK(size == 3 * (MPI_Aint)t->ext, "%s: MPI_Pack_external_size %ld, not %u",
	      t->name, (long)size, 3 * t->ext);
	memset(got, 0x77, sizeof(got));
	MPI_OK(MPI_Pack_external("external32", mem, 3, t->dt, got,
				 (MPI_Aint)sizeof(got), &pos));
	CHECK(pos == 4 + size, "%s: position %ld", t->name, (long)pos);
	if (memcmp(got + 4, want, (size_t)size)) {
		hex("packed", got + 4, (size_t)size);
		hex("wanted", want, (size_t)size);
		CHECK(0, "%s: external32 bytes differ", t->name);
	}
	CHECK(got[3] == 0x77 && got[4 + size] == 0x77,
	      "%s: wrote outside its bytes", t->name);
	memset(back, 0x5a, sizeof(back));
	pos = 4;
	MPI_OK(MPI_Unpack_external("external32", got, (MPI_Aint)sizeof(got),
				   &pos, back, 3, t->dt));
	CHECK(pos == 4 + size, "%s: unpack position %ld", t->name, (long)pos);
	CHECK(same_elems(t, mem, back, 3), "%s: unpacked other values",
	      t->name);
}

static MPI_Datatype mix_type(void)
{
	int bl[6] = { 1, 1, 2, 1, 1, 1 };
	MPI_Aint d[6] = { offsetof(struct mix, c), offsetof(struct mix, l),
			  offsetof(struct mix, d), offsetof(struct mix, ld),
			  offsetof(struct mix, p), offsetof(struct mix, s) };
	MPI_Datatype ty[6] = { MPI_CHAR, MPI_LONG, MPI_DOUBLE, MPI_LONG_DOUBLE,
			       MPI_DOUBLE_INT, MPI_SHORT }, t;

	MPI_OK(MPI_Type_create_struct(6, bl, d, ty, &t));
	MPI_OK(MPI_Type_commit(&t));
	return t;
}

static unsigned char *enc_mix(unsigned char *e, const struct mix *m)
{
	e = enc_int(e, m->c, 1);
	e = enc_int(e, m->l, 4);
	e = F64(e, m->d[0]);
	e = F64(e, m->d[1]);
	e = F128(e, (double)m->ld);
	e = F64(e, m->p.v);
	e = enc_int(e, m->p.i, 4);
	return enc_int(e, m->s, 2);
}

static void derived(void)
{
	struct mix m[2], back[2];
	unsigned char want[2 * 64], got[2 * 64], *e = want;
	int v[8] = { 1, -1, 2, -2, 3, -3, 4, -4 }, vb[8], k;
	MPI_Datatype mt = mix_type(), vt, lt;
	MPI_Aint size, pos = 0;
	int bl[2] = { 1, 1 };
	MPI_Aint d[2] = { 0, 8 };
	MPI_Datatype ld[2] = { MPI_LONG, MPI_DOUBLE };
	struct { long l; double d; } ldv[2] = { { -7, 0.375 }, { 70000, -6.5 } },
		ldb[2];

	memset(m, 0, sizeof(m));
	for (k = 0; k < 2; k++) {
		m[k].c = (char)('a' + k);
		m[k].l = -100000L * (k + 1);
		m[k].d[0] = rv[k];
		m[k].d[1] = -rv[k + 1];
		m[k].ld = (long double)rv[2 - k];
		m[k].p.v = 0.5 * k;
		m[k].p.i = 40 + k;
		m[k].s = (short)(-300 * k);
		e = enc_mix(e, &m[k]);
	}
	MPI_OK(MPI_Pack_external_size("external32", 2, mt, &size));
	CHECK(size == e - want && size == 2 * (1 + 4 + 16 + 16 + 12 + 2),
	      "struct: external32 size %ld", (long)size);
	MPI_OK(MPI_Pack_external("external32", m, 2, mt, got, sizeof(got), &pos));
	if (pos != size || memcmp(got, want, (size_t)size)) {
		hex("packed", got, (size_t)size);
		hex("wanted", want, (size_t)size);
		CHECK(0, "struct: external32 bytes differ");
	}
	memset(back, 0xaa, sizeof(back));
	pos = 0;
	MPI_OK(MPI_Unpack_external("external32", got, size, &pos, back, 2, mt));
	CHECK(same_mix(m, back, 2), "struct: unpacked other values");
	/* The gap after c (7 bytes) was not written. */
	CHECK(((unsigned char *)&back[1])[1] == 0xaa, "struct: a gap written");

	/* A long beside a double: 8 bytes each in memory, 4 and 8 here. */
	MPI_OK(MPI_Type_create_struct(2, bl, d, ld, &lt));
	MPI_OK(MPI_Type_commit(&lt));
	e = want;
	for (k = 0; k < 2; k++) {
		e = enc_int(e, ldv[k].l, 4);
		e = F64(e, ldv[k].d);
	}
	pos = 0;
	MPI_OK(MPI_Pack_external("external32", ldv, 2, lt, got, sizeof(got), &pos));
	CHECK(pos == 24 && !memcmp(got, want, 24),
	      "struct {long; double}: %ld bytes, or other ones", (long)pos);
	pos = 0;
	MPI_OK(MPI_Unpack_external("external32", got, 24, &pos, ldb, 2, lt));
	CHECK(ldb[1].l == 70000 && ldb[1].d == -6.5 && ldb[0].l == -7,
	      "struct {long; double}: unpacked %ld %g", ldb[1].l, ldb[1].d);

	/* A vector: every other int. */
	MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &vt));
	MPI_OK(MPI_Type_commit(&vt));
	e = want;
	for (k = 0; k < 4; k++)
		e = enc_int(e, v[2 * k], 4);
	pos = 0;
	MPI_OK(MPI_Pack_external("external32", v, 1, vt, got, sizeof(got), &pos));
	CHECK(pos == 16 && !memcmp(got, want, 16), "vector: bytes differ");
	for (k = 0; k < 8; k++)
		vb[k] = 99;
	pos = 0;
	MPI_OK(MPI_Unpack_external("external32", got, 16, &pos, vb, 1, vt));
	for (k = 0; k < 8; k++)
		CHECK(vb[k] == (k % 2 ? 99 : v[k]), "vector: unpacked %d", k);

	/* From the last rank to all: the same values come out everywhere. */
	memset(got, 0, sizeof(got));
	pos = 0;
	if (t_rank == t_size - 1)
		MPI_OK(MPI_Pack_external("external32", m, 2, mt, got,
					 sizeof(got), &pos));
	MPI_OK(MPI_Bcast(got, (int)size, MPI_BYTE, t_size - 1, MPI_COMM_WORLD));
	memset(back, 0, sizeof(back));
	pos = 0;
	MPI_OK(MPI_Unpack_external("external32", got, size, &pos, back, 2, mt));
	CHECK(same_mix(m, back, 2), "broadcast external32 unpacked wrong");

	MPI_OK(MPI_Type_free(&vt));
	MPI_OK(MPI_Type_free(&lt));
	MPI_OK(MPI_Type_free(&mt));
}

/* ---- Refusals ---------------------------------------------------------------- */

static int cls(int err)
{
	int c = -1;

	MPI_Error_class(err, &c);
	return c;
}

static void refusals(void)
{
	static const char *const reps[] = { "native", "internal", "External32",
					    "external64", "" };
	unsigned char buf[64];
	long big = 1L << 40;
	unsigned long ubig = 1UL << 33;
	wchar_t w = 0x10000;
	MPI_Aint pos = 0, size;
	int i = 7;
	unsigned k;

	for (k = 0; k < sizeof(reps) / sizeof(reps[0]); k++) {
		pos = 0;
		CHECK(cls(MPI_Pack_external(reps[k], &i, 1, MPI_INT, buf,
					    sizeof(buf), &pos)) ==
		      MPI_ERR_UNSUPPORTED_DATAREP, "datarep \"%s\" packed", reps[k]);
		CHECK(cls(MPI_Unpack_external(reps[k], buf, sizeof(buf), &pos,
					      &i, 1, MPI_INT)) ==
		      MPI_ERR_UNSUPPORTED_DATAREP, "datarep \"%s\" unpacked",
		      reps[k]);
		CHECK(cls(MPI_Pack_external_size(reps[k], 1, MPI_INT, &size)) ==
		      MPI_ERR_UNSUPPORTED_DATAREP, "datarep \"%s\" sized", reps[k]);
	}
	pos = 0;
	CHECK(cls(MPI_Pack_external("external32", &big, 1, MPI_LONG, buf,
				    sizeof(buf), &pos)) == MPI_ERR_CONVERSION &&
	      pos == 0, "a long of 2^40 packed into 4 bytes");
	CHECK(cls(MPI_Pack_external("external32", &ubig, 1, MPI_UNSIGNED_LONG,
				    buf, sizeof(buf), &pos)) == MPI_ERR_CONVERSION,
	      "an unsigned long of 2^33 packed into 4 bytes");
	CHECK(cls(MPI_Pack_external("external32", &w, 1, MPI_WCHAR, buf,
				    sizeof(buf), &pos)) == MPI_ERR_CONVERSION,
	      "a wchar_t of 0x10000 packed into 2 bytes");
	CHECK(cls(MPI_Pack_external("external32", &i, 1, MPI_INT, buf, 3,
				    &pos)) == MPI_ERR_TRUNCATE,
	      "4 bytes packed into 3");
	CHECK(cls(MPI_Unpack_external("external32", buf, 3, &pos, &i, 1,
				      MPI_INT)) == MPI_ERR_TRUNCATE,
	      "4 bytes unpacked from 3");
	CHECK(cls(MPI_Pack_external("external32", &i, -1, MPI_INT, buf,
				    sizeof(buf), &pos)) == MPI_ERR_COUNT,
	      "a negative count");
	CHECK(cls(MPI_Pack_external_size("external32", 1, MPI_DATATYPE_NULL,
					 &size)) == MPI_ERR_TYPE,
	      "MPI_DATATYPE_NULL");
}

int main(int argc, char **argv)
{
	int i;

	t_init(&argc, &argv);
	for (i = 0; i < NP; i++)
		predefined(&ptypes[i]);
	derived();
	refusals();
	return t_done();
}
