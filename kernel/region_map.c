// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings of registered regions: mmap() of an offset REGION_MAP gave,
 * the first touch maps all of it (special PTEs over the region's pinned
 * pages), and a mapping of a region no longer live faults SIGBUS.  How
 * mappings are zapped is in region.c.
 */

#include <linux/mm.h>
#include <linux/mpichan.h>

#include "compat.h"
#include "debugfs.h"
#include "job.h"
#include "region.h"
#include "region_internal.h"

struct region_fill {
	struct mm_struct *mm;
	struct page **pages;		/* what the VMA's first page maps */
	unsigned long start;
	pgprot_t prot;
};

/*
 * apply_to_page_range() calls this for each PTE of the VMA under its
 * page table lock.  The entry is what vmf_insert_pfn() makes in a
 * VM_PFNMAP area: special, nothing for GUP, rmap or refcounts; the pages
 * are pinned by the region.  An entry already there (another thread's
 * fault) stays.
 */
static int region_set_pte(pte_t *pte, unsigned long addr, void *data)
{
	struct region_fill *f = data;
	struct page *page = f->pages[(addr - f->start) >> PAGE_SHIFT];

	if (!pte_none(ptep_get(pte)))
		return 0;
	set_pte_at(f->mm, addr, pte,
		   pte_mkyoung(pte_mkspecial(pfn_pte(page_to_pfn(page), f->prot))));
	return 0;
}

/* The first touch of a mapping maps all of it, in one walk. */
static vm_fault_t region_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mpichan_region *r = vma->vm_private_data;
	unsigned long size = vma->vm_end - vma->vm_start;
	struct region_fill f = {
		.mm = vma->vm_mm,
		.start = vma->vm_start,
		.prot = vma->vm_page_prot,
	};
	vm_fault_t ret = VM_FAULT_NOPAGE;
	int err, state;

	err = region_enter(r, false);
	if (err == -EAGAIN && fault_flag_allow_retry_first(vmf->flags)) {
		/*
		 * The owner's memory was invalidated: wait for the verdict
		 * with the mmap lock dropped (the check takes the owner's,
		 * maybe this one), then fault again.
		 */
		if (vmf->flags & FAULT_FLAG_RETRY_NOWAIT)
			return VM_FAULT_RETRY;
		kref_get(&r->ref);
		mpichan_release_fault_lock(vmf);
		region_wait_checked(r);
		region_put(r);
		return VM_FAULT_RETRY;
	}
	/* Not allowed to wait: the pins are nobody else's, map them. */
	if (err == -EAGAIN)
		err = region_enter(r, true);
	if (err)
		return VM_FAULT_SIGBUS;
	f.pages = r->pages + r->map_first;
	err = apply_to_page_range(f.mm, vma->vm_start, size, region_set_pte, &f);
	/*
	 * Pairs with region_kill() and region_check_work(): either their zap sees
	 * our entries, or we see the state they set first.
	 */
	smp_mb();
	state = READ_ONCE(r->state);
	if (err || (state != REGION_LIVE && state != REGION_CHECKING)) {
		zap_vma_ptes(vma, vma->vm_start, size);
		ret = err == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	}
	region_leave(r);
	return ret;
}

/* Another VMA for the same mapping: mremap()'s copy, before it is refused. */
static void region_vm_open(struct vm_area_struct *vma)
{
	struct mpichan_region *r = vma->vm_private_data;

	kref_get(&r->ref);
	atomic_inc(&r->maps);
	atomic_long_inc(&mpichan_stats.region_maps);
}

static void region_vm_close(struct vm_area_struct *vma)
{
	struct mpichan_region *r = vma->vm_private_data;

	atomic_dec(&r->maps);
	atomic_long_dec(&mpichan_stats.region_maps);
	region_put(r);
}

/* A mapping is one piece: its first page is the region's first whole one. */
static int region_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int region_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct region_vm_ops = {
	.open		= region_vm_open,
	.close		= region_vm_close,
	.fault		= region_fault,
	.may_split	= region_vm_may_split,
	.mremap		= region_vm_mremap,
};

/*
 * mmap() at an offset REGION_MAP returned, with the mmap lock held for
 * writing.  The fd must hold a grant of this very region (the latest
 * MAP of its handle on this fd); nothing is mapped before the first
 * touch.
 */
int mpichan_region_mmap(struct mpichan_file *mf, struct vm_area_struct *vma)
{
	u64 off = ((u64)vma->vm_pgoff << PAGE_SHIFT) - MPICHAN_REGION_OFFSET;
	u64 handle = off >> REGION_SLOT_SHIFT;
	vm_flags_t clear = VM_MAYEXEC;
	struct mpichan_region *r;
	void *grant;
	int ret;

	mmap_assert_write_locked(vma->vm_mm);
	if ((off & (MPICHAN_REGION_MAX_BYTES - 1)) || !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	r = region_get(handle);
	if (!r)
		return -ENOENT;
	grant = xa_load(&mf->region_grants, handle);
	if (grant != region_grant(r, true) && grant != region_grant(r, false)) {
		ret = -EACCES;
		goto err_put;
	}
	if (grant != region_grant(r, true)) {
		if (vma->vm_flags & VM_WRITE) {
			ret = -EACCES;
			goto err_put;
		}
		clear |= VM_MAYWRITE;
	}
	if (vma_pages(vma) > r->map_pages) {
		ret = -EINVAL;
		goto err_put;
	}
	ret = region_state_err(r, false);
	if (ret)
		goto err_put;
	/* Not inherited, not grown, not in a core dump; special PTEs. */
	mpichan_vm_flags_mod(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND |
			     VM_DONTDUMP | VM_DONTCOPY, clear);
	vma->vm_ops = &region_vm_ops;
	vma->vm_private_data = r;
	atomic_inc(&r->maps);
	atomic_long_inc(&mpichan_stats.region_maps);
	return 0;

err_put:
	region_put(r);
	return ret;
}
