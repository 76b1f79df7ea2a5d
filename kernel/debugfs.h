/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_DEBUGFS_H
#define _MPICHAN_DEBUGFS_H

#include <linux/atomic.h>

struct mpichan_job;

/*
 * Module-wide counters.  The gauges return to zero when every job is
 * gone; the event counters only grow.
 */
struct mpichan_stats {
	atomic_long_t jobs;
	atomic_long_t ranks;		/* attached and not yet left */
	atomic_long_t ring_pages;	/* pages of job memory */
	atomic_long_t pinned_pages;	/* user pages pinned, cache included */
	atomic_long_t cache_entries;	/* send buffers in the ranks' pin caches */
	atomic_long_t cache_pages;	/* their pages */
	/* Events since load: these only grow. */
	atomic_long_t cache_hits;
	atomic_long_t cache_misses;
	atomic_long_t cache_invalidated;
	atomic_long_t cache_evicted;
	atomic_long_t window_maps;	/* mapped receives that mapped pages */
	atomic_long_t window_hits;	/* ... that found them mapped */
	/* Registered regions (region.c): gauges, then events. */
	atomic_long_t regions;		/* registered and not yet released */
	atomic_long_t region_pages;	/* their pinned pages */
	atomic_long_t region_maps;	/* VMAs mapping them */
	atomic_long_t region_copies;	/* copy entries done */
	atomic_long_t region_bytes_in;	/* bytes put into regions */
	atomic_long_t region_bytes_out;	/* bytes got out of them */
	atomic_long_t region_stale;	/* made stale: owner's memory changed */
};

extern struct mpichan_stats mpichan_stats;

void mpichan_debugfs_init(void);
void mpichan_debugfs_exit(void);
void mpichan_debugfs_job_add(struct mpichan_job *job);
void mpichan_debugfs_job_remove(struct mpichan_job *job);

#endif /* _MPICHAN_DEBUGFS_H */
