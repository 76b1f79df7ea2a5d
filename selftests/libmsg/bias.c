// SPDX-License-Identifier: MIT
/*
 * The library lock's bias (src/thread.c): at MPI_THREAD_MULTIPLE the
 * thread that initialised MPI holds the lock without the mutex until
 * another thread makes its first call.  That call must get in while
 * the owner is blocked in a receive only it can satisfy: a bias that
 * waited for the owner's call to end would hang here.  Even ranks wait
 * by spinning (MPICHAN_WAIT=spin, the owner gives the lock up between
 * polls), odd ranks the default way (they sleep in the transport), and
 * on odd ranks the second thread starts late, so the owner is asleep
 * when it comes.  After that both threads run at once, through the
 * mutex, and every payload is checked.
 */
#include <pthread.h>

#include "test.h"

#define ROUNDS	200

static int right, left;

/* Exchange `rounds` numbered messages round the ring, on tag `tag`. */
static void ring(int tag, int rounds)
{
	int i, out, in;

	for (i = 0; i < rounds; i++) {
		out = t_rank * 100000 + tag * 1000 + i;
		MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, tag, &in, 1,
				    MPI_INT, left, tag, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE));
		CHECK(in == left * 100000 + tag * 1000 + i,
		      "tag %d round %d: got %d", tag, i, in);
	}
}

/* The second thread's first call comes while the owner waits for it. */
static void *late_caller(void *arg)
{
	int v = t_rank;

	(void)arg;
	if (t_rank % 2)
		usleep(50000);
	MPI_OK(MPI_Send(&v, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
	v = t_rank * 3;
	MPI_OK(MPI_Send(&v, 1, MPI_INT, t_rank, 8, MPI_COMM_WORLD));
	return NULL;
}

static void *ring_thread(void *arg)
{
	ring(*(int *)arg, ROUNDS);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *r = getenv("MPICHAN_RANK");
	int provided, v, tag_b = 9, sum;
	pthread_t th;

	if (r && atoi(r) % 2 == 0)
		setenv("MPICHAN_WAIT", "spin", 1);
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	right = (t_rank + 1) % t_size;
	left = (t_rank + t_size - 1) % t_size;

	/* The owner alone: the biased lock. */
	ring(1, ROUNDS);

	/* Another thread's first call, while the owner is blocked. */
	CHECK(!pthread_create(&th, NULL, late_caller, NULL), "pthread_create");
	MPI_OK(MPI_Recv(&v, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	CHECK(v == left, "tag 7: got %d", v);
	MPI_OK(MPI_Recv(&v, 1, MPI_INT, t_rank, 8, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	CHECK(v == t_rank * 3, "tag 8: got %d", v);
	CHECK(!pthread_join(th, NULL), "pthread_join");

	/* Revoked: both threads through the mutex, at once. */
	CHECK(!pthread_create(&th, NULL, ring_thread, &tag_b), "pthread_create");
	ring(10, ROUNDS);
	CHECK(!pthread_join(th, NULL), "pthread_join");

	MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM,
			     MPI_COMM_WORLD));
	CHECK(sum == t_size * (t_size - 1) / 2, "allreduce %d", sum);
	MPI_Finalize();
	if (t_rank == 0)
		printf("bias: ok (%d ranks)\n", t_size);
	return 0;
}
