// SPDX-License-Identifier: MIT
/*
 * Collectives through the job's collective area (uapi: off.coll): a
 * barrier, and reductions and broadcasts of up to LM_AREA_DATA bytes,
 * in one step instead of log2 n rounds of messages.
 *
 * Each rank's part of the area is LM_AREA_CHANNELS slots.  A
 * communicator whose context id is 2c, c < LM_AREA_CHANNELS, uses slot
 * c of each member's part: context ids are unique among a process's
 * live communicators (ctxid.c), so two live communicators with a
 * member in common never share a channel, and a new one takes an id
 * only once every member has let the old one go.  The leader
 * (communicator rank 0) owns the arrival count and the generation;
 * every member owns its in[] and out[].
 *
 * A collective: each member writes its contribution into its in[],
 * reads the leader's generation, and adds one to the leader's count.
 * The member whose increment completes the count is the last to
 * arrive: it combines the contributions (in rank order, so every rank
 * gets the same bits and non-commutative ops reduce correctly), writes
 * the result into each member's out[], resets the count, publishes
 * generation + 1 and wakes the members that sleep.  The others wait for
 * the generation to move, then copy their out[].
 *
 * No second phase is needed before the slots are used again: nobody's
 * in[] is read after the generation moves, the count is next touched
 * by an arrival at the next collective, and a member's out[] is next
 * written once that member has arrived at its next collective on the
 * channel, which it does only after it has read out[].
 *
 * Only blocking collectives come here: two nonblocking ones in flight
 * on one communicator would share the in[] of each member.  The one
 * exception is the collective-call check (coll_check.c), which every
 * call makes, blocking or not: a rank's arrivals on a channel queue
 * behind the one it is waiting in, in call order, which is the same on
 * every member, and a check takes its verdict out of out[] the moment
 * its generation moves, before the next arrival can be judged there.
 *
 * Why: with more ranks than CPUs, every dependent round of messages
 * costs a pass of the scheduler over the ranks sharing a CPU; here the
 * whole collective costs one.
 */

#include <string.h>

#include "coll/algo/algo.h"

#define LM_AREA_SLOT		(MPICHAN_COLL_BYTES / 32)
/* The last LM_FT_BYTES of a rank's part are fault tolerance's (ulfm.c). */
#define LM_AREA_CHANNELS	((MPICHAN_COLL_BYTES - LM_FT_BYTES) / LM_AREA_SLOT)
/* The last to arrive does O(n) work and wakes up to n - 1 sleepers. */
#define LM_AREA_MAX_RANKS	64

struct lm_area_slot {
	uint32_t count;			/* leader: members arrived */
	uint32_t bytes;			/* this member's contribution's size */
	unsigned char pad0[56];
	uint32_t gen;			/* leader: collectives completed */
	uint32_t mismatch;		/* sizes differed (the last collective) */
	uint32_t ref;			/* the size they should have had */
	unsigned char pad1[52];
	unsigned char out[LM_AREA_DATA];	/* this member's result */
	unsigned char in[LM_AREA_DATA];	/* this member's contribution */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct lm_area_slot) == LM_AREA_SLOT,
	       "a slot fills its share of the area");

static unsigned char *area;	/* NULL: the job has none */

/*
 * The collective waiting on each channel (one at a time: blocking
 * collectives on one communicator do not overlap) and, for a sleeper
 * that does not hold the library lock, what it waits for: the leader's
 * world rank + 1 in the high word, the generation it saw in the low.
 */
static struct lm_sched *waiting[LM_AREA_CHANNELS];
static struct lm_step *waiting_step[LM_AREA_CHANNELS];
static uint64_t watch[LM_AREA_CHANNELS];
static uint32_t waiting_mask;
/*
 * Arrivals waiting for the channel (only checks of nonblocking calls
 * ever do): their steps, linked by the step's unused request.
 */
static struct cds_list_head queued[LM_AREA_CHANNELS];

/* A step's count: the last to arrive judges descriptors (coll_check.c). */
#define LM_AREA_CHECK	(-1)

void lm_area_init(void)
{
	const struct mcr_ep *ep = &lm.job.ep;

	int chan;

	for (chan = 0; chan < LM_AREA_CHANNELS; chan++)
		CDS_INIT_LIST_HEAD(&queued[chan]);
	area = NULL;
	if (ep->off.coll && ep->off.coll % 64 == 0 &&
	    ep->off.coll + (uint64_t)ep->nranks * MPICHAN_COLL_BYTES <=
	    ep->off.map_size)
		area = ep->map + ep->off.coll;
}

static struct lm_area_slot *slot(int world, int chan)
{
	return (struct lm_area_slot *)(area + (uint64_t)world *
				       MPICHAN_COLL_BYTES +
				       (uint64_t)chan * LM_AREA_SLOT);
}

/*
 * The communicator's channel, or -1.  Not MPI_Comm_create_from_group's
 * agreement nor the intercommunicator creations' (LM_CTX_INTER): their
 * context id is fixed, not agreed, so two of them with the same leader
 * may overlap in time; not an intercommunicator (its local group's
 * part, lc, has the channel: the two groups' lc share the context id
 * but no member) nor its part uc of both groups (noarea).
 */
static int channel(const struct libmsg_comm *c)
{
	if (!area || c->ctx / 2 >= LM_AREA_CHANNELS || c->inter ||
	    c->noarea || c->ctx == LM_CTX_SESSION || c->ctx == LM_CTX_INTER)
		return -1;
	return (int)(c->ctx / 2);
}

int lm_area_usable(const struct libmsg_comm *c, const struct lm_coll_args *a,
		   uint64_t bytes)
{
	return a->blocking && channel(c) >= 0 &&
		c->size <= LM_AREA_MAX_RANKS && bytes <= LM_AREA_DATA;
}

int lm_area_check_usable(const struct libmsg_comm *c)
{
	return channel(c) >= 0 && c->size <= LM_AREA_MAX_RANKS;
}

static int member_dead(const struct libmsg_comm *c)
{
	return lm.job.dead_seen && lm_match_dead_source(c, MPI_ANY_SOURCE) >= 0;
}

/* Why a collective on c cannot go on: a member died, c was revoked. */
static int broken(const struct libmsg_comm *c)
{
	if (lm_ulfm_revoked(c))
		return MPI_ERR_REVOKED;
	return member_dead(c) ? MPI_ERR_PROC_FAILED : MPI_SUCCESS;
}

/*
 * A member died: it may have left its channel's count half done, so
 * the context id (and with it the channel) is not given out again.
 * Reads the kernel's word on each member, not this process's view.
 */
int lm_area_keep_ctx(const struct libmsg_comm *c)
{
	int r;

	if (channel(c) >= 0 && lm_ulfm_revoked(c))
		return 1;	/* its count may be half done too */
	if (channel(c) < 0 || !lm.job.hdr->dead_count)
		return 0;
	for (r = 0; r < c->size; r++)
		if (__atomic_load_n(&mcr_rank_ctl(&lm.job.ep,
				    (uint32_t)lm_comm_world(c, r))->state,
				    __ATOMIC_ACQUIRE) == MPICHAN_RANK_DEAD)
			return 1;
	return 0;
}

/*
 * The last to arrive: the result from the in[]s, as the step asks,
 * into every member's own out[], unless the members' sizes differ (an
 * erroneous program: MPI_ERR_TRUNCATE where messages would have found
 * it, see area_leave()).  Not one copy in the leader's slot for all to
 * read: once the generation moved, the leader may free the
 * communicator and use the channel with another one that a slow
 * member, yet to read, is not in.
 */
/*
 * The last to arrive at a check: the verdict on every member's
 * descriptor, into every member's out[] (a success is its first word).
 */
static void combine_check(const struct libmsg_comm *c, const struct lm_step *st,
			  int chan)
{
	const void *descs[LM_AREA_MAX_RANKS];
	struct lm_area_slot *me = slot((int)lm.job.rank, chan), *m;
	int32_t err;
	int r;

	for (r = 0; r < c->size; r++)
		descs[r] = slot(lm_comm_world(c, r), chan)->in;
	lm_cc_judge(descs, c->size, me->out);
	memcpy(&err, me->out, sizeof(err));
	for (r = 0; r < c->size; r++) {
		m = slot(lm_comm_world(c, r), chan);
		m->mismatch = 0;
		if (m != me)
			memcpy(m->out, me->out, err ? st->bytes : sizeof(err));
	}
}

static void combine(struct lm_sched *s, const struct lm_step *st, int chan)
{
	const struct libmsg_comm *c = s->comm;
	struct lm_area_slot *me = slot((int)lm.job.rank, chan), *m;
	uint32_t ref, mismatch = 0;
	int r;

	ref = slot(lm_comm_world(c, st->count ? 0 : st->peer), chan)->bytes;
	for (r = 0; r < c->size; r++)
		mismatch |= slot(lm_comm_world(c, r), chan)->bytes != ref;
	if (!mismatch && st->bytes && !st->count) {
		/* A broadcast: the root's contribution is the result. */
		memcpy(me->out, slot(lm_comm_world(c, st->peer), chan)->in,
		       st->bytes);
	} else if (!mismatch && st->bytes) {
		/* in[0] op (in[1] op (... op in[n - 1])): MPI's order. */
		memcpy(me->out, slot(lm_comm_world(c, c->size - 1), chan)->in,
		       st->bytes);
		for (r = c->size - 2; r >= 0; r--)
			lm_op_apply(s->op, slot(lm_comm_world(c, r), chan)->in,
				    me->out, st->count, s->dt);
	}
	for (r = 0; r < c->size; r++) {
		m = slot(lm_comm_world(c, r), chan);
		m->mismatch = mismatch;
		m->ref = ref;
		if (m != me && !mismatch && st->bytes)
			memcpy(m->out, me->out, st->bytes);
	}
}

static void wake_members(const struct libmsg_comm *c)
{
	int r, w;

	for (r = 0; r < c->size; r++) {
		w = lm_comm_world(c, r);
		if ((uint32_t)w != lm.job.rank)
			lm_notify(&lm.job, (uint32_t)w);
	}
}

/* A check's verdict, out of out[] as its generation moved. */
static void take_verdict(const struct lm_step *st, int chan)
{
	if (st->count == LM_AREA_CHECK)
		memcpy(st->dst, slot((int)lm.job.rank, chan)->out, st->bytes);
}

/*
 * Contribute, count in, and wait unless last.  held: the schedule is
 * already held (a queued arrival): release it when done here.
 */
static int arrive_now(struct lm_sched *s, struct lm_step *st, int held)
{
	const struct libmsg_comm *c = s->comm;
	int chan = channel(c), leader = lm_comm_world(c, 0);
	struct lm_area_slot *lead = slot(leader, chan), *me;
	uint32_t old;
	int err = broken(c);

	if (err) {
		if (held)
			lm_sched_release(s, err);
		return err;
	}
	me = slot((int)lm.job.rank, chan);
	if (st->src)
		memcpy(me->in, st->src, st->count == LM_AREA_CHECK ?
		       lm_cc_desc_bytes() : st->bytes);
	me->bytes = (uint32_t)st->bytes;
	old = __atomic_load_n(&lead->gen, __ATOMIC_ACQUIRE);
	if (__atomic_add_fetch(&lead->count, 1, __ATOMIC_ACQ_REL) ==
	    (uint32_t)c->size) {
		if (st->count == LM_AREA_CHECK)
			combine_check(c, st, chan);
		else
			combine(s, st, chan);
		__atomic_store_n(&lead->count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&lead->gen, old + 1, __ATOMIC_RELEASE);
		wake_members(c);
		take_verdict(st, chan);
		if (held)
			lm_sched_release(s, MPI_SUCCESS);
		return MPI_SUCCESS;
	}
	waiting[chan] = s;
	waiting_step[chan] = st;
	__atomic_store_n(&watch[chan], ((uint64_t)leader + 1) << 32 | old,
			 __ATOMIC_SEQ_CST);
	__atomic_fetch_or(&waiting_mask, 1U << chan, __ATOMIC_SEQ_CST);
	if (!held)
		lm_sched_hold(s);
	return MPI_SUCCESS;
}

/* Step of round one: arrive, or queue behind this rank's last arrival. */
static int area_arrive(struct lm_sched *s, struct lm_step *st)
{
	int chan = channel(s->comm);

	if (waiting[chan] || !cds_list_empty(&queued[chan])) {
		st->req.sched = s;
		cds_list_add_tail(&st->req.link, &queued[chan]);
		lm_sched_hold(s);
		return MPI_SUCCESS;
	}
	return arrive_now(s, st, 0);
}

/*
 * Step of round two, once the generation moved: the result, or the
 * verdict on sizes that differed.  A reduction fails everywhere (some
 * in[] was short); a broadcast only where the size was not the root's.
 */
static int area_leave(struct lm_sched *s, struct lm_step *st)
{
	const struct lm_area_slot *me = slot((int)lm.job.rank, channel(s->comm));

	if (me->mismatch && (st->count || st->bytes != me->ref))
		return MPI_ERR_TRUNCATE;
	if (st->dst)
		memcpy(st->dst, me->out, st->bytes);
	return MPI_SUCCESS;
}

/* Has the generation watched on channel chan moved? */
static int watch_done(int chan)
{
	uint64_t e = __atomic_load_n(&watch[chan], __ATOMIC_SEQ_CST);

	if (!e)
		return 0;
	return __atomic_load_n(&slot((int)(e >> 32) - 1, chan)->gen,
			       __ATOMIC_ACQUIRE) != (uint32_t)e;
}

int lm_area_ready(void)
{
	int chan;

	if (lm_ulfm_ready())
		return 1;
	/* Ordered after the caller's NEED_WAKEUP, as the wait itself is. */
	if (!__atomic_load_n(&waiting_mask, __ATOMIC_SEQ_CST))
		return 0;
	for (chan = 0; chan < LM_AREA_CHANNELS; chan++)
		if (watch_done(chan))
			return 1;
	return 0;
}

static void finish_wait(int chan, int err)
{
	struct lm_sched *s = waiting[chan];
	struct lm_step *st = waiting_step[chan];

	if (!err)
		take_verdict(st, chan);
	waiting[chan] = NULL;
	waiting_step[chan] = NULL;
	__atomic_store_n(&watch[chan], 0, __ATOMIC_SEQ_CST);
	__atomic_fetch_and(&waiting_mask, ~(1U << chan), __ATOMIC_RELAXED);
	lm_sched_release(s, err);
	/* The arrivals queued behind it, until one has to wait. */
	while (!waiting[chan] && !cds_list_empty(&queued[chan])) {
		st = caa_container_of(queued[chan].next, struct lm_step,
				      req.link);
		cds_list_del(&st->req.link);
		arrive_now(st->req.sched, st, 1);
	}
}

int lm_area_poll(void)
{
	uint32_t m = __atomic_load_n(&waiting_mask, __ATOMIC_RELAXED);
	int chan, did = 0, err;

	while (m) {
		chan = __builtin_ctz(m);
		m &= m - 1;
		if (watch_done(chan)) {
			finish_wait(chan, MPI_SUCCESS);
			did = 1;
		} else if ((err = broken(waiting[chan]->comm))) {
			finish_wait(chan, err);
			did = 1;
		}
	}
	return did;
}

/*
 * The algorithms.  A step's fields say what the last to arrive does:
 * bytes 0 nothing, count 0 copy the root's (peer) in[], else reduce
 * count elements.
 */
static int arrive(struct lm_sched *s, const void *src, uint64_t bytes,
		  int count, int root)
{
	struct lm_step *st = lm_sched_call(s, area_arrive);

	if (!st)
		return MPI_ERR_NO_MEM;
	st->src = src;
	st->bytes = bytes;
	st->count = count;
	st->peer = root;
	return lm_sched_round(s);
}

/*
 * A collective-call check (coll_check.c): desc's bytes in, and verdict
 * bytes of the judgement out as soon as everyone arrived; the step
 * after reads them.
 */
int lm_area_check(struct lm_sched *s, const void *desc, uint64_t bytes,
		  void *verdict, uint64_t vbytes)
{
	struct lm_step *st = lm_sched_call(s, area_arrive);

	(void)bytes;
	if (!st)
		return MPI_ERR_NO_MEM;
	st->src = desc;
	st->dst = verdict;
	st->bytes = vbytes;
	st->count = LM_AREA_CHECK;
	return lm_sched_round(s);
}

/* dst NULL: nothing to copy, only the verdict. */
static int leave(struct lm_sched *s, void *dst, uint64_t bytes, int count)
{
	struct lm_step *st = lm_sched_call(s, area_leave);

	if (!st)
		return MPI_ERR_NO_MEM;
	st->dst = dst;
	st->bytes = bytes;
	st->count = count;
	return MPI_SUCCESS;
}

LM_ALGO(lm_barrier_area)
{
	(void)a;
	return arrive(s, NULL, 0, 0, 0);
}

LM_ALGO(lm_allreduce_area)
{
	uint64_t bytes = (uint64_t)a->count * s->esize;
	int err = arrive(s, a->sbuf, bytes, a->count, 0);

	return err ? err : leave(s, a->rbuf, bytes, a->count);
}

LM_ALGO(lm_reduce_area)
{
	uint64_t bytes = (uint64_t)a->count * s->esize;
	int root = s->comm->rank == a->root;
	int err = arrive(s, a->sbuf, bytes, a->count, a->root);

	return err ? err : leave(s, root ? a->rbuf : NULL, bytes, a->count);
}

LM_ALGO(lm_bcast_area)
{
	int root = s->comm->rank == a->root;
	int err = arrive(s, root ? a->rbuf : NULL, a->bytes, 0, a->root);

	return err ? err : leave(s, root ? NULL : a->rbuf, a->bytes, 0);
}
