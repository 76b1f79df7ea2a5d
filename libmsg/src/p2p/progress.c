// SPDX-License-Identifier: MIT
/*
 * The progress engine: drains the incoming rings in order (each
 * message goes to match.c, or completes a send), pushes sends that
 * found their ring full, notices dead ranks, and decides how a blocked
 * call waits (MPICHAN_WAIT: spin, sleep, or spin then sleep).
 *
 * Sends to one destination leave in the order they were started: once
 * one is queued for ring space, every later one queues behind it.
 * Protocol replies (FIN, ACK, cancel) have their own queue: they match
 * nothing and may pass queued data.
 */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

/* A protocol message waiting for ring space. */
struct lm_ctl_out {
	struct cds_list_head link;
	uint16_t kind;
	struct lm_ctl ctl;
};

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	__asm__ __volatile__("" ::: "memory")
#endif

static struct cds_list_head *pend_ctl;	/* per destination */
/* A blocked call's wait, per thread (MPI_THREAD_MULTIPLE). */
#define LM_TLS __thread __attribute__((tls_model("initial-exec")))
static LM_TLS uint64_t idle_since;
static LM_TLS unsigned int idle_polls;
static LM_TLS int idle_pulled;
static LM_TLS int idle_reported;	/* this stalled wait was reported */

int lm_progress_init(void)
{
	uint32_t i, n = lm.job.nranks;

	lm.pending = calloc(n, sizeof(*lm.pending));
	pend_ctl = calloc(n, sizeof(*pend_ctl));
	lm.dead = calloc(n, 1);
	if (!lm.pending || !pend_ctl || !lm.dead)
		return -1;
	for (i = 0; i < n; i++) {
		CDS_INIT_LIST_HEAD(&lm.pending[i]);
		CDS_INIT_LIST_HEAD(&pend_ctl[i]);
	}
	CDS_INIT_LIST_HEAD(&lm.inflight);
	CDS_INIT_LIST_HEAD(&lm.cancel_wait);
	lm.npending = 0;
	return 0;
}

void lm_progress_fini(void)
{
	struct lm_ctl_out *c, *t;
	uint32_t i;

	for (i = 0; i < lm.job.nranks; i++)
		cds_list_for_each_entry_safe(c, t, &pend_ctl[i], link)
			free(c);
	free(lm.pending);
	free(pend_ctl);
	free(lm.dead);
	lm.pending = NULL;
	pend_ctl = NULL;
	lm.dead = NULL;
}

static void ring_broken(int peer, int err)
{
	lm_fatal("ring with rank %d is corrupt (%s)", peer, strerror(-err));
}

static void send_done(struct libmsg_request *req, int err)
{
	req->state = LM_S_DONE;
	req->status.MPI_SOURCE = req->peer;
	req->status.MPI_TAG = req->tag;
	req->status.MPI_ERROR = err;
	req->status.libmsg_count = (long long)req->bytes;
	lm_req_complete(req);
}

/*
 * Offer a rendezvous send's data: where it lies (rndv_span.c, a tile or
 * a layout), as runs the module gathers (rndv_iov.c), or as it is in
 * buf.  LM_RTS_SPAN is set during a span's offer so that the device
 * refuses a span it cannot pin instead of offering the plain address.
 */
static int offer(struct libmsg_request *req, uint32_t dst)
{
	int err, pack = 0;

	if (req->span && !req->span->niov) {
		req->rts.flags |= LM_RTS_SPAN;
		err = lm.job.t->rndv_offer(&lm.job, dst, req->ctx, req->tag,
					   req->buf, lm_span_offer_bytes(req),
					   (uintptr_t)req, &req->rts);
		req->rts.flags &= ~LM_RTS_SPAN;
		if (!err) {
			lm_span_mark(&req->rts, req);
			return 0;
		}
		/*
		 * The module would not pin the span (a gap that is not
		 * readable memory, RLIMIT_MEMLOCK): the blocks alone, if
		 * they are worth it, else packed.
		 */
		lm_span_drop(req);
		pack = !lm_iov_prepare(req);
	}
	if (req->span) {
		if (!lm_iov_offer(req, dst))
			return 0;
		pack = 1;
	}
	if (pack) {
		err = lm_span_abandon(req);
		if (err)
			return err;
	}
	return lm.job.t->rndv_offer(&lm.job, dst, req->ctx, req->tag, req->buf,
				    req->bytes, (uintptr_t)req, &req->rts);
}

/* Try to put a send into its ring: 0, or -EAGAIN when it is full. */
static int send_try(struct libmsg_request *req)
{
	const struct mcr_ep *ep = &lm.job.ep;
	uint32_t dst = (uint32_t)req->wpeer;
	struct lm_sync sync;
	int err, next;

	if (req->bytes <= lm.eager) {
		if (req->mode == LM_MODE_SYNC) {
			sync.sreq = (uintptr_t)req;
			err = mcr_send2(ep, dst, LM_MSG_EAGER_SYNC,
						 req->tag, req->ctx, &sync,
						 sizeof(sync), req->buf,
						 (uint32_t)req->bytes);
			next = LM_S_WAIT_ACK;
		} else {
			err = mcr_send(ep, dst, MPICHAN_MSG_DATA,
						req->tag, req->ctx, req->buf,
						(uint32_t)req->bytes);
			next = LM_S_DONE;
		}
	} else {
		/* Offer the data once (the module pins it), then announce it. */
		if (!req->rts.sreq) {
			req->rts.flags = req->mode == LM_MODE_SYNC ? LM_RTS_SYNC : 0;
			err = offer(req, dst);
			if (err) {
				send_done(req, lm_errno_class(err));
				return 0;
			}
			if (req->rts.flags & LM_RTS_HANDLE)
				lm.cq_wait++;
		}
		if (req->rts.flags & LM_RTS_LAYOUT)
			err = mcr_send2(ep, dst, LM_MSG_RTS, req->tag,
						 req->ctx, &req->rts,
						 LM_RTS_FIXED, req->span->seg,
						 req->span->nseg *
						 sizeof(req->span->seg[0]));
		else
			err = mcr_send(ep, dst, LM_MSG_RTS, req->tag,
						req->ctx, &req->rts,
						lm_rts_wire_len(&req->rts));
		next = LM_S_WAIT_FIN;
	}
	if (err == -EAGAIN)
		return err;
	if (err)
		ring_broken((int)dst, err);
	if (next != LM_S_WAIT_FIN) {
		LM_COUNT(eager_sent, 1);
		LM_COUNT(eager_sent_bytes, req->bytes);
	}
	lm_notify(&lm.job, dst);
	if (next == LM_S_DONE) {
		send_done(req, MPI_SUCCESS);
	} else {
		req->state = next;
		cds_list_add_tail(&req->link, &lm.inflight);
	}
	return 0;
}

void lm_send_start(struct libmsg_request *req)
{
	int dst = req->wpeer;

	req->done = 0;
	req->revoked = 0;
	req->state = LM_S_NEW;
	memset(&req->rts, 0, sizeof(req->rts));
	if (req->peer == MPI_PROC_NULL) {
		req->state = LM_S_DONE;
		lm_status_set(&req->status, NULL, MPI_PROC_NULL, MPI_ANY_TAG, 0,
			      MPI_SUCCESS);
		lm_req_complete(req);
		return;
	}
	if (lm.dead[dst]) {
		send_done(req, MPI_ERR_PROC_FAILED);
		return;
	}
	if (lm_ulfm_ctx_revoked(req->ctx)) {
		send_done(req, MPI_ERR_REVOKED);
		return;
	}
	if (cds_list_empty(&lm.pending[dst]) && send_try(req) == 0)
		return;
	req->state = LM_S_QUEUED;
	cds_list_add_tail(&req->link, &lm.pending[dst]);
	lm.npending++;
}

static int ctl_try(int dst, uint16_t kind, const struct lm_ctl *ctl)
{
	int err = mcr_send(&lm.job.ep, (uint32_t)dst, kind, 0, 0, ctl,
				    sizeof(*ctl));

	if (err == -EAGAIN)
		return err;
	if (err)
		ring_broken(dst, err);
	lm_notify(&lm.job, (uint32_t)dst);
	return 0;
}

void lm_send_ctl(int dst, uint16_t kind, uint64_t sreq, int32_t status)
{
	struct lm_ctl ctl = { .sreq = sreq, .status = status, .pad = 0 };
	struct lm_ctl_out *c;

	if (lm.dead[dst])
		return;
	if (cds_list_empty(&pend_ctl[dst]) && ctl_try(dst, kind, &ctl) == 0)
		return;
	c = malloc(sizeof(*c));
	if (!c)
		lm_fatal("out of memory queueing a protocol message");
	c->kind = kind;
	c->ctl = ctl;
	cds_list_add_tail(&c->link, &pend_ctl[dst]);
	lm.npending++;
}

int lm_send_cancel(struct libmsg_request *req)
{
	switch (req->state) {
	case LM_S_QUEUED:
		cds_list_del(&req->link);
		lm.npending--;
		req->status.libmsg_cancelled = 1;
		if (req->rts.sreq && lm.job.t->rndv_cancel(&lm.job, &req->rts)) {
			/* Offered to the module: its CQE completes it. */
			req->state = LM_S_CANCELLING;
			cds_list_add_tail(&req->link, &lm.inflight);
			return 1;
		}
		send_done(req, MPI_SUCCESS);
		return 1;
	case LM_S_WAIT_FIN:
	case LM_S_WAIT_ACK:
		if (!req->cancel) {
			req->cancel = 1;
			lm_send_ctl(req->wpeer, LM_MSG_CANCEL, (uintptr_t)req, 0);
		}
		return 0;
	default:
		return 0;
	}
}

/* Push what waits for ring space; returns non-zero if something left. */
static int flush_pending(void)
{
	struct libmsg_request *req, *rt;
	struct lm_ctl_out *c, *ct;
	uint32_t dst;
	int did = 0;

	for (dst = 0; dst < lm.job.nranks && lm.npending; dst++) {
		cds_list_for_each_entry_safe(c, ct, &pend_ctl[dst], link) {
			if (ctl_try((int)dst, c->kind, &c->ctl))
				break;
			cds_list_del(&c->link);
			free(c);
			lm.npending--;
			did = 1;
		}
		cds_list_for_each_entry_safe(req, rt, &lm.pending[dst], link) {
			cds_list_del(&req->link);
			lm.npending--;
			if (send_try(req)) {
				cds_list_add(&req->link, &lm.pending[dst]);
				lm.npending++;
				break;
			}
			did = 1;
		}
	}
	return did;
}

/*
 * The send to rank src that a FIN, ACK or cancel reply names, found on
 * list l, or NULL.  The name is the request's address, and comes from
 * another process: it is looked up, never dereferenced as it is.
 */
static struct libmsg_request *named_send(struct cds_list_head *l, int src,
					 uint64_t sreq)
{
	struct libmsg_request *req;

	cds_list_for_each_entry(req, l, link)
		if ((uintptr_t)req == sreq && req->wpeer == src)
			return req;
	return NULL;
}

/* A FIN or ACK: the receiver has the message. */
static void send_matched(struct libmsg_request *req, int32_t status)
{
	cds_list_del(&req->link);
	req->status.MPI_ERROR = status ? lm_errno_class(status) : MPI_SUCCESS;
	if (req->cancel) {
		/* The cancel's reply is still coming: complete on it. */
		req->state = LM_S_DONE;
		cds_list_add_tail(&req->link, &lm.cancel_wait);
		return;
	}
	send_done(req, req->status.MPI_ERROR);
}

/* A FIN or ACK from rank src. */
static void ctl_matched(int src, uint64_t sreq, int32_t status)
{
	struct libmsg_request *req = named_send(&lm.inflight, src, sreq);

	if (!req || req->kind != LM_REQ_SEND ||
	    (req->state != LM_S_WAIT_FIN && req->state != LM_S_WAIT_ACK))
		lm_fatal("protocol error: completion for an unknown send from rank %d",
			 src);
	send_matched(req, status);
}

static void cancel_reply(int src, uint64_t sreq, int32_t withdrawn)
{
	struct libmsg_request *req = named_send(&lm.inflight, src, sreq);

	if (!req)
		req = named_send(&lm.cancel_wait, src, sreq);
	if (!req || !req->cancel)
		lm_fatal("protocol error: cancel reply for an unknown send from rank %d",
			 src);
	req->cancel = 0;
	if (req->state == LM_S_DONE) {
		cds_list_del(&req->link);
		send_done(req, req->status.MPI_ERROR);
	} else if (withdrawn) {
		req->status.libmsg_cancelled = !req->revoked;
		if (req->state == LM_S_WAIT_FIN &&
		    lm.job.t->rndv_cancel(&lm.job, &req->rts)) {
			/* The module's CQE will report the withdrawn send. */
			req->state = LM_S_CANCELLING;
			return;
		}
		cds_list_del(&req->link);
		send_done(req, req->revoked ? MPI_ERR_REVOKED : MPI_SUCCESS);
	}
}

/* A completion from the module: a rendezvous send was taken (or failed). */
static void cqe_send(struct libmsg_request *req, int32_t status)
{
	if (req->magic != LM_MAGIC_REQ || req->kind != LM_REQ_SEND)
		lm_fatal("protocol error: completion for an unknown send");
	lm.cq_wait--;
	if (req->state == LM_S_CANCELLING) {
		cds_list_del(&req->link);
		if (status != -ECANCELED || req->revoked)
			req->status.libmsg_cancelled = 0;
		send_done(req, status && status != -ECANCELED ?
			  lm_errno_class(status) :
			  status && req->revoked ? MPI_ERR_REVOKED :
			  MPI_SUCCESS);
		return;
	}
	send_matched(req, status);
}

static int cq_poll(void)
{
	struct mpichan_rank_ctl *me = mcr_rank_ctl(&lm.job.ep, lm.job.rank);
	const unsigned char *cq = lm.job.ep.map + lm.job.ep.off.cq +
		(uint64_t)lm.job.rank * MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE;
	uint32_t head = me->cq_head;
	uint32_t tail = __atomic_load_n(&me->cq_tail, __ATOMIC_ACQUIRE);
	struct mpichan_cqe e;
	int n = 0;

	if (tail - head > MPICHAN_CQ_ENTRIES)
		lm_fatal("completion queue is corrupt");
	while (head != tail) {
		memcpy(&e, cq + (uint64_t)(head & (MPICHAN_CQ_ENTRIES - 1)) *
		       MPICHAN_CQE_SIZE, sizeof(e));
		head++;
		__atomic_store_n(&me->cq_head, head, __ATOMIC_RELEASE);
		/* user_data 0: a broadcast's send, its receivers acked it. */
		if ((e.flags & MPICHAN_CQE_SEND) && !e.user_data)
			lm.cq_wait--;
		else if (e.flags & MPICHAN_CQE_SEND)
			cqe_send((struct libmsg_request *)(uintptr_t)e.user_data,
				 e.status);
		n++;
	}
	return n;
}

/* One message from src's ring: 0, or -ENOMEM to leave it there. */
static int dispatch(int src, const struct mpichan_msg *m)
{
	struct lm_ctl ctl;

	switch (m->kind) {
	case MPICHAN_MSG_DATA:
	case LM_MSG_EAGER_SYNC:
	case LM_MSG_RTS:
		return lm_match_incoming(src, m);
	case LM_MSG_FIN:
	case LM_MSG_ACK:
	case LM_MSG_CANCEL:
	case LM_MSG_CANCEL_REPLY:
		break;
	default:
		lm_fatal("protocol error: message kind %#x from rank %d",
			 m->kind, src);
	}
	if (m->len < sizeof(ctl))
		lm_fatal("protocol error: short message from rank %d", src);
	memcpy(&ctl, m + 1, sizeof(ctl));
	switch (m->kind) {
	case LM_MSG_FIN:
	case LM_MSG_ACK:
		ctl_matched(src, ctl.sreq, ctl.status);
		break;
	case LM_MSG_CANCEL:
		lm_send_ctl(src, LM_MSG_CANCEL_REPLY, ctl.sreq,
			    lm_match_withdraw(src, ctl.sreq));
		break;
	case LM_MSG_CANCEL_REPLY:
		cancel_reply(src, ctl.sreq, ctl.status);
		break;
	}
	return 0;
}

static int drain(uint32_t src)
{
	const struct mpichan_msg *m;
	int n, err;

	for (n = 0; n < 64; n++) {
		m = mcr_peek(&lm.job.ep, src, &err);
		if (!m) {
			if (err)
				ring_broken((int)src, err);
			break;
		}
		if (dispatch((int)src, m))
			break;	/* out of memory: try again later */
		mcr_consume(&lm.job.ep, src, m);
	}
	return n;
}

/* Fail everything that waits for rank w alone. */
static void peer_dead(int w)
{
	struct libmsg_request *req, *t;
	struct lm_ctl_out *c, *ct;

	lm.dead[w] = 1;
	cds_list_for_each_entry_safe(c, ct, &pend_ctl[w], link) {
		cds_list_del(&c->link);
		free(c);
		lm.npending--;
	}
	cds_list_for_each_entry_safe(req, t, &lm.pending[w], link) {
		cds_list_del(&req->link);
		lm.npending--;
		if (req->rts.flags & LM_RTS_HANDLE) {
			/* The module fails it with -EPIPE in a CQE. */
			req->state = LM_S_WAIT_FIN;
			cds_list_add_tail(&req->link, &lm.inflight);
			continue;
		}
		send_done(req, MPI_ERR_PROC_FAILED);
	}
	cds_list_for_each_entry_safe(req, t, &lm.inflight, link) {
		if (req->wpeer != w || (req->rts.flags & LM_RTS_HANDLE))
			continue;
		cds_list_del(&req->link);
		req->cancel = 0;
		send_done(req, MPI_ERR_PROC_FAILED);
	}
	/* Received before w died; its cancel's reply will not come. */
	cds_list_for_each_entry_safe(req, t, &lm.cancel_wait, link) {
		if (req->wpeer != w)
			continue;
		cds_list_del(&req->link);
		req->cancel = 0;
		send_done(req, req->status.MPI_ERROR);
	}
	lm_match_peer_dead(w);
}

/*
 * A send whose communicator was revoked while it waited in the ring for
 * its match (rendezvous, synchronous): withdrawn as MPI_Cancel does it.
 * The receiver may be copying from its buffer right now, so it cannot
 * just end: the receiver's reply says whether the message was still
 * unmatched (then it ends with MPI_ERR_REVOKED, or with the module's
 * CQE for a send the module holds) or already taken (it ends as
 * delivered).  The receiver answers from any MPI call; its death ends
 * the send too (peer_dead).
 */
static void revoke_inflight(struct libmsg_request *req)
{
	req->revoked = 1;
	/*
	 * MPI_Cancel's withdrawal does it; the receiver's death (a send
	 * the module holds: its CQE) too, and no reply would come.
	 */
	if (req->cancel || lm.dead[req->wpeer])
		return;
	req->cancel = 1;
	lm_send_ctl(req->wpeer, LM_MSG_CANCEL, (uintptr_t)req, 0);
}

/*
 * The communicator of context ctx was revoked: its sends still queued
 * for ring space end with err; those in the ring that wait for their
 * match are withdrawn (revoke_inflight).
 */
void lm_progress_fail_ctx(uint32_t ctx, int err)
{
	struct libmsg_request *req, *t;
	uint32_t dst;

	for (dst = 0; lm.npending && dst < lm.job.nranks; dst++)
		cds_list_for_each_entry_safe(req, t, &lm.pending[dst], link) {
			if (req->ctx != ctx)
				continue;
			cds_list_del(&req->link);
			lm.npending--;
			if (req->rts.sreq &&
			    lm.job.t->rndv_cancel(&lm.job, &req->rts)) {
				/* Offered to the module: its CQE ends it. */
				req->revoked = 1;
				req->state = LM_S_CANCELLING;
				cds_list_add_tail(&req->link, &lm.inflight);
				continue;
			}
			send_done(req, err);
		}
	cds_list_for_each_entry(req, &lm.inflight, link)
		if (req->kind == LM_REQ_SEND && req->ctx == ctx &&
		    (req->state == LM_S_WAIT_FIN ||
		     req->state == LM_S_WAIT_ACK) && !req->revoked)
			revoke_inflight(req);
}

static void handle_deaths(uint32_t count)
{
	uint32_t r, state;

	for (r = 0; r < lm.job.nranks; r++) {
		state = __atomic_load_n(&mcr_rank_ctl(&lm.job.ep, r)->state,
					__ATOMIC_ACQUIRE);
		if (state == MPICHAN_RANK_DEAD && !lm.dead[r] && r != lm.job.rank)
			peer_dead((int)r);
	}
	lm.job.dead_seen = count;
}

int lm_progress(void)
{
	uint32_t dead = __atomic_load_n(&lm.job.hdr->dead_count, __ATOMIC_ACQUIRE);
	uint32_t src;
	int did = 0;

	/* Generalized requests other threads completed without the lock. */
	if (lm.thread_level == MPI_THREAD_MULTIPLE)
		did |= lm_greq_drain();
	if (lm.npending)
		did |= flush_pending();
	for (src = 0; src < lm.job.nranks; src++)
		did |= drain(src);
	/* After the rings: a completion posted before a message seen is in. */
	if (lm.cq_wait)
		did |= cq_poll();
	/* After the drain: what a dead rank sent before dying is in. */
	if (dead != lm.job.dead_seen) {
		handle_deaths(dead);
		did = 1;
	}
	/* Revokes that came, agreements decided (ulfm.c). */
	did |= lm_ulfm_poll();
	/* Last: rounds completed by anything above start their successors. */
	did |= lm_up.coll_progress();
	if (did && lm.thread_level == MPI_THREAD_MULTIPLE)
		lm_mt_kick();
	return did;
}

/*
 * One idle poll's pause.  With more ranks than CPUs every poll gives
 * the CPU away: the rank waited for may be the one that needs it.
 */
static void spin_once(void)
{
	unsigned int every = lm.oversubscribed ? 1 : lm.spin_ns < 10000 ? 16 : 0;

	if (lm.thread_level == MPI_THREAD_MULTIPLE)
		lm_mt_relax(idle_polls, every ? every : 64);
	else if (every && idle_polls % every == 0)
		sched_yield();
	else
		cpu_relax();
}

/*
 * A polling call found nothing.  With more ranks than CPUs a program
 * that polls in a loop (MPI_Iprobe, MPI_Test until flag) would spin out
 * its time slice while the rank it polls for waits for the CPU: give
 * it away, as a blocking wait does on every idle poll.  At
 * MPI_THREAD_MULTIPLE the lock is let go meanwhile (lm_mt_relax).
 */
void lm_poll_yield(void)
{
	if (lm.thread_level == MPI_THREAD_MULTIPLE)
		lm_mt_relax(0, 1);
	else
		sched_yield();
}

void lm_progress_block(void)
{
	uint64_t now, limit;
	int64_t timeout;

	if (lm_blocked_cur)
		lm_blocked_tick(0);
	if (lm_progress()) {
		idle_polls = 0;
		return;
	}
	if (idle_polls++ == 0)
		idle_pulled = idle_reported = 0;
	/*
	 * Look at the clock every 32 polls only, and not before the 32nd:
	 * where it is emulated (a VM whose clocksource is the HPET) one
	 * read costs microseconds, more than a short message takes to
	 * arrive, and a ping-pong would pay it on every message.
	 */
	if ((idle_polls & 31) && lm.wait_mode != LM_WAIT_SLEEP) {
		spin_once();
		return;
	}
	now = lm_now_ns();
	if (idle_polls <= 32)
		idle_since = now;	/* the wait's first look */
	limit = lm.wait_mode == LM_WAIT_SLEEP ? 0 :
		lm.wait_mode == LM_WAIT_SPIN ? 1000000 : lm.spin_ns;
	if (now - idle_since < limit) {
		spin_once();
		return;
	}
	if (lm.report_ns && !idle_reported && now - idle_since >= lm.report_ns) {
		idle_reported = 1;
		lm_report_wait(now - idle_since);
	}
	/* Blocked for a while: let senders of unmatched rendezvous go on. */
	if (!idle_pulled) {
		idle_pulled = 1;
		if (lm_match_pull()) {
			idle_polls = 0;
			return;
		}
	}
	if (lm.wait_mode == LM_WAIT_SPIN) {
		if (lm.thread_level == MPI_THREAD_MULTIPLE)
			lm_mt_relax(idle_polls, 16);
		else if ((idle_polls & 15) == 0)
			sched_yield();
		return;
	}
	/* Nobody wakes a sender when its ring drains: look again soon. */
	timeout = lm.npending ? 200000 : 1000000000;
	/* A report due: wake for it. */
	if (lm.report_ns && !idle_reported &&
	    lm.report_ns - (now - idle_since) < (uint64_t)timeout)
		timeout = (int64_t)(lm.report_ns - (now - idle_since));
	if (lm_blocked_cur)
		lm_blocked_tick(1);
	if (lm.thread_level == MPI_THREAD_MULTIPLE)
		lm_mt_sleep(timeout);
	else
		lm.job.t->sleep(&lm.job, timeout);
}
