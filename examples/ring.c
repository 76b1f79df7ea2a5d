// SPDX-License-Identifier: MIT
/*
 * ring: a token goes round all ranks `laps` times, each rank adding
 * one; rank 0 checks and prints the total.
 *   mpiexec -n 4 ring [laps]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, laps, lap, token = 0, next, prev;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	laps = argc > 1 ? atoi(argv[1]) : 10;
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;
	for (lap = 0; lap < laps; lap++) {
		if (rank == 0) {
			token++;
			MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			token++;
			MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
		}
	}
	if (rank == 0) {
		printf("ring: %d ranks, %d laps, token %d (expected %d)\n",
		       size, laps, token, laps * size);
		if (token != laps * size)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Finalize();
	return 0;
}
