// SPDX-License-Identifier: MIT
/*
 * MPI_PROC_NULL: every call completes at once, moves nothing, and a
 * receive's status says source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0.
 */
#include "test.h"

static void check_null(const MPI_Status *st, const char *what)
{
	int cnt;

	MPI_OK(MPI_Get_count(st, MPI_INT, &cnt));
	CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG &&
	      cnt == 0, "%s: source %d tag %d count %d", what, st->MPI_SOURCE,
	      st->MPI_TAG, cnt);
}

int main(int argc, char **argv)
{
	int buf[4] = { 1, 2, 3, 4 }, flag;
	MPI_Request r;
	MPI_Status st;

	t_init(&argc, &argv);
	MPI_OK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
	MPI_OK(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
	MPI_OK(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
	MPI_OK(MPI_Bsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
	MPI_OK(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
	check_null(&st, "Recv");
	CHECK(buf[0] == 1 && buf[3] == 4, "Recv wrote the buffer");
	MPI_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Test(&r, &flag, &st));
	CHECK(flag, "Irecv from PROC_NULL not complete");
	check_null(&st, "Irecv");
	MPI_OK(MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Wait(&r, &st));
	MPI_OK(MPI_Issend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Wait(&r, &st));
	MPI_OK(MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, buf, 4, MPI_INT,
			    MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
	check_null(&st, "Sendrecv");
	MPI_OK(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
	check_null(&st, "Probe");
	MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &st));
	CHECK(flag, "Iprobe");
	check_null(&st, "Iprobe");
	MPI_OK(MPI_Recv_init(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Start(&r));
	MPI_OK(MPI_Wait(&r, &st));
	check_null(&st, "persistent receive");
	MPI_OK(MPI_Request_free(&r));
	return t_done();
}
