// SPDX-License-Identifier: GPL-2.0
/*
 * Large messages: the module's match queues and the single copy.
 *
 * A send that finds no posted receive is pinned and queued on its
 * destination's sendq; a receive that finds no queued send is pinned
 * and queued on its owner's recvq.  Both queues are in posting order
 * and searched from the front, which is MPI's matching order.  Whoever
 * takes a transfer off a queue (under job->xfer_lock) owns it: it does
 * the copy without the lock, then posts the other side's completion.
 */
#include <linux/bitmap.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "cq.h"
#include "job.h"
#include "match.h"
#include "window.h"

static bool recv_takes(const struct mpichan_xfer *recv, u32 src, u32 context,
		       s32 tag)
{
	return recv->context == context &&
	       (recv->peer == MPICHAN_RANK_ANY || recv->peer == src) &&
	       (recv->tag == MPICHAN_TAG_ANY || recv->tag == tag);
}

static struct mpichan_xfer *xfer_alloc(u8 kind, u32 owner, s32 peer,
				       u32 context, s32 tag, u64 user_data)
{
	struct mpichan_xfer *x = kzalloc(sizeof(*x), GFP_KERNEL_ACCOUNT);

	if (!x)
		return NULL;
	INIT_LIST_HEAD(&x->node);
	x->kind = kind;
	x->owner = owner;
	x->peer = peer;
	x->context = context;
	x->tag = tag;
	x->user_data = user_data;
	return x;
}

static void xfer_free(struct mpichan_job *job, struct mpichan_xfer *x)
{
	atomic64_sub(x->pin.npages, &job->ranks[x->owner].pinned);
	mpichan_unpin(&x->pin);
	bitmap_free(x->bound);
	kfree(x);
}

static int xfer_pin(struct mpichan_job *job, struct mpichan_xfer *x, u64 iov,
		    u32 iovcnt)
{
	int ret = mpichan_pin_iov(&x->pin, iov, iovcnt,
				  x->kind == MPICHAN_XFER_RECV,
				  &job->ranks[x->owner]);

	if (!ret)
		atomic64_add(x->pin.npages, &job->ranks[x->owner].pinned);
	return ret;
}

/*
 * Put x at the back of its queue; the caller reserved its CQE.  With
 * xfer_lock held.
 */
static int xfer_queue(struct mpichan_job *job, struct mpichan_xfer *x)
{
	struct mpichan_rank *owner = &job->ranks[x->owner];
	int ret;

	lockdep_assert_held(&job->xfer_lock);
	ret = xa_alloc_cyclic(&job->xfers, &x->id, x, xa_limit_32b,
			      &job->next_xfer, GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		return ret;
	if (x->kind == MPICHAN_XFER_SEND) {
		/* A multi-send is only ever taken by its handle. */
		if (!x->multi)
			list_add_tail(&x->node, &job->ranks[x->peer].sendq);
		owner->queued_sends++;
	} else {
		list_add_tail(&x->node, &owner->recvq);
		owner->queued_recvs++;
	}
	return 0;
}

/* Take x off its queue and its handle; with xfer_lock held. */
static void xfer_unqueue(struct mpichan_job *job, struct mpichan_xfer *x)
{
	struct mpichan_rank *owner = &job->ranks[x->owner];

	lockdep_assert_held(&job->xfer_lock);
	list_del_init(&x->node);
	xa_erase(&job->xfers, x->id);
	if (x->kind == MPICHAN_XFER_SEND)
		owner->queued_sends--;
	else
		owner->queued_recvs--;
}

/* Post x's completion to its owner: called with xfer_lock held. */
static void xfer_complete(struct mpichan_job *job, struct mpichan_xfer *x,
			  s64 moved, u64 msg_len, u32 src, s32 tag)
{
	struct mpichan_rank *owner = &job->ranks[x->owner];
	struct mpichan_cqe e = {
		.user_data = x->user_data,
		.len = moved > 0 ? moved : 0,
		.status = moved < 0 ? moved : 0,
		.src = src,
		.tag = tag,
	};

	lockdep_assert_held(&job->xfer_lock);
	if (x->kind == MPICHAN_XFER_SEND) {
		e.flags = MPICHAN_CQE_SEND;
	} else {
		e.flags = MPICHAN_CQE_RECV;
		if (moved >= 0 && msg_len > moved)
			e.flags |= MPICHAN_CQE_TRUNCATED;
	}
	if (moved > 0)
		atomic64_add(moved, &owner->moved);
	mpichan_cq_post(owner, &e);
}

/*
 * A receive is done with send x: moved bytes, or -errno.  A plain send
 * completes now; a multi-send when its last receive is done.  With
 * xfer_lock held; true when the caller must free x.
 */
static bool xfer_send_done(struct mpichan_job *job, struct mpichan_xfer *x,
			   s64 moved, u32 rank)
{
	lockdep_assert_held(&job->xfer_lock);
	if (!x->multi) {
		xfer_complete(job, x, moved, x->pin.len, rank, x->tag);
		return true;
	}
	if (moved < 0 && !x->err)
		x->err = moved;
	if (--x->active || x->binds_left)
		return false;
	if (!x->orphan)
		xfer_complete(job, x, x->err ? x->err : (s64)x->pin.len,
			      x->pin.len, MPICHAN_RANK_NONE, x->tag);
	return true;
}

/*
 * No more receives take multi-send x (withdrawn, or a rank left); with
 * xfer_lock held.  True when nobody copies from it: the caller frees it.
 */
static bool multi_close(struct mpichan_job *job, struct mpichan_xfer *x,
			s32 err)
{
	lockdep_assert_held(&job->xfer_lock);
	if (x->binds_left) {
		xfer_unqueue(job, x);
		x->binds_left = 0;
	}
	if (!x->err)
		x->err = err;
	if (x->active)
		return false;
	if (!x->orphan)
		xfer_complete(job, x, x->err, 0, MPICHAN_RANK_NONE, x->tag);
	return true;
}

/*
 * A receive takes send x: off its queue, or one receive of a
 * multi-send.  With xfer_lock held.
 */
static void xfer_take(struct mpichan_job *job, struct mpichan_rank *me,
		      struct mpichan_xfer *x)
{
	lockdep_assert_held(&job->xfer_lock);
	if (!x->multi) {
		xfer_unqueue(job, x);
		return;
	}
	__set_bit(me->index, x->bound);
	x->active++;
	if (!--x->binds_left)
		xfer_unqueue(job, x);
}

/* The first receive of dst's that takes the envelope; xfer_lock held. */
static struct mpichan_xfer *find_recv(struct mpichan_rank *dst, u32 src,
				      u32 context, s32 tag)
{
	struct mpichan_xfer *x;

	lockdep_assert_held(&dst->job->xfer_lock);
	list_for_each_entry(x, &dst->recvq, node)
		if (recv_takes(x, src, context, tag))
			return x;
	return NULL;
}

/* The first send queued to me that want takes; xfer_lock held. */
static struct mpichan_xfer *find_send(struct mpichan_rank *me,
				      const struct mpichan_xfer *want)
{
	struct mpichan_xfer *x;

	lockdep_assert_held(&me->job->xfer_lock);
	list_for_each_entry(x, &me->sendq, node)
		if (recv_takes(want, x->owner, x->context, x->tag))
			return x;
	return NULL;
}

/*
 * No match yet for x, a send or a receive of me.  The first time round,
 * reserve x's CQE and pin its buffer, dropping xfer_lock meanwhile: 0,
 * and the caller looks for a match again.  The second time (*reserved),
 * queue it: 1, and the reservation now belongs to the queued transfer.
 * Or -errno, *reserved saying whether the caller still holds one.  With
 * xfer_lock held.
 */
static int xfer_pin_or_queue(struct mpichan_job *job, struct mpichan_rank *me,
			     struct mpichan_xfer *x, u64 iov, u32 iovcnt,
			     bool *reserved)
{
	int ret;

	lockdep_assert_held(&job->xfer_lock);
	if (*reserved) {
		/* Pinned, and still no match: queue it. */
		ret = xfer_queue(job, x);
		if (ret)
			return ret;
		*reserved = false;
		return 1;
	}
	ret = mpichan_cq_reserve(me);
	if (ret)
		return ret;
	*reserved = true;
	/* Pin without the lock; a match may be posted meanwhile. */
	mutex_unlock(&job->xfer_lock);
	ret = xfer_pin(job, x, iov, iovcnt);
	mutex_lock(&job->xfer_lock);
	return ret;
}

/*
 * The sender's copy: its buffer straight into a posted receive's pinned
 * pages; then the receiver's completion.
 */
static int send_into(struct mpichan_job *job, struct mpichan_rank *me,
		     struct mpichan_xfer *recv, struct mpichan_uiov *u,
		     struct mpichan_send *s)
{
	u64 msg_len = iov_iter_count(&u->iter);
	ssize_t moved = mpichan_pin_from_iter(&recv->pin, &u->iter);

	mutex_lock(&job->xfer_lock);
	xfer_complete(job, recv, moved, msg_len, me->index, s->tag);
	mutex_unlock(&job->xfer_lock);
	xfer_free(job, recv);
	if (moved < 0)
		return moved;
	atomic64_add(moved, &me->moved);
	s->status = MPICHAN_XFER_DONE;
	s->len = moved;
	return 0;
}

/*
 * MPICHAN_SEND_MULTI: pinned and queued for its receivers' handles,
 * whatever is posted.
 */
static int send_multi(struct mpichan_job *job, struct mpichan_rank *me,
		      struct mpichan_send *s)
{
	struct mpichan_xfer *x;
	int ret;

	if (!s->dst)
		return -EINVAL;
	if (s->dst >= job->nranks)
		return -ERANGE;
	x = xfer_alloc(MPICHAN_XFER_SEND, me->index, MPICHAN_RANK_NONE,
		       s->context, s->tag, s->user_data);
	if (!x)
		return -ENOMEM;
	x->multi = true;
	x->binds_left = s->dst;
	x->bound = bitmap_zalloc(job->nranks, GFP_KERNEL_ACCOUNT);
	if (!x->bound) {
		ret = -ENOMEM;
		goto err_free_xfer;
	}
	mutex_lock(&job->xfer_lock);
	ret = mpichan_cq_reserve(me);
	mutex_unlock(&job->xfer_lock);
	if (ret)
		goto err_free_xfer;
	ret = xfer_pin(job, x, s->iov, s->iovcnt);
	mutex_lock(&job->xfer_lock);
	/* A death before it is queued would not fail it later. */
	if (!ret && mpichan_peer_gone(job, MPICHAN_RANK_ANY))
		ret = -EPIPE;
	if (!ret)
		ret = xfer_queue(job, x);
	if (ret)
		goto err_unreserve;
	s->status = MPICHAN_XFER_QUEUED;
	s->handle = x->id;
	mutex_unlock(&job->xfer_lock);
	return 0;

err_unreserve:
	/* xfer_lock held */
	mpichan_cq_unreserve(me);
	mutex_unlock(&job->xfer_lock);
err_free_xfer:
	xfer_free(job, x);
	return ret;
}

int mpichan_send(struct mpichan_file *mf, struct mpichan_send *s)
{
	struct mpichan_rank *me = mpichan_file_rank(mf);
	struct mpichan_xfer *x, *recv;
	struct mpichan_uiov u;
	struct mpichan_job *job;
	struct mpichan_rank *dst;
	bool reserved = false;
	int ret;

	if (IS_ERR(me))
		return PTR_ERR(me);
	job = me->job;
	if ((s->flags & ~MPICHAN_SEND_MULTI) || s->tag < 0 ||
	    s->iovcnt > MPICHAN_IOV_MAX)
		return -EINVAL;
	if (s->flags & MPICHAN_SEND_MULTI)
		return send_multi(job, me, s);
	if (s->dst >= job->nranks)
		return -ERANGE;
	dst = &job->ranks[s->dst];
	ret = mpichan_uiov_import(&u, s->iov, s->iovcnt, ITER_SOURCE);
	if (ret)
		return ret;
	x = xfer_alloc(MPICHAN_XFER_SEND, me->index, s->dst, s->context,
		       s->tag, s->user_data);
	if (!x) {
		ret = -ENOMEM;
		goto out_free_uiov;
	}

	mutex_lock(&job->xfer_lock);
	for (;;) {
		if (mpichan_peer_gone(job, s->dst)) {
			ret = -EPIPE;
			break;
		}
		recv = find_recv(dst, me->index, s->context, s->tag);
		if (recv) {
			xfer_unqueue(job, recv);
			if (reserved)
				mpichan_cq_unreserve(me);
			mutex_unlock(&job->xfer_lock);
			ret = send_into(job, me, recv, &u, s);
			goto out_free_xfer;
		}
		ret = xfer_pin_or_queue(job, me, x, s->iov, s->iovcnt,
					&reserved);
		if (ret < 0)
			break;
		if (ret > 0) {
			s->status = MPICHAN_XFER_QUEUED;
			s->handle = x->id;
			x = NULL;
			ret = 0;
			break;
		}
	}
	if (reserved)
		mpichan_cq_unreserve(me);
	mutex_unlock(&job->xfer_lock);
out_free_xfer:
	if (x)
		xfer_free(job, x);
out_free_uiov:
	mpichan_uiov_free(&u);
	return ret;
}

/*
 * The mapped copy: the kernel copies the partial first and last pages,
 * the window gets the whole pages between them.  Returns 1 when the
 * send is now mapped (the receiver owns it until UNMAP), 0 when the
 * plain copy should be used instead, or -errno.
 */
static int recv_map(struct mpichan_job *job, struct mpichan_rank *me,
		    struct mpichan_xfer *send, struct mpichan_uiov *u,
		    struct mpichan_recv *r)
{
	const struct mpichan_pin *p = &send->pin;
	u64 len = min_t(u64, p->len, iov_iter_count(&u->iter));
	u64 head, mapped, tail;
	ssize_t c1, c2;
	int ret = 0;
	long n;
	bool busy;

	if (!(r->flags & MPICHAN_RECV_MAP) || p->nsegs != 1)
		return 0;
	head = p->segs[0].offset ? min_t(u64, PAGE_SIZE - p->segs[0].offset, len) : 0;
	n = (len - head) >> PAGE_SHIFT;
	if (!n)
		return 0;
	/* One mapped receive at a time: the window is the rank's. */
	mutex_lock(&me->win_lock);
	mutex_lock(&job->xfer_lock);
	busy = me->mapped;
	mutex_unlock(&job->xfer_lock);
	if (busy)
		goto out_unlock;
	n = mpichan_window_map(me, p->pages + (head ? 1 : 0), n, p->entry);
	if (n <= 0)
		goto out_unlock;
	mapped = (u64)n << PAGE_SHIFT;
	tail = len - head - mapped;
	c1 = mpichan_pin_range_to_iter(p, 0, head, &u->iter);
	iov_iter_advance(&u->iter, mapped);
	c2 = c1 < 0 ? c1 : mpichan_pin_range_to_iter(p, head + mapped, tail,
						     &u->iter);
	if (c2 < 0) {
		ret = c2;
		goto err_window_done;
	}
	mutex_lock(&job->xfer_lock);
	me->mapped = send;
	me->mapped_pages = n;
	me->mapped_len = len;
	mutex_unlock(&job->xfer_lock);
	mutex_unlock(&me->win_lock);
	r->status = MPICHAN_XFER_MAPPED;
	r->handle = send->id;
	r->len = len;
	r->map_off = head;
	r->map_len = mapped;
	r->msg_len = p->len;
	r->msg_src = send->owner;
	r->msg_tag = send->tag;
	return 1;

err_window_done:
	mpichan_window_done(me, false);
out_unlock:
	/* Not mapped: 0 for the plain copy, or the copy's error. */
	mutex_unlock(&me->win_lock);
	return ret;
}

/* The receiver's copy: a queued send's pinned pages into its buffer. */
static int recv_from(struct mpichan_job *job, struct mpichan_rank *me,
		     struct mpichan_xfer *send, struct mpichan_uiov *u,
		     struct mpichan_recv *r)
{
	ssize_t moved = recv_map(job, me, send, u, r);
	bool last;

	if (moved > 0)
		return 0;
	if (!moved)
		moved = mpichan_pin_to_iter(&send->pin, &u->iter);

	/* A multi-send may be freed by another receive once unlocked. */
	r->msg_len = send->pin.len;
	r->msg_src = send->owner;
	r->msg_tag = send->tag;
	mutex_lock(&job->xfer_lock);
	last = xfer_send_done(job, send, moved, me->index);
	mutex_unlock(&job->xfer_lock);
	if (last)
		xfer_free(job, send);
	if (moved < 0)
		return moved;
	atomic64_add(moved, &me->moved);
	r->status = MPICHAN_XFER_DONE;
	r->len = moved;
	return 0;
}

/* The send a receive takes now, or NULL; with xfer_lock held. */
static struct mpichan_xfer *recv_match(struct mpichan_job *job,
				       struct mpichan_rank *me,
				       const struct mpichan_xfer *want,
				       const struct mpichan_recv *r)
{
	struct mpichan_xfer *x;

	lockdep_assert_held(&job->xfer_lock);
	if (!(r->flags & MPICHAN_RECV_HANDLE))
		return find_send(me, want);
	x = r->handle <= U32_MAX ? xa_load(&job->xfers, r->handle) : NULL;
	if (!x || x->kind != MPICHAN_XFER_SEND)
		return NULL;
	if (!x->multi)
		return x->peer == me->index ? x : NULL;
	if (x->owner == me->index)
		return NULL;
	return test_bit(me->index, x->bound) ? ERR_PTR(-EALREADY) : x;
}

static int recv_check(struct mpichan_job *job, const struct mpichan_recv *r)
{
	if (r->flags & ~(MPICHAN_RECV_HANDLE | MPICHAN_RECV_NOQUEUE |
			 MPICHAN_RECV_MAP))
		return -EINVAL;
	if (r->tag < MPICHAN_TAG_ANY || r->iovcnt > MPICHAN_IOV_MAX)
		return -EINVAL;
	if (r->src < MPICHAN_RANK_ANY || (r->src >= 0 && r->src >= job->nranks))
		return -ERANGE;
	return 0;
}

int mpichan_recv(struct mpichan_file *mf, struct mpichan_recv *r)
{
	struct mpichan_rank *me = mpichan_file_rank(mf);
	struct mpichan_xfer *x, *send;
	struct mpichan_job *job;
	struct mpichan_uiov u;
	bool reserved = false;
	int ret;

	if (IS_ERR(me))
		return PTR_ERR(me);
	job = me->job;
	ret = recv_check(job, r);
	if (ret)
		return ret;
	/* Check the buffer before taking a send that could then be lost. */
	ret = mpichan_uiov_import(&u, r->iov, r->iovcnt, ITER_DEST);
	if (ret)
		return ret;
	x = xfer_alloc(MPICHAN_XFER_RECV, me->index, r->src, r->context,
		       r->tag, r->user_data);
	if (!x) {
		ret = -ENOMEM;
		goto out_free_uiov;
	}

	mutex_lock(&job->xfer_lock);
	for (;;) {
		send = recv_match(job, me, x, r);
		if (IS_ERR(send)) {
			ret = PTR_ERR(send);
			break;
		}
		if (send) {
			xfer_take(job, me, send);
			if (reserved)
				mpichan_cq_unreserve(me);
			mutex_unlock(&job->xfer_lock);
			ret = recv_from(job, me, send, &u, r);
			goto out_free_xfer;
		}
		if (r->flags & MPICHAN_RECV_HANDLE) {
			ret = -ENOENT;
			break;
		}
		if (r->flags & MPICHAN_RECV_NOQUEUE) {
			ret = -ENOMSG;
			break;
		}
		if (r->src >= 0 && mpichan_peer_gone(job, r->src)) {
			ret = -EPIPE;
			break;
		}
		ret = xfer_pin_or_queue(job, me, x, r->iov, r->iovcnt,
					&reserved);
		if (ret < 0)
			break;
		if (ret > 0) {
			r->status = MPICHAN_XFER_QUEUED;
			r->handle = x->id;
			x = NULL;
			ret = 0;
			break;
		}
	}
	if (reserved)
		mpichan_cq_unreserve(me);
	mutex_unlock(&job->xfer_lock);
out_free_xfer:
	if (x)
		xfer_free(job, x);
out_free_uiov:
	mpichan_uiov_free(&u);
	return ret;
}

int mpichan_cancel(struct mpichan_file *mf, struct mpichan_cancel *c)
{
	struct mpichan_rank *me = mpichan_file_rank(mf);
	struct mpichan_xfer *x;
	struct mpichan_job *job;

	if (IS_ERR(me))
		return PTR_ERR(me);
	if (c->flags || c->pad)
		return -EINVAL;
	job = me->job;
	mutex_lock(&job->xfer_lock);
	x = c->handle <= U32_MAX ? xa_load(&job->xfers, c->handle) : NULL;
	if (!x || x->owner != me->index) {
		mutex_unlock(&job->xfer_lock);
		return -ENOENT;
	}
	if (x->multi) {
		/* Receives under way finish; the last one completes it. */
		if (!multi_close(job, x, -ECANCELED))
			x = NULL;
	} else {
		xfer_unqueue(job, x);
		xfer_complete(job, x, -ECANCELED, 0, MPICHAN_RANK_NONE, 0);
	}
	mutex_unlock(&job->xfer_lock);
	if (x)
		xfer_free(job, x);
	return 0;
}

int mpichan_unmap(struct mpichan_file *mf, struct mpichan_unmap *um)
{
	struct mpichan_rank *me = mpichan_file_rank(mf);
	struct mpichan_job *job;
	struct mpichan_xfer *x;
	bool last;
	u64 len;

	if (IS_ERR(me))
		return PTR_ERR(me);
	if (um->flags || um->pad)
		return -EINVAL;
	job = me->job;
	/* No other mapped receive of the rank until the window is done. */
	mutex_lock(&me->win_lock);
	mutex_lock(&job->xfer_lock);
	x = me->mapped;
	if (!x || x->id != um->handle) {
		mutex_unlock(&job->xfer_lock);
		mutex_unlock(&me->win_lock);
		return -ENOENT;
	}
	me->mapped = NULL;
	len = me->mapped_len;
	mutex_unlock(&job->xfer_lock);

	/*
	 * The window goes before the sender hears it may reuse its buffer,
	 * unless the buffer stays pinned in the sender's cache: then the
	 * pages may stay mapped for its next send (window.c).
	 */
	mpichan_window_done(me, true);
	mutex_unlock(&me->win_lock);
	atomic64_add(len, &me->moved);
	mutex_lock(&job->xfer_lock);
	last = xfer_send_done(job, x, len, me->index);
	mutex_unlock(&job->xfer_lock);
	if (last)
		xfer_free(job, x);
	return 0;
}

/*
 * A rank left while multi-send x still waited for receives.  Its owner:
 * nobody else takes it, and there is nobody to tell.  Another rank that
 * died may have been one of its receivers: fail it.  With xfer_lock
 * held; true when the caller frees x.
 */
static bool multi_rank_left(struct mpichan_job *job, struct mpichan_rank *rank,
			    struct mpichan_xfer *x)
{
	lockdep_assert_held(&job->xfer_lock);
	if (x->owner == rank->index) {
		mpichan_cq_unreserve(rank);
		x->orphan = true;
		return multi_close(job, x, -EPIPE);
	}
	if (READ_ONCE(rank->state) != MPICHAN_RANK_DEAD)
		return false;
	return multi_close(job, x, -EPIPE);
}

/*
 * A rank left: drop what it queued, and fail what waits for it alone
 * (sends to it, receives naming it) with -EPIPE.
 */
void mpichan_match_rank_left(struct mpichan_rank *rank)
{
	struct mpichan_job *job = rank->job;
	struct mpichan_xfer *x, *tmp;
	unsigned long id;
	LIST_HEAD(gone);

	mutex_lock(&job->xfer_lock);
	/* Its window went with its mappings, before its file. */
	x = rank->mapped;
	if (x) {
		rank->mapped = NULL;
		if (xfer_send_done(job, x, -EPIPE, rank->index))
			list_add_tail(&x->node, &gone);
	}
	xa_for_each(&job->xfers, id, x) {
		if (x->multi) {
			if (multi_rank_left(job, rank, x))
				list_add_tail(&x->node, &gone);
			continue;
		}
		if (x->owner == rank->index) {
			xfer_unqueue(job, x);
			mpichan_cq_unreserve(rank);
		} else if (x->peer == rank->index) {
			xfer_unqueue(job, x);
			xfer_complete(job, x, -EPIPE, 0, rank->index, x->tag);
		} else {
			continue;
		}
		list_add_tail(&x->node, &gone);
	}
	mutex_unlock(&job->xfer_lock);
	list_for_each_entry_safe(x, tmp, &gone, node)
		xfer_free(job, x);
}

void mpichan_match_show(struct seq_file *m, struct mpichan_job *job)
{
	struct mpichan_xfer *x;
	unsigned long id;

	u32 r;

	seq_puts(m, "xfer handle kind owner peer context tag len pages segs\n");
	mutex_lock(&job->xfer_lock);
	for (r = 0; r < job->nranks; r++) {
		x = job->ranks[r].mapped;
		if (x)
			seq_printf(m, "xfer %u mapped %u %d %u %d %llu %lu %u\n",
				   x->id, x->owner, r, x->context, x->tag,
				   (unsigned long long)x->pin.len,
				   job->ranks[r].mapped_pages, x->pin.nsegs);
	}
	xa_for_each(&job->xfers, id, x)
		seq_printf(m, "xfer %u %s %u %d %u %d %llu %lu %u\n", x->id,
			   x->multi ? "multi" :
			   x->kind == MPICHAN_XFER_SEND ? "send" : "recv",
			   x->owner, x->peer, x->context, x->tag,
			   (unsigned long long)x->pin.len, x->pin.npages,
			   x->pin.nsegs);
	mutex_unlock(&job->xfer_lock);
}
