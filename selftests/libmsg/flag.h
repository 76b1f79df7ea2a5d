/* SPDX-License-Identifier: MIT */
/*
 * flag.h: one thread raises a flag, another waits for it, up to
 * FLAG_WAIT_S seconds (the multi-threaded tests: readers.c,
 * grequest.c).  A wait that times out says a thread was held up, for
 * instance by a lock it should not have needed.
 */
#ifndef LIBMSG_FLAG_H
#define LIBMSG_FLAG_H

#include <errno.h>
#include <pthread.h>
#include <time.h>

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

#endif
