// SPDX-License-Identifier: GPL-2.0
/*
 * User buffers for large transfers: pinning them (charged to the
 * user's RLIMIT_MEMLOCK as io_uring and RDMA do), and the single copy
 * between pinned pages and the other side's user buffer.
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mpichan.h>

#include "debugfs.h"
#include "pin.h"
#include "pincache.h"

/* Copy and check a user iovec: lengths must add up without overflow. */
static struct iovec *iov_import(u64 uptr, u32 cnt, size_t *total)
{
	struct mpichan_iovec __user *uiov = u64_to_user_ptr(uptr);
	struct mpichan_iovec v;
	struct iovec *iov;
	size_t sum = 0;
	int ret;
	u32 i;

	if (cnt > MPICHAN_IOV_MAX)
		return ERR_PTR(-EINVAL);
	iov = kvmalloc_array(max(cnt, 1U), sizeof(*iov), GFP_KERNEL_ACCOUNT);
	if (!iov)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < cnt; i++) {
		if (copy_from_user(&v, &uiov[i], sizeof(v))) {
			ret = -EFAULT;
			goto err_free_iov;
		}
		if (v.len > MAX_RW_COUNT || check_add_overflow(sum, (size_t)v.len, &sum) ||
		    sum > MAX_RW_COUNT) {
			ret = -EINVAL;
			goto err_free_iov;
		}
		iov[i].iov_base = u64_to_user_ptr(v.base);
		iov[i].iov_len = v.len;
	}
	*total = sum;
	return iov;

err_free_iov:
	kvfree(iov);
	return ERR_PTR(ret);
}

int mpichan_uiov_import(struct mpichan_uiov *u, u64 uptr, u32 cnt, int dir)
{
	size_t total;

	u->iov = iov_import(uptr, cnt, &total);
	if (IS_ERR(u->iov))
		return PTR_ERR(u->iov);
	iov_iter_init(&u->iter, dir, u->iov, cnt, total);
	return 0;
}

void mpichan_uiov_free(struct mpichan_uiov *u)
{
	kvfree(u->iov);
}

/* io_uring's rule: pinned pages count against RLIMIT_MEMLOCK. */
static int account_pages(struct user_struct *user, unsigned long n)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	unsigned long cur = atomic_long_read(&user->locked_vm);

	do {
		if (cur + n > limit || cur + n < cur)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, cur + n));
	return 0;
}

/*
 * Charge n pages to the calling user (*userp, NULL when nothing was
 * charged).  Over the limit, idle cached send buffers of rank's job are
 * released first: the cache never costs a transfer its pins.
 */
int mpichan_pin_charge(struct user_struct **userp, unsigned long n,
		       struct mpichan_rank *rank)
{
	struct user_struct *user;
	int ret;

	*userp = NULL;
	if (!n || capable(CAP_IPC_LOCK))
		return 0;
	user = get_uid(current_user());
	while ((ret = account_pages(user, n)) == -ENOMEM && rank &&
	       mpichan_pcache_reclaim(rank, user))
		;
	if (ret) {
		free_uid(user);
		return ret;
	}
	*userp = user;
	return 0;
}

void mpichan_pin_uncharge(struct user_struct *user, unsigned long n)
{
	if (!user)
		return;
	atomic_long_sub(n, &user->locked_vm);
	free_uid(user);
}

/* Lay out the segments and count the pages they span. */
static int pin_layout(struct mpichan_pin *p, const struct iovec *iov, u32 cnt)
{
	unsigned long npages = 0;
	u32 i, s = 0;

	p->segs = kvmalloc_array(max(cnt, 1U), sizeof(*p->segs),
				 GFP_KERNEL_ACCOUNT);
	if (!p->segs)
		return -ENOMEM;
	for (i = 0; i < cnt; i++) {
		unsigned long base = (unsigned long)iov[i].iov_base;
		size_t len = iov[i].iov_len;

		if (!len)
			continue;
		p->segs[s].first = npages;
		p->segs[s].offset = offset_in_page(base);
		p->segs[s].len = len;
		npages += DIV_ROUND_UP(offset_in_page(base) + len, PAGE_SIZE);
		p->len += len;
		s++;
	}
	p->nsegs = s;
	p->npages = npages;
	return 0;
}

/* Pin n pages of the caller's memory from start (page aligned). */
int mpichan_pin_pages(unsigned long start, unsigned long n, bool write,
		      struct page **pages)
{
	unsigned int gup = FOLL_LONGTERM | (write ? FOLL_WRITE : 0);
	unsigned long done = 0;
	long got;

	while (done < n) {
		got = pin_user_pages_fast(start + done * PAGE_SIZE,
					  min_t(unsigned long, n - done, INT_MAX),
					  gup, pages + done);
		if (got <= 0) {
			unpin_user_pages(pages, done);
			return got ? got : -EFAULT;
		}
		done += got;
	}
	return 0;
}

static int pin_segments(struct mpichan_pin *p, const struct iovec *iov, u32 cnt)
{
	u32 i, s = 0;
	int ret;

	for (i = 0; i < cnt; i++) {
		unsigned long base = (unsigned long)iov[i].iov_base;
		const struct mpichan_seg *seg = &p->segs[s];
		unsigned long n;

		if (!iov[i].iov_len)
			continue;
		n = DIV_ROUND_UP(seg->offset + seg->len, PAGE_SIZE);
		ret = mpichan_pin_pages(base & PAGE_MASK, n, p->write,
					p->pages + seg->first);
		if (ret) {
			unpin_user_pages(p->pages, seg->first);
			return ret;
		}
		s++;
	}
	return 0;
}

/*
 * A send of one segment takes its pages from the rank's cache of
 * pinned send buffers: 1 when it did, 0 when the caller pins them
 * itself, or -errno.
 */
static int pin_cached(struct mpichan_pin *p, const struct iovec *iov, u32 cnt,
		      struct mpichan_rank *rank)
{
	struct mpichan_pcache_entry *e;
	unsigned long base = 0;
	u32 i;

	if (p->write || !rank || p->nsegs != 1)
		return 0;
	for (i = 0; i < cnt; i++)
		if (iov[i].iov_len)
			base = (unsigned long)iov[i].iov_base & PAGE_MASK;
	e = mpichan_pcache_pin(rank, base, p->npages, &p->pages);
	if (IS_ERR(e))
		return PTR_ERR(e);
	p->entry = e;
	return e ? 1 : 0;
}

/*
 * Pin the user buffer described by the iovec at uptr for rank (NULL:
 * no cache, no reclaim).  write: the pages will be written (the buffer
 * of a receive).
 */
int mpichan_pin_iov(struct mpichan_pin *p, u64 uptr, u32 cnt, bool write,
		    struct mpichan_rank *rank)
{
	struct iovec *iov;
	size_t total;
	int ret;

	memset(p, 0, sizeof(*p));
	p->write = write;
	iov = iov_import(uptr, cnt, &total);
	if (IS_ERR(iov))
		return PTR_ERR(iov);
	ret = pin_layout(p, iov, cnt);
	if (ret)
		goto err_free_iov;
	ret = pin_cached(p, iov, cnt, rank);
	if (ret < 0)
		goto err_free_segs;
	if (ret > 0) {
		/* The cache's pages, pins and charge. */
		kvfree(iov);
		return 0;
	}
	ret = mpichan_pin_charge(&p->user, p->npages, rank);
	if (ret)
		goto err_free_segs;
	p->pages = kvmalloc_array(max(p->npages, 1UL), sizeof(*p->pages),
				  GFP_KERNEL_ACCOUNT);
	if (!p->pages) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ret = pin_segments(p, iov, cnt);
	if (ret)
		goto err_free_pages;
	atomic_long_add(p->npages, &mpichan_stats.pinned_pages);
	kvfree(iov);
	return 0;

err_free_pages:
	kvfree(p->pages);
err_uncharge:
	mpichan_pin_uncharge(p->user, p->npages);
err_free_segs:
	kvfree(p->segs);
err_free_iov:
	kvfree(iov);
	/* Nothing pinned: p is as mpichan_unpin() leaves it. */
	memset(p, 0, sizeof(*p));
	return ret;
}

void mpichan_unpin(struct mpichan_pin *p)
{
	if (p->entry) {
		mpichan_pcache_put(p->entry);
	} else if (p->pages) {
		unpin_user_pages_dirty_lock(p->pages, p->npages, p->write);
		atomic_long_sub(p->npages, &mpichan_stats.pinned_pages);
		kvfree(p->pages);
	}
	mpichan_pin_uncharge(p->user, p->npages);
	kvfree(p->segs);
	memset(p, 0, sizeof(*p));
}

/*
 * Walk bytes [off, off + len) of the pinned message in order, handing
 * each piece to fn.  Returns the bytes moved, or -EFAULT when the user
 * side of the copy faulted.
 */
static ssize_t pin_walk(const struct mpichan_pin *p, u64 off, size_t len,
			struct iov_iter *it,
			size_t (*fn)(struct page *, size_t, size_t,
				     struct iov_iter *))
{
	size_t moved = 0;
	u32 s;

	for (s = 0; s < p->nsegs && moved < len; s++) {
		const struct mpichan_seg *seg = &p->segs[s];
		u64 at, left = seg->len;
		unsigned long pg;

		if (off >= left) {
			off -= left;
			continue;
		}
		at = seg->offset + off;
		left -= off;
		off = 0;
		pg = seg->first + (at >> PAGE_SHIFT);
		at = offset_in_page(at);
		while (left && moved < len) {
			size_t n = min3(PAGE_SIZE - (size_t)at, (size_t)left,
					len - moved);
			size_t c = fn(p->pages[pg], at, n, it);

			moved += c;
			if (c < n)
				return -EFAULT;
			left -= n;
			at = 0;
			pg++;
			cond_resched();
		}
	}
	return moved;
}

/* The copy a receiver makes: pinned send pages into its buffer. */
ssize_t mpichan_pin_to_iter(const struct mpichan_pin *p, struct iov_iter *to)
{
	return pin_walk(p, 0, min_t(u64, p->len, iov_iter_count(to)), to,
			copy_page_to_iter);
}

/* Bytes [off, off + len) of the message to the iterator's position. */
ssize_t mpichan_pin_range_to_iter(const struct mpichan_pin *p, u64 off,
				  size_t len, struct iov_iter *to)
{
	return pin_walk(p, off, len, to, copy_page_to_iter);
}

/* The copy a sender makes: its buffer into a pinned receive's pages. */
ssize_t mpichan_pin_from_iter(const struct mpichan_pin *p,
			      struct iov_iter *from)
{
	return pin_walk(p, 0, min_t(u64, p->len, iov_iter_count(from)), from,
			copy_page_from_iter);
}
