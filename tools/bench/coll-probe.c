// SPDX-License-Identifier: MIT
/*
 * coll-probe: two of the parameters of libmsg's collective cost models
 * (libmsg/src/coll/coll_cost.h) that no other benchmark here gives,
 * printed as lines of MPICHAN_COLL_PARAMS's file (tools/bench/coll-params
 * writes the whole file):
 *   gamma_ns     a byte reduced: dst[i] += src[i] over 1 MiB of doubles,
 *                the loop MPI_SUM on MPI_DOUBLE runs (best of 20)
 *   line_ns      a cache line handed between two threads in turn, one
 *                on CPU 0, one on the next CPU that shares its last-level
 *                cache (half the round trip; the best of 200 batches
 *                of 1000, so that a loaded machine's preemptions drop out)
 *   line_far_ns  the same with a CPU that does not share it, if any
 *
 *   coll-probe
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS	200000
#define BATCH	1000

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static volatile int flag __attribute__((aligned(64)));

static void *pong(void *arg)
{
	int i;

	pin(*(int *)arg);
	for (i = 0; i < ROUNDS; i++) {
		while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) != 2 * i + 1)
			;
		__atomic_store_n(&flag, 2 * i + 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* ns per handoff between CPU 0 and cpu. */
static double handoff(int cpu)
{
	pthread_t t;
	double t0, best = 1e9;
	int i;

	flag = 0;
	pin(0);
	if (pthread_create(&t, NULL, pong, &cpu))
		return -1;
	t0 = now();
	for (i = 0; i < ROUNDS; i++) {
		__atomic_store_n(&flag, 2 * i + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) != 2 * i + 2)
			;
		if (i % BATCH == BATCH - 1) {
			if (now() - t0 < best)
				best = now() - t0;
			t0 = now();
		}
	}
	pthread_join(t, NULL);
	return best / BATCH / 2 * 1e9;
}

/* CPUs in CPU 0's largest shared cache, as a mask over 1024 CPUs. */
static void llc(unsigned char *in)
{
	char path[96], buf[512], *s;
	int idx, a, b, best = 0, n;
	unsigned char cur[1024];
	FILE *f;

	memset(in, 0, 1024);
	in[0] = 1;
	for (idx = 0; idx < 8; idx++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", idx);
		f = fopen(path, "r");
		if (!f)
			break;
		s = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (!s)
			continue;
		memset(cur, 0, sizeof(cur));
		for (n = 0;;) {
			a = (int)strtol(s, &s, 10);
			b = *s == '-' ? (int)strtol(s + 1, &s, 10) : a;
			for (; a <= b && a < 1024; a++, n++)
				cur[a] = 1;
			if (*s != ',')
				break;
			s++;
		}
		if (n > best) {
			best = n;
			memcpy(in, cur, sizeof(cur));
		}
	}
}

int main(void)
{
	size_t n = (1 << 20) / sizeof(double), i;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	double t, best = 1e9, sum = 0;
	unsigned char in[1024];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu, r, near = -1, far = -1;

	if (!a || !b)
		return 1;
	for (i = 0; i < n; i++) {
		a[i] = (double)i;
		b[i] = 1;
	}
	for (r = 0; r < 20; r++) {
		t = now();
		for (i = 0; i < n; i++)
			b[i] += a[i];
		t = now() - t;
		if (t < best)
			best = t;
	}
	for (i = 0; i < n; i += 4096)
		sum += b[i];
	printf("# coll-probe on %ld CPUs (checksum %g)\n", ncpu, sum);
	printf("gamma_ns %.4f\n", best / (double)(n * sizeof(double)) * 1e9);
	llc(in);
	for (cpu = 1; cpu < ncpu && cpu < 1024; cpu++) {
		if (in[cpu] && near < 0)
			near = cpu;
		if (!in[cpu] && far < 0)
			far = cpu;
	}
	if (near > 0)
		printf("line_ns %.1f\n", handoff(near));
	if (far > 0)
		printf("line_far_ns %.1f\n", handoff(far));
	return 0;
}
