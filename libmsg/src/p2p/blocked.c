// SPDX-License-Identifier: MIT
/*
 * What this rank is blocked in, published for tools: the call, what it
 * waits for (a send to be taken, a message, a probe, the others of a
 * collective), the peer as a world rank, the tag, the communicator's
 * context id and size, and the size, in the wait_* fields of the rank
 * control block (uapi/linux/mpichan.h).  The module's debugfs prints
 * them and mpichan-top reads them, over the device or, in the
 * fallback, from the job's memfd.
 *
 * Nothing is written on the way of a call that does not block: a
 * blocking call only says what it would wait for (lm_blocked_enter,
 * a few stores to this thread's stack), and the progress engine
 * publishes it when the wait has gone 64 polls without ending or is
 * about to sleep (lm_blocked_tick).  The call clears it as it returns,
 * if it was published.  The fields share the cache line of the
 * completion queue's head, which only this rank writes (the module
 * reads it when it posts a completion).  A seqlock: wait_seq is odd
 * while the fields are being written, so a reader sees them whole.
 *
 * Calls nest (a blocking collective inside MPI_Comm_split): the
 * innermost call is shown, and its caller's comes back when it
 * returns; the waits of a call's own steps (lm_wait_one inside
 * MPI_Finalize) show the call.  With several threads blocked at once the
 * last to publish is shown.
 */

#include <string.h>

#include "p2p/p2p.h"

#define LM_TLS __thread __attribute__((tls_model("initial-exec")))

/* Polls of one wait before it counts as blocked. */
#define LM_BLOCKED_POLLS	64

LM_TLS struct lm_blocked *lm_blocked_cur;
static LM_TLS unsigned int polls;

static struct mpichan_rank_ctl *my_ctl(void)
{
	if (!lm.initialized || lm.finalized || !lm.job.ep.map)
		return NULL;
	return mcr_rank_ctl(&lm.job.ep, lm.job.rank);
}

static const char *call_of(const struct lm_blocked *b)
{
	for (; b; b = b->outer)
		if (b->call)
			return b->call;
	return "";
}

static void publish(struct lm_blocked *b)
{
	struct mpichan_rank_ctl *c = my_ctl();
	uint32_t seq;

	if (!c)
		return;
	seq = __atomic_load_n(&c->wait_seq, __ATOMIC_RELAXED) | 1;
	__atomic_store_n(&c->wait_seq, seq, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->wait_peer = b->peer;
	c->wait_tag = b->tag;
	c->wait_context = b->ctx;
	c->wait_comm_size = b->csize;
	c->wait_bytes = b->bytes;
	c->wait_kind = b->kind;
	c->wait_flags = 0;
	strncpy(c->wait_call, call_of(b), sizeof(c->wait_call));
	__atomic_store_n(&c->wait_seq, seq + 1, __ATOMIC_RELEASE);
	b->published = 1;
}

static void clear(void)
{
	struct mpichan_rank_ctl *c = my_ctl();
	uint32_t seq;

	if (!c)
		return;
	seq = __atomic_load_n(&c->wait_seq, __ATOMIC_RELAXED) | 1;
	__atomic_store_n(&c->wait_seq, seq, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->wait_kind = MPICHAN_WAIT_NONE;
	memset(c->wait_call, 0, sizeof(c->wait_call));
	__atomic_store_n(&c->wait_seq, seq + 1, __ATOMIC_RELEASE);
}

void lm_blocked_enter(struct lm_blocked *b)
{
	b->published = 0;
	b->outer = lm_blocked_cur;
	lm_blocked_cur = b;
	polls = 0;
}

void lm_blocked_leave(struct lm_blocked *b)
{
	lm_blocked_cur = b->outer;
	if (!b->published)
		return;
	if (b->outer && b->outer->published)
		publish(b->outer);
	else
		clear();
}

void lm_blocked_tick(int sleeping)
{
	struct lm_blocked *b = lm_blocked_cur;

	if (b->published || (!sleeping && ++polls < LM_BLOCKED_POLLS))
		return;
	publish(b);
}

static int32_t world_peer(const struct libmsg_comm *c, int peer)
{
	if (peer == MPI_ANY_SOURCE)
		return MPICHAN_RANK_ANY;
	if (peer < 0 || !c || peer >= c->size)
		return MPICHAN_RANK_NONE;
	return lm_comm_world(c, peer);
}

void lm_blocked_comm(struct lm_blocked *b, const char *call, uint16_t kind,
		     const struct libmsg_comm *c, int peer, int tag,
		     uint64_t bytes)
{
	b->call = call;
	b->kind = kind;
	b->peer = world_peer(c, peer);
	b->tag = tag;
	b->ctx = c ? c->ctx : 0;
	b->csize = c ? (uint32_t)c->size : 0;
	b->bytes = bytes;
}

void lm_blocked_req(struct lm_blocked *b, const char *call,
		    const struct libmsg_request *r)
{
	uint16_t kind = r->kind == LM_REQ_SEND ? MPICHAN_WAIT_SEND :
		r->kind == LM_REQ_RECV ? MPICHAN_WAIT_RECV :
		r->kind == LM_REQ_COLL ? MPICHAN_WAIT_COLL :
		MPICHAN_WAIT_OTHER;

	lm_blocked_comm(b, call, kind, r->comm,
			kind == MPICHAN_WAIT_COLL ? MPI_PROC_NULL : r->peer,
			kind == MPICHAN_WAIT_COLL ? -1 : r->tag, r->bytes);
	if (!r->comm)
		b->ctx = r->ctx;
}

int lm_wait_in(const char *call, struct libmsg_request *req)
{
	struct lm_blocked b;

	/* A step of a call that said what it waits for (MPI_Finalize). */
	if (!call && lm_blocked_cur) {
		while (!req->done)
			lm_progress_block();
		return req->status.MPI_ERROR;
	}
	if (!req->done) {
		lm_blocked_req(&b, call, req);
		lm_blocked_enter(&b);
		while (!req->done)
			lm_progress_block();
		lm_blocked_leave(&b);
	}
	return req->status.MPI_ERROR;
}
