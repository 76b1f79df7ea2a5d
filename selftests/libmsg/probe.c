// SPDX-License-Identifier: MIT
/*
 * Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv: probes report source,
 * tag and size without receiving; a matched probe (MPI_Message) takes
 * the message out of matching, so a later wildcard receive gets the
 * next one; small and rendezvous sizes.  A message Mprobe'd on a
 * communicator freed before its MPI_Mrecv is still received whole
 * (the ASan build catches a communicator released under it).
 */
#include "test.h"

int main(int argc, char **argv)
{
	static const int sizes[] = { 0, 24, 100000 };
	int peer, s, flag, cnt, n;
	unsigned char *sb, *rb;
	MPI_Message msg;
	MPI_Request req, sr[3];
	MPI_Status st;

	t_init(&argc, &argv);
	peer = t_partner();
	sb = malloc(100000 * 3);
	rb = malloc(100000);
	for (s = 0; s < 3; s++) {
		n = sizes[s];
		t_fill(sb, (size_t)n, 1);
		t_fill(sb + 100000, (size_t)n, 2);
		t_fill(sb + 200000, (size_t)n, 3);
		MPI_OK(MPI_Isend(sb, n, MPI_BYTE, peer, 11, MPI_COMM_WORLD, &sr[0]));
		MPI_OK(MPI_Isend(sb + 100000, n, MPI_BYTE, peer, 11, MPI_COMM_WORLD, &sr[1]));
		MPI_OK(MPI_Isend(sb + 200000, n, MPI_BYTE, peer, 12, MPI_COMM_WORLD, &sr[2]));

		MPI_OK(MPI_Probe(peer, 12, MPI_COMM_WORLD, &st));
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 12 && cnt == n,
		      "probe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
		/* Probing again finds the same message. */
		MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &flag, &st));
		CHECK(flag && st.MPI_TAG == 12, "iprobe lost the message");
		MPI_OK(MPI_Iprobe(peer, 13, MPI_COMM_WORLD, &flag, &st));
		CHECK(!flag, "iprobe found a message never sent");

		MPI_OK(MPI_Mprobe(peer, 11, MPI_COMM_WORLD, &msg, &st));
		CHECK(msg != MPI_MESSAGE_NULL, "no message handle");
		/* The first tag-11 message is taken: a receive gets the second. */
		MPI_OK(MPI_Recv(rb, n, MPI_BYTE, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st));
		CHECK(!t_bad(rb, (size_t)n, 2), "receive after mprobe got the wrong one");
		MPI_OK(MPI_Mrecv(rb, n, MPI_BYTE, &msg, &st));
		CHECK(msg == MPI_MESSAGE_NULL, "message handle not cleared");
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == n && !t_bad(rb, (size_t)n, 1), "mrecv contents");

		do
			MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, 12, MPI_COMM_WORLD,
					   &flag, &msg, &st));
		while (!flag);
		CHECK(st.MPI_TAG == 12, "improbe tag %d", st.MPI_TAG);
		MPI_OK(MPI_Imrecv(rb, n, MPI_BYTE, &msg, &req));
		MPI_OK(MPI_Wait(&req, &st));
		CHECK(st.MPI_SOURCE == peer && !t_bad(rb, (size_t)n, 3), "imrecv");
		MPI_OK(MPI_Waitall(3, sr, MPI_STATUSES_IGNORE));
		t_barrier();
	}
	/* The communicator freed between Mprobe and Mrecv. */
	for (s = 0; s < 3; s++) {
		MPI_Comm d, e;

		n = sizes[s];
		MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
		t_fill(sb, (size_t)n, 4);
		MPI_OK(MPI_Isend(sb, n, MPI_BYTE, peer, 14, d, &sr[0]));
		MPI_OK(MPI_Mprobe(peer, 14, d, &msg, &st));
		MPI_OK(MPI_Comm_free(&d));
		MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &e));	/* reaps */
		MPI_OK(MPI_Mrecv(rb, n, MPI_BYTE, &msg, &st));
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == n && st.MPI_SOURCE == peer && st.MPI_TAG == 14 &&
		      !t_bad(rb, (size_t)n, 4),
		      "mrecv after free: %d bytes from %d", cnt, st.MPI_SOURCE);
		MPI_OK(MPI_Wait(&sr[0], MPI_STATUS_IGNORE));
		MPI_OK(MPI_Comm_free(&e));
		t_barrier();
	}
	/* MPI_PROC_NULL. */
	MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, &st));
	CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "no proc");
	MPI_OK(MPI_Mrecv(rb, 10, MPI_BYTE, &msg, &st));
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
	CHECK(cnt == 0 && st.MPI_SOURCE == MPI_PROC_NULL, "mrecv from no proc");
	free(sb);
	free(rb);
	return t_done();
}
