// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile and odd input: garbage in the shared mapping, extreme values
 * and wrong sizes in every ioctl, odd mappings, closing under sleepers,
 * threads and fork().  The kernel must answer with an errno, never
 * hang, and never warn (tools/vm/run checks the kernel log).
 */
#include <pthread.h>
#include <sys/syscall.h>

#include <stddef.h>

#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(hostile) {
	struct mc_job job;
};

FIXTURE_SETUP(hostile)
{
	self->job.owner = -1;
	MC_REQUIRE_DEVICE();
}

FIXTURE_TEARDOWN(hostile)
{
	mc_job_close_owner(&self->job);
}

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void scribble(unsigned char *p, size_t len, int pattern)
{
	size_t i;

	switch (pattern) {
	case 0:	/* random */
		for (i = 0; i + 8 <= len; i += 8) {
			uint64_t v = rnd();

			memcpy(p + i, &v, 8);
		}
		break;
	case 1:
		memset(p, 0xff, len);
		break;
	case 2:
		memset(p, 0, len);
		break;
	default: /* counters just apart, huge lengths, odd cells */
		for (i = 0; i + 4 <= len; i += 4) {
			static const uint32_t v[] = {
				0x80000000U, 0x7fffffffU, 1, 0xffffffffU,
				0x10000U, 3,
			};

			memcpy(p + i, &v[(i / 4 + rnd() % 2) % 6], 4);
		}
	}
}

static int ok_wait(int ret)
{
	return ret == 0 || ret == -ETIMEDOUT || ret == -EPIPE;
}

/* Every call a rank can make, with every peer; 0 if all answered sanely. */
static int poke_everything(const struct mcr_ep *ep, __u64 id)
{
	struct mc_jstate s;
	int32_t peer;
	__u32 r;
	int ret;

	for (peer = MPICHAN_RANK_NONE; peer < (int32_t)ep->nranks; peer++) {
		ret = mc_wait(ep->fd, 0, peer, NULL);
		if (!ok_wait(ret))
			return 1;
		ret = mc_wait(ep->fd, MC_MS, peer, NULL);
		if (!ok_wait(ret))
			return 2;
	}
	ret = mc_poll(ep->fd, 0);
	if (ret < 0)
		return 3;
	for (r = 0; r < ep->nranks; r++)
		if (mc_wake(ep->fd, r))
			return 4;
	if (mc_debugfs_present()) {
		ret = mc_job_state(id, &s);
		if (ret || s.nranks != ep->nranks || s.nrank_lines != ep->nranks)
			return 5;
	}
	return 0;
}

/*
 * Four ranks: 0..2 here, 3 in a child that sleeps in WAIT meanwhile.
 * Rank 0 overwrites the whole mapping; everybody then uses the job and
 * leaves in every way.
 */
static void scribble_case(struct __test_metadata *_metadata,
			  struct mc_job *job, int pattern)
{
	struct mcr_ep e[3];
	int go[2], ready[2], r, d;
	struct mc_jstate s;
	pid_t pid;
	int ret;

	ASSERT_EQ(0, mc_job_create(job, 4, 4096));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct mcr_ep c;
		int i, ret;

		close(job->owner);
		CHILD_CHECK(mc_ep_open(&c, job, 3) == 0);
		CHILD_CHECK(mc_post(ready[1], 1) == 0);
		/* Sleep through the scribbling, then use the job. */
		for (i = 0; i < 20 && mc_take(go[0], 0) < 0; i++) {
			ret = mc_wait(c.fd, 50 * MC_MS, MPICHAN_RANK_NONE,
				      NULL);
			CHILD_CHECK(ok_wait(ret));
		}
		CHILD_CHECK(poke_everything(&c, job->id) == 0);
		CHILD_CHECK(mc_finish(c.fd) == 0);
		mc_ep_close(&c);
		_exit(0);
	}
	ASSERT_EQ(1, mc_take(ready[0], 10000));
	for (r = 0; r < 3; r++)
		ASSERT_EQ(0, mc_ep_open(&e[r], job, r));
	/* Some honest traffic first, so that ring pages exist. */
	for (r = 0; r < 3; r++)
		for (d = 0; d < 4; d++)
			ASSERT_EQ(0, mcr_send(&e[r], d,
						       MPICHAN_MSG_DATA, 0, 0,
						       "abc", 3));

	scribble(e[0].map, e[0].off.map_size, pattern);

	for (r = 0; r < 3; r++)
		EXPECT_EQ(0, poke_everything(&e[r], job->id))
			TH_LOG("rank %d, pattern %d", r, pattern);
	ASSERT_EQ(0, mc_post(go[1], 1));
	EXPECT_EQ(0, mc_reap(pid));

	/* The kernel's own state survived and is written back. */
	ASSERT_EQ(0, mc_finish(e[2].fd));
	mc_ep_close(&e[2]);
	mc_ep_close(&e[1]);
	EXPECT_EQ(MPICHAN_RANK_DEAD, mcr_rank_ctl(&e[0], 1)->state);
	EXPECT_EQ(MPICHAN_RANK_FINISHED, mcr_rank_ctl(&e[0], 2)->state);
	EXPECT_EQ(1, mcr_hdr(&e[0])->dead_count);
	EXPECT_EQ(2, mcr_hdr(&e[0])->finished_count);
	/*
	 * A departed peer's last messages come before its departure, and
	 * a scribbled ring looks like one that holds messages: the wait
	 * must answer at once, with either.
	 */
	ret = mc_wait(e[0].fd, 0, 1, NULL);
	EXPECT_TRUE(ret == 0 || ret == -EPIPE) TH_LOG("wait: %d", ret);
	ret = mc_wait(e[0].fd, 0, 3, NULL);
	EXPECT_TRUE(ret == 0 || ret == -EPIPE) TH_LOG("wait: %d", ret);
	if (mc_debugfs_present()) {
		ASSERT_EQ(0, mc_job_state(job->id, &s));
		EXPECT_EQ(1, s.dead);
		EXPECT_EQ(2, s.finished);
		EXPECT_STREQ("alive", s.rank[0].state);
		EXPECT_STREQ("dead", s.rank[1].state);
		EXPECT_STREQ("finished", s.rank[2].state);
		EXPECT_STREQ("finished", s.rank[3].state);
	}
	/* Scribble again with one rank left, and leave. */
	scribble(e[0].map, e[0].off.map_size, pattern);
	EXPECT_EQ(0, poke_everything(&e[0], job->id));
	mc_ep_close(&e[0]);
	mc_job_close_owner(job);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	if (mc_debugfs_present())
		EXPECT_FALSE(mc_job_dir_exists(job->id));
}

TEST_F_TIMEOUT(hostile, scribble_whole_mapping, 120)
{
	int pattern;

	for (pattern = 0; pattern < 4; pattern++)
		scribble_case(_metadata, &self->job, pattern);
}

struct scribbler {
	struct mcr_ep *ep;
	volatile int stop;
};

static void *scribble_fn(void *arg)
{
	struct scribbler *s = arg;
	size_t len = s->ep->off.map_size;

	while (!s->stop) {
		size_t off = rnd() % len, n = rnd() % 4096;

		if (off + n > len)
			n = len - off;
		scribble(s->ep->map + off, n, rnd() % 4);
	}
	return NULL;
}

/* Garbage while the other ranks use the kernel. */
TEST_F_TIMEOUT(hostile, scribble_during_use, 120)
{
	struct mcr_ep e[3];
	struct scribbler sc;
	pthread_t t;
	int64_t end;
	int r, i = 0;

	ASSERT_EQ(0, mc_job_create(&self->job, 3, 4096));
	for (r = 0; r < 3; r++)
		ASSERT_EQ(0, mc_ep_open(&e[r], &self->job, r));
	sc.ep = &e[0];
	sc.stop = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, scribble_fn, &sc));
	end = mc_now_ns() + 2 * MC_SEC;
	while (mc_now_ns() < end) {
		r = 1 + i++ % 2;
		EXPECT_EQ(0, poke_everything(&e[r], self->job.id));
	}
	sc.stop = 1;
	pthread_join(t, NULL);
	for (r = 0; r < 3; r++)
		mc_ep_close(&e[r]);
}

struct wake_later {
	int fd;
};

static void *wake_later_fn(void *arg)
{
	struct wake_later *w = arg;

	mc_sleep_ms(200);
	mc_wake(w->fd, 0);
	return NULL;
}

TEST_F(hostile, extreme_timeouts)
{
	struct wake_later waker;
	struct mcr_ep e0, e1;
	struct mpichan_msg hdr;
	char buf[8];
	pthread_t t;
	int64_t t0;
	int i;

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&e0, &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&e1, &self->job, 1));
	t0 = mc_now_ns();
	EXPECT_EQ(-ETIMEDOUT, mc_wait(e0.fd, 1, MPICHAN_RANK_ANY, NULL));
	/* With work pending, any timeout returns at once. */
	ASSERT_EQ(0, mc_wake(e1.fd, 0));
	EXPECT_EQ(0, mc_wait(e0.fd, INT64_MAX, MPICHAN_RANK_ANY, NULL));
	ASSERT_EQ(0, mc_wake(e1.fd, 0));
	EXPECT_EQ(0, mc_wait(e0.fd, INT64_MIN, MPICHAN_RANK_ANY, NULL));
	ASSERT_EQ(0, mcr_send(&e1, 0, MPICHAN_MSG_DATA, 0, 0, NULL, 0));
	EXPECT_EQ(0, mc_wait(e0.fd, INT64_MAX, 1, NULL));
	EXPECT_EQ(0, mc_wait(e0.fd, -1, 1, NULL));
	EXPECT_GT(MC_SEC, mc_now_ns() - t0);
	/* The longest timeouts really sleep, and a WAKE ends them. */
	ASSERT_EQ(0, mc_recv_msg(&e0, 1, &hdr, buf, sizeof(buf), 0));
	for (i = 0; i < 2; i++) {
		waker.fd = e1.fd;
		ASSERT_EQ(0, pthread_create(&t, NULL, wake_later_fn, &waker));
		t0 = mc_now_ns();
		EXPECT_EQ(0, mc_wait(e0.fd, i ? INT64_MIN : INT64_MAX,
				     MPICHAN_RANK_ANY, NULL));
		EXPECT_LE(150 * MC_MS, mc_now_ns() - t0);
		pthread_join(t, NULL);
	}
	/* A dead peer ends the longest wait. */
	mc_ep_close(&e1);
	EXPECT_EQ(-EPIPE, mc_wait(e0.fd, INT64_MAX, 1, NULL));
	EXPECT_EQ(-EPIPE, mc_wait(e0.fd, INT64_MIN, MPICHAN_RANK_ANY, NULL));
	mc_ep_close(&e0);
}

/*
 * One ioctl with the argument size changed: shorter is -EINVAL, longer
 * with a non-zero tail -E2BIG, longer with a zero tail accepted.
 */
struct sized {
	unsigned int dir, nr;
	size_t size;
	size_t min;	/* the first published size, 0: size */
};

static long ioc_sized(int fd, const struct sized *s, size_t size, void *arg)
{
	return ioctl(fd, _IOC(s->dir, MPICHAN_IOC_MAGIC, s->nr, size), arg) ?
		-errno : 0;
}

TEST_F(hostile, wrong_struct_sizes)
{
	static const struct sized ioc[] = {
		{ _IOC_READ | _IOC_WRITE, 0x01, sizeof(struct mpichan_job_create), 0 },
		{ _IOC_READ | _IOC_WRITE, 0x02, sizeof(struct mpichan_attach),
		  offsetof(struct mpichan_attach, off.coll) },
		{ _IOC_READ | _IOC_WRITE, 0x03, sizeof(struct mpichan_wait), 0 },
		{ _IOC_WRITE, 0x04, sizeof(struct mpichan_wake), 0 },
	};
	static unsigned char buf[16384];
	struct mpichan_attach *a;
	struct mcr_ep e0;
	size_t i, size;
	int fd;

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&e0, &self->job, 0));
	for (i = 0; i < ARRAY_SIZE(ioc); i++) {
		const struct sized *s = &ioc[i];
		/* A fresh fd for CREATE and ATTACH, the rank for the rest. */
		int target = s->nr <= 0x02 ? mc_open() : e0.fd;
		size_t min = s->min ? s->min : s->size;

		ASSERT_LE(0, target);
		memset(buf, 0, sizeof(buf));
		for (size = 0; size < min; size += (size < 8 ? 1 : 8)) {
			EXPECT_EQ(-EINVAL, ioc_sized(target, s, size, buf))
				TH_LOG("nr %u size %zu", s->nr, size);
		}
		EXPECT_EQ(-EINVAL, ioc_sized(target, s, min - 1, buf));
		/* Longer, non-zero tail: refused before anything happens. */
		memset(buf, 0, sizeof(buf));
		buf[s->size] = 1;
		EXPECT_EQ(-E2BIG, ioc_sized(target, s, s->size + 8, buf))
			TH_LOG("nr %u", s->nr);
		memset(buf, 0, sizeof(buf));
		buf[s->size + 63] = 0x80;
		EXPECT_EQ(-E2BIG, ioc_sized(target, s, s->size + 64, buf))
			TH_LOG("nr %u", s->nr);
		/* Larger than a page: refused whatever the tail. */
		memset(buf, 0, sizeof(buf));
		EXPECT_EQ(-E2BIG, ioc_sized(target, s, 8192, buf))
			TH_LOG("nr %u", s->nr);
		if (target != e0.fd)
			close(target);
	}

	/* Longer with a zero tail: each call works as usual. */
	memset(buf, 0, sizeof(buf));
	fd = mc_open();
	ASSERT_LE(0, fd);
	((struct mpichan_job_create *)buf)->nranks = 2;
	EXPECT_EQ(0, ioc_sized(fd, &ioc[0], ioc[0].size + 32, buf));
	EXPECT_NE(0, ((struct mpichan_job_create *)buf)->job_id);
	for (i = ioc[0].size; i < ioc[0].size + 32; i++)
		ASSERT_EQ(0, buf[i]);
	close(fd);

	memset(buf, 0, sizeof(buf));
	fd = mc_open();
	ASSERT_LE(0, fd);
	a = (struct mpichan_attach *)buf;
	a->job_id = self->job.id;
	a->secret[0] = self->job.secret[0];
	a->secret[1] = self->job.secret[1];
	a->rank = 1;
	EXPECT_EQ(0, ioc_sized(fd, &ioc[1], ioc[1].size + 16, buf));
	EXPECT_EQ(2, ((struct mpichan_attach *)buf)->nranks);

	memset(buf, 0, sizeof(buf));
	((struct mpichan_wake *)buf)->rank = 0;
	EXPECT_EQ(0, ioc_sized(fd, &ioc[3], ioc[3].size + 8, buf));
	memset(buf, 0, sizeof(buf));
	((struct mpichan_wait *)buf)->peer = MPICHAN_RANK_ANY;
	((struct mpichan_wait *)buf)->timeout_ns = MC_SEC;
	EXPECT_EQ(0, ioc_sized(e0.fd, &ioc[2], ioc[2].size + 24, buf));
	close(fd);

	/* FINISH takes no argument; other directions are unknown. */
	EXPECT_EQ(-1, ioctl(e0.fd, _IOW(MPICHAN_IOC_MAGIC, 0x05, int), buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(0, mcr_hdr(&e0)->finished_count);
	mc_ep_close(&e0);
}

TEST_F(hostile, bad_argument_pointers_efault)
{
	long page = sysconf(_SC_PAGESIZE);
	struct mcr_ep e0;
	unsigned char *p;
	int fd = mc_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&e0, &self->job, 0));
	EXPECT_EQ(-1, ioctl(fd, MPICHAN_IOC_JOB_CREATE, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, MPICHAN_IOC_ATTACH, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(e0.fd, MPICHAN_IOC_WAIT, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(e0.fd, MPICHAN_IOC_WAKE, (void *)-4096L));
	EXPECT_EQ(EFAULT, errno);
	/* Half the argument on an unmapped page. */
	p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p + page, page));
	EXPECT_EQ(-1, ioctl(fd, MPICHAN_IOC_ATTACH, p + page - 8));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, page);
	/* None of it attached the fd. */
	EXPECT_EQ(0, mc_attach_fd(fd, &self->job, 1, NULL));
	close(fd);
	mc_ep_close(&e0);
}

/*
 * An argument that can be read but not written back: the call must fail
 * with -EFAULT before it acts (Documentation/uapi.md), not create a job
 * or take a rank the caller never hears of.
 */
TEST_F(hostile, unwritable_argument_acts_not)
{
	long page = sysconf(_SC_PAGESIZE);
	struct mpichan_job_create *c;
	struct mpichan_attach *a;
	unsigned char *p;
	long jobs = mc_stat("jobs");
	int fd = mc_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	jobs = mc_stat("jobs");
	p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);

	c = (struct mpichan_job_create *)p;
	c->nranks = 2;
	ASSERT_EQ(0, mprotect(p, page, PROT_READ));
	EXPECT_EQ(-1, ioctl(fd, MPICHAN_IOC_JOB_CREATE, c));
	EXPECT_EQ(EFAULT, errno);
	if (jobs >= 0) {
		EXPECT_EQ(jobs, mc_stat("jobs"));
	}
	/* The fd is still fresh: it can attach. */
	EXPECT_EQ(0, mc_attach_fd(fd, &self->job, 1, NULL));
	close(fd);

	ASSERT_EQ(0, mprotect(p, page, PROT_READ | PROT_WRITE));
	a = (struct mpichan_attach *)p;
	memset(a, 0, sizeof(*a));
	a->job_id = self->job.id;
	a->secret[0] = self->job.secret[0];
	a->secret[1] = self->job.secret[1];
	a->rank = 0;
	ASSERT_EQ(0, mprotect(p, page, PROT_READ));
	fd = mc_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, MPICHAN_IOC_ATTACH, a));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
	/* Rank 0 was not taken (ranks are never reused). */
	fd = mc_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, mc_attach_fd(fd, &self->job, 0, NULL));
	close(fd);
	munmap(p, page);
}

TEST_F(hostile, odd_mappings)
{
	long page = sysconf(_SC_PAGESIZE);
	struct mcr_ep e0, e1;
	unsigned char *m, *m2, *hole;
	size_t len;

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&e0, &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&e1, &self->job, 1));
	len = e0.off.map_size;

	/* Cannot grow. */
	m = mremap(e0.map, len, len + page, 0);
	EXPECT_EQ(MAP_FAILED, m);
	m = mremap(e0.map, len, len * 2, MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, m);

	/* Several mappings of one fd, split and punched. */
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, e0.fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	m2 = mmap(NULL, len, PROT_READ, MAP_SHARED, e0.fd, 0);
	ASSERT_NE(MAP_FAILED, m2);
	ASSERT_EQ(0, munmap(m + page, page));
	ASSERT_EQ(0, mprotect(m + 2 * page, page, PROT_READ));
	EXPECT_EQ(0, madvise(m, page, MADV_DONTNEED));
	EXPECT_EQ(0, madvise(m + 2 * page, len - 2 * page, MADV_DONTNEED));
	/* The memory is the job's: it comes back as it was. */
	EXPECT_EQ(MPICHAN_JOB_MAGIC, ((struct mpichan_job_hdr *)m)->magic);
	EXPECT_EQ(MPICHAN_JOB_MAGIC, ((struct mpichan_job_hdr *)m2)->magic);
	ASSERT_EQ(0, mcr_send(&e0, 1, MPICHAN_MSG_DATA, 9, 0, "z", 1));
	EXPECT_EQ(0, madvise(e0.map, len, MADV_DONTNEED));
	EXPECT_EQ(1, mcr_ring_ctl(&e1, 0, 1)->tail);
	EXPECT_EQ(0, mc_wait(e1.fd, 0, 0, NULL));
	/* Moving it whole is allowed, and it is the same memory. */
	hole = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	m2 = mremap(m2, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	ASSERT_EQ(hole, m2);
	EXPECT_EQ(1, ((struct mpichan_ring_ctl *)(m2 + e0.off.ring_ctl +
			mcr_ring_index(&e0, 0, 1) *
			MPICHAN_RING_CTL_SIZE))->tail);
	munmap(m2, len);
	/* MAP_FIXED over part of another mapping. */
	m2 = mmap(m + 4 * page, page, PROT_READ, MAP_SHARED | MAP_FIXED,
		  e1.fd, 0);
	EXPECT_EQ(m + 4 * page, m2);
	EXPECT_EQ(MPICHAN_JOB_MAGIC, ((struct mpichan_job_hdr *)m2)->magic);
	munmap(m, len);
	mc_ep_close(&e0);
	mc_ep_close(&e1);
}

struct thread_rank {
	const struct mc_job *job;
	int ret;
};

static void *thread_rank_fn(void *arg)
{
	struct thread_rank *t = arg;
	struct mcr_ep ep;
	struct mpichan_msg hdr;
	char buf[32];

	t->ret = mc_ep_open(&ep, t->job, 1);
	if (t->ret)
		return NULL;
	/* Receive from the main thread's rank, answer, leave cleanly. */
	t->ret = mc_recv_msg(&ep, 0, &hdr, buf, sizeof(buf), 10 * MC_SEC);
	if (!t->ret && strcmp(buf, "ping"))
		t->ret = -EBADMSG;
	if (!t->ret)
		t->ret = mc_send_msg(&ep, 0, 2, "pong", 5, MC_MS);
	if (!t->ret)
		t->ret = mc_finish(ep.fd);
	mc_ep_close(&ep);
	return NULL;
}

/* A second thread of the same process attaches its own fd. */
TEST_F(hostile, attach_from_second_thread)
{
	struct thread_rank t = { .job = &self->job };
	struct mcr_ep e0;
	struct mpichan_msg hdr;
	pthread_t th;
	char buf[32];

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&e0, &self->job, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, thread_rank_fn, &t));
	ASSERT_EQ(0, mc_send_msg(&e0, 1, 1, "ping", 5, MC_MS));
	ASSERT_EQ(0, mc_recv_msg(&e0, 1, &hdr, buf, sizeof(buf), 10 * MC_SEC));
	EXPECT_STREQ("pong", buf);
	pthread_join(th, NULL);
	EXPECT_EQ(0, t.ret);
	EXPECT_EQ(MPICHAN_RANK_FINISHED, mcr_rank_ctl(&e0, 1)->state);
	EXPECT_EQ((__u32)getpid(), mcr_rank_ctl(&e0, 1)->pid);
	mc_ep_close(&e0);
}

static void *close_fn(void *arg)
{
	int *fd = arg;

	mc_sleep_ms(200);
	close(*fd);
	return NULL;
}

/* Closing a peer's fd while this rank sleeps naming it. */
TEST_F(hostile, close_while_peer_sleeps)
{
	struct mcr_ep e0, e1;
	pthread_t th;
	int fd;

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&e0, &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&e1, &self->job, 1));
	mcr_detach(&e1);
	fd = e1.fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, close_fn, &fd));
	EXPECT_EQ(-EPIPE, mc_wait(e0.fd, 20 * MC_SEC, 1, NULL));
	pthread_join(th, NULL);

	/* The owner leaving does not disturb a sleeper. */
	ASSERT_EQ(0, pthread_create(&th, NULL, close_fn, &self->job.owner));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(e0.fd, 500 * MC_MS, MPICHAN_RANK_NONE,
				      NULL));
	pthread_join(th, NULL);
	self->job.owner = -1;
	mc_ep_close(&e0);
}

/* fork() after attach: the child is nobody, the parent carries on. */
TEST_F(hostile, fork_after_attach)
{
	struct mcr_ep e0, e1;
	struct mpichan_msg hdr;
	char buf[8];
	pid_t pid;
	int k;

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&e0, &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&e1, &self->job, 1));
	for (k = 0; k < 3; k++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			struct mcr_ep c;

			/* Its inherited fds are not ranks here. */
			CHILD_CHECK(mc_wake(e0.fd, 1) == -EBADFD);
			CHILD_CHECK(mc_wait(e1.fd, 0, 0, NULL) == -EBADFD);
			/* Nor may it take a rank that is taken. */
			CHILD_CHECK(mc_ep_open(&c, &self->job, 0) == -EBUSY);
			if (k == 1)
				pause();
			if (k == 2)
				*(volatile unsigned char *)e0.map = 1;
			_exit(0);
		}
		if (k == 1) {
			mc_sleep_ms(50);
			kill(pid, SIGKILL);
		}
		EXPECT_EQ(k == 0 ? 0 : k == 1 ? 128 + SIGKILL : 128 + SIGSEGV,
			  mc_reap(pid));
		/* The child's exit is no departure of the parent's ranks. */
		EXPECT_EQ(MPICHAN_RANK_ALIVE, mcr_rank_ctl(&e0, 0)->state);
		EXPECT_EQ(MPICHAN_RANK_ALIVE, mcr_rank_ctl(&e0, 1)->state);
		EXPECT_EQ(0, mcr_hdr(&e0)->dead_count);
		EXPECT_EQ(-ETIMEDOUT, mc_wait(e1.fd, 0, MPICHAN_RANK_ANY, NULL));
		ASSERT_EQ(0, mc_send_msg(&e0, 1, k, "ok", 3, MC_MS));
		ASSERT_EQ(0, mc_recv_msg(&e1, 0, &hdr, buf, sizeof(buf),
					 MC_SEC));
		EXPECT_EQ(k, hdr.tag);
	}
	mc_ep_close(&e0);
	mc_ep_close(&e1);
}

/* Many ranks of one job in one process, all talking to one. */
TEST_F_TIMEOUT(hostile, many_ranks_one_process, 120)
{
	enum { N = 64 };
	static struct mcr_ep e[N];
	struct mpichan_msg hdr;
	char buf[8];
	int r, n = 0;

	ASSERT_EQ(0, mc_job_create(&self->job, N, 0));
	for (r = 0; r < N; r++)
		ASSERT_EQ(0, mc_ep_open(&e[r], &self->job, r));
	for (r = 1; r < N; r++)
		ASSERT_EQ(0, mc_send_msg(&e[r], 0, r, "hi", 3, MC_MS));
	for (r = 1; r < N; r++) {
		ASSERT_EQ(0, mc_recv_msg(&e[0], r, &hdr, buf, sizeof(buf), 0));
		n += hdr.tag == r;
	}
	EXPECT_EQ(N - 1, n);
	for (r = N - 1; r >= 0; r--)
		mc_ep_close(&e[r]);
}

TEST_HARNESS_MAIN
