/* SPDX-License-Identifier: MIT */
/*
 * intercoll_util.h: what the intercommunicator collective tests share
 * (intercoll.c, the blocking calls; intercoll_nb.c, the nonblocking
 * and persistent ones): the values each process sends, poisoned
 * buffers and a non-commutative operation.
 */
#ifndef LIBMSG_INTERCOLL_UTIL_H
#define LIBMSG_INTERCOLL_UTIL_H

#include "inter_util.h"

#define N 5		/* ints per block */
#define POISON (-77)

/* The value remote rank r (of the other group) puts at index i. */
static inline int val(int a, int r, int i)
{
	return 1000 * t_world_of(a, r) + i;
}

/* n ints and one more past them, all POISON. */
static inline int *ints(int n)
{
	int *p = malloc(((size_t)n + 1) * sizeof(int)), i;

	CHECK(p, "no memory");
	for (i = 0; i <= n; i++)
		p[i] = POISON;
	return p;
}

/* x op y = x: associative, not commutative; the result is rank 0's. */
static inline void first_op(void *in, void *inout, int *len,
			    MPI_Datatype *dt)
{
	(void)dt;
	memcpy(inout, in, (size_t)*len * sizeof(int));
}

#endif
