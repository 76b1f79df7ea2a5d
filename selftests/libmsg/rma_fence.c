// SPDX-License-Identifier: MIT
/*
 * Active target with MPI_Win_fence, on each window flavor:
 *   - every rank puts a block into every rank's memory between two
 *     fences (the first MPI_MODE_NOPRECEDE), and each finds all of
 *     them after the second;
 *   - what a rank stores into its own memory before a fence is what
 *     the others' MPI_Get read after it (MPI_MODE_NOSTORE and
 *     MPI_MODE_NOPUT on the fences that allow them);
 *   - every rank accumulates into rank 0 in one epoch: the sums;
 *   - several epochs in a row, each seeing the last one's data; the
 *     last fence MPI_MODE_NOSUCCEED, after which an operation is
 *     MPI_ERR_RMA_SYNC until the next fence;
 *   - a fence epoch with no operation may be followed by a lock (and a
 *     used one may not: MPI_ERR_RMA_SYNC);
 *   - a bad assertion is MPI_ERR_ASSERT.
 */
#include "rma_util.h"

#define BLK 16			/* ints each rank puts into each rank */

static void all_to_all(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	int *mem = w->base, src[BLK], r, i, round;

	MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w->win));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < BLK; i++)
			src[i] = round * 100000 + t_rank * 1000 + i;
		for (r = 0; r < t_size; r++)
			MPI_OK(MPI_Put(src, BLK, MPI_INT, r,
				       t_disp(w, r, (size_t)t_rank * BLK * 4),
				       BLK, MPI_INT, w->win));
		MPI_OK(MPI_Win_fence(0, w->win));
		for (r = 0; r < t_size; r++)
			for (i = 0; i < BLK; i++)
				CHECK(mem[r * BLK + i] == round * 100000 + r * 1000 + i,
				      "%s: round %d: from rank %d, int %d is %d", f,
				      round, r, i, mem[r * BLK + i]);
		/* Everyone has looked before the next round writes. */
		MPI_OK(MPI_Win_fence(MPI_MODE_NOPUT | MPI_MODE_NOSTORE, w->win));
	}
	MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
}

static void local_then_get(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	int *mem = w->base, got[BLK], r = (t_rank + 1) % t_size, i;

	/* Local stores, then a fence: the others read them. */
	MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w->win));
	for (i = 0; i < BLK; i++)
		mem[i] = t_rank * 7 + i;
	MPI_OK(MPI_Win_fence(MPI_MODE_NOPUT, w->win));
	MPI_OK(MPI_Get(got, BLK, MPI_INT, r, t_disp(w, r, 0), BLK, MPI_INT,
		       w->win));
	MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE, w->win));
	for (i = 0; i < BLK; i++)
		CHECK(got[i] == r * 7 + i, "%s: got %d from rank %d, int %d",
		      f, got[i], r, i);
}

static void accumulate(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	long long *mem = w->base, v[BLK];
	int i;

	MPI_OK(MPI_Win_fence(0, w->win));
	memset(mem, 0, BLK * sizeof(*mem));
	MPI_OK(MPI_Win_fence(0, w->win));
	for (i = 0; i < BLK; i++)
		v[i] = (t_rank + 1) * (i + 1);
	MPI_OK(MPI_Accumulate(v, BLK, MPI_LONG_LONG, 0, t_disp(w, 0, 0), BLK,
			      MPI_LONG_LONG, MPI_SUM, w->win));
	MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
	if (t_rank == 0)
		for (i = 0; i < BLK; i++)
			CHECK(mem[i] == (long long)(i + 1) * t_size * (t_size + 1) / 2,
			      "%s: sum %d is %lld", f, i, mem[i]);
}

static void epochs(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	int x = 1, i;

	/* After NOSUCCEED: no epoch. */
	T_EXPECT(MPI_Put(&x, 1, MPI_INT, 0, t_disp(w, 0, 0), 1, MPI_INT, w->win),
		 MPI_ERR_RMA_SYNC, "%s: MPI_Put after a fence with MPI_MODE_NOSUCCEED", f);
	/* A fence epoch nobody used may be followed by a lock. */
	MPI_OK(MPI_Win_fence(0, w->win));
	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));
	MPI_OK(MPI_Get(&i, 1, MPI_INT, 0, t_disp(w, 0, 0), 1, MPI_INT, w->win));
	MPI_OK(MPI_Win_unlock(0, w->win));
	/* A used one may not. */
	MPI_OK(MPI_Win_fence(0, w->win));
	MPI_OK(MPI_Get(&i, 1, MPI_INT, 0, t_disp(w, 0, 0), 1, MPI_INT, w->win));
	T_EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win), MPI_ERR_RMA_SYNC,
		 "%s: MPI_Win_lock in a fence epoch with operations", f);
	T_EXPECT(MPI_Win_fence(1, w->win), MPI_ERR_ASSERT,
		 "%s: MPI_Win_fence with assert 1", f);
	MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
}

int main(int argc, char **argv)
{
	struct t_win w;
	int f;

	t_init(&argc, &argv);
	for (f = 0; f < T_FLAVORS; f++) {
		t_win_make(&w, f, (size_t)t_size * BLK * 8, 4, MPI_COMM_WORLD);
		all_to_all(&w);
		local_then_get(&w);
		accumulate(&w);
		epochs(&w);
		t_win_free(&w);
	}
	if (t_rank == 0)
		printf("rma_fence: ok\n");
	return t_done();
}
