// SPDX-License-Identifier: GPL-2.0
/*
 * One send, several receivers (MPICHAN_SEND_MULTI): every receiver
 * takes it by handle and copies (or maps) the same pinned pages; the
 * sender completes once, after the last.  Wrong and duplicate takes,
 * receiver counts, cancel, and a sender or receiver that dies: errors
 * for the peers, nothing left pinned.
 */
#include "kselftest_harness.h"
#include "xfer_helpers.h"

#define LEN	(64 * XF_PAGE + 100)

static int multi_send(const struct mcr_ep *ep, const void *buf, size_t len,
		      uint32_t nrecv, uint64_t user_data,
		      struct mpichan_send *out)
{
	struct mpichan_iovec v = { (uintptr_t)buf, len };
	struct mpichan_send s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.iov = (uintptr_t)&v;
	s.iovcnt = 1;
	s.dst = nrecv;
	s.tag = 9;
	s.user_data = user_data;
	s.flags = MPICHAN_SEND_MULTI;
	ret = ioctl(ep->fd, MPICHAN_IOC_SEND, &s) ? -errno : 0;
	if (out)
		*out = s;
	return ret;
}

/* Take send h by handle into buf: 0 or -errno. */
static int take(const struct mcr_ep *ep, void *buf, size_t len,
		uint64_t h, uint32_t flags, struct mpichan_recv *out)
{
	return xf_recv(ep, buf, len, MPICHAN_RANK_ANY, 0, MPICHAN_TAG_ANY,
		       MPICHAN_RECV_HANDLE | flags, h, 0, out);
}

FIXTURE(multi) {
	struct xf x;
	unsigned char *sb, *rb[XF_MAX_RANKS];
};

FIXTURE_SETUP(multi)
{
	int i;

	XF_SETUP(&self->x, 4);
	self->sb = xf_alloc(LEN);
	ASSERT_NE(NULL, self->sb);
	mc_fill(self->sb, 3, LEN);
	for (i = 0; i < XF_MAX_RANKS; i++) {
		self->rb[i] = xf_alloc(LEN);
		ASSERT_NE(NULL, self->rb[i]);
	}
}

FIXTURE_TEARDOWN(multi)
{
	int i;

	XF_TEARDOWN(&self->x);
	xf_free(self->sb, LEN);
	for (i = 0; i < XF_MAX_RANKS; i++)
		xf_free(self->rb[i], LEN);
}

/* Three receivers of one send: one CQE for the sender, after the last. */
TEST_F(multi, three_receivers)
{
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	int i;

	XF_BODY();
	ASSERT_EQ(0, multi_send(E(0), self->sb, LEN, 3, 0x77, &s));
	EXPECT_EQ(MPICHAN_XFER_QUEUED, s.status);
	EXPECT_EQ(LEN / XF_PAGE + 1, mc_stat("pinned_pages"));
	for (i = 1; i <= 3; i++) {
		EXPECT_EQ(0, xf_cq_count(E(0)));
		ASSERT_EQ(0, take(E(i), self->rb[i], LEN, s.handle, 0, &r));
		EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
		EXPECT_EQ(LEN, r.len);
		EXPECT_EQ(LEN, r.msg_len);
		EXPECT_EQ(0, r.msg_src);
		EXPECT_EQ(9, r.msg_tag);
		EXPECT_TRUE(mc_check(self->rb[i], 3, LEN));
		/* The pages stay pinned for the receivers still to come. */
		EXPECT_EQ(i < 3 ? LEN / XF_PAGE + 1 : 0,
			  mc_stat("pinned_pages"));
	}
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0x77, c.user_data);
	EXPECT_EQ(LEN, c.len);
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(MPICHAN_CQE_SEND, c.flags);
	EXPECT_EQ(0, xf_cq_count(E(0)));
	/* All three took it: it is gone. */
	EXPECT_EQ(-ENOENT, take(E(1), self->rb[1], LEN, s.handle, 0, &r));
}

/* One receiver maps it, one copies; the sender completes after UNMAP. */
TEST_F(multi, mapped_and_copied)
{
	unsigned char *w = xf_window(E(1)->fd, LEN + XF_PAGE, PROT_READ,
				     MAP_SHARED);
	struct mpichan_send s;
	struct mpichan_recv r, m;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, w);
	ASSERT_EQ(0, multi_send(E(0), self->sb, LEN, 2, 0x78, &s));
	ASSERT_EQ(0, take(E(1), self->rb[1], LEN, s.handle, MPICHAN_RECV_MAP,
			  &m));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, m.status);
	EXPECT_EQ(s.handle, m.handle);
	ASSERT_EQ(0, take(E(2), self->rb[2], LEN, s.handle, 0, &r));
	EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
	EXPECT_TRUE(mc_check(self->rb[2], 3, LEN));
	/* Still mapped by rank 1: pinned, no completion. */
	EXPECT_EQ(0, xf_cq_count(E(0)));
	EXPECT_LT(0, mc_stat("pinned_pages"));
	memcpy(self->rb[1] + m.map_off, w, m.map_len);
	EXPECT_TRUE(mc_check(self->rb[1], 3, LEN));
	ASSERT_EQ(0, xf_unmap(E(1)->fd, m.handle));
	EXPECT_EQ(SIGBUS, xf_probe(w, NULL));
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0x78, c.user_data);
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(LEN, c.len);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	munmap(w, LEN + XF_PAGE);
}

/* Two receivers mapping it at once, both from the same pages. */
TEST_F(multi, two_windows)
{
	unsigned char *w1 = xf_window(E(1)->fd, LEN, PROT_READ, MAP_SHARED);
	unsigned char *w2 = xf_window(E(2)->fd, LEN, PROT_READ, MAP_SHARED);
	struct mpichan_send s;
	struct mpichan_recv m1, m2;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, w1);
	ASSERT_NE(MAP_FAILED, w2);
	ASSERT_EQ(0, multi_send(E(0), self->sb, LEN, 2, 1, &s));
	ASSERT_EQ(0, take(E(1), self->rb[1], LEN, s.handle, MPICHAN_RECV_MAP,
			  &m1));
	ASSERT_EQ(0, take(E(2), self->rb[2], LEN, s.handle, MPICHAN_RECV_MAP,
			  &m2));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, m1.status);
	ASSERT_EQ(MPICHAN_XFER_MAPPED, m2.status);
	memcpy(self->rb[1] + m1.map_off, w1, m1.map_len);
	memcpy(self->rb[2] + m2.map_off, w2, m2.map_len);
	EXPECT_TRUE(mc_check(self->rb[1], 3, LEN));
	EXPECT_TRUE(mc_check(self->rb[2], 3, LEN));
	ASSERT_EQ(0, xf_unmap(E(2)->fd, m2.handle));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	ASSERT_EQ(0, xf_unmap(E(1)->fd, m1.handle));
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	munmap(w1, LEN);
	munmap(w2, LEN);
}

/* A rank takes it once; the sender never; envelopes never match it. */
TEST_F(multi, wrong_and_duplicate_takes)
{
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_EQ(0, multi_send(E(0), self->sb, LEN, 2, 2, &s));
	EXPECT_EQ(-ENOENT, take(E(0), self->rb[0], LEN, s.handle, 0, &r));
	EXPECT_EQ(-ENOENT, take(E(1), self->rb[1], LEN, s.handle + 1, 0, &r));
	EXPECT_EQ(-ENOMSG, xf_recv(E(1), self->rb[1], LEN, 0, 0, 9,
				   MPICHAN_RECV_NOQUEUE, 0, 0, &r));
	ASSERT_EQ(0, take(E(1), self->rb[1], LEN, s.handle, 0, &r));
	EXPECT_EQ(-EALREADY, take(E(1), self->rb[1], LEN, s.handle, 0, &r));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	ASSERT_EQ(0, take(E(3), self->rb[3], LEN, s.handle, 0, &r));
	EXPECT_TRUE(mc_check(self->rb[3], 3, LEN));
	/* Two took it: a third is one too many. */
	EXPECT_EQ(-ENOENT, take(E(2), self->rb[2], LEN, s.handle, 0, &r));
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
}

/* Receiver counts out of range and unknown flags are refused. */
TEST_F(multi, receiver_count_checks)
{
	struct mpichan_send s;

	XF_BODY();
	EXPECT_EQ(-EINVAL, multi_send(E(0), self->sb, LEN, 0, 0, &s));
	EXPECT_EQ(-ERANGE, multi_send(E(0), self->sb, LEN, 4, 0, &s));
	EXPECT_EQ(-ERANGE, multi_send(E(0), self->sb, LEN, ~0U, 0, &s));
	memset(&s, 0, sizeof(s));
	s.flags = 2;
	s.dst = 1;
	EXPECT_EQ(-1, ioctl(E(0)->fd, MPICHAN_IOC_SEND, &s));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	EXPECT_EQ(0, xf_cq_count(E(0)));
}

/* Fewer receivers than counted: it waits; CANCEL ends it. */
TEST_F(multi, too_few_receivers_cancel)
{
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_EQ(0, multi_send(E(0), self->sb, LEN, 3, 5, &s));
	ASSERT_EQ(0, take(E(1), self->rb[1], LEN, s.handle, 0, &r));
	ASSERT_EQ(0, take(E(2), self->rb[2], LEN, s.handle, 0, &r));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	EXPECT_LT(0, mc_stat("pinned_pages"));
	/* Only its sender may cancel it. */
	EXPECT_EQ(-ENOENT, xf_cancel(E(1)->fd, s.handle));
	ASSERT_EQ(0, xf_cancel(E(0)->fd, s.handle));
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(5, c.user_data);
	EXPECT_EQ(-ECANCELED, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	EXPECT_EQ(-ENOENT, take(E(3), self->rb[3], LEN, s.handle, 0, &r));
	EXPECT_EQ(-ENOENT, xf_cancel(E(0)->fd, s.handle));
}

/* Cancelled while mapped: the receiver finishes, then the CQE. */
TEST_F(multi, cancel_while_mapped)
{
	unsigned char *w = xf_window(E(1)->fd, LEN, PROT_READ, MAP_SHARED);
	struct mpichan_send s;
	struct mpichan_recv m, r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, w);
	ASSERT_EQ(0, multi_send(E(0), self->sb, LEN, 2, 6, &s));
	ASSERT_EQ(0, take(E(1), self->rb[1], LEN, s.handle, MPICHAN_RECV_MAP,
			  &m));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, m.status);
	ASSERT_EQ(0, xf_cancel(E(0)->fd, s.handle));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	EXPECT_EQ(-ENOENT, take(E(2), self->rb[2], LEN, s.handle, 0, &r));
	/* The mapped pages are still the sender's, intact. */
	memcpy(self->rb[1] + m.map_off, w, m.map_len);
	EXPECT_TRUE(mc_check(self->rb[1], 3, LEN));
	EXPECT_LT(0, mc_stat("pinned_pages"));
	ASSERT_EQ(0, xf_unmap(E(1)->fd, m.handle));
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(-ECANCELED, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	munmap(w, LEN);
}

/* The sender's rank goes while a receiver has it mapped. */
TEST_F(multi, sender_gone_while_mapped)
{
	unsigned char *w = xf_window(E(1)->fd, LEN, PROT_READ, MAP_SHARED);
	struct mpichan_send s;
	struct mpichan_recv m, r;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, w);
	ASSERT_EQ(0, multi_send(E(0), self->sb, LEN, 3, 6, &s));
	ASSERT_EQ(0, take(E(1), self->rb[1], LEN, s.handle, MPICHAN_RECV_MAP,
			  &m));
	mc_ep_close(E(0));
	EXPECT_EQ(MPICHAN_RANK_DEAD, mcr_rank_ctl(E(1), 0)->state);
	EXPECT_EQ(-ENOENT, take(E(2), self->rb[2], LEN, s.handle, 0, &r));
	memcpy(self->rb[1] + m.map_off, w, m.map_len);
	EXPECT_TRUE(mc_check(self->rb[1], 3, LEN));
	EXPECT_EQ(LEN / XF_PAGE + 1, mc_stat("pinned_pages"));
	ASSERT_EQ(0, xf_unmap(E(1)->fd, m.handle));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	munmap(w, LEN);
}

/*
 * Faults with a real process: the test attaches ranks 0 and 2 of a
 * three-rank job, a child attaches rank 1, does its part, reports a
 * handle (or 0) and waits to be killed.
 */
FIXTURE(mfault) {
	struct xf x;
	struct mc_child rank1;
	unsigned char *buf;
};

FIXTURE_SETUP(mfault)
{
	mc_child_init(&self->rank1);
	self->buf = NULL;
	XF_SETUP_BUT(&self->x, 3, 1);
	self->buf = xf_alloc(LEN);
	ASSERT_NE(NULL, self->buf);
	mc_fill(self->buf, 4, LEN);
}

FIXTURE_TEARDOWN(mfault)
{
	mc_child_close(&self->rank1);
	XF_TEARDOWN(&self->x);
	xf_free(self->buf, LEN);
}

/* What rank 1 does with the fixture's buffer and a handle. */
struct r1_arg {
	unsigned char *buf;
	uint64_t h;
};

/* Map send h, taken by handle: reports h. */
static uint64_t r1_map(struct mcr_ep *e, void *arg)
{
	const struct r1_arg *a = arg;
	struct mpichan_recv r;
	void *w;

	w = xf_window(e->fd, LEN, PROT_READ, MAP_SHARED);
	CHILD_CHECK(w != MAP_FAILED);
	CHILD_CHECK(take(e, a->buf, LEN, a->h, MPICHAN_RECV_MAP, &r) == 0);
	CHILD_CHECK(r.status == MPICHAN_XFER_MAPPED);
	return a->h;
}

/* Post a multi-send to two receivers: reports its handle. */
static uint64_t r1_send(struct mcr_ep *e, void *arg)
{
	const struct r1_arg *a = arg;
	struct mpichan_send s;

	CHILD_CHECK(multi_send(e, a->buf, LEN, 2, 0, &s) == 0);
	return s.handle;
}

/* A receiver dies before taking it: the sender gets -EPIPE. */
TEST_F(mfault, receiver_killed_before_taking)
{
	unsigned char *rb = xf_alloc(LEN);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c = { 0 };
	uint64_t h;

	XF_BODY();
	ASSERT_NE(NULL, rb);
	ASSERT_EQ(0, multi_send(E(0), self->buf, LEN, 2, 0x51, &s));
	ASSERT_EQ(0, take(E(2), rb, LEN, s.handle, 0, &r));
	EXPECT_TRUE(mc_check(rb, 4, LEN));
	ASSERT_EQ(0, mc_child_start(&self->rank1, &self->x.job, 1, NULL, NULL));
	ASSERT_EQ(0, mc_child_ready(&self->rank1, &h));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	mc_child_kill(&self->rank1);
	ASSERT_EQ(0, xf_cq_wait(E(0), &c, 5000));
	EXPECT_EQ(0x51, c.user_data);
	EXPECT_EQ(-EPIPE, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	/* After a death a new one fails at once. */
	EXPECT_EQ(-EPIPE, multi_send(E(0), self->buf, LEN, 1, 0, &s));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(rb, LEN);
}

/* A receiver dies with it mapped: -EPIPE for the sender, no take after. */
TEST_F(mfault, receiver_killed_while_mapped)
{
	unsigned char *rb = xf_alloc(LEN);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c = { 0 };
	struct r1_arg a = { self->buf, 0 };
	uint64_t h;

	XF_BODY();
	ASSERT_NE(NULL, rb);
	ASSERT_EQ(0, multi_send(E(0), self->buf, LEN, 2, 0x52, &s));
	a.h = s.handle;
	ASSERT_EQ(0, mc_child_start(&self->rank1, &self->x.job, 1, r1_map, &a));
	ASSERT_EQ(0, mc_child_ready(&self->rank1, &h));
	mc_child_kill(&self->rank1);
	EXPECT_EQ(-ENOENT, take(E(2), rb, LEN, s.handle, 0, &r));
	ASSERT_EQ(0, xf_cq_wait(E(0), &c, 5000));
	EXPECT_EQ(0x52, c.user_data);
	EXPECT_EQ(-EPIPE, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	EXPECT_TRUE(mc_check(self->buf, 4, LEN));
	xf_free(rb, LEN);
}

/* The sender dies between two receivers: the second cannot take it. */
TEST_F(mfault, sender_killed_between_receivers)
{
	unsigned char *rb = xf_alloc(LEN), *w;
	struct mpichan_recv r, q;
	struct r1_arg a = { self->buf, 0 };
	uint64_t h;

	XF_BODY();
	ASSERT_NE(NULL, rb);
	w = xf_window(E(0)->fd, LEN, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, w);
	ASSERT_EQ(0, mc_child_start(&self->rank1, &self->x.job, 1, r1_send, &a));
	ASSERT_EQ(0, mc_child_ready(&self->rank1, &h));
	EXPECT_EQ(LEN / XF_PAGE + 1, mc_stat("pinned_pages"));
	ASSERT_EQ(0, take(E(0), rb, LEN, h, MPICHAN_RECV_MAP, &r));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
	mc_child_kill(&self->rank1);
	EXPECT_EQ(-ENOENT, take(E(2), rb, LEN, h, 0, &q));
	/* The mapped receiver still reads the dead sender's data. */
	memcpy(rb + r.map_off, w, r.map_len);
	EXPECT_TRUE(mc_check(rb, 4, LEN));
	EXPECT_EQ(LEN / XF_PAGE + 1, mc_stat("pinned_pages"));
	ASSERT_EQ(0, xf_unmap(E(0)->fd, r.handle));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	munmap(w, LEN);
	xf_free(rb, LEN);
}

/* The sender dies before anybody took it: nothing stays pinned. */
TEST_F(mfault, sender_killed_before_receivers)
{
	unsigned char *rb = xf_alloc(LEN);
	struct mpichan_recv r;
	struct r1_arg a = { self->buf, 0 };
	uint64_t h;

	XF_BODY();
	ASSERT_NE(NULL, rb);
	ASSERT_EQ(0, mc_child_start(&self->rank1, &self->x.job, 1, r1_send, &a));
	ASSERT_EQ(0, mc_child_ready(&self->rank1, &h));
	EXPECT_LT(0, mc_stat("pinned_pages"));
	mc_child_kill(&self->rank1);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	EXPECT_EQ(-ENOENT, take(E(0), rb, LEN, h, 0, &r));
	EXPECT_EQ(-ENOENT, take(E(2), rb, LEN, h, 0, &r));
	xf_free(rb, LEN);
}

TEST_HARNESS_MAIN
