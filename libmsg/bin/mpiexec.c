// SPDX-License-Identifier: MIT
/*
 * mpiexec (and mpirun): start an MPI job of N ranks on this machine.
 *
 *   mpiexec -n N [--tag-output] [--bind-to L] [--map-by L]
 *           [--report-bindings] [--with-ft] [--] prog [args...]
 *   mpiexec -n N1 prog1 [args...] : -n N2 prog2 [args...] : ...
 *
 * The second form (MPMD, as MPI's mpiexec has it) starts N1 ranks of
 * prog1, then N2 of prog2, ... in one job: ranks are numbered across
 * the programs in order, and each rank's MPICHAN_APPNUM says which
 * program it runs (MPI_APPNUM in libmsg).
 *
 * Creates the job, over /dev/mpichan when it exists (MPICHAN_IOC_JOB_CREATE;
 * this process holds the owner handle) or else as a memfd laid out like
 * the device's mapping (libmsg's user-space fallback), then forks and
 * execs the ranks with MPICHAN_RANK, MPICHAN_SIZE and either
 * MPICHAN_JOB_ID + MPICHAN_JOB_SECRET or MPICHAN_MEMFD in their
 * environment.  Forwards SIGINT, SIGTERM and SIGHUP to the ranks; when a
 * rank dies by a signal or exits non-zero it says which and why and ends
 * the others.  Exits with the first failing rank's status (128 + signal
 * for a signal), else 0.
 *
 * With --with-ft (fault tolerance, for programs that use ULFM) a rank
 * that dies ends nobody else: the death is told and the survivors go
 * on (libmsg tells them too).  The job's status is then the survivors':
 * the first non-zero exit status of a rank that exited, else 0; 128 +
 * signal only when no rank exited at all.  A rank's MPI_Abort still ends
 * the job: libmsg sends this process SIGTERM (MPICHAN_FT is set).
 *
 * Each rank is placed and bound as --map-by and --bind-to say (place.c:
 * by default bound to a core when there are no more ranks than cores).
 *
 * MPICHAN_TRANSPORT=shm forces the fallback, MPICHAN_RING_BYTES picks
 * the ring size (a power of two).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "../src/transport/shm_job.h"
#include "place.h"

#define KILL_GRACE_MS	3000
/*
 * A rank that exits non-zero may only be reacting to another that was
 * killed: the module tells the survivors of a death while the dead
 * process is still being torn down, before its parent can reap it.
 * Wait this long for such a death before naming the exit as the cause.
 */
#define CAUSE_GRACE_MS	250

struct rank {
	pid_t pid;
	int running;
	int out[2];		/* --tag-output: stdout, stderr pipes (read ends) */
	char *buf[2];		/* partial lines */
	size_t len[2];
};

/* One program of the command line and its ranks. */
struct app {
	int n;
	char **argv;		/* NULL-terminated: a ':' is cut out */
};

static struct rank *ranks;
static struct app *apps;
static int nranks, napps, tag_output, with_ft;
static struct place_opts place = { PLACE_DEFAULT, PLACE_DEFAULT, 0 };
static void *shm_map;		/* the fallback's job memory */
static int dev_fd = -1;

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: mpiexec -n N [--tag-output] [--] program [args...]\n"
		"       mpiexec -n N1 program1 [args...] : -n N2 program2 [args...] ...\n"
		"  -n, -np N        number of ranks (of this program)\n"
		"  --tag-output, -l prefix every output line with [rank]\n"
		"  --bind-to L      bind each rank to its hwthread, core, numa, socket\n"
		"                   or none (default: core, none when oversubscribed)\n"
		"  --map-by L       place ranks round-robin over hwthreads, cores (the\n"
		"                   default), numa nodes or sockets\n"
		"  --report-bindings say where each rank is, on stderr\n"
		"  --with-ft [ulfm]  a rank that dies does not end the others (ULFM);\n"
		"                   the status is then the survivors'\n");
	exit(rc);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("mpiexec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int want_device(void)
{
	const char *t = getenv("MPICHAN_TRANSPORT");

	if (t && !strcmp(t, "shm"))
		return 0;
	if (t && !strcmp(t, "mpichan"))
		return 1;
	return access(MPICHAN_DEVICE, R_OK | W_OK) == 0;
}

/* Make the job; set what ranks need in this process's environment. */
static void create_job(void)
{
	const char *rb = getenv("MPICHAN_RING_BYTES");
	uint32_t ring_bytes = rb ? (uint32_t)strtoul(rb, NULL, 0) : 0;
	struct mpichan_job_create c;
	char s[64];
	int fd;

	unsetenv("MPICHAN_MEMFD");
	unsetenv("MPICHAN_JOB_ID");
	unsetenv("MPICHAN_JOB_SECRET");
	snprintf(s, sizeof(s), "%d", nranks);
	setenv("MPICHAN_SIZE", s, 1);
	/* MPI_Abort then asks this process to end the job (SIGTERM). */
	if (with_ft)
		setenv("MPICHAN_FT", "1", 1);
	else
		unsetenv("MPICHAN_FT");
	if (want_device()) {
		dev_fd = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
		if (dev_fd < 0)
			die("cannot open %s: %s", MPICHAN_DEVICE, strerror(errno));
		memset(&c, 0, sizeof(c));
		c.nranks = (uint32_t)nranks;
		c.ring_bytes = ring_bytes;
		if (ioctl(dev_fd, MPICHAN_IOC_JOB_CREATE, &c) < 0)
			die("cannot create a job of %d ranks: %s", nranks,
			    strerror(errno));
		snprintf(s, sizeof(s), "%llu", (unsigned long long)c.job_id);
		setenv("MPICHAN_JOB_ID", s, 1);
		snprintf(s, sizeof(s), "%016llx%016llx",
			 (unsigned long long)c.secret[0],
			 (unsigned long long)c.secret[1]);
		setenv("MPICHAN_JOB_SECRET", s, 1);
		setenv("MPICHAN_TRANSPORT", "mpichan", 1);
		return;
	}
	fd = lm_shm_create((uint32_t)nranks, ring_bytes, (uint64_t)getpid(),
			   &shm_map);
	if (fd < 0)
		die("cannot create the job's shared memory: %s", strerror(-fd));
	snprintf(s, sizeof(s), "%d", fd);
	setenv("MPICHAN_MEMFD", s, 1);
	setenv("MPICHAN_TRANSPORT", "shm", 1);
}

static void start_rank(int r, int app, const sigset_t *old)
{
	char **argv = apps[app].argv;
	pid_t parent = getpid();
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	char s[32];
	pid_t pid;

	if (tag_output && (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		sigprocmask(SIG_SETMASK, old, NULL);
		if (tag_output) {
			dup2(out[1], STDOUT_FILENO);
			dup2(err[1], STDERR_FILENO);
		}
		snprintf(s, sizeof(s), "%d", r);
		setenv("MPICHAN_RANK", s, 1);
		snprintf(s, sizeof(s), "%d", app);
		setenv("MPICHAN_APPNUM", s, 1);
		if (place_apply(r) < 0)
			fprintf(stderr, "mpiexec: rank %d runs unbound: %s\n", r,
				strerror(errno));
		execvp(argv[0], argv);
		fprintf(stderr, "mpiexec: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	ranks[r].pid = pid;
	ranks[r].running = 1;
	ranks[r].out[0] = ranks[r].out[1] = -1;
	if (tag_output) {
		close(out[1]);
		close(err[1]);
		ranks[r].out[0] = out[0];
		ranks[r].out[1] = err[0];
	}
}

static void signal_all(int sig)
{
	int r;

	for (r = 0; r < nranks; r++)
		if (ranks[r].running)
			kill(ranks[r].pid, sig);
}

static int running_count(void)
{
	int r, n = 0;

	for (r = 0; r < nranks; r++)
		n += ranks[r].running;
	return n;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* How the job ends: the failed rank, the exit status, the kill deadline. */
static int failed = -1, status_rc;
static long long deadline = -1;
/* A non-zero exit waiting CAUSE_GRACE_MS for a death that caused it. */
static int exit_rank = -1, exit_code;
static long long exit_until;

/* Rank r's end (wait status st) is the job's failure: say so, end the rest. */
static void job_failed(int r, int st, long long now)
{
	failed = r;
	exit_rank = -1;
	if (WIFSIGNALED(st)) {
		status_rc = 128 + WTERMSIG(st);
		fprintf(stderr, "mpiexec: rank %d killed by signal %d (%s)\n",
			r, WTERMSIG(st), strsignal(WTERMSIG(st)));
	} else {
		status_rc = WEXITSTATUS(st);
		fprintf(stderr, "mpiexec: rank %d exited with status %d\n",
			r, status_rc);
	}
	if (running_count()) {
		fprintf(stderr, "mpiexec: ending the other %d rank(s)\n",
			running_count());
		signal_all(SIGTERM);
		deadline = now + KILL_GRACE_MS;
	}
}

/*
 * --with-ft: rank r ended badly (wait status st); the others go on.  A
 * death by a signal is told and leaves the status alone unless no rank
 * exits at all; an exit status is the survivors' word.
 */
static int ft_exited, ft_any_exit, ft_signal;

static void ft_end(int r, int st)
{
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "mpiexec: rank %d killed by signal %d (%s); "
			"the others go on (--with-ft)\n", r, WTERMSIG(st),
			strsignal(WTERMSIG(st)));
		ft_signal = 128 + WTERMSIG(st);
		return;
	}
	fprintf(stderr, "mpiexec: rank %d exited with status %d\n", r,
		WEXITSTATUS(st));
	if (!ft_exited)
		status_rc = WEXITSTATUS(st);
	ft_exited = 1;
}

/* The grace for a non-zero exit is over, or nobody is left: name it. */
static void exit_is_cause(long long now)
{
	if (exit_rank >= 0 && failed < 0)
		job_failed(exit_rank, exit_code << 8, now);
}

/* Print complete lines of a rank's output with its prefix. */
static void emit(int r, int which, int flush)
{
	FILE *f = which ? stderr : stdout;
	struct rank *k = &ranks[r];
	char *p = k->buf[which], *nl;
	size_t left = k->len[which];

	while (left && ((nl = memchr(p, '\n', left)) || flush)) {
		size_t n = nl ? (size_t)(nl - p) + 1 : left;

		fprintf(f, "[%d] %.*s%s", r, (int)n, p, nl ? "" : "\n");
		p += n;
		left -= n;
	}
	fflush(f);
	memmove(k->buf[which], p, left);
	k->len[which] = left;
}

static void read_output(int r, int which)
{
	struct rank *k = &ranks[r];
	char tmp[4096];
	ssize_t n = read(k->out[which], tmp, sizeof(tmp));
	char *nb;

	if (n <= 0) {
		if (n < 0 && errno == EINTR)
			return;
		emit(r, which, 1);
		close(k->out[which]);
		k->out[which] = -1;
		return;
	}
	nb = realloc(k->buf[which], k->len[which] + (size_t)n);
	if (!nb)
		die("out of memory");
	memcpy(nb + k->len[which], tmp, (size_t)n);
	k->buf[which] = nb;
	k->len[which] += (size_t)n;
	emit(r, which, 0);
}

/*
 * One program of the command line, from argv[i]: its options, then the
 * program and its arguments up to a ':' (cut out) or the end.  Returns
 * the index of the ':' (or argc).
 */
static int parse_app(int argc, char **argv, int i)
{
	struct app *a = &apps[napps];
	char *end;

	a->n = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "-np")) {
			if (++i >= argc)
				usage(2);
			a->n = (int)strtol(argv[i], &end, 10);
			if (*end || a->n < 1)
				die("-n wants a positive number, not '%s'", argv[i]);
		} else if (!strcmp(argv[i], "--tag-output") || !strcmp(argv[i], "-l")) {
			tag_output = 1;
		} else if (!strcmp(argv[i], "--bind-to") || !strcmp(argv[i], "-bind-to") ||
			   !strcmp(argv[i], "--map-by") || !strcmp(argv[i], "-map-by")) {
			int bind = strstr(argv[i], "bind") != NULL;
			int l;

			if (++i >= argc)
				usage(2);
			l = place_level_parse(argv[i], bind);
			if (l < 0)
				die("%s %s: use hwthread, core, numa, socket%s", argv[i - 1],
				    argv[i], bind ? " or none" : "");
			if (bind)
				place.bind = l;
			else
				place.map = l;
		} else if (!strcmp(argv[i], "--report-bindings") ||
			   !strcmp(argv[i], "-report-bindings")) {
			place.report = 1;
		} else if (!strcmp(argv[i], "--with-ft") ||
			   !strcmp(argv[i], "-with-ft")) {
			with_ft = 1;
			/* As Open MPI's: "--with-ft ulfm". */
			if (i + 1 < argc && !strcmp(argv[i + 1], "ulfm"))
				i++;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(0);
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "mpiexec: unknown option %s\n", argv[i]);
			usage(2);
		} else {
			break;
		}
	}
	if (i >= argc || !strcmp(argv[i], ":"))
		die("program %d: no program to run", napps + 1);
	a->argv = argv + i;
	for (; i < argc && strcmp(argv[i], ":"); i++)
		;
	if (i < argc)
		argv[i] = NULL;		/* ends this program's arguments */
	if (nranks > 1048576 - a->n)
		die("too many ranks");
	nranks += a->n;
	napps++;
	return i;
}

int main(int argc, char **argv)
{
	int i, j, r, sfd, signals = 0, fwd = 0;
	struct signalfd_siginfo si;
	sigset_t mask, old;
	struct pollfd *pfd;

	apps = calloc((size_t)argc, sizeof(*apps));
	if (!apps)
		die("out of memory");
	for (i = 1; i < argc; i++)
		i = parse_app(argc, argv, i);
	if (!napps)
		usage(2);
	ranks = calloc((size_t)nranks, sizeof(*ranks));
	pfd = calloc((size_t)nranks * 2 + 1, sizeof(*pfd));
	if (!ranks || !pfd)
		die("out of memory");
	place_plan(&place, nranks);
	if (place.report)
		place_report(nranks);

	create_job();
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0)
		die("signalfd: %s", strerror(errno));
	for (r = 0, i = 0; i < napps; i++)
		for (j = 0; j < apps[i].n; j++)
			start_rank(r++, i, &old);

	while (running_count() || tag_output) {
		int n = 0, timeout = -1;
		long long now;

		pfd[n].fd = sfd;
		pfd[n++].events = POLLIN;
		for (r = 0; tag_output && r < nranks; r++) {
			pfd[n].fd = ranks[r].out[0];
			pfd[n++].events = POLLIN;
			pfd[n].fd = ranks[r].out[1];
			pfd[n++].events = POLLIN;
		}
		if (!running_count()) {
			int open_fds = 0;

			for (r = 0; r < nranks; r++)
				open_fds += ranks[r].out[0] >= 0 || ranks[r].out[1] >= 0;
			if (!open_fds)
				break;
		}
		now = now_ms();
		if (exit_rank >= 0) {
			if (now >= exit_until)
				exit_is_cause(now);
			else
				timeout = (int)(exit_until - now);
		}
		if (deadline >= 0) {
			if (now >= deadline) {
				signal_all(SIGKILL);
				deadline = -1;
			} else {
				timeout = (int)(deadline - now);
			}
		}
		if (poll(pfd, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		for (r = 0; tag_output && r < nranks; r++) {
			if (pfd[1 + 2 * r].revents)
				read_output(r, 0);
			if (pfd[2 + 2 * r].revents)
				read_output(r, 1);
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		if (read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		now = now_ms();	/* poll may have slept long */
		if (si.ssi_signo != SIGCHLD) {
			/* Forward; a second interrupt kills. */
			if (!fwd)
				fwd = (int)si.ssi_signo;
			signal_all(++signals > 1 ? SIGKILL : (int)si.ssi_signo);
			if (failed < 0 && deadline < 0)
				deadline = now + KILL_GRACE_MS;
			continue;
		}
		for (;;) {
			int st;
			pid_t pid = waitpid(-1, &st, WNOHANG);

			if (pid <= 0)
				break;
			for (r = 0; r < nranks && ranks[r].pid != pid; r++)
				;
			if (r == nranks)
				continue;
			ranks[r].running = 0;
			if (shm_map)
				lm_shm_mark_dead(shm_map, (uint32_t)r);
			ft_any_exit |= WIFEXITED(st);
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				continue;
			if (with_ft && !signals) {
				ft_end(r, st);
				continue;
			}
			if (failed >= 0 || signals)
				continue;
			if (WIFSIGNALED(st)) {
				job_failed(r, st, now);
			} else if (exit_rank < 0) {
				exit_rank = r;
				exit_code = WEXITSTATUS(st);
				exit_until = now + CAUSE_GRACE_MS;
			}
		}
		if (!running_count())
			exit_is_cause(now);
	}
	exit_is_cause(0);
	if (with_ft && !ft_any_exit && ft_signal)
		status_rc = ft_signal;
	if (signals && failed < 0)
		status_rc = 128 + fwd;
	if (dev_fd >= 0)
		close(dev_fd);
	return status_rc;
}
