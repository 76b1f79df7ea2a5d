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

/* ---- coll_api_data.c: the v and w collectives, either call's arrays ---- */

/*
 * A v or w call's counts and displacements: the int call's, or the
 * large-count call's (wide), which go to the schedule as they are (its
 * blocks are 64-bit bytes) on an intracommunicator.
 */
struct lm_varr {
	int wide;
	const int *counts, *displs;
	const MPI_Count *ccounts;
	const MPI_Aint *cdispls;
};
#define LM_VARR(c, d) (&(const struct lm_varr){ .counts = (c), .displs = (d) })
#define LM_VARR_C(c, d) \
	(&(const struct lm_varr){ .wide = 1, .ccounts = (c), .cdispls = (d) })

/* An intercommunicator takes only an int call's arrays. */
int lm_coll_gatherv(const char *fn, const void *sendbuf, int64_t sendcount,
		    MPI_Datatype sendtype, void *recvbuf,
		    const struct lm_varr *rv, MPI_Datatype recvtype, int root,
		    MPI_Comm comm, MPI_Request *request, int nb);
int lm_coll_scatterv(const char *fn, const void *sendbuf,
		     const struct lm_varr *sv, MPI_Datatype sendtype,
		     void *recvbuf, int64_t recvcount, MPI_Datatype recvtype,
		     int root, MPI_Comm comm, MPI_Request *request, int nb);
int lm_coll_allgatherv(const char *fn, const void *sendbuf,
		       int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
		       const struct lm_varr *rv, MPI_Datatype recvtype,
		       MPI_Comm comm, MPI_Request *request, int nb);
/* c: LM_ALLTOALLV (one type each side) or LM_ALLTOALLW (displs in bytes). */
int lm_coll_alltoallvw(const char *fn, const void *sendbuf,
		       const struct lm_varr *sv,
		       const MPI_Datatype *sendtypes, MPI_Datatype sendtype,
		       void *recvbuf, const struct lm_varr *rv,
		       const MPI_Datatype *recvtypes, MPI_Datatype recvtype,
		       MPI_Comm comm, MPI_Request *request, int nb,
		       enum lm_coll c);

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
