// SPDX-License-Identifier: MIT
// libmsg-test: np=2,3,4,8 builds=plain,asan
/*
 * Large temporaries are kept for the next use (src/base/scratch.c).  A
 * binomial MPI_Reduce of an 8 MiB vector (MPICHAN_COLL_REDUCE, set
 * before MPI_Init) needs a temporary as large at the root; run three
 * times, the root's third call must page-fault in fewer than an eighth
 * of the vector's pages (the kept temporary is still mapped).  Then
 * MPI_T sets mpichan_scratch_keep to 0 on every rank and the same calls
 * must fault in at least half of them at every call (each temporary
 * fresh from the kernel): the difference is the keeping, not the
 * algorithm.  Every result is checked.
 */
#include <stdlib.h>
#include <sys/resource.h>

#include "test.h"

#define WORDS	(2 << 20)		/* 8 MiB of ints */
#define PAGES	(WORDS * 4 / 4096)

static long minflt(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return u.ru_minflt;
}

/* The root's minor faults over one MPI_Reduce; the sum checked there. */
static long reduce_faults(const int *s, int *r)
{
	long before = minflt(), after;
	int i;

	MPI_OK(MPI_Reduce(s, r, WORDS, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
	after = minflt();
	if (t_rank == 0)
		for (i = 0; i < WORDS; i += 4099)
			CHECK(r[i] == t_size * i + t_size * (t_size - 1) / 2,
			      "word %d: %d", i, r[i]);
	return after - before;
}

int main(int argc, char **argv)
{
	unsigned long long zero = 0, keep;
	MPI_T_cvar_handle h;
	int provided, i, k, n, idx;
	long f[5], least;
	int *s, *r;

	setenv("MPICHAN_COLL_REDUCE", "binomial", 1);
	t_init(&argc, &argv);
	MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
	s = malloc(WORDS * sizeof(int));
	r = malloc(WORDS * sizeof(int));
	CHECK(s && r, "out of memory");
	for (i = 0; i < WORDS; i++) {
		s[i] = i + t_rank;
		r[i] = -1;	/* every page of both present */
	}

	for (k = 0; k < 5; k++)
		f[k] = reduce_faults(s, r);
	least = f[1];
	for (k = 2; k < 5; k++)
		least = f[k] < least ? f[k] : least;
	if (t_rank == 0)
		CHECK(least < PAGES / 8,
		      "kept: reduces 2-5 faulted at least %ld pages (of %d)",
		      least, PAGES);

	MPI_OK(MPI_T_cvar_get_index("mpichan_scratch_keep", &idx));
	MPI_OK(MPI_T_cvar_handle_alloc(idx, NULL, &h, &n));
	MPI_OK(MPI_T_cvar_read(h, &keep));
	CHECK(keep >= WORDS * sizeof(int), "default keep %llu", keep);
	MPI_OK(MPI_T_cvar_write(h, &zero));
	for (k = 0; k < 3; k++)
		f[k] = reduce_faults(s, r);
	if (t_rank == 0)
		for (k = 0; k < 3; k++)
			CHECK(f[k] >= PAGES / 2,
			      "none kept: reduce %d faulted only %ld pages (of %d)",
			      k, f[k], PAGES);
	MPI_OK(MPI_T_cvar_write(h, &keep));
	MPI_OK(MPI_T_cvar_handle_free(&h));
	MPI_OK(MPI_T_finalize());
	free(s);
	free(r);
	return t_done();
}
