// SPDX-License-Identifier: MIT
/*
 * Collective-call verification, the verdict (see coll_check.c for the
 * whole): given every rank's descriptor of its call, say whether they
 * are the same collective with the same root, op, MPI_IN_PLACE use and
 * matching type signatures, and if not, an error class and one message
 * naming the call, the ranks and what differed.  A function of the
 * table alone, so every rank that judges it (or reads the area's
 * verdict) reports the same.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_check.h"

/* ---- The calls ------------------------------------------------------------ */

/* Persistent: the blocking one + _init. */
const char *const lm_cc_names[K_NKINDS][2] = {
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

const char *lm_cc_code_name(int code, char *buf, size_t len)
{
	int k = code_kind(code), v = code % 3;

	if (k < 0 || k >= K_NKINDS)
		snprintf(buf, len, "an unknown collective");
	else if (v != V_PERSISTENT)
		snprintf(buf, len, "%s", lm_cc_names[k][v]);
	else
		snprintf(buf, len, "%s_init", lm_cc_names[k][0]);
	return buf;
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
		put(m, " %s", lm_cc_code_name((int)key, b, sizeof(b)));
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
		    lm_cc_code_name(d[first]->code, b, sizeof(b)),
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

void lm_cc_verdict_of(const struct lm_cc_desc *const *d, int n,
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
	lm_cc_code_name(d[0]->code, j.fn, sizeof(j.fn));
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
	lm_cc_verdict_of((const struct lm_cc_desc *const *)descs, n, verdict);
}

uint64_t lm_cc_desc_bytes(void)
{
	return sizeof(struct lm_cc_desc);
}

uint64_t lm_cc_verdict_bytes(void)
{
	return sizeof(struct lm_cc_verdict);
}
