// SPDX-License-Identifier: MIT
/*
 * MPICHAN_WAIT_REPORT (libmsg/src/report.c), set to 0.3 s by the
 * program itself before MPI_Init.  Rank 1 captures its own stderr while
 * rank 0 keeps it waiting 1.5 s each time:
 *   - in a receive: the report names the receive (rank 0, tag 42, on
 *     MPI_COMM_WORLD, 8 bytes), once, and the receive completes;
 *   - in a receive of tag 44 when rank 0 sent tag 5 first: the message
 *     that came and no receive took;
 *   - in a receive while rank 0's nonblocking broadcast has reached it:
 *     the collective's message no collective took;
 *   - in a 1 MiB send rank 0 has not taken, on a communicator the
 *     program named: the send, "not yet taken";
 *   - in a barrier: the collective on MPI_COMM_WORLD;
 *   - a ping-pong of 500 round trips that never stalls reports nothing.
 * Other ranks only take part in the barriers.
 */
#include "test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <time.h>

static char big[1 << 20];
static int saved_fd = -1, capture_fd = -1;
static char captured[8192];

static void capture_begin(void)
{
	char path[] = "/tmp/waitreport.XXXXXX";

	fflush(stderr);
	capture_fd = mkstemp(path);
	CHECK(capture_fd >= 0, "mkstemp");
	unlink(path);
	saved_fd = dup(STDERR_FILENO);
	CHECK(saved_fd >= 0 && dup2(capture_fd, STDERR_FILENO) >= 0, "dup2");
}

/* What was written to stderr since capture_begin(). */
static const char *capture_end(void)
{
	ssize_t n;

	fflush(stderr);
	CHECK(dup2(saved_fd, STDERR_FILENO) >= 0, "dup2 back");
	close(saved_fd);
	n = pread(capture_fd, captured, sizeof(captured) - 1, 0);
	close(capture_fd);
	captured[n > 0 ? n : 0] = 0;
	return captured;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static void nap(void)
{
	struct timespec ts = { 1, 500 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	MPI_Comm named;
	const char *out;
	double x = 0;
	int i;

	setenv("MPICHAN_WAIT_REPORT", "0.3", 1);
	t_init(&argc, &argv);
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &named));
	MPI_OK(MPI_Comm_set_name(named, "solver"));
	if (t_size < 2) {
		MPI_OK(MPI_Comm_free(&named));
		return t_done();
	}

	/* A receive kept waiting. */
	if (t_rank == 0) {
		nap();
		MPI_OK(MPI_Send(&x, 1, MPI_DOUBLE, 1, 42, MPI_COMM_WORLD));
	} else if (t_rank == 1) {
		capture_begin();
		MPI_OK(MPI_Recv(&x, 1, MPI_DOUBLE, 0, 42, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		out = capture_end();
		/* Once per stalled wait (more ranks: others' traffic may end
		 * one stall and start another). */
		CHECK(t_size == 2 ? count(out, "no progress for") == 1 :
		      count(out, "no progress for") >= 1, "reports: %s", out);
		CHECK(strstr(out, "a receive from rank 0 tag 42 on MPI_COMM_WORLD (8 bytes)"),
		      "no line for the receive: %s", out);
	}

	/* The message a receive waits for, sent with another tag. */
	if (t_rank == 0) {
		MPI_OK(MPI_Send(&x, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD));
		nap();
		MPI_OK(MPI_Send(&x, 1, MPI_DOUBLE, 1, 44, MPI_COMM_WORLD));
	} else if (t_rank == 1) {
		capture_begin();
		MPI_OK(MPI_Recv(&x, 1, MPI_DOUBLE, 0, 44, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		out = capture_end();
		CHECK(strstr(out, "(not waited for: a message from rank 0 tag 5 on MPI_COMM_WORLD, 8 bytes"),
		      "no line for the unexpected message: %s", out);
		MPI_OK(MPI_Recv(&x, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
	}

	/*
	 * A collective's message no collective waits for yet: rank 0's
	 * broadcast reaches rank 1 while rank 1 still waits in a receive.
	 */
	{
		MPI_Request q;
		double v = 3;

		if (t_rank == 1)
			capture_begin();
		if (t_rank == 0) {
			MPI_OK(MPI_Ibcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD,
					  &q));
			nap();
			MPI_OK(MPI_Send(&x, 1, MPI_DOUBLE, 1, 46,
					MPI_COMM_WORLD));
		} else if (t_rank == 1) {
			MPI_OK(MPI_Recv(&x, 1, MPI_DOUBLE, 0, 46,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			out = capture_end();
			CHECK(strstr(out, "(not waited for: a collective's message from rank 0 on MPI_COMM_WORLD, 8 bytes"),
			      "no line for the broadcast's message: %s", out);
		}
		if (t_rank != 0)
			MPI_OK(MPI_Ibcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD,
					  &q));
		MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
		CHECK(v == 3, "broadcast %g", v);
	}

	/* A large send nobody takes yet. */
	if (t_rank == 0) {
		nap();
		MPI_OK(MPI_Recv(big, sizeof(big), MPI_BYTE, 1, 43, named,
				MPI_STATUS_IGNORE));
	} else if (t_rank == 1) {
		capture_begin();
		MPI_OK(MPI_Send(big, sizeof(big), MPI_BYTE, 0, 43, named));
		out = capture_end();
		CHECK(strstr(out, "a send to rank 0 tag 43 on solver (1048576 bytes), not yet taken"),
		      "no line for the send: %s", out);
	}

	/* A collective kept waiting. */
	if (t_rank == 0)
		nap();
	if (t_rank == 1)
		capture_begin();
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == 1) {
		out = capture_end();
		CHECK(strstr(out, "a collective on MPI_COMM_WORLD"),
		      "no line for the barrier: %s", out);
	}

	/* Steady traffic: nothing to tell. */
	if (t_rank == 1)
		capture_begin();
	for (i = 0; i < 500 && t_rank < 2; i++) {
		if (t_rank == 0) {
			MPI_OK(MPI_Send(&x, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD));
			MPI_OK(MPI_Recv(&x, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
		} else {
			MPI_OK(MPI_Recv(&x, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
			MPI_OK(MPI_Send(&x, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD));
		}
	}
	if (t_rank == 1) {
		out = capture_end();
		CHECK(!strstr(out, "no progress"), "a report without a stall: %s",
		      out);
	}
	MPI_OK(MPI_Comm_free(&named));
	return t_done();
}
