// SPDX-License-Identifier: GPL-2.0
/*
 * Faults on the large-message path: a sender or a receiver killed with
 * transfers queued or mapped, a send buffer unmapped while queued, a
 * fork() while a send is pending.  Each ends with an error for the
 * peer (or the right data) and nothing pinned, never an oops.
 */
#include "kselftest_harness.h"
#include "xfer_helpers.h"

/*
 * The test process attaches ranks 0 and 2 of a three-rank job; a
 * helper process attaches rank 1, does its part and waits to be
 * killed.
 */
FIXTURE(fault) {
	struct xf x;
	struct mc_child rank1;
};

FIXTURE_SETUP(fault)
{
	mc_child_init(&self->rank1);
	XF_SETUP_BUT(&self->x, 3, 1);
}

FIXTURE_TEARDOWN(fault)
{
	mc_child_close(&self->rank1);
	XF_TEARDOWN(&self->x);
}

static uint64_t queue_sends(struct mcr_ep *e, void *arg)
{
	size_t len = 16 * XF_PAGE;
	unsigned char *b = xf_alloc(len);
	struct mpichan_send s;
	int i;

	CHILD_CHECK(b != NULL);
	for (i = 0; i < 4; i++) {
		CHILD_CHECK(xf_send(e, b, len, 0, 0, i, 0, &s) == 0);
		CHILD_CHECK(s.status == MPICHAN_XFER_QUEUED);
	}
	CHILD_CHECK(xf_send(e, b, len, 2, 0, 7, 0, &s) == 0);
	CHILD_CHECK(s.status == MPICHAN_XFER_QUEUED);
	return 0;
}

/* The sender dies with sends queued: they go, receives naming it fail. */
TEST_F(fault, sender_killed_with_queued_sends)
{
	unsigned char *rb = xf_alloc(16 * XF_PAGE);
	struct mpichan_recv r, q;
	struct mpichan_cqe c = { 0 };

	XF_BODY();
	ASSERT_NE(NULL, rb);
	ASSERT_EQ(0, mc_child_start(&self->rank1, &self->x.job, 1, queue_sends,
				    NULL));
	ASSERT_EQ(0, mc_child_ready(&self->rank1, NULL));
	EXPECT_EQ(5 * 16, mc_stat("pinned_pages"));
	/* Rank 2 waits for a tag rank 1 never sends. */
	ASSERT_EQ(0, xf_recv(E(2), rb, 16 * XF_PAGE, 1, 0, 99, 0, 0, 0x42, &q));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, q.status);
	EXPECT_EQ(6 * 16, mc_stat("pinned_pages"));
	mc_child_kill(&self->rank1);

	EXPECT_EQ(0, mc_stat("pinned_pages"));
	EXPECT_EQ(MPICHAN_RANK_DEAD, mcr_rank_ctl(E(0), 1)->state);
	ASSERT_EQ(0, xf_cq_wait(E(2), &c, 5000));
	EXPECT_EQ(0x42, c.user_data);
	EXPECT_EQ(-EPIPE, c.status);
	EXPECT_EQ(MPICHAN_CQE_RECV, c.flags);
	EXPECT_EQ(-EPIPE, xf_recv(E(0), rb, 16 * XF_PAGE, 1, 0, 0, 0, 0, 0, &r));
	EXPECT_EQ(-EPIPE, xf_recv(E(0), rb, 16 * XF_PAGE, 1, 0,
				  MPICHAN_TAG_ANY, 0, 0, 0, &r));
	EXPECT_EQ(-ENOMSG, xf_recv(E(0), rb, 16 * XF_PAGE, MPICHAN_RANK_ANY, 0,
				   MPICHAN_TAG_ANY, MPICHAN_RECV_NOQUEUE, 0, 0,
				   &r));
	EXPECT_EQ(-EPIPE, xf_send(E(0), rb, 100, 1, 0, 0, 0, NULL));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(rb, 16 * XF_PAGE);
}

static uint64_t queue_recvs(struct mcr_ep *e, void *arg)
{
	size_t len = 16 * XF_PAGE;
	unsigned char *b = xf_alloc(3 * len);
	struct mpichan_recv r;
	int i;

	CHILD_CHECK(b != NULL);
	for (i = 0; i < 3; i++) {
		CHILD_CHECK(xf_recv(e, b + i * len, len, 0, 0, 50 + i, 0, 0, 0,
				    &r) == 0);
		CHILD_CHECK(r.status == MPICHAN_XFER_QUEUED);
	}
	return 0;
}

/*
 * The receiver dies with receives queued: they go; sends queued to it
 * complete with -EPIPE; new sends to it fail.
 */
TEST_F(fault, receiver_killed_with_queued_recvs)
{
	unsigned char *sb = xf_alloc(16 * XF_PAGE);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c = { 0 };

	XF_BODY();
	ASSERT_NE(NULL, sb);
	/* Queued before the receives, on a tag they do not take. */
	ASSERT_EQ(0, xf_send(E(0), sb, 16 * XF_PAGE, 1, 0, 7, 0x43, &s));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	ASSERT_EQ(0, mc_child_start(&self->rank1, &self->x.job, 1, queue_recvs,
				    NULL));
	ASSERT_EQ(0, mc_child_ready(&self->rank1, NULL));
	EXPECT_EQ(4 * 16, mc_stat("pinned_pages"));
	mc_child_kill(&self->rank1);

	EXPECT_EQ(0, mc_stat("pinned_pages"));
	ASSERT_EQ(0, xf_cq_wait(E(0), &c, 5000));
	EXPECT_EQ(0x43, c.user_data);
	EXPECT_EQ(-EPIPE, c.status);
	EXPECT_EQ(MPICHAN_CQE_SEND, c.flags);
	EXPECT_EQ(-EPIPE, xf_send(E(0), sb, 16 * XF_PAGE, 1, 0, 50, 0, &s));
	EXPECT_EQ(-EPIPE, xf_send(E(2), sb, 10, 1, 0, 51, 0, &s));
	EXPECT_EQ(-EPIPE, xf_recv(E(0), sb, 10, 1, 0, 0, 0, 0, 0, &r));
	EXPECT_EQ(0, xf_cq_count(E(0)));
	EXPECT_EQ(0, xf_cq_count(E(2)));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb, 16 * XF_PAGE);
}

struct map_arg {
	size_t len;
};

static uint64_t map_a_send(struct mcr_ep *e, void *arg)
{
	struct map_arg *m = arg;
	unsigned char *rb = xf_alloc(m->len);
	void *w = xf_window(e->fd, m->len, PROT_READ, MAP_SHARED);
	struct mpichan_recv r;

	CHILD_CHECK(rb != NULL && w != MAP_FAILED);
	CHILD_CHECK(xf_recv(e, rb, m->len, 0, 0, 3, MPICHAN_RECV_MAP, 0, 0,
			    &r) == 0);
	CHILD_CHECK(r.status == MPICHAN_XFER_MAPPED);
	CHILD_CHECK(r.map_len == m->len);
	CHILD_CHECK(mc_check(w, 5, m->len));
	return 0;
}

/* The receiver is killed while the send is mapped in its window. */
TEST_F(fault, receiver_killed_while_mapped)
{
	struct map_arg m = { 32 * XF_PAGE };
	unsigned char *sb = xf_alloc(m.len);
	struct mpichan_send s;
	struct mpichan_cqe c = { 0 };

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 5, m.len);
	ASSERT_EQ(0, xf_send(E(0), sb, m.len, 1, 0, 3, 0x44, &s));
	ASSERT_EQ(0, mc_child_start(&self->rank1, &self->x.job, 1, map_a_send, &m));
	ASSERT_EQ(0, mc_child_ready(&self->rank1, NULL));
	mc_child_kill(&self->rank1);
	ASSERT_EQ(0, xf_cq_wait(E(0), &c, 5000));
	EXPECT_EQ(0x44, c.user_data);
	EXPECT_EQ(-EPIPE, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	/* The sender's buffer is its own again and intact. */
	EXPECT_TRUE(mc_check(sb, 5, m.len));
	xf_free(sb, m.len);
}

static uint64_t send_for_map(struct mcr_ep *e, void *arg)
{
	struct map_arg *m = arg;
	unsigned char *sb = xf_alloc(m->len);
	struct mpichan_send s;

	CHILD_CHECK(sb != NULL);
	mc_fill(sb, 6, m->len);
	CHILD_CHECK(xf_send(e, sb, m->len, 0, 0, 3, 0, &s) == 0);
	CHILD_CHECK(s.status == MPICHAN_XFER_QUEUED);
	return 0;
}

/*
 * The sender is killed while its send is mapped in the receiver's
 * window: the pages stay pinned until the receiver's UNMAP.
 */
TEST_F(fault, sender_killed_while_mapped)
{
	struct map_arg m = { 32 * XF_PAGE };
	unsigned char *rb = xf_alloc(m.len), *w;
	struct mpichan_recv r;

	XF_BODY();
	ASSERT_NE(NULL, rb);
	w = xf_window(E(0)->fd, m.len, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, w);
	ASSERT_EQ(0, mc_child_start(&self->rank1, &self->x.job, 1, send_for_map,
				    &m));
	ASSERT_EQ(0, mc_child_ready(&self->rank1, NULL));
	ASSERT_EQ(0, xf_recv(E(0), rb, m.len, 1, 0, 3, MPICHAN_RECV_MAP, 0, 0,
			     &r));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
	mc_child_kill(&self->rank1);
	EXPECT_EQ(m.len / XF_PAGE, mc_stat("pinned_pages"));
	memcpy(rb + r.map_off, w, r.map_len);
	EXPECT_TRUE(mc_check(rb, 6, m.len));
	EXPECT_EQ(0, xf_unmap(E(0)->fd, r.handle));
	EXPECT_EQ(SIGBUS, xf_probe(w, NULL));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	munmap(w, m.len);
	xf_free(rb, m.len);
}

/* The sender unmaps its buffer while the send is queued. */
TEST_F(fault, sender_munmaps_queued_buffer)
{
	size_t len = 16 * XF_PAGE;
	unsigned char *sb, *rb = xf_alloc(len), *w;
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	int map;

	XF_BODY();
	ASSERT_NE(NULL, rb);
	w = xf_window(E(0)->fd, len, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, w);
	for (map = 0; map < 2; map++) {
		sb = xf_alloc(len);
		ASSERT_NE(NULL, sb);
		mc_fill(sb, 7 + map, len);
		ASSERT_EQ(0, xf_send(E(2), sb + 10, len - 10, 0, 0, 0, 0, &s));
		ASSERT_EQ(0, munmap(sb, len));
		/* Something else may take the address now. */
		sb = mmap(sb, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, sb);
		memset(sb, 0xee, len);
		memset(rb, 0, len);
		ASSERT_EQ(0, xf_recv(E(0), rb, len, 2, 0, 0,
				     map ? MPICHAN_RECV_MAP : 0, 0, 0, &r));
		if (map) {
			ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
			memcpy(rb + r.map_off, w, r.map_len);
			EXPECT_EQ(0, xf_unmap(E(0)->fd, r.handle));
		} else {
			EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
		}
		EXPECT_EQ(len - 10, r.len);
		for (r.len = 0; r.len < len - 10; r.len++)
			if (rb[r.len] != mc_pattern(7 + map, r.len + 10))
				break;
		EXPECT_EQ(len - 10, r.len) TH_LOG("map %d", map);
		ASSERT_EQ(1, xf_cq_pop(E(2), &c));
		EXPECT_EQ(0, c.status);
		EXPECT_EQ(0, mc_stat("pinned_pages"));
		munmap(sb, len);
	}
	munmap(w, len);
	xf_free(rb, len);
}

/* The receiver unmaps the buffer of its queued receive. */
TEST_F(fault, receiver_munmaps_queued_buffer)
{
	size_t len = 16 * XF_PAGE;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	ASSERT_EQ(0, xf_recv(E(0), rb, len, 2, 0, 0, 0, 0, 0, &r));
	ASSERT_EQ(0, munmap(rb, len));
	mc_fill(sb, 9, len);
	ASSERT_EQ(0, xf_send(E(2), sb, len, 0, 0, 0, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
	EXPECT_EQ(len, s.len);
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb, len);
}

/*
 * fork() while a send is pending: the pinned pages stay the sender's.
 * A child scribbling over its copy of the buffer changes nothing; the
 * sender's own later writes are what the pinned pages hold.
 */
TEST_F(fault, fork_while_send_pending)
{
	size_t len = 16 * XF_PAGE;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	pid_t pid;
	int pass;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	for (pass = 0; pass < 2; pass++) {
		mc_fill(sb, 11, len);
		ASSERT_EQ(0, xf_send(E(2), sb, len, 0, 0, 0, 0, &s));
		ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			memset(sb, 0xff, len);
			/* The child is no rank. */
			CHILD_CHECK(xf_send(E(2), sb, len, 0, 0, 0, 0, NULL) == -EBADFD);
			_exit(0);
		}
		EXPECT_EQ(0, mc_reap(pid));
		if (pass)
			mc_fill(sb, 12, len);
		memset(rb, 0, len);
		ASSERT_EQ(0, xf_recv(E(0), rb, len, 2, 0, 0, 0, 0, 0, &r));
		EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
		EXPECT_TRUE(mc_check(rb, pass ? 12 : 11, len)) TH_LOG("pass %d", pass);
		ASSERT_EQ(1, xf_cq_pop(E(2), &c));
		EXPECT_EQ(0, mc_stat("pinned_pages"));
	}
	xf_free(sb, len);
	xf_free(rb, len);
}

TEST_HARNESS_MAIN
