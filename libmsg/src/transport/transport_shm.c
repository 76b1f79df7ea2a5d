// SPDX-License-Identifier: MIT
/*
 * The user-space fallback transport, used only when /dev/mpichan is
 * absent: the job's memory is a memfd laid out like the device's
 * mapping (shm_job.h), inherited from the launcher; a rank sleeps on a
 * futex on its rank control block's flags word, and a rendezvous is
 * copied once with process_vm_readv.  The launcher plays the module's
 * part when a rank dies (lm_shm_mark_dead()).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/futex.h>

#include "base/base.h"
#include "transport/shm_job.h"

static int env_int(const char *name, long *v)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s)
		return -ENOENT;
	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int shm_open_job(struct lm_job *job)
{
	long fd, rank = 0, size = 1;
	struct mpichan_job_hdr *hdr;
	struct stat st;
	void *map = NULL;
	int err;

	if (env_int("MPICHAN_MEMFD", &fd) == 0) {
		if (env_int("MPICHAN_RANK", &rank) || env_int("MPICHAN_SIZE", &size))
			lm_fatal("MPICHAN_MEMFD set without MPICHAN_RANK and MPICHAN_SIZE");
		if (fstat((int)fd, &st) < 0 || (uint64_t)st.st_size < LM_SHM_PAGE)
			lm_fatal("MPICHAN_MEMFD=%ld is not a job's memory", fd);
		hdr = mmap(NULL, LM_SHM_PAGE, PROT_READ, MAP_SHARED, (int)fd, 0);
		if (hdr == MAP_FAILED)
			lm_fatal("cannot map the job's memory: %s", strerror(errno));
		if (hdr->magic != MPICHAN_JOB_MAGIC ||
		    hdr->abi_version != MPICHAN_ABI_VERSION ||
		    hdr->nranks != (uint32_t)size ||
		    hdr->off.map_size > (uint64_t)st.st_size)
			lm_fatal("MPICHAN_MEMFD=%ld: not a job of %ld ranks", fd, size);
		map = mmap(NULL, hdr->off.map_size, PROT_READ | PROT_WRITE,
			   MAP_SHARED, (int)fd, 0);
		munmap(hdr, LM_SHM_PAGE);
		if (map == MAP_FAILED)
			return -errno;
		close((int)fd);
		/* Ranks are siblings: let them read each other (Yama). */
		prctl(PR_SET_PTRACER, (unsigned long)getppid(), 0, 0, 0);
	} else {
		/* A singleton: a job of one, made here. */
		err = lm_shm_create(1, 0, (uint64_t)getpid(), &map);
		if (err < 0)
			return err;
		close(err);
	}
	hdr = map;
	if (rank < 0 || rank >= size)
		lm_fatal("MPICHAN_RANK=%ld out of range (MPICHAN_SIZE=%ld)", rank, size);
	memset(&job->ep, 0, sizeof(job->ep));
	job->ep.fd = -1;
	job->ep.rank = (uint32_t)rank;
	job->ep.nranks = hdr->nranks;
	job->ep.ring_cells = hdr->ring_cells;
	job->ep.map = map;
	job->ep.off = hdr->off;
	job->hdr = hdr;
	job->rank = (uint32_t)rank;
	job->nranks = hdr->nranks;
	job->dead_seen = 0;
	mcr_rank_ctl(&job->ep, job->rank)->pid = (uint32_t)getpid();
	__atomic_store_n(&mcr_rank_ctl(&job->ep, job->rank)->state,
			 MPICHAN_RANK_ALIVE, __ATOMIC_RELEASE);
	return 0;
}

static void shm_wake(struct lm_job *job, uint32_t dst)
{
	lm_shm_wake(job->ep.map, dst);
}

static int shm_sleep(struct lm_job *job, int64_t timeout_ns)
{
	struct mpichan_rank_ctl *me = mcr_rank_ctl(&job->ep, job->rank);
	struct timespec ts, *tsp = NULL;
	uint32_t flags;

	flags = __atomic_or_fetch(&me->flags, MPICHAN_RANK_NEED_WAKEUP,
				  __ATOMIC_SEQ_CST);
	if (!mcr_any_incoming(&job->ep) && !lm_up.area_ready() &&
	    __atomic_load_n(&job->hdr->dead_count, __ATOMIC_SEQ_CST) ==
	    job->dead_seen) {
		if (timeout_ns >= 0) {
			ts.tv_sec = timeout_ns / 1000000000;
			ts.tv_nsec = timeout_ns % 1000000000;
			tsp = &ts;
		}
		syscall(SYS_futex, &me->flags, FUTEX_WAIT, flags, tsp, NULL, 0);
	}
	__atomic_fetch_and(&me->flags, ~MPICHAN_RANK_NEED_WAKEUP,
			   __ATOMIC_RELAXED);
	if (__atomic_load_n(&job->hdr->dead_count, __ATOMIC_ACQUIRE) !=
	    job->dead_seen)
		return -EPIPE;
	return 0;
}

/*
 * Pieces this big stay in the cache between the read and the unpack
 * that follows, and the rest of the buffer is never touched.
 */
#define LM_SINK_PIECE	(256UL << 10)

int lm_copy_vm_readv_sink(pid_t pid, uint64_t addr, void *buf, uint64_t len,
			  struct lm_sink *sink)
{
	uint64_t off, n;
	int err;

	if (!sink)
		return lm_copy_vm_readv(pid, addr, buf, len);
	for (off = 0; off < len; off += n) {
		n = len - off < LM_SINK_PIECE ? len - off : LM_SINK_PIECE;
		err = lm_copy_vm_readv(pid, addr + off, buf, n);
		if (err)
			return err;
		sink->put(sink, off, buf, n);
	}
	sink->done_off = 0;
	sink->done_len = len;
	return 0;
}

int lm_copy_vm_readv(pid_t pid, uint64_t addr, void *dst, uint64_t len)
{
	struct iovec local, remote;
	ssize_t n;

	if (pid == getpid()) {
		memcpy(dst, (const void *)(uintptr_t)addr, len);
		return 0;
	}
	while (len) {
		local.iov_base = dst;
		local.iov_len = len;
		remote.iov_base = (void *)(uintptr_t)addr;
		remote.iov_len = len;
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EFAULT;
		dst = (unsigned char *)dst + n;
		addr += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

int lm_rndv_offer_vm(struct lm_job *job, uint32_t dst, uint32_t context,
		     int32_t tag, const void *buf, uint64_t len, uint64_t sreq,
		     struct lm_rts *rts)
{
	(void)job;
	(void)dst;
	(void)context;
	(void)tag;
	rts->size = len;
	rts->addr = (uintptr_t)buf;
	rts->sreq = sreq;
	rts->pid = (uint32_t)getpid();
	return 0;
}

/* Every receiver reads the same buffer with process_vm_readv. */
int lm_rndv_offer_multi_vm(struct lm_job *job, uint32_t nrecv,
			   uint32_t context, int32_t tag, const void *buf,
			   uint64_t len, struct lm_rts *rts)
{
	(void)nrecv;
	return lm_rndv_offer_vm(job, 0, context, tag, buf, len, 0, rts);
}

static int shm_rndv_take(struct lm_job *job, uint32_t src, uint32_t context,
			 int32_t tag, const struct lm_rts *rts, void *buf,
			 uint64_t len, struct lm_sink *sink)
{
	(void)job;
	(void)src;
	(void)context;
	(void)tag;
	if (rts->flags & LM_RTS_HANDLE)
		return -EPROTO;
	return lm_copy_vm_readv_sink((pid_t)rts->pid, rts->addr, buf, len, sink);
}

static int shm_rndv_cancel(struct lm_job *job, const struct lm_rts *rts)
{
	(void)job;
	(void)rts;
	return 0;
}

static void shm_finish(struct lm_job *job)
{
	__atomic_store_n(&mcr_rank_ctl(&job->ep, job->rank)->state,
			 MPICHAN_RANK_FINISHED, __ATOMIC_RELEASE);
	__atomic_fetch_add(&job->hdr->finished_count, 1, __ATOMIC_SEQ_CST);
}

static void shm_close(struct lm_job *job)
{
	munmap(job->ep.map, job->ep.off.map_size);
	job->ep.map = NULL;
	job->hdr = NULL;
}

const struct lm_transport lm_transport_shm = {
	.name = "shm",
	.open = shm_open_job,
	.wake = shm_wake,
	.sleep = shm_sleep,
	.rndv_offer = lm_rndv_offer_vm,
	.rndv_offer_multi = lm_rndv_offer_multi_vm,
	.rndv_take = shm_rndv_take,
	.rndv_cancel = shm_rndv_cancel,
	.finish = shm_finish,
	.close = shm_close,
};
