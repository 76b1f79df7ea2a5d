// SPDX-License-Identifier: MIT
/*
 * MPI_Type_create_darray (src/dtype_darray.c) against a brute-force
 * owner rule.  For each distribution (block with the default and an
 * explicit size, cyclic of 1, 2 and 3, none; 1 to 3 dimensions; C and
 * Fortran order) and each process of its grid, the type packed from a
 * global array whose elements hold their own index must give exactly
 * the indices that process owns, in the array's order; bounds and
 * extent are checked, and the processes' parts must partition the
 * array.  Then over the job: every rank sends its part of a global
 * array to rank 0, which receives each into the whole array with the
 * sender's darray type; bad arguments get MPI_ERR_ARG; the envelope is
 * MPI_COMBINER_DARRAY with the call's arguments.
 */
#include "test.h"

#define MAXN	4096

struct dist {
	int ndims, order;
	int gsizes[3], distribs[3], dargs[3], psizes[3];
};

static int g[MAXN], got[MAXN], want[MAXN], seen[MAXN];

/* Does coordinate c own index i of dimension d? */
static int owns(const struct dist *s, int d, int i, int c)
{
	int b;

	switch (s->distribs[d]) {
	case MPI_DISTRIBUTE_BLOCK:
		b = s->dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ?
			(s->gsizes[d] + s->psizes[d] - 1) / s->psizes[d] :
			s->dargs[d];
		return i / b == c;
	case MPI_DISTRIBUTE_CYCLIC:
		b = s->dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : s->dargs[d];
		return (i / b) % s->psizes[d] == c;
	default:
		return 1;
	}
}

/* The indices process p owns, in the array's order: how many. */
static int expected(const struct dist *s, int p, int *out)
{
	int coord[3], idx[3] = { 0, 0, 0 }, total = 1, n = 0, d, k, lin, rest = p;

	for (d = s->ndims - 1; d >= 0; d--) {
		coord[d] = rest % s->psizes[d];
		rest /= s->psizes[d];
	}
	for (d = 0; d < s->ndims; d++)
		total *= s->gsizes[d];
	for (k = 0; k < total; k++) {
		/* k-th element in memory order: decompose into indices. */
		rest = k;
		if (s->order == MPI_ORDER_C) {
			for (d = s->ndims - 1; d >= 0; d--) {
				idx[d] = rest % s->gsizes[d];
				rest /= s->gsizes[d];
			}
		} else {
			for (d = 0; d < s->ndims; d++) {
				idx[d] = rest % s->gsizes[d];
				rest /= s->gsizes[d];
			}
		}
		lin = k;
		for (d = 0; d < s->ndims; d++)
			if (!owns(s, d, idx[d], coord[d]))
				break;
		if (d == s->ndims)
			out[n++] = lin;
	}
	return n;
}

static MPI_Datatype make(const struct dist *s, int p)
{
	MPI_Datatype t;
	int size = 1, d;

	for (d = 0; d < s->ndims; d++)
		size *= s->psizes[d];
	MPI_OK(MPI_Type_create_darray(size, p, s->ndims, s->gsizes, s->distribs,
				      s->dargs, s->psizes, s->order, MPI_INT, &t));
	MPI_OK(MPI_Type_commit(&t));
	return t;
}

static void check_dist(const char *what, const struct dist *s)
{
	int procs = 1, total = 1, p, n, m, pos, d, i, sz;
	MPI_Aint lb, ext;
	MPI_Datatype t;

	for (d = 0; d < s->ndims; d++) {
		procs *= s->psizes[d];
		total *= s->gsizes[d];
	}
	memset(seen, 0, sizeof(seen));
	for (p = 0; p < procs; p++) {
		t = make(s, p);
		n = expected(s, p, want);
		MPI_OK(MPI_Type_size(t, &sz));
		MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
		CHECK(sz == n * 4 && lb == 0 && ext == (MPI_Aint)total * 4,
		      "%s, process %d: size %d (want %d), lb %ld, extent %ld",
		      what, p, sz, n * 4, (long)lb, (long)ext);
		pos = 0;
		MPI_OK(MPI_Pack(g, 1, t, got, (int)sizeof(got), &pos,
				MPI_COMM_SELF));
		m = pos / 4;
		CHECK(m == n, "%s, process %d: %d elements, want %d", what, p, m, n);
		for (i = 0; i < n; i++) {
			CHECK(got[i] == want[i], "%s, process %d: element %d is %d, want %d",
			      what, p, i, got[i], want[i]);
			seen[got[i]]++;
		}
		MPI_OK(MPI_Type_free(&t));
	}
	for (i = 0; i < total; i++)
		CHECK(seen[i] == 1, "%s: index %d owned %d times", what, i, seen[i]);
}

static const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC,
	N = MPI_DISTRIBUTE_NONE, D = MPI_DISTRIBUTE_DFLT_DARG;

static void distributions(void)
{
	const struct dist cases[] = {
		{ 1, MPI_ORDER_C, { 10 }, { B }, { D }, { 3 } },
		{ 1, MPI_ORDER_C, { 10 }, { C }, { 3 }, { 3 } },
		{ 2, MPI_ORDER_C, { 6, 7 }, { B, C }, { D, 2 }, { 2, 2 } },
		{ 2, MPI_ORDER_FORTRAN, { 6, 7 }, { B, C }, { D, 2 }, { 2, 2 } },
		{ 2, MPI_ORDER_C, { 5, 9 }, { C, B }, { D, 4 }, { 3, 3 } },
		{ 2, MPI_ORDER_FORTRAN, { 8, 5 }, { N, C }, { D, D }, { 1, 4 } },
		{ 3, MPI_ORDER_C, { 4, 5, 6 }, { B, C, C }, { D, 2, D }, { 2, 1, 3 } },
		{ 3, MPI_ORDER_FORTRAN, { 7, 3, 5 }, { C, N, B }, { 3, D, 2 }, { 2, 1, 3 } },
	};
	char what[32];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "case %u", i);
		check_dist(what, &cases[i]);
	}
}

/* Each rank's part of a global array travels to rank 0, typed there. */
static void over_the_job(void)
{
	struct dist s = { 2, MPI_ORDER_C, { 37, 23 }, { C, B }, { 2, D },
			  { 0, 0 } };
	int dims[2] = { 0, 0 }, p, n, i, total = 37 * 23;
	MPI_Datatype t;

	MPI_OK(MPI_Dims_create(t_size, 2, dims));
	s.psizes[0] = dims[0];
	s.psizes[1] = dims[1];
	n = expected(&s, t_rank, want);
	if (t_rank) {
		MPI_OK(MPI_Send(want, n, MPI_INT, 0, 5, MPI_COMM_WORLD));
		return;
	}
	for (i = 0; i < total; i++)
		got[i] = -1;
	for (p = 0; p < t_size; p++) {
		t = make(&s, p);
		if (p == 0)
			MPI_OK(MPI_Sendrecv(want, n, MPI_INT, 0, 5, got, 1, t, 0, 5,
					    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		else
			MPI_OK(MPI_Recv(got, 1, t, p, 5, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
		MPI_OK(MPI_Type_free(&t));
	}
	for (i = 0; i < total; i++)
		CHECK(got[i] == i, "global element %d is %d after the gather", i,
		      got[i]);
}

static void bad_arguments(void)
{
	int gs[2] = { 6, 7 }, ds[2] = { B, C }, da[2] = { D, 2 }, ps[2] = { 2, 2 },
	    none[2] = { N, B }, small[2] = { 2, D };
	int ni, na, nd, comb, iv[12];
	MPI_Datatype t, tv[1];
	MPI_Aint av[1];

	T_EXPECT(MPI_Type_create_darray(4, 4, 2, gs, ds, da, ps, MPI_ORDER_C,
					MPI_INT, &t), MPI_ERR_ARG, "rank 4 of 4");
	T_EXPECT(MPI_Type_create_darray(3, 0, 2, gs, ds, da, ps, MPI_ORDER_C,
					MPI_INT, &t), MPI_ERR_ARG, "grid of 4 for 3");
	T_EXPECT(MPI_Type_create_darray(4, 0, 2, gs, none, da, ps, MPI_ORDER_C,
					MPI_INT, &t), MPI_ERR_ARG, "NONE over 2");
	T_EXPECT(MPI_Type_create_darray(4, 0, 2, gs, ds, small, ps, MPI_ORDER_C,
					MPI_INT, &t), MPI_ERR_ARG, "blocks of 2 cannot cover 6");
	T_EXPECT(MPI_Type_create_darray(4, 0, 2, gs, ds, da, ps, 99,
					MPI_INT, &t), MPI_ERR_ARG, "order 99");
	T_EXPECT(MPI_Type_create_darray(4, 0, 2, gs, ds, da, ps, MPI_ORDER_C,
					MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE,
		 "MPI_DATATYPE_NULL");

	MPI_OK(MPI_Type_create_darray(4, 3, 2, gs, ds, da, ps, MPI_ORDER_C,
				      MPI_INT, &t));
	MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
	CHECK(comb == MPI_COMBINER_DARRAY && ni == 12 && na == 0 && nd == 1,
	      "envelope %d: %d %d %d", comb, ni, na, nd);
	MPI_OK(MPI_Type_get_contents(t, 12, 0, 1, iv, av, tv));
	CHECK(iv[0] == 4 && iv[1] == 3 && iv[2] == 2 && iv[3] == 6 &&
	      iv[6] == C && iv[8] == 2 && iv[10] == 2 && iv[11] == MPI_ORDER_C &&
	      tv[0] == MPI_INT, "darray contents");
	MPI_OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
	int i;

	t_init(&argc, &argv);
	for (i = 0; i < MAXN; i++)
		g[i] = i;
	distributions();
	over_the_job();
	bad_arguments();
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	return t_done();
}
