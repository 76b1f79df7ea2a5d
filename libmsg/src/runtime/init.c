// SPDX-License-Identifier: MIT
/*
 * The MPI environment: joining the job through a transport, the
 * library's settings from the environment, leaving it, and the
 * environment inquiry calls.
 *
 * Settings (environment variables):
 *   MPICHAN_TRANSPORT  shm | mpichan: force a transport (default: the
 *                      device when /dev/mpichan exists)
 *   MPICHAN_WAIT       spin | sleep | hybrid (default): how a blocked
 *                      call waits
 *   MPICHAN_SPIN_US    hybrid: microseconds to spin before sleeping
 *   MPICHAN_EAGER      largest message sent eagerly through the rings
 *   MPICHAN_PULL_MAX   bytes of unmatched rendezvous data a blocked rank
 *                      may copy to let their senders complete
 *   MPICHAN_SPAN       auto | on | off: offer large non-contiguous
 *                      sends where they lie (rndv_span.c,
 *                      rndv_layout.c); auto: with a receive window, or
 *                      tiles of blocks of 16 KiB and more
 *   MPICHAN_SPAN_SPARSE  offer a span of at most this many times its
 *                      data (default LM_SPAN_SPARSE); sparser: packed
 *   MPICHAN_IOV        auto | on | off: a large non-contiguous send
 *                      that is not offered where it lies goes as its
 *                      runs of bytes, gathered by the module
 *                      (rndv_iov.c); auto: runs of LM_IOV_MIN bytes
 *                      on average
 *   MPICHAN_WAIT_REPORT  seconds: a wait without progress this long
 *                      tells on stderr what it waits for (report.c)
 *   MPICHAN_SCRATCH_KEEP  bytes of large temporaries kept for the next
 *                      use (base/scratch.c; default 1 GiB)
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/runtime.h"

struct lm_state lm;

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		lm_fatal("%s=%s is not a number", name, s);
	return v;
}

/* A time in seconds (decimals allowed), in ns; unset or empty: 0. */
static uint64_t env_seconds_ns(const char *name)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v < 0 || v > 1e9)
		lm_fatal("%s=%s is not a number of seconds", name, s);
	return (uint64_t)(v * 1e9);
}

/*
 * A setting that names one of words[0..n) (unset or empty: def): its
 * index.  Anything else stops the program, naming the choices.
 */
static int env_word(const char *name, const char *const words[], int n,
		    int def)
{
	const char *s = getenv(name);
	char choices[128] = "";
	int i;

	if (!s || !*s)
		return def;
	for (i = 0; i < n; i++) {
		if (!strcmp(s, words[i]))
			return i;
		snprintf(choices + strlen(choices),
			 sizeof(choices) - strlen(choices), "%s%s",
			 i ? (i == n - 1 ? " or " : ", ") : "", words[i]);
	}
	lm_fatal("%s=%s: use %s", name, s, choices);
}

static void read_settings(void)
{
	static const char *const waits[] = {
		[LM_WAIT_HYBRID] = "hybrid", [LM_WAIT_SPIN] = "spin",
		[LM_WAIT_SLEEP] = "sleep",
	};
	static const char *const spans[] = {
		[LM_SPAN_OFF] = "off", [LM_SPAN_ON] = "on",
		[LM_SPAN_AUTO] = "auto",
	};
	static const char *const offauto[] = { "off", "auto" };
	uint64_t max = mcr_max_payload(&lm.job.ep) - sizeof(struct lm_rts);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	lm.eager = (uint32_t)env_u64("MPICHAN_EAGER", 16384);
	if (lm.eager > max)
		lm.eager = (uint32_t)max;
	lm.wait_mode = env_word("MPICHAN_WAIT", waits, 3, LM_WAIT_HYBRID);
	lm.oversubscribed = ncpu > 0 && lm.job.nranks > (uint64_t)ncpu;
	/* More ranks than CPUs: spinning only steals the CPU a peer needs. */
	lm.spin_ns = 1000 * env_u64("MPICHAN_SPIN_US",
				    lm.oversubscribed ? 2 : 200);
	lm.pull_max = env_u64("MPICHAN_PULL_MAX", 256ULL << 20);
	lm.span = env_word("MPICHAN_SPAN", spans, 3, LM_SPAN_AUTO);
	lm.span_sparse = env_u64("MPICHAN_SPAN_SPARSE", LM_SPAN_SPARSE);
	lm.iov = env_word("MPICHAN_IOV", spans, 3, LM_SPAN_AUTO);
	lm.rma_region = env_word("MPICHAN_RMA_REGION", offauto, 2, 1);
	lm.report_ns = env_seconds_ns("MPICHAN_WAIT_REPORT");
	lm.appnum = (int)env_u64("MPICHAN_APPNUM", 0);
	lm_scratch_keep = env_u64("MPICHAN_SCRATCH_KEEP", 1ULL << 30);
	if (!lm.span_sparse)
		lm.span_sparse = 1;
}

/*
 * MPI_THREAD_MULTIPLE turns the library lock on (thread.c).  Raising
 * the level of a library already joined (a session first, then
 * MPI_Init_thread or another session asking for more) is safe: below
 * MULTIPLE no other thread is inside MPI while this one is.
 */
static void thread_level_raise(int required)
{
	if (required > MPI_THREAD_MULTIPLE)
		required = MPI_THREAD_MULTIPLE;
	if (required <= lm.thread_level)
		return;
	lm.thread_level = required;
	if (required == MPI_THREAD_MULTIPLE)
		lm_mt_init();
}

void lm_join(int required, const char *fn)
{
	int err;

	if (lm.initialized) {
		thread_level_raise(required);
		return;
	}
	if (lm_transport_pick_device()) {
		lm.job.t = &lm_transport_mpichan;
	} else {
		lm.job.t = &lm_transport_shm;
	}
	err = lm.job.t->open(&lm.job);
	if (err)
		lm_fatal("%s: cannot join the job over %s: %s", fn,
			 lm.job.t->name, strerror(-err));
	if (lm.job.t == &lm_transport_shm && lm.job.rank == 0)
		fprintf(stderr, "libmsg: warning: %s not available; using the user-space shared-memory fallback (memfd, process_vm_readv)\n",
			MPICHAN_DEVICE);
	lm.pid = getpid();
	read_settings();
	/* Every level is given. */
	lm.thread_level = MPI_THREAD_SINGLE;
	thread_level_raise(required);
	err = lm_comm_init();
	if (!err)
		err = lm_progress_init();
	if (!err)
		err = lm_coll_init();
	lm_area_init();
	if (err)
		lm_fatal("%s: out of memory", fn);
	lm.initialized = 1;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	(void)argc;
	(void)argv;
	if (lm.world_init)
		return lm_error(NULL, "MPI_Init", MPI_ERR_OTHER,
				lm.world_done ? "MPI_Init after MPI_Finalize" :
				"MPI is already initialized");
	if (lm.finalized)
		return lm_error(NULL, "MPI_Init", MPI_ERR_OTHER,
				"the last session was finalized: libmsg cannot join the job again");
	lm_join(required, "MPI_Init");
	lm.world_init = 1;
	if (provided)
		*provided = lm.thread_level;
	return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv)
{
	return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, NULL);
}

/* Everybody reached MPI_Finalize: gather to rank 0 and release. */
static void finalize_barrier(void)
{
	MPI_Comm w = MPI_COMM_WORLD;
	struct libmsg_request *r;
	int i, n = w->size;

	if (n == 1)
		return;
	if (w->rank == 0) {
		for (i = 1; i < n; i++) {
			r = lm_req_alloc(LM_REQ_RECV);
			r->comm = w; r->peer = i; r->wpeer = i; r->tag = 0;
			r->ctx = w->ctx + 1;
			lm_match_post(r);
			lm_wait_one(r);
			lm_req_release(r);
		}
		for (i = 1; i < n; i++) {
			r = lm_req_alloc(LM_REQ_SEND);
			r->comm = w; r->peer = i; r->wpeer = i; r->tag = 0;
			r->ctx = w->ctx + 1;
			lm_send_start(r);
			lm_wait_one(r);
			lm_req_release(r);
		}
	} else {
		r = lm_req_alloc(LM_REQ_SEND);
		r->comm = w; r->peer = 0; r->wpeer = 0; r->tag = 0;
		r->ctx = w->ctx + 1;
		lm_send_start(r);
		lm_wait_one(r);
		lm_req_release(r);
		r = lm_req_alloc(LM_REQ_RECV);
		r->comm = w; r->peer = 0; r->wpeer = 0; r->tag = 0;
		r->ctx = w->ctx + 1;
		lm_match_post(r);
		lm_wait_one(r);
		lm_req_release(r);
	}
}

/* Leave the job: every rank's last MPI_Finalize or MPI_Session_finalize. */
static int leave(const char *fn)
{
	LM_GUARD();
	struct lm_blocked b;

	lm_check_init(fn);
	/* What it waits for, for tools: a collective of MPI_COMM_WORLD. */
	lm_blocked_comm(&b, fn, MPICHAN_WAIT_COLL, MPI_COMM_WORLD,
			MPI_PROC_NULL, -1, 0);
	lm_blocked_enter(&b);
	/* Sends still queued or waiting for their receiver must finish. */
	while (lm.npending || !cds_list_empty(&lm.inflight) ||
	       !cds_list_empty(&lm.cancel_wait))
		lm_progress_block();
	finalize_barrier();
	lm_blocked_leave(&b);
	lm.job.t->finish(&lm.job);
	lm_progress_fini();
	lm_sched_cache_drop();
	lm_scratch_drop();
	lm_comm_fini();
	lm_topo_fini();
	lm.job.t->close(&lm.job);
	lm.finalized = 1;
	return MPI_SUCCESS;
}

int lm_leave_if_last(const char *fn)
{
	int err;

	/* MPI_Init's world, or a session, still holds the job. */
	if (lm.sessions || (lm.world_init && !lm.world_done))
		return MPI_SUCCESS;
	err = leave(fn);

	/* Outside the lock: the owner's read-side section would stop it. */
	if (!err && lm.thread_level == MPI_THREAD_MULTIPLE)
		lm_rcu_drain();
	return err;
}

static int finalize(void)
{
	LM_GUARD();
	int err;

	if (!lm.world_init || lm.world_done)
		return lm_error(NULL, "MPI_Finalize", MPI_ERR_OTHER, "%s",
				lm.world_done ? "MPI_Finalize was called already" :
				"MPI_Init was not called");
	/* MPI: first the equivalent of freeing MPI_COMM_SELF's attributes. */
	err = lm_attr_delete_all(MPI_COMM_SELF, "MPI_Finalize");
	if (err)
		return err;
	lm.world_done = 1;
	return MPI_SUCCESS;
}

/* With sessions still open, the job is left at the last one's end. */
int MPI_Finalize(void)
{
	int err = finalize();

	return err ? err : lm_leave_if_last("MPI_Finalize");
}

/* MPI-4.0: these tell of the World Model only, not of sessions. */
int MPI_Initialized(int *flag)
{
	if (!flag)
		return lm_error(NULL, "MPI_Initialized", MPI_ERR_ARG, "flag is NULL");
	*flag = lm.world_init;
	return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
	if (!flag)
		return lm_error(NULL, "MPI_Finalized", MPI_ERR_ARG, "flag is NULL");
	*flag = lm.world_done;
	return MPI_SUCCESS;
}

int MPI_Query_thread(int *provided)
{
	lm_check_init("MPI_Query_thread");
	if (!provided)
		return lm_error(NULL, "MPI_Query_thread", MPI_ERR_ARG, "provided is NULL");
	*provided = lm.thread_level;
	return MPI_SUCCESS;
}

int MPI_Is_thread_main(int *flag)
{
	lm_check_init("MPI_Is_thread_main");
	if (!flag)
		return lm_error(NULL, "MPI_Is_thread_main", MPI_ERR_ARG, "flag is NULL");
	*flag = getpid() == gettid();
	return MPI_SUCCESS;
}

/*
 * Ends this process with errorcode (1 for 0, so that the launcher sees
 * a failure); the launcher then ends every other rank of the job (told
 * to with SIGTERM under mpiexec --with-ft, which otherwise lets the
 * others go on).
 */
int MPI_Abort(MPI_Comm comm, int errorcode)
{
	(void)comm;
	fflush(stdout);
	fprintf(stderr, "libmsg: rank %d: MPI_Abort(errorcode %d)\n",
		lm.initialized ? (int)lm.job.rank : -1, errorcode);
	/* mpiexec --with-ft ends nobody for a rank's end: ask it to. */
	if (getenv("MPICHAN_FT"))
		kill(getppid(), SIGTERM);
	_exit(errorcode & 0xff ? errorcode & 0xff : 1);
}

double MPI_Wtime(void)
{
	return (double)lm_now_ns() * 1e-9;
}

double MPI_Wtick(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC, &ts) < 0)
		return 1e-9;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
	if (!name || !resultlen)
		return lm_error(NULL, "MPI_Get_processor_name", MPI_ERR_ARG,
				"name or resultlen is NULL");
	if (gethostname(name, MPI_MAX_PROCESSOR_NAME) < 0)
		strcpy(name, "localhost");
	name[MPI_MAX_PROCESSOR_NAME - 1] = 0;
	*resultlen = (int)strlen(name);
	return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion)
{
	if (!version || !subversion)
		return lm_error(NULL, "MPI_Get_version", MPI_ERR_ARG,
				"version or subversion is NULL");
	*version = MPI_VERSION;
	*subversion = MPI_SUBVERSION;
	return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
	if (!version || !resultlen)
		return lm_error(NULL, "MPI_Get_library_version", MPI_ERR_ARG,
				"version or resultlen is NULL");
	*resultlen = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
			      "libmsg (mpichan) MPI %d.%d, transport %s",
			      MPI_VERSION, MPI_SUBVERSION,
			      lm.job.t ? lm.job.t->name : "none");
	return MPI_SUCCESS;
}

/*
 * MPI_Pcontrol is for profiling libraries layered over MPI; libmsg
 * itself has no profiling to switch, so, as MPI says, it returns at
 * once whatever the level.
 */
int MPI_Pcontrol(const int level, ...)
{
	(void)level;
	return MPI_SUCCESS;
}
