/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boilerplate shared by the mpichan kselftests: creating jobs,
 * attaching ranks, forking helper processes, reading debugfs and
 * dropping privileges.  Everything returns 0 or a negative errno so
 * that tests can compare with the expected refusal directly.
 *
 * Helper processes (forked from a test) must not use the harness'
 * ASSERT/EXPECT macros: they report through their exit status, with
 * CHILD_CHECK() printing the failing line.
 */
#ifndef MPICHAN_SELFTEST_HELPERS_H
#define MPICHAN_SELFTEST_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/mpichan.h>

#include "mcr.h"

#define MC_DEBUGFS	"/sys/kernel/debug/mpichan"
#define MC_NOBODY	65534
#define MC_MS		1000000LL	/* ns */
#define MC_SEC		1000000000LL	/* ns */

/* In a fixture setup: skip the whole test when the module is absent. */
#define MC_REQUIRE_DEVICE() do {					\
	if (access(MPICHAN_DEVICE, F_OK))				\
		SKIP(return, "%s absent: is mpichan.ko loaded?",	\
		     MPICHAN_DEVICE);					\
} while (0)

/* In a helper process: exit non-zero, saying where, when cond fails. */
#define CHILD_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "# child %d: %s:%d: %s failed (errno %d)\n", \
			getpid(), __FILE__, __LINE__, #cond, errno);	\
		_exit(1);						\
	}								\
} while (0)

struct mc_job {
	int owner;		/* the owner fd, or -1 once closed */
	__u32 nranks;
	__u32 ring_bytes;
	__u64 id;
	__u64 secret[2];
};

static inline int mc_open(void)
{
	return open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
}

static inline int64_t mc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * MC_SEC + ts.tv_nsec;
}

static inline void mc_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline __u32 mc_max_ranks(void)
{
	struct mpichan_version v = { 0 };
	int fd = mc_open();

	if (fd < 0)
		return 0;
	if (ioctl(fd, MPICHAN_IOC_VERSION, &v))
		v.max_ranks = 0;
	close(fd);
	return v.max_ranks;
}

/* JOB_CREATE on an existing fd: 0 or -errno; fills c. */
static inline int mc_create_fd(int fd, struct mpichan_job_create *c)
{
	return ioctl(fd, MPICHAN_IOC_JOB_CREATE, c) ? -errno : 0;
}

/* Open a new owner fd and create a job on it. */
static inline int mc_job_create(struct mc_job *job, __u32 nranks,
				__u32 ring_bytes)
{
	struct mpichan_job_create c;
	int ret;

	memset(job, 0, sizeof(*job));
	job->owner = mc_open();
	if (job->owner < 0)
		return -errno;
	memset(&c, 0, sizeof(c));
	c.nranks = nranks;
	c.ring_bytes = ring_bytes;
	ret = mc_create_fd(job->owner, &c);
	if (ret) {
		close(job->owner);
		job->owner = -1;
		return ret;
	}
	job->nranks = nranks;
	job->ring_bytes = c.ring_bytes;
	job->id = c.job_id;
	job->secret[0] = c.secret[0];
	job->secret[1] = c.secret[1];
	return 0;
}

static inline void mc_job_close_owner(struct mc_job *job)
{
	if (job->owner >= 0)
		close(job->owner);
	job->owner = -1;
}

/* ATTACH fd as rank: 0 or -errno; out (may be NULL) gets the result. */
static inline int mc_attach_fd(int fd, const struct mc_job *job, __u32 rank,
			       struct mpichan_attach *out)
{
	struct mpichan_attach a;

	memset(&a, 0, sizeof(a));
	a.job_id = job->id;
	a.secret[0] = job->secret[0];
	a.secret[1] = job->secret[1];
	a.rank = rank;
	if (ioctl(fd, MPICHAN_IOC_ATTACH, &a))
		return -errno;
	if (out)
		*out = a;
	return 0;
}

/* Open a new fd, attach it as rank and map the job: 0 or -errno. */
static inline int mc_ep_open(struct mcr_ep *ep, const struct mc_job *job,
			     __u32 rank)
{
	int fd = mc_open(), ret;

	memset(ep, 0, sizeof(*ep));
	ep->fd = -1;
	if (fd < 0)
		return -errno;
	ret = mcr_attach(ep, fd, job->id, job->secret, rank);
	if (ret) {
		close(fd);
		return ret;
	}
	return 0;
}

/* Unmap and close: the rank leaves (as a death unless it FINISHed). */
static inline void mc_ep_close(struct mcr_ep *ep)
{
	mcr_detach(ep);
	if (ep->fd >= 0)
		close(ep->fd);
	ep->fd = -1;
}

static inline int mc_wait(int fd, int64_t timeout_ns, int32_t peer,
			  __u32 *dead_count)
{
	struct mpichan_wait w;
	int ret;

	memset(&w, 0, sizeof(w));
	w.timeout_ns = timeout_ns;
	w.peer = peer;
	w.dead_count = 0xdeadbeef;
	ret = ioctl(fd, MPICHAN_IOC_WAIT, &w) ? -errno : 0;
	if (dead_count)
		*dead_count = w.dead_count;
	return ret;
}

static inline int mc_wake(int fd, __u32 rank)
{
	struct mpichan_wake w = { .rank = rank, .flags = 0 };

	return ioctl(fd, MPICHAN_IOC_WAKE, &w) ? -errno : 0;
}

static inline int mc_finish(int fd)
{
	return ioctl(fd, MPICHAN_IOC_FINISH) ? -errno : 0;
}

/* poll() one fd for timeout_ms: the revents, 0 on timeout, -errno. */
static inline int mc_poll(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, timeout_ms);

	if (n < 0)
		return -errno;
	return n ? p.revents : 0;
}

/* ---- helper processes ---------------------------------------------- */

/* Exit code of a helper process, 128 + signal if it was killed. */
static inline int mc_reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

/* One byte through a pipe, to order two processes.  -1 on timeout. */
static inline int mc_post(int fd, char c)
{
	return write(fd, &c, 1) == 1 ? 0 : -1;
}

static inline int mc_take(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, timeout_ms) != 1)
		return -1;
	if (read(fd, &c, 1) != 1)
		return -1;
	return (unsigned char)c;
}

/*
 * A rank of a job in a child process, which attaches, does its part,
 * reports a value (a handle, or 0) through a pipe and then waits to be
 * killed: a rank that dies with whatever it left behind.
 */
struct mc_child {
	pid_t pid;		/* -1: none */
	int pipe[2];		/* -1: not made */
};

/* Before anything can fail, so that mc_child_close() may always run. */
static inline void mc_child_init(struct mc_child *c)
{
	c->pid = -1;
	c->pipe[0] = c->pipe[1] = -1;
}

/*
 * Fork a child that attaches as rank `rank` of job, runs fn (NULL:
 * nothing; it reports 0), reports what fn returned and waits to be
 * killed.  0, or -errno when no child could be started.
 */
static inline int mc_child_start(struct mc_child *c, const struct mc_job *job,
				 uint32_t rank,
				 uint64_t (*fn)(struct mcr_ep *e, void *arg),
				 void *arg)
{
	struct mcr_ep e;
	uint64_t v;

	if (c->pipe[0] < 0 && pipe(c->pipe))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid)
		return 0;
	CHILD_CHECK(mc_ep_open(&e, job, rank) == 0);
	v = fn ? fn(&e, arg) : 0;
	CHILD_CHECK(write(c->pipe[1], &v, sizeof(v)) == sizeof(v));
	for (;;)
		pause();
}

/* Wait (10 s at most) for the child's report, into *v if v: 0 or -1. */
static inline int mc_child_ready(struct mc_child *c, uint64_t *v)
{
	struct pollfd p = { .fd = c->pipe[0], .events = POLLIN };
	uint64_t got;

	if (poll(&p, 1, 10000) != 1)
		return -1;
	if (read(c->pipe[0], &got, sizeof(got)) != sizeof(got))
		return -1;
	if (v)
		*v = got;
	return 0;
}

/*
 * SIGKILL the child, if there is one (again: it may be dead already),
 * and reap it: its exit code as mc_reap() gives it, -1 for none.
 */
static inline int mc_child_kill(struct mc_child *c)
{
	int ret = -1;

	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		ret = mc_reap(c->pid);
	}
	c->pid = -1;
	return ret;
}

/* In a teardown: the child killed, the pipe closed. */
static inline void mc_child_close(struct mc_child *c)
{
	mc_child_kill(c);
	if (c->pipe[0] >= 0) {
		close(c->pipe[0]);
		close(c->pipe[1]);
	}
	c->pipe[0] = c->pipe[1] = -1;
}

/* ---- debugfs ------------------------------------------------------- */

/* Whole file into buf (NUL-terminated): length or -errno. */
static inline int mc_read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = 0;
	close(fd);
	return (int)len;
}

static inline int mc_debugfs_present(void)
{
	return !access(MC_DEBUGFS "/stats", R_OK);
}

/* A "name: N" line of debugfs stats, or -1. */
static inline long mc_stat(const char *name)
{
	char buf[1024], key[64];
	const char *p;
	int n;

	if (mc_read_file(MC_DEBUGFS "/stats", buf, sizeof(buf)) < 0)
		return -1;
	n = snprintf(key, sizeof(key), "%s: ", name);
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n))
			return strtol(p + n, NULL, 10);
	return -1;
}

static inline void mc_state_path(char *path, size_t size, __u64 id)
{
	snprintf(path, size, MC_DEBUGFS "/job-%llu/state",
		 (unsigned long long)id);
}

static inline int mc_job_dir_exists(__u64 id)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), MC_DEBUGFS "/job-%llu",
		 (unsigned long long)id);
	return !stat(path, &st);
}

#define MC_STATE_RANKS	16
#define MC_STATE_RINGS	64

struct mc_rank_line {
	unsigned int rank;
	int pid;
	char state[16];
	char sleeping[8];
	long long wakes;
	long long waits;
};

struct mc_ring_line {
	unsigned int src, dst, head, tail, used;
	unsigned long long msgs, bytes;
};

struct mc_jstate {
	unsigned long long id;
	unsigned int uid, nranks, ring_bytes, dead, finished;
	char owner[16];
	int nrank_lines;
	struct mc_rank_line rank[MC_STATE_RANKS];
	int nring_lines;
	struct mc_ring_line ring[MC_STATE_RINGS];
	int format_ok;		/* both header lines found */
};

/*
 * Read and parse job-<id>/state: 0 or -errno (-EBADMSG when the first
 * line does not parse).
 */
static inline int mc_job_state(__u64 id, struct mc_jstate *s)
{
	static char buf[1 << 16];
	char path[128], *line, *save = NULL;
	int ret, section = 0;

	memset(s, 0, sizeof(*s));
	mc_state_path(path, sizeof(path), id);
	ret = mc_read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	line = strtok_r(buf, "\n", &save);
	if (!line || sscanf(line, "job %llu uid %u nranks %u ring_bytes %u owner %15s dead %u finished %u",
			    &s->id, &s->uid, &s->nranks, &s->ring_bytes,
			    s->owner, &s->dead, &s->finished) != 7)
		return -EBADMSG;
	while ((line = strtok_r(NULL, "\n", &save))) {
		if (!strncmp(line, "rank pid state sleeping wakes waits", 35)) {
			section = 1;
			continue;
		}
		if (!strncmp(line, "ring src dst head tail used msgs bytes", 38)) {
			section = 2;
			s->format_ok = 1;
			continue;
		}
		if (section == 1 && s->nrank_lines < MC_STATE_RANKS) {
			struct mc_rank_line *r = &s->rank[s->nrank_lines];

			if (sscanf(line, "%u %d %15s %7s %lld %lld", &r->rank,
				   &r->pid, r->state, r->sleeping, &r->wakes,
				   &r->waits) == 6)
				s->nrank_lines++;
		} else if (section == 2 && s->nring_lines < MC_STATE_RINGS &&
			   !strncmp(line, "ring ", 5)) {
			struct mc_ring_line *r = &s->ring[s->nring_lines];

			if (sscanf(line, "ring %u %u %u %u %u %llu %llu",
				   &r->src, &r->dst, &r->head, &r->tail,
				   &r->used, &r->msgs, &r->bytes) == 7)
				s->nring_lines++;
		}
	}
	return 0;
}

/* The ring line (src -> dst) of a parsed state, or NULL. */
static inline const struct mc_ring_line *
mc_state_ring(const struct mc_jstate *s, unsigned int src, unsigned int dst)
{
	int i;

	for (i = 0; i < s->nring_lines; i++)
		if (s->ring[i].src == src && s->ring[i].dst == dst)
			return &s->ring[i];
	return NULL;
}

/* One "xfer" line of job-<id>/state (a queued transfer). */
struct mc_xfer_line {
	unsigned int handle, owner, context;
	char kind[8];
	int peer, tag;
	unsigned long long len;
	unsigned long pages;
	unsigned int segs;
};

/* The xfer line of transfer `handle`: 0, -ENOENT, or -errno. */
static inline int mc_state_xfer(__u64 id, __u64 handle,
				struct mc_xfer_line *x)
{
	static char buf[1 << 16];
	char path[128], *line, *save = NULL;
	int ret;

	mc_state_path(path, sizeof(path), id);
	ret = mc_read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		memset(x, 0, sizeof(*x));
		if (sscanf(line, "xfer %u %7s %u %d %u %d %llu %lu %u",
			   &x->handle, x->kind, &x->owner, &x->peer,
			   &x->context, &x->tag, &x->len, &x->pages,
			   &x->segs) == 9 && x->handle == handle)
			return 0;
	}
	return -ENOENT;
}

/* ---- privileges ---------------------------------------------------- */

/*
 * Become uid/gid `id` keeping exactly the capabilities in caps[0..n)
 * (permitted and effective).  For forked helper processes.  0 or -errno.
 */
static inline int mc_become(uid_t id, const cap_value_t *caps, int n)
{
	cap_t c;
	int ret = 0;

	if (n && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	if (setresgid(id, id, id) || setresuid(id, id, id))
		return -errno;
	c = cap_init();
	if (!c)
		return -errno;
	if (n && (cap_set_flag(c, CAP_PERMITTED, n, caps, CAP_SET) ||
		  cap_set_flag(c, CAP_EFFECTIVE, n, caps, CAP_SET)))
		ret = -errno;
	if (!ret && cap_set_proc(c))
		ret = -errno;
	cap_free(c);
	return ret;
}

/* Stay who we are but drop one capability from every set. 0 or -errno. */
static inline int mc_drop_cap(cap_value_t cap)
{
	cap_t c = cap_get_proc();
	int ret = 0;

	if (!c)
		return -errno;
	if (cap_set_flag(c, CAP_EFFECTIVE, 1, &cap, CAP_CLEAR) ||
	    cap_set_flag(c, CAP_PERMITTED, 1, &cap, CAP_CLEAR) ||
	    cap_set_flag(c, CAP_INHERITABLE, 1, &cap, CAP_CLEAR) ||
	    cap_set_proc(c))
		ret = -errno;
	cap_free(c);
	return ret;
}

/* Is the capability in our effective set? */
static inline int mc_have_cap(cap_value_t cap)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t c = cap_get_proc();

	if (!c)
		return 0;
	cap_get_flag(c, cap, CAP_EFFECTIVE, &v);
	cap_free(c);
	return v == CAP_SET;
}

/* ---- payload patterns ---------------------------------------------- */

static inline unsigned char mc_pattern(uint32_t seq, uint32_t i)
{
	return (unsigned char)(seq * 131 + i * 7 + (i >> 8));
}

static inline void mc_fill(unsigned char *buf, uint32_t seq, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = mc_pattern(seq, i);
}

static inline int mc_check(const unsigned char *buf, uint32_t seq,
			   uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != mc_pattern(seq, i))
			return 0;
	return 1;
}

/* Blocking receive of the next message from src into buf: 0 or -errno. */
static inline int mc_recv_msg(const struct mcr_ep *ep, uint32_t src,
			      struct mpichan_msg *hdr, void *buf, size_t size,
			      int64_t timeout_ns)
{
	const struct mpichan_msg *m;
	int err, ret;

	for (;;) {
		m = mcr_peek(ep, src, &err);
		if (err)
			return err;
		if (m)
			break;
		ret = mcr_sleep(ep, timeout_ns, (int32_t)src);
		if (ret)
			return ret;
	}
	*hdr = *m;
	if (m->len > size)
		return -EMSGSIZE;
	memcpy(buf, m + 1, m->len);
	mcr_consume(ep, src, m);
	return 0;
}

/* Blocking send (sleeps while the ring is full), then notify. */
static inline int mc_send_msg(const struct mcr_ep *ep, uint32_t dst,
			      int32_t tag, const void *buf, uint32_t len,
			      int64_t timeout_ns)
{
	int ret;

	for (;;) {
		ret = mcr_send(ep, dst, MPICHAN_MSG_DATA, tag, 0, buf,
					len);
		if (ret != -EAGAIN)
			break;
		/* The receiver WAKEs us after it drained (see users). */
		ret = mcr_sleep(ep, timeout_ns, (int32_t)dst);
		if (ret && ret != -ETIMEDOUT)
			return ret;
	}
	if (ret)
		return ret;
	ret = mcr_notify(ep, dst);
	return ret < 0 ? ret : 0;
}

#endif /* MPICHAN_SELFTEST_HELPERS_H */
