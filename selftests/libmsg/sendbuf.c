// SPDX-License-Identifier: MIT
/*
 * A large send buffer used again, and changed under the module's caches
 * in between: the module keeps a sent buffer pinned (its pin cache) and
 * mapped in the receiver's window (its window cache) for the next send.
 * Pairs of ranks send 1 MiB from an mmap()ed buffer: again with new
 * contents; after munmap() and a new mapping at the same address; after
 * MADV_DONTNEED (zeros, then new writes); after fork(); from another
 * buffer and back.  Every message must arrive as the buffer held it
 * when sent.  Over /dev/mpichan with the window cache on (debugfs
 * readable), the resends must also have found their pages in the
 * window.
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

#define SIZE	(1 << 20)

/* A counter of the module's stats, or -1 when they cannot be read. */
static long counter(const char *name)
{
	char key[64], line[128];
	long v = -1, x;
	FILE *f = fopen("/sys/kernel/debug/mpichan/stats", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[a-z_]: %ld", key, &x) == 2 &&
		    !strcmp(key, name))
			v = x;
	fclose(f);
	return v;
}

/* Is the window cache in use for this run? */
static int window_cache(void)
{
	const char *w = getenv("MPICHAN_WINDOW");
	char c = 0;
	FILE *f;

	if (w && !strcmp(w, "0"))
		return 0;
	f = fopen("/sys/module/mpichan/parameters/window_cache", "r");
	if (!f)
		return 0;
	if (fread(&c, 1, 1, f) != 1)
		c = 0;
	fclose(f);
	return c == 'Y';
}

static unsigned char *map(void *at)
{
	void *p = mmap(at, SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0),
		       -1, 0);

	CHECK(p != MAP_FAILED, "mmap");
	return p;
}

/*
 * The sender sends buf, the receiver takes it into rb: 1 on the rank
 * that received (a rank without a partner sends to itself).
 */
static int move(int sender, int peer, unsigned char *buf, unsigned char *rb)
{
	if (peer == t_rank) {
		memset(rb, 0xee, SIZE);
		MPI_OK(MPI_Sendrecv(buf, SIZE, MPI_BYTE, peer, 7, rb, SIZE,
				    MPI_BYTE, peer, 7, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE));
		return 1;
	}
	if (sender) {
		MPI_OK(MPI_Send(buf, SIZE, MPI_BYTE, peer, 7, MPI_COMM_WORLD));
		return 0;
	}
	memset(rb, 0xee, SIZE);
	MPI_OK(MPI_Recv(rb, SIZE, MPI_BYTE, peer, 7, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	return 1;
}

/* ... and it must be what buf held: the pattern of seed. */
static void xfer(int sender, int peer, unsigned char *buf, unsigned char *rb,
		 unsigned seed, const char *what)
{
	if (move(sender, peer, buf, rb))
		CHECK(!t_bad(rb, SIZE, seed), "%s: wrong data", what);
}

/* ... and it must be zeros. */
static void zeros(int sender, int peer, unsigned char *buf, unsigned char *rb)
{
	size_t i;

	if (!move(sender, peer, buf, rb))
		return;
	for (i = 0; i < SIZE && !rb[i]; i++)
		;
	CHECK(i == SIZE, "after MADV_DONTNEED: byte %zu is %d", i, rb[i]);
}

int main(int argc, char **argv)
{
	unsigned char *a, *b, *rb;
	int peer, sender, i, check;
	long hits = -1;
	pid_t pid;

	t_init(&argc, &argv);
	peer = t_partner();
	sender = t_rank < peer || peer == t_rank;
	check = window_cache() && counter("window_hits") >= 0;
	rb = malloc(SIZE);
	CHECK(rb != NULL, "malloc");
	a = map(NULL);
	b = map(NULL);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (check && t_rank == 0)
		hits = counter("window_hits");

	/* The same buffer again, new contents each time. */
	for (i = 0; i < 3; i++) {
		if (sender)
			t_fill(a, SIZE, 10 + i);
		xfer(sender, peer, a, rb, 10 + i, "resend");
	}
	/* A new mapping at the same address. */
	if (sender) {
		CHECK(munmap(a, SIZE) == 0, "munmap");
		CHECK(map(a) == a, "mmap at the same address");
		t_fill(a, SIZE, 20);
	}
	xfer(sender, peer, a, rb, 20, "after munmap and mmap");
	/* The pages dropped: zeros, then new writes. */
	if (sender)
		CHECK(madvise(a, SIZE, MADV_DONTNEED) == 0, "madvise");
	zeros(sender, peer, a, rb);
	if (sender)
		t_fill(a, SIZE, 21);
	xfer(sender, peer, a, rb, 21, "after MADV_DONTNEED and writes");
	/* fork() write-protects the buffer; the child's writes stay its own. */
	if (sender) {
		pid = fork();
		CHECK(pid >= 0, "fork");
		if (pid == 0) {
			memset(a, 0xff, SIZE);
			_exit(0);
		}
		CHECK(waitpid(pid, NULL, 0) == pid, "waitpid");
		t_fill(a, SIZE, 22);
	}
	xfer(sender, peer, a, rb, 22, "after fork");
	/* Another buffer, then the first again. */
	if (sender)
		t_fill(b, SIZE, 23);
	xfer(sender, peer, b, rb, 23, "another buffer");
	if (sender)
		t_fill(a, SIZE, 24);
	xfer(sender, peer, a, rb, 24, "the first buffer again");
	xfer(sender, peer, a, rb, 24, "the first buffer once more");

	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (check && t_rank == 0)
		CHECK(counter("window_hits") > hits,
		      "no resend found its pages in the window (%ld hits)",
		      counter("window_hits") - hits);
	munmap(a, SIZE);
	munmap(b, SIZE);
	free(rb);
	return t_done();
}
