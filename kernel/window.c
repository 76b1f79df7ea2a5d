// SPDX-License-Identifier: GPL-2.0
/*
 * The receive window: a read-only VM_PFNMAP area of a rank's address
 * space into which the module maps the whole pages of a matched send,
 * so that the receiver copies them with its own vectorised memcpy (the
 * mapped copy).  The pages stay pinned by the send until the window's
 * entries are zapped, and the window can be neither split, moved,
 * written nor inherited, so nothing of the sender outlives the receive.
 */
#include <linux/mm.h>
#include <linux/mman.h>

#include "compat.h"
#include "job.h"
#include "window.h"

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
 * munmap() or exit; the mmap lock is held for writing.  A refused
 * mremap() closes the copy it made, not the window: only the area at
 * win_start is the window.
 */
static void window_close(struct vm_area_struct *vma)
{
	struct mpichan_rank *rank = vma->vm_private_data;

	if (vma->vm_start != rank->win_start)
		return;
	rank->win_start = 0;
	rank->win_pages = 0;
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
 * Map pages[0..n) read-only at the start of the window.  Returns the
 * number mapped (the window may be smaller), or -errno with nothing
 * left mapped.
 *
 * One walk of the page tables for the whole run instead of one
 * vmf_insert_pfn() (a walk, a lock and a PAT lookup) per page.  The
 * pages are ordinary RAM pinned by GUP, so the area's write-back
 * vm_page_prot is already the right cache mode.
 */
long mpichan_window_map(struct mpichan_rank *rank, struct page **pages,
			unsigned long n)
{
	struct window_fill f = { .mm = current->mm, .pages = pages };
	struct vm_area_struct *vma;
	long ret;

	BUILD_BUG_ON(!IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL));
	mmap_read_lock(f.mm);
	vma = window_vma(rank);
	if (!vma) {
		ret = -ENXIO;
		goto out;
	}
	n = min(n, rank->win_pages);
	f.prot = vma->vm_page_prot;
	ret = apply_to_page_range(f.mm, vma->vm_start, n << PAGE_SHIFT,
				  window_set_pte, &f);
	if (ret) {
		if (f.done)
			zap_vma_ptes(vma, vma->vm_start, f.done << PAGE_SHIFT);
		goto out;
	}
	ret = n;
out:
	mmap_read_unlock(f.mm);
	return ret;
}

/* Remove the first n pages from the window, if it is still there. */
void mpichan_window_zap(struct mpichan_rank *rank, unsigned long n)
{
	struct vm_area_struct *vma;

	mmap_read_lock(current->mm);
	vma = window_vma(rank);
	if (vma)
		zap_vma_ptes(vma, vma->vm_start, n * PAGE_SIZE);
	mmap_read_unlock(current->mm);
}
