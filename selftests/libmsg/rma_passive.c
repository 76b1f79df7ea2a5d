// SPDX-License-Identifier: MIT
/*
 * Passive target needs nothing of the target: rank 0, the target,
 * leaves MPI for the whole epoch (no MPI call: it spins on its own
 * memory, and naps, for at most TIMEOUT seconds) while every other rank
 * locks it (exclusive, shared, and MPI_Win_lock_all), puts, gets,
 * accumulates, fetches-and-adds, compares-and-swaps and unlocks, ROUNDS
 * times, on each window flavor.  The others' last step is an
 * accumulate into a counter, which rank 0 watches: it returns to MPI
 * only when the counter says all of them are done, then checks every
 * byte.  If an epoch needed the target's library (to grant a lock, to
 * take data in, to apply an accumulate), the counter would never move
 * and rank 0 would fail after TIMEOUT seconds.
 */
#include <time.h>
#include "rma_util.h"

#define ROUNDS 50
#define TIMEOUT 60
#define SLOT 64			/* bytes of rank 0's memory per origin */
#define AT_COUNT 0		/* the counter rank 0 watches */
#define AT_SUM 8		/* accumulated by everyone */
#define AT_CAS 16
#define AT_DATA 64		/* origin r's data at AT_DATA + r * SLOT */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Rank 0, outside MPI until the counter reaches want. */
static void target(struct t_win *w, long long want)
{
	volatile long long *count = (long long *)((char *)w->base + AT_COUNT);
	struct timespec nap = { 0, 200 * 1000 };
	double t0 = now();
	unsigned long spins = 0;

	while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < want) {
		if (now() - t0 > TIMEOUT) {
			fprintf(stderr, "FAIL rank 0: %s: the counter is at %lld of %lld after %d s without MPI calls\n",
				t_flavor_name[w->flavor], *count, want, TIMEOUT);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		/* Computing, then asleep: either way not in MPI. */
		if (++spins % 1000 == 0)
			nanosleep(&nap, NULL);
	}
}

static void origin(struct t_win *w, int round)
{
	long long one = 1, v = round, old, cmp, res;
	unsigned char data[SLOT], back[SLOT];
	int i, lock = round % 3;

	for (i = 0; i < SLOT; i++)
		data[i] = (unsigned char)(t_rank * 31 + round + i);
	if (lock == 2)
		MPI_OK(MPI_Win_lock_all(0, w->win));
	else
		MPI_OK(MPI_Win_lock(lock ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE,
				    0, 0, w->win));
	MPI_OK(MPI_Put(data, SLOT, MPI_BYTE, 0,
		       t_disp(w, 0, AT_DATA + (size_t)t_rank * SLOT), SLOT,
		       MPI_BYTE, w->win));
	MPI_OK(MPI_Win_flush(0, w->win));
	MPI_OK(MPI_Get(back, SLOT, MPI_BYTE, 0,
		       t_disp(w, 0, AT_DATA + (size_t)t_rank * SLOT), SLOT,
		       MPI_BYTE, w->win));
	MPI_OK(MPI_Accumulate(&v, 1, MPI_LONG_LONG, 0, t_disp(w, 0, AT_SUM), 1,
			      MPI_LONG_LONG, MPI_SUM, w->win));
	MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0,
				t_disp(w, 0, AT_CAS), MPI_SUM, w->win));
	cmp = -1;
	MPI_OK(MPI_Compare_and_swap(&one, &cmp, &res, MPI_LONG_LONG, 0,
				    t_disp(w, 0, AT_CAS), w->win));
	CHECK(res >= 0, "%s: compare-and-swap read %lld", t_flavor_name[w->flavor], res);
	if (lock == 2)
		MPI_OK(MPI_Win_unlock_all(w->win));
	else
		MPI_OK(MPI_Win_unlock(0, w->win));
	CHECK(!memcmp(back, data, SLOT), "%s: round %d: read back other bytes",
	      t_flavor_name[w->flavor], round);
}

int main(int argc, char **argv)
{
	struct t_win w;
	int f, round, r, i;

	t_init(&argc, &argv);
	for (f = 0; f < T_FLAVORS; f++) {
		t_win_make(&w, f, AT_DATA + (size_t)t_size * SLOT, 1,
			   MPI_COMM_WORLD);
		/* Everyone is ready; from here rank 0 makes no MPI call. */
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		if (t_rank == 0) {
			target(&w, (long long)(t_size - 1) * ROUNDS);
		} else {
			long long one = 1;

			for (round = 0; round < ROUNDS; round++) {
				origin(&w, round);
				/* Done with this round: the counter moves. */
				MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
				MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0,
						      t_disp(&w, 0, AT_COUNT), 1,
						      MPI_LONG_LONG, MPI_SUM, w.win));
				MPI_OK(MPI_Win_unlock(0, w.win));
			}
		}
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		if (t_rank == 0) {
			long long *m = w.base, sum = 0;
			unsigned char *d = (unsigned char *)w.base + AT_DATA;

			for (round = 0; round < ROUNDS; round++)
				sum += round;
			CHECK(m[AT_SUM / 8] == sum * (t_size - 1),
			      "%s: accumulated %lld, expected %lld",
			      t_flavor_name[f], m[AT_SUM / 8], sum * (t_size - 1));
			CHECK(m[AT_CAS / 8] == (long long)ROUNDS * (t_size - 1),
			      "%s: fetched and added to %lld", t_flavor_name[f],
			      m[AT_CAS / 8]);
			for (r = 1; r < t_size; r++)
				for (i = 0; i < SLOT; i++)
					CHECK(d[r * SLOT + i] ==
					      (unsigned char)(r * 31 + ROUNDS - 1 + i),
					      "%s: byte %d of rank %d's data",
					      t_flavor_name[f], i, r);
		}
		t_win_free(&w);
	}
	if (t_rank == 0)
		printf("rma_passive: ok\n");
	return t_done();
}
