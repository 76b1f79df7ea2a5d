// SPDX-License-Identifier: MIT
/*
 * cswitch: what one context switch costs on this machine, the floor
 * under any collective with more ranks than CPUs (every rank has to
 * run once per collective).  Two processes pinned to CPU 0:
 *   - pass a byte back and forth through two pipes (a sleep and a
 *     wake-up each way: two switches per round trip);
 *   - call sched_yield() in turn (one switch per call).
 *
 *   cswitch [ITERS]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double pipes(int n)
{
	int a[2], b[2], i;
	char c = 0;
	double t0, t;

	if (pipe(a) || pipe(b))
		exit(1);
	if (fork() == 0) {
		for (i = 0; i < n; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = now_us();
	for (i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			exit(1);
	t = now_us() - t0;
	wait(NULL);
	return t / n;
}

static double yields(int n)
{
	double t0, t;
	int i;

	if (fork() == 0) {
		for (i = 0; i < n; i++)
			sched_yield();
		_exit(0);
	}
	t0 = now_us();
	for (i = 0; i < n; i++)
		sched_yield();
	wait(NULL);
	t = now_us() - t0;
	return t / (2.0 * n);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	cpu_set_t set;

	if (n < 1)
		n = 1;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("cswitch: sched_setaffinity");
	printf("pipe round trip, two processes on CPU 0: %.2f us (two switches)\n",
	       pipes(n));
	printf("sched_yield in turn, two processes on CPU 0: %.2f us per switch\n",
	       yields(n));
	return 0;
}
