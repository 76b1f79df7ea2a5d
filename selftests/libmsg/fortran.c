// SPDX-License-Identifier: MIT
/*
 * The Fortran datatypes MPI lets C name (MPI-3.1 3.2.2, A.1.1):
 * MPI_INTEGER, REAL, DOUBLE_PRECISION, COMPLEX, DOUBLE_COMPLEX,
 * LOGICAL, CHARACTER, the pairs MPI_2REAL, 2DOUBLE_PRECISION,
 * 2INTEGER, and the sized MPI_INTEGER1..16, REAL2..16, COMPLEX8..32.
 * Each has gfortran's size (INTEGER 4, REAL 4, DOUBLE PRECISION 8,
 * COMPLEX 8, DOUBLE COMPLEX 16, LOGICAL 4, CHARACTER 1) and its name;
 * messages of each go round the ranks; the reductions MPI defines on
 * them work (MAX, MIN, SUM, PROD on integers and reals, SUM and PROD on
 * complexes, the logical ops on LOGICAL, the bitwise ones on integers,
 * MINLOC and MAXLOC on the pairs) and the others are MPI_ERR_OP;
 * MPI_Type_match_size gives the sized types.
 */
#include <complex.h>
#include <stdint.h>

#include "test.h"

static const struct ftype {
	MPI_Datatype dt;
	const char *name;
	int size;
} ftypes[] = {
#define F(d, s)	{ d, #d, s }
	F(MPI_CHARACTER, 1), F(MPI_LOGICAL, 4), F(MPI_INTEGER, 4),
	F(MPI_REAL, 4), F(MPI_DOUBLE_PRECISION, 8), F(MPI_COMPLEX, 8),
	F(MPI_DOUBLE_COMPLEX, 16), F(MPI_2REAL, 8),
	F(MPI_2DOUBLE_PRECISION, 16), F(MPI_2INTEGER, 8),
	F(MPI_INTEGER1, 1), F(MPI_INTEGER2, 2), F(MPI_INTEGER4, 4),
	F(MPI_INTEGER8, 8), F(MPI_INTEGER16, 16), F(MPI_REAL2, 2),
	F(MPI_REAL4, 4), F(MPI_REAL8, 8), F(MPI_REAL16, 16),
	F(MPI_COMPLEX8, 8), F(MPI_COMPLEX16, 16), F(MPI_COMPLEX32, 32),
#undef F
};
#define NF ((int)(sizeof(ftypes) / sizeof(ftypes[0])))

static int cls(int err)
{
	int c = -1;

	MPI_Error_class(err, &c);
	return c;
}

/* Size, extent and name; a message of 5 of them round the ranks. */
static void basics(const struct ftype *f)
{
	char name[MPI_MAX_OBJECT_NAME], out[5 * 32], in[5 * 32];
	int size, len, i;
	MPI_Aint lb, ext;

	MPI_OK(MPI_Type_size(f->dt, &size));
	MPI_OK(MPI_Type_get_extent(f->dt, &lb, &ext));
	CHECK(size == f->size && lb == 0 && ext == f->size,
	      "%s: size %d extent %ld, not %d", f->name, size, (long)ext,
	      f->size);
	MPI_OK(MPI_Type_get_name(f->dt, name, &len));
	CHECK(!strcmp(name, f->name), "%s is named %s", f->name, name);
	for (i = 0; i < 5 * f->size; i++)
		out[i] = (char)(t_rank * 31 + i);
	memset(in, 0, sizeof(in));
	MPI_OK(MPI_Sendrecv(out, 5, f->dt, (t_rank + 1) % t_size, 1, in, 5,
			    f->dt, (t_rank + t_size - 1) % t_size, 1,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	for (i = 0; i < 5 * f->size; i++)
		CHECK(in[i] == (char)(((t_rank + t_size - 1) % t_size) * 31 + i),
		      "%s: byte %d of a message", f->name, i);
}

/* MPI-3.1 5.9.2: which ops each type takes. */
static int defined(MPI_Op op, MPI_Datatype t)
{
	int integer = t == MPI_INTEGER || t == MPI_INTEGER1 ||
		t == MPI_INTEGER2 || t == MPI_INTEGER4 || t == MPI_INTEGER8 ||
		t == MPI_INTEGER16;
	int real = t == MPI_REAL || t == MPI_DOUBLE_PRECISION ||
		t == MPI_REAL2 || t == MPI_REAL4 || t == MPI_REAL8 ||
		t == MPI_REAL16;
	int cplx = t == MPI_COMPLEX || t == MPI_DOUBLE_COMPLEX ||
		t == MPI_COMPLEX8 || t == MPI_COMPLEX16 || t == MPI_COMPLEX32;
	int pair = t == MPI_2REAL || t == MPI_2DOUBLE_PRECISION ||
		t == MPI_2INTEGER;

	if (op == MPI_MAX || op == MPI_MIN)
		return integer || real;
	if (op == MPI_SUM || op == MPI_PROD)
		return integer || real || cplx;
	if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
		return t == MPI_LOGICAL;
	if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
		return integer;
	if (op == MPI_MINLOC || op == MPI_MAXLOC)
		return pair;
	return 1;
}

static void refusals(const struct ftype *f)
{
	static const MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD,
				      MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND,
				      MPI_BOR, MPI_BXOR, MPI_MINLOC,
				      MPI_MAXLOC };
	char a[64] = { 0 }, b[64] = { 0 };
	unsigned i;
	int err;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		err = MPI_Reduce_local(a, b, 1, f->dt, ops[i]);
		if (defined(ops[i], f->dt))
			CHECK(err == MPI_SUCCESS, "%s: op %u refused", f->name, i);
		else
			CHECK(cls(err) == MPI_ERR_OP, "%s: op %u: class %d",
			      f->name, i, cls(err));
	}
}

/*
 * Over the ranks, rank r's value r + 1 (k = 0) and 2 - r % 3 (k = 1):
 * SUM, MAX, MIN and PROD by hand, for each numeric type through its
 * C type.
 */
static long sum_of(int k)
{
	long s = 0;
	int r;

	for (r = 0; r < t_size; r++)
		s += k ? 2 - r % 3 : r + 1;
	return s;
}

#define REDUCE_NUM(T, dt, cplx) do {					\
	T mine[2] = { (T)(t_rank + 1), (T)(2 - t_rank % 3) }, r[2];	\
	long prod = 1;							\
	int q;								\
									\
	MPI_OK(MPI_Allreduce(mine, r, 2, dt, MPI_SUM, MPI_COMM_WORLD));	\
	CHECK(r[0] == (T)sum_of(0) && r[1] == (T)sum_of(1),		\
	      "MPI_SUM on %s", #dt);					\
	if (!(cplx)) {							\
		MPI_OK(MPI_Allreduce(mine, r, 2, dt, MPI_MAX, MPI_COMM_WORLD)); \
		CHECK(r[0] == (T)t_size, "MPI_MAX on %s", #dt);		\
		MPI_OK(MPI_Allreduce(mine, r, 2, dt, MPI_MIN, MPI_COMM_WORLD)); \
		CHECK(r[0] == (T)1 && r[1] == (T)(t_size > 2 ? 0 :	\
						   t_size > 1 ? 1 : 2),	\
		      "MPI_MIN on %s", #dt);				\
	}								\
	for (q = 0; q < t_size && q < 6; q++)				\
		prod *= q + 1;						\
	if (t_size <= 6) {						\
		MPI_OK(MPI_Allreduce(mine, r, 1, dt, MPI_PROD, MPI_COMM_WORLD)); \
		CHECK(r[0] == (T)prod, "MPI_PROD on %s", #dt);		\
	}								\
} while (0)

static void reductions(void)
{
	typedef _Complex float __attribute__((mode(TC))) complex128;
	int32_t lg[3] = { t_rank == 0, 1, t_rank % 2 }, land[3], lor[3], lxor[3];
	int32_t bits = 1 << (t_rank % 31), bor;
	int64_t band8 = ~(int64_t)0 ^ ((int64_t)1 << (t_rank % 63)), band;

	REDUCE_NUM(int32_t, MPI_INTEGER, 0);
	REDUCE_NUM(int8_t, MPI_INTEGER1, 0);
	REDUCE_NUM(int16_t, MPI_INTEGER2, 0);
	REDUCE_NUM(int32_t, MPI_INTEGER4, 0);
	REDUCE_NUM(int64_t, MPI_INTEGER8, 0);
	REDUCE_NUM(__int128, MPI_INTEGER16, 0);
	REDUCE_NUM(float, MPI_REAL, 0);
	REDUCE_NUM(double, MPI_DOUBLE_PRECISION, 0);
	REDUCE_NUM(_Float16, MPI_REAL2, 0);
	REDUCE_NUM(float, MPI_REAL4, 0);
	REDUCE_NUM(double, MPI_REAL8, 0);
	REDUCE_NUM(__float128, MPI_REAL16, 0);
	REDUCE_NUM(float complex, MPI_COMPLEX, 1);
	REDUCE_NUM(double complex, MPI_DOUBLE_COMPLEX, 1);
	REDUCE_NUM(float complex, MPI_COMPLEX8, 1);
	REDUCE_NUM(double complex, MPI_COMPLEX16, 1);
	REDUCE_NUM(complex128, MPI_COMPLEX32, 1);

	/* A complex product mixes the parts: (1 + i)^n. */
	{
		double complex z = 1 + I, p, want = 1;
		int r;

		MPI_OK(MPI_Allreduce(&z, &p, 1, MPI_DOUBLE_COMPLEX, MPI_PROD,
				     MPI_COMM_WORLD));
		for (r = 0; r < t_size; r++)
			want *= 1 + I;
		CHECK(p == want, "MPI_PROD on MPI_DOUBLE_COMPLEX: (1+i)^%d",
		      t_size);
	}

	/* LOGICAL: .TRUE. on rank 0 only, everywhere, on the odd ranks. */
	MPI_OK(MPI_Allreduce(lg, land, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
	MPI_OK(MPI_Allreduce(lg, lor, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
	MPI_OK(MPI_Allreduce(lg, lxor, 3, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD));
	CHECK(land[0] == (t_size == 1) && land[1] == 1 && land[2] == 0,
	      "MPI_LAND on MPI_LOGICAL: %d %d %d", land[0], land[1], land[2]);
	CHECK(lor[0] == 1 && lor[1] == 1 && lor[2] == (t_size > 1),
	      "MPI_LOR on MPI_LOGICAL");
	CHECK(lxor[0] == 1 && lxor[1] == t_size % 2 &&
	      lxor[2] == (t_size / 2) % 2, "MPI_LXOR on MPI_LOGICAL");

	/* Bitwise on the integers. */
	MPI_OK(MPI_Allreduce(&bits, &bor, 1, MPI_INTEGER, MPI_BOR, MPI_COMM_WORLD));
	CHECK(bor == (int32_t)((1U << (t_size < 31 ? t_size : 31)) - 1),
	      "MPI_BOR on MPI_INTEGER: %x", (unsigned)bor);
	MPI_OK(MPI_Allreduce(&band8, &band, 1, MPI_INTEGER8, MPI_BAND,
			     MPI_COMM_WORLD));
	CHECK(band == (int64_t)~(((uint64_t)1 << t_size) - 1),
	      "MPI_BAND on MPI_INTEGER8");
}

/* MINLOC and MAXLOC on the pairs, whose index has the value's type. */
#define LOC(T, dt) do {							\
	struct { T v, i; } mine = { (T)(t_rank % 3), (T)t_rank }, mn, mx; \
									\
	MPI_OK(MPI_Allreduce(&mine, &mn, 1, dt, MPI_MINLOC, MPI_COMM_WORLD)); \
	MPI_OK(MPI_Allreduce(&mine, &mx, 1, dt, MPI_MAXLOC, MPI_COMM_WORLD)); \
	CHECK(mn.v == 0 && mn.i == 0, "MPI_MINLOC on %s", #dt);		\
	CHECK(mx.v == (T)(t_size > 2 ? 2 : t_size - 1) &&		\
	      mx.i == (T)(t_size > 2 ? 2 : t_size - 1), "MPI_MAXLOC on %s", #dt); \
} while (0)

static void pairs(void)
{
	LOC(float, MPI_2REAL);
	LOC(double, MPI_2DOUBLE_PRECISION);
	LOC(int32_t, MPI_2INTEGER);
}

static void match_size(void)
{
	static const struct { int cls, size; MPI_Datatype t; } m[] = {
		{ MPI_TYPECLASS_REAL, 2, MPI_REAL2 },
		{ MPI_TYPECLASS_REAL, 4, MPI_REAL4 },
		{ MPI_TYPECLASS_REAL, 8, MPI_REAL8 },
		{ MPI_TYPECLASS_REAL, 16, MPI_REAL16 },
		{ MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 },
		{ MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },
		{ MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 },
		{ MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
		{ MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16 },
		{ MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 },
		{ MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 },
		{ MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32 },
	};
	MPI_Datatype t;
	unsigned i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		MPI_OK(MPI_Type_match_size(m[i].cls, m[i].size, &t));
		CHECK(t == m[i].t, "MPI_Type_match_size(%d, %d)", m[i].cls,
		      m[i].size);
	}
	CHECK(cls(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 4, &t)) ==
	      MPI_ERR_ARG, "a 4-byte complex");
}

int main(int argc, char **argv)
{
	int i;

	t_init(&argc, &argv);
	for (i = 0; i < NF; i++) {
		basics(&ftypes[i]);
		refusals(&ftypes[i]);
	}
	reductions();
	pairs();
	match_size();
	return t_done();
}
