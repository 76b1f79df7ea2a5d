// SPDX-License-Identifier: MIT
/*
 * Which algorithm runs a collective.  The rules below are read top to
 * bottom: the first whose communicator size and message size limits
 * hold and whose algorithm can run this call wins.  The limits come
 * from the collective benchmarks in Documentation/performance.md.
 *
 * MPICHAN_COLL_<COLLECTIVE>=<algorithm> (e.g. MPICHAN_COLL_ALLREDUCE=ring)
 * forces an algorithm for testing and tuning; when it cannot run a call
 * (a ring reduction with a non-commutative op, say) the rules decide.
 * An unknown name is an error at MPI_Init.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/algo/algo.h"

/* Can this algorithm run this call? */
typedef int (*lm_usable_fn)(const struct libmsg_comm *c,
			    const struct lm_coll_args *a);

struct lm_algo {
	const char *name;
	lm_algo_fn fn;
	lm_usable_fn usable;	/* NULL: always */
	int device;		/* the rules pick it only over /dev/mpichan */
};

static int commutes(const struct libmsg_comm *c, const struct lm_coll_args *a)
{
	(void)c;
	return lm_op_commutes(a->op);
}

/* Rabenseifner splits the vector over a power of two of the ranks. */
static int splits(const struct libmsg_comm *c, const struct lm_coll_args *a)
{
	return lm_op_commutes(a->op) && a->count >= lm_pof2_floor(c->size);
}

static int ring_splits(const struct libmsg_comm *c,
		       const struct lm_coll_args *a)
{
	return lm_op_commutes(a->op) && a->count >= c->size;
}

static int halving_ok(const struct libmsg_comm *c,
		      const struct lm_coll_args *a)
{
	return lm_op_commutes(a->op) && lm_is_pof2(c->size);
}

static int pof2(const struct libmsg_comm *c, const struct lm_coll_args *a)
{
	(void)a;
	return lm_is_pof2(c->size);
}

/* The collective area takes blocking calls of up to LM_AREA_DATA bytes. */
static int area_none(const struct libmsg_comm *c, const struct lm_coll_args *a)
{
	return lm_area_usable(c, a, 0);
}

static int area_bytes(const struct libmsg_comm *c,
		      const struct lm_coll_args *a)
{
	return lm_area_usable(c, a, a->bytes);
}

static int area_reduce(const struct libmsg_comm *c,
		       const struct lm_coll_args *a)
{
	return lm_area_usable(c, a, (uint64_t)a->count * lm_coll_esize(a));
}

#define A(n, f, u) { n, f, u, 0 }
/* Forced, it runs anywhere; the rules want the module's one-copy path. */
#define AD(n, f, u) { n, f, u, 1 }
static const struct lm_algo barrier[] = {
	A("area", lm_barrier_area, area_none),
	A("dissemination", lm_barrier_dissemination, NULL),
	A("recursive_doubling", lm_barrier_recursive_doubling, NULL),
};
static const struct lm_algo bcast[] = {
	A("area", lm_bcast_area, area_bytes),
	A("binomial", lm_bcast_binomial, NULL),
	A("knomial", lm_bcast_knomial, NULL),
	A("scatter_allgather", lm_bcast_scatter_allgather, NULL),
	AD("direct", lm_bcast_direct, NULL),
	A("linear", lm_bcast_linear, NULL),
};
static const struct lm_algo gather[] = {
	A("binomial", lm_gather_binomial, NULL),
	A("linear", lm_gather_linear, NULL),
};
static const struct lm_algo gatherv[] = {
	A("linear", lm_gatherv_linear, NULL),
};
static const struct lm_algo scatter[] = {
	A("binomial", lm_scatter_binomial, NULL),
	A("linear", lm_scatter_linear, NULL),
};
static const struct lm_algo scatterv[] = {
	A("linear", lm_scatterv_linear, NULL),
};
static const struct lm_algo allgather[] = {
	A("recursive_doubling", lm_allgather_recursive_doubling, pof2),
	A("bruck", lm_allgather_bruck, NULL),
	A("ring", lm_allgather_ring, NULL),
};
static const struct lm_algo allgatherv[] = {
	A("ring", lm_allgatherv_ring, NULL),
	A("linear", lm_allgatherv_linear, NULL),
};
static const struct lm_algo alltoall[] = {
	A("bruck", lm_alltoall_bruck, NULL),
	A("pairwise", lm_alltoall_pairwise, NULL),
	A("linear", lm_alltoall_linear, NULL),
};
static const struct lm_algo alltoallv[] = {
	A("pairwise", lm_alltoallv_pairwise, NULL),
	A("linear", lm_alltoallv_linear, NULL),
};
static const struct lm_algo reduce[] = {
	A("area", lm_reduce_area, area_reduce),
	A("binomial", lm_reduce_binomial, NULL),
	A("rabenseifner", lm_reduce_rabenseifner, splits),
	A("linear", lm_reduce_linear, NULL),
};
static const struct lm_algo allreduce[] = {
	A("area", lm_allreduce_area, area_reduce),
	A("recursive_doubling", lm_allreduce_recursive_doubling, NULL),
	A("rabenseifner", lm_allreduce_rabenseifner, splits),
	A("ring", lm_allreduce_ring, ring_splits),
	A("reduce_bcast", lm_allreduce_reduce_bcast, NULL),
};
static const struct lm_algo reduce_scatter[] = {
	A("halving", lm_reduce_scatter_halving, halving_ok),
	A("pairwise", lm_reduce_scatter_pairwise, commutes),
	A("reduce_scatterv", lm_reduce_scatter_reduce_scatterv, NULL),
};
static const struct lm_algo scan[] = {
	A("recursive_doubling", lm_scan_recursive_doubling, NULL),
	A("linear", lm_scan_linear, NULL),
};
static const struct lm_algo exscan[] = {
	A("recursive_doubling", lm_exscan_recursive_doubling, NULL),
	A("linear", lm_exscan_linear, NULL),
};
#undef A

struct lm_coll_desc {
	const char *name;
	const struct lm_algo *algos;
	int nalgos;
	const struct lm_algo *forced;
};

#define D(n, t) { n, t, (int)(sizeof(t) / sizeof(t[0])), NULL }
static struct lm_coll_desc colls[LM_NCOLL] = {
	[LM_BARRIER] = D("barrier", barrier),
	[LM_BCAST] = D("bcast", bcast),
	[LM_GATHER] = D("gather", gather),
	[LM_GATHERV] = D("gatherv", gatherv),
	[LM_SCATTER] = D("scatter", scatter),
	[LM_SCATTERV] = D("scatterv", scatterv),
	[LM_ALLGATHER] = D("allgather", allgather),
	[LM_ALLGATHERV] = D("allgatherv", allgatherv),
	[LM_ALLTOALL] = D("alltoall", alltoall),
	[LM_ALLTOALLV] = D("alltoallv", alltoallv),
	[LM_ALLTOALLW] = D("alltoallw", alltoallv),
	[LM_REDUCE] = D("reduce", reduce),
	[LM_ALLREDUCE] = D("allreduce", allreduce),
	[LM_REDUCE_SCATTER] = D("reduce_scatter", reduce_scatter),
	[LM_REDUCE_SCATTER_BLOCK] = D("reduce_scatter_block", reduce_scatter),
	[LM_SCAN] = D("scan", scan),
	[LM_EXSCAN] = D("exscan", exscan),
};
#undef D

#define ANY	0xffffffffffffffffULL

/* The default choices: first match wins (max_ranks, max_bytes inclusive). */
struct lm_rule {
	enum lm_coll coll;
	int max_ranks;
	unsigned long long max_bytes;
	const char *algo;
};

/*
 * Read first where the job has more ranks than CPUs.  There a round of
 * an algorithm costs a pass of the scheduler over the ranks sharing a
 * CPU, whatever it moves, so the fewest dependent rounds win: in the VM
 * (2 vCPUs, 4 and 8 ranks) linear alltoall beat Bruck and pairwise at
 * every size to 32 KiB by 1.3-4x, and recursive doubling or Bruck beat
 * the ring allgather at 32 KiB.
 */
static const struct lm_rule oversub_rules[] = {
	{ LM_ALLTOALL,		0x7fffffff, ANY,	"linear" },
	{ LM_ALLGATHER,		0x7fffffff, ANY,	"recursive_doubling" },
	{ LM_ALLGATHER,		0x7fffffff, ANY,	"bruck" },
};

static const struct lm_rule rules[] = {
	/*
	 * Blocking, small, and the communicator holds a channel.  Not for
	 * bcast and reduce: there the area makes every rank wait for the
	 * last, where messages let the root's leaves go (in the VM, 8 B
	 * bcast on 4 ranks: 45 us against 3.5 us).
	 */
	{ LM_BARRIER,		0x7fffffff, ANY,	"area" },
	{ LM_ALLREDUCE,		0x7fffffff, ANY,	"area" },
	{ LM_BARRIER,		0x7fffffff, ANY,	"dissemination" },
	{ LM_BCAST,		0x7fffffff, 16384,	"binomial" },
	{ LM_BCAST,		3,	    ANY,	"binomial" },
	/* In the VM scatter_allgather led up to 256 KiB, direct from 1 MiB. */
	{ LM_BCAST,		0x7fffffff, 262144,	"scatter_allgather" },
	{ LM_BCAST,		0x7fffffff, ANY,	"direct" },
	{ LM_BCAST,		0x7fffffff, ANY,	"scatter_allgather" },
	{ LM_GATHER,		0x7fffffff, ANY,	"binomial" },
	{ LM_GATHERV,		0x7fffffff, ANY,	"linear" },
	{ LM_SCATTER,		0x7fffffff, ANY,	"binomial" },
	{ LM_SCATTERV,		0x7fffffff, ANY,	"linear" },
	{ LM_ALLGATHER,		0x7fffffff, 8192,	"recursive_doubling" },
	{ LM_ALLGATHER,		0x7fffffff, 8192,	"bruck" },
	{ LM_ALLGATHER,		0x7fffffff, ANY,	"ring" },
	{ LM_ALLGATHERV,	0x7fffffff, ANY,	"ring" },
	/* Two ranks: one exchange either way; linear posts it at once. */
	{ LM_ALLTOALL,		2,	    ANY,	"linear" },
	{ LM_ALLTOALL,		0x7fffffff, 256,	"bruck" },
	{ LM_ALLTOALL,		0x7fffffff, ANY,	"pairwise" },
	{ LM_ALLTOALLV,		0x7fffffff, ANY,	"pairwise" },
	{ LM_ALLTOALLW,		0x7fffffff, ANY,	"pairwise" },
	{ LM_REDUCE,		0x7fffffff, 65536,	"binomial" },
	{ LM_REDUCE,		0x7fffffff, ANY,	"rabenseifner" },
	{ LM_REDUCE,		0x7fffffff, ANY,	"binomial" },
	{ LM_ALLREDUCE,		0x7fffffff, 4096,	"recursive_doubling" },
	{ LM_ALLREDUCE,		0x7fffffff, ANY,	"rabenseifner" },
	{ LM_ALLREDUCE,		0x7fffffff, ANY,	"recursive_doubling" },
	{ LM_REDUCE_SCATTER,	0x7fffffff, ANY,	"halving" },
	{ LM_REDUCE_SCATTER,	0x7fffffff, ANY,	"pairwise" },
	{ LM_REDUCE_SCATTER,	0x7fffffff, ANY,	"reduce_scatterv" },
	{ LM_REDUCE_SCATTER_BLOCK, 0x7fffffff, ANY,	"halving" },
	{ LM_REDUCE_SCATTER_BLOCK, 0x7fffffff, ANY,	"pairwise" },
	{ LM_REDUCE_SCATTER_BLOCK, 0x7fffffff, ANY,	"reduce_scatterv" },
	{ LM_SCAN,		0x7fffffff, ANY,	"recursive_doubling" },
	{ LM_EXSCAN,		0x7fffffff, ANY,	"recursive_doubling" },
};

static const struct lm_algo *find(const struct lm_coll_desc *d,
				  const char *name)
{
	int i;

	for (i = 0; i < d->nalgos; i++)
		if (!strcmp(d->algos[i].name, name))
			return &d->algos[i];
	return NULL;
}

static int usable(const struct lm_algo *al, const struct libmsg_comm *c,
		  const struct lm_coll_args *a)
{
	return !al->usable || al->usable(c, a);
}

#define NRULES (sizeof(rules) / sizeof(rules[0]))
#define NOVERSUB (sizeof(oversub_rules) / sizeof(oversub_rules[0]))

/* Each rule's algorithm, looked up once (a collective call makes no strcmp). */
static const struct lm_algo *rule_algo[NRULES];
static const struct lm_algo *oversub_algo[NOVERSUB];

/* The first of n rules (algorithms al[]) that takes this call, or NULL. */
static const struct lm_algo *pick(const struct lm_rule *r,
				  const struct lm_algo *const *al, size_t n,
				  enum lm_coll c, const struct libmsg_comm *comm,
				  const struct lm_coll_args *a)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].coll != c || comm->size > r[i].max_ranks ||
		    a->bytes > r[i].max_bytes || !al[i])
			continue;
		if (al[i]->device && lm.job.t != &lm_transport_mpichan)
			continue;
		if (usable(al[i], comm, a))
			return al[i];
	}
	return NULL;
}

/* Read MPICHAN_COLL_<NAME> for every collective. */
int lm_coll_init(void)
{
	char env[64], names[256];
	const char *v;
	size_t i, j;
	int k;

	lm_cc_init();
	for (i = 0; i < NRULES; i++)
		rule_algo[i] = find(&colls[rules[i].coll], rules[i].algo);
	for (i = 0; i < NOVERSUB; i++)
		oversub_algo[i] = find(&colls[oversub_rules[i].coll],
				       oversub_rules[i].algo);

	for (k = 0; k < LM_NCOLL; k++) {
		struct lm_coll_desc *d = &colls[k];

		snprintf(env, sizeof(env), "MPICHAN_COLL_%s", d->name);
		for (i = 0; env[i]; i++)
			env[i] = (char)toupper((unsigned char)env[i]);
		d->forced = NULL;
		v = getenv(env);
		if (!v || !*v)
			continue;
		d->forced = find(d, v);
		if (d->forced)
			continue;
		names[0] = 0;
		for (j = 0; j < (size_t)d->nalgos; j++) {
			strncat(names, " ", sizeof(names) - strlen(names) - 1);
			strncat(names, d->algos[j].name,
				sizeof(names) - strlen(names) - 1);
		}
		lm_fatal("%s=%s: no such algorithm; %s has:%s", env, v,
			 d->name, names);
	}
	return 0;
}

/* Calls each algorithm was picked for (MPI_T), by collective. */
#define LM_MAX_ALGOS	8
static uint64_t picked[LM_NCOLL][LM_MAX_ALGOS];

lm_algo_fn lm_coll_select(enum lm_coll c, const struct libmsg_comm *comm,
			  const struct lm_coll_args *a)
{
	const struct lm_coll_desc *d = &colls[c];
	const struct lm_algo *al = NULL;

	if (d->forced && usable(d->forced, comm, a)) {
		al = d->forced;
	} else {
		if (lm.oversubscribed)
			al = pick(oversub_rules, oversub_algo, NOVERSUB, c,
				  comm, a);
		if (!al)
			al = pick(rules, rule_algo, NRULES, c, comm, a);
		/* The rules end with an algorithm that runs anything. */
		if (!al)
			al = &d->algos[d->nalgos - 1];
	}
	picked[c][al - d->algos]++;
	return al->fn;
}

const char *lm_coll_name(int c)
{
	return colls[c].name;
}

int lm_coll_nalgos(int c)
{
	return colls[c].nalgos < LM_MAX_ALGOS ? colls[c].nalgos : LM_MAX_ALGOS;
}

const char *lm_coll_algo_name(int c, int a)
{
	return colls[c].algos[a].name;
}

int lm_coll_forced(int c)
{
	return colls[c].forced ? (int)(colls[c].forced - colls[c].algos) : -1;
}

void lm_coll_force(int c, int a)
{
	colls[c].forced = a < 0 ? NULL : &colls[c].algos[a];
}

uint64_t lm_coll_calls(int c, int a)
{
	return picked[c][a];
}
