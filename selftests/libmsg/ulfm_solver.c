// SPDX-License-Identifier: MIT
// libmsg-test: run-by=ulfm.sh
/*
 * A ULFM program as they are written: a Jacobi solver of a diagonally
 * dominant system of N unknowns, its rows shared out in blocks, that
 * loses a rank at a random iteration and finishes without it.
 *
 *   ulfm_solver SEED
 *
 * SEED picks the victim (any rank, rank 0 too), the iteration and the
 * way it dies: at a point of the iteration (before its allgather), or
 * from a timer that fires 1-500 us into the iteration, wherever the rank
 * then is (often inside the allgather).  SEED 0: nobody dies.
 *
 * Each iteration computes the rank's rows of x' from x and allgathers
 * x'.  A rank whose allgather fails revokes the communicator (the
 * others, blocked in the allgather, wake with MPI_ERR_REVOKED); then
 * every rank agrees on whether the iteration succeeded everywhere.  If
 * not, they shrink the communicator (MPIX_Comm_ishrink for an odd
 * SEED, MPIX_Comm_shrink else), share the rows out again among
 * the survivors and redo the iteration from the last agreed x, which
 * every survivor holds whole.  A row's new value is computed the same
 * way whoever owns it, so the result must equal the serial solver's
 * bit for bit: each survivor checks it and prints
 * "ulfm_solver: rank R ok", ulfm.sh counts the lines.
 */
#include <signal.h>
#include <sys/time.h>
#include <mpi-ext.h>
#include "test.h"

#define N	96
#define ITERS	60

static double a[N][N], b[N];

static void problem(void)
{
	int i, j;

	for (i = 0; i < N; i++) {
		b[i] = (double)(i % 7) - 3.0;
		for (j = 0; j < N; j++)
			a[i][j] = i == j ? 4.0 * N :
				(double)((i * 31 + j * 17) % 11) - 5.0;
	}
}

static double row(const double *x, int i)
{
	double s = b[i];
	int j;

	for (j = 0; j < N; j++)
		if (j != i)
			s -= a[i][j] * x[j];
	return s / a[i][i];
}

/* The rows of rank r of n: [first, first + count). */
static void block(int r, int n, int *first, int *count)
{
	*first = N * r / n;
	*count = N * (r + 1) / n - *first;
}

static void die(int sig)
{
	(void)sig;
	raise(SIGKILL);
}

int main(int argc, char **argv)
{
	unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 0;
	double x[N] = { 0 }, xn[N], ref[N], mine[N];
	int counts[64], displs[64], victim = -1, kill_it = -1, timer = 0;
	int it, i, r, n, first, cnt, ok, recoveries = 0, err;
	MPI_Comm comm;

	t_init(&argc, &argv);
	CHECK(t_size <= 64, "at most 64 ranks");
	problem();
	if (seed) {
		srand(seed);
		victim = rand() % t_size;
		kill_it = rand() % ITERS;
		timer = rand() % 2;
	}
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
	for (it = 0; it < ITERS;) {
		MPI_OK(MPI_Comm_rank(comm, &r));
		MPI_OK(MPI_Comm_size(comm, &n));
		for (i = 0; i < n; i++)
			block(i, n, &displs[i], &counts[i]);
		first = displs[r];
		cnt = counts[r];
		if (t_rank == victim && it == kill_it) {
			if (!timer) {
				raise(SIGKILL);
			} else {
				struct itimerval tv = { { 0, 0 },
					{ 0, rand() % 500 + 1 } };

				signal(SIGALRM, die);
				setitimer(ITIMER_REAL, &tv, NULL);
			}
		}
		for (i = 0; i < cnt; i++)
			mine[i] = row(x, first + i);
		err = MPI_Allgatherv(mine, cnt, MPI_DOUBLE, xn, counts, displs,
				     MPI_DOUBLE, comm);
		if (err != MPI_SUCCESS)
			MPIX_Comm_revoke(comm);
		ok = err == MPI_SUCCESS;
		err = MPIX_Comm_agree(comm, &ok);
		CHECK(err == MPI_SUCCESS || err == MPI_ERR_PROC_FAILED,
		      "agree: error %d", err);
		if (ok) {
			memcpy(x, xn, sizeof(x));
			it++;
			continue;
		}
		/* Someone failed this iteration: without the dead, again. */
		{
			MPI_Comm s;

			MPI_Request req;

			MPI_OK(MPIX_Comm_failure_ack(comm));
			if (seed % 2) {
				MPI_OK(MPIX_Comm_ishrink(comm, &s, &req));
				MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
			} else {
				MPI_OK(MPIX_Comm_shrink(comm, &s));
			}
			MPI_OK(MPI_Comm_free(&comm));
			comm = s;
			recoveries++;
		}
	}
	/* A timer may not have fired yet: the victim dies all the same. */
	if (t_rank == victim)
		raise(SIGKILL);
	memset(ref, 0, sizeof(ref));
	for (it = 0; it < ITERS; it++) {
		for (i = 0; i < N; i++)
			xn[i] = row(ref, i);
		memcpy(ref, xn, sizeof(ref));
	}
	CHECK(memcmp(x, ref, sizeof(x)) == 0, "x differs from the serial solver");
	MPI_OK(MPI_Comm_size(comm, &n));
	CHECK(victim < 0 ? n == t_size : n >= t_size - 1,
	      "%d ranks left of %d", n, t_size);
	printf("ulfm_solver: rank %d ok (%d of %d left, %d recoveries, "
	       "victim %d at iteration %d%s)\n", t_rank, n, t_size, recoveries,
	       victim, kill_it, timer ? " by a timer" : "");
	fflush(stdout);
	MPI_OK(MPI_Comm_free(&comm));
	MPI_Finalize();
	return 0;
}
