// SPDX-License-Identifier: MIT
/*
 * Wrong one-sided calls, under MPI_ERRORS_RETURN on the window, on each
 * flavor: each fails with its class, and MPI_Error_string names the
 * call and says why (a phrase checked for each), and nothing is left
 * half done (the window works on afterwards):
 *   - MPI_ERR_RMA_RANGE: a displacement past the window's end, data
 *     that runs over it, a datatype whose blocks reach past it;
 *   - MPI_ERR_DISP: a negative displacement;
 *   - MPI_ERR_RMA_SYNC: an operation without an epoch, MPI_Win_unlock
 *     of a rank never locked, MPI_Win_unlock_all without lock_all, a
 *     second lock of one rank, a fence or MPI_Win_free inside a lock
 *     epoch, a flush without a lock, MPI_Rput outside a passive epoch,
 *     MPI_Win_complete without start, MPI_Win_wait without post;
 *   - MPI_ERR_OP: an op not defined on the type (MPI_LAND on doubles,
 *     MPI_BAND on floats, MPI_MAXLOC on ints), a program's own op;
 *   - MPI_ERR_TYPE: origin and target of different basic types, data
 *     of different sizes, compare-and-swap on a double, fetch-and-op
 *     on a derived type, an uncommitted type;
 *   - MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT, MPI_ERR_RANK, MPI_ERR_COUNT;
 *   - window creation: MPI_ERR_SIZE (negative size), MPI_ERR_DISP
 *     (disp_unit 0), on the communicator's handler; MPI_ERR_WIN for
 *     MPI_WIN_NULL.
 */
#include "rma_util.h"

static const char *flavor;

/* err: class cls, and its string names fn and says what. */
static void expect(int err, int cls, const char *fn, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int c = -1, len;

	CHECK(err != MPI_SUCCESS, "%s: %s succeeded (%s)", flavor, fn, what);
	MPI_OK(MPI_Error_class(err, &c));
	MPI_OK(MPI_Error_string(err, s, &len));
	CHECK(c == cls, "%s: %s: class %d, expected %d (%s)", flavor, fn, c,
	      cls, s);
	CHECK(strstr(s, fn) && strstr(s, what), "%s: error string \"%s\" lacks \"%s\" or \"%s\"",
	      flavor, s, fn, what);
}

static int user_op_fn_calls;

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)in; (void)inout; (void)len; (void)dt;
	user_op_fn_calls++;
}

static void errors(struct t_win *w)
{
	MPI_Win win = w->win;
	int x[4] = { 0 }, r = (t_rank + 1) % t_size, cnt, unit = w->unit;
	double d = 1, dr;
	MPI_Datatype vec, loose;
	MPI_Request req;
	MPI_Op op;
	long long ll = 0, llr;

	flavor = t_flavor_name[w->flavor];
	/* No epoch yet. */
	expect(MPI_Put(x, 1, MPI_INT, r, t_disp(w, r, 0), 1, MPI_INT, win),
	       MPI_ERR_RMA_SYNC, "MPI_Put", "no epoch");
	expect(MPI_Win_unlock(r, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock",
	       "not locked");
	expect(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all",
	       "MPI_Win_lock_all was not called");
	expect(MPI_Win_flush(r, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush",
	       "no passive target epoch");
	expect(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete",
	       "MPI_Win_start was not called");
	expect(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "MPI_Win_wait",
	       "MPI_Win_post was not called");
	expect(MPI_Win_lock(99, r, 0, win), MPI_ERR_LOCKTYPE, "MPI_Win_lock",
	       "lock type 99");
	expect(MPI_Win_lock(MPI_LOCK_SHARED, r, 4, win), MPI_ERR_ASSERT,
	       "MPI_Win_lock", "assert");
	expect(MPI_Win_lock(MPI_LOCK_SHARED, t_size, 0, win), MPI_ERR_RANK,
	       "MPI_Win_lock", "not in the window");

	MPI_OK(MPI_Win_fence(0, win));
	expect(MPI_Rput(x, 1, MPI_INT, r, t_disp(w, r, 0), 1, MPI_INT, win,
			&req), MPI_ERR_RMA_SYNC, "MPI_Rput", "passive target");
	CHECK(req == MPI_REQUEST_NULL, "%s: a failed MPI_Rput left a request", flavor);
	MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

	MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win));
	expect(MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win), MPI_ERR_RMA_SYNC,
	       "MPI_Win_lock", "locked already");
	expect(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_fence",
	       "passive target");
	expect(MPI_Win_free(&w->win), MPI_ERR_RMA_SYNC, "MPI_Win_free",
	       "an epoch is open");
	CHECK(w->win == win, "%s: a failed MPI_Win_free changed the handle", flavor);

	/* Out of range (a dynamic window's range is what is attached). */
	expect(MPI_Put(x, 1, MPI_INT, r, t_disp(w, r, w->bytes), 1, MPI_INT, win),
	       MPI_ERR_RMA_RANGE, "MPI_Put", "");
	expect(MPI_Get(x, 4, MPI_INT, r, t_disp(w, r, w->bytes - 8), 4, MPI_INT,
		       win), MPI_ERR_RMA_RANGE, "MPI_Get", "");
	MPI_OK(MPI_Type_vector(2, 1, (int)(w->bytes / 4), MPI_INT, &vec));
	MPI_OK(MPI_Type_commit(&vec));
	expect(MPI_Put(x, 2, MPI_INT, r, t_disp(w, r, 0), 1, vec, win),
	       MPI_ERR_RMA_RANGE, "MPI_Put", "");
	expect(MPI_Accumulate(x, 1, MPI_INT, r, t_disp(w, r, w->bytes + 64), 1,
			      MPI_INT, MPI_SUM, win), MPI_ERR_RMA_RANGE,
	       "MPI_Accumulate", "");
	if (w->flavor != T_DYNAMIC)
		expect(MPI_Put(x, 1, MPI_INT, r, -1, 1, MPI_INT, win),
		       MPI_ERR_DISP, "MPI_Put", "negative");
	if (w->flavor != T_DYNAMIC)
		expect(MPI_Put(x, 1, MPI_INT, r, (MPI_Aint)(w->bytes / unit), 1,
			       MPI_INT, win), MPI_ERR_RMA_RANGE, "MPI_Put",
		       "not all in its window");

	/* Ops and types. */
	expect(MPI_Accumulate(&d, 1, MPI_DOUBLE, r, t_disp(w, r, 0), 1,
			      MPI_DOUBLE, MPI_LAND, win), MPI_ERR_OP,
	       "MPI_Accumulate", "MPI_LAND is not defined on MPI_DOUBLE");
	expect(MPI_Fetch_and_op(&d, &dr, MPI_FLOAT, r, t_disp(w, r, 0),
				MPI_BAND, win), MPI_ERR_OP, "MPI_Fetch_and_op",
	       "MPI_BAND is not defined on MPI_FLOAT");
	expect(MPI_Get_accumulate(x, 1, MPI_INT, x + 1, 1, MPI_INT, r,
				  t_disp(w, r, 0), 1, MPI_INT, MPI_MAXLOC, win),
	       MPI_ERR_OP, "MPI_Get_accumulate", "MPI_MAXLOC");
	MPI_OK(MPI_Op_create(user_fn, 1, &op));
	expect(MPI_Accumulate(x, 1, MPI_INT, r, t_disp(w, r, 0), 1, MPI_INT, op,
			      win), MPI_ERR_OP, "MPI_Accumulate",
	       "predefined operations only");
	CHECK(user_op_fn_calls == 0, "the user op was called");
	MPI_OK(MPI_Op_free(&op));
	expect(MPI_Accumulate(x, 2, MPI_INT, r, t_disp(w, r, 0), 1, MPI_DOUBLE,
			      MPI_SUM, win), MPI_ERR_TYPE, "MPI_Accumulate",
	       "same basic type");
	expect(MPI_Put(x, 3, MPI_INT, r, t_disp(w, r, 0), 2, MPI_INT, win),
	       MPI_ERR_TYPE, "MPI_Put", "type signatures differ");
	expect(MPI_Compare_and_swap(&d, &d, &dr, MPI_DOUBLE, r, t_disp(w, r, 0),
				    win), MPI_ERR_TYPE, "MPI_Compare_and_swap",
	       "not MPI_DOUBLE");
	expect(MPI_Fetch_and_op(x, x + 1, vec, r, t_disp(w, r, 0), MPI_SUM, win),
	       MPI_ERR_TYPE, "MPI_Fetch_and_op", "predefined datatype");
	MPI_OK(MPI_Type_contiguous(2, MPI_INT, &loose));
	expect(MPI_Put(x, 1, loose, r, t_disp(w, r, 0), 2, MPI_INT, win),
	       MPI_ERR_TYPE, "MPI_Put", "not committed");
	MPI_OK(MPI_Type_free(&loose));
	expect(MPI_Put(x, -1, MPI_INT, r, t_disp(w, r, 0), 1, MPI_INT, win),
	       MPI_ERR_COUNT, "MPI_Put", "negative");
	expect(MPI_Put(x, 1, MPI_INT, t_size + 3, 0, 1, MPI_INT, win),
	       MPI_ERR_RANK, "MPI_Put", "not in the window");
	MPI_OK(MPI_Type_free(&vec));

	/* Nothing broke: the epoch goes on and ends. */
	ll = 5;
	MPI_OK(MPI_Fetch_and_op(&ll, &llr, MPI_LONG_LONG, r, t_disp(w, r, 0),
				MPI_REPLACE, win));
	MPI_OK(MPI_Put(x, 1, MPI_INT, r, t_disp(w, r, 8), 1, MPI_INT, win));
	MPI_OK(MPI_Win_unlock(r, win));
	cnt = 0;
	(void)cnt;
	MPI_OK(MPI_Barrier(w->comm));
}

int main(int argc, char **argv)
{
	struct t_win w;
	MPI_Win win;
	int f, *mem;

	t_init(&argc, &argv);
	for (f = 0; f < T_FLAVORS; f++) {
		t_win_make(&w, f, 256, 4, MPI_COMM_WORLD);
		errors(&w);
		t_win_free(&w);
	}
	flavor = "creation";
	expect(MPI_Win_allocate(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win),
	       MPI_ERR_SIZE, "MPI_Win_allocate", "negative");
	CHECK(win == MPI_WIN_NULL, "a failed MPI_Win_allocate left a window");
	expect(MPI_Win_create(&f, 4, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
	       MPI_ERR_DISP, "MPI_Win_create", "disp_unit 0");
	expect(MPI_Win_lock_all(0, MPI_WIN_NULL), MPI_ERR_WIN,
	       "MPI_Win_lock_all", "MPI_WIN_NULL");
	if (t_rank == 0)
		printf("rma_errors: ok\n");
	return t_done();
}
