// SPDX-License-Identifier: MIT
/*
 * Passive target synchronisation (MPI_Win_lock, unlock, lock_all,
 * unlock_all, the flushes, MPI_Win_sync) and the lock words behind it
 * and behind the accumulates (ops.c, acc.c).  Every operation is
 * complete at the target when its call returns, so ending an epoch
 * only orders memory and tells whoever waits:
 *
 * - Passive target needs nothing of the target: each target has lock
 *   words in the window's segment, which every member maps.  An
 *   exclusive lock is `excl`, the holder's world rank + 1, taken with
 *   a compare-and-swap; a shared one is the holder's byte in the
 *   target's row of `slots`.  A reader sets its byte, then looks at
 *   `excl`; a writer sets `excl`, then looks at the bytes (both
 *   sequentially consistent, so one of two racing sees the other).  A
 *   writer that finds a reader gives `excl` back and tries again
 *   later; a reader that finds a writer keeps its byte and waits for
 *   `excl` to clear (which keeps further writers out): readers never
 *   wait behind a writer that only tries.  Unlock is a store; the data
 *   went before it.
 * - The accumulate lock (acc.c) is the same kind of reader-writer lock
 *   over CPU atomics: an origin making CPU atomics on a target's
 *   memory sets its byte in the target's row of `atomics` and looks at
 *   `acc` (backing off while it is held); an accumulate that needs the
 *   target's elements to itself (large, or of elements no instruction
 *   updates atomically, or on memory reached by copy) swaps its world
 *   rank + 1 into `acc` and waits for the row to empty.  Readers here
 *   hold it for a few instructions, no call in between.
 * - Waiting for a lock: the waiter sets its byte in the target's row
 *   of `waiting` and counts itself in `waiters`; it polls the progress
 *   engine (MPI progress: the holder may wait for one of our
 *   messages), spins, then sleeps in the transport for at most 1 ms at
 *   a time.  Whoever releases a lock with `waiters` set wakes the
 *   sleepers of that row (the transport's wake-up, as for a message);
 *   a wake-up that comes just before the waiter sleeps is lost, which
 *   the 1 ms bounds.
 * - A rank that dies (or leaves) holding a lock: waiters look at the
 *   holders' states in the job's rank control blocks and break its
 *   locks (compare-and-swap from its value, so one breaker wins), its
 *   shared bytes cleared.  A target found dead makes the
 *   synchronisation call fail with MPI_ERR_PROC_FAILED: lock, unlock,
 *   flush, and through their messages fence and PSCW.
 */

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	__asm__ __volatile__("" ::: "memory")
#endif

/* One sleep of a waiter: a lost wake-up costs no more. */
#define LM_WIN_NAP_NS	1000000

static inline uint8_t *slot(struct libmsg_win *win, int t, int o)
{
	return win->seg + win->lay.slots + (uint64_t)t * win->lay.row +
		(uint64_t)o;
}

static inline uint8_t *waiting(struct libmsg_win *win, int t, int o)
{
	return win->seg + win->lay.waiting + (uint64_t)t * win->lay.row +
		(uint64_t)o;
}

static inline uint8_t *atomics(struct libmsg_win *win, int t, int o)
{
	return win->seg + win->lay.atomics + (uint64_t)t * win->lay.row +
		(uint64_t)o;
}

static inline uint32_t me1(void)
{
	return lm.job.rank + 1;
}

int lm_rma_rank_gone(int w)
{
	uint32_t state;

	if (w == (int)lm.job.rank)
		return 0;
	if (lm.dead[w])
		return 1;
	state = __atomic_load_n(&mcr_rank_ctl(&lm.job.ep, (uint32_t)w)->state,
				__ATOMIC_ACQUIRE);
	return state == MPICHAN_RANK_DEAD || state == MPICHAN_RANK_FINISHED;
}

/* Anyone's byte set in a row of bytes? */
static int row_any(struct libmsg_win *win, const uint8_t *row)
{
	const uint64_t *w = (const uint64_t *)(const void *)row;
	uint64_t i;

	for (i = 0; i < win->lay.row / 8; i++)
		if (__atomic_load_n(&w[i], __ATOMIC_SEQ_CST))
			return 1;
	return 0;
}

/* A shared lock on target t held (or waited for) by anyone? */
static int readers(struct libmsg_win *win, int t)
{
	return row_any(win, slot(win, t, 0));
}

/* Anyone making CPU atomics on target t's memory? */
static int atomic_users(struct libmsg_win *win, int t)
{
	return row_any(win, atomics(win, t, 0));
}

/* Wake the ranks that wait for target t's locks. */
static void wake(struct libmsg_win *win, int t)
{
	int o;

	if (!__atomic_load_n(&lm_win_ctl(win, t)->waiters, __ATOMIC_SEQ_CST))
		return;
	for (o = 0; o < win->size; o++)
		if (o != win->rank &&
		    __atomic_load_n(waiting(win, t, o), __ATOMIC_RELAXED))
			lm_notify(&lm.job, (uint32_t)win->peer[o].world);
}

static void wait_mark(struct libmsg_win *win, int t, int on)
{
	struct lm_win_ctl *c = lm_win_ctl(win, t);

	__atomic_store_n(waiting(win, t, win->rank), (uint8_t)on,
			 __ATOMIC_SEQ_CST);
	if (on)
		__atomic_fetch_add(&c->waiters, 1, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_sub(&c->waiters, 1, __ATOMIC_SEQ_CST);
}

/* A lock word held by a rank that is gone: free it (one breaker wins). */
static void break_word(uint32_t *word)
{
	uint32_t h = __atomic_load_n(word, __ATOMIC_ACQUIRE);

	if (h && lm_rma_rank_gone((int)h - 1))
		__atomic_compare_exchange_n(word, &h, 0, 0, __ATOMIC_SEQ_CST,
					    __ATOMIC_RELAXED);
}

static void break_dead(struct libmsg_win *win, int t)
{
	struct lm_win_ctl *c = lm_win_ctl(win, t);
	int o;

	break_word(&c->excl);
	break_word(&c->acc);
	for (o = 0; o < win->size; o++) {
		if (__atomic_load_n(slot(win, t, o), __ATOMIC_RELAXED) &&
		    lm_rma_rank_gone(win->peer[o].world))
			__atomic_store_n(slot(win, t, o), 0, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(atomics(win, t, o), __ATOMIC_RELAXED) &&
		    lm_rma_rank_gone(win->peer[o].world))
			__atomic_store_n(atomics(win, t, o), 0, __ATOMIC_SEQ_CST);
	}
}

/* One idle turn of a wait: spin a while (the waiting mode's), then nap. */
static void idle(unsigned int *polls, uint64_t *since)
{
	unsigned int every = lm.oversubscribed ? 1 : 16;
	uint64_t limit = lm.wait_mode == LM_WAIT_SLEEP ? 0 : lm.spin_ns;

	if (*polls == 0)
		*since = lm_now_ns();
	(*polls)++;
	if (lm.wait_mode == LM_WAIT_SPIN ||
	    ((*polls & 31) && limit) || lm_now_ns() - *since < limit) {
		if (lm.thread_level == MPI_THREAD_MULTIPLE)
			lm_mt_relax(*polls, every);
		else if (*polls % every == 0)
			sched_yield();
		else
			cpu_relax();
		return;
	}
	if (lm.thread_level == MPI_THREAD_MULTIPLE)
		lm_mt_sleep(LM_WIN_NAP_NS);
	else
		lm.job.t->sleep(&lm.job, LM_WIN_NAP_NS);
}

typedef int ready_fn(struct libmsg_win *win, int t);

/*
 * Wait until ready(win, t): MPI_SUCCESS, or MPI_ERR_PROC_FAILED when
 * target t is gone.
 */
static int wait_for(struct libmsg_win *win, int t, ready_fn *ready)
{
	unsigned int polls = 0;
	uint64_t since = 0;
	int marked = 0, err = MPI_SUCCESS;

	while (!ready(win, t)) {
		if (lm_rma_rank_gone(win->peer[t].world)) {
			err = MPI_ERR_PROC_FAILED;
			break;
		}
		break_dead(win, t);
		if (!marked) {
			/* Counted before the next look: a release wakes us. */
			wait_mark(win, t, 1);
			marked = 1;
			continue;
		}
		if (lm_progress())
			continue;
		idle(&polls, &since);
	}
	if (marked)
		wait_mark(win, t, 0);
	return err;
}

static int try_excl(struct libmsg_win *win, int t)
{
	struct lm_win_ctl *c = lm_win_ctl(win, t);
	uint32_t zero = 0;

	if (__atomic_load_n(&c->excl, __ATOMIC_RELAXED) ||
	    !__atomic_compare_exchange_n(&c->excl, &zero, me1(), 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return 0;
	if (!readers(win, t))
		return 1;
	/* Readers hold it: give way, try again later. */
	__atomic_store_n(&c->excl, 0, __ATOMIC_SEQ_CST);
	wake(win, t);
	return 0;
}

static int no_writer(struct libmsg_win *win, int t)
{
	return !__atomic_load_n(&lm_win_ctl(win, t)->excl, __ATOMIC_SEQ_CST);
}

static int try_acc(struct libmsg_win *win, int t)
{
	struct lm_win_ctl *c = lm_win_ctl(win, t);
	uint32_t zero = 0;

	return !__atomic_load_n(&c->acc, __ATOMIC_RELAXED) &&
		__atomic_compare_exchange_n(&c->acc, &zero, me1(), 0,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static int lock_take(struct libmsg_win *win, int t, int type)
{
	int err;

	if (type == LM_LOCK_EXCL)
		return try_excl(win, t) ? MPI_SUCCESS :
			wait_for(win, t, try_excl);
	__atomic_store_n(slot(win, t, win->rank), 1, __ATOMIC_SEQ_CST);
	if (no_writer(win, t))
		return MPI_SUCCESS;
	err = wait_for(win, t, no_writer);
	if (err)
		__atomic_store_n(slot(win, t, win->rank), 0, __ATOMIC_SEQ_CST);
	return err;
}

static void lock_give(struct libmsg_win *win, int t, int type)
{
	if (type == LM_LOCK_EXCL)
		__atomic_store_n(&lm_win_ctl(win, t)->excl, 0, __ATOMIC_SEQ_CST);
	else
		__atomic_store_n(slot(win, t, win->rank), 0, __ATOMIC_SEQ_CST);
	wake(win, t);
}

static int no_atomics(struct libmsg_win *win, int t)
{
	return !atomic_users(win, t);
}

static int acc_free(struct libmsg_win *win, int t)
{
	return !__atomic_load_n(&lm_win_ctl(win, t)->acc, __ATOMIC_SEQ_CST);
}

int lm_win_acc_lock(struct libmsg_win *win, int t, const char *fn)
{
	int err = MPI_SUCCESS;

	if (!try_acc(win, t))
		err = wait_for(win, t, try_acc);
	/* Held: no new CPU atomics start; those under way end soon. */
	if (!err && atomic_users(win, t)) {
		err = wait_for(win, t, no_atomics);
		if (err)
			lm_win_acc_unlock(win, t);
	}
	if (err)
		return lm_werr(win, fn, err,
			       "target rank %d is gone: its accumulate lock cannot be had",
			       t);
	return MPI_SUCCESS;
}

void lm_win_acc_unlock(struct libmsg_win *win, int t)
{
	__atomic_store_n(&lm_win_ctl(win, t)->acc, 0, __ATOMIC_SEQ_CST);
	wake(win, t);
}

int lm_win_atomics_enter(struct libmsg_win *win, int t, const char *fn)
{
	uint8_t *mine = atomics(win, t, win->rank);
	int err;

	for (;;) {
		__atomic_store_n(mine, 1, __ATOMIC_SEQ_CST);
		if (acc_free(win, t))
			return MPI_SUCCESS;
		/* Someone holds the lock: out of its way until it is done. */
		__atomic_store_n(mine, 0, __ATOMIC_SEQ_CST);
		wake(win, t);
		err = wait_for(win, t, acc_free);
		if (err)
			return lm_werr(win, fn, err,
				       "target rank %d is gone: its accumulate lock cannot be had",
				       t);
	}
}

void lm_win_atomics_leave(struct libmsg_win *win, int t)
{
	__atomic_store_n(atomics(win, t, win->rank), 0, __ATOMIC_SEQ_CST);
	wake(win, t);
}

int lm_win_access_ok(struct libmsg_win *win, int t, int passive_only)
{
	if (win->lock_all || win->lock[t])
		return 1;
	if (passive_only)
		return 0;
	if (win->started)
		return win->in_start[t];
	if (win->fence) {
		win->fence_ops = 1;
		return 1;
	}
	return 0;
}

/* The checks every synchronisation call starts with. */
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_lock";
	int err = lm_win_check_sync(win, fn, assert, MPI_MODE_NOCHECK), type;

	if (err)
		return err;
	if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
		return lm_werr(win, fn, MPI_ERR_LOCKTYPE,
			       "lock type %d is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED",
			       lock_type);
	if (lm_win_check_rank(win, fn, rank, &err))
		return err;
	if (win->lock_all || win->lock[rank])
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "rank %d is locked already (%s)", rank,
			       win->lock_all ? "MPI_Win_lock_all" : "MPI_Win_lock");
	if (win->started)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "inside a PSCW access epoch (MPI_Win_start)");
	if ((err = lm_win_fence_over(win, fn)))
		return err;
	type = lock_type == MPI_LOCK_EXCLUSIVE ? LM_LOCK_EXCL : LM_LOCK_SHARED;
	if (assert & MPI_MODE_NOCHECK) {
		win->lock[rank] = (uint8_t)(type | LM_LOCK_NOCHECK);
	} else {
		if (lm_rma_rank_gone(win->peer[rank].world))
			err = MPI_ERR_PROC_FAILED;
		else
			err = lock_take(win, rank, type);
		if (err)
			return lm_werr(win, fn, err, "target rank %d is gone",
				       rank);
		win->lock[rank] = (uint8_t)type;
	}
	win->nlocks++;
	win->peer[rank].failed = 0;
	return MPI_SUCCESS;
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_unlock";
	int err = lm_check_win(win, fn), held;

	if (err)
		return err;
	if (lm_win_check_rank(win, fn, rank, &err))
		return err;
	held = win->lock[rank];
	if (!held)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "rank %d is not locked by this rank%s", rank,
			       win->lock_all ?
			       " (it holds MPI_Win_lock_all: MPI_Win_unlock_all ends that)" :
			       "");
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(held & LM_LOCK_NOCHECK))
		lock_give(win, rank, held);
	win->lock[rank] = LM_LOCK_NONE;
	win->nlocks--;
	if (lm_win_peer_failed(win, rank))
		return lm_werr(win, fn, MPI_ERR_PROC_FAILED,
			       "target rank %d is gone: the epoch's operations may be lost",
			       rank);
	return MPI_SUCCESS;
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_lock_all";
	int err = lm_win_check_sync(win, fn, assert, MPI_MODE_NOCHECK), t;

	if (err)
		return err;
	if (win->lock_all || win->nlocks)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "this rank holds %s already",
			       win->lock_all ? "MPI_Win_lock_all" : "a lock");
	if (win->started)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "inside a PSCW access epoch (MPI_Win_start)");
	if ((err = lm_win_fence_over(win, fn)))
		return err;
	if (assert & MPI_MODE_NOCHECK) {
		win->lock_all = LM_LOCK_SHARED | LM_LOCK_NOCHECK;
		return MPI_SUCCESS;
	}
	for (t = 0; t < win->size; t++) {
		err = lm_rma_rank_gone(win->peer[t].world) ?
			MPI_ERR_PROC_FAILED : lock_take(win, t, LM_LOCK_SHARED);
		if (err) {
			int bad = t;

			while (t-- > 0)
				lock_give(win, t, LM_LOCK_SHARED);
			return lm_werr(win, fn, err, "target rank %d is gone",
				       bad);
		}
		win->peer[t].failed = 0;
	}
	win->lock_all = LM_LOCK_SHARED;
	return MPI_SUCCESS;
}

int MPI_Win_unlock_all(MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_unlock_all";
	int err = lm_check_win(win, fn), t, bad = -1;

	if (err)
		return err;
	if (!win->lock_all)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "MPI_Win_lock_all was not called%s",
			       win->nlocks ? " (locks of MPI_Win_lock are ended by MPI_Win_unlock)" : "");
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (t = 0; t < win->size; t++) {
		if (!(win->lock_all & LM_LOCK_NOCHECK))
			lock_give(win, t, LM_LOCK_SHARED);
		if (lm_win_peer_failed(win, t) && bad < 0)
			bad = t;
	}
	win->lock_all = 0;
	if (bad >= 0)
		return lm_werr(win, fn, MPI_ERR_PROC_FAILED,
			       "target rank %d is gone: the epoch's operations may be lost",
			       bad);
	return MPI_SUCCESS;
}

/*
 * The flushes: every operation is complete already, at the origin and
 * at the target; what is left is ordering and telling a lost target.
 */
static int flush(MPI_Win win, const char *fn, int all, int rank)
{
	int err = lm_check_win(win, fn), t;

	if (err)
		return err;
	if (!all) {
		if (lm_win_check_rank(win, fn, rank, &err))
			return err;
		if (!win->lock_all && !win->lock[rank])
			return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
				       "no passive target epoch on rank %d (MPI_Win_lock)",
				       rank);
	} else if (!win->lock_all && !win->nlocks) {
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "no passive target epoch (MPI_Win_lock or MPI_Win_lock_all)");
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!all && rank == MPI_PROC_NULL)
		return MPI_SUCCESS;
	for (t = all ? 0 : rank; t < win->size; t++) {
		if ((win->lock_all || win->lock[t]) && lm_win_peer_failed(win, t))
			return lm_werr(win, fn, MPI_ERR_PROC_FAILED,
				       "target rank %d is gone", t);
		if (!all)
			break;
	}
	return MPI_SUCCESS;
}

int MPI_Win_flush(int rank, MPI_Win win)
{
	LM_GUARD();
	return flush(win, "MPI_Win_flush", 0, rank);
}

int MPI_Win_flush_all(MPI_Win win)
{
	LM_GUARD();
	return flush(win, "MPI_Win_flush_all", 1, 0);
}

int MPI_Win_flush_local(int rank, MPI_Win win)
{
	LM_GUARD();
	return flush(win, "MPI_Win_flush_local", 0, rank);
}

int MPI_Win_flush_local_all(MPI_Win win)
{
	LM_GUARD();
	return flush(win, "MPI_Win_flush_local_all", 1, 0);
}

int MPI_Win_sync(MPI_Win win)
{
	LM_GUARD();
	int err = lm_check_win(win, "MPI_Win_sync");

	if (err)
		return err;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return MPI_SUCCESS;
}
