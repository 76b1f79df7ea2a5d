// SPDX-License-Identifier: MIT
// libmsg-test: run-by=collcost.sh
/*
 * Collective selection by cost (libmsg/src/coll/coll_cost.c,
 * coll_select.c), linked against the static library with its internal
 * headers to call the choice as the pure function it is:
 *
 *   collcost models     every model is positive and finite, does not
 *                       fall as the message or (over powers of two)
 *                       the communicator grows, costs more
 *                       oversubscribed and across caches
 *   collcost decide     what lm_coll_choose() takes for given
 *                       parameters, sizes and placement
 *   collcost params     MPICHAN_COLL_PARAMS's file format
 *   collcost ALGO       (any ranks) one 8-byte MPI_Allreduce on the
 *                       world: it ran ALGO (collcost.sh sets the
 *                       parameters that should make it so)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "coll/coll_cost.h"

static int fails;

/*
 * The reduce pipeline's segment the decisions below assume (half an L2
 * of 1 MiB), whatever the CPU running the test has: a pure function of
 * its arguments, lm_coll_choose() must give them everywhere.
 */
#define SEG	(512 << 10)

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fails++;						\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static int algo(enum lm_coll c, const char *name)
{
	int i;

	for (i = 0; i < lm_coll_nalgos(c); i++)
		if (!strcmp(lm_coll_algo_name(c, i), name))
			return i;
	printf("FAIL: %s has no algorithm %s\n", lm_coll_name(c), name);
	exit(1);
}

/* The parameters the decisions below are made with. */
static void params(struct lm_cost_params *p)
{
	p->alpha = 0.4;
	p->beta = 1e-4;
	p->gamma = 1.5e-4;
	p->line = 0.1;
	p->line_far = 0.3;
	p->sched = 3;
	p->rndv = 1.5;
	p->copies = 4;
	p->eager = 16384;
}

static void models(void)
{
	struct lm_cost_params p;
	struct lm_cost_case k, k2;
	int c, i, n, tested = 0;
	uint64_t b;
	double v, prev;

	params(&p);
	for (c = 0; c < LM_NCOLL; c++) {
		for (i = 0; i < lm_coll_nalgos(c); i++) {
			lm_cost_fn f = lm_coll_cost_fn((enum lm_coll)c, i);
			const char *an = lm_coll_algo_name(c, i);

			if (!f)
				continue;
			tested++;
			for (n = 2; n <= 1024; n = n < 16 ? n + 1 : n * 2) {
				prev = 0;
				/* 0-4, then 2^j and 2^j + 1: across the eager limit */
				for (b = 0; b <= (64ULL << 20);
				     b = b < 4 ? b + 1 : (b & 1) ? 2 * (b - 1) : b + 1) {
					k = (struct lm_cost_case){ n, b, 1, 0, SEG };
					v = f(&p, &k);
					CHECK(v > 0 && isfinite(v), "%s %s n=%d b=%llu: cost %g",
					      lm_coll_name(c), an, n, (unsigned long long)b, v);
					CHECK(v >= prev, "%s %s n=%d: cost falls from %g to %g at b=%llu",
					      lm_coll_name(c), an, n, prev, v, (unsigned long long)b);
					prev = v;
					k2 = k;
					k2.over = 4;
					CHECK(f(&p, &k2) > v, "%s %s n=%d b=%llu: oversubscribed is not dearer",
					      lm_coll_name(c), an, n, (unsigned long long)b);
					k2 = k;
					k2.far = 1;
					CHECK(f(&p, &k2) > v, "%s %s n=%d b=%llu: across caches is not dearer",
					      lm_coll_name(c), an, n, (unsigned long long)b);
				}
			}
			for (b = 8; b <= (1 << 20); b *= 16) {
				prev = 0;
				for (n = 2; n <= 1024; n *= 2) {
					k = (struct lm_cost_case){ n, b, 1, 0, SEG };
					v = f(&p, &k);
					CHECK(v >= prev, "%s %s b=%llu: cost falls from %g to %g at n=%d",
					      lm_coll_name(c), an, (unsigned long long)b, prev, v, n);
					prev = v;
				}
			}
		}
	}
	CHECK(tested >= 35, "only %d algorithms have a model", tested);
	printf("models: %d checked\n", tested);
}

/* decide(COLL, n, bytes, over, far, ok, WANT) */
static void decide(enum lm_coll c, int n, uint64_t b, double over, int far,
		   unsigned int ok, const char *want)
{
	struct lm_cost_params p;
	struct lm_cost_case k = { n, b, over, far, SEG };
	int got;

	params(&p);
	got = lm_coll_choose(c, &p, &k, ok);
	CHECK(got >= 0 && !strcmp(lm_coll_algo_name(c, got), want),
	      "%s n=%d b=%llu over=%g far=%d: chose %s, expected %s",
	      lm_coll_name(c), n, (unsigned long long)b, over, far,
	      got >= 0 ? lm_coll_algo_name(c, got) : "nothing", want);
}

#define ALL	0xffu
#define BIT(c, name)	(1u << algo(c, name))

static void decisions(void)
{
	struct lm_cost_params p;
	struct lm_cost_case k = { 4, 8, 1, 0, SEG };
	unsigned int no_area = ALL & ~BIT(LM_ALLREDUCE, "area");
	unsigned int no_dev = ALL & ~BIT(LM_BCAST, "direct");

	params(&p);
	CHECK(lm_coll_choose(LM_BCAST, &p, &k, 0) == -1, "nothing to choose from");

	/* Small: one step through the area while the counter is cheap. */
	decide(LM_BARRIER, 4, 0, 1, 0, ALL, "area");
	decide(LM_BARRIER, 4, 0, 1, 0, ALL & ~BIT(LM_BARRIER, "area"), "dissemination");
	decide(LM_ALLREDUCE, 2, 8, 1, 0, ALL, "area");
	decide(LM_ALLREDUCE, 8, 8, 1, 0, ALL, "area");
	/* ... not where its line crosses caches, nor 16 ranks' 4 KiB. */
	decide(LM_ALLREDUCE, 8, 8, 1, 1, ALL, "recursive_doubling");
	decide(LM_ALLREDUCE, 16, 4096, 1, 0, ALL, "rabenseifner");
	decide(LM_ALLREDUCE, 4, 8, 1, 0, no_area, "recursive_doubling");
	decide(LM_ALLREDUCE, 16, 1 << 20, 1, 0, ALL, "rabenseifner");
	decide(LM_ALLREDUCE, 16, 1 << 20, 1, 0,
	       no_area & ~BIT(LM_ALLREDUCE, "rabenseifner"), "ring");

	/* Rooted calls never take the area unless nothing else can run. */
	decide(LM_BCAST, 4, 8, 1, 0, ALL, "binomial");
	decide(LM_BCAST, 4, 8, 1, 0, BIT(LM_BCAST, "area"), "area");
	decide(LM_REDUCE, 4, 8, 1, 0, ALL, "binomial");
	decide(LM_BCAST, 64, 8, 1, 0, no_dev, "binomial");
	decide(LM_BCAST, 16, 256 << 10, 1, 0, no_dev, "scatter_allgather");
	decide(LM_BCAST, 16, 1 << 20, 1, 0, no_dev, "scatter_allgather");
	decide(LM_BCAST, 4, 1 << 20, 1, 0, ALL, "direct");
	/* Oversubscribed, the fewest rounds. */
	decide(LM_BCAST, 8, 8, 4, 0, no_dev, "linear");
	decide(LM_ALLTOALL, 8, 1024, 4, 0, ALL, "linear");
	decide(LM_ALLTOALL, 8, 64, 1, 0, ALL, "bruck");
	decide(LM_ALLTOALL, 8, 64 << 10, 1, 0, ALL, "pairwise");
	decide(LM_ALLGATHER, 6, 32 << 10, 4, 0,
	       ALL & ~BIT(LM_ALLGATHER, "recursive_doubling"), "bruck");
	decide(LM_ALLGATHER, 6, 1 << 20, 1, 0,
	       ALL & ~BIT(LM_ALLGATHER, "recursive_doubling"), "ring");
	decide(LM_ALLGATHER, 8, 64, 1, 0, ALL, "recursive_doubling");
	decide(LM_REDUCE, 16, 4 << 20, 1, 0, ALL, "rabenseifner");
	decide(LM_REDUCE_SCATTER, 8, 1024, 1, 0, ALL, "halving");
	decide(LM_SCAN, 8, 8, 1, 0, ALL, "recursive_doubling");
	decide(LM_GATHER, 8, 64, 1, 0, ALL, "binomial");
	/* A collective with one algorithm and no model still gets it. */
	decide(LM_GATHERV, 8, 64, 1, 0, ALL & 1, "linear");
	printf("decisions: done\n");
}

static void param_file(void)
{
	char path[] = "/tmp/collcostXXXXXX";
	struct lm_cost_params p;
	const char *why = NULL;
	FILE *f;
	int fd = mkstemp(path);

	CHECK(fd >= 0, "mkstemp");
	f = fdopen(fd, "w");
	fprintf(f, "# measured\nalpha_us 0.25\nbeta_ns 0.05\n\ngamma_ns 0.2\n"
		   "line_ns 80\nline_far_ns 200\nsched_us 2.5\nrndv_us 1\ncopies 3\n");
	fclose(f);
	lm_cost_defaults(&p);
	CHECK(!lm_cost_load(&p, path, &why), "load: %s", why);
	CHECK(fabs(p.alpha - 0.25) < 1e-12 && fabs(p.beta - 5e-5) < 1e-12 &&
	      fabs(p.gamma - 2e-4) < 1e-12 && fabs(p.line - 0.08) < 1e-12 &&
	      fabs(p.line_far - 0.2) < 1e-12 && fabs(p.sched - 2.5) < 1e-12 &&
	      fabs(p.rndv - 1) < 1e-12 && fabs(p.copies - 3) < 1e-12,
	      "values read wrong");
	f = fopen(path, "w");
	fprintf(f, "alpha_us 0.25\nlatency 3\n");
	fclose(f);
	CHECK(lm_cost_load(&p, path, &why) == -1 && strstr(why, "unknown"),
	      "an unknown name is taken");
	f = fopen(path, "w");
	fprintf(f, "alpha_us fast\n");
	fclose(f);
	CHECK(lm_cost_load(&p, path, &why) == -1, "a bad number is taken");
	unlink(path);
	CHECK(lm_cost_load(&p, path, &why) == -1, "a missing file is taken");
	printf("params: done\n");
}

/* One 8-byte allreduce on the world: which algorithm ran it. */
static void ran(const char *want)
{
	double x = 1, y = 0;
	int c = LM_ALLREDUCE, i, size, a = algo(c, want);
	uint64_t before = lm_coll_calls(c, a);

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	CHECK(y == size, "sum %g, expected %d", y, size);
	CHECK(lm_coll_calls(c, a) == before + 1,
	      "the allreduce did not run %s", want);
	for (i = 0; i < lm_coll_nalgos(c); i++)
		if (lm_coll_calls(c, i))
			printf("allreduce ran %s\n", lm_coll_algo_name(c, i));
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	MPI_Init(&argc, &argv);
	if (!strcmp(what, "models"))
		models();
	else if (!strcmp(what, "decide"))
		decisions();
	else if (!strcmp(what, "params"))
		param_file();
	else if (*what)
		ran(what);
	else
		fails = !printf("usage: collcost models|decide|params|ALGO\n");
	MPI_Finalize();
	printf("%s\n", fails ? "collcost: FAILED" : "collcost: ok");
	return fails ? 1 : 0;
}
