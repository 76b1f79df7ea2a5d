/* SPDX-License-Identifier: MIT */
/*
 * flag.h: one thread raises a flag, another waits for it, up to
 * FLAG_WAIT_S seconds (the multi-threaded tests: readers.c,
 * grequest.c).  A wait that times out says a thread was held up, for
 * instance by a lock it should not have needed; copy_holds_lock holds
 * that lock for such a test.
 */
#ifndef LIBMSG_FLAG_H
#define LIBMSG_FLAG_H

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "test.h"

#define FLAG_WAIT_S	10

static pthread_mutex_t flag_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flag_cv = PTHREAD_COND_INITIALIZER;

/* Wait for *flag, up to FLAG_WAIT_S seconds: did it come? */
static inline int wait_for(int *flag)
{
	struct timespec ts;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += FLAG_WAIT_S;
	pthread_mutex_lock(&flag_mu);
	while (!*flag && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&flag_cv, &flag_mu, &ts);
	rc = *flag;
	pthread_mutex_unlock(&flag_mu);
	return rc;
}

static inline void raise_flag(int *flag)
{
	pthread_mutex_lock(&flag_mu);
	*flag = 1;
	pthread_cond_broadcast(&flag_cv);
	pthread_mutex_unlock(&flag_mu);
}

/*
 * The library lock held on purpose: MPI_Comm_dup of a communicator that
 * has an attribute of a keyval made with copy_holds_lock (its extra
 * state a struct held_lock) runs the callback with the lock held.  The
 * callback raises go, then waits for done; in_time says whether done
 * came before the wait timed out.
 */
struct held_lock {
	int go, done, in_time;
};

static inline int copy_holds_lock(MPI_Comm comm, int keyval, void *extra,
				  void *in, void *out, int *flag)
{
	struct held_lock *h = extra;

	(void)comm; (void)keyval; (void)in; (void)out;
	*flag = 0;
	raise_flag(&h->go);
	h->in_time = wait_for(&h->done);
	return MPI_SUCCESS;
}

#endif
