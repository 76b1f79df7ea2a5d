// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs and ranks: JOB_CREATE's argument checks, ATTACH's refusals (each
 * with its own errno), what ATTACH reports and what the job header in
 * the shared mapping shows.
 */
#include <stddef.h>

#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(job) {
	__u32 max_ranks;
	struct mc_job job;
};

FIXTURE_SETUP(job)
{
	self->job.owner = -1;
	MC_REQUIRE_DEVICE();
	self->max_ranks = mc_max_ranks();
	ASSERT_LE(2, self->max_ranks);
}

FIXTURE_TEARDOWN(job)
{
	mc_job_close_owner(&self->job);
}

static int create_raw(__u32 nranks, __u32 ring_bytes, __u32 flags, __u32 pad)
{
	struct mpichan_job_create c;
	int fd = mc_open(), ret;

	if (fd < 0)
		return -errno;
	memset(&c, 0, sizeof(c));
	c.nranks = nranks;
	c.ring_bytes = ring_bytes;
	c.flags = flags;
	c.pad = pad;
	ret = mc_create_fd(fd, &c);
	close(fd);
	return ret;
}

TEST_F(job, create_bad_nranks_einval)
{
	EXPECT_EQ(-EINVAL, create_raw(0, 0, 0, 0));
	EXPECT_EQ(-EINVAL, create_raw(self->max_ranks + 1, 0, 0, 0));
	EXPECT_EQ(-EINVAL, create_raw(UINT32_MAX, 0, 0, 0));
	EXPECT_EQ(-EINVAL, create_raw(0x80000000U, 4096, 0, 0));
	/* The limits themselves are fine. */
	EXPECT_EQ(0, create_raw(1, 0, 0, 0));
	EXPECT_EQ(0, create_raw(self->max_ranks, 0, 0, 0));
}

TEST_F(job, create_bad_ring_bytes_einval)
{
	static const __u32 bad[] = {
		1, 64, 2048, MPICHAN_RING_MIN_BYTES / 2,
		MPICHAN_RING_MIN_BYTES - 1, MPICHAN_RING_MIN_BYTES + 1,
		6000, 12288, MPICHAN_RING_MAX_BYTES - 1,
		MPICHAN_RING_MAX_BYTES + 1, MPICHAN_RING_MAX_BYTES * 2,
		0x80000000U, UINT32_MAX,
	};
	__u32 b;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, create_raw(2, bad[i], 0, 0))
			TH_LOG("ring_bytes %u", bad[i]);
	}
	for (b = MPICHAN_RING_MIN_BYTES; b <= MPICHAN_RING_MAX_BYTES; b <<= 1) {
		EXPECT_EQ(0, create_raw(2, b, 0, 0))
			TH_LOG("ring_bytes %u", b);
	}
}

TEST_F(job, create_default_ring_bytes)
{
	ASSERT_EQ(0, mc_job_create(&self->job, 4, 0));
	/* The module's choice is reported back, and is a valid size. */
	EXPECT_LE(MPICHAN_RING_MIN_BYTES, self->job.ring_bytes);
	EXPECT_GE(MPICHAN_RING_MAX_BYTES, self->job.ring_bytes);
	EXPECT_EQ(0, self->job.ring_bytes & (self->job.ring_bytes - 1));
}

TEST_F(job, create_flags_einval)
{
	EXPECT_EQ(-EINVAL, create_raw(2, 0, 1, 0));
	EXPECT_EQ(-EINVAL, create_raw(2, 0, 0x80000000U, 0));
	EXPECT_EQ(-EINVAL, create_raw(2, 4096, UINT32_MAX, 0));
	/* Padding is reserved too. */
	EXPECT_EQ(-EINVAL, create_raw(2, 0, 0, 1));
}

TEST_F(job, create_mapping_too_large_einval)
{
	/* 1024^2 rings of 1 MiB: far beyond any sane mapping. */
	if (self->max_ranks < 1024)
		SKIP(return, "max_ranks %u", self->max_ranks);
	EXPECT_EQ(-EINVAL, create_raw(1024, MPICHAN_RING_MAX_BYTES, 0, 0));
}

TEST_F(job, create_twice_eisconn)
{
	struct mpichan_job_create c;
	int fd;

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 0));
	memset(&c, 0, sizeof(c));
	c.nranks = 2;
	EXPECT_EQ(-EISCONN, mc_create_fd(self->job.owner, &c));

	/* An attached rank cannot create either. */
	fd = mc_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_attach_fd(fd, &self->job, 0, NULL));
	memset(&c, 0, sizeof(c));
	c.nranks = 2;
	EXPECT_EQ(-EISCONN, mc_create_fd(fd, &c));
	close(fd);
}

TEST_F(job, create_ids_and_secrets_differ)
{
	struct mc_job other;

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 0));
	ASSERT_EQ(0, mc_job_create(&other, 2, 0));
	EXPECT_NE(0, self->job.id);
	EXPECT_NE(0, other.id);
	EXPECT_NE(self->job.id, other.id);
	EXPECT_TRUE(self->job.secret[0] != other.secret[0] ||
		    self->job.secret[1] != other.secret[1]);
	EXPECT_TRUE(self->job.secret[0] || self->job.secret[1]);
	/* 128 random bits do not repeat between halves either. */
	EXPECT_NE(self->job.secret[0], self->job.secret[1]);
	mc_job_close_owner(&other);
}

TEST_F(job, attach_no_such_job_enoent)
{
	struct mc_job fake;
	int fd = mc_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 2, 0));
	fake = self->job;
	fake.id = self->job.id + 100000;
	EXPECT_EQ(-ENOENT, mc_attach_fd(fd, &fake, 0, NULL));
	fake.id = 0;
	EXPECT_EQ(-ENOENT, mc_attach_fd(fd, &fake, 0, NULL));
	fake.id = UINT64_MAX;
	EXPECT_EQ(-ENOENT, mc_attach_fd(fd, &fake, 0, NULL));
	/* Only the low 32 bits match: still no such job. */
	fake.id = self->job.id | (1ULL << 32);
	EXPECT_EQ(-ENOENT, mc_attach_fd(fd, &fake, 0, NULL));
	/* The refusals left the fd fresh. */
	EXPECT_EQ(0, mc_attach_fd(fd, &self->job, 0, NULL));
	close(fd);
}

TEST_F(job, attach_after_owner_closed_enoent)
{
	struct mcr_ep a, b;
	struct mpichan_msg hdr;
	char buf[64];
	int fd;

	ASSERT_EQ(0, mc_job_create(&self->job, 3, 4096));
	ASSERT_EQ(0, mc_ep_open(&a, &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&b, &self->job, 1));
	mc_job_close_owner(&self->job);

	fd = mc_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOENT, mc_attach_fd(fd, &self->job, 2, NULL));
	close(fd);

	/* The ranks already attached carry on: ring, WAKE, WAIT. */
	ASSERT_EQ(0, mc_send_msg(&a, 1, 7, "hello", 6, MC_MS));
	ASSERT_EQ(0, mc_recv_msg(&b, 0, &hdr, buf, sizeof(buf), MC_SEC));
	EXPECT_EQ(6, hdr.len);
	EXPECT_EQ(7, hdr.tag);
	EXPECT_STREQ("hello", buf);
	EXPECT_EQ(0, mc_wake(b.fd, 0));
	EXPECT_EQ(0, mc_wait(a.fd, MC_SEC, MPICHAN_RANK_ANY, NULL));
	EXPECT_EQ(MPICHAN_RANK_ALIVE, mcr_rank_ctl(&a, 1)->state);
	mc_ep_close(&a);
	mc_ep_close(&b);
}

TEST_F(job, attach_wrong_secret_eacces)
{
	struct mc_job bad, other;
	int fd = mc_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 2, 0));
	bad = self->job;
	bad.secret[0] ^= 1;
	EXPECT_EQ(-EACCES, mc_attach_fd(fd, &bad, 0, NULL));
	bad = self->job;
	bad.secret[1] ^= 1ULL << 63;
	EXPECT_EQ(-EACCES, mc_attach_fd(fd, &bad, 0, NULL));
	bad.secret[0] = bad.secret[1] = 0;
	EXPECT_EQ(-EACCES, mc_attach_fd(fd, &bad, 1, NULL));
	/* A wrong secret does not tell whether the rank exists. */
	EXPECT_EQ(-EACCES, mc_attach_fd(fd, &bad, 1000, NULL));
	/* Another job's secret is a wrong secret. */
	ASSERT_EQ(0, mc_job_create(&other, 2, 0));
	bad = self->job;
	bad.secret[0] = other.secret[0];
	bad.secret[1] = other.secret[1];
	EXPECT_EQ(-EACCES, mc_attach_fd(fd, &bad, 0, NULL));
	mc_job_close_owner(&other);
	EXPECT_EQ(0, mc_attach_fd(fd, &self->job, 0, NULL));
	close(fd);
}

TEST_F(job, attach_rank_out_of_range_erange)
{
	int fd = mc_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 3, 0));
	EXPECT_EQ(-ERANGE, mc_attach_fd(fd, &self->job, 3, NULL));
	EXPECT_EQ(-ERANGE, mc_attach_fd(fd, &self->job, 4, NULL));
	EXPECT_EQ(-ERANGE, mc_attach_fd(fd, &self->job, 0x80000000U, NULL));
	EXPECT_EQ(-ERANGE, mc_attach_fd(fd, &self->job, UINT32_MAX, NULL));
	EXPECT_EQ(0, mc_attach_fd(fd, &self->job, 2, NULL));
	close(fd);
}

TEST_F(job, attach_rank_taken_ebusy)
{
	int fd1 = mc_open(), fd2 = mc_open(), fd3 = mc_open();

	ASSERT_LE(0, fd1);
	ASSERT_LE(0, fd2);
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, mc_job_create(&self->job, 3, 0));
	ASSERT_EQ(0, mc_attach_fd(fd1, &self->job, 0, NULL));
	EXPECT_EQ(-EBUSY, mc_attach_fd(fd2, &self->job, 0, NULL));

	/* Ranks are never reused: not after a death ... */
	close(fd1);
	EXPECT_EQ(-EBUSY, mc_attach_fd(fd2, &self->job, 0, NULL));

	/* ... nor after a finish. */
	ASSERT_EQ(0, mc_attach_fd(fd2, &self->job, 1, NULL));
	ASSERT_EQ(0, mc_finish(fd2));
	close(fd2);
	EXPECT_EQ(-EBUSY, mc_attach_fd(fd3, &self->job, 1, NULL));
	EXPECT_EQ(0, mc_attach_fd(fd3, &self->job, 2, NULL));
	close(fd3);
}

TEST_F(job, attach_twice_eisconn)
{
	int fd = mc_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 3, 0));
	ASSERT_EQ(0, mc_attach_fd(fd, &self->job, 0, NULL));
	EXPECT_EQ(-EISCONN, mc_attach_fd(fd, &self->job, 0, NULL));
	EXPECT_EQ(-EISCONN, mc_attach_fd(fd, &self->job, 1, NULL));
	/* The owner fd is connected too. */
	EXPECT_EQ(-EISCONN, mc_attach_fd(self->job.owner, &self->job, 2, NULL));
	/* Rank 1 and 2 are still free: the refusals took nothing. */
	close(fd);
	fd = mc_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, mc_attach_fd(fd, &self->job, 1, NULL));
	close(fd);
	fd = mc_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, mc_attach_fd(fd, &self->job, 2, NULL));
	close(fd);
}

TEST_F(job, attach_flags_einval)
{
	struct mpichan_attach a;
	int fd = mc_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 2, 0));
	memset(&a, 0, sizeof(a));
	a.job_id = self->job.id;
	a.secret[0] = self->job.secret[0];
	a.secret[1] = self->job.secret[1];
	a.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, MPICHAN_IOC_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	a.flags = 0x80000000U;
	EXPECT_EQ(-1, ioctl(fd, MPICHAN_IOC_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	a.flags = 0;
	EXPECT_EQ(0, ioctl(fd, MPICHAN_IOC_ATTACH, &a));
	close(fd);
}

TEST_F(job, attach_reports_layout)
{
	struct mpichan_attach a;
	const struct mpichan_offsets *o = &a.off;
	long page = sysconf(_SC_PAGESIZE);
	__u64 pairs = 3 * 3;
	int fd = mc_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 3, 8192));
	memset(&a, 0xa5, sizeof(a));
	a.job_id = self->job.id;
	a.secret[0] = self->job.secret[0];
	a.secret[1] = self->job.secret[1];
	a.rank = 1;
	a.flags = 0;
	ASSERT_EQ(0, ioctl(fd, MPICHAN_IOC_ATTACH, &a));
	EXPECT_EQ(3, a.nranks);
	EXPECT_EQ(8192 / MPICHAN_CELL_SIZE, a.ring_cells);
	EXPECT_EQ(0, o->job_hdr);
	EXPECT_EQ(8192, o->ring_bytes);
	/* Every region page aligned, in bounds and large enough. */
	EXPECT_EQ(0, o->rank_ctl % page);
	EXPECT_EQ(0, o->ring_ctl % page);
	EXPECT_EQ(0, o->ring_data % page);
	EXPECT_EQ(0, o->map_size % page);
	EXPECT_LE(sizeof(struct mpichan_job_hdr), o->rank_ctl);
	EXPECT_LE(o->rank_ctl + 3 * MPICHAN_RANK_CTL_SIZE, o->ring_ctl);
	EXPECT_LE(o->ring_ctl + pairs * MPICHAN_RING_CTL_SIZE, o->ring_data);
	EXPECT_EQ(0, o->coll % page);
	EXPECT_LE(o->ring_data + pairs * 8192, o->coll);
	EXPECT_LE(o->coll + 3 * MPICHAN_COLL_BYTES, o->map_size);
	EXPECT_EQ(sizeof(struct mpichan_rank_ctl), MPICHAN_RANK_CTL_SIZE);
	EXPECT_EQ(sizeof(struct mpichan_ring_ctl), MPICHAN_RING_CTL_SIZE);
	close(fd);
}

/* A program built before off.coll still attaches, and gets what it knew. */
TEST_F(job, attach_first_published_size)
{
	size_t old = offsetof(struct mpichan_attach, off.coll);
	unsigned char buf[sizeof(struct mpichan_attach) + 8];
	struct mpichan_attach *a = (struct mpichan_attach *)buf;
	int fd = mc_open();
	size_t i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	memset(buf, 0xa5, sizeof(buf));
	a->job_id = self->job.id;
	a->secret[0] = self->job.secret[0];
	a->secret[1] = self->job.secret[1];
	a->rank = 0;
	a->flags = 0;
	ASSERT_EQ(0, ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, MPICHAN_IOC_MAGIC,
				    0x02, old), a));
	EXPECT_EQ(2, a->nranks);
	EXPECT_NE(0, a->off.map_size);
	for (i = old; i < sizeof(buf); i++)
		ASSERT_EQ(0xa5, buf[i]);
	/* Anything shorter is refused. */
	EXPECT_EQ(-1, ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, MPICHAN_IOC_MAGIC,
				     0x02, old - 8), a));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

/*
 * The collective area is zeroed, shared by every rank's mapping, and
 * the header names it as ATTACH did.
 */
TEST_F(job, coll_area_shared_and_zeroed)
{
	struct mcr_ep a, b;
	unsigned char *pa, *pb;
	__u64 i;

	ASSERT_EQ(0, mc_job_create(&self->job, 3, 4096));
	ASSERT_EQ(0, mc_ep_open(&a, &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&b, &self->job, 2));
	EXPECT_EQ(a.off.coll, mcr_hdr(&b)->off.coll);
	ASSERT_NE(0, a.off.coll);
	pa = a.map + a.off.coll;
	pb = b.map + b.off.coll;
	for (i = 0; i < 3 * MPICHAN_COLL_BYTES; i += 512)
		ASSERT_EQ(0, pb[i]);
	/* Rank 0 writes into rank 2's part, rank 2 reads it, and back. */
	pa[2 * MPICHAN_COLL_BYTES + 100] = 0x5a;
	EXPECT_EQ(0x5a, pb[2 * MPICHAN_COLL_BYTES + 100]);
	pb[3 * MPICHAN_COLL_BYTES - 1] = 0x3c;
	EXPECT_EQ(0x3c, pa[3 * MPICHAN_COLL_BYTES - 1]);
	mc_ep_close(&a);
	mc_ep_close(&b);
}

TEST_F(job, header_shows_job_and_ranks)
{
	struct mpichan_attach a;
	struct mpichan_job_hdr *h;
	struct mpichan_rank_ctl *rc;
	unsigned char *map;
	int fd = mc_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mc_job_create(&self->job, 4, 4096));
	ASSERT_EQ(0, mc_attach_fd(fd, &self->job, 2, &a));
	map = mmap(NULL, a.off.map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	h = (struct mpichan_job_hdr *)map;
	EXPECT_EQ(MPICHAN_JOB_MAGIC, h->magic);
	EXPECT_EQ(MPICHAN_ABI_VERSION, h->abi_version);
	EXPECT_EQ(self->job.id, h->job_id);
	EXPECT_EQ(4, h->nranks);
	EXPECT_EQ(4096 / MPICHAN_CELL_SIZE, h->ring_cells);
	EXPECT_EQ(0, h->dead_count);
	EXPECT_EQ(0, h->finished_count);
	EXPECT_EQ(0, memcmp(&h->off, &a.off, sizeof(a.off)));

	rc = (struct mpichan_rank_ctl *)(map + a.off.rank_ctl +
					 2 * MPICHAN_RANK_CTL_SIZE);
	EXPECT_EQ(MPICHAN_RANK_ALIVE, rc->state);
	EXPECT_EQ(getpid(), (pid_t)rc->pid);
	rc = (struct mpichan_rank_ctl *)(map + a.off.rank_ctl);
	EXPECT_EQ(MPICHAN_RANK_EMPTY, rc->state);
	EXPECT_EQ(0, rc->pid);
	munmap(map, a.off.map_size);
	close(fd);
}

/* A rank attached in another process shows that process' pid. */
TEST_F(job, header_pid_of_other_process)
{
	struct mcr_ep ep;
	int go[2], done[2];
	pid_t pid;

	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(&ep, &self->job, 0));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct mcr_ep c;

		close(ep.fd);
		CHILD_CHECK(mc_ep_open(&c, &self->job, 1) == 0);
		CHILD_CHECK(mc_post(done[1], 1) == 0);
		CHILD_CHECK(mc_take(go[0], 10000) == 1);
		_exit(0);
	}
	ASSERT_EQ(1, mc_take(done[0], 10000));
	EXPECT_EQ(MPICHAN_RANK_ALIVE,
		  __atomic_load_n(&mcr_rank_ctl(&ep, 1)->state,
				  __ATOMIC_ACQUIRE));
	EXPECT_EQ(pid, (pid_t)mcr_rank_ctl(&ep, 1)->pid);
	EXPECT_EQ(getpid(), (pid_t)mcr_rank_ctl(&ep, 0)->pid);
	ASSERT_EQ(0, mc_post(go[1], 1));
	EXPECT_EQ(0, mc_reap(pid));
	mc_ep_close(&ep);
}

TEST_F(job, largest_job_attaches_last_rank)
{
	struct mcr_ep ep;
	__u32 last = self->max_ranks - 1;

	ASSERT_EQ(0, mc_job_create(&self->job, self->max_ranks, 0));
	ASSERT_EQ(0, mc_ep_open(&ep, &self->job, last));
	EXPECT_EQ(self->max_ranks, mcr_hdr(&ep)->nranks);
	EXPECT_EQ(MPICHAN_RANK_ALIVE, mcr_rank_ctl(&ep, last)->state);
	/* The farthest ring of the mapping is there and usable. */
	EXPECT_EQ(0, mcr_send(&ep, last, MPICHAN_MSG_DATA, 1, 0,
				       "x", 1));
	EXPECT_EQ(0, mc_wait(ep.fd, 0, MPICHAN_RANK_NONE, NULL));
	mc_ep_close(&ep);
}

TEST_HARNESS_MAIN
