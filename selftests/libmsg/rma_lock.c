// SPDX-License-Identifier: MIT
/*
 * Passive target (MPI_Win_lock and friends), on each window flavor:
 *   - exclusive locks exclude each other: every rank increments rank
 *     0's counter with MPI_Get, +1, MPI_Put under an exclusive lock (not
 *     atomic by itself) for BUSY seconds: the count is exact;
 *   - shared locks are held together: every rank holds one on rank 0
 *     while all meet in a barrier (it would hang if they excluded each
 *     other);
 *   - an exclusive lock excludes shared ones: rank 1 holds rank 0
 *     exclusively, sleeps and writes; the others' shared lock waits
 *     for its unlock, and what they read is what rank 1 wrote;
 *   - MPI_Win_lock_all with MPI_Win_flush, flush_all, flush_local,
 *     flush_local_all between operations that depend on each other, and
 *     MPI_Win_sync;
 *   - MPI_MODE_NOCHECK, a lock of a rank's own memory, and
 *     MPI_PROC_NULL (no-ops).
 */
#include <time.h>
#include "rma_util.h"

#define ITERS 100
#define BUSY 0.3

static void counter(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	long long *mem = w->base, v, total, mine = 0;
	double t0 = MPI_Wtime();

	/* At it for BUSY seconds: all ranks overlap, however scheduled. */
	while (mine < ITERS || MPI_Wtime() - t0 < BUSY) {
		MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
		MPI_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, t_disp(w, 0, 0), 1,
			       MPI_LONG_LONG, w->win));
		MPI_OK(MPI_Win_flush(0, w->win));
		v++;
		MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, t_disp(w, 0, 0), 1,
			       MPI_LONG_LONG, w->win));
		MPI_OK(MPI_Win_unlock(0, w->win));
		mine++;
	}
	MPI_OK(MPI_Reduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, w->comm));
	MPI_OK(MPI_Barrier(w->comm));
	if (t_rank == 0) {
		MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));
		v = mem[0];
		MPI_OK(MPI_Win_unlock(0, w->win));
		CHECK(v == total, "%s: exclusive increments: %lld, expected %lld",
		      f, v, total);
	}
	MPI_OK(MPI_Barrier(w->comm));
}

static void shared_together(struct t_win *w)
{
	int x;

	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));
	MPI_OK(MPI_Barrier(w->comm));	/* all of them hold it now */
	MPI_OK(MPI_Get(&x, 1, MPI_INT, 0, t_disp(w, 0, 0), 1, MPI_INT, w->win));
	MPI_OK(MPI_Win_unlock(0, w->win));
	MPI_OK(MPI_Barrier(w->comm));
}

static void excl_then_shared(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	struct timespec nap = { 0, 100 * 1000 * 1000 };
	int v = 0, writer = t_size > 1 ? 1 : 0;

	if (t_rank == writer)
		MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
	MPI_OK(MPI_Barrier(w->comm));
	if (t_rank == writer) {
		nanosleep(&nap, NULL);
		v = 4711;
		MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, t_disp(w, 0, 8), 1, MPI_INT,
			       w->win));
		MPI_OK(MPI_Win_unlock(0, w->win));
	} else {
		MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));
		MPI_OK(MPI_Get(&v, 1, MPI_INT, 0, t_disp(w, 0, 8), 1, MPI_INT,
			       w->win));
		MPI_OK(MPI_Win_unlock(0, w->win));
		CHECK(v == 4711, "%s: the shared lock came before the exclusive one's unlock (read %d)",
		      f, v);
	}
	MPI_OK(MPI_Barrier(w->comm));
}

static void lock_all(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
	int *mem = w->base, v, got = -1, i;

	MPI_OK(MPI_Win_lock_all(0, w->win));
	for (i = 0; i < 10; i++) {
		v = t_rank * 100 + i;
		MPI_OK(MPI_Put(&v, 1, MPI_INT, right, t_disp(w, right, 16), 1,
			       MPI_INT, w->win));
		switch (i % 4) {
		case 0: MPI_OK(MPI_Win_flush(right, w->win)); break;
		case 1: MPI_OK(MPI_Win_flush_all(w->win)); break;
		case 2: MPI_OK(MPI_Win_flush_local(right, w->win)); break;
		default: MPI_OK(MPI_Win_flush_local_all(w->win)); break;
		}
		if (i % 4 < 2) {	/* complete at the target: read it back */
			MPI_OK(MPI_Get(&got, 1, MPI_INT, right,
				       t_disp(w, right, 16), 1, MPI_INT, w->win));
			MPI_OK(MPI_Win_flush(right, w->win));
			/* Only this rank writes there. */
			CHECK(got == v, "%s: read back %d after a flush, wrote %d",
			      f, got, v);
		}
	}
	MPI_OK(MPI_Win_unlock_all(w->win));
	MPI_OK(MPI_Barrier(w->comm));
	MPI_OK(MPI_Win_lock_all(0, w->win));
	MPI_OK(MPI_Win_sync(w->win));
	CHECK(mem[4] == left * 100 + 9, "%s: after unlock_all: %d", f, mem[4]);
	MPI_OK(MPI_Win_unlock_all(w->win));
	MPI_OK(MPI_Barrier(w->comm));
}

static void odd_ones(struct t_win *w)
{
	int v = 5, got = 0;

	/* NOCHECK: no lock words, the program knows nobody conflicts. */
	MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t_rank, MPI_MODE_NOCHECK, w->win));
	MPI_OK(MPI_Put(&v, 1, MPI_INT, t_rank, t_disp(w, t_rank, 20), 1, MPI_INT,
		       w->win));
	MPI_OK(MPI_Win_unlock(t_rank, w->win));
	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, w->win));
	MPI_OK(MPI_Get(&got, 1, MPI_INT, t_rank, t_disp(w, t_rank, 20), 1,
		       MPI_INT, w->win));
	MPI_OK(MPI_Win_unlock(t_rank, w->win));
	CHECK(got == 5, "%s: own memory read %d", t_flavor_name[w->flavor], got);
	MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, w->win));
	MPI_OK(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, w->win));
	MPI_OK(MPI_Win_unlock(MPI_PROC_NULL, w->win));
	MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win));
	MPI_OK(MPI_Get(&got, 1, MPI_INT, t_rank, t_disp(w, t_rank, 20), 1,
		       MPI_INT, w->win));
	MPI_OK(MPI_Win_unlock_all(w->win));
	MPI_OK(MPI_Barrier(w->comm));
}

int main(int argc, char **argv)
{
	struct t_win w;
	int f;

	t_init(&argc, &argv);
	for (f = 0; f < T_FLAVORS; f++) {
		t_win_make(&w, f, 64, 1, MPI_COMM_WORLD);
		counter(&w);
		shared_together(&w);
		excl_then_shared(&w);
		lock_all(&w);
		odd_ones(&w);
		t_win_free(&w);
	}
	if (t_rank == 0)
		printf("rma_lock: ok\n");
	return t_done();
}
