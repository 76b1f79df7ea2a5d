// SPDX-License-Identifier: MIT
/*
 * The large-count v and w collectives of MPI-4.0 (MPI_Gatherv_c, ...):
 * see coll_big.c.  On an intracommunicator the blocking and nonblocking
 * calls hand their 64-bit arrays to the schedule as they are
 * (lm_coll_gatherv and the rest, coll_api_data.c: its blocks are 64-bit
 * bytes), so any counts and displacements the memory allows work.  On
 * an intercommunicator, and in the persistent calls (whose starts
 * replay the int call), counts and displacements arrays are taken in a
 * unit of g elements (g their greatest common divisor) when that brings
 * them into an int (alltoallw: coll_big_w.c); reduce_scatter's counts
 * beyond an int go to lm_big_reduce_scatter (coll_big_red.c).  The v
 * neighbourhood collectives use the same sides (lm_vside,
 * coll_big_nbrv.c).
 */

#include <limits.h>
#include <stdlib.h>

#include "coll/coll_big.h"

static MPI_Count gcd(MPI_Count a, MPI_Count b)
{
	while (b) {
		MPI_Count r = a % b;

		a = b;
		b = r;
	}
	return a;
}

void lm_vside_drop(struct lm_vside *v)
{
	free(v->counts);
	lm_big_drop(v->dt, v->t);
	v->counts = v->displs = NULL;
	v->t = v->dt;
}

int lm_vside(const char *fn, MPI_Comm comm, int n, int used,
	     const MPI_Count counts[], const MPI_Aint displs[],
	     MPI_Datatype dt, struct lm_vside *v)
{
	int i, one, err;
	MPI_Count g = 0, m = 0;

	v->counts = v->displs = NULL;
	v->dt = v->t = dt;
	if (!used)
		return MPI_SUCCESS;
	if (!counts || !displs)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"a count or displacement array is NULL");
	for (i = 0; i < n; i++) {
		if (counts[i] < 0)
			return lm_error(comm, fn, MPI_ERR_COUNT,
					"count %lld for rank %d is negative",
					(long long)counts[i], i);
		if (displs[i] < 0)
			return lm_error(comm, fn, MPI_ERR_ARG,
					"displacement %lld for rank %d is negative",
					(long long)displs[i], i);
		g = gcd(gcd(g, counts[i]), displs[i]);
		m = counts[i] > m ? counts[i] : m;
		m = displs[i] > m ? displs[i] : m;
	}
	one = m <= INT_MAX;
	if (!one && m / g > INT_MAX)
		return lm_error(comm, fn, MPI_ERR_COUNT,
				"counts and displacements up to %lld, in no unit that brings them into an int (Not yet)",
				(long long)m);
	v->counts = malloc(2 * (size_t)(n ? n : 1) * sizeof(int));
	if (!v->counts)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	v->displs = v->counts + n;
	if (one)
		g = 1;
	for (i = 0; i < n; i++) {
		v->counts[i] = (int)(counts[i] / g);
		v->displs[i] = (int)(displs[i] / g);
	}
	if (g > 1) {
		err = lm_big(fn, comm, g, dt, &i, &v->t);
		if (!err && v->t == dt) { /* g fits an int: make it a type */
			err = MPI_Type_contiguous_c(g, dt, &v->t);
			if (!err)
				err = MPI_Type_commit(&v->t);
		}
		if (err) {
			v->t = dt;
			lm_vside_drop(v);
			return err;
		}
	}
	return MPI_SUCCESS;
}

/*
 * A persistent call's arrays and types go with its request (the int
 * call's replay reads them at every start).  0, or MPI_ERR_NO_MEM with
 * the request freed.
 */
int lm_big_keep(MPI_Comm comm, const char *fn, MPI_Request *request,
		void *m0, void *m1, void *m2, void *m3, MPI_Datatype *own,
		int nown)
{
	void *mem[4] = { m0, m1, m2, m3 };
	MPI_Datatype *t = malloc((size_t)(nown ? nown : 1) * sizeof(*t));
	int i;

	if (!t) {
		MPI_Request_free(request);
		for (i = 0; i < 4; i++)
			free(mem[i]);
		for (i = 0; i < nown; i++)
			if (own[i] != MPI_DATATYPE_NULL)
				MPI_Type_free(&own[i]);
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	for (i = 0; i < nown; i++)
		t[i] = own[i];
	lm_pcoll_keep(*request, mem, t, nown);
	return MPI_SUCCESS;
}

/* A side of a call over every rank (of the remote group). */
static int vside(const char *fn, MPI_Comm comm, int used,
		 const MPI_Count counts[], const MPI_Aint displs[],
		 MPI_Datatype dt, struct lm_vside *v)
{
	return lm_vside(fn, comm, comm->rsize, used, counts, displs, dt, v);
}

/* The type lm_vside made, or MPI_DATATYPE_NULL. */
MPI_Datatype lm_vside_made(const struct lm_vside *v)
{
	return v->t != v->dt ? v->t : MPI_DATATYPE_NULL;
}

int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount,
		  MPI_Datatype sendtype, void *recvbuf,
		  const MPI_Count recvcounts[], const MPI_Aint displs[],
		  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Gatherv_c";
	struct lm_vside v;
	MPI_Datatype st;
	int sn, err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_gatherv(fn, sendbuf, sendcount, sendtype, recvbuf,
				       LM_VARR_C(recvcounts, displs), recvtype,
				       root, comm, NULL, 0);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE &&
			   (lm_comm_is_inter(comm) ? root >= 0 : 1), sendcount,
			   sendtype, &sn, &st);
	if (err)
		return err;
	err = vside(fn, comm, lm_coll_at_root(comm, root), recvcounts, displs,
		    recvtype, &v);
	if (!err) {
		err = MPI_Gatherv(sendbuf, sn, st, recvbuf, v.counts, v.displs,
				  v.t, root, comm);
		lm_vside_drop(&v);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount,
		   MPI_Datatype sendtype, void *recvbuf,
		   const MPI_Count recvcounts[], const MPI_Aint displs[],
		   MPI_Datatype recvtype, int root, MPI_Comm comm,
		   MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Igatherv_c";
	struct lm_vside v;
	MPI_Datatype st;
	int sn, err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_gatherv(fn, sendbuf, sendcount, sendtype, recvbuf,
				       LM_VARR_C(recvcounts, displs), recvtype,
				       root, comm, request, 1);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE &&
			   (lm_comm_is_inter(comm) ? root >= 0 : 1), sendcount,
			   sendtype, &sn, &st);
	if (err)
		return err;
	err = vside(fn, comm, lm_coll_at_root(comm, root), recvcounts, displs,
		    recvtype, &v);
	if (!err) {
		err = MPI_Igatherv(sendbuf, sn, st, recvbuf, v.counts, v.displs,
				   v.t, root, comm, request);
		lm_vside_drop(&v);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount,
		       MPI_Datatype sendtype, void *recvbuf,
		       const MPI_Count recvcounts[], const MPI_Aint displs[],
		       MPI_Datatype recvtype, int root, MPI_Comm comm,
		       MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Gatherv_init_c";
	struct lm_vside v;
	MPI_Datatype st;
	int sn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE &&
			   (lm_comm_is_inter(comm) ? root >= 0 : 1), sendcount,
			   sendtype, &sn, &st);
	if (err)
		return err;
	err = vside(fn, comm, lm_coll_at_root(comm, root), recvcounts, displs,
		    recvtype, &v);
	if (!err) {
		err = MPI_Gatherv_init(sendbuf, sn, st, recvbuf, v.counts,
				       v.displs, v.t, root, comm, info,
				       request);
		if (err)
			lm_vside_drop(&v);
		else
			err = lm_big_keep(comm, fn, request, v.counts, NULL,
					  NULL, NULL, (MPI_Datatype[]){
					  lm_vside_made(&v) }, 1);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
		   const MPI_Aint displs[], MPI_Datatype sendtype,
		   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		   int root, MPI_Comm comm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Scatterv_c";
	struct lm_vside v;
	MPI_Datatype rt;
	int rn, err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_scatterv(fn, sendbuf,
					LM_VARR_C(sendcounts, displs), sendtype,
					recvbuf, recvcount, recvtype, root,
					comm, NULL, 0);

	if (!err)
		err = lm_coll_big_side(fn, comm, recvbuf != MPI_IN_PLACE &&
			   (lm_comm_is_inter(comm) ? root >= 0 : 1), recvcount,
			   recvtype, &rn, &rt);
	if (err)
		return err;
	err = vside(fn, comm, lm_coll_at_root(comm, root), sendcounts, displs,
		    sendtype, &v);
	if (!err) {
		err = MPI_Scatterv(sendbuf, v.counts, v.displs, v.t, recvbuf,
				   rn, rt, root, comm);
		lm_vside_drop(&v);
	}
	lm_big_drop(recvtype, rt);
	return err;
}

int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
		    const MPI_Aint displs[], MPI_Datatype sendtype,
		    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		    int root, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Iscatterv_c";
	struct lm_vside v;
	MPI_Datatype rt;
	int rn, err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_scatterv(fn, sendbuf,
					LM_VARR_C(sendcounts, displs), sendtype,
					recvbuf, recvcount, recvtype, root,
					comm, request, 1);

	if (!err)
		err = lm_coll_big_side(fn, comm, recvbuf != MPI_IN_PLACE &&
			   (lm_comm_is_inter(comm) ? root >= 0 : 1), recvcount,
			   recvtype, &rn, &rt);
	if (err)
		return err;
	err = vside(fn, comm, lm_coll_at_root(comm, root), sendcounts, displs,
		    sendtype, &v);
	if (!err) {
		err = MPI_Iscatterv(sendbuf, v.counts, v.displs, v.t, recvbuf,
				    rn, rt, root, comm, request);
		lm_vside_drop(&v);
	}
	lm_big_drop(recvtype, rt);
	return err;
}

int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			const MPI_Aint displs[], MPI_Datatype sendtype,
			void *recvbuf, MPI_Count recvcount,
			MPI_Datatype recvtype, int root, MPI_Comm comm,
			MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Scatterv_init_c";
	struct lm_vside v;
	MPI_Datatype rt;
	int rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm, recvbuf != MPI_IN_PLACE &&
			   (lm_comm_is_inter(comm) ? root >= 0 : 1), recvcount,
			   recvtype, &rn, &rt);
	if (err)
		return err;
	err = vside(fn, comm, lm_coll_at_root(comm, root), sendcounts, displs,
		    sendtype, &v);
	if (!err) {
		err = MPI_Scatterv_init(sendbuf, v.counts, v.displs, v.t,
					recvbuf, rn, rt, root, comm, info,
					request);
		if (err)
			lm_vside_drop(&v);
		else
			err = lm_big_keep(comm, fn, request, v.counts, NULL,
					  NULL, NULL, (MPI_Datatype[]){
					  lm_vside_made(&v) }, 1);
	}
	lm_big_drop(recvtype, rt);
	return err;
}

int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount,
		     MPI_Datatype sendtype, void *recvbuf,
		     const MPI_Count recvcounts[], const MPI_Aint displs[],
		     MPI_Datatype recvtype, MPI_Comm comm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Allgatherv_c";
	struct lm_vside v;
	MPI_Datatype st;
	int sn, err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_allgatherv(fn, sendbuf, sendcount, sendtype,
					  recvbuf, LM_VARR_C(recvcounts, displs),
					  recvtype, comm, NULL, 0);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE,
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = vside(fn, comm, 1, recvcounts, displs, recvtype, &v);
	if (!err) {
		err = MPI_Allgatherv(sendbuf, sn, st, recvbuf, v.counts,
				     v.displs, v.t, comm);
		lm_vside_drop(&v);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount,
		      MPI_Datatype sendtype, void *recvbuf,
		      const MPI_Count recvcounts[], const MPI_Aint displs[],
		      MPI_Datatype recvtype, MPI_Comm comm,
		      MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Iallgatherv_c";
	struct lm_vside v;
	MPI_Datatype st;
	int sn, err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_allgatherv(fn, sendbuf, sendcount, sendtype,
					  recvbuf, LM_VARR_C(recvcounts, displs),
					  recvtype, comm, request, 1);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE,
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = vside(fn, comm, 1, recvcounts, displs, recvtype, &v);
	if (!err) {
		err = MPI_Iallgatherv(sendbuf, sn, st, recvbuf, v.counts,
				      v.displs, v.t, comm, request);
		lm_vside_drop(&v);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
			  MPI_Datatype sendtype, void *recvbuf,
			  const MPI_Count recvcounts[], const MPI_Aint displs[],
			  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			  MPI_Request *request)
{
	static const char fn[] = "MPI_Allgatherv_init_c";
	struct lm_vside v;
	MPI_Datatype st;
	int sn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE,
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = vside(fn, comm, 1, recvcounts, displs, recvtype, &v);
	if (!err) {
		err = MPI_Allgatherv_init(sendbuf, sn, st, recvbuf, v.counts,
					  v.displs, v.t, comm, info, request);
		if (err)
			lm_vside_drop(&v);
		else
			err = lm_big_keep(comm, fn, request, v.counts, NULL,
					  NULL, NULL, (MPI_Datatype[]){
					  lm_vside_made(&v) }, 1);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
		    const MPI_Aint sdispls[], MPI_Datatype sendtype,
		    void *recvbuf, const MPI_Count recvcounts[],
		    const MPI_Aint rdispls[], MPI_Datatype recvtype,
		    MPI_Comm comm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Alltoallv_c";
	struct lm_vside s, r;
	int err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_alltoallvw(fn, sendbuf,
					  LM_VARR_C(sendcounts, sdispls), NULL,
					  sendtype, recvbuf,
					  LM_VARR_C(recvcounts, rdispls), NULL,
					  recvtype, comm, NULL, 0, LM_ALLTOALLV);

	if (!err)
		err = vside(fn, comm, sendbuf != MPI_IN_PLACE, sendcounts,
			    sdispls, sendtype, &s);
	if (err)
		return err;
	err = vside(fn, comm, 1, recvcounts, rdispls, recvtype, &r);
	if (!err) {
		err = MPI_Alltoallv(sendbuf, s.counts, s.displs, s.t, recvbuf,
			       r.counts, r.displs, r.t, comm);
		lm_vside_drop(&r);
	}
	lm_vside_drop(&s);
	return err;
}

int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
		     const MPI_Aint sdispls[], MPI_Datatype sendtype,
		     void *recvbuf, const MPI_Count recvcounts[],
		     const MPI_Aint rdispls[], MPI_Datatype recvtype,
		     MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Ialltoallv_c";
	struct lm_vside s, r;
	int err = lm_check_comm(comm, fn);

	if (!err && !lm_comm_is_inter(comm))
		return lm_coll_alltoallvw(fn, sendbuf,
					  LM_VARR_C(sendcounts, sdispls), NULL,
					  sendtype, recvbuf,
					  LM_VARR_C(recvcounts, rdispls), NULL,
					  recvtype, comm, request, 1, LM_ALLTOALLV);

	if (!err)
		err = vside(fn, comm, sendbuf != MPI_IN_PLACE, sendcounts,
			    sdispls, sendtype, &s);
	if (err)
		return err;
	err = vside(fn, comm, 1, recvcounts, rdispls, recvtype, &r);
	if (!err) {
		err = MPI_Ialltoallv(sendbuf, s.counts, s.displs, s.t, recvbuf,
			       r.counts, r.displs, r.t, comm, request);
		lm_vside_drop(&r);
	}
	lm_vside_drop(&s);
	return err;
}

int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			 const MPI_Aint sdispls[], MPI_Datatype sendtype,
			 void *recvbuf, const MPI_Count recvcounts[],
			 const MPI_Aint rdispls[], MPI_Datatype recvtype,
			 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Alltoallv_init_c";
	struct lm_vside s, r;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = vside(fn, comm, sendbuf != MPI_IN_PLACE, sendcounts,
			    sdispls, sendtype, &s);
	if (err)
		return err;
	err = vside(fn, comm, 1, recvcounts, rdispls, recvtype, &r);
	if (!err) {
		err = MPI_Alltoallv_init(sendbuf, s.counts, s.displs, s.t,
					 recvbuf, r.counts, r.displs, r.t, comm,
					 info, request);
		if (err) {
			lm_vside_drop(&r);
		} else {
			err = lm_big_keep(comm, fn, request, s.counts,
					  r.counts, NULL, NULL, (MPI_Datatype[]){
					  lm_vside_made(&s),
					  lm_vside_made(&r) }, 2);
			return err;	/* s and r are the request's, or gone */
		}
	}
	lm_vside_drop(&s);
	return err;
}

/* Reduce_scatter's recvcounts (the same on every rank) as ints. */
static int *rs_counts(const char *fn, MPI_Comm comm, const MPI_Count c[])
{
	int *out, i;

	if (!c) {
		lm_error(comm, fn, MPI_ERR_ARG, "recvcounts is NULL");
		return NULL;
	}
	out = malloc((size_t)(comm->size ? comm->size : 1) * sizeof(*out));
	if (!out) {
		lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < comm->size; i++) {
		if (c[i] < 0 || c[i] > INT_MAX) {
			lm_error(comm, fn, MPI_ERR_COUNT, c[i] < 0 ?
				 "count %lld for rank %d is negative" :
				 "count %lld for rank %d: libmsg's intercommunicator reduce_scatter takes at most INT_MAX (Not yet)",
				 (long long)c[i], i);
			free(out);
			return NULL;
		}
		out[i] = (int)c[i];
	}
	return out;
}

/* A count beyond an int (none negative): lm_big_reduce_scatter's. */
static int rs_beyond(MPI_Comm comm, const MPI_Count c[])
{
	int i, big = 0;

	if (!c || comm->inter)
		return 0;
	for (i = 0; i < comm->size; i++) {
		if (c[i] < 0)
			return 0;
		big |= c[i] > INT_MAX;
	}
	return big;
}

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
			 const MPI_Count recvcounts[], MPI_Datatype datatype,
			 MPI_Op op, MPI_Comm comm)
{
	static const char fn[] = "MPI_Reduce_scatter_c";
	int *c, err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (rs_beyond(comm, recvcounts))
		return lm_big_reduce_scatter(fn, sendbuf, recvbuf, recvcounts,
					     datatype, op, comm, NULL);
	c = rs_counts(fn, comm, recvcounts);
	if (!c)
		return MPI_ERR_COUNT;
	err = MPI_Reduce_scatter(sendbuf, recvbuf, c, datatype, op, comm);
	free(c);
	return err;
}

int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf,
			  const MPI_Count recvcounts[], MPI_Datatype datatype,
			  MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ireduce_scatter_c";
	int *c, err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (!request)
		return lm_error(comm, fn, MPI_ERR_REQUEST, "request is NULL");
	if (rs_beyond(comm, recvcounts))
		return lm_big_reduce_scatter(fn, sendbuf, recvbuf, recvcounts,
					     datatype, op, comm, request);
	c = rs_counts(fn, comm, recvcounts);
	if (!c)
		return MPI_ERR_COUNT;
	err = MPI_Ireduce_scatter(sendbuf, recvbuf, c, datatype, op, comm,
				  request);
	free(c);
	return err;
}

int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf,
			      const MPI_Count recvcounts[],
			      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			      MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Reduce_scatter_init_c";
	int *c, err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (rs_beyond(comm, recvcounts))
		return lm_pcoll_big_reduction(fn, LM_REDUCE_SCATTER, sendbuf,
					      recvbuf, 0, recvcounts, datatype,
					      op, 0, comm, info, request);
	c = rs_counts(fn, comm, recvcounts);
	if (!c)
		return MPI_ERR_COUNT;
	err = MPI_Reduce_scatter_init(sendbuf, recvbuf, c, datatype, op, comm,
				      info, request);
	if (err)
		free(c);
	else
		lm_pcoll_keep(*request, (void *[4]){ c, NULL, NULL, NULL },
			      NULL, 0);
	return err;
}
