// SPDX-License-Identifier: MIT
/*
 * Active target with post/start/complete/wait (PSCW), on each window
 * flavor:
 *   - a ring: each rank exposes its memory to its left-hand neighbour
 *     and accesses its right-hand one's at the same time (an access and
 *     an exposure epoch open together), puts and gets, and finds the
 *     data after MPI_Win_wait; the same with MPI_Win_test polled;
 *   - rank 0 exposed to every other rank, which accumulate into it:
 *     the sums after MPI_Win_wait; the same with MPI_MODE_NOCHECK on
 *     both sides (the program orders post before start with a barrier);
 *   - a store the target made before MPI_Win_post is what the
 *     origin's MPI_Get reads;
 *   - an empty group; an operation on a rank outside the access group,
 *     MPI_Win_complete without MPI_Win_start and MPI_Win_wait without
 *     MPI_Win_post are MPI_ERR_RMA_SYNC.
 */
#include "rma_util.h"

#define BLK 8

static MPI_Group world_group;

static MPI_Group group_of(int n, const int *ranks)
{
	MPI_Group g;

	MPI_OK(MPI_Group_incl(world_group, n, ranks, &g));
	return g;
}

static void ring(struct t_win *w, int poll)
{
	const char *f = t_flavor_name[w->flavor];
	int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
	int *mem = w->base, src[BLK], got[BLK], i, flag = 0, polls = 0;
	MPI_Group gl = group_of(1, &left), gr = group_of(1, &right);

	for (i = 0; i < BLK; i++) {
		mem[BLK + i] = t_rank * 10 + i;	/* for the right-hand get */
		src[i] = t_rank * 1000 + i;
	}
	MPI_OK(MPI_Win_post(gl, 0, w->win));
	MPI_OK(MPI_Win_start(gr, 0, w->win));
	MPI_OK(MPI_Put(src, BLK, MPI_INT, right, t_disp(w, right, 0), BLK,
		       MPI_INT, w->win));
	MPI_OK(MPI_Get(got, BLK, MPI_INT, right, t_disp(w, right, BLK * 4),
		       BLK, MPI_INT, w->win));
	MPI_OK(MPI_Win_complete(w->win));
	for (i = 0; i < BLK; i++)
		CHECK(got[i] == right * 10 + i, "%s: got %d from rank %d", f,
		      got[i], right);
	if (poll) {
		while (!flag) {
			MPI_OK(MPI_Win_test(w->win, &flag));
			polls++;
		}
	} else {
		MPI_OK(MPI_Win_wait(w->win));
	}
	for (i = 0; i < BLK; i++)
		CHECK(mem[i] == left * 1000 + i, "%s: int %d from rank %d is %d",
		      f, i, left, mem[i]);
	T_EXPECT(MPI_Win_wait(w->win), MPI_ERR_RMA_SYNC,
		 "%s: a second MPI_Win_wait", f);
	MPI_OK(MPI_Group_free(&gl));
	MPI_OK(MPI_Group_free(&gr));
	MPI_OK(MPI_Barrier(w->comm));
}

static void many_to_one(struct t_win *w, int nocheck)
{
	const char *f = t_flavor_name[w->flavor];
	int *others = malloc(sizeof(int) * (size_t)t_size), n = 0, r, i;
	long long *mem = w->base, v[BLK];
	MPI_Group g;

	for (r = 1; r < t_size; r++)
		others[n++] = r;
	memset(mem, 0, BLK * sizeof(*mem));
	MPI_OK(MPI_Barrier(w->comm));
	if (t_rank == 0) {
		g = group_of(n, others);
		MPI_OK(MPI_Win_post(g, nocheck ? MPI_MODE_NOCHECK : 0, w->win));
		if (nocheck)
			MPI_OK(MPI_Barrier(w->comm));
		MPI_OK(MPI_Win_wait(w->win));
		for (i = 0; i < BLK; i++)
			CHECK(mem[i] == (long long)(i + 1) * (t_size * (t_size + 1) / 2 - 1),
			      "%s%s: sum %d is %lld", f,
			      nocheck ? " (NOCHECK)" : "", i, mem[i]);
	} else {
		int zero = 0;

		g = group_of(1, &zero);
		if (nocheck)
			MPI_OK(MPI_Barrier(w->comm));
		MPI_OK(MPI_Win_start(g, nocheck ? MPI_MODE_NOCHECK : 0, w->win));
		for (i = 0; i < BLK; i++)
			v[i] = (t_rank + 1) * (i + 1);
		MPI_OK(MPI_Accumulate(v, BLK, MPI_LONG_LONG, 0, t_disp(w, 0, 0),
				      BLK, MPI_LONG_LONG, MPI_SUM, w->win));
		if (t_size > 2) {
			/* Rank 2 is not in this access group. */
			T_EXPECT(MPI_Put(v, 1, MPI_LONG_LONG, t_size - 1 == t_rank ? 1 : 2,
					 0, 1, MPI_LONG_LONG, w->win),
				 MPI_ERR_RMA_SYNC, "%s: MPI_Put to a rank outside the group", f);
		}
		MPI_OK(MPI_Win_complete(w->win));
	}
	MPI_OK(MPI_Group_free(&g));
	free(others);
	MPI_OK(MPI_Barrier(w->comm));
}

static void empty(struct t_win *w)
{
	MPI_OK(MPI_Win_post(MPI_GROUP_EMPTY, 0, w->win));
	MPI_OK(MPI_Win_start(MPI_GROUP_EMPTY, 0, w->win));
	MPI_OK(MPI_Win_complete(w->win));
	MPI_OK(MPI_Win_wait(w->win));
	T_EXPECT(MPI_Win_complete(w->win), MPI_ERR_RMA_SYNC,
		 "%s: MPI_Win_complete without MPI_Win_start",
		 t_flavor_name[w->flavor]);
}

int main(int argc, char **argv)
{
	struct t_win w;
	int f;

	t_init(&argc, &argv);
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
	for (f = 0; f < T_FLAVORS; f++) {
		t_win_make(&w, f, 4 * BLK * 8, 4, MPI_COMM_WORLD);
		ring(&w, 0);
		ring(&w, 1);
		many_to_one(&w, 0);
		many_to_one(&w, 1);
		empty(&w);
		t_win_free(&w);
	}
	MPI_OK(MPI_Group_free(&world_group));
	if (t_rank == 0)
		printf("rma_pscw: ok\n");
	return t_done();
}
