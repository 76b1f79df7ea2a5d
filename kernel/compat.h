/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that knows which kernel we build against: every API
 * that changed between the kernels the module supports gets a wrapper
 * here, so the rest of the code reads as if written for one kernel.
 */
#ifndef _MPICHAN_COMPAT_H
#define _MPICHAN_COMPAT_H

#include <linux/mm.h>

/*
 * vm_flags became read-only behind vm_flags_set() and friends in 6.3;
 * Kbuild tests the headers for it (MPICHAN_HAVE_VM_FLAGS_MOD).
 */
static inline void mpichan_vm_flags_mod(struct vm_area_struct *vma,
					vm_flags_t set, vm_flags_t clear)
{
#ifdef MPICHAN_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * get_user_pages_remote() lost its vmas argument in 6.5; Kbuild tests
 * the headers for it (MPICHAN_HAVE_GUP_REMOTE_VMAS).
 */
static inline long mpichan_get_user_pages_remote(struct mm_struct *mm,
						 unsigned long start,
						 unsigned long nr_pages,
						 unsigned int gup_flags,
						 struct page **pages)
{
#ifdef MPICHAN_HAVE_GUP_REMOTE_VMAS
	return get_user_pages_remote(mm, start, nr_pages, gup_flags, pages,
				     NULL, NULL);
#else
	return get_user_pages_remote(mm, start, nr_pages, gup_flags, pages,
				     NULL);
#endif
}

/*
 * A fault handler that drops the mmap lock before VM_FAULT_RETRY: 6.5
 * added release_fault_lock() for faults under a per-VMA lock (ours are
 * not: without ->map_pages the core retries them under the mmap lock).
 */
static inline void mpichan_release_fault_lock(struct vm_fault *vmf)
{
#ifdef MPICHAN_HAVE_RELEASE_FAULT_LOCK
	release_fault_lock(vmf);
#else
	mmap_read_unlock(vmf->vma->vm_mm);
#endif
}

#endif /* _MPICHAN_COMPAT_H */
