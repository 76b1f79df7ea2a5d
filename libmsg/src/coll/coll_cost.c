// SPDX-License-Identifier: MIT
/*
 * The collective algorithms' cost models (coll_cost.h has the terms),
 * each the one its algorithm file states in its opening comment, and
 * their parameters: built in, or read from MPICHAN_COLL_PARAMS's file
 * (tools/bench/coll-params writes one for the machine it runs on).
 *
 * n ranks, b bytes (lm_coll_args.bytes: the whole vector of a bcast or
 * a reduction, one rank's block of a gather or allgather, one
 * destination's of an alltoall), lg = ceil(log2 n), p the largest power
 * of two <= n.  msg(b) = a + b beta + extra(b), where extra(b) is the
 * ring's second copy under the eager limit and the larger of the
 * handshake and the limit's second copy above it (so that a cost never
 * falls as b grows); R = the round's scheduler pass when oversubscribed.
 *
 * The area's rooted collectives (bcast, reduce) have no model: their
 * ranks all wait for the last one to arrive, where a tree lets a leaf
 * go as soon as its data is in, which a per-call cost does not show (in
 * the VM, 8 B bcast on 4 ranks took 45 µs against 3.5 with messages).
 * Forced, they still run.
 */

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/algo/algo.h"
#include "coll/coll_cost.h"

typedef const struct lm_cost_params P;
typedef const struct lm_cost_case K;

static int lg(int n)
{
	int r = 0;

	while ((1 << r) < n)
		r++;
	return r;
}

static int pof2(int n)
{
	int p = 1;

	while (p * 2 <= n)
		p *= 2;
	return p;
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static double line(P *p, K *k)
{
	return k->far ? p->line_far : p->line;
}

/* One message's fixed cost: ranks across caches pay two more handoffs. */
static double al(P *p, K *k)
{
	return p->alpha + (k->far ? 2 * (p->line_far - p->line) : 0);
}

/* A dependent round's scheduler pass. */
static double rnd(P *p, K *k)
{
	return k->over > 1 ? p->sched * k->over : 0;
}

/* Per-message cost of b bytes beyond alpha. */
static double bytes(P *p, double b)
{
	double extra = b <= (double)p->eager ? b * p->beta :
		max2(p->rndv, (double)p->eager * p->beta);

	return b * p->beta + extra;
}

static double msg(P *p, K *k, double b)
{
	return al(p, k) + bytes(p, b);
}

/* Ranks beyond p fold into a partner first and get the result last. */
static double fold(P *p, K *k, double b, int back)
{
	if (k->n == pof2(k->n))
		return 0;
	return (1 + back) * (msg(p, k, b) + rnd(p, k)) + b * p->gamma;
}

#define N	((double)k->n)
#define B	((double)k->bytes)
#define LG	((double)lg(k->n))
#define COST(f)	static double f(P *p, K *k)

/* ---- barrier ---- */
COST(barrier_area)
{
	return (N + 1) * line(p, k) + rnd(p, k);
}

COST(barrier_dissemination)
{
	return LG * (al(p, k) + rnd(p, k));
}

COST(barrier_recursive_doubling)
{
	return (lg(pof2(k->n)) + (k->n != pof2(k->n) ? 2 : 0)) *
		(al(p, k) + rnd(p, k));
}

/* ---- bcast ---- */
COST(bcast_binomial)
{
	return LG * (msg(p, k, B) + rnd(p, k));
}

COST(bcast_knomial)
{
	double levels = (lg(k->n) + 1) / 2;

	return levels * (3 * msg(p, k, B) + rnd(p, k));
}

COST(bcast_linear)
{
	return (N - 1) * msg(p, k, B) + rnd(p, k);
}

COST(bcast_scatter_allgather)
{
	double c = B / N;

	return LG * (al(p, k) + rnd(p, k)) + (N - 1) / N * bytes(p, B) +
		(N - 1) * (msg(p, k, c) + rnd(p, k));
}

/* n - 1 offers and acks through the root, every copy at once from it. */
COST(bcast_direct)
{
	return p->rndv + (N - 1) * al(p, k) + 2 * rnd(p, k) +
		B * p->beta * max2(1, (N - 1) / p->copies);
}

/* ---- gather, scatter (b: one rank's block) ---- */
COST(gather_binomial)
{
	return LG * (al(p, k) + rnd(p, k)) + (N - 1) * bytes(p, B);
}

COST(gather_linear)
{
	return (N - 1) * msg(p, k, B) + rnd(p, k);
}

/* ---- allgather (b: one rank's block) ---- */
COST(allgather_recursive_doubling)
{
	return LG * (al(p, k) + rnd(p, k)) + (N - 1) * bytes(p, B);
}

/* The same exchanges, and a last rotation of all n blocks. */
COST(allgather_bruck)
{
	return LG * (al(p, k) + rnd(p, k)) + (N - 1) * bytes(p, B) +
		N * B * p->beta;
}

COST(allgather_ring)
{
	return (N - 1) * (msg(p, k, B) + rnd(p, k));
}

/*
 * Every message posted at once: one round, but past the first, each
 * arrives before its receive is its turn and is copied once more.
 */
COST(all_linear)
{
	return (N - 1) * msg(p, k, B) + (N - 2) * B * p->beta + rnd(p, k);
}

/* ---- alltoall (b: one destination's block) ---- */
/* lg rounds of n/2 blocks, each packed and unpacked; rotations. */
COST(alltoall_bruck)
{
	double moved = LG * N / 2 * B;

	return LG * (al(p, k) + rnd(p, k)) + LG * bytes(p, N / 2 * B) +
		2 * moved * p->beta + 2 * N * B * p->beta;
}

COST(alltoall_pairwise)
{
	return (N - 1) * (msg(p, k, B) + rnd(p, k));
}

/* ---- reduce, allreduce (b: the whole vector) ---- */
static double segment(K *k)
{
	return k->seg ? (double)k->seg : 256 << 10;
}

/*
 * A whole-vector temporary larger than the cache (the L2: two pipeline
 * segments) is written to memory and read back: a copy's worth more.
 */
static double spill(P *p, K *k)
{
	return B > 2.0 * segment(k) ? B * p->beta : 0;
}

COST(reduce_binomial)
{
	return LG * (msg(p, k, B) + B * p->gamma + rnd(p, k)) + B * p->beta +
		spill(p, k);
}

/* Segments of a cache's worth pass down a chain of the n ranks. */
COST(reduce_pipeline)
{
	double seg = segment(k), ks;

	seg = B < seg ? B : seg;
	ks = seg > 0 ? ceil(B / seg) : 1;
	return (N - 2 + ks) * (msg(p, k, seg) + seg * p->gamma + rnd(p, k));
}

/*
 * Reduce-scatter by halving, then gather or allgather by doubling: a
 * message of b/2, b/4, ... each way, each paying its own handshake
 * once over the eager limit; first the send buffer copied into the
 * accumulator.
 */
COST(rsag)
{
	double q = pof2(k->n), l = lg(pof2(k->n)), half = B, moved = 0;
	int i;

	for (i = 0; i < (int)l; i++) {
		half /= 2;
		moved += bytes(p, half);
	}
	return 2 * l * (al(p, k) + rnd(p, k)) + 2 * moved +
		(q - 1) / q * B * p->gamma + B * p->beta + fold(p, k, B, 0);
}

/* Reduce's rsag: its halves' temporaries spill like binomial's. */
COST(reduce_rsag)
{
	return rsag(p, k) + spill(p, k);
}

/* The root copies its own vector in and the result out: two copies. */
COST(reduce_linear)
{
	return (N - 1) * (msg(p, k, B) + B * p->gamma) + rnd(p, k) +
		2 * B * p->beta + N * spill(p, k);
}

/* The last to arrive reads n vectors, reduces, writes n results. */
COST(allreduce_area)
{
	return (N + 1) * line(p, k) + rnd(p, k) +
		(2 * N + 1) * B * p->beta + (N - 1) * B * p->gamma;
}

COST(allreduce_recursive_doubling)
{
	double l = lg(pof2(k->n));

	return l * (msg(p, k, B) + B * p->gamma + rnd(p, k)) + B * p->beta +
		fold(p, k, B, 1);
}

COST(allreduce_ring)
{
	return 2 * (N - 1) * (al(p, k) + rnd(p, k)) +
		2 * (N - 1) * bytes(p, B / N) + (N - 1) / N * B * p->gamma +
		B * p->beta;
}

COST(allreduce_reduce_bcast)
{
	return reduce_binomial(p, k) + bcast_binomial(p, k);
}

/* ---- reduce_scatter (b: one rank's block) ---- */
COST(reduce_scatter_halving)
{
	return LG * (al(p, k) + rnd(p, k)) +
		(N - 1) * (bytes(p, B) + B * p->gamma);
}

COST(reduce_scatter_pairwise)
{
	return (N - 1) * (msg(p, k, B) + B * p->gamma + rnd(p, k));
}

COST(reduce_scatter_reduce_scatterv)
{
	struct lm_cost_case whole = *k;

	whole.bytes = k->bytes * (uint64_t)k->n;
	return reduce_binomial(p, &whole) + gather_linear(p, k);
}

/* ---- scan, exscan ---- */
COST(scan_recursive_doubling)
{
	return LG * (msg(p, k, B) + 2 * B * p->gamma + rnd(p, k));
}

COST(scan_linear)
{
	return (N - 1) * (msg(p, k, B) + B * p->gamma + rnd(p, k));
}

static const struct {
	enum lm_coll coll;
	const char *name;
	lm_cost_fn fn;
} models[] = {
	{ LM_BARRIER, "area", barrier_area },
	{ LM_BARRIER, "dissemination", barrier_dissemination },
	{ LM_BARRIER, "recursive_doubling", barrier_recursive_doubling },
	{ LM_BCAST, "binomial", bcast_binomial },
	{ LM_BCAST, "knomial", bcast_knomial },
	{ LM_BCAST, "scatter_allgather", bcast_scatter_allgather },
	{ LM_BCAST, "direct", bcast_direct },
	{ LM_BCAST, "linear", bcast_linear },
	{ LM_GATHER, "binomial", gather_binomial },
	{ LM_GATHER, "linear", gather_linear },
	{ LM_SCATTER, "binomial", gather_binomial },
	{ LM_SCATTER, "linear", gather_linear },
	{ LM_ALLGATHER, "recursive_doubling", allgather_recursive_doubling },
	{ LM_ALLGATHER, "bruck", allgather_bruck },
	{ LM_ALLGATHER, "ring", allgather_ring },
	{ LM_ALLGATHERV, "ring", allgather_ring },
	{ LM_ALLGATHERV, "linear", all_linear },
	{ LM_ALLTOALL, "bruck", alltoall_bruck },
	{ LM_ALLTOALL, "pairwise", alltoall_pairwise },
	{ LM_ALLTOALL, "linear", all_linear },
	{ LM_ALLTOALLV, "pairwise", alltoall_pairwise },
	{ LM_ALLTOALLV, "linear", all_linear },
	{ LM_ALLTOALLW, "pairwise", alltoall_pairwise },
	{ LM_ALLTOALLW, "linear", all_linear },
	{ LM_REDUCE, "binomial", reduce_binomial },
	{ LM_REDUCE, "rabenseifner", reduce_rsag },
	{ LM_REDUCE, "linear", reduce_linear },
	{ LM_REDUCE, "pipeline", reduce_pipeline },
	{ LM_ALLREDUCE, "area", allreduce_area },
	{ LM_ALLREDUCE, "recursive_doubling", allreduce_recursive_doubling },
	{ LM_ALLREDUCE, "rabenseifner", rsag },
	{ LM_ALLREDUCE, "ring", allreduce_ring },
	{ LM_ALLREDUCE, "reduce_bcast", allreduce_reduce_bcast },
	{ LM_REDUCE_SCATTER, "halving", reduce_scatter_halving },
	{ LM_REDUCE_SCATTER, "pairwise", reduce_scatter_pairwise },
	{ LM_REDUCE_SCATTER, "reduce_scatterv", reduce_scatter_reduce_scatterv },
	{ LM_REDUCE_SCATTER_BLOCK, "halving", reduce_scatter_halving },
	{ LM_REDUCE_SCATTER_BLOCK, "pairwise", reduce_scatter_pairwise },
	{ LM_REDUCE_SCATTER_BLOCK, "reduce_scatterv",
	  reduce_scatter_reduce_scatterv },
	{ LM_SCAN, "recursive_doubling", scan_recursive_doubling },
	{ LM_SCAN, "linear", scan_linear },
	{ LM_EXSCAN, "recursive_doubling", scan_recursive_doubling },
	{ LM_EXSCAN, "linear", scan_linear },
};

lm_cost_fn lm_cost_find(enum lm_coll c, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (models[i].coll == c && !strcmp(models[i].name, name))
			return models[i].fn;
	return NULL;
}

void lm_cost_defaults(struct lm_cost_params *p)
{
	p->alpha = 0.4;
	p->beta = 1e-4;		/* 10 GB/s */
	p->gamma = 1.5e-4;
	p->line = 0.1;
	p->line_far = 0.3;
	p->sched = 3;
	p->rndv = 1.5;
	p->copies = 4;
	p->eager = 16384;
}

int lm_cost_load(struct lm_cost_params *p, const char *file, const char **why)
{
	static const struct {
		const char *name;
		size_t off;
		double unit;
	} keys[] = {
#define K(n, f, u) { n, offsetof(struct lm_cost_params, f), u }
		K("alpha_us", alpha, 1), K("beta_ns", beta, 1e-3),
		K("gamma_ns", gamma, 1e-3), K("line_ns", line, 1e-3),
		K("line_far_ns", line_far, 1e-3), K("sched_us", sched, 1),
		K("rndv_us", rndv, 1), K("copies", copies, 1),
#undef K
	};
	char buf[256], name[64], *end;
	FILE *f = fopen(file, "r");
	size_t i;
	double v;

	if (!f) {
		*why = strerror(errno);
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char val[64];

		if (sscanf(buf, " %63s %63s", name, val) != 2 || name[0] == '#')
			continue;
		v = strtod(val, &end);
		if (*end || !(v > 0) || !isfinite(v)) {
			*why = "a value is not a positive number";
			fclose(f);
			return -1;
		}
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(keys[i].name, name))
				break;
		if (i == sizeof(keys) / sizeof(keys[0])) {
			*why = "unknown parameter (alpha_us beta_ns gamma_ns line_ns line_far_ns sched_us rndv_us copies)";
			fclose(f);
			return -1;
		}
		*(double *)((char *)p + keys[i].off) = v * keys[i].unit;
	}
	fclose(f);
	return 0;
}
