/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_WINDOW_H
#define _MPICHAN_WINDOW_H

#include <linux/mm_types.h>

struct mpichan_rank;

int mpichan_window_mmap(struct mpichan_rank *rank, struct vm_area_struct *vma);
long mpichan_window_map(struct mpichan_rank *rank, struct page **pages,
			unsigned long n);
void mpichan_window_zap(struct mpichan_rank *rank, unsigned long n);

#endif /* _MPICHAN_WINDOW_H */
