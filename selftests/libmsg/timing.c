// SPDX-License-Identifier: MIT
/*
 * The three receive timings, for an empty, a small, an eager-limit and
 * a rendezvous message: the receive is posted before the message is
 * sent; while it is in flight (sent, in the ring, not yet seen by the
 * receiver's progress engine); and after it arrived (Iprobe saw it).
 */
#include <time.h>
#include "test.h"

static const int sizes[] = { 0, 100, 16000, 2 << 20 };

static void pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int peer, s, timing, flag, cnt, n, seed;
	unsigned char *buf;
	MPI_Request req;
	MPI_Status st;

	t_init(&argc, &argv);
	peer = t_partner();
	buf = malloc(2 << 20);
	for (s = 0; s < 4; s++) {
		for (timing = 0; timing < 3; timing++) {
			n = sizes[s];
			seed = s * 10 + timing;
			if (peer == t_rank) {
				/* Alone: the same timings against itself. */
				unsigned char *sb = malloc((size_t)n + 1);

				t_fill(sb, (size_t)n, (unsigned)seed);
				if (timing == 0)
					MPI_OK(MPI_Irecv(buf, n, MPI_BYTE, t_rank, 5,
							 MPI_COMM_WORLD, &req));
				MPI_Request sr;
				MPI_OK(MPI_Isend(sb, n, MPI_BYTE, t_rank, 5,
						 MPI_COMM_WORLD, &sr));
				if (timing == 2) {
					do
						MPI_OK(MPI_Iprobe(t_rank, 5, MPI_COMM_WORLD,
								  &flag, &st));
					while (!flag);
				}
				if (timing)
					MPI_OK(MPI_Irecv(buf, n, MPI_BYTE, t_rank, 5,
							 MPI_COMM_WORLD, &req));
				MPI_OK(MPI_Wait(&req, &st));
				MPI_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
				free(sb);
			} else if (t_rank < peer) {
				/* Sender. */
				unsigned char *sb = malloc((size_t)n + 1);

				t_fill(sb, (size_t)n, (unsigned)seed);
				/* The receiver says when to send. */
				MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 1,
						MPI_COMM_WORLD, MPI_STATUS_IGNORE));
				MPI_OK(MPI_Send(sb, n, MPI_BYTE, peer, 5,
						MPI_COMM_WORLD));
				free(sb);
				continue;
			} else {
				if (timing == 0)
					MPI_OK(MPI_Irecv(buf, n, MPI_BYTE, peer, 5,
							 MPI_COMM_WORLD, &req));
				MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 1,
						MPI_COMM_WORLD));
				if (timing == 1)
					pause_ms(20);	/* in the ring, unseen */
				if (timing == 2) {
					do
						MPI_OK(MPI_Iprobe(peer, 5, MPI_COMM_WORLD,
								  &flag, &st));
					while (!flag);
					MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
					CHECK(cnt == n, "probe count %d, expected %d",
					      cnt, n);
				}
				if (timing)
					MPI_OK(MPI_Irecv(buf, n, MPI_BYTE, peer, 5,
							 MPI_COMM_WORLD, &req));
				MPI_OK(MPI_Wait(&req, &st));
			}
			MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
			CHECK(cnt == n, "size %d timing %d: got %d bytes", n, timing, cnt);
			CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 5,
			      "source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
			CHECK(!t_bad(buf, (size_t)n, (unsigned)seed),
			      "size %d timing %d: wrong contents", n, timing);
		}
	}
	free(buf);
	return t_done();
}
