// SPDX-License-Identifier: MIT
/*
 * MPI_Comm_split and MPI_Comm_split_type: colours with reversed keys,
 * MPI_UNDEFINED (MPI_COMM_NULL), equal keys (parent order breaks the
 * tie), extreme keys, a split of a split, split_type SHARED (all ranks)
 * compared with MPI_COMM_WORLD; members, ranks and a message ring on
 * each result; bad colour and split type give MPI_ERR_ARG.  MPI-4.0's
 * HW_GUIDED: "mpi_shared_memory" gives every rank, another resource
 * MPI_COMM_NULL, no key MPI_ERR_INFO; HW_UNGUIDED MPI_COMM_NULL (no
 * level below the machine).
 */
#include <limits.h>

#include "comm_util.h"

/* World ranks w with colour(w) == colour(me), ordered by (key, w). */
static int expected(int (*colour)(int), int (*key)(int), int *want)
{
	int n = 0, i, j, t;

	for (i = 0; i < t_size; i++)
		if (colour(i) == colour(t_rank))
			want[n++] = i;
	for (i = 1; i < n; i++)	/* insertion sort: stable on ties */
		for (j = i; j > 0 && key(want[j]) < key(want[j - 1]); j--) {
			t = want[j];
			want[j] = want[j - 1];
			want[j - 1] = t;
		}
	return n;
}

static int mod3(int r) { return r % 3; }
static int neg(int r) { return -r; }
static int one_out(int r) { return r == 1 ? MPI_UNDEFINED : 0; }
static int zero(int r) { (void)r; return 0; }
static int half(int r) { return (t_size - r) / 2; }
static int extreme(int r) { return r % 2 ? INT_MAX : INT_MIN; }

static void split_case(int (*colour)(int), int (*key)(int), const char *what)
{
	int want[MAXN], n;
	MPI_Comm c = MPI_COMM_WORLD;

	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, colour(t_rank), key(t_rank), &c));
	if (colour(t_rank) == MPI_UNDEFINED) {
		CHECK(c == MPI_COMM_NULL, "%s: MPI_UNDEFINED gave a communicator", what);
		return;
	}
	n = expected(colour, key, want);
	t_check_comm(c, n, want, what);
	MPI_OK(MPI_Comm_free(&c));
	CHECK(c == MPI_COMM_NULL, "%s: free did not clear the handle", what);
}

/* Split a split: by parity of the rank in the first, key = -rank. */
static void split_of_split(void)
{
	int want[MAXN], mine[MAXN], n, m = 0, r, i;
	MPI_Comm a, b;

	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &a));
	n = t_comm_members(a, mine);
	MPI_OK(MPI_Comm_rank(a, &r));
	MPI_OK(MPI_Comm_split(a, r % 2, -r, &b));
	for (i = n - 1; i >= 0; i--)
		if (i % 2 == r % 2)
			want[m++] = mine[i];
	t_check_comm(b, m, want, "split of a split");
	t_check_comm(a, n, mine, "the first split, after");
	MPI_OK(MPI_Comm_free(&b));
	MPI_OK(MPI_Comm_free(&a));
}

static void split_type(void)
{
	int want[MAXN], i, cmp;
	MPI_Info info;
	MPI_Comm c;

	for (i = 0; i < t_size; i++)
		want[i] = i;
	MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
				   MPI_INFO_NULL, &c));
	t_check_comm(c, t_size, want, "split_type shared");
	MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, c, &cmp));
	CHECK(cmp == MPI_CONGRUENT, "shared vs world: %d", cmp);
	MPI_OK(MPI_Comm_free(&c));

	for (i = 0; i < t_size; i++)
		want[i] = t_size - 1 - i;
	MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -t_rank,
				   MPI_INFO_NULL, &c));
	t_check_comm(c, t_size, want, "split_type shared reversed");
	MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, c, &cmp));
	CHECK(cmp == (t_size > 1 ? MPI_SIMILAR : MPI_CONGRUENT),
	      "reversed shared vs world: %d", cmp);
	MPI_OK(MPI_Comm_free(&c));

	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
	for (i = 0; i < t_size; i++)
		want[i] = t_size - 1 - i;
	MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED,
				   -t_rank, info, &c));
	t_check_comm(c, t_size, want, "split_type hw_guided shared memory");
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Info_set(info, "mpi_hw_resource_type", "hwloc://L3Cache"));
	c = MPI_COMM_WORLD;
	MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0,
				   info, &c));
	CHECK(c == MPI_COMM_NULL, "an unknown resource gave a communicator");
	MPI_OK(MPI_Info_free(&info));
	c = MPI_COMM_WORLD;
	MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0,
				   MPI_INFO_NULL, &c));
	CHECK(c == MPI_COMM_NULL, "HW_UNGUIDED gave a communicator");
	T_EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0,
				     MPI_INFO_NULL, &c), MPI_ERR_INFO,
		 "HW_GUIDED without a resource type");

	c = MPI_COMM_WORLD;
	MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD,
				   t_rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
				   0, MPI_INFO_NULL, &c));
	if (t_rank % 2) {
		CHECK(c == MPI_COMM_NULL, "split_type UNDEFINED gave a communicator");
	} else {
		for (i = 0; 2 * i < t_size; i++)
			want[i] = 2 * i;
		t_check_comm(c, (t_size + 1) / 2, want, "split_type shared, evens");
		MPI_OK(MPI_Comm_free(&c));
	}
}

static void bad_arguments(void)
{
	MPI_Comm c = MPI_COMM_NULL;

	T_EXPECT(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG, "colour -5");
	T_EXPECT(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c), MPI_ERR_COMM, "split of COMM_NULL");
	T_EXPECT(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL), MPI_ERR_ARG, "newcomm NULL");
	T_EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c),
		 MPI_ERR_ARG, "split_type 12345");
	CHECK(c == MPI_COMM_NULL, "a failed split made a communicator");
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	CHECK(t_size <= MAXN, "at most %d ranks", MAXN);
	split_case(mod3, neg, "colour rank%3, key -rank");
	split_case(one_out, zero, "rank 1 undefined, equal keys");
	split_case(zero, half, "one colour, tied keys");
	split_case(zero, extreme, "extreme keys");
	split_case(mod3, zero, "colour rank%3, equal keys");
	split_of_split();
	split_type();
	bad_arguments();
	return t_done();
}
