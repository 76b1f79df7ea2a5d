// SPDX-License-Identifier: MIT
/*
 * Persistent requests in every send mode: created once, started many
 * times (Start and Startall), inactive between, Wait on an inactive one
 * returns at once, freed with Request_free.  A partitioned send with a
 * partition not ready: Wait and Waitall refuse it at this level (they
 * could never end), and it goes once the partition is marked.
 */
#include "test.h"

#define ITERS 200

/*
 * At MPI_THREAD_SINGLE a wait for a partitioned send with a partition
 * not ready could never end: refused, and the request still works.
 */
static void unready_partitions(void)
{
	int out[4] = { 1, 2, 3, 4 }, in[4] = { 0 };
	MPI_Request q[2];

	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Psend_init(out, 2, 2, MPI_INT, 0, 30, MPI_COMM_SELF,
			      MPI_INFO_NULL, &q[0]));
	MPI_OK(MPI_Precv_init(in, 1, 4, MPI_INT, 0, 30, MPI_COMM_SELF,
			      MPI_INFO_NULL, &q[1]));
	MPI_OK(MPI_Startall(2, q));
	MPI_OK(MPI_Pready(1, q[0]));
	T_EXPECT(MPI_Wait(&q[0], MPI_STATUS_IGNORE), MPI_ERR_REQUEST,
		 "a wait for a partition never marked");
	T_EXPECT(MPI_Waitall(2, q, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST,
		 "a waitall for a partition never marked");
	MPI_OK(MPI_Pready(0, q[0]));
	MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
	CHECK(in[0] == 1 && in[3] == 4, "partitioned to self: %d %d", in[0],
	      in[3]);
	MPI_OK(MPI_Request_free(&q[0]));
	MPI_OK(MPI_Request_free(&q[1]));
}

int main(int argc, char **argv)
{
	static const int sizes[] = { 4, 50000 };
	int peer, s, i, m, flag, n, bsize;
	unsigned char *sb, *rb, *bbuf;
	MPI_Request r[2];
	MPI_Status st[2];
	void *det;

	t_init(&argc, &argv);
	peer = t_partner();
	sb = malloc(50000);
	rb = malloc(50000);
	bsize = 50000 + MPI_BSEND_OVERHEAD;
	bbuf = malloc((size_t)bsize);
	MPI_OK(MPI_Buffer_attach(bbuf, bsize));
	for (s = 0; s < 2; s++) {
		n = sizes[s];
		for (m = 0; m < 4; m++) {
			int (*init)(const void *, int, MPI_Datatype, int, int,
				    MPI_Comm, MPI_Request *) =
				m == 0 ? MPI_Send_init : m == 1 ? MPI_Ssend_init :
				m == 2 ? MPI_Bsend_init : MPI_Rsend_init;

			MPI_OK(MPI_Recv_init(rb, n, MPI_BYTE, peer, m, MPI_COMM_WORLD, &r[0]));
			MPI_OK(init(sb, n, MPI_BYTE, peer, m, MPI_COMM_WORLD, &r[1]));
			/* Inactive: Wait and Test return at once. */
			MPI_OK(MPI_Wait(&r[0], &st[0]));
			CHECK(r[0] != MPI_REQUEST_NULL, "persistent request freed by Wait");
			MPI_OK(MPI_Test(&r[1], &flag, &st[1]));
			CHECK(flag, "inactive request not complete");
			/* A ready send needs its receive posted: start it first. */
			MPI_OK(MPI_Start(&r[0]));
			t_barrier();
			for (i = 0; i < ITERS; i++) {
				t_fill(sb, (size_t)n, (unsigned)(i + m));
				if (i)
					MPI_OK(MPI_Start(&r[0]));
				if (m == 3 && i)
					MPI_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 99,
							    NULL, 0, MPI_BYTE, peer, 99,
							    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
				MPI_OK(MPI_Start(&r[1]));
				MPI_OK(MPI_Waitall(2, r, st));
				CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL,
				      "persistent request freed");
				CHECK(st[0].MPI_SOURCE == peer && st[0].MPI_TAG == m,
				      "status %d/%d", st[0].MPI_SOURCE, st[0].MPI_TAG);
				CHECK(!t_bad(rb, (size_t)n, (unsigned)(i + m)),
				      "mode %d iteration %d: wrong contents", m, i);
				if (m == 2 && n > 4)
					/* The buffer holds one message: let it drain. */
					MPI_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 98,
							    NULL, 0, MPI_BYTE, peer, 98,
							    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			}
			MPI_OK(MPI_Request_free(&r[0]));
			MPI_OK(MPI_Request_free(&r[1]));
			CHECK(r[0] == MPI_REQUEST_NULL, "Request_free left the handle");
			t_barrier();
		}
	}
	/* Startall over several. */
	MPI_Request q[4];
	MPI_OK(MPI_Recv_init(rb, 4, MPI_BYTE, peer, 20, MPI_COMM_WORLD, &q[0]));
	MPI_OK(MPI_Recv_init(rb + 4, 4, MPI_BYTE, peer, 21, MPI_COMM_WORLD, &q[1]));
	MPI_OK(MPI_Send_init(sb, 4, MPI_BYTE, peer, 21, MPI_COMM_WORLD, &q[2]));
	MPI_OK(MPI_Send_init(sb, 4, MPI_BYTE, peer, 20, MPI_COMM_WORLD, &q[3]));
	for (i = 0; i < ITERS; i++) {
		t_fill(sb, 4, (unsigned)i);
		MPI_OK(MPI_Startall(4, q));
		MPI_OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
		CHECK(!t_bad(rb, 4, (unsigned)i) && !t_bad(rb + 4, 4, (unsigned)i),
		      "startall %d", i);
	}
	for (i = 0; i < 4; i++)
		MPI_OK(MPI_Request_free(&q[i]));
	unready_partitions();
	MPI_OK(MPI_Buffer_detach(&det, &bsize));
	CHECK(det == bbuf, "detach returned another buffer");
	free(bbuf);
	free(sb);
	free(rb);
	return t_done();
}
