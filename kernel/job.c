// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs and ranks: creation by a launcher, attachment by ranks, the
 * job's shared pages, and what happens when a rank goes away.
 *
 * A job lives as long as any file refers to it: the owner's and each
 * rank's.  Every mapping holds its file, so pages never outlive the job.
 */
#include <crypto/algapi.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "debugfs.h"
#include "job.h"
#include "match.h"
#include "pincache.h"
#include "window.h"

/* Job ids of jobs whose owner handle is open, i.e. attachable. */
static DEFINE_XARRAY_ALLOC1(mpichan_jobs);
static u32 mpichan_next_id;

/* Ring size when the creator leaves it to us: 16 MiB for all pairs. */
static u32 default_ring_bytes(u32 nranks)
{
	u64 per_pair = (16ULL << 20) / ((u64)nranks * nranks);

	per_pair = clamp_t(u64, per_pair, MPICHAN_RING_MIN_BYTES, 64 << 10);
	return rounddown_pow_of_two(per_pair);
}

static int job_layout(struct mpichan_job *job)
{
	struct mpichan_offsets *off = &job->off;
	u64 pairs = (u64)job->nranks * job->nranks;

	off->job_hdr = 0;
	off->rank_ctl = PAGE_SIZE;
	off->cq = off->rank_ctl +
		PAGE_ALIGN((u64)job->nranks * MPICHAN_RANK_CTL_SIZE);
	off->ring_ctl = off->cq + (u64)job->nranks * MPICHAN_CQ_BYTES;
	off->ring_data = off->ring_ctl + PAGE_ALIGN(pairs * MPICHAN_RING_CTL_SIZE);
	off->ring_bytes = job->ring_bytes;
	off->coll = off->ring_data + pairs * job->ring_bytes;
	off->map_size = off->coll + (u64)job->nranks * MPICHAN_COLL_BYTES;
	if (off->map_size > MPICHAN_MAX_MAP_SIZE)
		return -EINVAL;
	job->map_pages = off->map_size >> PAGE_SHIFT;
	job->eager_pages = off->cq >> PAGE_SHIFT;
	return 0;
}

/*
 * The page at index idx of the job's mapping, allocated zeroed on first
 * use when alloc is set.  Returns NULL when absent (or out of memory).
 */
struct page *mpichan_job_page(struct mpichan_job *job, pgoff_t idx, bool alloc)
{
	struct page *page, *old;

	if (idx >= job->map_pages)
		return NULL;
	page = xa_load(&job->pages, idx);
	if (page || !alloc)
		return page;
	page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!page)
		return NULL;
	old = xa_cmpxchg(&job->pages, idx, NULL, page, GFP_KERNEL_ACCOUNT);
	if (old) {
		/* Lost a race with another fault, or no memory for the slot. */
		__free_page(page);
		return xa_is_err(old) ? NULL : old;
	}
	atomic_long_inc(&mpichan_stats.ring_pages);
	return page;
}

static void *job_addr(struct mpichan_job *job, u64 offset)
{
	struct page *page = mpichan_job_page(job, offset >> PAGE_SHIFT, false);

	return page ? page_address(page) + offset_in_page(offset) : NULL;
}

/* Always present: rank ctls are allocated with the job. */
struct mpichan_rank_ctl *mpichan_rank_ctl(struct mpichan_job *job, u32 r)
{
	return job_addr(job, job->off.rank_ctl + (u64)r * MPICHAN_RANK_CTL_SIZE);
}

/* Present once rank r has attached. */
struct mpichan_cqe *mpichan_cqe(struct mpichan_job *job, u32 r, u32 slot)
{
	slot &= MPICHAN_CQ_ENTRIES - 1;
	return job_addr(job, job->off.cq + (u64)r * MPICHAN_CQ_BYTES +
			(u64)slot * MPICHAN_CQE_SIZE);
}

/* A rank's completion queue is allocated when it attaches. */
static int cq_alloc(struct mpichan_job *job, u32 r)
{
	u64 first = (job->off.cq + (u64)r * MPICHAN_CQ_BYTES) >> PAGE_SHIFT;
	u64 i;

	for (i = 0; i < MPICHAN_CQ_BYTES >> PAGE_SHIFT; i++)
		if (!mpichan_job_page(job, first + i, true))
			return -ENOMEM;
	return 0;
}

/* NULL while nobody has touched the ring's page: an empty ring. */
struct mpichan_ring_ctl *mpichan_ring_ctl(struct mpichan_job *job, u32 src,
					  u32 dst)
{
	u64 idx = (u64)dst * job->nranks + src;

	return job_addr(job, job->off.ring_ctl + idx * MPICHAN_RING_CTL_SIZE);
}

static void job_free_pages(struct mpichan_job *job)
{
	unsigned long idx;
	struct page *page;

	xa_for_each(&job->pages, idx, page) {
		put_page(page);
		atomic_long_dec(&mpichan_stats.ring_pages);
	}
	xa_destroy(&job->pages);
}

static void job_release(struct kref *ref)
{
	struct mpichan_job *job = container_of(ref, struct mpichan_job, ref);
	u32 r;

	mpichan_debugfs_job_remove(job);
	/* Every rank left, and leaving drops its transfers. */
	WARN_ON(!xa_empty(&job->xfers));
	xa_destroy(&job->xfers);
	for (r = 0; r < job->nranks; r++) {
		mpichan_pcache_release(&job->ranks[r]);
		mutex_destroy(&job->ranks[r].win_lock);
	}
	job_free_pages(job);
	mutex_destroy(&job->xfer_lock);
	mutex_destroy(&job->lock);
	kvfree(job);
	atomic_long_dec(&mpichan_stats.jobs);
}

static void job_put(struct mpichan_job *job)
{
	kref_put(&job->ref, job_release);
}

static struct mpichan_job *job_alloc(u32 nranks, u32 ring_bytes)
{
	struct mpichan_job *job;
	unsigned long i;
	int ret;
	u32 r;

	job = kvzalloc(struct_size(job, ranks, nranks), GFP_KERNEL_ACCOUNT);
	if (!job)
		return ERR_PTR(-ENOMEM);
	kref_init(&job->ref);
	mutex_init(&job->lock);
	mutex_init(&job->xfer_lock);
	xa_init_flags(&job->xfers, XA_FLAGS_ALLOC1);
	xa_init(&job->pages);
	job->nranks = nranks;
	job->ring_bytes = ring_bytes;
	job->uid = current_euid();
	get_random_bytes(job->secret, sizeof(job->secret));
	atomic_long_inc(&mpichan_stats.jobs);
	for (r = 0; r < nranks; r++) {
		struct mpichan_rank *rank = &job->ranks[r];

		rank->job = job;
		rank->index = r;
		init_waitqueue_head(&rank->wq);
		mutex_init(&rank->win_lock);
		INIT_LIST_HEAD(&rank->sendq);
		INIT_LIST_HEAD(&rank->recvq);
	}
	ret = job_layout(job);
	if (ret)
		goto err_put_job;
	for (i = 0; i < job->eager_pages; i++) {
		if (!mpichan_job_page(job, i, true)) {
			ret = -ENOMEM;
			goto err_put_job;
		}
	}
	job->hdr = job_addr(job, 0);
	return job;

err_put_job:
	job_put(job);
	return ERR_PTR(ret);
}

static void job_fill_header(struct mpichan_job *job)
{
	struct mpichan_job_hdr *hdr = job->hdr;

	hdr->magic = MPICHAN_JOB_MAGIC;
	hdr->abi_version = MPICHAN_ABI_VERSION;
	hdr->job_id = job->id;
	hdr->nranks = job->nranks;
	hdr->ring_cells = job->ring_bytes / MPICHAN_CELL_SIZE;
	hdr->off = job->off;
}

int mpichan_job_create(struct mpichan_file *mf, struct mpichan_job_create *c)
{
	struct mpichan_job *job;
	u32 ring_bytes = c->ring_bytes;
	int ret;

	if (c->flags || c->pad || !c->nranks || c->nranks > MPICHAN_MAX_RANKS)
		return -EINVAL;
	if (!ring_bytes)
		ring_bytes = default_ring_bytes(c->nranks);
	else if (!is_power_of_2(ring_bytes) ||
		 ring_bytes < MPICHAN_RING_MIN_BYTES ||
		 ring_bytes > MPICHAN_RING_MAX_BYTES)
		return -EINVAL;

	mutex_lock(&mf->lock);
	if (mf->job) {
		ret = -EISCONN;
		goto err_unlock;
	}
	job = job_alloc(c->nranks, ring_bytes);
	if (IS_ERR(job)) {
		ret = PTR_ERR(job);
		goto err_unlock;
	}
	job->owner_open = true;
	ret = xa_alloc_cyclic(&mpichan_jobs, &job->id, job, xa_limit_32b,
			      &mpichan_next_id, GFP_KERNEL);
	if (ret < 0)
		goto err_put_job;
	job_fill_header(job);
	mpichan_debugfs_job_add(job);

	c->ring_bytes = ring_bytes;
	c->job_id = job->id;
	memcpy(c->secret, job->secret, sizeof(c->secret));
	/* Pairs with the acquire in mpichan_file_rank() and mmap. */
	smp_store_release(&mf->job, job);
	mutex_unlock(&mf->lock);
	return 0;

err_put_job:
	job_put(job);
err_unlock:
	mutex_unlock(&mf->lock);
	return ret;
}

/* A reference to an attachable job, or NULL. */
static struct mpichan_job *job_lookup(u64 id)
{
	struct mpichan_job *job;

	if (id > U32_MAX)
		return NULL;
	xa_lock(&mpichan_jobs);
	job = xa_load(&mpichan_jobs, id);
	if (job && !kref_get_unless_zero(&job->ref))
		job = NULL;
	xa_unlock(&mpichan_jobs);
	return job;
}

bool mpichan_job_may_inspect(const struct mpichan_job *job)
{
	return uid_eq(current_fsuid(), job->uid) || capable(CAP_SYS_ADMIN);
}

static int rank_take(struct mpichan_job *job, struct mpichan_rank *rank)
{
	struct mpichan_rank_ctl *ctl = mpichan_rank_ctl(job, rank->index);
	int ret = 0;

	mutex_lock(&job->lock);
	if (rank->state != MPICHAN_RANK_EMPTY) {
		ret = -EBUSY;
	} else if (cq_alloc(job, rank->index)) {
		ret = -ENOMEM;
	} else {
		rank->state = MPICHAN_RANK_ALIVE;
		rank->pid = task_tgid_vnr(current);
		rank->mm = current->mm;
		WRITE_ONCE(ctl->pid, rank->pid);
		/* Peers that see ALIVE (acquire) see the pid too. */
		smp_store_release(&ctl->state, MPICHAN_RANK_ALIVE);
		atomic_long_inc(&mpichan_stats.ranks);
	}
	mutex_unlock(&job->lock);
	return ret;
}

int mpichan_job_attach(struct mpichan_file *mf, struct mpichan_attach *a)
{
	struct mpichan_job *job;
	int ret;

	if (a->flags)
		return -EINVAL;
	mutex_lock(&mf->lock);
	if (mf->job) {
		ret = -EISCONN;
		goto err_unlock;
	}
	job = job_lookup(a->job_id);
	if (!job) {
		ret = -ENOENT;
		goto err_unlock;
	}
	/* Identity first, then the secret, and only then the rank. */
	if (!uid_eq(current_euid(), job->uid) && !capable(CAP_SYS_ADMIN))
		ret = -EPERM;
	else if (crypto_memneq(a->secret, job->secret, sizeof(job->secret)))
		ret = -EACCES;
	else if (a->rank >= job->nranks)
		ret = -ERANGE;
	else
		ret = rank_take(job, &job->ranks[a->rank]);
	if (ret)
		goto err_put_job;
	a->nranks = job->nranks;
	a->ring_cells = job->ring_bytes / MPICHAN_CELL_SIZE;
	a->off = job->off;
	mf->rank = &job->ranks[a->rank];
	/* Lockless readers that see the job see the rank too. */
	smp_store_release(&mf->job, job);
	mutex_unlock(&mf->lock);
	return 0;

err_put_job:
	job_put(job);
err_unlock:
	mutex_unlock(&mf->lock);
	return ret;
}

/*
 * The rank behind a file, for the calls only a rank may make: -ENOTCONN
 * for an owner or unattached file, -EBADFD when the caller is not the
 * process that attached (a child that inherited the fd over fork()).
 */
struct mpichan_rank *mpichan_file_rank(struct mpichan_file *mf)
{
	/* Pairs with the release in attach: mf->rank is set before. */
	struct mpichan_job *job = smp_load_acquire(&mf->job);

	if (!job || !mf->rank)
		return ERR_PTR(-ENOTCONN);
	if (mf->rank->mm != current->mm)
		return ERR_PTR(-EBADFD);
	return mf->rank;
}

int mpichan_job_finish(struct mpichan_file *mf)
{
	struct mpichan_rank *rank = mpichan_file_rank(mf);

	if (IS_ERR(rank))
		return PTR_ERR(rank);
	WRITE_ONCE(mf->finished, true);
	return 0;
}

bool mpichan_peer_gone(struct mpichan_job *job, s32 peer)
{
	u32 state;

	if (peer == MPICHAN_RANK_NONE)
		return false;
	if (peer == MPICHAN_RANK_ANY)
		return READ_ONCE(job->dead_count) != 0;
	state = READ_ONCE(job->ranks[peer].state);
	return state == MPICHAN_RANK_DEAD || state == MPICHAN_RANK_FINISHED;
}

/* A rank's file is gone: record how it left and tell every sleeper. */
static void rank_leave(struct mpichan_rank *rank, bool finished)
{
	struct mpichan_job *job = rank->job;
	struct mpichan_rank_ctl *ctl = mpichan_rank_ctl(job, rank->index);
	u32 state = finished ? MPICHAN_RANK_FINISHED : MPICHAN_RANK_DEAD;
	u32 r;

	mutex_lock(&job->lock);
	WRITE_ONCE(rank->state, state);
	if (finished) {
		job->finished_count++;
		WRITE_ONCE(job->hdr->finished_count, job->finished_count);
	} else {
		WRITE_ONCE(job->dead_count, job->dead_count + 1);
		WRITE_ONCE(job->hdr->dead_count, job->dead_count);
	}
	/* Peers that see the new state (acquire) see the counts too. */
	smp_store_release(&ctl->state, state);
	atomic_long_dec(&mpichan_stats.ranks);
	mutex_unlock(&job->lock);

	mpichan_match_rank_left(rank);
	mpichan_window_release(rank);
	mpichan_pcache_close(rank);
	for (r = 0; r < job->nranks; r++)
		wake_up_interruptible_all(&job->ranks[r].wq);
}

void mpichan_file_release(struct mpichan_file *mf)
{
	struct mpichan_job *job = mf->job;

	if (!job)
		return;
	if (mf->rank) {
		rank_leave(mf->rank, mf->finished);
	} else {
		/* The owner left: the job takes no new ranks. */
		xa_erase(&mpichan_jobs, job->id);
		mutex_lock(&job->lock);
		job->owner_open = false;
		mutex_unlock(&job->lock);
	}
	job_put(job);
}

void mpichan_job_exit(void)
{
	/* Every file is closed before unload, so every job is gone. */
	WARN_ON(!xa_empty(&mpichan_jobs));
	xa_destroy(&mpichan_jobs);
}
