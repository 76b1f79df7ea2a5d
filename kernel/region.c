// SPDX-License-Identifier: GPL-2.0
/*
 * Registered regions: memory a process registered on one of its fds,
 * pinned once, charged to RLIMIT_MEMLOCK and named by (handle, key).
 * Any process of the same user that names both copies from it or into
 * it (one kernel copy between the pinned pages and its own memory), or
 * maps its whole pages (VM_PFNMAP, special PTEs, like the receive
 * window) and then loads and stores with no system call.
 *
 * A region belongs to the file that registered it and ends with it
 * (DEREG, or the file's last close).  Its handle is in a module-wide
 * table, so that an fd of no job (a UCX transport's) can use it.
 *
 * Mappings.  Every /dev/mpichan file shares one address space, this
 * file's inode's, and each region has its own slot of mmap() offsets in
 * it (MPICHAN_REGION_OFFSET + handle * MPICHAN_REGION_MAX_BYTES), so
 * unmap_mapping_range() zaps its mappings in every process at once,
 * under the address space's i_mmap lock and page table locks, with no
 * mmap lock of anyone's.  PTEs are made by the first fault of a mapping,
 * for the whole of it, after the VMA is in the address space's tree:
 * whatever zaps runs either before the fault (which then finds the
 * region no longer live and makes nothing) or after its entries exist.
 * The fault installs, then checks the state again behind a full
 * barrier, and zaps what it made if the region ended meanwhile; the
 * region's pins go only once no fault or copy is under way (active).
 *
 * The owner's memory.  An MMU interval notifier watches the registered
 * range in the owner's mm.  Most invalidations it reports (munmap,
 * mremap, MADV_DONTNEED, exit) replace the pages behind the region, but
 * some leave them in place: the split of a transparent huge page that
 * the region shares with memory the owner unmaps or changes (reported
 * for the whole 2 MiB), fork() of pinned private memory (the child gets
 * copies, the owner keeps its pages).  So an invalidation makes a live
 * region CHECKING, and a work item (region_check_work()), once the
 * invalidation is over, compares the owner's page tables with the pins:
 * the same pages make it LIVE again, any other STALE for good.  Copies,
 * queries and maps wait for that verdict; a fault waits with the mmap
 * lock dropped and retries, or, when it may not, maps the pins, which
 * nobody else can have.  A stale region refuses new copies, maps and
 * faults; its mappings are zapped by the work item (zapping in the
 * callback would start an invalidation of another mm inside this one)
 * and by whoever next sees the region stale, before it reports -ESTALE.
 * The pins stay until the region ends.
 *
 * The check takes the owner's mmap lock for reading with no lock of
 * ours held, from region_wq; it holds the region active, so the pins
 * cannot go under it.  Nothing that holds an mmap lock waits for it.
 *
 * Ending a region (region_kill()): out of the table, state DEAD, every
 * mapping zapped, then wait for copies and faults under way; the last
 * of them releases the pins if the killer stopped waiting (a fatal
 * signal).  The lock order is in job.h.
 */
#include <crypto/algapi.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kref.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/pseudo_fs.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/mpichan.h>

#include "compat.h"
#include "debugfs.h"
#include "job.h"
#include "pin.h"
#include "region.h"
#include "region_internal.h"

/* Attempts to pin the memory without an invalidation in between. */
#define REGION_PIN_TRIES	3
/* The pseudo file system of the shared address space. */
#define MPICHAN_FS_MAGIC	0x6d706368	/* "mpch" */

/* handle -> region, each holding the registration's reference */
static DEFINE_XARRAY_ALLOC1(mpichan_regions);
static u32 region_next_handle;
static atomic64_t region_serial;
static struct workqueue_struct *region_wq;

static struct vfsmount *region_mnt;
static int region_mnt_count;
static struct inode *region_inode;

static int region_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, MPICHAN_FS_MAGIC) ? 0 : -ENOMEM;
}

/*
 * No .owner: the mount lives from load to unload and would pin the
 * module; after region_exit() releases it nothing runs our code.
 */
static struct file_system_type region_fs_type = {
	.name		= "mpichan",
	.init_fs_context = region_fs_init_fs_context,
	.kill_sb	= kill_anon_super,
};

static struct address_space *region_mapping(void)
{
	return region_inode->i_mapping;
}

/* A new file: its mappings go into the address space every file shares. */
void mpichan_region_file_init(struct file *file, struct mpichan_file *mf)
{
	mutex_init(&mf->region_lock);
	INIT_LIST_HEAD(&mf->regions);
	xa_init(&mf->region_grants);
	file->f_mapping = region_mapping();
}

static void region_free(struct kref *ref)
{
	struct mpichan_region *r = container_of(ref, struct mpichan_region, ref);

	WARN_ON(r->pages);
	kfree(r);
}

void region_put(struct mpichan_region *r)
{
	kref_put(&r->ref, region_free);
}

/* The mmap() offset of r's mappings. */
static loff_t region_offset(const struct mpichan_region *r)
{
	BUILD_BUG_ON(1ULL << REGION_SLOT_SHIFT != MPICHAN_REGION_MAX_BYTES);
	BUILD_BUG_ON(MPICHAN_REGION_OFFSET +
		     ((u64)REGION_MAX_HANDLE << REGION_SLOT_SHIFT) > S64_MAX);
	return MPICHAN_REGION_OFFSET + ((loff_t)r->handle << REGION_SLOT_SHIFT);
}

/* The region offset of r's first whole page; 0 when it has none. */
static u64 region_map_start(const struct mpichan_region *r)
{
	if (!r->map_pages)
		return 0;
	return ((r->start & PAGE_MASK) + (r->map_first << PAGE_SHIFT)) - r->start;
}

/*
 * Zap every mapping of r in every process.  Sleeps (the i_mmap lock);
 * called with no lock of ours held, never from the notifier.
 */
void region_zap(struct mpichan_region *r)
{
	if (r->map_pages)
		unmap_mapping_range(region_mapping(), region_offset(r),
				    (loff_t)r->map_pages << PAGE_SHIFT, 1);
}

/* A state change under r->lock; readers use READ_ONCE(). */
static void region_set_state(struct mpichan_region *r, int state)
{
	lockdep_assert_held(&r->lock);
	WRITE_ONCE(r->state, state);
}

/* Pages compared per get_user_pages_remote() call. */
#define REGION_CHECK_BATCH	64

/*
 * Are the owner's pages behind r still the ones r pinned?  *seq is the
 * notifier's sequence from after the invalidation that asked: the caller
 * trusts the answer only if no other came since.  Sleeps; takes the
 * owner's mmap lock for reading.  The caller holds r active.
 */
static bool region_pages_unchanged(struct mpichan_region *r,
				   unsigned long *seq)
{
	struct mm_struct *mm = r->notifier.mm;
	struct page *got[REGION_CHECK_BATCH];
	unsigned long addr = r->start & PAGE_MASK, i = 0;
	bool same = true;
	long n, j;

	/* The notifier holds the mm_struct; an exiting owner keeps nothing. */
	if (!mmget_not_zero(mm))
		return false;
	*seq = mmu_interval_read_begin(&r->notifier);
	mmap_read_lock(mm);
	while (same && i < r->npages) {
		n = min_t(unsigned long, r->npages - i, REGION_CHECK_BATCH);
		/* What is mapped now, faulting nothing in. */
		n = mpichan_get_user_pages_remote(mm, addr + (i << PAGE_SHIFT),
						  n, FOLL_NOFAULT, got);
		if (n <= 0)
			same = false;
		for (j = 0; j < n; j++) {
			same &= got[j] == r->pages[i + j];
			put_page(got[j]);
		}
		i += max(n, 0L);
		cond_resched();
	}
	mmap_read_unlock(mm);
	mmput(mm);
	return same;
}

/*
 * After an invalidation: the verdict on a CHECKING region (LIVE again if
 * its pages are where they were, else STALE), then the zap of a stale
 * one's mappings.  Holds the reference the notifier took for it.
 */
static void region_check_work(struct work_struct *work)
{
	struct mpichan_region *r =
		container_of(work, struct mpichan_region, check_work);
	unsigned long seq = 0;
	bool same;

	if (READ_ONCE(r->state) == REGION_CHECKING &&
	    atomic_inc_not_zero(&r->active)) {
		same = region_pages_unchanged(r, &seq);
		spin_lock(&r->lock);
		/* A new invalidation meanwhile has queued us again. */
		if (r->state == REGION_CHECKING && !same) {
			region_set_state(r, REGION_STALE);
			atomic_long_inc(&mpichan_stats.region_stale);
		} else if (r->state == REGION_CHECKING &&
			   !mmu_interval_read_retry(&r->notifier, seq)) {
			region_set_state(r, REGION_LIVE);
		}
		spin_unlock(&r->lock);
		/* Pairs with region_fault(): it sees STALE, or we its entries. */
		smp_mb();
		wake_up_all(&r->checked);
		region_leave(r);
	}
	/* A killed region was zapped by its killer, and its slot may be reused. */
	if (READ_ONCE(r->state) == REGION_STALE)
		region_zap(r);
	region_put(r);
}

/* Give back the pins and the charge; drops the registration's reference. */
static void region_release(struct mpichan_region *r)
{
	/* No callback can see r after this; it waits for one under way. */
	mmu_interval_notifier_remove(&r->notifier);
	unpin_user_pages_dirty_lock(r->pages, r->npages, r->writable);
	atomic_long_sub(r->npages, &mpichan_stats.pinned_pages);
	atomic_long_sub(r->npages, &mpichan_stats.region_pages);
	atomic_long_dec(&mpichan_stats.regions);
	mpichan_pin_uncharge(r->user, r->npages);
	r->user = NULL;
	kvfree(r->pages);
	r->pages = NULL;
	region_put(r);
}

static void region_release_work(struct work_struct *work)
{
	region_release(container_of(work, struct mpichan_region, release_work));
}

/*
 * The last copy or fault of a killed region is done: release the pins
 * if the killer left that to it, else wake the killer.  Both look at
 * the other's mark behind a full barrier, and REGION_RELEASED makes
 * one of them release.  The caller holds a reference on r.
 */
void region_leave(struct mpichan_region *r)
{
	if (!atomic_dec_and_test(&r->active))
		return;
	if (test_bit(REGION_ORPHAN, &r->flags) &&
	    !test_and_set_bit(REGION_RELEASED, &r->flags))
		queue_work(region_wq, &r->release_work);
	else
		wake_up_all(&r->idle);
}

/*
 * A copy or a fault starts using r's pages: 0, or -ENOENT / -ESTALE
 * when r is no longer live, -EAGAIN while it is CHECKING (unless the
 * caller takes that as live).  The pins stay until region_leave().
 */
int region_enter(struct mpichan_region *r, bool checking)
{
	int state;

	/* Fully ordered: region_kill() marks r dead, then zaps, then waits. */
	if (!atomic_inc_not_zero(&r->active))
		return -ENOENT;
	state = READ_ONCE(r->state);
	if (state == REGION_LIVE || (checking && state == REGION_CHECKING))
		return 0;
	region_leave(r);
	if (state == REGION_CHECKING)
		return -EAGAIN;
	return state == REGION_STALE ? -ESTALE : -ENOENT;
}

/* Wait for the verdict on a CHECKING region: 0, or -EINTR on a kill. */
int region_wait_checked(struct mpichan_region *r)
{
	if (wait_event_killable(r->checked,
				READ_ONCE(r->state) != REGION_CHECKING))
		return -EINTR;
	return 0;
}

/*
 * End r, which is out of the table and its owner's list: no new use,
 * every mapping zapped, then the pins go once the copies and faults
 * under way are done.  Waits for them with no lock held; on a fatal
 * signal it stops waiting (-EINTR) and the last of them releases.
 * Consumes the registration's reference.
 */
static int region_kill(struct mpichan_region *r)
{
	int ret = 0;

	spin_lock(&r->lock);
	region_set_state(r, REGION_DEAD);
	spin_unlock(&r->lock);
	/* Pairs with region_fault(): it sees DEAD, or we see its entries. */
	smp_mb();
	wake_up_all(&r->checked);
	region_zap(r);
	if (!atomic_dec_and_test(&r->active) &&
	    wait_event_killable(r->idle, !atomic_read(&r->active))) {
		set_bit(REGION_ORPHAN, &r->flags);
		/* Pairs with region_leave(): it sees ORPHAN, or we see 0. */
		smp_mb__after_atomic();
		ret = -EINTR;
	}
	if (!atomic_read(&r->active) &&
	    !test_and_set_bit(REGION_RELEASED, &r->flags))
		region_release(r);
	return ret;
}

/* Which changes of the owner's page tables end what the region pinned. */
static bool region_event_ends(enum mmu_notifier_event event)
{
	/* mprotect() and NUMA hinting leave the same pages there. */
	return event != MMU_NOTIFY_PROTECTION_VMA &&
	       event != MMU_NOTIFY_SOFT_DIRTY;
}

/*
 * The owner's memory behind r is about to change.  Called under the
 * owner's mmap lock, rmap locks, in reclaim, maybe unable to sleep: it
 * only takes r->lock and queues the zap.  Zapping here would run an
 * invalidation of the mapping processes' mms inside this one.
 */
static bool region_invalidate(struct mmu_interval_notifier *mni,
			      const struct mmu_notifier_range *range,
			      unsigned long cur_seq)
{
	struct mpichan_region *r =
		container_of(mni, struct mpichan_region, notifier);
	bool check = false;

	spin_lock(&r->lock);
	mmu_interval_set_seq(mni, cur_seq);
	if (region_event_ends(range->event) && r->state == REGION_LIVE) {
		region_set_state(r, REGION_CHECKING);
		check = true;
	} else if (r->state == REGION_CHECKING) {
		/* A check under way will see the new sequence: again. */
		check = true;
	}
	spin_unlock(&r->lock);
	if (check) {
		/* Not the last reference: the registration's is held. */
		kref_get(&r->ref);
		if (!queue_work(region_wq, &r->check_work))
			kref_put(&r->ref, region_free);
	}
	return true;
}

static const struct mmu_interval_notifier_ops region_notifier_ops = {
	.invalidate = region_invalidate,
};

/*
 * Is [start, end) mapped throughout (-EFAULT if not), and is it private
 * memory only (1), where the owner's first write to a page would copy
 * it, or does it take in shared memory (0)?  Checked before anything is
 * charged or allocated, so that a range of 64 GiB over a hole costs
 * nothing; it is a hint only, the VMAs may change right after: the pin
 * fails then, or the notifier sees the change.
 */
static int region_range_scan(unsigned long start, unsigned long end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long at = start;
	int ret = 1;

	mmap_read_lock(mm);
	while (at < end) {
		vma = find_vma(mm, at);
		if (!vma || vma->vm_start > at) {
			ret = -EFAULT;
			break;
		}
		if (vma->vm_flags & VM_SHARED)
			ret = 0;
		at = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return ret;
}

/*
 * Pin r's pages with no invalidation of them in between.  A read-only
 * region of private memory is pinned for writing where the memory
 * allows it, so that a page the owner has not written yet (the shared
 * zero page, a page shared with a parent) is the owner's own before it
 * is pinned: its first write would otherwise replace the pinned page
 * and make the region stale.  Shared memory never copies on a write and
 * is pinned read-only.
 */
static int region_pin(struct mpichan_region *r, bool private)
{
	unsigned long first = r->start & PAGE_MASK;
	bool write = r->writable || private;
	unsigned long seq;
	int tries, ret;

	for (tries = 0; tries < REGION_PIN_TRIES; tries++) {
		seq = mmu_interval_read_begin(&r->notifier);
		ret = mpichan_pin_pages(first, r->npages, write, r->pages);
		if (ret == -EFAULT && write && !r->writable)
			ret = mpichan_pin_pages(first, r->npages, false,
						r->pages);
		if (ret)
			return ret;
		spin_lock(&r->lock);
		if (!mmu_interval_read_retry(&r->notifier, seq)) {
			/* What an earlier try saw change is behind us. */
			region_set_state(r, REGION_LIVE);
			spin_unlock(&r->lock);
			return 0;
		}
		spin_unlock(&r->lock);
		unpin_user_pages(r->pages, r->npages);
	}
	return -EAGAIN;
}

static struct mpichan_region *region_alloc(struct mpichan_file *mf,
					   const struct mpichan_region_reg *a)
{
	unsigned long first, end, whole_start, whole_end;
	struct mpichan_region *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return NULL;
	kref_init(&r->ref);
	INIT_LIST_HEAD(&r->node);
	spin_lock_init(&r->lock);
	INIT_WORK(&r->check_work, region_check_work);
	INIT_WORK(&r->release_work, region_release_work);
	init_waitqueue_head(&r->idle);
	init_waitqueue_head(&r->checked);
	r->state = REGION_NEW;
	atomic_set(&r->active, 1);
	r->owner = mf;
	r->uid = current_euid();
	r->pid = task_tgid_vnr(current);
	r->start = a->addr;
	r->len = a->len;
	r->writable = a->flags & MPICHAN_REGION_WRITE;
	end = r->start + r->len;
	first = r->start & PAGE_MASK;
	r->npages = (PAGE_ALIGN(end) - first) >> PAGE_SHIFT;
	whole_start = PAGE_ALIGN(r->start);
	whole_end = end & PAGE_MASK;
	r->map_first = (whole_start - first) >> PAGE_SHIFT;
	if (whole_end > whole_start)
		r->map_pages = (whole_end - whole_start) >> PAGE_SHIFT;
	return r;
}

/* Into the table and the owner's list: from here on others may use it. */
static int region_publish(struct mpichan_file *mf, struct mpichan_region *r)
{
	int ret;

	mutex_lock(&mf->region_lock);
	ret = xa_alloc_cyclic(&mpichan_regions, &r->handle, r,
			      XA_LIMIT(1, REGION_MAX_HANDLE),
			      &region_next_handle, GFP_KERNEL_ACCOUNT);
	if (ret >= 0) {
		list_add_tail(&r->node, &mf->regions);
		ret = 0;
	} else if (ret == -EBUSY) {
		ret = -ENOSPC;
	}
	mutex_unlock(&mf->region_lock);
	return ret;
}

int mpichan_region_reg(struct mpichan_file *mf, struct mpichan_region_reg *a)
{
	struct mpichan_rank *rank = mpichan_file_rank(mf);
	struct mpichan_region *r;
	int private, ret;
	u64 end;

	if ((a->flags & ~MPICHAN_REGION_WRITE) || a->pad || !a->len ||
	    a->len > MPICHAN_REGION_MAX_BYTES ||
	    check_add_overflow(a->addr, a->len, &end))
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(a->addr), a->len))
		return -EFAULT;
	private = region_range_scan(a->addr & PAGE_MASK, PAGE_ALIGN(end));
	if (private < 0)
		return private;
	r = region_alloc(mf, a);
	if (!r)
		return -ENOMEM;
	/* A rank's idle cached send buffers give way over the limit. */
	ret = mpichan_pin_charge(&r->user, r->npages, IS_ERR(rank) ? NULL : rank);
	if (ret)
		goto err_free_region;
	r->pages = kvmalloc_array(r->npages, sizeof(*r->pages),
				  GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!r->pages) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ret = mmu_interval_notifier_insert(&r->notifier, current->mm,
					   r->start & PAGE_MASK,
					   r->npages << PAGE_SHIFT,
					   &region_notifier_ops);
	if (ret)
		goto err_free_pages;
	ret = region_pin(r, private);
	if (ret)
		goto err_remove_notifier;
	get_random_bytes(&r->key, sizeof(r->key));
	r->serial = atomic64_inc_return(&region_serial);
	atomic_long_add(r->npages, &mpichan_stats.pinned_pages);
	atomic_long_add(r->npages, &mpichan_stats.region_pages);
	atomic_long_inc(&mpichan_stats.regions);
	ret = region_publish(mf, r);
	if (ret) {
		/* Never seen by anyone: release it as a kill would. */
		spin_lock(&r->lock);
		region_set_state(r, REGION_DEAD);
		spin_unlock(&r->lock);
		region_release(r);
		return ret;
	}
	a->handle = r->handle;
	a->key = r->key;
	a->map_start = region_map_start(r);
	a->map_len = (u64)r->map_pages << PAGE_SHIFT;
	return 0;

err_remove_notifier:
	mmu_interval_notifier_remove(&r->notifier);
	/* A queued zap holds a reference; it finds nothing to zap. */
err_free_pages:
	kvfree(r->pages);
	r->pages = NULL;
err_uncharge:
	mpichan_pin_uncharge(r->user, r->npages);
err_free_region:
	region_put(r);
	return ret;
}

/*
 * Out of the table and mf's list: region handle if mf registered it, or
 * NULL.  Its registration's reference goes to the caller, to kill it.
 */
static struct mpichan_region *region_unpublish(struct mpichan_file *mf,
					       u64 handle)
{
	struct mpichan_region *r;

	lockdep_assert_held(&mf->region_lock);
	xa_lock(&mpichan_regions);
	r = xa_load(&mpichan_regions, handle);
	if (r && r->owner == mf)
		__xa_erase(&mpichan_regions, handle);
	else
		r = NULL;
	xa_unlock(&mpichan_regions);
	if (r)
		list_del_init(&r->node);
	return r;
}

int mpichan_region_dereg(struct mpichan_file *mf,
			 struct mpichan_region_dereg *d)
{
	struct mpichan_region *r = NULL;

	if (d->flags || d->pad)
		return -EINVAL;
	if (!d->handle || d->handle > REGION_MAX_HANDLE)
		return -ENOENT;
	mutex_lock(&mf->region_lock);
	r = region_unpublish(mf, d->handle);
	mutex_unlock(&mf->region_lock);
	if (!r)
		return -ENOENT;
	return region_kill(r);
}

/* The file goes: so do its regions, whatever killed its process. */
void mpichan_region_file_release(struct mpichan_file *mf)
{
	struct mpichan_region *r, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&mf->region_lock);
	list_for_each_entry_safe(r, tmp, &mf->regions, node) {
		/* Every region on the list is in the table, and only there. */
		WARN_ON(region_unpublish(mf, r->handle) != r);
		list_move_tail(&r->node, &gone);
	}
	mutex_unlock(&mf->region_lock);
	list_for_each_entry_safe(r, tmp, &gone, node) {
		list_del_init(&r->node);
		region_kill(r);
	}
	xa_destroy(&mf->region_grants);
	mutex_destroy(&mf->region_lock);
}

/* A reference to region handle, or NULL. */
struct mpichan_region *region_get(u64 handle)
{
	struct mpichan_region *r;

	if (!handle || handle > REGION_MAX_HANDLE)
		return NULL;
	xa_lock(&mpichan_regions);
	r = xa_load(&mpichan_regions, handle);
	if (r)
		kref_get(&r->ref);
	xa_unlock(&mpichan_regions);
	return r;
}

/*
 * 0 while r is live; -ESTALE once the owner's memory changed, and only
 * after every mapping of r is zapped; -ENOENT once it ended.
 */
/*
 * 0 if r may be used, -ESTALE (mappings zapped first) or -ENOENT if not.
 * A CHECKING region: with wait, the verdict (-EINTR on a kill); else
 * taken as live (mmap(), under the caller's mmap lock, must not wait:
 * its faults do).
 */
int region_state_err(struct mpichan_region *r, bool wait)
{
	int state = READ_ONCE(r->state);

	if (state == REGION_CHECKING && wait) {
		if (region_wait_checked(r))
			return -EINTR;
		state = READ_ONCE(r->state);
	}
	switch (state) {
	case REGION_LIVE:
	case REGION_CHECKING:
		return 0;
	case REGION_STALE:
		region_zap(r);
		return -ESTALE;
	default:
		return -ENOENT;
	}
}

/*
 * Region handle for the caller who names key: its user (or
 * CAP_SYS_ADMIN) first, then the key, then whether it is still live.
 * A reference, or NULL with *err set.
 */
struct mpichan_region *region_open(u64 handle, u64 key, int *err)
{
	struct mpichan_region *r = region_get(handle);

	*err = -ENOENT;
	if (!r)
		return NULL;
	if (!uid_eq(current_euid(), r->uid) && !capable(CAP_SYS_ADMIN))
		*err = -EPERM;
	else if (crypto_memneq(&key, &r->key, sizeof(key)))
		*err = -EACCES;
	else
		*err = region_state_err(r, true);
	if (*err) {
		region_put(r);
		return NULL;
	}
	return r;
}

int mpichan_region_query(struct mpichan_file *mf,
			 struct mpichan_region_query *q)
{
	struct mpichan_region *r;
	int ret;

	r = region_open(q->handle, q->key, &ret);
	if (!r)
		return ret;
	q->len = r->len;
	q->flags = r->writable ? MPICHAN_REGION_WRITE : 0;
	q->pid = r->pid;
	q->map_start = region_map_start(r);
	q->map_len = (u64)r->map_pages << PAGE_SHIFT;
	region_put(r);
	return 0;
}

int mpichan_region_map(struct mpichan_file *mf, struct mpichan_region_map *m)
{
	bool write = m->flags & MPICHAN_REGION_WRITE;
	struct mpichan_region *r;
	int ret;

	if ((m->flags & ~MPICHAN_REGION_WRITE) || m->pad)
		return -EINVAL;
	r = region_open(m->handle, m->key, &ret);
	if (!r)
		return ret;
	if (write && !r->writable) {
		ret = -EACCES;
		goto out_put;
	}
	if (!r->map_pages) {
		ret = -EINVAL;
		goto out_put;
	}
	ret = xa_err(xa_store(&mf->region_grants, r->handle,
			      region_grant(r, write), GFP_KERNEL_ACCOUNT));
	if (ret)
		goto out_put;
	m->offset = region_offset(r);
	m->map_start = region_map_start(r);
	m->map_len = (u64)r->map_pages << PAGE_SHIFT;
out_put:
	region_put(r);
	return ret;
}

/* ---- debugfs, module life ---------------------------------------- */

static const char *const region_state_names[] = {
	[REGION_LIVE] = "live",
	[REGION_CHECKING] = "checking",
	[REGION_STALE] = "stale",
	[REGION_DEAD] = "dead",
	[REGION_NEW] = "new",
};

/* Every region of the reader's user (all of them for CAP_SYS_ADMIN). */
void mpichan_region_show(struct seq_file *m)
{
	bool all = capable(CAP_SYS_ADMIN);
	kuid_t uid = current_fsuid();
	struct mpichan_region *r;
	unsigned long handle;

	seq_puts(m, "region handle pid uid len pages map_pages writable state maps copies bytes_in bytes_out\n");
	xa_lock(&mpichan_regions);
	xa_for_each(&mpichan_regions, handle, r) {
		if (!all && !uid_eq(uid, r->uid))
			continue;
		seq_printf(m, "region %u %d %u %llu %lu %lu %s %s %d %lld %lld %lld\n",
			   r->handle, r->pid,
			   from_kuid_munged(&init_user_ns, r->uid),
			   (unsigned long long)r->len, r->npages, r->map_pages,
			   r->writable ? "yes" : "no",
			   region_state_names[READ_ONCE(r->state)],
			   atomic_read(&r->maps),
			   (long long)atomic64_read(&r->copies),
			   (long long)atomic64_read(&r->bytes_in),
			   (long long)atomic64_read(&r->bytes_out));
	}
	xa_unlock(&mpichan_regions);
}

int mpichan_region_init(void)
{
	int ret;

	/* Releases give memory back: they must progress under pressure. */
	region_wq = alloc_workqueue("mpichan_region", WQ_MEM_RECLAIM, 0);
	if (!region_wq)
		return -ENOMEM;
	ret = simple_pin_fs(&region_fs_type, &region_mnt, &region_mnt_count);
	if (ret)
		goto err_destroy_wq;
	region_inode = alloc_anon_inode(region_mnt->mnt_sb);
	if (IS_ERR(region_inode)) {
		ret = PTR_ERR(region_inode);
		goto err_release_fs;
	}
	return 0;

err_release_fs:
	simple_release_fs(&region_mnt, &region_mnt_count);
err_destroy_wq:
	destroy_workqueue(region_wq);
	return ret;
}

/* Every file is closed: run the zaps and releases still queued. */
void mpichan_region_exit(void)
{
	destroy_workqueue(region_wq);
	WARN_ON(!xa_empty(&mpichan_regions));
	xa_destroy(&mpichan_regions);
	iput(region_inode);
	simple_release_fs(&region_mnt, &region_mnt_count);
}
