// SPDX-License-Identifier: MIT
/*
 * MPI_THREAD_MULTIPLE: one lock over the library's state, biased to
 * the thread that initialised MPI.
 *
 * Every MPI call that touches shared state (requests, matching queues,
 * rings, communicators, datatypes' reference counts, the context id
 * mask) holds the library lock (LM_GUARD in thread.h).  It is taken
 * only when MPI_Init_thread granted MPI_THREAD_MULTIPLE: the lower
 * levels test lm.thread_level and go on, without an atomic operation.
 * A call made from inside another (an error handler, a collective
 * built on point-to-point) nests: a per-thread depth counts the holds.
 *
 * Most programs that ask for MPI_THREAD_MULTIPLE make most of their
 * calls from one thread, and an uncontended mutex (two atomic
 * operations a call) made a ping-pong 26% slower than at
 * MPI_THREAD_SINGLE in the VM.  So the lock starts out biased to the
 * initialising thread, the owner, which takes it by setting
 * lm_bias.held and then seeing lm_bias.on still set, with only a
 * compiler barrier between the store and the load, and gives it back
 * by clearing held (lm_lock, inline in every call).  The first call
 * from any other thread takes the mutex, clears `on`, and makes every
 * running thread of the process execute a full memory barrier
 * (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED: the kernel's
 * helper for an asymmetric fence, the one liburcu's readers pair with
 * too).  After it, the owner's store to held and its load of `on` are
 * ordered as if it had fenced itself: either its next take sees `on`
 * clear (it goes to the mutex, which the revoker holds), or it had set
 * held before it looked, and the revoker sees held set and waits for
 * the owner to clear it.  The clearing store releases what the owner
 * did under the bias, and the revoker's load acquires it.  From then
 * on every thread, the owner too, uses the mutex.  The owner clears
 * held wherever the mutex would be given up (each lm_mt_relax and
 * lm_mt_sleep), so a revoking thread waits at most one poll, never for
 * the owner's blocking call to end.  A kernel without the expedited
 * command (before 4.14) refuses its registration at MPI_Init_thread,
 * and then there is no bias: every take is the mutex.
 *
 * A blocked call gives the lock up between its polls (lm_mt_relax), so
 * other threads run their calls and any thread's poll of the rings
 * completes any thread's request.  Once the wait turns to sleeping, one
 * thread at a time sleeps in the transport (the WAIT ioctl or futex),
 * woken by incoming messages; the others wait on a condition variable.
 * A poll that did something wakes them all, and wakes the sleeper (a
 * WAKE to this rank), so that a request completed by another thread's
 * poll is seen at once.  The device keeps a WAKE that comes before the
 * WAIT (wake_pending), so none is lost; the fallback's futex does not,
 * and a wake just before the sleeper's FUTEX_WAIT would be missed:
 * there the sleeper's timeout is short (LM_MT_NAP_NS), which bounds
 * such a miss.
 *
 * Queries of what never changes once a handle exists (a communicator's
 * size and rank, a group's members, a datatype's size and extents)
 * do not take the lock at all: they run as liburcu readers
 * (lm_read_lock), and whatever frees a communicator, group or datatype
 * at MPI_THREAD_MULTIPLE defers the free() past a grace period
 * (lm_defer_free, urcu's call_rcu), so a reader that has seen a valid
 * magic number reads live memory until its section ends.  A helper
 * thread that only asks for its rank therefore neither waits for a
 * blocked call's poll nor revokes the owner's bias.
 */

/*
 * The read-side fast paths inline (liburcu's LGPL-compatible option),
 * except under ThreadSanitizer: inlined, liburcu's lock-free wakeup of
 * a waiting grace period would be instrumented as plain racing loads
 * and stores; out of line, in the uninstrumented library, it is not.
 */
#if !defined(__SANITIZE_THREAD__)
#define _LGPL_SOURCE
#endif
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>

#include "base/base.h"

#define LM_MT_NAP_NS	2000000		/* 2 ms */

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	__asm__ __volatile__("" ::: "memory")
#endif

/*
 * ThreadSanitizer does not see the ordering liburcu's grace periods
 * and queues give (in an uninstrumented library): thread.h's
 * lm_tsan_release and lm_tsan_acquire name it.
 */
#define tsan_release(p)	lm_tsan_release(p)
#define tsan_acquire(p)	lm_tsan_acquire(p)

__thread struct lm_lock_tls lm_lock_tls
	__attribute__((tls_model("initial-exec")));
struct lm_bias lm_bias;
/* This thread is registered with liburcu (until it exits). */
static __thread int rcu_known __attribute__((tls_model("initial-exec")));
static pthread_key_t rcu_key;
static pthread_once_t rcu_key_once = PTHREAD_ONCE_INIT;

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cv = PTHREAD_COND_INITIALIZER;
static int sleeper;	/* a thread sleeps in the transport */
static int waiters;	/* threads waiting on idle_cv */

/* A registered thread leaves liburcu's registry when it exits. */
static void rcu_forget(void *arg)
{
	(void)arg;
	urcu_memb_unregister_thread();
}

static void rcu_key_make(void)
{
	if (pthread_key_create(&rcu_key, rcu_forget))
		lm_fatal("pthread_key_create failed");
}

/* Readers and call_rcu() need the calling thread registered: once each. */
static void rcu_join(void)
{
	if (rcu_known)
		return;
	pthread_once(&rcu_key_once, rcu_key_make);
	urcu_memb_register_thread();
	pthread_setspecific(rcu_key, &rcu_known);
	rcu_known = 1;
}

static int membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

/* MPI_Init_thread granted MPI_THREAD_MULTIPLE: its thread owns the bias. */
void lm_mt_init(void)
{
	rcu_join();
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		return;		/* no bias: the mutex only */
	lm_lock_tls.bias = 1;
	__atomic_store_n(&lm_bias.on, 1, __ATOMIC_RELAXED);
}

/*
 * Called with the mutex held, by the first other thread to take the
 * lock: once it returns, the owner is out of its last bias hold and
 * will not take another.
 */
static void bias_revoke(void)
{
	__atomic_store_n(&lm_bias.on, 0, __ATOMIC_RELAXED);
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		lm_fatal("membarrier failed after it was registered");
	while (__atomic_load_n(&lm_bias.held, __ATOMIC_ACQUIRE))
		sched_yield();
}

/* The owner gives the bias up: revoked, or MPI is finalized. */
static void bias_leave(void)
{
	lm_bias_release();
	lm_lock_tls.bias = 0;
}

static void take(void)
{
	if (lm_lock_tls.bias) {
		if (lm_bias_hold())
			return;
		bias_leave();
	}
	pthread_mutex_lock(&big);
	if (__atomic_load_n(&lm_bias.on, __ATOMIC_RELAXED))
		bias_revoke();
}

static void drop(void)
{
	if (!lm_lock_tls.bias)
		pthread_mutex_unlock(&big);
	else if (lm.finalized)
		bias_leave();
	else
		lm_bias_release();
}

/* lm_lock's way when the owner finds its bias revoked, or has none. */
void lm_mt_take(void)
{
	if (lm_lock_tls.bias)
		bias_leave();	/* lm_lock set held and saw `on` clear */
	take();
}

/* lm_unlock_guard's way: the mutex, or the owner's last drop. */
void lm_mt_drop(void)
{
	drop();
}

/*
 * Readers and the frees they race with.  ThreadSanitizer cannot see a
 * grace period (membarrier, in uninstrumented liburcu), nor call_rcu's
 * queue: every reader releases rcu_seen as its section ends, every
 * deferred free releases its object when queued, and the callback
 * acquires both before it frees.
 */
static int rcu_seen;

void lm_rcu_enter(void)
{
	rcu_join();
	urcu_memb_read_lock();
}

void lm_rcu_leave(void)
{
	tsan_release(&rcu_seen);
	urcu_memb_read_unlock();
}

/*
 * Free what head is in (fn(head)) once no reader can still see it: at
 * MPI_THREAD_MULTIPLE after a grace period, by liburcu's call_rcu
 * thread.  The caller holds the library lock and has cleared the
 * object's magic number, so no new reader takes it for valid.
 */
void lm_defer_free(struct rcu_head *head, void (*fn)(struct rcu_head *head))
{
	if (lm.thread_level != MPI_THREAD_MULTIPLE) {
		fn(head);
		return;
	}
	rcu_join();
	tsan_release(head);
	urcu_memb_call_rcu(head, fn);
}

/* First line of a deferred free: order it after the readers (TSan). */
void lm_rcu_reclaim(struct rcu_head *head)
{
	tsan_acquire(&rcu_seen);
	tsan_acquire(head);
}

/* MPI_Finalize, lock given up: every deferred free has run. */
void lm_rcu_drain(void)
{
	rcu_join();
	urcu_memb_barrier();
}

static int held(void)
{
	return lm.thread_level == MPI_THREAD_MULTIPLE && lm_lock_tls.depth > 0;
}

/*
 * Spinning: let the other threads in between two polls, and every
 * yield_every polls give the CPU up (a thread that holds the lock may
 * be waiting for it).
 */
void lm_mt_relax(unsigned int poll, unsigned int yield_every)
{
	int h = held();

	if (h)
		drop();
	if (poll % yield_every == 0)
		sched_yield();
	else
		cpu_relax();
	if (h)
		take();
}

/* A poll did something: the threads that wait may have their request. */
void lm_mt_kick(void)
{
	if (waiters)
		pthread_cond_broadcast(&idle_cv);
	if (sleeper)
		lm.job.t->wake(&lm.job, lm.job.rank);
}

static void cv_wait(int64_t timeout_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += timeout_ns;
	while (ts.tv_nsec >= 1000000000) {
		ts.tv_nsec -= 1000000000;
		ts.tv_sec++;
	}
	waiters++;
	pthread_cond_timedwait(&idle_cv, &big, &ts);
	waiters--;
}

/* Nothing to do for a while: sleep until something may have happened. */
void lm_mt_sleep(int64_t timeout_ns)
{
	if (!held()) {
		lm.job.t->sleep(&lm.job, timeout_ns);
		return;
	}
	if (sleeper) {
		cv_wait(LM_MT_NAP_NS);
		return;
	}
	if (lm.job.t != &lm_transport_mpichan &&
	    (timeout_ns < 0 || timeout_ns > LM_MT_NAP_NS))
		timeout_ns = LM_MT_NAP_NS;
	sleeper = 1;
	drop();
	lm.job.t->sleep(&lm.job, timeout_ns);
	take();
	sleeper = 0;
	/* Another thread may sleep now; the next poll wakes the waiters. */
	if (waiters)
		pthread_cond_broadcast(&idle_cv);
}
