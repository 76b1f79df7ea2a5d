// SPDX-License-Identifier: GPL-2.0
/*
 * Ping-pong between two processes in which both sides sleep in WAIT
 * for every single message (mcr_sleep/mcr_notify): any lost
 * wake-up hangs it, and the harness' timeout turns that into a failure.
 * MPICHAN_STRESS_MSGS sets the number of round trips (default 1000000).
 *
 * Every WAIT has a 30 s timeout, so a lost wake-up fails the test within
 * 30 s; the harness timeout is only a backstop, generous because under
 * TCG emulation a round trip costs 1-2 ms (a million: about 30 min).
 */
#include "kselftest_harness.h"
#include "helpers.h"

static long stress_msgs(void)
{
	const char *s = getenv("MPICHAN_STRESS_MSGS");
	long n = s ? strtol(s, NULL, 0) : 1000000;

	return n > 0 ? n : 1000000;
}

/* Wait for the next message from peer, always through WAIT. */
static int take(const struct mcr_ep *ep, uint32_t peer, uint32_t *seq)
{
	const struct mpichan_msg *m;
	int err, ret;

	for (;;) {
		m = mcr_peek(ep, peer, &err);
		if (err)
			return err;
		if (m)
			break;
		ret = mcr_sleep(ep, 30 * MC_SEC, (int32_t)peer);
		if (ret)
			return ret;
	}
	if (m->len != sizeof(*seq))
		return -EBADMSG;
	memcpy(seq, m + 1, sizeof(*seq));
	mcr_consume(ep, peer, m);
	return 0;
}

static int give(const struct mcr_ep *ep, uint32_t peer, uint32_t seq)
{
	int ret = mcr_send(ep, peer, MPICHAN_MSG_DATA, 0, 0, &seq,
				    sizeof(seq));

	if (ret)
		return ret;
	ret = mcr_notify(ep, peer);
	return ret < 0 ? ret : 0;
}

FIXTURE(stress) {
	struct mc_job job;
};

FIXTURE_SETUP(stress)
{
	self->job.owner = -1;
	MC_REQUIRE_DEVICE();
}

FIXTURE_TEARDOWN(stress)
{
	mc_job_close_owner(&self->job);
}

TEST_F_TIMEOUT(stress, pingpong_sleep_every_message, 7200)
{
	long n = stress_msgs(), i;
	struct mcr_ep ep;
	int64_t t0, dt;
	uint32_t seq;
	pid_t pid;

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct mcr_ep c;

		close(self->job.owner);
		CHILD_CHECK(mc_ep_open(&c, &self->job, 1) == 0);
		for (i = 0; i < n; i++) {
			CHILD_CHECK(take(&c, 0, &seq) == 0);
			CHILD_CHECK(seq == (uint32_t)i);
			CHILD_CHECK(give(&c, 0, seq) == 0);
		}
		/* Leave only once the parent has the last reply. */
		CHILD_CHECK(take(&c, 0, &seq) == 0);
		CHILD_CHECK(seq == (uint32_t)n);
		CHILD_CHECK(mc_finish(c.fd) == 0);
		mc_ep_close(&c);
		_exit(0);
	}
	ASSERT_EQ(0, mc_ep_open(&ep, &self->job, 0));
	t0 = mc_now_ns();
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, give(&ep, 1, (uint32_t)i));
		ASSERT_EQ(0, take(&ep, 1, &seq));
		ASSERT_EQ((uint32_t)i, seq);
	}
	dt = mc_now_ns() - t0;
	ASSERT_EQ(0, give(&ep, 1, (uint32_t)n));
	EXPECT_EQ(0, mc_reap(pid));
	TH_LOG("%ld round trips in %lld ms: %lld ns each", n,
	       (long long)(dt / MC_MS), (long long)(dt / n));
	if (mc_debugfs_present()) {
		struct mc_jstate s;

		ASSERT_EQ(0, mc_job_state(self->job.id, &s));
		/* Both sides slept, and only woke through WAKE or data. */
		TH_LOG("rank 0: %lld waits, %lld wakes; rank 1: %lld waits, %lld wakes",
		       s.rank[0].waits, s.rank[0].wakes, s.rank[1].waits,
		       s.rank[1].wakes);
		EXPECT_STREQ("finished", s.rank[1].state);
	}
	mc_ep_close(&ep);
}

TEST_HARNESS_MAIN
