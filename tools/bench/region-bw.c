// SPDX-License-Identifier: MIT
/*
 * region-bw: one-sided bandwidth over a registered region, against the
 * kernel's own cross-process copy, in one run.  An owner process
 * registers a buffer (MPICHAN_IOC_REGION_REG, writable); a peer that is
 * no rank of any job (a plain open of /dev/mpichan, as a UCX transport
 * is) moves data to and from it:
 *
 *   memcpy    the peer copies private memory: the ceiling
 *   cma       process_vm_readv / process_vm_writev of the owner's buffer
 *   copy      MPICHAN_IOC_REGION_COPY by (handle, key): one kernel copy
 *   mapped    the region's pages mapped into the peer (REGION_MAP and
 *             mmap(), once), then the peer's own memcpy
 *
 * each as a get (out of the region) and a put (into it), for sizes from
 * 4 KiB to 16 MiB.  Then a strided put of 8-byte words 64 bytes apart
 * (an MPI_Put of a vector): 1024 entries in one REGION_COPY call, one
 * process_vm_writev of 1024 remote pieces, or stores through the
 * mapping.  Then what mapping costs: REGION_MAP + mmap() + the first
 * touch (which maps the whole region) + munmap().
 *
 * Every memcpy goes in 1 MiB pieces (glibc's non-temporal stores above
 * that are slow under emulation; see performance.md).  Output: comment
 * lines, then "size memcpy cma-get copy-get mapped-get cma-put copy-put
 * mapped-put" in GB/s, then the strided and mapping lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/mpichan.h>

#define CHUNK		(1UL << 20)
#define MAX_SIZE	(16UL << 20)
#define STRIDE		64
#define WORDS		1024

enum { M_MEMCPY, M_CMA_GET, M_COPY_GET, M_MAP_GET, M_CMA_PUT, M_COPY_PUT,
       M_MAP_PUT, M_COUNT };
static const char *const names[M_COUNT] = {
	"memcpy", "cma-get", "copy-get", "mapped-get", "cma-put", "copy-put",
	"mapped-put",
};

struct info {			/* owner -> peer, through a pipe */
	pid_t pid;
	uint64_t addr;
	struct mpichan_region_reg reg;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "region-bw: %s: %s\n", what, strerror(err));
	exit(1);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void copy_out(void *dst, const void *src, size_t len)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off < CHUNK ? len - off : CHUNK;
		memcpy((char *)dst + off, (const char *)src + off, n);
	}
}

static int fd;
static struct info in;

static void region_copy(void *buf, uint64_t off, size_t len, int put)
{
	struct mpichan_rcopy e = {
		.addr = (uintptr_t)buf, .len = len, .handle = in.reg.handle,
		.key = in.reg.key, .offset = off,
		.flags = put ? MPICHAN_RCOPY_PUT : 0,
	};
	struct mpichan_region_copy c = { .entries = (uintptr_t)&e, .count = 1 };

	if (ioctl(fd, MPICHAN_IOC_REGION_COPY, &c))
		die("REGION_COPY", errno);
}

static void cma(void *buf, size_t len, int put)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)in.addr, len };
	ssize_t n = put ? process_vm_writev(in.pid, &local, 1, &remote, 1, 0) :
		process_vm_readv(in.pid, &local, 1, &remote, 1, 0);

	if (n != (ssize_t)len)
		die(put ? "process_vm_writev" : "process_vm_readv", errno);
}

static void one(int m, unsigned char *buf, unsigned char *other,
		unsigned char *map, size_t len)
{
	switch (m) {
	case M_MEMCPY: copy_out(other, buf, len); break;
	case M_CMA_GET: cma(buf, len, 0); break;
	case M_COPY_GET: region_copy(buf, 0, len, 0); break;
	case M_MAP_GET: copy_out(buf, map, len); break;
	case M_CMA_PUT: cma(buf, len, 1); break;
	case M_COPY_PUT: region_copy(buf, 0, len, 1); break;
	case M_MAP_PUT: copy_out(map, buf, len); break;
	}
}

static int iterations(size_t len)
{
	size_t n = (64UL << 20) / len;

	return n < 4 ? 4 : n > 256 ? 256 : (int)n;
}

/* A vector put: WORDS words, STRIDE bytes apart in the region. */
static void strided(unsigned char *buf, unsigned char *map)
{
	static struct mpichan_rcopy e[WORDS];
	static struct iovec remote[WORDS];
	struct mpichan_region_copy c = { .entries = (uintptr_t)e, .count = WORDS };
	struct iovec local = { buf, WORDS * 8 };
	double t0, t[3];
	int i, r, reps = 200;

	for (i = 0; i < WORDS; i++) {
		e[i] = (struct mpichan_rcopy){
			.addr = (uintptr_t)buf + i * 8, .len = 8,
			.handle = in.reg.handle, .key = in.reg.key,
			.offset = (uint64_t)i * STRIDE,
			.flags = MPICHAN_RCOPY_PUT,
		};
		remote[i].iov_base = (void *)(uintptr_t)(in.addr + (uint64_t)i * STRIDE);
		remote[i].iov_len = 8;
	}
	t0 = now();
	for (r = 0; r < reps; r++)
		if (ioctl(fd, MPICHAN_IOC_REGION_COPY, &c))
			die("REGION_COPY (strided)", errno);
	t[0] = now() - t0;
	t0 = now();
	for (r = 0; r < reps; r++)
		if (process_vm_writev(in.pid, &local, 1, remote, WORDS, 0) !=
		    WORDS * 8)
			die("process_vm_writev (strided)", errno);
	t[1] = now() - t0;
	t0 = now();
	for (r = 0; r < reps; r++)
		for (i = 0; i < WORDS; i++)
			memcpy(map + (size_t)i * STRIDE, buf + i * 8, 8);
	t[2] = now() - t0;
	printf("# strided put of %d x 8 B, %d B apart, us per put: copy (one call) %.2f, process_vm_writev %.2f, mapped stores %.2f\n",
	       WORDS, STRIDE, t[0] / reps * 1e6, t[1] / reps * 1e6,
	       t[2] / reps * 1e6);
	/* The smallest put: one word, one call. */
	t0 = now();
	for (r = 0; r < 10000; r++)
		region_copy(buf, 64, 8, 1);
	t[0] = now() - t0;
	printf("# 8-byte put, us: copy %.3f\n", t[0] / 10000 * 1e6);
}

/* What a mapping costs: MAP, mmap(), the first touch, munmap(). */
static void map_cost(size_t len)
{
	struct mpichan_region_map m = { .handle = in.reg.handle,
					.key = in.reg.key,
					.flags = MPICHAN_REGION_WRITE };
	double t0, t1, t2;
	volatile unsigned char *p;
	int r, reps = 20;
	double setup = 0, touch = 0;

	for (r = 0; r < reps; r++) {
		t0 = now();
		if (ioctl(fd, MPICHAN_IOC_REGION_MAP, &m))
			die("REGION_MAP", errno);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 m.offset);
		if (p == MAP_FAILED)
			die("mmap", errno);
		t1 = now();
		(void)p[0];	/* maps all of it */
		t2 = now();
		munmap((void *)p, len);
		setup += t1 - t0 + (now() - t2);
		touch += t2 - t1;
	}
	printf("# mapping %zu MiB: MAP + mmap() + munmap() %.1f us, first touch (maps it all) %.1f us\n",
	       len >> 20, setup / reps * 1e6, touch / reps * 1e6);
}

static void peer(void)
{
	struct mpichan_region_map m = { .handle = in.reg.handle,
					.key = in.reg.key,
					.flags = MPICHAN_REGION_WRITE };
	unsigned char *buf = aligned_alloc(4096, MAX_SIZE);
	unsigned char *other = aligned_alloc(4096, MAX_SIZE);
	unsigned char *map;
	size_t len;
	int m_, i, it;

	fd = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(MPICHAN_DEVICE, errno);
	if (!buf || !other)
		die("memory", ENOMEM);
	memset(buf, 0x5a, MAX_SIZE);
	memset(other, 0, MAX_SIZE);
	if (ioctl(fd, MPICHAN_IOC_REGION_MAP, &m))
		die("REGION_MAP", errno);
	map = mmap(NULL, MAX_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   m.offset);
	if (map == MAP_FAILED)
		die("mmap", errno);
	(void)*(volatile unsigned char *)map;
	printf("# region-bw: a peer of no job and the owner's registered region, GB/s, one boot\n");
	printf("# size");
	for (m_ = 0; m_ < M_COUNT; m_++)
		printf(" %s", names[m_]);
	printf("\n");
	for (len = 4096; len <= MAX_SIZE; len *= 4) {
		printf("%zu", len);
		it = iterations(len);
		for (m_ = 0; m_ < M_COUNT; m_++) {
			double t0;

			one(m_, buf, other, map, len);	/* warm */
			t0 = now();
			for (i = 0; i < it; i++)
				one(m_, buf, other, map, len);
			printf(" %.3f", (double)it * len / (now() - t0) / 1e9);
		}
		printf("\n");
		fflush(stdout);
	}
	strided(buf, map);
	map_cost(MAX_SIZE);
	munmap(map, MAX_SIZE);
}

int main(void)
{
	int up[2], down[2];
	unsigned char *region;
	pid_t child;
	char c;
	int own;

	if (pipe(up) || pipe(down))
		die("pipe", errno);
	child = fork();
	if (child < 0)
		die("fork", errno);
	if (child == 0) {
		if (read(up[0], &in, sizeof(in)) != sizeof(in))
			die("the owner's region", EIO);
		peer();
		if (write(down[1], "x", 1) != 1)
			die("pipe", errno);
		_exit(0);
	}
	/* The owner: registers after the fork, which would end the region. */
	region = aligned_alloc(4096, MAX_SIZE);
	own = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
	if (!region || own < 0)
		die(MPICHAN_DEVICE, own < 0 ? errno : ENOMEM);
	memset(region, 0xa5, MAX_SIZE);
	in.pid = getpid();
	in.addr = (uintptr_t)region;
	in.reg.addr = (uintptr_t)region;
	in.reg.len = MAX_SIZE;
	in.reg.flags = MPICHAN_REGION_WRITE;
	if (ioctl(own, MPICHAN_IOC_REGION_REG, &in.reg))
		die("REGION_REG", errno);
	if (write(up[1], &in, sizeof(in)) != sizeof(in))
		die("pipe", errno);
	if (read(down[0], &c, 1) != 1)
		die("the peer", EIO);
	waitpid(child, NULL, 0);
	close(own);
	return 0;
}
