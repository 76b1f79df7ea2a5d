// SPDX-License-Identifier: GPL-2.0
/*
 * Large messages over the raw uapi: SEND, RECV and CANCEL, matching
 * order with wildcards, binding a receive to a send's handle,
 * truncation, iovec shapes and sizes, argument checks and the
 * completion queue.  The test process attaches every rank itself.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "xfer_helpers.h"

FIXTURE(rndv) {
	struct xf x;
};

FIXTURE_SETUP(rndv)
{
	XF_SETUP(&self->x, 4);
}

FIXTURE_TEARDOWN(rndv)
{
	XF_TEARDOWN(&self->x);
}

/* Send posted first: QUEUED, then the receive copies (DONE). */
TEST_F(rndv, send_first)
{
	size_t len = 100000;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_TRUE(sb && rb);
	mc_fill(sb, 1, len);
	ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 3, 7, 0x1234, &s));
	EXPECT_EQ(MPICHAN_XFER_QUEUED, s.status);
	EXPECT_NE(0, s.handle);
	EXPECT_LT(0, mc_stat("pinned_pages"));
	EXPECT_EQ(0, xf_cq_count(E(1)));

	ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 3, 7, 0, 0, 0x99, &r));
	EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
	EXPECT_EQ(len, r.len);
	EXPECT_EQ(len, r.msg_len);
	EXPECT_EQ(1, r.msg_src);
	EXPECT_EQ(7, r.msg_tag);
	EXPECT_TRUE(mc_check(rb, 1, len));
	/* The receiver learnt it in the call: no entry for it. */
	EXPECT_EQ(0, xf_cq_count(E(0)));

	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(0x1234, c.user_data);
	EXPECT_EQ(len, c.len);
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(MPICHAN_CQE_SEND, c.flags);
	EXPECT_EQ(0, xf_cq_count(E(1)));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb, len);
	xf_free(rb, len);
}

/* Receive posted first: QUEUED, then the send copies (DONE). */
TEST_F(rndv, recv_first)
{
	size_t len = 70001;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_TRUE(sb && rb);
	mc_fill(sb, 2, len);
	ASSERT_EQ(0, xf_recv(E(0), rb, len, MPICHAN_RANK_ANY, 3,
			     MPICHAN_TAG_ANY, 0, 0, 0x55, &r));
	EXPECT_EQ(MPICHAN_XFER_QUEUED, r.status);
	EXPECT_NE(0, r.handle);
	EXPECT_LT(0, mc_stat("pinned_pages"));

	ASSERT_EQ(0, xf_send(E(2), sb, len, 0, 3, 9, 0x77, &s));
	EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
	EXPECT_EQ(len, s.len);
	EXPECT_EQ(0, xf_cq_count(E(2)));

	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0x55, c.user_data);
	EXPECT_EQ(len, c.len);
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(MPICHAN_CQE_RECV, c.flags);
	EXPECT_EQ(2, c.src);
	EXPECT_EQ(9, c.tag);
	EXPECT_TRUE(mc_check(rb, 2, len));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb, len);
	xf_free(rb, len);
}

/*
 * Sends from three senders, taken by receives with and without
 * wildcards: each receive gets the first matching send in posting
 * order (a model of the queue says which), so two sends of one sender
 * that both match are taken in the order they were posted.
 */
#define ORD_SENDS	12
#define ORD_LEN		5000

TEST_F(rndv, order_wildcards_three_senders)
{
	static const struct { int src, tag; } snd[ORD_SENDS] = {
		{ 1, 5 }, { 2, 5 }, { 3, 6 }, { 1, 6 }, { 2, 5 }, { 1, 5 },
		{ 3, 5 }, { 2, 7 }, { 1, 5 }, { 3, 6 }, { 2, 5 }, { 1, 7 },
	};
	static const struct { int src, tag; } rcv[] = {
		{ 2, 5 }, { MPICHAN_RANK_ANY, 6 }, { 1, MPICHAN_TAG_ANY },
		{ MPICHAN_RANK_ANY, MPICHAN_TAG_ANY }, { 2, 5 },
		{ MPICHAN_RANK_ANY, 5 }, { 3, MPICHAN_TAG_ANY },
		{ 1, 5 }, { 1, 5 }, { MPICHAN_RANK_ANY, MPICHAN_TAG_ANY },
		{ 2, MPICHAN_TAG_ANY }, { 3, 6 }, { 1, 5 },
		{ MPICHAN_RANK_ANY, MPICHAN_TAG_ANY },
	};
	unsigned char *sb = xf_alloc(ORD_SENDS * ORD_LEN), *rb = xf_alloc(ORD_LEN);
	int taken[ORD_SENDS] = { 0 }, i, j, want;
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_TRUE(sb && rb);
	for (i = 0; i < ORD_SENDS; i++) {
		mc_fill(sb + i * ORD_LEN, 100 + i, ORD_LEN);
		ASSERT_EQ(0, xf_send(E(snd[i].src), sb + i * ORD_LEN, ORD_LEN,
				     0, 4, snd[i].tag, i, &s));
		ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	}
	for (j = 0; j < (int)(sizeof(rcv) / sizeof(rcv[0])); j++) {
		want = -1;
		for (i = 0; i < ORD_SENDS && want < 0; i++)
			if (!taken[i] &&
			    (rcv[j].src < 0 || rcv[j].src == snd[i].src) &&
			    (rcv[j].tag < 0 || rcv[j].tag == snd[i].tag))
				want = i;
		memset(rb, 0, ORD_LEN);
		if (want < 0) {
			EXPECT_EQ(-ENOMSG, xf_recv(E(0), rb, ORD_LEN, rcv[j].src,
						   4, rcv[j].tag,
						   MPICHAN_RECV_NOQUEUE, 0, 0,
						   &r)) TH_LOG("receive %d", j);
			continue;
		}
		ASSERT_EQ(0, xf_recv(E(0), rb, ORD_LEN, rcv[j].src, 4,
				     rcv[j].tag, MPICHAN_RECV_NOQUEUE, 0, 0,
				     &r)) TH_LOG("receive %d", j);
		taken[want] = 1;
		EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
		EXPECT_EQ(snd[want].src, r.msg_src) TH_LOG("receive %d", j);
		EXPECT_EQ(snd[want].tag, r.msg_tag) TH_LOG("receive %d", j);
		EXPECT_TRUE(mc_check(rb, 100 + want, ORD_LEN))
			TH_LOG("receive %d got the wrong send (want %d)", j,
			       want);
		ASSERT_EQ(1, xf_cq_pop(E(snd[want].src), &c));
		EXPECT_EQ(want, c.user_data) TH_LOG("receive %d", j);
	}
	for (i = 0; i < ORD_SENDS; i++)
		EXPECT_TRUE(taken[i]) TH_LOG("send %d never taken", i);
	xf_free(sb, ORD_SENDS * ORD_LEN);
	xf_free(rb, ORD_LEN);
}

/* Receives posted first are matched in their posting order too. */
TEST_F(rndv, order_receives_posted_first)
{
	static const struct { int src, tag; } rcv[] = {
		{ MPICHAN_RANK_ANY, MPICHAN_TAG_ANY }, { 1, 5 },
		{ MPICHAN_RANK_ANY, 5 }, { 2, MPICHAN_TAG_ANY }, { 3, 5 },
	};
	/* Each send, and the receive it must land in. */
	static const struct { int src, tag, into; } snd[] = {
		{ 2, 5, 0 }, { 1, 5, 1 }, { 3, 5, 2 }, { 2, 8, 3 },
		{ 3, 5, 4 },
	};
	unsigned char *sb = xf_alloc(8192), *rb = xf_alloc(5 * 8192);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	int i;

	XF_BODY();
	ASSERT_TRUE(sb && rb);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, xf_recv(E(0), rb + i * 8192, 8192, rcv[i].src, 0,
				     rcv[i].tag, 0, 0, 1000 + i, &r));
		ASSERT_EQ(MPICHAN_XFER_QUEUED, r.status);
	}
	for (i = 0; i < 5; i++) {
		mc_fill(sb, 200 + i, 8192);
		ASSERT_EQ(0, xf_send(E(snd[i].src), sb, 8192, 0, 0, snd[i].tag,
				     0, &s));
		EXPECT_EQ(MPICHAN_XFER_DONE, s.status) TH_LOG("send %d", i);
		ASSERT_EQ(1, xf_cq_pop(E(0), &c));
		EXPECT_EQ(1000 + snd[i].into, c.user_data) TH_LOG("send %d", i);
		EXPECT_EQ(snd[i].src, c.src);
		EXPECT_EQ(snd[i].tag, c.tag);
		EXPECT_TRUE(mc_check(rb + snd[i].into * 8192, 200 + i, 8192));
	}
	/* Every receive is used up: the next send queues. */
	ASSERT_EQ(0, xf_send(E(1), sb, 8192, 0, 0, 5, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_QUEUED, s.status);
	EXPECT_EQ(0, xf_cancel(E(1)->fd, s.handle));
	xf_free(sb, 8192);
	xf_free(rb, 5 * 8192);
}

/* A different context never matches, wildcards or not. */
TEST_F(rndv, context_must_be_equal)
{
	unsigned char sb[4096], rb[4096];
	struct mpichan_send s;
	struct mpichan_recv r, q;

	XF_BODY();
	mc_fill(sb, 3, sizeof(sb));
	ASSERT_EQ(0, xf_send(E(1), sb, sizeof(sb), 0, 1, 0, 0, &s));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	EXPECT_EQ(-ENOMSG, xf_recv(E(0), rb, sizeof(rb), MPICHAN_RANK_ANY, 2,
				   MPICHAN_TAG_ANY, MPICHAN_RECV_NOQUEUE, 0, 0,
				   &r));
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), MPICHAN_RANK_ANY, 2,
			     MPICHAN_TAG_ANY, 0, 0, 0, &q));
	EXPECT_EQ(MPICHAN_XFER_QUEUED, q.status);
	/* A send on context 1 passes the posted receive on context 2 by. */
	ASSERT_EQ(0, xf_send(E(2), sb, sizeof(sb), 0, 1, 0, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_QUEUED, s.status);
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), MPICHAN_RANK_ANY, 1,
			     MPICHAN_TAG_ANY, MPICHAN_RECV_NOQUEUE, 0, 0, &r));
	EXPECT_EQ(1, r.msg_src);
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), MPICHAN_RANK_ANY, 1,
			     MPICHAN_TAG_ANY, MPICHAN_RECV_NOQUEUE, 0, 0, &r));
	EXPECT_EQ(2, r.msg_src);
	EXPECT_TRUE(mc_check(rb, 3, sizeof(rb)));
	/* And one on context 2 takes it. */
	ASSERT_EQ(0, xf_send(E(3), sb, 100, 0, 2, 9, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
}

/* MPICHAN_RECV_HANDLE takes exactly that send, whatever its envelope. */
TEST_F(rndv, handle_binds_exact_send)
{
	unsigned char a[3000], b[3000], c3[3000], rb[3000];
	struct mpichan_send sa, sb, sc;
	struct mpichan_recv r;

	XF_BODY();
	mc_fill(a, 10, sizeof(a));
	mc_fill(b, 11, sizeof(b));
	mc_fill(c3, 12, sizeof(c3));
	ASSERT_EQ(0, xf_send(E(1), a, sizeof(a), 0, 0, 1, 0, &sa));
	ASSERT_EQ(0, xf_send(E(1), b, sizeof(b), 0, 0, 1, 0, &sb));
	ASSERT_EQ(0, xf_send(E(2), c3, sizeof(c3), 0, 9, 2, 0, &sc));
	ASSERT_NE(sa.handle, sb.handle);

	/* b although a matches first; the envelope given is ignored. */
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 3, 77, 99,
			     MPICHAN_RECV_HANDLE, sb.handle, 0, &r));
	EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
	EXPECT_EQ(1, r.msg_src);
	EXPECT_EQ(1, r.msg_tag);
	EXPECT_TRUE(mc_check(rb, 11, sizeof(rb)));
	/* Another context too. */
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), MPICHAN_RANK_ANY, 0,
			     MPICHAN_TAG_ANY, MPICHAN_RECV_HANDLE, sc.handle,
			     0, &r));
	EXPECT_EQ(2, r.msg_src);
	EXPECT_TRUE(mc_check(rb, 12, sizeof(rb)));
	/* a is still there for a plain receive. */
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), MPICHAN_RANK_ANY, 0,
			     MPICHAN_TAG_ANY, MPICHAN_RECV_NOQUEUE, 0, 0, &r));
	EXPECT_TRUE(mc_check(rb, 10, sizeof(rb)));
	/* A stale handle. */
	EXPECT_EQ(-ENOENT, xf_recv(E(0), rb, sizeof(rb), 1, 0, 1,
				   MPICHAN_RECV_HANDLE, sb.handle, 0, &r));
	EXPECT_EQ(-ENOENT, xf_recv(E(0), rb, sizeof(rb), 1, 0, 1,
				   MPICHAN_RECV_HANDLE, sa.handle, 0, &r));
}

TEST_F(rndv, handle_wrong_enoent)
{
	unsigned char buf[2000], rb[2000];
	struct mpichan_send s12, s01;
	struct mpichan_recv q, r;

	XF_BODY();
	mc_fill(buf, 13, sizeof(buf));
	ASSERT_EQ(0, xf_send(E(1), buf, sizeof(buf), 2, 0, 1, 0, &s12));
	ASSERT_EQ(0, xf_send(E(0), buf, sizeof(buf), 1, 0, 1, 0, &s01));
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 3, 0, 1, 0, 0, 0, &q));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, q.status);

	/* Someone else's send, one's own send, one's own receive. */
	EXPECT_EQ(-ENOENT, xf_recv(E(0), rb, sizeof(rb), 1, 0, 1,
				   MPICHAN_RECV_HANDLE, s12.handle, 0, &r));
	EXPECT_EQ(-ENOENT, xf_recv(E(0), rb, sizeof(rb), 1, 0, 1,
				   MPICHAN_RECV_HANDLE, s01.handle, 0, &r));
	EXPECT_EQ(-ENOENT, xf_recv(E(0), rb, sizeof(rb), 1, 0, 1,
				   MPICHAN_RECV_HANDLE, q.handle, 0, &r));
	/* Never was; out of range. */
	EXPECT_EQ(-ENOENT, xf_recv(E(0), rb, sizeof(rb), 1, 0, 1,
				   MPICHAN_RECV_HANDLE, 0x7ffffff0, 0, &r));
	EXPECT_EQ(-ENOENT, xf_recv(E(0), rb, sizeof(rb), 1, 0, 1,
				   MPICHAN_RECV_HANDLE, 0, 0, &r));
	EXPECT_EQ(-ENOENT, xf_recv(E(0), rb, sizeof(rb), 1, 0, 1,
				   MPICHAN_RECV_HANDLE,
				   (1ULL << 32) | s12.handle, 0, &r));
	/* None of these queued anything; the right rank gets s12. */
	ASSERT_EQ(0, xf_recv(E(2), rb, sizeof(rb), 0, 0, 0,
			     MPICHAN_RECV_HANDLE, s12.handle, 0, &r));
	EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
	EXPECT_TRUE(mc_check(rb, 13, sizeof(rb)));
	EXPECT_EQ(0, xf_cancel(E(0)->fd, q.handle));
	EXPECT_EQ(0, xf_cancel(E(0)->fd, s01.handle));
	/* Exactly two entries for rank 0 (the cancels), one for rank 1. */
	EXPECT_EQ(2, xf_cq_count(E(0)));
	EXPECT_EQ(1, xf_cq_count(E(1)));
}

TEST_F(rndv, noqueue_nothing_enomsg)
{
	unsigned char rb[5000];
	struct mpichan_recv r;

	XF_BODY();
	EXPECT_EQ(-ENOMSG, xf_recv(E(0), rb, sizeof(rb), MPICHAN_RANK_ANY, 0,
				   MPICHAN_TAG_ANY, MPICHAN_RECV_NOQUEUE, 0, 0,
				   &r));
	EXPECT_EQ(-ENOMSG, xf_recv(E(0), rb, sizeof(rb), 1, 0, 3,
				   MPICHAN_RECV_NOQUEUE, 0, 0, &r));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
}

TEST_F(rndv, truncation_send_first)
{
	unsigned char *sb = xf_alloc(10000), *rb = xf_alloc(8192);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_TRUE(sb && rb);
	mc_fill(sb, 20, 10000);
	memset(rb, 0xa5, 8192);
	ASSERT_EQ(0, xf_send(E(1), sb, 10000, 0, 0, 4, 0, &s));
	ASSERT_EQ(0, xf_recv(E(0), rb, 3000, 1, 0, 4, 0, 0, 0, &r));
	EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
	EXPECT_EQ(3000, r.len);
	EXPECT_EQ(10000, r.msg_len);
	EXPECT_TRUE(mc_check(rb, 20, 3000));
	EXPECT_TRUE(xf_all(rb + 3000, 8192 - 3000, 0xa5));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(3000, c.len);
	EXPECT_EQ(0, c.status);
	xf_free(sb, 10000);
	xf_free(rb, 8192);
}

TEST_F(rndv, truncation_recv_first)
{
	unsigned char *sb = xf_alloc(10000), *rb = xf_alloc(8192);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_TRUE(sb && rb);
	mc_fill(sb, 21, 10000);
	memset(rb, 0xa5, 8192);
	/* Longer: truncated. */
	ASSERT_EQ(0, xf_recv(E(0), rb, 3000, 1, 0, 4, 0, 0, 1, &r));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, r.status);
	ASSERT_EQ(0, xf_send(E(1), sb, 10000, 0, 0, 4, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
	EXPECT_EQ(3000, s.len);
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(3000, c.len);
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(MPICHAN_CQE_RECV | MPICHAN_CQE_TRUNCATED, c.flags);
	EXPECT_TRUE(mc_check(rb, 21, 3000));
	EXPECT_TRUE(xf_all(rb + 3000, 8192 - 3000, 0xa5));

	/* Exactly the size: not truncated. */
	ASSERT_EQ(0, xf_recv(E(0), rb, 3000, 1, 0, 4, 0, 0, 2, &r));
	ASSERT_EQ(0, xf_send(E(1), sb, 3000, 0, 0, 4, 0, &s));
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(3000, c.len);
	EXPECT_EQ(MPICHAN_CQE_RECV, c.flags);

	/* Shorter: len is the message's, the rest of the buffer untouched. */
	memset(rb, 0xa5, 8192);
	ASSERT_EQ(0, xf_recv(E(0), rb, 3000, 1, 0, 4, 0, 0, 3, &r));
	ASSERT_EQ(0, xf_send(E(1), sb, 1000, 0, 0, 4, 0, &s));
	EXPECT_EQ(1000, s.len);
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(1000, c.len);
	EXPECT_EQ(MPICHAN_CQE_RECV, c.flags);
	EXPECT_TRUE(mc_check(rb, 21, 1000));
	EXPECT_TRUE(xf_all(rb + 1000, 8192 - 1000, 0xa5));
	xf_free(sb, 10000);
	xf_free(rb, 8192);
}

TEST_F(rndv, cancel_send)
{
	size_t len = 64 * 4096;
	unsigned char *sb = xf_alloc(len), rb[100];
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 4, 0xc1, &s));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	EXPECT_EQ(64, mc_stat("pinned_pages"));
	/* Not the sender's to cancel: the receiver's, another rank's. */
	EXPECT_EQ(-ENOENT, xf_cancel(E(0)->fd, s.handle));
	EXPECT_EQ(-ENOENT, xf_cancel(E(2)->fd, s.handle));
	EXPECT_EQ(0, xf_cancel(E(1)->fd, s.handle));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(0xc1, c.user_data);
	EXPECT_EQ(-ECANCELED, c.status);
	EXPECT_EQ(MPICHAN_CQE_SEND, c.flags);
	EXPECT_EQ(0, c.len);
	EXPECT_EQ(-ENOENT, xf_cancel(E(1)->fd, s.handle));
	EXPECT_EQ(-ENOMSG, xf_recv(E(0), rb, sizeof(rb), MPICHAN_RANK_ANY, 0,
				   MPICHAN_TAG_ANY, MPICHAN_RECV_NOQUEUE, 0, 0,
				   &r));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	xf_free(sb, len);
}

TEST_F(rndv, cancel_recv)
{
	size_t len = 32 * 4096;
	unsigned char *rb = xf_alloc(len), sb[100];
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_NE(NULL, rb);
	ASSERT_EQ(0, xf_recv(E(0), rb, len, MPICHAN_RANK_ANY, 0,
			     MPICHAN_TAG_ANY, 0, 0, 0xc2, &r));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, r.status);
	EXPECT_EQ(32, mc_stat("pinned_pages"));
	EXPECT_EQ(-ENOENT, xf_cancel(E(1)->fd, r.handle));
	EXPECT_EQ(0, xf_cancel(E(0)->fd, r.handle));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0xc2, c.user_data);
	EXPECT_EQ(-ECANCELED, c.status);
	EXPECT_EQ(MPICHAN_CQE_RECV, c.flags);
	EXPECT_EQ(-ENOENT, xf_cancel(E(0)->fd, r.handle));
	/* The cancelled receive takes nothing. */
	ASSERT_EQ(0, xf_send(E(1), sb, sizeof(sb), 0, 0, 0, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_QUEUED, s.status);
	EXPECT_EQ(0, xf_cq_count(E(0)));
	EXPECT_EQ(0, xf_cancel(E(1)->fd, s.handle));
	xf_free(rb, len);
}

TEST_F(rndv, cancel_after_match_enoent)
{
	unsigned char sb[5000], rb[5000];
	struct mpichan_send s;
	struct mpichan_recv r, q;
	struct mpichan_cancel bad;

	XF_BODY();
	ASSERT_EQ(0, xf_send(E(1), sb, sizeof(sb), 0, 0, 0, 0, &s));
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 1, 0, 0, 0, 0, 0, &r));
	EXPECT_EQ(-ENOENT, xf_cancel(E(1)->fd, s.handle));
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 1, 0, 0, 0, 0, 0, &q));
	ASSERT_EQ(0, xf_send(E(1), sb, sizeof(sb), 0, 0, 0, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
	EXPECT_EQ(-ENOENT, xf_cancel(E(0)->fd, q.handle));
	EXPECT_EQ(-ENOENT, xf_cancel(E(0)->fd, 0));
	EXPECT_EQ(-ENOENT, xf_cancel(E(0)->fd, ~0ULL));
	/* flags and pad must be 0. */
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 1, 0, 0, 0, 0, 0, &q));
	memset(&bad, 0, sizeof(bad));
	bad.handle = q.handle;
	bad.flags = 1;
	EXPECT_EQ(-1, ioctl(E(0)->fd, MPICHAN_IOC_CANCEL, &bad));
	EXPECT_EQ(EINVAL, errno);
	bad.flags = 0;
	bad.pad = 1;
	EXPECT_EQ(-1, ioctl(E(0)->fd, MPICHAN_IOC_CANCEL, &bad));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, xf_cancel(E(0)->fd, q.handle));
}

/*
 * Scatter and gather through odd iovecs: the message is the
 * concatenation of the send's segments, received into the
 * concatenation of the receive's segments.
 */
struct shape {
	struct mpichan_iovec *iov;
	uint32_t cnt;
	size_t total;
};

/* Cut buf into cnt segments of sizes f(i), with gaps of g(i) between. */
static void cut(struct shape *sh, unsigned char *buf, uint32_t cnt,
		size_t (*f)(uint32_t), size_t (*g)(uint32_t))
{
	size_t at = 0;
	uint32_t i;

	sh->iov = calloc(cnt, sizeof(*sh->iov));
	sh->cnt = cnt;
	sh->total = 0;
	for (i = 0; i < cnt; i++) {
		at += g(i);
		sh->iov[i].base = (uintptr_t)(buf + at);
		sh->iov[i].len = f(i);
		at += f(i);
		sh->total += f(i);
	}
}

static void gather(const struct shape *sh, unsigned char *out, size_t max)
{
	size_t at = 0;
	uint32_t i;

	for (i = 0; i < sh->cnt && at < max; i++) {
		size_t n = sh->iov[i].len < max - at ? sh->iov[i].len : max - at;

		memcpy(out + at, (void *)(uintptr_t)sh->iov[i].base, n);
		at += n;
	}
}

static size_t odd_size(uint32_t i) { return (i * 37) % 301 + (i % 5 ? 1 : 0); }
static size_t odd_gap(uint32_t i) { return i % 3 ? (i * 11) % 97 : 0; }
static size_t recv_size(uint32_t i) { return (i * 53) % 499 + 1; }
static size_t recv_gap(uint32_t i) { return (i * 7) % 13; }

static void shapes_once(struct __test_metadata *_metadata, struct xf *x,
			int recv_first)
{
	size_t sbytes = 1 << 20, rbytes = 1 << 20;
	unsigned char *sb = xf_alloc(sbytes), *rb = xf_alloc(rbytes);
	unsigned char *want, *got;
	struct shape ss, rs;
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	size_t i;

	ASSERT_TRUE(sb && rb);
	for (i = 0; i < sbytes; i++)
		sb[i] = (unsigned char)(i * 13 + (i >> 9));
	memset(rb, 0, rbytes);
	/* 1000 segments, some empty, starting and ending anywhere. */
	cut(&ss, sb + 1, 1000, odd_size, odd_gap);
	cut(&rs, rb + 4095, 777, recv_size, recv_gap);
	ASSERT_LE(ss.total, rs.total);
	want = malloc(ss.total);
	got = malloc(ss.total);
	ASSERT_TRUE(want && got);
	gather(&ss, want, ss.total);

	if (recv_first) {
		ASSERT_EQ(0, xf_recvv(&x->e[0], rs.iov, rs.cnt, 1, 0, 3, 0, 0,
				      0, &r));
		ASSERT_EQ(MPICHAN_XFER_QUEUED, r.status);
		ASSERT_EQ(0, xf_sendv(&x->e[1], ss.iov, ss.cnt, 0, 0, 3, 0, &s));
		EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
		EXPECT_EQ(ss.total, s.len);
		ASSERT_EQ(1, xf_cq_pop(&x->e[0], &c));
		EXPECT_EQ(ss.total, c.len);
		EXPECT_EQ(MPICHAN_CQE_RECV, c.flags);
	} else {
		ASSERT_EQ(0, xf_sendv(&x->e[1], ss.iov, ss.cnt, 0, 0, 3, 0, &s));
		ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
		ASSERT_EQ(0, xf_recvv(&x->e[0], rs.iov, rs.cnt, 1, 0, 3, 0, 0,
				      0, &r));
		EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
		EXPECT_EQ(ss.total, r.len);
		EXPECT_EQ(ss.total, r.msg_len);
		ASSERT_EQ(1, xf_cq_pop(&x->e[1], &c));
		EXPECT_EQ(ss.total, c.len);
	}
	gather(&rs, got, ss.total);
	EXPECT_EQ(0, memcmp(want, got, ss.total));
	/* The gaps of the receive buffer stay untouched. */
	EXPECT_TRUE(xf_all(rb, 4095, 0));
	free(want);
	free(got);
	free(ss.iov);
	free(rs.iov);
	xf_free(sb, sbytes);
	xf_free(rb, rbytes);
}

TEST_F_TIMEOUT(rndv, iov_1000_odd_segments, 120)
{
	XF_BODY();
	shapes_once(_metadata, &self->x, 0);
	shapes_once(_metadata, &self->x, 1);
}

/* Page-unaligned starts and ends, and empty segments between. */
TEST_F(rndv, iov_unaligned_and_empty)
{
	static const size_t offs[] = { 1, 100, 4095, 4097 };
	static const size_t lens[] = { 1, 4095, 4096, 4097, 3 * 4096 + 5 };
	size_t span = 8 * 4096;
	unsigned char *sb = xf_alloc(span), *rb = xf_alloc(span);
	struct mpichan_iovec sv[3], rv[4];
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	unsigned int o, l, p, seq = 0;

	XF_BODY();
	ASSERT_TRUE(sb && rb);
	for (o = 0; o < 4; o++)
		for (l = 0; l < 5; l++)
			for (p = 0; p < 2; p++, seq++) {
				size_t off = offs[o], len = lens[l];
				size_t roff = offs[(o + 1) % 4];

				memset(sb, 0x5a, span);
				memset(rb, 0xa5, span);
				mc_fill(sb + off, seq, len);
				/* [empty, message, empty] -> [empty, a, empty, rest] */
				sv[0] = (struct mpichan_iovec){ (uintptr_t)sb, 0 };
				sv[1] = (struct mpichan_iovec){ (uintptr_t)(sb + off), len };
				sv[2] = (struct mpichan_iovec){ 0, 0 };
				rv[0] = (struct mpichan_iovec){ 0, 0 };
				rv[1] = (struct mpichan_iovec){ (uintptr_t)(rb + roff), len / 2 };
				rv[2] = (struct mpichan_iovec){ (uintptr_t)rb, 0 };
				rv[3] = (struct mpichan_iovec){ (uintptr_t)(rb + roff + len / 2),
								len - len / 2 };
				if (p) {
					ASSERT_EQ(0, xf_recvv(E(0), rv, 4, 1, 0, 0, 0,
							      0, 0, &r));
					ASSERT_EQ(0, xf_sendv(E(1), sv, 3, 0, 0, 0, 0, &s));
					EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
					ASSERT_EQ(1, xf_cq_pop(E(0), &c));
					EXPECT_EQ(len, c.len);
				} else {
					ASSERT_EQ(0, xf_sendv(E(1), sv, 3, 0, 0, 0, 0, &s));
					ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
					ASSERT_EQ(0, xf_recvv(E(0), rv, 4, 1, 0, 0, 0,
							      0, 0, &r));
					EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
					EXPECT_EQ(len, r.len);
					ASSERT_EQ(1, xf_cq_pop(E(1), &c));
				}
				EXPECT_TRUE(mc_check(rb + roff, seq, len))
					TH_LOG("off %zu len %zu recv_first %u", off, len, p);
				EXPECT_TRUE(xf_all(rb, roff, 0xa5));
				EXPECT_TRUE(xf_all(rb + roff + len, span - roff - len, 0xa5));
			}
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb, span);
	xf_free(rb, span);
}

TEST_F(rndv, zero_byte_messages)
{
	struct mpichan_iovec empty = { 0, 0 };
	unsigned char rb[16];
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	/* No segments at all, send first. */
	ASSERT_EQ(0, xf_sendv(E(1), NULL, 0, 0, 0, 1, 0xa, &s));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 1, 0, 1, 0, 0, 0, &r));
	EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
	EXPECT_EQ(0, r.len);
	EXPECT_EQ(0, r.msg_len);
	EXPECT_EQ(1, r.msg_tag);
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(0xa, c.user_data);
	EXPECT_EQ(0, c.len);
	EXPECT_EQ(0, c.status);
	/* One empty segment, receive first with no segments. */
	ASSERT_EQ(0, xf_recvv(E(0), NULL, 0, 1, 0, 2, 0, 0, 0xb, &r));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, r.status);
	ASSERT_EQ(0, xf_sendv(E(1), &empty, 1, 0, 0, 2, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
	EXPECT_EQ(0, s.len);
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0xb, c.user_data);
	EXPECT_EQ(0, c.len);
	EXPECT_EQ(MPICHAN_CQE_RECV, c.flags);
	/* A message into no buffer at all: truncated to nothing. */
	ASSERT_EQ(0, xf_recvv(E(0), NULL, 0, 1, 0, 3, 0, 0, 0xc, &r));
	ASSERT_EQ(0, xf_send(E(1), "hello", 5, 0, 0, 3, 0, &s));
	EXPECT_EQ(0, s.len);
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0, c.len);
	EXPECT_EQ(MPICHAN_CQE_RECV | MPICHAN_CQE_TRUNCATED, c.flags);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
}

TEST_F_TIMEOUT(rndv, sixteen_mib, 180)
{
	size_t len = 16 << 20;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	int pass;

	XF_BODY();
	ASSERT_TRUE(sb && rb);
	for (pass = 0; pass < 2; pass++) {
		mc_fill(sb, 30 + pass, len);
		memset(rb, 0, len);
		if (pass) {
			ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 0, 0, 0, 0, &r));
			EXPECT_EQ(len / 4096, mc_stat("pinned_pages"));
			ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 0, 0, &s));
			EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
			EXPECT_EQ(len, s.len);
			ASSERT_EQ(1, xf_cq_pop(E(0), &c));
		} else {
			ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 0, 0, &s));
			EXPECT_EQ(len / 4096, mc_stat("pinned_pages"));
			ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 0, 0, 0, 0, &r));
			EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
			EXPECT_EQ(len, r.len);
			ASSERT_EQ(1, xf_cq_pop(E(1), &c));
		}
		EXPECT_EQ(len, c.len);
		EXPECT_EQ(0, memcmp(sb, rb, len)) TH_LOG("pass %d", pass);
		EXPECT_EQ(0, mc_stat("pinned_pages"));
	}
	xf_free(sb, len);
	xf_free(rb, len);
}

TEST_F(rndv, iov_errors)
{
	static struct mpichan_iovec many[MPICHAN_IOV_MAX + 1];
	struct mpichan_iovec ov[2];
	unsigned char *buf = xf_alloc(3 * 4096);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	int i;

	XF_BODY();
	ASSERT_NE(NULL, buf);
	/* A hole after the buffer. */
	ASSERT_EQ(0, munmap(buf + 8192, 4096));
	for (i = 0; i <= MPICHAN_IOV_MAX; i++)
		many[i] = (struct mpichan_iovec){ (uintptr_t)buf, 1 };
	EXPECT_EQ(-EINVAL, xf_sendv(E(1), many, MPICHAN_IOV_MAX + 1, 0, 0, 0, 0, &s));
	EXPECT_EQ(-EINVAL, xf_recvv(E(0), many, MPICHAN_IOV_MAX + 1, 1, 0, 0,
				    0, 0, 0, &r));
	/* Exactly the maximum is fine. */
	ASSERT_EQ(0, xf_sendv(E(1), many, MPICHAN_IOV_MAX, 0, 0, 0, 0, &s));
	ASSERT_EQ(0, xf_recv(E(0), buf + 4096, 4096, 1, 0, 0, 0, 0, 0, &r));
	EXPECT_EQ(MPICHAN_IOV_MAX, r.len);
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(MPICHAN_IOV_MAX, c.len);
	EXPECT_EQ(0, mc_stat("pinned_pages"));

	/* Lengths that overflow, or are absurd. */
	ov[0] = (struct mpichan_iovec){ (uintptr_t)buf, 1ULL << 63 };
	ov[1] = (struct mpichan_iovec){ (uintptr_t)buf, 1ULL << 63 };
	EXPECT_EQ(-EINVAL, xf_sendv(E(1), ov, 2, 0, 0, 0, 0, &s));
	EXPECT_EQ(-EINVAL, xf_recvv(E(0), ov, 2, 1, 0, 0, 0, 0, 0, &r));
	ov[0].len = ~0ULL;
	ov[1].len = 2;
	EXPECT_EQ(-EINVAL, xf_sendv(E(1), ov, 2, 0, 0, 0, 0, &s));
	ov[0].len = 0x7ffff000;
	ov[1].len = 0x7ffff000;
	EXPECT_EQ(-EINVAL, xf_sendv(E(1), ov, 2, 0, 0, 0, 0, &s));
	EXPECT_EQ(-EINVAL, xf_recvv(E(0), ov, 2, 1, 0, 0, 0, 0, 0, &r));

	/* An unreadable iovec. */
	EXPECT_EQ(-EFAULT, xf_sendv(E(1), (void *)16, 1, 0, 0, 0, 0, &s));
	EXPECT_EQ(-EFAULT, xf_recvv(E(0), (void *)16, 1, 1, 0, 0, 0, 0, 0, &r));
	/* Half of it readable. */
	EXPECT_EQ(-EFAULT, xf_sendv(E(1), (void *)(buf + 8192 - 16), 2, 0, 0,
				    0, 0, &s));

	/* A bad buffer: nothing queued, nothing pinned. */
	EXPECT_EQ(-EFAULT, xf_send(E(1), (void *)4096, 8192, 0, 0, 0, 0, &s));
	EXPECT_EQ(-EFAULT, xf_recv(E(0), (void *)4096, 8192, 1, 0, 0, 0, 0, 0, &r));
	/* Good first segment, bad second one. */
	ov[0] = (struct mpichan_iovec){ (uintptr_t)buf, 8192 };
	ov[1] = (struct mpichan_iovec){ 4096, 4096 };
	EXPECT_EQ(-EFAULT, xf_sendv(E(1), ov, 2, 0, 0, 0, 0, &s));
	EXPECT_EQ(-EFAULT, xf_recvv(E(0), ov, 2, 1, 0, 0, 0, 0, 0, &r));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	EXPECT_EQ(-ENOMSG, xf_recv(E(0), buf, 8192, MPICHAN_RANK_ANY, 0,
				   MPICHAN_TAG_ANY, MPICHAN_RECV_NOQUEUE, 0, 0, &r));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	EXPECT_EQ(0, xf_cq_count(E(1)));
	xf_free(buf, 8192);
}

/*
 * The copying side's buffer faults after the match: both sides
 * complete with -EFAULT.
 */
TEST_F(rndv, copy_fault_completes_both)
{
	unsigned char *buf = xf_alloc(3 * 4096);
	struct mpichan_iovec ov[2];
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_NE(NULL, buf);
	mc_fill(buf, 40, 3 * 4096);
	/* The sender copies: its second segment is not mapped. */
	ASSERT_EQ(0, xf_recv(E(0), buf, 3 * 4096, 1, 0, 0, 0, 0, 0x71, &r));
	ov[0] = (struct mpichan_iovec){ (uintptr_t)buf, 4096 };
	ov[1] = (struct mpichan_iovec){ 4096, 4096 };
	EXPECT_EQ(-EFAULT, xf_sendv(E(1), ov, 2, 0, 0, 0, 0, &s));
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0x71, c.user_data);
	EXPECT_EQ(-EFAULT, c.status);

	/* The receiver copies: its buffer is read-only. */
	ASSERT_EQ(0, xf_send(E(1), buf, 3 * 4096, 0, 0, 0, 0x72, &s));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	ASSERT_EQ(0, mprotect(buf, 3 * 4096, PROT_READ));
	EXPECT_EQ(-EFAULT, xf_recv(E(0), buf, 3 * 4096, 1, 0, 0, 0, 0, 0, &r));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(0x72, c.user_data);
	EXPECT_EQ(-EFAULT, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(buf, 3 * 4096);
}

TEST_F(rndv, argument_errors)
{
	unsigned char buf[64];
	struct mpichan_iovec v = { (uintptr_t)buf, sizeof(buf) };
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_unmap um;
	int fresh;

	XF_BODY();
	memset(&s, 0, sizeof(s));
	s.iov = (uintptr_t)&v;
	s.iovcnt = 1;
	s.dst = 0;
	s.flags = 1;
	EXPECT_EQ(-1, ioctl(E(1)->fd, MPICHAN_IOC_SEND, &s));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, xf_send(E(1), buf, sizeof(buf), 0, 0, -1, 0, &s));
	EXPECT_EQ(-EINVAL, xf_send(E(1), buf, sizeof(buf), 0, 0, INT32_MIN, 0, &s));
	EXPECT_EQ(-ERANGE, xf_send(E(1), buf, sizeof(buf), 4, 0, 0, 0, &s));
	EXPECT_EQ(-ERANGE, xf_send(E(1), buf, sizeof(buf), ~0U, 0, 0, 0, &s));

	EXPECT_EQ(-EINVAL, xf_recv(E(0), buf, sizeof(buf), 1, 0, -2, 0, 0, 0, &r));
	EXPECT_EQ(-EINVAL, xf_recv(E(0), buf, sizeof(buf), 1, 0, 0, 1U << 3, 0,
				   0, &r));
	EXPECT_EQ(-EINVAL, xf_recv(E(0), buf, sizeof(buf), 1, 0, 0, 1U << 31, 0,
				   0, &r));
	EXPECT_EQ(-ERANGE, xf_recv(E(0), buf, sizeof(buf), 4, 0, 0, 0, 0, 0, &r));
	EXPECT_EQ(-ERANGE, xf_recv(E(0), buf, sizeof(buf), MPICHAN_RANK_NONE, 0,
				   0, 0, 0, 0, &r));
	EXPECT_EQ(-ERANGE, xf_recv(E(0), buf, sizeof(buf), INT32_MIN, 0, 0, 0,
				   0, 0, &r));
	memset(&um, 0, sizeof(um));
	um.flags = 1;
	EXPECT_EQ(-1, ioctl(E(0)->fd, MPICHAN_IOC_UNMAP, &um));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-ENOENT, xf_unmap(E(0)->fd, 1));

	/* Not a rank: the owner, and a fresh fd. */
	fresh = mc_open();
	ASSERT_LE(0, fresh);
	do {
		struct mcr_ep f = { .fd = fresh };

		EXPECT_EQ(-ENOTCONN, xf_send(&f, buf, sizeof(buf), 0, 0, 0, 0, &s));
		EXPECT_EQ(-ENOTCONN, xf_recv(&f, buf, sizeof(buf), 0, 0, 0, 0,
					     0, 0, &r));
		EXPECT_EQ(-ENOTCONN, xf_cancel(fresh, 1));
		EXPECT_EQ(-ENOTCONN, xf_unmap(fresh, 1));
		f.fd = self->x.job.owner;
		EXPECT_EQ(-ENOTCONN, xf_send(&f, buf, sizeof(buf), 0, 0, 0, 0, &s));
		EXPECT_EQ(-ENOTCONN, xf_recv(&f, buf, sizeof(buf), 0, 0, 0, 0,
					     0, 0, &r));
		EXPECT_EQ(-ENOTCONN, xf_cancel(f.fd, 1));
		EXPECT_EQ(-ENOTCONN, xf_unmap(f.fd, 1));
	} while (0);
	close(fresh);
	EXPECT_EQ(0, xf_cq_count(E(0)));
	EXPECT_EQ(0, xf_cq_count(E(1)));
}

/*
 * 1024 queued sends take every completion entry of the sender: the
 * next one is refused with EAGAIN until the entries are consumed.
 */
TEST_F_TIMEOUT(rndv, cq_reservation_full, 120)
{
	unsigned char *sb = xf_alloc(4096), rb[64];
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	int i;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	for (i = 0; i < MPICHAN_CQ_ENTRIES; i++) {
		ASSERT_EQ(0, xf_send(E(1), sb + (i % 64), 16, 0, 0, i, i, &s))
			TH_LOG("send %d", i);
		ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	}
	EXPECT_EQ(MPICHAN_CQ_ENTRIES, mc_stat("pinned_pages"));
	EXPECT_EQ(-EAGAIN, xf_send(E(1), sb, 16, 0, 0, 0, 0, &s));
	EXPECT_EQ(-EAGAIN, xf_send(E(1), sb, 16, 2, 0, 0, 0, &s));
	EXPECT_EQ(-EAGAIN, xf_recv(E(1), rb, sizeof(rb), 2, 0, 0, 0, 0, 0, &r));
	EXPECT_EQ(MPICHAN_CQ_ENTRIES, mc_stat("pinned_pages"));
	/* A send that completes in the call needs no entry. */
	ASSERT_EQ(0, xf_recv(E(2), rb, sizeof(rb), 1, 0, 0, 0, 0, 0, &r));
	ASSERT_EQ(0, xf_send(E(1), sb, 16, 2, 0, 0, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
	ASSERT_EQ(1, xf_cq_pop(E(2), &c));

	for (i = 0; i < MPICHAN_CQ_ENTRIES; i++) {
		ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 1, 0,
				     MPICHAN_TAG_ANY, MPICHAN_RECV_NOQUEUE, 0,
				     0, &r));
		ASSERT_EQ(i, r.msg_tag);
	}
	EXPECT_EQ(MPICHAN_CQ_ENTRIES, xf_cq_count(E(1)));
	/* Entries posted but not consumed still fill the queue. */
	EXPECT_EQ(-EAGAIN, xf_send(E(1), sb, 16, 0, 0, 0, 0, &s));
	for (i = 0; i < MPICHAN_CQ_ENTRIES; i++) {
		ASSERT_EQ(1, xf_cq_pop(E(1), &c));
		EXPECT_EQ(i, c.user_data);
		EXPECT_EQ(16, c.len);
	}
	EXPECT_EQ(0, mcr_rank_ctl(E(1), 1)->cq_overflow);
	ASSERT_EQ(0, xf_send(E(1), sb, 16, 0, 0, 0, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_QUEUED, s.status);
	EXPECT_EQ(0, xf_cancel(E(1)->fd, s.handle));
	xf_free(sb, 4096);
}

/*
 * A rank that moves cq_head wrongly only loses its own entries:
 * cq_overflow counts them, nothing else breaks.
 */
TEST_F(rndv, cq_head_broken_by_rank)
{
	struct mpichan_rank_ctl *ctl = mcr_rank_ctl(E(1), 1);
	unsigned char sb[5000], rb[5000];
	struct mpichan_send s, s2;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	uint32_t tail;

	XF_BODY();
	mc_fill(sb, 90, sizeof(sb));
	ASSERT_EQ(0, xf_send(E(1), sb, sizeof(sb), 0, 0, 0, 0x91, &s));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	tail = ctl->cq_tail;
	/* Claim every entry is still unconsumed: the queue looks full. */
	ctl->cq_head = tail - MPICHAN_CQ_ENTRIES;
	EXPECT_EQ(-EAGAIN, xf_send(E(1), sb, sizeof(sb), 0, 0, 1, 0, &s2));
	/* The queued send completes: its entry has nowhere to go. */
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 1, 0, 0, 0, 0, 0, &r));
	EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
	EXPECT_TRUE(mc_check(rb, 90, sizeof(rb)));
	EXPECT_EQ(1, ctl->cq_overflow);
	EXPECT_EQ(tail, ctl->cq_tail);
	/* Garbage far ahead of the tail. */
	ctl->cq_head = tail + 12345;
	EXPECT_EQ(-EAGAIN, xf_send(E(1), sb, sizeof(sb), 0, 0, 1, 0, &s2));
	/* Put right, the queue works again. */
	ctl->cq_head = tail;
	ASSERT_EQ(0, xf_send(E(1), sb, sizeof(sb), 0, 0, 2, 0x92, &s2));
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 1, 0, 2, 0, 0, 0, &r));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(0x92, c.user_data);
	EXPECT_EQ(1, ctl->cq_overflow);
}

TEST_F(rndv, cq_wait_and_poll)
{
	unsigned char sb[4096], rb[4096];
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	EXPECT_EQ(-ETIMEDOUT, mc_wait(E(1)->fd, 0, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(0, mc_poll(E(1)->fd, 0));
	ASSERT_EQ(0, xf_send(E(1), sb, sizeof(sb), 0, 0, 0, 0, &s));
	/* Queued, not complete: still nothing. */
	EXPECT_EQ(-ETIMEDOUT, mc_wait(E(1)->fd, 0, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(0, mc_poll(E(1)->fd, 0));
	ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 1, 0, 0, 0, 0, 0, &r));
	EXPECT_EQ(0, mc_wait(E(1)->fd, 0, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(0, mc_wait(E(1)->fd, 100 * MC_MS, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(POLLIN, mc_poll(E(1)->fd, 0));
	/* The receiver's fd is not concerned. */
	EXPECT_EQ(0, mc_poll(E(0)->fd, 0));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(-ETIMEDOUT, mc_wait(E(1)->fd, 0, MPICHAN_RANK_NONE, NULL));
	EXPECT_EQ(0, mc_poll(E(1)->fd, 0));
}

struct sleeper {
	const struct mcr_ep *ep;
	int use_poll;
	int ret;
	int64_t slept;
	struct mpichan_cqe c;
};

static void *sleeper_fn(void *arg)
{
	struct sleeper *sl = arg;
	int64_t t0 = mc_now_ns();

	if (sl->use_poll) {
		int rev = mc_poll(sl->ep->fd, 10000);

		sl->ret = rev == POLLIN && xf_cq_pop(sl->ep, &sl->c) ? 0 : -1;
	} else {
		sl->ret = mc_wait(sl->ep->fd, 10 * MC_SEC, MPICHAN_RANK_NONE,
				  NULL);
		if (!sl->ret && !xf_cq_pop(sl->ep, &sl->c))
			sl->ret = -ENOMSG;
	}
	sl->slept = mc_now_ns() - t0;
	return NULL;
}

/* A sender asleep in WAIT or poll() is woken by its completion. */
TEST_F(rndv, cq_wakes_sleeping_sender)
{
	unsigned char sb[8192], rb[8192];
	struct mpichan_send s;
	struct mpichan_recv r;
	struct sleeper sl;
	pthread_t t;
	int p;

	XF_BODY();
	for (p = 0; p < 2; p++) {
		ASSERT_EQ(0, xf_send(E(1), sb, sizeof(sb), 0, 0, 0, 0x5e, &s));
		memset(&sl, 0, sizeof(sl));
		sl.ep = E(1);
		sl.use_poll = p;
		ASSERT_EQ(0, pthread_create(&t, NULL, sleeper_fn, &sl));
		mc_sleep_ms(300);
		ASSERT_EQ(0, xf_recv(E(0), rb, sizeof(rb), 1, 0, 0, 0, 0, 0, &r));
		ASSERT_EQ(0, pthread_join(t, NULL));
		EXPECT_EQ(0, sl.ret) TH_LOG("poll %d", p);
		EXPECT_EQ(0x5e, sl.c.user_data);
		EXPECT_LE(200 * MC_MS, sl.slept);
		EXPECT_GT(5 * MC_SEC, sl.slept);
	}
}

TEST_HARNESS_MAIN
