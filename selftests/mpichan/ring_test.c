// SPDX-License-Identifier: GPL-2.0
/*
 * The shared mapping and the rings in it: mmap()'s rules, fork(), and
 * message exchange with nothing but the uapi and mcr.h.
 */
#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(ring) {
	struct mc_job job;
	int fd;
	struct mpichan_attach a;
};

FIXTURE_SETUP(ring)
{
	self->job.owner = -1;
	self->fd = -1;
	MC_REQUIRE_DEVICE();
	ASSERT_EQ(0, mc_job_create(&self->job, 2, 4096));
	self->fd = mc_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mc_attach_fd(self->fd, &self->job, 0, &self->a));
}

FIXTURE_TEARDOWN(ring)
{
	if (self->fd >= 0)
		close(self->fd);
	mc_job_close_owner(&self->job);
}

static void *map_fd(int fd, size_t len, int prot, int flags, off_t off)
{
	return mmap(NULL, len, prot, flags, fd, off);
}

TEST_F(ring, mmap_private_einval)
{
	size_t len = self->a.off.map_size;

	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, len, PROT_READ, MAP_PRIVATE, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ring, mmap_offset_einval)
{
	size_t len = self->a.off.map_size;
	long page = sysconf(_SC_PAGESIZE);

	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, page, PROT_READ | PROT_WRITE,
				     MAP_SHARED, page));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, page, PROT_READ | PROT_WRITE,
				     MAP_SHARED, self->a.off.ring_data));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, page, PROT_READ | PROT_WRITE,
				     MAP_SHARED, len));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, page, PROT_READ | PROT_WRITE,
				     MAP_SHARED, ((off_t)1 << 40) - page));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, page, PROT_READ | PROT_WRITE,
				     MAP_SHARED, (off_t)1 << 41));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ring, mmap_length)
{
	size_t len = self->a.off.map_size;
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *m;

	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, len + page,
				     PROT_READ | PROT_WRITE, MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, len * 4,
				     PROT_READ | PROT_WRITE, MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	/* One byte over rounds up to one page over. */
	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, len + 1,
				     PROT_READ | PROT_WRITE, MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);

	/* Less than the whole is fine, and is the same memory. */
	m = map_fd(self->fd, page, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(MPICHAN_JOB_MAGIC, ((struct mpichan_job_hdr *)m)->magic);
	munmap(m, page);
	m = map_fd(self->fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, m);
	munmap(m, len);
}

TEST_F(ring, mmap_exec_eperm)
{
	size_t len = self->a.off.map_size;
	void *m;

	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, len,
				     PROT_READ | PROT_WRITE | PROT_EXEC,
				     MAP_SHARED, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, map_fd(self->fd, len, PROT_READ | PROT_EXEC,
				     MAP_SHARED, 0));
	EXPECT_EQ(EPERM, errno);

	/* Nor can it be added later. */
	m = map_fd(self->fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(-1, mprotect(m, len, PROT_READ | PROT_EXEC));
	EXPECT_EQ(-1, mprotect(m, len, PROT_READ | PROT_WRITE | PROT_EXEC));
	/* Dropping and re-adding write is allowed for a rank. */
	EXPECT_EQ(0, mprotect(m, len, PROT_READ));
	EXPECT_EQ(0, mprotect(m, len, PROT_READ | PROT_WRITE));
	munmap(m, len);
}

TEST_F(ring, owner_maps_read_only)
{
	size_t len = self->a.off.map_size;
	struct mpichan_job_hdr *h;
	struct mpichan_rank_ctl *rc;
	unsigned char *m;

	EXPECT_EQ(MAP_FAILED, map_fd(self->job.owner, len,
				     PROT_READ | PROT_WRITE, MAP_SHARED, 0));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(MAP_FAILED, map_fd(self->job.owner, len, PROT_WRITE,
				     MAP_SHARED, 0));
	EXPECT_EQ(EACCES, errno);

	m = map_fd(self->job.owner, len, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, m);
	h = (struct mpichan_job_hdr *)m;
	EXPECT_EQ(MPICHAN_JOB_MAGIC, h->magic);
	EXPECT_EQ(self->job.id, h->job_id);
	rc = (struct mpichan_rank_ctl *)(m + h->off.rank_ctl);
	EXPECT_EQ(MPICHAN_RANK_ALIVE, rc[0].state);
	EXPECT_EQ(MPICHAN_RANK_EMPTY, rc[1].state);
	/* Write cannot be added afterwards. */
	EXPECT_EQ(-1, mprotect(m, len, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(m, len);
}

TEST_F(ring, unattached_mmap_enxio)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = mc_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(MAP_FAILED, map_fd(fd, page, PROT_READ, MAP_SHARED, 0));
	EXPECT_EQ(ENXIO, errno);
	EXPECT_EQ(MAP_FAILED, map_fd(fd, page, PROT_READ | PROT_WRITE,
				     MAP_SHARED, 0));
	EXPECT_EQ(ENXIO, errno);
	/* A refused attach leaves it unattached. */
	EXPECT_EQ(-EBUSY, mc_attach_fd(fd, &self->job, 0, NULL));
	EXPECT_EQ(MAP_FAILED, map_fd(fd, page, PROT_READ, MAP_SHARED, 0));
	EXPECT_EQ(ENXIO, errno);
	close(fd);
}

TEST_F(ring, fork_child_mapping_faults)
{
	size_t len = self->a.off.map_size;
	volatile unsigned char *m;
	pid_t pid;

	m = map_fd(self->fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(MPICHAN_JOB_MAGIC, ((struct mpichan_job_hdr *)m)->magic);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* The address is not mapped here: this faults. */
		(void)m[0];
		_exit(0);
	}
	EXPECT_EQ(128 + SIGSEGV, mc_reap(pid));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		m[self->a.off.ring_data] = 1;
		_exit(0);
	}
	EXPECT_EQ(128 + SIGSEGV, mc_reap(pid));
	/* The parent's mapping is intact. */
	EXPECT_EQ(MPICHAN_JOB_MAGIC, ((struct mpichan_job_hdr *)m)->magic);
	EXPECT_EQ(0, m[self->a.off.ring_data]);
	munmap((void *)m, len);
}

TEST_F(ring, fork_child_ioctls_ebadfd)
{
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct mpichan_wait w = { .timeout_ns = 0,
					  .peer = MPICHAN_RANK_NONE };
		struct mpichan_wake k = { .rank = 1 };

		CHILD_CHECK(ioctl(self->fd, MPICHAN_IOC_WAIT, &w) == -1 &&
			    errno == EBADFD);
		CHILD_CHECK(ioctl(self->fd, MPICHAN_IOC_WAKE, &k) == -1 &&
			    errno == EBADFD);
		CHILD_CHECK(ioctl(self->fd, MPICHAN_IOC_FINISH) == -1 &&
			    errno == EBADFD);
		CHILD_CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd,
				 0) == MAP_FAILED && errno == EBADFD);
		_exit(0);
	}
	EXPECT_EQ(0, mc_reap(pid));
	/* The child's FINISH did not count: the parent's rank still works. */
	EXPECT_EQ(0, mc_wake(self->fd, 0));
	EXPECT_EQ(0, mc_wait(self->fd, 0, MPICHAN_RANK_NONE, NULL));
}

/* Two ranks of one process, both ends of ring 0 -> 1. */
static void open_pair(struct __test_metadata *_metadata, struct mc_job *job,
		      struct mcr_ep *e0, struct mcr_ep *e1)
{
	ASSERT_EQ(0, mc_ep_open(e0, job, 0));
	ASSERT_EQ(0, mc_ep_open(e1, job, 1));
}

TEST_F(ring, full_ring_eagain_then_drains)
{
	struct mc_job job;
	struct mcr_ep e0, e1;
	const struct mpichan_msg *m;
	static unsigned char big[4096];
	uint32_t sent = 0, got = 0, i, max;
	int err;

	ASSERT_EQ(0, mc_job_create(&job, 2, 4096));
	open_pair(_metadata, &job, &e0, &e1);
	ASSERT_EQ(64, e0.ring_cells);
	/* Nothing yet: WAIT just checks and times out. */
	EXPECT_EQ(-ETIMEDOUT, mc_wait(e1.fd, 0, 0, NULL));

	while (mcr_send(&e0, 1, MPICHAN_MSG_DATA, sent, 0, &sent,
				 sizeof(sent)) == 0)
		sent++;
	EXPECT_EQ(e0.ring_cells, sent);	/* one cell each */
	EXPECT_EQ(-EAGAIN, mcr_send(&e0, 1, MPICHAN_MSG_DATA, 0, 0,
					     NULL, 0));
	EXPECT_EQ(0, mc_wait(e1.fd, 0, 0, NULL));

	/* Make room for exactly one. */
	m = mcr_peek(&e1, 0, &err);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0, m->tag);
	mcr_consume(&e1, 0, m);
	got++;
	EXPECT_EQ(0, mcr_send(&e0, 1, MPICHAN_MSG_DATA, sent, 0,
				       &sent, sizeof(sent)));
	sent++;
	EXPECT_EQ(-EAGAIN, mcr_send(&e0, 1, MPICHAN_MSG_DATA, 0, 0,
					     NULL, 0));
	/* Drain in order. */
	while ((m = mcr_peek(&e1, 0, &err))) {
		uint32_t v;

		memcpy(&v, m + 1, sizeof(v));
		ASSERT_EQ(got, (uint32_t)m->tag);
		ASSERT_EQ(got, v);
		mcr_consume(&e1, 0, m);
		got++;
	}
	EXPECT_EQ(0, err);
	EXPECT_EQ(sent, got);
	EXPECT_EQ(-ETIMEDOUT, mc_wait(e1.fd, 0, 0, NULL));
	/* An empty ring always takes a message of the largest size. */
	max = mcr_max_payload(&e0);
	EXPECT_EQ(-EMSGSIZE, mcr_send(&e0, 1, MPICHAN_MSG_DATA, 0, 0,
					       big, max + 1));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, mcr_send(&e0, 1, MPICHAN_MSG_DATA, i, 0,
					       big, max));
		m = mcr_peek(&e1, 0, &err);
		ASSERT_NE(NULL, m);
		EXPECT_EQ(max, m->len);
		EXPECT_EQ(i, (uint32_t)m->tag);
		mcr_consume(&e1, 0, m);
	}
	mc_ep_close(&e0);
	mc_ep_close(&e1);
	mc_job_close_owner(&job);
}

/* Messages of sizes that force PAD entries at the ring's end. */
TEST_F(ring, wrap_around_with_pad)
{
	static unsigned char buf[4096], out[4096];
	struct mc_job job;
	struct mcr_ep e0, e1;
	struct mpichan_ring_ctl *rc;
	struct mpichan_msg hdr;
	uint32_t max, seq, rseq = 0, len, cells = 0;
	int inflight = 0, pads;

	ASSERT_EQ(0, mc_job_create(&job, 2, 4096));
	open_pair(_metadata, &job, &e0, &e1);
	rc = mcr_ring_ctl(&e0, 0, 1);
	max = mcr_max_payload(&e0);
	for (seq = 0; seq < 2000; seq++) {
		len = (seq * 397) % (max + 1);
		mc_fill(buf, seq, len);
		/* Full: take the oldest message out, then retry. */
		while (mcr_send(&e0, 1, MPICHAN_MSG_DATA, seq, seq,
					 buf, len) == -EAGAIN) {
			ASSERT_LT(0, inflight);
			ASSERT_EQ(0, mc_recv_msg(&e1, 0, &hdr, out, sizeof(out),
						 0));
			ASSERT_EQ(rseq, (uint32_t)hdr.tag);
			ASSERT_EQ((rseq * 397) % (max + 1), hdr.len);
			ASSERT_TRUE(mc_check(out, rseq, hdr.len));
			rseq++;
			inflight--;
		}
		cells += mcr_msg_cells(len);
		inflight++;
	}
	while (inflight--) {
		ASSERT_EQ(0, mc_recv_msg(&e1, 0, &hdr, out, sizeof(out), 0));
		ASSERT_EQ(rseq, (uint32_t)hdr.tag);
		ASSERT_EQ(rseq, hdr.context);
		ASSERT_EQ(MPICHAN_MSG_DATA, hdr.kind);
		ASSERT_TRUE(mc_check(out, rseq, hdr.len));
		rseq++;
	}
	EXPECT_EQ(2000, rseq);
	/* The tail ran past the message cells: that is the padding. */
	pads = rc->tail - cells;
	EXPECT_LT(0, pads);
	EXPECT_EQ(rc->head, rc->tail);
	EXPECT_LT(e0.ring_cells * 10, rc->tail);
	EXPECT_EQ(-ETIMEDOUT, mc_wait(e1.fd, 0, 0, NULL));
	mc_ep_close(&e0);
	mc_ep_close(&e1);
	mc_job_close_owner(&job);
}

/* head and tail run freely: crossing 2^32 changes nothing. */
TEST_F(ring, counters_wrap_at_2_32)
{
	static unsigned char buf[256], out[256];
	struct mc_job job;
	struct mcr_ep e0, e1;
	struct mpichan_ring_ctl *rc;
	struct mpichan_msg hdr;
	uint32_t seq;

	ASSERT_EQ(0, mc_job_create(&job, 2, 4096));
	open_pair(_metadata, &job, &e0, &e1);
	rc = mcr_ring_ctl(&e0, 0, 1);
	rc->tail = 0xffffffc0U;
	rc->head = 0xffffffc0U;
	EXPECT_EQ(-ETIMEDOUT, mc_wait(e1.fd, 0, 0, NULL));
	for (seq = 0; seq < 300; seq++) {
		uint32_t len = seq % 200;

		mc_fill(buf, seq, len);
		ASSERT_EQ(0, mcr_send(&e0, 1, MPICHAN_MSG_DATA, seq,
					       0, buf, len));
		/* The kernel sees the message whatever the counters. */
		ASSERT_EQ(0, mc_wait(e1.fd, 0, 0, NULL));
		ASSERT_EQ(0, mc_recv_msg(&e1, 0, &hdr, out, sizeof(out), 0));
		ASSERT_EQ(seq, (uint32_t)hdr.tag);
		ASSERT_EQ(len, hdr.len);
		ASSERT_TRUE(mc_check(out, seq, len));
		ASSERT_EQ(-ETIMEDOUT, mc_wait(e1.fd, 0, 0, NULL));
	}
	EXPECT_GT(0xffffffc0U, rc->tail);	/* it wrapped */
	mc_ep_close(&e0);
	mc_ep_close(&e1);
	mc_job_close_owner(&job);
}

/* Ring (src -> dst) is at index dst * nranks + src, seen by the kernel. */
TEST_F(ring, ring_index_layout)
{
	struct mc_job job;
	struct mcr_ep e[3];
	const struct mpichan_msg *m;
	unsigned char *cells;
	int err, r;

	ASSERT_EQ(0, mc_job_create(&job, 3, 4096));
	for (r = 0; r < 3; r++)
		ASSERT_EQ(0, mc_ep_open(&e[r], &job, r));
	ASSERT_EQ(0, mcr_send(&e[0], 2, MPICHAN_MSG_DATA, 42, 0,
				       "abc", 3));
	EXPECT_EQ((unsigned char *)mcr_ring_ctl(&e[0], 0, 2),
		  e[0].map + e[0].off.ring_ctl + (2 * 3 + 0) * MPICHAN_RING_CTL_SIZE);
	cells = e[2].map + e[2].off.ring_data + (2 * 3 + 0) * 4096;
	EXPECT_EQ(3, ((struct mpichan_msg *)cells)->len);
	EXPECT_EQ(0, memcmp(cells + sizeof(struct mpichan_msg), "abc", 3));
	/* Only the destination has work. */
	EXPECT_EQ(0, mc_wait(e[2].fd, 0, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(e[1].fd, 0, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(e[0].fd, 0, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(NULL, mcr_peek(&e[1], 0, &err));
	m = mcr_peek(&e[2], 0, &err);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(42, m->tag);
	mcr_consume(&e[2], 0, m);
	EXPECT_EQ(-ETIMEDOUT, mc_wait(e[2].fd, 0, MPICHAN_RANK_NONE, NULL));
	for (r = 0; r < 3; r++)
		mc_ep_close(&e[r]);
	mc_job_close_owner(&job);
}

/* Sender in this process, receiver in another: every size, in order. */
static int exchange(__u32 ring_bytes, uint32_t stride, uint32_t rounds)
{
	static unsigned char buf[MPICHAN_RING_MAX_BYTES];
	struct mc_job job;
	struct mcr_ep ep;
	uint32_t max, len, seq = 0, r;
	int ret, status;
	pid_t pid;

	if (mc_job_create(&job, 2, ring_bytes))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct mpichan_msg hdr;

		close(job.owner);
		CHILD_CHECK(mc_ep_open(&ep, &job, 1) == 0);
		max = mcr_max_payload(&ep);
		for (r = 0; r < rounds; r++) {
			for (len = 0; len <= max; len += stride) {
				ret = mc_recv_msg(&ep, 0, &hdr, buf, sizeof(buf),
						  10 * MC_SEC);
				CHILD_CHECK(ret == 0);
				CHILD_CHECK((uint32_t)hdr.tag == seq);
				CHILD_CHECK(hdr.len == len);
				CHILD_CHECK(hdr.kind == MPICHAN_MSG_DATA);
				CHILD_CHECK(mc_check(buf, seq, len));
				seq++;
			}
		}
		CHILD_CHECK(mc_finish(ep.fd) == 0);
		mc_ep_close(&ep);
		_exit(0);
	}
	ret = mc_ep_open(&ep, &job, 0);
	if (ret) {
		kill(pid, SIGKILL);
		mc_reap(pid);
		return ret;
	}
	max = mcr_max_payload(&ep);
	for (r = 0; r < rounds && !ret; r++) {
		for (len = 0; len <= max && !ret; len += stride) {
			mc_fill(buf, seq, len);
			ret = mc_send_msg(&ep, 1, seq, buf, len, MC_MS);
			seq++;
		}
	}
	status = mc_reap(pid);
	mc_ep_close(&ep);
	mc_job_close_owner(&job);
	return ret ? ret : status;
}

TEST_F_TIMEOUT(ring, two_process_every_size_4k, 120)
{
	/* 4 KiB rings: every size from 0 to the largest, three times. */
	EXPECT_EQ(0, exchange(4096, 1, 3));
}

TEST_F_TIMEOUT(ring, two_process_sizes_64k, 120)
{
	EXPECT_EQ(0, exchange(65536, 61, 2));
}

TEST_F_TIMEOUT(ring, two_process_sizes_1m, 120)
{
	EXPECT_EQ(0, exchange(MPICHAN_RING_MAX_BYTES, 4093, 1));
}

TEST_HARNESS_MAIN
