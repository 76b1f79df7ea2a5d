// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel owns a job's lifetime: its memory goes when the last file
 * and the last mapping go, however the processes ended.  Checked with
 * debugfs' stats, which must read zero once every job is gone (these
 * tests expect to be alone on the machine, as in the test VM).
 */
#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(life) {
	int unused;
};

FIXTURE_SETUP(life)
{
	MC_REQUIRE_DEVICE();
	if (!mc_debugfs_present())
		SKIP(return, "%s absent: is debugfs mounted?", MC_DEBUGFS);
	/* Every earlier test cleaned up after itself. */
	ASSERT_EQ(0, mc_stat("jobs"));
	ASSERT_EQ(0, mc_stat("ranks"));
	ASSERT_EQ(0, mc_stat("ring_pages"));
}

FIXTURE_TEARDOWN(life)
{
}

static void expect_all_gone(struct __test_metadata *_metadata)
{
	EXPECT_EQ(0, mc_stat("jobs"));
	EXPECT_EQ(0, mc_stat("ranks"));
	EXPECT_EQ(0, mc_stat("ring_pages"));
	EXPECT_EQ(0, mc_stat("ring_bytes"));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
}

/* Send one message on every ring so that every ring page exists. */
static int touch_all_rings(struct mcr_ep *e, int n)
{
	int s, d, ret;

	for (s = 0; s < n; s++)
		for (d = 0; d < n; d++) {
			ret = mcr_send(&e[s], d, MPICHAN_MSG_DATA, 0,
						0, "x", 1);
			if (ret)
				return ret;
		}
	return 0;
}

TEST_F(life, freed_after_close)
{
	struct mcr_ep e[3];
	struct mc_job job;
	long pages;
	int r;

	ASSERT_EQ(0, mc_job_create(&job, 3, 8192));
	for (r = 0; r < 3; r++)
		ASSERT_EQ(0, mc_ep_open(&e[r], &job, r));
	ASSERT_EQ(0, touch_all_rings(e, 3));
	EXPECT_EQ(1, mc_stat("jobs"));
	EXPECT_EQ(3, mc_stat("ranks"));
	pages = mc_stat("ring_pages");
	/* Nine rings of one touched cell page each, plus control pages. */
	EXPECT_LE(9 + 2, pages);
	EXPECT_EQ(pages * sysconf(_SC_PAGESIZE), mc_stat("ring_bytes"));
	EXPECT_TRUE(mc_job_dir_exists(job.id));

	mc_job_close_owner(&job);
	for (r = 0; r < 3; r++)
		mc_ep_close(&e[r]);
	expect_all_gone(_metadata);
	EXPECT_FALSE(mc_job_dir_exists(job.id));
}

TEST_F(life, owner_alone_frees_job)
{
	struct mc_job job;

	ASSERT_EQ(0, mc_job_create(&job, 16, 0));
	EXPECT_EQ(1, mc_stat("jobs"));
	mc_job_close_owner(&job);
	expect_all_gone(_metadata);
}

TEST_F(life, unattached_fds_hold_nothing)
{
	int fds[32], i;

	for (i = 0; i < 32; i++)
		ASSERT_LE(0, fds[i] = mc_open());
	EXPECT_EQ(0, mc_stat("jobs"));
	for (i = 0; i < 32; i++)
		close(fds[i]);
}

/* A mapping holds its file: the rank stays until it is unmapped. */
TEST_F(life, mapping_keeps_job_alive)
{
	struct mcr_ep e0, e1;
	struct mc_job job;
	struct mpichan_msg hdr;
	char buf[16];

	ASSERT_EQ(0, mc_job_create(&job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&e0, &job, 0));
	ASSERT_EQ(0, mc_ep_open(&e1, &job, 1));
	mc_job_close_owner(&job);
	ASSERT_EQ(0, mcr_send(&e0, 1, MPICHAN_MSG_DATA, 5, 0, "ok", 3));

	/* Rank 0 closes its fd but keeps the mapping. */
	close(e0.fd);
	e0.fd = -1;
	EXPECT_EQ(1, mc_stat("jobs"));
	EXPECT_EQ(MPICHAN_RANK_ALIVE, mcr_rank_ctl(&e1, 0)->state);
	/* Rank 0 has not left: a WAIT naming it finds the message. */
	EXPECT_EQ(0, mc_wait(e1.fd, 0, 0, NULL));
	/* Its memory still works, both ways. */
	EXPECT_EQ(MPICHAN_JOB_MAGIC, mcr_hdr(&e0)->magic);
	ASSERT_EQ(0, mc_recv_msg(&e1, 0, &hdr, buf, sizeof(buf), 0));
	EXPECT_EQ(5, hdr.tag);

	/* Rank 1 too: now only the mappings hold the job. */
	close(e1.fd);
	e1.fd = -1;
	EXPECT_EQ(1, mc_stat("jobs"));
	mcr_detach(&e1);
	EXPECT_EQ(1, mc_stat("jobs"));
	EXPECT_TRUE(mc_job_dir_exists(job.id));
	/* The last one leaves: rank 0 is dead (no FINISH), job gone. */
	mcr_detach(&e0);
	expect_all_gone(_metadata);
	EXPECT_FALSE(mc_job_dir_exists(job.id));
}

/* A partial munmap leaves the rest of the mapping holding the job. */
TEST_F(life, partial_unmap)
{
	struct mcr_ep e0;
	struct mc_job job;
	long page = sysconf(_SC_PAGESIZE);

	ASSERT_EQ(0, mc_job_create(&job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&e0, &job, 0));
	mc_job_close_owner(&job);
	close(e0.fd);
	e0.fd = -1;
	ASSERT_EQ(0, munmap(e0.map + page, e0.off.map_size - page));
	EXPECT_EQ(1, mc_stat("jobs"));
	EXPECT_EQ(MPICHAN_JOB_MAGIC, mcr_hdr(&e0)->magic);
	ASSERT_EQ(0, munmap(e0.map, page));
	e0.map = NULL;
	expect_all_gone(_metadata);
}

static void drain(const struct mcr_ep *ep)
{
	const struct mpichan_msg *m;
	uint32_t src;
	int err;

	for (src = 0; src < ep->nranks; src++)
		while ((m = mcr_peek(ep, src, &err)))
			mcr_consume(ep, src, m);
}

/* Ranks killed whatever they were doing: everything is freed. */
TEST_F(life, killed_processes_free_everything)
{
	int ready[2], i, k;
	pid_t pid[4];
	struct mc_job job;

	ASSERT_EQ(0, pipe(ready));
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, mc_job_create(&job, 4, 4096));
		for (i = 0; i < 4; i++) {
			pid[i] = fork();
			ASSERT_LE(0, pid[i]);
			if (pid[i] == 0) {
				struct mcr_ep e;
				int d;

				close(job.owner);
				CHILD_CHECK(mc_ep_open(&e, &job, i) == 0);
				for (d = 0; d < 4; d++)
					mcr_send(&e, d, MPICHAN_MSG_DATA,
							  0, 0, "abc", 3);
				CHILD_CHECK(mc_post(ready[1], 1) == 0);
				switch (i) {
				case 0:	/* asleep in WAIT, rings drained */
					for (;;) {
						drain(&e);
						mc_wait(e.fd, -1,
							MPICHAN_RANK_NONE,
							NULL);
					}
					break;
				case 1:	/* asleep in poll */
					for (;;)
						mc_poll(e.fd, -1);
					break;
				case 2:	/* spinning on its rings */
					for (;;)
						(void)mcr_any_incoming(&e);
					break;
				default: /* blocked elsewhere */
					pause();
				}
				_exit(0);
			}
		}
		for (i = 0; i < 4; i++)
			ASSERT_EQ(1, mc_take(ready[0], 10000));
		/* In round 1 the owner goes before the kills, else after. */
		if (k == 1)
			mc_job_close_owner(&job);
		EXPECT_EQ(4, mc_stat("ranks"));
		mc_sleep_ms(50);
		for (i = 0; i < 4; i++)
			kill(pid[i], SIGKILL);
		for (i = 0; i < 4; i++)
			EXPECT_EQ(128 + SIGKILL, mc_reap(pid[i]));
		EXPECT_EQ(0, mc_stat("ranks"));
		if (k == 0) {
			struct mc_jstate s;

			ASSERT_EQ(0, mc_job_state(job.id, &s));
			EXPECT_EQ(4, s.dead);
		}
		mc_job_close_owner(&job);
		expect_all_gone(_metadata);
		EXPECT_FALSE(mc_job_dir_exists(job.id));
	}
}

/* The launcher is killed while its ranks run: they finish the job. */
TEST_F(life, owner_killed_ranks_carry_on)
{
	struct mc_job job;
	struct mcr_ep e0, e1;
	struct mpichan_msg hdr;
	char buf[8];
	int ready[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CHILD_CHECK(mc_job_create(&job, 2, 4096) == 0);
		CHILD_CHECK(write(ready[1], &job, sizeof(job)) == sizeof(job));
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(job), read(ready[0], &job, sizeof(job)));
	ASSERT_EQ(0, mc_ep_open(&e0, &job, 0));
	ASSERT_EQ(0, mc_ep_open(&e1, &job, 1));
	kill(pid, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, mc_reap(pid));
	EXPECT_EQ(1, mc_stat("jobs"));
	ASSERT_EQ(0, mc_send_msg(&e0, 1, 1, "bye", 4, MC_MS));
	ASSERT_EQ(0, mc_recv_msg(&e1, 0, &hdr, buf, sizeof(buf), MC_SEC));
	EXPECT_STREQ("bye", buf);
	EXPECT_EQ(0, mc_finish(e0.fd));
	EXPECT_EQ(0, mc_finish(e1.fd));
	mc_ep_close(&e0);
	mc_ep_close(&e1);
	expect_all_gone(_metadata);
}

/* Many jobs, created and torn down: nothing accumulates. */
TEST_F_TIMEOUT(life, churn, 120)
{
	struct mcr_ep e0, e1;
	struct mc_job job;
	__u64 last = 0;
	int i;

	for (i = 0; i < 300; i++) {
		ASSERT_EQ(0, mc_job_create(&job, 2, i % 2 ? 4096 : 0));
		EXPECT_NE(last, job.id);
		last = job.id;
		ASSERT_EQ(0, mc_ep_open(&e0, &job, 0));
		ASSERT_EQ(0, mc_ep_open(&e1, &job, 1));
		ASSERT_EQ(0, mcr_send(&e0, 1, MPICHAN_MSG_DATA, 0, 0,
					       "x", 1));
		if (i % 3 == 0)
			mc_job_close_owner(&job);
		if (i % 2)
			EXPECT_EQ(0, mc_finish(e1.fd));
		mc_ep_close(&e1);
		mc_ep_close(&e0);
		mc_job_close_owner(&job);
	}
	expect_all_gone(_metadata);
}

TEST_HARNESS_MAIN
