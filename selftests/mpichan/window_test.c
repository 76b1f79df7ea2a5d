// SPDX-License-Identifier: GPL-2.0
/*
 * The receive window: mmap() of a rank's fd at MPICHAN_WINDOW_OFFSET,
 * and RECV with MPICHAN_RECV_MAP (the mapped copy): the kernel copies
 * the partial first and last pages, maps the whole pages in between,
 * and UNMAP tears the window down before the send completes.
 */
#include <pthread.h>
#include <time.h>

#include "kselftest_harness.h"
#include "xfer_helpers.h"

#define WIN_BYTES	(64 * XF_PAGE)

FIXTURE(win) {
	struct xf x;
	unsigned char *win;
};

FIXTURE_SETUP(win)
{
	self->win = MAP_FAILED;
	XF_SETUP(&self->x, 3);
}

FIXTURE_TEARDOWN(win)
{
	if (self->win != MAP_FAILED)
		munmap(self->win, WIN_BYTES);
	XF_TEARDOWN(&self->x);
}

static unsigned char *open_window(struct __test_metadata *_metadata,
				  FIXTURE_DATA(win) *self)
{
	self->win = xf_window(E(0)->fd, WIN_BYTES, PROT_READ, MAP_SHARED);
	return self->win;
}

TEST_F(win, mmap_rules)
{
	unsigned char *w = open_window(_metadata, self);
	void *p;
	int fresh;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, w);
	/* Outside a mapped receive, nothing is there. */
	EXPECT_EQ(SIGBUS, xf_probe(w, NULL));
	EXPECT_EQ(SIGBUS, xf_probe(w + WIN_BYTES - 1, NULL));
	/* Once per rank. */
	p = xf_window(E(0)->fd, XF_PAGE, PROT_READ, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EBUSY, errno);
	/* Another rank may have its own. */
	p = xf_window(E(1)->fd, XF_PAGE, PROT_READ, MAP_SHARED);
	EXPECT_NE(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, XF_PAGE);
	/* Read-only, shared, at most 1 GiB. */
	p = xf_window(E(2)->fd, XF_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	/* Nor executable: the sender's pages are data. */
	p = xf_window(E(2)->fd, XF_PAGE, PROT_READ | PROT_EXEC, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = xf_window(E(2)->fd, XF_PAGE, PROT_READ, MAP_PRIVATE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = xf_window(E(2)->fd, MPICHAN_WINDOW_MAX_BYTES + XF_PAGE, PROT_READ,
		      MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* The largest is fine. */
	p = xf_window(E(2)->fd, MPICHAN_WINDOW_MAX_BYTES, PROT_READ, MAP_SHARED);
	EXPECT_NE(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, MPICHAN_WINDOW_MAX_BYTES);
	/* Not a rank: the owner, a fresh fd. */
	p = xf_window(self->x.job.owner, XF_PAGE, PROT_READ, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENXIO, errno);
	fresh = mc_open();
	ASSERT_LE(0, fresh);
	p = xf_window(fresh, XF_PAGE, PROT_READ, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENXIO, errno);
	close(fresh);
}

/* The rank's window is still registered: a second one is refused. */
static int still_one_window(int fd)
{
	void *p = xf_window(fd, XF_PAGE, PROT_READ, MAP_SHARED);

	if (p == MAP_FAILED)
		return errno == EBUSY;
	munmap(p, XF_PAGE);
	return 0;
}

TEST_F(win, cannot_be_written_split_or_moved)
{
	unsigned char *w = open_window(_metadata, self);
	void *p, *spare;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, w);
	EXPECT_EQ(-1, mprotect(w, WIN_BYTES, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(w, WIN_BYTES, PROT_READ | PROT_EXEC));
	EXPECT_TRUE(still_one_window(E(0)->fd)) TH_LOG("after mprotect");
	/* Partial munmap: at the start, at the end, in the middle. */
	EXPECT_EQ(-1, munmap(w, XF_PAGE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap(w + WIN_BYTES - XF_PAGE, XF_PAGE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap(w + 4 * XF_PAGE, XF_PAGE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_TRUE(still_one_window(E(0)->fd)) TH_LOG("after partial munmap");
	/* mremap: shrink, grow. */
	p = mremap(w, WIN_BYTES, WIN_BYTES / 2, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mremap(w, WIN_BYTES, 2 * WIN_BYTES, MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_TRUE(still_one_window(E(0)->fd)) TH_LOG("after mremap shrink/grow");
	EXPECT_EQ(SIGBUS, xf_probe(w + WIN_BYTES - 1, NULL));
	/* mremap: move. */
	spare = mmap(NULL, WIN_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_NE(MAP_FAILED, spare);
	p = mremap(w, WIN_BYTES, WIN_BYTES, MREMAP_MAYMOVE | MREMAP_FIXED,
		   spare);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	if (p == MAP_FAILED)
		munmap(spare, WIN_BYTES);
	/* Still there, still whole, still the rank's one window. */
	EXPECT_EQ(SIGBUS, xf_probe(w + WIN_BYTES - 1, NULL));
	EXPECT_TRUE(still_one_window(E(0)->fd)) TH_LOG("after a failed mremap move");
	/* Whole munmap works, and then a new window may be mapped. */
	EXPECT_EQ(0, munmap(w, WIN_BYTES));
	self->win = open_window(_metadata, self);
	EXPECT_NE(MAP_FAILED, self->win);
}

/*
 * After a refused mremap move the window must still work: a MAP
 * receive maps into it.
 */
TEST_F(win, mapped_copy_after_failed_move)
{
	size_t len = 8 * XF_PAGE;
	unsigned char *w = open_window(_metadata, self);
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	void *spare, *p;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, w);
	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	spare = mmap(NULL, WIN_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_NE(MAP_FAILED, spare);
	p = mremap(w, WIN_BYTES, WIN_BYTES, MREMAP_MAYMOVE | MREMAP_FIXED,
		   spare);
	ASSERT_EQ(MAP_FAILED, p);
	munmap(spare, WIN_BYTES);
	mc_fill(sb, 70, len);
	ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 0, 0, &s));
	ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 0, MPICHAN_RECV_MAP, 0, 0, &r));
	EXPECT_EQ(MPICHAN_XFER_MAPPED, r.status);
	if (r.status == MPICHAN_XFER_MAPPED) {
		memcpy(rb + r.map_off, w, r.map_len);
		EXPECT_EQ(0, xf_unmap(E(0)->fd, r.handle));
	}
	EXPECT_EQ(0, memcmp(rb, sb, len));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	xf_free(sb, len);
	xf_free(rb, len);
}

TEST_F(win, not_inherited_by_fork)
{
	unsigned char *w = open_window(_metadata, self);
	pid_t pid;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, w);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* msync() of an unmapped range fails with ENOMEM. */
		CHILD_CHECK(msync(w, XF_PAGE, MS_ASYNC) == -1 && errno == ENOMEM);
		CHILD_CHECK(xf_probe(w, NULL) == SIGSEGV);
		_exit(0);
	}
	EXPECT_EQ(0, mc_reap(pid));
	EXPECT_EQ(0, msync(w, XF_PAGE, MS_ASYNC));
}

/*
 * Send len bytes starting off bytes into a page-aligned area whose
 * other bytes are a canary, receive it with MPICHAN_RECV_MAP, and
 * check everything the uapi promises about the mapped copy.
 */
static void mapped_once(struct __test_metadata *_metadata,
			FIXTURE_DATA(win) *self, size_t off, size_t len,
			unsigned int seq)
{
	size_t area = off + len + 2 * XF_PAGE;
	unsigned char *sb = xf_alloc(area), *rb = xf_alloc(len + XF_PAGE);
	unsigned char *w = self->win, v;
	size_t head, pages, i;
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c = { 0 };

	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	memset(sb, 0xc5, area);
	mc_fill(sb + off, seq, len);
	memset(rb, 0, len + XF_PAGE);
	head = off % XF_PAGE ? XF_PAGE - off % XF_PAGE : 0;
	if (head > len)
		head = len;
	pages = (len - head) / XF_PAGE;
	if (pages > WIN_BYTES / XF_PAGE)
		pages = WIN_BYTES / XF_PAGE;

	ASSERT_EQ(0, xf_send(E(1), sb + off, len, 0, 0, 6, 0xabc, &s));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 6, MPICHAN_RECV_MAP, 0, 0, &r));
	EXPECT_EQ(len, r.len);
	EXPECT_EQ(len, r.msg_len);
	EXPECT_EQ(1, r.msg_src);
	EXPECT_EQ(6, r.msg_tag);
	if (!pages) {
		/* Nothing whole to map: the plain copy. */
		EXPECT_EQ(MPICHAN_XFER_DONE, r.status);
		EXPECT_TRUE(mc_check(rb, seq, len));
		ASSERT_EQ(1, xf_cq_pop(E(1), &c));
		goto out;
	}
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status)
		TH_LOG("off %zu len %zu", off, len);
	EXPECT_EQ(head, r.map_off) TH_LOG("off %zu len %zu", off, len);
	EXPECT_EQ(pages * XF_PAGE, r.map_len) TH_LOG("off %zu len %zu", off, len);
	ASSERT_LE(r.map_off + r.map_len, len);
	EXPECT_EQ(s.handle, r.handle);
	/* The kernel copied the partial pages (and only those). */
	EXPECT_TRUE(mc_check(rb, seq, r.map_off));
	for (i = 0; i < r.map_len; i++)
		if (rb[r.map_off + i] != mc_pattern(seq, r.map_off + i))
			break;
	EXPECT_LT(i, r.map_len) TH_LOG("the kernel copied the mapped part");
	/* Every mapped byte is a byte of the message. */
	for (i = 0; i < r.map_len; i++)
		if (w[i] != mc_pattern(seq, r.map_off + i))
			break;
	EXPECT_EQ(r.map_len, i) TH_LOG("window byte %zu is not the message's", i);
	/* Nothing is mapped past map_len. */
	if (r.map_len < WIN_BYTES)
		EXPECT_EQ(SIGBUS, xf_probe(w + r.map_len, &v));
	/* The send is not complete before UNMAP. */
	EXPECT_EQ(0, xf_cq_count(E(1)));
	EXPECT_EQ(-ENOENT, xf_cancel(E(1)->fd, s.handle));
	memcpy(rb + r.map_off, w, r.map_len);
	EXPECT_TRUE(mc_check(rb, seq, len));
	EXPECT_EQ(0, xf_cq_count(E(1)));
	EXPECT_EQ(-ENOENT, xf_unmap(E(1)->fd, r.handle));
	EXPECT_EQ(-ENOENT, xf_unmap(E(0)->fd, r.handle + 1));
	EXPECT_EQ(0, xf_unmap(E(0)->fd, r.handle));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(0xabc, c.user_data);
	EXPECT_EQ(len, c.len);
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(MPICHAN_CQE_SEND, c.flags);
	EXPECT_EQ(-ENOENT, xf_unmap(E(0)->fd, r.handle));
	/* After UNMAP the window faults, whatever was mapped. */
	EXPECT_EQ(SIGBUS, xf_probe(w, &v));
	EXPECT_EQ(SIGBUS, xf_probe(w + r.map_len - 1, &v));
out:
	EXPECT_EQ(0, xf_cq_count(E(0)));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb, area);
	xf_free(rb, len + XF_PAGE);
}

TEST_F(win, mapped_copy_aligned)
{
	XF_BODY();
	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	mapped_once(_metadata, self, 0, XF_PAGE, 1);
	mapped_once(_metadata, self, 0, 16 * XF_PAGE, 2);
	mapped_once(_metadata, self, 0, 16 * XF_PAGE + 1, 3);
	mapped_once(_metadata, self, 0, 16 * XF_PAGE - 1, 4);
}

TEST_F(win, mapped_copy_unaligned)
{
	static const size_t offs[] = { 1, 100, 2048, 4095 };
	static const size_t lens[] = { 2 * XF_PAGE, 2 * XF_PAGE - 1,
				       8 * XF_PAGE + 333, 5000, 100 };
	unsigned int o, l, seq = 10;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	for (o = 0; o < 4; o++)
		for (l = 0; l < 5; l++)
			mapped_once(_metadata, self, offs[o], lens[l], seq++);
}

/* A message larger than the window: the window is filled, the rest copied. */
TEST_F(win, mapped_copy_larger_than_window)
{
	XF_BODY();
	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	mapped_once(_metadata, self, 0, WIN_BYTES + 10 * XF_PAGE, 40);
	mapped_once(_metadata, self, 7, WIN_BYTES + 10 * XF_PAGE, 41);
}

/* Truncated into a short buffer: only the received part is mapped. */
TEST_F(win, mapped_copy_truncated)
{
	size_t len = 20 * XF_PAGE, rlen = 5 * XF_PAGE + 10;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c = { 0 };

	XF_BODY();
	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	mc_fill(sb, 50, len);
	ASSERT_EQ(0, xf_send(E(1), sb + 100, len - 100, 0, 0, 0, 0, &s));
	ASSERT_EQ(0, xf_recv(E(0), rb, rlen, 1, 0, 0, MPICHAN_RECV_MAP, 0, 0, &r));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
	EXPECT_EQ(rlen, r.len);
	EXPECT_EQ(len - 100, r.msg_len);
	EXPECT_EQ(XF_PAGE - 100, r.map_off);
	EXPECT_EQ(4 * XF_PAGE, r.map_len);
	EXPECT_LE(r.map_off + r.map_len, rlen);
	memcpy(rb + r.map_off, self->win, r.map_len);
	EXPECT_EQ(0, memcmp(rb, sb + 100, rlen));
	EXPECT_EQ(SIGBUS, xf_probe(self->win + r.map_len, NULL));
	EXPECT_EQ(0, xf_unmap(E(0)->fd, r.handle));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(rlen, c.len);
	xf_free(sb, len);
	xf_free(rb, len);
}

/*
 * Where the mapped copy does not apply, the receive copies (DONE): a
 * second MAP receive while one is mapped, a multi-segment send, no
 * window, a receive without the flag.
 */
TEST_F(win, map_falls_back_to_copy)
{
	size_t len = 8 * XF_PAGE;
	unsigned char *sb = xf_alloc(2 * len), *rb = xf_alloc(2 * len);
	struct mpichan_iovec two[2];
	struct mpichan_send s1, s2;
	struct mpichan_recv r1, r2;
	struct mpichan_cqe c = { 0 };

	XF_BODY();
	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	mc_fill(sb, 60, 2 * len);
	/* No window yet. */
	ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 0, 0, &s1));
	ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 0, MPICHAN_RECV_MAP, 0, 0, &r1));
	EXPECT_EQ(MPICHAN_XFER_DONE, r1.status);
	EXPECT_EQ(0, memcmp(rb, sb, len));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));

	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	/* Without the flag. */
	ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 0, 0, &s1));
	ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 0, 0, 0, 0, &r1));
	EXPECT_EQ(MPICHAN_XFER_DONE, r1.status);
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));

	/* Two segments. */
	two[0] = (struct mpichan_iovec){ (uintptr_t)sb, len };
	two[1] = (struct mpichan_iovec){ (uintptr_t)(sb + len), len };
	memset(rb, 0, 2 * len);
	ASSERT_EQ(0, xf_sendv(E(1), two, 2, 0, 0, 0, 0, &s1));
	ASSERT_EQ(0, xf_recv(E(0), rb, 2 * len, 1, 0, 0, MPICHAN_RECV_MAP, 0,
			     0, &r1));
	EXPECT_EQ(MPICHAN_XFER_DONE, r1.status);
	EXPECT_EQ(2 * len, r1.len);
	EXPECT_EQ(0, memcmp(rb, sb, 2 * len));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));

	/* One mapped, the second copies; both complete. */
	ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 1, 1, &s1));
	ASSERT_EQ(0, xf_send(E(2), sb + len, len, 0, 0, 1, 2, &s2));
	ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 1, MPICHAN_RECV_MAP, 0, 0, &r1));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r1.status);
	ASSERT_EQ(0, xf_recv(E(0), rb + len, len, 2, 0, 1, MPICHAN_RECV_MAP, 0,
			     0, &r2));
	EXPECT_EQ(MPICHAN_XFER_DONE, r2.status);
	EXPECT_EQ(0, memcmp(rb + len, sb + len, len));
	ASSERT_EQ(1, xf_cq_pop(E(2), &c));
	EXPECT_EQ(2, c.user_data);
	/* The first mapping is untouched by the second receive. */
	EXPECT_EQ(0, memcmp(self->win, sb + r1.map_off, r1.map_len));
	EXPECT_EQ(0, xf_cq_count(E(1)));
	EXPECT_EQ(0, xf_unmap(E(0)->fd, r1.handle));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(1, c.user_data);
	xf_free(sb, 2 * len);
	xf_free(rb, 2 * len);
}

/*
 * A receive of several segments may still map a one-segment send:
 * map_off is an offset into the message, i.e. into the concatenation
 * of the receive's segments.
 */
TEST_F(win, mapped_copy_into_segmented_receive)
{
	size_t len = 12 * XF_PAGE + 77, cut1 = 1000, cut2 = 5 * XF_PAGE + 3;
	unsigned char *sb = xf_alloc(len + XF_PAGE), *rb = xf_alloc(2 * len);
	unsigned char *flat = malloc(len);
	struct mpichan_iovec rv[3];
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	size_t at, i;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	ASSERT_NE(NULL, flat);
	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	mc_fill(sb + 300, 80, len);
	memset(rb, 0, 2 * len);
	rv[0] = (struct mpichan_iovec){ (uintptr_t)(rb + 5), cut1 };
	rv[1] = (struct mpichan_iovec){ (uintptr_t)(rb + cut1 + 100), cut2 - cut1 };
	rv[2] = (struct mpichan_iovec){ (uintptr_t)(rb + len), len - cut2 };
	ASSERT_EQ(0, xf_send(E(1), sb + 300, len, 0, 0, 0, 0, &s));
	ASSERT_EQ(0, xf_recvv(E(0), rv, 3, 1, 0, 0, MPICHAN_RECV_MAP, 0, 0, &r));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
	EXPECT_EQ(len, r.len);
	EXPECT_EQ(XF_PAGE - 300, r.map_off);
	/* Gather what the kernel copied, lay the window over it. */
	for (at = 0, i = 0; i < 3; i++) {
		memcpy(flat + at, (void *)(uintptr_t)rv[i].base, rv[i].len);
		at += rv[i].len;
	}
	memcpy(flat + r.map_off, self->win, r.map_len);
	EXPECT_TRUE(mc_check(flat, 80, len));
	EXPECT_EQ(0, xf_unmap(E(0)->fd, r.handle));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(len, c.len);
	free(flat);
	xf_free(sb, len + XF_PAGE);
	xf_free(rb, 2 * len);
}

/* A MAP receive posted before the send is an ordinary queued receive. */
TEST_F(win, map_flag_on_queued_receive)
{
	size_t len = 8 * XF_PAGE;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c = { 0 };

	XF_BODY();
	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	mc_fill(sb, 61, len);
	ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 0, MPICHAN_RECV_MAP, 0, 0, &r));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, r.status);
	ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 0, 0, &s));
	EXPECT_EQ(MPICHAN_XFER_DONE, s.status);
	ASSERT_EQ(1, xf_cq_pop(E(0), &c));
	EXPECT_EQ(len, c.len);
	EXPECT_EQ(0, memcmp(rb, sb, len));
	EXPECT_EQ(SIGBUS, xf_probe(self->win, NULL));
	xf_free(sb, len);
	xf_free(rb, len);
}

/* The receiver unmaps its window while a send is mapped in it. */
TEST_F(win, window_unmapped_while_mapped)
{
	size_t len = 8 * XF_PAGE;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c = { 0 };

	XF_BODY();
	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	mc_fill(sb, 62, len);
	ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 0, 0, &s));
	ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 0, MPICHAN_RECV_MAP, 0, 0, &r));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
	EXPECT_EQ(0, munmap(self->win, WIN_BYTES));
	/* A new window: the old mapping is not in it. */
	self->win = open_window(_metadata, self);
	ASSERT_NE(MAP_FAILED, self->win);
	EXPECT_EQ(SIGBUS, xf_probe(self->win, NULL));
	EXPECT_EQ(0, xf_unmap(E(0)->fd, r.handle));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(0, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb, len);
	xf_free(rb, len);
}

/*
 * Two threads of one rank receive at once, each from its own sender,
 * with MPICHAN_RECV_MAP: one maps while the other copies, and each
 * UNMAP must leave the other's mapping alone (a zap of it would raise
 * SIGBUS in the reader and fail the case).
 */
struct mt_arg {
	FIXTURE_DATA(win) *self;
	int sender;			/* rank 1 or 2; its tag too */
	long mapped, copied, bad;	/* results, read after join */
};

static void *mt_thread(void *p)
{
	struct mt_arg *a = p;
	FIXTURE_DATA(win) *self = a->self;
	const struct mcr_ep *s = &self->x.e[a->sender];
	size_t len = 8 * XF_PAGE;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct timespec t0, t;
	struct mpichan_send snd;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	unsigned int i;

	if (!sb || !rb) {
		a->bad++;
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0;; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 2 || i == 20000)
			break;
		mc_fill(sb, i * 2 + a->sender, len);
		if (xf_send(s, sb, len, 0, 0, a->sender, 0, &snd) ||
		    xf_recv(&self->x.e[0], rb, len, a->sender, 0, a->sender,
			    MPICHAN_RECV_MAP | MPICHAN_RECV_HANDLE, snd.handle,
			    0, &r)) {
			a->bad++;
			break;
		}
		if (r.status == MPICHAN_XFER_MAPPED) {
			memcpy(rb + r.map_off, self->win, r.map_len);
			if (xf_unmap(self->x.e[0].fd, r.handle))
				a->bad++;
			a->mapped++;
		} else {
			a->copied++;
		}
		if (!mc_check(rb, i * 2 + a->sender, len))
			a->bad++;
		while (xf_cq_pop(s, &c) != 1)
			;
	}
	xf_free(sb, len);
	xf_free(rb, len);
	return NULL;
}

TEST_F(win, two_threads_map_at_once)
{
	struct mt_arg a[2] = { { self, 1, 0, 0, 0 }, { self, 2, 0, 0, 0 } };
	pthread_t t[2];
	int i;

	XF_BODY();
	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, mt_thread, &a[i]));
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, a[i].bad);
		EXPECT_LT(0, a[i].mapped);
	}
	TH_LOG("mapped %ld + %ld, copied %ld + %ld", a[0].mapped, a[1].mapped,
	       a[0].copied, a[1].copied);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
}

/* A rank that closes with a send mapped: the sender's send completes. */
static void __attribute__((noinline))
closes_while_mapped(struct __test_metadata *_metadata, FIXTURE_DATA(win) *self)
{
	size_t len = 8 * XF_PAGE;
	unsigned char *sb = xf_alloc(len), *rb = xf_alloc(len);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c = { 0 };

	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, rb);
	ASSERT_NE(MAP_FAILED, open_window(_metadata, self));
	ASSERT_EQ(0, xf_send(E(1), sb, len, 0, 0, 0, 0x33, &s));
	ASSERT_EQ(0, xf_recv(E(0), rb, len, 1, 0, 0, MPICHAN_RECV_MAP, 0, 0, &r));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
	munmap(self->win, WIN_BYTES);
	self->win = MAP_FAILED;
	mc_ep_close(E(0));
	ASSERT_EQ(0, xf_cq_wait(E(1), &c, 5000));
	EXPECT_EQ(0x33, c.user_data);
	EXPECT_EQ(-EPIPE, c.status);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb, len);
	xf_free(rb, len);
}

TEST_F(win, receiver_closes_while_mapped)
{
	XF_BODY();
	closes_while_mapped(_metadata, self);
}

TEST_HARNESS_MAIN
