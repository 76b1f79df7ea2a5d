// SPDX-License-Identifier: MIT
/*
 * lockcost: what taking and dropping the library lock costs one thread
 * with nobody else around, the way libmsg does it at
 * MPI_THREAD_MULTIPLE (libmsg/src/thread.c):
 *   - a pthread mutex lock and unlock (every thread, once the bias is
 *     gone);
 *   - a liburcu-memb read-side lock and unlock (the owner of the bias);
 *   - a thread-local counter up and down (the nesting depth alone).
 * Nanoseconds per pair, best of 5 runs.
 *
 *   lockcost [ITERS]
 */
#define _LGPL_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <urcu/urcu-memb.h>

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static __thread int depth __attribute__((tls_model("initial-exec")));
static volatile int biased = 1;

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static double mutex_pair(long n)
{
	double t = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&big);
		pthread_mutex_unlock(&big);
	}
	return (now_ns() - t) / n;
}

static double rcu_pair(long n)
{
	double t = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		urcu_memb_read_lock();
		if (!biased)
			abort();
		urcu_memb_read_unlock();
	}
	return (now_ns() - t) / n;
}

static double depth_pair(long n)
{
	double t = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		depth++;
		__asm__ __volatile__("" ::: "memory");
		depth--;
		__asm__ __volatile__("" ::: "memory");
	}
	return (now_ns() - t) / n;
}

static void keep_min(double *m, double v)
{
	if (v < *m)
		*m = v;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	double m = 1e9, r = 1e9, d = 1e9;
	int i;

	if (n <= 0) {
		fprintf(stderr, "usage: lockcost [ITERS]\n");
		return 2;
	}
	urcu_memb_register_thread();
	for (i = 0; i < 5; i++) {
		keep_min(&m, mutex_pair(n));
		keep_min(&r, rcu_pair(n));
		keep_min(&d, depth_pair(n));
	}
	urcu_memb_unregister_thread();
	printf("ns per lock+unlock: mutex %.1f  urcu-memb read side %.1f  "
	       "depth counter %.1f\n", m, r, d);
	return 0;
}
