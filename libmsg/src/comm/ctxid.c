// SPDX-License-Identifier: MIT
/*
 * Context ids of created communicators, and how the processes of a new
 * communicator agree on one.
 *
 * A message names its context id, and a receiver finds the matching
 * queues by that id alone, so an id must name one communicator on each
 * process that uses it: the processes of a new communicator must agree
 * on an id that none of them is using.  Ids need not be unique across
 * the job: two disjoint communicators may share one, since their
 * messages never have a process in common.
 *
 * Each process keeps a bitmask of the ids it has free (bit i: ids 2i
 * for point-to-point and 2i + 1 for collectives).  A creation is
 * collective over a communicator that holds every future member (the
 * parent, or for MPI_Comm_create_group a temporary one of the group):
 * each process offers free ids, an allreduce with MPI_BAND gives those
 * offered everywhere, and all take the lowest.  Every process sees the
 * same result, so they agree without another round.  Freed ids go back
 * into the mask (comm.c, once the communicator's operations are over).
 *
 * The agreement is a nonblocking schedule (coll/coll.h) on the
 * communicator's collective context: a pass is a local step that
 * chooses the offer, a recursive-doubling allreduce, and a local step
 * that decides; a pass that finds no id runs again (lm_sched_again),
 * under the same tag.  MPI_Comm_idup returns once it is started; the
 * blocking calls start it and wait, giving the library lock up between
 * polls like any blocked call.  So agreements on one parent or on
 * different ones, from one thread or several, are in flight at once,
 * in any order on different processes, as MPI allows.  A blocking one
 * over a parent reduces through the collective area where the parent
 * has a channel (one step, no messages; MPI lets no other collective
 * run on the parent meanwhile, and a nonblocking one never uses the
 * area); not MPI_Comm_create_group's, whose temporary communicator
 * shares its parent's context ids, and with them the channel, with
 * the parent's own collectives.
 *
 * Two agreements in flight on one process must never offer the same
 * free id: both could take it.  So a process offers a part of its mask
 * only to the agreement that owns that part, and the owner takes the
 * chosen id before it lets the part go (all under the library lock: the
 * local steps run from the progress engine).  Whoever does not own a
 * part offers zeros there, so the pass still completes everywhere (a
 * process that waited for the mask before taking part could wait on a
 * peer that waits on it) and is repeated.  The mask has two parts, as
 * in MPICH:
 *
 * - the eager part (the first EAGER_WORDS words: the low ids, which
 *   have channels in the collective area) goes to an agreement's first
 *   pass, if no other holds it.  That pass may wait long: it completes
 *   only once every member has started the agreement.  So it holds only
 *   this small part; most creations end in this one pass.
 * - the main part (the rest) goes only to later passes, and only to the
 *   first of the agreements waiting on this process, ordered by a key
 *   every member computes alike (the parent's context id, then the
 *   collective's sequence number or MPI_Comm_create_group's tag).  A
 *   later pass runs only after a first pass completed, which takes
 *   every member: its allreduce completes as soon as they all progress.
 *   So the lowest waiting agreement gets the main part on each member
 *   within a pass there, keeps it while it is lowest, and succeeds,
 *   unless no id is free on all (below).  An owner of the main part
 *   takes the eager part too when it is free.
 *
 * A last word says whether every process offered all it has (owned both
 * parts, or helps only): a pass that finds no id then means none is
 * free on all members, and every member fails with MPI_ERR_OTHER.  A
 * process the new communicator leaves out (MPI_Comm_split with
 * MPI_UNDEFINED, MPI_Comm_create outside the group) offers every id and
 * takes none.  An agreement over this process alone would repeat its
 * pass at once with nothing changed: after a failed later pass it waits
 * (a held round) until another agreement lets a part of the mask go or
 * an id is freed.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/algo/algo.h"

#define CTX_SLOTS	(LM_CTX_LIMIT / 2)
#define CTX_WORDS	(CTX_SLOTS / 32)
#define EAGER_WORDS	2
/* MPI_Comm_create_group's tags on the parent's collective context. */
#define LM_TAG_GROUP	0x40000000

static uint32_t free_mask[CTX_WORDS];
static int eager_busy, main_busy;	/* owned by an agreement's pass */
/* Agreements past their first pass, lowest key first. */
static CDS_LIST_HEAD(waiting);
/* Agreements over this process alone, waiting for the mask to change. */
static CDS_LIST_HEAD(held);

struct agree {
	struct lm_sched *s;
	struct libmsg_comm *made;	/* gets the id; NULL: only helping */
	struct libmsg_comm **out;	/* the program's handle of made */
	uint32_t key_ctx, key_kind, key_tag;	/* the order of waiting ones */
	int pass;
	int own_eager, own_main;
	int listed, is_held;
	struct cds_list_head wait_link, held_link;
	uint32_t ctx;			/* the id taken */
	uint32_t offer[CTX_WORDS + 1];	/* last word: all offered */
	uint32_t all[CTX_WORDS + 1];
};

void lm_ctx_init(void)
{
	memset(free_mask, 0xff, sizeof(free_mask));
	lm_ctx_take(LM_CTX_WORLD);
	lm_ctx_take(LM_CTX_SELF);
	lm_ctx_take(LM_CTX_SESSION);
	lm_ctx_take(LM_CTX_INTER);
	eager_busy = main_busy = 0;
	CDS_INIT_LIST_HEAD(&waiting);
	CDS_INIT_LIST_HEAD(&held);
}

void lm_ctx_take(uint32_t ctx)
{
	uint32_t slot = ctx / 2;

	free_mask[slot / 32] &= ~(1U << (slot % 32));
	/* A created communicator's: no revoke or agreement of an old one. */
	if (ctx >= LM_CTX_FIRST)
		lm_ulfm_ctx_fresh(ctx);
}

/* The mask changed: agreements over this process alone try again. */
static void wake_held(void)
{
	struct agree *a, *t;

	cds_list_for_each_entry_safe(a, t, &held, held_link) {
		cds_list_del(&a->held_link);
		a->is_held = 0;
		lm_sched_release(a->s, 0);
	}
}

void lm_ctx_release(uint32_t ctx)
{
	uint32_t slot = ctx / 2;

	free_mask[slot / 32] |= 1U << (slot % 32);
	wake_held();
}

/* Ids held on this process, the reserved ones included. */
int lm_ctx_in_use(void)
{
	int i, n = 0;

	for (i = 0; i < CTX_WORDS; i++)
		n += 32 - __builtin_popcount(free_mask[i]);
	return n;
}

static int key_before(const struct agree *a, const struct agree *b)
{
	if (a->key_ctx != b->key_ctx)
		return a->key_ctx < b->key_ctx;
	if (a->key_kind != b->key_kind)
		return a->key_kind < b->key_kind;
	return a->key_tag < b->key_tag;
}

static void list_in(struct agree *a)
{
	struct agree *b;

	cds_list_for_each_entry(b, &waiting, wait_link) {
		if (key_before(a, b)) {
			/* Before b: insert after b's predecessor. */
			cds_list_add_tail(&a->wait_link, &b->wait_link);
			a->listed = 1;
			return;
		}
	}
	cds_list_add_tail(&a->wait_link, &waiting);
	a->listed = 1;
}

static int first_waiting(const struct agree *a)
{
	return a->listed && waiting.next == &a->wait_link;
}

/*
 * Give up what a holds of the mask and, leaving, its place in the
 * queue; whoever may now get a part is woken.
 */
static void let_go(struct agree *a, int leave)
{
	int changed = a->own_eager || a->own_main;

	if (a->own_eager)
		eager_busy = 0;
	if (a->own_main)
		main_busy = 0;
	a->own_eager = a->own_main = 0;
	if (leave && a->listed) {
		changed |= first_waiting(a);
		cds_list_del(&a->wait_link);
		a->listed = 0;
	}
	if (leave && a->is_held) {
		cds_list_del(&a->held_link);
		a->is_held = 0;
	}
	if (changed)
		wake_held();
}

static void own_eager(struct agree *a)
{
	if (eager_busy)
		return;
	eager_busy = a->own_eager = 1;
	memcpy(a->offer, free_mask, EAGER_WORDS * sizeof(uint32_t));
}

/* A pass's first step: what this process offers. */
static int offer(struct lm_sched *s, struct lm_step *st)
{
	struct agree *a = st->dst;

	(void)s;
	memset(a->offer, 0, sizeof(a->offer));
	if (!a->made) {
		memset(a->offer, 0xff, CTX_WORDS * sizeof(uint32_t));
		a->offer[CTX_WORDS] = 1;
		return MPI_SUCCESS;
	}
	if (a->pass == 0) {
		own_eager(a);
		return MPI_SUCCESS;
	}
	if (main_busy || !first_waiting(a))
		return MPI_SUCCESS;
	main_busy = a->own_main = 1;
	memcpy(a->offer + EAGER_WORDS, free_mask + EAGER_WORDS,
	       (CTX_WORDS - EAGER_WORDS) * sizeof(uint32_t));
	own_eager(a);
	a->offer[CTX_WORDS] = (uint32_t)a->own_eager;
	return MPI_SUCCESS;
}

/* A pass's last step: take the id, or fail, or go round again. */
static int decide(struct lm_sched *s, struct lm_step *st)
{
	struct agree *a = st->dst;
	int i;

	for (i = 0; i < CTX_WORDS; i++) {
		if (!a->all[i])
			continue;
		a->ctx = 2 * (32 * (uint32_t)i +
			      (uint32_t)__builtin_ctz(a->all[i]));
		/* Taken before the mask is let go: no one else offers it. */
		if (a->made)
			lm_ctx_take(a->ctx);
		let_go(a, 1);
		return MPI_SUCCESS;
	}
	let_go(a, 0);
	if (a->all[CTX_WORDS])
		return MPI_ERR_OTHER;	/* every member offered all it has */
	if (a->made && !a->listed)
		list_in(a);
	/* Alone, nothing would change: wait until something does. */
	if (a->made && a->pass > 0 && s->comm->size == 1) {
		lm_sched_hold(s);
		cds_list_add_tail(&a->held_link, &held);
		a->is_held = 1;
	}
	a->pass++;
	lm_sched_again(s);
	return MPI_SUCCESS;
}

/* The schedule is over: the communicator is made, or given up. */
static void agree_end(struct lm_sched *s)
{
	struct agree *a = s->fini_arg;
	struct libmsg_comm *c = a->made;

	let_go(a, 1);
	if (c && !s->err && lm_comm_set_ctx(c, a->ctx)) {
		lm_ctx_release(a->ctx);
		s->err = MPI_ERR_NO_MEM;
	}
	if (c && !s->err) {
		lm_comm_register(c);
	} else if (c) {
		lm_attr_drop(c);
		lm_comm_discard(c);
		if (a->out)
			*a->out = MPI_COMM_NULL;
	}
	free(a);
}

static int agree_start(struct libmsg_comm *over, int tag,
		       struct libmsg_comm *made, struct libmsg_comm **out,
		       struct libmsg_request *req, int blocking)
{
	struct lm_coll_args args;
	struct lm_step *st;
	struct lm_sched *s;
	struct agree *a;

	/* Ids of communicators freed since, if their traffic is over. */
	lm_comm_reap();
	a = calloc(1, sizeof(*a));
	s = a ? lm_sched_new(over) : NULL;
	if (!s)
		goto nomem;
	a->s = s;
	a->made = made;
	a->out = out;
	a->key_ctx = over->ctx;
	if (tag >= 0) {
		a->key_kind = 1;
		s->tag = (int)((uint32_t)tag | LM_TAG_GROUP);
	}
	a->key_tag = (uint32_t)tag;
	if (tag < 0)
		a->key_tag = (uint32_t)s->tag;
	CDS_INIT_LIST_HEAD(&a->wait_link);
	CDS_INIT_LIST_HEAD(&a->held_link);
	memset(&args, 0, sizeof(args));
	args.sbuf = a->offer;
	args.rbuf = a->all;
	args.count = CTX_WORDS + 1;
	args.dt = MPI_UINT32_T;
	args.op = MPI_BAND;
	args.blocking = blocking && tag < 0;
	s->dt = args.dt;
	s->op = args.op;
	s->esize = sizeof(uint32_t);
	st = lm_sched_call(s, offer);
	if (!st)
		goto nomem;
	st->dst = a;
	if ((lm_area_usable(over, &args, sizeof(a->offer)) ?
	     lm_allreduce_area(s, &args) :
	     lm_allreduce_recursive_doubling(s, &args)) || lm_sched_round(s))
		goto nomem;
	st = lm_sched_call(s, decide);
	if (!st)
		goto nomem;
	st->dst = a;
	s->fini = agree_end;
	s->fini_arg = a;
	req->comm = over;
	lm_sched_start(s, req);
	return MPI_SUCCESS;
nomem:
	if (s)
		lm_sched_free(s);
	free(a);
	if (made) {
		lm_attr_drop(made);
		lm_comm_discard(made);
	}
	return MPI_ERR_NO_MEM;
}

int lm_ctx_agree_start(struct libmsg_comm *over, int tag,
		       struct libmsg_comm *made, struct libmsg_comm **out,
		       struct libmsg_request *req)
{
	return agree_start(over, tag, made, out, req, 0);
}

int lm_ctx_agree(struct libmsg_comm *over, int tag, struct libmsg_comm *made,
		 char *why, size_t len)
{
	struct libmsg_request r;
	int err;

	lm_req_init(&r, LM_REQ_COLL);
	err = agree_start(over, tag, made, NULL, &r, 1);
	if (!err)
		err = lm_wait_one(&r);
	switch (err) {
	case MPI_SUCCESS:
		break;
	case MPI_ERR_OTHER:
		snprintf(why, len,
			 "no context id is free on all %d processes (%d of %d in use here)",
			 over->size, lm_ctx_in_use(), CTX_SLOTS);
		break;
	case MPI_ERR_NO_MEM:
		snprintf(why, len, "out of memory");
		break;
	case MPI_ERR_PROC_FAILED:
		snprintf(why, len, "a process of the communicator failed");
		break;
	default:
		snprintf(why, len, "agreeing on a context id failed");
		break;
	}
	return err;
}
