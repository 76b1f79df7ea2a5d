// SPDX-License-Identifier: MIT
/*
 * MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0): around a ring,
 * eager and rendezvous, contiguous and a vector type, the status the
 * receive's; completed by Wait and by Test alone; both ranks of a pair
 * sending large at once (no deadlock); MPI_PROC_NULL both ways.  The
 * request is not complete while its send is not: with a peer that sends
 * its part at once and takes ours only when told, the request stays
 * pending after the received data is in.
 * MPI_Cancel of an exchange nobody matches cancels it; a request freed
 * while active still delivers.  Bad arguments: a bad rank, a negative
 * count, a NULL request.
 */
#include <time.h>

#include "test.h"

#define BIG (1 << 20)	/* bytes: over the eager limit */

static void ring(size_t n, int by_test, unsigned seed)
{
	int to = (t_rank + 1) % t_size, from = (t_rank + t_size - 1) % t_size;
	unsigned char *s = malloc(n), *r = malloc(n);
	MPI_Request q;
	MPI_Status st;
	int flag = 0, count;

	CHECK(s && r, "out of memory");
	t_fill(s, n, seed + (unsigned)t_rank);
	memset(r, 0, n);
	MPI_OK(MPI_Isendrecv(s, (int)n, MPI_BYTE, to, 5, r, (int)n, MPI_BYTE,
			     from, 5, MPI_COMM_WORLD, &q));
	if (by_test)
		while (!flag)
			MPI_OK(MPI_Test(&q, &flag, &st));
	else
		MPI_OK(MPI_Wait(&q, &st));
	CHECK(q == MPI_REQUEST_NULL, "request not released");
	CHECK(!t_bad(r, n, seed + (unsigned)from), "%zu bytes from %d differ",
	      n, from);
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
	CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 5 && count == (int)n,
	      "status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, count);
	free(s);
	free(r);
}

/* Replace, typed: a vector of doubles, every other one. */
static void replace(int nblocks)
{
	int to = (t_rank + 1) % t_size, from = (t_rank + t_size - 1) % t_size;
	double *b = malloc(sizeof(double) * 2 * (size_t)nblocks);
	MPI_Datatype v;
	MPI_Request q;
	MPI_Status st;
	int i, count;

	CHECK(b, "out of memory");
	MPI_OK(MPI_Type_vector(nblocks, 1, 2, MPI_DOUBLE, &v));
	MPI_OK(MPI_Type_commit(&v));
	for (i = 0; i < 2 * nblocks; i++)
		b[i] = i % 2 ? -1.0 : t_rank * 1e6 + i;
	MPI_OK(MPI_Isendrecv_replace(b, 1, v, to, 6, from, 6, MPI_COMM_WORLD,
				     &q));
	MPI_OK(MPI_Wait(&q, &st));
	for (i = 0; i < 2 * nblocks; i++)
		CHECK(b[i] == (i % 2 ? -1.0 : from * 1e6 + i),
		      "replace %d blocks: [%d] %g", nblocks, i, b[i]);
	MPI_OK(MPI_Get_count(&st, v, &count));
	CHECK(count == 1 && st.MPI_SOURCE == from, "replace status %d", count);
	MPI_OK(MPI_Type_free(&v));
	free(b);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Rank 0's request waits for its send, which rank 1 takes only when
 * rank 0 says so, after it saw its received data in and the request
 * still pending.  No timing (ranks may be descheduled for long when
 * there are more of them than CPUs), and rank 1 never blocks while rank
 * 0's offer waits in its queue: a rank blocked in a wait pulls an
 * unmatched rendezvous in (MPICHAN_PULL_MAX), which completes the send.
 * So rank 1 says it is polling before rank 0 makes the offer.
 */
static void waits_for_send(void)
{
	unsigned char *big = malloc(BIG);
	int small = 7, got = 0, flag = 0;
	MPI_Request q;
	double t0;

	CHECK(big, "out of memory");
	if (t_rank == 0) {
		t_fill(big, BIG, 3);
		MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 11, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		MPI_OK(MPI_Isendrecv(big, BIG, MPI_BYTE, 1, 8, &got, 1, MPI_INT,
				     1, 9, MPI_COMM_WORLD, &q));
		/* The receive's data lands; then some more tests. */
		while (*(volatile int *)&got != 7)
			MPI_OK(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
		t0 = now();
		while (now() - t0 < 0.05)
			MPI_OK(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
		CHECK(!flag, "complete before its send was taken");
		MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 10, MPI_COMM_WORLD));
		MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
		CHECK(got == 7, "got %d", got);
	} else if (t_rank == 1) {
		MPI_OK(MPI_Send(&small, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
		MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 11, MPI_COMM_WORLD));
		while (!flag)
			MPI_OK(MPI_Iprobe(0, 10, MPI_COMM_WORLD, &flag,
					  MPI_STATUS_IGNORE));
		MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 10, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		MPI_OK(MPI_Recv(big, BIG, MPI_BYTE, 0, 8, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		CHECK(!t_bad(big, BIG, 3), "late receive differs");
	}
	free(big);
}

static void cancel_and_free(void)
{
	unsigned char *big = malloc(BIG);
	int x = 0, flag = 0;
	MPI_Request q;
	MPI_Status st;

	CHECK(big, "out of memory");
	/* Nobody matches tags 20/21: cancelled, both halves. */
	MPI_OK(MPI_Isendrecv(big, BIG, MPI_BYTE, (t_rank + 1) % t_size, 20,
			     &x, 1, MPI_INT, (t_rank + 1) % t_size, 21,
			     MPI_COMM_WORLD, &q));
	MPI_OK(MPI_Cancel(&q));
	MPI_OK(MPI_Wait(&q, &st));
	MPI_OK(MPI_Test_cancelled(&st, &flag));
	CHECK(flag, "not cancelled");
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

	/* Freed while active: the exchange still happens. */
	if (t_size >= 2 && t_rank < 2) {
		int peer = 1 - t_rank, in = -1, out = 40 + t_rank;

		MPI_OK(MPI_Isendrecv(&out, 1, MPI_INT, peer, 22, &in, 1,
				     MPI_INT, peer, 22, MPI_COMM_WORLD, &q));
		MPI_OK(MPI_Request_free(&q));
		CHECK(q == MPI_REQUEST_NULL, "freed request not reset");
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));	/* progress */
		while (in == -1)
			MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
					  &flag, MPI_STATUS_IGNORE));
		CHECK(in == 40 + peer, "freed exchange got %d", in);
	} else {
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	}
	free(big);
}

static void edges(void)
{
	int x = 1, y = 2, err;
	MPI_Request q;
	MPI_Status st;

	MPI_OK(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT,
			     MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q));
	MPI_OK(MPI_Wait(&q, &st));
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL && y == 2, "PROC_NULL");
	err = MPI_Isendrecv(&x, 1, MPI_INT, t_size, 0, &y, 1, MPI_INT, 0, 0,
			    MPI_COMM_WORLD, &q);
	CHECK(err == MPI_ERR_RANK, "bad rank: %d", err);
	err = MPI_Isendrecv(&x, -1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0,
			    MPI_COMM_WORLD, &q);
	CHECK(err == MPI_ERR_COUNT, "negative count: %d", err);
	err = MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0,
			    MPI_COMM_WORLD, NULL);
	CHECK(err == MPI_ERR_REQUEST, "NULL request: %d", err);
	err = MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, 0, t_size, 0,
				    MPI_COMM_WORLD, &q);
	CHECK(err == MPI_ERR_RANK, "replace, bad source: %d", err);
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	ring(100, 0, 1);
	ring(100, 1, 2);
	ring(BIG, 0, 3);
	ring(BIG, 1, 4);
	replace(10);
	replace(BIG / 8);
	if (t_size >= 2)
		waits_for_send();
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	cancel_and_free();
	edges();
	MPI_Finalize();
	if (t_rank == 0)
		printf("isendrecv: ok (%d ranks)\n", t_size);
	return 0;
}
