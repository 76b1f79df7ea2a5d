/* SPDX-License-Identifier: MIT */
/*
 * scratch.h: temporaries for packed messages, one-sided and collective
 * work (base/scratch.c): large ones are kept for the next use.
 */
#ifndef LIBMSG_SCRATCH_H
#define LIBMSG_SCRATCH_H

#include <stdint.h>

/* Bytes of large temporaries kept between uses (MPICHAN_SCRATCH_KEEP). */
extern uint64_t lm_scratch_keep;

/* bytes of memory (NULL: none to be had); put it back with the same bytes. */
void *lm_scratch_get(uint64_t bytes);
void lm_scratch_put(void *p, uint64_t bytes);
/* Set lm_scratch_keep, giving back what no longer fits. */
void lm_scratch_set_keep(uint64_t keep);
/* At MPI_Finalize: give back what is kept. */
void lm_scratch_drop(void);

#endif /* LIBMSG_SCRATCH_H */
