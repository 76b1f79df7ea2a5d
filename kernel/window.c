// SPDX-License-Identifier: GPL-2.0
/*
 * The receive window: a read-only VM_PFNMAP area of a rank's address
 * space into which the module maps the whole pages of a matched send,
 * so that the receiver copies them with its own vectorised memcpy (the
 * mapped copy).  The pages stay pinned by the send until the window's
 * entries are zapped, and the window can be neither split, moved,
 * written nor inherited, so nothing of the sender outlives the receive.
 *
 * The window cache: mapping and zapping cost a page-table walk and a
 * TLB flush per receive, as much as a fifth of a 4 MiB message here
 * (Documentation/performance.md).  A send whose pages come from the
 * sender's pin cache leaves them mapped after UNMAP, with a reference
 * on the cache entry that keeps them pinned, and the next send of the
 * same buffer finds them there.  Only pages the rank was sent stay
 * mapped, read-only; a send of other pages, an entry no longer cached
 * at UNMAP, munmap() of the window or the rank leaving ends it.
 */
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>

#include "compat.h"
#include "debugfs.h"
#include "job.h"
#include "pincache.h"
#include "window.h"

static bool window_cache = true;
module_param(window_cache, bool, 0644);
MODULE_PARM_DESC(window_cache,
		 "leave cached send buffers mapped in the receive window for their next send");

bool mpichan_window_cache(void)
{
	return READ_ONCE(window_cache);
}

static vm_fault_t window_fault(struct vm_fault *vmf)
{
	/* Nothing is mapped here outside a MAPPED receive. */
	return VM_FAULT_SIGBUS;
}

static int window_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int window_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

/*
 * munmap() or exit, with the mmap lock held (munmap() may have
 * downgraded it to read after taking the window out).  A refused
 * mremap() closes the copy it made, not the window: only the area at
 * win_start is the window.
 */
static void window_close(struct vm_area_struct *vma)
{
	struct mpichan_rank *rank = vma->vm_private_data;
	struct mpichan_pcache_entry *e;

	lockdep_assert_held(&vma->vm_mm->mmap_lock);
	if (vma->vm_start != rank->win_start)
		return;
	rank->win_start = 0;
	rank->win_pages = 0;
	/*
	 * The PTEs went before this call; the pins may go now.  Not here:
	 * the mmap lock is held, and a release waits for the sender's
	 * notifier.  See window_forget() for the xchg().
	 */
	e = xchg(&rank->win_entry, NULL);
	if (e)
		mpichan_pcache_put_async(e);
}

static const struct vm_operations_struct window_vm_ops = {
	.fault		= window_fault,
	.may_split	= window_may_split,
	.mremap		= window_mremap,
	.close		= window_close,
};

/* Called with the mmap lock held for writing. */
int mpichan_window_mmap(struct mpichan_rank *rank, struct vm_area_struct *vma)
{
	lockdep_assert_held_write(&vma->vm_mm->mmap_lock);
	if (vma->vm_flags & VM_WRITE)
		return -EACCES;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (vma_pages(vma) > MPICHAN_WINDOW_MAX_BYTES >> PAGE_SHIFT)
		return -EINVAL;
	if (rank->win_start)
		return -EBUSY;
	mpichan_vm_flags_mod(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND |
			     VM_DONTDUMP | VM_DONTCOPY,
			     VM_MAYWRITE | VM_MAYEXEC);
	vma->vm_ops = &window_vm_ops;
	vma->vm_private_data = rank;
	rank->win_start = vma->vm_start;
	rank->win_pages = vma_pages(vma);
	return 0;
}

/* The rank's window, if it still is one; mmap lock held. */
static struct vm_area_struct *window_vma(struct mpichan_rank *rank)
{
	struct vm_area_struct *vma;

	lockdep_assert_held(&current->mm->mmap_lock);
	if (!rank->win_start)
		return NULL;
	vma = vma_lookup(current->mm, rank->win_start);
	if (!vma || vma->vm_ops != &window_vm_ops ||
	    vma->vm_private_data != rank)
		return NULL;
	return vma;
}

struct window_fill {
	struct mm_struct *mm;
	struct page **pages;
	pgprot_t prot;
	unsigned long done;
};

/*
 * apply_to_page_range() calls this for each PTE of the run, holding the
 * page table lock once per page table.  The entry is what
 * vmf_insert_pfn() makes in a VM_PFNMAP area (special: no struct page
 * behind it for GUP, rmap or refcounts; the pages are the sender's,
 * pinned by the send), made young so the receiver's first touch does
 * not have to.
 */
static int window_set_pte(pte_t *pte, unsigned long addr, void *data)
{
	struct window_fill *f = data;
	pte_t entry;

	if (!pte_none(ptep_get(pte)))
		return -EBUSY;
	entry = pfn_pte(page_to_pfn(f->pages[f->done]), f->prot);
	set_pte_at(f->mm, addr, pte, pte_mkyoung(pte_mkspecial(entry)));
	f->done++;
	return 0;
}

/*
 * Forget what the window maps: its pages [0, win_mapped) are zapped if
 * there is a window (a new one has nothing of ours: the old one's close
 * took its entry).  Returns the cache entry to put once no lock is
 * held.  win_lock held, and the mmap lock when vma is a window.
 */
static struct mpichan_pcache_entry *
window_forget(struct mpichan_rank *rank, struct vm_area_struct *vma)
{
	lockdep_assert_held(&rank->win_lock);
	if (vma)
		lockdep_assert_held(&vma->vm_mm->mmap_lock);
	if (rank->win_mapped && vma)
		zap_vma_ptes(vma, vma->vm_start,
			     rank->win_mapped << PAGE_SHIFT);
	rank->win_mapped = 0;
	rank->win_first = NULL;
	/*
	 * munmap() may close the window with the mmap lock downgraded to
	 * read, while a receive finds no window here: whoever takes the
	 * entry puts it.
	 */
	return xchg(&rank->win_entry, NULL);
}

static void window_put(struct mpichan_pcache_entry *e)
{
	if (e)
		mpichan_pcache_put(e);
}

/*
 * The window already maps pages[0..n), left there by an earlier send
 * of the same cached buffer (e)?  Then only pages past n go.  win_lock
 * and the mmap lock held.
 */
static bool window_hit(struct mpichan_rank *rank, struct vm_area_struct *vma,
		       struct page **pages, unsigned long n,
		       struct mpichan_pcache_entry *e)
{
	lockdep_assert_held(&rank->win_lock);
	lockdep_assert_held(&vma->vm_mm->mmap_lock);
	if (!e || e != rank->win_entry || pages != rank->win_first ||
	    n > rank->win_mapped)
		return false;
	if (n < rank->win_mapped)
		zap_vma_ptes(vma, vma->vm_start + (n << PAGE_SHIFT),
			     (rank->win_mapped - n) << PAGE_SHIFT);
	rank->win_mapped = n;
	atomic_long_inc(&mpichan_stats.window_hits);
	return true;
}

/*
 * Map pages[0..n) of a send read-only at the start of the window; e is
 * their pin cache entry, or NULL.  Returns the number mapped (the
 * window may be smaller), or -errno with nothing left mapped.  The
 * caller holds rank->win_lock until the mapping is done with.
 *
 * One walk of the page tables for the whole run instead of one
 * vmf_insert_pfn() (a walk, a lock and a PAT lookup) per page.  The
 * pages are ordinary RAM pinned by GUP, so the area's write-back
 * vm_page_prot is already the right cache mode.
 */
long mpichan_window_map(struct mpichan_rank *rank, struct page **pages,
			unsigned long n, struct mpichan_pcache_entry *e)
{
	struct window_fill f = { .mm = current->mm, .pages = pages };
	struct mpichan_pcache_entry *old = NULL;
	struct vm_area_struct *vma;
	long ret;

	BUILD_BUG_ON(!IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL));
	lockdep_assert_held(&rank->win_lock);
	mmap_read_lock(f.mm);
	vma = window_vma(rank);
	if (!vma) {
		old = window_forget(rank, NULL);
		ret = -ENXIO;
		goto out_unlock;
	}
	n = min(n, rank->win_pages);
	if (window_hit(rank, vma, pages, n, e)) {
		ret = n;
		goto out_unlock;
	}
	old = window_forget(rank, vma);
	f.prot = vma->vm_page_prot;
	ret = apply_to_page_range(f.mm, vma->vm_start, n << PAGE_SHIFT,
				  window_set_pte, &f);
	if (ret) {
		if (f.done)
			zap_vma_ptes(vma, vma->vm_start, f.done << PAGE_SHIFT);
		goto out_unlock;
	}
	atomic_long_inc(&mpichan_stats.window_maps);
	rank->win_first = pages;
	rank->win_mapped = n;
	if (e && mpichan_window_cache()) {
		mpichan_pcache_get(e);
		rank->win_entry = e;
	}
	ret = n;
out_unlock:
	mmap_read_unlock(f.mm);
	window_put(old);
	return ret;
}

/*
 * The mapped receive is over.  keep: its pages may stay for the next
 * send of their buffer, if that buffer is still in the sender's cache;
 * otherwise they are zapped now.  win_lock held.
 */
void mpichan_window_done(struct mpichan_rank *rank, bool keep)
{
	struct mpichan_pcache_entry *e;
	struct vm_area_struct *vma;

	lockdep_assert_held(&rank->win_lock);
	mmap_read_lock(current->mm);
	/* Found under the lock, the window cannot be closed meanwhile. */
	vma = window_vma(rank);
	if (keep && vma && rank->win_entry && mpichan_window_cache() &&
	    mpichan_pcache_cached(rank->win_entry)) {
		mmap_read_unlock(current->mm);
		return;
	}
	e = window_forget(rank, vma);
	mmap_read_unlock(current->mm);
	window_put(e);
}

/* The rank left, its window with its mappings: let the pages go. */
void mpichan_window_release(struct mpichan_rank *rank)
{
	struct mpichan_pcache_entry *e;

	mutex_lock(&rank->win_lock);
	e = window_forget(rank, NULL);
	mutex_unlock(&rank->win_lock);
	window_put(e);
}
