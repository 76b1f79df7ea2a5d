/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_RING_H
#define _MPICHAN_RING_H

#include <linux/fs.h>
#include <linux/mm_types.h>

struct mpichan_job;
struct mpichan_rank;

int mpichan_mmap(struct file *file, struct vm_area_struct *vma);
bool mpichan_ring_has_cells(struct mpichan_job *job, u32 src, u32 dst);
bool mpichan_rank_has_incoming(struct mpichan_rank *rank);

#endif /* _MPICHAN_RING_H */
