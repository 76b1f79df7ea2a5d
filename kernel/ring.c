// SPDX-License-Identifier: GPL-2.0
/*
 * The job's shared memory as ranks see it: mmap() of the whole layout
 * described in uapi/linux/mpichan.h, pages supplied on first touch, and
 * the kernel's one look into the rings (is there anything to receive?).
 */
#include <linux/mm.h>
#include <linux/mman.h>

#include "compat.h"
#include "job.h"
#include "ring.h"
#include "window.h"

static vm_fault_t mpichan_vm_fault(struct vm_fault *vmf)
{
	struct mpichan_job *job = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff >= job->map_pages)
		return VM_FAULT_SIGBUS;
	page = mpichan_job_page(job, vmf->pgoff, true);
	if (!page)
		return VM_FAULT_OOM;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct mpichan_vm_ops = {
	.fault = mpichan_vm_fault,
};

int mpichan_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mpichan_file *mf = file->private_data;
	/* Pairs with the release in create/attach. */
	struct mpichan_job *job = smp_load_acquire(&mf->job);
	vm_flags_t clear = VM_MAYEXEC;

	if (!job)
		return -ENXIO;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_pgoff == MPICHAN_WINDOW_OFFSET >> PAGE_SHIFT) {
		if (!mf->rank)
			return -ENXIO;
		if (mf->rank->mm != current->mm)
			return -EBADFD;
		return mpichan_window_mmap(mf->rank, vma);
	}
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (vma->vm_pgoff || vma_pages(vma) > job->map_pages)
		return -EINVAL;
	if (mf->rank) {
		if (mf->rank->mm != current->mm)
			return -EBADFD;
	} else {
		/* The owner (a launcher, a monitor) only looks. */
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		clear |= VM_MAYWRITE;
	}
	/*
	 * Not inherited by fork(): a child is not a rank, and must not
	 * keep the job's memory alive or scribble on it.  Not pinnable
	 * (VM_IO: get_user_pages() refuses it, as it does io_uring's
	 * rings): a region or a send over the job's own memory would
	 * allocate every page of it, up to MPICHAN_MAX_MAP_SIZE, and keep
	 * them past the job.
	 */
	mpichan_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY |
			     VM_IO, clear);
	vma->vm_ops = &mpichan_vm_ops;
	vma->vm_private_data = job;
	return 0;
}

/*
 * Does ring (src -> dst) hold cells?  head and tail are the ranks' to
 * write and may be garbage: they are only compared.
 */
bool mpichan_ring_has_cells(struct mpichan_job *job, u32 src, u32 dst)
{
	struct mpichan_ring_ctl *rc = mpichan_ring_ctl(job, src, dst);

	return rc && READ_ONCE(rc->tail) != READ_ONCE(rc->head);
}

/* Does any ring into this rank hold cells? */
bool mpichan_rank_has_incoming(struct mpichan_rank *rank)
{
	u32 src;

	for (src = 0; src < rank->job->nranks; src++)
		if (mpichan_ring_has_cells(rank->job, src, rank->index))
			return true;
	return false;
}
