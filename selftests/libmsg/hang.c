// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain run-by=selftests/top/top_test.sh
/*
 * hang MODE: a job that hangs on purpose, for mpichan-top's hang
 * diagnosis (selftests/top/top_test.sh kills it).  Not in the libmsg
 * runner's list: it never ends by itself, but with "progress".
 *   sendsend  ranks 0 and 1 send each other 4 MiB (MPI_Send, tag 5)
 *             and neither receives; MPICHAN_PULL_MAX=0, so neither
 *             pulls the other's message in (libmsg would otherwise).
 *             Other ranks wait in MPI_Finalize.
 *   barrier   every rank but the last enters MPI_Barrier on a
 *             duplicate of MPI_COMM_WORLD; the last waits in MPI_Recv
 *             from rank 3 (or 0) tag 9, which nobody sends.
 *   recv      rank 1 receives from rank 0 with tag 42; rank 0 sent it
 *             tag 5 and went on to MPI_Finalize.
 *   progress  the ranks pass a token round a ring for SECONDS (default
 *             6) seconds, every byte checked, then end: a job that
 *             moves all the time, watched.
 * It says "hang: MODE ready" (rank 0) once the ranks are in place.
 */
#include "test.h"

#include <time.h>

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void ready(const char *mode)
{
	if (t_rank == 0) {
		printf("hang: %s ready\n", mode);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	static char big[4 << 20], in[4 << 20];
	MPI_Comm dup;
	int v = 0;

	if (!strcmp(mode, "sendsend"))
		setenv("MPICHAN_PULL_MAX", "0", 1);
	t_init(&argc, &argv);
	if (!strcmp(mode, "sendsend")) {
		CHECK(t_size >= 2, "sendsend needs 2 ranks");
		ready(mode);
		if (t_rank < 2)
			MPI_OK(MPI_Send(big, sizeof(big), MPI_BYTE, 1 - t_rank,
					5, MPI_COMM_WORLD));
	} else if (!strcmp(mode, "barrier")) {
		CHECK(t_size >= 2, "barrier needs 2 ranks");
		MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
		ready(mode);
		if (t_rank == t_size - 1)
			MPI_OK(MPI_Recv(&v, 1, MPI_INT, t_size > 4 ? 3 : 0, 9,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		else
			MPI_OK(MPI_Barrier(dup));
	} else if (!strcmp(mode, "recv")) {
		CHECK(t_size >= 2, "recv needs 2 ranks");
		ready(mode);
		if (t_rank == 0)
			MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
		else if (t_rank == 1)
			MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 42, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
	} else if (!strcmp(mode, "progress")) {
		double end = seconds() + (getenv("SECONDS_") ?
					  atof(getenv("SECONDS_")) : 6);
		int next = (t_rank + 1) % t_size,
		    prev = (t_rank + t_size - 1) % t_size, go = 1;
		unsigned int round = 0;

		ready(mode);
		while (go) {
			t_fill(big, 65536, round);
			if (t_rank == 0) {
				go = seconds() < end;
				MPI_OK(MPI_Send(&go, 1, MPI_INT, next, 1,
						MPI_COMM_WORLD));
				MPI_OK(MPI_Send(big, 65536, MPI_BYTE, next, 2,
						MPI_COMM_WORLD));
				MPI_OK(MPI_Recv(&go, 1, MPI_INT, prev, 1,
						MPI_COMM_WORLD,
						MPI_STATUS_IGNORE));
				MPI_OK(MPI_Recv(in, 65536, MPI_BYTE, prev, 2,
						MPI_COMM_WORLD,
						MPI_STATUS_IGNORE));
			} else {
				MPI_OK(MPI_Recv(&go, 1, MPI_INT, prev, 1,
						MPI_COMM_WORLD,
						MPI_STATUS_IGNORE));
				MPI_OK(MPI_Recv(in, 65536, MPI_BYTE, prev, 2,
						MPI_COMM_WORLD,
						MPI_STATUS_IGNORE));
				MPI_OK(MPI_Send(&go, 1, MPI_INT, next, 1,
						MPI_COMM_WORLD));
				MPI_OK(MPI_Send(big, 65536, MPI_BYTE, next, 2,
						MPI_COMM_WORLD));
			}
			CHECK(!t_bad(in, 65536, round), "round %u: bad data",
			      round);
			round++;
			/* A little time outside MPI, as a program computes. */
			usleep(2000);
		}
		if (t_rank == 0)
			printf("hang: progress: %u rounds\n", round);
	} else {
		fprintf(stderr, "usage: hang sendsend|barrier|recv|progress\n");
		return 2;
	}
	return t_done();
}
