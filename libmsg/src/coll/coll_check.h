/* SPDX-License-Identifier: MIT */
/*
 * coll/coll_check.h: what the two halves of collective-call verification
 * share (coll_check.c: the call described and the rounds that exchange
 * the descriptions; coll_check_judge.c: the verdict on a table of them
 * and its message).  Only these two files include it.
 */
#ifndef LM_COLL_CHECK_H
#define LM_COLL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "coll/algo/algo.h"

enum {
	K_BARRIER, K_BCAST, K_GATHER, K_GATHERV, K_SCATTER, K_SCATTERV,
	K_ALLGATHER, K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_ALLTOALLW,
	K_REDUCE, K_ALLREDUCE, K_REDUCE_SCATTER, K_REDUCE_SCATTER_BLOCK,
	K_SCAN, K_EXSCAN, K_NB_ALLGATHER, K_NB_ALLGATHERV, K_NB_ALLTOALL,
	K_NB_ALLTOALLV, K_NB_ALLTOALLW, K_NKINDS
};

/* Blocking and nonblocking names (coll_check_judge.c). */
extern const char *const lm_cc_names[K_NKINDS][2];

enum { V_BLOCKING, V_NONBLOCKING, V_PERSISTENT };

static inline int code_kind(int code)
{
	return code / 3;
}

static inline int rooted(int k)
{
	return k == K_BCAST || k == K_GATHER || k == K_GATHERV ||
		k == K_SCATTER || k == K_SCATTERV || k == K_REDUCE;
}

static inline int reduction(int k)
{
	return k == K_REDUCE || k == K_ALLREDUCE || k == K_REDUCE_SCATTER ||
		k == K_REDUCE_SCATTER_BLOCK || k == K_SCAN || k == K_EXSCAN;
}

/* MPI_IN_PLACE on every rank or on none. */
static inline int in_place_all_or_none(int k)
{
	return k == K_ALLGATHER || k == K_ALLGATHERV || k == K_ALLTOALL ||
		k == K_ALLTOALLV || k == K_ALLTOALLW || k == K_ALLREDUCE ||
		k == K_REDUCE_SCATTER || k == K_REDUCE_SCATTER_BLOCK;
}

/* Blocks that differ per pair: checked pair by pair (phase 2). */
static inline int per_pair(int k)
{
	return k == K_GATHERV || k == K_SCATTERV || k == K_ALLGATHERV ||
		k == K_ALLTOALLV || k == K_ALLTOALLW || k >= K_NB_ALLGATHER;
}


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

static inline int untyped(const struct lm_cc_sig *g)
{
	int t = g->type == LM_DT_DERIVED ? g->basic : g->type;

	return t == LM_DT_BYTE || t == LM_DT_PACKED;
}

/* Do the blocks match?  Bytes and packed data match any by their size. */
static inline int sig_match(const struct lm_cc_sig *a, const struct lm_cc_sig *b)
{
	if (untyped(a) || untyped(b))
		return a->bytes == b->bytes;
	return a->h == b->h && a->n == b->n;
}

/* "MPI_Bcast", "MPI_Ibcast", "MPI_Bcast_init" for a call's code. */
const char *lm_cc_code_name(int code, char *buf, size_t len);
/* The verdict on a table of n descriptors, the same on every rank. */
void lm_cc_verdict_of(const struct lm_cc_desc *const *d, int n,
		      struct lm_cc_verdict *v);

#endif
