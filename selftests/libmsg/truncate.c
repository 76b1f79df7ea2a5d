// SPDX-License-Identifier: MIT
/*
 * A message longer than the receive buffer: MPI_ERR_TRUNCATE from the
 * receive (blocking and not), the status counts what arrived (its
 * MPI_ERROR left as it was: a call of one status returns the error),
 * the buffer holds the first part, nothing past it is written, and the
 * next message is fine.
 */
#include "test.h"

static const int sizes[] = { 64, 16000, 1 << 20 };

int main(int argc, char **argv)
{
	int peer, s, err, cls, cnt, n;
	unsigned char *sb, *rb;
	MPI_Request req, sr;
	MPI_Status st;

	t_init(&argc, &argv);
	peer = t_partner();
	sb = malloc(1 << 20);
	rb = malloc(1 << 20);
	for (s = 0; s < 3; s++) {
		n = sizes[s];
		t_fill(sb, (size_t)n, (unsigned)s);
		MPI_OK(MPI_Isend(sb, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &sr));
		MPI_OK(MPI_Isend(sb, n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req));
		memset(rb, 0xee, (size_t)n);
		st.MPI_ERROR = 12345;
		err = MPI_Recv(rb, n / 2, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
		MPI_Error_class(err, &cls);
		CHECK(cls == MPI_ERR_TRUNCATE, "size %d: Recv returned %d", n, err);
		/* One status: the error is returned, MPI_ERROR left (3.2.5). */
		CHECK(st.MPI_ERROR == 12345, "status error %d", st.MPI_ERROR);
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == n / 2, "count %d", cnt);
		CHECK(!t_bad(rb, (size_t)(n / 2), (unsigned)s), "truncated contents");
		CHECK(rb[n / 2] == 0xee, "wrote past the buffer");
		MPI_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));

		/* Nonblocking: the error comes from Wait. */
		MPI_Request rr;
		MPI_OK(MPI_Irecv(rb, n - 1, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rr));
		err = MPI_Wait(&rr, &st);
		MPI_Error_class(err, &cls);
		CHECK(cls == MPI_ERR_TRUNCATE, "size %d: Wait returned %d", n, err);
		MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));

		/* Then all is well. */
		MPI_OK(MPI_Sendrecv(sb, n, MPI_BYTE, peer, 3, rb, n, MPI_BYTE, peer,
				    3, MPI_COMM_WORLD, &st));
		CHECK(!t_bad(rb, (size_t)n, (unsigned)s), "after truncation");
	}
	free(sb);
	free(rb);
	return t_done();
}
