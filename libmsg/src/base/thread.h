/* SPDX-License-Identifier: MIT */
/*
 * MPI_THREAD_MULTIPLE (thread.c): the library lock, taken by the first
 * line of every call (LM_GUARD), and the read-side sections of the
 * queries that do without it (LM_QUERY).  Included by base.h after the
 * global state, which the inline paths read.
 */
#ifndef LM_THREAD_H
#define LM_THREAD_H

/*
 * ThreadSanitizer does not see the ordering liburcu gives (a grace
 * period, its queues: uninstrumented): name it where the code relies
 * on it, release before the hand-off, acquire after.
 */
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define lm_tsan_release(p)	__tsan_release(p)
#define lm_tsan_acquire(p)	__tsan_acquire(p)
#else
#define lm_tsan_release(p)	((void)(p))
#define lm_tsan_acquire(p)	((void)(p))
#endif

/*
 * Per thread: how deep in library calls (the lock is held while
 * depth > 0), and whether this thread owns the lock's bias and has not
 * seen it revoked.  Read on every call: initial-exec TLS, an offset
 * from the thread pointer, no call to __tls_get_addr.
 */
struct lm_lock_tls {
	int depth;
	int bias;
};
extern __thread struct lm_lock_tls lm_lock_tls
	__attribute__((tls_model("initial-exec")));
/*
 * The lock's bias (thread.c): on until another thread first takes the
 * lock; held while the owner is inside a call under it.
 */
struct lm_bias {
	int on;
	int held;
};
extern struct lm_bias lm_bias;
/* MPI_Init_thread granted MULTIPLE: bias the lock to the calling thread. */
void lm_mt_init(void);
/* The lock's slow ways: the mutex, or the owner finding the bias gone. */
void lm_mt_take(void);
void lm_mt_drop(void);
/* Blocked calls: give the lock to other threads, between polls. */
void lm_mt_relax(unsigned int poll, unsigned int yield_every);
void lm_mt_sleep(int64_t timeout_ns);
/* A poll did something: wake the threads that wait. */
void lm_mt_kick(void);
/* A liburcu read-side section (registers the thread the first time). */
void lm_rcu_enter(void);
void lm_rcu_leave(void);
/* free via fn(head) after a grace period (at once below MULTIPLE). */
void lm_defer_free(struct rcu_head *head, void (*fn)(struct rcu_head *head));
/* The first line of such an fn. */
void lm_rcu_reclaim(struct rcu_head *head);
/* MPI_Finalize, outside the lock: wait for the deferred frees. */
void lm_rcu_drain(void);

/*
 * The bias owner's hold: set `held`, then look at `on`; 1 while the
 * bias stands, 0 once it is revoked (then `held` is still set, for
 * the caller to clear).  A compiler barrier between the two is enough:
 * the revoker's membarrier orders them (thread.c).
 */
static inline int lm_bias_hold(void)
{
	__atomic_store_n(&lm_bias.held, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return __builtin_expect(__atomic_load_n(&lm_bias.on,
						__ATOMIC_RELAXED), 1);
}

/* Its end: what the owner did comes before a revoker's wait ends. */
static inline void lm_bias_release(void)
{
	__atomic_store_n(&lm_bias.held, 0, __ATOMIC_RELEASE);
}

/*
 * Take the library lock: only at MPI_THREAD_MULTIPLE (returns 1 then).
 * The owner of the bias takes it here, with a store, a compiler
 * barrier and a load, and gives it up with a store: no call and no
 * atomic instruction.  Out of line, the two calls a lock cost made a
 * thread-multiple ping-pong 12% slower than a single one in the VM
 * (Documentation/performance.md).
 */
static inline int lm_lock(void)
{
	if (__builtin_expect(lm.thread_level != MPI_THREAD_MULTIPLE, 1))
		return 0;
	if (lm_lock_tls.depth++)
		return 1;
	if (!lm_lock_tls.bias || !lm_bias_hold())
		lm_mt_take();
	return 1;
}

/* Its pair, run as the guard goes out of scope. */
static inline void lm_unlock_guard(int *locked)
{
	if (!*locked || --lm_lock_tls.depth)
		return;
	if (__builtin_expect(lm_lock_tls.bias && !lm.finalized, 1))
		lm_bias_release();
	else
		lm_mt_drop();
}

/*
 * First line of an MPI call that touches shared state: holds the lock
 * (at MPI_THREAD_MULTIPLE) until the call returns, whichever return.
 */
#define LM_GUARD() \
	int lm_guard_ __attribute__((cleanup(lm_unlock_guard), unused)) = \
		lm_lock()

static inline int lm_read_lock(void)
{
	if (__builtin_expect(lm.thread_level != MPI_THREAD_MULTIPLE, 1))
		return 0;
	lm_rcu_enter();
	return 1;
}

static inline void lm_read_unlock(int locked)
{
	if (locked)
		lm_rcu_leave();
}

/*
 * The fast path of a query of what a live handle never changes (a
 * communicator's size, a datatype's extent): when ok holds, do body
 * and return MPI_SUCCESS, reading as an RCU reader instead of under the
 * lock (thread.c).  Otherwise fall through to the checked path, which
 * takes the lock and reports what is wrong.
 */
#define LM_QUERY(ok, body) do {						\
	int lm_r_ = lm_read_lock();					\
									\
	if (ok) {							\
		body;							\
		lm_read_unlock(lm_r_);					\
		return MPI_SUCCESS;					\
	}								\
	lm_read_unlock(lm_r_);						\
} while (0)

#endif
