// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain run-by=mpmd.sh
/*
 * Several programs in one job (mpiexec's "a : b" form, MPMD):
 *   mpmd APPNUM COUNTS, e.g. mpiexec -n 2 mpmd 0 2,1 : -n 1 mpmd 1 2,1
 * Each rank checks that MPI_APPNUM is the APPNUM its command line was
 * given, that the ranks of each program are numbered in order across
 * the programs (COUNTS: ranks per program), and sends round a ring that
 * crosses from one program to the next.  Run as a single program
 * (mpmd 0 N), every rank is program 0.
 */
#include "test.h"

int main(int argc, char **argv)
{
	int want, *appnum, flag = 0, *all, counts[16], napps = 0, r, a, k;
	int got = -1;
	char *p;

	t_init(&argc, &argv);
	CHECK(argc == 3, "usage: mpmd APPNUM COUNTS");
	want = atoi(argv[1]);
	for (p = argv[2]; *p && napps < 16; p++) {
		counts[napps++] = (int)strtol(p, &p, 10);
		if (!*p)
			break;
	}
	MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
	CHECK(flag && *appnum == want, "MPI_APPNUM %d, this is program %d",
	      flag ? *appnum : -1, want);
	all = malloc((size_t)t_size * sizeof(int));
	CHECK(all, "malloc");
	MPI_OK(MPI_Allgather(appnum, 1, MPI_INT, all, 1, MPI_INT,
			     MPI_COMM_WORLD));
	for (r = 0, a = 0; a < napps; a++)
		for (k = 0; k < counts[a]; k++, r++)
			CHECK(r < t_size && all[r] == a,
			      "rank %d runs program %d, want %d", r,
			      r < t_size ? all[r] : -1, a);
	CHECK(r == t_size, "%d ranks, the programs have %d", t_size, r);
	MPI_OK(MPI_Sendrecv(&t_rank, 1, MPI_INT, (t_rank + 1) % t_size, 0,
			    &got, 1, MPI_INT, (t_rank + t_size - 1) % t_size,
			    0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(got == (t_rank + t_size - 1) % t_size, "ring: %d", got);
	free(all);
	return t_done();
}
