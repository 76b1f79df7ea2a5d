// SPDX-License-Identifier: MIT
/*
 * The large-count point-to-point calls of MPI-4.0 (MPI_Send_c, ...): a
 * count that fits in an int goes to the int call as it is; a larger
 * one moves as one element of a contiguous type of count elements
 * (lm_big), the message's bytes counted in 64 bits all the way, so
 * the receiver's status has the true count (MPI_Get_count_c).
 */

#include "p2p/p2p.h"

int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
	       int dest, int tag, MPI_Comm comm)
{
	static const char fn[] = "MPI_Send_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Send(buf, n, t, dest, tag, comm);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm)
{
	static const char fn[] = "MPI_Ssend_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Ssend(buf, n, t, dest, tag, comm);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm)
{
	static const char fn[] = "MPI_Bsend_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Bsend(buf, n, t, dest, tag, comm);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm)
{
	static const char fn[] = "MPI_Rsend_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Rsend(buf, n, t, dest, tag, comm);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Isend_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Isend(buf, n, t, dest, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		 int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Issend_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Issend(buf, n, t, dest, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		 int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ibsend_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Ibsend(buf, n, t, dest, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		 int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Irsend_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Irsend(buf, n, t, dest, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		    int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Send_init_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Send_init(buf, n, t, dest, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		     int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Ssend_init_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Ssend_init(buf, n, t, dest, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		     int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Bsend_init_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Bsend_init(buf, n, t, dest, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		     int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Rsend_init_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Rsend_init(buf, n, t, dest, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source,
	       int tag, MPI_Comm comm, MPI_Status *status)
{
	static const char fn[] = "MPI_Recv_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Recv(buf, n, t, source, tag, comm, status);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source,
		int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Irecv_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Irecv(buf, n, t, source, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype,
		    int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Recv_init_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Recv_init(buf, n, t, source, tag, comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount,
		   MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
		   MPI_Count recvcount, MPI_Datatype recvtype, int source,
		   int recvtag, MPI_Comm comm, MPI_Status *status)
{
	static const char fn[] = "MPI_Sendrecv_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_big(fn, comm, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Sendrecv(sendbuf, sn, st, dest, sendtag, recvbuf, rn,
				   rt, source, recvtag, comm, status);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount,
		    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
		    MPI_Count recvcount, MPI_Datatype recvtype, int source,
		    int recvtag, MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Isendrecv_c";
	MPI_Datatype st, rt;
	int sn, rn, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, sendcount, sendtype, &sn, &st);
	if (err)
		return err;
	err = lm_big(fn, comm, recvcount, recvtype, &rn, &rt);
	if (!err) {
		err = MPI_Isendrecv(sendbuf, sn, st, dest, sendtag, recvbuf, rn,
				    rt, source, recvtag, comm, request);
		lm_big_drop(recvtype, rt);
	}
	lm_big_drop(sendtype, st);
	return err;
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype,
			   int dest, int sendtag, int source, int recvtag,
			   MPI_Comm comm, MPI_Status *status)
{
	static const char fn[] = "MPI_Sendrecv_replace_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Sendrecv_replace(buf, n, t, dest, sendtag, source, recvtag,
				   comm, status);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype,
			    int dest, int sendtag, int source, int recvtag,
			    MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Isendrecv_replace_c";
	MPI_Datatype t;
	int n, err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_big(fn, comm, count, datatype, &n, &t);
	if (err)
		return err;
	err = MPI_Isendrecv_replace(buf, n, t, dest, sendtag, source, recvtag,
				    comm, request);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
		MPI_Message *message, MPI_Status *status)
{
	static const char fn[] = "MPI_Mrecv_c";
	MPI_Datatype t;
	int n, err = lm_big(fn, NULL, count, datatype, &n, &t);

	if (err)
		return err;
	err = MPI_Mrecv(buf, n, t, message, status);
	lm_big_drop(datatype, t);
	return err;
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
		 MPI_Message *message, MPI_Request *request)
{
	static const char fn[] = "MPI_Imrecv_c";
	MPI_Datatype t;
	int n, err = lm_big(fn, NULL, count, datatype, &n, &t);

	if (err)
		return err;
	err = MPI_Imrecv(buf, n, t, message, request);
	lm_big_drop(datatype, t);
	return err;
}
