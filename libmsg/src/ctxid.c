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
 * result, so they agree without another round.  One process does one
 * creation at a time (the library gives at most MPI_THREAD_FUNNELED),
 * so a mask cannot change between its contribution and its use, and
 * creations on disjoint communicators that run at the same time cannot
 * hand one id to two communicators of one process.  Freed ids go back
 * into the mask (comm.c, once the communicator's operations are over).
 */

#include <string.h>

#include "lm.h"

#define CTX_SLOTS	(LM_CTX_LIMIT / 2)
#define CTX_WORDS	(CTX_SLOTS / 32)

static uint32_t free_mask[CTX_WORDS];

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

int lm_ctx_agree(struct libmsg_comm *over, const char *fn, uint32_t *ctx)
{
	uint32_t mine[CTX_WORDS], all[CTX_WORDS];
	int i, err;

	lm_comm_reap();
	memcpy(mine, free_mask, sizeof(mine));
	err = MPI_Allreduce(mine, all, CTX_WORDS, MPI_UINT32_T, MPI_BAND, over);
	if (err)
		return err;
	for (i = 0; i < CTX_WORDS; i++) {
		if (all[i]) {
			*ctx = 2 * (32 * (uint32_t)i +
				    (uint32_t)__builtin_ctz(all[i]));
			return MPI_SUCCESS;
		}
	}
	return lm_error(over, fn, MPI_ERR_OTHER,
			"no context id is free on all %d processes (%d of %d in use here)",
			over->size, lm_ctx_in_use(), CTX_SLOTS);
}
