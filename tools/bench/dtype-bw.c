// SPDX-License-Identifier: MIT
/*
 * dtype-bw: bandwidth of a strided message against a contiguous one of
 * the same data size, MPI level, two ranks, one message in flight
 * (rank 0 sends, rank 1 receives and answers with an empty message).
 *
 *   mpiexec -n 2 dtype-bw [-i ITERS] [-r ROUNDS] [-s BYTES]
 *
 * The strided messages are vectors of doubles with blocks of B bytes
 * every 2B (half the span is gaps), B from 8 B to 64 KiB, typed on
 * both sides, on the sending side only (received as bytes), or on the
 * receiving side only.  Prints GB/s of data (best of ROUNDS rounds of
 * ITERS messages, the configurations interleaved in every round) and
 * the ratio to the contiguous message.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank;

/* Seconds per message: sender's view, after warm-up. */
static double run(void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		  int rcount, MPI_Datatype rtype, int iters)
{
	int i, warm = 3;
	double t0 = 0;

	for (i = -warm; i < iters; i++) {
		if (i == 0) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		if (rank == 0) {
			MPI_Send(sbuf, scount, stype, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(rbuf, rcount, rtype, 0, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) / iters;
}

#define NBLK 5
#define NCONF (1 + 3 * NBLK)

int main(int argc, char **argv)
{
	static const long blocks[NBLK] = { 8, 64, 512, 4096, 65536 };
	static const char *sides[] = { "both", "send", "recv" };
	long bytes = 4L << 20, b;
	int iters = 10, rounds = 5, opt, size, c, side, round;
	double best[NCONF] = { 0 }, t;
	unsigned char *s, *r;
	MPI_Datatype v;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "i:r:s:")) != -1) {
		if (opt == 'i')
			iters = atoi(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 's')
			bytes = atol(optarg);
	}
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "dtype-bw: run with 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	s = malloc((size_t)bytes * 2);
	r = malloc((size_t)bytes * 2);
	memset(s, 1, (size_t)bytes * 2);
	memset(r, 2, (size_t)bytes * 2);
	/*
	 * Every round measures every configuration once, so a busy host
	 * slows them alike; each keeps its best round.
	 */
	for (round = 0; round < rounds; round++) {
		for (c = 0; c < NCONF; c++) {
			if (c == 0) {
				t = run(s, (int)bytes, MPI_BYTE, r, (int)bytes,
					MPI_BYTE, iters);
			} else {
				side = (c - 1) / NBLK;
				b = blocks[(c - 1) % NBLK];
				MPI_Type_vector((int)(bytes / b), (int)(b / 8),
						(int)(2 * b / 8), MPI_DOUBLE, &v);
				MPI_Type_commit(&v);
				if (side == 0)
					t = run(s, 1, v, r, 1, v, iters);
				else if (side == 1)
					t = run(s, 1, v, r, (int)bytes, MPI_BYTE, iters);
				else
					t = run(s, (int)bytes, MPI_BYTE, r, 1, v, iters);
				MPI_Type_free(&v);
			}
			if (bytes / t / 1e9 > best[c])
				best[c] = bytes / t / 1e9;
		}
	}
	if (rank == 0) {
		printf("# %ld bytes of data, best of %d rounds of %d messages\n",
		       bytes, rounds, iters);
		printf("%-8s %8s %10s %8s\n", "typed", "block", "GB/s", "ratio");
		printf("%-8s %8s %10.3f %8.2f\n", "contig", "-", best[0], 1.0);
		for (c = 1; c < NCONF; c++)
			printf("%-8s %8ld %10.3f %8.2f\n", sides[(c - 1) / NBLK],
			       blocks[(c - 1) % NBLK], best[c], best[c] / best[0]);
	}
	free(s);
	free(r);
	MPI_Finalize();
	return 0;
}
