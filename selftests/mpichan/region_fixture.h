/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture region_test.c and region_life_test.c share: an owner's fd
 * (a plain open, no job), a buffer of BUF_BYTES with pattern 1 and one
 * of local memory, both MADV_DONTFORK, and nothing registered, mapped or
 * pinned before or after; run_child() for the helper processes.
 * Include after kselftest_harness.h.
 */
#ifndef MPICHAN_REGION_FIXTURE_H
#define MPICHAN_REGION_FIXTURE_H

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
static inline int run_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(arg));
	return mc_reap(pid);
}

#endif /* MPICHAN_REGION_FIXTURE_H */
