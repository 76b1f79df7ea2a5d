/* SPDX-License-Identifier: MIT */
/*
 * shm_job.h: a job's shared memory without the device, for the
 * user-space fallback.  The launcher (or a singleton rank) creates a
 * memfd laid out exactly like /dev/mpichan's mapping (same regions,
 * same page-aligned offsets, same ring indexing) and fills in the job
 * header as the module would; ranks inherit the fd (MPICHAN_MEMFD).
 * Shared by libmsg and its launcher (libmsg/bin/mpiexec.c).
 */
#ifndef LIBMSG_SHM_JOB_H
#define LIBMSG_SHM_JOB_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <linux/mpichan.h>

#define LM_SHM_PAGE	4096ULL
#define LM_SHM_ALIGN(x)	(((x) + LM_SHM_PAGE - 1) & ~(LM_SHM_PAGE - 1))

/* The module's choice of ring size: 16 MiB over all pairs, 4..64 KiB. */
static inline uint32_t lm_shm_default_ring_bytes(uint32_t nranks)
{
	uint64_t per_pair = (16ULL << 20) / ((uint64_t)nranks * nranks);
	uint32_t b = MPICHAN_RING_MIN_BYTES;

	if (per_pair > (64 << 10))
		per_pair = 64 << 10;
	while ((uint64_t)b * 2 <= per_pair)
		b *= 2;
	return b;
}

/* The module's layout (kernel/job.c job_layout()). */
static inline void lm_shm_layout(uint32_t nranks, uint32_t ring_bytes,
				 struct mpichan_offsets *off)
{
	uint64_t pairs = (uint64_t)nranks * nranks;

	memset(off, 0, sizeof(*off));
	off->job_hdr = 0;
	off->rank_ctl = LM_SHM_PAGE;
#ifdef MPICHAN_CQ_ENTRIES
	off->cq = off->rank_ctl +
		LM_SHM_ALIGN((uint64_t)nranks * MPICHAN_RANK_CTL_SIZE);
	off->ring_ctl = off->cq +
		(uint64_t)nranks * MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE;
#else
	off->ring_ctl = off->rank_ctl +
		LM_SHM_ALIGN((uint64_t)nranks * MPICHAN_RANK_CTL_SIZE);
#endif
	off->ring_data = off->ring_ctl + LM_SHM_ALIGN(pairs * MPICHAN_RING_CTL_SIZE);
	off->ring_bytes = ring_bytes;
	off->coll = off->ring_data + pairs * ring_bytes;
	off->map_size = off->coll + (uint64_t)nranks * MPICHAN_COLL_BYTES;
}

/*
 * Create a job of nranks in a new memfd (not close-on-exec: ranks
 * inherit it).  Returns the fd and the mapping in *map, or -errno.
 */
static inline int lm_shm_create(uint32_t nranks, uint32_t ring_bytes,
				uint64_t job_id, void **map)
{
	struct mpichan_job_hdr *hdr;
	struct mpichan_offsets off;
	int fd, err;
	void *p;

	if (!ring_bytes)
		ring_bytes = lm_shm_default_ring_bytes(nranks);
	if (nranks < 1 || ring_bytes < MPICHAN_RING_MIN_BYTES ||
	    ring_bytes > MPICHAN_RING_MAX_BYTES ||
	    (ring_bytes & (ring_bytes - 1)))
		return -EINVAL;
	lm_shm_layout(nranks, ring_bytes, &off);
	fd = (int)syscall(SYS_memfd_create, "mpichan-job", 0U);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)off.map_size) < 0)
		goto fail;
	p = mmap(NULL, off.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	hdr = (struct mpichan_job_hdr *)p;
	hdr->magic = MPICHAN_JOB_MAGIC;
	hdr->abi_version = MPICHAN_ABI_VERSION;
	hdr->job_id = job_id;
	hdr->nranks = nranks;
	hdr->ring_cells = ring_bytes / MPICHAN_CELL_SIZE;
	hdr->off = off;
	*map = p;
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

static inline struct mpichan_rank_ctl *lm_shm_rank_ctl(void *map, uint32_t r)
{
	struct mpichan_job_hdr *hdr = (struct mpichan_job_hdr *)map;

	return (struct mpichan_rank_ctl *)((unsigned char *)map +
		hdr->off.rank_ctl + (uint64_t)r * MPICHAN_RANK_CTL_SIZE);
}

/* Futex wake of everyone sleeping on rank r (shared, not private). */
static inline void lm_shm_wake(void *map, uint32_t r)
{
	struct mpichan_rank_ctl *rc = lm_shm_rank_ctl(map, r);

	syscall(SYS_futex, &rc->flags, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

/*
 * What the module does when a rank's file goes away without FINISH:
 * mark it dead, count it, wake every sleeper.  Called by the launcher
 * when it reaps a rank that did not finish.
 */
static inline void lm_shm_mark_dead(void *map, uint32_t r)
{
	struct mpichan_job_hdr *hdr = (struct mpichan_job_hdr *)map;
	struct mpichan_rank_ctl *rc = lm_shm_rank_ctl(map, r);
	uint32_t i;

	if (__atomic_load_n(&rc->state, __ATOMIC_ACQUIRE) == MPICHAN_RANK_FINISHED)
		return;
	__atomic_store_n(&rc->state, MPICHAN_RANK_DEAD, __ATOMIC_RELEASE);
	__atomic_fetch_add(&hdr->dead_count, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < hdr->nranks; i++) {
		rc = lm_shm_rank_ctl(map, i);
		__atomic_fetch_and(&rc->flags, ~MPICHAN_RANK_NEED_WAKEUP,
				   __ATOMIC_SEQ_CST);
		lm_shm_wake(map, i);
	}
}

#endif /* LIBMSG_SHM_JOB_H */
