// SPDX-License-Identifier: MIT
/*
 * Derived datatypes in collectives: bcast, gather, scatter, allgather,
 * alltoall (and in place), the v and w variants, with a vector type on
 * both sides or on one side only (the type signatures match), small
 * and above the rendezvous threshold; every gap of a receive buffer
 * stays untouched.  Reductions: a contiguous and a strided type of
 * doubles with MPI_SUM (via the basic type), in place too, a user op
 * on a padded struct, and MPI_ERR_TYPE for a predefined op on a type
 * that mixes basic types.  Nonblocking: the type freed before the wait.
 */
#include <stddef.h>

#include "dtype_ref.h"

#define GAP ((int)0xeeeeeeee)

/* n elements of "every other int": ints at 0, 8, 16, ... bytes. */
static MPI_Datatype vec(void)
{
	MPI_Datatype v, t;

	MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
	/* extent 12 -> 16 so that elements follow each other. */
	MPI_OK(MPI_Type_create_resized(v, 0, 16, &t));
	MPI_OK(MPI_Type_free(&v));
	MPI_OK(MPI_Type_commit(&t));
	return t;
}

/* Buffer of n vec elements: 4n ints, values at even ints. */
static int *vbuf(long n)
{
	int *b = malloc((size_t)(4 * n + 1) * sizeof(int));
	long i;

	for (i = 0; i < 4 * n + 1; i++)
		b[i] = GAP;
	return b;
}

static int val(int rank, long j)
{
	return rank * 1000003 + (int)j;
}

/* Element e (of vec) holds values base+2e, base+2e+1. */
static void vset(int *b, long e0, long n, int rank, long j0)
{
	long e;

	for (e = 0; e < n; e++) {
		b[4 * (e0 + e)] = val(rank, j0 + 2 * e);
		b[4 * (e0 + e) + 2] = val(rank, j0 + 2 * e + 1);
	}
}

static void vcheck(const int *b, long e0, long n, int rank, long j0,
		   const char *what)
{
	long e;

	for (e = 0; e < n; e++) {
		CHECK(b[4 * (e0 + e)] == val(rank, j0 + 2 * e) &&
		      b[4 * (e0 + e) + 2] == val(rank, j0 + 2 * e + 1),
		      "%s: element %ld from rank %d", what, e0 + e, rank);
		CHECK(b[4 * (e0 + e) + 1] == GAP && b[4 * (e0 + e) + 3] == GAP,
		      "%s: gap of element %ld written", what, e0 + e);
	}
}

static void all_gaps(const int *b, long from, long to, const char *what)
{
	long i;

	for (i = 4 * from; i < 4 * to + 1; i++)
		CHECK(b[i] == GAP, "%s: int %ld written", what, i);
}

static void test_rooted(MPI_Datatype v, long n)
{
	int root = t_size - 1, p, *s = vbuf(n), *r = vbuf(n * t_size);
	int *plain = malloc((size_t)(2 * n * t_size) * sizeof(int));
	long i;

	/* Bcast. */
	if (t_rank == root)
		vset(r, 0, n, root, 0);
	MPI_OK(MPI_Bcast(r, (int)n, v, root, MPI_COMM_WORLD));
	vcheck(r, 0, n, root, 0, "bcast");
	all_gaps(r, n, n * t_size, "bcast");

	/* Gather: vec on both sides, then vec sent, ints received. */
	free(r);
	r = vbuf(n * t_size);
	vset(s, 0, n, t_rank, 0);
	MPI_OK(MPI_Gather(s, (int)n, v, r, (int)n, v, root, MPI_COMM_WORLD));
	if (t_rank == root)
		for (p = 0; p < t_size; p++)
			vcheck(r, p * n, n, p, 0, "gather");
	MPI_OK(MPI_Gather(s, (int)n, v, plain, (int)(2 * n), MPI_INT, root,
			  MPI_COMM_WORLD));
	if (t_rank == root)
		for (p = 0; p < t_size; p++)
			for (i = 0; i < 2 * n; i++)
				CHECK(plain[p * 2 * n + i] == val(p, i),
				      "gather to ints: rank %d int %ld", p, i);
	/* Gather in place at the root. */
	free(r);
	r = vbuf(n * t_size);
	if (t_rank == root) {
		vset(r, root * n, n, root, 0);
		MPI_OK(MPI_Gather(MPI_IN_PLACE, (int)n, v, r, (int)n, v, root,
				  MPI_COMM_WORLD));
		for (p = 0; p < t_size; p++)
			vcheck(r, p * n, n, p, 0, "gather in place");
	} else {
		MPI_OK(MPI_Gather(s, (int)n, v, NULL, 0, v, root, MPI_COMM_WORLD));
	}

	/* Scatter: ints sent, vec received. */
	free(r);
	r = vbuf(n);
	if (t_rank == root)
		for (p = 0; p < t_size; p++)
			for (i = 0; i < 2 * n; i++)
				plain[p * 2 * n + i] = val(p, i);
	MPI_OK(MPI_Scatter(plain, (int)(2 * n), MPI_INT, r, (int)n, v, root,
			   MPI_COMM_WORLD));
	vcheck(r, 0, n, t_rank, 0, "scatter");
	all_gaps(r, n, n, "scatter");
	free(s);
	free(r);
	free(plain);
}

static void test_all(MPI_Datatype v, long n)
{
	int p, *s = vbuf(n * t_size), *r = vbuf(n * t_size);
	int *cnt = malloc((size_t)t_size * sizeof(int));
	int *dsp = malloc((size_t)t_size * sizeof(int));
	MPI_Datatype *tys = malloc((size_t)t_size * sizeof(*tys));
	MPI_Aint ext, lb;

	vset(s, 0, n, t_rank, 0);
	MPI_OK(MPI_Allgather(s, (int)n, v, r, (int)n, v, MPI_COMM_WORLD));
	for (p = 0; p < t_size; p++)
		vcheck(r, p * n, n, p, 0, "allgather");
	free(r);
	r = vbuf(n * t_size);
	vset(r, t_rank * n, n, t_rank, 0);
	MPI_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, (int)n, v,
			     MPI_COMM_WORLD));
	for (p = 0; p < t_size; p++)
		vcheck(r, p * n, n, p, 0, "allgather in place");

	/* Alltoall: block p of rank q holds val(q, p * 2n + j). */
	free(r);
	r = vbuf(n * t_size);
	for (p = 0; p < t_size; p++)
		vset(s, p * n, n, t_rank, (long)p * 2 * n);
	MPI_OK(MPI_Alltoall(s, (int)n, v, r, (int)n, v, MPI_COMM_WORLD));
	for (p = 0; p < t_size; p++)
		vcheck(r, p * n, n, p, (long)t_rank * 2 * n, "alltoall");
	for (p = 0; p < t_size; p++)
		vset(r, p * n, n, t_rank, (long)p * 2 * n);
	MPI_OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, (int)n, v,
			    MPI_COMM_WORLD));
	for (p = 0; p < t_size; p++)
		vcheck(r, p * n, n, p, (long)t_rank * 2 * n, "alltoall in place");

	/* Allgatherv and alltoallv/w, blocks in reverse order. */
	for (p = 0; p < t_size; p++) {
		cnt[p] = (int)n;
		dsp[p] = (int)((t_size - 1 - p) * n);
		tys[p] = v;
	}
	free(r);
	r = vbuf(n * t_size);
	MPI_OK(MPI_Allgatherv(s, (int)n, v, r, cnt, dsp, v, MPI_COMM_WORLD));
	for (p = 0; p < t_size; p++)
		vcheck(r, dsp[p], n, p, 0, "allgatherv");
	/* Gatherv to rank 0 and back out with scatterv. */
	free(r);
	r = vbuf(n * t_size);
	MPI_OK(MPI_Gatherv(s, (int)n, v, r, cnt, dsp, v, 0, MPI_COMM_WORLD));
	if (t_rank == 0)
		for (p = 0; p < t_size; p++)
			vcheck(r, dsp[p], n, p, 0, "gatherv");
	{
		int *back = vbuf(n);

		MPI_OK(MPI_Scatterv(r, cnt, dsp, v, back, (int)n, v, 0,
				    MPI_COMM_WORLD));
		vcheck(back, 0, n, t_rank, 0, "scatterv");
		all_gaps(back, n, n, "scatterv");
		free(back);
	}
	free(r);
	r = vbuf(n * t_size);
	MPI_OK(MPI_Alltoallv(s, cnt, dsp, v, r, cnt, dsp, v, MPI_COMM_WORLD));
	for (p = 0; p < t_size; p++)
		vcheck(r, dsp[p], n, p, (long)(t_size - 1 - t_rank) * 2 * n,
		       "alltoallv");
	MPI_OK(MPI_Type_get_extent(v, &lb, &ext));
	for (p = 0; p < t_size; p++)
		dsp[p] *= (int)ext;
	free(r);
	r = vbuf(n * t_size);
	MPI_OK(MPI_Alltoallw(s, cnt, dsp, tys, r, cnt, dsp, tys, MPI_COMM_WORLD));
	for (p = 0; p < t_size; p++)
		vcheck(r, dsp[p] / ext, n, p, (long)(t_size - 1 - t_rank) * 2 * n,
		       "alltoallw");
	free(s);
	free(r);
	free(cnt);
	free(dsp);
	free(tys);
}

/*
 * Reduce_scatter_block with one double in two: rank p gets elements
 * [p n, (p + 1) n) of the sum, in its strided receive buffer.
 */
static void test_reduce_scatter(long n)
{
	long all = n * t_size, i;
	double *a = malloc((size_t)(2 * all) * sizeof(double));
	double *b = malloc((size_t)(2 * all) * sizeof(double));
	MPI_Datatype one, sv;

	MPI_OK(MPI_Type_vector(1, 1, 2, MPI_DOUBLE, &one));
	MPI_OK(MPI_Type_create_resized(one, 0, 2 * sizeof(double), &sv));
	MPI_OK(MPI_Type_free(&one));
	MPI_OK(MPI_Type_commit(&sv));
	for (i = 0; i < 2 * all; i++) {
		a[i] = i % 2 ? -7.0 : t_rank + (double)i;
		b[i] = -9.0;
	}
	MPI_OK(MPI_Reduce_scatter_block(a, b, (int)n, sv, MPI_SUM, MPI_COMM_WORLD));
	for (i = 0; i < 2 * all; i++) {
		double want = -9.0;

		if (i < 2 * n && i % 2 == 0)
			want = t_size * (t_size - 1) / 2.0 +
				(double)(i + 2 * n * t_rank) * t_size;
		CHECK(b[i] == want, "reduce_scatter_block strided: %ld is %g", i, b[i]);
	}
	/* In place: the whole vector in, this rank's block out at the start. */
	MPI_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, a, (int)n, sv, MPI_SUM,
					MPI_COMM_WORLD));
	for (i = 0; i < 2 * n; i++)
		CHECK(a[i] == (i % 2 ? -7.0 : t_size * (t_size - 1) / 2.0 +
			       (double)(i + 2 * n * t_rank) * t_size),
		      "reduce_scatter_block in place: %ld is %g", i, a[i]);
	MPI_OK(MPI_Type_free(&sv));
	free(a);
	free(b);
}

static void test_reduce(long n)
{
	double *a = malloc((size_t)(3 * n + 1) * sizeof(double));
	double *b = malloc((size_t)(3 * n + 1) * sizeof(double));
	double sum = t_size * (t_size - 1) / 2.0;
	MPI_Datatype c4, sv;
	long i;
	int cnt = (int)(n / 4);

	/* Contiguous of 4 doubles: the basic loop on the buffer itself. */
	MPI_OK(MPI_Type_contiguous(4, MPI_DOUBLE, &c4));
	MPI_OK(MPI_Type_commit(&c4));
	for (i = 0; i < 4 * cnt; i++)
		a[i] = t_rank + (double)i;
	MPI_OK(MPI_Allreduce(a, b, cnt, c4, MPI_SUM, MPI_COMM_WORLD));
	for (i = 0; i < 4 * cnt; i++)
		CHECK(b[i] == sum + (double)i * t_size, "allreduce contiguous: %ld", i);

	/* Strided: one double in three, gaps untouched (in place too). */
	MPI_OK(MPI_Type_vector((int)n, 1, 3, MPI_DOUBLE, &sv));
	MPI_OK(MPI_Type_commit(&sv));
	for (i = 0; i < 3 * n; i++) {
		a[i] = i % 3 ? -7.0 : t_rank + (double)i;
		b[i] = -9.0;
	}
	MPI_OK(MPI_Allreduce(a, b, 1, sv, MPI_SUM, MPI_COMM_WORLD));
	for (i = 0; i < 3 * n; i++)
		CHECK(b[i] == (i % 3 ? -9.0 : sum + (double)i * t_size),
		      "allreduce strided: %ld is %g", i, b[i]);
	MPI_OK(MPI_Allreduce(MPI_IN_PLACE, a, 1, sv, MPI_SUM, MPI_COMM_WORLD));
	for (i = 0; i < 3 * n; i++)
		CHECK(a[i] == (i % 3 ? -7.0 : sum + (double)i * t_size),
		      "allreduce strided in place: %ld is %g", i, a[i]);
	for (i = 0; i < 3 * n; i++) {
		a[i] = i % 3 ? -7.0 : t_rank + (double)i;
		b[i] = -9.0;
	}
	MPI_OK(MPI_Reduce(a, b, 1, sv, MPI_MAX, 0, MPI_COMM_WORLD));
	if (t_rank == 0)
		for (i = 0; i < 3 * n; i++)
			CHECK(b[i] == (i % 3 ? -9.0 : t_size - 1 + (double)i),
			      "reduce strided: %ld", i);
	MPI_OK(MPI_Scan(a, b, 1, sv, MPI_SUM, MPI_COMM_WORLD));
	for (i = 0; i < 3 * n; i += 3)
		CHECK(b[i] == t_rank * (t_rank + 1) / 2.0 + (double)i * (t_rank + 1),
		      "scan strided: %ld", i);
	/* Exscan: rank 0's receive buffer is left alone. */
	for (i = 0; i < 3 * n; i++)
		b[i] = -9.0;
	MPI_OK(MPI_Exscan(a, b, 1, sv, MPI_SUM, MPI_COMM_WORLD));
	for (i = 0; i < 3 * n; i++)
		CHECK(b[i] == (t_rank == 0 || i % 3 ? -9.0 :
			       (t_rank - 1) * t_rank / 2.0 + (double)i * t_rank),
		      "exscan strided: %ld is %g", i, b[i]);
	MPI_OK(MPI_Type_free(&c4));
	MPI_OK(MPI_Type_free(&sv));
	free(a);
	free(b);
	test_reduce_scatter(n);
}

/* A padded struct and a user op on it: max by value, keep the rank. */
struct vi {
	double v;
	int who;
};

static void maxvi(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	struct vi *a = in, *b = inout;
	MPI_Aint lb, ext;
	int i;

	MPI_Type_get_extent(*dt, &lb, &ext);
	CHECK(ext == sizeof(struct vi), "user op sees extent %ld", (long)ext);
	for (i = 0; i < *len; i++)
		if (a[i].v > b[i].v)
			b[i] = a[i];
}

static void test_user_op(long n)
{
	int bl[2] = { 1, 1 };
	MPI_Aint d[2] = { offsetof(struct vi, v), offsetof(struct vi, who) };
	MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_INT }, t;
	struct vi *a = malloc((size_t)n * sizeof(*a)), *b = malloc((size_t)n * sizeof(*b));
	MPI_Op op;
	long i;

	MPI_OK(MPI_Type_create_struct(2, bl, d, ty, &t));
	MPI_OK(MPI_Type_commit(&t));
	MPI_OK(MPI_Op_create(maxvi, 1, &op));
	for (i = 0; i < n; i++) {
		a[i].v = (double)((t_rank + i) % t_size);
		a[i].who = t_rank;
	}
	memset(b, 0xee, (size_t)n * sizeof(*b));
	MPI_OK(MPI_Allreduce(a, b, (int)n, t, op, MPI_COMM_WORLD));
	for (i = 0; i < n; i++) {
		/* The largest value, t_size - 1, is on one rank only. */
		int who = (int)((t_size - 1 - i % t_size + t_size) % t_size);

		CHECK(b[i].v == t_size - 1 && b[i].who == who,
		      "user op: element %ld: %g from %d", i, b[i].v, b[i].who);
		CHECK(((unsigned char *)&b[i])[sizeof(struct vi) - 1] == 0xee,
		      "user op: padding of element %ld written", i);
	}
	/* A predefined op on a type of two basic types: MPI_ERR_TYPE. */
	T_EXPECT(MPI_Allreduce(a, b, (int)n, t, MPI_SUM, MPI_COMM_WORLD),
		 MPI_ERR_TYPE, "MPI_SUM on {double, int}");
	MPI_OK(MPI_Op_free(&op));
	MPI_OK(MPI_Type_free(&t));
	free(a);
	free(b);
}

/* Nonblocking, with the type freed before the wait. */
static void test_nonblocking(long n)
{
	MPI_Datatype v = vec();
	int p, *s = vbuf(n * t_size), *r = vbuf(n * t_size);
	MPI_Request req;

	for (p = 0; p < t_size; p++)
		vset(s, p * n, n, t_rank, (long)p * 2 * n);
	MPI_OK(MPI_Ialltoall(s, (int)n, v, r, (int)n, v, MPI_COMM_WORLD, &req));
	MPI_OK(MPI_Type_free(&v));
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	for (p = 0; p < t_size; p++)
		vcheck(r, p * n, n, p, (long)t_rank * 2 * n, "ialltoall");
	free(s);
	free(r);
}

/* A broadcast from MPI_BOTTOM: a struct of absolute addresses. */
static void test_bottom(void)
{
	static int x[3];
	static double y;
	int bl[2] = { 3, 1 }, i;
	MPI_Aint d[2];
	MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE }, t;

	MPI_OK(MPI_Get_address(x, &d[0]));
	MPI_OK(MPI_Get_address(&y, &d[1]));
	MPI_OK(MPI_Type_create_struct(2, bl, d, ty, &t));
	MPI_OK(MPI_Type_commit(&t));
	for (i = 0; i < 3; i++)
		x[i] = t_rank == 0 ? 10 + i : -1;
	y = t_rank == 0 ? 2.5 : -1.0;
	MPI_OK(MPI_Bcast(MPI_BOTTOM, 1, t, 0, MPI_COMM_WORLD));
	CHECK(x[0] == 10 && x[1] == 11 && x[2] == 12 && y == 2.5,
	      "bcast from MPI_BOTTOM");
	MPI_OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
	static const long sizes[] = { 1, 5, 12000 };
	MPI_Datatype v;
	int i;

	t_init(&argc, &argv);
	v = vec();
	for (i = 0; i < 3; i++) {
		test_rooted(v, sizes[i]);
		test_all(v, sizes[i]);
		test_nonblocking(sizes[i]);
	}
	MPI_OK(MPI_Type_free(&v));
	test_reduce(40);
	test_reduce(30000);
	test_user_op(3);
	test_user_op(5000);
	test_bottom();
	return t_done();
}
