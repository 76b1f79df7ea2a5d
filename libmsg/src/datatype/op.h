/* SPDX-License-Identifier: MIT */
/*
 * op.h: reduction operations (op.c): the op object, the predefined
 * ops, and applying one to elements of a datatype.
 */
#ifndef LIBMSG_OP_H
#define LIBMSG_OP_H

#include "datatype/datatype.h"

/* A reduction operation: predefined (fn NULL) or MPI_Op_create's. */
struct libmsg_op {
	uint32_t magic;
	uint8_t commute;	/* the user said the op is commutative */
	uint8_t predefined;
	int id;			/* predefined: LM_OP_* */
	MPI_User_function *fn;
	const char *name;
	uint32_t refs;		/* user ops: the handle + lm_op_hold()s */
	/*
	 * A language binding's caller (Fortran: src/fortran/): called
	 * instead of fn, which it knows how to call.
	 */
	void (*call)(struct libmsg_op *op, void *in, void *inout, int *len,
		     MPI_Datatype *dt);
	MPI_User_function_c *fn_c;	/* MPI_Op_create_c's, instead of fn */
};

enum {
	LM_OP_MAX, LM_OP_MIN, LM_OP_SUM, LM_OP_PROD, LM_OP_LAND, LM_OP_BAND,
	LM_OP_LOR, LM_OP_BOR, LM_OP_LXOR, LM_OP_BXOR, LM_OP_MINLOC,
	LM_OP_MAXLOC, LM_OP_REPLACE, LM_OP_NO_OP, LM_OP_USER,
};


/*
 * Can op reduce elements of dt?  MPI_SUCCESS, or MPI_ERR_OP (not an
 * op, or a predefined op MPI does not define on dt) / MPI_ERR_TYPE
 * (not a datatype), with a readable reason in *why (valid until the
 * next call from this thread).
 */
int lm_op_check(MPI_Op op, MPI_Datatype dt, const char **why);
/*
 * inout[i] = in[i] op inout[i] for count elements of dt (MPI order);
 * lm_op_check() said yes.  in == inout is allowed for predefined ops.
 */
void lm_op_apply(MPI_Op op, const void *in, void *inout, int count,
		 MPI_Datatype dt);
/*
 * Keep a user op alive past MPI_Op_free (a nonblocking reduction that
 * uses it); each hold is ended by one release.  No-ops on predefined.
 */
void lm_op_hold(MPI_Op op);
void lm_op_release(MPI_Op op);
static inline int lm_op_commutes(MPI_Op op)
{
	return op->commute;
}

#endif /* LIBMSG_OP_H */
