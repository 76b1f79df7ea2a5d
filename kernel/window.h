/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_WINDOW_H
#define _MPICHAN_WINDOW_H

#include <linux/mm_types.h>

struct mpichan_pcache_entry;
struct mpichan_rank;

int mpichan_window_mmap(struct mpichan_rank *rank, struct vm_area_struct *vma);
long mpichan_window_map(struct mpichan_rank *rank, struct page **pages,
			unsigned long n, struct mpichan_pcache_entry *e);
void mpichan_window_done(struct mpichan_rank *rank, bool keep);
void mpichan_window_release(struct mpichan_rank *rank);
bool mpichan_window_cache(void);

#endif /* _MPICHAN_WINDOW_H */
