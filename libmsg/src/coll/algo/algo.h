/* SPDX-License-Identifier: MIT */
/*
 * algo.h: the collective algorithms, one file per family, and what
 * they share.  Each appends rounds to a schedule (coll.h); each file's
 * opening comment states its algorithms' cost (latency, bandwidth and
 * reduction terms), which coll_cost.c evaluates and coll_select.c
 * chooses by.
 */
#ifndef LIBMSG_COLL_ALGO_H
#define LIBMSG_COLL_ALGO_H

#include "coll/coll.h"

/* ---- coll_allreduce.c: shared by the reductions ------------------------- */

int lm_fold_in(struct lm_sched *s, void *acc, void *tmp, int count);
int lm_fold_out(struct lm_sched *s, void *acc, int count);
int lm_fold_real(const struct lm_sched *s, int v);
void lm_block(int count, int n, int i, int *first, int *len);

/* ---- Helpers ---------------------------------------------------------- */

static inline int lm_is_pof2(int n)
{
	return n > 0 && !(n & (n - 1));
}

/* Largest power of two <= n (n >= 1). */
static inline int lm_pof2_floor(int n)
{
	int p = 1;

	while (p * 2 <= n)
		p *= 2;
	return p;
}

/* ---- Algorithms, one file per collective family -------------------------- */

#define LM_ALGO(name) int name(struct lm_sched *s, const struct lm_coll_args *a)

/* coll_area.c (in coll/: it is also how the area is run) */
LM_ALGO(lm_barrier_area);
LM_ALGO(lm_bcast_area);
LM_ALGO(lm_reduce_area);
LM_ALGO(lm_allreduce_area);
/* coll_barrier.c */
LM_ALGO(lm_barrier_dissemination);
LM_ALGO(lm_barrier_recursive_doubling);
/* coll_bcast.c */
LM_ALGO(lm_bcast_binomial);
LM_ALGO(lm_bcast_knomial);
LM_ALGO(lm_bcast_scatter_allgather);
LM_ALGO(lm_bcast_linear);
LM_ALGO(lm_bcast_direct);
/* coll_reduce.c */
LM_ALGO(lm_reduce_binomial);
LM_ALGO(lm_reduce_rabenseifner);
LM_ALGO(lm_reduce_linear);
LM_ALGO(lm_reduce_pipeline);
/* Bytes of a pipeline's segment (half the L2 cache, 64 KiB to 1 MiB). */
uint64_t lm_reduce_segment(void);
/* coll_allreduce.c */
LM_ALGO(lm_allreduce_recursive_doubling);
LM_ALGO(lm_allreduce_rabenseifner);
LM_ALGO(lm_allreduce_ring);
LM_ALGO(lm_allreduce_reduce_bcast);
/* coll_gather.c */
LM_ALGO(lm_gather_binomial);
LM_ALGO(lm_gather_linear);
LM_ALGO(lm_gatherv_linear);
LM_ALGO(lm_scatter_binomial);
LM_ALGO(lm_scatter_linear);
LM_ALGO(lm_scatterv_linear);
/* coll_allgather.c */
LM_ALGO(lm_allgather_recursive_doubling);
LM_ALGO(lm_allgather_bruck);
LM_ALGO(lm_allgather_ring);
LM_ALGO(lm_allgatherv_ring);
LM_ALGO(lm_allgatherv_linear);
/* coll_alltoall.c */
LM_ALGO(lm_alltoall_bruck);
LM_ALGO(lm_alltoall_pairwise);
LM_ALGO(lm_alltoall_linear);
LM_ALGO(lm_alltoallv_pairwise);
LM_ALGO(lm_alltoallv_linear);
/* coll_reduce_scatter.c */
LM_ALGO(lm_reduce_scatter_halving);
LM_ALGO(lm_reduce_scatter_pairwise);
LM_ALGO(lm_reduce_scatter_reduce_scatterv);
/* coll_scan.c */
LM_ALGO(lm_scan_recursive_doubling);
LM_ALGO(lm_scan_linear);
LM_ALGO(lm_exscan_recursive_doubling);
LM_ALGO(lm_exscan_linear);
/* coll_neighbor.c */
LM_ALGO(lm_neighbor_exchange);

#endif /* LIBMSG_COLL_ALGO_H */
