// SPDX-License-Identifier: MIT
/*
 * MPI_Cancel: an unmatched receive is cancelled (Test_cancelled says so,
 * it receives nothing, a later message goes to the next receive); an
 * unmatched synchronous send is cancelled and never arrives; a standard
 * send either is cancelled and never arrives or arrives intact; a
 * completed operation is not cancelled.
 */
#include "test.h"

int main(int argc, char **argv)
{
	static const int sizes[] = { 8, 1 << 20 };
	int peer, s, flag, n, outcome[2];
	unsigned char *sb, *rb;
	MPI_Request req;
	MPI_Status st;

	t_init(&argc, &argv);
	peer = t_partner();
	sb = malloc(1 << 20);
	rb = malloc(1 << 20);

	/* Receives. */
	MPI_OK(MPI_Irecv(rb, 10, MPI_BYTE, peer, 42, MPI_COMM_WORLD, &req));
	MPI_OK(MPI_Cancel(&req));
	MPI_OK(MPI_Wait(&req, &st));
	MPI_OK(MPI_Test_cancelled(&st, &flag));
	CHECK(flag, "receive not cancelled");
	CHECK(req == MPI_REQUEST_NULL, "request not freed");
	t_fill(sb, 10, 1);
	MPI_OK(MPI_Sendrecv(sb, 10, MPI_BYTE, peer, 42, rb, 10, MPI_BYTE, peer,
			    42, MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Test_cancelled(&st, &flag));
	CHECK(!flag && !t_bad(rb, 10, 1), "receive after a cancel");

	for (s = 0; s < 2; s++) {
		n = sizes[s];
		t_fill(sb, (size_t)n, (unsigned)s);
		/* Synchronous: never matched before the cancel, so cancelled. */
		MPI_OK(MPI_Issend(sb, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &req));
		MPI_OK(MPI_Cancel(&req));
		MPI_OK(MPI_Wait(&req, &st));
		MPI_OK(MPI_Test_cancelled(&st, &outcome[0]));
		CHECK(outcome[0], "unmatched Issend of %d bytes not cancelled", n);
		/* Standard: either outcome, but the receiver must agree. */
		MPI_OK(MPI_Isend(sb, n, MPI_BYTE, peer, 8, MPI_COMM_WORLD, &req));
		MPI_OK(MPI_Cancel(&req));
		MPI_OK(MPI_Wait(&req, &st));
		MPI_OK(MPI_Test_cancelled(&st, &outcome[1]));
		/* Tell the peer (after the sends: ring order). */
		MPI_OK(MPI_Send(outcome, 2, MPI_INT, peer, 9, MPI_COMM_WORLD));
		MPI_OK(MPI_Recv(outcome, 2, MPI_INT, peer, 9, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		MPI_OK(MPI_Iprobe(peer, 7, MPI_COMM_WORLD, &flag, &st));
		CHECK(!flag, "a cancelled Issend arrived");
		MPI_OK(MPI_Iprobe(peer, 8, MPI_COMM_WORLD, &flag, &st));
		CHECK(flag == !outcome[1], "Isend cancelled %d but arrived %d",
		      outcome[1], flag);
		if (flag) {
			MPI_OK(MPI_Recv(rb, n, MPI_BYTE, peer, 8, MPI_COMM_WORLD, &st));
			CHECK(!t_bad(rb, (size_t)n, (unsigned)s), "contents");
		}
		t_barrier();
	}

	/* Completed: not cancelled. */
	MPI_OK(MPI_Isend(sb, 4, MPI_BYTE, peer, 10, MPI_COMM_WORLD, &req));
	MPI_OK(MPI_Recv(rb, 4, MPI_BYTE, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&req, &st));
	MPI_OK(MPI_Test_cancelled(&st, &flag));
	CHECK(!flag, "completed send reported cancelled");
	free(sb);
	free(rb);
	return t_done();
}
