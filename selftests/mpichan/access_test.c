// SPDX-License-Identifier: GPL-2.0
/*
 * Who may attach to a job and look at it: its user, or a holder of
 * CAP_SYS_ADMIN.  Runs as root; each case forks helpers that become
 * uid 65534 (nobody) or drop capabilities with libcap.
 */
#include "kselftest_harness.h"
#include "helpers.h"

static const cap_value_t dac_caps[] = {
	CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
};
static const cap_value_t dac_admin_caps[] = {
	CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_SYS_ADMIN,
};

FIXTURE(acc) {
	struct mc_job job;
	int pipe[2];
	pid_t helper;
};

FIXTURE_SETUP(acc)
{
	self->job.owner = -1;
	self->helper = 0;
	MC_REQUIRE_DEVICE();
	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	ASSERT_EQ(0, pipe(self->pipe));
}

FIXTURE_TEARDOWN(acc)
{
	mc_job_close_owner(&self->job);
	if (self->helper > 0) {
		kill(self->helper, SIGKILL);
		mc_reap(self->helper);
	}
}

/* Fork a helper that runs fn() as uid `id` with caps; its exit code. */
static int as_user(uid_t id, const cap_value_t *caps, int n,
		   int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		CHILD_CHECK(mc_become(id, caps, n) == 0);
		CHILD_CHECK(geteuid() == id);
		_exit(fn(arg));
	}
	return mc_reap(pid);
}

/* Exit codes of attach helpers: the errno of the refusal, 0 if taken. */
struct attach_arg {
	const struct mc_job *job;
	__u32 rank;
	int wrong_secret;
};

static int attach_fn(void *p)
{
	struct attach_arg *a = p;
	struct mc_job job = *a->job;
	struct mcr_ep ep;
	int ret;

	if (a->wrong_secret)
		job.secret[0] ^= 1;
	ret = mc_ep_open(&ep, &job, a->rank);
	if (ret)
		return -ret;
	/* Attached: the mapping shows it. */
	CHILD_CHECK(mcr_rank_ctl(&ep, a->rank)->pid == (__u32)getpid());
	mc_ep_close(&ep);
	return 0;
}

/* A job created by uid 65534 in a helper that stays until killed. */
static void nobody_job(struct __test_metadata *_metadata,
		       FIXTURE_DATA(acc) *self)
{
	self->helper = fork();
	ASSERT_LE(0, self->helper);
	if (self->helper == 0) {
		struct mc_job job;

		CHILD_CHECK(mc_become(MC_NOBODY, NULL, 0) == 0);
		CHILD_CHECK(mc_job_create(&job, 4, 4096) == 0);
		CHILD_CHECK(write(self->pipe[1], &job, sizeof(job)) ==
			    sizeof(job));
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(self->job), read(self->pipe[0], &self->job,
					  sizeof(self->job)));
	self->job.owner = -1;	/* the helper's */
}

TEST_F(acc, other_user_eperm)
{
	struct attach_arg a = { .job = &self->job, .rank = 0 };

	ASSERT_EQ(0, mc_job_create(&self->job, 4, 4096));
	EXPECT_EQ(EPERM, as_user(MC_NOBODY, NULL, 0, attach_fn, &a));
	/* Identity is checked first: no probing of secrets or ranks. */
	a.wrong_secret = 1;
	EXPECT_EQ(EPERM, as_user(MC_NOBODY, NULL, 0, attach_fn, &a));
	a.wrong_secret = 0;
	a.rank = 99;
	EXPECT_EQ(EPERM, as_user(MC_NOBODY, NULL, 0, attach_fn, &a));
	/* The refusals took no rank. */
	a.rank = 0;
	EXPECT_EQ(0, attach_fn(&a));
}

TEST_F(acc, other_user_with_cap_sys_admin)
{
	static const cap_value_t admin[] = { CAP_SYS_ADMIN };
	struct attach_arg a = { .job = &self->job, .rank = 1 };

	ASSERT_EQ(0, mc_job_create(&self->job, 4, 4096));
	EXPECT_EQ(0, as_user(MC_NOBODY, admin, 1, attach_fn, &a));
	/* The secret is still needed. */
	a.rank = 2;
	a.wrong_secret = 1;
	EXPECT_EQ(EACCES, as_user(MC_NOBODY, admin, 1, attach_fn, &a));
	/* Other capabilities do not override. */
	a.wrong_secret = 0;
	EXPECT_EQ(EPERM, as_user(MC_NOBODY, dac_caps, 2, attach_fn, &a));
}

/* Root without CAP_SYS_ADMIN is just another user. */
TEST_F(acc, root_without_cap_sys_admin_eperm)
{
	struct attach_arg a = { .job = &self->job, .rank = 0 };
	pid_t pid;

	nobody_job(_metadata, self);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CHILD_CHECK(mc_drop_cap(CAP_SYS_ADMIN) == 0);
		CHILD_CHECK(geteuid() == 0);
		_exit(attach_fn(&a));
	}
	EXPECT_EQ(EPERM, mc_reap(pid));
	/* With it, root may. */
	EXPECT_EQ(0, attach_fn(&a));
}

TEST_F(acc, same_unprivileged_user_attaches)
{
	struct attach_arg a = { .job = &self->job, .rank = 3 };

	nobody_job(_metadata, self);
	EXPECT_EQ(0, as_user(MC_NOBODY, NULL, 0, attach_fn, &a));
	a.rank = 2;
	a.wrong_secret = 1;
	EXPECT_EQ(EACCES, as_user(MC_NOBODY, NULL, 0, attach_fn, &a));
	a.wrong_secret = 0;
	a.rank = 3;
	EXPECT_EQ(EBUSY, as_user(MC_NOBODY, NULL, 0, attach_fn, &a));
	a.rank = 4;
	EXPECT_EQ(ERANGE, as_user(MC_NOBODY, NULL, 0, attach_fn, &a));
}

/* Exit code: the errno of opening job-<id>/state, 0 if it opened. */
static int open_state_fn(void *p)
{
	const struct mc_job *job = p;
	char path[128];
	int fd;

	mc_state_path(path, sizeof(path), job->id);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* Its own job's state, as the control that the caps suffice. */
static int own_state_fn(void *p)
{
	struct mc_job job;
	int ret;

	if (mc_job_create(&job, 2, 0))
		return 100;
	ret = open_state_fn(&job);
	mc_job_close_owner(&job);
	if (ret)
		return ret;
	/* And stats are anybody's. */
	return mc_stat("jobs") >= 1 ? 0 : 101;
}

TEST_F(acc, debugfs_state_other_user_eacces)
{
	if (!mc_debugfs_present())
		SKIP(return, "%s absent", MC_DEBUGFS);
	ASSERT_EQ(0, mc_job_create(&self->job, 2, 0));
	EXPECT_EQ(0, as_user(MC_NOBODY, dac_caps, 2, own_state_fn, NULL));
	EXPECT_EQ(EACCES, as_user(MC_NOBODY, dac_caps, 2, open_state_fn,
				  &self->job));
	EXPECT_EQ(0, as_user(MC_NOBODY, dac_admin_caps, 3, open_state_fn,
			     &self->job));
	EXPECT_EQ(0, open_state_fn(&self->job));
}

static int root_no_admin_state_fn(void *p)
{
	CHILD_CHECK(mc_drop_cap(CAP_SYS_ADMIN) == 0);
	return open_state_fn(p);
}

TEST_F(acc, debugfs_state_root_without_cap_sys_admin)
{
	pid_t pid;

	if (!mc_debugfs_present())
		SKIP(return, "%s absent", MC_DEBUGFS);
	nobody_job(_metadata, self);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(root_no_admin_state_fn(&self->job));
	EXPECT_EQ(EACCES, mc_reap(pid));
	EXPECT_EQ(0, open_state_fn(&self->job));
	/* The job's own user may, given path lookup. */
	EXPECT_EQ(0, as_user(MC_NOBODY, dac_caps, 2, open_state_fn,
			     &self->job));
}

/* The state shows the creator's uid. */
TEST_F(acc, debugfs_state_shows_uid)
{
	struct mc_jstate s;

	if (!mc_debugfs_present())
		SKIP(return, "%s absent", MC_DEBUGFS);
	nobody_job(_metadata, self);
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_EQ(MC_NOBODY, s.uid);
	EXPECT_EQ(4, s.nranks);
}

TEST_HARNESS_MAIN
