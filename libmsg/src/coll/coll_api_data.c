// SPDX-License-Identifier: MIT
/*
 * The data-movement collectives: gather, scatter, allgather, all-to-all
 * and their v/w variants.  Counts and displacements become bytes here,
 * so the algorithms see plain blocks; a type that is not one run of
 * bytes is packed on the sending side and unpacked at the end on the
 * receiving side (coll_dt.c).
 * A block's size must agree between sender and receiver; where one
 * rank can see both sides, a mismatch is reported before anything moves.
 */

#include <stdint.h>
#include <string.h>

#include "coll/coll_big.h"
#include "coll/coll_inter.h"

#define NEW_SCHED(s, fn, comm) do {				\
	(s) = lm_coll_sched(fn, comm);				\
	if (!(s))						\
		return MPI_ERR_NO_MEM;				\
} while (0)

/* Packing after the schedule exists: out of memory lets it go. */
#define DT_TRY(s, fn, x) do {						\
	if (x) {							\
		struct libmsg_comm *_c = (s)->comm;			\
		lm_sched_free(s);					\
		return lm_error(_c, fn, MPI_ERR_NO_MEM,			\
				"out of memory for packing");		\
	}								\
} while (0)

static inline uint64_t nbytes(int64_t count, MPI_Datatype dt)
{
	return (uint64_t)count * (uint64_t)dt->size;
}

static int mismatch(const char *fn, MPI_Comm comm, uint64_t sb, uint64_t rb)
{
	if (sb == rb)
		return MPI_SUCCESS;
	return lm_error(comm, fn, MPI_ERR_TRUNCATE,
			"send block is %llu bytes, receive block %llu",
			(unsigned long long)sb, (unsigned long long)rb);
}

static int no_in_place(const char *fn, MPI_Comm comm, const void *buf)
{
	if (buf != MPI_IN_PLACE)
		return MPI_SUCCESS;
	return lm_error(comm, fn, MPI_ERR_BUFFER,
			"MPI_IN_PLACE is not allowed here");
}

static inline int varr_null(const struct lm_varr *v)
{
	return v->wide ? !v->ccounts || !v->cdispls : !v->counts || !v->displs;
}

static inline int64_t vcount(const struct lm_varr *v, int i)
{
	return v->wide ? (int64_t)v->ccounts[i] : v->counts[i];
}

static inline int64_t vdispl(const struct lm_varr *v, int i)
{
	return v->wide ? (int64_t)v->cdispls[i] : v->displs[i];
}

/*
 * v's counts and displacements (elements of dt, or bytes for w) as
 * bytes in a schedule-owned array: out[0..n) counts, out[n..2n) offsets
 * in the buffer the algorithm uses, which *buf becomes (the user's, or
 * a packed temporary: lm_coll_blocks); *cnt the counts as int64_t (for
 * the collective check).  recv: the receiving side.  NULL after
 * reporting an error.
 */
static uint64_t *byte_arrays(const char *fn, struct lm_sched *s,
			     const struct lm_varr *v,
			     const MPI_Datatype dts[], MPI_Datatype dt,
			     int displs_in_bytes, void **buf, int recv,
			     int64_t **cnt, int *err)
{
	int n = s->comm->size, i;
	uint64_t *out;
	int64_t *uoff, d;
	MPI_Datatype t;

	*err = MPI_SUCCESS;
	if (varr_null(v) || (dts == NULL && dt == NULL)) {
		*err = lm_error(s->comm, fn, MPI_ERR_ARG,
				"a count, displacement or type array is NULL");
		return NULL;
	}
	out = lm_sched_tmp(s, 2 * (uint64_t)n * sizeof(*out));
	uoff = lm_sched_tmp(s, (uint64_t)n * sizeof(*uoff));
	*cnt = lm_sched_tmp(s, (uint64_t)n * sizeof(**cnt));
	if (!out || !uoff || !*cnt) {
		*err = lm_error(s->comm, fn, MPI_ERR_NO_MEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		t = dts ? dts[i] : dt;
		(*cnt)[i] = vcount(v, i);
		d = vdispl(v, i);
		*err = lm_coll_check_data(fn, s->comm, *buf, (*cnt)[i], t,
					  "block");
		if (*err)
			return NULL;
		if (d < 0) {
			*err = lm_error(s->comm, fn, MPI_ERR_ARG,
					"displacement %lld for rank %d is negative",
					(long long)d, i);
			return NULL;
		}
		/* A large-count call's: beyond what any memory holds. */
		if ((t->size && (*cnt)[i] > INT64_MAX / (int64_t)t->size) ||
		    (!displs_in_bytes && t->extent > 0 &&
		     d > INT64_MAX / t->extent)) {
			*err = lm_error(s->comm, fn, MPI_ERR_COUNT,
					"block %d: %lld elements at displacement %lld, beyond any address",
					i, (long long)(*cnt)[i], (long long)d);
			return NULL;
		}
		out[i] = nbytes((*cnt)[i], t);
		uoff[i] = displs_in_bytes ? d : d * t->extent;
	}
	if (lm_coll_blocks(s, recv, buf, n, *cnt, uoff, dts, dt, out)) {
		*err = lm_error(s->comm, fn, MPI_ERR_NO_MEM, "out of memory for packing");
		return NULL;
	}
	return out;
}

#define ARRAYS(s, ...) ({						\
	int _err;							\
	uint64_t *_p = byte_arrays(__VA_ARGS__, &_err);			\
	if (!_p) {							\
		lm_sched_free(s);					\
		return _err;						\
	}								\
	_p;								\
})

/* ---- Gather, scatter ------------------------------------------------------- */

static int gather(const char *fn, const void *sendbuf, int sendcount,
		  MPI_Datatype sendtype, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, int root, MPI_Comm comm,
		  MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int is_root;

	if (lm_comm_is_inter(comm))
		return nb ? lm_inter_igather(fn, sendbuf, sendcount, sendtype,
				       recvbuf, recvcount, recvtype, root,
				       comm, request) :
			lm_inter_gather(fn, sendbuf, sendcount, sendtype,
				       recvbuf, recvcount, recvtype, root,
				       comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	TRY(lm_coll_check_root(fn, comm, root));
	is_root = comm->rank == root;
	a.in_place = is_root && sendbuf == MPI_IN_PLACE;
	if (!is_root)
		TRY(no_in_place(fn, comm, sendbuf));
	if (!a.in_place)
		TRY(lm_coll_check_data(fn, comm, sendbuf, sendcount, sendtype,
				       "send"));
	if (is_root) {
		TRY(lm_coll_check_data(fn, comm, recvbuf, recvcount, recvtype,
				       "receive"));
		TRY(no_in_place(fn, comm, recvbuf));
		a.bytes = nbytes(recvcount, recvtype);
		if (!a.in_place)
			TRY(mismatch(fn, comm, nbytes(sendcount, sendtype), a.bytes));
	} else {
		a.bytes = nbytes(sendcount, sendtype);
	}
	a.sbuf = sendbuf;
	a.rbuf = recvbuf;
	a.root = root;
	LM_CC(lm_cc_args(root, NULL, a.in_place, sendcount,
			 a.in_place ? NULL : sendtype, recvcount,
			 is_root ? recvtype : NULL));
	NEW_SCHED(s, fn, comm);
	if (!a.in_place)
		DT_TRY(s, fn, lm_coll_send_buf(s, &a.sbuf, sendcount, sendtype));
	if (is_root) {
		int64_t all = (int64_t)recvcount * comm->size;

		DT_TRY(s, fn, lm_coll_recv_buf(s, &a.rbuf, all, recvtype));
		if (a.in_place && a.rbuf != recvbuf)
			lm_coll_preload(a.rbuf, (uint64_t)root * a.bytes, recvbuf,
					(int64_t)root * recvcount * recvtype->extent,
					recvcount, recvtype);
	}
	return lm_coll_start(s, LM_GATHER, fn, &a, nb ? request : NULL);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	       MPI_Comm comm)
{
	LM_GUARD();
	return gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf,
		      recvcount, recvtype, root, comm, NULL, 0);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf,
		      recvcount, recvtype, root, comm, request, 1);
}

int lm_coll_gatherv(const char *fn, const void *sendbuf, int64_t sendcount,
		    MPI_Datatype sendtype, void *recvbuf,
		    const struct lm_varr *rv, MPI_Datatype recvtype, int root,
		    MPI_Comm comm, MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	uint64_t *arr;
	int64_t *rc;
	int is_root, n;

	if (lm_comm_is_inter(comm))	/* an int call's (coll_big_v.c) */
		return nb ? lm_inter_igatherv(fn, sendbuf, (int)sendcount,
					sendtype, recvbuf, rv->counts,
					rv->displs, recvtype, root, comm,
					request) :
			lm_inter_gatherv(fn, sendbuf, (int)sendcount, sendtype,
					recvbuf, rv->counts, rv->displs,
					recvtype, root, comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	TRY(lm_coll_check_root(fn, comm, root));
	n = comm->size;
	is_root = comm->rank == root;
	a.in_place = is_root && sendbuf == MPI_IN_PLACE;
	if (!is_root)
		TRY(no_in_place(fn, comm, sendbuf));
	if (!a.in_place)
		TRY(lm_coll_check_data(fn, comm, sendbuf, sendcount, sendtype,
				       "send"));
	a.sbuf = sendbuf;
	a.rbuf = recvbuf;
	a.root = root;
	a.sbytes = a.in_place ? 0 : nbytes(sendcount, sendtype);
	a.bytes = a.sbytes;
	NEW_SCHED(s, fn, comm);
	if (is_root) {
		arr = ARRAYS(s, fn, s, rv, NULL, recvtype, 0, &a.rbuf, 1, &rc);
		a.rcounts = arr;
		a.rdispls = arr + n;
		if (!a.in_place && a.sbytes != a.rcounts[root]) {
			lm_sched_free(s);
			return mismatch(fn, comm, a.sbytes, arr[root]);
		}
		if (a.in_place && a.rbuf != recvbuf)
			lm_coll_preload(a.rbuf, arr[n + root], recvbuf,
					vdispl(rv, root) * recvtype->extent,
					rc[root], recvtype);
		LM_CC(DT_TRY(s, fn, lm_cc_edges(s, 1, n, NULL, a.in_place ?
						 root : -1, rc, 0,
						 NULL, recvtype)));
	}
	LM_CC(lm_cc_args(root, NULL, a.in_place, 0, NULL, 0, NULL));
	if (!a.in_place)
		LM_CC(DT_TRY(s, fn, lm_cc_edges(s, 0, 1, &root, -1, NULL,
						 sendcount, NULL, sendtype)));
	if (!a.in_place)
		DT_TRY(s, fn, lm_coll_send_buf(s, &a.sbuf, sendcount, sendtype));
	return lm_coll_start(s, LM_GATHERV, fn, &a, nb ? request : NULL);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, const int recvcounts[], const int displs[],
		MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	LM_GUARD();
	return lm_coll_gatherv("MPI_Gatherv", sendbuf, sendcount, sendtype,
			       recvbuf, LM_VARR(recvcounts, displs), recvtype,
			       root, comm, NULL, 0);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 void *recvbuf, const int recvcounts[], const int displs[],
		 MPI_Datatype recvtype, int root, MPI_Comm comm,
		 MPI_Request *request)
{
	LM_GUARD();
	return lm_coll_gatherv("MPI_Igatherv", sendbuf, sendcount, sendtype,
			       recvbuf, LM_VARR(recvcounts, displs), recvtype,
			       root, comm, request, 1);
}

static int scatter(const char *fn, const void *sendbuf, int sendcount,
		   MPI_Datatype sendtype, void *recvbuf, int recvcount,
		   MPI_Datatype recvtype, int root, MPI_Comm comm,
		   MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	int is_root;

	if (lm_comm_is_inter(comm))
		return nb ? lm_inter_iscatter(fn, sendbuf, sendcount, sendtype,
					recvbuf, recvcount, recvtype, root,
					comm, request) :
			lm_inter_scatter(fn, sendbuf, sendcount, sendtype,
					recvbuf, recvcount, recvtype, root,
					comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	TRY(lm_coll_check_root(fn, comm, root));
	is_root = comm->rank == root;
	a.in_place = is_root && recvbuf == MPI_IN_PLACE;
	if (!is_root)
		TRY(no_in_place(fn, comm, recvbuf));
	if (!a.in_place)
		TRY(lm_coll_check_data(fn, comm, recvbuf, recvcount, recvtype,
				       "receive"));
	if (is_root) {
		TRY(no_in_place(fn, comm, sendbuf));
		TRY(lm_coll_check_data(fn, comm, sendbuf, sendcount, sendtype,
				       "send"));
		a.bytes = nbytes(sendcount, sendtype);
		if (!a.in_place)
			TRY(mismatch(fn, comm, a.bytes, nbytes(recvcount, recvtype)));
	} else {
		a.bytes = nbytes(recvcount, recvtype);
	}
	a.sbuf = sendbuf;
	a.rbuf = recvbuf;
	a.root = root;
	LM_CC(lm_cc_args(root, NULL, a.in_place, sendcount,
			 is_root ? sendtype : NULL, recvcount,
			 a.in_place ? NULL : recvtype));
	NEW_SCHED(s, fn, comm);
	if (is_root)
		DT_TRY(s, fn, lm_coll_send_buf(s, &a.sbuf,
					       (int64_t)sendcount * comm->size,
					       sendtype));
	if (!a.in_place)
		DT_TRY(s, fn, lm_coll_recv_buf(s, &a.rbuf, recvcount, recvtype));
	return lm_coll_start(s, LM_SCATTER, fn, &a, nb ? request : NULL);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		MPI_Comm comm)
{
	LM_GUARD();
	return scatter("MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf,
		       recvcount, recvtype, root, comm, NULL, 0);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		 MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return scatter("MPI_Iscatter", sendbuf, sendcount, sendtype, recvbuf,
		       recvcount, recvtype, root, comm, request, 1);
}

int lm_coll_scatterv(const char *fn, const void *sendbuf,
		     const struct lm_varr *sv, MPI_Datatype sendtype,
		     void *recvbuf, int64_t recvcount, MPI_Datatype recvtype,
		     int root, MPI_Comm comm, MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	uint64_t *arr;
	int64_t *sc;
	int is_root, n;

	if (lm_comm_is_inter(comm))	/* an int call's (coll_big_v.c) */
		return nb ? lm_inter_iscatterv(fn, sendbuf, sv->counts,
					 sv->displs, sendtype, recvbuf,
					 (int)recvcount, recvtype, root, comm,
					 request) :
			lm_inter_scatterv(fn, sendbuf, sv->counts, sv->displs,
					 sendtype, recvbuf, (int)recvcount,
					 recvtype, root, comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	TRY(lm_coll_check_root(fn, comm, root));
	n = comm->size;
	is_root = comm->rank == root;
	a.in_place = is_root && recvbuf == MPI_IN_PLACE;
	if (!is_root)
		TRY(no_in_place(fn, comm, recvbuf));
	if (!a.in_place)
		TRY(lm_coll_check_data(fn, comm, recvbuf, recvcount, recvtype,
				       "receive"));
	a.sbuf = sendbuf;
	a.rbuf = recvbuf;
	a.root = root;
	a.rbytes = a.in_place ? 0 : nbytes(recvcount, recvtype);
	a.bytes = a.rbytes;
	NEW_SCHED(s, fn, comm);
	if (is_root) {
		arr = ARRAYS(s, fn, s, sv, NULL, sendtype, 0,
			     (void **)&a.sbuf, 0, &sc);
		a.scounts = arr;
		a.sdispls = arr + n;
		if (!a.in_place && a.rbytes != arr[root]) {
			lm_sched_free(s);
			return mismatch(fn, comm, arr[root], a.rbytes);
		}
		LM_CC(DT_TRY(s, fn, lm_cc_edges(s, 0, n, NULL, a.in_place ?
						 root : -1, sc, 0,
						 NULL, sendtype)));
	}
	LM_CC(lm_cc_args(root, NULL, a.in_place, 0, NULL, 0, NULL));
	if (!a.in_place)
		LM_CC(DT_TRY(s, fn, lm_cc_edges(s, 1, 1, &root, -1, NULL,
						 recvcount, NULL, recvtype)));
	if (!a.in_place)
		DT_TRY(s, fn, lm_coll_recv_buf(s, &a.rbuf, recvcount, recvtype));
	return lm_coll_start(s, LM_SCATTERV, fn, &a, nb ? request : NULL);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
		 const int displs[], MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	LM_GUARD();
	return lm_coll_scatterv("MPI_Scatterv", sendbuf,
				LM_VARR(sendcounts, displs), sendtype, recvbuf,
				recvcount, recvtype, root, comm, NULL, 0);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[],
		  const int displs[], MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, int root,
		  MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return lm_coll_scatterv("MPI_Iscatterv", sendbuf,
				LM_VARR(sendcounts, displs), sendtype, recvbuf,
				recvcount, recvtype, root, comm, request, 1);
}

/* ---- Allgather ----------------------------------------------------------- */

static int allgather(const char *fn, const void *sendbuf, int sendcount,
		     MPI_Datatype sendtype, void *recvbuf, int recvcount,
		     MPI_Datatype recvtype, MPI_Comm comm,
		     MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;

	if (lm_comm_is_inter(comm))
		return nb ? lm_inter_iallgather(fn, sendbuf, sendcount, sendtype,
					  recvbuf, recvcount, recvtype,
					  comm, request) :
			lm_inter_allgather(fn, sendbuf, sendcount, sendtype,
					  recvbuf, recvcount, recvtype,
					  comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	a.in_place = sendbuf == MPI_IN_PLACE;
	TRY(no_in_place(fn, comm, recvbuf));
	TRY(lm_coll_check_data(fn, comm, recvbuf, recvcount, recvtype,
			       "receive"));
	a.bytes = nbytes(recvcount, recvtype);
	if (!a.in_place) {
		TRY(lm_coll_check_data(fn, comm, sendbuf, sendcount, sendtype,
				       "send"));
		TRY(mismatch(fn, comm, nbytes(sendcount, sendtype), a.bytes));
	}
	a.sbuf = sendbuf;
	a.rbuf = recvbuf;
	LM_CC(lm_cc_args(-1, NULL, a.in_place, sendcount,
			 a.in_place ? NULL : sendtype, recvcount, recvtype));
	NEW_SCHED(s, fn, comm);
	if (!a.in_place)
		DT_TRY(s, fn, lm_coll_send_buf(s, &a.sbuf, sendcount, sendtype));
	DT_TRY(s, fn, lm_coll_recv_buf(s, &a.rbuf,
				       (int64_t)recvcount * comm->size, recvtype));
	if (a.in_place && a.rbuf != recvbuf)
		lm_coll_preload(a.rbuf, (uint64_t)comm->rank * a.bytes, recvbuf,
				(int64_t)comm->rank * recvcount * recvtype->extent,
				recvcount, recvtype);
	return lm_coll_start(s, LM_ALLGATHER, fn, &a, nb ? request : NULL);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		  void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  MPI_Comm comm)
{
	LM_GUARD();
	return allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf,
			 recvcount, recvtype, comm, NULL, 0);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		   void *recvbuf, int recvcount, MPI_Datatype recvtype,
		   MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return allgather("MPI_Iallgather", sendbuf, sendcount, sendtype,
			 recvbuf, recvcount, recvtype, comm, request, 1);
}

int lm_coll_allgatherv(const char *fn, const void *sendbuf,
		       int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
		       const struct lm_varr *rv, MPI_Datatype recvtype,
		       MPI_Comm comm, MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	uint64_t *arr, total = 0;
	int64_t *rc;
	int n, i;

	if (lm_comm_is_inter(comm))	/* an int call's (coll_big_v.c) */
		return nb ? lm_inter_iallgatherv(fn, sendbuf, (int)sendcount,
					   sendtype, recvbuf, rv->counts,
					   rv->displs, recvtype, comm,
					   request) :
			lm_inter_allgatherv(fn, sendbuf, (int)sendcount,
					   sendtype, recvbuf, rv->counts,
					   rv->displs, recvtype, comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	n = comm->size;
	a.in_place = sendbuf == MPI_IN_PLACE;
	TRY(no_in_place(fn, comm, recvbuf));
	if (!a.in_place)
		TRY(lm_coll_check_data(fn, comm, sendbuf, sendcount, sendtype,
				       "send"));
	NEW_SCHED(s, fn, comm);
	a.rbuf = recvbuf;
	arr = ARRAYS(s, fn, s, rv, NULL, recvtype, 0, &a.rbuf, 1, &rc);
	a.rcounts = arr;
	a.rdispls = arr + n;
	if (a.in_place && a.rbuf != recvbuf)
		lm_coll_preload(a.rbuf, arr[n + comm->rank], recvbuf,
				vdispl(rv, comm->rank) * recvtype->extent,
				rc[comm->rank], recvtype);
	if (!a.in_place && nbytes(sendcount, sendtype) != arr[comm->rank]) {
		lm_sched_free(s);
		return mismatch(fn, comm, nbytes(sendcount, sendtype),
				arr[comm->rank]);
	}
	for (i = 0; i < n; i++)
		total += arr[i];
	LM_CC(lm_cc_args(-1, NULL, a.in_place, 0, NULL, 0, NULL));
	LM_CC(DT_TRY(s, fn, lm_cc_edges(s, 0, n, NULL, -1, NULL,
					 a.in_place ? rc[comm->rank] :
					 sendcount, NULL,
					 a.in_place ? recvtype : sendtype)));
	LM_CC(DT_TRY(s, fn, lm_cc_edges(s, 1, n, NULL, -1, rc, 0,
					 NULL, recvtype)));
	a.sbuf = sendbuf;
	if (!a.in_place)
		DT_TRY(s, fn, lm_coll_send_buf(s, &a.sbuf, sendcount, sendtype));
	a.bytes = total / (uint64_t)n;
	return lm_coll_start(s, LM_ALLGATHERV, fn, &a, nb ? request : NULL);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		   void *recvbuf, const int recvcounts[], const int displs[],
		   MPI_Datatype recvtype, MPI_Comm comm)
{
	LM_GUARD();
	return lm_coll_allgatherv("MPI_Allgatherv", sendbuf, sendcount,
				  sendtype, recvbuf,
				  LM_VARR(recvcounts, displs), recvtype, comm,
				  NULL, 0);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount,
		    MPI_Datatype sendtype, void *recvbuf,
		    const int recvcounts[], const int displs[],
		    MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request)
{
	LM_GUARD();
	return lm_coll_allgatherv("MPI_Iallgatherv", sendbuf, sendcount,
				  sendtype, recvbuf,
				  LM_VARR(recvcounts, displs), recvtype, comm,
				  request, 1);
}

/* ---- All-to-all ------------------------------------------------------------ */

/*
 * MPI_IN_PLACE: the data to send is what recvbuf holds now; take a
 * copy (the caller may not touch recvbuf until completion, so now is
 * the moment) and send from it with the receive layout.
 */
static int in_place_copy(const char *fn, struct lm_sched *s,
			 struct lm_coll_args *a, uint64_t extent)
{
	struct libmsg_comm *comm = s->comm;
	void *t = lm_sched_tmp(s, extent);

	if (!t) {
		lm_sched_free(s);
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	memcpy(t, a->rbuf, extent);
	a->sbuf = t;
	a->sbytes = a->rbytes;
	a->scounts = a->rcounts;
	a->sdispls = a->rdispls;
	return MPI_SUCCESS;
}

static int alltoall(const char *fn, const void *sendbuf, int sendcount,
		    MPI_Datatype sendtype, void *recvbuf, int recvcount,
		    MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request, int nb)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;

	if (lm_comm_is_inter(comm))
		return nb ? lm_inter_ialltoall(fn, sendbuf, sendcount, sendtype,
					 recvbuf, recvcount, recvtype,
					 comm, request) :
			lm_inter_alltoall(fn, sendbuf, sendcount, sendtype,
					 recvbuf, recvcount, recvtype,
					 comm);
	TRY(lm_coll_check(fn, comm, request, nb));
	a.in_place = sendbuf == MPI_IN_PLACE;
	TRY(no_in_place(fn, comm, recvbuf));
	TRY(lm_coll_check_data(fn, comm, recvbuf, recvcount, recvtype,
			       "receive"));
	a.rbytes = nbytes(recvcount, recvtype);
	if (!a.in_place) {
		TRY(lm_coll_check_data(fn, comm, sendbuf, sendcount, sendtype,
				       "send"));
		a.sbytes = nbytes(sendcount, sendtype);
		TRY(mismatch(fn, comm, a.sbytes, a.rbytes));
	}
	a.sbuf = sendbuf;
	a.rbuf = recvbuf;
	a.bytes = a.rbytes;
	LM_CC(lm_cc_args(-1, NULL, a.in_place, sendcount,
			 a.in_place ? NULL : sendtype, recvcount, recvtype));
	NEW_SCHED(s, fn, comm);
	if (a.in_place) {
		/* The data to send is what recvbuf holds now. */
		sendbuf = recvbuf;
		sendcount = recvcount;
		sendtype = recvtype;
		a.sbytes = a.rbytes;
	}
	a.sbuf = sendbuf;
	DT_TRY(s, fn, lm_coll_send_buf(s, &a.sbuf,
				       (int64_t)sendcount * comm->size, sendtype));
	DT_TRY(s, fn, lm_coll_recv_buf(s, &a.rbuf,
				       (int64_t)recvcount * comm->size, recvtype));
	/* Packing made the copy in place needs; else take one. */
	if (a.in_place && a.sbuf == recvbuf)
		TRY(in_place_copy(fn, s, &a, a.rbytes * (uint64_t)comm->size));
	return lm_coll_start(s, LM_ALLTOALL, fn, &a, nb ? request : NULL);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype,
		 MPI_Comm comm)
{
	LM_GUARD();
	return alltoall("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf,
			recvcount, recvtype, comm, NULL, 0);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		  void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return alltoall("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf,
			recvcount, recvtype, comm, request, 1);
}

/* Alltoallv (one type each side, displs in elements) and w (bytes). */
int lm_coll_alltoallvw(const char *fn, const void *sendbuf,
		       const struct lm_varr *sv,
		       const MPI_Datatype *sendtypes, MPI_Datatype sendtype,
		       void *recvbuf, const struct lm_varr *rv,
		       const MPI_Datatype *recvtypes, MPI_Datatype recvtype,
		       MPI_Comm comm, MPI_Request *request, int nb,
		       enum lm_coll c)
{
	struct lm_coll_args a = { 0 };
	struct lm_sched *s;
	uint64_t *arr, total = 0, extent = 0;
	int64_t *sc = NULL, *rc;
	int n, i, w = c == LM_ALLTOALLW;

	if (lm_comm_is_inter(comm))	/* an int call's (coll_big_v.c) */
		return nb ? lm_inter_ialltoallvw(fn, sendbuf, sv->counts,
					   sv->displs, sendtypes, sendtype,
					   recvbuf, rv->counts, rv->displs,
					   recvtypes, recvtype, comm, w, request) :
			lm_inter_alltoallvw(fn, sendbuf, sv->counts,
					   sv->displs, sendtypes, sendtype,
					   recvbuf, rv->counts, rv->displs,
					   recvtypes, recvtype, comm, w);
	TRY(lm_coll_check(fn, comm, request, nb));
	n = comm->size;
	a.in_place = sendbuf == MPI_IN_PLACE;
	TRY(no_in_place(fn, comm, recvbuf));
	NEW_SCHED(s, fn, comm);
	a.rbuf = recvbuf;
	arr = ARRAYS(s, fn, s, rv, recvtypes, recvtype, w, &a.rbuf, 1, &rc);
	a.rcounts = arr;
	a.rdispls = arr + n;
	for (i = 0; i < n; i++) {
		total += arr[i];
		if (arr[n + i] + arr[i] > extent)
			extent = arr[n + i] + arr[i];
	}
	a.bytes = total / (uint64_t)n;
	if (a.in_place && a.rbuf != recvbuf) {
		/* Packed: the data to send, packed the receive's way. */
		a.sbuf = recvbuf;
		arr = ARRAYS(s, fn, s, rv, recvtypes, recvtype, w,
			     (void **)&a.sbuf, 0, &sc);
		a.scounts = arr;
		a.sdispls = arr + n;
	} else if (a.in_place) {
		TRY(in_place_copy(fn, s, &a, extent));
	} else {
		a.sbuf = sendbuf;
		arr = ARRAYS(s, fn, s, sv, sendtypes, sendtype, w,
			     (void **)&a.sbuf, 0, &sc);
		a.scounts = arr;
		a.sdispls = arr + n;
		if (a.scounts[comm->rank] != a.rcounts[comm->rank]) {
			lm_sched_free(s);
			return mismatch(fn, comm, a.scounts[comm->rank],
					a.rcounts[comm->rank]);
		}
	}
	LM_CC(lm_cc_args(-1, NULL, a.in_place, 0, NULL, 0, NULL));
	LM_CC(DT_TRY(s, fn, lm_cc_edges(s, 0, n, NULL, -1,
					 a.in_place ? rc : sc, 0,
					 a.in_place ? recvtypes : sendtypes,
					 a.in_place ? recvtype : sendtype)));
	LM_CC(DT_TRY(s, fn, lm_cc_edges(s, 1, n, NULL, -1, rc, 0,
					 recvtypes, recvtype)));
	return lm_coll_start(s, c, fn, &a, nb ? request : NULL);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
		  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		  const int recvcounts[], const int rdispls[],
		  MPI_Datatype recvtype, MPI_Comm comm)
{
	LM_GUARD();
	return lm_coll_alltoallvw("MPI_Alltoallv", sendbuf,
				  LM_VARR(sendcounts, sdispls), NULL, sendtype,
				  recvbuf, LM_VARR(recvcounts, rdispls), NULL,
				  recvtype, comm, NULL, 0, LM_ALLTOALLV);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
		   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		   const int recvcounts[], const int rdispls[],
		   MPI_Datatype recvtype, MPI_Comm comm,
		   MPI_Request *request)
{
	LM_GUARD();
	return lm_coll_alltoallvw("MPI_Ialltoallv", sendbuf,
				  LM_VARR(sendcounts, sdispls), NULL, sendtype,
				  recvbuf, LM_VARR(recvcounts, rdispls), NULL,
				  recvtype, comm, request, 1, LM_ALLTOALLV);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[],
		  const int sdispls[], const MPI_Datatype sendtypes[],
		  void *recvbuf, const int recvcounts[], const int rdispls[],
		  const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	LM_GUARD();
	return lm_coll_alltoallvw("MPI_Alltoallw", sendbuf,
				  LM_VARR(sendcounts, sdispls), sendtypes, NULL,
				  recvbuf, LM_VARR(recvcounts, rdispls),
				  recvtypes, NULL, comm, NULL, 0, LM_ALLTOALLW);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
		   const int sdispls[], const MPI_Datatype sendtypes[],
		   void *recvbuf, const int recvcounts[], const int rdispls[],
		   const MPI_Datatype recvtypes[], MPI_Comm comm,
		   MPI_Request *request)
{
	LM_GUARD();
	return lm_coll_alltoallvw("MPI_Ialltoallw", sendbuf,
				  LM_VARR(sendcounts, sdispls), sendtypes, NULL,
				  recvbuf, LM_VARR(recvcounts, rdispls),
				  recvtypes, NULL, comm, request, 1,
				  LM_ALLTOALLW);
}
