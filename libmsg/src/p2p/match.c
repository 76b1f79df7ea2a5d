// SPDX-License-Identifier: MIT
/*
 * Matching: per context id, the receives posted and the messages that
 * arrived before their receive.  This is the one place that decides
 * match order for a receiver: the progress engine hands every eager
 * message and every rendezvous request (RTS) here in ring order, and
 * one sender's messages share one ring, so two messages of one sender
 * that both match a receive are matched in the order they were sent,
 * whatever their sizes.
 *
 * A rendezvous is completed by the receiver: it takes the data with
 * one copy (the transport's rndv_take) and sends FIN back, unless the
 * module tells the sender itself (LM_RTS_HANDLE).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

void lm_status_set(MPI_Status *st, const struct libmsg_comm *comm, int wsrc,
		   int tag, uint64_t bytes, int err)
{
	st->MPI_SOURCE = comm && wsrc >= 0 ? lm_comm_local(comm, wsrc) : wsrc;
	/* A partitioned message's tag is the user's. */
	st->MPI_TAG = tag >= 0 ? tag & ~LM_TAG_PART : tag;
	st->MPI_ERROR = err;
	st->libmsg_cancelled = 0;
	st->libmsg_count = (long long)bytes;
}

/* MPI_ANY_TAG takes the user's tags, not partitioned messages. */
static inline int tag_matches(int want, int tag)
{
	return want == MPI_ANY_TAG ? tag <= MPI_TAG_UB_VALUE : want == tag;
}

static int recv_matches(const struct libmsg_request *req, int wsrc, int tag)
{
	return (req->wpeer == MPI_ANY_SOURCE || req->wpeer == wsrc) &&
		tag_matches(req->tag, tag);
}

static void deliver_data(struct libmsg_request *req, int wsrc, int tag,
			 const void *data, uint64_t len, int err)
{
	uint64_t n = len < req->bytes ? len : req->bytes;

	/* A non-contiguous type: straight from the message into place. */
	if (n && req->packed)
		lm_dt_unpack(data, n, req->ubuf, req->count, req->dt);
	else if (n)
		mcr_copy(req->buf, data, n);
	lm_status_set(&req->status, req->comm, wsrc, tag, n,
		      err ? lm_errno_class(err) :
		      len > req->bytes ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
	lm_req_complete(req);
}

/*
 * The rendezvous: one copy from the sender, then FIN.  A span offer
 * (rndv_span.c, or rndv_layout.c with its segments seg) goes into buf,
 * or, when buf is NULL, into req's buffer as its type lays it out.
 */
static int take(int wsrc, uint32_t ctx, int tag, const struct lm_rts *rts,
		const struct lm_rts_seg *seg, void *buf, uint64_t n,
		struct lm_sink *sink, const struct libmsg_request *req)
{
	int err = 0;

	if (rts->flags & LM_RTS_SPAN)
		err = lm_span_take(wsrc, ctx, tag, rts, n, buf, req);
	else if (rts->flags & LM_RTS_LAYOUT)
		err = lm_layout_take(wsrc, ctx, tag, rts, seg, n, buf, req);
	else if (n || (rts->flags & LM_RTS_HANDLE))
		err = lm.job.t->rndv_take(&lm.job, (uint32_t)wsrc, ctx, tag, rts,
					  buf, n, sink);
	if (!(rts->flags & LM_RTS_HANDLE))
		lm_send_ctl(wsrc, LM_MSG_FIN, rts->sreq, err);
	return err;
}

struct unpack_sink {
	struct lm_sink k;
	struct libmsg_request *req;
};

static void unpack_put(struct lm_sink *k, uint64_t off, const void *src,
		       uint64_t len)
{
	struct libmsg_request *req = ((struct unpack_sink *)k)->req;

	lm_dt_unpack_range(src, off, off + len, req->ubuf, req->count, req->dt);
}

/*
 * A rendezvous into a non-contiguous type.  The transport hands over
 * what it can where it lies (the receive window, staged pieces) and it
 * is unpacked from there; whatever it put in the temporary instead
 * (the partial pages around a mapped range) is unpacked from that.
 */
static int take_packed(struct libmsg_request *req, int wsrc, uint32_t ctx,
		       int tag, const struct lm_rts *rts, uint64_t n)
{
	struct unpack_sink s = { { unpack_put, 0, 0 }, req };
	unsigned char *tmp;
	uint64_t end;
	int err;

	/* Runs the module gathers, copied into this type's runs. */
	if (lm_iov_take(req, wsrc, ctx, tag, rts, n, &err))
		return err;
	tmp = lm_scratch_get(n);
	if (!tmp) {
		/* Still take the message out (the sender must complete). */
		take(wsrc, ctx, tag, rts, NULL, NULL, 0, NULL, NULL);
		return -ENOMEM;
	}
	err = take(wsrc, ctx, tag, rts, NULL, tmp, n, &s.k, NULL);
	if (!err) {
		end = s.k.done_off + s.k.done_len;
		lm_dt_unpack_range(tmp, 0, s.k.done_len ? s.k.done_off : n,
				   req->ubuf, req->count, req->dt);
		if (s.k.done_len && end < n)
			lm_dt_unpack_range(tmp + end, end, n, req->ubuf,
					   req->count, req->dt);
	}
	lm_scratch_put(tmp, n);
	return err;
}

static void deliver_rts(struct libmsg_request *req, int wsrc, uint32_t ctx,
			int tag, const struct lm_rts *rts,
			const struct lm_rts_seg *seg)
{
	uint64_t n = rts->size < req->bytes ? rts->size : req->bytes;
	int err, cls;

	/* A span is taken into the type straight from where it lies. */
	if (n && req->packed &&
	    !(rts->flags & (LM_RTS_SPAN | LM_RTS_LAYOUT)))
		err = take_packed(req, wsrc, ctx, tag, rts, n);
	else
		err = take(wsrc, ctx, tag, rts, seg,
			   req->packed ? NULL : req->buf, n, NULL, req);
	cls = err ? lm_errno_class(err) :
		rts->size > req->bytes ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
	lm_status_set(&req->status, req->comm, wsrc, tag, err ? 0 : n, cls);
	lm_req_complete(req);
}

void lm_message_free(struct libmsg_message *msg)
{
	if (msg->pulled)
		lm.pulled -= msg->size;
	lm.stats.unexpected_now--;
	lm_scratch_put(msg->data, msg->size);
	free(msg->seg);
	msg->magic = 0;
	free(msg);
}

void lm_match_deliver_msg(struct libmsg_request *req,
			  struct libmsg_message *msg)
{
	if (msg->kind == LM_MSG_RTS && !msg->pulled) {
		deliver_rts(req, msg->wsrc, msg->ctx, msg->tag, &msg->rts,
			    msg->seg);
	} else {
		if (msg->kind == LM_MSG_EAGER_SYNC)
			lm_send_ctl(msg->wsrc, LM_MSG_ACK, msg->rts.sreq, 0);
		deliver_data(req, msg->wsrc, msg->tag, msg->data, msg->size,
			     msg->err);
	}
	lm_message_free(msg);
}

/*
 * An RTS from rank src's ring into rts, checked: a malformed one stops
 * the job.  A layout's segments come back in an allocation of their own
 * (*nomem set when that fails).
 */
static struct lm_rts_seg *rts_parse(int src, const struct mpichan_msg *m,
				    const unsigned char *p, struct lm_rts *rts,
				    int *nomem)
{
	struct lm_rts_seg *seg;
	size_t bytes;

	if (m->len < LM_RTS_FIXED)
		lm_fatal("protocol error: rendezvous offer of %u bytes from rank %d",
			 m->len, src);
	memcpy(rts, p, LM_RTS_FIXED);
	if (rts->flags & LM_RTS_LAYOUT) {
		if ((rts->flags & LM_RTS_SPAN) || !rts->nblk ||
		    rts->nblk > LM_RTS_SEGS || m->len != lm_rts_wire_len(rts))
			lm_fatal("protocol error: bad layout offer from rank %d",
				 src);
		bytes = m->len - LM_RTS_FIXED;
		seg = malloc(bytes);
		if (!seg) {
			*nomem = 1;
			return NULL;
		}
		memcpy(seg, p + LM_RTS_FIXED, bytes);
		if (!lm_layout_valid(rts, seg))
			lm_fatal("protocol error: bad layout offer from rank %d",
				 src);
		return seg;
	}
	if (m->len > sizeof(*rts))
		lm_fatal("protocol error: rendezvous offer of %u bytes from rank %d",
			 m->len, src);
	memcpy(rts, p, m->len);
	if ((rts->flags & LM_RTS_SPAN) &&
	    (m->len < lm_rts_wire_len(rts) || !lm_span_valid(rts)))
		lm_fatal("protocol error: bad span offer from rank %d", src);
	return NULL;
}

/*
 * Out of memory for a message from src: it stays in the ring (so its
 * sender waits, and nothing is lost or reordered) until a later poll
 * finds memory.  Said once.
 */
static int no_room(int src)
{
	static int said;

	if (!said) {
		said = 1;
		fprintf(stderr, "libmsg: warning: rank %u: out of memory for a message from rank %d; it waits in the ring\n",
			lm.job.rank, src);
	}
	return -ENOMEM;
}

/* A message taken from a ring, for MPI_T. */
static void count_in(uint32_t kind, uint64_t size)
{
	if (kind == LM_MSG_RTS) {
		LM_COUNT(rndv_recv, 1);
		LM_COUNT(rndv_recv_bytes, size);
	} else {
		LM_COUNT(eager_recv, 1);
		LM_COUNT(eager_recv_bytes, size);
	}
}

/*
 * A message from rank src's ring: to the receive it matches, or queued
 * as unexpected.  0 when it is taken, -ENOMEM when it must stay in the
 * ring for now.
 */
int lm_match_incoming(int src, const struct mpichan_msg *m)
{
	const unsigned char *p = (const unsigned char *)(m + 1);
	struct lm_rts_seg *seg = NULL;
	struct libmsg_request *req;
	struct libmsg_message *msg;
	struct lm_match *q;
	struct lm_rts rts;
	uint64_t size = m->len;
	int nomem = 0;

	memset(&rts, 0, sizeof(rts));
	if (m->kind == LM_MSG_EAGER_SYNC) {
		if (m->len < sizeof(struct lm_sync))
			lm_fatal("protocol error: short message from rank %d", src);
		memcpy(&rts.sreq, p, sizeof(rts.sreq));
		p += sizeof(struct lm_sync);
		size -= sizeof(struct lm_sync);
	} else if (m->kind == LM_MSG_RTS) {
		seg = rts_parse(src, m, p, &rts, &nomem);
		if (nomem)
			return no_room(src);
		size = rts.size;
	}
	if (m->context >= LM_MAX_CTX || m->tag < 0)
		lm_fatal("protocol error: context %u tag %d from rank %d",
			 m->context, m->tag, src);
	q = lm_match_get(m->context);
	if (!q) {
		free(seg);
		return no_room(src);
	}

	cds_list_for_each_entry(req, &q->posted, link) {
		if (!recv_matches(req, src, m->tag))
			continue;
		cds_list_del(&req->link);
		if (m->kind == LM_MSG_RTS) {
			deliver_rts(req, src, m->context, m->tag, &rts, seg);
			free(seg);
		} else {
			if (m->kind == LM_MSG_EAGER_SYNC)
				lm_send_ctl(src, LM_MSG_ACK, rts.sreq, 0);
			deliver_data(req, src, m->tag, p, size, 0);
		}
		count_in(m->kind, size);
		return 0;
	}

	msg = calloc(1, sizeof(*msg));
	if (!msg || (m->kind != LM_MSG_RTS && size &&
		     !(msg->data = lm_scratch_get(size)))) {
		free(msg);
		free(seg);
		return no_room(src);
	}
	msg->magic = LM_MAGIC_MSG;
	msg->kind = m->kind;
	msg->wsrc = src;
	msg->tag = m->tag;
	msg->ctx = m->context;
	msg->size = size;
	msg->rts = rts;
	msg->seg = seg;
	if (m->kind != LM_MSG_RTS && size)
		mcr_copy(msg->data, p, size);
	cds_list_add_tail(&msg->link, &q->unexpected);
	count_in(m->kind, size);
	LM_COUNT(unexpected, 1);
	if (++lm.stats.unexpected_now > lm.stats.unexpected_max)
		lm.stats.unexpected_max = lm.stats.unexpected_now;
	return 0;
}

struct libmsg_message *lm_match_find(struct lm_match *q, int wsrc, int tag)
{
	struct libmsg_message *msg;

	cds_list_for_each_entry(msg, &q->unexpected, link)
		if ((wsrc == MPI_ANY_SOURCE || wsrc == msg->wsrc) &&
		    tag_matches(tag, msg->tag))
			return msg;
	return NULL;
}

/*
 * A receive that may wait for world rank dead, which died, fails; a
 * program's nonblocking wildcard receive only for now, as ULFM has it
 * (MPI_ERR_PROC_FAILED_PENDING, lm_match_repost).
 */
static void fail_dead(struct libmsg_request *req, int dead)
{
	int pending = req->ft_nb && req->wpeer == MPI_ANY_SOURCE &&
		!req->sched && !req->freed;

	lm_status_set(&req->status, req->comm, dead, MPI_ANY_TAG, 0,
		      pending ? MPI_ERR_PROC_FAILED_PENDING :
		      MPI_ERR_PROC_FAILED);
	req->ft_pending = (uint8_t)pending;
	lm_req_complete(req);
}

void lm_match_post(struct libmsg_request *req)
{
	struct lm_match *q = lm_match_get(req->ctx);
	struct libmsg_message *msg;
	int dead;

	req->done = 0;
	if (!q)
		lm_fatal("out of memory");
	msg = lm_match_find(q, req->wpeer, req->tag);
	if (msg) {
		cds_list_del(&msg->link);
		lm_match_deliver_msg(req, msg);
		return;
	}
	/*
	 * Nothing came from a rank that is gone, and nothing will.  A
	 * collective's receive waits on every member: its sender may have
	 * given up on the dead one.
	 */
	if (lm_ulfm_ctx_revoked(req->ctx)) {
		lm_status_set(&req->status, req->comm, MPI_ANY_SOURCE,
			      MPI_ANY_TAG, 0, MPI_ERR_REVOKED);
		lm_req_complete(req);
		return;
	}
	dead = req->sched ? lm_match_dead_source(req->comm, MPI_ANY_SOURCE) :
		lm_match_dead_unacked(req->comm, req->wpeer);
	if (dead >= 0) {
		fail_dead(req, dead);
		return;
	}
	cds_list_add_tail(&req->link, &q->posted);
}

/*
 * A posted receive of a program's nonblocking wildcard receive came
 * back from MPI_Wait or the like with MPI_ERR_PROC_FAILED_PENDING: it
 * is posted again (at the end of the queue), as ULFM leaves it.
 */
void lm_match_repost(struct libmsg_request *req)
{
	req->ft_pending = 0;
	lm_match_post(req);
}


/* An acknowledged failure (ulfm_api.c): is world rank w one in comm? */
static int acked(const struct libmsg_comm *comm, int w)
{
	int i;

	for (i = 0; i < comm->ft_nacked; i++)
		if (comm->ft_failed[i] == w)
			return 1;
	return 0;
}

/*
 * The dead world rank that a receive from wpeer (a world rank or
 * MPI_ANY_SOURCE) on comm may be waiting for, or -1.  For a wildcard it
 * is any dead member of comm, as in ULFM: the message it waits for may
 * have been the dead rank's, and waiting on would hang.  There is no
 * failure acknowledgement, so wildcard receives on such a communicator
 * fail from then on unless a message is already there to match.
 */
static int dead_source(const struct libmsg_comm *comm, int wpeer,
		       int skip_acked)
{
	int r, w;

	if (wpeer >= 0)
		return lm.dead[wpeer] ? wpeer : -1;
	if (wpeer != MPI_ANY_SOURCE || !comm || !lm.job.dead_seen)
		return -1;
	for (r = 0; r < comm->rsize; r++) {
		w = lm_comm_world(comm, r);
		if (lm.dead[w] && !(skip_acked && comm->ft_nacked &&
				    acked(comm, w)))
			return w;
	}
	return -1;
}

int lm_match_dead_source(const struct libmsg_comm *comm, int wpeer)
{
	return dead_source(comm, wpeer, 0);
}

/* The same for a program's receive: failures it acknowledged let it be. */
int lm_match_dead_unacked(const struct libmsg_comm *comm, int wpeer)
{
	return dead_source(comm, wpeer, 1);
}

int lm_match_cancel_recv(struct libmsg_request *req)
{
	if (req->ft_pending) {
		/* Done for now with PROC_FAILED_PENDING: cancelled instead. */
		req->ft_pending = 0;
		lm_status_set(&req->status, NULL, MPI_ANY_SOURCE, MPI_ANY_TAG,
			      0, MPI_SUCCESS);
		req->status.libmsg_cancelled = 1;
		return 1;
	}
	if (req->done || req->msg)
		return 0;
	cds_list_del(&req->link);
	lm_status_set(&req->status, NULL, MPI_ANY_SOURCE, MPI_ANY_TAG, 0,
		      MPI_SUCCESS);
	req->status.libmsg_cancelled = 1;
	lm_req_complete(req);
	return 1;
}

struct withdraw {
	int src;
	uint64_t sreq;
	int found;
};

static void withdraw_in(struct lm_match *q, void *arg)
{
	struct withdraw *w = arg;
	struct libmsg_message *msg;

	if (w->found)
		return;
	cds_list_for_each_entry(msg, &q->unexpected, link) {
		if (msg->wsrc != w->src || msg->kind == MPICHAN_MSG_DATA ||
		    msg->pulled || msg->rts.sreq != w->sreq)
			continue;
		cds_list_del(&msg->link);
		lm_message_free(msg);
		w->found = 1;
		return;
	}
}

int lm_match_withdraw(int src, uint64_t sreq)
{
	struct withdraw w = { src, sreq, 0 };

	lm_match_each(withdraw_in, &w);
	return w.found;
}

static void pull_in(struct lm_match *q, void *arg)
{
	struct libmsg_message *msg;
	int *pulled = arg, err;

	cds_list_for_each_entry(msg, &q->unexpected, link) {
		if (msg->kind != LM_MSG_RTS || msg->pulled ||
		    (msg->rts.flags & LM_RTS_SYNC) ||
		    lm_ulfm_ctx_revoked(msg->ctx) ||
		    lm.pulled + msg->size > lm.pull_max)
			continue;
		msg->data = lm_scratch_get(msg->size);
		if (!msg->data)
			return;
		err = take(msg->wsrc, msg->ctx, msg->tag, &msg->rts, msg->seg,
			   msg->data, msg->size, NULL, NULL);
		if (err) {
			/* The sender heard of it; the receive will too. */
			lm_scratch_put(msg->data, msg->size);
			msg->data = NULL;
			msg->kind = MPICHAN_MSG_DATA;
			msg->size = 0;
			msg->err = err;
			continue;
		}
		msg->pulled = 1;
		lm.pulled += msg->size;
		LM_COUNT(pulled, 1);
		LM_COUNT(pulled_bytes, msg->size);
		(*pulled)++;
	}
}

/*
 * Copy the data of unmatched rendezvous messages (not synchronous ones)
 * so that their senders complete: two ranks that both block in a large
 * MPI_Send to each other then both go on.  Bounded by MPICHAN_PULL_MAX.
 * Not on a revoked communicator: its senders are withdrawing them, to
 * end with MPI_ERR_REVOKED (progress.c), not as delivered.
 */
int lm_match_pull(void)
{
	int pulled = 0;

	lm_match_each(pull_in, &pulled);
	return pulled;
}

static void peer_dead_in(struct lm_match *q, void *arg)
{
	struct libmsg_request *req;
	int w = *(int *)arg;

again:
	cds_list_for_each_entry(req, &q->posted, link) {
		/* Wildcard and collective receives wait on every member. */
		if (req->wpeer != w &&
		    ((req->wpeer != MPI_ANY_SOURCE && !req->sched) ||
		     !req->comm || lm_comm_local(req->comm, w) < 0))
			continue;
		cds_list_del(&req->link);
		fail_dead(req, w);
		/*
		 * Failing a collective's receive withdraws the rest of its
		 * round from this list (coll_sched.c): look again from the
		 * start rather than through a next that may have gone.
		 */
		goto again;
	}
}

void lm_match_peer_dead(int w)
{
	lm_match_each(peer_dead_in, &w);
}
