// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain run-by=tools/test/kill-trials
/*
 * One kill trial: the ranks run the mixed traffic of traffic.h (point-
 * to-point eager and rendezvous, wildcards, nonblocking, collectives
 * with a large allgather, nonblocking collectives in progress) and one
 * rank, chosen with everything else from the seed, SIGKILLs itself at
 * a point of one iteration: right there, or from a timer that fires a
 * random 0-20 ms later, wherever the rank then is (most often inside a
 * blocking or nonblocking call).  tools/test/kill-trials runs it and checks
 * how the job ends.
 *
 *   killtrial --seed S --dir DIR [--none]
 *
 * Just before dying the rank writes "<CLOCK_REALTIME ns> <rank>" to
 * DIR/killed.  The survivors either keep MPI_ERRORS_ARE_FATAL (a call
 * that fails exits) or use MPI_ERRORS_RETURN: then a call that fails
 * with MPI_ERR_PROC_FAILED (or MPI_ERR_PROC_FAILED_PENDING, a wildcard
 * nonblocking receive's) leaves DIR/failed.<rank> and the rank waits
 * to be ended by the launcher; any other error or a wrong byte is a
 * "FAIL" line and MPI_Abort.  --none: nobody dies, the job must succeed.
 */
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <sys/time.h>
#include "traffic.h"

#define ITERS		3
#define MAX_DELAY_US	20000

static const char *dir = ".";
static int killfd = -1, victim = -1, kill_iter, kill_point, use_timer;
static int survivors_return;

/* Async-signal-safe: the stamp, then the signal. */
static void die_now(void)
{
	struct timespec ts;
	char b[48], *p = b + sizeof(b);
	unsigned long long ns;
	int r = t_rank;

	clock_gettime(CLOCK_REALTIME, &ts);
	ns = (unsigned long long)ts.tv_sec * 1000000000ULL +
		(unsigned long long)ts.tv_nsec;
	*--p = '\n';
	do
		*--p = (char)('0' + r % 10);
	while ((r /= 10));
	*--p = ' ';
	do
		*--p = (char)('0' + ns % 10);
	while ((ns /= 10));
	if (write(killfd, p, (size_t)(b + sizeof(b) - p)) < 0)
		_exit(99);
	raise(SIGKILL);
}

static void on_timer(int sig)
{
	(void)sig;
	die_now();
}

static void at(int point)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };

	if (t_rank != victim || tr.iter != (unsigned int)kill_iter ||
	    point != kill_point)
		return;
	if (!use_timer)
		die_now();
	it.it_value.tv_usec = (long)(tr_mix(tr.seed ^ 0x71) % MAX_DELAY_US) + 1;
	signal(SIGALRM, on_timer);
	setitimer(ITIMER_REAL, &it, NULL);
}

static void on_error(int err, const char *what)
{
	char s[MPI_MAX_ERROR_STRING], path[512];
	int len, fd;

	MPI_Error_string(err, s, &len);
	/* A wildcard MPI_Irecv's wait: ULFM's PROC_FAILED_PENDING. */
	if ((err != MPI_ERR_PROC_FAILED &&
	     err != MPI_ERR_PROC_FAILED_PENDING) || victim < 0) {
		fprintf(stderr, "FAIL rank %d iteration %u after %s: %s: %s\n",
			t_rank, tr.iter, tr_point_names[tr.point], what, s);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	snprintf(path, sizeof(path), "%s/failed.%d", dir, t_rank);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		dprintf(fd, "rank %d iteration %u after %s: %s: %s\n", t_rank,
			tr.iter, tr_point_names[tr.point], what, s);
		close(fd);
	}
	/* The launcher ends us: the job's end is its business. */
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	char path[512];
	int i, none = 0;
	uint64_t h;

	t_init(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--none"))
			none = 1;
		else
			CHECK(0, "usage: killtrial --seed S --dir DIR [--none]");
	}
	tr.seed = seed;
	tr.max = 1 << 20;
	tr.small = 64 << 10;
	tr.nmsg = 2;
	tr.at = at;
	tr.error = on_error;
	h = tr_mix(seed);
	if (!none) {
		victim = (int)(h % (uint64_t)t_size);
		kill_iter = (int)((h >> 8) % ITERS);
		kill_point = (int)((h >> 16) % P_NPOINTS);
		use_timer = (int)(h >> 24) & 1;
	}
	survivors_return = (int)(h >> 25) & 1;
	if (!survivors_return)
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	if (t_rank == victim) {
		snprintf(path, sizeof(path), "%s/killed", dir);
		killfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		CHECK(killfd >= 0, "cannot create %s", path);
	}
	tr_setup();
	if (t_rank == 0) {
		if (none)
			printf("killtrial: seed %llu: nobody dies\n", seed);
		else
			printf("killtrial: seed %llu: rank %d dies in iteration %d at %s%s, survivors %s\n",
			       seed, victim, kill_iter, tr_point_names[kill_point],
			       use_timer ? " + timer" : "",
			       survivors_return ? "MPI_ERRORS_RETURN" : "MPI_ERRORS_ARE_FATAL");
		fflush(stdout);
	}
	/* Everyone is set up before anyone can die. */
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	for (tr.iter = 0; tr.iter < ITERS; tr.iter++)
		tr_iteration();
	/* A timer that has not fired yet: die before MPI_Finalize. */
	if (t_rank == victim)
		die_now();
	if (none) {
		uint64_t in[2] = { tr.msgs, tr.bytes }, sum[2];

		MPI_OK(MPI_Reduce(in, sum, 2, MPI_UINT64_T, MPI_SUM, 0,
				  MPI_COMM_WORLD));
		if (t_rank == 0)
			printf("killtrial: %d iterations, %llu messages and blocks, %llu bytes checked\n",
			       ITERS, (unsigned long long)sum[0],
			       (unsigned long long)sum[1]);
	}
	return t_done();
}
