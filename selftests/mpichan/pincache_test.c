// SPDX-License-Identifier: GPL-2.0
/*
 * The pin cache: a rank that sends a buffer again does not pin it again,
 * but whatever changes the pages behind the buffer between two sends
 * (munmap and a new mapping, MAP_FIXED, mremap, fork, MADV_DONTNEED)
 * makes the next send pin the new pages.  Cached buffers stay charged
 * to RLIMIT_MEMLOCK, give way to new pins over the limit, and are
 * released when their rank leaves, dies, or the module goes.
 *
 * Rank 1 sends, rank 0 receives; both are attached by the test process
 * unless a case says otherwise.  The counters come from debugfs.
 */
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "xfer_helpers.h"

#define LEN	(16 * XF_PAGE)
#define NPAGES	((long)(LEN / XF_PAGE))

struct pc_counts {
	long hits, misses, invalidated, evicted, entries, pages;
};

static struct pc_counts pc_counts(void)
{
	struct pc_counts c = {
		mc_stat("cache_hits"), mc_stat("cache_misses"),
		mc_stat("cache_invalidated"), mc_stat("cache_evicted"),
		mc_stat("cache_entries"), mc_stat("cache_pages"),
	};

	return c;
}

/* A stat reaches want within ms (releases may be queued): its value. */
static long pc_wait_stat(const char *name, long want, int ms)
{
	long v;

	while ((v = mc_stat(name)) != want && ms-- > 0)
		mc_sleep_ms(1);
	return v;
}

/* rank's "cache" line of a job's debugfs state: 0, or -ENOENT. */
static int pc_rank_line(__u64 job, unsigned int rank, struct pc_counts *c)
{
	static char buf[1 << 16];
	char path[128], *line, *save = NULL;
	unsigned int r;

	mc_state_path(path, sizeof(path), job);
	if (mc_read_file(path, buf, sizeof(buf)) < 0)
		return -EIO;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "cache %u %ld %ld %ld %ld %ld %ld", &r,
			   &c->entries, &c->pages, &c->hits, &c->misses,
			   &c->invalidated, &c->evicted) == 7 && r == rank)
			return 0;
	return -ENOENT;
}

/* Put the cache's parameters at their defaults: the old entries value. */
static long pc_cache_on(void)
{
	long was = xf_param("pin_cache_entries");

	if (was >= 0 && (xf_set_param("pin_cache_entries", 64) ||
			 xf_set_param("pin_cache_pages", 16384)))
		return -EACCES;
	return was;
}

FIXTURE(pc) {
	struct xf x;
	long entries;		/* pin_cache_entries to restore */
	unsigned char *rb;
};

FIXTURE_SETUP(pc)
{
	self->x.job.owner = -1;
	self->x.pin_cache = 0;
	self->entries = -1;
	MC_REQUIRE_DEVICE();
	if (!mc_debugfs_present())
		SKIP(return, "%s absent: is debugfs mounted?", MC_DEBUGFS);
	ASSERT_EQ(0, mc_stat("pinned_pages"));
	self->entries = pc_cache_on();
	if (self->entries == -ENOENT)
		SKIP(return, "the module has no pin cache");
	if (self->entries == -EACCES)
		SKIP(return, "needs root to set the pin cache's parameters");
	ASSERT_LE(0, self->entries);
	ASSERT_EQ(0, mc_stat("cache_entries"));
	self->rb = xf_alloc(LEN);
	ASSERT_NE(NULL, self->rb);
	ASSERT_EQ(0, xf_open(&self->x, 2));
}

FIXTURE_TEARDOWN(pc)
{
	xf_close(&self->x);
	xf_free(self->rb, LEN);
	if (self->entries >= 0)
		xf_set_param("pin_cache_entries", self->entries);
	if (!_metadata->skip) {
		EXPECT_EQ(0, mc_stat("pinned_pages"));
		EXPECT_EQ(0, mc_stat("cache_entries"));
		EXPECT_EQ(0, mc_stat("cache_pages"));
	}
}

/*
 * Send buf[0..len) from rank 1 (queued, so pinned) and take it on rank
 * 0 into rb with the kernel copy: 0, or the step that went wrong.
 */
static int pc_xfer(FIXTURE_DATA(pc) *self, const void *buf, size_t len)
{
	return xf_pass(&self->x, buf, len, self->rb, LEN, NULL, NULL);
}

TEST_F(pc, resend_hits)
{
	unsigned char *sb = xf_alloc(LEN), *sb2 = xf_alloc(LEN);
	struct pc_counts c0 = pc_counts(), c, l;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	ASSERT_NE(NULL, sb2);
	mc_fill(sb, 1, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 1, LEN));
	c = pc_counts();
	EXPECT_EQ(c0.misses + 1, c.misses);
	EXPECT_EQ(c0.hits, c.hits);
	EXPECT_EQ(1, c.entries);
	EXPECT_EQ(NPAGES, c.pages);
	/* The send is done; the buffer stays pinned in the cache. */
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));

	/* The same pages, new contents: sent without pinning again. */
	mc_fill(sb, 2, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 2, LEN));
	c = pc_counts();
	EXPECT_EQ(c0.hits + 1, c.hits);
	EXPECT_EQ(c0.misses + 1, c.misses);
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));

	/* Any part of a cached buffer hits. */
	ASSERT_EQ(0, pc_xfer(self, sb + 5000, 20000));
	EXPECT_EQ(0, memcmp(self->rb, sb + 5000, 20000));
	EXPECT_EQ(c0.hits + 2, mc_stat("cache_hits"));

	/* So does the debugfs line of the rank; the receiver has no cache. */
	ASSERT_EQ(0, pc_rank_line(self->x.job.id, 1, &l));
	EXPECT_EQ(1, l.entries);
	EXPECT_EQ(NPAGES, l.pages);
	EXPECT_EQ(2, l.hits);
	EXPECT_EQ(1, l.misses);
	EXPECT_EQ(0, l.invalidated);
	EXPECT_EQ(0, l.evicted);
	EXPECT_EQ(-ENOENT, pc_rank_line(self->x.job.id, 0, &l));

	/* Another buffer is a miss and a second entry. */
	mc_fill(sb2, 3, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb2, LEN));
	EXPECT_TRUE(mc_check(self->rb, 3, LEN));
	c = pc_counts();
	EXPECT_EQ(c0.misses + 2, c.misses);
	EXPECT_EQ(2, c.entries);
	EXPECT_EQ(2 * NPAGES, mc_stat("pinned_pages"));
	xf_free(sb, LEN);
	xf_free(sb2, LEN);
}

/*
 * A cached buffer is mapped into the window like any other; with the
 * window cache it stays there after UNMAP (wincache_test covers that).
 */
TEST_F(pc, mapped_receive_from_cache)
{
	unsigned char *sb = xf_alloc(LEN), *w;
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	long hits = mc_stat("cache_hits");
	int pass, kept = xf_param("window_cache") > 0;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	w = xf_window(E(0)->fd, LEN, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, w);
	for (pass = 0; pass < 2; pass++) {
		mc_fill(sb, 20 + pass, LEN);
		memset(self->rb, 0, LEN);
		ASSERT_EQ(0, xf_send(E(1), sb, LEN, 0, 0, 0, 0, &s));
		ASSERT_EQ(0, xf_recv(E(0), self->rb, LEN, 1, 0, 0,
				     MPICHAN_RECV_HANDLE | MPICHAN_RECV_MAP,
				     s.handle, 0, &r));
		ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
		EXPECT_EQ(LEN, r.map_len);
		memcpy(self->rb + r.map_off, w, r.map_len);
		EXPECT_TRUE(mc_check(self->rb, 20 + pass, LEN));
		EXPECT_EQ(0, xf_unmap(E(0)->fd, r.handle));
		EXPECT_EQ(kept ? 0 : SIGBUS, xf_probe(w, NULL));
		ASSERT_EQ(1, xf_cq_pop(E(1), &c));
		EXPECT_EQ(LEN, c.len);
	}
	EXPECT_EQ(hits + 1, mc_stat("cache_hits"));
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));
	munmap(w, LEN);
	xf_free(sb, LEN);
}

/*
 * A new mapping at the same address between two sends: the second
 * sends the new contents.  Without the notifier it would send the old
 * pages, which the cache would still hold.
 */
TEST_F(pc, munmap_and_remap_sends_new_contents)
{
	unsigned char *sb = xf_alloc(LEN), *p, *away;
	struct pc_counts c0 = pc_counts(), c;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 3, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 3, LEN));

	/* munmap, then a new mapping at the same address. */
	ASSERT_EQ(0, munmap(sb, LEN));
	p = mmap(sb, LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ(sb, p);
	mc_fill(sb, 4, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 4, LEN));
	c = pc_counts();
	EXPECT_EQ(c0.invalidated + 1, c.invalidated);
	EXPECT_EQ(c0.misses + 2, c.misses);
	EXPECT_EQ(c0.hits, c.hits);
	/* The old pages were let go once nothing used them. */
	EXPECT_EQ(NPAGES, pc_wait_stat("pinned_pages", NPAGES, 2000));

	/* MAP_FIXED over the live mapping replaces its pages too. */
	p = mmap(sb, LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ(sb, p);
	mc_fill(sb, 5, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 5, LEN));
	EXPECT_EQ(c0.invalidated + 2, mc_stat("cache_invalidated"));

	/* mremap moves the pages away; the old address gets new ones. */
	away = mmap(NULL, LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, away);
	p = mremap(sb, LEN, LEN, MREMAP_MAYMOVE | MREMAP_FIXED, away);
	ASSERT_EQ(away, p);
	p = mmap(sb, LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ(sb, p);
	mc_fill(sb, 6, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 6, LEN));
	ASSERT_EQ(0, pc_xfer(self, away, LEN));
	EXPECT_TRUE(mc_check(self->rb, 5, LEN));
	c = pc_counts();
	EXPECT_EQ(c0.invalidated + 3, c.invalidated);
	EXPECT_EQ(c0.hits, c.hits);
	EXPECT_EQ(2 * NPAGES, pc_wait_stat("pinned_pages", 2 * NPAGES, 2000));
	xf_free(sb, LEN);
	xf_free(away, LEN);
}

/*
 * fork() write-protects the parent's private memory: the entry goes.
 * The child's writes to its copy never reach the parent's sends.
 */
TEST_F(pc, fork_between_sends)
{
	unsigned char *sb = xf_alloc(LEN);
	struct pc_counts c0, c;
	pid_t pid;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 7, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 7, LEN));
	c0 = pc_counts();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		memset(sb, 0xff, LEN);
		_exit(0);
	}
	ASSERT_EQ(0, mc_reap(pid));
	EXPECT_EQ(c0.invalidated + 1, mc_stat("cache_invalidated"));
	mc_fill(sb, 8, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 8, LEN));
	c = pc_counts();
	EXPECT_EQ(c0.misses + 1, c.misses);
	EXPECT_EQ(c0.hits, c.hits);
	/* Cached again: the next send hits. */
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 8, LEN));
	EXPECT_EQ(c0.hits + 1, mc_stat("cache_hits"));
	xf_free(sb, LEN);
}

/*
 * MADV_DONTNEED drops the pages: the next send reads zeros, and after
 * new writes (copy-on-write of the zero page) the new contents.
 */
TEST_F(pc, madvise_dontneed_between_sends)
{
	unsigned char *sb = xf_alloc(LEN);
	long inval;

	XF_BODY();
	ASSERT_NE(NULL, sb);
	mc_fill(sb, 9, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 9, LEN));
	inval = mc_stat("cache_invalidated");
	ASSERT_EQ(0, madvise(sb, LEN, MADV_DONTNEED));
	EXPECT_EQ(inval + 1, mc_stat("cache_invalidated"));
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(xf_all(self->rb, LEN, 0));
	mc_fill(sb, 10, LEN);
	ASSERT_EQ(0, pc_xfer(self, sb, LEN));
	EXPECT_TRUE(mc_check(self->rb, 10, LEN));
	EXPECT_EQ(NPAGES, pc_wait_stat("pinned_pages", NPAGES, 2000));
	xf_free(sb, LEN);
}

/*
 * RLIMIT_MEMLOCK of 16 pages, buffers of 12: a cached buffer stays
 * charged, so a second one fits only when the first gives way, and
 * never while a send uses it.  A hit costs no charge.
 */
static void child_memlock(void)
{
	struct rlimit rl = { 16 * XF_PAGE, 16 * XF_PAGE };
	size_t len = 12 * XF_PAGE;
	unsigned char *a = xf_alloc(len), *b = xf_alloc(len);
	unsigned char *rb = xf_alloc(len);
	struct mpichan_send s1, s2;
	struct mpichan_recv r;
	long evicted;
	struct xf x;

	CHILD_CHECK(mc_drop_cap(CAP_IPC_LOCK) == 0);
	CHILD_CHECK(!mc_have_cap(CAP_IPC_LOCK));
	CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	CHILD_CHECK(a && b && rb);
	x.pin_cache = 0;
	CHILD_CHECK(xf_open(&x, 2) == 0);
	mc_fill(a, 1, len);
	mc_fill(b, 2, len);

	CHILD_CHECK(xf_send(&x.e[1], a, len, 0, 0, 0, 0, &s1) == 0);
	CHILD_CHECK(mc_stat("pinned_pages") == 12);
	/* a is in use: b does not fit. */
	CHILD_CHECK(xf_send(&x.e[1], b, len, 0, 0, 0, 0, &s2) == -ENOMEM);
	/* a again is a hit: no charge. */
	CHILD_CHECK(xf_send(&x.e[1], a, len, 0, 0, 0, 0, &s2) == 0);
	CHILD_CHECK(mc_stat("pinned_pages") == 12);
	CHILD_CHECK(xf_recv(&x.e[0], rb, len, 1, 0, 0, 0, 0, 0, &r) == 0);
	CHILD_CHECK(xf_recv(&x.e[0], rb, len, 1, 0, 0, 0, 0, 0, &r) == 0);
	CHILD_CHECK(r.status == MPICHAN_XFER_DONE && mc_check(rb, 1, len));
	/* Idle and cached: still pinned, still charged. */
	CHILD_CHECK(mc_stat("pinned_pages") == 12);
	CHILD_CHECK(mc_stat("cache_entries") == 1);

	/* b fits once a gives way. */
	evicted = mc_stat("cache_evicted");
	CHILD_CHECK(xf_send(&x.e[1], b, len, 0, 0, 0, 0, &s1) == 0);
	CHILD_CHECK(mc_stat("cache_evicted") == evicted + 1);
	CHILD_CHECK(mc_stat("pinned_pages") == 12);
	CHILD_CHECK(mc_stat("cache_entries") == 1);
	/* b is in use: a does not fit. */
	CHILD_CHECK(xf_send(&x.e[1], a, len, 0, 0, 0, 0, &s2) == -ENOMEM);
	CHILD_CHECK(xf_recv(&x.e[0], rb, len, 1, 0, 0, 0, 0, 0, &r) == 0);
	CHILD_CHECK(mc_check(rb, 2, len));

	/* A queued receive (never cached) makes an idle buffer give way. */
	CHILD_CHECK(xf_recv(&x.e[0], rb, len, 1, 0, 0, 0, 0, 0, &r) == 0);
	CHILD_CHECK(r.status == MPICHAN_XFER_QUEUED);
	CHILD_CHECK(mc_stat("pinned_pages") == 12);
	CHILD_CHECK(mc_stat("cache_entries") == 0);
	CHILD_CHECK(xf_cancel(x.e[0].fd, r.handle) == 0);
	xf_close(&x);
	CHILD_CHECK(mc_stat("pinned_pages") == 0);
	_exit(0);
}

TEST_F(pc, memlock_limit_with_cached_entries)
{
	pid_t pid;

	XF_BODY();
	if (getuid() != 0 || !mc_have_cap(CAP_IPC_LOCK))
		SKIP(return, "needs root with CAP_IPC_LOCK to drop it");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		child_memlock();
	EXPECT_EQ(0, mc_reap(pid));
}

/* A rank that closes its fd lets go of its cache at once. */
TEST_F(pc, rank_close_releases_cache)
{
	unsigned char *sb[3];
	int i;

	XF_BODY();
	for (i = 0; i < 3; i++) {
		sb[i] = xf_alloc(LEN);
		ASSERT_NE(NULL, sb[i]);
		mc_fill(sb[i], i, LEN);
		ASSERT_EQ(0, pc_xfer(self, sb[i], LEN));
	}
	EXPECT_EQ(3, mc_stat("cache_entries"));
	EXPECT_EQ(3 * NPAGES, mc_stat("pinned_pages"));
	mc_ep_close(E(1));
	/* The buffers are still mapped; nothing of them is pinned. */
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	EXPECT_EQ(0, mc_stat("cache_entries"));
	for (i = 0; i < 3; i++)
		xf_free(sb[i], LEN);
}

/*
 * A rank dies with cached buffers, one send queued and one mapped in
 * the receiver's window: when it has been reaped nothing is pinned but
 * the mapped send's pages, and those go at UNMAP.
 */
static void child_sender(struct mc_job *job, int to_parent, int from_parent)
{
	struct mpichan_send s;
	struct mcr_ep e;
	unsigned char *sb[5];
	int i;

	CHILD_CHECK(mc_ep_open(&e, job, 1) == 0);
	for (i = 0; i < 5; i++) {
		sb[i] = xf_alloc(LEN);
		CHILD_CHECK(sb[i] != NULL);
		mc_fill(sb[i], 30 + i, LEN);
		CHILD_CHECK(xf_send(&e, sb[i], LEN, 0, 0, i, 0, &s) == 0);
		CHILD_CHECK(s.status == MPICHAN_XFER_QUEUED);
	}
	CHILD_CHECK(mc_post(to_parent, 1) == 0);
	mc_take(from_parent, 60000);
	_exit(0);
}

TEST_F(pc, rank_death_releases_cache)
{
	unsigned char *w = MAP_FAILED;
	int up[2], down[2], i;
	struct mpichan_recv r;
	pid_t pid;

	XF_BODY();
	/* A job of its own: this process is rank 0, the child rank 1. */
	xf_close(&self->x);
	ASSERT_EQ(0, mc_job_create(&self->x.job, 2, 4096));
	ASSERT_EQ(0, mc_ep_open(E(0), &self->x.job, 0));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		child_sender(&self->x.job, up[1], down[0]);
	ASSERT_EQ(1, mc_take(up[0], 20000));
	EXPECT_EQ(5, mc_stat("cache_entries"));
	EXPECT_EQ(5 * NPAGES, mc_stat("pinned_pages"));
	/* Three received (idle in the cache), one mapped, one queued. */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, xf_recv(E(0), self->rb, LEN, 1, 0, i, 0, 0, 0, &r));
		EXPECT_TRUE(mc_check(self->rb, 30 + i, LEN));
	}
	w = xf_window(E(0)->fd, LEN, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, w);
	ASSERT_EQ(0, xf_recv(E(0), self->rb, LEN, 1, 0, 3, MPICHAN_RECV_MAP,
			     0, 0, &r));
	ASSERT_EQ(MPICHAN_XFER_MAPPED, r.status);
	EXPECT_EQ(5 * NPAGES, mc_stat("pinned_pages"));

	kill(pid, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, mc_reap(pid));
	EXPECT_EQ(0, mc_stat("cache_entries"));
	EXPECT_EQ(NPAGES, mc_stat("pinned_pages"));
	memcpy(self->rb + r.map_off, w, r.map_len);
	EXPECT_TRUE(mc_check(self->rb, 33, LEN));
	EXPECT_EQ(0, xf_unmap(E(0)->fd, r.handle));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	munmap(w, LEN);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

/*
 * Unload after ranks that cached buffers are gone, one by closing its
 * fd, one by dying; then touch every buffer the cache watched (munmap,
 * MADV_DONTNEED, fork): nothing of the module may be called any more.
 * Reload from $MPICHAN_MODULE (the VM runner sets it).
 */
FIXTURE(unload) {
	int unused;
};

FIXTURE_SETUP(unload)
{
}

FIXTURE_TEARDOWN(unload)
{
}

/* A fixture of its own, so that it runs after every other case. */
TEST_F(unload, with_cached_entries)
{
	const char *module = getenv("MPICHAN_MODULE");
	unsigned char *sb[2], *rb = xf_alloc(LEN);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct xf x;
	pid_t pid;
	int fd, i;

	if (access(MPICHAN_DEVICE, F_OK) || !mc_debugfs_present())
		SKIP(return, "mpichan.ko or debugfs absent");
	if (!module || access(module, R_OK) || getuid() != 0)
		SKIP(return, "needs root and MPICHAN_MODULE to reload");
	if (pc_cache_on() < 0)
		SKIP(return, "the module has no pin cache");
	ASSERT_NE(NULL, rb);
	/* This process is ranks 0 and 1 of three. */
	memset(&x, 0, sizeof(x));
	for (i = 0; i < XF_MAX_RANKS; i++)
		x.e[i].fd = -1;
	ASSERT_EQ(0, mc_job_create(&x.job, 3, 4096));
	ASSERT_EQ(0, mc_ep_open(&x.e[0], &x.job, 0));
	ASSERT_EQ(0, mc_ep_open(&x.e[1], &x.job, 1));
	/* Rank 2 dies with a cached buffer that two queued sends use. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct mcr_ep e;
		unsigned char *cb = xf_alloc(LEN);

		CHILD_CHECK(cb && mc_ep_open(&e, &x.job, 2) == 0);
		mc_fill(cb, 41, LEN);
		CHILD_CHECK(xf_send(&e, cb, LEN, 0, 0, 1, 0, &s) == 0);
		CHILD_CHECK(xf_send(&e, cb, LEN, 0, 0, 2, 0, &s) == 0);
		CHILD_CHECK(mc_stat("cache_entries") == 1);
		kill(getpid(), SIGKILL);
	}
	EXPECT_EQ(128 + SIGKILL, mc_reap(pid));
	EXPECT_EQ(0, mc_stat("cache_entries"));
	/*
	 * Rank 1 caches two and closes with a send of one queued.  The
	 * buffers are written first: untouched ones would be the zero page,
	 * which khugepaged may collapse around (an invalidation) any time.
	 */
	for (i = 0; i < 2; i++) {
		sb[i] = xf_alloc(LEN);
		ASSERT_NE(NULL, sb[i]);
		mc_fill(sb[i], 42 + i, LEN);
		ASSERT_EQ(0, xf_send(&x.e[1], sb[i], LEN, 0, 0, 0, 0, &s));
		ASSERT_EQ(0, xf_recv(&x.e[0], rb, LEN, 1, 0, 0, 0, 0, 0, &r));
	}
	ASSERT_EQ(0, xf_send(&x.e[1], sb[0], LEN, 0, 0, 0, 0, &s));
	EXPECT_EQ(2, mc_stat("cache_entries"));
	/* In use: the module cannot go. */
	EXPECT_NE(0, syscall(SYS_delete_module, "mpichan", O_NONBLOCK));
	xf_close(&x);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	ASSERT_EQ(0, syscall(SYS_delete_module, "mpichan", O_NONBLOCK))
		TH_LOG("delete_module: %s", strerror(errno));

	ASSERT_EQ(0, madvise(sb[1], LEN, MADV_DONTNEED));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	EXPECT_EQ(0, mc_reap(pid));
	memset(sb[1], 1, LEN);
	for (i = 0; i < 2; i++)
		xf_free(sb[i], LEN);

	fd = open(module, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, "", 0))
		TH_LOG("finit_module %s: %s", module, strerror(errno));
	close(fd);
	/* A fresh module works, its counters from zero. */
	EXPECT_EQ(0, mc_stat("cache_hits"));
	ASSERT_EQ(0, xf_open(&x, 2));
	sb[0] = xf_alloc(LEN);
	ASSERT_NE(NULL, sb[0]);
	mc_fill(sb[0], 40, LEN);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, xf_send(&x.e[1], sb[0], LEN, 0, 0, 0, 0, &s));
		ASSERT_EQ(0, xf_recv(&x.e[0], rb, LEN, 1, 0, 0, 0, 0, 0, &r));
		EXPECT_TRUE(mc_check(rb, 40, LEN));
	}
	EXPECT_EQ(1, mc_stat("cache_hits"));
	xf_close(&x);
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	xf_free(sb[0], LEN);
	xf_free(rb, LEN);
}

TEST_HARNESS_MAIN
