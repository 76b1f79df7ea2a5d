/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_PIN_H
#define _MPICHAN_PIN_H

#include <linux/types.h>
#include <linux/uio.h>

struct mpichan_iovec;
struct mpichan_pcache_entry;
struct mpichan_rank;
struct page;
struct user_struct;

/* One piece of a message: len bytes from offset in pages[first]. */
struct mpichan_seg {
	u32 first;
	u32 offset;
	u64 len;
};

/* A user buffer pinned for the life of a transfer. */
struct mpichan_pin {
	struct page **pages;
	unsigned long npages;
	struct mpichan_seg *segs;
	u32 nsegs;
	bool write;			/* pages get written (a receive) */
	u64 len;
	struct user_struct *user;	/* charged for npages, or NULL */
	/* pages are a cached entry's, which holds the pins and the charge */
	struct mpichan_pcache_entry *entry;
};

/* A user iovec imported for one copy in the caller's context. */
struct mpichan_uiov {
	struct iovec *iov;
	struct iov_iter iter;
};

int mpichan_uiov_import(struct mpichan_uiov *u, u64 uptr, u32 cnt, int dir);
void mpichan_uiov_free(struct mpichan_uiov *u);
int mpichan_pin_iov(struct mpichan_pin *p, u64 uptr, u32 cnt, bool write,
		    struct mpichan_rank *rank);
void mpichan_unpin(struct mpichan_pin *p);
int mpichan_pin_charge(struct user_struct **userp, unsigned long n,
		       struct mpichan_rank *rank);
void mpichan_pin_uncharge(struct user_struct *user, unsigned long n);
int mpichan_pin_pages(unsigned long start, unsigned long n, bool write,
		      struct page **pages);
ssize_t mpichan_pin_to_iter(const struct mpichan_pin *p, struct iov_iter *to);
ssize_t mpichan_pin_range_to_iter(const struct mpichan_pin *p, u64 off,
				  size_t len, struct iov_iter *to);
ssize_t mpichan_pin_from_iter(const struct mpichan_pin *p,
			      struct iov_iter *from);

#endif /* _MPICHAN_PIN_H */
