// SPDX-License-Identifier: MIT
/*
 * Which algorithm runs a collective: of the algorithms that can run
 * this call, the one whose cost model (coll_cost.c; each algorithm
 * file's opening comment states its own) is cheapest for the
 * communicator size, the message size, the job's ranks per CPU and
 * whether the ranks share a cache, with the machine's parameters:
 * built in, or measured by tools/bench/coll-params into a file that
 * MPICHAN_COLL_PARAMS=FILE names.  lm_coll_choose() is that choice as a
 * pure function (selftests/libmsg/collcost checks its decisions).
 *
 * MPICHAN_COLL_<COLLECTIVE>=<algorithm> (e.g. MPICHAN_COLL_ALLREDUCE=ring)
 * forces an algorithm for testing and tuning; when it cannot run a call
 * (a ring reduction with a non-commutative op, say) the models decide.
 * An unknown name is an error at MPI_Init.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "coll/algo/algo.h"
#include "coll/coll_cost.h"

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
	A("pipeline", lm_reduce_pipeline, NULL),
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

static struct lm_cost_params params;
static double over = 1;		/* the job's ranks per CPU */
static int cache_cpus;		/* CPUs sharing the last-level cache, 0: unknown */

/* Each algorithm's cost model, looked up once. */
#define LM_MAX_ALGOS	8
static lm_cost_fn cost_of[LM_NCOLL][LM_MAX_ALGOS];

lm_cost_fn lm_coll_cost_fn(enum lm_coll c, int i)
{
	return i >= 0 && i < colls[c].nalgos && i < LM_MAX_ALGOS ?
		cost_of[c][i] : NULL;
}

int lm_coll_choose(enum lm_coll c, const struct lm_cost_params *p,
		   const struct lm_cost_case *k, unsigned int ok)
{
	int i, best = -1, n = colls[c].nalgos;
	double cost, least = 0;

	for (i = 0; i < n && i < LM_MAX_ALGOS; i++) {
		if (!(ok & (1u << i)))
			continue;
		/* Unmodelled: only where nothing modelled can run. */
		cost = cost_of[c][i] ? cost_of[c][i](p, k) : 1e300;
		/* Equal but for rounding (two ranks): the earlier one. */
		if (best < 0 || cost < least * (1 - 1e-9)) {
			best = i;
			least = cost;
		}
	}
	return best;
}

/*
 * CPUs that share CPU 0's last-level cache, from sysfs ("0-7,16-23");
 * 0 when unknown.  The same on every rank: every rank decides alike.
 */
static int llc_cpus(void)
{
	char path[96], buf[256], *s;
	int idx, best = 0, a, b, n;
	FILE *f;

	for (idx = 0; idx < 8; idx++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list",
			 idx);
		f = fopen(path, "r");
		if (!f)
			break;
		s = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (!s)
			continue;
		for (n = 0; *s && *s != '\n';) {
			a = (int)strtol(s, &s, 10);
			b = a;
			if (*s == '-')
				b = (int)strtol(s + 1, &s, 10);
			n += b - a + 1;
			if (*s == ',')
				s++;
			else
				break;
		}
		if (n > best)	/* the higher levels are shared wider */
			best = n;
	}
	return best;
}

/* Read MPICHAN_COLL_<NAME> for every collective. */
int lm_coll_init(void)
{
	char env[64], names[256];
	const char *v;
	size_t i, j;
	int k;

	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	const char *why;

	lm_cc_init();
	for (k = 0; k < LM_NCOLL; k++)
		for (j = 0; j < (size_t)colls[k].nalgos && j < LM_MAX_ALGOS; j++)
			cost_of[k][j] = lm_cost_find((enum lm_coll)k,
						     colls[k].algos[j].name);
	lm_cost_defaults(&params);
	params.eager = lm.eager;
	v = getenv("MPICHAN_COLL_PARAMS");
	if (v && *v && lm_cost_load(&params, v, &why))
		lm_fatal("MPICHAN_COLL_PARAMS=%s: %s", v, why);
	over = 1;
	if (lm.oversubscribed && ncpu > 0)
		over = (double)lm.job.nranks / (double)ncpu;
	cache_cpus = llc_cpus();

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
static uint64_t picked[LM_NCOLL][LM_MAX_ALGOS];

/*
 * The last choice per collective, (n, bytes, ok) and the algorithm
 * packed in one word so that threads read it whole: a loop of equal
 * calls evaluates the models once.  Bits: algorithm 0-2, ok 3-10, n
 * 11-23, bytes 24-63.
 */
static uint64_t memo[LM_NCOLL];

static int choose(enum lm_coll c, int n, uint64_t bytes, unsigned int ok)
{
	struct lm_cost_case k = {
		.n = n, .bytes = bytes, .over = over,
		.far = cache_cpus > 0 && n > cache_cpus,
		.seg = lm_reduce_segment(),
	};
	uint64_t key, m;
	int i;

	if (n >= (1 << 13) || bytes >= (1ULL << 40))
		return lm_coll_choose(c, &params, &k, ok);
	key = (uint64_t)ok << 3 | (uint64_t)n << 11 | bytes << 24;
	m = __atomic_load_n(&memo[c], __ATOMIC_RELAXED);
	if (m && (m & ~7ULL) == key)
		return (int)(m & 7);
	i = lm_coll_choose(c, &params, &k, ok);
	if (i >= 0)
		__atomic_store_n(&memo[c], key | (uint64_t)i, __ATOMIC_RELAXED);
	return i;
}

lm_algo_fn lm_coll_select(enum lm_coll c, const struct libmsg_comm *comm,
			  const struct lm_coll_args *a)
{
	const struct lm_coll_desc *d = &colls[c];
	const struct lm_algo *al = NULL;
	unsigned int ok = 0;
	int i;

	if (d->forced && usable(d->forced, comm, a)) {
		al = d->forced;
	} else {
		for (i = 0; i < d->nalgos && i < LM_MAX_ALGOS; i++) {
			const struct lm_algo *x = &d->algos[i];

			if (x->device && lm.job.t != &lm_transport_mpichan)
				continue;
			if (usable(x, comm, a))
				ok |= 1u << i;
		}
		i = choose(c, comm->size, a->bytes, ok);
		/* Every collective has an algorithm that runs anything. */
		al = i >= 0 ? &d->algos[i] : &d->algos[d->nalgos - 1];
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
