// SPDX-License-Identifier: MIT
/*
 * memcpy-bw: the copy ceiling for tools/bench/run-mpi's bandwidth table.
 * One process, pinned to its first allowed CPU, copies one page-aligned
 * buffer into another, over and over, for each power-of-two size.
 *
 *   memcpy-bw [-s MIN:MAX] [-b BYTES]
 *
 * -s   sizes (default 8:4194304)
 * -b   bytes to copy per size (default 64 MiB; at least 3 copies, at most
 *      200000), after a tenth of that untimed
 *
 * Output: '#' comment lines, then one line per size:
 *   SIZE MEMCPY_MB/s PIECES_MB/s COPIES
 * MEMCPY is one memcpy() of the whole size; PIECES copies it in 1 MiB
 * pieces, as libmsg copies a rendezvous out of the receive window
 * (glibc's non-temporal stores for large copies are slow under QEMU TCG;
 * see Documentation/performance.md).  MB = 10^6 bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PIECE	(1L << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1) {
		fprintf(stderr, "memcpy-bw: not a positive number: %s\n", s);
		exit(2);
	}
	return v;
}

static void copy(char *dst, const char *src, long size, long piece)
{
	long off, n;

	for (off = 0; off < size; off += n) {
		n = size - off < piece ? size - off : piece;
		memcpy(dst + off, src + off, n);
	}
	/* The copies must happen, every time. */
	__asm__ __volatile__("" : : "r"(dst) : "memory");
}

static double rate(char *dst, const char *src, long size, long piece, long n)
{
	long i, warm = n / 10 > 0 ? n / 10 : 1;
	double t0;

	for (i = 0; i < warm; i++)
		copy(dst, src, size, piece);
	t0 = now();
	for (i = 0; i < n; i++)
		copy(dst, src, size, piece);
	return (double)size * n / (now() - t0) / 1e6;
}

int main(int argc, char **argv)
{
	long min = 8, max = 4L << 20, bytes = 64L << 20, size, n;
	cpu_set_t set;
	char *src, *dst, *colon;
	double whole, pieces;
	int c, i;

	while ((c = getopt(argc, argv, "s:b:")) != -1) {
		switch (c) {
		case 's':
			colon = strchr(optarg, ':');
			if (!colon) {
				fprintf(stderr, "memcpy-bw: -s wants MIN:MAX\n");
				return 2;
			}
			*colon = '\0';
			min = number(optarg);
			max = number(colon + 1);
			break;
		case 'b':
			bytes = number(optarg);
			break;
		default:
			fprintf(stderr, "usage: memcpy-bw [-s MIN:MAX] [-b BYTES]\n");
			return 2;
		}
	}
	if (max < min || max > (1L << 30)) {
		fprintf(stderr, "memcpy-bw: bad sizes\n");
		return 2;
	}
	if (!sched_getaffinity(0, sizeof(set), &set)) {
		for (i = 0; i < CPU_SETSIZE && !CPU_ISSET(i, &set); i++)
			;
		CPU_ZERO(&set);
		CPU_SET(i, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (posix_memalign((void **)&src, 4096, max) ||
	    posix_memalign((void **)&dst, 4096, max)) {
		fprintf(stderr, "memcpy-bw: out of memory\n");
		return 1;
	}
	memset(src, 0x5a, max);
	memset(dst, 0, max);
	printf("# memcpy-bw: one process, page-aligned buffers\n"
	       "# size_B memcpy_MB/s 1MiB-pieces_MB/s copies\n");
	for (size = min; size <= max; size *= 2) {
		n = bytes / size;
		n = n < 3 ? 3 : n > 200000 ? 200000 : n;
		whole = rate(dst, src, size, size, n);
		pieces = rate(dst, src, size, PIECE, n);
		if (memcmp(dst, src, size)) {
			fprintf(stderr, "memcpy-bw: the copy differs\n");
			return 1;
		}
		printf("%ld %.2f %.2f %ld\n", size, whole, pieces, n);
		fflush(stdout);
	}
	free(src);
	free(dst);
	return 0;
}
