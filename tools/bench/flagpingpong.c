// SPDX-License-Identifier: MIT
/*
 * flagpingpong: the floor under pingpong.  Two processes share an
 * anonymous MAP_SHARED mapping; no device, no system call on the path.
 * For every size rank 0 copies the payload from a private buffer into
 * its shared slot and publishes a sequence number with a release store;
 * rank 1 spins on it with acquire loads, copies the payload out into a
 * private buffer and answers the same way.  Flag and data of each
 * direction live on their own cache lines.  Half the mean round trip is
 * printed, in the same format as pingpong's.
 *
 * With -m futex the receiver does not spin: whenever the flag is not
 * there yet it sleeps in FUTEX_WAIT on it, and the sender calls
 * FUTEX_WAKE after every store.  That is the floor of a sleeping
 * receiver: the kernel's own wake-up path, nothing else.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES 64
#define PROG "flagpingpong"
#define LINE 64

struct slot {
	uint32_t seq __attribute__((aligned(LINE)));
	unsigned char data[] __attribute__((aligned(LINE)));
};

static long iters = 10000, warmup = -1;
static int pin = 1, use_futex, nsizes;
static uint32_t sizes[MAX_SIZES], max_size;

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [-m spin|futex] [-s SIZES] [-i ITERS] [-w WARMUP] [-P]\n"
"  -m MODE   receivers spin (default) or sleep in FUTEX_WAIT\n"
"  -s SIZES  comma-separated sizes in bytes (default 8)\n"
"  -i ITERS  timed round trips per size (default 10000)\n"
"  -w N      untimed round trips before them (default ITERS/10)\n"
"  -P        do not pin rank r to CPU r\n");
}

static int parse_sizes(const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *tok, *end;
	unsigned long v;

	if (!copy)
		return -1;
	nsizes = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		errno = 0;
		v = strtoul(tok, &end, 0);
		if (nsizes == MAX_SIZES || errno || *end || end == tok ||
		    v > (1UL << 30)) {
			free(copy);
			return -1;
		}
		sizes[nsizes++] = (uint32_t)v;
	}
	free(copy);
	return nsizes ? 0 : -1;
}

static void pin_to(int cpu)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu % n, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		fprintf(stderr, PROG ": sched_setaffinity: %s\n", strerror(errno));
}

static void wait_for(uint32_t *flag, uint32_t seq)
{
	uint32_t v;

	while ((v = __atomic_load_n(flag, __ATOMIC_ACQUIRE)) != seq)
		if (use_futex)
			syscall(SYS_futex, flag, FUTEX_WAIT, v, NULL, NULL, 0);
}

static void publish(uint32_t *flag, uint32_t seq)
{
	__atomic_store_n(flag, seq, __ATOMIC_RELEASE);
	if (use_futex)
		syscall(SYS_futex, flag, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int run_rank(struct slot *mine, struct slot *theirs, int rank)
{
	unsigned char *sbuf, *rbuf;
	uint32_t seq = 0;
	double t0 = 0, t1;
	uint32_t size;
	long i, total = warmup + iters;
	int k;

	if (pin)
		pin_to(rank);
	sbuf = malloc(max_size ? max_size : 1);
	rbuf = malloc(max_size ? max_size : 1);
	if (!sbuf || !rbuf)
		return 1;
	memset(sbuf, 0xa5 + rank, max_size);
	memset(rbuf, 0, max_size);
	if (rank == 0) {
		printf("# bare shared-memory flag ping-pong, two processes, "
		       "receivers %s (copy in, flag, copy out)\n",
		       use_futex ? "sleep in FUTEX_WAIT, senders FUTEX_WAKE" :
		       "spin");
		printf("# iterations %ld, warm-up %ld, pinned %s\n", iters,
		       warmup, pin ? "yes" : "no");
		printf("# %-10s %14s %10s\n", "size_B", "oneway_us", "iters");
		fflush(stdout);
	}
	for (k = 0; k < nsizes; k++) {
		size = sizes[k];
		for (i = 0; i < total; i++) {
			if (i == warmup)
				t0 = now_us();
			seq++;
			if (rank == 0) {
				memcpy(mine->data, sbuf, size);
				publish(&mine->seq, seq);
				wait_for(&theirs->seq, seq);
				memcpy(rbuf, theirs->data, size);
			} else {
				wait_for(&theirs->seq, seq);
				memcpy(rbuf, theirs->data, size);
				memcpy(mine->data, sbuf, size);
				publish(&mine->seq, seq);
			}
		}
		t1 = now_us();
		if (rank == 0) {
			printf("  %-10u %14.3f %10ld\n", size,
			       (t1 - t0) / (2.0 * (double)iters), iters);
			fflush(stdout);
		}
	}
	free(sbuf);
	free(rbuf);
	return 0;
}

int main(int argc, char **argv)
{
	size_t slot_bytes, map_bytes;
	struct slot *s0, *s1;
	int c, k, status, rc;
	unsigned char *map;
	pid_t child;
	char *end;

	sizes[0] = 8;
	nsizes = 1;
	while ((c = getopt(argc, argv, "m:s:i:w:Ph")) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "spin"))
				use_futex = 0;
			else if (!strcmp(optarg, "futex"))
				use_futex = 1;
			else
				goto bad;
			break;
		case 's':
			if (parse_sizes(optarg))
				goto bad;
			break;
		case 'i':
			iters = strtol(optarg, &end, 0);
			if (*end || iters < 1)
				goto bad;
			break;
		case 'w':
			warmup = strtol(optarg, &end, 0);
			if (*end || warmup < 0)
				goto bad;
			break;
		case 'P':
			pin = 0;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (warmup < 0)
		warmup = iters / 10;
	for (k = 0; k < nsizes; k++)
		if (sizes[k] > max_size)
			max_size = sizes[k];

	slot_bytes = (sizeof(struct slot) + max_size + 4095) & ~(size_t)4095;
	map_bytes = 2 * slot_bytes;
	map = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, PROG ": mmap: %s\n", strerror(errno));
		return 1;
	}
	s0 = (struct slot *)map;		/* written by rank 0 */
	s1 = (struct slot *)(map + slot_bytes);	/* written by rank 1 */

	fflush(stdout);
	child = fork();
	if (child < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0)
		_exit(run_rank(s1, s0, 1));
	rc = run_rank(s0, s1, 0);
	if (rc)
		kill(child, SIGTERM);
	if (waitpid(child, &status, 0) < 0) {
		fprintf(stderr, PROG ": waitpid: %s\n", strerror(errno));
		return 1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, PROG ": rank 1 failed (status 0x%x)\n", status);
		rc = 1;
	}
	munmap(map, map_bytes);
	return rc;
bad:
	usage(stderr);
	return 2;
}
