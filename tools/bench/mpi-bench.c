// SPDX-License-Identifier: MIT
/*
 * mpi-bench: point-to-point MPI benchmarks between ranks 0 and 1, plain
 * MPI C (Send, Recv, Isend, Irecv, Waitall, Wtime), so that the same
 * source builds against libmsg, Open MPI and MPICH.
 *
 *   mpiexec -n 2 mpi-bench latency [options]
 *   mpiexec -n 2 mpi-bench bw [options]
 *   mpiexec -n 2 mpi-bench cpu [options]
 *
 * latency  ping-pong with MPI_Send / MPI_Recv; one-way latency is half
 *          the mean round trip (as osu_latency reports it).
 * bw       unidirectional bandwidth as osu_bw measures it: rank 0 posts
 *          a window of 64 MPI_Isend of one buffer, rank 1 a window of 64
 *          MPI_Irecv, both MPI_Waitall, then rank 1 sends a 4-byte ack;
 *          bytes moved over the time of all windows.
 * cpu      rank 1 blocks in one MPI_Recv for a message rank 0 sends
 *          after sleeping (1 s): the CPU rank 1 used meanwhile
 *          (getrusage, user + system, all threads) as a share of the
 *          wall time it waited.  A library that busy-polls shows ~100%.
 *
 * Options:
 *   -s MIN:MAX   sizes, powers of two from MIN to MAX bytes (8:4194304)
 *   -i N         timed iterations up to 8 KiB (latency 1000, bw 100);
 *                above, N * 8 KiB / size, at least -I
 *   -I N         the least timed iterations of a large size (latency 10,
 *                bw 3)
 *   -x N         untimed warm-up iterations (default: a tenth, >= 1)
 *   -r N         repetitions: latency and bw measure every size N times
 *                (default 1), one line each, so that a reader can keep
 *                the best and a stall of the machine spoils one line,
 *                not the figure; cpu waits N times (3), the median is
 *                reported
 *   -t SECS      cpu: how long rank 0 sleeps before sending (1)
 *   -p           pin rank r to CPU r (modulo the CPUs this process may
 *                use), so every MPI library runs with the same placement
 *   -T LEVEL     MPI_Init_thread with single|funneled|serialized|multiple
 *                (default: MPI_Init); the level granted is printed, and a
 *                lower one ends the run
 *   -q           with -T multiple: a second thread in every rank asks
 *                MPI_Comm_rank and MPI_Type_size once a millisecond
 *                while the benchmark runs (a monitoring thread)
 *   -g           with -T multiple: a second thread in every rank
 *                completes a generalized request once a millisecond
 *                while the benchmark runs (an I/O helper); the main
 *                thread starts them before and waits for them after
 *
 * Output (rank 0 only, or rank 1 for cpu): lines starting with '#' are
 * comments; every other line is data, fields separated by one space:
 *   latency:  SIZE USEC ITERATIONS            one per size and repetition
 *   bw:       SIZE MB_PER_S ITERATIONS        (MB = 10^6 bytes)
 *   cpu:      rep N WALL_S CPU_S PERCENT      one per repetition
 *             cpu PERCENT                     the median
 * Rank 1 checks every byte it received against what rank 0 sent (and
 * rank 0 what came back in the ping-pong); a mismatch ends the run with
 * MPI_Abort and a message, so a wrong transport cannot report a figure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include <mpi.h>

#define WINDOW		64
#define SMALL_MAX	8192
#define TAG_DATA	1
#define TAG_ACK		2
#define TAG_GO		3

static int rank;

struct opts {
	const char *mode;
	long min, max;
	long iters, least, warm;
	int reps, pin, query, greq;
	double sleep_s;
};

static const char *const levels[] = {
	"single", "funneled", "serialized", "multiple"
};

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "mpi-bench: rank %d: ", rank);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static void usage(void)
{
	if (rank == 0)
		fprintf(stderr, "usage: mpi-bench latency|bw|cpu [-s MIN:MAX] "
			"[-i N] [-I N] [-x N] [-r N] [-t SECS] [-p] "
			"[-T LEVEL] [-q | -g]\n");
	MPI_Abort(MPI_COMM_WORLD, 2);
	exit(2);
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		die("not a number: %s", s);
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	int c;

	if (argc < 2)
		usage();
	o->mode = argv[1];
	o->min = 8;
	o->max = 4L << 20;
	o->iters = strcmp(o->mode, "bw") ? 1000 : 100;
	o->least = strcmp(o->mode, "bw") ? 10 : 3;
	o->warm = -1;
	o->reps = -1;
	o->pin = 0;
	o->query = 0;
	o->greq = 0;
	o->sleep_s = 1.0;
	optind = 2;
	while ((c = getopt(argc, argv, "s:i:I:x:r:t:pT:qg")) != -1) {
		switch (c) {
		case 's': {
			char *colon = strchr(optarg, ':');

			if (!colon)
				die("-s wants MIN:MAX, not %s", optarg);
			*colon = '\0';
			o->min = number(optarg);
			o->max = number(colon + 1);
			break;
		}
		case 'i': o->iters = number(optarg); break;
		case 'I': o->least = number(optarg); break;
		case 'x': o->warm = number(optarg); break;
		case 'r': o->reps = (int)number(optarg); break;
		case 't': o->sleep_s = atof(optarg); break;
		case 'p': o->pin = 1; break;
		case 'q': o->query = 1; break;
		case 'g': o->greq = 1; break;
		case 'T': break;	/* taken before MPI_Init_thread */
		default: usage();
		}
	}
	if (o->min < 1 || o->max < o->min || o->max > (1L << 30) ||
	    o->iters < 1 || o->least < 1 || o->reps == 0 || o->sleep_s <= 0)
		die("%s", "bad option value");
	if (o->reps < 0)
		o->reps = strcmp(o->mode, "cpu") ? 1 : 3;
}

/* Fewer iterations for large sizes: about the same bytes per size. */
static long iterations(const struct opts *o, long size)
{
	long n = o->iters;

	if (size > SMALL_MAX)
		n = o->iters * SMALL_MAX / size;
	return n < o->least ? o->least : n;
}

static long warmup(const struct opts *o, long n)
{
	if (o->warm >= 0)
		return o->warm;
	return n / 10 > 0 ? n / 10 : 1;
}

static void pin(void)
{
	cpu_set_t allowed, one;
	int i, k = 0, want;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	want = rank % CPU_COUNT(&allowed);
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &allowed))
			continue;
		if (k++ == want) {
			CPU_ZERO(&one);
			CPU_SET(i, &one);
			if (sched_setaffinity(0, sizeof(one), &one))
				perror("mpi-bench: sched_setaffinity");
			return;
		}
	}
}

static char pattern_byte(long i, long size)
{
	return (char)((i * 131 + size * 7 + 1) & 0xff);
}

static void fill(char *buf, long size)
{
	long i;

	for (i = 0; i < size; i++)
		buf[i] = pattern_byte(i, size);
}

static void check(const char *buf, long size, const char *what)
{
	long i;

	for (i = 0; i < size; i++) {
		if (buf[i] != pattern_byte(i, size)) {
			char msg[96];

			snprintf(msg, sizeof(msg), "%ld-byte %s: byte %ld differs",
				 size, what, i);
			die("%s", msg);
		}
	}
}

static void *alloc(long size)
{
	void *p;

	if (posix_memalign(&p, 4096, size))
		die("%s", "out of memory");
	memset(p, 0, size);
	return p;
}

/* One ping-pong measurement of one size: seconds for n round trips. */
static double pingpong(long size, long n, long w, char *sbuf, char *rbuf)
{
	double t0 = 0;
	long i;

	memset(rbuf, 0, size);
	for (i = 0; i < w + n; i++) {
		if (i == w)
			t0 = MPI_Wtime();
		if (rank == 0) {
			MPI_Send(sbuf, (int)size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
			MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(rbuf, (int)size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
		}
	}
	return MPI_Wtime() - t0;
}

static void latency(const struct opts *o, char *sbuf, char *rbuf)
{
	long size, n;
	double t;
	int r;

	if (rank == 0)
		printf("# size_B latency_us iterations\n");
	for (size = o->min; size <= o->max; size *= 2) {
		n = iterations(o, size);
		if (rank == 0)
			fill(sbuf, size);
		for (r = 0; r < o->reps; r++) {
			t = pingpong(size, n, warmup(o, n), sbuf, rbuf);
			if (rank <= 1)
				check(rbuf, size, rank ? "ping" : "pong");
			if (rank == 0) {
				printf("%ld %.3f %ld\n", size, t * 1e6 / (2.0 * n), n);
				fflush(stdout);
			}
		}
	}
}

/*
 * One window: 64 messages of one buffer, then the ack.  Real statuses,
 * not MPI_STATUSES_IGNORE: gcc 12 takes MPICH's (MPI_Status *)1 for an
 * array of size 0 and fails the build.
 */
static void window(long size, char *sbuf, char *rbuf, MPI_Request *req,
		   MPI_Status *st)
{
	int k, ack = 0;

	if (rank == 0) {
		for (k = 0; k < WINDOW; k++)
			MPI_Isend(sbuf, (int)size, MPI_BYTE, 1, TAG_DATA,
				  MPI_COMM_WORLD, &req[k]);
		MPI_Waitall(WINDOW, req, st);
		MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		for (k = 0; k < WINDOW; k++)
			MPI_Irecv(rbuf, (int)size, MPI_BYTE, 0, TAG_DATA,
				  MPI_COMM_WORLD, &req[k]);
		MPI_Waitall(WINDOW, req, st);
		MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
	}
}

/* One bandwidth measurement of one size: seconds for n windows. */
static double windows(long size, long n, long w, char *sbuf, char *rbuf)
{
	MPI_Request req[WINDOW];
	MPI_Status st[WINDOW];
	double t0 = 0;
	long i;

	memset(rbuf, 0, size);
	for (i = 0; i < w + n; i++) {
		if (i == w)
			t0 = MPI_Wtime();
		window(size, sbuf, rbuf, req, st);
	}
	return MPI_Wtime() - t0;
}

static void bandwidth(const struct opts *o, char *sbuf, char *rbuf)
{
	long size, n;
	double t;
	int r;

	if (rank == 0)
		printf("# size_B MB/s iterations (window %d)\n", WINDOW);
	for (size = o->min; size <= o->max; size *= 2) {
		n = iterations(o, size);
		if (rank == 0)
			fill(sbuf, size);
		for (r = 0; r < o->reps; r++) {
			t = windows(size, n, warmup(o, n), sbuf, rbuf);
			if (rank == 1)
				check(rbuf, size, "window message");
			if (rank == 0) {
				printf("%ld %.2f %ld\n", size,
				       (double)size * WINDOW * n / t / 1e6, n);
				fflush(stdout);
			}
		}
	}
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void cpu_when_blocked(const struct opts *o)
{
	struct timespec ts = {
		.tv_sec = (time_t)o->sleep_s,
		.tv_nsec = (long)((o->sleep_s - (time_t)o->sleep_s) * 1e9),
	};
	double pct[64], wall, cpu, t0, c0;
	int r, go = 0, msg = 0, reps = o->reps > 64 ? 64 : o->reps;

	if (rank == 1)
		printf("# rank 1 blocked in MPI_Recv while rank 0 sleeps %.2f s\n"
		       "# rep N wall_s cpu_s percent\n", o->sleep_s);
	for (r = 0; r < reps; r++) {
		/* A round trip first, so both start the wait together. */
		if (rank == 0) {
			MPI_Send(&go, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
			MPI_Recv(&go, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			nanosleep(&ts, NULL);
			msg = r + 1;
			MPI_Send(&msg, 1, MPI_INT, 1, TAG_DATA, MPI_COMM_WORLD);
		} else if (rank == 1) {
			MPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
			t0 = MPI_Wtime();
			c0 = cpu_seconds();
			MPI_Recv(&msg, 1, MPI_INT, 0, TAG_DATA, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			cpu = cpu_seconds() - c0;
			wall = MPI_Wtime() - t0;
			if (msg != r + 1)
				die("%s", "wrong message after the wait");
			pct[r] = 100.0 * cpu / wall;
			printf("rep %d %.3f %.3f %.1f\n", r + 1, wall, cpu, pct[r]);
			fflush(stdout);
		}
	}
	if (rank == 1) {
		qsort(pct, reps, sizeof(pct[0]), cmp_double);
		printf("cpu %.1f\n", pct[reps / 2]);
	}
}

static int query_stop;

/* -q: ask what a monitoring thread asks, once a millisecond. */
static void *querier(void *arg)
{
	struct timespec nap = { 0, 1000000 };
	int r, s;

	(void)arg;
	while (!__atomic_load_n(&query_stop, __ATOMIC_RELAXED)) {
		MPI_Comm_rank(MPI_COMM_WORLD, &r);
		MPI_Type_size(MPI_DOUBLE, &s);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

/* -g: requests an I/O helper completes, one a millisecond. */
#define GREQS 4096
static MPI_Request greqs[GREQS];

static int greq_query(void *extra, MPI_Status *st)
{
	(void)extra;
	MPI_Status_set_elements(st, MPI_BYTE, 0);
	MPI_Status_set_cancelled(st, 0);
	return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
	(void)extra;
	return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS;
}

static void *completer(void *arg)
{
	struct timespec nap = { 0, 1000000 };
	int i;

	(void)arg;
	for (i = 0; i < GREQS; i++) {
		MPI_Grequest_complete(greqs[i]);
		/* Once the benchmark is over, the rest at once. */
		if (!__atomic_load_n(&query_stop, __ATOMIC_RELAXED))
			nanosleep(&nap, NULL);
	}
	return NULL;
}

/* -T LEVEL: the thread level asked for, or -1 (MPI_Init). */
static int thread_level(int argc, char **argv)
{
	int i, l;

	for (i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "-T"))
			continue;
		for (l = 0; l < 4; l++)
			if (!strcmp(argv[i + 1], levels[l]))
				return l;
		fprintf(stderr, "mpi-bench: -T %s: use single, funneled, serialized or multiple\n",
			argv[i + 1]);
		exit(2);
	}
	return -1;
}

int main(int argc, char **argv)
{
	char version[MPI_MAX_LIBRARY_VERSION_STRING], *nl;
	char *sbuf = NULL, *rbuf = NULL;
	struct opts o;
	pthread_t qt;
	int size, len = 0, want = thread_level(argc, argv), got = -1;
	static const int mpi_levels[] = {
		MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
		MPI_THREAD_MULTIPLE
	};

	if (want < 0)
		MPI_Init(&argc, &argv);
	else
		MPI_Init_thread(&argc, &argv, mpi_levels[want], &got);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	parse(argc, argv, &o);
	if (want >= 0 && got < mpi_levels[want])
		die("MPI_Init_thread did not grant %s", levels[want]);
	if (size < 2)
		die("%s", "needs 2 ranks (ranks above 1 only wait)");
	if ((o.query || o.greq) && want != 3)
		die("%s", "-q and -g need -T multiple");
	if (o.query && o.greq)
		die("%s", "-q or -g, not both");
	if (o.pin)
		pin();
	for (len = 0; o.greq && len < GREQS; len++)
		MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL,
				   &greqs[len]);
	len = 0;
	if ((o.query || o.greq) &&
	    pthread_create(&qt, NULL, o.query ? querier : completer, NULL))
		die("%s", "pthread_create failed");
	MPI_Get_library_version(version, &len);
	nl = strchr(version, '\n');
	if (nl)
		*nl = '\0';
	for (nl = version; *nl; nl++)	/* one line, fields split by spaces */
		if (*nl == '\t')
			*nl = ' ';
	if (rank == (strcmp(o.mode, "cpu") ? 0 : 1))
		printf("# mpi-bench %s: %s; %d ranks%s%s%s%s\n", o.mode,
		       version, size, o.pin ? ", pinned" : "",
		       want >= 0 ? ", thread level " : "",
		       want >= 0 ? levels[want] : "",
		       o.query ? ", a querying thread" :
		       o.greq ? ", a thread completing requests" : "");

	if (!strcmp(o.mode, "latency") || !strcmp(o.mode, "bw")) {
		sbuf = alloc(o.max);
		rbuf = alloc(o.max);
		if (o.mode[0] == 'l')
			latency(&o, sbuf, rbuf);
		else
			bandwidth(&o, sbuf, rbuf);
	} else if (!strcmp(o.mode, "cpu")) {
		cpu_when_blocked(&o);
	} else {
		usage();
	}
	free(sbuf);
	free(rbuf);
	if (o.query || o.greq) {
		__atomic_store_n(&query_stop, 1, __ATOMIC_RELAXED);
		pthread_join(qt, NULL);
	}
	for (len = 0; o.greq && len < GREQS; len++)
		MPI_Wait(&greqs[len], MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
