/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the large-message kselftests (SEND, RECV, CANCEL, UNMAP,
 * the completion queue and the receive window): a job whose ranks are
 * all attached by the test process itself (SEND and RECV never block,
 * so one process can play every rank), wrappers returning 0 or -errno,
 * a completion-queue reader, page-aligned buffers and a SIGBUS probe.
 */
#ifndef MPICHAN_XFER_HELPERS_H
#define MPICHAN_XFER_HELPERS_H

#include <setjmp.h>
#include <sys/resource.h>

#include "helpers.h"

#define XF_MAX_RANKS	4
#define XF_PAGE		4096UL

struct xf {
	struct mc_job job;
	int n;
	struct mcr_ep e[XF_MAX_RANKS];
	long pin_cache;		/* pin_cache_entries to restore, or <= 0 */
};

/* Rank i's endpoint, in a test of a fixture whose struct xf is x. */
#define E(i)	(&self->x.e[i])

/* ---- module parameters ------------------------------------------------ */

#define XF_PARAMS	"/sys/module/mpichan/parameters/"

/* A parameter of the loaded module, or -errno. */
static inline long xf_param(const char *name)
{
	char path[128], buf[32];
	int ret;

	snprintf(path, sizeof(path), XF_PARAMS "%s", name);
	ret = mc_read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	/* A bool reads Y or N. */
	if (buf[0] == 'Y' || buf[0] == 'N')
		return buf[0] == 'Y';
	return strtol(buf, NULL, 10);
}

static inline int xf_set_param(const char *name, long v)
{
	char path[128], buf[32];
	int fd, n, ret = 0;

	snprintf(path, sizeof(path), XF_PARAMS "%s", name);
	n = snprintf(buf, sizeof(buf), "%ld\n", v);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The suites that count the pages of each transfer turn the pin cache
 * off, since a cached send buffer stays pinned after its send
 * (pincache_test covers the cache): the value to restore, 0 when there
 * is nothing to restore, or -errno.
 */
static inline long xf_pin_cache_off(void)
{
	long was = xf_param("pin_cache_entries");
	int ret;

	if (was == -ENOENT || was == 0)
		return 0;	/* a module without the cache, or off */
	if (was < 0)
		return was;
	ret = xf_set_param("pin_cache_entries", 0);
	return ret ? ret : was;
}

static inline void xf_pin_cache_restore(long was)
{
	if (was > 0)
		xf_set_param("pin_cache_entries", was);
}

/*
 * Create a job of n ranks and attach all of them here but rank skip
 * (-1: none), which a helper process attaches (struct mc_child): 0 or
 * -errno.
 */
static inline int xf_open_but(struct xf *x, int n, int skip)
{
	long pin_cache = x->pin_cache;	/* the fixture's */
	int r, ret;

	memset(x, 0, sizeof(*x));
	x->pin_cache = pin_cache;
	x->job.owner = -1;
	for (r = 0; r < XF_MAX_RANKS; r++)
		x->e[r].fd = -1;
	ret = mc_job_create(&x->job, n, 4096);
	if (ret)
		return ret;
	x->n = n;
	for (r = 0; r < n; r++) {
		if (r == skip)
			continue;
		ret = mc_ep_open(&x->e[r], &x->job, r);
		if (ret)
			return ret;
	}
	return 0;
}

/* Create a job of n ranks and attach all of them here: 0 or -errno. */
static inline int xf_open(struct xf *x, int n)
{
	return xf_open_but(x, n, -1);
}

static inline void xf_close(struct xf *x)
{
	int r;

	for (r = 0; r < XF_MAX_RANKS; r++)
		if (x->e[r].fd >= 0 || x->e[r].map)
			mc_ep_close(&x->e[r]);
	mc_job_close_owner(&x->job);
}

/*
 * In a fixture setup: module and debugfs present, nothing pinned, the
 * pin cache off (see xf_pin_cache_off()), a job of n ranks with all but
 * rank skip (-1: none) attached here.
 */
#define XF_SETUP_BUT(x, n, skip) do {					\
	long was_;							\
	(x)->job.owner = -1;						\
	(x)->pin_cache = 0;						\
	MC_REQUIRE_DEVICE();						\
	if (!mc_debugfs_present())					\
		SKIP(return, "%s absent: is debugfs mounted?", MC_DEBUGFS); \
	ASSERT_EQ(0, mc_stat("pinned_pages"));				\
	was_ = xf_pin_cache_off();					\
	if (was_ == -EACCES)						\
		SKIP(return, "needs root to turn the pin cache off");	\
	ASSERT_LE(0, was_);						\
	(x)->pin_cache = was_;						\
	ASSERT_EQ(0, xf_open_but((x), (n), (skip)));			\
} while (0)

#define XF_SETUP(x, n)	XF_SETUP_BUT(x, n, -1)

/*
 * In a fixture teardown: close everything; no pinned page may remain;
 * the pin cache as it was.
 */
#define XF_TEARDOWN(x) do {						\
	xf_close(x);							\
	xf_pin_cache_restore((x)->pin_cache);				\
	if (!_metadata->skip)						\
		EXPECT_EQ(0, mc_stat("pinned_pages"));			\
} while (0)

/* First thing in a test body: the harness runs it even after a SKIP. */
#define XF_BODY() do {							\
	if (_metadata->skip)						\
		return;							\
} while (0)

/* ---- the ioctls ----------------------------------------------------- */

static inline int xf_sendv(const struct mcr_ep *ep,
			   const struct mpichan_iovec *iov, uint32_t cnt,
			   uint32_t dst, uint32_t ctx, int32_t tag,
			   uint64_t user_data, struct mpichan_send *out)
{
	struct mpichan_send s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.iov = (uintptr_t)iov;
	s.iovcnt = cnt;
	s.dst = dst;
	s.context = ctx;
	s.tag = tag;
	s.user_data = user_data;
	ret = ioctl(ep->fd, MPICHAN_IOC_SEND, &s) ? -errno : 0;
	if (out)
		*out = s;
	return ret;
}

static inline int xf_send(const struct mcr_ep *ep, const void *buf,
			  size_t len, uint32_t dst, uint32_t ctx, int32_t tag,
			  uint64_t user_data, struct mpichan_send *out)
{
	struct mpichan_iovec v = { (uintptr_t)buf, len };

	return xf_sendv(ep, &v, 1, dst, ctx, tag, user_data, out);
}

static inline int xf_recvv(const struct mcr_ep *ep,
			   const struct mpichan_iovec *iov, uint32_t cnt,
			   int32_t src, uint32_t ctx, int32_t tag,
			   uint32_t flags, uint64_t handle, uint64_t user_data,
			   struct mpichan_recv *out)
{
	struct mpichan_recv r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.iov = (uintptr_t)iov;
	r.iovcnt = cnt;
	r.src = src;
	r.context = ctx;
	r.tag = tag;
	r.flags = flags;
	r.handle = handle;
	r.user_data = user_data;
	ret = ioctl(ep->fd, MPICHAN_IOC_RECV, &r) ? -errno : 0;
	if (out)
		*out = r;
	return ret;
}

static inline int xf_recv(const struct mcr_ep *ep, void *buf, size_t len,
			  int32_t src, uint32_t ctx, int32_t tag,
			  uint32_t flags, uint64_t handle, uint64_t user_data,
			  struct mpichan_recv *out)
{
	struct mpichan_iovec v = { (uintptr_t)buf, len };

	return xf_recvv(ep, &v, 1, src, ctx, tag, flags, handle, user_data,
			out);
}

static inline int xf_cancel(int fd, uint64_t handle)
{
	struct mpichan_cancel c = { .handle = handle };

	return ioctl(fd, MPICHAN_IOC_CANCEL, &c) ? -errno : 0;
}

static inline int xf_unmap(int fd, uint64_t handle)
{
	struct mpichan_unmap u = { .handle = handle };

	return ioctl(fd, MPICHAN_IOC_UNMAP, &u) ? -errno : 0;
}

/* ---- the completion queue ------------------------------------------ */

static inline struct mpichan_cqe *xf_cqes(const struct mcr_ep *ep)
{
	return (struct mpichan_cqe *)(ep->map + ep->off.cq +
		(uint64_t)ep->rank * MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE);
}

/* Entries the kernel posted that this rank has not consumed. */
static inline uint32_t xf_cq_count(const struct mcr_ep *ep)
{
	struct mpichan_rank_ctl *c = mcr_rank_ctl(ep, ep->rank);

	return __atomic_load_n(&c->cq_tail, __ATOMIC_ACQUIRE) - c->cq_head;
}

/* Take the next entry: 1, or 0 when the queue is empty. */
static inline int xf_cq_pop(const struct mcr_ep *ep,
			    struct mpichan_cqe *out)
{
	struct mpichan_rank_ctl *c = mcr_rank_ctl(ep, ep->rank);
	uint32_t head = c->cq_head;

	if (__atomic_load_n(&c->cq_tail, __ATOMIC_ACQUIRE) == head)
		return 0;
	*out = xf_cqes(ep)[head % MPICHAN_CQ_ENTRIES];
	__atomic_store_n(&c->cq_head, head + 1, __ATOMIC_RELEASE);
	return 1;
}

/* Take the next entry, sleeping in WAIT up to timeout_ms: 0 or -errno. */
static inline int xf_cq_wait(const struct mcr_ep *ep,
			     struct mpichan_cqe *out, int timeout_ms)
{
	int64_t end = mc_now_ns() + timeout_ms * MC_MS, left;
	int ret;

	for (;;) {
		if (xf_cq_pop(ep, out))
			return 0;
		left = end - mc_now_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		ret = mc_wait(ep->fd, left, MPICHAN_RANK_NONE, NULL);
		if (ret && ret != -EINTR)
			return ret == -ETIMEDOUT && xf_cq_pop(ep, out) ? 0 : ret;
	}
}

/*
 * Send buf[0..len) from rank 1 (queued, so pinned) and take it by handle
 * on rank 0 into rb, whose rb_size bytes are zeroed first: with the
 * kernel copy, or, given a window win, with a mapped receive copied from
 * the window and UNMAPped (*map_len, if map_len, what the window held).
 * 0, or the step that went wrong.
 */
static inline int xf_pass(const struct xf *x, const void *buf, size_t len,
			  unsigned char *rb, size_t rb_size,
			  const unsigned char *win, size_t *map_len)
{
	uint32_t flags = MPICHAN_RECV_HANDLE | (win ? MPICHAN_RECV_MAP : 0);
	uint32_t want = win ? MPICHAN_XFER_MAPPED : MPICHAN_XFER_DONE;
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	memset(rb, 0, rb_size);
	if (xf_send(&x->e[1], buf, len, 0, 0, 5, 0, &s) ||
	    s.status != MPICHAN_XFER_QUEUED)
		return 1;
	if (xf_recv(&x->e[0], rb, len, 1, 0, 5, flags, s.handle, 0, &r) ||
	    r.status != want || r.len != len)
		return 2;
	if (win) {
		memcpy(rb + r.map_off, win, r.map_len);
		if (map_len)
			*map_len = r.map_len;
		if (xf_unmap(x->e[0].fd, r.handle))
			return 3;
	}
	if (xf_cq_pop(&x->e[1], &c) != 1 || c.status || c.len != len)
		return 4;
	return 0;
}

/* ---- buffers --------------------------------------------------------- */

/* Page-aligned anonymous memory of at least len bytes, or NULL. */
static inline unsigned char *xf_alloc(size_t len)
{
	void *p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : (unsigned char *)p;
}

static inline void xf_free(void *p, size_t len)
{
	if (p)
		munmap(p, len ? len : 1);
}

/* Bytes of buf[0..len) all equal to c? */
static inline int xf_all(const unsigned char *buf, size_t len, unsigned char c)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != c)
			return 0;
	return 1;
}

/* ---- the window -------------------------------------------------------- */

/* mmap a window of len bytes: the address, or MAP_FAILED (errno set). */
static inline void *xf_window(int fd, size_t len, int prot, int flags)
{
	return mmap(NULL, len, prot, flags, fd, MPICHAN_WINDOW_OFFSET);
}

static sigjmp_buf xf_probe_env;

static void xf_probe_handler(int sig)
{
	siglongjmp(xf_probe_env, sig);
}

/*
 * Read one byte at p: 0 when it could be read (the byte in *val), or
 * the signal (SIGBUS, SIGSEGV) that reading it raised.
 */
static inline int xf_probe(const volatile unsigned char *p, unsigned char *val)
{
	struct sigaction sa, obus, osegv;
	volatile int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = xf_probe_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	sig = sigsetjmp(xf_probe_env, 1);
	if (!sig) {
		unsigned char v = *p;

		if (val)
			*val = v;
	}
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return sig;
}

#endif /* MPICHAN_XFER_HELPERS_H */
