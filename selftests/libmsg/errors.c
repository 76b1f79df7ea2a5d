// SPDX-License-Identifier: MIT
/*
 * Bad arguments under MPI_ERRORS_RETURN give the right error class,
 * for rank, count, tag, datatype, communicator, buffer and request, in
 * blocking and nonblocking calls; MPI_Error_string and MPI_Error_class
 * describe them; the error handler can be read back; nothing was sent.
 */
#include <stdint.h>

#include "test.h"

/* t_expect, and the error has a string. */
static void expect(int err, int cls, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	t_expect(err, cls, what);
	MPI_OK(MPI_Error_string(err, s, &len));
	CHECK(len > 0 && (int)strlen(s) == len, "%s: error string", what);
}

int main(int argc, char **argv)
{
	int buf[4] = { 0 }, flag;
	MPI_Errhandler h;
	MPI_Request r = MPI_REQUEST_NULL;
	MPI_Status st;
	MPI_Comm w = MPI_COMM_WORLD;

	t_init(&argc, &argv);
	MPI_OK(MPI_Comm_get_errhandler(w, &h));
	CHECK(h == MPI_ERRORS_RETURN, "errhandler not set");
	MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &h));
	CHECK(h == MPI_ERRORS_ARE_FATAL, "SELF's default handler");

	expect(MPI_Send(buf, 1, MPI_INT, t_size, 0, w), MPI_ERR_RANK, "Send rank=size");
	expect(MPI_Send(buf, 1, MPI_INT, -5, 0, w), MPI_ERR_RANK, "Send rank=-5");
	expect(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, w), MPI_ERR_RANK, "Send to ANY_SOURCE");
	expect(MPI_Recv(buf, 1, MPI_INT, t_size + 3, 0, w, &st), MPI_ERR_RANK, "Recv rank");
	expect(MPI_Isend(buf, 1, MPI_INT, t_size, 0, w, &r), MPI_ERR_RANK, "Isend rank");
	CHECK(r == MPI_REQUEST_NULL, "failed Isend made a request");
	expect(MPI_Iprobe(t_size, 0, w, &flag, &st), MPI_ERR_RANK, "Iprobe rank");

	expect(MPI_Send(buf, -1, MPI_INT, 0, 0, w), MPI_ERR_COUNT, "Send count");
	expect(MPI_Recv(buf, -1, MPI_INT, 0, 0, w, &st), MPI_ERR_COUNT, "Recv count");
	expect(MPI_Irecv(buf, -7, MPI_INT, 0, 0, w, &r), MPI_ERR_COUNT, "Irecv count");

	expect(MPI_Send(buf, 1, MPI_INT, 0, -1, w), MPI_ERR_TAG, "Send tag -1");
	expect(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, w), MPI_ERR_TAG, "Send ANY_TAG");
	expect(MPI_Recv(buf, 1, MPI_INT, 0, -2, w, &st), MPI_ERR_TAG, "Recv tag -2");
	expect(MPI_Ssend(buf, 1, MPI_INT, 0, -3, w), MPI_ERR_TAG, "Ssend tag");

	expect(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, w), MPI_ERR_TYPE, "Send type");
	expect(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, 0, 0, w, &st), MPI_ERR_TYPE, "Recv type");
	expect(MPI_Get_count(&st, MPI_DATATYPE_NULL, &flag), MPI_ERR_TYPE, "Get_count type");

	expect(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "Send comm");
	expect(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM, "Recv comm");
	expect(MPI_Comm_size(MPI_COMM_NULL, &flag), MPI_ERR_COMM, "Comm_size");
	expect(MPI_Comm_rank(MPI_COMM_NULL, &flag), MPI_ERR_COMM, "Comm_rank");
	expect(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM, "Isend comm");

	/*
	 * A stray small integer where a handle goes (the HLRS suite passes
	 * 0x25 as a communicator to MPI_Bcast): an error, not a fault.
	 */
	{
		MPI_Comm junk = (MPI_Comm)(uintptr_t)0x25;
		MPI_Datatype jt = (MPI_Datatype)(uintptr_t)0x25;
		MPI_Op jo = (MPI_Op)(uintptr_t)0x25;
		MPI_Group jg = (MPI_Group)(uintptr_t)0x25;

		expect(MPI_Bcast(buf, 1, MPI_INT, 0, junk), MPI_ERR_COMM, "Bcast junk comm");
		expect(MPI_Send(buf, 1, MPI_INT, 0, 0, junk), MPI_ERR_COMM, "Send junk comm");
		expect(MPI_Comm_size(junk, &flag), MPI_ERR_COMM, "Comm_size junk");
		expect(MPI_Send(buf, 1, jt, 0, 0, w), MPI_ERR_TYPE, "Send junk type");
		expect(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, jo, w), MPI_ERR_OP, "Allreduce junk op");
		expect(MPI_Group_size(jg, &flag), MPI_ERR_GROUP, "Group_size junk");
	}

	expect(MPI_Send(NULL, 4, MPI_INT, 0, 0, w), MPI_ERR_BUFFER, "Send NULL buffer");
	expect(MPI_Recv(NULL, 4, MPI_INT, 0, 0, w, &st), MPI_ERR_BUFFER, "Recv NULL buffer");
	expect(MPI_Bsend(buf, 4, MPI_INT, 0, 0, w), MPI_ERR_BUFFER, "Bsend without a buffer");

	expect(MPI_Start(&r), MPI_ERR_REQUEST, "Start on a null request");
	expect(MPI_Request_free(&r), MPI_ERR_REQUEST, "Request_free null");
	expect(MPI_Error_class(12345, &flag), MPI_ERR_ARG, "Error_class of junk");

	/* None of the bad sends went anywhere. */
	t_barrier();
	MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 0, w, &flag, &st));
	CHECK(!flag, "a failed call sent a message");
	return t_done();
}
