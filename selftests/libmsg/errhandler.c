// SPDX-License-Identifier: MIT
/*
 * User error handlers: MPI_Comm_create_errhandler, set on a
 * communicator, called with that communicator and the error code when
 * a call on it fails (the call then returns the code), free to make MPI
 * calls of its own; inherited by MPI_Comm_dup; read back with
 * MPI_Comm_get_errhandler (a reference the caller frees); still called
 * after the user freed the handle while communicators hold it;
 * MPI_Comm_call_errhandler calls it (and returns MPI_SUCCESS, as it
 * does under MPI_ERRORS_RETURN); left set on MPI_COMM_WORLD into
 * MPI_Finalize.  The ASan build checks that the handler is freed once,
 * when the last holder lets go.
 */
#include "test.h"

static int calls, last_code;
static MPI_Comm last_comm;

static void record(MPI_Comm *comm, int *code, ...)
{
	char s[MPI_MAX_ERROR_STRING];
	int len, rank;

	calls++;
	last_comm = *comm;
	last_code = *code;
	/* MPI calls from inside the handler work (the lock nests). */
	MPI_OK(MPI_Error_string(*code, s, &len));
	CHECK(len > 0, "no error string in the handler");
	MPI_OK(MPI_Comm_rank(*comm, &rank));
	CHECK(rank == t_rank, "rank %d in the handler", rank);
}

/* A failing send on c: the handler sees c and MPI_ERR_RANK. */
static void fail_on(MPI_Comm c, const char *what)
{
	int buf = 0, before = calls, err, cls;

	err = MPI_Send(&buf, 1, MPI_INT, t_size, 0, c);
	MPI_OK(MPI_Error_class(err, &cls));
	CHECK(cls == MPI_ERR_RANK, "%s: class %d", what, cls);
	CHECK(calls == before + 1, "%s: handler called %d times", what,
	      calls - before);
	CHECK(last_comm == c && last_code == err, "%s: handler saw the wrong call",
	      what);
}

int main(int argc, char **argv)
{
	MPI_Errhandler h, got;
	MPI_Comm d, d2;
	int err;

	t_init(&argc, &argv);
	CHECK(MPI_Comm_create_errhandler(NULL, &h) == MPI_ERR_ARG,
	      "a NULL function accepted");
	MPI_OK(MPI_Comm_create_errhandler(record, &h));
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
	MPI_OK(MPI_Comm_set_errhandler(d, h));
	fail_on(d, "set on a dup");

	MPI_OK(MPI_Comm_dup(d, &d2));
	fail_on(d2, "inherited by Comm_dup");
	CHECK(calls == 2, "%d calls", calls);

	MPI_OK(MPI_Comm_get_errhandler(d, &got));
	CHECK(got == h, "get_errhandler gave another handler");
	MPI_OK(MPI_Errhandler_free(&got));
	CHECK(got == MPI_ERRHANDLER_NULL, "freed handle not nulled");
	MPI_OK(MPI_Errhandler_free(&h));
	fail_on(d, "after the user's handle was freed");

	/* Raised by the program: the handler runs, the call succeeds. */
	MPI_OK(MPI_Comm_call_errhandler(d2, MPI_ERR_OTHER));
	CHECK(last_comm == d2 && last_code == MPI_ERR_OTHER,
	      "call_errhandler: handler saw %d", last_code);
	MPI_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));

	/* Replaced by a predefined one: errors return, no call. */
	MPI_OK(MPI_Comm_set_errhandler(d2, MPI_ERRORS_RETURN));
	err = calls;
	CHECK(MPI_Send(&calls, 1, MPI_INT, t_size, 0, d2) != MPI_SUCCESS,
	      "send to rank %d succeeded", t_size);
	CHECK(calls == err, "handler called after it was replaced");
	MPI_OK(MPI_Comm_free(&d2));

	/* Onto the world, kept there into MPI_Finalize. */
	MPI_OK(MPI_Comm_get_errhandler(d, &h));
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
	MPI_OK(MPI_Errhandler_free(&h));
	MPI_OK(MPI_Comm_free(&d));
	fail_on(MPI_COMM_WORLD, "set on the world");
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_Finalize();
	if (t_rank == 0)
		printf("errhandler: ok (%d ranks, %d calls)\n", t_size, calls);
	return 0;
}
