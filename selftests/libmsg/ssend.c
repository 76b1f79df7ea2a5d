// SPDX-License-Identifier: MIT
/*
 * Synchronous sends complete only once matched: an Issend stays
 * incomplete (Test says no for a while) until the receiver, told to go
 * by a second message, posts its receive; for small and large sizes.
 * MPI_Ssend itself returns once the receive is matched.
 */
#include <time.h>
#include "test.h"

static double now(void) { return MPI_Wtime(); }

int main(int argc, char **argv)
{
	static const int sizes[] = { 0, 100, 1 << 20 };
	int peer, s, flag, n;
	unsigned char *sb, *rb;
	MPI_Request req;
	double t;

	t_init(&argc, &argv);
	peer = t_partner();
	sb = malloc(1 << 20);
	rb = malloc(1 << 20);
	for (s = 0; s < 3; s++) {
		n = sizes[s];
		t_fill(sb, (size_t)n, (unsigned)s);
		if (peer == t_rank) {
			MPI_OK(MPI_Issend(sb, n, MPI_BYTE, t_rank, 1, MPI_COMM_WORLD, &req));
			for (t = now(); now() - t < 0.05;) {
				MPI_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
				CHECK(!flag, "self Issend of %d bytes completed unmatched", n);
			}
			MPI_OK(MPI_Recv(rb, n, MPI_BYTE, t_rank, 1, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
			MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
		} else if (t_rank < peer) {
			MPI_OK(MPI_Issend(sb, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req));
			for (t = now(); now() - t < 0.05;) {
				MPI_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
				CHECK(!flag, "Issend of %d bytes completed unmatched", n);
			}
			MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
			MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
			/* Blocking: returns only after the peer posted. */
			MPI_OK(MPI_Ssend(sb, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
			MPI_OK(MPI_Recv(&t, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
			CHECK(now() >= t, "Ssend returned before the receive was posted");
		} else {
			/* Block in a receive meanwhile: must not match the Issend. */
			MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
			MPI_OK(MPI_Recv(rb, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
			CHECK(!t_bad(rb, (size_t)n, (unsigned)s), "contents");
			/* Make the Ssend wait 30 ms for its receive. */
			t = now();
			while (now() - t < 0.03)
				;
			t = now();
			MPI_OK(MPI_Recv(rb, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
			MPI_OK(MPI_Send(&t, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD));
		}
	}
	free(sb);
	free(rb);
	return t_done();
}
