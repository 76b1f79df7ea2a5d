// SPDX-License-Identifier: MIT
/*
 * MPI_THREAD_MULTIPLE: one lock over the library's state.
 *
 * Every MPI call that touches shared state (requests, matching queues,
 * rings, communicators, datatypes' reference counts, the context id
 * mask) holds the library lock (LM_GUARD in lm.h).  It is taken only
 * when MPI_Init_thread granted MPI_THREAD_MULTIPLE: the lower levels
 * test lm.thread_level and go on, without an atomic operation.  A call
 * made from inside another (an error handler, a collective built on
 * point-to-point) nests: a per-thread depth counts the holds.
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
 */

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "lm.h"

#define LM_MT_NAP_NS	2000000		/* 2 ms */

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	__asm__ __volatile__("" ::: "memory")
#endif

__thread int lm_lock_depth __attribute__((tls_model("initial-exec")));

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cv = PTHREAD_COND_INITIALIZER;
static int sleeper;	/* a thread sleeps in the transport */
static int waiters;	/* threads waiting on idle_cv */

void lm_mt_enter(void)
{
	if (lm_lock_depth++ == 0)
		pthread_mutex_lock(&big);
}

void lm_mt_leave(void)
{
	if (--lm_lock_depth == 0)
		pthread_mutex_unlock(&big);
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
	if (held())
		pthread_mutex_unlock(&big);
	if (poll % yield_every == 0)
		sched_yield();
	else
		cpu_relax();
	if (held())
		pthread_mutex_lock(&big);
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
	pthread_mutex_unlock(&big);
	lm.job.t->sleep(&lm.job, timeout_ns);
	pthread_mutex_lock(&big);
	sleeper = 0;
	/* Another thread may sleep now; the next poll wakes the waiters. */
	if (waiters)
		pthread_cond_broadcast(&idle_cv);
}
