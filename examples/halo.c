// SPDX-License-Identifier: MIT
/*
 * halo: a small halo-exchange solver.  Laplace's equation on a 2-D grid
 * (nx x ny interior points, the top edge held at 1, the others at 0),
 * split by rows over the ranks; each Jacobi sweep exchanges one row of
 * ghost cells with the neighbours (Isend/Irecv), and every 50 sweeps
 * the ranks agree on the largest change (gathered to rank 0 and sent
 * back, point-to-point).  Prints the sweeps taken and a checksum that
 * does not depend on the number of ranks.
 *   mpiexec -n 4 halo [nx] [ny] [tolerance]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* The largest value over all ranks, known to all. */
static double allmax(double v)
{
	double o;
	int r;

	if (rank == 0) {
		for (r = 1; r < size; r++) {
			MPI_Recv(&o, 1, MPI_DOUBLE, r, 7, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (o > v)
				v = o;
		}
		for (r = 1; r < size; r++)
			MPI_Send(&v, 1, MPI_DOUBLE, r, 8, MPI_COMM_WORLD);
	} else {
		MPI_Send(&v, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
		MPI_Recv(&v, 1, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	}
	return v;
}

static double allsum(double v)
{
	double o;
	int r;

	if (rank == 0) {
		for (r = 1; r < size; r++) {
			MPI_Recv(&o, 1, MPI_DOUBLE, r, 9, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			v += o;
		}
	} else {
		MPI_Send(&v, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
	}
	return v;
}

int main(int argc, char **argv)
{
	int nx, ny, rows, first, i, j, it, up, down;
	double tol, diff = 1, *u, *v, *t, sum = 0;
	MPI_Request req[4];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	nx = argc > 1 ? atoi(argv[1]) : 64;
	ny = argc > 2 ? atoi(argv[2]) : 64;
	tol = argc > 3 ? atof(argv[3]) : 1e-4;
	if (ny < size) {
		if (rank == 0)
			fprintf(stderr, "halo: need at least one row per rank\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	/* Rows first .. first + rows - 1 of ny, plus a ghost row each side. */
	rows = ny / size + (rank < ny % size);
	first = rank * (ny / size) + (rank < ny % size ? rank : ny % size);
	u = calloc((size_t)(rows + 2) * (size_t)(nx + 2), sizeof(double));
	v = calloc((size_t)(rows + 2) * (size_t)(nx + 2), sizeof(double));
	if (!u || !v)
		MPI_Abort(MPI_COMM_WORLD, 3);
#define AT(a, r, c) (a)[(size_t)(r) * (size_t)(nx + 2) + (size_t)(c)]
	if (first == 0)
		for (j = 0; j < nx + 2; j++)
			AT(u, 0, j) = AT(v, 0, j) = 1.0;
	up = first == 0 ? MPI_PROC_NULL : rank - 1;
	down = first + rows == ny ? MPI_PROC_NULL : rank + 1;

	for (it = 0; diff > tol; it++) {
		/* Ghost rows from the neighbours (PROC_NULL at the edges). */
		MPI_Irecv(&AT(u, 0, 0), nx + 2, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(&AT(u, rows + 1, 0), nx + 2, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, &req[1]);
		MPI_Isend(&AT(u, 1, 0), nx + 2, MPI_DOUBLE, up, 2, MPI_COMM_WORLD, &req[2]);
		MPI_Isend(&AT(u, rows, 0), nx + 2, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[3]);
		MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
		double d = 0;

		for (i = 1; i <= rows; i++)
			for (j = 1; j <= nx; j++) {
				AT(v, i, j) = 0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) +
						      AT(u, i, j - 1) + AT(u, i, j + 1));
				if (fabs(AT(v, i, j) - AT(u, i, j)) > d)
					d = fabs(AT(v, i, j) - AT(u, i, j));
			}
		/* v's ghost rows hold the fixed edges where there are any. */
		memcpy(&AT(v, 0, 0), &AT(u, 0, 0), sizeof(double) * (size_t)(nx + 2));
		memcpy(&AT(v, rows + 1, 0), &AT(u, rows + 1, 0),
		       sizeof(double) * (size_t)(nx + 2));
		t = u;
		u = v;
		v = t;
		if (it % 50 == 49)
			diff = allmax(d);
	}
	for (i = 1; i <= rows; i++)
		for (j = 1; j <= nx; j++)
			sum += AT(u, i, j) * (first + i) * (j + 1);
	sum = allsum(sum);
	if (rank == 0)
		printf("halo: %dx%d grid on %d ranks: %d sweeps, checksum %.6e\n",
		       nx, ny, size, it, sum);
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
