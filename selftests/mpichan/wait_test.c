// SPDX-License-Identifier: GPL-2.0
/*
 * Sleeping and waking: WAIT, WAKE, poll() and FINISH, and how a rank's
 * departure reaches its peers.
 */
#include <pthread.h>
#include <sys/time.h>

#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(wait) {
	struct mc_job job;
	struct mcr_ep e[3];
};

FIXTURE_SETUP(wait)
{
	int r;

	self->job.owner = -1;
	for (r = 0; r < 3; r++)
		self->e[r].fd = -1;
	MC_REQUIRE_DEVICE();
	ASSERT_EQ(0, mc_job_create(&self->job, 3, 4096));
	for (r = 0; r < 3; r++)
		ASSERT_EQ(0, mc_ep_open(&self->e[r], &self->job, r));
}

FIXTURE_TEARDOWN(wait)
{
	int r;

	for (r = 0; r < 3; r++)
		mc_ep_close(&self->e[r]);
	mc_job_close_owner(&self->job);
}

/* The fixture's job replaced by a two-rank job of its own, unattached. */
static int new_job_of_two(FIXTURE_DATA(wait) *self)
{
	int r;

	for (r = 0; r < 3; r++)
		mc_ep_close(&self->e[r]);
	mc_job_close_owner(&self->job);
	return mc_job_create(&self->job, 2, 4096);
}

TEST_F(wait, timeout)
{
	int64_t t0, dt;
	__u32 dead;

	t0 = mc_now_ns();
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, &dead));
	EXPECT_EQ(0, dead);
	EXPECT_GT(200 * MC_MS, mc_now_ns() - t0);	/* 0: just check */

	t0 = mc_now_ns();
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 100 * MC_MS,
				      MPICHAN_RANK_ANY, NULL));
	dt = mc_now_ns() - t0;
	EXPECT_LE(100 * MC_MS, dt);
	EXPECT_GT(3 * MC_SEC, dt);
}

TEST_F(wait, returns_on_incoming_message)
{
	int64_t t0;

	ASSERT_EQ(0, mcr_send(&self->e[1], 0, MPICHAN_MSG_DATA, 0, 0,
				       "x", 1));
	t0 = mc_now_ns();
	EXPECT_EQ(0, mc_wait(self->e[0].fd, 5 * MC_SEC, MPICHAN_RANK_ANY, NULL));
	EXPECT_EQ(0, mc_wait(self->e[0].fd, -1, MPICHAN_RANK_ANY, NULL));
	EXPECT_EQ(0, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, NULL));
	EXPECT_GT(MC_SEC, mc_now_ns() - t0);
	/* Not for the others. */
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[1].fd, 0, MPICHAN_RANK_ANY, NULL));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[2].fd, 0, MPICHAN_RANK_ANY, NULL));
}

TEST_F(wait, wake_before_wait_is_not_lost)
{
	/* A WAKE is remembered until a WAIT returns ... */
	ASSERT_EQ(0, mc_wake(self->e[1].fd, 0));
	EXPECT_EQ(0, mc_wait(self->e[0].fd, 5 * MC_SEC, MPICHAN_RANK_ANY, NULL));
	/* ... and then consumed. */
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, NULL));

	/* Only one is remembered. */
	ASSERT_EQ(0, mc_wake(self->e[1].fd, 0));
	ASSERT_EQ(0, mc_wake(self->e[2].fd, 0));
	ASSERT_EQ(0, mc_wake(self->e[2].fd, 0));
	EXPECT_EQ(0, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, NULL));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, NULL));

	/* A rank may wake itself; the wake is for the target only. */
	ASSERT_EQ(0, mc_wake(self->e[2].fd, 2));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, NULL));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[1].fd, 0, MPICHAN_RANK_ANY, NULL));
	EXPECT_EQ(0, mc_wait(self->e[2].fd, 0, MPICHAN_RANK_NONE, NULL));
}

struct waker {
	int fd;
	__u32 rank;
	int delay_ms;
	int kill_pid;		/* SIGKILL this instead of waking */
	int64_t at;		/* when it acted */
	int ret;
};

static void *waker_fn(void *arg)
{
	struct waker *w = arg;

	mc_sleep_ms(w->delay_ms);
	w->at = mc_now_ns();
	if (w->kill_pid)
		w->ret = kill(w->kill_pid, SIGKILL);
	else
		w->ret = mc_wake(w->fd, w->rank);
	return NULL;
}

TEST_F(wait, wake_wakes_a_sleeper)
{
	struct waker w = { .fd = self->e[1].fd, .rank = 0, .delay_ms = 300 };
	pthread_t t;
	int64_t t0, dt;

	t0 = mc_now_ns();
	ASSERT_EQ(0, pthread_create(&t, NULL, waker_fn, &w));
	EXPECT_EQ(0, mc_wait(self->e[0].fd, -1, MPICHAN_RANK_ANY, NULL));
	dt = mc_now_ns() - t0;
	pthread_join(t, NULL);
	EXPECT_EQ(0, w.ret);
	EXPECT_LE(250 * MC_MS, dt);	/* it did sleep */
	EXPECT_GT(w.at + 500 * MC_MS, mc_now_ns());
}

/* The same across processes, with the ring protocol's sleep/notify. */
TEST_F(wait, notify_wakes_other_process)
{
	int ready[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, new_job_of_two(self));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct mcr_ep c;
		struct mpichan_msg hdr;
		char buf[16];

		CHILD_CHECK(mc_ep_open(&c, &self->job, 1) == 0);
		CHILD_CHECK(mc_post(ready[1], 1) == 0);
		/* Sleeps in WAIT: nothing has been sent yet. */
		CHILD_CHECK(mc_recv_msg(&c, 0, &hdr, buf, sizeof(buf),
					-1) == 0);
		CHILD_CHECK(hdr.len == 3 && !memcmp(buf, "hi", 3));
		_exit(0);
	}
	ASSERT_EQ(1, mc_take(ready[0], 10000));
	ASSERT_EQ(0, mc_ep_open(&self->e[0], &self->job, 0));
	mc_sleep_ms(300);
	ASSERT_EQ(0, mcr_send(&self->e[0], 1, MPICHAN_MSG_DATA, 0, 0,
				       "hi", 3));
	/* The child advertised NEED_WAKEUP, so notify makes the call. */
	EXPECT_EQ(1, mcr_notify(&self->e[0], 1));
	EXPECT_EQ(0, mc_reap(pid));
}

static void on_alarm(int sig)
{
}

TEST_F(wait, signal_interrupts_eintr)
{
	struct sigaction sa;
	struct itimerval it = { .it_value = { 0, 200000 } };
	int64_t t0, dt;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = 0;	/* no SA_RESTART */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));

	t0 = mc_now_ns();
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	EXPECT_EQ(-EINTR, mc_wait(self->e[0].fd, -1, MPICHAN_RANK_ANY, NULL));
	dt = mc_now_ns() - t0;
	EXPECT_LE(150 * MC_MS, dt);
	EXPECT_GT(3 * MC_SEC, dt);

	/* A relative timeout is interrupted too, not waited out. */
	t0 = mc_now_ns();
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	EXPECT_EQ(-EINTR, mc_wait(self->e[0].fd, 20 * MC_SEC, 1, NULL));
	EXPECT_GT(5 * MC_SEC, mc_now_ns() - t0);
}

TEST_F(wait, peer_dead_epipe)
{
	struct mpichan_job_hdr *h = mcr_hdr(&self->e[0]);
	__u32 dead = 99;

	/* Leaving without FINISH is a death. */
	mc_ep_close(&self->e[1]);
	EXPECT_EQ(MPICHAN_RANK_DEAD, mcr_rank_ctl(&self->e[0], 1)->state);
	EXPECT_EQ(1, h->dead_count);
	EXPECT_EQ(0, h->finished_count);

	EXPECT_EQ(-EPIPE, mc_wait(self->e[0].fd, -1, 1, &dead));
	EXPECT_EQ(1, dead);
	EXPECT_EQ(-EPIPE, mc_wait(self->e[0].fd, 0, 1, &dead));
	EXPECT_EQ(-EPIPE, mc_wait(self->e[0].fd, -1, MPICHAN_RANK_ANY, &dead));
	EXPECT_EQ(1, dead);
	/* Not when naming a live peer, nor with RANK_NONE. */
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, 2, &dead));
	EXPECT_EQ(1, dead);
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 10 * MC_MS,
				      MPICHAN_RANK_NONE, &dead));
	EXPECT_EQ(1, dead);
	/* RANK_NONE still sees work. */
	ASSERT_EQ(0, mc_wake(self->e[2].fd, 0));
	EXPECT_EQ(0, mc_wait(self->e[0].fd, -1, MPICHAN_RANK_NONE, NULL));
}

TEST_F(wait, peer_finished_epipe_not_a_death)
{
	struct mpichan_job_hdr *h = mcr_hdr(&self->e[0]);
	__u32 dead = 99;

	ASSERT_EQ(0, mc_finish(self->e[1].fd));
	/* Still alive until it leaves. */
	EXPECT_EQ(MPICHAN_RANK_ALIVE, mcr_rank_ctl(&self->e[0], 1)->state);
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, 1, NULL));
	mc_ep_close(&self->e[1]);
	EXPECT_EQ(MPICHAN_RANK_FINISHED,
		  mcr_rank_ctl(&self->e[0], 1)->state);
	EXPECT_EQ(1, h->finished_count);
	EXPECT_EQ(0, h->dead_count);

	EXPECT_EQ(-EPIPE, mc_wait(self->e[0].fd, -1, 1, &dead));
	EXPECT_EQ(0, dead);
	/* A finish is no death: RANK_ANY keeps waiting. */
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 10 * MC_MS,
				      MPICHAN_RANK_ANY, &dead));
	EXPECT_EQ(0, dead);
	EXPECT_FALSE(mc_poll(self->e[0].fd, 0) & POLLERR);
}

/*
 * A peer that sent and then left: its messages are still there, so a
 * WAIT naming it has work to report before the departure (as a pipe
 * gives its data before EOF).  Otherwise a receiver that checked its
 * rings, then slept, learns of the departure while the message it
 * waits for sits in its ring.
 */
TEST_F(wait, pending_message_before_departure)
{
	const struct mpichan_msg *m;
	int err, leave;

	for (leave = 0; leave < 2; leave++) {
		struct mcr_ep *peer = &self->e[1 + leave];
		int32_t p = 1 + leave;

		ASSERT_EQ(0, mcr_send(peer, 0, MPICHAN_MSG_DATA, p, 0,
					       "last", 5));
		if (leave == 0)
			ASSERT_EQ(0, mc_finish(peer->fd));
		mc_ep_close(peer);	/* finished, then dead */
		EXPECT_EQ(0, mc_wait(self->e[0].fd, MC_SEC, p, NULL))
			TH_LOG("peer %s", leave ? "dead" : "finished");
		m = mcr_peek(&self->e[0], p, &err);
		ASSERT_NE(NULL, m);
		EXPECT_EQ(p, m->tag);
		mcr_consume(&self->e[0], p, m);
		/* Drained: now the departure. */
		EXPECT_EQ(-EPIPE, mc_wait(self->e[0].fd, MC_SEC, p, NULL));
	}
}

/* Another peer's traffic does not hide the departure of the one named. */
TEST_F(wait, departure_not_hidden_by_others)
{
	const struct mpichan_msg *m;
	int err;

	ASSERT_EQ(0, mcr_send(&self->e[2], 0, MPICHAN_MSG_DATA, 2, 0,
				       "busy", 5));
	mc_ep_close(&self->e[1]);	/* dead, nothing left in its ring */
	EXPECT_EQ(-EPIPE, mc_wait(self->e[0].fd, MC_SEC, 1, NULL));
	/* Waits that do not name it see the other peer's message. */
	EXPECT_EQ(0, mc_wait(self->e[0].fd, MC_SEC, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(0, mc_wait(self->e[0].fd, MC_SEC, 2, NULL));
	m = mcr_peek(&self->e[0], 2, &err);
	ASSERT_NE(NULL, m);
	mcr_consume(&self->e[0], 2, m);
	EXPECT_EQ(-EPIPE, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, NULL));
}

TEST_F(wait, empty_peer_has_not_left)
{
	struct mc_job job;
	struct mcr_ep ep;

	ASSERT_EQ(0, mc_job_create(&job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&ep, &job, 0));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(ep.fd, 0, 1, NULL));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(ep.fd, 10 * MC_MS, 1, NULL));
	mc_ep_close(&ep);
	mc_job_close_owner(&job);
}

static uint64_t finish_rank(struct mcr_ep *e, void *arg)
{
	CHILD_CHECK(mc_finish(e->fd) == 0);
	return 0;
}

TEST_F(wait, killed_rank_is_dead)
{
	struct mpichan_job_hdr *h;
	struct mc_child child;
	struct mc_job job;
	struct mcr_ep ep;

	mc_child_init(&child);
	ASSERT_EQ(0, mc_job_create(&job, 2, 4096));
	ASSERT_EQ(0, mc_child_start(&child, &job, 1, finish_rank, NULL));
	ASSERT_EQ(0, mc_child_ready(&child, NULL));
	ASSERT_EQ(0, mc_ep_open(&ep, &job, 0));
	EXPECT_EQ(128 + SIGKILL, mc_child_kill(&child));
	h = mcr_hdr(&ep);
	/* The child called FINISH, then was killed: finished. */
	EXPECT_EQ(MPICHAN_RANK_FINISHED, mcr_rank_ctl(&ep, 1)->state);
	EXPECT_EQ(1, h->finished_count);
	EXPECT_EQ(0, h->dead_count);
	mc_ep_close(&ep);
	mc_job_close_owner(&job);

	/* Without FINISH, a kill -9 is a death. */
	ASSERT_EQ(0, mc_job_create(&job, 2, 4096));
	ASSERT_EQ(0, mc_child_start(&child, &job, 1, NULL, NULL));
	ASSERT_EQ(0, mc_child_ready(&child, NULL));
	ASSERT_EQ(0, mc_ep_open(&ep, &job, 0));
	EXPECT_EQ(128 + SIGKILL, mc_child_kill(&child));
	h = mcr_hdr(&ep);
	EXPECT_EQ(MPICHAN_RANK_DEAD, mcr_rank_ctl(&ep, 1)->state);
	EXPECT_EQ(1, h->dead_count);
	EXPECT_EQ(0, h->finished_count);
	EXPECT_EQ(-EPIPE, mc_wait(ep.fd, 0, 1, NULL));
	mc_ep_close(&ep);
	mc_job_close_owner(&job);
	mc_child_close(&child);
}

/* The child is a rank, not the job's owner. */
static uint64_t close_owner(struct mcr_ep *e, void *arg)
{
	const struct mc_job *job = arg;

	close(job->owner);
	return 0;
}

/* kill -9 of a peer: a sleeper naming it returns -EPIPE at once. */
TEST_F(wait, death_wakes_sleeper_promptly)
{
	struct waker w = { .delay_ms = 300 };
	static const int32_t peers[] = { 1, MPICHAN_RANK_ANY };
	struct mc_child child;
	struct mc_job job;
	struct mcr_ep ep;
	pthread_t t;
	int64_t dt;
	int i;

	mc_child_init(&child);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, mc_job_create(&job, 2, 4096));
		ASSERT_EQ(0, mc_child_start(&child, &job, 1, close_owner, &job));
		ASSERT_EQ(0, mc_child_ready(&child, NULL));
		ASSERT_EQ(0, mc_ep_open(&ep, &job, 0));
		w.kill_pid = child.pid;
		ASSERT_EQ(0, pthread_create(&t, NULL, waker_fn, &w));
		EXPECT_EQ(-EPIPE, mc_wait(ep.fd, 20 * MC_SEC, peers[i], NULL));
		dt = mc_now_ns() - w.at;
		pthread_join(t, NULL);
		EXPECT_EQ(0, w.ret);
		EXPECT_GT(500 * MC_MS, dt)
			TH_LOG("peer %d: EPIPE %lld ms after the kill",
			       peers[i], (long long)(dt / MC_MS));
		/* The waker killed it: this only reaps it. */
		EXPECT_EQ(128 + SIGKILL, mc_child_kill(&child));
		mc_ep_close(&ep);
		mc_job_close_owner(&job);
	}
	mc_child_close(&child);
}

struct sleeper {
	int fd;
	int32_t peer;
	int64_t timeout;
	int ret;
	int64_t at;
};

static void *sleeper_fn(void *arg)
{
	struct sleeper *s = arg;

	s->ret = mc_wait(s->fd, s->timeout, s->peer, NULL);
	s->at = mc_now_ns();
	return NULL;
}

/* A death wakes every sleeper of the job, whatever it waits for. */
TEST_F(wait, death_wakes_every_sleeper)
{
	struct sleeper s[2] = {
		{ .fd = self->e[0].fd, .peer = MPICHAN_RANK_ANY, .timeout = -1 },
		{ .fd = self->e[1].fd, .peer = 2, .timeout = 20 * MC_SEC },
	};
	pthread_t t[2];
	int64_t at;
	int i;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, sleeper_fn, &s[i]));
	mc_sleep_ms(300);
	at = mc_now_ns();
	mc_ep_close(&self->e[2]);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(-EPIPE, s[i].ret);
		EXPECT_GT(500 * MC_MS, s[i].at - at);
	}
}

/* A finish does not end a RANK_ANY sleep. */
TEST_F(wait, finish_does_not_wake_any_with_epipe)
{
	struct sleeper s = { .fd = self->e[0].fd, .peer = MPICHAN_RANK_ANY,
			     .timeout = 600 * MC_MS };
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, sleeper_fn, &s));
	mc_sleep_ms(100);
	ASSERT_EQ(0, mc_finish(self->e[2].fd));
	mc_ep_close(&self->e[2]);
	pthread_join(t, NULL);
	EXPECT_EQ(-ETIMEDOUT, s.ret);
}

TEST_F(wait, bad_arguments)
{
	static const int32_t bad_peers[] = { 3, 4, 1000, INT32_MAX, -3, -100,
					     INT32_MIN };
	struct mpichan_wait w;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_peers); i++) {
		EXPECT_EQ(-ERANGE, mc_wait(self->e[0].fd, 0, bad_peers[i], NULL))
			TH_LOG("peer %d", bad_peers[i]);
	}
	memset(&w, 0, sizeof(w));
	w.peer = MPICHAN_RANK_ANY;
	w.flags = 1;
	EXPECT_EQ(-1, ioctl(self->e[0].fd, MPICHAN_IOC_WAIT, &w));
	EXPECT_EQ(EINVAL, errno);
	w.flags = 0x80000000U;
	EXPECT_EQ(-1, ioctl(self->e[0].fd, MPICHAN_IOC_WAIT, &w));
	EXPECT_EQ(EINVAL, errno);
	w.flags = 0;
	w.pad = 1;
	EXPECT_EQ(-1, ioctl(self->e[0].fd, MPICHAN_IOC_WAIT, &w));
	EXPECT_EQ(EINVAL, errno);
	/* The valid specials. */
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, NULL));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, 2, NULL));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, 0, NULL));
}

TEST_F(wait, wake_bad_arguments)
{
	struct mpichan_wake k;

	EXPECT_EQ(-ERANGE, mc_wake(self->e[0].fd, 3));
	EXPECT_EQ(-ERANGE, mc_wake(self->e[0].fd, 0x80000000U));
	EXPECT_EQ(-ERANGE, mc_wake(self->e[0].fd, UINT32_MAX));
	k.rank = 1;
	k.flags = 1;
	EXPECT_EQ(-1, ioctl(self->e[0].fd, MPICHAN_IOC_WAKE, &k));
	EXPECT_EQ(EINVAL, errno);
	/* None of those woke anyone. */
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[1].fd, 0, MPICHAN_RANK_ANY, NULL));
}

TEST_F(wait, rank_calls_need_a_rank_enotconn)
{
	int fd = mc_open();
	int fds[2], i;

	ASSERT_LE(0, fd);
	fds[0] = fd;
	fds[1] = self->job.owner;
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(-ENOTCONN, mc_wait(fds[i], 0, MPICHAN_RANK_ANY, NULL));
		EXPECT_EQ(-ENOTCONN, mc_wait(fds[i], -1, MPICHAN_RANK_ANY, NULL));
		EXPECT_EQ(-ENOTCONN, mc_wake(fds[i], 0));
		EXPECT_EQ(-ENOTCONN, mc_finish(fds[i]));
	}
	/* A refused attach does not make a rank either. */
	EXPECT_EQ(-EBUSY, mc_attach_fd(fd, &self->job, 0, NULL));
	EXPECT_EQ(-ENOTCONN, mc_wake(fd, 0));
	close(fd);
	/* The owner's refused WAKE did not reach rank 0. */
	EXPECT_EQ(-ETIMEDOUT, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, NULL));
}

TEST_F(wait, finish_twice_and_keep_working)
{
	ASSERT_EQ(0, mc_finish(self->e[1].fd));
	EXPECT_EQ(0, mc_finish(self->e[1].fd));
	/* FINISH only marks how the rank will leave. */
	EXPECT_EQ(0, mc_wake(self->e[1].fd, 0));
	EXPECT_EQ(0, mc_wait(self->e[0].fd, 0, 1, NULL));
	EXPECT_EQ(0, mcr_hdr(&self->e[0])->finished_count);
}

TEST_F(wait, poll_states)
{
	const struct mpichan_msg *m;
	int err, fd;

	/* Nothing to do. */
	EXPECT_EQ(0, mc_poll(self->e[0].fd, 0));
	EXPECT_EQ(0, mc_poll(self->e[0].fd, 50));

	/* A message: POLLIN until consumed. */
	ASSERT_EQ(0, mcr_send(&self->e[2], 0, MPICHAN_MSG_DATA, 0, 0,
				       NULL, 0));
	EXPECT_TRUE(mc_poll(self->e[0].fd, 0) & POLLIN);
	EXPECT_TRUE(mc_poll(self->e[0].fd, 0) & POLLIN);
	m = mcr_peek(&self->e[0], 2, &err);
	ASSERT_NE(NULL, m);
	mcr_consume(&self->e[0], 2, m);
	EXPECT_EQ(0, mc_poll(self->e[0].fd, 0));

	/* A WAKE: POLLIN until a WAIT returns. */
	ASSERT_EQ(0, mc_wake(self->e[1].fd, 0));
	EXPECT_TRUE(mc_poll(self->e[0].fd, 0) & POLLIN);
	EXPECT_FALSE(mc_poll(self->e[1].fd, 0) & POLLIN);
	EXPECT_EQ(0, mc_wait(self->e[0].fd, 0, MPICHAN_RANK_ANY, NULL));
	EXPECT_EQ(0, mc_poll(self->e[0].fd, 0));

	/* An fd that is no rank. */
	fd = mc_open();
	ASSERT_LE(0, fd);
	EXPECT_TRUE(mc_poll(fd, 0) & POLLERR);
	EXPECT_TRUE(mc_poll(self->job.owner, 0) & POLLERR);
	close(fd);

	/* A death: POLLERR for every rank. */
	mc_ep_close(&self->e[2]);
	EXPECT_TRUE(mc_poll(self->e[0].fd, 0) & POLLERR);
	EXPECT_TRUE(mc_poll(self->e[1].fd, 0) & POLLERR);
}

TEST_F(wait, poll_blocks_until_wake)
{
	struct waker w = { .fd = self->e[1].fd, .rank = 0, .delay_ms = 300 };
	pthread_t t;
	int64_t t0, dt;
	int rev;

	t0 = mc_now_ns();
	ASSERT_EQ(0, pthread_create(&t, NULL, waker_fn, &w));
	rev = mc_poll(self->e[0].fd, 20000);
	dt = mc_now_ns() - t0;
	pthread_join(t, NULL);
	EXPECT_TRUE(rev & POLLIN);
	EXPECT_FALSE(rev & POLLERR);
	EXPECT_LE(250 * MC_MS, dt);
	EXPECT_GT(w.at + 500 * MC_MS, mc_now_ns());
}

TEST_F(wait, poll_woken_by_death)
{
	struct waker w = { .delay_ms = 300 };
	struct mc_child child;
	pthread_t t;
	int rev;

	mc_child_init(&child);
	ASSERT_EQ(0, new_job_of_two(self));
	ASSERT_EQ(0, mc_child_start(&child, &self->job, 1, NULL, NULL));
	ASSERT_EQ(0, mc_child_ready(&child, NULL));
	ASSERT_EQ(0, mc_ep_open(&self->e[0], &self->job, 0));
	w.kill_pid = child.pid;
	ASSERT_EQ(0, pthread_create(&t, NULL, waker_fn, &w));
	rev = mc_poll(self->e[0].fd, 20000);
	pthread_join(t, NULL);
	EXPECT_TRUE(rev & POLLERR);
	EXPECT_GT(w.at + 500 * MC_MS, mc_now_ns());
	/* The waker killed it: this only reaps it. */
	EXPECT_EQ(128 + SIGKILL, mc_child_kill(&child));
	mc_child_close(&child);
}

TEST_HARNESS_MAIN
