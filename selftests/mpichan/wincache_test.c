// SPDX-License-Identifier: GPL-2.0
/*
 * The window cache: a send whose buffer is in the sender's pin cache
 * stays mapped in the receiver's window after UNMAP, and the next
 * mapped receive of the same pages maps nothing.  Only pages the rank
 * was sent stay there; a send of other pages, a buffer that left the
 * sender's cache, munmap() of the window or the rank leaving end it,
 * and nothing stays pinned after.  With the module parameter
 * window_cache off, UNMAP zaps as it always did.
 *
 * Rank 1 sends, rank 0 receives; both are attached by the test process
 * unless a case says otherwise.  The counters come from debugfs.
 */
#include "kselftest_harness.h"
#include "xfer_helpers.h"

#define LEN	(16 * XF_PAGE)
#define NPAGES	((long)(LEN / XF_PAGE))
#define WIN	(64 * XF_PAGE)

/* A stat reaches want within ms (releases may be queued): its value. */
static long wc_wait_stat(const char *name, long want, int ms)
{
	long v;

	while ((v = mc_stat(name)) != want && ms-- > 0)
		mc_sleep_ms(1);
	return v;
}

FIXTURE(wc) {
	struct xf x;
	long entries, pages;	/* pin cache parameters to restore */
	long cache;		/* window_cache to restore */
	unsigned char *rb, *win;
};

FIXTURE_SETUP(wc)
{
	self->x.job.owner = -1;
	self->x.pin_cache = 0;
	self->entries = self->pages = self->cache = -1;
	self->win = MAP_FAILED;
	MC_REQUIRE_DEVICE();
	if (!mc_debugfs_present())
		SKIP(return, "%s absent: is debugfs mounted?", MC_DEBUGFS);
	self->cache = xf_param("window_cache");
	if (self->cache == -ENOENT)
		SKIP(return, "the module has no window cache");
	ASSERT_LE(0, self->cache);
	self->entries = xf_param("pin_cache_entries");
	self->pages = xf_param("pin_cache_pages");
	ASSERT_LE(0, self->entries);
	ASSERT_LE(0, self->pages);
	if (xf_set_param("window_cache", 1) ||
	    xf_set_param("pin_cache_entries", 64) ||
	    xf_set_param("pin_cache_pages", 16384))
		SKIP(return, "needs root to set the module's parameters");
	ASSERT_EQ(0, mc_stat("pinned_pages"));
	self->rb = xf_alloc(LEN);
	ASSERT_NE(NULL, self->rb);
	ASSERT_EQ(0, xf_open(&self->x, 2));
	self->win = xf_window(self->x.e[0].fd, WIN, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, self->win);
}

FIXTURE_TEARDOWN(wc)
{
	if (self->win != MAP_FAILED)
		munmap(self->win, WIN);
	xf_close(&self->x);
	xf_free(self->rb, LEN);
	if (self->cache >= 0)
		xf_set_param("window_cache", self->cache);
	if (self->entries >= 0)
		xf_set_param("pin_cache_entries", self->entries);
	if (self->pages >= 0)
		xf_set_param("pin_cache_pages", self->pages);
	/* Every pin goes, the window's too, however the case ended. */
	if (!_metadata->skip)
		EXPECT_EQ(0, wc_wait_stat("pinned_pages", 0, 2000));
}

/* xf_probe() out of line: its sigsetjmp() stays out of the harness's. */
static int __attribute__((noinline))
wc_probe(const volatile unsigned char *p, unsigned char *val)
{
	return xf_probe(p, val);
}

struct wc_counts {
	long maps, hits;
};

static struct wc_counts wc_counts(void)
{
	struct wc_counts c = { mc_stat("window_maps"), mc_stat("window_hits") };

	return c;
}

/*
 * Send buf[0..len) from rank 1 and take it on rank 0 with a mapped
 * receive into rb: 0, or the step that went wrong.  The window is
 * copied to rb and UNMAPped; *map_len is what it held.
 */
static int wc_xfer(FIXTURE_DATA(wc) *self, const void *buf, size_t len,
		   size_t *map_len)
{
	return xf_pass(&self->x, buf, len, self->rb, LEN, self->win, map_len);
}

/* The bytes at the window's start are n bytes of buf. */
static int __attribute__((noinline)) wc_shows(FIXTURE_DATA(wc) *self, const unsigned char *buf,
		    size_t n)
{
	unsigned char v;

	if (wc_probe(self->win, &v) || wc_probe(self->win + n - 1, &v))
		return 0;
	return !memcmp(self->win, buf, n);
}

TEST_F(wc, feature_follows_parameter)
{
	struct mpichan_version v;

	XF_BODY();
	ASSERT_EQ(0, ioctl(E(0)->fd, MPICHAN_IOC_VERSION, &v));
	EXPECT_TRUE(v.features & MPICHAN_FEAT_WINDOW_CACHE);
	ASSERT_EQ(0, xf_set_param("window_cache", 0));
	ASSERT_EQ(0, ioctl(E(0)->fd, MPICHAN_IOC_VERSION, &v));
	EXPECT_FALSE(v.features & MPICHAN_FEAT_WINDOW_CACHE);
	EXPECT_TRUE(v.features & MPICHAN_FEAT_WINDOW);
}

/*
 * The second send of a buffer finds its pages mapped; between the two
 * the window shows the buffer as the sender writes it.
 */
TEST_F(wc, resend_maps_nothing)
{
	unsigned char *sb = xf_alloc(LEN);
	struct wc_counts c0 = wc_counts(), c;
	size_t ml = 0;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 1, LEN);
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, &ml));
	EXPECT_EQ(LEN, ml);
	EXPECT_TRUE(mc_check(self->rb, 1, LEN));
	c = wc_counts();
	EXPECT_EQ(c0.maps + 1, c.maps);
	EXPECT_EQ(c0.hits, c.hits);
	/* Kept after UNMAP: the send is complete, the pages still there. */
	EXPECT_TRUE(wc_shows(self, sb, LEN));
	EXPECT_EQ(SIGBUS, wc_probe(self->win + LEN, NULL));
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));
	/* They are the sender's pages, not a copy. */
	mc_fill(sb, 2, LEN);
	EXPECT_TRUE(wc_shows(self, sb, LEN));

	ASSERT_EQ(0, wc_xfer(self, sb, LEN, &ml));
	EXPECT_TRUE(mc_check(self->rb, 2, LEN));
	c = wc_counts();
	EXPECT_EQ(c0.maps + 1, c.maps);
	EXPECT_EQ(c0.hits + 1, c.hits);
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));
	xf_free(sb, LEN);
}

/*
 * A shorter send from the same first page hits and leaves nothing past
 * itself mapped; one from another first page, or longer, maps afresh.
 */
TEST_F(wc, only_the_message_stays)
{
	unsigned char *sb = xf_alloc(LEN);
	struct wc_counts c0 = wc_counts(), c;
	size_t ml = 0;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 3, LEN);
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, &ml));
	ASSERT_EQ(0, wc_xfer(self, sb, LEN / 2, &ml));
	EXPECT_EQ(0, memcmp(self->rb, sb, LEN / 2));
	c = wc_counts();
	EXPECT_EQ(c0.maps + 1, c.maps);
	EXPECT_EQ(c0.hits + 1, c.hits);
	EXPECT_TRUE(wc_shows(self, sb, LEN / 2));
	EXPECT_EQ(SIGBUS, wc_probe(self->win + LEN / 2, NULL));
	EXPECT_EQ(SIGBUS, wc_probe(self->win + LEN - 1, NULL));

	/* Longer again: the pages past the half were zapped, so a map. */
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, &ml));
	EXPECT_TRUE(mc_check(self->rb, 3, LEN));
	EXPECT_EQ(c0.maps + 2, mc_stat("window_maps"));

	/* Another first page of the same cached buffer: a map. */
	ASSERT_EQ(0, wc_xfer(self, sb + XF_PAGE, LEN - XF_PAGE, &ml));
	EXPECT_EQ(LEN - XF_PAGE, ml);
	EXPECT_EQ(0, memcmp(self->rb, sb + XF_PAGE, LEN - XF_PAGE));
	EXPECT_EQ(c0.maps + 3, mc_stat("window_maps"));
	EXPECT_TRUE(wc_shows(self, sb + XF_PAGE, LEN - XF_PAGE));
	EXPECT_EQ(SIGBUS, wc_probe(self->win + LEN - XF_PAGE, NULL));
	/* An unaligned message of the same pages: head copied, a hit. */
	ASSERT_EQ(0, wc_xfer(self, sb + XF_PAGE - 100, LEN - XF_PAGE + 100,
			     &ml));
	EXPECT_EQ(LEN - XF_PAGE, ml);
	EXPECT_EQ(0, memcmp(self->rb, sb + XF_PAGE - 100, LEN - XF_PAGE + 100));
	EXPECT_EQ(c0.maps + 3, mc_stat("window_maps"));
	EXPECT_EQ(c0.hits + 2, mc_stat("window_hits"));
	xf_free(sb, LEN);
}

/* Another buffer replaces the first, whose pages leave the window. */
TEST_F(wc, other_buffer_replaces)
{
	unsigned char *a = xf_alloc(LEN), *b = xf_alloc(LEN);
	struct wc_counts c0 = wc_counts();

	XF_BODY();
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	mc_fill(a, 4, LEN);
	mc_fill(b, 5, LEN);
	ASSERT_EQ(0, wc_xfer(self, a, LEN, NULL));
	ASSERT_EQ(0, wc_xfer(self, b, LEN / 4, NULL));
	EXPECT_TRUE(mc_check(self->rb, 5, LEN / 4));
	EXPECT_TRUE(wc_shows(self, b, LEN / 4));
	EXPECT_EQ(SIGBUS, wc_probe(self->win + LEN / 4, NULL));
	ASSERT_EQ(0, wc_xfer(self, a, LEN, NULL));
	EXPECT_TRUE(mc_check(self->rb, 4, LEN));
	EXPECT_EQ(c0.maps + 3, mc_stat("window_maps"));
	EXPECT_EQ(c0.hits, mc_stat("window_hits"));
	/* Both are in the sender's cache; the window holds no extra pin. */
	EXPECT_EQ(NPAGES + NPAGES / 4, mc_stat("pinned_pages"));
	xf_free(a, LEN);
	xf_free(b, LEN);
}

/* A buffer that leaves the sender's cache while mapped is zapped at UNMAP. */
TEST_F(wc, invalidated_while_mapped_is_zapped)
{
	unsigned char *sb = xf_alloc(LEN);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 6, LEN);
	ASSERT_EQ(0, xf_send(E(1), sb, LEN, 0, 0, 5, 0, &s));
	ASSERT_EQ(0, xf_recv(E(0), self->rb, LEN, 1, 0, 5, MPICHAN_RECV_MAP,
			     0, 0, &r));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
	ASSERT_EQ(0, madvise(sb, LEN, MADV_DONTNEED));
	/* The send still reads the pages it pinned. */
	memcpy(self->rb + r.map_off, self->win, r.map_len);
	EXPECT_TRUE(mc_check(self->rb, 6, LEN));
	ASSERT_EQ(0, xf_unmap(E(0)->fd, r.handle));
	ASSERT_EQ(1, xf_cq_pop(E(1), &c));
	EXPECT_EQ(SIGBUS, wc_probe(self->win, NULL));
	EXPECT_EQ(0, wc_wait_stat("pinned_pages", 0, 2000));
	xf_free(sb, LEN);
}

/*
 * Invalidated after UNMAP: the window keeps the old pages (pinned) until
 * the next mapped receive, which maps the new ones and lets them go.
 */
TEST_F(wc, invalidated_after_unmap_maps_the_new_pages)
{
	unsigned char *sb = xf_alloc(LEN);
	long maps;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 7, LEN);
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, NULL));
	ASSERT_EQ(0, madvise(sb, LEN, MADV_DONTNEED));
	/* Out of the sender's cache, still the window's. */
	EXPECT_EQ(0, mc_stat("cache_entries"));
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));
	mc_fill(sb, 8, LEN);
	maps = mc_stat("window_maps");
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, NULL));
	EXPECT_TRUE(mc_check(self->rb, 8, LEN));
	EXPECT_EQ(maps + 1, mc_stat("window_maps"));
	EXPECT_TRUE(wc_shows(self, sb, LEN));
	EXPECT_EQ(NPAGES, wc_wait_stat("pinned_pages", NPAGES, 2000));
	xf_free(sb, LEN);
}

/* munmap() of the window lets the kept pages go; a new window is empty. */
TEST_F(wc, window_munmap_releases)
{
	unsigned char *sb = xf_alloc(LEN);

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 9, LEN);
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, NULL));
	/* Out of the sender's cache (the rank left): only the window pins. */
	mc_ep_close(E(1));
	EXPECT_EQ(0, mc_stat("cache_entries"));
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));
	EXPECT_TRUE(wc_shows(self, sb, LEN));
	ASSERT_EQ(0, munmap(self->win, WIN));
	self->win = MAP_FAILED;
	EXPECT_EQ(0, wc_wait_stat("pinned_pages", 0, 2000));
	self->win = xf_window(E(0)->fd, WIN, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, self->win);
	EXPECT_EQ(SIGBUS, wc_probe(self->win, NULL));
	xf_free(sb, LEN);
}

/*
 * A new window where the old one was: what the old one kept is not
 * there, and the next send of the buffer maps it again.
 */
TEST_F(wc, new_window_maps_again)
{
	unsigned char *sb = xf_alloc(LEN), *w;
	long maps;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 10, LEN);
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, NULL));
	w = self->win;
	ASSERT_EQ(0, munmap(w, WIN));
	self->win = mmap(w, WIN, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE,
			 E(0)->fd, MPICHAN_WINDOW_OFFSET);
	ASSERT_EQ(w, self->win);
	EXPECT_EQ(SIGBUS, wc_probe(self->win, NULL));
	maps = mc_stat("window_maps");
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, NULL));
	EXPECT_TRUE(mc_check(self->rb, 10, LEN));
	EXPECT_EQ(maps + 1, mc_stat("window_maps"));
	xf_free(sb, LEN);
}

/*
 * The receiver closes its fd with pages kept: the window keeps the rank
 * (and the pages) until it goes too; then nothing stays pinned.
 */
TEST_F(wc, receiver_close_releases)
{
	unsigned char *sb = xf_alloc(LEN);

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 11, LEN);
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, NULL));
	mc_ep_close(E(1));
	mc_ep_close(E(0));
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));
	EXPECT_TRUE(wc_shows(self, sb, LEN));
	munmap(self->win, WIN);
	self->win = MAP_FAILED;
	EXPECT_EQ(0, wc_wait_stat("pinned_pages", 0, 2000));
	xf_free(sb, LEN);
}

/* A receiver that dies with pages kept: they go with it. */
static void child_receiver(struct mc_job *job, unsigned char *rb,
			   int to_parent, int from_parent)
{
	struct mpichan_recv r;
	struct mcr_ep e;
	unsigned char *w;

	CHILD_CHECK(mc_ep_open(&e, job, 0) == 0);
	w = xf_window(e.fd, WIN, PROT_READ, MAP_SHARED);
	CHILD_CHECK(w != MAP_FAILED);
	CHILD_CHECK(mc_post(to_parent, 1) == 0);
	CHILD_CHECK(mc_take(from_parent, 20000) == 2);
	CHILD_CHECK(xf_recv(&e, rb, LEN, 1, 0, 5, MPICHAN_RECV_MAP, 0, 0,
			    &r) == 0);
	CHILD_CHECK(r.status == MPICHAN_XFER_MAPPED);
	CHILD_CHECK(xf_unmap(e.fd, r.handle) == 0);
	memcpy(rb, w, LEN);
	CHILD_CHECK(mc_check(rb, 12, LEN));
	CHILD_CHECK(mc_post(to_parent, 3) == 0);
	mc_take(from_parent, 60000);
	_exit(0);
}

static void __attribute__((noinline))
receiver_dies(struct __test_metadata *_metadata, FIXTURE_DATA(wc) *self)
{
	unsigned char *sb = xf_alloc(LEN);
	struct mpichan_send s;
	struct mpichan_cqe c = { 0 };
	int up[2], down[2];
	pid_t pid;

	ASSERT_NE(NULL, sb);
	/* A job of its own: this process is rank 1, the child rank 0. */
	munmap(self->win, WIN);
	self->win = MAP_FAILED;
	xf_close(&self->x);
	ASSERT_EQ(0, mc_job_create(&self->x.job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(E(1), &self->x.job, 1));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		child_receiver(&self->x.job, self->rb, up[1], down[0]);
	ASSERT_EQ(1, mc_take(up[0], 20000));
	/*
	 * Written after fork(): pages still shared with the child would be
	 * unshared by the pin, which keeps the buffer out of the cache.
	 */
	mc_fill(sb, 12, LEN);
	ASSERT_EQ(0, xf_send(E(1), sb, LEN, 0, 0, 5, 0, &s));
	EXPECT_EQ(1, mc_stat("cache_entries"));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, s.status);
	ASSERT_EQ(0, mc_post(down[1], 2));
	ASSERT_EQ(3, mc_take(up[0], 20000))
		TH_LOG("the child: %d", mc_reap(pid));
	ASSERT_EQ(0, xf_cq_wait(E(1), &c, 20000));
	EXPECT_EQ(0, c.status);
	/* Out of the sender's cache: the child's window holds the pin. */
	ASSERT_EQ(0, madvise(sb, LEN, MADV_DONTNEED));
	EXPECT_EQ(0, mc_stat("cache_entries"));
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));
	kill(pid, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, mc_reap(pid));
	EXPECT_EQ(0, wc_wait_stat("pinned_pages", 0, 2000));
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
	xf_free(sb, LEN);
}

TEST_F(wc, receiver_death_releases)
{
	XF_BODY();
	receiver_dies(_metadata, self);
}

/*
 * With the module parameter param at 0, two sends of a buffer both map
 * and are zapped at UNMAP.
 */
static void __attribute__((noinline))
zapped_each_time(struct __test_metadata *_metadata, FIXTURE_DATA(wc) *self,
		 unsigned char *sb, const char *param, unsigned int seed)
{
	struct wc_counts c0 = wc_counts();
	int i;

	ASSERT_EQ(0, xf_set_param(param, 0));
	mc_fill(sb, seed, LEN);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, wc_xfer(self, sb, LEN, NULL));
		EXPECT_TRUE(mc_check(self->rb, seed, LEN));
		EXPECT_EQ(SIGBUS, wc_probe(self->win, NULL));
	}
	EXPECT_EQ(c0.maps + 2, mc_stat("window_maps"));
	EXPECT_EQ(c0.hits, mc_stat("window_hits"));
}

/* window_cache off: UNMAP zaps, as without the cache. */
TEST_F(wc, parameter_off_zaps)
{
	unsigned char *sb = xf_alloc(LEN);
	long hits;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	zapped_each_time(_metadata, self, sb, "window_cache", 13);
	/* Turned off with pages kept: the next UNMAP zaps them. */
	ASSERT_EQ(0, xf_set_param("window_cache", 1));
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, NULL));
	EXPECT_TRUE(wc_shows(self, sb, LEN));
	hits = mc_stat("window_hits");
	ASSERT_EQ(0, xf_set_param("window_cache", 0));
	ASSERT_EQ(0, wc_xfer(self, sb, LEN, NULL));
	EXPECT_EQ(hits + 1, mc_stat("window_hits"));
	EXPECT_EQ(SIGBUS, wc_probe(self->win, NULL));
	xf_free(sb, LEN);
}

/* Without the pin cache nothing is kept, nor pinned after UNMAP. */
TEST_F(wc, uncached_send_is_zapped)
{
	unsigned char *sb = xf_alloc(LEN);

	XF_BODY();
	ASSERT_NE(NULL, sb);
	zapped_each_time(_metadata, self, sb, "pin_cache_entries", 14);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb, LEN);
}

TEST_HARNESS_MAIN
