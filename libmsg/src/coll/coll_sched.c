// SPDX-License-Identifier: MIT
/*
 * Schedules: how a collective runs.  An algorithm appends steps and
 * closes rounds (coll.h); lm_sched_start() runs the first round; when
 * the last send or receive of a round completes, lm_req_complete()
 * calls lm_sched_step_done(), which puts the schedule on the ready
 * list, and the progress engine (lm_coll_progress) starts the next
 * round.  Running rounds from the progress loop rather than from the
 * completion itself keeps the ring and matching code free of
 * re-entrant calls.
 */

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

static CDS_LIST_HEAD(ready);
/* Schedules started and not over (what a blocked rank reports). */
static CDS_LIST_HEAD(live);

/*
 * Finished schedules are kept (with their arrays) for the next
 * collectives: a small collective then costs no malloc at all.
 */
#define LM_SCHED_CACHE 8
static struct lm_sched *cache[LM_SCHED_CACHE];
static int ncached;

struct lm_sched *lm_sched_new(struct libmsg_comm *comm)
{
	struct lm_sched *s;

	if (ncached) {
		s = cache[--ncached];
	} else {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
	}
	s->comm = comm;
	s->tag = (int)(comm->coll_seq++ & MPI_TAG_UB_VALUE);
	CDS_INIT_LIST_HEAD(&s->ready);
	return s;
}

void lm_sched_free(struct lm_sched *s)
{
	int i;

	if (s->req)
		cds_list_del(&s->live);
	if (s->req && s->op)
		lm_op_release(s->op);
	lm_coll_unpack_drop(s);
	for (i = 0; i < s->ntmp; i++)
		lm_scratch_put(s->tmp[i].p, s->tmp[i].bytes);
	if (ncached < LM_SCHED_CACHE) {
		/* Keep the arrays; forget everything else. */
		s->req = NULL;
		s->dt = NULL;
		s->op = NULL;
		s->esize = 0;
		s->nsteps = s->nrounds = s->cur = s->outstanding = 0;
		s->err = s->running = s->ntmp = s->blocking = 0;
		s->again = 0;
		s->fini = NULL;
		s->fini_arg = NULL;
		s->small_used = 0;
		cache[ncached++] = s;
		return;
	}
	free(s->tmp);
	free(s->steps);
	free(s->round_end);
	free(s);
}

/* At MPI_Finalize. */
void lm_sched_cache_drop(void)
{
	struct lm_sched *s;

	while (ncached) {
		s = cache[--ncached];
		free(s->tmp);
		free(s->steps);
		free(s->round_end);
		free(s);
	}
}

static struct lm_step *step_add(struct lm_sched *s, int kind)
{
	struct lm_step *n;
	int cap;

	if (s->nsteps == s->cap) {
		cap = s->cap ? 2 * s->cap : 8;
		n = realloc(s->steps, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL;
		s->steps = n;
		s->cap = cap;
	}
	n = &s->steps[s->nsteps++];
	/* The request is set up when the step is posted; until then only
	 * its magic is looked at (sched_abort_round). */
	memset(n, 0, offsetof(struct lm_step, req));
	n->req.magic = 0;
	n->kind = (uint8_t)kind;
	return n;
}

int lm_sched_send(struct lm_sched *s, const void *buf, uint64_t bytes,
		  int peer)
{
	struct lm_step *st = step_add(s, LM_STEP_SEND);

	if (!st)
		return MPI_ERR_NO_MEM;
	st->dst = (void *)buf;
	st->bytes = bytes;
	st->peer = peer;
	return MPI_SUCCESS;
}

int lm_sched_recv(struct lm_sched *s, void *buf, uint64_t bytes, int peer)
{
	struct lm_step *st = step_add(s, LM_STEP_RECV);

	if (!st)
		return MPI_ERR_NO_MEM;
	st->dst = buf;
	st->bytes = bytes;
	st->peer = peer;
	return MPI_SUCCESS;
}

int lm_sched_copy(struct lm_sched *s, const void *src, void *dst,
		  uint64_t bytes)
{
	struct lm_step *st;

	if (!bytes || src == dst)
		return MPI_SUCCESS;
	st = step_add(s, LM_STEP_COPY);
	if (!st)
		return MPI_ERR_NO_MEM;
	st->src = src;
	st->dst = dst;
	st->bytes = bytes;
	return MPI_SUCCESS;
}

int lm_sched_reduce(struct lm_sched *s, const void *src, void *dst,
		    int count)
{
	struct lm_step *st;

	if (!count)
		return MPI_SUCCESS;
	st = step_add(s, LM_STEP_REDUCE);
	if (!st)
		return MPI_ERR_NO_MEM;
	st->src = src;
	st->dst = dst;
	st->count = count;
	return MPI_SUCCESS;
}

struct lm_step *lm_sched_call(struct lm_sched *s, lm_step_fn fn)
{
	struct lm_step *st = step_add(s, LM_STEP_CALL);

	if (st)
		st->call = fn;
	return st;
}

void lm_sched_hold(struct lm_sched *s)
{
	s->outstanding++;
}

void lm_sched_release(struct lm_sched *s, int err)
{
	if (err && !s->err)
		s->err = err;
	s->outstanding--;
	if (s->outstanding == 0 && !s->running)
		cds_list_add_tail(&s->ready, &ready);
}

int lm_sched_round(struct lm_sched *s)
{
	int *n, cap;

	/* An empty round is no round. */
	if (s->nsteps == (s->nrounds ? s->round_end[s->nrounds - 1] : 0))
		return MPI_SUCCESS;
	if (s->nrounds == s->rcap) {
		cap = s->rcap ? 2 * s->rcap : 8;
		n = realloc(s->round_end, (size_t)cap * sizeof(*n));
		if (!n)
			return MPI_ERR_NO_MEM;
		s->round_end = n;
		s->rcap = cap;
	}
	s->round_end[s->nrounds++] = s->nsteps;
	return MPI_SUCCESS;
}

void lm_sched_again(struct lm_sched *s)
{
	s->again = 1;
}

void *lm_sched_tmp(struct lm_sched *s, uint64_t bytes)
{
	uint64_t at = (s->small_used + 63) & ~63ULL;
	struct lm_sched_tmp *n;
	void *p;
	int cap;

	if (at + bytes <= sizeof(s->small)) {
		s->small_used = (uint32_t)(at + bytes);
		return s->small + at;
	}
	if (s->ntmp == s->tmpcap) {
		cap = s->tmpcap ? 2 * s->tmpcap : 4;
		n = realloc(s->tmp, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL;
		s->tmp = n;
		s->tmpcap = cap;
	}
	p = lm_scratch_get(bytes);
	if (p)
		s->tmp[s->ntmp++] = (struct lm_sched_tmp){ p, bytes };
	return p;
}

/* A send or receive of a step, on the collective context. */
static void step_post(struct lm_sched *s, struct lm_step *st)
{
	struct libmsg_request *r = &st->req;
	struct libmsg_comm *c = s->comm;

	lm_req_init(r, st->kind == LM_STEP_SEND ? LM_REQ_SEND : LM_REQ_RECV);
	r->sched = s;
	r->buf = st->dst;
	r->bytes = st->bytes;
	r->count = st->bytes > 0x7fffffff ? 0x7fffffff : (int)st->bytes;
	r->dt = MPI_BYTE;
	r->peer = st->peer;
	r->wpeer = lm_comm_world(c, st->peer);
	r->tag = s->tag;
	r->comm = c;
	r->ctx = c->ctx + 1;
	r->mode = LM_MODE_STD;
	s->outstanding++;
	if (st->kind == LM_STEP_SEND)
		lm_send_start(r);
	else
		lm_match_post(r);
}

/*
 * A blocking collective's small step on a quiet library: straight into
 * or out of the ring (p2p_fast.c).  1 when done, 0: post it.
 */
static int step_fast(struct lm_sched *s, struct lm_step *st)
{
	struct libmsg_comm *c = s->comm;
	uint32_t w = (uint32_t)lm_comm_world(c, st->peer);

	if (st->kind == LM_STEP_SEND)
		return lm_fast_put(w, c->ctx + 1, s->tag, st->dst, st->bytes);
	return lm_fast_get(c->coll, w, s->tag, st->dst, st->bytes);
}

/*
 * Post a round's sends and receives.  A blocking collective tries the
 * short way for each, sends first (a receive that waits for its
 * message should not hold back the send its peer waits for).
 */
static void round_post(struct lm_sched *s, int first, int end)
{
	int i, kind;

	if (!s->blocking) {
		for (i = first; i < end; i++)
			if (s->steps[i].kind < LM_STEP_COPY)
				step_post(s, &s->steps[i]);
		return;
	}
	for (kind = LM_STEP_SEND; kind <= LM_STEP_RECV; kind++)
		for (i = first; i < end; i++)
			if (s->steps[i].kind == kind &&
			    !step_fast(s, &s->steps[i]))
				step_post(s, &s->steps[i]);
}

static void step_local(struct lm_sched *s, struct lm_step *st)
{
	int err;

	if (st->kind == LM_STEP_COPY) {
		memcpy(st->dst, st->src, st->bytes);
	} else if (st->kind == LM_STEP_CALL) {
		err = st->call(s, st);
		if (err && !s->err)
			s->err = err;
	} else {
		lm_op_apply(s->op, st->src, st->dst, st->count, s->dt);
	}
}

/* The collective is over: report it and let the schedule go. */
static void sched_finish(struct lm_sched *s)
{
	struct libmsg_request *req = s->req;

	/* Received data of non-contiguous types goes into place now. */
	if (!s->err)
		lm_coll_unpack_run(s);
	if (s->fini)
		s->fini(s);
	lm_status_set(&req->status, NULL, MPI_ANY_SOURCE, MPI_ANY_TAG, 0,
		      s->err);
	lm_sched_free(s);
	lm_req_complete(req);
}

/*
 * After an error nothing new starts; receives still posted are
 * withdrawn (their peer may never send), sends are left to complete
 * or fail on their own before the schedule's memory can go.
 */
static void sched_abort_round(struct lm_sched *s)
{
	int i, first = s->cur > 1 ? s->round_end[s->cur - 2] : 0;

	s->running++;
	for (i = first; i < s->round_end[s->cur - 1]; i++) {
		struct libmsg_request *r = &s->steps[i].req;

		if (s->steps[i].kind == LM_STEP_RECV &&
		    r->magic == LM_MAGIC_REQ && !r->done)
			lm_match_cancel_recv(r);
	}
	s->running--;
}

/* Start rounds until one has something outstanding, or finish. */
static void sched_run(struct lm_sched *s)
{
	int i, first;

	while (s->outstanding == 0) {
		if (s->err || s->cur == s->nrounds) {
			sched_finish(s);
			return;
		}
		first = s->cur ? s->round_end[s->cur - 1] : 0;
		/*
		 * Hold the round open while posting: completions may come
		 * now, and must not put the schedule on the ready list.
		 */
		s->running++;
		s->outstanding = 1;
		for (i = first; i < s->round_end[s->cur]; i++)
			if (s->steps[i].kind >= LM_STEP_COPY)
				step_local(s, &s->steps[i]);
		round_post(s, first, s->round_end[s->cur]);
		s->cur++;
		if (s->again && !s->err) {
			s->again = 0;
			s->cur = 0;
		}
		s->outstanding--;
		if (s->err && s->outstanding)
			sched_abort_round(s);
		s->running--;
	}
}

void lm_sched_start(struct lm_sched *s, struct libmsg_request *req)
{
	s->req = req;
	cds_list_add_tail(&s->live, &live);
	req->done = 0;
	/* A user op freed while this runs must live until the end. */
	if (s->op)
		lm_op_hold(s->op);
	if (lm_sched_round(s)) {
		s->err = MPI_ERR_NO_MEM;
		s->nrounds = 0;
	}
	sched_run(s);
}

void lm_sched_step_done(struct libmsg_request *req)
{
	struct lm_sched *s = req->sched;
	int err = req->status.MPI_ERROR;

	/* Collective messages have exact sizes: shorter is a mismatch too. */
	if (!err && req->kind == LM_REQ_RECV && !req->status.libmsg_cancelled &&
	    (uint64_t)req->status.libmsg_count != req->bytes)
		err = MPI_ERR_TRUNCATE;
	s->outstanding--;
	if (err && !req->status.libmsg_cancelled && !s->err) {
		s->err = err;
		/* Inside sched_run(), it withdraws the round itself. */
		if (!s->running && s->outstanding)
			sched_abort_round(s);
	}
	if (s->outstanding == 0 && !s->running)
		cds_list_add_tail(&s->ready, &ready);
}

int lm_coll_ready(void)
{
	return !cds_list_empty(&ready);
}

int lm_coll_progress(void)
{
	struct lm_sched *s;
	int did = lm_area_poll();

	while (!cds_list_empty(&ready)) {
		s = cds_list_first_entry(&ready, struct lm_sched, ready);
		cds_list_del_init(&s->ready);
		sched_run(s);
		did = 1;
	}
	return did;
}

void lm_coll_each_live(void (*fn)(const struct libmsg_comm *comm, int round,
				  int rounds, int outstanding, void *arg),
		       void *arg)
{
	struct cds_list_head *p;
	struct lm_sched *s;

	/*
	 * Not cds_list_for_each_entry: its last step makes an lm_sched
	 * pointer of the list head, which is not 64-byte aligned as an
	 * lm_sched is (UBSan says so).
	 */
	for (p = live.next; p != &live; p = p->next) {
		s = caa_container_of(p, struct lm_sched, live);
		fn(s->comm, s->cur, s->nrounds, s->outstanding, arg);
	}
}

/* How the layers below reach this one (base.h). */
const struct lm_upcalls lm_up = {
	.coll_progress = lm_coll_progress,
	.coll_ready = lm_coll_ready,
	.coll_each_live = lm_coll_each_live,
	.coll_why = lm_cc_why,
	.sched_step_done = lm_sched_step_done,
	.pcoll_start = lm_pcoll_start,
	.pcoll_free = lm_pcoll_free,
	.area_ready = lm_area_ready,
	.area_keep_ctx = lm_area_keep_ctx,
};
