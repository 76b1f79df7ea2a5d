// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-fuzz: structure-aware random sequences over /dev/mpichan.
 *
 *   mpichan-fuzz [--seed N] [--iterations N] [--seconds S] [--workers N]
 *
 * The run is a series of rounds.  In each, the coordinator (this
 * process) creates a job and forks --workers worker processes (worker.c)
 * that attach as its ranks, create and attach jobs of their own, and
 * hammer every ioctl, mmap and poll path from several threads, while
 * the coordinator reads debugfs, maps the job read-only, closes the
 * owner handle and SIGKILLs workers at random moments.  Every answer
 * the kernel gives is checked against the documented errnos; a call
 * that does not return in time, or counters that are not back to zero
 * once everything is closed, fail the run.  Exit status 0: clean.
 *
 * Choices come from a splitmix64 generator per thread seeded from
 * --seed, the round and the thread, so a seed replays the same choices
 * (the interleaving of threads and processes is the scheduler's).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "fuzz.h"

struct fz_shared *fz;
uint64_t fz_seed;
int fz_owner_fd = -1;

const char *const fz_op_name[NOPS] = {
	[OP_OPEN] = "open", [OP_CLOSE] = "close", [OP_VERSION] = "version",
	[OP_CREATE] = "create", [OP_ATTACH] = "attach", [OP_WAIT] = "wait",
	[OP_WAKE] = "wake", [OP_FINISH] = "finish", [OP_SEND] = "send",
	[OP_RECV] = "recv", [OP_CANCEL] = "cancel", [OP_UNMAP] = "unmap",
	[OP_BADIOCTL] = "badioctl", [OP_BADARG] = "badarg", [OP_MMAP] = "mmap",
	[OP_MUNMAP] = "munmap", [OP_MPROTECT] = "mprotect",
	[OP_MREMAP] = "mremap", [OP_WINMAP] = "winmap",
	[OP_WINTOUCH] = "wintouch", [OP_TOUCH] = "touch", [OP_POLL] = "poll",
	[OP_DEBUGFS] = "debugfs", [OP_SCRIBBLE] = "scribble",
	[OP_RING] = "ring", [OP_SLEEP] = "sleep", [OP_CQ] = "cq",
	[OP_FORK] = "fork", [OP_KILL] = "kill", [OP_EXIT] = "exit",
	[OP_REGREG] = "region_reg", [OP_REGDEREG] = "region_dereg",
	[OP_REGCOPY] = "region_copy", [OP_REGMAP] = "region_map",
	[OP_REGQUERY] = "region_query", [OP_REGTOUCH] = "region_touch",
	[OP_REGMEM] = "region_memory",
};

int64_t fz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * FZ_SEC + ts.tv_nsec;
}

void fz_log(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "mpichan-fuzz: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(2, buf, n) < 0)
		n = 0;
}

void fz_fail(const char *fmt, ...)
{
	char buf[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fz_log("FAIL (seed %llu, round %llu, pid %d): %s",
	       (unsigned long long)fz_seed,
	       (unsigned long long)fz->round.number, getpid(), buf);
	__atomic_store_n(&fz->failed, 1, __ATOMIC_RELEASE);
}

int fz_result(enum fz_op op, int err, const int *allowed, const char *what)
{
	const int *a;

	if (err >= 0 && err < FZ_MAX_ERRNO)
		__atomic_fetch_add(&fz->count[op][err], 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&fz->other[op], 1, __ATOMIC_RELAXED);
	if (!err || !allowed)
		return 0;
	for (a = allowed; *a; a++)
		if (*a == err)
			return 0;
	fz_fail("%s: unexpected errno %d (%s)", what, err, strerror(err));
	return 1;
}

int fz_stats(struct fz_held *h)
{
	char line[128];
	FILE *f = fopen(FZ_DEBUGFS "/stats", "re");
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		n += sscanf(line, "jobs: %ld", &h->jobs);
		n += sscanf(line, "ranks: %ld", &h->ranks);
		n += sscanf(line, "ring_pages: %ld", &h->ring_pages);
		n += sscanf(line, "pinned_pages: %ld", &h->pinned);
		n += sscanf(line, "regions: %ld", &h->regions);
		n += sscanf(line, "region_maps: %ld", &h->region_maps);
	}
	fclose(f);
	return n == 6 ? 0 : -EBADMSG;
}

static int fz_held_none(const struct fz_held *h)
{
	return !h->jobs && !h->ranks && !h->ring_pages && !h->pinned &&
	       !h->regions && !h->region_maps;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: mpichan-fuzz [--seed N] [--iterations N] [--seconds S] [--workers N]\n"
"  --seed N        replay the run of seed N (default: a fresh one, printed)\n"
"  --iterations N  stop after about N operations\n"
"  --seconds S     stop after S seconds (default 10 when neither is given)\n"
"  --workers N     worker processes per round (default 4, at most %d)\n",
		FZ_MAX_WORKERS);
}

/* ---- the coordinator's own moves during a round ------------------- */

static void check_owner_view(int owner, const struct fz_round *r)
{
	struct mpichan_job_hdr *h;
	struct mpichan_wait w = { .timeout_ns = 0 };
	struct pollfd pfd = { .fd = owner, .events = POLLIN };
	size_t len = 4096 * 2;
	int err;

	h = mmap(NULL, len, PROT_READ, MAP_SHARED, owner, 0);
	if (h == MAP_FAILED) {
		fz_result(OP_MMAP, errno, NULL, "owner mmap");
		fz_fail("owner could not map its job read-only: %s", strerror(errno));
		return;
	}
	if (!r->hostile && (h->magic != MPICHAN_JOB_MAGIC || h->job_id != r->job_id ||
			    h->nranks != r->nranks || h->dead_count > r->nranks ||
			    h->finished_count > r->nranks))
		fz_fail("owner's view of job %llu: magic %x id %llu nranks %u dead %u finished %u",
			(unsigned long long)r->job_id, h->magic,
			(unsigned long long)h->job_id, h->nranks, h->dead_count,
			h->finished_count);
	munmap(h, len);
	fz_result(OP_MMAP, 0, NULL, "owner mmap");
	err = ioctl(owner, MPICHAN_IOC_WAIT, &w) ? errno : 0;
	if (err != ENOTCONN)
		fz_fail("WAIT on the owner fd: errno %d, want ENOTCONN", err);
	fz_result(OP_WAIT, err, NULL, "owner WAIT");
	if (poll(&pfd, 1, 0) != 1 || pfd.revents != POLLERR)
		fz_fail("poll on the owner fd: revents %#x, want POLLERR", pfd.revents);
	fz_result(OP_POLL, 0, NULL, "owner poll");
}

static void read_state(uint64_t id)
{
	char path[96], buf[4096];
	int fd, err = 0;

	snprintf(path, sizeof(path), FZ_DEBUGFS "/job-%llu/state",
		 (unsigned long long)id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	/* EIO: read while debugfs removes the job's files. */
	fz_result(OP_DEBUGFS, err, (const int[]){ ENOENT, EIO, 0 }, path);
}

static void dump_stacks(pid_t pid)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd),
		 "for t in /proc/%d/task/*; do echo \"$t:\"; cat $t/stack; done >&2",
		 pid);
	if (system(cmd))
		cmd[0] = 0;
}

/* One round; returns 0, or -1 when the run must stop. */
static int round_run(uint64_t number, int nworkers)
{
	static const uint32_t rb[] = { 0, 4096, 8192, 16384, 65536 };
	struct mpichan_job_create c;
	struct fz_rng rng;
	pid_t pids[FZ_MAX_WORKERS];
	int alive[FZ_MAX_WORKERS], killed[FZ_MAX_WORKERS];
	int i, status, left, owner;
	int64_t now, hang_at;

	fz_rng_init(&rng, number, 0xc0, 0xde);
	owner = open(MPICHAN_DEVICE, O_RDWR);
	if (owner < 0) {
		fz_fail("open %s: %s", MPICHAN_DEVICE, strerror(errno));
		return -1;
	}
	memset(&c, 0, sizeof(c));
	c.nranks = 1 + fz_below(&rng, 8);
	c.ring_bytes = rb[fz_below(&rng, 5)];
	if (ioctl(owner, MPICHAN_IOC_JOB_CREATE, &c)) {
		fz_fail("JOB_CREATE(%u ranks, %u bytes): %s", c.nranks, c.ring_bytes,
			strerror(errno));
		close(owner);
		return -1;
	}
	memset(&fz->round, 0, sizeof(fz->round));
	fz->round.number = number;
	fz->round.job_id = c.job_id;
	fz->round.secret[0] = c.secret[0];
	fz->round.secret[1] = c.secret[1];
	fz->round.nranks = c.nranks;
	fz->round.ring_bytes = c.ring_bytes;
	fz->round.hostile = fz_chance(&rng, 30);
	fz->round.hostile_worker = fz_below(&rng, nworkers);
	fz->round.nworkers = nworkers;
	now = fz_now();
	fz->round.end_ns = now + (int64_t)(300 + fz_below(&rng, 2700)) * FZ_MS;
	if (fz->round.end_ns > fz->deadline_ns)
		fz->round.end_ns = fz->deadline_ns;
	hang_at = fz->round.end_ns + 2 * FZ_SLACK_NS + 30 * FZ_SEC;
	/* A coordinator stuck in the kernel is a failure too. */
	alarm((unsigned int)((hang_at - now) / FZ_SEC) + 60);

	fz_owner_fd = owner;
	for (i = 0; i < nworkers; i++) {
		fflush(NULL);
		pids[i] = fork();
		if (pids[i] < 0) {
			fz_fail("fork: %s", strerror(errno));
			nworkers = i;
			break;
		}
		if (!pids[i])
			fz_worker(i);
		alive[i] = 1;
		killed[i] = 0;
	}
	left = nworkers;

	/* Watch, meddle, and reap. */
	while (left) {
		now = fz_now();
		if (now > hang_at) {
			for (i = 0; i < nworkers; i++) {
				if (!alive[i])
					continue;
				fz_fail("worker %d (pid %d) has not exited %lld s after its round ended",
					i, pids[i],
					(long long)((now - fz->round.end_ns) / FZ_SEC));
				dump_stacks(pids[i]);
				kill(pids[i], SIGKILL);
			}
			return -1;
		}
		if (now < fz->round.end_ns && !fz->failed) {
			switch (fz_below(&rng, 20)) {
			case 0:
				i = fz_below(&rng, nworkers);
				if (alive[i] && !killed[i] && fz_chance(&rng, 40)) {
					kill(pids[i], SIGKILL);
					killed[i] = 1;
					fz_result(OP_KILL, 0, NULL, "kill");
				}
				break;
			case 1:
				if (owner >= 0 && fz_chance(&rng, 30)) {
					close(owner);
					owner = -1;
				}
				break;
			case 2: case 3:
				if (owner >= 0)
					check_owner_view(owner, &fz->round);
				break;
			case 4: case 5:
				read_state(fz->round.job_id);
				break;
			}
		} else if (owner >= 0) {
			close(owner);
			owner = -1;
		}
		for (i = 0; i < nworkers; i++) {
			pid_t p;

			if (!alive[i])
				continue;
			p = waitpid(pids[i], &status, WNOHANG);
			if (p != pids[i])
				continue;
			alive[i] = 0;
			left--;
			if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && killed[i])
				continue;
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				continue;
			if (WIFEXITED(status) && fz->failed)
				continue;	/* it said why */
			fz_fail("worker %d (pid %d): %s %d", i, pids[i],
				WIFSIGNALED(status) ? "killed by signal" : "exit status",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		}
		if (left)
			usleep(5000 + fz_below(&rng, 20000));
	}
	if (owner >= 0)
		close(owner);
	alarm(0);
	return 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	fz_log("FAIL (seed %llu, round %llu): the coordinator hangs",
	       (unsigned long long)fz_seed, (unsigned long long)fz->round.number);
	_exit(1);
}

static void summary(uint64_t rounds, int64_t start)
{
	static char line[16384];
	size_t n;
	int op, e;

	n = snprintf(line, sizeof(line),
		     "mpichan-fuzz: seed %llu: %llu ops in %llu rounds, %.1f s, %s:",
		     (unsigned long long)fz_seed, (unsigned long long)fz->ops,
		     (unsigned long long)rounds, (double)(fz_now() - start) / FZ_SEC,
		     fz->failed ? "FAILED" : "clean");
	for (op = 0; op < NOPS && n < sizeof(line) - 64; op++) {
		const char *sep = " ";

		for (e = 0; e < FZ_MAX_ERRNO && n < sizeof(line) - 64; e++) {
			const char *name = e ? strerrorname_np(e) : "ok";

			if (!fz->count[op][e])
				continue;
			if (sep[0] == ' ')
				n += snprintf(line + n, sizeof(line) - n, " %s ",
					      fz_op_name[op]);
			n += snprintf(line + n, sizeof(line) - n, "%s%s=%llu",
				      sep[0] == ' ' ? "" : sep, name ? name : "E?",
				      (unsigned long long)fz->count[op][e]);
			sep = ",";
		}
		if (fz->other[op])
			n += snprintf(line + n, sizeof(line) - n, "%sother=%llu",
				      sep[0] == ' ' ? " " : sep,
				      (unsigned long long)fz->other[op]);
	}
	printf("%s\n", line);
}

int main(int argc, char **argv)
{
	uint64_t iterations = 0, rounds = 0;
	struct fz_held h = { -1, -1, -1, -1, -1, -1 };
	long seconds = -1;
	int workers = 4, i, ret;
	int seeded = 0;
	int64_t start, settle;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		if (!v) {
			usage(stderr);
			return 2;
		}
		if (!strcmp(a, "--seed")) {
			fz_seed = strtoull(v, NULL, 0);
			seeded = 1;
		} else if (!strcmp(a, "--iterations")) {
			iterations = strtoull(v, NULL, 0);
		} else if (!strcmp(a, "--seconds")) {
			seconds = strtol(v, NULL, 0);
		} else if (!strcmp(a, "--workers")) {
			workers = atoi(v);
		} else {
			usage(stderr);
			return 2;
		}
		i++;
	}
	if (workers < 1 || workers > FZ_MAX_WORKERS || seconds == 0) {
		usage(stderr);
		return 2;
	}
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		fz_seed = fz_mix((uint64_t)ts.tv_sec * FZ_SEC + ts.tv_nsec) ^ getpid();
		fz_seed %= 1000000000000ULL;	/* short enough to type */
	}
	printf("mpichan-fuzz: seed %llu\n", (unsigned long long)fz_seed);
	fflush(stdout);
	if (access(MPICHAN_DEVICE, F_OK)) {
		fprintf(stderr, "mpichan-fuzz: %s absent: is mpichan.ko loaded?\n",
			MPICHAN_DEVICE);
		return 4;
	}

	fz = mmap(NULL, sizeof(*fz), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz == MAP_FAILED) {
		perror("mpichan-fuzz: mmap");
		return 1;
	}
	if (seconds < 0 && !iterations)
		seconds = 10;
	start = fz_now();
	fz->iterations = iterations;
	fz->deadline_ns = seconds > 0 ? start + seconds * FZ_SEC : INT64_MAX;
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);

	while (!fz->failed && fz_now() < fz->deadline_ns &&
	       (!iterations || fz->ops < iterations)) {
		if (round_run(rounds, workers))
			break;
		rounds++;
	}

	/* Everything is closed: the module must be back to nothing. */
	settle = fz_now() + 10 * FZ_SEC;
	do {
		ret = fz_stats(&h);
		if (ret || fz_held_none(&h))
			break;
		usleep(100 * 1000);
	} while (fz_now() < settle);
	if (ret == -ENOENT || ret == -EACCES)
		fz_log("cannot read %s/stats (%s): leak check skipped", FZ_DEBUGFS,
		       strerror(-ret));
	else if (ret)
		fz_fail("reading %s/stats: %s", FZ_DEBUGFS, strerror(-ret));
	else if (!fz_held_none(&h))
		fz_fail("after the run: jobs: %ld ranks: %ld ring_pages: %ld pinned_pages: %ld regions: %ld region_maps: %ld",
			h.jobs, h.ranks, h.ring_pages, h.pinned, h.regions,
			h.region_maps);
	summary(rounds, start);
	return fz->failed ? 1 : 0;
}
