// SPDX-License-Identifier: MIT
/*
 * dtype-bw: bandwidth of a strided message against a contiguous one of
 * the same data size, MPI level, two ranks, one message in flight
 * (rank 0 sends, rank 1 receives and answers with an empty message).
 *
 *   mpiexec -n 2 dtype-bw [-i ITERS] [-r ROUNDS] [-s BYTES]
 *                         [-t struct|struct12|cube|irregular] [-b B]
 *                         [-x X]
 *
 * The strided messages are vectors of doubles with blocks of B bytes
 * every 2B (half the span is gaps; with -x, every X B: a span X times
 * the data), or with -t struct structs of three
 * blocks, B bytes at 0, 2B at 2B and B at 5B, every 8B (half the span
 * is gaps, unevenly), or with -t struct12 structs of 12 blocks of B
 * bytes, B apart (more blocks than a tile holds: offered with their
 * layout; BYTES is rounded down to whole structs of every B), or with
 * -t irregular elements of up to 200 blocks of B bytes, apart by B/2,
 * B or 3B/2 in turn (no tile: a layout of a segment per block; BYTES is
 * rounded down to a multiple of 1600 KiB: whole elements for every B
 * when it is below 12.5 MiB), or with
 * -t cube the interior of a 3-D array of
 * doubles: rows of B bytes every 2B, CUBE_ROWS rows a plane, one row
 * more between planes (two strides: no tile, offered with its layout),
 * B from 8 B to 64 KiB (or only -b B), typed on
 * both sides, on the sending side only (received as bytes), or on the
 * receiving side only.  Each strided measurement (ITERS messages) is
 * paired with a contiguous one just before it, ROUNDS times.  Prints
 * the best GB/s of data and the median ratio of the pairs.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank;
static long spread = 2;	/* vectors: the stride, in blocks */

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
#define CUBE_ROWS 16

enum { VECTORS, STRUCTS, CUBES, STRUCTS12, IRREGULAR };
static const char *const kinds[] = {
	"vectors", "structs", "3-D subarrays", "structs of 12 blocks",
	"irregular blocks"
};
#define NIRR 200	/* -t irregular: blocks of one element, at most */
#define NCONF (1 + 3 * NBLK)
#define MAXROUNDS 64

/* The message's type for blocks of b bytes: a vector, struct or cube. */
static MPI_Datatype typed(long bytes, long b, int kind, int *count)
{
	int planes = (int)(bytes / (CUBE_ROWS * b));
	int sizes[3] = { planes, CUBE_ROWS + 1, (int)(2 * b / 8) };
	int sub[3] = { planes, CUBE_ROWS, (int)(b / 8) };
	int start[3] = { 0, 0, 0 };
	int bl[3] = { (int)b, (int)(2 * b), (int)b };
	MPI_Aint d[3] = { 0, 2 * b, 5 * b };
	MPI_Datatype ty[3] = { MPI_BYTE, MPI_BYTE, MPI_BYTE }, s, t;

	if (kind == VECTORS) {
		MPI_Type_vector((int)(bytes / b), (int)(b / 8),
				(int)(spread * b / 8), MPI_DOUBLE, &t);
		*count = 1;
	} else if (kind == CUBES) {
		MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C,
					 MPI_DOUBLE, &t);
		*count = 1;
	} else if (kind == IRREGULAR) {
		static MPI_Aint d[NIRR];
		int k, n = bytes / b < NIRR ? (int)(bytes / b) : NIRR;
		MPI_Aint at = 0;

		for (k = 0; k < n; k++) {
			d[k] = at;
			at += b + b * (1 + k % 3) / 2;
		}
		MPI_Type_create_hindexed_block(n, (int)b, d, MPI_BYTE, &s);
		MPI_Type_create_resized(s, 0, at, &t);
		MPI_Type_free(&s);
		*count = (int)(bytes / (n * b));
	} else if (kind == STRUCTS12) {
		int bl12[12], k;
		MPI_Aint d12[12];
		MPI_Datatype ty12[12];

		for (k = 0; k < 12; k++) {
			bl12[k] = (int)b;
			d12[k] = 2 * k * b;
			ty12[k] = MPI_BYTE;
		}
		MPI_Type_create_struct(12, bl12, d12, ty12, &s);
		MPI_Type_create_resized(s, 0, 24 * b, &t);
		MPI_Type_free(&s);
		*count = (int)(bytes / (12 * b));
	} else {
		MPI_Type_create_struct(3, bl, d, ty, &s);
		MPI_Type_create_resized(s, 0, 8 * b, &t);
		MPI_Type_free(&s);
		*count = (int)(bytes / (4 * b));
	}
	MPI_Type_commit(&t);
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const long blocks[NBLK] = { 8, 64, 512, 4096, 65536 };
	static const char *sides[] = { "both", "send", "recv" };
	static double ratio[NCONF][MAXROUNDS];
	long bytes = 4L << 20, b;
	int iters = 4, rounds = 10, opt, size, c, side, round, kind = 0, n;
	long only = 0;
	double best[NCONF] = { 0 }, t, tc;
	unsigned char *s, *r;
	size_t room;
	MPI_Datatype v;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "b:i:r:s:t:x:")) != -1) {
		if (opt == 'i')
			iters = atoi(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 's')
			bytes = atol(optarg);
		else if (opt == 't')
			kind = !strcmp(optarg, "struct") ? STRUCTS :
				!strcmp(optarg, "struct12") ? STRUCTS12 :
				!strcmp(optarg, "cube") ? CUBES :
				!strcmp(optarg, "irregular") ? IRREGULAR : VECTORS;
		else if (opt == 'b')
			only = atol(optarg);
		else if (opt == 'x')
			spread = atol(optarg);
	}
	if (spread < 1 || spread > 1024)
		spread = 2;
	if (rounds < 1 || rounds > MAXROUNDS)
		rounds = MAXROUNDS;
	if (kind == STRUCTS12)	/* whole structs for every block size */
		bytes -= bytes % (12 * blocks[NBLK - 1]);
	if (kind == IRREGULAR)	/* whole elements for every block size */
		bytes -= bytes % (NIRR * 8192);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "dtype-bw: run with 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	/* A cube's span is a little over twice its data; a vector's X times. */
	room = (size_t)bytes * (spread > 3 ? (size_t)spread : 3);
	s = malloc(room);
	r = malloc(room);
	memset(s, 1, room);
	memset(r, 2, room);
	/*
	 * Every strided measurement comes right after a contiguous one: the
	 * ratio of the pair is what a busy host disturbs least.
	 */
	for (round = 0; round < rounds; round++) {
		for (c = 1; c < NCONF; c++) {
			if (only && blocks[(c - 1) % NBLK] != only)
				continue;
			tc = run(s, (int)bytes, MPI_BYTE, r, (int)bytes, MPI_BYTE,
				 iters);
			side = (c - 1) / NBLK;
			b = blocks[(c - 1) % NBLK];
			v = typed(bytes, b, kind, &n);
			if (side == 0)
				t = run(s, n, v, r, n, v, iters);
			else if (side == 1)
				t = run(s, n, v, r, (int)bytes, MPI_BYTE, iters);
			else
				t = run(s, (int)bytes, MPI_BYTE, r, n, v, iters);
			MPI_Type_free(&v);
			if (bytes / tc / 1e9 > best[0])
				best[0] = bytes / tc / 1e9;
			if (bytes / t / 1e9 > best[c])
				best[c] = bytes / t / 1e9;
			ratio[c][round] = tc / t;
		}
	}
	if (rank == 0) {
		printf("# %ld bytes of data in %s, %d rounds of %d messages; best GB/s,\n"
		       "# median ratio to the contiguous run just before\n",
		       bytes, kinds[kind], rounds, iters);
		if (kind == VECTORS)
			printf("# a block every %ld blocks\n", spread);
		printf("%-8s %8s %10s %8s\n", "typed", "block", "GB/s", "ratio");
		printf("%-8s %8s %10.3f %8.2f\n", "contig", "-", best[0], 1.0);
		for (c = 1; c < NCONF; c++) {
			if (only && blocks[(c - 1) % NBLK] != only)
				continue;
			qsort(ratio[c], (size_t)rounds, sizeof(double), cmp_double);
			printf("%-8s %8ld %10.3f %8.2f\n", sides[(c - 1) / NBLK],
			       blocks[(c - 1) % NBLK], best[c],
			       rounds % 2 ? ratio[c][rounds / 2] :
			       (ratio[c][rounds / 2 - 1] + ratio[c][rounds / 2]) / 2);
		}
	}
	free(s);
	free(r);
	MPI_Finalize();
	return 0;
}
