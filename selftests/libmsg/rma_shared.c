// SPDX-License-Identifier: MIT
/*
 * Shared-memory windows (MPI_Win_allocate_shared, MPI_Win_shared_query):
 *   - members of different sizes (rank r: (r + 1) * 24 bytes, rank 1
 *     none): each member's memory as another member maps it, its size
 *     and displacement unit; contiguous (rank r + 1's right after rank
 *     r's); MPI_PROC_NULL gives the first member with memory;
 *   - plain loads and stores into a neighbour's memory, in a passive
 *     epoch with MPI_Win_sync and a barrier between the writer and the
 *     reader (the unified model's way), and a flag handed over by
 *     stores alone (no MPI call between) inside MPI_Win_lock_all;
 *   - MPI_Put seen by the target's loads, and the target's stores by
 *     MPI_Get;
 *   - with alloc_shared_noncontig, each member's memory starts on a page;
 *   - MPI_Win_allocate's memory is shared too, MPI_Win_create's is not
 *     (MPI_ERR_RMA_FLAVOR).
 */
#include <time.h>
#include "rma_util.h"

static size_t bytes_of(int r)
{
	return r == 1 ? 0 : (size_t)(r + 1) * 24;
}

static void query(MPI_Win win, int noncontig)
{
	char *first = NULL, *p, *prev = NULL;
	MPI_Aint size;
	int r, unit;

	for (r = 0; r < t_size; r++) {
		MPI_OK(MPI_Win_shared_query(win, r, &size, &unit, &p));
		CHECK(size == (MPI_Aint)bytes_of(r) && unit == 8,
		      "rank %d: size %ld unit %d", r, (long)size, unit);
		if (!first && size)
			first = p;
		if (noncontig)
			CHECK(((uintptr_t)p & 4095) == 0,
			      "noncontig: rank %d's memory at %p", r, p);
		else if (prev)
			CHECK(p == prev + bytes_of(r - 1),
			      "rank %d's memory at %p, rank %d's ends at %p", r,
			      p, r - 1, prev + bytes_of(r - 1));
		prev = p;
	}
	MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &p));
	CHECK(p == first && size == (MPI_Aint)bytes_of(0),
	      "MPI_PROC_NULL: %p, %ld", p, (long)size);
}

static void loads_stores(MPI_Win win)
{
	int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
	long long *mine, *theirs, *l;
	volatile long long *flag;
	MPI_Aint size;
	int unit;
	long long got;

	MPI_OK(MPI_Win_shared_query(win, t_rank, &size, &unit, &mine));
	MPI_OK(MPI_Win_shared_query(win, right, &size, &unit, &theirs));
	MPI_OK(MPI_Win_shared_query(win, left, &size, &unit, &l));
	CHECK(size == 64, "rank %d's memory is %ld bytes", left, (long)size);
	MPI_OK(MPI_Win_lock_all(0, win));
	/* Into the neighbour's memory with stores. */
	theirs[1] = t_rank * 1000 + 1;
	MPI_OK(MPI_Win_sync(win));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Win_sync(win));
	CHECK(mine[1] == left * 1000 + 1, "stored by rank %d: %lld", left, mine[1]);

	/* A flag handed round by stores alone. */
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	flag = (volatile long long *)&theirs[2];
	if (t_rank == 0)
		__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	if (t_size > 1) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (!__atomic_load_n(&mine[2], __ATOMIC_ACQUIRE)) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			CHECK(t1.tv_sec - t0.tv_sec < 60, "the flag never came");
		}
		if (t_rank)
			__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	}
	MPI_OK(MPI_Win_unlock_all(win));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

	/* MPI_Put meets loads, stores meet MPI_Get. */
	MPI_OK(MPI_Win_fence(0, win));
	got = t_rank * 10 + 3;
	MPI_OK(MPI_Put(&got, 1, MPI_LONG_LONG, right, 3, 1, MPI_LONG_LONG, win));
	mine[4] = t_rank + 77;
	MPI_OK(MPI_Win_fence(0, win));
	CHECK(mine[3] == left * 10 + 3, "put by rank %d: %lld", left, mine[3]);
	MPI_OK(MPI_Get(&got, 1, MPI_LONG_LONG, right, 4, 1, MPI_LONG_LONG, win));
	MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
	CHECK(got == right + 77, "got %lld from rank %d", got, right);
}

/* Every member with 64 bytes: each loads and stores its neighbours'. */
static void together(MPI_Info info)
{
	MPI_Win win;
	void *base;

	MPI_OK(MPI_Win_allocate_shared(64, 8, info, MPI_COMM_WORLD, &base, &win));
	MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	loads_stores(win);
	MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
	MPI_Info info;
	MPI_Win win;
	MPI_Aint size;
	int unit, *p;
	void *base;

	t_init(&argc, &argv);
	MPI_OK(MPI_Win_allocate_shared((MPI_Aint)bytes_of(t_rank), 8,
				       MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
	MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	query(win, 0);
	MPI_OK(MPI_Win_free(&win));
	together(MPI_INFO_NULL);

	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
	MPI_OK(MPI_Win_allocate_shared((MPI_Aint)bytes_of(t_rank), 8, info,
				       MPI_COMM_WORLD, &base, &win));
	MPI_OK(MPI_Info_free(&info));
	MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	query(win, 1);
	MPI_OK(MPI_Win_free(&win));
	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
	together(info);
	MPI_OK(MPI_Info_free(&info));

	MPI_OK(MPI_Win_allocate((MPI_Aint)bytes_of(t_rank), 8, MPI_INFO_NULL,
				MPI_COMM_WORLD, &base, &win));
	query(win, 1);
	MPI_OK(MPI_Win_free(&win));

	p = calloc(4, sizeof(int));
	MPI_OK(MPI_Win_create(p, 16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	T_EXPECT(MPI_Win_shared_query(win, 0, &size, &unit, &base),
		 MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query of MPI_Win_create's memory");
	MPI_OK(MPI_Win_free(&win));
	free(p);
	if (t_rank == 0)
		printf("rma_shared: ok\n");
	return t_done();
}
