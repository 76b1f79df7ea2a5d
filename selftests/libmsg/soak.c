// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain run-by=tools/test/soak
/*
 * The soak: the mixed traffic of traffic.h (point-to-point eager and
 * rendezvous, wildcards, blocking and nonblocking collectives, every
 * byte checked), iteration after iteration for a given time.  In one
 * iteration of four a rank chosen from the seed sleeps 1-30 ms first,
 * so the others block in their waits long enough to sleep in the
 * kernel and be woken.  Memory must stay flat: each rank's resident
 * set after the first iterations (warm-up: buffers, caches, the pin
 * cache) is compared with the one at the end; growth beyond 4 MiB (or
 * 10%) fails.  Over /dev/mpichan rank 0 also reports the module's
 * counters before and after.
 *
 *   soak --seconds S [--seed N]
 */
#include <time.h>
#include "traffic.h"

#define WARMUP		10
#define SLACK_KIB	4096

static void on_error(int err, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int len;

	MPI_Error_string(err, s, &len);
	CHECK(0, "iteration %u after %s: %s: %s", tr.iter,
	      tr_point_names[tr.point], what, s);
}

/* A field of /proc/self/status in KiB. */
static long status_kib(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

static void module_stats(const char *when)
{
	char line[128];
	FILE *f = fopen("/sys/kernel/debug/mpichan/stats", "r");

	if (!f)
		return;
	printf("# module stats %s:", when);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strstr(line, "pages") || strstr(line, "jobs") ||
		    strstr(line, "ranks") || strstr(line, "cache_entries"))
			printf(" %s;", line);
	}
	printf("\n");
	fclose(f);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	double seconds = 10, t0, now;
	long rss0 = 0, rss1, hwm, mine[3], *all = NULL;
	int i, go = 1, bad = 0;
	uint64_t h, in[2], sum[2];

	t_init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else
			CHECK(0, "usage: soak --seconds S [--seed N]");
	}
	tr.seed = seed;
	tr.max = 1 << 20;
	tr.small = 64 << 10;
	tr.nmsg = 2;
	tr.error = on_error;
	tr_setup();
	if (t_rank == 0) {
		printf("# soak: %d ranks, %.0f s, seed %llu\n", t_size, seconds,
		       seed);
		module_stats("at start");
		fflush(stdout);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (tr.iter = 0; go; tr.iter++) {
		h = tr_mix(seed ^ ((uint64_t)tr.iter << 20));
		if ((h & 3) == 0 && (int)((h >> 8) % (uint64_t)t_size) == t_rank)
			sleep_ms(1 + (unsigned int)((h >> 16) % 30));
		tr_iteration();
		if (tr.iter + 1 == WARMUP)
			rss0 = status_kib("VmRSS");
		/* Rank 0's clock decides, so every rank stops together. */
		now = MPI_Wtime();
		go = tr.iter + 1 < WARMUP + 1 || now - t0 < seconds;
		MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	rss1 = status_kib("VmRSS");
	hwm = status_kib("VmHWM");
	mine[0] = rss0;
	mine[1] = rss1;
	mine[2] = hwm;
	if (t_rank == 0)
		all = malloc(3 * sizeof(long) * (size_t)t_size);
	MPI_Gather(mine, 3, MPI_LONG, all, 3, MPI_LONG, 0, MPI_COMM_WORLD);
	in[0] = tr.msgs;
	in[1] = tr.bytes;
	MPI_Reduce(in, sum, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (t_rank == 0) {
		printf("# soak: %u iterations in %.1f s, %llu messages and blocks, %llu bytes checked\n",
		       tr.iter, MPI_Wtime() - t0, (unsigned long long)sum[0],
		       (unsigned long long)sum[1]);
		for (i = 0; i < t_size; i++) {
			long a = all[3 * i], b = all[3 * i + 1];
			int grew = b > a + SLACK_KIB && b > a + a / 10;

			printf("# rank %d: VmRSS %ld KiB after warm-up, %ld KiB at the end, VmHWM %ld KiB%s\n",
			       i, a, b, all[3 * i + 2], grew ? "  GREW" : "");
			bad |= grew;
		}
		free(all);
		fflush(stdout);
		CHECK(!bad, "resident memory grew during the soak");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (t_rank == 0)
		module_stats("at the end (the job still holds its rings)");
	return t_done();
}
