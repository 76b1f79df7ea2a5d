// SPDX-License-Identifier: MIT
/*
 * Groups (all local): the group of MPI_COMM_WORLD; incl, excl and
 * their range forms; union, intersection and difference against a
 * model on random ordered subsets; translate_ranks (MPI_PROC_NULL,
 * MPI_UNDEFINED); compare (IDENT, SIMILAR, UNEQUAL); MPI_GROUP_EMPTY;
 * bad arguments give MPI_ERR_GROUP, MPI_ERR_RANK or MPI_ERR_ARG.
 */
#include "test.h"

#define MAXN 64

static MPI_Group world;

/* The world ranks of g's members, in order; returns the size. */
static int members(MPI_Group g, int *out)
{
	int in[MAXN], i, n;

	MPI_OK(MPI_Group_size(g, &n));
	CHECK(n <= MAXN, "group of %d", n);
	for (i = 0; i < n; i++)
		in[i] = i;
	MPI_OK(MPI_Group_translate_ranks(g, n, in, world, out));
	return n;
}

static void check_members(MPI_Group g, int n, const int *want, const char *what)
{
	int got[MAXN], m, i, me, r;

	m = members(g, got);
	CHECK(m == n, "%s: size %d, expected %d", what, m, n);
	r = MPI_UNDEFINED;
	for (i = 0; i < n; i++) {
		CHECK(got[i] == want[i], "%s: member %d is world %d, expected %d",
		      what, i, got[i], want[i]);
		if (want[i] == t_rank)
			r = i;
	}
	MPI_OK(MPI_Group_rank(g, &me));
	CHECK(me == r, "%s: my rank %d, expected %d", what, me, r);
}

/* A random ordered subset of the world ranks. */
static int random_subset(int *out)
{
	int perm[MAXN], i, j, t, n = 0;

	for (i = 0; i < t_size; i++)
		perm[i] = i;
	for (i = t_size - 1; i > 0; i--) {
		j = rand() % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < t_size; i++)
		if (rand() % 3)
			out[n++] = perm[i];
	return n;
}

static int in_list(int w, const int *l, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (l[i] == w)
			return 1;
	return 0;
}

static void set_ops_model(void)
{
	int a[MAXN], b[MAXN], want[2 * MAXN], na, nb, n, i, iter, cmp, want_cmp;
	MPI_Group ga, gb, g;

	srand(7);	/* the same subsets on every rank */
	for (iter = 0; iter < 300; iter++) {
		na = random_subset(a);
		nb = iter % 5 == 0 ? na : random_subset(b);
		if (iter % 5 == 0)	/* the same set, maybe reordered */
			for (i = 0; i < na; i++)
				b[i] = a[(i + iter / 5) % na];
		MPI_OK(MPI_Group_incl(world, na, a, &ga));
		MPI_OK(MPI_Group_incl(world, nb, b, &gb));
		check_members(ga, na, a, "incl");

		n = 0;
		for (i = 0; i < na; i++)
			want[n++] = a[i];
		for (i = 0; i < nb; i++)
			if (!in_list(b[i], a, na))
				want[n++] = b[i];
		MPI_OK(MPI_Group_union(ga, gb, &g));
		check_members(g, n, want, "union");
		MPI_OK(MPI_Group_free(&g));

		n = 0;
		for (i = 0; i < na; i++)
			if (in_list(a[i], b, nb))
				want[n++] = a[i];
		MPI_OK(MPI_Group_intersection(ga, gb, &g));
		check_members(g, n, want, "intersection");
		MPI_OK(MPI_Group_free(&g));

		n = 0;
		for (i = 0; i < na; i++)
			if (!in_list(a[i], b, nb))
				want[n++] = a[i];
		MPI_OK(MPI_Group_difference(ga, gb, &g));
		check_members(g, n, want, "difference");
		CHECK(n || g == MPI_GROUP_EMPTY, "an empty difference is not MPI_GROUP_EMPTY");
		MPI_OK(MPI_Group_free(&g));

		want_cmp = MPI_UNEQUAL;
		if (na == nb && !memcmp(a, b, (size_t)na * sizeof(int)))
			want_cmp = MPI_IDENT;
		else if (na == nb) {
			want_cmp = MPI_SIMILAR;
			for (i = 0; i < na; i++)
				if (!in_list(a[i], b, nb))
					want_cmp = MPI_UNEQUAL;
		}
		MPI_OK(MPI_Group_compare(ga, gb, &cmp));
		CHECK(cmp == want_cmp, "compare %d, expected %d (sizes %d %d)",
		      cmp, want_cmp, na, nb);
		MPI_OK(MPI_Group_free(&ga));
		MPI_OK(MPI_Group_free(&gb));
		CHECK(ga == MPI_GROUP_NULL && gb == MPI_GROUP_NULL, "free did not clear");
	}
}

static void ranges(void)
{
	int want[MAXN], in[MAXN], n, r, i, cmp;
	int evens[1][3] = { { 0, t_size - 1, 2 } };
	int rev[1][3] = { { t_size - 1, 0, -1 } };
	int two[2][3] = { { t_size - 1, t_size / 2, -2 }, { 0, t_size / 2 - 1, 1 } };
	MPI_Group g, g2;

	n = 0;
	for (r = 0; r < t_size; r += 2)
		want[n++] = r;
	MPI_OK(MPI_Group_range_incl(world, 1, evens, &g));
	check_members(g, n, want, "range_incl evens");
	MPI_OK(MPI_Group_free(&g));

	n = 0;
	for (r = 1; r < t_size; r += 2)
		want[n++] = r;
	MPI_OK(MPI_Group_range_excl(world, 1, evens, &g));
	check_members(g, n, want, "range_excl evens");
	MPI_OK(MPI_Group_free(&g));

	for (r = 0; r < t_size; r++)
		want[r] = t_size - 1 - r;
	MPI_OK(MPI_Group_range_incl(world, 1, rev, &g));
	check_members(g, t_size, want, "range_incl reversed");
	MPI_OK(MPI_Group_compare(world, g, &cmp));
	CHECK(cmp == (t_size > 1 ? MPI_SIMILAR : MPI_IDENT), "reversed compares %d", cmp);
	/* Translating back and forth. */
	for (r = 0; r < t_size; r++)
		in[r] = r;
	MPI_OK(MPI_Group_translate_ranks(g, t_size, in, world, want));
	for (r = 0; r < t_size; r++)
		CHECK(want[r] == t_size - 1 - r, "translate rank %d -> %d", r, want[r]);
	MPI_OK(MPI_Group_free(&g));

	if (t_size >= 2) {
		n = 0;
		for (r = t_size - 1; r >= t_size / 2; r -= 2)
			want[n++] = r;
		for (r = 0; r <= t_size / 2 - 1; r++)
			want[n++] = r;
		MPI_OK(MPI_Group_range_incl(world, 2, two, &g));
		check_members(g, n, want, "range_incl two triplets");
		/* excl of the same ranks = what is left, in world order */
		MPI_OK(MPI_Group_range_excl(world, 2, two, &g2));
		n = 0;
		for (r = 0; r < t_size; r++) {
			MPI_OK(MPI_Group_translate_ranks(world, 1, &r, g, &i));
			if (i == MPI_UNDEFINED)
				want[n++] = r;
		}
		check_members(g2, n, want, "range_excl two triplets");
		MPI_OK(MPI_Group_free(&g));
		MPI_OK(MPI_Group_free(&g2));
	}
}

static void translate_and_excl(void)
{
	int want[MAXN], in[4], out[4], n = 0, r;
	MPI_Group g;

	/* excl of rank 0: everyone else, in order. */
	r = 0;
	MPI_OK(MPI_Group_excl(world, 1, &r, &g));
	for (r = 1; r < t_size; r++)
		want[n++] = r;
	check_members(g, n, want, "excl 0");
	in[0] = MPI_PROC_NULL;
	in[1] = 0;
	in[2] = t_size - 1;
	MPI_OK(MPI_Group_translate_ranks(world, 3, in, g, out));
	CHECK(out[0] == MPI_PROC_NULL, "PROC_NULL translated to %d", out[0]);
	CHECK(out[1] == MPI_UNDEFINED, "rank 0 is in excl 0 as %d", out[1]);
	CHECK(out[2] == (t_size > 1 ? t_size - 2 : MPI_UNDEFINED),
	      "last rank translated to %d", out[2]);
	MPI_OK(MPI_Group_compare(world, g, &r));
	CHECK(r == MPI_UNEQUAL, "world vs excl 0: %d", r);
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Group_translate_ranks(world, 0, NULL, world, NULL));
}

static void empty(void)
{
	MPI_Group g, e = MPI_GROUP_EMPTY;
	int n, r;

	MPI_OK(MPI_Group_size(MPI_GROUP_EMPTY, &n));
	MPI_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
	CHECK(n == 0 && r == MPI_UNDEFINED, "empty group: size %d rank %d", n, r);
	MPI_OK(MPI_Group_incl(world, 0, NULL, &g));
	CHECK(g == MPI_GROUP_EMPTY, "incl of nothing");
	MPI_OK(MPI_Group_compare(g, MPI_GROUP_EMPTY, &r));
	CHECK(r == MPI_IDENT, "empty vs empty: %d", r);
	MPI_OK(MPI_Group_union(g, world, &g));
	MPI_OK(MPI_Group_compare(g, world, &r));
	CHECK(r == MPI_IDENT, "empty union world: %d", r);
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Group_free(&e));
	CHECK(e == MPI_GROUP_NULL, "freeing MPI_GROUP_EMPTY's handle");
	MPI_OK(MPI_Group_size(MPI_GROUP_EMPTY, &n));
}

static void bad_arguments(void)
{
	int r[3] = { 0, 0, 0 }, out[3], n;
	int bad_stride[1][3] = { { 0, 0, 0 } };
	int bad_range[1][3] = { { 0, t_size, 1 } };
	int away[1][3] = { { t_size - 1, 0, 1 } };
	MPI_Group g = MPI_GROUP_NULL, gn = MPI_GROUP_NULL;

	T_EXPECT(MPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP, "size of GROUP_NULL");
	T_EXPECT(MPI_Group_rank((MPI_Group)(void *)&n, &n), MPI_ERR_GROUP, "rank of junk");
	T_EXPECT(MPI_Group_free(&gn), MPI_ERR_GROUP, "free GROUP_NULL");
	T_EXPECT(MPI_Group_size(world, NULL), MPI_ERR_ARG, "size NULL");
	T_EXPECT(MPI_Group_union(world, MPI_GROUP_NULL, &g), MPI_ERR_GROUP, "union with NULL");
	T_EXPECT(MPI_Group_compare(MPI_GROUP_NULL, world, &n), MPI_ERR_GROUP, "compare NULL");
	r[0] = t_size;
	T_EXPECT(MPI_Group_incl(world, 1, r, &g), MPI_ERR_RANK, "incl rank = size");
	r[0] = -1;
	T_EXPECT(MPI_Group_excl(world, 1, r, &g), MPI_ERR_RANK, "excl rank -1");
	r[0] = 0;
	T_EXPECT(MPI_Group_incl(world, 2, r, &g), MPI_ERR_RANK, "incl with a repeat");
	T_EXPECT(MPI_Group_excl(world, 2, r, &g), MPI_ERR_RANK, "excl with a repeat");
	T_EXPECT(MPI_Group_incl(world, -1, r, &g), MPI_ERR_ARG, "incl n -1");
	T_EXPECT(MPI_Group_incl(world, 1, NULL, &g), MPI_ERR_ARG, "incl NULL ranks");
	T_EXPECT(MPI_Group_incl(world, 1, r, NULL), MPI_ERR_ARG, "incl NULL newgroup");
	T_EXPECT(MPI_Group_range_incl(world, 1, bad_stride, &g), MPI_ERR_ARG, "stride 0");
	T_EXPECT(MPI_Group_range_excl(world, 1, bad_range, &g), MPI_ERR_RANK, "range past the end");
	if (t_size > 1)
		T_EXPECT(MPI_Group_range_incl(world, 1, away, &g), MPI_ERR_ARG,
			 "range leading away");
	{
		int twice[2][3] = { { 0, 0, 1 }, { 0, t_size - 1, 1 } };

		T_EXPECT(MPI_Group_range_incl(world, 2, twice, &g), MPI_ERR_RANK,
			 "ranges with a repeat");
	}
	r[0] = t_size;
	T_EXPECT(MPI_Group_translate_ranks(world, 1, r, world, out), MPI_ERR_RANK,
		 "translate rank = size");
	T_EXPECT(MPI_Group_translate_ranks(world, -2, r, world, out), MPI_ERR_ARG,
		 "translate n -2");
	T_EXPECT(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM, "group of COMM_NULL");
	CHECK(g == MPI_GROUP_NULL, "a failed call made a group");
}

int main(int argc, char **argv)
{
	int n, r, want[MAXN];
	MPI_Group self;

	t_init(&argc, &argv);
	CHECK(t_size <= MAXN, "at most %d ranks", MAXN);
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
	MPI_OK(MPI_Group_size(world, &n));
	MPI_OK(MPI_Group_rank(world, &r));
	CHECK(n == t_size && r == t_rank, "world group: size %d rank %d", n, r);
	for (r = 0; r < t_size; r++)
		want[r] = r;
	check_members(world, t_size, want, "world");
	MPI_OK(MPI_Comm_group(MPI_COMM_SELF, &self));
	check_members(self, 1, &t_rank, "self");
	MPI_OK(MPI_Group_compare(self, world, &r));
	CHECK(r == (t_size == 1 ? MPI_IDENT : MPI_UNEQUAL), "self vs world: %d", r);
	MPI_OK(MPI_Group_free(&self));

	set_ops_model();
	ranges();
	translate_and_excl();
	empty();
	bad_arguments();
	MPI_OK(MPI_Group_free(&world));
	return t_done();
}
