// SPDX-License-Identifier: MIT
/*
 * Sends that would deadlock if a blocked sender did not drain its
 * incoming rings: partners both MPI_Send a large message before either
 * receives; both send far more small messages than a ring holds before
 * receiving; and every rank sends a large message round a cycle of
 * blocking sends at once.
 */
#include "test.h"

#define BIG (4 << 20)
#define NSMALL 3000

int main(int argc, char **argv)
{
	int peer, i, next, prev, cnt;
	unsigned char *sb, *rb;
	MPI_Status st;

	t_init(&argc, &argv);
	peer = t_partner();
	next = (t_rank + 1) % t_size;
	prev = (t_rank + t_size - 1) % t_size;
	sb = malloc(BIG);
	rb = malloc(BIG);

	/* Large, head to head. */
	t_fill(sb, BIG, (unsigned)t_rank);
	MPI_OK(MPI_Send(sb, BIG, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
	MPI_OK(MPI_Recv(rb, BIG, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
	CHECK(cnt == BIG && !t_bad(rb, BIG, (unsigned)peer), "large exchange");

	/* Many small ones: more than the ring holds. */
	for (i = 0; i < NSMALL; i++) {
		t_fill(sb, 1000, (unsigned)(t_rank + i));
		MPI_OK(MPI_Send(sb, 1000, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
	}
	for (i = 0; i < NSMALL; i++) {
		MPI_OK(MPI_Recv(rb, 1000, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &st));
		CHECK(!t_bad(rb, 1000, (unsigned)(peer + i)), "small %d", i);
	}

	/* A cycle of blocking large sends. */
	t_fill(sb, BIG, (unsigned)(t_rank + 77));
	MPI_OK(MPI_Send(sb, BIG, MPI_BYTE, next, 3, MPI_COMM_WORLD));
	MPI_OK(MPI_Recv(rb, BIG, MPI_BYTE, prev, 3, MPI_COMM_WORLD, &st));
	CHECK(!t_bad(rb, BIG, (unsigned)(prev + 77)), "cycle");

	/* The same with Isend/Irecv and Sendrecv. */
	MPI_Request r[2];
	MPI_OK(MPI_Isend(sb, BIG, MPI_BYTE, next, 4, MPI_COMM_WORLD, &r[0]));
	MPI_OK(MPI_Irecv(rb, BIG, MPI_BYTE, prev, 4, MPI_COMM_WORLD, &r[1]));
	MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
	CHECK(!t_bad(rb, BIG, (unsigned)(prev + 77)), "nonblocking cycle");
	MPI_OK(MPI_Sendrecv(sb, BIG, MPI_BYTE, next, 5, rb, BIG, MPI_BYTE, prev,
			    5, MPI_COMM_WORLD, &st));
	CHECK(!t_bad(rb, BIG, (unsigned)(prev + 77)), "sendrecv cycle");

	free(sb);
	free(rb);
	return t_done();
}
