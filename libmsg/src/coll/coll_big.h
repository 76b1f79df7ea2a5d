/* SPDX-License-Identifier: MIT */
/*
 * coll_big.h: what the large-count (_c) collectives share (coll_big.c,
 * coll_big_v.c, coll_big_nbr.c, coll_big_nbrv.c): a side's count and
 * type brought into an int, a v call's arrays in a unit that fits, and
 * a persistent call's converted arrays kept with its request.
 */
#ifndef LIBMSG_COLL_BIG_H
#define LIBMSG_COLL_BIG_H

#include "coll/coll.h"

/* ---- coll_big.c: the large-count (_c) calls' shared steps ----------------- */

/* This rank's side of a rooted collective is the root's. */
int lm_coll_at_root(MPI_Comm comm, int root);
/* A side's count and type (lm_big) where used, else what fits an int. */
int lm_coll_big_side(const char *fn, MPI_Comm comm, int used,
		     MPI_Count count, MPI_Datatype dt, int *n, MPI_Datatype *t);

/* ---- coll_big_v.c: the large-count v collectives' arrays ------------- */

/* A v call's counts and displacements on one side, as ints of a unit t. */
struct lm_vside {
	int *counts, *displs;
	MPI_Datatype dt, t;
};

/*
 * n counts and displacements of dt (used: else nothing) in a unit of
 * g elements that brings them into an int (t: dt, or a contiguous type
 * of g), else MPI_ERR_COUNT raised.
 */
int lm_vside(const char *fn, MPI_Comm comm, int n, int used,
	     const MPI_Count counts[], const MPI_Aint displs[],
	     MPI_Datatype dt, struct lm_vside *v);
void lm_vside_drop(struct lm_vside *v);
/* The type lm_vside made, or MPI_DATATYPE_NULL. */
MPI_Datatype lm_vside_made(const struct lm_vside *v);
/*
 * A persistent call's converted arrays (m0..m3, freed with it) and the
 * types made for it (own, nown: released with it) go with its request.
 * 0, or MPI_ERR_NO_MEM with the request and all of them freed.
 */
int lm_big_keep(MPI_Comm comm, const char *fn, MPI_Request *request,
		void *m0, void *m1, void *m2, void *m3, MPI_Datatype *own,
		int nown);

#endif /* LIBMSG_COLL_BIG_H */
