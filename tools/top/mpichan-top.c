// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-top: every mpichan job on the machine, live, like top(1): per
 * rank its state, the MPI call it is blocked in and what that waits for,
 * its ring fill, its transfers queued and the bytes it moved; and, when
 * a job made no progress between two looks, why: the cycle of ranks
 * that wait for each other, or the rank everyone waits on.
 *
 * Where it looks (read-only, never touching a job):
 *   - /sys/kernel/debug/mpichan/job-<id>/state, the module's view of
 *     each job over /dev/mpichan (Documentation/debugfs.md), whose
 *     "wait" lines are the ranks' own reports of their blocked calls
 *     (the rank control block's wait_* fields, uapi/linux/mpichan.h);
 *   - jobs over libmsg's fallback (no module): their memory is a memfd
 *     ("mpichan-job") every rank holds; it is found through
 *     /proc/<pid>/fd, opened read-only and mapped read-only, and read
 *     as the module would (rank control blocks, ring heads and tails).
 *     The fallback has no module, so no transfer queues and no bytes
 *     moved by the kernel there.
 * Permissions are debugfs's: a job is shown to its user or to a holder
 * of CAP_SYS_ADMIN.  The kernel enforces it for debugfs; for memfds this
 * program does (libcap), and /proc's own rules apply besides.
 *
 *   mpichan-top [--once] [--json] [--interval S] [--iterations N]
 *               [--job ID] [--source auto|debugfs|memfd] [--debugfs DIR]
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "top.h"

const char *const kind_names[] = { "none", "send", "recv", "probe", "coll",
				   "other" };
const char *const state_names[] = { "empty", "alive", "finished", "dead" };

struct top_opt opt = { 0, 0, 0, 0, 1.0, -1, "/sys/kernel/debug/mpichan" };

static volatile sig_atomic_t stop;

static void on_signal(int s)
{
	(void)s;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "mpichan-top: out of memory\n");
		exit(1);
	}
	return p;
}

void note(struct look *l, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (l->nnotes == (int)(sizeof(l->notes) / sizeof(l->notes[0])))
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		l->notes[l->nnotes++] = s;
	va_end(ap);
}

struct job *new_job(struct look *l, unsigned int nranks)
{
	struct job *j;

	if (l->njobs == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->jobs = realloc(l->jobs, (size_t)l->cap * sizeof(*l->jobs));
		if (!l->jobs) {
			fprintf(stderr, "mpichan-top: out of memory\n");
			exit(1);
		}
	}
	j = &l->jobs[l->njobs++];
	memset(j, 0, sizeof(*j));
	j->nranks = nranks;
	j->r = xcalloc(nranks, sizeof(*j->r));
	return j;
}

static void free_look(struct look *l)
{
	int i, k;

	for (i = 0; i < l->njobs; i++) {
		free(l->jobs[i].r);
		for (k = 0; k < l->jobs[i].nfind; k++)
			free(l->jobs[i].find[k]);
	}
	free(l->jobs);
	for (i = 0; i < l->nnotes; i++)
		free(l->notes[i]);
	memset(l, 0, sizeof(*l));
}

/* FNV-1a over what moves: rings, transfers, states, blocked calls. */
void mix(unsigned long long *h, unsigned long long v)
{
	int i;

	for (i = 0; i < 8; i++) {
		*h ^= (v >> (8 * i)) & 0xff;
		*h *= 1099511628211ULL;
	}
}

int kind_of(const char *s)
{
	int k;

	for (k = 0; k < (int)(sizeof(kind_names) / sizeof(kind_names[0])); k++)
		if (!strcmp(s, kind_names[k]))
			return k;
	return K_OTHER;
}

int state_of(const char *s)
{
	int k;

	for (k = 0; k < 4; k++)
		if (!strcmp(s, state_names[k]))
			return k;
	return S_EMPTY;
}

/* A call's name as shown: an identifier, or "" for none. */
void set_call(struct rank *r, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < sizeof(r->call) - 1 && s[i]; i++)
		r->call[i] = isalnum((unsigned char)s[i]) || s[i] == '_' ?
			s[i] : '?';
	r->call[i] = 0;
	if (!strcmp(r->call, "-"))
		r->call[0] = 0;
}

/* ---- Looking ------------------------------------------------------------ */

static void take(struct look *l)
{
	int err = 0, have = 0;

	memset(l, 0, sizeof(*l));
	l->t = now();
	if (opt.source != SRC_MEMFD) {
		err = from_debugfs(l);
		if (!err)
			have = 1;
		else if (opt.source == SRC_DEBUGFS)
			note(l, "%s: %s (is the module loaded and debugfs mounted?)",
			     opt.debugfs, strerror(-err));
	}
	if (opt.source != SRC_DEBUGFS && from_memfds(l) == 0)
		have = 1;
	if (!have && opt.source == SRC_AUTO)
		note(l, "neither %s nor /proc could be read", opt.debugfs);
}

/* Compare with the last look: progress, and how long since. */
static void compare(struct look *l, const struct look *prev)
{
	int i, k;

	for (i = 0; i < l->njobs; i++) {
		struct job *j = &l->jobs[i];

		j->progress = 1;
		j->stalled = 0;
		for (k = 0; prev && k < prev->njobs; k++) {
			const struct job *p = &prev->jobs[k];

			if (strcmp(p->key, j->key))
				continue;
			if (p->sig == j->sig) {
				j->progress = 0;
				j->stalled = p->stalled + (l->t - prev->t);
			}
			break;
		}
		if (!j->progress)
			diagnose(j);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mpichan-top [--once] [--json] [--interval S] [--iterations N]\n"
		"                   [--job ID] [--source auto|debugfs|memfd] [--debugfs DIR]\n");
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
		;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, '1' },
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "job", required_argument, NULL, 'J' },
		{ "source", required_argument, NULL, 's' },
		{ "debugfs", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct look prev = { 0 }, cur;
	int c, it;

	while ((c = getopt_long(argc, argv, "1ji:n:J:s:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case '1':
			opt.once = 1;
			break;
		case 'j':
			opt.json = 1;
			break;
		case 'i':
			opt.interval = atof(optarg);
			if (opt.interval < 0.05 || opt.interval > 3600) {
				fprintf(stderr, "mpichan-top: --interval %s: 0.05 to 3600 seconds\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			opt.iterations = atoi(optarg);
			break;
		case 'J':
			opt.job = atoll(optarg);
			break;
		case 's':
			if (!strcmp(optarg, "auto"))
				opt.source = SRC_AUTO;
			else if (!strcmp(optarg, "debugfs"))
				opt.source = SRC_DEBUGFS;
			else if (!strcmp(optarg, "memfd"))
				opt.source = SRC_MEMFD;
			else {
				usage(stderr);
				return 2;
			}
			break;
		case 'd':
			opt.debugfs = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* --once: two looks an interval apart, to tell whether jobs move. */
	take(&prev);
	compare(&prev, NULL);
	for (it = 0; !stop; it++) {
		nap(opt.interval);
		if (stop)
			break;
		take(&cur);
		compare(&cur, &prev);
		if (opt.json)
			show_json(&cur);
		else
			show_text(&cur, !opt.once && isatty(STDOUT_FILENO));
		free_look(&prev);
		prev = cur;
		if (opt.once || (opt.iterations && it + 1 >= opt.iterations))
			break;
	}
	free_look(&prev);
	return 0;
}
