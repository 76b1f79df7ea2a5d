// SPDX-License-Identifier: MIT
/*
 * stride-copy: the ceiling for a strided receive.  The receiver of a
 * strided send (libmsg/src/rndv_span.c) copies 4 MiB of data in blocks
 * of B bytes, one every 2B, from the sender's layout into its own: here
 * one process does that copy the way libmsg's block loop does (a memcpy
 * per block, of constant size for 8-byte blocks in a loop unrolled 8
 * times, in 4 KiB pieces for blocks over 4 KiB: glibc's `rep movsb` for
 * large copies is slow under QEMU TCG), against one memcpy of the 4 MiB
 * in 1 MiB pieces, as the
 * receive window's copy.  Best of 9, GB/s (10^9 bytes).
 *
 *   stride-copy
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DATA	(4UL << 20)
#define PIECE	4096
#define RUNS	9

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void blocks(unsigned char *d, const unsigned char *s, size_t len,
		   size_t n)
{
	size_t i, off;

	if (len == 8) {
#pragma GCC unroll 8
		for (i = 0; i < n; i++, d += 16, s += 16)
			memcpy(d, s, 8);
		return;
	}
	for (i = 0; i < n; i++, d += 2 * len, s += 2 * len)
		for (off = 0; off < len; off += PIECE)
			memcpy(d + off, s + off, len - off < PIECE ? len - off : PIECE);
}

static void contig(unsigned char *d, const unsigned char *s)
{
	size_t off;

	for (off = 0; off < DATA; off += 1UL << 20)
		memcpy(d + off, s + off, 1UL << 20);
}

int main(void)
{
	static const size_t lens[] = { 8, 64, 512, 4096, 65536 };
	unsigned char *s = malloc(2 * DATA), *d = malloc(2 * DATA);
	double best, t;
	size_t k;
	int r;

	if (!s || !d)
		return 1;
	memset(s, 1, 2 * DATA);
	memset(d, 2, 2 * DATA);
	best = 1e9;
	for (r = 0; r < RUNS; r++) {
		t = now();
		contig(d, s);
		t = now() - t;
		best = t < best ? t : best;
	}
	printf("# 4 MiB of data; GB/s, best of %d\nblock      GB/s\ncontig  %8.2f\n",
	       RUNS, DATA / best / 1e9);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		best = 1e9;
		for (r = 0; r < RUNS; r++) {
			t = now();
			blocks(d, s, lens[k], DATA / lens[k]);
			t = now() - t;
			best = t < best ? t : best;
		}
		printf("%-6zu  %8.2f\n", lens[k], DATA / best / 1e9);
	}
	free(s);
	free(d);
	return 0;
}
