// SPDX-License-Identifier: GPL-2.0
/*
 * Registered regions (MPICHAN_FEAT_REGION): REGION_REG, _DEREG, _COPY,
 * _MAP (and mmap()), _QUERY.  Copies both ways, batched, with iovecs, at
 * odd offsets; by a process that is no rank of any job; refused to
 * another user; mappings read-only and writable, several at once, shared
 * by two processes; partial pages by copy only; every way a region ends
 * or goes stale zaps its mappings (SIGBUS in the process that maps it,
 * never other memory); DEREG waits for a copy under way; RLIMIT_MEMLOCK;
 * hostile arguments; debugfs; nothing pinned afterwards.
 *
 * Exits with KSFT_SKIP when the loaded module has no regions.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "region_helpers.h"

#define BUF_PAGES	16
#define BUF_BYTES	(BUF_PAGES * RG_PAGE)

FIXTURE(reg) {
	int fd;			/* the owner's: a plain open, no job */
	unsigned char *buf;	/* BUF_BYTES, pattern 1 */
	unsigned char *loc;	/* BUF_BYTES of local memory */
};

FIXTURE_SETUP(reg)
{
	self->fd = -1;
	self->buf = self->loc = NULL;
	MC_REQUIRE_DEVICE();
	if (!mc_debugfs_present())
		SKIP(return, "%s absent: is debugfs mounted?", MC_DEBUGFS);
	ASSERT_EQ(0, rg_settled("regions", 0));
	ASSERT_EQ(0, rg_settled("pinned_pages", 0));
	self->fd = mc_open();
	ASSERT_LE(0, self->fd);
	self->buf = xf_alloc(BUF_BYTES);
	self->loc = xf_alloc(BUF_BYTES);
	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->loc);
	/* The helper processes forked later must not end its regions. */
	ASSERT_EQ(0, madvise(self->buf, BUF_BYTES, MADV_DONTFORK));
	ASSERT_EQ(0, madvise(self->loc, BUF_BYTES, MADV_DONTFORK));
	mc_fill(self->buf, 1, BUF_BYTES);
}

FIXTURE_TEARDOWN(reg)
{
	if (self->fd >= 0)
		close(self->fd);
	xf_free(self->buf, BUF_BYTES);
	xf_free(self->loc, BUF_BYTES);
	if (!_metadata->skip) {
		EXPECT_EQ(0, rg_settled("regions", 0));
		EXPECT_EQ(0, rg_settled("region_maps", 0));
		EXPECT_EQ(0, rg_settled("pinned_pages", 0));
	}
}

/* Fork fn(arg) and wait for it: its exit status (CHILD_CHECK: 1). */
static int run_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(arg));
	return mc_reap(pid);
}

TEST_F(reg, register_and_deregister)
{
	struct mpichan_region_reg a, b;
	struct mpichan_region_query q;
	int other;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES, 0, &a));
	EXPECT_NE(0, a.handle);
	EXPECT_EQ(0, a.map_start);
	EXPECT_EQ(BUF_BYTES, a.map_len);
	EXPECT_EQ(1, mc_stat("regions"));
	EXPECT_EQ(BUF_PAGES, mc_stat("region_pages"));
	EXPECT_EQ(BUF_PAGES, mc_stat("pinned_pages"));
	/* The same memory again: a second region, pinned again. */
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES,
			    MPICHAN_REGION_WRITE, &b));
	EXPECT_NE(a.handle, b.handle);
	EXPECT_NE(a.key, b.key);
	EXPECT_EQ(2 * BUF_PAGES, mc_stat("pinned_pages"));
	ASSERT_EQ(0, rg_query(self->fd, a.handle, a.key, &q));
	EXPECT_EQ(BUF_BYTES, q.len);
	EXPECT_EQ(0, q.flags);
	EXPECT_EQ(getpid(), q.pid);
	EXPECT_EQ(0, q.map_start);
	EXPECT_EQ(BUF_BYTES, q.map_len);
	ASSERT_EQ(0, rg_query(self->fd, b.handle, b.key, &q));
	EXPECT_EQ(MPICHAN_REGION_WRITE, q.flags);
	/* Only the fd that registered it ends it. */
	other = mc_open();
	ASSERT_LE(0, other);
	EXPECT_EQ(-ENOENT, rg_dereg(other, a.handle));
	close(other);
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
	EXPECT_EQ(-ENOENT, rg_dereg(self->fd, a.handle));
	EXPECT_EQ(-ENOENT, rg_query(self->fd, a.handle, a.key, NULL));
	EXPECT_EQ(BUF_PAGES, mc_stat("pinned_pages"));
	EXPECT_EQ(0, rg_dereg(self->fd, b.handle));
	EXPECT_EQ(0, mc_stat("regions"));
	EXPECT_EQ(0, mc_stat("region_pages"));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
}

TEST_F(reg, register_refusals)
{
	unsigned char *ro, *two;
	struct mpichan_region_reg a;

	XF_BODY();
	ro = mmap(NULL, RG_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	two = xf_alloc(2 * RG_PAGE);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_NE(NULL, two);
	ASSERT_EQ(0, munmap(two + RG_PAGE, RG_PAGE));
	EXPECT_EQ(-EINVAL, rg_reg(self->fd, self->buf, RG_PAGE, 2, NULL));
	EXPECT_EQ(-EINVAL, rg_reg(self->fd, self->buf, RG_PAGE, 1U << 31, NULL));
	EXPECT_EQ(-EINVAL, rg_reg(self->fd, self->buf, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, rg_reg(self->fd, self->buf,
				  MPICHAN_REGION_MAX_BYTES + 1, 0, NULL));
	EXPECT_EQ(-EINVAL, rg_reg(self->fd, (void *)~0UL, 2, 0, NULL));
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)self->buf;
	a.len = RG_PAGE;
	a.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MPICHAN_IOC_REGION_REG, &a));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EFAULT, rg_reg(self->fd, NULL, RG_PAGE, 0, NULL));
	EXPECT_EQ(-EFAULT, rg_reg(self->fd, (void *)0xffffffff81000000UL,
				  RG_PAGE, 0, NULL));
	/* Writable needs writable memory; read-only memory can be read. */
	EXPECT_EQ(-EFAULT, rg_reg(self->fd, ro, RG_PAGE, MPICHAN_REGION_WRITE,
				  NULL));
	/* Partly mapped. */
	EXPECT_EQ(-EFAULT, rg_reg(self->fd, two, 2 * RG_PAGE, 0, NULL));
	EXPECT_EQ(-EFAULT, rg_reg(self->fd, two + RG_PAGE - 1, 2, 0, NULL));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	EXPECT_EQ(0, mc_stat("regions"));
	ASSERT_EQ(0, rg_reg(self->fd, ro, RG_PAGE, 0, &a));
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
	munmap(ro, RG_PAGE);
	munmap(two, RG_PAGE);
}

TEST_F(reg, copy_both_ways_at_odd_offsets)
{
	static const uint64_t offs[] = { 0, 1, 7, 4095, 4096, 4097, 12345 };
	static const uint64_t lens[] = { 1, 7, 4095, 4096, 4097, 8193, 20000 };
	/* The region leaves a byte out at each end of buf. */
	uint64_t rlen = BUF_BYTES - 2, off, len;
	unsigned char *r0 = self->buf + 1, first, last;
	struct mpichan_region_reg a;
	unsigned int i, j, seq = 10;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, r0, rlen, MPICHAN_REGION_WRITE, &a));
	EXPECT_EQ(RG_PAGE - 1, a.map_start);
	EXPECT_EQ(BUF_BYTES - 2 * RG_PAGE, a.map_len);
	first = self->buf[0];
	last = self->buf[BUF_BYTES - 1];
	for (i = 0; i <= sizeof(offs) / sizeof(offs[0]); i++) {
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			len = lens[j];
			/* The last round: at the very end of the region. */
			off = i < sizeof(offs) / sizeof(offs[0]) ? offs[i] :
				rlen - len;
			if (off + len > rlen)
				continue;
			memset(self->loc, 0, len);
			ASSERT_EQ(0, rg_get(self->fd, &a, off, self->loc, len))
				TH_LOG("get off %lu len %lu", off, len);
			ASSERT_EQ(0, memcmp(self->loc, r0 + off, len))
				TH_LOG("get off %lu len %lu", off, len);
			mc_fill(self->loc, seq, len);
			ASSERT_EQ(0, rg_put(self->fd, &a, off, self->loc, len))
				TH_LOG("put off %lu len %lu", off, len);
			ASSERT_TRUE(mc_check(r0 + off, seq, len))
				TH_LOG("put off %lu len %lu", off, len);
			seq++;
		}
	}
	/* Never a byte outside. */
	EXPECT_EQ(first, self->buf[0]);
	EXPECT_EQ(last, self->buf[BUF_BYTES - 1]);
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
}

TEST_F(reg, copy_batched_strided_and_iovec)
{
	struct mpichan_rcopy e[MPICHAN_REGION_COPY_MAX];
	struct mpichan_iovec v[3];
	struct mpichan_region_reg a;
	uint64_t bytes;
	uint32_t done, i;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES,
			    MPICHAN_REGION_WRITE, &a));
	/* A strided put: 128 blocks of 24 bytes, 100 apart, in one call. */
	mc_fill(self->loc, 5, 128 * 24);
	for (i = 0; i < 128; i++)
		e[i] = rg_entry(&a, 3 + i * 100, self->loc + i * 24, 24, 1);
	ASSERT_EQ(0, rg_copyv(self->fd, e, 128, &done, &bytes));
	EXPECT_EQ(128, done);
	EXPECT_EQ(128 * 24, bytes);
	for (i = 0; i < 128; i++)
		ASSERT_EQ(0, memcmp(self->buf + 3 + i * 100, self->loc + i * 24, 24))
			TH_LOG("block %u", i);
	/* The largest batch: a strided get of 8-byte words. */
	for (i = 0; i < MPICHAN_REGION_COPY_MAX; i++)
		e[i] = rg_entry(&a, i * 40 + 1, self->loc + i * 8, 8, 0);
	ASSERT_EQ(0, rg_copyv(self->fd, e, MPICHAN_REGION_COPY_MAX, &done,
			      &bytes));
	EXPECT_EQ(MPICHAN_REGION_COPY_MAX, done);
	EXPECT_EQ(MPICHAN_REGION_COPY_MAX * 8, bytes);
	for (i = 0; i < MPICHAN_REGION_COPY_MAX; i++)
		ASSERT_EQ(0, memcmp(self->loc + i * 8, self->buf + i * 40 + 1, 8));
	EXPECT_EQ(-EINVAL, rg_copyv(self->fd, e, MPICHAN_REGION_COPY_MAX + 1,
				    &done, NULL));
	EXPECT_EQ(0, done);
	/* An iovec of three pieces into the region, then back out of it. */
	mc_fill(self->loc, 6, BUF_BYTES);
	v[0] = (struct mpichan_iovec){ (uintptr_t)self->loc, 10 };
	v[1] = (struct mpichan_iovec){ (uintptr_t)self->loc + 100, 5000 };
	v[2] = (struct mpichan_iovec){ (uintptr_t)self->loc + 9001, 1 };
	e[0] = rg_entry(&a, 777, v, 5011, 1);
	e[0].flags |= MPICHAN_RCOPY_IOV;
	e[0].iovcnt = 3;
	/* And in the same call a plain get of the pieces' region bytes. */
	e[1] = rg_entry(&a, 777, self->loc + 20000, 5011, 0);
	ASSERT_EQ(0, rg_copyv(self->fd, e, 2, &done, &bytes));
	EXPECT_EQ(2, done);
	EXPECT_EQ(2 * 5011, bytes);
	EXPECT_EQ(0, memcmp(self->buf + 777, self->loc, 10));
	EXPECT_EQ(0, memcmp(self->buf + 787, self->loc + 100, 5000));
	EXPECT_EQ(self->loc[9001], self->buf[5787]);
	EXPECT_EQ(0, memcmp(self->loc + 20000, self->buf + 777, 5011));
	/* A gather of the same bytes into other pieces. */
	memset(self->loc + 30000, 0, 6000);
	v[0] = (struct mpichan_iovec){ (uintptr_t)self->loc + 30000, 11 };
	v[1] = (struct mpichan_iovec){ (uintptr_t)self->loc + 31000, 0 };
	v[2] = (struct mpichan_iovec){ (uintptr_t)self->loc + 32000, 5000 };
	e[0] = rg_entry(&a, 777, v, 5011, 0);
	e[0].flags |= MPICHAN_RCOPY_IOV;
	e[0].iovcnt = 3;
	ASSERT_EQ(0, rg_copyv(self->fd, e, 1, &done, &bytes));
	EXPECT_EQ(0, memcmp(self->loc + 30000, self->buf + 777, 11));
	EXPECT_EQ(0, memcmp(self->loc + 32000, self->buf + 788, 5000));
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
}

TEST_F(reg, batch_stops_at_the_first_error)
{
	struct mpichan_region_reg a;
	struct mpichan_rcopy e[4];
	unsigned char *two;
	uint64_t bytes;
	uint32_t done;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES,
			    MPICHAN_REGION_WRITE, &a));
	e[0] = rg_entry(&a, 0, self->loc, 100, 0);
	e[1] = rg_entry(&a, 200, self->loc, 50, 1);
	e[2] = rg_entry(&a, 0, self->loc, 10, 0);
	e[2].key ^= 1;
	e[3] = rg_entry(&a, 0, self->loc, 10, 0);
	EXPECT_EQ(-EACCES, rg_copyv(self->fd, e, 4, &done, &bytes));
	EXPECT_EQ(2, done);
	EXPECT_EQ(150, bytes);
	/* The caller's memory faults half way: what was copied is counted. */
	two = xf_alloc(2 * RG_PAGE);
	ASSERT_NE(NULL, two);
	ASSERT_EQ(0, munmap(two + RG_PAGE, RG_PAGE));
	e[0] = rg_entry(&a, 0, self->loc, 10, 0);
	e[1] = rg_entry(&a, 0, two, 2 * RG_PAGE, 0);
	EXPECT_EQ(-EFAULT, rg_copyv(self->fd, e, 2, &done, &bytes));
	EXPECT_EQ(1, done);
	EXPECT_EQ(10 + RG_PAGE, bytes);
	EXPECT_EQ(0, memcmp(two, self->buf, RG_PAGE));
	e[1] = rg_entry(&a, 0, two + RG_PAGE, 1, 1);
	EXPECT_EQ(-EFAULT, rg_copyv(self->fd, e, 2, &done, &bytes));
	EXPECT_EQ(1, done);
	EXPECT_EQ(10, bytes);
	/* The array itself faults: at the entry it cannot read. */
	memcpy(two + RG_PAGE - sizeof(e[0]), &e[0], sizeof(e[0]));
	EXPECT_EQ(-EFAULT, rg_copyv(self->fd,
				    (void *)(two + RG_PAGE - sizeof(e[0])), 2,
				    &done, &bytes));
	EXPECT_EQ(1, done);
	EXPECT_EQ(-EFAULT, rg_copyv(self->fd, NULL, 1, &done, &bytes));
	EXPECT_EQ(0, done);
	EXPECT_EQ(0, bytes);
	munmap(two, RG_PAGE);
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
}

TEST_F(reg, copy_refusals)
{
	struct mpichan_region_reg ro, rw, gone;
	struct mpichan_region_copy c;
	struct mpichan_iovec v[2];
	struct mpichan_rcopy e;
	unsigned char before[64];

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, 4 * RG_PAGE, 0, &ro));
	ASSERT_EQ(0, rg_reg(self->fd, self->buf + 100, 1000,
			    MPICHAN_REGION_WRITE, &rw));
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, RG_PAGE, 0, &gone));
	ASSERT_EQ(0, rg_dereg(self->fd, gone.handle));
	memcpy(before, self->buf, sizeof(before));
	mc_fill(self->loc, 9, RG_PAGE);
	/* Who: handles that are not, a wrong key. */
	e = rg_entry(&ro, 0, self->loc, 10, 0);
	e.key ^= 1ULL << 63;
	EXPECT_EQ(-EACCES, rg_copyv(self->fd, &e, 1, NULL, NULL));
	e = rg_entry(&gone, 0, self->loc, 10, 0);
	EXPECT_EQ(-ENOENT, rg_copyv(self->fd, &e, 1, NULL, NULL));
	e.handle = 0;
	EXPECT_EQ(-ENOENT, rg_copyv(self->fd, &e, 1, NULL, NULL));
	e.handle = 0xffffffffULL;
	EXPECT_EQ(-ENOENT, rg_copyv(self->fd, &e, 1, NULL, NULL));
	e.handle = 1ULL << 40;
	EXPECT_EQ(-ENOENT, rg_copyv(self->fd, &e, 1, NULL, NULL));
	/* Which way: never into a read-only region. */
	EXPECT_EQ(-EACCES, rg_put(self->fd, &ro, 0, self->loc, 10));
	EXPECT_EQ(0, memcmp(before, self->buf, sizeof(before)));
	/* Where: inside, or nothing. */
	EXPECT_EQ(0, rg_put(self->fd, &rw, 1000, self->loc, 0));
	EXPECT_EQ(0, rg_put(self->fd, &rw, 999, self->loc, 1));
	EXPECT_EQ(-EINVAL, rg_put(self->fd, &rw, 1001, self->loc, 0));
	EXPECT_EQ(-EINVAL, rg_put(self->fd, &rw, 999, self->loc, 2));
	EXPECT_EQ(-EINVAL, rg_put(self->fd, &rw, 0, self->loc, 1001));
	EXPECT_EQ(-EINVAL, rg_get(self->fd, &rw, ~0ULL, self->loc, 2));
	EXPECT_EQ(-EINVAL, rg_get(self->fd, &rw, 2, self->loc, ~0ULL));
	EXPECT_EQ(-EINVAL, rg_get(self->fd, &rw, 0, self->loc, 1ULL << 62));
	/* How: flags, iovec counts and lengths. */
	e = rg_entry(&rw, 0, self->loc, 10, 0);
	e.flags = 1U << 5;
	EXPECT_EQ(-EINVAL, rg_copyv(self->fd, &e, 1, NULL, NULL));
	e.flags = 0;
	e.iovcnt = 1;
	EXPECT_EQ(-EINVAL, rg_copyv(self->fd, &e, 1, NULL, NULL));
	v[0] = (struct mpichan_iovec){ (uintptr_t)self->loc, 4 };
	v[1] = (struct mpichan_iovec){ (uintptr_t)self->loc + 8, 4 };
	e = rg_entry(&rw, 0, v, 8, 1);
	e.flags |= MPICHAN_RCOPY_IOV;
	e.iovcnt = 0;
	EXPECT_EQ(-EINVAL, rg_copyv(self->fd, &e, 1, NULL, NULL));
	e.iovcnt = MPICHAN_IOV_MAX + 1;
	EXPECT_EQ(-EINVAL, rg_copyv(self->fd, &e, 1, NULL, NULL));
	e.iovcnt = 2;
	e.len = 9;
	EXPECT_EQ(-EINVAL, rg_copyv(self->fd, &e, 1, NULL, NULL));
	v[1].len = ~0ULL - 2;
	e.len = 8;
	EXPECT_EQ(-EINVAL, rg_copyv(self->fd, &e, 1, NULL, NULL));
	e.addr = 0;
	EXPECT_EQ(-EFAULT, rg_copyv(self->fd, &e, 1, NULL, NULL));
	/* The batch itself. */
	e = rg_entry(&rw, 0, self->loc, 10, 0);
	EXPECT_EQ(-EINVAL, rg_copyv(self->fd, &e, 0, NULL, NULL));
	memset(&c, 0, sizeof(c));
	c.entries = (uintptr_t)&e;
	c.count = 1;
	c.flags = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MPICHAN_IOC_REGION_COPY, &c));
	EXPECT_EQ(EINVAL, errno);
	c.flags = 0;
	c.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MPICHAN_IOC_REGION_COPY, &c));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, memcmp(before, self->buf, sizeof(before)));
	EXPECT_EQ(0, rg_dereg(self->fd, ro.handle));
	EXPECT_EQ(0, rg_dereg(self->fd, rw.handle));
}

TEST_F(reg, query_map_dereg_refusals)
{
	struct mpichan_region_reg ro, tiny;
	struct mpichan_region_dereg d;
	struct mpichan_region_map m;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, 2 * RG_PAGE, 0, &ro));
	ASSERT_EQ(0, rg_reg(self->fd, self->buf + 10, 100, MPICHAN_REGION_WRITE,
			    &tiny));
	EXPECT_EQ(0, tiny.map_len);
	EXPECT_EQ(-EACCES, rg_query(self->fd, ro.handle, ro.key + 1, NULL));
	EXPECT_EQ(-ENOENT, rg_query(self->fd, 0, ro.key, NULL));
	EXPECT_EQ(-ENOENT, rg_query(self->fd, ~0ULL, ro.key, NULL));
	EXPECT_EQ(-EACCES, rg_map(self->fd, ro.handle, ~ro.key, 0, NULL));
	EXPECT_EQ(-EACCES, rg_map(self->fd, ro.handle, ro.key,
				  MPICHAN_REGION_WRITE, NULL));
	EXPECT_EQ(-EINVAL, rg_map(self->fd, ro.handle, ro.key, 2, NULL));
	memset(&m, 0, sizeof(m));
	m.handle = ro.handle;
	m.key = ro.key;
	m.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MPICHAN_IOC_REGION_MAP, &m));
	EXPECT_EQ(EINVAL, errno);
	/* No whole page: nothing to map, copies only. */
	EXPECT_EQ(-EINVAL, rg_map(self->fd, tiny.handle, tiny.key, 0, NULL));
	EXPECT_EQ(0, rg_get(self->fd, &tiny, 0, self->loc, 100));
	EXPECT_EQ(0, memcmp(self->loc, self->buf + 10, 100));
	memset(&d, 0, sizeof(d));
	d.handle = ro.handle;
	d.flags = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MPICHAN_IOC_REGION_DEREG, &d));
	EXPECT_EQ(EINVAL, errno);
	d.flags = 0;
	d.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MPICHAN_IOC_REGION_DEREG, &d));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-ENOENT, rg_dereg(self->fd, 0));
	EXPECT_EQ(-ENOENT, rg_dereg(self->fd, 1ULL << 32));
	EXPECT_EQ(0, rg_dereg(self->fd, ro.handle));
	EXPECT_EQ(0, rg_dereg(self->fd, tiny.handle));
}

/* ---- from other processes -------------------------------------------- */

struct use_arg {
	struct mpichan_region_reg r;
	int want;		/* what every call must return */
	uid_t uid;		/* become this user first, unless 0 */
	int keep_admin;		/* ... keeping CAP_SYS_ADMIN */
	int drop_admin;		/* stay who we are without CAP_SYS_ADMIN */
};

/* A plain open of a process of no job uses the region. */
static int child_use(void *p)
{
	const struct use_arg *u = p;
	cap_value_t admin = CAP_SYS_ADMIN;
	struct mpichan_region_query q;
	unsigned char got[64], *m;
	int fd, i;

	if (u->uid)
		CHILD_CHECK(mc_become(u->uid, &admin, u->keep_admin) == 0);
	if (u->drop_admin)
		CHILD_CHECK(mc_drop_cap(CAP_SYS_ADMIN) == 0);
	fd = mc_open();
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(rg_query(fd, u->r.handle, u->r.key, &q) == u->want);
	CHILD_CHECK(rg_get(fd, &u->r, 5, got, sizeof(got)) == u->want);
	CHILD_CHECK(rg_put(fd, &u->r, 5, got, sizeof(got)) == u->want);
	CHILD_CHECK(rg_map(fd, u->r.handle, u->r.key, MPICHAN_REGION_WRITE,
			   NULL) == u->want);
	if (u->want)
		return 0;
	CHILD_CHECK(q.len == u->r.len && q.flags == MPICHAN_REGION_WRITE &&
		    q.pid == getppid());
	for (i = 0; i < (int)sizeof(got); i++)
		CHILD_CHECK(got[i] == mc_pattern(1, 5 + i));
	m = rg_mmap(fd, &u->r, MPICHAN_REGION_WRITE, RG_PAGE,
		    PROT_READ | PROT_WRITE);
	CHILD_CHECK(m != MAP_FAILED);
	CHILD_CHECK(m[7] == mc_pattern(1, 7));
	m[8] = 0xee;
	close(fd);
	return 0;
}

TEST_F(reg, a_process_of_no_job_uses_it)
{
	struct use_arg u = { .want = 0 };
	struct mcr_ep ep;
	struct mc_job job;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES,
			    MPICHAN_REGION_WRITE, &u.r));
	EXPECT_EQ(0, run_child(child_use, &u));
	EXPECT_EQ(0xee, self->buf[8]);
	EXPECT_EQ(0, rg_dereg(self->fd, u.r.handle));
	/* A rank's region, for a process of no job. */
	ASSERT_EQ(0, mc_job_create(&job, 1, 4096));
	ASSERT_EQ(0, mc_ep_open(&ep, &job, 0));
	mc_fill(self->buf, 1, BUF_BYTES);
	ASSERT_EQ(0, rg_reg(ep.fd, self->buf, BUF_BYTES, MPICHAN_REGION_WRITE,
			    &u.r));
	EXPECT_EQ(0, run_child(child_use, &u));
	EXPECT_EQ(0xee, self->buf[8]);
	/* The rank leaves: its regions go with its file. */
	mc_ep_close(&ep);
	mc_job_close_owner(&job);
	EXPECT_EQ(0, mc_stat("regions"));
	EXPECT_EQ(-ENOENT, rg_query(self->fd, u.r.handle, u.r.key, NULL));
}

TEST_F(reg, another_user_is_refused)
{
	struct use_arg u = { .want = -EPERM, .uid = MC_NOBODY };

	XF_BODY();
	if (geteuid() != 0)
		SKIP(return, "needs root to become another user");
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES,
			    MPICHAN_REGION_WRITE, &u.r));
	EXPECT_EQ(0, run_child(child_use, &u));
	/* With CAP_SYS_ADMIN another user may. */
	u.want = 0;
	u.keep_admin = 1;
	EXPECT_EQ(0, run_child(child_use, &u));
	EXPECT_EQ(0xee, self->buf[8]);
	/* The same user needs no capability. */
	mc_fill(self->buf, 1, BUF_BYTES);
	u.uid = 0;
	u.keep_admin = 0;
	u.drop_admin = 1;
	EXPECT_EQ(0, run_child(child_use, &u));
	EXPECT_EQ(0xee, self->buf[8]);
	EXPECT_EQ(0, rg_dereg(self->fd, u.r.handle));
}

/* ---- mappings ---------------------------------------------------------- */

TEST_F(reg, map_read_only)
{
	struct mpichan_region_reg a;
	unsigned char *m;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES, 0, &a));
	EXPECT_EQ(MAP_FAILED, rg_mmap(self->fd, &a, 0, BUF_BYTES,
				      PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	m = rg_mmap(self->fd, &a, 0, BUF_BYTES, PROT_READ);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(1, mc_stat("region_maps"));
	EXPECT_EQ(0, memcmp(m, self->buf, BUF_BYTES));
	/* The owner's stores show: the same pages. */
	self->buf[5 * RG_PAGE + 3] = 0x42;
	EXPECT_EQ(0x42, m[5 * RG_PAGE + 3]);
	EXPECT_EQ(-1, mprotect(m, BUF_BYTES, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(SIGSEGV, rg_probe_write(m, 1));
	EXPECT_EQ(mc_pattern(1, 0), self->buf[0]);
	EXPECT_EQ(0, munmap(m, BUF_BYTES));
	EXPECT_EQ(0, mc_stat("region_maps"));
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
}

TEST_F(reg, map_writable)
{
	struct mpichan_region_reg a;
	struct mpichan_region_map ma;
	unsigned char *m, *m2;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, BUF_BYTES,
			    MPICHAN_REGION_WRITE, &a));
	m = rg_mmap(self->fd, &a, MPICHAN_REGION_WRITE, BUF_BYTES,
		    PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, m);
	m[100] = 0xab;
	EXPECT_EQ(0xab, self->buf[100]);
	self->buf[BUF_BYTES - 1] = 0xcd;
	EXPECT_EQ(0xcd, m[BUF_BYTES - 1]);
	EXPECT_EQ(0, mprotect(m, BUF_BYTES, PROT_READ));
	EXPECT_EQ(SIGSEGV, rg_probe_write(m + 200, 1));
	EXPECT_EQ(0, mprotect(m, BUF_BYTES, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, rg_probe_write(m + 200, 0x77));
	EXPECT_EQ(0x77, self->buf[200]);
	/* A part of it, read-only; the latest MAP says no writing. */
	m2 = rg_mmap(self->fd, &a, 0, RG_PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, m2);
	EXPECT_EQ(0x77, m2[200]);
	EXPECT_EQ(-1, mprotect(m2, RG_PAGE, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, rg_map(self->fd, a.handle, a.key, 0, &ma));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, RG_PAGE, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, ma.offset));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(2, mc_stat("region_maps"));
	munmap(m2, RG_PAGE);
	munmap(m, BUF_BYTES);
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
}

TEST_F(reg, several_regions_mapped_at_once)
{
	struct mpichan_region_reg a[4];
	unsigned char *m[4];
	int i;

	XF_BODY();
	for (i = 0; i < 4; i++) {
		mc_fill(self->buf + i * 4 * RG_PAGE, 20 + i, 4 * RG_PAGE);
		ASSERT_EQ(0, rg_reg(self->fd, self->buf + i * 4 * RG_PAGE,
				    4 * RG_PAGE, MPICHAN_REGION_WRITE, &a[i]));
		m[i] = rg_mmap(self->fd, &a[i], MPICHAN_REGION_WRITE,
			       4 * RG_PAGE, PROT_READ | PROT_WRITE);
		ASSERT_NE(MAP_FAILED, m[i]);
	}
	EXPECT_EQ(4, mc_stat("region_maps"));
	for (i = 0; i < 4; i++) {
		EXPECT_TRUE(mc_check(m[i], 20 + i, 4 * RG_PAGE)) TH_LOG("region %d", i);
		m[i][i] = 0xf0 + i;
	}
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0xf0 + i, self->buf[i * 4 * RG_PAGE + i]);
	/* One ends, the others stay. */
	EXPECT_EQ(0, rg_dereg(self->fd, a[1].handle));
	EXPECT_EQ(SIGBUS, xf_probe(m[1], NULL));
	EXPECT_EQ(0, xf_probe(m[2] + 5, NULL));
	for (i = 0; i < 4; i++) {
		munmap(m[i], 4 * RG_PAGE);
		if (i != 1)
			EXPECT_EQ(0, rg_dereg(self->fd, a[i].handle));
	}
}

struct share_arg {
	struct mpichan_region_reg r;
	int to[2][2], from[2][2];	/* pipes to and from each child */
};

#define SHARE_ADDS	20000

/* Two processes map the region writable and see each other's stores. */
static int child_share(struct share_arg *s, int me)
{
	volatile uint64_t *ctr;
	unsigned char *m;
	int fd, i;

	fd = mc_open();
	CHILD_CHECK(fd >= 0);
	m = rg_mmap(fd, &s->r, MPICHAN_REGION_WRITE, 4 * RG_PAGE,
		    PROT_READ | PROT_WRITE);
	CHILD_CHECK(m != MAP_FAILED);
	if (me == 0) {
		memset(m + RG_PAGE, 0xa0, RG_PAGE);
		CHILD_CHECK(mc_post(s->from[0][1], 'w') == 0);
		CHILD_CHECK(mc_take(s->to[0][0], 10000) == 'r');
		CHILD_CHECK(xf_all(m + 2 * RG_PAGE, RG_PAGE, 0xb1));
	} else {
		CHILD_CHECK(mc_take(s->to[1][0], 10000) == 'w');
		CHILD_CHECK(xf_all(m + RG_PAGE, RG_PAGE, 0xa0));
		memset(m + 2 * RG_PAGE, 0xb1, RG_PAGE);
		CHILD_CHECK(mc_post(s->from[1][1], 'r') == 0);
	}
	/* Atomics on the same word from both, at the same time. */
	CHILD_CHECK(mc_take(s->to[me][0], 10000) == 'g');
	ctr = (volatile uint64_t *)(m + 3 * RG_PAGE);
	for (i = 0; i < SHARE_ADDS; i++)
		__atomic_fetch_add(ctr, 1, __ATOMIC_RELAXED);
	return 0;
}

static int child_share0(void *p) { return child_share(p, 0); }
static int child_share1(void *p) { return child_share(p, 1); }

TEST_F(reg, two_processes_share_a_mapping)
{
	struct share_arg s;
	pid_t pid[2];
	int i, c;

	XF_BODY();
	memset(self->buf, 0, 4 * RG_PAGE);
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, 4 * RG_PAGE,
			    MPICHAN_REGION_WRITE, &s.r));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pipe(s.to[i]));
		ASSERT_EQ(0, pipe(s.from[i]));
	}
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			_exit((i ? child_share1 : child_share0)(&s));
	}
	/* Relay: 0 wrote, 1 read and wrote. */
	c = mc_take(s.from[0][0], 10000);
	EXPECT_EQ('w', c);
	mc_post(s.to[1][1], c);
	c = mc_take(s.from[1][0], 10000);
	EXPECT_EQ('r', c);
	mc_post(s.to[0][1], c);
	mc_post(s.to[0][1], 'g');
	mc_post(s.to[1][1], 'g');
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, mc_reap(pid[i]));
	EXPECT_EQ(2 * SHARE_ADDS, *(uint64_t *)(self->buf + 3 * RG_PAGE));
	EXPECT_TRUE(xf_all(self->buf + RG_PAGE, RG_PAGE, 0xa0));
	EXPECT_TRUE(xf_all(self->buf + 2 * RG_PAGE, RG_PAGE, 0xb1));
	for (i = 0; i < 2; i++) {
		close(s.to[i][0]);
		close(s.to[i][1]);
		close(s.from[i][0]);
		close(s.from[i][1]);
	}
	EXPECT_EQ(0, rg_dereg(self->fd, s.r.handle));
}

TEST_F(reg, partial_pages_by_copy_only)
{
	struct mpichan_region_reg a, one, tiny;
	unsigned char *m;

	XF_BODY();
	/* [100, 100 + 3 pages): whole pages 1 and 2 only. */
	ASSERT_EQ(0, rg_reg(self->fd, self->buf + 100, 3 * RG_PAGE,
			    MPICHAN_REGION_WRITE, &a));
	EXPECT_EQ(RG_PAGE - 100, a.map_start);
	EXPECT_EQ(2 * RG_PAGE, a.map_len);
	EXPECT_EQ(MAP_FAILED, rg_mmap(self->fd, &a, 0, 3 * RG_PAGE, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	m = rg_mmap(self->fd, &a, MPICHAN_REGION_WRITE, 2 * RG_PAGE,
		    PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(0, memcmp(m, self->buf + RG_PAGE, 2 * RG_PAGE));
	/* The partial pages' bytes, by copy. */
	EXPECT_EQ(0, rg_get(self->fd, &a, 0, self->loc, 3 * RG_PAGE));
	EXPECT_EQ(0, memcmp(self->loc, self->buf + 100, 3 * RG_PAGE));
	EXPECT_EQ(-EINVAL, rg_get(self->fd, &a, 0, self->loc, 3 * RG_PAGE + 1));
	munmap(m, 2 * RG_PAGE);
	/* Two pages from byte 1: one whole page. */
	ASSERT_EQ(0, rg_reg(self->fd, self->buf + 1, 2 * RG_PAGE, 0, &one));
	EXPECT_EQ(RG_PAGE - 1, one.map_start);
	EXPECT_EQ(RG_PAGE, one.map_len);
	m = rg_mmap(self->fd, &one, 0, RG_PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(0, memcmp(m, self->buf + RG_PAGE, RG_PAGE));
	munmap(m, RG_PAGE);
	/* A page's worth straddling two pages: none whole. */
	ASSERT_EQ(0, rg_reg(self->fd, self->buf + 2048, RG_PAGE, 0, &tiny));
	EXPECT_EQ(0, tiny.map_len);
	EXPECT_EQ(0, tiny.map_start);
	EXPECT_EQ(-EINVAL, rg_map(self->fd, tiny.handle, tiny.key, 0, NULL));
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
	EXPECT_EQ(0, rg_dereg(self->fd, one.handle));
	EXPECT_EQ(0, rg_dereg(self->fd, tiny.handle));
}

static int child_probe_unmapped(void *p)
{
	/* A forked child does not inherit the mapping. */
	return xf_probe(p, NULL) == SIGSEGV ? 0 : 1;
}

TEST_F(reg, mmap_rules)
{
	struct mpichan_region_reg a, b;
	struct mpichan_region_map ma, mb;
	unsigned char *m;
	void *p;
	int other;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, 4 * RG_PAGE,
			    MPICHAN_REGION_WRITE, &a));
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, 4 * RG_PAGE, 0, &b));
	ASSERT_EQ(0, rg_map(self->fd, a.handle, a.key, MPICHAN_REGION_WRITE,
			    &ma));
	EXPECT_LE(MPICHAN_REGION_OFFSET, ma.offset);
	EXPECT_EQ(0, (ma.offset - MPICHAN_REGION_OFFSET) % MPICHAN_REGION_MAX_BYTES);
	EXPECT_EQ(0, ma.map_start);
	EXPECT_EQ(4 * RG_PAGE, ma.map_len);
	p = mmap(NULL, RG_PAGE, PROT_READ, MAP_PRIVATE, self->fd, ma.offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, RG_PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd,
		 ma.offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	/* Inside a slot, overlapping the next, past the region. */
	p = mmap(NULL, RG_PAGE, PROT_READ, MAP_SHARED, self->fd,
		 ma.offset + RG_PAGE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, RG_PAGE, PROT_READ, MAP_SHARED, self->fd,
		 ma.offset + MPICHAN_REGION_MAX_BYTES - RG_PAGE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 5 * RG_PAGE, PROT_READ, MAP_SHARED, self->fd, ma.offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* A region this fd was not granted, one that is not. */
	other = mc_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, rg_map(other, b.handle, b.key, 0, &mb));
	p = mmap(NULL, RG_PAGE, PROT_READ, MAP_SHARED, self->fd, mb.offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, RG_PAGE, PROT_READ, MAP_SHARED, other, mb.offset);
	EXPECT_NE(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, RG_PAGE);
	close(other);
	p = mmap(NULL, RG_PAGE, PROT_READ, MAP_SHARED, self->fd,
		 MPICHAN_REGION_OFFSET + 0xfffff0ULL * MPICHAN_REGION_MAX_BYTES);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);
	/* One piece: not split, moved, grown or made executable. */
	m = mmap(NULL, 4 * RG_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, ma.offset);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(-1, munmap(m + RG_PAGE, RG_PAGE));
	EXPECT_EQ(-1, mprotect(m, RG_PAGE, PROT_READ));
	EXPECT_EQ(-1, mprotect(m, 4 * RG_PAGE, PROT_READ | PROT_EXEC));
	EXPECT_EQ(MAP_FAILED, mremap(m, 4 * RG_PAGE, 8 * RG_PAGE, MREMAP_MAYMOVE));
	p = mmap(NULL, 4 * RG_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(MAP_FAILED, mremap(m, 4 * RG_PAGE, 4 * RG_PAGE,
				     MREMAP_MAYMOVE | MREMAP_FIXED, p));
	munmap(p, 4 * RG_PAGE);
	EXPECT_EQ(0, xf_probe(m + 3 * RG_PAGE, NULL));
	EXPECT_EQ(0, run_child(child_probe_unmapped, m));
	EXPECT_EQ(1, mc_stat("region_maps"));
	EXPECT_EQ(0, munmap(m, 4 * RG_PAGE));
	EXPECT_EQ(0, rg_dereg(self->fd, a.handle));
	EXPECT_EQ(0, rg_dereg(self->fd, b.handle));
}

TEST_F(reg, a_dead_mapping_as_copy_buffer_faults)
{
	struct mpichan_region_reg a, b;
	unsigned char *m;
	uint32_t done;
	uint64_t bytes;
	struct mpichan_rcopy e;

	XF_BODY();
	ASSERT_EQ(0, rg_reg(self->fd, self->buf, 4 * RG_PAGE,
			    MPICHAN_REGION_WRITE, &a));
	ASSERT_EQ(0, rg_reg(self->fd, self->buf + 8 * RG_PAGE, 4 * RG_PAGE,
			    MPICHAN_REGION_WRITE, &b));
	m = rg_mmap(self->fd, &a, MPICHAN_REGION_WRITE, 4 * RG_PAGE,
		    PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, m);
	/* Region to region through a mapping: fine while it lives. */
	EXPECT_EQ(0, rg_get(self->fd, &b, 0, m, 4 * RG_PAGE));
	EXPECT_EQ(0, memcmp(self->buf, self->buf + 8 * RG_PAGE, 4 * RG_PAGE));
	ASSERT_EQ(0, rg_dereg(self->fd, a.handle));
	e = rg_entry(&b, 0, m, RG_PAGE, 0);
	EXPECT_EQ(-EFAULT, rg_copyv(self->fd, &e, 1, &done, &bytes));
	EXPECT_EQ(0, bytes);
	e.flags = MPICHAN_RCOPY_PUT;
	EXPECT_EQ(-EFAULT, rg_copyv(self->fd, &e, 1, &done, &bytes));
	munmap(m, 4 * RG_PAGE);
	EXPECT_EQ(0, rg_dereg(self->fd, b.handle));
}

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

static int have_cap(cap_value_t cap)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t c = cap_get_proc();

	if (!c)
		return 0;
	cap_get_flag(c, cap, CAP_EFFECTIVE, &v);
	cap_free(c);
	return v == CAP_SET;
}

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
	if (getuid() != 0 || !have_cap(CAP_IPC_LOCK))
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
