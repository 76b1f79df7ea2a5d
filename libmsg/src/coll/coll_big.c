// SPDX-License-Identifier: MIT
/*
 * The large-count collectives of MPI-4.0 (MPI_Bcast_c, ...).  What fits
 * in an int goes to the int call as it is.  Beyond:
 *   - a block count (bcast, gather, scatter, allgather, alltoall, and
 *     each peer's of alltoallw) moves as one element of a contiguous
 *     type of that many elements (lm_big): only the local description
 *     changes, the type signature and the bytes do not;
 *   - counts and displacements arrays (the v variants) are taken in a
 *     unit of g elements, g their greatest common divisor, when that
 *     brings them all into an int;
 *   - the blocking reductions (reduce, allreduce, scan, exscan,
 *     reduce_local) run in slices of LM_BIG_SLICE elements: reductions
 *     work element by element, and every rank has the same count.
 * The rest (a nonblocking or persistent reduction, reduce_scatter
 * beyond an int, alltoallw's byte displacements beyond an int, arrays
 * no unit brings into an int) is MPI_ERR_COUNT (libmsg/README.md, Not
 * yet).
 */

#include <limits.h>
#include <stdlib.h>

#include "coll/coll_big.h"

#define LM_BIG_SLICE	((MPI_Count)1 << 30)

int lm_coll_at_root(MPI_Comm comm, int root)
{
	return lm_comm_is_inter(comm) ? root == MPI_ROOT : comm->rank == root;
}

/*
 * One side's count and type: lm_big if it matters here, else whatever
 * fits (an insignificant argument is not checked, as MPI has it).
 */
int lm_coll_big_side(const char *fn, MPI_Comm comm, int used, MPI_Count count,
		     MPI_Datatype dt, int *n, MPI_Datatype *t)
{
	if (used)
		return lm_big(fn, comm, count, dt, n, t);
	*t = dt;
	*n = count >= 0 && count <= INT_MAX ? (int)count : 0;
	return MPI_SUCCESS;
}

/* This rank takes part in a broadcast (an intercommunicator's may not). */
static int in_bcast(MPI_Comm comm, int root)
{
	return !lm_comm_is_inter(comm) || root == MPI_ROOT || root >= 0;
}

/* It sends buf to the root (gather), receives into it (scatter). */
static int to_root(MPI_Comm comm, int root, const void *buf)
{
	return buf != MPI_IN_PLACE && (!lm_comm_is_inter(comm) || root >= 0);
}

/* It is the root and sends from buf (scatter). */
static int from_root(MPI_Comm comm, int root, const void *buf)
{
	return lm_coll_at_root(comm, root) && buf != MPI_IN_PLACE;
}

int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
		MPI_Comm comm)
{
	static const char fn[] = "MPI_Bcast_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm,
				       in_bcast(comm, root),
				       count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Bcast(buffer, n, t, root, comm);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
		 MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ibcast_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm,
				       in_bcast(comm, root),
				       count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Ibcast(buffer, n, t, root, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
		     int root, MPI_Comm comm, MPI_Info info,
		     MPI_Request *request)
{
	static const char fn[] = "MPI_Bcast_init_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm,
				       in_bcast(comm, root),
				       count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Bcast_init(buffer, n, t, root, comm, info, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount,
		 MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	static const char fn[] = "MPI_Gather_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm,
				       to_root(comm, root, sendbuf),
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm, lm_coll_at_root(comm, root), recvcount,
			       recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Gather(sendbuf, sn, st, recvbuf, rn, rt, root, comm);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount,
		  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		  MPI_Datatype recvtype, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	static const char fn[] = "MPI_Igather_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm,
				       to_root(comm, root, sendbuf),
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm, lm_coll_at_root(comm, root), recvcount,
			       recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Igather(sendbuf, sn, st, recvbuf, rn, rt, root, comm,
				  request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount,
		      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		      MPI_Datatype recvtype, int root, MPI_Comm comm,
		      MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Gather_init_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm,
				       to_root(comm, root, sendbuf),
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm, lm_coll_at_root(comm, root), recvcount,
			       recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Gather_init(sendbuf, sn, st, recvbuf, rn, rt, root,
				      comm, info, request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount,
		  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	static const char fn[] = "MPI_Scatter_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm,
				       from_root(comm, root, sendbuf),
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm,
			       to_root(comm, root, recvbuf),
			       recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Scatter(sendbuf, sn, st, recvbuf, rn, rt, root, comm);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount,
		   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		   MPI_Datatype recvtype, int root, MPI_Comm comm,
		   MPI_Request *request)
{
	static const char fn[] = "MPI_Iscatter_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm,
				       from_root(comm, root, sendbuf),
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm,
			       to_root(comm, root, recvbuf),
			       recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Iscatter(sendbuf, sn, st, recvbuf, rn, rt, root, comm,
				   request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount,
		       MPI_Datatype sendtype, void *recvbuf,
		       MPI_Count recvcount, MPI_Datatype recvtype, int root,
		       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Scatter_init_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm,
				       from_root(comm, root, sendbuf),
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm,
			       to_root(comm, root, recvbuf),
			       recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Scatter_init(sendbuf, sn, st, recvbuf, rn, rt, root,
				       comm, info, request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount,
		    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		    MPI_Datatype recvtype, MPI_Comm comm)
{
	static const char fn[] = "MPI_Allgather_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE,
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm, 1, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Allgather(sendbuf, sn, st, recvbuf, rn, rt, comm);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount,
		     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Iallgather_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE,
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm, 1, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Iallgather(sendbuf, sn, st, recvbuf, rn, rt, comm,
				     request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount,
			 MPI_Datatype sendtype, void *recvbuf,
			 MPI_Count recvcount, MPI_Datatype recvtype,
			 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Allgather_init_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE,
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm, 1, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Allgather_init(sendbuf, sn, st, recvbuf, rn, rt, comm,
					 info, request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount,
		   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		   MPI_Datatype recvtype, MPI_Comm comm)
{
	static const char fn[] = "MPI_Alltoall_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE,
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm, 1, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Alltoall(sendbuf, sn, st, recvbuf, rn, rt, comm);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount,
		    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ialltoall_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE,
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm, 1, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Ialltoall(sendbuf, sn, st, recvbuf, rn, rt, comm,
				    request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
			MPI_Datatype sendtype, void *recvbuf,
			MPI_Count recvcount, MPI_Datatype recvtype,
			MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Alltoall_init_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_coll_big_side(fn, comm, sendbuf != MPI_IN_PLACE,
				       sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_coll_big_side(fn, comm, 1, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Alltoall_init(sendbuf, sn, st, recvbuf, rn, rt, comm,
					info, request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

/*
 * A reduction's count: itself if it fits in an int; else, for a
 * blocking one (slices, non-zero), the caller goes slice by slice.
 */
static int red_count(const char *fn, MPI_Comm comm, MPI_Count count,
		     MPI_Datatype dt, int slices, int64_t *extent)
{
	if (count < 0)
		return lm_error(comm, fn, MPI_ERR_COUNT, "count %lld is negative",
				(long long)count);
	if (count <= INT_MAX)
		return MPI_SUCCESS;
	if (!slices)
		return lm_error(comm, fn, MPI_ERR_COUNT,
				"%lld elements: libmsg's nonblocking and persistent reductions take at most INT_MAX (Not yet)",
				(long long)count);
	if (lm_check_datatype(dt))
		return lm_error(comm, fn, MPI_ERR_TYPE, "%s", lm_datatype_why(dt));
	*extent = dt->extent;
	return MPI_SUCCESS;
}

/* Slice k of a buffer: MPI_IN_PLACE and NULL stay what they are. */
static inline void *slice(const void *buf, MPI_Count at, int64_t extent)
{
	if (buf == MPI_IN_PLACE || !buf)
		return (void *)buf;
	return (char *)buf + at * extent;
}

static inline int slice_n(MPI_Count count, MPI_Count at)
{
	return (int)(count - at < LM_BIG_SLICE ? count - at : LM_BIG_SLICE);
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	static const char fn[] = "MPI_Reduce_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Reduce(sendbuf, recvbuf, (int)count, datatype, op,
				  root, comm);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Reduce(slice(sendbuf, at, ext),
				 slice(recvbuf, at, ext), slice_n(count, at),
				 datatype, op, root, comm);
	return err;
}

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	static const char fn[] = "MPI_Ireduce_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Ireduce(sendbuf, recvbuf, (int)count, datatype, op, root,
			   comm, request);
}

int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		      MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Reduce_init_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Reduce_init(sendbuf, recvbuf, (int)count, datatype, op, root,
			       comm, info, request);
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	static const char fn[] = "MPI_Allreduce_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Allreduce(sendbuf, recvbuf, (int)count, datatype, op,
				comm);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Allreduce(slice(sendbuf, at, ext),
				    slice(recvbuf, at, ext), slice_n(count, at),
				    datatype, op, comm);
	return err;
}

int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		     MPI_Request *request)
{
	static const char fn[] = "MPI_Iallreduce_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Iallreduce(sendbuf, recvbuf, (int)count, datatype, op, comm,
			      request);
}

int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			 MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Allreduce_init_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Allreduce_init(sendbuf, recvbuf, (int)count, datatype, op,
				  comm, info, request);
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
	       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	static const char fn[] = "MPI_Scan_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Scan(sendbuf, recvbuf, (int)count, datatype, op,
				comm);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Scan(slice(sendbuf, at, ext), slice(recvbuf, at, ext),
			       slice_n(count, at), datatype, op, comm);
	return err;
}

int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		MPI_Request *request)
{
	static const char fn[] = "MPI_Iscan_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Iscan(sendbuf, recvbuf, (int)count, datatype, op, comm,
			 request);
}

int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Scan_init_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Scan_init(sendbuf, recvbuf, (int)count, datatype, op, comm,
			     info, request);
}

int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	static const char fn[] = "MPI_Exscan_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 1, &ext);
	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Exscan(sendbuf, recvbuf, (int)count, datatype, op,
				comm);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Exscan(slice(sendbuf, at, ext),
				 slice(recvbuf, at, ext), slice_n(count, at),
				 datatype, op, comm);
	return err;
}

int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		  MPI_Request *request)
{
	static const char fn[] = "MPI_Iexscan_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Iexscan(sendbuf, recvbuf, (int)count, datatype, op, comm,
			   request);
}

int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		      MPI_Info info, MPI_Request *request)
{
	static const char fn[] = "MPI_Exscan_init_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, count, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Exscan_init(sendbuf, recvbuf, (int)count, datatype, op, comm,
			       info, request);
}

int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
		       MPI_Datatype datatype, MPI_Op op)
{
	static const char fn[] = "MPI_Reduce_local_c";
	int64_t ext = 0;
	MPI_Count at;
	int err = red_count(fn, NULL, count, datatype, 1, &ext);

	if (err)
		return err;
	if (count <= INT_MAX)
		return MPI_Reduce_local(inbuf, inoutbuf, (int)count, datatype,
					op);
	for (at = 0; at < count && !err; at += LM_BIG_SLICE)
		err = MPI_Reduce_local(slice(inbuf, at, ext),
				       slice(inoutbuf, at, ext),
				       slice_n(count, at), datatype, op);
	return err;
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
			       MPI_Count recvcount, MPI_Datatype datatype,
			       MPI_Op op, MPI_Comm comm)
{
	static const char fn[] = "MPI_Reduce_scatter_block_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, recvcount, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Reduce_scatter_block(sendbuf, recvbuf, (int)recvcount,
					datatype, op, comm);
}

int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf,
				MPI_Count recvcount, MPI_Datatype datatype,
				MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ireduce_scatter_block_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, recvcount, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Ireduce_scatter_block(sendbuf, recvbuf, (int)recvcount,
					 datatype, op, comm, request);
}

int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf,
				    MPI_Count recvcount, MPI_Datatype datatype,
				    MPI_Op op, MPI_Comm comm, MPI_Info info,
				    MPI_Request *request)
{
	static const char fn[] = "MPI_Reduce_scatter_block_init_c";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = red_count(fn, comm, recvcount, datatype, 0, NULL);
	if (err)
		return err;
	return MPI_Reduce_scatter_block_init(sendbuf, recvbuf, (int)recvcount,
					     datatype, op, comm, info, request);
}
