// SPDX-License-Identifier: MIT
/*
 * bandwidth: large-message copy bandwidth between two processes over
 * the raw uapi, against the ways to do without the module, in one run.
 *
 *   memcpy    one process copies a private buffer: the ceiling
 *   two-copy  the sender copies into a shared buffer, the receiver out
 *             of it, pipelined in 256 KiB chunks (what shared-memory MPI
 *             transports do)
 *   cma       the receiver reads the sender's buffer with
 *             process_vm_readv (a kernel copy, no module)
 *   kernel    SEND (pinned, queued) + RECV: the module's kernel copy
 *   mapped    SEND + RECV with MPICHAN_RECV_MAP: the module maps the
 *             sender's pages into the receiver's window and the
 *             receiver copies them itself, then UNMAP
 *
 * Every user-space copy goes through copy_out(), which copies in 1 MiB
 * pieces: glibc switches larger copies to non-temporal stores, which
 * emulated CPUs run several times slower (see performance.md).  Each
 * message is sent, received and acknowledged before the next: one
 * message in flight, times include the handshake.  Output: comment
 * lines, then "size memcpy two-copy cma kernel mapped" in GB/s.
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

#include "mcr.h"

#define CHUNK		(1UL << 20)
#define PIPE_CHUNK	(256UL << 10)
#define PIPE_SLOTS	4
#define MAX_SIZE	(16UL << 20)
#define WINDOW		(32UL << 20)

enum { M_MEMCPY, M_TWOCOPY, M_CMA, M_KERNEL, M_MAPPED, M_COUNT };
static const char *const names[M_COUNT] = {
	"memcpy", "two-copy", "cma", "kernel", "mapped",
};

struct shared {			/* the two-copy pipeline, in MAP_SHARED memory */
	volatile uint64_t filled;	/* chunks the sender has copied in */
	char pad0[56];
	volatile uint64_t drained;	/* chunks the receiver has copied out */
	char pad1[56];
	unsigned char data[PIPE_SLOTS][PIPE_CHUNK];
};

static struct mcr_ep ep;
static int me;

static void die(const char *what, int err)
{
	fprintf(stderr, "bandwidth: rank %d: %s: %s\n", me, what, strerror(err));
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

/* A word through the ring: the control channel of every method. */
static void put(uint64_t v)
{
	int ret;

	while ((ret = mcr_send(&ep, 1 - me, MPICHAN_MSG_DATA, 0, 0,
					&v, sizeof(v))) == -EAGAIN)
		;
	if (ret)
		die("ring send", -ret);
	mcr_notify(&ep, 1 - me);
}

static uint64_t get(void)
{
	const struct mpichan_msg *m;
	uint64_t v;
	int err;

	while (!(m = mcr_peek(&ep, 1 - me, &err)))
		if (err)
			die("ring", -err);
	memcpy(&v, m + 1, sizeof(v));
	mcr_consume(&ep, 1 - me, m);
	return v;
}

static void cq_take(void)
{
	struct mpichan_rank_ctl *c = mcr_rank_ctl(&ep, ep.rank);
	struct mpichan_cqe *q = (struct mpichan_cqe *)(ep.map + ep.off.cq +
		(uint64_t)ep.rank * MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE);
	uint32_t head = c->cq_head;

	while (__atomic_load_n(&c->cq_tail, __ATOMIC_ACQUIRE) == head)
		;
	if (q[head & (MPICHAN_CQ_ENTRIES - 1)].status)
		die("completion", -q[head & (MPICHAN_CQ_ENTRIES - 1)].status);
	__atomic_store_n(&c->cq_head, head + 1, __ATOMIC_RELEASE);
}

static void send_one(int method, unsigned char *buf, size_t len,
		     struct shared *sh)
{
	struct mpichan_iovec v = { (uintptr_t)buf, len };
	struct mpichan_send s = { .iov = (uintptr_t)&v, .iovcnt = 1, .dst = 1 };
	size_t off, n;
	uint64_t c = 0;

	switch (method) {
	case M_TWOCOPY:
		for (off = 0; off < len; off += n, c++) {
			n = len - off < PIPE_CHUNK ? len - off : PIPE_CHUNK;
			while (sh->filled - sh->drained >= PIPE_SLOTS)
				;
			copy_out(sh->data[sh->filled % PIPE_SLOTS], buf + off, n);
			__atomic_store_n(&sh->filled, sh->filled + 1, __ATOMIC_RELEASE);
		}
		get();
		return;
	case M_CMA:
		put((uintptr_t)buf);
		get();
		return;
	case M_KERNEL:
	case M_MAPPED:
		if (ioctl(ep.fd, MPICHAN_IOC_SEND, &s))
			die("SEND", errno);
		put(s.handle);
		cq_take();
		return;
	}
}

static void recv_one(int method, unsigned char *buf, size_t len,
		     struct shared *sh, pid_t peer, const unsigned char *win)
{
	struct mpichan_iovec v = { (uintptr_t)buf, len };
	struct mpichan_recv r = { .iov = (uintptr_t)&v, .iovcnt = 1,
				  .flags = MPICHAN_RECV_HANDLE };
	struct mpichan_unmap um;
	struct iovec local = { buf, len }, remote;
	size_t off, n;

	switch (method) {
	case M_TWOCOPY:
		for (off = 0; off < len; off += n) {
			n = len - off < PIPE_CHUNK ? len - off : PIPE_CHUNK;
			while (__atomic_load_n(&sh->filled, __ATOMIC_ACQUIRE) == sh->drained)
				;
			copy_out(buf + off, sh->data[sh->drained % PIPE_SLOTS], n);
			__atomic_store_n(&sh->drained, sh->drained + 1, __ATOMIC_RELEASE);
		}
		put(0);
		return;
	case M_CMA:
		remote.iov_base = (void *)(uintptr_t)get();
		remote.iov_len = len;
		if (process_vm_readv(peer, &local, 1, &remote, 1, 0) != (ssize_t)len)
			die("process_vm_readv", errno);
		put(0);
		return;
	case M_KERNEL:
	case M_MAPPED:
		r.handle = get();
		if (method == M_MAPPED)
			r.flags |= MPICHAN_RECV_MAP;
		if (ioctl(ep.fd, MPICHAN_IOC_RECV, &r))
			die("RECV", errno);
		if (r.status == MPICHAN_XFER_MAPPED) {
			copy_out(buf + r.map_off, win, r.map_len);
			um = (struct mpichan_unmap){ .handle = r.handle };
			if (ioctl(ep.fd, MPICHAN_IOC_UNMAP, &um))
				die("UNMAP", errno);
		} else if (method == M_MAPPED) {
			die("RECV did not map", EINVAL);
		}
		return;
	}
}

static int iterations(size_t len)
{
	size_t n = (64UL << 20) / len;

	return n < 4 ? 4 : n > 64 ? 64 : (int)n;
}

int main(void)
{
	struct mpichan_job_create c = { .nranks = 2 };
	unsigned char *buf, *other, *win = NULL;
	struct shared *sh;
	int own, fd, m, i, it;
	pid_t peer = 0, child;
	size_t len;

	own = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
	if (own < 0 || ioctl(own, MPICHAN_IOC_JOB_CREATE, &c))
		die(MPICHAN_DEVICE, errno);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	buf = aligned_alloc(4096, MAX_SIZE);
	other = aligned_alloc(4096, MAX_SIZE);
	if (sh == MAP_FAILED || !buf || !other)
		die("memory", ENOMEM);
	memset(buf, 0x5a, MAX_SIZE);
	memset(other, 0, MAX_SIZE);
	peer = getpid();
	child = fork();
	if (child < 0)
		die("fork", errno);
	me = child == 0;
	fd = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open", errno);
	i = mcr_attach(&ep, fd, c.job_id, c.secret, me);
	if (i)
		die("attach", -i);
	if (me == 1) {
		win = mmap(NULL, WINDOW, PROT_READ, MAP_SHARED, fd,
			   MPICHAN_WINDOW_OFFSET);
		if (win == MAP_FAILED)
			die("window", errno);
	} else {
		printf("# bandwidth: one message in flight, GB/s, one boot\n");
		printf("# size");
		for (m = 0; m < M_COUNT; m++)
			printf(" %s", names[m]);
		printf("\n");
	}
	for (len = 64UL << 10; len <= MAX_SIZE; len *= 4) {
		double gbs[M_COUNT];

		it = iterations(len);
		for (m = 0; m < M_COUNT; m++) {
			double t0;

			put(0);		/* both ready */
			get();
			t0 = now();
			for (i = 0; i < it; i++) {
				if (m == M_MEMCPY)
					copy_out(other, buf, len);
				else if (me == 0)
					send_one(m, buf, len, sh);
				else
					recv_one(m, other, len, sh, peer, win);
			}
			gbs[m] = (double)it * len / (now() - t0) / 1e9;
			if (me == 1 && m != M_MEMCPY && other[len - 1] != 0x5a)
				die("data", EIO);
			memset(other, 0, len);
			/* The receiver's clock is the one that counts. */
			if (me == 1) {
				uint64_t w;

				memcpy(&w, &gbs[m], sizeof(w));
				put(w);
			} else {
				uint64_t w = get();

				if (m != M_MEMCPY)
					memcpy(&gbs[m], &w, sizeof(w));
			}
		}
		if (me == 0) {
			printf("%zu", len);
			for (m = 0; m < M_COUNT; m++)
				printf(" %.3f", gbs[m]);
			printf("\n");
			fflush(stdout);
		}
	}
	if (me == 1)
		_exit(0);
	waitpid(child, NULL, 0);
	return 0;
}
