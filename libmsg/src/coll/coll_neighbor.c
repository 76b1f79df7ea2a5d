// SPDX-License-Identifier: MIT
/*
 * Neighbourhood collectives (MPI-3.1 section 7.6): every rank sends to
 * the destinations and receives from the sources its communicator's
 * topology gives it, all in one round of one schedule.  There is no
 * algorithm to choose: each message goes straight to its neighbour.
 *
 * Order: a rank may be the same neighbour twice (a periodic dimension
 * of size 1 or 2, a graph with a repeated edge).  Sends and receives on
 * one schedule match first-posted to first-posted, so each side posts
 * in the order the standard pairs them.  For a Cartesian topology the
 * block a rank sends one step up arrives in the receiver's "one step
 * down" slot (MPI-4.0 made this explicit), so receives are posted up
 * before down in each dimension while sends go down before up.
 */

#include <string.h>

#include "coll/algo/algo.h"
#include "comm/topo.h"


/* One round: every receive from a source, then every send. */
int lm_neighbor_exchange(struct lm_sched *s, const struct lm_coll_args *a)
{
	int i, j;

	for (i = 0; i < a->indeg; i++) {
		j = a->cart ? i ^ 1 : i;
		if (a->in[j] == MPI_PROC_NULL)
			continue;
		TRY(lm_sched_recv(s, (char *)a->rbuf + a->rdispls[j],
				  a->rcounts[j], a->in[j]));
	}
	for (j = 0; j < a->outdeg; j++) {
		if (a->out[j] == MPI_PROC_NULL)
			continue;
		TRY(lm_sched_send(s, (const char *)a->sbuf + a->sdispls[j],
				  a->scounts[j], a->out[j]));
	}
	return lm_sched_round(s);
}

/*
 * Checks shared by every call; the topology's neighbours into a (in a
 * new schedule *sp).
 */
static int start(const char *fn, MPI_Comm comm, const void *sendbuf,
		 void *recvbuf, MPI_Request *request, int nb,
		 struct lm_coll_args *a, struct lm_sched **sp)
{
	struct lm_topo *t;
	struct lm_sched *s;
	int *nbrs, err;

	TRY(lm_coll_check(fn, comm, request, nb));
	t = lm_topo_get(comm, fn, 0, &err);
	if (!t)
		return err;
	if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
		return lm_error(comm, fn, MPI_ERR_BUFFER,
				"MPI_IN_PLACE is not allowed here");
	s = lm_coll_sched(fn, comm);
	if (!s)
		return MPI_ERR_NO_MEM;
	lm_topo_degrees(t, comm->rank, &a->indeg, &a->outdeg);
	nbrs = lm_sched_tmp(s, ((uint64_t)a->indeg + (uint64_t)a->outdeg + 1) *
			    sizeof(int));
	if (!nbrs) {
		lm_sched_free(s);
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	lm_topo_neighbours(t, comm->rank, nbrs, nbrs + a->indeg);
	a->in = nbrs;
	a->out = nbrs + a->indeg;
	a->cart = t->kind == MPI_CART;
	a->sbuf = sendbuf;
	a->rbuf = recvbuf;
	*sp = s;
	return MPI_SUCCESS;
}

/*
 * One side of the exchange: n blocks, block i counts[i] (or count)
 * elements of types[i] (or dt) at byte aoff[i], or at element
 * idispl[i], or at i * count elements; same: every block is the one
 * buffer (allgather's send side); arrays: the v/w form, whose arrays
 * must be there.
 */
struct side {
	void **buf;
	int n, count, same, recv, arrays;
	const int *counts, *idispl;
	const MPI_Aint *aoff;
	const MPI_Datatype *types;
	MPI_Datatype dt;
	const int *peers;	/* MPI_PROC_NULL: a block nothing moves */
	const char *what;
};

/* The same block n times: packed once if it must be. */
static int same_block(const char *fn, struct lm_sched *s,
		      const struct side *d, uint64_t *arr)
{
	int i, err = lm_coll_check_data(fn, s->comm, *d->buf, d->count, d->dt,
					d->what);

	if (err)
		return err;
	if (lm_coll_send_buf(s, (const void **)d->buf, d->count, d->dt))
		return lm_error(s->comm, fn, MPI_ERR_NO_MEM,
				"out of memory for packing");
	for (i = 0; i < d->n; i++) {
		arr[i] = (uint64_t)d->count * (uint64_t)d->dt->size;
		arr[d->n + i] = 0;
	}
	return MPI_SUCCESS;
}

/*
 * The side's blocks as byte counts and offsets, arr[0..n) and
 * arr[n..2n), in the buffer the exchange uses, which *buf becomes.
 */
static uint64_t *blocks(const char *fn, struct lm_sched *s,
			const struct side *d, int *err)
{
	uint64_t *arr;
	int64_t *uoff;
	int64_t *cnt;
	int i;
	MPI_Datatype t;

	arr = lm_sched_tmp(s, 2 * ((uint64_t)d->n + 1) * sizeof(*arr));
	uoff = lm_sched_tmp(s, ((uint64_t)d->n + 1) * sizeof(*uoff));
	cnt = lm_sched_tmp(s, ((uint64_t)d->n + 1) * sizeof(*cnt));
	if (!arr || !uoff || !cnt) {
		*err = lm_error(s->comm, fn, MPI_ERR_NO_MEM, "out of memory");
		return NULL;
	}
	if (d->same) {
		*err = same_block(fn, s, d, arr);
		return *err ? NULL : arr;
	}
	if (d->arrays && d->n && (!d->counts || (!d->idispl && !d->aoff) ||
				  (!d->types && !d->dt))) {
		*err = lm_error(s->comm, fn, MPI_ERR_ARG,
				"a %s count, displacement or type array is NULL",
				d->what);
		return NULL;
	}
	for (i = 0; i < d->n; i++) {
		t = d->types ? d->types[i] : d->dt;
		cnt[i] = d->counts ? d->counts[i] : d->count;
		*err = lm_coll_check_data(fn, s->comm, *d->buf, cnt[i], t,
					  d->what);
		if (*err)
			return NULL;
		if (d->aoff)
			uoff[i] = d->aoff[i];
		else if (d->idispl)
			uoff[i] = (int64_t)d->idispl[i] * t->extent;
		else
			uoff[i] = (int64_t)i * cnt[i] * t->extent;
		if (uoff[i] < 0) {
			*err = lm_error(s->comm, fn, MPI_ERR_ARG,
					"%s displacement of block %d is negative",
					d->what, i);
			return NULL;
		}
		/* Checked, but a packed receive must not unpack it. */
		if (d->peers[i] == MPI_PROC_NULL)
			cnt[i] = 0;
		arr[i] = (uint64_t)cnt[i] * (uint64_t)t->size;
	}
	if (lm_coll_blocks(s, d->recv, d->buf, d->n, cnt, uoff, d->types,
			   d->dt, arr)) {
		*err = lm_error(s->comm, fn, MPI_ERR_NO_MEM,
				"out of memory for packing");
		return NULL;
	}
	return arr;
}

/* A side's edges for the collective check. */
static int edges(struct lm_sched *s, int recv, int n, const int *peers,
		 const struct side *d)
{
	int64_t *w = NULL;

	if (d->arrays) {
		w = lm_coll_widen(s, d->counts, n);
		if (!w)
			return MPI_ERR_NO_MEM;
	}
	return lm_cc_edges(s, recv, n, peers, -1, w, d->count, d->types,
			   d->dt);
}

/* Both sides' blocks into a, then run. */
static int finish(const char *fn, struct lm_sched *s, struct lm_coll_args *a,
		  struct side *snd, struct side *rcv, MPI_Request *request)
{
	uint64_t *sarr, *rarr;
	int err;

	snd->buf = (void **)&a->sbuf;
	snd->n = a->outdeg;
	snd->peers = a->out;
	snd->what = "send";
	rcv->buf = &a->rbuf;
	rcv->n = a->indeg;
	rcv->peers = a->in;
	rcv->recv = 1;
	rcv->what = "receive";
	sarr = blocks(fn, s, snd, &err);
	rarr = sarr ? blocks(fn, s, rcv, &err) : NULL;
	if (!rarr) {
		lm_sched_free(s);
		return err;
	}
	err = 0;
	LM_CC(lm_cc_cart(a->cart));
	LM_CC(err = edges(s, 0, a->outdeg, a->out, snd));
	LM_CC(err = err ? err : edges(s, 1, a->indeg, a->in, rcv));
	if (err) {
		struct libmsg_comm *c = s->comm;

		lm_sched_free(s);
		return lm_error(c, fn, err, "out of memory");
	}
	a->scounts = sarr;
	a->sdispls = sarr + a->outdeg;
	a->rcounts = rarr;
	a->rdispls = rarr + a->indeg;
	a->bytes = a->indeg ? rarr[0] : 0;
	return lm_coll_run(s, lm_neighbor_exchange, fn, a, request);
}

/* ---- The calls --------------------------------------------------------------- */

#define NB_START(fn, sb, rb)						\
	struct lm_coll_args a = { 0 };					\
	struct side snd = { 0 }, rcv = { 0 };				\
	struct lm_sched *s;						\
	TRY(start(fn, comm, sb, rb, request, request != NULL, &a, &s))

static int allgather(const char *fn, const void *sendbuf, int sendcount,
		     MPI_Datatype sendtype, void *recvbuf,
		     const int recvcounts[], const int displs[], int recvcount,
		     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request,
		     int v)
{
	NB_START(fn, sendbuf, recvbuf);
	snd.same = 1;
	snd.count = sendcount;
	snd.dt = sendtype;
	rcv.arrays = v;
	rcv.counts = recvcounts;
	rcv.idispl = displs;
	rcv.count = recvcount;
	rcv.dt = recvtype;
	return finish(fn, s, &a, &snd, &rcv, request);
}

static int alltoall(const char *fn, const void *sendbuf, const int sendcounts[],
		    const int sdispls[], const MPI_Aint sbdispls[],
		    const MPI_Datatype sendtypes[], int sendcount,
		    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		    const int rdispls[], const MPI_Aint rbdispls[],
		    const MPI_Datatype recvtypes[], int recvcount,
		    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request,
		    int vw)
{
	NB_START(fn, sendbuf, recvbuf);
	snd.arrays = rcv.arrays = vw;
	snd.counts = sendcounts;
	snd.idispl = sdispls;
	snd.aoff = sbdispls;
	snd.types = sendtypes;
	snd.count = sendcount;
	snd.dt = sendtype;
	rcv.counts = recvcounts;
	rcv.idispl = rdispls;
	rcv.aoff = rbdispls;
	rcv.types = recvtypes;
	rcv.count = recvcount;
	rcv.dt = recvtype;
	return finish(fn, s, &a, &snd, &rcv, request);
}

/* A NULL request pointer of a nonblocking call is an error, not blocking. */
static int need_request(const char *fn, MPI_Comm comm, MPI_Request *request)
{
	if (request)
		return MPI_SUCCESS;
	return lm_check_comm(comm, fn) ? MPI_ERR_COMM :
		lm_error(comm, fn, MPI_ERR_REQUEST, "request is NULL");
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf, int recvcount,
			   MPI_Datatype recvtype, MPI_Comm comm)
{
	return allgather("MPI_Neighbor_allgather", sendbuf, sendcount,
			 sendtype, recvbuf, NULL, NULL, recvcount, recvtype,
			 comm, NULL, 0);
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    int recvcount, MPI_Datatype recvtype,
			    MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ineighbor_allgather";

	TRY(need_request(fn, comm, request));
	return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
			 recvcount, recvtype, comm, request, 0);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    const int recvcounts[], const int displs[],
			    MPI_Datatype recvtype, MPI_Comm comm)
{
	return allgather("MPI_Neighbor_allgatherv", sendbuf, sendcount,
			 sendtype, recvbuf, recvcounts, displs, 0, recvtype,
			 comm, NULL, 1);
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     const int recvcounts[], const int displs[],
			     MPI_Datatype recvtype, MPI_Comm comm,
			     MPI_Request *request)
{
	static const char fn[] = "MPI_Ineighbor_allgatherv";

	TRY(need_request(fn, comm, request));
	return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
			 displs, 0, recvtype, comm, request, 1);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
			  MPI_Datatype sendtype, void *recvbuf, int recvcount,
			  MPI_Datatype recvtype, MPI_Comm comm)
{
	return alltoall("MPI_Neighbor_alltoall", sendbuf, NULL, NULL, NULL,
			NULL, sendcount, sendtype, recvbuf, NULL, NULL, NULL,
			NULL, recvcount, recvtype, comm, NULL, 0);
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf, int recvcount,
			   MPI_Datatype recvtype, MPI_Comm comm,
			   MPI_Request *request)
{
	static const char fn[] = "MPI_Ineighbor_alltoall";

	TRY(need_request(fn, comm, request));
	return alltoall(fn, sendbuf, NULL, NULL, NULL, NULL, sendcount,
			sendtype, recvbuf, NULL, NULL, NULL, NULL, recvcount,
			recvtype, comm, request, 0);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
			   const int sdispls[], MPI_Datatype sendtype,
			   void *recvbuf, const int recvcounts[],
			   const int rdispls[], MPI_Datatype recvtype,
			   MPI_Comm comm)
{
	return alltoall("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls,
			NULL, NULL, 0, sendtype, recvbuf, recvcounts, rdispls,
			NULL, NULL, 0, recvtype, comm, NULL, 1);
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
			    const int sdispls[], MPI_Datatype sendtype,
			    void *recvbuf, const int recvcounts[],
			    const int rdispls[], MPI_Datatype recvtype,
			    MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ineighbor_alltoallv";

	TRY(need_request(fn, comm, request));
	return alltoall(fn, sendbuf, sendcounts, sdispls, NULL, NULL, 0,
			sendtype, recvbuf, recvcounts, rdispls, NULL, NULL, 0,
			recvtype, comm, request, 1);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
			   const MPI_Aint sdispls[],
			   const MPI_Datatype sendtypes[], void *recvbuf,
			   const int recvcounts[], const MPI_Aint rdispls[],
			   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	return alltoall("MPI_Neighbor_alltoallw", sendbuf, sendcounts, NULL,
			sdispls, sendtypes, 0, NULL, recvbuf, recvcounts, NULL,
			rdispls, recvtypes, 0, NULL, comm, NULL, 1);
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
			    const MPI_Aint sdispls[],
			    const MPI_Datatype sendtypes[], void *recvbuf,
			    const int recvcounts[], const MPI_Aint rdispls[],
			    const MPI_Datatype recvtypes[], MPI_Comm comm,
			    MPI_Request *request)
{
	static const char fn[] = "MPI_Ineighbor_alltoallw";

	TRY(need_request(fn, comm, request));
	return alltoall(fn, sendbuf, sendcounts, NULL, sdispls, sendtypes, 0,
			NULL, recvbuf, recvcounts, NULL, rdispls, recvtypes, 0,
			NULL, comm, request, 1);
}
