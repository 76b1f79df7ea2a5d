// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a registered region: every way a region ends or goes stale
 * zaps its mappings (SIGBUS in the process that maps it, never other
 * memory); what leaves the owner's pages in place keeps it (mprotect, a
 * fork, a transparent huge page split beside it); DEREG waits for a copy
 * under way; RLIMIT_MEMLOCK; debugfs; a process killed with regions and
 * mappings leaves nothing pinned.
 *
 * Exits with KSFT_SKIP when the loaded module has no regions.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "region_fixture.h"

/* ---- the end of a region zaps every mapping ------------------------------ */

enum { END_DEREG, END_CLOSE, END_EXIT, END_MUNMAP, END_MREMAP, END_MADVISE };

FIXTURE(zap) {
	pid_t owner, peer;
	int to_owner[2], from_owner[2], to_peer[2], from_peer[2];
};

FIXTURE_VARIANT(zap) {
	int how;
	int err;	/* what QUERY says afterwards */
};

FIXTURE_VARIANT_ADD(zap, deregister) { .how = END_DEREG, .err = ENOENT };
FIXTURE_VARIANT_ADD(zap, owner_closes) { .how = END_CLOSE, .err = ENOENT };
FIXTURE_VARIANT_ADD(zap, owner_killed) { .how = END_EXIT, .err = ENOENT };
FIXTURE_VARIANT_ADD(zap, owner_munmap) { .how = END_MUNMAP, .err = ESTALE };
FIXTURE_VARIANT_ADD(zap, owner_mremap) { .how = END_MREMAP, .err = ESTALE };
FIXTURE_VARIANT_ADD(zap, owner_madv_dontneed) { .how = END_MADVISE, .err = ESTALE };

#define ZAP_PAGES	8
#define ZAP_BYTES	(ZAP_PAGES * RG_PAGE)

FIXTURE_SETUP(zap)
{
	self->owner = self->peer = -1;
	self->to_owner[0] = self->from_owner[0] = -1;
	self->to_peer[0] = self->from_peer[0] = -1;
	MC_REQUIRE_DEVICE();
	if (!mc_debugfs_present())
		SKIP(return, "%s absent: is debugfs mounted?", MC_DEBUGFS);
	ASSERT_EQ(0, rg_settled("regions", 0));
	ASSERT_EQ(0, pipe(self->to_owner));
	ASSERT_EQ(0, pipe(self->from_owner));
	ASSERT_EQ(0, pipe(self->to_peer));
	ASSERT_EQ(0, pipe(self->from_peer));
}

FIXTURE_TEARDOWN(zap)
{
	int i;

	if (self->peer > 0) {
		kill(self->peer, SIGKILL);
		mc_reap(self->peer);
	}
	if (self->owner > 0) {
		kill(self->owner, SIGKILL);
		mc_reap(self->owner);
	}
	for (i = 0; i < 2 && self->to_owner[0] >= 0; i++) {
		close(self->to_owner[i]);
		close(self->from_owner[i]);
		close(self->to_peer[i]);
		close(self->from_peer[i]);
	}
	if (!_metadata->skip) {
		EXPECT_EQ(0, rg_settled("regions", 0));
		EXPECT_EQ(0, rg_settled("region_maps", 0));
		EXPECT_EQ(0, rg_settled("pinned_pages", 0));
	}
}

/* Something at the region's old address that the peer must never see. */
static void other_memory_at(unsigned char *at)
{
	void *p = mmap(at, ZAP_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	CHILD_CHECK(p == at);
	memset(at, 0x77, ZAP_BYTES);
}

/* The owner: registers, reports, ends the region as told, waits. */
static void zap_owner(FIXTURE_DATA(zap) *self, int how)
{
	struct mpichan_region_reg r;
	unsigned char *buf = xf_alloc(ZAP_BYTES), *to;
	int fd = mc_open();

	CHILD_CHECK(buf && fd >= 0);
	mc_fill(buf, 3, ZAP_BYTES);
	CHILD_CHECK(rg_reg(fd, buf, ZAP_BYTES, MPICHAN_REGION_WRITE, &r) == 0);
	CHILD_CHECK(write(self->from_owner[1], &r, sizeof(r)) == sizeof(r));
	CHILD_CHECK(mc_take(self->to_owner[0], 10000) == 'e');
	switch (how) {
	case END_DEREG:
		CHILD_CHECK(rg_dereg(fd, r.handle) == 0);
		break;
	case END_CLOSE:
		close(fd);
		break;
	case END_EXIT:
		break;		/* the test kills us */
	case END_MUNMAP:
		CHILD_CHECK(munmap(buf, ZAP_BYTES) == 0);
		other_memory_at(buf);
		break;
	case END_MREMAP:
		to = xf_alloc(2 * ZAP_BYTES);
		CHILD_CHECK(to != NULL);
		CHILD_CHECK(mremap(buf, ZAP_BYTES, ZAP_BYTES,
				   MREMAP_MAYMOVE | MREMAP_FIXED, to) == to);
		other_memory_at(buf);
		break;
	case END_MADVISE:
		CHILD_CHECK(madvise(buf, ZAP_BYTES, MADV_DONTNEED) == 0);
		memset(buf, 0x77, ZAP_BYTES);
		break;
	}
	CHILD_CHECK(mc_post(self->from_owner[1], 'd') == 0);
	for (;;)
		pause();
}

/* The peer: maps the region, then after its end must get SIGBUS. */
static void zap_peer(FIXTURE_DATA(zap) *self, const struct mpichan_region_reg *r,
		     int err)
{
	unsigned char got[16], *m;
	int fd = mc_open();

	CHILD_CHECK(fd >= 0);
	m = rg_mmap(fd, r, MPICHAN_REGION_WRITE, ZAP_BYTES,
		    PROT_READ | PROT_WRITE);
	CHILD_CHECK(m != MAP_FAILED);
	CHILD_CHECK(mc_check(m, 3, ZAP_BYTES));
	CHILD_CHECK(mc_post(self->from_peer[1], 'm') == 0);
	CHILD_CHECK(mc_take(self->to_peer[0], 10000) == 'g');
	/* After the error is reported every mapping is gone. */
	CHILD_CHECK(rg_query(fd, r->handle, r->key, NULL) == -err);
	CHILD_CHECK(rg_get(fd, r, 0, got, sizeof(got)) == -err);
	CHILD_CHECK(xf_probe(m, NULL) == SIGBUS);
	CHILD_CHECK(xf_probe(m + ZAP_BYTES - 1, NULL) == SIGBUS);
	CHILD_CHECK(rg_probe_write(m + RG_PAGE, 1) == SIGBUS);
	CHILD_CHECK(munmap(m, ZAP_BYTES) == 0);
	_exit(0);
}

TEST_F_TIMEOUT(zap, mapping_faults_after_the_end, 120)
{
	struct mpichan_region_reg r;
	struct rg_line l;
	long stale;

	XF_BODY();
	self->owner = fork();
	ASSERT_LE(0, self->owner);
	if (!self->owner)
		zap_owner(self, variant->how);
	ASSERT_EQ(sizeof(r), read(self->from_owner[0], &r, sizeof(r)));
	self->peer = fork();
	ASSERT_LE(0, self->peer);
	if (!self->peer)
		zap_peer(self, &r, variant->err);
	ASSERT_EQ('m', mc_take(self->from_peer[0], 10000));
	EXPECT_EQ(1, mc_stat("region_maps"));
	stale = mc_stat("region_stale");
	if (variant->how == END_EXIT) {
		kill(self->owner, SIGKILL);
		EXPECT_EQ(128 + SIGKILL, mc_reap(self->owner));
		self->owner = -1;
	} else {
		ASSERT_EQ(0, mc_post(self->to_owner[1], 'e'));
		ASSERT_EQ('d', mc_take(self->from_owner[0], 10000));
	}
	if (variant->err == ESTALE) {
		/* Stale once checked, and counted; its pins stay until it ends. */
		ASSERT_EQ(0, rg_verdict(r.handle, &l));
		EXPECT_STREQ("stale", l.state);
		EXPECT_EQ(stale + 1, mc_stat("region_stale"));
		EXPECT_EQ(1, mc_stat("regions"));
		EXPECT_EQ(ZAP_PAGES, mc_stat("region_pages"));
	} else {
		EXPECT_EQ(-ENOENT, rg_debugfs(r.handle, &l));
		EXPECT_EQ(0, mc_stat("regions"));
	}
	ASSERT_EQ(0, mc_post(self->to_peer[1], 'g'));
	EXPECT_EQ(0, mc_reap(self->peer));
	self->peer = -1;
	EXPECT_EQ(0, mc_stat("region_maps"));
}

/* A protection change leaves the same pages: the region lives on. */
TEST_F(reg, owner_mprotect_keeps_it)
{
	struct mpichan_region_reg a;
	unsigned char *m;
	long stale;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES, 0, &a));
	m = rg_mmap(self->fd, &a, 0, BUF_BYTES, PROT_READ);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(mc_pattern(1, 9), m[9]);
	stale = mc_stat("region_stale");
	ASSERT_EQ(0, mprotect(self->buf, BUF_BYTES, PROT_READ));
	ASSERT_EQ(0, mprotect(self->buf, BUF_BYTES, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, rg_query(self->fd, a.handle, a.key, NULL));
	EXPECT_EQ(stale, mc_stat("region_stale"));
	self->buf[9] = 0x99;
	EXPECT_EQ(0x99, m[9]);
	munmap(m, BUF_BYTES);
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
}

static int child_nothing(void *p)
{
	return 0;
}

/*
 * fork() invalidates the owner's private memory (copy-on-write), but a
 * pinned page is copied for the child at once and stays the owner's: the
 * region is checked and lives on, and shows what the owner writes after
 * the fork, never what the child writes.  Memory marked MADV_DONTFORK is
 * not even inherited.
 */
static int child_writes(void *p)
{
	memset(p, 0x5a, 4 * RG_PAGE);
	return 0;
}

TEST_F(reg, fork_keeps_it)
{
	unsigned char *plain = xf_alloc(4 * RG_PAGE), got = 0;
	struct mpichan_region_reg a, b;
	struct rg_line l;
	long stale;

	XF_BODY();
	ASSERT_NE(NULL, plain);
	memset(plain, 0x11, 4 * RG_PAGE);
	ASSERT_EQ(0, rg_reg(self->fd, plain, 4 * RG_PAGE, 0, &a));
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, 4 * RG_PAGE, 0, &b));
	stale = mc_stat("region_stale");
	EXPECT_EQ(0, run_child(child_writes, plain));
	EXPECT_EQ(0, rg_query(self->fd, a.handle, a.key, NULL));
	if (mc_debugfs_present()) {
		ASSERT_EQ(0, rg_verdict(a.handle, &l));
		EXPECT_STREQ("live", l.state);
		EXPECT_EQ(stale, mc_stat("region_stale"));
	}
	EXPECT_EQ(0, rg_get(self->fd, &a, RG_PAGE, &got, 1));
	EXPECT_EQ(0x11, got);
	plain[RG_PAGE] = 0x22;
	EXPECT_EQ(0, rg_get(self->fd, &a, RG_PAGE, &got, 1));
	EXPECT_EQ(0x22, got);
	EXPECT_EQ(0, rg_query(self->fd, b.handle, b.key, NULL));
	EXPECT_EQ(0, rg_get(self->fd, &b, 0, self->loc, 1));
	EXPECT_EQ(8, mc_stat("pinned_pages"));
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
	EXPECT_EQ(0, rg_dereg(self->fd, b.handle));
	xf_free(plain, 4 * RG_PAGE);
}

/*
 * A transparent huge page split under a region: the region's pages stay
 * where they were (an munmap beside the region, within the same huge
 * page, splits it and invalidates the whole 2 MiB), so the region lives
 * and copies go on.  Skipped where THP is off for the test's memory.
 */
#define RG_HUGE (2UL << 20)
TEST_F(reg, huge_page_split_beside_it_keeps_it)
{
	unsigned char *raw, *huge, got = 0;
	struct mpichan_region_reg a;
	unsigned long i;
	char line[256];
	long anon_huge = 0, stale;
	FILE *f;

	XF_BODY();
	raw = xf_alloc(2 * RG_HUGE);
	ASSERT_NE(NULL, raw);
	huge = (unsigned char *)(((uintptr_t)raw + RG_HUGE - 1) & ~(RG_HUGE - 1));
	if (madvise(huge, RG_HUGE, MADV_HUGEPAGE))
		SKIP(xf_free(raw, 2 * RG_HUGE); return, "no MADV_HUGEPAGE");
	for (i = 0; i < RG_HUGE; i += RG_PAGE)
		huge[i] = (unsigned char)(i >> 12);
	f = fopen("/proc/self/smaps_rollup", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "AnonHugePages: %ld kB", &anon_huge);
	fclose(f);
	if (anon_huge < 2048)
		SKIP(xf_free(raw, 2 * RG_HUGE); return, "no huge page (THP off?)");
	ASSERT_EQ(0, rg_reg(self->fd, huge, 16 * RG_PAGE, MPICHAN_REGION_WRITE, &a));
	stale = mc_stat("region_stale");
	/* Split: unmap one page at the far end of the same huge page. */
	ASSERT_EQ(0, munmap(huge + RG_HUGE - RG_PAGE, RG_PAGE));
	EXPECT_EQ(0, rg_query(self->fd, a.handle, a.key, NULL));
	EXPECT_EQ(stale, mc_stat("region_stale"));
	EXPECT_EQ(0, rg_get(self->fd, &a, 5 * RG_PAGE, &got, 1));
	EXPECT_EQ(5, got);
	huge[5 * RG_PAGE] = 0x77;
	EXPECT_EQ(0, rg_get(self->fd, &a, 5 * RG_PAGE, &got, 1));
	EXPECT_EQ(0x77, got);
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
	munmap(raw, huge + RG_HUGE - RG_PAGE - raw);
	munmap(huge + RG_HUGE, raw + 2 * RG_HUGE - (huge + RG_HUGE));
}

/*
 * A read-only region of memory never written yet: the owner's first
 * write must not replace the pinned pages (the region lives, and shows
 * the write).
 */
TEST_F(reg, read_only_region_of_untouched_memory)
{
	unsigned char *fresh = xf_alloc(4 * RG_PAGE), got = 0;
	struct mpichan_region_reg a;
	unsigned char *m;

	XF_BODY();
	ASSERT_NE(NULL, fresh);
	ASSERT_EQ(0, rg_reg(self->fd, fresh, 4 * RG_PAGE, 0, &a));
	m = rg_mmap(self->fd, &a, 0, 4 * RG_PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(0, m[RG_PAGE]);
	fresh[RG_PAGE] = 0x61;
	EXPECT_EQ(0, rg_query(self->fd, a.handle, a.key, NULL));
	EXPECT_EQ(0x61, m[RG_PAGE]);
	EXPECT_EQ(0, rg_get(self->fd, &a, RG_PAGE, &got, 1));
	EXPECT_EQ(0x61, got);
	munmap(m, 4 * RG_PAGE);
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
	xf_free(fresh, 4 * RG_PAGE);
}

/* Shared memory is not copied on fork(): its regions live on. */
TEST_F(reg, shared_memory_survives_fork)
{
	unsigned char *shm, *m;
	struct mpichan_region_reg a, b;

	XF_BODY();
	shm = mmap(NULL, 4 * RG_PAGE, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shm);
	memset(shm, 0x33, 4 * RG_PAGE);
	ASSERT_EQ(0, rg_reg(self->fd, shm, 4 * RG_PAGE, 0, &a));
	ASSERT_EQ(0, rg_reg(self->fd, shm, 4 * RG_PAGE, MPICHAN_REGION_WRITE,
			    &b));
	m = rg_mmap(self->fd, &b, MPICHAN_REGION_WRITE, 4 * RG_PAGE,
		    PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(0, run_child(child_nothing, NULL));
	EXPECT_EQ(0, rg_query(self->fd, a.handle, a.key, NULL));
	EXPECT_EQ(0, rg_query(self->fd, b.handle, b.key, NULL));
	shm[5] = 0x44;
	EXPECT_EQ(0x44, m[5]);
	m[6] = 0x55;
	EXPECT_EQ(0x55, shm[6]);
	munmap(m, 4 * RG_PAGE);
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
	EXPECT_EQ(0, rg_dereg(self->fd, b.handle));
	munmap(shm, 4 * RG_PAGE);
}

/* ---- DEREG and copies under way -------------------------------------------- */

#define BIG_BYTES	(16UL << 20)

struct inflight {
	int fd;
	struct mpichan_region_reg r;
	unsigned char *dst;
	volatile int started;
	int64_t t_end;
	int ret;
	uint64_t bytes;
};

static void *copier(void *p)
{
	struct inflight *f = p;
	struct mpichan_rcopy e = rg_entry(&f->r, 0, f->dst, BIG_BYTES, 0);

	__atomic_store_n(&f->started, 1, __ATOMIC_RELEASE);
	f->ret = rg_copyv(f->fd, &e, 1, NULL, &f->bytes);
	f->t_end = mc_now_ns();
	return NULL;
}

TEST_F_TIMEOUT(reg, deregister_waits_for_a_copy_under_way, 120)
{
	unsigned char *big = xf_alloc(BIG_BYTES), *dst = xf_alloc(BIG_BYTES);
	struct inflight f = { .dst = dst };
	int64_t t0, once, t_dereg, t_done;
	pthread_t th;
	int ret;

	XF_BODY();
	ASSERT_NE(NULL, big);
	ASSERT_NE(NULL, dst);
	mc_fill(big, 4, BIG_BYTES);
	f.fd = mc_open();
	ASSERT_LE(0, f.fd);
	/* How long one copy takes here, the pages faulted in first. */
	ASSERT_EQ(0, rg_reg(self->fd, big, BIG_BYTES, 0, &f.r));
	memset(dst, 0, BIG_BYTES);
	t0 = mc_now_ns();
	ASSERT_EQ(0, rg_get(f.fd, &f.r, 0, dst, BIG_BYTES));
	once = mc_now_ns() - t0;
	memset(dst, 0, BIG_BYTES);
	ASSERT_EQ(0, pthread_create(&th, NULL, copier, &f));
	while (!__atomic_load_n(&f.started, __ATOMIC_ACQUIRE))
		;
	mc_sleep_ms((int)(once / MC_MS / 4) + 1);
	t_dereg = mc_now_ns();
	ret = rg_dereg(self->fd, f.r.handle);
	t_done = mc_now_ns();
	/* The pins went before DEREG returned, not before the copy ended. */
	EXPECT_EQ(0, mc_stat("regions"));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	pthread_join(th, NULL);
	EXPECT_EQ(0, ret);
	TH_LOG("copy alone %lld us; DEREG after %lld us, took %lld us; the copy ended %lld us after DEREG returned",
	       (long long)once / 1000, (long long)(t_dereg - t0 - once) / 1000,
	       (long long)(t_done - t_dereg) / 1000,
	       (long long)(f.t_end - t_done) / 1000);
	if (f.t_end < t_dereg)
		SKIP(goto out, "the copy was over before DEREG (%lld us): nothing to wait for",
		     (long long)once / 1000);
	EXPECT_EQ(0, f.ret);
	EXPECT_EQ(BIG_BYTES, f.bytes);
	EXPECT_TRUE(mc_check(dst, 4, BIG_BYTES));
	/* DEREG returned once the copy was done, within a scheduling slice. */
	EXPECT_GT(once / 8 + 5 * MC_MS, f.t_end - t_done);
out:
	close(f.fd);
	xf_free(big, BIG_BYTES);
	xf_free(dst, BIG_BYTES);
}

struct batch_arg {
	struct mpichan_region_reg r;
	int fd;
	unsigned char *src;
	int ret;
	uint32_t done;
};

/* Puts until the region ends under it. */
static void *putter(void *p)
{
	struct batch_arg *b = p;
	struct mpichan_rcopy e[256];
	int i;

	for (i = 0; i < 256; i++)
		e[i] = rg_entry(&b->r, (i * 4096) % (BUF_BYTES - 4096),
				b->src, 4096, 1);
	do {
		b->ret = rg_copyv(b->fd, e, 256, &b->done, NULL);
	} while (!b->ret);
	return NULL;
}

TEST_F(reg, a_batch_stops_when_its_region_ends)
{
	struct batch_arg b = { .src = self->loc };
	pthread_t th;

	XF_BODY();
	b.fd = mc_open();
	ASSERT_LE(0, b.fd);
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES,
			    MPICHAN_REGION_WRITE, &b.r));
	ASSERT_EQ(0, pthread_create(&th, NULL, putter, &b));
	mc_sleep_ms(50);
	EXPECT_EQ(0, rg_dereg(self->fd, b.r.handle));
	pthread_join(th, NULL);
	EXPECT_EQ(-ENOENT, b.ret);
	EXPECT_GT(256, b.done);
	close(b.fd);
}

/* The owner dies while a copy of its region is under way. */
TEST_F_TIMEOUT(reg, owner_killed_during_a_copy, 120)
{
	unsigned char *big = xf_alloc(BIG_BYTES), *dst = xf_alloc(BIG_BYTES);
	struct inflight f = { .dst = dst };
	pthread_t th;
	pid_t owner;
	long v;
	int pipefd[2];

	XF_BODY();
	ASSERT_NE(NULL, big);
	ASSERT_NE(NULL, dst);
	ASSERT_EQ(0, pipe(pipefd));
	owner = fork();
	ASSERT_LE(0, owner);
	if (!owner) {
		int fd = mc_open();

		mc_fill(big, 4, BIG_BYTES);
		CHILD_CHECK(rg_reg(fd, big, BIG_BYTES, 0, &f.r) == 0);
		CHILD_CHECK(write(pipefd[1], &f.r, sizeof(f.r)) == sizeof(f.r));
		for (;;)
			pause();
	}
	ASSERT_EQ(sizeof(f.r), read(pipefd[0], &f.r, sizeof(f.r)));
	f.fd = mc_open();
	ASSERT_LE(0, f.fd);
	ASSERT_EQ(0, pthread_create(&th, NULL, copier, &f));
	while (!__atomic_load_n(&f.started, __ATOMIC_ACQUIRE))
		;
	mc_sleep_ms(2);
	kill(owner, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, mc_reap(owner));
	pthread_join(th, NULL);
	/* Whole, or refused whole; never a page freed under it. */
	if (!f.ret) {
		EXPECT_EQ(BIG_BYTES, f.bytes);
		EXPECT_TRUE(mc_check(dst, 4, BIG_BYTES));
	} else {
		EXPECT_TRUE(f.ret == -ENOENT || f.ret == -ESTALE)
			TH_LOG("copy: %s", strerror(-f.ret));
		EXPECT_EQ(0, f.bytes);
	}
	v = rg_settled("pinned_pages", 0);
	EXPECT_EQ(0, v);
	EXPECT_EQ(-ENOENT, rg_query(f.fd, f.r.handle, f.r.key, NULL));
	close(pipefd[0]);
	close(pipefd[1]);
	close(f.fd);
	xf_free(big, BIG_BYTES);
	xf_free(dst, BIG_BYTES);
}

/* ---- RLIMIT_MEMLOCK ------------------------------------------------------ */

static int child_memlock(void *p)
{
	struct rlimit rl = { 16 * RG_PAGE, 16 * RG_PAGE };
	unsigned char *buf = xf_alloc(BUF_BYTES), *hole = xf_alloc(3 * RG_PAGE);
	struct mpichan_region_reg a, b;
	int fd = mc_open();

	CHILD_CHECK(fd >= 0 && buf);
	CHILD_CHECK(mc_drop_cap(CAP_IPC_LOCK) == 0);
	CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	CHILD_CHECK(rg_reg(fd, buf, 15 * RG_PAGE, 0, &a) == 0);
	/* Two bytes across a page boundary are two pages: over. */
	CHILD_CHECK(rg_reg(fd, buf + RG_PAGE - 1, 2, 0, &b) == -ENOMEM);
	/*
	 * A range that is not mapped throughout is refused before it is
	 * charged (or its page array allocated: 128 MiB for this one).
	 */
	CHILD_CHECK(rg_reg(fd, buf, MPICHAN_REGION_MAX_BYTES, 0, &b) == -EFAULT);
	CHILD_CHECK(hole && munmap(hole + RG_PAGE, RG_PAGE) == 0);
	CHILD_CHECK(rg_reg(fd, hole, 3 * RG_PAGE, 0, &b) == -EFAULT);
	CHILD_CHECK(mc_stat("regions") == 1);
	CHILD_CHECK(mc_stat("pinned_pages") == 15);
	CHILD_CHECK(rg_reg(fd, buf + 100, 1, MPICHAN_REGION_WRITE, &b) == 0);
	CHILD_CHECK(rg_reg(fd, buf, 1, 0, NULL) == -ENOMEM);
	/* DEREG gives the charge back. */
	CHILD_CHECK(rg_dereg(fd, a.handle) == 0);
	CHILD_CHECK(rg_reg(fd, buf, 15 * RG_PAGE, 0, &a) == 0);
	CHILD_CHECK(rg_dereg(fd, b.handle) == 0);
	CHILD_CHECK(rg_reg(fd, buf + RG_PAGE - 1, 2, 0, &b) == -ENOMEM);
	CHILD_CHECK(rg_reg(fd, buf + RG_PAGE - 1, 1, 0, &b) == 0);
	/* So does the close. */
	close(fd);
	fd = mc_open();
	CHILD_CHECK(rg_reg(fd, buf, 16 * RG_PAGE, 0, &a) == 0);
	close(fd);
	return 0;
}

static int child_memlock_cap(void *p)
{
	struct rlimit rl = { RG_PAGE, RG_PAGE };
	unsigned char *buf = xf_alloc(BUF_BYTES);
	int fd = mc_open();

	CHILD_CHECK(fd >= 0 && buf);
	CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	CHILD_CHECK(rg_reg(fd, buf, BUF_BYTES, 0, NULL) == 0);
	CHILD_CHECK(mc_stat("pinned_pages") == BUF_PAGES);
	close(fd);
	return 0;
}

TEST_F(reg, memlock_limit)
{
	XF_BODY();
	if (getuid() != 0 || !mc_have_cap(CAP_IPC_LOCK))
		SKIP(return, "needs root with CAP_IPC_LOCK to drop it");
	EXPECT_EQ(0, run_child(child_memlock, NULL));
	EXPECT_EQ(0, rg_settled("pinned_pages", 0));
	EXPECT_EQ(0, run_child(child_memlock_cap, NULL));
}

/* ---- debugfs --------------------------------------------------------------- */

TEST_F(reg, debugfs_shows_it)
{
	struct mpichan_region_reg a, b;
	long copies = mc_stat("region_copies");
	long in = mc_stat("region_bytes_in"), out = mc_stat("region_bytes_out");
	unsigned char *m1, *m2;
	struct rg_line l;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf + 1, 2 * RG_PAGE,
			    MPICHAN_REGION_WRITE, &a));
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, RG_PAGE, 0, &b));
	ASSERT_EQ(0, rg_debugfs(a.handle, &l));
	EXPECT_EQ(getpid(), l.pid);
	EXPECT_EQ(geteuid(), l.uid);
	EXPECT_EQ(2 * RG_PAGE, l.len);
	EXPECT_EQ(3, l.pages);
	EXPECT_EQ(1, l.map_pages);
	EXPECT_STREQ("yes", l.writable);
	EXPECT_STREQ("live", l.state);
	EXPECT_EQ(0, l.maps);
	EXPECT_EQ(0, l.copies);
	ASSERT_EQ(0, rg_debugfs(b.handle, &l));
	EXPECT_STREQ("no", l.writable);
	EXPECT_EQ(1, l.pages);
	m1 = rg_mmap(self->fd, &a, 0, RG_PAGE, PROT_READ);
	m2 = rg_mmap(self->fd, &a, 0, RG_PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, m1);
	ASSERT_NE(MAP_FAILED, m2);
	EXPECT_EQ(0, rg_put(self->fd, &a, 3, self->loc, 100));
	EXPECT_EQ(0, rg_get(self->fd, &a, 0, self->loc, 50));
	EXPECT_EQ(0, rg_get(self->fd, &a, 0, self->loc, 7));
	ASSERT_EQ(0, rg_debugfs(a.handle, &l));
	EXPECT_EQ(2, l.maps);
	EXPECT_EQ(3, l.copies);
	EXPECT_EQ(100, l.bytes_in);
	EXPECT_EQ(57, l.bytes_out);
	EXPECT_EQ(2, mc_stat("region_maps"));
	EXPECT_EQ(copies + 3, mc_stat("region_copies"));
	EXPECT_EQ(in + 100, mc_stat("region_bytes_in"));
	EXPECT_EQ(out + 57, mc_stat("region_bytes_out"));
	EXPECT_EQ(4, mc_stat("region_pages"));
	munmap(m1, RG_PAGE);
	ASSERT_EQ(0, rg_debugfs(a.handle, &l));
	EXPECT_EQ(1, l.maps);
	munmap(m2, RG_PAGE);
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
	EXPECT_EQ(-ENOENT, rg_debugfs(a.handle, &l));
	EXPECT_EQ(0, rg_debugfs(b.handle, &l));
	EXPECT_EQ(0, rg_dereg(self->fd, b.handle));
}

/* ---- a process killed with regions and mappings -------------------------- */

struct killed_arg {
	struct mpichan_region_reg theirs;
	int ready[2];
};

static int child_busy_owner(void *p)
{
	struct killed_arg *k = p;
	struct mpichan_region_reg mine[3];
	unsigned char *buf = xf_alloc(8 * RG_PAGE), *m, *own;
	unsigned char tmp[256];
	int fd = mc_open(), fd2 = mc_open(), i;

	CHILD_CHECK(buf && fd >= 0 && fd2 >= 0);
	for (i = 0; i < 3; i++)
		CHILD_CHECK(rg_reg(i ? fd : fd2, buf + i * 2 * RG_PAGE,
				   2 * RG_PAGE, MPICHAN_REGION_WRITE,
				   &mine[i]) == 0);
	m = rg_mmap(fd, &k->theirs, MPICHAN_REGION_WRITE, RG_PAGE,
		    PROT_READ | PROT_WRITE);
	own = rg_mmap(fd2, &mine[1], MPICHAN_REGION_WRITE, 2 * RG_PAGE,
		      PROT_READ | PROT_WRITE);
	CHILD_CHECK(m != MAP_FAILED && own != MAP_FAILED);
	close(fd2);	/* the mapping keeps that file */
	CHILD_CHECK(mc_post(k->ready[1], 'r') == 0);
	for (i = 0;; i++) {
		m[i % RG_PAGE] = (unsigned char)i;
		own[i % (2 * RG_PAGE)] = (unsigned char)i;
		rg_get(fd, &k->theirs, i % 1000, tmp, sizeof(tmp));
		rg_put(fd, &mine[i % 3], i % 1000, tmp, sizeof(tmp));
	}
	return 0;
}

TEST_F(reg, killed_with_regions_and_mappings_leaves_nothing)
{
	struct killed_arg k;
	int round;
	pid_t pid;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES,
			    MPICHAN_REGION_WRITE, &k.theirs));
	ASSERT_EQ(0, pipe(k.ready));
	for (round = 0; round < 6; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(child_busy_owner(&k));
		ASSERT_EQ('r', mc_take(k.ready[0], 10000));
		mc_sleep_ms(round * 3);
		kill(pid, SIGKILL);
		EXPECT_EQ(128 + SIGKILL, mc_reap(pid));
		EXPECT_EQ(1, rg_settled("regions", 1)) TH_LOG("round %d", round);
		EXPECT_EQ(BUF_PAGES, rg_settled("pinned_pages", BUF_PAGES));
		EXPECT_EQ(0, rg_settled("region_maps", 0));
	}
	close(k.ready[0]);
	close(k.ready[1]);
	EXPECT_EQ(0, rg_query(self->fd, k.theirs.handle, k.theirs.key, NULL));
	EXPECT_EQ(0, rg_dereg(self->fd, k.theirs.handle));
}

int main(int argc, char **argv)
{
	if (!access(MPICHAN_DEVICE, F_OK) && !rg_feature())
		ksft_exit_skip("the loaded module has no MPICHAN_FEAT_REGION\n");
	return test_harness_run(argc, argv);
}
