// SPDX-License-Identifier: MIT
/*
 * One-sided communication is refused: every declared call returns
 * MPI_ERR_UNSUPPORTED_OPERATION under MPI_ERRORS_RETURN, with the call's
 * name and "one-sided communication is not supported by libmsg" in the
 * error string, output handles set to their null values; window
 * creation raises the error on the communicator it was given.
 */
#include "test.h"

static const char no_rma[] = "one-sided communication is not supported by libmsg";
static int ncalls;

static void refused(int err, const char *fn)
{
	char s[MPI_MAX_ERROR_STRING];
	int c = -1, len = 0;

	ncalls++;
	CHECK(err != MPI_SUCCESS, "%s succeeded", fn);
	MPI_OK(MPI_Error_class(err, &c));
	CHECK(c == MPI_ERR_UNSUPPORTED_OPERATION, "%s: class %d", fn, c);
	MPI_OK(MPI_Error_string(err, s, &len));
	CHECK(strstr(s, no_rma) && strstr(s, fn), "%s: error string \"%s\"",
	      fn, s);
	CHECK(strstr(s, "MPI_ERR_UNSUPPORTED_OPERATION"),
	      "%s: no class name in \"%s\"", fn, s);
}

/* Window creation: the window (and memory) handles come back null. */
static void create(MPI_Comm comm)
{
	static char mem[64];
	MPI_Win win;
	void *base;

	win = (MPI_Win)mem;
	refused(MPI_Win_create(mem, sizeof(mem), 1, MPI_INFO_NULL, comm, &win),
		"MPI_Win_create");
	CHECK(win == MPI_WIN_NULL, "Win_create left a window");
	win = (MPI_Win)mem;
	base = mem;
	refused(MPI_Win_allocate(64, 1, MPI_INFO_NULL, comm, &base, &win),
		"MPI_Win_allocate");
	CHECK(win == MPI_WIN_NULL && !base, "Win_allocate left a window or memory");
	win = (MPI_Win)mem;
	base = mem;
	refused(MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, comm, &base, &win),
		"MPI_Win_allocate_shared");
	CHECK(win == MPI_WIN_NULL && !base, "Win_allocate_shared left a window");
	win = (MPI_Win)mem;
	refused(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win),
		"MPI_Win_create_dynamic");
	CHECK(win == MPI_WIN_NULL, "Win_create_dynamic left a window");
}

static void window_calls(void)
{
	MPI_Win win = MPI_WIN_NULL;
	MPI_Aint size;
	int unit, flag, buf[4] = { 0 }, res[4], cmp = 0;
	void *base = buf;
	MPI_Request r;

	refused(MPI_Win_shared_query(win, 0, &size, &unit, &base),
		"MPI_Win_shared_query");
	CHECK(!base, "Win_shared_query left a base");
	refused(MPI_Win_attach(win, buf, sizeof(buf)), "MPI_Win_attach");
	refused(MPI_Win_detach(win, buf), "MPI_Win_detach");
	refused(MPI_Win_fence(0, win), "MPI_Win_fence");
	refused(MPI_Win_start((MPI_Group)0, 0, win), "MPI_Win_start");
	refused(MPI_Win_complete(win), "MPI_Win_complete");
	refused(MPI_Win_post((MPI_Group)0, MPI_MODE_NOCHECK, win), "MPI_Win_post");
	refused(MPI_Win_wait(win), "MPI_Win_wait");
	refused(MPI_Win_test(win, &flag), "MPI_Win_test");
	refused(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win), "MPI_Win_lock");
	refused(MPI_Win_unlock(0, win), "MPI_Win_unlock");
	refused(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
	refused(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
	refused(MPI_Win_flush(0, win), "MPI_Win_flush");
	refused(MPI_Win_flush_all(win), "MPI_Win_flush_all");
	refused(MPI_Win_flush_local(0, win), "MPI_Win_flush_local");
	refused(MPI_Win_flush_local_all(win), "MPI_Win_flush_local_all");
	refused(MPI_Win_sync(win), "MPI_Win_sync");

	refused(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win), "MPI_Put");
	refused(MPI_Get(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win), "MPI_Get");
	refused(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win),
		"MPI_Accumulate");
	refused(MPI_Get_accumulate(buf, 1, MPI_INT, res, 1, MPI_INT, 0, 0, 1,
				   MPI_INT, MPI_SUM, win), "MPI_Get_accumulate");
	refused(MPI_Fetch_and_op(buf, res, MPI_INT, 0, 0, MPI_SUM, win),
		"MPI_Fetch_and_op");
	refused(MPI_Compare_and_swap(buf, &cmp, res, MPI_INT, 0, 0, win),
		"MPI_Compare_and_swap");

	r = (MPI_Request)buf;
	refused(MPI_Rput(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &r), "MPI_Rput");
	CHECK(r == MPI_REQUEST_NULL, "Rput left a request");
	r = (MPI_Request)buf;
	refused(MPI_Rget(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &r), "MPI_Rget");
	CHECK(r == MPI_REQUEST_NULL, "Rget left a request");
	r = (MPI_Request)buf;
	refused(MPI_Raccumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win,
				&r), "MPI_Raccumulate");
	CHECK(r == MPI_REQUEST_NULL, "Raccumulate left a request");
	r = (MPI_Request)buf;
	refused(MPI_Rget_accumulate(buf, 1, MPI_INT, res, 1, MPI_INT, 0, 0, 1,
				    MPI_INT, MPI_SUM, win, &r),
		"MPI_Rget_accumulate");
	CHECK(r == MPI_REQUEST_NULL, "Rget_accumulate left a request");

	win = MPI_WIN_NULL;
	refused(MPI_Win_free(&win), "MPI_Win_free");
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	create(MPI_COMM_WORLD);
	window_calls();
	CHECK(ncalls == 33, "%d calls checked", ncalls);

	/*
	 * Creation raises the error on its communicator: with WORLD fatal
	 * and SELF returning, a refusal on SELF returns.
	 */
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
	create(MPI_COMM_SELF);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	t_barrier();
	return t_done();
}
