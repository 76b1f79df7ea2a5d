// SPDX-License-Identifier: GPL-2.0
/*
 * Registered regions (MPICHAN_FEAT_REGION): REGION_REG, _DEREG, _COPY,
 * _MAP (and mmap()), _QUERY.  Copies both ways, batched, with iovecs, at
 * odd offsets; by a process that is no rank of any job; refused to
 * another user; mappings read-only and writable, several at once, shared
 * by two processes; partial pages by copy only; hostile arguments.  The
 * life of a region (its end, its owner's memory changing under it,
 * RLIMIT_MEMLOCK, debugfs) is region_life_test.c's.
 *
 * Exits with KSFT_SKIP when the loaded module has no regions.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "region_fixture.h"

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

/*
 * A job's own memory is no region: pinning it would allocate every page
 * of the job's mapping (gigabytes for a big job) and keep them past the
 * job.  Refused (EFAULT), and no page of the job allocated for it.
 */
TEST_F(reg, the_jobs_memory_is_refused)
{
	const size_t len = 16 << 20;
	struct mc_job job;
	long pages;
	void *p;

	XF_BODY();
	ASSERT_EQ(0, mc_job_create(&job, 64, 65536));
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, job.owner, 0);
	ASSERT_NE(MAP_FAILED, p);
	pages = mc_stat("ring_pages");
	EXPECT_EQ(-EFAULT, rg_reg(self->fd, p, len, 0, NULL));
	EXPECT_EQ(-EFAULT, rg_reg(self->fd, (char *)p + len - RG_PAGE,
				  RG_PAGE, 0, NULL));
	EXPECT_EQ(pages, mc_stat("ring_pages"));
	EXPECT_EQ(0, mc_stat("regions"));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
	/* The mapping itself still works: a look faults its page in. */
	EXPECT_EQ(0, *((volatile unsigned char *)p + len - 1));
	munmap(p, len);
	mc_job_close_owner(&job);
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

int main(int argc, char **argv)
{
	if (!access(MPICHAN_DEVICE, F_OK) && !rg_feature())
		ksft_exit_skip("the loaded module has no MPICHAN_FEAT_REGION\n");
	return test_harness_run(argc, argv);
}
