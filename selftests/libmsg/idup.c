// SPDX-License-Identifier: MIT
/*
 * MPI_Comm_idup is nonblocking: it returns before the other processes
 * have called it, and the agreement on the new communicator's context
 * id completes under MPI_Test or MPI_Wait.
 *   - Rank 0 starts an idup that stays incomplete (MPI_Test) until it
 *     tells the others, by a message, to start theirs.
 *   - Two idups on different parents, started in opposite orders on
 *     even and odd ranks, then waited for together (a blocking idup
 *     deadlocks here).
 *   - Idups pending on one parent while blocking creations on it run
 *     (dup, split, create, create_group, dup_with_info, and idups of
 *     MPI_COMM_SELF), completed in reverse order by MPI_Testany.
 *   - MPI_Comm_create_group then an idup on even ranks, the idup then
 *     MPI_Comm_create_group on odd ranks.
 *   - An idup's parent freed before it completes; attributes copied by
 *     the idup call; MPI_Comm_idup_with_info.
 * Every new communicator holds the right ranks and carries its own
 * traffic (a ring with MPI_ANY_SOURCE, checked by t_check_comm).
 */
#include "comm_util.h"

static int want[MAXN];

/* Rank 0's idup waits, incomplete, for the others to start theirs. */
static void before_the_others(void)
{
	MPI_Comm c = MPI_COMM_NULL;
	MPI_Request r;
	int flag = 0, i, go = 1;

	if (t_rank == 0) {
		MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
		for (i = 0; i < 100 && t_size > 1; i++) {
			MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
			CHECK(!flag, "idup complete before the others called it");
		}
		for (i = 1; i < t_size; i++)
			MPI_OK(MPI_Send(&go, 1, MPI_INT, i, 3, MPI_COMM_WORLD));
		while (!flag)
			MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
	} else {
		MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	}
	CHECK(r == MPI_REQUEST_NULL, "completed idup left its request");
	t_check_comm(c, t_size, want, "idup before the others");
	MPI_OK(MPI_Comm_free(&c));
}

/* idup(a), idup(b) on even ranks; idup(b), idup(a) on odd ones. */
static void crossed(void)
{
	MPI_Comm a, b, na, nb;
	MPI_Request r[2];

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
	if (t_rank % 2 == 0) {
		MPI_OK(MPI_Comm_idup(a, &na, &r[0]));
		MPI_OK(MPI_Comm_idup(b, &nb, &r[1]));
	} else {
		MPI_OK(MPI_Comm_idup(b, &nb, &r[1]));
		MPI_OK(MPI_Comm_idup(a, &na, &r[0]));
	}
	MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
	t_check_comm(na, t_size, want, "crossed idup of a");
	t_check_comm(nb, t_size, want, "crossed idup of b");
	MPI_OK(MPI_Comm_free(&na));
	MPI_OK(MPI_Comm_free(&nb));
	MPI_OK(MPI_Comm_free(&a));
	MPI_OK(MPI_Comm_free(&b));
}

/* Idups pending on WORLD while blocking creations on it run. */
static void overlapped(void)
{
	enum { N = 4 };
	MPI_Comm pend[N], self[2], d, s, c, g;
	MPI_Request r[N + 2];
	MPI_Group wg, evens;
	int i, idx, flag, done = 0, nev = (t_size + 1) / 2, ev[MAXN], rank;

	for (i = 0; i < N; i++)
		MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &pend[i], &r[i]));
	MPI_OK(MPI_Comm_idup(MPI_COMM_SELF, &self[0], &r[N]));
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, -t_rank, &s));
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
	for (i = 0; i < nev; i++)
		ev[i] = 2 * i;
	MPI_OK(MPI_Group_incl(wg, nev, ev, &evens));
	MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
	g = MPI_COMM_NULL;
	if (t_rank % 2 == 0)
		MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &g));
	MPI_OK(MPI_Comm_idup(MPI_COMM_SELF, &self[1], &r[N + 1]));
	/* Completed in any order: the last ones first. */
	while (done < N + 2) {
		MPI_OK(MPI_Testany(N + 2, r, &idx, &flag, MPI_STATUS_IGNORE));
		if (flag && idx != MPI_UNDEFINED)
			done++;
	}
	for (i = 0; i < N; i++) {
		t_check_comm(pend[i], t_size, want, "pending idup");
		MPI_OK(MPI_Comm_free(&pend[i]));
	}
	for (i = 0; i < 2; i++) {
		t_check_comm(self[i], 1, &t_rank, "idup of MPI_COMM_SELF");
		MPI_OK(MPI_Comm_free(&self[i]));
	}
	t_check_comm(d, t_size, want, "dup beside idups");
	MPI_OK(MPI_Comm_rank(s, &rank));
	CHECK(rank == (t_size - 1 - t_rank) / 2, "split beside idups: rank %d",
	      rank);
	if (t_rank % 2 == 0) {
		t_check_comm(c, nev, ev, "create beside idups");
		t_check_comm(g, nev, ev, "create_group beside idups");
		MPI_OK(MPI_Comm_free(&c));
		MPI_OK(MPI_Comm_free(&g));
	} else {
		CHECK(c == MPI_COMM_NULL, "create gave a non-member a communicator");
	}
	MPI_OK(MPI_Comm_free(&d));
	MPI_OK(MPI_Comm_free(&s));
	MPI_OK(MPI_Group_free(&evens));
	MPI_OK(MPI_Group_free(&wg));
}

/* create_group and idup on WORLD, in opposite orders. */
static void group_then_idup(void)
{
	MPI_Comm g, c;
	MPI_Group wg;
	MPI_Request r;

	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
	if (t_rank % 2 == 0) {
		MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, wg, 0, &g));
		MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
	} else {
		MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
		MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, wg, 0, &g));
	}
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Barrier(c));
	MPI_OK(MPI_Barrier(g));
	t_check_comm(c, t_size, want, "idup after create_group");
	t_check_comm(g, t_size, want, "create_group beside idup");
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Comm_free(&g));
	MPI_OK(MPI_Group_free(&wg));
}

static int copies;

static int copy_fn(MPI_Comm old, int key, void *extra, void *in, void *out,
		   int *flag)
{
	(void)old;
	(void)key;
	(void)extra;
	copies++;
	*(void **)out = (char *)in + 1;
	*flag = 1;
	return MPI_SUCCESS;
}

/* Parent freed while pending; attributes; idup_with_info. */
static void parent_and_attributes(void)
{
	static char base[4];
	MPI_Comm p, c, w;
	MPI_Request r[2];
	void *val;
	int key, flag;

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &p));
	MPI_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key,
				      NULL));
	MPI_OK(MPI_Comm_set_attr(p, key, base));
	copies = 0;
	MPI_OK(MPI_Comm_idup(p, &c, &r[0]));
	CHECK(copies == 1, "the idup call ran %d copy callbacks", copies);
	MPI_OK(MPI_Comm_free(&p));	/* MPI lets the idup complete */
	MPI_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &w,
				       &r[1]));
	MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
	MPI_OK(MPI_Comm_get_attr(c, key, &val, &flag));
	CHECK(flag && val == base + 1, "idup's attribute: flag %d", flag);
	t_check_comm(c, t_size, want, "idup of a freed parent");
	t_check_comm(w, t_size, want, "idup_with_info");
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Comm_free(&w));
	MPI_OK(MPI_Comm_free_keyval(&key));
}

int main(int argc, char **argv)
{
	int i, round;

	t_init(&argc, &argv);
	CHECK(t_size <= MAXN, "at most %d ranks", MAXN);
	for (i = 0; i < t_size; i++)
		want[i] = i;
	for (round = 0; round < 3; round++) {
		before_the_others();
		crossed();
		overlapped();
		group_then_idup();
		parent_and_attributes();
	}
	return t_done();
}
