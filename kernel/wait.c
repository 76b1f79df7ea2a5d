// SPDX-License-Identifier: GPL-2.0
/*
 * Sleeping and waking.  A rank sleeps only after advertising
 * MPICHAN_RANK_NEED_WAKEUP and re-checking its rings; a sender calls
 * WAKE only when it sees that flag (see the uapi header).  The kernel
 * side therefore only has to remember one pending wake per rank and
 * re-check the rings itself, so a WAKE that beats the WAIT is not lost.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

#include "cq.h"
#include "job.h"
#include "ring.h"
#include "wait.h"

static int check_peer(struct mpichan_job *job, s32 peer)
{
	if (peer < MPICHAN_RANK_NONE || (peer >= 0 && peer >= job->nranks))
		return -ERANGE;
	return 0;
}

/*
 * > 0: something to do, < 0: the wait fails, 0: keep sleeping.  As a
 * pipe's data comes before its end, a departed peer's last messages
 * are reported before its departure; other peers' traffic does not
 * hide it.
 */
static int wait_ready(struct mpichan_rank *rank, s32 peer)
{
	struct mpichan_job *job = rank->job;
	bool work;

	if (atomic_xchg(&rank->wake_pending, 0))
		return 1;
	if (peer >= 0 && mpichan_peer_gone(job, peer))
		return mpichan_ring_has_cells(job, peer, rank->index) ? 1 : -EPIPE;
	work = mpichan_cq_pending(rank) || mpichan_rank_has_incoming(rank);
	if (work)
		return 1;
	return mpichan_peer_gone(job, peer) ? -EPIPE : 0;
}

int mpichan_wait(struct mpichan_file *mf, struct mpichan_wait *w)
{
	struct mpichan_rank *rank = mpichan_file_rank(mf);
	int ready, ret;

	if (IS_ERR(rank))
		return PTR_ERR(rank);
	if (w->flags || w->pad)
		return -EINVAL;
	ret = check_peer(rank->job, w->peer);
	if (ret)
		return ret;

	ready = wait_ready(rank, w->peer);
	if (!ready && w->timeout_ns) {
		atomic64_inc(&rank->waits);
		atomic_inc(&rank->sleeping);
		if (w->timeout_ns < 0)
			ret = wait_event_interruptible(rank->wq,
				(ready = wait_ready(rank, w->peer)) != 0);
		else
			ret = wait_event_interruptible_hrtimeout(rank->wq,
				(ready = wait_ready(rank, w->peer)) != 0,
				ns_to_ktime(w->timeout_ns));
		atomic_dec(&rank->sleeping);
		/* A relative timeout cannot be restarted as it stands. */
		if (ret == -ERESTARTSYS)
			ret = -EINTR;
	}
	w->dead_count = READ_ONCE(rank->job->dead_count);
	if (ready < 0)
		return ready;
	if (ready > 0)
		return 0;
	return ret == -EINTR ? ret : -ETIMEDOUT;
}

int mpichan_wake(struct mpichan_file *mf, struct mpichan_wake *w)
{
	struct mpichan_rank *rank = mpichan_file_rank(mf);
	struct mpichan_rank *target;

	if (IS_ERR(rank))
		return PTR_ERR(rank);
	if (w->flags)
		return -EINVAL;
	if (w->rank >= rank->job->nranks)
		return -ERANGE;
	target = &rank->job->ranks[w->rank];
	atomic64_inc(&target->wakes);
	atomic_set(&target->wake_pending, 1);
	wake_up_interruptible(&target->wq);
	return 0;
}

__poll_t mpichan_poll(struct file *file, poll_table *pt)
{
	struct mpichan_rank *rank = mpichan_file_rank(file->private_data);
	__poll_t mask = 0;

	if (IS_ERR(rank))
		return EPOLLERR;
	poll_wait(file, &rank->wq, pt);
	if (atomic_read(&rank->wake_pending) || mpichan_cq_pending(rank) ||
	    mpichan_rank_has_incoming(rank))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(rank->job->dead_count))
		mask |= EPOLLERR;
	return mask;
}
