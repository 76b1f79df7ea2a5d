// SPDX-License-Identifier: MIT
/*
 * MPI_THREAD_MULTIPLE: one lock over the library's state, biased to
 * the thread that initialised MPI.
 *
 * Every MPI call that touches shared state (requests, matching queues,
 * rings, communicators, datatypes' reference counts, the context id
 * mask) holds the library lock (LM_GUARD in lm.h).  It is taken only
 * when MPI_Init_thread granted MPI_THREAD_MULTIPLE: the lower levels
 * test lm.thread_level and go on, without an atomic operation.  A call
 * made from inside another (an error handler, a collective built on
 * point-to-point) nests: a per-thread depth counts the holds.
 *
 * Most programs that ask for MPI_THREAD_MULTIPLE make most of their
 * calls from one thread, and an uncontended mutex (two atomic
 * operations a call) made a ping-pong 26% slower than at
 * MPI_THREAD_SINGLE in the VM.  So the lock starts out biased to the
 * initialising thread: that thread "holds" it by being inside a
 * liburcu read-side critical section (the membarrier flavour: a
 * thread-local counter and a compiler barrier, no atomic operation)
 * in which it sees `biased` set.  The first call from any other
 * thread takes the mutex, clears `biased` and waits for a grace
 * period: once synchronize_rcu() returns, the owner has left the
 * section it was in and will see `biased` clear at its next take, so
 * from then on every thread, the owner too, uses the mutex.  The
 * owner leaves its section wherever the mutex would be given up (each
 * lm_mt_relax and lm_mt_sleep), so a revoking thread waits at most
 * one poll, never for the owner's blocking call to end.
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
 * blocked call's poll nor revokes the owner's bias.  A reader never
 * waits for the mutex inside its section: a thread revoking the bias
 * holds the mutex while it waits for a grace period.
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
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <urcu/urcu-memb.h>

#include "lm.h"

#define LM_MT_NAP_NS	2000000		/* 2 ms */

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	__asm__ __volatile__("" ::: "memory")
#endif

/*
 * ThreadSanitizer does not see the ordering a grace period gives (the
 * membarrier system call, in an uninstrumented library): tell it that
 * what the owner did in its section comes before what the revoking
 * thread does after synchronize_rcu() (lm_tsan_release, lm.h).
 */
#define tsan_release(p)	lm_tsan_release(p)
#define tsan_acquire(p)	lm_tsan_acquire(p)

__thread int lm_lock_depth __attribute__((tls_model("initial-exec")));
/*
 * This thread is the owner and has not seen the bias revoked: while it
 * holds the lock, it holds it in a read-side section, not the mutex.
 */
static __thread int bias_mine __attribute__((tls_model("initial-exec")));
/* This thread is registered with liburcu (until it exits). */
static __thread int rcu_known __attribute__((tls_model("initial-exec")));
static pthread_key_t rcu_key;
static pthread_once_t rcu_key_once = PTHREAD_ONCE_INIT;

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cv = PTHREAD_COND_INITIALIZER;
static int biased;	/* the owner may hold the lock without the mutex */
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

/* MPI_Init_thread granted MPI_THREAD_MULTIPLE: its thread owns the bias. */
void lm_mt_init(void)
{
	rcu_join();
	bias_mine = 1;
	__atomic_store_n(&biased, 1, __ATOMIC_RELAXED);
}

/* The owner saw the bias revoked, or MPI is finalized. */
static void bias_give_up(void)
{
	bias_mine = 0;
}

/* Called with the mutex held, by the first other thread to take the lock. */
static void bias_revoke(void)
{
	__atomic_store_n(&biased, 0, __ATOMIC_RELAXED);
	urcu_memb_synchronize_rcu();
	tsan_acquire(&biased);
}

static void take(void)
{
	if (bias_mine) {
		urcu_memb_read_lock();
		if (__atomic_load_n(&biased, __ATOMIC_RELAXED))
			return;
		urcu_memb_read_unlock();
		bias_give_up();
	}
	pthread_mutex_lock(&big);
	if (__atomic_load_n(&biased, __ATOMIC_RELAXED))
		bias_revoke();
}

static void drop(void)
{
	if (bias_mine) {
		tsan_release(&biased);
		urcu_memb_read_unlock();
		if (lm.finalized)
			bias_give_up();
		return;
	}
	pthread_mutex_unlock(&big);
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

void lm_mt_enter(void)
{
	if (lm_lock_depth++ == 0)
		take();
}

void lm_mt_leave(void)
{
	if (--lm_lock_depth == 0)
		drop();
}

static int held(void)
{
	return lm.thread_level == MPI_THREAD_MULTIPLE && lm_lock_depth > 0;
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
