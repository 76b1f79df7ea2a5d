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
 * The judgement (judge()) is a function of the table alone, so every
 * rank reaches the same verdict and the same message.
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

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/algo/algo.h"
#include "comm/topo.h"

#define LM_TLS __thread __attribute__((tls_model("initial-exec")))

int lm_cc_on;

/* ---- The calls ------------------------------------------------------------ */

enum {
	K_BARRIER, K_BCAST, K_GATHER, K_GATHERV, K_SCATTER, K_SCATTERV,
	K_ALLGATHER, K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_ALLTOALLW,
	K_REDUCE, K_ALLREDUCE, K_REDUCE_SCATTER, K_REDUCE_SCATTER_BLOCK,
	K_SCAN, K_EXSCAN, K_NB_ALLGATHER, K_NB_ALLGATHERV, K_NB_ALLTOALL,
	K_NB_ALLTOALLV, K_NB_ALLTOALLW, K_NKINDS
};

/* Blocking and nonblocking names; persistent: the blocking one + _init. */
static const char *const names[K_NKINDS][2] = {
	{ "MPI_Barrier", "MPI_Ibarrier" },
	{ "MPI_Bcast", "MPI_Ibcast" },
	{ "MPI_Gather", "MPI_Igather" },
	{ "MPI_Gatherv", "MPI_Igatherv" },
	{ "MPI_Scatter", "MPI_Iscatter" },
	{ "MPI_Scatterv", "MPI_Iscatterv" },
	{ "MPI_Allgather", "MPI_Iallgather" },
	{ "MPI_Allgatherv", "MPI_Iallgatherv" },
	{ "MPI_Alltoall", "MPI_Ialltoall" },
	{ "MPI_Alltoallv", "MPI_Ialltoallv" },
	{ "MPI_Alltoallw", "MPI_Ialltoallw" },
	{ "MPI_Reduce", "MPI_Ireduce" },
	{ "MPI_Allreduce", "MPI_Iallreduce" },
	{ "MPI_Reduce_scatter", "MPI_Ireduce_scatter" },
	{ "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block" },
	{ "MPI_Scan", "MPI_Iscan" },
	{ "MPI_Exscan", "MPI_Iexscan" },
	{ "MPI_Neighbor_allgather", "MPI_Ineighbor_allgather" },
	{ "MPI_Neighbor_allgatherv", "MPI_Ineighbor_allgatherv" },
	{ "MPI_Neighbor_alltoall", "MPI_Ineighbor_alltoall" },
	{ "MPI_Neighbor_alltoallv", "MPI_Ineighbor_alltoallv" },
	{ "MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw" },
};

enum { V_BLOCKING, V_NONBLOCKING, V_PERSISTENT };

static int code_kind(int code)
{
	return code / 3;
}

/* "MPI_Bcast", "MPI_Ibcast", "MPI_Bcast_init". */
static const char *code_name(int code, char *buf, size_t len)
{
	int k = code_kind(code), v = code % 3;

	if (k < 0 || k >= K_NKINDS)
		snprintf(buf, len, "an unknown collective");
	else if (v != V_PERSISTENT)
		snprintf(buf, len, "%s", names[k][v]);
	else
		snprintf(buf, len, "%s_init", names[k][0]);
	return buf;
}

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
			if (!strcmp(fn, names[k][v])) {
				seen[slot] = fn;
				seen_code[slot] = k * 3 + v;
				return k * 3 + v;
			}
	return -1;
}

static int rooted(int k)
{
	return k == K_BCAST || k == K_GATHER || k == K_GATHERV ||
		k == K_SCATTER || k == K_SCATTERV || k == K_REDUCE;
}

static int reduction(int k)
{
	return k == K_REDUCE || k == K_ALLREDUCE || k == K_REDUCE_SCATTER ||
		k == K_REDUCE_SCATTER_BLOCK || k == K_SCAN || k == K_EXSCAN;
}

/* MPI_IN_PLACE on every rank or on none. */
static int in_place_all_or_none(int k)
{
	return k == K_ALLGATHER || k == K_ALLGATHERV || k == K_ALLTOALL ||
		k == K_ALLTOALLV || k == K_ALLTOALLW || k == K_ALLREDUCE ||
		k == K_REDUCE_SCATTER || k == K_REDUCE_SCATTER_BLOCK;
}

/* Blocks that differ per pair: checked pair by pair (phase 2). */
static int per_pair(int k)
{
	return k == K_GATHERV || k == K_SCATTERV || k == K_ALLGATHERV ||
		k == K_ALLTOALLV || k == K_ALLTOALLW || k >= K_NB_ALLGATHER;
}

/* ---- Descriptors ----------------------------------------------------------- */

/* One side's block: count elements of a type, as a signature. */
struct lm_cc_sig {
	uint64_t h, n;		/* the signature's hash, its basic elements */
	uint64_t bytes;
	int32_t count;
	uint16_t type;		/* LM_DT_* of a basic type, LM_DT_DERIVED */
	uint16_t basic;		/* a derived type of one basic type: its
				 * LM_DT_*; else 0xffff */
};

#define LM_CCF_IN_PLACE	1	/* MPI_IN_PLACE given */
#define LM_CCF_FAILED	2	/* the rank's own checks failed (err) */
#define LM_CCF_PAIR	4	/* phase 3: this rank found a pair that
				 * does not match (root: the sender) */
#define LM_CCF_SEND	8	/* s is set */
#define LM_CCF_RECV	16	/* r is set */

#define LM_CC_PHASE_CALL	1
#define LM_CC_PHASE_PAIRS	3

struct lm_cc_desc {
	uint16_t code;		/* kind * 3 + variant */
	uint8_t flags;		/* LM_CCF_* */
	uint8_t phase;		/* LM_CC_PHASE_* */
	int32_t root;		/* rooted calls; phase 3: the sender */
	int32_t op;		/* reductions: LM_OP_*, LM_OP_USER + 0x100 if
				 * commutative; else -1 */
	int32_t err;		/* LM_CCF_FAILED: the class it raised */
	uint64_t xhash;		/* MPI_Reduce_scatter: its recvcounts */
	struct lm_cc_sig s, r;	/* per block sent, received; phase 3: what
				 * came, what was expected */
	uint64_t pad;
};

_Static_assert(sizeof(struct lm_cc_desc) == 96, "descriptors are 96 bytes");

/* The verdict: an error class and the message every rank reports. */
#define LM_CC_MSG	152
struct lm_cc_verdict {
	int32_t err;
	int32_t len;
	char msg[LM_CC_MSG];
};

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
		int skip, const int *counts, int count,
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

/* ---- Telling what differs --------------------------------------------------- */

static const char *const op_names[] = {
	[LM_OP_MAX] = "MPI_MAX", [LM_OP_MIN] = "MPI_MIN",
	[LM_OP_SUM] = "MPI_SUM", [LM_OP_PROD] = "MPI_PROD",
	[LM_OP_LAND] = "MPI_LAND", [LM_OP_BAND] = "MPI_BAND",
	[LM_OP_LOR] = "MPI_LOR", [LM_OP_BOR] = "MPI_BOR",
	[LM_OP_LXOR] = "MPI_LXOR", [LM_OP_BXOR] = "MPI_BXOR",
	[LM_OP_MINLOC] = "MPI_MINLOC", [LM_OP_MAXLOC] = "MPI_MAXLOC",
	[LM_OP_REPLACE] = "MPI_REPLACE", [LM_OP_NO_OP] = "MPI_NO_OP",
};

static const char *op_name(int op)
{
	if (op >= 0 && op < LM_OP_USER)
		return op_names[op];
	if (op == LM_OP_USER)
		return "a non-commutative user op";
	if (op == LM_OP_USER + 0x100)
		return "a commutative user op";
	return "no op";
}

static int untyped(const struct lm_cc_sig *g)
{
	int t = g->type == LM_DT_DERIVED ? g->basic : g->type;

	return t == LM_DT_BYTE || t == LM_DT_PACKED;
}

/* Do the blocks match?  Bytes and packed data match any by their size. */
static int sig_match(const struct lm_cc_sig *a, const struct lm_cc_sig *b)
{
	if (untyped(a) || untyped(b))
		return a->bytes == b->bytes;
	return a->h == b->h && a->n == b->n;
}

/* The same basic type on both sides, only counts differ. */
static int count_only(const struct lm_cc_sig *a, const struct lm_cc_sig *b)
{
	int ta = a->type == LM_DT_DERIVED ? a->basic : a->type;
	int tb = b->type == LM_DT_DERIVED ? b->basic : b->type;

	return ta == tb && ta != 0xffff;
}

/* "4 x MPI_INT", "1 x a derived type of 4 MPI_INT" */
static const char *sig_str(const struct lm_cc_sig *g, char *buf, size_t len)
{
	uint64_t per;

	if (g->type != LM_DT_DERIVED) {
		snprintf(buf, len, "%d x %s", g->count,
			 lm_dt_index_name(g->type));
		return buf;
	}
	per = g->count ? g->n / (uint64_t)g->count : 0;
	if (g->basic != 0xffff) {
		if (g->basic >= LM_DT_FLOAT_INT && g->basic <= LM_DT_2INTEGER)
			per /= 2;
		snprintf(buf, len, "%d x a derived type of %llu %s", g->count,
			 (unsigned long long)per, lm_dt_index_name(g->basic));
	} else {
		snprintf(buf, len, "%d x a derived type of %llu basic elements",
			 g->count, (unsigned long long)per);
	}
	return buf;
}

struct msgbuf {
	char *p;
	size_t left;
};

static void put(struct msgbuf *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct msgbuf *m, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (m->left <= 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(m->p, m->left, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	if ((size_t)k >= m->left)
		k = (int)m->left - 1;
	m->p += k;
	m->left -= (size_t)k;
}

/* "rank 3", "ranks 0-2,5": the ranks r with key[r] == key. */
static void put_ranks(struct msgbuf *m, const uint64_t *keys, int n,
		      uint64_t key)
{
	int r, first = -1, count = 0, pieces = 0, a;

	for (r = 0; r < n; r++)
		count += keys[r] == key;
	put(m, "%s ", count == 1 ? "rank" : "ranks");
	for (r = 0; r <= n; r++) {
		if (r < n && keys[r] == key) {
			if (first < 0)
				first = r;
			continue;
		}
		if (first < 0)
			continue;
		a = r - 1;
		if (pieces == 6) {
			put(m, ",...");
			return;
		}
		put(m, "%s%d", pieces ? "," : "", first);
		if (a > first)
			put(m, "-%d", a);
		pieces++;
		first = -1;
	}
}

/*
 * Groups of ranks by key, in order of their lowest rank:
 * "ranks 0-2 called F <what of group 1>, rank 3 <what of group 2>"
 * (at most four groups, then "...").
 */
static void put_groups(struct msgbuf *m, const uint64_t *keys, int n,
		       const char *fn, void (*what)(struct msgbuf *m,
						     uint64_t key, int g,
						     void *arg),
		       void *arg)
{
	uint64_t seen[4];
	int r, g = 0, j;

	for (r = 0; r < n; r++) {
		for (j = 0; j < g && seen[j] != keys[r]; j++)
			;
		if (j < g)
			continue;
		if (g == 4) {
			put(m, ", ...");
			return;
		}
		seen[g] = keys[r];
		if (g)
			put(m, ", ");
		put_ranks(m, keys, n, keys[r]);
		if (!g)
			put(m, " called %s", fn);
		what(m, keys[r], g, arg);
		g++;
	}
}

static void what_call(struct msgbuf *m, uint64_t key, int g, void *arg)
{
	char b[48];

	(void)arg;
	if (g)
		put(m, " %s", code_name((int)key, b, sizeof(b)));
}

static void what_root(struct msgbuf *m, uint64_t key, int g, void *arg)
{
	(void)g;
	(void)arg;
	put(m, " with root %d", (int)(int64_t)key);
}

static void what_op(struct msgbuf *m, uint64_t key, int g, void *arg)
{
	(void)g;
	(void)arg;
	put(m, " with %s", op_name((int)(int64_t)key));
}

static void what_in_place(struct msgbuf *m, uint64_t key, int g, void *arg)
{
	(void)g;
	(void)arg;
	put(m, key ? " with MPI_IN_PLACE" : " without");
}

static void what_counts(struct msgbuf *m, uint64_t key, int g, void *arg)
{
	(void)key;
	(void)arg;
	put(m, g ? " with another" : " with one recvcounts array");
}

/* ---- The judgement ------------------------------------------------------- */

struct judge {
	const struct lm_cc_desc *const *d;
	int n;
	uint64_t *keys;
	struct lm_cc_verdict *v;
	struct msgbuf m;
	char fn[48];
};

/* "MPI_ERR_BUFFER": a class's name, from its string. */
static const char *class_name(int err, char *buf)
{
	int len = 0;
	char *colon;

	if (MPI_Error_string(err, buf, &len) != MPI_SUCCESS) {
		snprintf(buf, MPI_MAX_ERROR_STRING, "error class %d", err);
		return buf;
	}
	colon = strchr(buf, ':');
	if (colon)
		*colon = 0;
	return buf;
}

static void fail(struct judge *j, int err)
{
	j->v->err = err;
}

/* Ranks differ in key(d): the message groups them. */
static int differ(struct judge *j, uint64_t (*key)(const struct lm_cc_desc *d),
		  void (*what)(struct msgbuf *m, uint64_t key, int g, void *arg),
		  int err)
{
	int r, diff = 0;

	for (r = 0; r < j->n; r++) {
		j->keys[r] = key(j->d[r]);
		diff |= j->keys[r] != j->keys[0];
	}
	if (!diff)
		return 0;
	put_groups(&j->m, j->keys, j->n, j->fn, what, NULL);
	fail(j, err);
	return 1;
}

static uint64_t key_call(const struct lm_cc_desc *d)
{
	return d->code;
}

static uint64_t key_root(const struct lm_cc_desc *d)
{
	return (uint64_t)(int64_t)d->root;
}

static uint64_t key_op(const struct lm_cc_desc *d)
{
	return (uint64_t)(int64_t)d->op;
}

static uint64_t key_in_place(const struct lm_cc_desc *d)
{
	return !!(d->flags & LM_CCF_IN_PLACE);
}

static uint64_t key_counts(const struct lm_cc_desc *d)
{
	return d->xhash;
}

/* "rank i sends X to rank k in F, rank k expects Y" */
static void pair_fail(struct judge *j, int from, const struct lm_cc_sig *x,
		      int to, const struct lm_cc_sig *y)
{
	char a[64], b[64];

	put(&j->m, "rank %d sends %s to rank %d in %s, rank %d expects %s",
	    from, sig_str(x, a, sizeof(a)), to, j->fn, to,
	    sig_str(y, b, sizeof(b)));
	fail(j, count_only(x, y) ? MPI_ERR_COUNT : MPI_ERR_TYPE);
}

/* "rank 3 called F with X, rank 0 with Y" (reductions) */
static void same_fail(struct judge *j, int r, int ref)
{
	char a[64], b[64];

	put(&j->m, "rank %d called %s with %s, rank %d with %s", r, j->fn,
	    sig_str(&j->d[r]->s, a, sizeof(a)), ref,
	    sig_str(&j->d[ref]->s, b, sizeof(b)));
	fail(j, count_only(&j->d[r]->s, &j->d[ref]->s) ? MPI_ERR_COUNT :
	     MPI_ERR_TYPE);
}

/* What rank i sends every other rank, all-to-all style (in place: r). */
static const struct lm_cc_sig *sent(const struct lm_cc_desc *d)
{
	return d->flags & LM_CCF_IN_PLACE ? &d->r : &d->s;
}

static int same_sig(const struct lm_cc_sig *a, const struct lm_cc_sig *b)
{
	return a->h == b->h && a->n == b->n && a->bytes == b->bytes &&
		a->type == b->type && a->basic == b->basic;
}

/* Every rank's block against every rank's expectation. */
static void all_pairs(struct judge *j)
{
	int i, k, uniform = 1;

	for (i = 1; i < j->n && uniform; i++)
		uniform = same_sig(sent(j->d[i]), sent(j->d[0])) &&
			same_sig(&j->d[i]->r, &j->d[0]->r);
	if (uniform) {
		if (!sig_match(sent(j->d[0]), &j->d[0]->r))
			pair_fail(j, j->n > 1, sent(j->d[j->n > 1]), 0,
				  &j->d[0]->r);
		return;
	}
	for (k = 0; k < j->n; k++)
		for (i = 0; i < j->n; i++)
			if (!sig_match(sent(j->d[i]), &j->d[k]->r)) {
				pair_fail(j, i, sent(j->d[i]), k, &j->d[k]->r);
				return;
			}
}

static void judge_call(struct judge *j)
{
	const struct lm_cc_desc *const *d = j->d;
	int n = j->n, k = code_kind(d[0]->code), r, root, first = -1;

	/* A rank whose own checks failed: everyone fails with it. */
	for (r = 0; r < n; r++) {
		j->keys[r] = !!(d[r]->flags & LM_CCF_FAILED);
		if (j->keys[r] && first < 0)
			first = r;
	}
	if (first >= 0) {
		char b[48], c[MPI_MAX_ERROR_STRING];
		int nfailed = 0;

		for (r = 0; r < n; r++)
			nfailed += (int)j->keys[r];
		put_ranks(&j->m, j->keys, n, 1);
		put(&j->m, " rejected %s arguments to %s (%s)",
		    nfailed == 1 ? "its" : "their",
		    code_name(d[first]->code, b, sizeof(b)),
		    class_name(d[first]->err, c));
		fail(j, d[first]->err);
		return;
	}
	if (differ(j, key_call, what_call, MPI_ERR_OTHER))
		return;
	if (rooted(k) && differ(j, key_root, what_root, MPI_ERR_ROOT))
		return;
	if (reduction(k) && differ(j, key_op, what_op, MPI_ERR_OP))
		return;
	if (in_place_all_or_none(k) &&
	    differ(j, key_in_place, what_in_place, MPI_ERR_BUFFER))
		return;
	if (k == K_REDUCE_SCATTER &&
	    differ(j, key_counts, what_counts, MPI_ERR_COUNT))
		return;
	root = d[0]->root;
	switch (k) {
	case K_BCAST:
		for (r = 0; r < n; r++)
			if (r != root && !sig_match(&d[root]->s, &d[r]->s)) {
				pair_fail(j, root, &d[root]->s, r, &d[r]->s);
				return;
			}
		break;
	case K_GATHER:
		for (r = 0; r < n; r++) {
			if (d[r]->flags & LM_CCF_IN_PLACE)
				continue;
			if (!sig_match(&d[r]->s, &d[root]->r)) {
				pair_fail(j, r, &d[r]->s, root, &d[root]->r);
				return;
			}
		}
		break;
	case K_SCATTER:
		for (r = 0; r < n; r++) {
			if (d[r]->flags & LM_CCF_IN_PLACE)
				continue;
			if (!sig_match(&d[root]->s, &d[r]->r)) {
				pair_fail(j, root, &d[root]->s, r, &d[r]->r);
				return;
			}
		}
		break;
	case K_ALLGATHER:
	case K_ALLTOALL:
		all_pairs(j);
		break;
	case K_REDUCE:
	case K_ALLREDUCE:
	case K_REDUCE_SCATTER:
	case K_REDUCE_SCATTER_BLOCK:
	case K_SCAN:
	case K_EXSCAN:
		root = k == K_REDUCE ? root : 0;
		for (r = 0; r < n; r++)
			if (!sig_match(&d[r]->s, &d[root]->s)) {
				same_fail(j, r, root);
				return;
			}
		break;
	default:
		break;
	}
}

/* Phase 3: the lowest rank that received a block it did not expect. */
static void judge_pairs(struct judge *j)
{
	int r;

	for (r = 0; r < j->n; r++)
		if (j->d[r]->flags & LM_CCF_PAIR) {
			pair_fail(j, j->d[r]->root, &j->d[r]->s, r, &j->d[r]->r);
			return;
		}
}

/* The verdict on a table of n descriptors, the same on every rank. */
static void judge(const struct lm_cc_desc *const *d, int n,
		  struct lm_cc_verdict *v)
{
	struct judge j = { d, n, NULL, v, { v->msg, sizeof(v->msg) }, "" };
	uint64_t small[64];

	v->err = MPI_SUCCESS;
	v->msg[0] = 0;
	j.keys = n <= 64 ? small : malloc((size_t)n * sizeof(*j.keys));
	if (!j.keys) {
		v->err = MPI_ERR_NO_MEM;
		snprintf(v->msg, sizeof(v->msg), "out of memory to check the call");
		return;
	}
	code_name(d[0]->code, j.fn, sizeof(j.fn));
	put(&j.m, "collective mismatch: ");
	if (d[0]->phase == LM_CC_PHASE_PAIRS)
		judge_pairs(&j);
	else
		judge_call(&j);
	if (j.keys != small)
		free(j.keys);
	v->len = (int32_t)strlen(v->msg);
}

/* The area's last arrival (coll_area.c): judge, a verdict for all. */
void lm_cc_judge(const void *const *descs, int n, void *verdict)
{
	judge((const struct lm_cc_desc *const *)descs, n, verdict);
}

uint64_t lm_cc_desc_bytes(void)
{
	return sizeof(struct lm_cc_desc);
}

uint64_t lm_cc_verdict_bytes(void)
{
	return sizeof(struct lm_cc_verdict);
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
		judge(d, n, &run->v);
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
