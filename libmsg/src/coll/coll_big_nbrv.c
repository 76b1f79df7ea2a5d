// SPDX-License-Identifier: MIT
/*
 * The large-count v and w neighbourhood collectives of MPI-4.0
 * (Neighbor_allgatherv_c, Neighbor_alltoallv_c, Neighbor_alltoallw_c,
 * their I and _init forms): the counts and displacements of a v side
 * in a unit that brings them into an int (lm_vside, coll_big_v.c), one
 * per neighbour (the topology's degrees); a w side's counts through
 * lm_big neighbour by neighbour (its displacements are MPI_Aint bytes
 * in the int calls too).  A persistent call keeps the converted arrays
 * and types with its request.
 */

#include <stdlib.h>

#include "coll/coll_big.h"
#include "comm/topo.h"

enum { F_BLOCK, F_NB, F_INIT };

static int degrees(const char *fn, MPI_Comm comm, int *in, int *out)
{
	struct lm_topo *t;
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	t = lm_topo_get(comm, fn, 0, &err);
	if (!t)
		return err;
	lm_topo_degrees(t, comm->rank, in, out);
	return MPI_SUCCESS;
}

static MPI_Datatype made(MPI_Datatype given, MPI_Datatype t)
{
	return t != given ? t : MPI_DATATYPE_NULL;
}

static int allgatherv(const char *fn, int form, const void *sbuf,
		      MPI_Count sc, MPI_Datatype st, void *rbuf,
		      const MPI_Count rc[], const MPI_Aint rd[],
		      MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
		      MPI_Request *req)
{
	struct lm_vside r;
	MPI_Datatype t;
	int sn, in, out, err = degrees(fn, comm, &in, &out);

	if (!err)
		err = lm_big(fn, comm, sc, st, &sn, &t);
	if (err)
		return err;
	err = lm_vside(fn, comm, in, 1, rc, rd, rt, &r);
	if (err)
		goto out;
	if (form == F_BLOCK)
		err = MPI_Neighbor_allgatherv(sbuf, sn, t, rbuf, r.counts,
					      r.displs, r.t, comm);
	else if (form == F_NB)
		err = MPI_Ineighbor_allgatherv(sbuf, sn, t, rbuf, r.counts,
					       r.displs, r.t, comm, req);
	else
		err = MPI_Neighbor_allgatherv_init(sbuf, sn, t, rbuf, r.counts,
						   r.displs, r.t, comm, info,
						   req);
	if (form == F_INIT && !err)	/* the arrays and types are the request's */
		return lm_big_keep(comm, fn, req, r.counts, NULL, NULL, NULL,
				   (MPI_Datatype[]){ lm_vside_made(&r),
						     made(st, t) }, 2);
	lm_vside_drop(&r);
out:
	lm_big_drop(st, t);
	return err;
}

static int alltoallv(const char *fn, int form, const void *sbuf,
		     const MPI_Count sc[], const MPI_Aint sd[],
		     MPI_Datatype st, void *rbuf, const MPI_Count rc[],
		     const MPI_Aint rd[], MPI_Datatype rt, MPI_Comm comm,
		     MPI_Info info, MPI_Request *req)
{
	struct lm_vside s, r;
	int in, out, err = degrees(fn, comm, &in, &out);

	if (!err)
		err = lm_vside(fn, comm, out, 1, sc, sd, st, &s);
	if (err)
		return err;
	err = lm_vside(fn, comm, in, 1, rc, rd, rt, &r);
	if (err)
		goto out;
	if (form == F_BLOCK)
		err = MPI_Neighbor_alltoallv(sbuf, s.counts, s.displs, s.t,
					     rbuf, r.counts, r.displs, r.t,
					     comm);
	else if (form == F_NB)
		err = MPI_Ineighbor_alltoallv(sbuf, s.counts, s.displs, s.t,
					      rbuf, r.counts, r.displs, r.t,
					      comm, req);
	else
		err = MPI_Neighbor_alltoallv_init(sbuf, s.counts, s.displs,
						  s.t, rbuf, r.counts,
						  r.displs, r.t, comm, info,
						  req);
	if (form == F_INIT && !err)
		return lm_big_keep(comm, fn, req, s.counts, r.counts, NULL,
				   NULL, (MPI_Datatype[]){ lm_vside_made(&s),
				   lm_vside_made(&r) }, 2);
	lm_vside_drop(&r);
out:
	lm_vside_drop(&s);
	return err;
}

/* A w side: n counts through lm_big, each with its own type. */
struct nw {
	int *counts;
	MPI_Datatype *types;
	const MPI_Datatype *given;
	int n;
};

static void nw_drop(struct nw *w)
{
	int i;

	for (i = 0; i < w->n; i++)
		lm_big_drop(w->given[i], w->types[i]);
	free(w->counts);
	free(w->types);
	w->counts = NULL;
	w->types = NULL;
	w->n = 0;
}

static int nw(const char *fn, MPI_Comm comm, int n, const MPI_Count c[],
	      const MPI_Datatype types[], struct nw *w)
{
	int i, err;

	w->n = 0;
	w->given = types;
	w->counts = malloc((size_t)(n ? n : 1) * sizeof(int));
	w->types = calloc((size_t)(n ? n : 1), sizeof(MPI_Datatype));
	if (!w->counts || !w->types) {
		nw_drop(w);
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	if (n && (!c || !types)) {
		nw_drop(w);
		return lm_error(comm, fn, MPI_ERR_ARG,
				"a count or type array is NULL");
	}
	for (i = 0; i < n; i++) {
		err = lm_big(fn, comm, c[i], types[i], &w->counts[i],
			     &w->types[i]);
		if (err) {
			nw_drop(w);
			return err;
		}
		w->n = i + 1;
	}
	return MPI_SUCCESS;
}

static int alltoallw(const char *fn, int form, const void *sbuf,
		     const MPI_Count sc[], const MPI_Aint sd[],
		     const MPI_Datatype st[], void *rbuf, const MPI_Count rc[],
		     const MPI_Aint rd[], const MPI_Datatype rt[],
		     MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
	struct nw s, r;
	MPI_Datatype *own;
	int in, out, i, err = degrees(fn, comm, &in, &out);

	if (!err)
		err = nw(fn, comm, out, sc, st, &s);
	if (err)
		return err;
	err = nw(fn, comm, in, rc, rt, &r);
	if (err)
		goto out;
	if (form == F_BLOCK)
		err = MPI_Neighbor_alltoallw(sbuf, s.counts, sd, s.types, rbuf,
					     r.counts, rd, r.types, comm);
	else if (form == F_NB)
		err = MPI_Ineighbor_alltoallw(sbuf, s.counts, sd, s.types,
					      rbuf, r.counts, rd, r.types,
					      comm, req);
	else
		err = MPI_Neighbor_alltoallw_init(sbuf, s.counts, sd, s.types,
						  rbuf, r.counts, rd, r.types,
						  comm, info, req);
	if (form == F_INIT && !err) {
		own = malloc((size_t)(s.n + r.n + 1) * sizeof(*own));
		if (!own) {
			MPI_Request_free(req);
			err = lm_error(comm, fn, MPI_ERR_NO_MEM,
				       "out of memory");
			goto drop;
		}
		for (i = 0; i < s.n; i++)
			own[i] = made(s.given[i], s.types[i]);
		for (i = 0; i < r.n; i++)
			own[s.n + i] = made(r.given[i], r.types[i]);
		err = lm_big_keep(comm, fn, req, s.counts, r.counts, s.types,
				  r.types, own, s.n + r.n);
		free(own);
		return err;
	}
drop:
	nw_drop(&r);
out:
	nw_drop(&s);
	return err;
}

int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      const MPI_Count recvcounts[],
			      const MPI_Aint displs[], MPI_Datatype recvtype,
			      MPI_Comm comm)
{
	return allgatherv("MPI_Neighbor_allgatherv_c", F_BLOCK, sendbuf,
			  sendcount, sendtype, recvbuf, recvcounts, displs,
			  recvtype, comm, MPI_INFO_NULL, NULL);
}

int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
			       MPI_Datatype sendtype, void *recvbuf,
			       const MPI_Count recvcounts[],
			       const MPI_Aint displs[], MPI_Datatype recvtype,
			       MPI_Comm comm, MPI_Request *request)
{
	return allgatherv("MPI_Ineighbor_allgatherv_c", F_NB, sendbuf,
			  sendcount, sendtype, recvbuf, recvcounts, displs,
			  recvtype, comm, MPI_INFO_NULL, request);
}

int MPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
				   MPI_Datatype sendtype, void *recvbuf,
				   const MPI_Count recvcounts[],
				   const MPI_Aint displs[],
				   MPI_Datatype recvtype, MPI_Comm comm,
				   MPI_Info info, MPI_Request *request)
{
	return allgatherv("MPI_Neighbor_allgatherv_init_c", F_INIT, sendbuf,
			  sendcount, sendtype, recvbuf, recvcounts, displs,
			  recvtype, comm, info, request);
}

int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
			     const MPI_Aint sdispls[], MPI_Datatype sendtype,
			     void *recvbuf, const MPI_Count recvcounts[],
			     const MPI_Aint rdispls[], MPI_Datatype recvtype,
			     MPI_Comm comm)
{
	return alltoallv("MPI_Neighbor_alltoallv_c", F_BLOCK, sendbuf,
			 sendcounts, sdispls, sendtype, recvbuf, recvcounts,
			 rdispls, recvtype, comm, MPI_INFO_NULL, NULL);
}

int MPI_Ineighbor_alltoallv_c(const void *sendbuf,
			      const MPI_Count sendcounts[],
			      const MPI_Aint sdispls[], MPI_Datatype sendtype,
			      void *recvbuf, const MPI_Count recvcounts[],
			      const MPI_Aint rdispls[], MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request)
{
	return alltoallv("MPI_Ineighbor_alltoallv_c", F_NB, sendbuf,
			 sendcounts, sdispls, sendtype, recvbuf, recvcounts,
			 rdispls, recvtype, comm, MPI_INFO_NULL, request);
}

int MPI_Neighbor_alltoallv_init_c(const void *sendbuf,
				  const MPI_Count sendcounts[],
				  const MPI_Aint sdispls[],
				  MPI_Datatype sendtype, void *recvbuf,
				  const MPI_Count recvcounts[],
				  const MPI_Aint rdispls[],
				  MPI_Datatype recvtype, MPI_Comm comm,
				  MPI_Info info, MPI_Request *request)
{
	return alltoallv("MPI_Neighbor_alltoallv_init_c", F_INIT, sendbuf,
			 sendcounts, sdispls, sendtype, recvbuf, recvcounts,
			 rdispls, recvtype, comm, info, request);
}

int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
			     const MPI_Aint sdispls[],
			     const MPI_Datatype sendtypes[], void *recvbuf,
			     const MPI_Count recvcounts[],
			     const MPI_Aint rdispls[],
			     const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	return alltoallw("MPI_Neighbor_alltoallw_c", F_BLOCK, sendbuf,
			 sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
			 rdispls, recvtypes, comm, MPI_INFO_NULL, NULL);
}

int MPI_Ineighbor_alltoallw_c(const void *sendbuf,
			      const MPI_Count sendcounts[],
			      const MPI_Aint sdispls[],
			      const MPI_Datatype sendtypes[], void *recvbuf,
			      const MPI_Count recvcounts[],
			      const MPI_Aint rdispls[],
			      const MPI_Datatype recvtypes[], MPI_Comm comm,
			      MPI_Request *request)
{
	return alltoallw("MPI_Ineighbor_alltoallw_c", F_NB, sendbuf,
			 sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
			 rdispls, recvtypes, comm, MPI_INFO_NULL, request);
}

int MPI_Neighbor_alltoallw_init_c(const void *sendbuf,
				  const MPI_Count sendcounts[],
				  const MPI_Aint sdispls[],
				  const MPI_Datatype sendtypes[], void *recvbuf,
				  const MPI_Count recvcounts[],
				  const MPI_Aint rdispls[],
				  const MPI_Datatype recvtypes[],
				  MPI_Comm comm, MPI_Info info,
				  MPI_Request *request)
{
	return alltoallw("MPI_Neighbor_alltoallw_init_c", F_INIT, sendbuf,
			 sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
			 rdispls, recvtypes, comm, info, request);
}
