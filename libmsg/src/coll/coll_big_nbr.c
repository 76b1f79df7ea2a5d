// SPDX-License-Identifier: MIT
/*
 * The large-count neighbourhood collectives of MPI-4.0 whose counts are
 * one per block (Neighbor_allgather_c, Neighbor_alltoall_c, their I and
 * _init forms): a count beyond an int moves as one element of a
 * contiguous type (lm_big), as in coll_big.c.  The v and w ones:
 * coll_big_nbrv.c.
 */

#include "coll/coll_big.h"

int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     MPI_Count recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm)
{
	static const char fn[] = "MPI_Neighbor_allgather_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_big(fn, comm, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Neighbor_allgather(sendbuf, sn, st, recvbuf, rn, rt, comm);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      MPI_Count recvcount, MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ineighbor_allgather_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_big(fn, comm, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Ineighbor_allgather(sendbuf, sn, st, recvbuf, rn, rt, comm, request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount,
				  MPI_Datatype sendtype, void *recvbuf,
				  MPI_Count recvcount, MPI_Datatype recvtype,
				  MPI_Comm comm, MPI_Info info,
				  MPI_Request *request)
{
	static const char fn[] = "MPI_Neighbor_allgather_init_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_big(fn, comm, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Neighbor_allgather_init(sendbuf, sn, st, recvbuf, rn, rt, comm, info, request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    MPI_Count recvcount, MPI_Datatype recvtype,
			    MPI_Comm comm)
{
	static const char fn[] = "MPI_Neighbor_alltoall_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_big(fn, comm, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Neighbor_alltoall(sendbuf, sn, st, recvbuf, rn, rt, comm);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     MPI_Count recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ineighbor_alltoall_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_big(fn, comm, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Ineighbor_alltoall(sendbuf, sn, st, recvbuf, rn, rt, comm, request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
				 MPI_Datatype sendtype, void *recvbuf,
				 MPI_Count recvcount, MPI_Datatype recvtype,
				 MPI_Comm comm, MPI_Info info,
				 MPI_Request *request)
{
	static const char fn[] = "MPI_Neighbor_alltoall_init_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_big(fn, comm, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Neighbor_alltoall_init(sendbuf, sn, st, recvbuf, rn, rt, comm, info, request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}
