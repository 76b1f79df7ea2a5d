// SPDX-License-Identifier: MIT
/*
 * MPI_Alltoallw_c, MPI_Ialltoallw_c and MPI_Alltoallw_init_c.  On an
 * intracommunicator the blocking and nonblocking calls hand their 64-bit
 * arrays to the schedule (lm_coll_alltoallvw, coll_api_data.c).  On an
 * intercommunicator, and in the persistent call (whose starts replay the
 * int call), each peer's count goes through lm_big and a byte
 * displacement beyond an int into the peer's type (far_block).
 */

#include <limits.h>
#include <stdlib.h>

#include "coll/coll_big.h"

/*
 * Alltoallw's side: counts through lm_big peer by peer; a displacement
 * beyond an int goes into the peer's type (far_block).
 */
struct wside {
	int *counts, *displs;
	MPI_Datatype *types;
	const MPI_Datatype *given;
	int n;
};

static void wside_drop(struct wside *w)
{
	int i;

	if (w->types)
		for (i = 0; i < w->n; i++)
			lm_big_drop(w->given[i], w->types[i]);
	free(w->counts);
	free(w->types);
	w->counts = NULL;
	w->types = NULL;
}

/*
 * Peer i's block lies beyond an int of bytes from the buffer: it
 * becomes one element of a type that holds it at that displacement
 * (hindexed, one block of what lm_big made of it), at displacement 0.
 * The bytes and the type signature are the same.
 */
static int far_block(const char *fn, MPI_Comm comm, MPI_Aint displ,
		     MPI_Datatype given, struct wside *w, int i)
{
	MPI_Count len = w->counts[i], at = displ;
	MPI_Datatype t;
	int err;

	err = MPI_Type_create_hindexed_c(1, &len, &at, w->types[i], &t);
	if (!err)
		err = MPI_Type_commit(&t);
	lm_big_drop(given, w->types[i]);
	w->types[i] = given;
	if (err)
		return lm_error(comm, fn, err,
				"displacement %lld bytes for rank %d: no type to hold it",
				(long long)displ, i);
	w->types[i] = t;
	w->counts[i] = 1;
	w->displs[i] = 0;
	return MPI_SUCCESS;
}

static int wside(const char *fn, MPI_Comm comm, int used,
		 const MPI_Count counts[], const MPI_Aint displs[],
		 const MPI_Datatype types[], struct wside *w)
{
	int i, err;

	w->counts = w->displs = NULL;
	w->types = NULL;
	w->given = types;
	w->n = 0;
	if (!used)
		return MPI_SUCCESS;
	if (!counts || !displs || !types)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"a count, displacement or type array is NULL");
	w->counts = malloc(2 * (size_t)(comm->rsize ? comm->rsize : 1) *
			   sizeof(int));
	w->types = calloc((size_t)(comm->rsize ? comm->rsize : 1),
			  sizeof(MPI_Datatype));
	if (!w->counts || !w->types) {
		wside_drop(w);
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	w->displs = w->counts + comm->rsize;
	for (i = 0; i < comm->rsize; i++) {
		err = lm_big(fn, comm, counts[i], types[i], &w->counts[i],
			     &w->types[i]);
		if (!err && (displs[i] > INT_MAX || displs[i] < INT_MIN))
			err = far_block(fn, comm, displs[i], types[i], w, i);
		else
			w->displs[i] = (int)displs[i];
		if (err) {
			w->n = i;
			wside_drop(w);
			return err;
		}
	}
	w->n = comm->rsize;
	return MPI_SUCCESS;
}

/* keep() for alltoallw's two sides: the types made, listed. */
static int keep_w(MPI_Comm comm, const char *fn, MPI_Request *request,
		  struct wside *s, struct wside *r)
{
	int n = s->n + r->n, i, err;
	MPI_Datatype *own = malloc((size_t)(n ? n : 1) * sizeof(*own));

	if (!own) {
		MPI_Request_free(request);
		wside_drop(s);
		wside_drop(r);
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	for (i = 0; i < s->n; i++)
		own[i] = s->types[i] != s->given[i] ? s->types[i] :
			MPI_DATATYPE_NULL;
	for (i = 0; i < r->n; i++)
		own[s->n + i] = r->types[i] != r->given[i] ? r->types[i] :
			MPI_DATATYPE_NULL;
	err = lm_big_keep(comm, fn, request, s->counts, r->counts, s->types,
			  r->types, own, n);
	free(own);
	return err;
}

int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
		    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
		    void *recvbuf, const MPI_Count recvcounts[],
		    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
		    MPI_Comm comm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Alltoallw_c";
	struct wside s, r;
	int err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_alltoallvw(fn, sendbuf,
					  LM_VARR_C(sendcounts, sdispls),
					  sendtypes, NULL, recvbuf,
					  LM_VARR_C(recvcounts, rdispls),
					  recvtypes, NULL, comm, NULL, 0,
					  LM_ALLTOALLW);

	if (!err)
		err = wside(fn, comm, sendbuf != MPI_IN_PLACE, sendcounts,
			    sdispls, sendtypes, &s);
	if (err)
		return err;
	err = wside(fn, comm, 1, recvcounts, rdispls, recvtypes, &r);
	if (!err) {
		err = MPI_Alltoallw(sendbuf, s.counts, s.displs, s.types,
				    recvbuf, r.counts, r.displs, r.types, comm);
		wside_drop(&r);
	}
	wside_drop(&s);
	return err;
}

int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
		     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
		     void *recvbuf, const MPI_Count recvcounts[],
		     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
		     MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Ialltoallw_c";
	struct wside s, r;
	int err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_alltoallvw(fn, sendbuf,
					  LM_VARR_C(sendcounts, sdispls),
					  sendtypes, NULL, recvbuf,
					  LM_VARR_C(recvcounts, rdispls),
					  recvtypes, NULL, comm, request, 1,
					  LM_ALLTOALLW);

	if (!err)
		err = wside(fn, comm, sendbuf != MPI_IN_PLACE, sendcounts,
			    sdispls, sendtypes, &s);
	if (err)
		return err;
	err = wside(fn, comm, 1, recvcounts, rdispls, recvtypes, &r);
	if (!err) {
		err = MPI_Ialltoallw(sendbuf, s.counts, s.displs, s.types,
				     recvbuf, r.counts, r.displs, r.types, comm,
				     request);
		wside_drop(&r);
	}
	wside_drop(&s);
	return err;
}

int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			 const MPI_Aint sdispls[],
			 const MPI_Datatype sendtypes[], void *recvbuf,
			 const MPI_Count recvcounts[], const MPI_Aint rdispls[],
			 const MPI_Datatype recvtypes[], MPI_Comm comm,
			 MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Alltoallw_init_c";
	struct wside s, r;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = wside(fn, comm, sendbuf != MPI_IN_PLACE, sendcounts,
			    sdispls, sendtypes, &s);
	if (err)
		return err;
	err = wside(fn, comm, 1, recvcounts, rdispls, recvtypes, &r);
	if (!err) {
		err = MPI_Alltoallw_init(sendbuf, s.counts, s.displs, s.types,
					 recvbuf, r.counts, r.displs, r.types,
					 comm, info, request);
		if (err) {
			wside_drop(&r);
		} else {
			err = keep_w(comm, fn, request, &s, &r);
			return err;	/* s and r are the request's, or gone */
		}
	}
	wside_drop(&s);
	return err;
}
