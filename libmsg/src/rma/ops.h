/* SPDX-License-Identifier: MIT */
/*
 * ops.h: what the one-sided operations' files share (inside rma/):
 * ops.c (the target's runs, copies, Put and Get, the checks), acc.c
 * (Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap on the
 * target's bytes) and calls.c (the MPI calls).
 */
#ifndef LIBMSG_RMA_OPS_H
#define LIBMSG_RMA_OPS_H

#include "rma/rma.h"

enum { OP_PUT, OP_GET, OP_ACC, OP_GACC, OP_CAS };

/*
 * Accumulates of up to this many elements on mapped memory are CPU
 * atomics; larger ones hold the accumulate lock and run the op's loop
 * (a lock-prefixed instruction per element costs as much as the lock
 * after a few elements, and the loop is vectorised).
 */
#define LM_ACC_ATOMICS	16

struct rma_args {
	int kind;
	const void *obuf;
	MPI_Count ocount;
	MPI_Datatype otype;
	void *rbuf;
	MPI_Count rcount;
	MPI_Datatype rtype;
	const void *cbuf;	/* compare-and-swap: the value compared */
	int t;
	MPI_Aint disp;
	MPI_Count tcount;
	MPI_Datatype ttype;
	MPI_Op op;
	int passive_only;	/* request-based: only in a passive epoch */
	/* Worked out by check_args: */
	uint64_t bytes;		/* of the target data */
	uint64_t taddr;		/* the target buffer, owner's address */
	uint64_t lo, hi;	/* the bytes touched, owner's addresses */
	MPI_Datatype basic;	/* accumulates: the one basic type */
};

/* A walk of the target's runs that copies them from or into buf. */
struct xfer {
	struct lm_walk w;
	struct lm_tgt *g;
	unsigned char *buf;	/* packed, in the target type's order */
	int write;
	/* Accumulates on mapped memory (flush_atomic). */
	MPI_Op op;
	MPI_Datatype basic;
	const unsigned char *in;
	unsigned char *old;
	int locked;		/* holds the target's accumulate lock */
	const char *fn;
};

static inline unsigned char *lm_rma_local(const struct lm_tgt *g, uint64_t addr)
{
	return g->map + (addr - g->base);
}

/* ---- ops.c ----------------------------------------------------------------- */

/* The target data into packed buf (read) or from it (write). */
int lm_rma_target_io(struct lm_tgt *g, const char *fn,
		     const struct rma_args *a, void *buf, int write);
/* count dt's at buf packed: in place when contiguous, else a copy (*tmp). */
const unsigned char *lm_rma_packed(const void *buf, int64_t count,
				   MPI_Datatype dt, unsigned char **tmp);
/* Room for count dt's packed: buf itself when contiguous, else *tmp ... */
unsigned char *lm_rma_room(void *buf, int64_t count, MPI_Datatype dt,
			   unsigned char **tmp);
/* ... unpacked into buf and given back. */
void lm_rma_unroom(void *buf, int64_t count, MPI_Datatype dt,
		   unsigned char *tmp);
/* An operation, checked and made; and the request-based form. */
int lm_rma_op(MPI_Win win, const char *fn, struct rma_args *a);
int lm_rma_op_req(MPI_Win win, const char *fn, struct rma_args *a,
		  MPI_Request *request);

/* ---- acc.c ----------------------------------------------------------------- */

int lm_rma_do_acc(struct libmsg_win *win, const char *fn, struct rma_args *a,
		  struct lm_tgt *g);
int lm_rma_do_cas(struct libmsg_win *win, const char *fn, struct rma_args *a,
		  struct lm_tgt *g);

#endif /* LIBMSG_RMA_OPS_H */
