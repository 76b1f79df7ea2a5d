// SPDX-License-Identifier: MIT
/*
 * Context ids of created communicators.
 *
 * A message names its context id, and a receiver finds the matching
 * queues by that id alone, so an id must name one communicator on each
 * process that uses it: the processes of a new communicator must agree
 * on an id that none of them is using.  Ids need not be unique across
 * the job: two disjoint communicators may share one, since their
 * messages never have a process in common.
 *
 * Each process keeps a bitmask of the ids it has free (bit i: ids 2i
 * for point-to-point and 2i + 1 for collectives).  A creation is
 * collective over a communicator that holds every future member (the
 * parent, or for MPI_Comm_create_group a temporary one of the group):
 * an MPI_Allreduce with MPI_BAND of the masks gives the ids free
 * everywhere, and all take the lowest.  Every process sees the same
 * result, so they agree without another round.  Freed ids go back
 * into the mask (comm.c, once the communicator's operations are over).
 *
 * At MPI_THREAD_MULTIPLE, threads of one process may create
 * communicators at once (on different parents), and a mask must not
 * be offered to two agreements that may both take its lowest id.  As
 * in MPICH, one agreement at a time holds the mask on a process; the
 * others offer no id (all zeros) and try again.  An extra word says
 * whether every process offered its mask: a round without a common id
 * where all did is a real shortage; otherwise the round is repeated.
 * The mask goes to the waiting agreement whose parent has the lowest
 * context id: the lowest of all waiting ones gets it on all its
 * processes within a round of each, so some agreement always succeeds.
 * The library lock is held from the reduction's end until the new
 * communicator is registered (nothing in between waits), so the id is
 * taken before another agreement can look at the mask.
 */

#include <sched.h>
#include <string.h>

#include "comm/comm.h"

#define CTX_SLOTS	(LM_CTX_LIMIT / 2)
#define CTX_WORDS	(CTX_SLOTS / 32)

static uint32_t free_mask[CTX_WORDS];
static int mask_busy;			/* an agreement has offered it */
static unsigned int waiting[LM_CTX_LIMIT / 2];	/* agreements per parent slot */

void lm_ctx_init(void)
{
	uint32_t i;

	memset(free_mask, 0xff, sizeof(free_mask));
	for (i = 0; i < LM_CTX_FIRST; i += 2)
		lm_ctx_take(i);
}

void lm_ctx_take(uint32_t ctx)
{
	uint32_t slot = ctx / 2;

	free_mask[slot / 32] &= ~(1U << (slot % 32));
}

void lm_ctx_release(uint32_t ctx)
{
	uint32_t slot = ctx / 2;

	free_mask[slot / 32] |= 1U << (slot % 32);
}

/* Ids held on this process, the reserved ones included. */
int lm_ctx_in_use(void)
{
	int i, n = 0;

	for (i = 0; i < CTX_WORDS; i++)
		n += 32 - __builtin_popcount(free_mask[i]);
	return n;
}

/* May an agreement over a parent on context pctx offer the mask now? */
static int mask_mine(uint32_t pctx)
{
	uint32_t i;

	if (mask_busy)
		return 0;
	for (i = 0; i < pctx / 2; i++)
		if (waiting[i])
			return 0;
	return 1;
}

static int agree_round(struct libmsg_comm *over, uint32_t *all)
{
	uint32_t mine[CTX_WORDS + 1];
	int own = mask_mine(over->ctx), err;

	if (own) {
		mask_busy = 1;
		memcpy(mine, free_mask, sizeof(free_mask));
	} else {
		memset(mine, 0, sizeof(free_mask));
	}
	mine[CTX_WORDS] = (uint32_t)own;
	err = MPI_Allreduce(mine, all, CTX_WORDS + 1, MPI_UINT32_T, MPI_BAND,
			    over);
	if (own)
		mask_busy = 0;
	return err;
}

int lm_ctx_agree(struct libmsg_comm *over, const char *fn, uint32_t *ctx)
{
	uint32_t all[CTX_WORDS + 1], slot = over->ctx / 2;
	int i, err;

	lm_comm_reap();
	waiting[slot]++;
	for (;;) {
		err = agree_round(over, all);
		if (err)
			break;
		for (i = 0; i < CTX_WORDS; i++)
			if (all[i])
				break;
		if (i < CTX_WORDS) {
			*ctx = 2 * (32 * (uint32_t)i +
				    (uint32_t)__builtin_ctz(all[i]));
			break;
		}
		if (all[CTX_WORDS]) {
			err = lm_error(over, fn, MPI_ERR_OTHER,
				       "no context id is free on all %d processes (%d of %d in use here)",
				       over->size, lm_ctx_in_use(), CTX_SLOTS);
			break;
		}
		/* Another thread's agreement had the mask somewhere. */
		lm_mt_relax(0, 1);
	}
	waiting[slot]--;
	return err;
}
