/* SPDX-License-Identifier: MIT */
/*
 * coll_cost.h: what each collective algorithm costs (coll_cost.c), the
 * models each algorithm file states in its opening comment, evaluated
 * for one call so that coll_select.c can take the cheapest.
 *
 * A model is a sum of terms in these parameters, all in microseconds:
 * alpha per message (the sender's and the receiver's software, the
 * message's cache lines crossing once), beta per byte copied between
 * ranks (a message under the eager limit is copied twice, through the
 * ring; a larger one once, plus rndv for the handshake), gamma per byte
 * reduced, line per cache-line handoff between cores (the collective
 * area's counter), and sched per dependent round when the job has more
 * ranks than CPUs (a pass of the scheduler over the ranks that share
 * the waiting rank's CPU).  Ranks that do not all share a cache pay
 * line_far instead of line, also inside every message.
 */
#ifndef LIBMSG_COLL_COST_H
#define LIBMSG_COLL_COST_H

#include <stdint.h>

#include "coll/coll.h"

struct lm_cost_params {
	double alpha;		/* µs per message */
	double beta;		/* µs per byte copied */
	double gamma;		/* µs per byte reduced */
	double line;		/* µs per cache-line handoff, shared cache */
	double line_far;	/* µs per cache-line handoff, across caches */
	double sched;		/* µs per round when oversubscribed */
	double rndv;		/* µs: a rendezvous's handshake */
	double copies;		/* copies from one source at full speed */
	uint64_t eager;		/* bytes: largest eager message */
};

/* One call, as the models see it: the same on every rank of a call. */
struct lm_cost_case {
	int n;			/* communicator size */
	uint64_t bytes;		/* lm_coll_args.bytes */
	double over;		/* job's ranks per CPU (> 1: oversubscribed) */
	int far;		/* the ranks do not all share a cache */
	uint64_t seg;		/* bytes: the reduce pipeline's segment, half
				 * the L2 (lm_reduce_segment); 0: 256 KiB */
};

/* µs one call of an algorithm takes, by the model. */
typedef double (*lm_cost_fn)(const struct lm_cost_params *p,
			     const struct lm_cost_case *k);

/* The model of collective c's algorithm `name`, NULL if none. */
lm_cost_fn lm_cost_find(enum lm_coll c, const char *name);

/* Built-in parameters (a 2-CPU x86 VM's, run natively). */
void lm_cost_defaults(struct lm_cost_params *p);

/*
 * Read "name value" lines (# comments) over *p: alpha_us, beta_ns,
 * gamma_ns, line_ns, line_far_ns, sched_us, rndv_us, copies.  0, or -1
 * with *why set (cannot open, unknown name, bad number).
 */
int lm_cost_load(struct lm_cost_params *p, const char *file,
		 const char **why);

/*
 * Which of collective c's algorithms a call takes: the cheapest by
 * model of those whose bit is set in `ok` (bit i: the i-th of the
 * collective's algorithms, as lm_coll_algo_name() numbers them; an
 * algorithm with no model costs more than any with one), ties to the
 * lowest index (within rounding).  -1 when `ok` is empty.  A pure function.
 */
int lm_coll_choose(enum lm_coll c, const struct lm_cost_params *p,
		   const struct lm_cost_case *k, unsigned int ok);

/* The cost model of algorithm i of collective c, by the same numbering. */
lm_cost_fn lm_coll_cost_fn(enum lm_coll c, int i);

#endif /* LIBMSG_COLL_COST_H */
