// SPDX-License-Identifier: MIT
/*
 * coll-bench: collective latency, the way the OSU collective benchmarks
 * measure it (average time per call, the slowest rank's, after a
 * barrier), for one MPI library: build it with that library's mpicc.
 *
 *   coll-bench [-p] [-i ITERS] [-s MINBYTES] [-m MAXBYTES] barrier|bcast|allreduce|alltoall|allgather...
 *
 * -p pins rank r to CPU r (modulo the CPUs it may use), so that every
 * library runs with the same placement (run-coll tells the launchers
 * not to bind).
 *
 * Prints "name bytes usec" lines; bytes is the per-rank message size
 * (per destination for alltoall, per rank for allgather).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;
static const size_t sizes[] = { 8, 64, 512, 4096, 32768, 262144, 1048576,
				4194304, 16777216 };
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static int iters_for(size_t bytes, int base)
{
	int it = base;

	if (bytes >= 65536)
		it = base / 10;
	if (bytes >= 1 << 20)
		it = base / 50;
	return it < 5 ? 5 : it;
}

static void pin(void)
{
	cpu_set_t allowed, one;
	int i, k = 0, want;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	want = rank % CPU_COUNT(&allowed);
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &allowed) || k++ != want)
			continue;
		CPU_ZERO(&one);
		CPU_SET(i, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			perror("coll-bench: sched_setaffinity");
		return;
	}
}

static double run(const char *name, size_t bytes, int iters, char *a, char *b)
{
	int count = (int)(bytes / sizeof(float)), i, warm = iters / 10 + 2;
	double t0 = 0, t, max;

	for (i = -warm; i < iters; i++) {
		if (i == 0) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		if (!strcmp(name, "barrier"))
			MPI_Barrier(MPI_COMM_WORLD);
		else if (!strcmp(name, "bcast"))
			MPI_Bcast(a, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
		else if (!strcmp(name, "allreduce"))
			MPI_Allreduce(a, b, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		else if (!strcmp(name, "alltoall"))
			MPI_Alltoall(a, (int)bytes, MPI_CHAR, b, (int)bytes, MPI_CHAR,
				     MPI_COMM_WORLD);
		else if (!strcmp(name, "allgather"))
			MPI_Allgather(a, (int)bytes, MPI_CHAR, b, (int)bytes, MPI_CHAR,
				      MPI_COMM_WORLD);
	}
	t = (MPI_Wtime() - t0) / iters;
	MPI_Reduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	return max * 1e6;
}

int main(int argc, char **argv)
{
	size_t minb = 0, maxb = 1 << 20, big;
	int base = 1000, opt, k, i;
	char *a, *b;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "pi:s:m:")) != -1) {
		if (opt == 'p')
			pin();
		else if (opt == 'i')
			base = atoi(optarg);
		else if (opt == 's')
			minb = strtoul(optarg, NULL, 0);
		else if (opt == 'm')
			maxb = strtoul(optarg, NULL, 0);
	}
	big = maxb * (size_t)size;
	a = calloc(1, big);
	b = calloc(1, big);
	if (!a || !b) {
		fprintf(stderr, "coll-bench: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (k = optind; k < argc; k++) {
		if (!strcmp(argv[k], "barrier")) {
			double us = run("barrier", 0, base, a, b);

			if (rank == 0)
				printf("barrier %d 0 %.2f\n", size, us);
			continue;
		}
		for (i = 0; i < NSIZES && sizes[i] <= maxb; i++) {
			size_t per = sizes[i];
			double us;

			if (per < minb)
				continue;

			/* alltoall/allgather buffers hold size blocks. */
			if ((!strcmp(argv[k], "alltoall") ||
			     !strcmp(argv[k], "allgather")) && per * size > big)
				break;
			us = run(argv[k], per, iters_for(per * size, base), a, b);
			if (rank == 0)
				printf("%s %d %zu %.2f\n", argv[k], size, per, us);
		}
		fflush(stdout);
	}
	free(a);
	free(b);
	MPI_Finalize();
	return 0;
}
