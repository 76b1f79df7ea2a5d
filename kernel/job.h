/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jobs and ranks, and the module's lock order.
 *
 * Every lock of the module, outermost first.  A lock indented under
 * another may be taken while that one is held, never the other way
 * round; two locks of which neither is shown under the other are never
 * held together, but for pcache->lock and region->lock, leaves (below).
 * A lock may stand in several places.
 *
 *   mf->lock (mutex): a file's JOB_CREATE and ATTACH
 *     mpichan_jobs' xa_lock (spinlock): the attachable jobs
 *     job->lock (mutex): rank states, owner_open, the counts; rank_take()
 *       job->pages' xa_lock (spinlock): a CQ's pages, mpichan_job_page()
 *
 *   rank->win_lock (mutex): the rank's mapped receive: recv_map(),
 *   mpichan_unmap(), win_first, win_mapped, win_entry (window.c)
 *     mm->mmap_lock (rwsem), read: the rank's own, in
 *     mpichan_window_map() and mpichan_window_done(), and in faults of
 *     the copy of a mapped receive's partial pages into its buffer
 *       page table locks (spinlocks): apply_to_page_range(),
 *       zap_vma_ptes()
 *     job->xfer_lock (mutex): to set, read or clear rank->mapped
 *
 *   job->xfer_lock (mutex): the transfer queues and handles, the
 *   completion queues, rank->mapped, a multi-send's counts (match.c)
 *     job->xfers' xa_lock (spinlock)
 *     rank->wq.lock (spinlock): the wake-up of mpichan_cq_post()
 *
 *   mf->region_lock (mutex): a file's list of regions: REGION_REG,
 *   REGION_DEREG, the file's release (region.c)
 *     mpichan_regions' xa_lock (spinlock): the module's region table
 *
 *   mm->mmap_lock, held by the core around our callbacks: mmap()
 *   (write: mpichan_mmap(), mpichan_window_mmap(),
 *   mpichan_region_mmap()), faults (read: mpichan_vm_fault(),
 *   region_fault()), munmap() and exit (write, or downgraded to read:
 *   window_close(), region_vm_close())
 *     job->pages' xa_lock: a fault's page
 *     mpichan_regions' xa_lock, mf->region_grants' xa_lock: a region
 *     mmap()'s lookup
 *     the region address space's i_mmap lock: a stale region's zap in
 *     its mmap() (region_state_err())
 *     page table locks: region_fault()'s apply_to_page_range() and
 *     zap_vma_ptes()
 *     the workqueue's locks: window_close() queues a release
 *     pcache->lock, region->lock: MMU notifier invalidations
 *
 *   the i_mmap lock (rwsem) of the address space all our files share
 *   (region.c): unmap_mapping_range() in region_zap(), from REGION_*
 *   ioctls, a region's mmap() (above), a file's release and region_wq,
 *   never from a notifier
 *     page table locks of every process mapping the region
 *
 *   pcache->lock (spinlock): a rank's pin cache (pincache.c).  Its MMU
 *   notifier takes it under the core's mmap lock, under rmap locks and
 *   in reclaim, so under any lock of ours held across an allocation: it
 *   is a leaf, and nothing is allocated, taken or waited for under it.
 *
 *   region->lock (spinlock): a region's state and its notifier's
 *   sequence (region.c).  A leaf for the same reason as pcache->lock:
 *   the owner's MMU notifier takes it, and only queues work under it.
 *
 * Never nested, in either order: job->lock with xfer_lock or win_lock;
 * xfer_lock with the mmap lock.  Nothing takes win_lock under the mmap
 * lock or under xfer_lock: window_close() takes no lock of ours, it
 * xchg()s win_entry, as window_forget() does.
 *
 * Waits that a lock must not be held across, and where they happen:
 *  - a cache entry's release (mpichan_pcache_put()) removes its MMU
 *    notifier, which waits for an invalidation of the sender's mm in
 *    progress: with no lock held, or only win_lock (window_put()), which
 *    no invalidation takes; window_close() leaves it to pcache_wq;
 *  - flush_workqueue(pcache_wq) in mpichan_pcache_close(): no lock held;
 *  - region_kill() waits (killable) for the copies and faults of a region
 *    under way, with no lock held (REGION_DEREG, a file's release); a
 *    fault or copy never waits for anything while it counts in active;
 *  - region_check_work() (region_wq), counted in active, waits for an
 *    invalidation of the owner's mm to end (mmu_interval_read_begin())
 *    and takes the owner's mmap lock for reading, with no lock of ours;
 *    whoever waits for its verdict holds no lock either: copies, queries
 *    and REGION_MAP (region_state_err(), region_wait_checked()), and a
 *    fault only after dropping its mmap lock (VM_FAULT_RETRY), since
 *    the owner's mm may be its own; mmap() never waits for it;
 *  - region_release() removes the region's MMU notifier (which waits for
 *    an invalidation of the owner's mm under way) with no lock held:
 *    from region_kill() or region_wq;
 *  - job_release() waits in debugfs_remove_recursive() for readers of
 *    the job's state, which take job->lock, xfer_lock and each
 *    pcache->lock in turn, inside the seq_file's mutex.  It may run
 *    under mf->lock (a failed ATTACH dropping the last reference), which
 *    no reader takes.
 *
 * The module has no RCU or SRCU of its own (xa_load() reads under RCU
 * inside the xarray).  Read without a lock: mf->job (release, acquire),
 * rank->state (written under job->lock, read with READ_ONCE()),
 * rank->pcache (cmpxchg()), win_entry (xchg()), region->state (written
 * under region->lock, read with READ_ONCE() behind a full barrier where
 * it decides whether PTEs may stay) and the atomics.
 */
#ifndef _MPICHAN_JOB_H
#define _MPICHAN_JOB_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/mpichan.h>

#define MPICHAN_MAX_RANKS	1024
/* Largest mapping a job may have; ring pages are allocated lazily. */
#define MPICHAN_MAX_MAP_SIZE	(8ULL << 30)
#define MPICHAN_CQ_BYTES	(MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE)

struct mpichan_job;
struct mpichan_pcache;
struct mpichan_pcache_entry;

struct mpichan_rank {
	struct mpichan_job *job;
	u32 index;
	u32 state;			/* MPICHAN_RANK_*, under job->lock */
	pid_t pid;
	const struct mm_struct *mm;	/* the attacher's; compared only */
	wait_queue_head_t wq;		/* WAIT and poll() sleep here */
	atomic_t wake_pending;		/* a WAKE not yet seen by a WAIT */
	atomic_t sleeping;
	atomic64_t wakes;		/* WAKEs received */
	atomic64_t waits;		/* WAITs that slept */

	/* Large transfers (match.c), under job->xfer_lock. */
	struct list_head sendq;		/* sends queued to this rank, post order */
	struct list_head recvq;		/* receives it posted, post order */
	u32 cq_tail;			/* the kernel's copy of cq_tail */
	u32 cq_reserved;		/* entries promised to queued transfers */
	u32 queued_sends;		/* sends it posted, still queued */
	u32 queued_recvs;
	atomic64_t pinned;		/* pages its queued transfers hold */
	atomic64_t moved;		/* bytes its transfers moved */
	/* Its pinned send buffers (pincache.c), made on first use. */
	struct mpichan_pcache *pcache;

	/* The receive window (window.c), under the rank's mmap lock. */
	unsigned long win_start;	/* 0: no window */
	unsigned long win_pages;
	/*
	 * What its first win_mapped pages map, under win_lock and the mmap
	 * lock: win_first[0 .. win_mapped).  With win_entry (a reference on
	 * the sender's cached pin, which the window's close takes) they may
	 * stay mapped after UNMAP, for the next send of the same buffer.
	 */
	struct mutex win_lock;
	struct page **win_first;
	unsigned long win_mapped;
	struct mpichan_pcache_entry *win_entry;
	/* The send mapped in it now, under job->xfer_lock. */
	struct mpichan_xfer *mapped;
	unsigned long mapped_pages;
	u64 mapped_len;
};

struct mpichan_job {
	struct kref ref;
	u32 id;
	kuid_t uid;
	u8 secret[16];
	u32 nranks;
	u32 ring_bytes;
	struct mpichan_offsets off;
	unsigned long map_pages;
	unsigned long eager_pages;	/* header and rank ctls, allocated up front */

	struct mutex lock;		/* rank states and counters below */
	bool owner_open;
	u32 dead_count;
	u32 finished_count;

	struct mutex xfer_lock;		/* transfer queues, completion queues */
	struct xarray xfers;		/* handle -> queued struct mpichan_xfer */
	u32 next_xfer;

	struct xarray pages;		/* page index -> struct page * */
	struct mpichan_job_hdr *hdr;	/* kernel address of page 0 */
	struct dentry *debugfs;
	struct mpichan_rank ranks[];
};

/* What an open /dev/mpichan file is. */
struct mpichan_file {
	struct mutex lock;		/* serialises JOB_CREATE and ATTACH */
	struct mpichan_job *job;	/* set once, then never changes */
	struct mpichan_rank *rank;	/* NULL for the job's owner */
	bool finished;
	/* The regions registered on it (region.c), under region_lock. */
	struct mutex region_lock;
	struct list_head regions;
	/* handle -> what its last REGION_MAP allows mmap() (region.c) */
	struct xarray region_grants;
};

int mpichan_job_create(struct mpichan_file *mf, struct mpichan_job_create *c);
int mpichan_job_attach(struct mpichan_file *mf, struct mpichan_attach *a);
int mpichan_job_finish(struct mpichan_file *mf);
void mpichan_file_release(struct mpichan_file *mf);
struct mpichan_rank *mpichan_file_rank(struct mpichan_file *mf);

struct page *mpichan_job_page(struct mpichan_job *job, pgoff_t idx, bool alloc);
struct mpichan_rank_ctl *mpichan_rank_ctl(struct mpichan_job *job, u32 r);
struct mpichan_ring_ctl *mpichan_ring_ctl(struct mpichan_job *job, u32 src,
					  u32 dst);
struct mpichan_cqe *mpichan_cqe(struct mpichan_job *job, u32 r, u32 slot);
bool mpichan_job_may_inspect(const struct mpichan_job *job);
bool mpichan_peer_gone(struct mpichan_job *job, s32 peer);
void mpichan_job_exit(void);

#endif /* _MPICHAN_JOB_H */
