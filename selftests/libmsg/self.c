// SPDX-License-Identifier: MIT
/*
 * Messages to oneself, on MPI_COMM_WORLD and MPI_COMM_SELF, small and
 * large, blocking (a large blocking send to self completes once the
 * receiver side pulls it) and not; Sendrecv and Sendrecv_replace to
 * self; SELF's traffic does not mix with WORLD's.
 */
#include "test.h"

int main(int argc, char **argv)
{
	static const int sizes[] = { 0, 1, 1000, 16384, 100000, 4 << 20 };
	unsigned char *sb, *rb;
	MPI_Request r[2];
	MPI_Status st;
	int s, n, cnt, me, sz;

	t_init(&argc, &argv);
	MPI_OK(MPI_Comm_rank(MPI_COMM_SELF, &me));
	MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &sz));
	CHECK(me == 0 && sz == 1, "COMM_SELF rank %d size %d", me, sz);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	sb = malloc(4 << 20);
	rb = malloc(4 << 20);
	for (s = 0; s < 6; s++) {
		n = sizes[s];
		t_fill(sb, (size_t)n, (unsigned)s);
		MPI_OK(MPI_Send(sb, n, MPI_BYTE, t_rank, 1, MPI_COMM_WORLD));
		MPI_OK(MPI_Recv(rb, n, MPI_BYTE, t_rank, 1, MPI_COMM_WORLD, &st));
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == n && st.MPI_SOURCE == t_rank && !t_bad(rb, (size_t)n, (unsigned)s),
		      "world self-send of %d", n);

		/* SELF first, WORLD second; receive in the other order. */
		MPI_OK(MPI_Isend(sb, n, MPI_BYTE, 0, 2, MPI_COMM_SELF, &r[0]));
		MPI_OK(MPI_Isend(sb, n / 2, MPI_BYTE, t_rank, 2, MPI_COMM_WORLD, &r[1]));
		MPI_OK(MPI_Recv(rb, n, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st));
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == n / 2, "world got the self message (%d bytes)", cnt);
		MPI_OK(MPI_Recv(rb, n, MPI_BYTE, 0, 2, MPI_COMM_SELF, &st));
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == n && st.MPI_SOURCE == 0 && !t_bad(rb, (size_t)n, (unsigned)s),
		      "self message of %d", n);
		MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));

		MPI_OK(MPI_Sendrecv(sb, n, MPI_BYTE, 0, 3, rb, n, MPI_BYTE, 0, 3,
				    MPI_COMM_SELF, &st));
		CHECK(!t_bad(rb, (size_t)n, (unsigned)s), "sendrecv to self");
		memcpy(rb, sb, (size_t)n);
		MPI_OK(MPI_Sendrecv_replace(rb, n, MPI_BYTE, t_rank, 4, t_rank, 4,
					    MPI_COMM_WORLD, &st));
		CHECK(!t_bad(rb, (size_t)n, (unsigned)s), "sendrecv_replace to self");
	}
	free(sb);
	free(rb);
	return t_done();
}
