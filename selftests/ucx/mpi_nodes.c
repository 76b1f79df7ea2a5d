// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/ucx/mpi_nodes.c NODES: every rank sends every other rank
 * patterned messages of 256 KiB and 1 MiB (rendezvous sizes for UCX
 * under MPICH and Open MPI)
 * with MPI_Sendrecv, checks every byte it receives, and then runs an
 * MPI_Allreduce and an MPI_Alltoall over all ranks.  The ranks must
 * span exactly NODES host names (MPI_Get_processor_name).  Rank 0
 * prints the bytes that went between ranks of one node and between
 * nodes ("same-node BYTES", "cross-node BYTES"), "ok" and, after a
 * barrier that every rank leaves for MPI_Finalize, "finalizing", in
 * one write (other ranks print nothing on stdout).  Built by
 * two_nodes.sh with MPICH's and Open MPI's own mpicc, not libmsg's.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pat(int src, int dst, size_t n, size_t i)
{
	return (unsigned char)(i * 131 + src * 17 + dst * 29 + n + (i >> 12));
}

int main(int argc, char **argv)
{
	static char names[64][MPI_MAX_PROCESSOR_NAME];
	char name[MPI_MAX_PROCESSOR_NAME];
	long long same = 0, cross = 0, tot[2];
	int rank, size, len, want, nodes = 0, errs = 0;
	unsigned char *sb, *rb;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	want = argc > 1 ? atoi(argv[1]) : 2;
	if (size > 64)
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(name, 0, sizeof(name));
	MPI_Get_processor_name(name, &len);
	MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names,
		      MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
	for (int i = 0; i < size; i++) {
		int seen = 0;

		for (int j = 0; j < i; j++)
			seen |= !strcmp(names[i], names[j]);
		nodes += !seen;
	}
	if (nodes != want) {
		if (rank == 0)
			fprintf(stderr, "%d ranks on %d nodes, want %d\n", size, nodes, want);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	sb = malloc(1 << 20);
	rb = malloc(1 << 20);
	for (size_t n = 256 << 10; n <= 1 << 20; n *= 4)
		for (int d = 1; d < size; d++) {
			int to = (rank + d) % size, from = (rank - d + size) % size;

			for (size_t i = 0; i < n; i++)
				sb[i] = pat(rank, to, n, i);
			memset(rb, 0, n);
			MPI_Sendrecv(sb, (int)n, MPI_BYTE, to, 0, rb, (int)n, MPI_BYTE,
				     from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			for (size_t i = 0; i < n; i++)
				if (rb[i] != pat(from, rank, n, i)) {
					fprintf(stderr, "rank %d: byte %zu of %zu from %d wrong\n",
						rank, i, n, from);
					MPI_Abort(MPI_COMM_WORLD, 1);
				}
			if (strcmp(names[rank], names[to]))
				cross += (long long)n;
			else
				same += (long long)n;
		}
	/* Collectives over both nodes. */
	{
		long long mine[2] = { same, cross };
		int *a = malloc(sizeof(int) * size), *b = malloc(sizeof(int) * size);

		MPI_Allreduce(mine, tot, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
		for (int i = 0; i < size; i++)
			a[i] = rank * 1000 + i;
		MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
		for (int i = 0; i < size; i++)
			errs += b[i] != i * 1000 + rank;
		free(a);
		free(b);
	}
	MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		printf("same-node %lld\ncross-node %lld\n%sfinalizing\n", tot[0],
		       tot[1], errs ? "" : "ok\n");
		fflush(stdout);
	}
	free(sb);
	free(rb);
	MPI_Finalize();
	return errs ? 1 : 0;
}
