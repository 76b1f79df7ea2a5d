// SPDX-License-Identifier: GPL-2.0
/*
 * Every error path of the module's setup and transfer paths, driven by
 * the kernel's systematic fault injection (/proc/thread-self/fail-nth,
 * with failslab and fail_page_alloc armed for sleeping allocations).
 *
 * For each step of a scenario and each n = 1, 2, ..., a fresh child
 * runs the steps before it, then makes the n-th fault-injectable call
 * of that step fail.  The step must succeed or fail with a clean errno,
 * the child must exit normally, and afterwards every counter in
 * /sys/kernel/debug/mpichan/stats must be back to zero.  n grows until
 * the step no longer reaches the n-th call.  Needs a kernel with
 * CONFIG_FAULT_INJECTION_DEBUG_FS (the debug kernel); skips otherwise.
 */
#include <sys/wait.h>

#include "helpers.h"
#include "kselftest_harness.h"

#define FI_DIR		"/sys/kernel/debug"
#define FI_MAX_NTH	400
#define FI_PAGE		4096UL

struct fi_state {
	int own, fd[2];
	struct mpichan_job_create c;
	struct mcr_ep ep[2];
	unsigned char *win;
	unsigned char *buf;
	__u64 handle;
	struct mpichan_region_reg reg;	/* rank 0's region over buf */
	unsigned char *rmap;		/* the owner's mapping of it */
};

static int fi_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static int fi_arm(void)
{
	static const char *const attrs[] = {
		FI_DIR "/failslab/ignore-gfp-wait",
		FI_DIR "/fail_page_alloc/ignore-gfp-wait",
		FI_DIR "/fail_page_alloc/ignore-gfp-highmem",
	};
	size_t i;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (fi_write(attrs[i], "N"))
			return -1;
	/* Single pages too: ring pages are allocated one at a time. */
	if (fi_write(FI_DIR "/fail_page_alloc/min-order", "0"))
		return -1;
	/* Quiet: a stack dump per injected fault would read as a bug. */
	fi_write(FI_DIR "/failslab/verbose", "0");
	fi_write(FI_DIR "/fail_page_alloc/verbose", "0");
	return 0;
}

static int fi_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static int fi_send(struct fi_state *s, size_t len, __u64 *handle)
{
	struct mpichan_iovec v = { (uintptr_t)s->buf, len };
	struct mpichan_send a = { .iov = (uintptr_t)&v, .iovcnt = 1, .dst = 1 };
	int ret = fi_ioctl(s->ep[0].fd, MPICHAN_IOC_SEND, &a);

	if (!ret && handle)
		*handle = a.handle;
	return ret;
}

static int fi_recv(struct fi_state *s, __u32 flags, __u64 handle,
		   struct mpichan_recv *out)
{
	struct mpichan_iovec v = { (uintptr_t)s->buf + 8 * FI_PAGE, 8 * FI_PAGE };
	struct mpichan_recv a = { .iov = (uintptr_t)&v, .iovcnt = 1, .src = 0,
				  .tag = MPICHAN_TAG_ANY, .flags = flags,
				  .handle = handle };
	int ret = fi_ioctl(s->ep[1].fd, MPICHAN_IOC_RECV, &a);

	if (out)
		*out = a;
	return ret;
}

/*
 * A batch the owner fd (no rank) copies with the region: a get, a put,
 * and a put from an iovec of two pieces.
 */
static int fi_region_copy(struct fi_state *s)
{
	struct mpichan_iovec v[2] = {
		{ (uintptr_t)s->buf + 12 * FI_PAGE, 100 },
		{ (uintptr_t)s->buf + 13 * FI_PAGE, FI_PAGE },
	};
	struct mpichan_rcopy e[3];
	struct mpichan_region_copy c = { .entries = (uintptr_t)e, .count = 3 };
	int i;

	memset(e, 0, sizeof(e));
	for (i = 0; i < 3; i++) {
		e[i].handle = s->reg.handle;
		e[i].key = s->reg.key;
	}
	e[0].addr = (uintptr_t)s->buf + 12 * FI_PAGE;
	e[0].len = 3 * FI_PAGE;
	e[0].offset = 5;
	e[1].addr = (uintptr_t)s->buf + 14 * FI_PAGE;
	e[1].len = FI_PAGE + 1;
	e[1].offset = FI_PAGE - 1;
	e[1].flags = MPICHAN_RCOPY_PUT;
	e[2].addr = (uintptr_t)v;
	e[2].iovcnt = 2;
	e[2].len = 100 + FI_PAGE;
	e[2].offset = 7;
	e[2].flags = MPICHAN_RCOPY_PUT | MPICHAN_RCOPY_IOV;
	return fi_ioctl(s->own, MPICHAN_IOC_REGION_COPY, &c);
}

/* The owner fd maps the region writable and touches it. */
static int fi_region_map(struct fi_state *s)
{
	struct mpichan_region_map m = { .handle = s->reg.handle,
					.key = s->reg.key,
					.flags = MPICHAN_REGION_WRITE };
	void *p;
	int ret;

	ret = fi_ioctl(s->own, MPICHAN_IOC_REGION_MAP, &m);
	if (ret)
		return ret;
	p = mmap(NULL, 4 * FI_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 s->own, m.offset);
	if (p == MAP_FAILED)
		return -errno;
	s->rmap = p;
	s->rmap[FI_PAGE] = s->rmap[0];
	return 0;
}

/* The scenario, one step at a time: 0 or -errno. */
static int fi_step(struct fi_state *s, int step)
{
	struct mpichan_region_dereg d;
	struct mpichan_recv r;
	struct mpichan_wait w = { .timeout_ns = 0, .peer = MPICHAN_RANK_NONE };
	char state[4096];
	void *p;
	int i, ret;

	switch (step) {
	case 0:
		s->own = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
		return s->own < 0 ? -errno : 0;
	case 1:
		s->c.nranks = 2;
		return fi_ioctl(s->own, MPICHAN_IOC_JOB_CREATE, &s->c);
	case 2:
	case 3:
		i = step - 2;
		s->fd[i] = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
		if (s->fd[i] < 0)
			return -errno;
		return mcr_attach(&s->ep[i], s->fd[i], s->c.job_id,
					 s->c.secret, i);
	case 4:
		/* Ring pages come on first touch. */
		return mcr_send(&s->ep[0], 1, MPICHAN_MSG_DATA, 1, 0,
					 "x", 1);
	case 5:
		p = mmap(NULL, 64 * FI_PAGE, PROT_READ, MAP_SHARED, s->fd[1],
			 MPICHAN_WINDOW_OFFSET);
		if (p == MAP_FAILED)
			return -errno;
		s->win = p;
		return 0;
	case 6:
		return fi_send(s, 5 * FI_PAGE + 100, &s->handle);
	case 7:
		ret = fi_recv(s, MPICHAN_RECV_HANDLE | MPICHAN_RECV_MAP,
			      s->handle, &r);
		if (ret || r.status != MPICHAN_XFER_MAPPED)
			return ret;
		{
			struct mpichan_unmap um = { .handle = r.handle };

			return fi_ioctl(s->fd[1], MPICHAN_IOC_UNMAP, &um);
		}
	case 8:
		/* Receive first (pinned), then the sender copies into it. */
		ret = fi_recv(s, 0, 0, NULL);
		return ret ? ret : fi_send(s, 3 * FI_PAGE, NULL);
	case 9:
		ret = fi_send(s, 2 * FI_PAGE, &s->handle);
		if (ret)
			return ret;
		{
			struct mpichan_cancel cc = { .handle = s->handle };

			return fi_ioctl(s->fd[0], MPICHAN_IOC_CANCEL, &cc);
		}
	case 10:
		ret = fi_ioctl(s->fd[1], MPICHAN_IOC_WAIT, &w);
		return ret == -ETIMEDOUT ? 0 : ret;
	case 11:
		snprintf(state, sizeof(state), MC_DEBUGFS "/job-%llu/state",
			 (unsigned long long)s->c.job_id);
		i = open(state, O_RDONLY | O_CLOEXEC);
		if (i < 0)
			return -errno;
		ret = read(i, state, sizeof(state)) < 0 ? -errno : 0;
		close(i);
		return ret;
	case 12:
		/* A rank registers a region (MPICHAN_FEAT_REGION). */
		s->reg.addr = (uintptr_t)s->buf;
		s->reg.len = 16 * FI_PAGE - 3;
		s->reg.flags = MPICHAN_REGION_WRITE;
		return fi_ioctl(s->fd[0], MPICHAN_IOC_REGION_REG, &s->reg);
	case 13:
		return fi_region_copy(s);
	case 14:
		return fi_region_map(s);
	case 15:
		/* Read the regions file while one is mapped. */
		i = open(MC_DEBUGFS "/regions", O_RDONLY | O_CLOEXEC);
		if (i < 0)
			return -errno;
		ret = read(i, state, sizeof(state)) < 0 ? -errno : 0;
		close(i);
		return ret;
	case 16:
		memset(&d, 0, sizeof(d));
		d.handle = s->reg.handle;
		return fi_ioctl(s->fd[0], MPICHAN_IOC_REGION_DEREG, &d);
	}
	return -EINVAL;
}

#define FI_STEPS 17

static void fi_cleanup(struct fi_state *s)
{
	if (s->rmap)
		munmap(s->rmap, 4 * FI_PAGE);
	if (s->win)
		munmap(s->win, 64 * FI_PAGE);
	mcr_detach(&s->ep[0]);
	mcr_detach(&s->ep[1]);
	if (s->fd[0] >= 0)
		close(s->fd[0]);
	if (s->fd[1] >= 0)
		close(s->fd[1]);
	if (s->own >= 0)
		close(s->own);
}

static int fi_clean_errno(int ret)
{
	return ret == 0 || ret == -ENOMEM || ret == -EFAULT ||
	       ret == -EAGAIN || ret == -EBUSY;
}

/*
 * Child: steps before `step` normally, then `step` with the n-th call
 * failing.  Exit 0: clean, fault fired; 1: clean, step finished before
 * the n-th call; 2: an earlier step failed; 3: not a clean errno.
 */
static int fi_child(int step, int nth)
{
	struct fi_state s = { .own = -1, .fd = { -1, -1 } };
	char val[16] = "";
	int i, ret, fired, nfd;

	s.ep[0].fd = s.ep[1].fd = -1;
	s.buf = mmap(NULL, 16 * FI_PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s.buf == MAP_FAILED)
		return 2;
	memset(s.buf, 0x5a, 16 * FI_PAGE);
	for (i = 0; i < step; i++)
		if (fi_step(&s, i))
			return 2;
	/*
	 * Opened before arming, then only pwrite/pread, which allocate
	 * nothing: the count must run out inside the step, not here.
	 */
	nfd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nfd < 0)
		return 2;
	snprintf(val, sizeof(val), "%d", nth);
	if (pwrite(nfd, val, strlen(val), 0) < 0)
		return 2;
	ret = fi_step(&s, step);
	memset(val, 0, sizeof(val));
	if (pread(nfd, val, sizeof(val) - 1, 0) <= 0)
		return 2;
	fired = atoi(val) == 0;
	if (pwrite(nfd, "0", 1, 0) < 0)
		return 2;
	close(nfd);
	fi_cleanup(&s);
	if (!fi_clean_errno(ret)) {
		fprintf(stderr, "# step %d nth %d: %s\n", step, nth,
			strerror(-ret));
		return 3;
	}
	return fired ? 0 : 1;
}

static int fi_stats_zero(void)
{
	return mc_stat("jobs") == 0 && mc_stat("ranks") == 0 &&
	       mc_stat("ring_pages") == 0 && mc_stat("pinned_pages") == 0 &&
	       mc_stat("regions") <= 0 && mc_stat("region_maps") <= 0;
}

FIXTURE(fi) {
	int unused;
};

FIXTURE_SETUP(fi)
{
}

FIXTURE_TEARDOWN(fi)
{
}

/*
 * Thousands of children under a debug kernel (KASAN, lockdep, kmemleak):
 * minutes, not the harness's default 30 s.
 */
TEST_F_TIMEOUT(fi, every_setup_allocation_fails_cleanly, 2400)
{
	int step, nth, hits = 0, status;
	pid_t pid;

	if (access(MPICHAN_DEVICE, F_OK))
		SKIP(return, "%s absent: is mpichan.ko loaded?", MPICHAN_DEVICE);
	if (access("/proc/thread-self/fail-nth", W_OK) ||
	    access(FI_DIR "/failslab", F_OK))
		SKIP(return, "no fault injection in this kernel (use make check-debug)");
	ASSERT_EQ(0, fi_arm());
	ASSERT_TRUE(fi_stats_zero());

	for (step = 0; step < FI_STEPS; step++) {
		for (nth = 1; nth <= FI_MAX_NTH; nth++) {
			pid = fork();
			ASSERT_LE(0, pid);
			if (pid == 0)
				_exit(fi_child(step, nth));
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
			ASSERT_TRUE(WIFEXITED(status))
				TH_LOG("step %d nth %d: killed by %d", step, nth,
				       WTERMSIG(status));
			ASSERT_GE(1, WEXITSTATUS(status))
				TH_LOG("step %d nth %d: exit %d", step, nth,
				       WEXITSTATUS(status));
			ASSERT_TRUE(fi_stats_zero())
				TH_LOG("step %d nth %d: jobs %ld ranks %ld pages %ld pinned %ld regions %ld maps %ld",
				       step, nth, mc_stat("jobs"), mc_stat("ranks"),
				       mc_stat("ring_pages"), mc_stat("pinned_pages"),
				       mc_stat("regions"), mc_stat("region_maps"));
			if (WEXITSTATUS(status) == 1)
				break;
			hits++;
		}
		ASSERT_GT(FI_MAX_NTH, nth);
		TH_LOG("step %d: %d injected faults", step, nth - 1);
	}
	printf("# error paths hit by fault injection: %d\n", hits);
}

TEST_HARNESS_MAIN
