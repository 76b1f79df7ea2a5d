// SPDX-License-Identifier: MIT
/*
 * Collective-call verification (MPICHAN_CHECK=coll; after Träff and
 * Worringen, "Verifying collective MPI calls", EuroPVM/MPI 2004).
 *
 * MPI requires every rank of a communicator to make the same
 * collective calls in the same order, with the same root and op,
 * matching type signatures and a consistent MPI_IN_PLACE; a program
 * that does not gets wrong data or a hang.  In check mode every
 * collective call first agrees on what it is, and runs only when all
 * ranks called the same thing; otherwise every rank gets the same
 * error, naming the call, the ranks and what differed, and nothing of
 * the collective's data is moved.
 *
 * Phase 1.  Each rank describes its call in a fixed-size descriptor
 * (struct lm_cc_desc): which call (MPI_Bcast, MPI_Ibcast and
 * MPI_Bcast_init's start are three different ones), root, op, whether
 * MPI_IN_PLACE was given, and what it sends and receives per block as
 * signatures (datatype/dtype_sig.c: a hash of the basic-type sequence
 * and its length, so 4 x MPI_INT equals one contiguous type of 4 ints).
 * The descriptors are exchanged by a fixed algorithm on the call's own
 * collective tag, before the real algorithm's first round, so ranks
 * that called different collectives still exchange them with each
 * other:
 *   - on a communicator that has a channel in the job's collective area
 *     (coll_area.c), one area round: each member writes its descriptor
 *     into its slot and the last to arrive judges them all and writes
 *     the verdict into every member's slot: one shared count and no
 *     message, whether the call is blocking or not (nonblocking checks
 *     queue on the channel);
 *   - elsewhere, a Bruck allgather of the descriptors (ceil(log2 n)
 *     rounds), after which each rank judges the same table.
 * The judgement (coll_check_judge.c) is a function of the table alone,
 * so every rank reaches the same verdict and the same message.
 *
 * Phase 2, for the v/w variants and the neighbourhood collectives,
 * whose blocks differ per pair: each rank sends every peer it sends
 * data to the signature of that block (32 bytes), along the same edges
 * as the data, and compares what arrives with what it expects.  Phase
 * 3 agrees on the result as phase 1 does, so everyone hears of the
 * first mismatching pair.
 *
 * A rank whose own argument checks fail before its schedule starts
 * (a bad root, MPI_IN_PLACE on a rank that is not the root) still
 * takes part in phase 1, with a descriptor that says so (lm_cc_error,
 * from lm_error): the others fail with it instead of waiting for it.
 *
 * A barrier needs nothing more than phase 1: nobody leaves an area
 * round or a Bruck allgather before everyone arrived.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_check.h"
#include "comm/topo.h"

#define LM_TLS __thread __attribute__((tls_model("initial-exec")))

int lm_cc_on;
/* ---- The calls ------------------------------------------------------------ */

/*
 * The call a function name is, as kind * 3 + variant, or -1 (the
 * persistent inits, which are local).  Names are string literals: the
 * last few seen are remembered by address.
 */
static int name_code(const char *fn)
{
	static const char *seen[16];
	static int seen_code[16];
	unsigned int slot = (unsigned int)((uintptr_t)fn >> 3) & 15;
	int k, v;

	if (seen[slot] == fn)
		return seen_code[slot];
	for (k = 0; k < K_NKINDS; k++)
		for (v = 0; v < 2; v++)
			if (!strcmp(fn, lm_cc_names[k][v])) {
				seen[slot] = fn;
				seen_code[slot] = k * 3 + v;
				return k * 3 + v;
			}
	return -1;
}

/* ---- The call being made ----------------------------------------------- */

struct cc_call {
	struct libmsg_comm *comm;
	uint32_t seq;		/* comm->coll_seq as the call began: its tag */
	int live;		/* begun, schedule not started */
	struct lm_cc_desc d;
	/* Phase 2: this rank's edges, in the order the data takes them. */
	int pairs;		/* per-pair blocks are described */
	int nout, nin, cart;
	const int *out, *in;	/* communicator ranks, MPI_PROC_NULL */
	struct lm_cc_sig *osig, *isig;
};

static LM_TLS struct cc_call cur;

static void sig_fill(struct lm_cc_sig *g, int64_t count, MPI_Datatype dt)
{
	struct lm_sig s;
	uint64_t per;

	memset(g, 0, sizeof(*g));
	g->basic = 0xffff;
	if (!dt || lm_check_datatype(dt) || count < 0)
		return;
	lm_sig_count(dt, count, &s);
	per = dt->layout ? dt->layout->nelem : lm_dt_basic_elements(dt);
	g->h = s.h;
	g->n = per * (uint64_t)count;
	g->bytes = (uint64_t)count * (uint64_t)dt->size;
	g->count = (int32_t)count;
	g->type = (uint16_t)(dt->index < LM_DT_NTYPES ? dt->index :
			     LM_DT_DERIVED);
	if (dt->index >= LM_DT_NTYPES && dt->basic)
		g->basic = (uint16_t)dt->basic->index;
}

void lm_cc_begin(const char *fn, struct libmsg_comm *comm)
{
	int code = name_code(fn);

	cur.live = 0;
	if (code < 0)
		return;
	memset(&cur.d, 0, sizeof(cur.d));
	cur.comm = comm;
	cur.seq = comm->coll_seq;
	cur.d.code = (uint16_t)(code + (lm_pcoll_into ? V_PERSISTENT -
					code % 3 : 0));
	cur.d.phase = LM_CC_PHASE_CALL;
	cur.d.root = -1;
	cur.d.op = -1;
	cur.pairs = 0;
	cur.nout = cur.nin = cur.cart = 0;
	cur.live = 1;
}

void lm_cc_args(int root, MPI_Op op, int in_place, int64_t scount,
		MPI_Datatype stype, int64_t rcount, MPI_Datatype rtype)
{
	if (!cur.live)
		return;
	cur.d.root = root;
	if (op)
		cur.d.op = op->predefined ? op->id :
			LM_OP_USER + (op->commute ? 0x100 : 0);
	if (in_place)
		cur.d.flags |= LM_CCF_IN_PLACE;
	if (stype) {
		sig_fill(&cur.d.s, scount, stype);
		cur.d.flags |= LM_CCF_SEND;
	}
	if (rtype) {
		sig_fill(&cur.d.r, rcount, rtype);
		cur.d.flags |= LM_CCF_RECV;
	}
}

void lm_cc_counts(const int *counts, int n)
{
	uint64_t h = 1469598103934665603ULL;
	int i;

	if (!cur.live)
		return;
	for (i = 0; i < n; i++) {
		h ^= (uint32_t)counts[i];
		h *= 1099511628211ULL;
	}
	cur.d.xhash = h;
}

int lm_cc_edges(struct lm_sched *s, int recv, int n, const int *peers,
		int skip, const int64_t *counts, int64_t count,
		const MPI_Datatype *types, MPI_Datatype dt)
{
	struct lm_cc_sig *g;
	int *p, i, k = 0;

	if (!cur.live)
		return MPI_SUCCESS;
	/* Kept with the schedule: a nonblocking call's arrays may go. */
	g = lm_sched_tmp(s, (uint64_t)(n + 1) * sizeof(*g));
	p = lm_sched_tmp(s, (uint64_t)(n + 1) * sizeof(*p));
	if (!g || !p)
		return MPI_ERR_NO_MEM;
	for (i = 0; i < n; i++) {
		if (!peers && i == skip)
			continue;
		sig_fill(&g[k], counts ? counts[i] : count,
			 types ? types[i] : dt);
		p[k++] = peers ? peers[i] : i;
	}
	cur.pairs = 1;
	if (recv) {
		cur.nin = k;
		cur.in = p;
		cur.isig = g;
	} else {
		cur.nout = k;
		cur.out = p;
		cur.osig = g;
	}
	return MPI_SUCCESS;
}

void lm_cc_cart(int cart)
{
	cur.cart = cart;
}

/* ---- Messages for the calls that report the error ------------------------ */

/* The last failed verdicts, by communicator, until a call reports them. */
#define LM_CC_WHY 8
static struct {
	const struct libmsg_comm *comm;
	int err;
	char msg[LM_CC_MSG];
} why[LM_CC_WHY];
static int why_next;

static void why_keep(const struct libmsg_comm *comm, const struct lm_cc_verdict *v)
{
	int i = why_next++ % LM_CC_WHY;

	why[i].comm = comm;
	why[i].err = v->err;
	memcpy(why[i].msg, v->msg, sizeof(why[i].msg));
	why[i].msg[LM_CC_MSG - 1] = 0;
}

const char *lm_cc_why(const struct libmsg_comm *comm, int err)
{
	static LM_TLS char out[LM_CC_MSG];
	int i, k;

	/* Newest first. */
	for (k = 1; k <= LM_CC_WHY; k++) {
		i = (why_next - k + 2 * LM_CC_WHY) % LM_CC_WHY;
		if (why[i].comm == comm && why[i].err == err && why[i].msg[0]) {
			memcpy(out, why[i].msg, sizeof(out));
			why[i].msg[0] = 0;
			why[i].comm = NULL;
			return out;
		}
	}
	return NULL;
}

/* ---- The rounds ----------------------------------------------------------- */

/* A check's state in its schedule: descriptor, table, verdict. */
struct cc_run {
	struct lm_cc_desc me;		/* this rank's descriptor */
	struct lm_cc_verdict v;
	struct lm_cc_desc *table;	/* message mode: everyone's */
	int failed;			/* this rank's own checks failed */
};

/*
 * The step after an agreement: the verdict (area: written by the last
 * to arrive; messages: judged here from the table).
 */
static int verdict_step(struct lm_sched *s, struct lm_step *st)
{
	struct cc_run *run = (struct cc_run *)st->dst;
	const struct lm_cc_desc **d;
	int n = s->comm->size, r;

	if (run->table) {
		d = n <= 64 ? (const struct lm_cc_desc **)lm_sched_tmp(s,
			(uint64_t)n * sizeof(*d)) :
			malloc((size_t)n * sizeof(*d));
		if (!d)
			return MPI_ERR_NO_MEM;
		for (r = 0; r < n; r++)
			d[r] = &run->table[r];
		lm_cc_verdict_of(d, n, &run->v);
		if (n > 64)
			free(d);
	}
	if (run->v.err == MPI_SUCCESS)
		return MPI_SUCCESS;
	run->v.msg[LM_CC_MSG - 1] = 0;
	if (!run->failed)
		why_keep(s->comm, &run->v);
	return run->v.err;
}

/*
 * Agree on run->me: an area round where the communicator has a channel,
 * else a Bruck allgather; then the verdict, in a round of its own (an
 * error there stops the schedule before anything else is posted).
 */
static int agree(struct lm_sched *s, struct cc_run *run)
{
	struct lm_coll_args a = { 0 };
	struct lm_step *st;
	int n = s->comm->size;

	run->table = NULL;
	run->v.err = MPI_SUCCESS;
	if (lm_area_check_usable(s->comm)) {
		TRY(lm_area_check(s, &run->me, sizeof(run->me), &run->v,
				  sizeof(run->v)));
	} else {
		run->table = lm_sched_tmp(s, (uint64_t)n * sizeof(*run->table));
		if (!run->table)
			return MPI_ERR_NO_MEM;
		a.sbuf = &run->me;
		a.rbuf = run->table;
		a.bytes = sizeof(run->me);
		TRY(lm_allgather_bruck(s, &a));
		TRY(lm_sched_round(s));
	}
	st = lm_sched_call(s, verdict_step);
	if (!st)
		return MPI_ERR_NO_MEM;
	st->dst = run;
	return lm_sched_round(s);
}

/* Phase 2's state: the signatures that came, what each in-edge expects. */
struct cc_pairs {
	struct cc_run run;		/* phase 3 */
	int nin;
	const int *in;
	struct lm_cc_sig *got, *want;
	int code;
};

/* After the exchange: the first in-edge whose block is not expected. */
static int pairs_step(struct lm_sched *s, struct lm_step *st)
{
	struct cc_pairs *p = (struct cc_pairs *)st->dst;
	struct lm_cc_desc *me = &p->run.me;
	int k;

	(void)s;
	memset(me, 0, sizeof(*me));
	me->code = (uint16_t)p->code;
	me->phase = LM_CC_PHASE_PAIRS;
	me->root = -1;
	me->op = -1;
	/* got[k] came from in[k], as the data's block k will. */
	for (k = 0; k < p->nin; k++) {
		if (p->in[k] == MPI_PROC_NULL)
			continue;
		if (!sig_match(&p->got[k], &p->want[k])) {
			me->flags = LM_CCF_PAIR;
			me->root = p->in[k];
			me->s = p->got[k];
			me->r = p->want[k];
			break;
		}
	}
	return MPI_SUCCESS;
}

/* Phase 2: the block signatures along the data's own edges, then phase 3. */
static int pairs(struct lm_sched *s)
{
	struct lm_coll_args a = { 0 };
	struct cc_pairs *p = lm_sched_tmp(s, sizeof(*p));
	uint64_t *arr;
	struct lm_step *st;
	int k, m = cur.nin > cur.nout ? cur.nin : cur.nout;

	arr = lm_sched_tmp(s, 2 * ((uint64_t)m + 1) * sizeof(*arr));
	if (!p || !arr)
		return MPI_ERR_NO_MEM;
	memset(p, 0, sizeof(*p));
	p->got = lm_sched_tmp(s, ((uint64_t)cur.nin + 1) * sizeof(*p->got));
	if (!p->got)
		return MPI_ERR_NO_MEM;
	p->nin = cur.nin;
	p->in = cur.in;
	p->want = cur.isig;
	p->code = cur.d.code;
	for (k = 0; k <= m; k++) {
		arr[k] = sizeof(struct lm_cc_sig);
		arr[m + 1 + k] = (uint64_t)k * sizeof(struct lm_cc_sig);
	}
	a.in = cur.in;
	a.out = cur.out;
	a.indeg = cur.nin;
	a.outdeg = cur.nout;
	a.cart = cur.cart;
	a.sbuf = cur.osig;
	a.rbuf = p->got;
	a.scounts = a.rcounts = arr;
	a.sdispls = a.rdispls = arr + m + 1;
	TRY(lm_neighbor_exchange(s, &a));
	st = lm_sched_call(s, pairs_step);
	if (!st)
		return MPI_ERR_NO_MEM;
	st->dst = p;
	return agree(s, &p->run);
}

/*
 * lm_coll_run: the check's rounds go first.  *done: the check was the
 * whole collective (a barrier).
 */
int lm_cc_rounds(struct lm_sched *s, int *done)
{
	struct cc_run *run;
	int k;

	*done = 0;
	if (!cur.live || cur.comm != s->comm)
		return MPI_SUCCESS;
	run = lm_sched_tmp(s, sizeof(*run));
	if (!run)
		return MPI_ERR_NO_MEM;
	memset(run, 0, sizeof(*run));
	run->me = cur.d;
	TRY(agree(s, run));
	k = code_kind(cur.d.code);
	if (per_pair(k) && cur.pairs)
		TRY(pairs(s));
	*done = k == K_BARRIER;
	return MPI_SUCCESS;
}

/* The schedule starts: errors from here on are the schedule's. */
void lm_cc_started(void)
{
	cur.live = 0;
}

/*
 * lm_error: a collective call failed its own checks before its
 * schedule started.  The others are, or will be, in phase 1 of the
 * same call: take part with a descriptor that says so, in a schedule
 * of its own under a request nobody waits for.
 */
void lm_cc_error(struct libmsg_comm *comm, int err)
{
	struct libmsg_comm *c = cur.comm;
	struct libmsg_request *req;
	struct lm_sched *s;
	struct cc_run *run;

	(void)comm;
	if (!cur.live)
		return;
	cur.live = 0;
	if (!c || c->magic != LM_MAGIC_COMM)
		return;
	s = lm_sched_new(c);
	req = lm_req_new(LM_REQ_COLL);
	run = s ? lm_sched_tmp(s, sizeof(*run)) : NULL;
	if (!run || !req)
		goto fail;
	/* The call's own tag, whether or not its schedule took one. */
	s->tag = (int)(cur.seq & MPI_TAG_UB_VALUE);
	c->coll_seq = cur.seq + 1;
	memset(run, 0, sizeof(*run));
	run->me = cur.d;
	run->me.flags |= LM_CCF_FAILED;
	run->me.err = err;
	run->failed = 1;
	if (agree(s, run))
		goto fail;
	req->comm = c;
	req->freed = 1;
	lm_sched_start(s, req);
	return;
fail:
	if (s)
		lm_sched_free(s);
	if (req)
		lm_req_release(req);
}

/* MPICHAN_CHECK: a comma-separated list of what to check. */
void lm_cc_init(void)
{
	const char *v = getenv("MPICHAN_CHECK");
	char buf[128], *w, *save = NULL;

	lm_cc_on = 0;
	if (!v || !*v)
		return;
	snprintf(buf, sizeof(buf), "%s", v);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "coll"))
			lm_cc_on = 1;
		else if (strcmp(w, "none"))
			lm_fatal("MPICHAN_CHECK=%s: use coll (or none)", v);
	}
}
