/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_PINCACHE_H
#define _MPICHAN_PINCACHE_H

#include <linux/err.h>
#include <linux/types.h>

struct mpichan_job;
struct mpichan_pcache;
struct mpichan_pcache_entry;
struct mpichan_rank;
struct page;
struct seq_file;
struct user_struct;

#ifdef CONFIG_MMU_NOTIFIER

int mpichan_pcache_init(void);
void mpichan_pcache_exit(void);
struct mpichan_pcache_entry *mpichan_pcache_pin(struct mpichan_rank *rank,
						unsigned long start,
						unsigned long npages,
						struct page ***pages);
void mpichan_pcache_get(struct mpichan_pcache_entry *e);
void mpichan_pcache_put(struct mpichan_pcache_entry *e);
void mpichan_pcache_put_async(struct mpichan_pcache_entry *e);
bool mpichan_pcache_cached(const struct mpichan_pcache_entry *e);
bool mpichan_pcache_reclaim(struct mpichan_rank *rank,
			    struct user_struct *user);
void mpichan_pcache_close(struct mpichan_rank *rank);
void mpichan_pcache_release(struct mpichan_rank *rank);
void mpichan_pcache_show(struct seq_file *m, struct mpichan_job *job);

#else /* Without MMU notifiers nothing can tell a cached buffer is stale. */

static inline int mpichan_pcache_init(void)
{
	return 0;
}

static inline void mpichan_pcache_exit(void)
{
}

static inline struct mpichan_pcache_entry *
mpichan_pcache_pin(struct mpichan_rank *rank, unsigned long start,
		   unsigned long npages, struct page ***pages)
{
	return NULL;
}

static inline void mpichan_pcache_get(struct mpichan_pcache_entry *e)
{
}

static inline void mpichan_pcache_put(struct mpichan_pcache_entry *e)
{
}

static inline void mpichan_pcache_put_async(struct mpichan_pcache_entry *e)
{
}

static inline bool mpichan_pcache_cached(const struct mpichan_pcache_entry *e)
{
	return false;
}

static inline bool mpichan_pcache_reclaim(struct mpichan_rank *rank,
					  struct user_struct *user)
{
	return false;
}

static inline void mpichan_pcache_close(struct mpichan_rank *rank)
{
}

static inline void mpichan_pcache_release(struct mpichan_rank *rank)
{
}

static inline void mpichan_pcache_show(struct seq_file *m,
				       struct mpichan_job *job)
{
}

#endif /* CONFIG_MMU_NOTIFIER */

#endif /* _MPICHAN_PINCACHE_H */
