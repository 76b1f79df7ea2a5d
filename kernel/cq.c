// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: how a rank learns, without a system call, that a
 * transfer it queued has finished.  The kernel is the only producer of
 * each queue (under job->xfer_lock) and keeps its own tail; the rank's
 * cq_head is read but never trusted.
 */
#include <linux/lockdep.h>
#include <linux/wait.h>

#include "cq.h"
#include "job.h"

/* Entries the rank has not consumed yet; all of them if head is bogus. */
static u32 cq_used(struct mpichan_rank *rank)
{
	struct mpichan_rank_ctl *ctl = mpichan_rank_ctl(rank->job, rank->index);
	u32 used = rank->cq_tail - READ_ONCE(ctl->cq_head);

	return used > MPICHAN_CQ_ENTRIES ? MPICHAN_CQ_ENTRIES : used;
}

/* Promise an entry to a transfer being queued: -EAGAIN when full. */
int mpichan_cq_reserve(struct mpichan_rank *rank)
{
	lockdep_assert_held(&rank->job->xfer_lock);
	if (cq_used(rank) + rank->cq_reserved >= MPICHAN_CQ_ENTRIES)
		return -EAGAIN;
	rank->cq_reserved++;
	return 0;
}

void mpichan_cq_unreserve(struct mpichan_rank *rank)
{
	lockdep_assert_held(&rank->job->xfer_lock);
	rank->cq_reserved--;
}

/* Deliver a reserved entry and wake the rank if it sleeps. */
void mpichan_cq_post(struct mpichan_rank *rank, const struct mpichan_cqe *e)
{
	struct mpichan_job *job = rank->job;
	struct mpichan_rank_ctl *ctl = mpichan_rank_ctl(job, rank->index);
	struct mpichan_cqe *slot;

	lockdep_assert_held(&job->xfer_lock);
	mpichan_cq_unreserve(rank);
	if (READ_ONCE(rank->state) != MPICHAN_RANK_ALIVE)
		return;
	slot = mpichan_cqe(job, rank->index, rank->cq_tail);
	if (!slot || cq_used(rank) >= MPICHAN_CQ_ENTRIES) {
		/* Only a rank that moved cq_head backwards gets here. */
		WRITE_ONCE(ctl->cq_overflow, READ_ONCE(ctl->cq_overflow) + 1);
		return;
	}
	*slot = *e;
	rank->cq_tail++;
	/* The rank reads cq_tail with acquire, then the entry. */
	smp_store_release(&ctl->cq_tail, rank->cq_tail);
	wake_up_interruptible(&rank->wq);
}

/* For WAIT and poll(): is there an entry the rank has not consumed? */
bool mpichan_cq_pending(struct mpichan_rank *rank)
{
	struct mpichan_rank_ctl *ctl = mpichan_rank_ctl(rank->job, rank->index);

	return READ_ONCE(rank->cq_tail) != READ_ONCE(ctl->cq_head);
}
