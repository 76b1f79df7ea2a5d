// SPDX-License-Identifier: MIT
/*
 * Every one-sided operation, on windows of each flavor (create,
 * allocate, allocate_shared, dynamic), each rank to its right-hand
 * neighbour inside an exclusive lock:
 *   - MPI_Put and MPI_Get with basic and derived datatypes on either
 *     side or both (a vector, an indexed type, a struct with gaps, a
 *     resized type, several elements of each), checked element by
 *     element and gaps untouched;
 *   - MPI_Accumulate and MPI_Get_accumulate with every predefined op
 *     (MPI_REPLACE and MPI_NO_OP too) on every predefined type it is
 *     defined on, into contiguous and strided targets: the result must
 *     be MPI_Reduce_local's on the same data; on the types an op is not
 *     defined on, they fail with the class MPI_Reduce_local gives
 *     (MPI_ERR_OP); the old values into a strided result type;
 *     MPI_Fetch_and_op, MPI_Compare_and_swap (swapping and not);
 *   - MPI_Rput, Rget, Raccumulate, Rget_accumulate inside
 *     MPI_Win_lock_all, completed with MPI_Wait/Waitall.
 */
#include <complex.h>
#include <stdbool.h>
#include "rma_util.h"

#define N 12			/* elements per case */
#define SLOT 64			/* bytes per element in the target */

static int right, left;

/* Element i of value v (small) of basic type dt at p. */
static void set_val(MPI_Datatype dt, void *p, int v, int i)
{
#define SET(T, x) do { T _v = (T)(x); memcpy(p, &_v, sizeof(T)); } while (0)
	if (dt == MPI_INT) SET(int, v);
	else if (dt == MPI_UNSIGNED) SET(unsigned, v);
	else if (dt == MPI_LONG) SET(long, v);
	else if (dt == MPI_UNSIGNED_LONG) SET(unsigned long, v);
	else if (dt == MPI_LONG_LONG) SET(long long, v);
	else if (dt == MPI_UNSIGNED_LONG_LONG) SET(unsigned long long, v);
	else if (dt == MPI_SHORT) SET(short, v);
	else if (dt == MPI_UNSIGNED_SHORT) SET(unsigned short, v);
	else if (dt == MPI_CHAR) SET(char, v);
	else if (dt == MPI_SIGNED_CHAR) SET(signed char, v);
	else if (dt == MPI_UNSIGNED_CHAR || dt == MPI_BYTE) SET(unsigned char, v);
	else if (dt == MPI_INT8_T) SET(int8_t, v);
	else if (dt == MPI_INT16_T) SET(int16_t, v);
	else if (dt == MPI_INT32_T) SET(int32_t, v);
	else if (dt == MPI_INT64_T) SET(int64_t, v);
	else if (dt == MPI_UINT8_T) SET(uint8_t, v);
	else if (dt == MPI_UINT16_T) SET(uint16_t, v);
	else if (dt == MPI_UINT32_T) SET(uint32_t, v);
	else if (dt == MPI_UINT64_T) SET(uint64_t, v);
	else if (dt == MPI_AINT) SET(MPI_Aint, v);
	else if (dt == MPI_FLOAT) SET(float, v);
	else if (dt == MPI_DOUBLE) SET(double, v);
	else if (dt == MPI_LONG_DOUBLE) SET(long double, v);
	else if (dt == MPI_C_BOOL) SET(bool, v & 1);
	else if (dt == MPI_C_FLOAT_COMPLEX) SET(float complex, v + 2.0f * I);
	else if (dt == MPI_C_DOUBLE_COMPLEX) SET(double complex, v - 1.0 * I);
	else if (dt == MPI_C_LONG_DOUBLE_COMPLEX)
		SET(long double complex, v + 1.0L * I);
	else if (dt == MPI_2INT) { int x[2] = { v, i }; memcpy(p, x, sizeof(x)); }
	else if (dt == MPI_FLOAT_INT) { struct { float v; int i; } x = { (float)v, i }; memcpy(p, &x, sizeof(x)); }
	else if (dt == MPI_DOUBLE_INT) { struct { double v; int i; } x = { v, i }; memcpy(p, &x, sizeof(x)); }
	else if (dt == MPI_LONG_INT) { struct { long v; int i; } x = { v, i }; memcpy(p, &x, sizeof(x)); }
	else if (dt == MPI_SHORT_INT) { struct { short v; int i; } x = { (short)v, i }; memcpy(p, &x, sizeof(x)); }
	else if (dt == MPI_LONG_DOUBLE_INT) { struct { long double v; int i; } x = { v, i }; memcpy(p, &x, sizeof(x)); }
	else CHECK(0, "no values for this type");
#undef SET
}

/* Equal values (not bytes: long double and pairs have padding). */
static int same(MPI_Datatype dt, const void *a, const void *b)
{
#define EQ(T) do { T _a, _b; memcpy(&_a, a, sizeof(T)); memcpy(&_b, b, sizeof(T)); return _a == _b; } while (0)
#define EQP(T) do { struct { T v; int i; } _a, _b; memcpy(&_a, a, sizeof(_a)); memcpy(&_b, b, sizeof(_b)); return _a.v == _b.v && _a.i == _b.i; } while (0)
	if (dt == MPI_LONG_DOUBLE) EQ(long double);
	if (dt == MPI_C_LONG_DOUBLE_COMPLEX) EQ(long double complex);
	if (dt == MPI_C_FLOAT_COMPLEX) EQ(float complex);
	if (dt == MPI_C_DOUBLE_COMPLEX) EQ(double complex);
	if (dt == MPI_FLOAT) EQ(float);
	if (dt == MPI_DOUBLE) EQ(double);
	if (dt == MPI_C_BOOL) EQ(bool);
	if (dt == MPI_FLOAT_INT) EQP(float);
	if (dt == MPI_DOUBLE_INT) EQP(double);
	if (dt == MPI_LONG_INT) EQP(long);
	if (dt == MPI_SHORT_INT) EQP(short);
	if (dt == MPI_LONG_DOUBLE_INT) EQP(long double);
	if (dt == MPI_2INT) EQP(int);
	{
		MPI_Aint lb, ext;

		MPI_Type_get_extent(dt, &lb, &ext);
		return !memcmp(a, b, (size_t)ext);
	}
#undef EQ
#undef EQP
}

static void lock(struct t_win *w, int t)
{
	MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win));
}

static void unlock(struct t_win *w, int t)
{
	MPI_OK(MPI_Win_unlock(t, w->win));
}

/* Everyone's target memory to a known state, then in step. */
static void reset(struct t_win *w, unsigned char fill)
{
	MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t_rank, 0, w->win));
	memset(w->base, fill, w->bytes);
	MPI_OK(MPI_Win_unlock(t_rank, w->win));
	MPI_OK(MPI_Barrier(w->comm));
}

/* ---- Put and Get with derived types ------------------------------------------- */

/* The datatypes of the cases: each is N ints' worth of data. */
struct tcase {
	const char *name;
	MPI_Datatype dt;
	int count;
	int idx[N];		/* where int k of the data lies, in ints */
};

static void cases(struct tcase *c, int *n)
{
	MPI_Datatype t, s;
	int bl[3] = { 2, 1, 3 }, dis[3] = { 0, 3, 7 }, i, k;
	int sbl[2] = { 1, 2 };
	MPI_Aint sdis[2] = { 0, 3 * sizeof(int) };
	MPI_Datatype sty[2] = { MPI_INT, MPI_INT };

	k = 0;
	c[k].name = "contiguous ints";
	c[k].dt = MPI_INT;
	c[k].count = N;
	for (i = 0; i < N; i++)
		c[k].idx[i] = i;
	k++;

	c[k].name = "vector, stride 3";
	MPI_OK(MPI_Type_vector(N, 1, 3, MPI_INT, &c[k].dt));
	MPI_OK(MPI_Type_commit(&c[k].dt));
	c[k].count = 1;
	for (i = 0; i < N; i++)
		c[k].idx[i] = 3 * i;
	k++;

	c[k].name = "2 indexed elements (2,1,3 at 0,3,7; extent 10)";
	MPI_OK(MPI_Type_indexed(3, bl, dis, MPI_INT, &t));
	MPI_OK(MPI_Type_create_resized(t, 0, 12 * sizeof(int), &c[k].dt));
	MPI_OK(MPI_Type_free(&t));
	MPI_OK(MPI_Type_commit(&c[k].dt));
	c[k].count = 2;
	{
		int at[6] = { 0, 1, 3, 7, 8, 9 };

		for (i = 0; i < N; i++)
			c[k].idx[i] = at[i % 6] + 12 * (i / 6);
	}
	k++;

	c[k].name = "4 structs (int, gap, 2 ints)";
	MPI_OK(MPI_Type_create_struct(2, sbl, sdis, sty, &s));
	MPI_OK(MPI_Type_create_resized(s, 0, 5 * sizeof(int), &c[k].dt));
	MPI_OK(MPI_Type_free(&s));
	MPI_OK(MPI_Type_commit(&c[k].dt));
	c[k].count = 4;
	for (i = 0; i < N; i++)
		c[k].idx[i] = 5 * (i / 3) + (i % 3 == 0 ? 0 : 2 + i % 3);
	k++;
	*n = k;
}

/* Put and get case (o, t) use their own INTS ints of the window. */
#define INTS 64
#define PG_BYTES(nc)	((size_t)(nc) * (nc) * INTS * sizeof(int))

static void put_get(struct t_win *w, struct tcase *c, int nc)
{
	int o, t, i, k, *orig = calloc(INTS, sizeof(int)),
	    *back = calloc(INTS, sizeof(int)), *tgt;
	size_t at;

	/* All cases at once, each in its place: one epoch, few barriers. */
	reset(w, 0xff);
	lock(w, right);
	for (o = 0; o < nc; o++) {
		for (t = 0; t < nc; t++) {
			for (i = 0; i < INTS; i++)
				orig[i] = -1000 - i;
			for (i = 0; i < N; i++)
				orig[c[o].idx[i]] = t_rank * 1000 + o * 100 + t * 10 + i;
			at = (size_t)(o * nc + t) * INTS * sizeof(int);
			MPI_OK(MPI_Put(orig, c[o].count, c[o].dt, right,
				       t_disp(w, right, at), c[t].count, c[t].dt,
				       w->win));
		}
	}
	unlock(w, right);
	MPI_OK(MPI_Barrier(w->comm));
	lock(w, t_rank);
	for (o = 0; o < nc; o++) {
		for (t = 0; t < nc; t++) {
			tgt = (int *)(void *)((char *)w->base +
					      (size_t)(o * nc + t) * INTS * sizeof(int));
			for (i = 0, k = 0; i < INTS; i++) {
				int want = left * 1000 + o * 100 + t * 10 + k;

				if (k < N && i == c[t].idx[k]) {
					CHECK(tgt[i] == want,
					      "%s: put %s -> %s: int %d is %d, expected %d",
					      t_flavor_name[w->flavor], c[o].name,
					      c[t].name, i, tgt[i], want);
					k++;
				} else {
					CHECK(tgt[i] == -1, "%s: put %s -> %s: gap %d written (%d)",
					      t_flavor_name[w->flavor], c[o].name,
					      c[t].name, i, tgt[i]);
				}
			}
		}
	}
	unlock(w, t_rank);

	/* Each case back from the right: target type t, origin type o. */
	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w->win));
	for (o = 0; o < nc; o++) {
		for (t = 0; t < nc; t++) {
			for (i = 0; i < INTS; i++)
				back[i] = -7;
			at = (size_t)(o * nc + t) * INTS * sizeof(int);
			MPI_OK(MPI_Get(back, c[o].count, c[o].dt, right,
				       t_disp(w, right, at), c[t].count, c[t].dt,
				       w->win));
			MPI_OK(MPI_Win_flush(right, w->win));
			for (i = 0, k = 0; i < INTS; i++) {
				if (k < N && i == c[o].idx[k]) {
					CHECK(back[i] == t_rank * 1000 + o * 100 + t * 10 + k,
					      "%s: get %s <- %s: int %d is %d",
					      t_flavor_name[w->flavor], c[o].name,
					      c[t].name, i, back[i]);
					k++;
				} else {
					CHECK(back[i] == -7, "%s: get %s <- %s: gap %d written",
					      t_flavor_name[w->flavor], c[o].name,
					      c[t].name, i);
				}
			}
		}
	}
	MPI_OK(MPI_Win_unlock(right, w->win));
	MPI_OK(MPI_Barrier(w->comm));
	free(orig);
	free(back);
}

/* ---- Accumulate: every op on every type ---------------------------------------- */

static MPI_Datatype types[] = {
	MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG,
	MPI_UNSIGNED_LONG_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_CHAR,
	MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_INT8_T, MPI_INT16_T,
	MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
	MPI_UINT64_T, MPI_AINT, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE,
	MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
	MPI_C_LONG_DOUBLE_COMPLEX, MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT,
	MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

static const struct { MPI_Op op; const char *name; } ops[] = {
	{ MPI_MAX, "MAX" }, { MPI_MIN, "MIN" }, { MPI_SUM, "SUM" },
	{ MPI_PROD, "PROD" }, { MPI_LAND, "LAND" }, { MPI_LOR, "LOR" },
	{ MPI_LXOR, "LXOR" }, { MPI_BAND, "BAND" }, { MPI_BOR, "BOR" },
	{ MPI_BXOR, "BXOR" }, { MPI_MINLOC, "MINLOC" },
	{ MPI_MAXLOC, "MAXLOC" }, { MPI_REPLACE, "REPLACE" },
	{ MPI_NO_OP, "NO_OP" },
};
#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))

static void type_name(MPI_Datatype dt, char *s)
{
	int len;

	MPI_OK(MPI_Type_get_name(dt, s, &len));
}

/* The target's initial element i, and the origin's from rank r. */
static int tval(int i)
{
	return 1 + (i * 7) % 5;
}

static int oval(int r, int i)
{
	return 1 + (r + i * 3) % 4;
}

/*
 * Every (type, op, accumulate or get_accumulate) case has its own
 * REGION bytes of the window: all of them set up, made in one epoch,
 * then checked, with a barrier between the steps.  Accumulate's target
 * is N contiguous elements, Get_accumulate's every other element (gaps
 * that must stay).
 */
#define REGION (2 * N * SLOT)
#define NCASES (NTYPES * NOPS * 2)
#define ACC_BYTES ((size_t)NCASES * REGION)

/* Is op defined on dt?  MPI_Reduce_local says (and with which class). */
static int defined(MPI_Datatype dt, MPI_Op op, int *cls)
{
	unsigned char a[N * SLOT], b[N * SLOT];
	MPI_Aint lb, ext;
	int i, err;

	MPI_OK(MPI_Type_get_extent(dt, &lb, &ext));
	for (i = 0; i < N; i++) {
		set_val(dt, a + i * ext, 1, i);
		set_val(dt, b + i * ext, 1, i);
	}
	err = MPI_Reduce_local(a, b, N, dt, op);
	*cls = MPI_SUCCESS;
	if (err)
		MPI_OK(MPI_Error_class(err, cls));
	return err == MPI_SUCCESS;
}

static void acc_all(struct t_win *w)
{
	unsigned char in[N * SLOT], want[N * SLOT], scratch[N * SLOT],
		*res = malloc((size_t)NCASES * 3 * N * SLOT), *region;
	static const unsigned char z[SLOT];
	MPI_Datatype vec[NTYPES], rvec[NTYPES];
	char tn[MPI_MAX_OBJECT_NAME];
	int ti, oi, g, i, k, err, ok[NCASES], cl[NCASES];
	MPI_Aint lb, ext[NTYPES];

	CHECK(res, "out of memory");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (ti = 0; ti < NTYPES; ti++) {
		MPI_OK(MPI_Type_get_extent(types[ti], &lb, &ext[ti]));
		/* Target: every other element; result: every third. */
		MPI_OK(MPI_Type_create_hvector(N, 1, 2 * ext[ti], types[ti], &vec[ti]));
		MPI_OK(MPI_Type_commit(&vec[ti]));
		MPI_OK(MPI_Type_create_hvector(N, 1, 3 * ext[ti], types[ti], &rvec[ti]));
		MPI_OK(MPI_Type_commit(&rvec[ti]));
	}
	/* The target's elements (at 2i of each case's region). */
	lock(w, t_rank);
	memset(w->base, 0, w->bytes);
	for (k = 0; k < NCASES; k++) {
		ti = k / (NOPS * 2);
		oi = k / 2 % NOPS;
		ok[k] = defined(types[ti], ops[oi].op, &cl[k]);
		region = (unsigned char *)w->base + (size_t)k * REGION;
		for (i = 0; ok[k] && i < N; i++)
			set_val(types[ti], region + (1 + k % 2) * i * ext[ti],
				tval(i), i);
	}
	unlock(w, t_rank);
	memset(res, 0x5a, (size_t)NCASES * 3 * N * SLOT);
	MPI_OK(MPI_Barrier(w->comm));

	lock(w, right);
	for (k = 0; k < NCASES; k++) {
		ti = k / (NOPS * 2);
		oi = k / 2 % NOPS;
		g = k % 2;
		for (i = 0; i < N; i++)
			set_val(types[ti], in + i * ext[ti], oval(t_rank, i), N - i);
		if (g)
			err = MPI_Get_accumulate(in, N, types[ti],
						 res + (size_t)k * 3 * N * SLOT, 1,
						 rvec[ti], right,
						 t_disp(w, right, (size_t)k * REGION),
						 1, vec[ti], ops[oi].op, w->win);
		else
			err = MPI_Accumulate(in, N, types[ti], right,
					     t_disp(w, right, (size_t)k * REGION),
					     N, types[ti], ops[oi].op, w->win);
		type_name(types[ti], tn);
		if (!ok[k])
			T_EXPECT(err, cl[k], "%s: %s of %s on %s (not defined)",
				 t_flavor_name[w->flavor],
				 g ? "Get_accumulate" : "Accumulate",
				 ops[oi].name, tn);
		else
			MPI_OK(err);
	}
	unlock(w, right);
	MPI_OK(MPI_Barrier(w->comm));

	lock(w, t_rank);
	for (k = 0; k < NCASES; k++) {
		MPI_Datatype dt;
		const char *what;

		if (!ok[k])
			continue;
		ti = k / (NOPS * 2);
		oi = k / 2 % NOPS;
		g = k % 2;
		dt = types[ti];
		what = g ? "Get_accumulate" : "Accumulate";
		type_name(dt, tn);
		/* Old values in the result, at every third element. */
		for (i = 0; g && i < N; i++) {
			set_val(dt, want + i * ext[ti], tval(i), i);
			CHECK(same(dt, res + (size_t)k * 3 * N * SLOT +
				   3 * i * ext[ti], want + i * ext[ti]),
			      "%s: Get_accumulate %s %s: result %d is not the old value",
			      t_flavor_name[w->flavor], ops[oi].name, tn, i);
		}
		/* What the left neighbour did to this rank's memory. */
		for (i = 0; i < N; i++) {
			set_val(dt, want + i * ext[ti], tval(i), i);
			set_val(dt, scratch + i * ext[ti], oval(left, i), N - i);
		}
		MPI_OK(MPI_Reduce_local(scratch, want, N, dt, ops[oi].op));
		region = (unsigned char *)w->base + (size_t)k * REGION;
		for (i = 0; i < N; i++) {
			CHECK(same(dt, region + (1 + g) * i * ext[ti],
				   want + i * ext[ti]),
			      "%s: %s %s on %s: element %d differs from MPI_Reduce_local's",
			      t_flavor_name[w->flavor], what, ops[oi].name, tn, i);
			/* The gaps between stay. */
			CHECK(!g || !memcmp(region + (2 * i + 1) * ext[ti], z,
					    (size_t)ext[ti]),
			      "%s: %s %s on %s wrote gap %d",
			      t_flavor_name[w->flavor], what, ops[oi].name, tn, i);
		}
	}
	unlock(w, t_rank);
	MPI_OK(MPI_Barrier(w->comm));
	for (ti = 0; ti < NTYPES; ti++) {
		MPI_OK(MPI_Type_free(&vec[ti]));
		MPI_OK(MPI_Type_free(&rvec[ti]));
	}
	free(res);
}

/* ---- Fetch_and_op, Compare_and_swap ------------------------------------------- */

static void fop_cas(struct t_win *w)
{
	long long *tgt = w->base, one = 1, old = -5, val, cmp, res;
	double d = 2.5, dold;
	int i;

	reset(w, 0);
	lock(w, t_rank);
	tgt[0] = 100;
	tgt[1] = 7;
	unlock(w, t_rank);
	MPI_OK(MPI_Barrier(w->comm));
	lock(w, right);
	MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, right,
				t_disp(w, right, 0), MPI_SUM, w->win));
	CHECK(old == 100, "%s: Fetch_and_op fetched %lld", t_flavor_name[w->flavor], old);
	MPI_OK(MPI_Fetch_and_op(NULL, &old, MPI_LONG_LONG, right,
				t_disp(w, right, 0), MPI_NO_OP, w->win));
	CHECK(old == 101, "%s: Fetch_and_op NO_OP fetched %lld", t_flavor_name[w->flavor], old);
	val = 42;
	MPI_OK(MPI_Fetch_and_op(&val, &old, MPI_LONG_LONG, right,
				t_disp(w, right, 0), MPI_REPLACE, w->win));
	CHECK(old == 101, "%s: Fetch_and_op REPLACE fetched %lld", t_flavor_name[w->flavor], old);
	/* Compare fails: nothing changes. */
	val = 9; cmp = 8; res = 0;
	MPI_OK(MPI_Compare_and_swap(&val, &cmp, &res, MPI_LONG_LONG, right,
				    t_disp(w, right, 8), w->win));
	CHECK(res == 7, "%s: CAS result %lld", t_flavor_name[w->flavor], res);
	cmp = 7;
	MPI_OK(MPI_Compare_and_swap(&val, &cmp, &res, MPI_LONG_LONG, right,
				    t_disp(w, right, 8), w->win));
	CHECK(res == 7, "%s: CAS result %lld", t_flavor_name[w->flavor], res);
	/* A double fetched and added: a compare-and-swap loop inside. */
	MPI_OK(MPI_Fetch_and_op(&d, &dold, MPI_DOUBLE, right,
				t_disp(w, right, 16), MPI_SUM, w->win));
	MPI_OK(MPI_Fetch_and_op(&d, &dold, MPI_DOUBLE, right,
				t_disp(w, right, 16), MPI_MAX, w->win));
	CHECK(dold == 2.5, "%s: Fetch_and_op MAX on a double fetched %g",
	      t_flavor_name[w->flavor], dold);
	unlock(w, right);
	MPI_OK(MPI_Barrier(w->comm));
	lock(w, t_rank);
	CHECK(tgt[0] == 42 && tgt[1] == 9, "%s: after FOP/CAS: %lld %lld",
	      t_flavor_name[w->flavor], tgt[0], tgt[1]);
	memcpy(&d, &tgt[2], sizeof(d));
	CHECK(d == 2.5, "%s: the double is %g", t_flavor_name[w->flavor], d);
	unlock(w, t_rank);
	(void)i;
	MPI_OK(MPI_Barrier(w->comm));
}

/* ---- Request-based ---------------------------------------------------------------- */

static void requests(struct t_win *w)
{
	int *tgt = w->base, src[8], back[8], res[8], i;
	MPI_Request r[4];

	reset(w, 0);
	for (i = 0; i < 8; i++)
		src[i] = t_rank * 10 + i;
	MPI_OK(MPI_Win_lock_all(0, w->win));
	MPI_OK(MPI_Rput(src, 8, MPI_INT, right, t_disp(w, right, 0), 8,
			MPI_INT, w->win, &r[0]));
	MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
	CHECK(r[0] == MPI_REQUEST_NULL, "MPI_Wait left the request");
	MPI_OK(MPI_Win_flush(right, w->win));
	MPI_OK(MPI_Rget(back, 8, MPI_INT, right, t_disp(w, right, 0), 8,
			MPI_INT, w->win, &r[1]));
	MPI_OK(MPI_Raccumulate(src, 8, MPI_INT, right, t_disp(w, right, 32),
			       8, MPI_INT, MPI_SUM, w->win, &r[2]));
	MPI_OK(MPI_Rget_accumulate(src, 8, MPI_INT, res, 8, MPI_INT, right,
				   t_disp(w, right, 32), 8, MPI_INT, MPI_SUM,
				   w->win, &r[3]));
	MPI_OK(MPI_Waitall(3, &r[1], MPI_STATUSES_IGNORE));
	MPI_OK(MPI_Win_unlock_all(w->win));
	for (i = 0; i < 8; i++) {
		CHECK(back[i] == t_rank * 10 + i, "%s: Rget %d: %d",
		      t_flavor_name[w->flavor], i, back[i]);
		CHECK(res[i] == t_rank * 10 + i, "%s: Rget_accumulate %d: %d",
		      t_flavor_name[w->flavor], i, res[i]);
	}
	MPI_OK(MPI_Barrier(w->comm));
	for (i = 0; i < 8; i++)
		CHECK(tgt[8 + i] == 2 * (left * 10 + i), "%s: Raccumulate %d: %d",
		      t_flavor_name[w->flavor], i, tgt[8 + i]);
	MPI_OK(MPI_Barrier(w->comm));
}

int main(int argc, char **argv)
{
	struct tcase c[8];
	struct t_win w;
	int f, nc, i;

	t_init(&argc, &argv);
	right = (t_rank + 1) % t_size;
	left = (t_rank + t_size - 1) % t_size;
	cases(c, &nc);
	for (f = 0; f < T_FLAVORS; f++) {
		t_win_make(&w, f, ACC_BYTES > PG_BYTES(nc) ? ACC_BYTES :
			   PG_BYTES(nc), 1, MPI_COMM_WORLD);
		put_get(&w, c, nc);
		acc_all(&w);
		fop_cas(&w);
		requests(&w);
		t_win_free(&w);
	}
	for (i = 1; i < nc; i++)
		MPI_OK(MPI_Type_free(&c[i].dt));
	if (t_rank == 0)
		printf("rma_ops: ok\n");
	return t_done();
}
