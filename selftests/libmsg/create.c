// SPDX-License-Identifier: MIT
/*
 * MPI_Comm_create and MPI_Comm_create_group on subsets: members, ranks
 * in group order and traffic; non-members get MPI_COMM_NULL;
 * create_group by disjoint groups at the same time while user messages
 * with the same tag cross between them on the parent; create_group over
 * overlapping windows in sequence with one tag; context ids agreed by
 * disjoint halves that created different numbers of communicators stay
 * apart; bad groups and tags give MPI_ERR_GROUP / MPI_ERR_TAG.
 */
#include "comm_util.h"

static MPI_Group world;

static MPI_Group parity_group(int parity)
{
	int range[1][3] = { { parity, t_size - 1, 2 } };
	MPI_Group g;

	if (parity >= t_size)
		return MPI_GROUP_EMPTY;
	MPI_OK(MPI_Group_range_incl(world, 1, range, &g));
	return g;
}

static int parity_members(int parity, int *want)
{
	int n = 0, r;

	for (r = parity; r < t_size; r += 2)
		want[n++] = r;
	return n;
}

static void create_evens(void)
{
	MPI_Group evens = parity_group(0), g = MPI_GROUP_EMPTY;
	int want[MAXN], n = parity_members(0, want);
	MPI_Comm c = MPI_COMM_WORLD;

	MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
	if (t_rank % 2) {
		CHECK(c == MPI_COMM_NULL, "odd rank got a communicator");
	} else {
		t_check_comm(c, n, want, "create evens");
		MPI_OK(MPI_Comm_free(&c));
	}
	MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
	CHECK(c == MPI_COMM_NULL, "MPI_GROUP_EMPTY gave a communicator");
	MPI_OK(MPI_Group_free(&evens));
}

/*
 * Evens and odds each create_group with tag 5 at the same time; each
 * rank's partner (rank ^ 1) is of the other parity and has sent it a
 * message with tag 5 on WORLD first.
 */
static void create_group_disjoint(void)
{
	int par = t_rank % 2, want[MAXN], n = parity_members(par, want),
	    p = t_partner(), mine = 500 + t_rank, v = -1;
	MPI_Group g = parity_group(par);
	MPI_Request s;
	MPI_Status st;
	MPI_Comm c;

	MPI_OK(MPI_Isend(&mine, 1, MPI_INT, p, 5, MPI_COMM_WORLD, &s));
	MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &c));
	t_check_comm(c, n, want, "create_group by parity");
	MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st));
	CHECK(v == 500 + p && st.MPI_SOURCE == p, "world message: %d from %d",
	      v, st.MPI_SOURCE);
	MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Group_free(&g));
}

/*
 * Windows {i, i+1}: each rank joins its two in order, all with tag 0;
 * then one message each way on every window, with the same tag and
 * wildcard receives: each arrives on its own window.
 */
static void create_group_windows(void)
{
	MPI_Comm c[2] = { MPI_COMM_NULL, MPI_COMM_NULL };
	int i, k = 0, want[2], v[2], mine[2], win[2], me;
	MPI_Request rq[4];
	MPI_Group g;

	for (i = 0; i + 1 < t_size; i++) {
		if (t_rank != i && t_rank != i + 1)
			continue;
		want[0] = i;
		want[1] = i + 1;
		MPI_OK(MPI_Group_incl(world, 2, want, &g));
		MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c[k]));
		t_check_comm(c[k], 2, want, "window");
		win[k++] = i;
		MPI_OK(MPI_Group_free(&g));
	}
	for (i = 0; i < k; i++) {
		mine[i] = 1000 * (win[i] + 1) + t_rank;
		MPI_OK(MPI_Comm_rank(c[i], &me));
		MPI_OK(MPI_Irecv(&v[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c[i],
				 &rq[2 * i]));
		MPI_OK(MPI_Isend(&mine[i], 1, MPI_INT, 1 - me, 3, c[i], &rq[2 * i + 1]));
	}
	MPI_OK(MPI_Waitall(2 * k, rq, MPI_STATUSES_IGNORE));
	for (i = 0; i < k; i++) {
		int peer = t_rank == win[i] ? win[i] + 1 : win[i];

		CHECK(v[i] == 1000 * (win[i] + 1) + peer,
		      "window %d got %d, expected from world rank %d", win[i], v[i], peer);
		MPI_OK(MPI_Comm_free(&c[i]));
	}
}

/* The whole world in reverse, by create_group on a duplicate. */
static void create_group_reversed(void)
{
	int want[MAXN], i;
	MPI_Group g;
	MPI_Comm d, c;

	for (i = 0; i < t_size; i++)
		want[i] = t_size - 1 - i;
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
	MPI_OK(MPI_Group_incl(world, t_size, want, &g));
	MPI_OK(MPI_Comm_create_group(d, g, MPI_TAG_UB_VALUE, &c));
	t_check_comm(c, t_size, want, "create_group reversed");
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Comm_create(d, g, &c));
	t_check_comm(c, t_size, want, "create reversed");
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Comm_free(&d));
	MPI_OK(MPI_Group_free(&g));
}

/*
 * The low half makes three communicators, the high half one, at the
 * same time; then a communicator over everyone gets an id free on all,
 * and messages on all of them with one tag stay apart.
 */
static void halves(void)
{
	int lo = t_rank < t_size / 2 || t_size == 1, want[MAXN] = { 0 }, hw[MAXN], i, n,
	    k = lo ? 3 : 1, v, hv, p;
	MPI_Comm half, sub[3], all;
	MPI_Request rq[2];

	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, lo, t_rank, &half));
	n = t_comm_members(half, hw);
	for (i = 0; i < k; i++)
		MPI_OK(MPI_Comm_dup(half, &sub[i]));
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &all));
	for (i = 0; i < t_size; i++)
		want[i] = i;
	t_check_comm(all, t_size, want, "all after halves");
	for (i = 0; i < k; i++)
		t_check_comm(sub[i], n, hw, "half's own");
	/* Next rank in the world on all, next in the half on sub[0]. */
	MPI_OK(MPI_Comm_rank(half, &p));
	MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, all, &rq[0]));
	MPI_OK(MPI_Irecv(&hv, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, sub[0], &rq[1]));
	MPI_OK(MPI_Send(&t_rank, 1, MPI_INT, (p + 1) % n, 8, sub[0]));
	MPI_OK(MPI_Send(&t_rank, 1, MPI_INT, (t_rank + 1) % t_size, 8, all));
	MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	CHECK(v == (t_rank + t_size - 1) % t_size, "all: got %d", v);
	CHECK(hv == hw[(p + n - 1) % n], "half: got %d", hv);
	for (i = 0; i < k; i++)
		MPI_OK(MPI_Comm_free(&sub[i]));
	MPI_OK(MPI_Comm_free(&all));
	MPI_OK(MPI_Comm_free(&half));
}

static void bad_arguments(void)
{
	MPI_Comm c = MPI_COMM_NULL, self_dup;
	MPI_Group g = parity_group(0);

	T_EXPECT(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP,
		 "create with GROUP_NULL");
	T_EXPECT(MPI_Comm_create_group(MPI_COMM_WORLD, g, -1, &c), MPI_ERR_TAG,
		 "create_group tag -1");
	T_EXPECT(MPI_Comm_create_group(MPI_COMM_NULL, g, 0, &c), MPI_ERR_COMM,
		 "create_group on COMM_NULL");
	T_EXPECT(MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, NULL), MPI_ERR_ARG,
		 "create_group into NULL");
	MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &self_dup));
	MPI_OK(MPI_Comm_set_errhandler(self_dup, MPI_ERRORS_RETURN));
	if (t_size > 1) {
		T_EXPECT(MPI_Comm_create_group(self_dup, world, 0, &c), MPI_ERR_GROUP,
			 "a group larger than the communicator");
		T_EXPECT(MPI_Comm_create(self_dup, world, &c), MPI_ERR_GROUP,
			 "create: group not in the communicator");
	}
	CHECK(c == MPI_COMM_NULL, "a failed call made a communicator");
	MPI_OK(MPI_Comm_free(&self_dup));
	if (g != MPI_GROUP_EMPTY)
		MPI_OK(MPI_Group_free(&g));
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	CHECK(t_size <= MAXN, "at most %d ranks", MAXN);
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
	create_evens();
	create_group_disjoint();
	create_group_windows();
	create_group_reversed();
	halves();
	bad_arguments();
	MPI_OK(MPI_Group_free(&world));
	return t_done();
}
