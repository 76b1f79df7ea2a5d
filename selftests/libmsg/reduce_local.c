// SPDX-License-Identifier: MIT
/*
 * MPI_Reduce_local and the reduction operations, on each rank alone:
 * every predefined op on every basic type MPI-3.1 (5.9.2) defines it
 * for, against a serial reference computed here in 64-bit integers or
 * long double (wraparound of signed and unsigned SUM and PROD, logic on
 * integers and bools, complex SUM and PROD, MINLOC/MAXLOC ties); every
 * pair MPI does not define is refused with MPI_ERR_OP; REPLACE and
 * NO_OP; user ops, commutative and not (2x2 matrix products show the
 * operand order); Op_free and Op_commutative; bad arguments.  The C++
 * types (MPI_CXX_BOOL logical, MPI_CXX_*_COMPLEX complex) among them;
 * every type's size, extent and name.
 */
#include <limits.h>
#include <stdbool.h>
#include <complex.h>
#include <wchar.h>

#include "test.h"

/* ---- The types, described independently of the library ------------------- */

enum group { G_NONE, G_CINT, G_MULTI, G_FLOAT, G_COMPLEX, G_LOGICAL,
	     G_BYTE, G_PAIR };
enum kind { K_INT, K_BOOL, K_REAL, K_COMPLEX, K_PAIR };
enum real { R_FLOAT, R_DOUBLE, R_LDOUBLE };

struct type {
	MPI_Datatype dt;
	const char *name;
	int group, kind;
	size_t size;
	int sign;		/* K_INT; pairs: an integer value's */
	int real;		/* K_REAL, K_COMPLEX; pairs: R_* or -1 */
	size_t loc;		/* pairs: offset of the index */
	size_t vsize;		/* pairs: size of the value */
};

/* The pair layouts MPI specifies: struct { value; int }. */
struct p_float { float val; int loc; };
struct p_double { double val; int loc; };
struct p_long { long val; int loc; };
struct p_2int { int val; int loc; };
struct p_short { short val; int loc; };
struct p_ldouble { long double val; int loc; };

#define INT_T(d, T, g, s)	{ d, #d, g, K_INT, sizeof(T), s, -1, 0, 0 }
#define REAL_T(d, T, r)		{ d, #d, G_FLOAT, K_REAL, sizeof(T), 0, r, 0, 0 }
#define CPLX_T(d, T, r)		{ d, #d, G_COMPLEX, K_COMPLEX, sizeof(T), 0, r, 0, 0 }
#define PAIR_T(d, S, s, r)						\
	{ d, #d, G_PAIR, K_PAIR, sizeof(S), s, r, offsetof(S, loc),	\
	  sizeof(((S *)0)->val) }

static const struct type types[] = {
	INT_T(MPI_CHAR, char, G_CINT, CHAR_MIN < 0),	/* as Open MPI, MPICH */
	INT_T(MPI_WCHAR, wchar_t, G_NONE, WCHAR_MIN < 0),
	INT_T(MPI_PACKED, unsigned char, G_NONE, 0),
	INT_T(MPI_SIGNED_CHAR, signed char, G_CINT, 1),
	INT_T(MPI_UNSIGNED_CHAR, unsigned char, G_CINT, 0),
	INT_T(MPI_SHORT, short, G_CINT, 1),
	INT_T(MPI_UNSIGNED_SHORT, unsigned short, G_CINT, 0),
	INT_T(MPI_INT, int, G_CINT, 1),
	INT_T(MPI_UNSIGNED, unsigned, G_CINT, 0),
	INT_T(MPI_LONG, long, G_CINT, 1),
	INT_T(MPI_UNSIGNED_LONG, unsigned long, G_CINT, 0),
	INT_T(MPI_LONG_LONG, long long, G_CINT, 1),
	INT_T(MPI_UNSIGNED_LONG_LONG, unsigned long long, G_CINT, 0),
	INT_T(MPI_INT8_T, int8_t, G_CINT, 1),
	INT_T(MPI_INT16_T, int16_t, G_CINT, 1),
	INT_T(MPI_INT32_T, int32_t, G_CINT, 1),
	INT_T(MPI_INT64_T, int64_t, G_CINT, 1),
	INT_T(MPI_UINT8_T, uint8_t, G_CINT, 0),
	INT_T(MPI_UINT16_T, uint16_t, G_CINT, 0),
	INT_T(MPI_UINT32_T, uint32_t, G_CINT, 0),
	INT_T(MPI_UINT64_T, uint64_t, G_CINT, 0),
	INT_T(MPI_AINT, MPI_Aint, G_MULTI, 1),
	INT_T(MPI_OFFSET, MPI_Offset, G_MULTI, 1),
	INT_T(MPI_COUNT, MPI_Count, G_MULTI, 1),
	INT_T(MPI_BYTE, unsigned char, G_BYTE, 0),
	{ MPI_C_BOOL, "MPI_C_BOOL", G_LOGICAL, K_BOOL, sizeof(bool), 0, -1, 0, 0 },
	REAL_T(MPI_FLOAT, float, R_FLOAT),
	REAL_T(MPI_DOUBLE, double, R_DOUBLE),
	REAL_T(MPI_LONG_DOUBLE, long double, R_LDOUBLE),
	CPLX_T(MPI_C_FLOAT_COMPLEX, float complex, R_FLOAT),
	CPLX_T(MPI_C_DOUBLE_COMPLEX, double complex, R_DOUBLE),
	CPLX_T(MPI_C_LONG_DOUBLE_COMPLEX, long double complex, R_LDOUBLE),
	/* C++'s: the same bytes (std::complex<T> is T[2], bool a byte). */
	{ MPI_CXX_BOOL, "MPI_CXX_BOOL", G_LOGICAL, K_BOOL, sizeof(bool), 0, -1, 0, 0 },
	CPLX_T(MPI_CXX_FLOAT_COMPLEX, float complex, R_FLOAT),
	CPLX_T(MPI_CXX_DOUBLE_COMPLEX, double complex, R_DOUBLE),
	CPLX_T(MPI_CXX_LONG_DOUBLE_COMPLEX, long double complex, R_LDOUBLE),
	PAIR_T(MPI_FLOAT_INT, struct p_float, 0, R_FLOAT),
	PAIR_T(MPI_DOUBLE_INT, struct p_double, 0, R_DOUBLE),
	PAIR_T(MPI_LONG_INT, struct p_long, 1, -1),
	PAIR_T(MPI_2INT, struct p_2int, 1, -1),
	PAIR_T(MPI_SHORT_INT, struct p_short, 1, -1),
	PAIR_T(MPI_LONG_DOUBLE_INT, struct p_ldouble, 0, R_LDOUBLE),
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

enum opid { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND,
	    O_BOR, O_BXOR, O_MINLOC, O_MAXLOC, O_REPLACE, O_NO_OP, NOPS };

static const struct { MPI_Op op; const char *name; } ops[NOPS] = {
	[O_MAX] = { MPI_MAX, "MPI_MAX" }, [O_MIN] = { MPI_MIN, "MPI_MIN" },
	[O_SUM] = { MPI_SUM, "MPI_SUM" }, [O_PROD] = { MPI_PROD, "MPI_PROD" },
	[O_LAND] = { MPI_LAND, "MPI_LAND" }, [O_LOR] = { MPI_LOR, "MPI_LOR" },
	[O_LXOR] = { MPI_LXOR, "MPI_LXOR" }, [O_BAND] = { MPI_BAND, "MPI_BAND" },
	[O_BOR] = { MPI_BOR, "MPI_BOR" }, [O_BXOR] = { MPI_BXOR, "MPI_BXOR" },
	[O_MINLOC] = { MPI_MINLOC, "MPI_MINLOC" },
	[O_MAXLOC] = { MPI_MAXLOC, "MPI_MAXLOC" },
	[O_REPLACE] = { MPI_REPLACE, "MPI_REPLACE" },
	[O_NO_OP] = { MPI_NO_OP, "MPI_NO_OP" },
};

/* MPI-3.1's table of which op is defined on which type group. */
static int allowed(int op, int group)
{
	switch (op) {
	case O_MAX: case O_MIN:
		return group == G_CINT || group == G_MULTI || group == G_FLOAT;
	case O_SUM: case O_PROD:
		return group == G_CINT || group == G_MULTI ||
		       group == G_FLOAT || group == G_COMPLEX;
	case O_LAND: case O_LOR: case O_LXOR:
		return group == G_CINT || group == G_LOGICAL;
	case O_BAND: case O_BOR: case O_BXOR:
		return group == G_CINT || group == G_MULTI || group == G_BYTE;
	case O_MINLOC: case O_MAXLOC:
		return group == G_PAIR;
	default:
		return 1;	/* REPLACE, NO_OP */
	}
}

/* ---- Reading and writing elements -------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t get_bits(const void *p, size_t size)
{
	uint8_t a; uint16_t b; uint32_t c; uint64_t d;

	switch (size) {
	case 1: memcpy(&a, p, 1); return a;
	case 2: memcpy(&b, p, 2); return b;
	case 4: memcpy(&c, p, 4); return c;
	default: memcpy(&d, p, 8); return d;
	}
}

static void put_bits(void *p, size_t size, uint64_t v)
{
	uint8_t a = (uint8_t)v; uint16_t b = (uint16_t)v;
	uint32_t c = (uint32_t)v;

	switch (size) {
	case 1: memcpy(p, &a, 1); break;
	case 2: memcpy(p, &b, 2); break;
	case 4: memcpy(p, &c, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

/* The integer at p, sign-extended to 64 bits if the type is signed. */
static uint64_t get_int(const void *p, size_t size, int sign)
{
	uint64_t v = get_bits(p, size), bit;

	if (!sign || size == 8)
		return v;
	bit = 1ULL << (size * 8 - 1);
	return (v ^ bit) - bit;
}

/* a > b, as signed or unsigned 64-bit integers. */
static int int_gt(uint64_t a, uint64_t b, int sign)
{
	if (sign) {
		a ^= 1ULL << 63;
		b ^= 1ULL << 63;
	}
	return a > b;
}

static long double get_real(const void *p, int real)
{
	float f; double d; long double l;

	switch (real) {
	case R_FLOAT: memcpy(&f, p, sizeof(f)); return f;
	case R_DOUBLE: memcpy(&d, p, sizeof(d)); return d;
	default: memcpy(&l, p, sizeof(l)); return l;
	}
}

static void put_real(void *p, int real, long double v)
{
	float f = (float)v; double d = (double)v;

	switch (real) {
	case R_FLOAT: memcpy(p, &f, sizeof(f)); break;
	case R_DOUBLE: memcpy(p, &d, sizeof(d)); break;
	default: memcpy(p, &v, sizeof(v)); break;
	}
}

static size_t real_size(int real)
{
	return real == R_FLOAT ? sizeof(float) :
	       real == R_DOUBLE ? sizeof(double) : sizeof(long double);
}

/* A pair's value, as a number that orders like it. */
static long double pair_val(const struct type *t, const void *p)
{
	if (t->real >= 0)
		return get_real(p, t->real);
	return (long double)(int64_t)get_int(p, t->vsize, 1);
}

static int pair_loc(const struct type *t, const void *p)
{
	int loc;

	memcpy(&loc, (const char *)p + t->loc, sizeof(loc));
	return loc;
}

/* Integers meet their extremes often: 0, 1, -1, MIN and MAX of the type. */
static uint64_t int_value(size_t size)
{
	uint64_t top = 1ULL << (size * 8 - 1);

	switch (rnd() % 8) {
	case 0: return 0;
	case 1: return 1;
	case 2: return ~0ULL;
	case 3: return top;
	case 4: return top - 1;
	case 5: return rnd() % 5;
	default: return rnd();
	}
}

/* Small multiples of 1/4: sums and products are exact in every type. */
static long double real_value(void)
{
	return (long double)((int)(rnd() % 81) - 40) / 4;
}

static void fill(const struct type *t, void *p, int n)
{
	char *e = p;
	int i, loc;
	size_t h = real_size(t->real < 0 ? R_FLOAT : t->real);

	memset(p, 0, (size_t)n * t->size);
	for (i = 0; i < n; i++, e += t->size) {
		switch (t->kind) {
		case K_INT:
			put_bits(e, t->size, int_value(t->size));
			break;
		case K_BOOL:
			*(bool *)e = rnd() % 2;
			break;
		case K_REAL:
			put_real(e, t->real, real_value());
			break;
		case K_COMPLEX:
			put_real(e, t->real, real_value());
			put_real(e + h, t->real, real_value());
			break;
		case K_PAIR:	/* few values and indices: many ties */
			if (t->real >= 0)
				put_real(e, t->real, (long double)(rnd() % 4) / 2);
			else
				put_bits(e, t->vsize, rnd() % 4 - 2);
			loc = (int)(rnd() % 6) - 3;
			memcpy(e + t->loc, &loc, sizeof(loc));
			break;
		}
	}
}

/* ---- The reference: out = in op out, one element ----------------------------- */

static void ref_int(int op, const struct type *t, const void *a, void *b)
{
	uint64_t x = get_int(a, t->size, t->sign), y = get_int(b, t->size, t->sign);
	uint64_t r = 0;

	switch (op) {
	case O_MAX: r = int_gt(x, y, t->sign) ? x : y; break;
	case O_MIN: r = int_gt(y, x, t->sign) ? x : y; break;
	case O_SUM: r = x + y; break;
	case O_PROD: r = x * y; break;
	case O_LAND: r = x && y; break;
	case O_LOR: r = x || y; break;
	case O_LXOR: r = !x != !y; break;
	case O_BAND: r = x & y; break;
	case O_BOR: r = x | y; break;
	case O_BXOR: r = x ^ y; break;
	}
	put_bits(b, t->size, r);
}

static long double ref_real(int op, long double x, long double y)
{
	switch (op) {
	case O_MAX: return x > y ? x : y;
	case O_MIN: return x < y ? x : y;
	case O_SUM: return x + y;
	default: return x * y;
	}
}

static void ref_complex(int op, const struct type *t, const void *a, void *b)
{
	size_t h = real_size(t->real);
	long double ar = get_real(a, t->real), ai = get_real((const char *)a + h, t->real);
	long double br = get_real(b, t->real), bi = get_real((char *)b + h, t->real);

	if (op == O_SUM) {
		put_real(b, t->real, ar + br);
		put_real((char *)b + h, t->real, ai + bi);
	} else {
		put_real(b, t->real, ar * br - ai * bi);
		put_real((char *)b + h, t->real, ar * bi + ai * br);
	}
}

static void ref_pair(int op, const struct type *t, const void *a, void *b)
{
	long double x = pair_val(t, a), y = pair_val(t, b);
	int la = pair_loc(t, a), lb = pair_loc(t, b);

	if (x == y) {
		if (la < lb)
			memcpy((char *)b + t->loc, &la, sizeof(la));
	} else if (op == O_MINLOC ? x < y : x > y) {
		memcpy(b, a, t->size);
	}
}

static void reference(int op, const struct type *t, const void *in, void *out,
		      int n)
{
	const char *a = in;
	char *b = out;
	int i;

	if (op == O_REPLACE) {
		memcpy(out, in, (size_t)n * t->size);
		return;
	}
	if (op == O_NO_OP)
		return;
	for (i = 0; i < n; i++, a += t->size, b += t->size) {
		switch (t->kind) {
		case K_INT:
			ref_int(op, t, a, b);
			break;
		case K_BOOL: {
			bool x = *(const bool *)a, y = *(bool *)b;

			*(bool *)b = op == O_LAND ? x && y :
				     op == O_LOR ? x || y : x != y;
			break;
		}
		case K_REAL:
			put_real(b, t->real, ref_real(op, get_real(a, t->real),
						      get_real(b, t->real)));
			break;
		case K_COMPLEX:
			ref_complex(op, t, a, b);
			break;
		case K_PAIR:
			ref_pair(op, t, a, b);
			break;
		}
	}
}

/* Element i of got and want hold the same value (padding aside). */
static int same(const struct type *t, const void *got, const void *want)
{
	size_t h;

	switch (t->kind) {
	case K_REAL:
		return get_real(got, t->real) == get_real(want, t->real);
	case K_COMPLEX:
		h = real_size(t->real);
		return get_real(got, t->real) == get_real(want, t->real) &&
		       get_real((const char *)got + h, t->real) ==
		       get_real((const char *)want + h, t->real);
	case K_PAIR:
		return pair_val(t, got) == pair_val(t, want) &&
		       pair_loc(t, got) == pair_loc(t, want);
	default:
		return !memcmp(got, want, t->size);
	}
}

static void dump(const char *what, const struct type *t, const void *p)
{
	const unsigned char *c = p;
	size_t i;

	fprintf(stderr, "  %s:", what);
	for (i = 0; i < t->size; i++)
		fprintf(stderr, " %02x", c[i]);
	fputc('\n', stderr);
}

/* ---- Predefined ops ------------------------------------------------------------ */

/* One (op, type) pair on n elements: the result, or the refusal. */
static void check_pair(int op, const struct type *t, int n)
{
	size_t bytes = (size_t)(n + 1) * t->size;	/* + a guard element */
	char *in = malloc(bytes), *io = malloc(bytes), *in0 = malloc(bytes),
	     *want = malloc(bytes);
	char s[MPI_MAX_ERROR_STRING];
	int err, len, i;

	CHECK(in && io && in0 && want, "malloc");
	fill(t, in, n + 1);
	fill(t, io, n + 1);
	memcpy(in0, in, bytes);
	memcpy(want, io, bytes);
	err = MPI_Reduce_local(in, io, n, t->dt, ops[op].op);
	if (!allowed(op, t->group)) {
		t_expect(err, MPI_ERR_OP, ops[op].name);
		MPI_OK(MPI_Error_string(err, s, &len));
		CHECK(strstr(s, ops[op].name) && strstr(s, t->name),
		      "%s on %s: message \"%s\" names neither", ops[op].name,
		      t->name, s);
		CHECK(!memcmp(io, want, bytes), "%s on %s: refused, but wrote",
		      ops[op].name, t->name);
		goto out;
	}
	CHECK(err == MPI_SUCCESS, "%s on %s (n %d) failed: %d", ops[op].name,
	      t->name, n, err);
	reference(op, t, in, want, n);
	for (i = 0; i < n; i++) {
		const char *g = io + (size_t)i * t->size,
			   *w = want + (size_t)i * t->size,
			   *a = in + (size_t)i * t->size;
		int ok = op >= O_REPLACE ? !memcmp(g, w, t->size) : same(t, g, w);

		if (!ok) {
			fprintf(stderr, "%s on %s, n %d, element %d:\n",
				ops[op].name, t->name, n, i);
			dump("in", t, a);
			dump("got", t, g);
			dump("want", t, w);
		}
		CHECK(ok, "%s on %s: element %d differs from the reference",
		      ops[op].name, t->name, i);
	}
	CHECK(!memcmp(io + (size_t)n * t->size, want + (size_t)n * t->size,
		      t->size), "%s on %s: wrote past count %d", ops[op].name,
	      t->name, n);
	CHECK(!memcmp(in, in0, bytes), "%s on %s: changed inbuf", ops[op].name,
	      t->name);
out:
	free(in);
	free(io);
	free(in0);
	free(want);
}

static int check_predefined(void)
{
	static const int counts[] = { 1, 2, 17, 130 };
	int op, ti, c, size, commute, pairs = 0;

	MPI_Aint lb, extent;

	/*
	 * The extent is the C layout's; a pair's size its two members'
	 * (MPI_DOUBLE_INT: 12 of 16 bytes), as a struct type of them has.
	 */
	for (ti = 0; ti < NTYPES; ti++) {
		const struct type *t = &types[ti];
		size_t want = t->kind == K_PAIR ? t->vsize + sizeof(int) : t->size;

		char name[MPI_MAX_OBJECT_NAME];
		int len;

		MPI_OK(MPI_Type_get_name(t->dt, name, &len));
		CHECK(!strcmp(name, t->name), "%s is named %s", t->name, name);
		MPI_OK(MPI_Type_size(t->dt, &size));
		MPI_OK(MPI_Type_get_extent(t->dt, &lb, &extent));
		CHECK((size_t)size == want && lb == 0 &&
		      (size_t)extent == t->size,
		      "%s: size %d, extent %ld; the layout says %zu, %zu",
		      t->name, size, (long)extent, want, t->size);
	}
	for (op = 0; op < NOPS; op++) {
		MPI_OK(MPI_Op_commutative(ops[op].op, &commute));
		CHECK(commute == 1, "%s is not commutative", ops[op].name);
		for (ti = 0; ti < NTYPES; ti++) {
			for (c = 0; c < 4; c++)
				check_pair(op, &types[ti], counts[c]);
			pairs += allowed(op, types[ti].group);
		}
	}
	return pairs;
}

/* ---- User ops ------------------------------------------------------------------ */

static int calls, last_len;
static MPI_Datatype last_type;

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout, i;

	calls++;
	last_len = *len;
	last_type = *dt;
	for (i = 0; i < *len; i++)
		b[i] += a[i];
}

/* Each 4 ints are a row-major 2x2 matrix: inout = in x inout. */
static void user_matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout, k, r[4];

	(void)dt;
	calls++;
	for (k = 0; k + 4 <= *len; k += 4, a += 4, b += 4) {
		r[0] = a[0] * b[0] + a[1] * b[2];
		r[1] = a[0] * b[1] + a[1] * b[3];
		r[2] = a[2] * b[0] + a[3] * b[2];
		r[3] = a[2] * b[1] + a[3] * b[3];
		memcpy(b, r, sizeof(r));
	}
}

static void check_user_ops(void)
{
	enum { N = 12 };	/* three matrices */
	int in[N], io[N], want[N], i, commute;
	MPI_Op sum, mat, keep;

	MPI_OK(MPI_Op_create(user_sum, 1, &sum));
	MPI_OK(MPI_Op_commutative(sum, &commute));
	CHECK(commute == 1, "user sum: commutative %d", commute);
	for (i = 0; i < N; i++) {
		in[i] = (int)(rnd() % 1000);
		io[i] = (int)(rnd() % 1000);
		want[i] = in[i] + io[i];
	}
	calls = 0;
	MPI_OK(MPI_Reduce_local(in, io, N, MPI_INT, sum));
	CHECK(calls == 1 && last_len == N && last_type == MPI_INT,
	      "user sum: %d calls, len %d", calls, last_len);
	CHECK(!memcmp(io, want, sizeof(io)), "user sum: wrong result");

	MPI_OK(MPI_Op_create(user_matmul, 0, &mat));
	MPI_OK(MPI_Op_commutative(mat, &commute));
	CHECK(commute == 0, "user matmul: commutative %d", commute);
	/* [[1,1],[0,1]] x [[1,0],[1,1]] = [[2,1],[1,1]]; the other way round
	 * it is [[1,1],[1,2]]. */
	{
		int a[4] = { 1, 1, 0, 1 }, b[4] = { 1, 0, 1, 1 },
		    ab[4] = { 2, 1, 1, 1 };

		MPI_OK(MPI_Reduce_local(a, b, 4, MPI_INT, mat));
		CHECK(!memcmp(b, ab, sizeof(ab)),
		      "matmul: got [[%d,%d],[%d,%d]], want in x inout [[2,1],[1,1]]",
		      b[0], b[1], b[2], b[3]);
	}
	for (i = 0; i < N; i += 4) {
		int j;

		for (j = 0; j < 4; j++) {
			in[i + j] = (int)(rnd() % 7) - 3;
			io[i + j] = (int)(rnd() % 7) - 3;
		}
		want[i] = in[i] * io[i] + in[i + 1] * io[i + 2];
		want[i + 1] = in[i] * io[i + 1] + in[i + 1] * io[i + 3];
		want[i + 2] = in[i + 2] * io[i] + in[i + 3] * io[i + 2];
		want[i + 3] = in[i + 2] * io[i + 1] + in[i + 3] * io[i + 3];
	}
	MPI_OK(MPI_Reduce_local(in, io, N, MPI_INT, mat));
	CHECK(!memcmp(io, want, sizeof(io)), "matmul on random matrices");

	/* Free: the handle becomes MPI_OP_NULL and is then refused. */
	MPI_OK(MPI_Op_free(&sum));
	CHECK(sum == MPI_OP_NULL, "Op_free did not clear the handle");
	t_expect(MPI_Op_free(&sum), MPI_ERR_OP, "Op_free(MPI_OP_NULL)");
	t_expect(MPI_Reduce_local(in, io, N, MPI_INT, sum), MPI_ERR_OP,
		 "Reduce_local with a freed op");
	MPI_OK(MPI_Op_free(&mat));
	CHECK(mat == MPI_OP_NULL, "Op_free did not clear the handle");

	/* Predefined ops cannot be freed. */
	keep = MPI_SUM;
	t_expect(MPI_Op_free(&keep), MPI_ERR_OP, "Op_free(MPI_SUM)");
	CHECK(keep == MPI_SUM, "failed Op_free changed the handle");

	t_expect(MPI_Op_create(NULL, 1, &keep), MPI_ERR_ARG,
		 "Op_create without a function");
	t_expect(MPI_Op_create(user_sum, 1, NULL), MPI_ERR_ARG,
		 "Op_create without a handle");
	t_expect(MPI_Op_free(NULL), MPI_ERR_ARG, "Op_free(NULL)");
	t_expect(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP,
		 "Op_commutative(MPI_OP_NULL)");
	t_expect(MPI_Op_commutative(MPI_SUM, NULL), MPI_ERR_ARG,
		 "Op_commutative without a result");

	/* Many ops live at once, freed in another order (leaks: ASan). */
	{
		MPI_Op many[64];

		for (i = 0; i < 64; i++)
			MPI_OK(MPI_Op_create(i % 2 ? user_sum : user_matmul,
					     i % 3 == 0, &many[i]));
		for (i = 0; i < 64; i++) {
			MPI_OK(MPI_Op_commutative(many[i], &commute));
			CHECK(commute == (i % 3 == 0), "op %d: commute %d", i,
			      commute);
		}
		for (i = 63; i >= 0; i -= 2)
			MPI_OK(MPI_Op_free(&many[i]));
		for (i = 0; i < 64; i += 2)
			MPI_OK(MPI_Op_free(&many[i]));
	}
}

/* ---- Bad arguments --------------------------------------------------------------- */

static void check_arguments(void)
{
	int a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 };
	uint64_t junk[16] = { 0 };	/* neither an op nor a type */

	t_expect(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM),
		 MPI_ERR_COUNT, "count -1");
	t_expect(MPI_Reduce_local(a, b, -1, MPI_DATATYPE_NULL, MPI_OP_NULL),
		 MPI_ERR_COUNT, "count first");
	t_expect(MPI_Reduce_local(a, b, 4, MPI_DATATYPE_NULL, MPI_SUM),
		 MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
	t_expect(MPI_Reduce_local(a, b, 4, (MPI_Datatype)junk, MPI_SUM),
		 MPI_ERR_TYPE, "a bogus datatype");
	t_expect(MPI_Reduce_local(a, b, 4, MPI_DATATYPE_NULL, MPI_OP_NULL),
		 MPI_ERR_TYPE, "type before op");
	t_expect(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_OP_NULL),
		 MPI_ERR_OP, "MPI_OP_NULL");
	t_expect(MPI_Reduce_local(a, b, 4, MPI_INT, (MPI_Op)junk),
		 MPI_ERR_OP, "a bogus op");
	t_expect(MPI_Reduce_local(NULL, b, 4, MPI_INT, MPI_SUM),
		 MPI_ERR_BUFFER, "NULL inbuf");
	t_expect(MPI_Reduce_local(a, NULL, 4, MPI_INT, MPI_SUM),
		 MPI_ERR_BUFFER, "NULL inoutbuf");
	t_expect(MPI_Reduce_local(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM),
		 MPI_ERR_BUFFER, "MPI_IN_PLACE");
	CHECK(b[0] == 5 && b[3] == 8, "a refused call wrote");
	MPI_OK(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM));
	MPI_OK(MPI_Reduce_local(a, b, 0, MPI_INT, MPI_SUM));
	CHECK(b[0] == 5 && b[3] == 8, "count 0 wrote");
}

int main(int argc, char **argv)
{
	int pairs;

	t_init(&argc, &argv);
	rng_state = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)t_rank << 32 | 1);
	pairs = check_predefined();
	check_user_ops();
	check_arguments();
	if (t_rank == 0)
		printf("reduce_local: %d defined (op, type) pairs checked, %d refused\n",
		       pairs, NOPS * NTYPES - pairs);
	return t_done();
}
