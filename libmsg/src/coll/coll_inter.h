/* SPDX-License-Identifier: MIT */
/*
 * coll_inter.h: the collectives on intercommunicators (blocking:
 * coll_inter.c, coll_inter_red.c; nonblocking: coll_inter_nb*.c),
 * which coll_api*.c call for an intercommunicator; errors are raised on it as fn.
 */
#ifndef LIBMSG_COLL_INTER_H
#define LIBMSG_COLL_INTER_H

#include "coll/coll.h"

int lm_inter_fail(MPI_Comm ic, const char *fn, int err);
int lm_inter_root(MPI_Comm ic, const char *fn, int root);
int lm_inter_no_in_place(MPI_Comm ic, const char *fn, const void *buf);
int lm_inter_barrier(const char *fn, MPI_Comm ic);
int lm_inter_bcast(const char *fn, void *buf, int count, MPI_Datatype dt,
		   int root, MPI_Comm ic);
int lm_inter_gather(const char *fn, const void *sbuf, int scount,
		    MPI_Datatype stype, void *rbuf, int rcount,
		    MPI_Datatype rtype, int root, MPI_Comm ic);
int lm_inter_scatter(const char *fn, const void *sbuf, int scount,
		     MPI_Datatype stype, void *rbuf, int rcount,
		     MPI_Datatype rtype, int root, MPI_Comm ic);
int lm_inter_gatherv(const char *fn, const void *sbuf, int scount,
		     MPI_Datatype stype, void *rbuf, const int rcounts[],
		     const int displs[], MPI_Datatype rtype, int root,
		     MPI_Comm ic);
int lm_inter_scatterv(const char *fn, const void *sbuf, const int scounts[],
		      const int displs[], MPI_Datatype stype, void *rbuf,
		      int rcount, MPI_Datatype rtype, int root, MPI_Comm ic);
int lm_inter_allgather(const char *fn, const void *sbuf, int scount,
		       MPI_Datatype stype, void *rbuf, int rcount,
		       MPI_Datatype rtype, MPI_Comm ic);
int lm_inter_allgatherv(const char *fn, const void *sbuf, int scount,
			MPI_Datatype stype, void *rbuf, const int rcounts[],
			const int displs[], MPI_Datatype rtype, MPI_Comm ic);
int lm_inter_alltoall(const char *fn, const void *sbuf, int scount,
		      MPI_Datatype stype, void *rbuf, int rcount,
		      MPI_Datatype rtype, MPI_Comm ic);
/* w: per-block types and byte displacements (else stype, rtype). */
int lm_inter_alltoallvw(const char *fn, const void *sbuf,
			const int scounts[], const int sdispls[],
			const MPI_Datatype *stypes, MPI_Datatype stype,
			void *rbuf, const int rcounts[], const int rdispls[],
			const MPI_Datatype *rtypes, MPI_Datatype rtype,
			MPI_Comm ic, int w);
int lm_inter_reduce(const char *fn, const void *sbuf, void *rbuf, int count,
		    MPI_Datatype dt, MPI_Op op, int root, MPI_Comm ic);
int lm_inter_allreduce(const char *fn, const void *sbuf, void *rbuf,
		       int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ic);
/* counts NULL: _block, count each. */
int lm_inter_reduce_scatter(const char *fn, const void *sbuf, void *rbuf,
			    const int counts[], int count, MPI_Datatype dt,
			    MPI_Op op, MPI_Comm ic);

/*
 * The nonblocking forms (coll_inter_nb.c, coll_inter_nbred.c): one
 * schedule each on ic, under a new request (or the persistent one that
 * MPI_Start runs).
 */
struct lm_sched *lm_inter_sched(const char *fn, MPI_Comm ic);
/* Close s and start it (err: free it, raise err as fn). */
int lm_inter_run(const char *fn, struct lm_sched *s, int err,
		 struct lm_coll_args *a, MPI_Request *request);
int lm_inter_req(MPI_Comm ic, const char *fn, MPI_Request *request);
int lm_inter_ibarrier(const char *fn, MPI_Comm ic, MPI_Request *request);
int lm_inter_ibcast(const char *fn, void *buf, int count, MPI_Datatype dt,
		    int root, MPI_Comm ic, MPI_Request *request);
int lm_inter_igather(const char *fn, const void *sbuf, int scount,
		     MPI_Datatype stype, void *rbuf, int rcount,
		     MPI_Datatype rtype, int root, MPI_Comm ic,
		     MPI_Request *request);
int lm_inter_iscatter(const char *fn, const void *sbuf, int scount,
		      MPI_Datatype stype, void *rbuf, int rcount,
		      MPI_Datatype rtype, int root, MPI_Comm ic,
		      MPI_Request *request);
int lm_inter_igatherv(const char *fn, const void *sbuf, int scount,
		      MPI_Datatype stype, void *rbuf, const int rcounts[],
		      const int displs[], MPI_Datatype rtype, int root,
		      MPI_Comm ic, MPI_Request *request);
int lm_inter_iscatterv(const char *fn, const void *sbuf, const int scounts[],
		       const int displs[], MPI_Datatype stype, void *rbuf,
		       int rcount, MPI_Datatype rtype, int root, MPI_Comm ic,
		       MPI_Request *request);
int lm_inter_iallgather(const char *fn, const void *sbuf, int scount,
			MPI_Datatype stype, void *rbuf, int rcount,
			MPI_Datatype rtype, MPI_Comm ic, MPI_Request *request);
int lm_inter_iallgatherv(const char *fn, const void *sbuf, int scount,
			 MPI_Datatype stype, void *rbuf, const int rcounts[],
			 const int displs[], MPI_Datatype rtype, MPI_Comm ic,
			 MPI_Request *request);
int lm_inter_ialltoall(const char *fn, const void *sbuf, int scount,
		       MPI_Datatype stype, void *rbuf, int rcount,
		       MPI_Datatype rtype, MPI_Comm ic, MPI_Request *request);
int lm_inter_ialltoallvw(const char *fn, const void *sbuf,
			 const int scounts[], const int sdispls[],
			 const MPI_Datatype *stypes, MPI_Datatype stype,
			 void *rbuf, const int rcounts[], const int rdispls[],
			 const MPI_Datatype *rtypes, MPI_Datatype rtype,
			 MPI_Comm ic, int w, MPI_Request *request);
int lm_inter_ireduce(const char *fn, const void *sbuf, void *rbuf, int count,
		     MPI_Datatype dt, MPI_Op op, int root, MPI_Comm ic,
		     MPI_Request *request);
int lm_inter_iallreduce(const char *fn, const void *sbuf, void *rbuf,
			int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ic,
			MPI_Request *request);
int lm_inter_ireduce_scatter(const char *fn, const void *sbuf, void *rbuf,
			     const int counts[], int count, MPI_Datatype dt,
			     MPI_Op op, MPI_Comm ic, MPI_Request *request);

#endif /* LIBMSG_COLL_INTER_H */
