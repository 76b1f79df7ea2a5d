// SPDX-License-Identifier: MIT
// libmsg-test: np=1,2,3,4,8 builds=plain,asan
/*
 * The large-count (_c) one-sided calls of MPI-4.0 with small counts,
 * every one: windows made by MPI_Win_create_c, MPI_Win_allocate_c and
 * MPI_Win_allocate_shared_c (disp_unit an MPI_Aint), queried with
 * MPI_Win_shared_query_c; on each, each rank to its right-hand
 * neighbour: MPI_Put_c, Get_c, Accumulate_c, Get_accumulate_c inside an
 * exclusive lock, Rput_c, Rget_c, Raccumulate_c, Rget_accumulate_c
 * inside MPI_Win_lock_all, each checked element by element (and the
 * target's memory after).  Errors: a negative count is MPI_ERR_COUNT; a
 * count of 2^32 + 3 is 2^32 + 3 elements (MPI_ERR_RMA_RANGE on a small
 * window, its memory untouched), not 3; a disp_unit beyond an int is
 * MPI_ERR_DISP.  bigmsg.c moves more than 2^31 bytes one-sided.
 */
#include <limits.h>

#include "test.h"

#define C 7			/* elements per operation */
#define SLOTS 4			/* blocks of C ints in each window */

static int right, left;

static void fill(int *v, int n, int seed)
{
	int i;

	for (i = 0; i < n; i++)
		v[i] = seed * 1000 + i;
}

static void expect(const int *v, int n, int seed, int add, const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		CHECK(v[i] == seed * 1000 + i + add, "%s: element %d is %d, expected %d",
		      what, i, v[i], seed * 1000 + i + add);
}

enum { W_CREATE, W_ALLOCATE, W_SHARED, W_KINDS };
static const char *const kind_name[W_KINDS] = {
	"Win_create_c", "Win_allocate_c", "Win_allocate_shared_c",
};

static MPI_Win make(int kind, int **base, void **mem)
{
	MPI_Aint bytes = SLOTS * C * (MPI_Aint)sizeof(int), size, du;
	MPI_Win win;
	int *q;

	*mem = NULL;
	switch (kind) {
	case W_CREATE:
		*mem = calloc(1, (size_t)bytes);
		CHECK(*mem, "out of memory");
		*base = *mem;
		MPI_OK(MPI_Win_create_c(*base, bytes, (MPI_Aint)sizeof(int),
					MPI_INFO_NULL, MPI_COMM_WORLD, &win));
		break;
	case W_ALLOCATE:
		MPI_OK(MPI_Win_allocate_c(bytes, (MPI_Aint)sizeof(int),
					  MPI_INFO_NULL, MPI_COMM_WORLD, base,
					  &win));
		break;
	default:
		MPI_OK(MPI_Win_allocate_shared_c(bytes, (MPI_Aint)sizeof(int),
						 MPI_INFO_NULL, MPI_COMM_WORLD,
						 base, &win));
		MPI_OK(MPI_Win_shared_query_c(win, t_rank, &size, &du, &q));
		CHECK(size == bytes && du == (MPI_Aint)sizeof(int) && q == *base,
		      "Win_shared_query_c: size %lld unit %lld base %p, expected %lld %zu %p",
		      (long long)size, (long long)du, (void *)q,
		      (long long)bytes, sizeof(int), (void *)*base);
		MPI_OK(MPI_Win_shared_query_c(win, right, &size, &du, &q));
		CHECK(size == bytes && du == (MPI_Aint)sizeof(int),
		      "Win_shared_query_c of rank %d: size %lld unit %lld",
		      right, (long long)size, (long long)du);
		break;
	}
	memset(*base, 0, (size_t)bytes);
	MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	return win;
}

/*
 * Slot 0: Put_c of seed me; slot 1: Put_c then Accumulate_c (SUM, +1 each);
 * slot 2: Rput_c then Raccumulate_c; slot 3: Put_c then Get_accumulate_c
 * and Rget_accumulate_c (SUM, +1 each); the old values checked.
 */
static void ops(MPI_Win win, int *base)
{
	int s[C], one[C], r[C], i, me = t_rank;
	MPI_Request q[2];

	fill(s, C, me);
	for (i = 0; i < C; i++)
		one[i] = 1;
	MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
	MPI_OK(MPI_Put_c(s, C, MPI_INT, right, 0, C, MPI_INT, win));
	MPI_OK(MPI_Put_c(s, C, MPI_INT, right, C, C, MPI_INT, win));
	MPI_OK(MPI_Put_c(s, C, MPI_INT, right, 3 * C, C, MPI_INT, win));
	MPI_OK(MPI_Win_flush(right, win));
	MPI_OK(MPI_Accumulate_c(one, C, MPI_INT, right, C, C, MPI_INT, MPI_SUM,
				win));
	MPI_OK(MPI_Get_accumulate_c(one, C, MPI_INT, r, C, MPI_INT, right,
				    3 * C, C, MPI_INT, MPI_SUM, win));
	expect(r, C, me, 0, "Get_accumulate_c's old values");
	MPI_OK(MPI_Get_c(r, C, MPI_INT, right, C, C, MPI_INT, win));
	expect(r, C, me, 1, "Get_c after Accumulate_c");
	MPI_OK(MPI_Win_unlock(right, win));

	MPI_OK(MPI_Win_lock_all(0, win));
	MPI_OK(MPI_Rput_c(s, C, MPI_INT, right, 2 * C, C, MPI_INT, win, &q[0]));
	MPI_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
	MPI_OK(MPI_Raccumulate_c(one, C, MPI_INT, right, 2 * C, C, MPI_INT,
				 MPI_SUM, win, &q[0]));
	MPI_OK(MPI_Rget_accumulate_c(one, C, MPI_INT, r, C, MPI_INT, right,
				     3 * C, C, MPI_INT, MPI_SUM, win, &q[1]));
	MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
	expect(r, C, me, 1, "Rget_accumulate_c's old values");
	MPI_OK(MPI_Rget_c(r, C, MPI_INT, right, 2 * C, C, MPI_INT, win, &q[0]));
	MPI_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
	expect(r, C, me, 1, "Rget_c after Raccumulate_c");
	MPI_OK(MPI_Win_unlock_all(win));

	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
	expect(base, C, left, 0, "slot 0 (Put_c)");
	expect(base + C, C, left, 1, "slot 1 (Accumulate_c)");
	expect(base + 2 * C, C, left, 1, "slot 2 (Raccumulate_c)");
	expect(base + 3 * C, C, left, 2, "slot 3 (Get_accumulate_c twice)");
	MPI_OK(MPI_Win_unlock(t_rank, win));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Counts no int holds, and a negative one: refused, nothing moved. */
static void errors(MPI_Win win, int *base)
{
	MPI_Count big = ((MPI_Count)1 << 32) + 3;
	int s[C], r[C], i;
	MPI_Request q;
	MPI_Win w2;
	char b[8];

	fill(s, C, 77);
	MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
	T_EXPECT(MPI_Put_c(s, -1, MPI_INT, right, 0, -1, MPI_INT, win),
		 MPI_ERR_COUNT, "Put_c of count -1");
	T_EXPECT(MPI_Get_c(r, C, MPI_INT, right, 0, -5, MPI_INT, win),
		 MPI_ERR_COUNT, "Get_c of target count -5");
	/* 2^32 + 3 ints from a 7-int buffer never goes as far as reading it. */
	T_EXPECT(MPI_Put_c(s, big, MPI_INT, right, 0, big, MPI_INT, win),
		 MPI_ERR_RMA_RANGE, "Put_c of 2^32 + 3 ints into 28");
	T_EXPECT(MPI_Accumulate_c(s, big, MPI_INT, right, 0, big, MPI_INT,
				  MPI_SUM, win),
		 MPI_ERR_RMA_RANGE, "Accumulate_c of 2^32 + 3 ints into 28");
	T_EXPECT(MPI_Rget_c(r, big, MPI_INT, right, 0, big, MPI_INT, win, &q),
		 MPI_ERR_RMA_RANGE, "Rget_c of 2^32 + 3 ints from 28");
	/* The origin's count differs from the target's by 2^32. */
	T_EXPECT(MPI_Put_c(s, big, MPI_INT, right, 0, 3, MPI_INT, win),
		 MPI_ERR_TYPE, "Put_c of 2^32 + 3 ints as 3");
	MPI_OK(MPI_Win_unlock(right, win));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	for (i = 0; i < SLOTS * C; i++)
		CHECK(base[i] == 0, "element %d is %d after refused calls", i,
		      base[i]);
	T_EXPECT(MPI_Win_create_c(b, sizeof(b), (MPI_Aint)INT_MAX + 1,
				  MPI_INFO_NULL, MPI_COMM_WORLD, &w2),
		 MPI_ERR_DISP, "Win_create_c with disp_unit 2^31");
	T_EXPECT(MPI_Win_allocate_c(8, -((MPI_Aint)1 << 32), MPI_INFO_NULL,
				    MPI_COMM_WORLD, &base, &w2),
		 MPI_ERR_DISP, "Win_allocate_c with disp_unit -2^32");
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
	int kind, *base;
	void *mem;
	MPI_Win win;

	t_init(&argc, &argv);
	right = (t_rank + 1) % t_size;
	left = (t_rank + t_size - 1) % t_size;
	for (kind = 0; kind < W_KINDS; kind++) {
		win = make(kind, &base, &mem);
		ops(win, base);
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		memset(base, 0, SLOTS * C * sizeof(int));
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		errors(win, base);
		MPI_OK(MPI_Win_free(&win));
		free(mem);
		if (t_rank == 0)
			printf("%s: every _c operation\n", kind_name[kind]);
	}
	return t_done();
}
