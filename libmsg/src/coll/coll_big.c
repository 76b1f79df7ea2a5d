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
 *   - the reductions run in slices: coll_big_red.c.
 * The rest (arrays no unit brings into an int) is MPI_ERR_COUNT
 * (libmsg/README.md, Not yet).
 */

#include <limits.h>
#include <stdlib.h>

#include "coll/coll_big.h"

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
