/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_REGION_H
#define _MPICHAN_REGION_H

#include <linux/errno.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

#include "job.h"

struct mpichan_region_copy;
struct mpichan_region_dereg;
struct mpichan_region_map;
struct mpichan_region_query;
struct mpichan_region_reg;
struct file;
struct seq_file;
struct vm_area_struct;

#ifdef CONFIG_MMU_NOTIFIER

int mpichan_region_init(void);
void mpichan_region_exit(void);
void mpichan_region_file_init(struct file *file, struct mpichan_file *mf);
void mpichan_region_file_release(struct mpichan_file *mf);
int mpichan_region_reg(struct mpichan_file *mf, struct mpichan_region_reg *a);
int mpichan_region_dereg(struct mpichan_file *mf,
			 struct mpichan_region_dereg *d);
int mpichan_region_query(struct mpichan_file *mf,
			 struct mpichan_region_query *q);
int mpichan_region_map(struct mpichan_file *mf, struct mpichan_region_map *m);
int mpichan_region_copy(struct mpichan_file *mf,
			struct mpichan_region_copy *c);
int mpichan_region_mmap(struct mpichan_file *mf, struct vm_area_struct *vma);
void mpichan_region_show(struct seq_file *m);

static inline bool mpichan_region_enabled(void)
{
	return true;
}

#else /* Without MMU notifiers nothing would zap a region's mappings. */

static inline int mpichan_region_init(void)
{
	return 0;
}

static inline void mpichan_region_exit(void)
{
}

static inline void mpichan_region_file_init(struct file *file,
					    struct mpichan_file *mf)
{
	mutex_init(&mf->region_lock);
	INIT_LIST_HEAD(&mf->regions);
	xa_init(&mf->region_grants);
}

static inline void mpichan_region_file_release(struct mpichan_file *mf)
{
	mutex_destroy(&mf->region_lock);
	xa_destroy(&mf->region_grants);
}

static inline int mpichan_region_reg(struct mpichan_file *mf,
				     struct mpichan_region_reg *a)
{
	return -EOPNOTSUPP;
}

static inline int mpichan_region_dereg(struct mpichan_file *mf,
				       struct mpichan_region_dereg *d)
{
	return -EOPNOTSUPP;
}

static inline int mpichan_region_query(struct mpichan_file *mf,
				       struct mpichan_region_query *q)
{
	return -EOPNOTSUPP;
}

static inline int mpichan_region_map(struct mpichan_file *mf,
				     struct mpichan_region_map *m)
{
	return -EOPNOTSUPP;
}

static inline int mpichan_region_copy(struct mpichan_file *mf,
				      struct mpichan_region_copy *c)
{
	return -EOPNOTSUPP;
}

static inline int mpichan_region_mmap(struct mpichan_file *mf,
				      struct vm_area_struct *vma)
{
	return -ENODEV;
}

static inline void mpichan_region_show(struct seq_file *m)
{
}

static inline bool mpichan_region_enabled(void)
{
	return false;
}

#endif /* CONFIG_MMU_NOTIFIER */

#endif /* _MPICHAN_REGION_H */
