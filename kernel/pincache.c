// SPDX-License-Identifier: GPL-2.0
/*
 * The pin cache: a rank that sends the same buffer again does not pin
 * it again.  Each rank keeps the pinned pages of its recent one-segment
 * sends, most recently used first, bounded by count and by pages, and
 * still charged to RLIMIT_MEMLOCK while cached.
 *
 * A cached range carries an mmu_interval_notifier: whatever changes
 * the pages behind it (munmap, mremap, MAP_FIXED over it, fork's
 * write-protection, madvise(MADV_DONTNEED), migration, exit) removes
 * the entry from the cache before the page tables change, so a later
 * send pins the new pages.  A send holds a reference on its entry, so
 * an invalidated entry keeps its pins until the last send using it is
 * done: the copy never reads a freed page, exactly as without a cache.
 *
 * Invalidation callbacks may run where nothing can sleep (the OOM
 * reaper's non-blockable ranges, under rmap locks), and an interval
 * notifier cannot be removed from its own callback.  The callback
 * therefore only takes the cache's spinlock and unlinks the entry; the
 * last reference, if the callback drops it, queues the release (remove
 * the notifier, unpin, uncharge) on a workqueue.  Every other release
 * runs in the caller's process context.
 *
 * Lifetime: an entry holds a reference on its cache, the job holds the
 * rank's.  A rank that leaves empties its cache and waits for queued
 * releases; module unload destroys the workqueue after the last job.
 */
#include <linux/kref.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/refcount.h>
#include <linux/sched/user.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "debugfs.h"
#include "job.h"
#include "pin.h"
#include "pincache.h"

/* The lookup is a list walk under a spinlock: keep it short. */
#define PCACHE_MAX_ENTRIES	1024

static unsigned int pin_cache_entries = 64;
module_param(pin_cache_entries, uint, 0644);
MODULE_PARM_DESC(pin_cache_entries,
		 "send buffers each rank keeps pinned for reuse, at most 1024 (0: no cache)");

static unsigned long pin_cache_pages = 16384;
module_param(pin_cache_pages, ulong, 0644);
MODULE_PARM_DESC(pin_cache_pages,
		 "pages each rank's cache of send buffers may keep pinned");

static struct workqueue_struct *pcache_wq;

struct mpichan_pcache {
	struct kref ref;		/* the job's, and one per entry */
	spinlock_t lock;		/* all below; taken in invalidate */
	struct list_head lru;		/* cached entries, most recent first */
	unsigned long entries;
	unsigned long pages;
	bool closed;			/* the rank left: cache nothing more */
	unsigned long hits;
	unsigned long misses;
	unsigned long invalidated;
	unsigned long evicted;
};

struct mpichan_pcache_entry {
	struct mmu_interval_notifier notifier;
	struct mpichan_pcache *cache;
	struct list_head lru;		/* in cache->lru while cached */
	bool cached;			/* under cache->lock */
	refcount_t ref;			/* the cache's while cached, each send's */
	struct work_struct release;	/* when invalidate drops the last ref */
	unsigned long start;		/* user address, page aligned */
	unsigned long npages;
	struct user_struct *user;	/* charged for npages, or NULL */
	struct page *pages[];
};

static void pcache_free(struct kref *ref)
{
	kfree(container_of(ref, struct mpichan_pcache, ref));
}

/* Remove the notifier first: then no callback can see the entry. */
static void entry_release(struct mpichan_pcache_entry *e)
{
	mmu_interval_notifier_remove(&e->notifier);
	unpin_user_pages(e->pages, e->npages);
	atomic_long_sub(e->npages, &mpichan_stats.pinned_pages);
	mpichan_pin_uncharge(e->user, e->npages);
	kref_put(&e->cache->ref, pcache_free);
	kvfree(e);
}

static void entry_release_work(struct work_struct *work)
{
	entry_release(container_of(work, struct mpichan_pcache_entry, release));
}

/* Another user of e's pages: the receive window that maps them. */
void mpichan_pcache_get(struct mpichan_pcache_entry *e)
{
	refcount_inc(&e->ref);
}

/*
 * Is e still in its cache (not invalidated, evicted or closed)?  A hint:
 * it may go right after, and its pages stay pinned while referenced.
 */
bool mpichan_pcache_cached(const struct mpichan_pcache_entry *e)
{
	return READ_ONCE(e->cached);
}

/* Drop a reference where releasing could not sleep or must not wait. */
void mpichan_pcache_put_async(struct mpichan_pcache_entry *e)
{
	if (refcount_dec_and_test(&e->ref))
		queue_work(pcache_wq, &e->release);
}

/*
 * Drop a reference in process context, holding no lock an invalidation
 * may need: the release waits for one in progress (the lock order is
 * in job.h).
 */
void mpichan_pcache_put(struct mpichan_pcache_entry *e)
{
	if (refcount_dec_and_test(&e->ref))
		entry_release(e);
}

/* Take e out of the cache; the caller then drops the cache's reference. */
static bool pcache_unlink(struct mpichan_pcache *c,
			  struct mpichan_pcache_entry *e)
{
	lockdep_assert_held(&c->lock);
	if (!e->cached)
		return false;
	list_del_init(&e->lru);
	WRITE_ONCE(e->cached, false);
	c->entries--;
	c->pages -= e->npages;
	atomic_long_dec(&mpichan_stats.cache_entries);
	atomic_long_sub(e->npages, &mpichan_stats.cache_pages);
	return true;
}

/*
 * The pages behind the entry are about to change.  Nothing here sleeps
 * (a spinlock, a queue_work()), so blockable and non-blockable ranges
 * are handled alike and the callback never has to refuse.
 */
static bool pcache_invalidate(struct mmu_interval_notifier *mni,
			      const struct mmu_notifier_range *range,
			      unsigned long cur_seq)
{
	struct mpichan_pcache_entry *e =
		container_of(mni, struct mpichan_pcache_entry, notifier);
	struct mpichan_pcache *c = e->cache;
	bool unlinked;

	spin_lock(&c->lock);
	mmu_interval_set_seq(mni, cur_seq);
	unlinked = pcache_unlink(c, e);
	if (unlinked) {
		c->invalidated++;
		atomic_long_inc(&mpichan_stats.cache_invalidated);
	}
	spin_unlock(&c->lock);
	if (unlinked && refcount_dec_and_test(&e->ref))
		queue_work(pcache_wq, &e->release);
	return true;
}

static const struct mmu_interval_notifier_ops pcache_ops = {
	.invalidate = pcache_invalidate,
};

/* The rank's cache, made on its first send. */
static struct mpichan_pcache *pcache_of(struct mpichan_rank *rank)
{
	struct mpichan_pcache *c = READ_ONCE(rank->pcache), *old;

	if (c)
		return c;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return NULL;
	kref_init(&c->ref);
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->lru);
	/* Two threads of the rank may race here; one cache wins. */
	old = cmpxchg(&rank->pcache, NULL, c);
	if (old) {
		kfree(c);
		return old;
	}
	return c;
}

/* A cached entry holding all of [start, start + npages pages), or NULL. */
static struct mpichan_pcache_entry *
pcache_lookup(struct mpichan_pcache *c, unsigned long start,
	      unsigned long npages)
{
	unsigned long end = start + (npages << PAGE_SHIFT);
	struct mpichan_pcache_entry *e;

	spin_lock(&c->lock);
	list_for_each_entry(e, &c->lru, lru) {
		if (start >= e->start &&
		    end <= e->start + (e->npages << PAGE_SHIFT)) {
			refcount_inc(&e->ref);
			list_move(&e->lru, &c->lru);
			c->hits++;
			atomic_long_inc(&mpichan_stats.cache_hits);
			spin_unlock(&c->lock);
			return e;
		}
	}
	c->misses++;
	atomic_long_inc(&mpichan_stats.cache_misses);
	spin_unlock(&c->lock);
	return NULL;
}

/*
 * Evict from the cold end until the cache is within its bounds, onto
 * gone, to be put once the lock is dropped.  c->lock held.
 */
static void pcache_trim(struct mpichan_pcache *c,
			const struct mpichan_pcache_entry *keep,
			struct list_head *gone)
{
	unsigned int max_entries = min_t(unsigned int,
					 READ_ONCE(pin_cache_entries),
					 PCACHE_MAX_ENTRIES);
	unsigned long max_pages = READ_ONCE(pin_cache_pages);
	struct mpichan_pcache_entry *e, *tmp;

	lockdep_assert_held(&c->lock);
	list_for_each_entry_safe_reverse(e, tmp, &c->lru, lru) {
		if (c->entries <= max_entries && c->pages <= max_pages)
			break;
		if (e == keep)
			continue;
		pcache_unlink(c, e);
		list_add(&e->lru, gone);
		c->evicted++;
		atomic_long_inc(&mpichan_stats.cache_evicted);
	}
}

static void put_all(struct list_head *gone)
{
	struct mpichan_pcache_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, gone, lru) {
		list_del_init(&e->lru);
		mpichan_pcache_put(e);
	}
}

static struct mpichan_pcache_entry *
entry_alloc(struct mpichan_pcache *c, unsigned long start, unsigned long npages)
{
	struct mpichan_pcache_entry *e;

	e = kvzalloc(struct_size(e, pages, npages), GFP_KERNEL_ACCOUNT);
	if (!e)
		return NULL;
	e->cache = c;
	INIT_LIST_HEAD(&e->lru);
	INIT_WORK(&e->release, entry_release_work);
	refcount_set(&e->ref, 1);	/* the send's */
	e->start = start;
	e->npages = npages;
	return e;
}

/*
 * A miss: charge, watch the range, pin it, and cache it unless it was
 * invalidated while being pinned.  Such an entry still serves this one
 * send, as a plain pin would have (its pages were the buffer's during
 * the call), and goes when the send does.  NULL: no notifier could be
 * registered; the caller pins without the cache.
 */
static struct mpichan_pcache_entry *
pcache_fill(struct mpichan_rank *rank, struct mpichan_pcache *c,
	    unsigned long start, unsigned long npages)
{
	struct mpichan_pcache_entry *e;
	unsigned long seq;
	LIST_HEAD(gone);
	int ret;

	e = entry_alloc(c, start, npages);
	if (!e)
		return ERR_PTR(-ENOMEM);
	ret = mpichan_pin_charge(&e->user, npages, rank);
	if (ret)
		goto err_free_entry;
	/* The callback may run from here on: it needs e->cache alive. */
	kref_get(&c->ref);
	if (mmu_interval_notifier_insert(&e->notifier, current->mm, start,
					 npages << PAGE_SHIFT, &pcache_ops)) {
		/* Not for the cache: the caller pins it itself. */
		ret = 0;
		goto err_put_cache;
	}
	seq = mmu_interval_read_begin(&e->notifier);
	ret = mpichan_pin_pages(start, npages, false, e->pages);
	if (ret)
		goto err_remove_notifier;
	atomic_long_add(npages, &mpichan_stats.pinned_pages);

	spin_lock(&c->lock);
	if (!c->closed && !mmu_interval_read_retry(&e->notifier, seq)) {
		refcount_inc(&e->ref);
		WRITE_ONCE(e->cached, true);
		list_add(&e->lru, &c->lru);
		c->entries++;
		c->pages += npages;
		atomic_long_inc(&mpichan_stats.cache_entries);
		atomic_long_add(npages, &mpichan_stats.cache_pages);
		pcache_trim(c, e, &gone);
	}
	spin_unlock(&c->lock);
	put_all(&gone);
	return e;

err_remove_notifier:
	mmu_interval_notifier_remove(&e->notifier);
err_put_cache:
	kref_put(&c->ref, pcache_free);
	mpichan_pin_uncharge(e->user, npages);
err_free_entry:
	kvfree(e);
	return ret ? ERR_PTR(ret) : NULL;
}

/*
 * The pinned pages of [start, start + npages pages) of the caller, who
 * is rank's process, from rank's cache: pinned and cached on a miss.
 * Returns the entry, its pages for the range in *pages (drop it with
 * mpichan_pcache_put()); NULL when the range is not for the cache (the
 * caller pins it itself); or an ERR_PTR.
 */
struct mpichan_pcache_entry *mpichan_pcache_pin(struct mpichan_rank *rank,
						unsigned long start,
						unsigned long npages,
						struct page ***pages)
{
	struct mpichan_pcache_entry *e;
	struct mpichan_pcache *c;

	if (!npages || !READ_ONCE(pin_cache_entries) ||
	    npages > READ_ONCE(pin_cache_pages))
		return NULL;
	c = pcache_of(rank);
	if (!c)
		return ERR_PTR(-ENOMEM);
	e = pcache_lookup(c, start, npages);
	if (!e)
		e = pcache_fill(rank, c, start, npages);
	if (IS_ERR_OR_NULL(e))
		return e;
	*pages = e->pages + ((start - e->start) >> PAGE_SHIFT);
	return e;
}

/* Evict the coldest idle entry of c charged to user: true if one went. */
static bool pcache_evict_idle(struct mpichan_pcache *c,
			      struct user_struct *user)
{
	struct mpichan_pcache_entry *e, *victim = NULL;

	spin_lock(&c->lock);
	list_for_each_entry_reverse(e, &c->lru, lru) {
		/* Only the cache's reference: no send uses it, none can. */
		if (e->user == user && refcount_read(&e->ref) == 1) {
			victim = e;
			pcache_unlink(c, e);
			c->evicted++;
			atomic_long_inc(&mpichan_stats.cache_evicted);
			break;
		}
	}
	spin_unlock(&c->lock);
	if (victim)
		mpichan_pcache_put(victim);
	return victim;
}

/*
 * A pin of rank is over the locked-memory limit: give back one idle
 * cached buffer charged to the same user, from rank's cache first,
 * then from the other ranks' of its job.  True if one was given back.
 */
bool mpichan_pcache_reclaim(struct mpichan_rank *rank, struct user_struct *user)
{
	struct mpichan_job *job = rank->job;
	u32 i;

	for (i = 0; i < job->nranks; i++) {
		struct mpichan_rank *r =
			&job->ranks[(rank->index + i) % job->nranks];
		struct mpichan_pcache *c = READ_ONCE(r->pcache);

		if (c && pcache_evict_idle(c, user))
			return true;
	}
	return false;
}

/*
 * The rank left: release every cached buffer and cache nothing more.
 * Buffers of sends still being received go when those sends do.
 */
void mpichan_pcache_close(struct mpichan_rank *rank)
{
	struct mpichan_pcache *c = READ_ONCE(rank->pcache);
	struct mpichan_pcache_entry *e, *tmp;
	LIST_HEAD(gone);

	if (!c)
		return;
	spin_lock(&c->lock);
	c->closed = true;
	list_for_each_entry_safe(e, tmp, &c->lru, lru) {
		pcache_unlink(c, e);
		list_add(&e->lru, &gone);
	}
	spin_unlock(&c->lock);
	put_all(&gone);
	/* Releases an exit's invalidations queued are done too. */
	flush_workqueue(pcache_wq);
}

/* The job is going: drop its reference on the rank's cache. */
void mpichan_pcache_release(struct mpichan_rank *rank)
{
	struct mpichan_pcache *c = rank->pcache;

	rank->pcache = NULL;
	if (c)
		kref_put(&c->ref, pcache_free);
}

void mpichan_pcache_show(struct seq_file *m, struct mpichan_job *job)
{
	u32 r;

	seq_puts(m, "cache rank entries pages hits misses invalidated evicted\n");
	for (r = 0; r < job->nranks; r++) {
		struct mpichan_pcache *c = READ_ONCE(job->ranks[r].pcache);

		if (!c)
			continue;
		spin_lock(&c->lock);
		seq_printf(m, "cache %u %lu %lu %lu %lu %lu %lu\n", r,
			   c->entries, c->pages, c->hits, c->misses,
			   c->invalidated, c->evicted);
		spin_unlock(&c->lock);
	}
}

int mpichan_pcache_init(void)
{
	/* Releases give memory back: they must progress under pressure. */
	pcache_wq = alloc_workqueue("mpichan_pcache", WQ_MEM_RECLAIM, 0);
	return pcache_wq ? 0 : -ENOMEM;
}

/* Every job is gone; run what releases are still queued. */
void mpichan_pcache_exit(void)
{
	destroy_workqueue(pcache_wq);
}
