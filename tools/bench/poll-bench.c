// SPDX-License-Identifier: MIT
/*
 * What polling costs: MPI_Iprobe and MPI_Test that find nothing, and a
 * token passed around a ring of ranks that wait for it by polling.
 *
 *   empty: rank 0 calls MPI_Iprobe (then MPI_Test on a receive nothing
 *          matches) ITERS times, the other ranks wait in MPI_Recv;
 *          prints ns per call.  This is the price of a poll that comes
 *          back empty: the same with and without a yield when not
 *          oversubscribed, a sched_yield more when oversubscribed.
 *   ring:  a token goes around the ring HOPS times, each rank waiting
 *          for it in a loop of MPI_Iprobe (then of MPI_Test on an
 *          Irecv); prints µs per hop.  With more ranks than CPUs, a
 *          rank that spins without yielding keeps the CPU the token's
 *          holder needs until the scheduler takes it away.
 *
 * Usage: mpiexec -n N poll-bench [empty|ring] [iterations]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void empty(long iters)
{
	double t0, probe, test;
	MPI_Request r;
	int flag = 0, go = 0;
	long i;

	MPI_Barrier(MPI_COMM_WORLD);
	if (rank != 0) {
		MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		return;
	}
	t0 = MPI_Wtime();
	for (i = 0; i < iters; i++)
		MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag,
			   MPI_STATUS_IGNORE);
	probe = MPI_Wtime() - t0;
	MPI_Irecv(&go, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r);
	t0 = MPI_Wtime();
	for (i = 0; i < iters; i++)
		MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
	test = MPI_Wtime() - t0;
	MPI_Cancel(&r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	for (i = 1; i < size; i++)
		MPI_Send(&go, 1, MPI_INT, (int)i, 2, MPI_COMM_WORLD);
	printf("empty poll, %d ranks: MPI_Iprobe %.1f ns, MPI_Test %.1f ns\n",
	       size, probe * 1e9 / (double)iters, test * 1e9 / (double)iters);
}

/* Wait for the token from prev by polling: Iprobe, or Test on an Irecv. */
static void await(int prev, int use_test, int *tok)
{
	MPI_Request r;
	int flag = 0;

	if (use_test) {
		MPI_Irecv(tok, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, &r);
		while (!flag)
			MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
		return;
	}
	while (!flag)
		MPI_Iprobe(prev, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	MPI_Recv(tok, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void ring(long hops)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	long rounds = hops / size, i;
	int use_test, tok = 0;
	double t0, t;

	if (size < 2)
		return;
	for (use_test = 0; use_test < 2; use_test++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (i = 0; i < rounds; i++) {
			if (rank == 0) {
				MPI_Send(&tok, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
				await(prev, use_test, &tok);
			} else {
				await(prev, use_test, &tok);
				tok++;
				MPI_Send(&tok, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
			}
		}
		t = MPI_Wtime() - t0;
		if (rank == 0)
			printf("ring, %d ranks, waiting by %s: %.2f us per hop\n",
			       size, use_test ? "MPI_Test" : "MPI_Iprobe",
			       t * 1e6 / (double)(rounds * size));
	}
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "both";
	long n = argc > 2 ? atol(argv[2]) : 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!strcmp(what, "empty") || !strcmp(what, "both"))
		empty(n ? n : 2000000);
	if (!strcmp(what, "ring") || !strcmp(what, "both"))
		ring(n ? n : 20000);
	MPI_Finalize();
	return 0;
}
