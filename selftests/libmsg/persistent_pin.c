// SPDX-License-Identifier: MIT
/*
 * A persistent rendezvous send pins its buffer once: pairs of ranks
 * start a 1 MiB persistent send and receive 40 times, the data changing
 * every time; every message must arrive whole, and over /dev/mpichan
 * the module's pin cache (debugfs stats) must show the buffer pinned
 * once per sender (a miss) and found again on every later start (hits).
 * Without debugfs (the fallback, or not root) only the data is checked.
 */
#include "test.h"

#define SIZE	(1 << 20)
#define ITERS	40

static const char stats[] = "/sys/kernel/debug/mpichan/stats";

/* A counter of the module's stats, or -1 when they cannot be read. */
static long counter(const char *name)
{
	char key[64], line[128];
	long v = -1, x;
	FILE *f = fopen(stats, "r");

	if (!f)
		return -1;
	snprintf(key, sizeof(key), "%s: %%ld", name);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, key, &x) == 1)
			v = x;
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	int peer, i, pairs, sender;
	long miss0 = 0, hit0 = 0, miss1, hit1;
	unsigned char *buf;
	MPI_Request r;
	size_t bad;

	t_init(&argc, &argv);
	peer = t_partner();
	pairs = t_size / 2;
	sender = peer != t_rank && t_rank < peer;
	buf = malloc(SIZE);
	CHECK(buf, "out of memory");
	if (peer == t_rank) {
		/* No partner: take part in the barriers only. */
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		free(buf);
		return t_done();
	}
	if (sender)
		MPI_OK(MPI_Send_init(buf, SIZE, MPI_BYTE, peer, 5, MPI_COMM_WORLD,
				     &r));
	else
		MPI_OK(MPI_Recv_init(buf, SIZE, MPI_BYTE, peer, 5, MPI_COMM_WORLD,
				     &r));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == 0) {
		miss0 = counter("cache_misses");
		hit0 = counter("cache_hits");
	}
	for (i = 0; i < ITERS; i++) {
		if (sender)
			t_fill(buf, SIZE, (unsigned)(i * 131 + t_rank));
		MPI_OK(MPI_Start(&r));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		if (!sender) {
			bad = t_bad(buf, SIZE, (unsigned)(i * 131 + peer));
			CHECK(!bad, "start %d: byte %zu wrong", i, bad - 1);
		}
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == 0 && miss0 >= 0 && hit0 >= 0) {
		miss1 = counter("cache_misses");
		hit1 = counter("cache_hits");
		printf("# %d pair(s), %d starts each: pin cache misses %ld, hits %ld\n",
		       pairs, ITERS, miss1 - miss0, hit1 - hit0);
		CHECK(miss1 - miss0 <= 2L * pairs,
		      "%ld pin cache misses for %d sender(s): pinned again",
		      miss1 - miss0, pairs);
		CHECK(hit1 - hit0 >= (long)(ITERS - 2) * pairs,
		      "%ld pin cache hits, expected at least %d",
		      hit1 - hit0, (ITERS - 2) * pairs);
	} else if (t_rank == 0) {
		printf("# no %s: data checked, pinning not\n", stats);
	}
	MPI_OK(MPI_Request_free(&r));
	free(buf);
	return t_done();
}
