// SPDX-License-Identifier: GPL-2.0
/*
 * Copies by key (REGION_COPY): a batch of entries, each between a
 * region named by (handle, key) and the caller's memory, one kernel
 * copy a page at a time over the region's pinned pages.
 */

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/mpichan.h>

#include "debugfs.h"
#include "job.h"
#include "pin.h"
#include "region.h"
#include "region_internal.h"

/*
 * The region of a batch's entry: the previous entry's if it names it.
 * Its counters are added up here and go to the region (and the module's
 * stats) once it changes or the batch ends, not once per entry.
 */
struct rcopy_cursor {
	struct mpichan_region *r;
	u64 handle;
	u64 key;
	u64 copies;
	u64 bytes_in;
	u64 bytes_out;
};

static void rcopy_flush(struct rcopy_cursor *cur)
{
	struct mpichan_region *r = cur->r;

	if (!r)
		return;
	atomic64_add(cur->copies, &r->copies);
	atomic64_add(cur->bytes_in, &r->bytes_in);
	atomic64_add(cur->bytes_out, &r->bytes_out);
	atomic_long_add(cur->copies, &mpichan_stats.region_copies);
	atomic_long_add(cur->bytes_in, &mpichan_stats.region_bytes_in);
	atomic_long_add(cur->bytes_out, &mpichan_stats.region_bytes_out);
	cur->copies = cur->bytes_in = cur->bytes_out = 0;
	region_put(r);
	cur->r = NULL;
}

static int rcopy_region(struct rcopy_cursor *cur, u64 handle, u64 key)
{
	struct mpichan_region *r;
	int ret;

	if (cur->r && cur->handle == handle && cur->key == key)
		return 0;
	r = region_open(handle, key, &ret);
	if (!r)
		return ret;
	rcopy_flush(cur);
	cur->r = r;
	cur->handle = handle;
	cur->key = key;
	return 0;
}

/*
 * Bytes [off, off + len) of r to or from the iterator, a page at a
 * time; *moved counts them.  0, -EFAULT when the caller's memory
 * faulted, -EINTR on a fatal signal.
 */
static int region_copy_pages(struct mpichan_region *r, u64 off, size_t len,
			     struct iov_iter *it, bool put, size_t *moved)
{
	u64 at = offset_in_page(r->start) + off;
	unsigned int n_pages = 0;

	while (*moved < len) {
		struct page *page = r->pages[at >> PAGE_SHIFT];
		size_t po = offset_in_page(at);
		size_t n = min_t(size_t, PAGE_SIZE - po, len - *moved);
		size_t c = put ? copy_page_from_iter(page, po, n, it) :
				 copy_page_to_iter(page, po, n, it);

		*moved += c;
		at += c;
		if (c < n)
			return -EFAULT;
		if (++n_pages % REGION_COPY_BATCH == 0) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	return 0;
}

static int rcopy_one(struct rcopy_cursor *cur, const struct mpichan_rcopy *e,
		     size_t *moved)
{
	bool put = e->flags & MPICHAN_RCOPY_PUT;
	bool vec = e->flags & MPICHAN_RCOPY_IOV;
	int dir = put ? ITER_SOURCE : ITER_DEST;
	struct mpichan_region *r;
	struct mpichan_uiov u;
	struct iov_iter one_it;
	struct iov_iter *it;
	struct iovec one;
	int ret;

	*moved = 0;
	if ((e->flags & ~(MPICHAN_RCOPY_PUT | MPICHAN_RCOPY_IOV)) ||
	    (vec ? !e->iovcnt || e->iovcnt > MPICHAN_IOV_MAX : e->iovcnt) ||
	    e->len > MAX_RW_COUNT)
		return -EINVAL;
	ret = rcopy_region(cur, e->handle, e->key);
	if (ret)
		return ret;
	r = cur->r;
	if (put && !r->writable)
		return -EACCES;
	if (e->offset > r->len || e->len > r->len - e->offset)
		return -EINVAL;
	if (vec) {
		ret = mpichan_uiov_import(&u, e->addr, e->iovcnt, dir);
		if (ret)
			return ret;
		it = &u.iter;
		if (iov_iter_count(it) != e->len) {
			ret = -EINVAL;
			goto out_free;
		}
	} else {
		one.iov_base = u64_to_user_ptr(e->addr);
		one.iov_len = e->len;
		iov_iter_init(&one_it, dir, &one, 1, e->len);
		it = &one_it;
	}
	/* After an invalidation of the owner's memory: its verdict first. */
	while ((ret = region_enter(r, false)) == -EAGAIN) {
		ret = region_wait_checked(r);
		if (ret)
			goto out_free;
	}
	if (ret) {
		/* It went stale since the lookup: -ESTALE only once zapped. */
		if (ret == -ESTALE)
			region_zap(r);
		goto out_free;
	}
	ret = region_copy_pages(r, e->offset, e->len, it, put, moved);
	region_leave(r);
	cur->copies++;
	if (put)
		cur->bytes_in += *moved;
	else
		cur->bytes_out += *moved;
out_free:
	if (vec)
		mpichan_uiov_free(&u);
	return ret;
}

int mpichan_region_copy(struct mpichan_file *mf,
			struct mpichan_region_copy *c)
{
	struct mpichan_rcopy __user *ue = u64_to_user_ptr(c->entries);
	struct rcopy_cursor cur = { };
	struct mpichan_rcopy e;
	size_t moved;
	int ret = 0;
	u32 i;

	c->done = 0;
	c->bytes = 0;
	if (c->flags || c->pad || !c->count ||
	    c->count > MPICHAN_REGION_COPY_MAX)
		return -EINVAL;
	for (i = 0; i < c->count; i++) {
		if (copy_from_user(&e, &ue[i], sizeof(e))) {
			ret = -EFAULT;
			break;
		}
		ret = rcopy_one(&cur, &e, &moved);
		c->bytes += moved;
		if (ret)
			break;
		c->done++;
	}
	rcopy_flush(&cur);
	return ret;
}
