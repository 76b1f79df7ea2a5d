/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A registered region as region.c, region_map.c and region_copy.c share
 * it: the object, its states, and the calls that find, enter and leave
 * one.  See region.c for the life of a region and its lock order.
 */
#ifndef MPICHAN_REGION_INTERNAL_H
#define MPICHAN_REGION_INTERNAL_H

#include <linux/kref.h>
#include <linux/mmu_notifier.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct mpichan_file;
struct user_struct;

/* Handles 1 .. REGION_MAX_HANDLE, each with its slot of mmap() offsets. */
#define REGION_MAX_HANDLE	((1U << 24) - 1)
#define REGION_SLOT_SHIFT	36	/* a slot: MPICHAN_REGION_MAX_BYTES */
/* A copy looks for a fatal signal, and yields, every so many pages. */
#define REGION_COPY_BATCH	64

enum {
	REGION_LIVE,	/* copies, maps and faults go ahead */
	REGION_CHECKING, /* invalidated: are the pins still the owner's? */
	REGION_STALE,	/* the owner's memory changed: none start */
	REGION_DEAD,	/* deregistered, or its file went */
	REGION_NEW,	/* being registered: not pinned yet */
};

/* Bits of region->flags: who releases the pins, see region_kill(). */
enum {
	REGION_ORPHAN,		/* the killer stopped waiting */
	REGION_RELEASED,	/* someone is releasing them */
};

struct mpichan_region {
	/*
	 * References: the registration's (the table and the owner's list,
	 * dropped when the pins go), each VMA's, each lookup's, a queued zap.
	 */
	struct kref ref;
	u32 handle;
	u64 key;
	u64 serial;			/* never reused: what a grant names */
	kuid_t uid;
	pid_t pid;
	struct mpichan_file *owner;	/* compared only */
	struct list_head node;		/* owner->regions, under region_lock */

	unsigned long start;		/* the user address registered */
	u64 len;
	unsigned long npages;		/* pages[0] holds start */
	unsigned long map_first;	/* pages[] index of the first whole page */
	unsigned long map_pages;	/* whole pages: what may be mapped */
	bool writable;
	struct page **pages;		/* pinned, until region_release() */
	struct user_struct *user;	/* charged for npages, or NULL */

	spinlock_t lock;		/* state; the notifier's sequence */
	int state;			/* REGION_*, read with READ_ONCE() */
	struct mmu_interval_notifier notifier;
	struct work_struct check_work;	/* the verdict on CHECKING, the zap */
	wait_queue_head_t checked;	/* waiters for the end of CHECKING */

	atomic_t active;		/* 1 until killed, + copies and faults */
	wait_queue_head_t idle;		/* the killer waits for active == 0 */
	unsigned long flags;
	struct work_struct release_work;

	atomic_t maps;			/* VMAs mapping it */
	atomic64_t copies;		/* copy entries done */
	atomic64_t bytes_in;		/* bytes put into it */
	atomic64_t bytes_out;		/* bytes got out of it */
};

void region_put(struct mpichan_region *r);
struct mpichan_region *region_get(u64 handle);
struct mpichan_region *region_open(u64 handle, u64 key, int *err);
int region_state_err(struct mpichan_region *r, bool wait);
int region_enter(struct mpichan_region *r, bool checking);
int region_wait_checked(struct mpichan_region *r);
void region_leave(struct mpichan_region *r);
void region_zap(struct mpichan_region *r);

/* What a grant of r to an fd records: r itself, and whether writable. */
static inline void *region_grant(const struct mpichan_region *r, bool write)
{
	return xa_mk_value(r->serial << 1 | write);
}

#endif /* MPICHAN_REGION_INTERNAL_H */
