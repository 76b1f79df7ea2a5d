// SPDX-License-Identifier: MIT
/*
 * MPI_Type_get_envelope and MPI_Type_get_contents (src/dtype_contents.c).
 *
 *  - Each constructor's envelope (combiner, counts) and contents (its
 *    arguments, in the order MPI lays them out) against the call made.
 *  - Rebuilding: every type is decoded down to the predefined types and
 *    built again from its contents alone (rebuild()); the copy must have
 *    the original's size and extent and pack a test buffer to the same
 *    bytes.  Nested types (a struct of a vector of a resized indexed
 *    type, a subarray of an hindexed block type, a dup of a struct, a
 *    darray of a resized type) go the same way.
 *  - A type built on one the program has freed still hands out an
 *    equivalent one.
 *  - Bad arguments: a predefined type's contents, arrays too short,
 *    NULL outputs, MPI_DATATYPE_NULL.
 */
#include "test.h"

#define BUF	8192

static unsigned char src[BUF];

/* Pack one element of dt from the middle of src. */
static int pack(MPI_Datatype dt, unsigned char *out, int max)
{
	int pos = 0;

	MPI_OK(MPI_Pack(src + BUF / 2, 1, dt, out, max, &pos, MPI_COMM_SELF));
	return pos;
}

static void free_derived(MPI_Datatype *t, int n)
{
	int i, ni, na, nd, comb;

	for (i = 0; i < n; i++) {
		MPI_OK(MPI_Type_get_envelope(t[i], &ni, &na, &nd, &comb));
		if (comb != MPI_COMBINER_NAMED)
			MPI_OK(MPI_Type_free(&t[i]));
	}
}

/* A new type built from dt's contents alone, its parts rebuilt too. */
static MPI_Datatype rebuild(MPI_Datatype dt)
{
	int ni, na, nd, comb, i, *iv;
	MPI_Aint *av;
	MPI_Datatype *tv, out = MPI_DATATYPE_NULL;

	MPI_OK(MPI_Type_get_envelope(dt, &ni, &na, &nd, &comb));
	if (comb == MPI_COMBINER_NAMED)
		return dt;
	iv = malloc((size_t)(ni + 1) * sizeof(*iv));
	av = malloc((size_t)(na + 1) * sizeof(*av));
	tv = malloc((size_t)(nd + 1) * sizeof(*tv));
	CHECK(iv && av && tv, "malloc");
	MPI_OK(MPI_Type_get_contents(dt, ni, na, nd, iv, av, tv));
	for (i = 0; i < nd; i++) {
		MPI_Datatype r = rebuild(tv[i]);

		if (r != tv[i]) {
			MPI_OK(MPI_Type_free(&tv[i]));
			tv[i] = r;
		}
	}
	switch (comb) {
	case MPI_COMBINER_DUP:
		MPI_OK(MPI_Type_dup(tv[0], &out));
		break;
	case MPI_COMBINER_CONTIGUOUS:
		MPI_OK(MPI_Type_contiguous(iv[0], tv[0], &out));
		break;
	case MPI_COMBINER_VECTOR:
		MPI_OK(MPI_Type_vector(iv[0], iv[1], iv[2], tv[0], &out));
		break;
	case MPI_COMBINER_HVECTOR:
		MPI_OK(MPI_Type_create_hvector(iv[0], iv[1], av[0], tv[0], &out));
		break;
	case MPI_COMBINER_INDEXED:
		MPI_OK(MPI_Type_indexed(iv[0], iv + 1, iv + 1 + iv[0], tv[0], &out));
		break;
	case MPI_COMBINER_HINDEXED:
		MPI_OK(MPI_Type_create_hindexed(iv[0], iv + 1, av, tv[0], &out));
		break;
	case MPI_COMBINER_INDEXED_BLOCK:
		MPI_OK(MPI_Type_create_indexed_block(iv[0], iv[1], iv + 2, tv[0],
						     &out));
		break;
	case MPI_COMBINER_HINDEXED_BLOCK:
		MPI_OK(MPI_Type_create_hindexed_block(iv[0], iv[1], av, tv[0],
						      &out));
		break;
	case MPI_COMBINER_STRUCT:
		MPI_OK(MPI_Type_create_struct(iv[0], iv + 1, av, tv, &out));
		break;
	case MPI_COMBINER_SUBARRAY:
		MPI_OK(MPI_Type_create_subarray(iv[0], iv + 1, iv + 1 + iv[0],
						iv + 1 + 2 * iv[0],
						iv[1 + 3 * iv[0]], tv[0], &out));
		break;
	case MPI_COMBINER_DARRAY:
		MPI_OK(MPI_Type_create_darray(iv[0], iv[1], iv[2], iv + 3,
					      iv + 3 + iv[2], iv + 3 + 2 * iv[2],
					      iv + 3 + 3 * iv[2],
					      iv[3 + 4 * iv[2]], tv[0], &out));
		break;
	case MPI_COMBINER_RESIZED:
		MPI_OK(MPI_Type_create_resized(tv[0], av[0], av[1], &out));
		break;
	default:
		CHECK(0, "combiner %d", comb);
	}
	free_derived(tv, nd);
	free(iv);
	free(av);
	free(tv);
	MPI_OK(MPI_Type_commit(&out));
	return out;
}

/* dt and its rebuilt copy agree: bounds, size, packed bytes. */
static void check_rebuild(const char *what, MPI_Datatype dt)
{
	static unsigned char a[BUF], b[BUF];
	MPI_Aint lb1, ex1, lb2, ex2;
	MPI_Datatype r;
	int s1, s2, n1, n2;

	MPI_OK(MPI_Type_commit(&dt));
	r = rebuild(dt);
	MPI_OK(MPI_Type_size(dt, &s1));
	MPI_OK(MPI_Type_size(r, &s2));
	MPI_OK(MPI_Type_get_extent(dt, &lb1, &ex1));
	MPI_OK(MPI_Type_get_extent(r, &lb2, &ex2));
	CHECK(s1 == s2 && lb1 == lb2 && ex1 == ex2,
	      "%s: size %d/%d lb %ld/%ld extent %ld/%ld", what, s1, s2,
	      (long)lb1, (long)lb2, (long)ex1, (long)ex2);
	n1 = pack(dt, a, BUF);
	n2 = pack(r, b, BUF);
	CHECK(n1 == n2 && !memcmp(a, b, (size_t)n1), "%s: packed bytes differ",
	      what);
	MPI_OK(MPI_Type_free(&r));
}

static void envelope(MPI_Datatype dt, int comb, int ni, int na, int nd)
{
	int a, b, c, k;

	MPI_OK(MPI_Type_get_envelope(dt, &a, &b, &c, &k));
	CHECK(k == comb && a == ni && b == na && c == nd,
	      "envelope %d (%d, %d, %d), want %d (%d, %d, %d)", k, a, b, c,
	      comb, ni, na, nd);
}

/* The contents of each constructor, as the standard lays them out. */
static void each_constructor(void)
{
	int bl[3] = { 2, 1, 3 }, di[3] = { 0, 5, 9 }, iv[16], sizes[3] = { 6, 5, 4 },
	    sub[3] = { 2, 3, 2 }, starts[3] = { 1, 1, 2 };
	MPI_Aint ad[3] = { 0, 24, 64 }, av[4];
	MPI_Datatype t, tv[3], types[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };

	MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
	envelope(t, MPI_COMBINER_VECTOR, 3, 0, 1);
	MPI_OK(MPI_Type_get_contents(t, 3, 0, 1, iv, av, tv));
	CHECK(iv[0] == 3 && iv[1] == 2 && iv[2] == 4 && tv[0] == MPI_INT,
	      "vector contents %d %d %d", iv[0], iv[1], iv[2]);
	check_rebuild("vector", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_create_hvector(2, 3, 40, MPI_SHORT, &t));
	envelope(t, MPI_COMBINER_HVECTOR, 2, 1, 1);
	MPI_OK(MPI_Type_get_contents(t, 2, 1, 1, iv, av, tv));
	CHECK(iv[0] == 2 && iv[1] == 3 && av[0] == 40 && tv[0] == MPI_SHORT,
	      "hvector contents");
	check_rebuild("hvector", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_indexed(3, bl, di, MPI_FLOAT, &t));
	envelope(t, MPI_COMBINER_INDEXED, 7, 0, 1);
	MPI_OK(MPI_Type_get_contents(t, 7, 0, 1, iv, av, tv));
	CHECK(iv[0] == 3 && iv[1] == 2 && iv[3] == 3 && iv[4] == 0 &&
	      iv[6] == 9, "indexed contents");
	check_rebuild("indexed", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_create_hindexed(3, bl, ad, MPI_DOUBLE, &t));
	envelope(t, MPI_COMBINER_HINDEXED, 4, 3, 1);
	check_rebuild("hindexed", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_create_indexed_block(3, 2, di, MPI_INT, &t));
	envelope(t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1);
	MPI_OK(MPI_Type_get_contents(t, 5, 0, 1, iv, av, tv));
	CHECK(iv[0] == 3 && iv[1] == 2 && iv[4] == 9, "indexed_block contents");
	check_rebuild("indexed_block", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_create_hindexed_block(3, 1, ad, MPI_LONG, &t));
	envelope(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1);
	check_rebuild("hindexed_block", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_create_struct(3, bl, ad, types, &t));
	envelope(t, MPI_COMBINER_STRUCT, 4, 3, 3);
	MPI_OK(MPI_Type_get_contents(t, 4, 3, 3, iv, av, tv));
	CHECK(tv[0] == MPI_INT && tv[1] == MPI_DOUBLE && tv[2] == MPI_CHAR &&
	      av[1] == 24 && iv[3] == 3, "struct contents");
	check_rebuild("struct", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_FORTRAN,
					MPI_INT, &t));
	envelope(t, MPI_COMBINER_SUBARRAY, 11, 0, 1);
	MPI_OK(MPI_Type_get_contents(t, 11, 0, 1, iv, av, tv));
	CHECK(iv[0] == 3 && iv[1] == 6 && iv[4] == 2 && iv[9] == 2 &&
	      iv[10] == MPI_ORDER_FORTRAN, "subarray contents");
	check_rebuild("subarray", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_contiguous(5, MPI_CHAR, &t));
	envelope(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
	check_rebuild("contiguous", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
	envelope(t, MPI_COMBINER_RESIZED, 0, 2, 1);
	MPI_OK(MPI_Type_get_contents(t, 0, 2, 1, iv, av, tv));
	CHECK(av[0] == -4 && av[1] == 16 && tv[0] == MPI_INT, "resized contents");
	check_rebuild("resized", t);
	MPI_OK(MPI_Type_free(&t));

	MPI_OK(MPI_Type_dup(MPI_DOUBLE, &t));
	envelope(t, MPI_COMBINER_DUP, 0, 0, 1);
	check_rebuild("dup", t);
	MPI_OK(MPI_Type_free(&t));

	envelope(MPI_INT, MPI_COMBINER_NAMED, 0, 0, 0);
}

static void nested(void)
{
	int bl[3] = { 1, 2, 1 }, di[2] = { 3, 0 }, sizes[2] = { 8, 6 },
	    sub[2] = { 3, 2 }, starts[2] = { 2, 1 };
	MPI_Aint ad[3] = { 0, 16, 200 }, hd[2] = { 0, 48 };
	MPI_Datatype ix, rs, vec, st, hb, sa, dup, types[3];

	MPI_OK(MPI_Type_indexed(2, bl + 1, di, MPI_INT, &ix));
	MPI_OK(MPI_Type_create_resized(ix, 0, 40, &rs));
	MPI_OK(MPI_Type_vector(2, 1, 2, rs, &vec));
	types[0] = MPI_CHAR;
	types[1] = vec;
	types[2] = MPI_DOUBLE;
	MPI_OK(MPI_Type_create_struct(3, bl, ad, types, &st));
	check_rebuild("struct of vector of resized indexed", st);

	MPI_OK(MPI_Type_create_hindexed_block(2, 3, hd, MPI_SHORT, &hb));
	MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, hb,
					&sa));
	check_rebuild("subarray of hindexed_block", sa);

	MPI_OK(MPI_Type_dup(st, &dup));
	check_rebuild("dup of struct", dup);

	{
		int gs[2] = { 9, 5 }, dist[2] = { MPI_DISTRIBUTE_CYCLIC,
						  MPI_DISTRIBUTE_BLOCK },
		    da[2] = { 2, MPI_DISTRIBUTE_DFLT_DARG }, ps[2] = { 2, 2 };
		MPI_Datatype dar;

		MPI_OK(MPI_Type_create_darray(4, 1, 2, gs, dist, da, ps,
					      MPI_ORDER_FORTRAN, rs, &dar));
		envelope(dar, MPI_COMBINER_DARRAY, 12, 0, 1);
		check_rebuild("darray of resized indexed", dar);
		MPI_OK(MPI_Type_free(&dar));
	}

	/* The parts the program freed are still handed out. */
	MPI_OK(MPI_Type_free(&ix));
	MPI_OK(MPI_Type_free(&rs));
	MPI_OK(MPI_Type_free(&vec));
	MPI_OK(MPI_Type_free(&st));
	check_rebuild("dup of struct, parts freed", dup);
	MPI_OK(MPI_Type_free(&dup));
	MPI_OK(MPI_Type_free(&hb));
	MPI_OK(MPI_Type_free(&sa));
}

static void bad_arguments(void)
{
	int iv[4], a, b, c;
	MPI_Aint av[4];
	MPI_Datatype t, tv[4];

	T_EXPECT(MPI_Type_get_contents(MPI_INT, 4, 4, 4, iv, av, tv),
		 MPI_ERR_TYPE, "contents of MPI_INT");
	T_EXPECT(MPI_Type_get_envelope(MPI_DATATYPE_NULL, &a, &b, &c, iv),
		 MPI_ERR_TYPE, "envelope of MPI_DATATYPE_NULL");
	T_EXPECT(MPI_Type_get_envelope(MPI_INT, &a, NULL, &c, iv),
		 MPI_ERR_ARG, "envelope into NULL");
	MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
	T_EXPECT(MPI_Type_get_contents(t, 2, 0, 1, iv, av, tv), MPI_ERR_ARG,
		 "two integers for a vector's three");
	T_EXPECT(MPI_Type_get_contents(t, 3, 0, 1, NULL, av, tv), MPI_ERR_ARG,
		 "integers into NULL");
	MPI_OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
	int i;

	t_init(&argc, &argv);
	for (i = 0; i < BUF; i++)
		src[i] = (unsigned char)(i * 7 + i / 256);
	each_constructor();
	nested();
	bad_arguments();
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	return t_done();
}
