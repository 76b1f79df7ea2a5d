// SPDX-License-Identifier: MIT
/*
 * Dynamic windows (MPI_Win_create_dynamic, MPI_Win_attach,
 * MPI_Win_detach):
 *   - two regions attached on every rank, their addresses exchanged:
 *     puts, gets and accumulates into either, at absolute displacements
 *     (MPI_Get_address), with a derived target type;
 *   - an access outside every attached region, one that runs from one
 *     region into the memory after it, and one into a region detached
 *     meanwhile are MPI_ERR_RMA_RANGE;
 *   - attaching memory that overlaps attached memory is
 *     MPI_ERR_RMA_ATTACH, detaching memory never attached MPI_ERR_BASE,
 *     attaching to another flavor's window MPI_ERR_RMA_FLAVOR;
 *   - regions attached and detached many times over (the table reused)
 *     while the neighbour writes into whichever is attached now;
 *   - MPI_WIN_BASE is MPI_BOTTOM, MPI_WIN_SIZE 0.
 */
#include "rma_util.h"

#define LEN 32
#define ROUNDS 300

struct regions {
	int *a, *b;
	MPI_Aint *aa, *ab;	/* every rank's */
};

static void exchange(struct regions *r)
{
	MPI_OK(MPI_Get_address(r->a, &r->aa[t_rank]));
	MPI_OK(MPI_Get_address(r->b, &r->ab[t_rank]));
	MPI_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r->aa, 1,
			     MPI_AINT, MPI_COMM_WORLD));
	MPI_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r->ab, 1,
			     MPI_AINT, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
	int right, left, i, k, v[LEN], got[LEN], x = 1, *other, flag, *mem;
	struct regions r;
	MPI_Datatype every2;
	MPI_Aint *size;
	MPI_Win win, w2;
	void *base;

	t_init(&argc, &argv);
	right = (t_rank + 1) % t_size;
	left = (t_rank + t_size - 1) % t_size;
	r.a = calloc(LEN, sizeof(int));
	/* b, and the memory right after it, never attached. */
	r.b = calloc(3 * LEN, sizeof(int));
	r.aa = calloc((size_t)t_size, sizeof(MPI_Aint));
	r.ab = calloc((size_t)t_size, sizeof(MPI_Aint));
	MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
	CHECK(flag && base == MPI_BOTTOM, "MPI_WIN_BASE %p", base);
	MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
	CHECK(flag && *size == 0, "MPI_WIN_SIZE %ld", (long)*size);
	MPI_OK(MPI_Win_attach(win, r.a, LEN * sizeof(int)));
	MPI_OK(MPI_Win_attach(win, r.b, LEN * sizeof(int)));
	exchange(&r);
	MPI_OK(MPI_Type_vector(LEN / 2, 1, 2, MPI_INT, &every2));
	MPI_OK(MPI_Type_commit(&every2));

	/* Both regions, plain and strided, and accumulates. */
	for (i = 0; i < LEN; i++)
		v[i] = t_rank * 100 + i;
	MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
	MPI_OK(MPI_Put(v, LEN, MPI_INT, right, r.aa[right], LEN, MPI_INT, win));
	MPI_OK(MPI_Put(v, LEN / 2, MPI_INT, right, r.ab[right], 1, every2, win));
	MPI_OK(MPI_Accumulate(v, LEN / 2, MPI_INT, right,
			      r.ab[right] + sizeof(int), 1, every2, MPI_SUM, win));
	MPI_OK(MPI_Win_flush(right, win));
	MPI_OK(MPI_Get(got, LEN, MPI_INT, right, r.aa[right], LEN, MPI_INT, win));
	MPI_OK(MPI_Win_unlock(right, win));
	for (i = 0; i < LEN; i++)
		CHECK(got[i] == v[i], "got %d back from region a, int %d", got[i], i);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	for (i = 0; i < LEN; i++) {
		CHECK(r.a[i] == left * 100 + i, "region a int %d: %d", i, r.a[i]);
		CHECK(r.b[i] == left * 100 + i / 2, "region b int %d: %d", i, r.b[i]);
	}

	/* Outside what is attached. */
	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
	T_EXPECT(MPI_Put(&x, 1, MPI_INT, right, r.ab[right] + LEN * sizeof(int),
			 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
		 "MPI_Put right after region b");
	T_EXPECT(MPI_Put(v, 2, MPI_INT, right,
			 r.ab[right] + (LEN - 1) * sizeof(int), 2, MPI_INT, win),
		 MPI_ERR_RMA_RANGE, "MPI_Put from region b's end into what follows");
	MPI_OK(MPI_Win_unlock(right, win));

	/* The wrong calls. */
	T_EXPECT(MPI_Win_attach(win, r.a + 4, 8), MPI_ERR_RMA_ATTACH,
		 "attaching memory inside region a");
	T_EXPECT(MPI_Win_detach(win, r.b + 1), MPI_ERR_BASE,
		 "detaching memory never attached");
	MPI_OK(MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w2));
	MPI_OK(MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN));
	T_EXPECT(MPI_Win_attach(w2, r.a, 8), MPI_ERR_RMA_FLAVOR,
		 "MPI_Win_attach to an allocated window");
	MPI_OK(MPI_Win_free(&w2));

	/* Detached memory is out of reach. */
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Win_detach(win, r.b));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
	T_EXPECT(MPI_Get(got, 1, MPI_INT, right, r.ab[right], 1, MPI_INT, win),
		 MPI_ERR_RMA_RANGE, "MPI_Get from a detached region");
	MPI_OK(MPI_Win_unlock(right, win));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

	/*
	 * Churn: each round every rank attaches a fresh buffer, tells its
	 * left neighbour where, receives a put, and detaches it.
	 */
	for (k = 0; k < ROUNDS; k++) {
		MPI_Aint at, to;
		int *buf = calloc(LEN, sizeof(int));

		MPI_OK(MPI_Win_attach(win, buf, LEN * sizeof(int)));
		MPI_OK(MPI_Get_address(buf, &at));
		MPI_OK(MPI_Sendrecv(&at, 1, MPI_AINT, left, k, &to, 1, MPI_AINT,
				    right, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		x = k * 10 + t_rank;
		MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
		MPI_OK(MPI_Put(&x, 1, MPI_INT, right, to + (k % LEN) * sizeof(int),
			       1, MPI_INT, win));
		MPI_OK(MPI_Win_unlock(right, win));
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		CHECK(buf[k % LEN] == k * 10 + left, "round %d: %d", k, buf[k % LEN]);
		MPI_OK(MPI_Win_detach(win, buf));
		free(buf);
	}
	other = r.a;
	MPI_OK(MPI_Win_detach(win, other));
	MPI_OK(MPI_Type_free(&every2));
	MPI_OK(MPI_Win_free(&win));
	free(r.a);
	free(r.b);
	free(r.aa);
	free(r.ab);
	if (t_rank == 0)
		printf("rma_dynamic: ok\n");
	return t_done();
}
