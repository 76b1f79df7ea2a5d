// SPDX-License-Identifier: MIT
/*
 * The transport over /dev/mpichan: attach to the job the launcher made
 * (MPICHAN_JOB_ID, MPICHAN_JOB_SECRET), map it, sleep in MPICHAN_IOC_WAIT
 * and wake peers with MPICHAN_IOC_WAKE.  A rendezvous is a send queued
 * in the module (MPICHAN_IOC_SEND pins the sender's pages) whose handle
 * the RTS carries; the receiver takes exactly that send with
 * MPICHAN_IOC_RECV (MPICHAN_RECV_HANDLE), so matching order stays the
 * rings', and the module copies once from the pinned pages.  The sender
 * learns it from its completion queue.  With a receive window mapped
 * (MPICHAN_WINDOW bytes, default 1 GiB, 0 for none), the module maps
 * the whole pages of the message into it instead of copying them, and
 * the receiver copies them itself (the mapped copy; much faster where
 * kernel copies are slow).  Which of the two a receive asks for is
 * measured per size class (copy_choose.c, MPICHAN_COPY).  When the
 * module refuses the send (completion queue full, over RLIMIT_MEMLOCK),
 * the offer falls back to process_vm_readv.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>

#include "base/base.h"

int lm_transport_pick_device(void)
{
	const char *t = getenv("MPICHAN_TRANSPORT");

	if (t && !strcmp(t, "shm"))
		return 0;
	if (t && !strcmp(t, "mpichan"))
		return 1;
	if (getenv("MPICHAN_MEMFD"))
		return 0;
	if (getenv("MPICHAN_JOB_ID"))
		return 1;
	return access(MPICHAN_DEVICE, R_OK | W_OK) == 0;
}

static int parse_secret(const char *s, __u64 secret[2])
{
	char part[17];
	char *end;
	int i;

	if (!s || strlen(s) != 32)
		return -EINVAL;
	for (i = 0; i < 2; i++) {
		memcpy(part, s + 16 * i, 16);
		part[16] = 0;
		errno = 0;
		secret[i] = strtoull(part, &end, 16);
		if (errno || *end)
			return -EINVAL;
	}
	return 0;
}

/*
 * The receive window for mapped copies; without one, kernel copies.  By
 * default as large as the module allows (1 GiB): it is address space
 * only, filled for the length of one receive, and whatever of a message
 * does not fit is copied in the kernel, which ran a 128 MiB message 3
 * times slower through a 64 MiB window than through a 512 MiB one.
 * Where the address space is limited, down to 64 MiB.
 */
static void dev_map_window(struct lm_job *job)
{
	const char *env = getenv("MPICHAN_WINDOW");
	size_t bytes = env ? strtoull(env, NULL, 0) : MPICHAN_WINDOW_MAX_BYTES;
	void *w;

	job->window = NULL;
	job->window_bytes = 0;
	bytes &= ~(size_t)4095;
	if (!bytes)
		return;
	/* Short of address space (RLIMIT_AS): a smaller default one. */
	while ((w = mmap(NULL, bytes, PROT_READ, MAP_SHARED, job->ep.fd,
			 MPICHAN_WINDOW_OFFSET)) == MAP_FAILED) {
		if (env || errno != ENOMEM || bytes <= (64UL << 20))
			return;
		bytes /= 2;
	}
	job->window = w;
	job->window_bytes = bytes;
}

/*
 * Out of the window in 1 MiB pieces: the C library switches larger
 * copies to non-temporal stores, which emulated CPUs run slowly and
 * which leave the data out of the receiver's cache.  A message under
 * 512 KiB goes in 4 KiB pieces: whole, glibc copies it with `rep
 * movsb`, which QEMU TCG runs at a quarter of its vector loop's speed
 * (a 128 KiB ping-pong took 430 µs against 99-119 in pieces); on the
 * host both copy at the same rate (57 GB/s).
 */
#define LM_WINDOW_SMALL		(512UL << 10)

static void window_copy(unsigned char *dst, const unsigned char *src,
			size_t len)
{
	size_t off, n;

	if (len < LM_WINDOW_SMALL) {
		mcr_copy(dst, src, len);
		return;
	}
	for (off = 0; off < len; off += n) {
		n = len - off < (1UL << 20) ? len - off : (1UL << 20);
		memcpy(dst + off, src + off, n);
	}
}

struct lm_copy_state lm_copy;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int dev_open_job(struct lm_job *job)
{
	const char *id = getenv("MPICHAN_JOB_ID");
	const char *rank_s = getenv("MPICHAN_RANK");
	struct mpichan_job_create c;
	__u64 secret[2];
	uint64_t job_id;
	uint32_t rank = 0;
	int fd, err;

	job->owner_fd = -1;
	if (id) {
		if (!rank_s || parse_secret(getenv("MPICHAN_JOB_SECRET"), secret))
			lm_fatal("MPICHAN_JOB_ID set without a valid MPICHAN_RANK and MPICHAN_JOB_SECRET");
		job_id = strtoull(id, NULL, 10);
		rank = (uint32_t)strtoul(rank_s, NULL, 10);
	} else {
		/* A singleton: own a job of one. */
		job->owner_fd = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
		if (job->owner_fd < 0)
			return -errno;
		memset(&c, 0, sizeof(c));
		c.nranks = 1;
		if (ioctl(job->owner_fd, MPICHAN_IOC_JOB_CREATE, &c) < 0) {
			err = -errno;
			close(job->owner_fd);
			return err;
		}
		job_id = c.job_id;
		secret[0] = c.secret[0];
		secret[1] = c.secret[1];
	}
	fd = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = mcr_attach(&job->ep, fd, job_id, secret, rank);
	if (err) {
		close(fd);
		return err;
	}
	/* Ranks are siblings: let them read each other (Yama). */
	if (id)
		prctl(PR_SET_PTRACER, (unsigned long)getppid(), 0, 0, 0);
	if (lm_copy_init(&lm_copy, getenv("MPICHAN_COPY"),
			 getenv("MPICHAN_COPY_DEBUG")))
		lm_fatal("MPICHAN_COPY=%s: not auto, kernel or mapped",
			 getenv("MPICHAN_COPY"));
	lm_copy.rank = rank;
	dev_map_window(job);
	job->hdr = mcr_hdr(&job->ep);
	job->rank = rank;
	job->nranks = job->ep.nranks;
	job->dead_seen = 0;
	return 0;
}

static void dev_wake(struct lm_job *job, uint32_t dst)
{
	struct mpichan_wake w = { .rank = dst, .flags = 0 };

	LM_COUNT_ATOMIC(wakes);
	ioctl(job->ep.fd, MPICHAN_IOC_WAKE, &w);
}

static int dev_sleep(struct lm_job *job, int64_t timeout_ns)
{
	int32_t peer = MPICHAN_RANK_ANY;
	int ret;

	LM_COUNT_ATOMIC(sleeps);
	/* WAIT on any peer fails at once once anybody died: watch by hand. */
	if (job->dead_seen) {
		peer = MPICHAN_RANK_NONE;
		if (timeout_ns < 0 || timeout_ns > 10000000)
			timeout_ns = 10000000;
	}
	/* A collective in the area wakes only sleepers it sees: look there too. */
	ret = mcr_sleep_unless(&job->ep, timeout_ns, peer,
				   lm_up.area_ready);
	if (__atomic_load_n(&job->hdr->dead_count, __ATOMIC_ACQUIRE) !=
	    job->dead_seen)
		return -EPIPE;
	return ret == -EPIPE ? 0 : ret;
}

/*
 * MPICHAN_IOC_SEND of iov[0..n) to dst (MPICHAN_SEND_MULTI in flags:
 * for dst receivers) that the module queues: *s filled in; 0 or -errno.
 */
static int send_iov(struct lm_job *job, uint32_t dst, uint32_t context,
		    int32_t tag, const struct mpichan_iovec *iov, uint32_t n,
		    uint64_t sreq, uint32_t flags, struct mpichan_send *s)
{
	memset(s, 0, sizeof(*s));
	s->iov = (uintptr_t)iov;
	s->iovcnt = n;
	s->dst = dst;
	s->context = context;
	s->tag = tag;
	s->user_data = sreq;
	s->flags = flags;
	if (ioctl(job->ep.fd, MPICHAN_IOC_SEND, s) < 0)
		return -errno;
	return s->status == MPICHAN_XFER_QUEUED ? 0 : -EPROTO;
}

/* The RTS of a send the module queued: len bytes, named by its handle. */
static void rts_handle(struct lm_rts *rts, const struct mpichan_send *s,
		       uint64_t len, uint64_t sreq)
{
	LM_COUNT(offer_module, 1);
	LM_COUNT(rndv_sent_bytes, len);
	rts->size = len;
	rts->sreq = sreq;
	rts->handle = s->handle;
	rts->pid = (uint32_t)getpid();
	rts->flags |= LM_RTS_HANDLE;
}

static int dev_rndv_offer(struct lm_job *job, uint32_t dst, uint32_t context,
			  int32_t tag, const void *buf, uint64_t len,
			  uint64_t sreq, struct lm_rts *rts)
{
	struct mpichan_iovec iov = { .base = (uintptr_t)buf, .len = len };
	struct mpichan_send s;

	if (send_iov(job, dst, context, tag, &iov, 1, sreq, 0, &s)) {
		/* A span the module will not pin is packed instead. */
		if (rts->flags & LM_RTS_SPAN)
			return -EFAULT;
		/* Refused (or oddly done): offer the plain address instead. */
		return lm_rndv_offer_vm(job, dst, context, tag, buf, len, sreq,
					rts);
	}
	rts_handle(rts, &s, len, sreq);
	return 0;
}

/* A send's runs, gathered by the module (rndv_iov.c). */
static int dev_rndv_offer_iov(struct lm_job *job, uint32_t dst,
			      uint32_t context, int32_t tag,
			      const struct mpichan_iovec *iov, uint32_t n,
			      uint64_t len, uint64_t sreq, struct lm_rts *rts)
{
	struct mpichan_send s;
	int err = send_iov(job, dst, context, tag, iov, n, sreq, 0, &s);

	if (err)
		return err;
	rts_handle(rts, &s, len, sreq);
	rts->flags |= LM_RTS_IOV;
	return 0;
}

/*
 * One module send for all receivers (MPICHAN_SEND_MULTI): pinned once,
 * each receiver copies or maps it.  Its CQE (user_data 0) only settles
 * the completion queue count.
 */
static int dev_rndv_offer_multi(struct lm_job *job, uint32_t nrecv,
				uint32_t context, int32_t tag, const void *buf,
				uint64_t len, struct lm_rts *rts)
{
	struct mpichan_iovec iov = { .base = (uintptr_t)buf, .len = len };
	struct mpichan_send s;

	if (send_iov(job, nrecv, context, tag, &iov, 1, 0, MPICHAN_SEND_MULTI,
		     &s))
		/* An older module, or refused: the plain address. */
		return lm_rndv_offer_multi_vm(job, nrecv, context, tag, buf,
					      len, rts);
	lm.cq_wait++;
	rts_handle(rts, &s, len, 0);
	return 0;
}

/*
 * MPICHAN_IOC_RECV of the send rts names into iov[0..n), with flags
 * besides MPICHAN_RECV_HANDLE: *r filled in; 0 or -errno (-EPIPE: the
 * module dropped the send of a rank that left).
 */
static int recv_handle(struct lm_job *job, uint32_t src, uint32_t context,
		       int32_t tag, const struct lm_rts *rts,
		       const struct mpichan_iovec *iov, uint32_t n,
		       uint32_t flags, struct mpichan_recv *r)
{
	uint32_t state;
	int err;

	memset(r, 0, sizeof(*r));
	r->iov = (uintptr_t)iov;
	r->iovcnt = n;
	r->src = (int32_t)src;
	r->context = context;
	r->tag = tag;
	r->handle = rts->handle;
	r->flags = MPICHAN_RECV_HANDLE | flags;
	if (ioctl(job->ep.fd, MPICHAN_IOC_RECV, r) == 0)
		return 0;
	err = -errno;
	state = __atomic_load_n(&mcr_rank_ctl(&job->ep, src)->state,
				__ATOMIC_ACQUIRE);
	return err == -ENOENT && state != MPICHAN_RANK_ALIVE ? -EPIPE : err;
}

static int dev_rndv_take(struct lm_job *job, uint32_t src, uint32_t context,
			 int32_t tag, const struct lm_rts *rts, void *buf,
			 uint64_t len, struct lm_sink *sink)
{
	struct mpichan_iovec iov = { .base = (uintptr_t)buf, .len = len };
	struct mpichan_recv r;
	uint64_t t0 = 0;
	int err, method, timed = 0;

	if (!(rts->flags & LM_RTS_HANDLE))
		return lm_copy_vm_readv_sink((pid_t)rts->pid, rts->addr, buf,
					     len, sink);
	/*
	 * Kernel or mapped copy (copy_choose.c): a non-contiguous receive
	 * follows its class's choice untimed (its unpacking would count
	 * against the mapped copy alone).
	 */
	method = job->window ? lm_copy_next(&lm_copy, len, &timed) :
			       LM_COPY_KERNEL;
	if (sink || !len)
		timed = 0;
	if (timed)
		t0 = now_ns();
	err = recv_handle(job, src, context, tag, rts, &iov, len ? 1 : 0,
			  method == LM_COPY_MAPPED ? MPICHAN_RECV_MAP : 0, &r);
	if (err)
		return err;
	if (r.status == MPICHAN_XFER_MAPPED) {
		struct mpichan_unmap um = { .handle = r.handle };

		/* The partial pages around the range: the module copied them. */
		LM_COUNT(take_mapped, 1);
		LM_COUNT(take_mapped_bytes, r.map_len);
		LM_COUNT(take_module_bytes, len - r.map_len);

		/* A non-contiguous receive unpacks straight from the window. */
		if (sink) {
			sink->put(sink, r.map_off, job->window, r.map_len);
			sink->done_off = r.map_off;
			sink->done_len = r.map_len;
		} else {
			window_copy((unsigned char *)buf + r.map_off, job->window,
				    r.map_len);
		}
		if (ioctl(job->ep.fd, MPICHAN_IOC_UNMAP, &um) < 0)
			return -errno;
		if (timed)
			lm_copy_record(&lm_copy, len, method, now_ns() - t0);
		return 0;
	}
	LM_COUNT(take_module, 1);
	LM_COUNT(take_module_bytes, len);
	if (r.status != MPICHAN_XFER_DONE)
		return -EPROTO;
	/* Asked to map, the module copied (a message within one page). */
	if (timed && method == LM_COPY_KERNEL)
		lm_copy_record(&lm_copy, len, method, now_ns() - t0);
	return 0;
}

/* An offer of runs, copied by the module into the receiver's runs. */
static int dev_rndv_take_iov(struct lm_job *job, uint32_t src,
			     uint32_t context, int32_t tag,
			     const struct lm_rts *rts,
			     const struct mpichan_iovec *iov, uint32_t n)
{
	struct mpichan_recv r;
	int err = recv_handle(job, src, context, tag, rts, iov, n, 0, &r);

	if (err)
		return err;
	LM_COUNT(take_module, 1);
	LM_COUNT(take_module_bytes, rts->size);
	return r.status == MPICHAN_XFER_DONE ? 0 : -EPROTO;
}

static int dev_rndv_cancel(struct lm_job *job, const struct lm_rts *rts)
{
	struct mpichan_cancel c = { .handle = rts->handle, .flags = 0, .pad = 0 };

	if (!(rts->flags & LM_RTS_HANDLE))
		return 0;
	return ioctl(job->ep.fd, MPICHAN_IOC_CANCEL, &c) == 0;
}

static void dev_finish(struct lm_job *job)
{
	ioctl(job->ep.fd, MPICHAN_IOC_FINISH);
}

static void dev_close(struct lm_job *job)
{
	if (job->window)
		munmap(job->window, job->window_bytes);
	job->window = NULL;
	mcr_detach(&job->ep);
	close(job->ep.fd);
	if (job->owner_fd >= 0)
		close(job->owner_fd);
	job->hdr = NULL;
}

const struct lm_transport lm_transport_mpichan = {
	.name = "mpichan",
	.open = dev_open_job,
	.wake = dev_wake,
	.sleep = dev_sleep,
	.rndv_offer = dev_rndv_offer,
	.rndv_offer_multi = dev_rndv_offer_multi,
	.rndv_take = dev_rndv_take,
	.rndv_offer_iov = dev_rndv_offer_iov,
	.rndv_take_iov = dev_rndv_take_iov,
	.rndv_cancel = dev_rndv_cancel,
	.finish = dev_finish,
	.close = dev_close,
};
