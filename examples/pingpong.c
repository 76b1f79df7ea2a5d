// SPDX-License-Identifier: MIT
/*
 * pingpong: ranks 0 and 1 bounce a message back and forth and print
 * the one-way latency and the bandwidth for sizes 1 B .. 4 MiB.
 *   mpiexec -n 2 pingpong [max_bytes] [iterations]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long max = argc > 1 ? atol(argv[1]) : 4 << 20;
	int iters = argc > 2 ? atoi(argv[2]) : 1000;
	int rank, size, i, n;
	double t0 = 0, t;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		if (rank == 0)
			fprintf(stderr, "pingpong needs 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	buf = malloc((size_t)max);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 1, (size_t)max);
	if (rank == 0)
		printf("%10s %12s %12s\n", "bytes", "usec/oneway", "MB/s");
	for (n = 1; n <= max; n *= 2) {
		int it = n >= (1 << 20) ? iters / 10 + 1 : iters;

		for (i = -10; i < it; i++) {
			if (i == 0)
				t0 = MPI_Wtime();
			if (rank == 0) {
				MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			} else if (rank == 1) {
				MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
		}
		t = (MPI_Wtime() - t0) / (2.0 * it);
		if (rank == 0)
			printf("%10d %12.2f %12.1f\n", n, t * 1e6, n / t / 1e6);
	}
	free(buf);
	MPI_Finalize();
	return 0;
}
