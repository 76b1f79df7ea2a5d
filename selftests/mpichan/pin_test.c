// SPDX-License-Identifier: GPL-2.0
/*
 * Pinned pages are charged to the user's RLIMIT_MEMLOCK unless the
 * caller has CAP_IPC_LOCK.  Each case runs in a helper process that
 * lowers its own limit (and drops the capability with libcap), creates
 * its own job and reports through its exit status.  The cases count
 * the pages of each transfer, so the pin cache is off here; the charge
 * of cached buffers is pincache_test's.
 */
#include "kselftest_harness.h"
#include "xfer_helpers.h"

#define LIMIT	(64 * 1024)

FIXTURE(pin) {
	long pin_cache;		/* to restore */
};

FIXTURE_SETUP(pin)
{
	self->pin_cache = 0;
	MC_REQUIRE_DEVICE();
	if (!mc_debugfs_present())
		SKIP(return, "%s absent: is debugfs mounted?", MC_DEBUGFS);
	ASSERT_EQ(0, mc_stat("pinned_pages"));
	self->pin_cache = xf_pin_cache_off();
	if (self->pin_cache == -EACCES)
		SKIP(return, "needs root to turn the pin cache off");
	ASSERT_LE(0, self->pin_cache);
}

FIXTURE_TEARDOWN(pin)
{
	xf_pin_cache_restore(self->pin_cache);
	if (!_metadata->skip)
		EXPECT_EQ(0, mc_stat("pinned_pages"));
}

static void child_limit(int keep_cap)
{
	struct rlimit rl = { LIMIT, LIMIT };

	if (!keep_cap)
		CHILD_CHECK(mc_drop_cap(CAP_IPC_LOCK) == 0);
	CHILD_CHECK(mc_have_cap(CAP_IPC_LOCK) == keep_cap);
	CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
}

/* Over the limit without CAP_IPC_LOCK: ENOMEM, nothing pinned. */
static void child_over_limit(void)
{
	size_t big = 1 << 20;
	unsigned char *sb = xf_alloc(big), *rb = xf_alloc(big);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	struct xf x;

	child_limit(0);
	CHILD_CHECK(sb && rb);
	CHILD_CHECK(xf_open(&x, 2) == 0);
	mc_fill(sb, 1, big);
	CHILD_CHECK(xf_send(&x.e[1], sb, big, 0, 0, 0, 0, &s) == -ENOMEM);
	CHILD_CHECK(xf_recv(&x.e[0], rb, big, 1, 0, 0, 0, 0, 0, &r) == -ENOMEM);
	CHILD_CHECK(mc_stat("pinned_pages") == 0);
	CHILD_CHECK(xf_cq_count(&x.e[0]) == 0 && xf_cq_count(&x.e[1]) == 0);
	/* A small one works. */
	CHILD_CHECK(xf_send(&x.e[1], sb, 4096, 0, 0, 0, 0, &s) == 0);
	CHILD_CHECK(s.status == MPICHAN_XFER_QUEUED);
	CHILD_CHECK(xf_recv(&x.e[0], rb, big, 1, 0, 0, 0, 0, 0, &r) == 0);
	CHILD_CHECK(r.status == MPICHAN_XFER_DONE && r.len == 4096);
	CHILD_CHECK(mc_check(rb, 1, 4096));
	CHILD_CHECK(xf_cq_pop(&x.e[1], &c) == 1 && c.status == 0);
	/* The big one is fine when the copy happens in the call. */
	CHILD_CHECK(xf_recv(&x.e[0], rb, 4096, 1, 0, 0, 0, 0, 0, &r) == 0);
	CHILD_CHECK(r.status == MPICHAN_XFER_QUEUED);
	CHILD_CHECK(xf_send(&x.e[1], sb, big, 0, 0, 0, 0, &s) == 0);
	CHILD_CHECK(s.status == MPICHAN_XFER_DONE && s.len == 4096);
	CHILD_CHECK(mc_stat("pinned_pages") == 0);
	xf_close(&x);
	_exit(0);
}

/* The charge is the sum of what is pinned, and goes back when released. */
static void child_accounting(void)
{
	size_t lim_pages = LIMIT / 4096;
	unsigned char *sb = xf_alloc(LIMIT + 4096);
	struct mpichan_send s1, s2, s3;
	struct mpichan_recv r;
	struct xf x;
	int round;

	child_limit(0);
	CHILD_CHECK(sb != NULL);
	for (round = 0; round < 2; round++) {
		CHILD_CHECK(xf_open(&x, 2) == 0);
		/* All but one page of the limit. */
		CHILD_CHECK(xf_send(&x.e[1], sb, (lim_pages - 1) * 4096, 0, 0,
				    0, 0, &s1) == 0);
		CHILD_CHECK(mc_stat("pinned_pages") == (long)lim_pages - 1);
		/* Two more pages: over. One unaligned byte spans two pages. */
		CHILD_CHECK(xf_send(&x.e[1], sb, 8192, 0, 0, 1, 0, &s2) == -ENOMEM);
		CHILD_CHECK(xf_send(&x.e[1], sb + 4095, 2, 0, 0, 1, 0, &s2) == -ENOMEM);
		/* One more: exactly the limit. */
		CHILD_CHECK(xf_send(&x.e[1], sb, 100, 0, 0, 1, 0, &s2) == 0);
		CHILD_CHECK(xf_send(&x.e[1], sb, 1, 0, 0, 1, 0, &s3) == -ENOMEM);
		/* A cancel gives its pages back. */
		CHILD_CHECK(xf_cancel(x.e[1].fd, s2.handle) == 0);
		CHILD_CHECK(xf_send(&x.e[1], sb + 4095, 1, 0, 0, 1, 0, &s3) == 0);
		/* So does a completed receive. */
		CHILD_CHECK(xf_recv(&x.e[0], sb + LIMIT, 4096, 1, 0, 1,
				    MPICHAN_RECV_NOQUEUE, 0, 0, &r) == 0);
		CHILD_CHECK(xf_send(&x.e[1], sb, 4096, 0, 0, 1, 0, &s3) == 0);
		/*
		 * Closing with sends still queued gives everything back: the
		 * second round starts from nothing again.
		 */
		xf_close(&x);
		CHILD_CHECK(mc_stat("pinned_pages") == 0);
	}
	_exit(0);
}

/* With CAP_IPC_LOCK, the limit does not apply. */
static void child_with_cap(void)
{
	size_t big = 1 << 20;
	unsigned char *sb = xf_alloc(big), *rb = xf_alloc(big);
	struct mpichan_send s;
	struct mpichan_recv r;
	struct mpichan_cqe c;
	struct xf x;

	child_limit(1);
	CHILD_CHECK(sb && rb);
	CHILD_CHECK(xf_open(&x, 2) == 0);
	mc_fill(sb, 2, big);
	CHILD_CHECK(xf_send(&x.e[1], sb, big, 0, 0, 0, 0, &s) == 0);
	CHILD_CHECK(s.status == MPICHAN_XFER_QUEUED);
	CHILD_CHECK(mc_stat("pinned_pages") == (long)(big / 4096));
	CHILD_CHECK(xf_recv(&x.e[0], rb, big, 1, 0, 0, 0, 0, 0, &r) == 0);
	CHILD_CHECK(r.status == MPICHAN_XFER_DONE && r.len == big);
	CHILD_CHECK(mc_check(rb, 2, big));
	CHILD_CHECK(xf_cq_pop(&x.e[1], &c) == 1 && c.len == big);
	CHILD_CHECK(xf_recv(&x.e[0], rb, big, 1, 0, 0, 0, 0, 0, &r) == 0);
	CHILD_CHECK(r.status == MPICHAN_XFER_QUEUED);
	CHILD_CHECK(xf_cancel(x.e[0].fd, r.handle) == 0);
	xf_close(&x);
	_exit(0);
}

static int run_child(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		fn();
	return mc_reap(pid);
}

TEST_F(pin, memlock_limit_enomem)
{
	if (_metadata->skip)
		return;
	if (getuid() != 0 || !mc_have_cap(CAP_IPC_LOCK))
		SKIP(return, "needs root with CAP_IPC_LOCK to drop it");
	EXPECT_EQ(0, run_child(child_over_limit));
}

TEST_F(pin, memlock_accounting)
{
	if (_metadata->skip)
		return;
	if (getuid() != 0 || !mc_have_cap(CAP_IPC_LOCK))
		SKIP(return, "needs root with CAP_IPC_LOCK to drop it");
	EXPECT_EQ(0, run_child(child_accounting));
}

TEST_F(pin, cap_ipc_lock_lifts_limit)
{
	if (_metadata->skip)
		return;
	if (!mc_have_cap(CAP_IPC_LOCK))
		SKIP(return, "needs CAP_IPC_LOCK");
	EXPECT_EQ(0, run_child(child_with_cap));
}

TEST_HARNESS_MAIN
