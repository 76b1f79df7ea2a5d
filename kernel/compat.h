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

#endif /* _MPICHAN_COMPAT_H */
