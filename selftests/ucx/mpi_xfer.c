// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/ucx/mpi_xfer.c [ROUNDS [MAX]]: rank 0 sends rank 1 patterned
 * messages of 64 KiB to MAX (4 MiB), x4 each step (rendezvous sizes for UCX), from a buffer it reuses
 * and from fresh ones, and rank 1 checks every byte and sends each back
 * for rank 0 to check.  Built by uct_test.sh with MPICH's mpicc
 * (mpicc.mpich) to run over UCX, not with libmsg's.  Prints "ok" on
 * rank 0 when all matched; exits 1 at the first wrong byte.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fill(unsigned char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 131 + seed * 7 + (i >> 12));
}

static int check(const unsigned char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != (unsigned char)(i * 131 + seed * 7 + (i >> 12))) {
			fprintf(stderr, "byte %zu of %zu (seed %u) wrong\n", i, n, seed);
			return 0;
		}
	return 1;
}

int main(int argc, char **argv)
{
	size_t max = argc > 2 ? strtoul(argv[2], NULL, 0) : 4 << 20;
	unsigned char *keep, *b;
	unsigned seed = 0;
	int rank, rounds = argc > 1 ? atoi(argv[1]) : 4;

	if (max < 64 << 10)
		max = 64 << 10;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	keep = malloc(max);
	for (int r = 0; r < rounds; r++)
		for (size_t n = 64 << 10; n <= max; n *= 4) {
			/* Every other message from a fresh buffer. */
			b = (r & 1) ? malloc(n) : keep;
			seed++;
			if (rank == 0) {
				fill(b, n, seed);
				MPI_Send(b, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				memset(b, 0, n);
				MPI_Recv(b, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else if (rank == 1) {
				memset(b, 0, n);
				MPI_Recv(b, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				if (!check(b, n, seed))
					MPI_Abort(MPI_COMM_WORLD, 1);
				MPI_Send(b, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
			if (rank == 0 && !check(b, n, seed))
				MPI_Abort(MPI_COMM_WORLD, 1);
			if (b != keep)
				free(b);
		}
	free(keep);
	if (rank == 0)
		printf("ok\n");
	MPI_Finalize();
	return 0;
}
