// SPDX-License-Identifier: MIT
/*
 * The MPI_ERROR field of a status (MPI-3.1 section 3.2.5): the calls
 * that return a single status (MPI_Recv, MPI_Sendrecv,
 * MPI_Sendrecv_replace, MPI_Wait, MPI_Test, MPI_Waitany, MPI_Testany,
 * MPI_Request_get_status) return their error and leave MPI_ERROR as
 * the program set it, whether they succeed or fail, for a message, a
 * receive from MPI_PROC_NULL, an inactive or null request, a
 * collective's request and a generalized one; the array calls
 * (MPI_Waitall, Testall, Waitsome, Testsome) set it in each status
 * when one operation failed (MPI_ERR_IN_STATUS).  Each rank sends to
 * the next and receives from the previous (itself at one rank).
 */
#include "test.h"

#define SENTINEL 0x5e5e

static int next, prev;

static void fresh(MPI_Status *st)
{
	memset(st, 0, sizeof(*st));
	st->MPI_ERROR = SENTINEL;
}

#define UNTOUCHED(st, what) \
	CHECK((st).MPI_ERROR == SENTINEL, "%s wrote MPI_ERROR: %d", what, \
	      (st).MPI_ERROR)

static int query_fn(void *extra, MPI_Status *st)
{
	(void)extra;
	MPI_Status_set_elements(st, MPI_BYTE, 0);
	MPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
	(void)extra;
	return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS;
}

/* The calls succeed: MPI_ERROR stays the sentinel. */
static void success(void)
{
	int out[2] = { t_rank, 7 }, in[2], flag, idx, n;
	MPI_Request r[2], p;
	MPI_Status st;

	/* MPI_Recv: the short way (a small message already there) ... */
	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 1, MPI_COMM_WORLD));
	t_barrier();
	fresh(&st);
	MPI_OK(MPI_Recv(in, 2, MPI_INT, prev, 1, MPI_COMM_WORLD, &st));
	UNTOUCHED(st, "MPI_Recv");
	CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 1 && in[0] == prev,
	      "MPI_Recv: source %d tag %d data %d", st.MPI_SOURCE, st.MPI_TAG,
	      in[0]);
	/* ... and the posted one (a receive that waits). */
	MPI_OK(MPI_Isend(out, 2, MPI_INT, next, 2, MPI_COMM_WORLD, &r[0]));
	fresh(&st);
	MPI_OK(MPI_Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD,
			&st));
	UNTOUCHED(st, "MPI_Recv (posted)");
	fresh(&st);
	MPI_OK(MPI_Wait(&r[0], &st));
	UNTOUCHED(st, "MPI_Wait (send)");
	fresh(&st);
	MPI_OK(MPI_Recv(in, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
	UNTOUCHED(st, "MPI_Recv from MPI_PROC_NULL");
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "source %d", st.MPI_SOURCE);

	fresh(&st);
	MPI_OK(MPI_Sendrecv(out, 2, MPI_INT, next, 3, in, 2, MPI_INT, prev, 3,
			    MPI_COMM_WORLD, &st));
	UNTOUCHED(st, "MPI_Sendrecv");
	fresh(&st);
	MPI_OK(MPI_Sendrecv_replace(in, 2, MPI_INT, next, 4, prev, 4,
				    MPI_COMM_WORLD, &st));
	UNTOUCHED(st, "MPI_Sendrecv_replace");

	/* MPI_Wait and MPI_Test on a receive. */
	MPI_OK(MPI_Irecv(in, 2, MPI_INT, prev, 5, MPI_COMM_WORLD, &r[0]));
	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 5, MPI_COMM_WORLD));
	fresh(&st);
	MPI_OK(MPI_Wait(&r[0], &st));
	UNTOUCHED(st, "MPI_Wait");
	CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 5, "MPI_Wait: %d %d",
	      st.MPI_SOURCE, st.MPI_TAG);
	MPI_OK(MPI_Irecv(in, 2, MPI_INT, prev, 6, MPI_COMM_WORLD, &r[0]));
	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 6, MPI_COMM_WORLD));
	flag = 0;
	while (!flag) {
		fresh(&st);
		MPI_OK(MPI_Request_get_status(r[0], &flag, &st));
		UNTOUCHED(st, "MPI_Request_get_status");
	}
	flag = 0;
	while (!flag) {
		fresh(&st);
		MPI_OK(MPI_Test(&r[0], &flag, &st));
		UNTOUCHED(st, "MPI_Test");
	}
	/* A null request: an empty status, MPI_ERROR still the program's. */
	fresh(&st);
	MPI_OK(MPI_Wait(&r[0], &st));
	UNTOUCHED(st, "MPI_Wait on MPI_REQUEST_NULL");
	CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
	      "not empty: %d %d", st.MPI_SOURCE, st.MPI_TAG);
	fresh(&st);
	MPI_OK(MPI_Test(&r[0], &flag, &st));
	UNTOUCHED(st, "MPI_Test on MPI_REQUEST_NULL");

	/* Waitany and Testany: one status too. */
	MPI_OK(MPI_Irecv(in, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &r[0]));
	MPI_OK(MPI_Irecv(in + 1, 1, MPI_INT, prev, 8, MPI_COMM_WORLD, &r[1]));
	MPI_OK(MPI_Send(out, 1, MPI_INT, next, 7, MPI_COMM_WORLD));
	fresh(&st);
	MPI_OK(MPI_Waitany(2, r, &idx, &st));
	UNTOUCHED(st, "MPI_Waitany");
	CHECK(idx == 0, "MPI_Waitany index %d", idx);
	MPI_OK(MPI_Send(out, 1, MPI_INT, next, 8, MPI_COMM_WORLD));
	flag = 0;
	while (!flag) {
		fresh(&st);
		MPI_OK(MPI_Testany(2, r, &idx, &flag, &st));
		UNTOUCHED(st, "MPI_Testany");
	}
	/* Nothing live left: MPI_UNDEFINED and an empty status. */
	fresh(&st);
	MPI_OK(MPI_Waitany(2, r, &idx, &st));
	UNTOUCHED(st, "MPI_Waitany of null requests");
	CHECK(idx == MPI_UNDEFINED, "index %d", idx);

	/* An inactive persistent request. */
	MPI_OK(MPI_Recv_init(in, 2, MPI_INT, prev, 9, MPI_COMM_WORLD, &p));
	fresh(&st);
	MPI_OK(MPI_Wait(&p, &st));
	UNTOUCHED(st, "MPI_Wait on an inactive request");
	MPI_OK(MPI_Start(&p));
	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 9, MPI_COMM_WORLD));
	fresh(&st);
	MPI_OK(MPI_Wait(&p, &st));
	UNTOUCHED(st, "MPI_Wait on a persistent receive");
	MPI_OK(MPI_Request_free(&p));

	/* A collective's request and a generalized one. */
	MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r[0]));
	fresh(&st);
	MPI_OK(MPI_Wait(&r[0], &st));
	UNTOUCHED(st, "MPI_Wait on MPI_Ibarrier");
	MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &r[0]));
	MPI_OK(MPI_Grequest_complete(r[0]));
	fresh(&st);
	MPI_OK(MPI_Wait(&r[0], &st));
	UNTOUCHED(st, "MPI_Wait on a generalized request");

	/* The array calls may set it: on success, MPI_SUCCESS or nothing. */
	MPI_OK(MPI_Irecv(in, 2, MPI_INT, prev, 10, MPI_COMM_WORLD, &r[0]));
	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 10, MPI_COMM_WORLD));
	fresh(&st);
	MPI_OK(MPI_Waitsome(1, r, &n, &idx, &st));
	CHECK(n == 1, "MPI_Waitsome: %d done", n);
	CHECK(st.MPI_ERROR == SENTINEL || st.MPI_ERROR == MPI_SUCCESS,
	      "MPI_Waitsome: MPI_ERROR %d", st.MPI_ERROR);
}

/* The calls fail (a message longer than the buffer): still untouched. */
static void failure(void)
{
	int out[2] = { 1, 2 }, in[2], flag, idx, err;
	MPI_Request r[2];
	MPI_Status st, sts[2];

	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 20, MPI_COMM_WORLD));
	fresh(&st);
	err = MPI_Recv(in, 1, MPI_INT, prev, 20, MPI_COMM_WORLD, &st);
	T_EXPECT(err, MPI_ERR_TRUNCATE, "MPI_Recv of 2 ints into 1");
	UNTOUCHED(st, "a failed MPI_Recv");
	CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 20,
	      "a failed MPI_Recv: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);

	MPI_OK(MPI_Isend(out, 2, MPI_INT, next, 21, MPI_COMM_WORLD, &r[1]));
	fresh(&st);
	err = MPI_Sendrecv(out, 2, MPI_INT, next, 22, in, 1, MPI_INT, prev, 22,
			   MPI_COMM_WORLD, &st);
	T_EXPECT(err, MPI_ERR_TRUNCATE, "MPI_Sendrecv into 1 int");
	UNTOUCHED(st, "a failed MPI_Sendrecv");
	MPI_OK(MPI_Irecv(in, 1, MPI_INT, prev, 21, MPI_COMM_WORLD, &r[0]));
	fresh(&st);
	err = MPI_Wait(&r[0], &st);
	T_EXPECT(err, MPI_ERR_TRUNCATE, "MPI_Wait of a truncated receive");
	UNTOUCHED(st, "a failed MPI_Wait");
	MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));

	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 23, MPI_COMM_WORLD));
	MPI_OK(MPI_Irecv(in, 1, MPI_INT, prev, 23, MPI_COMM_WORLD, &r[0]));
	flag = 0;
	err = MPI_SUCCESS;
	while (!flag && !err) {
		fresh(&st);
		err = MPI_Test(&r[0], &flag, &st);
	}
	T_EXPECT(err, MPI_ERR_TRUNCATE, "MPI_Test of a truncated receive");
	UNTOUCHED(st, "a failed MPI_Test");

	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 24, MPI_COMM_WORLD));
	MPI_OK(MPI_Irecv(in, 1, MPI_INT, prev, 24, MPI_COMM_WORLD, &r[0]));
	r[1] = MPI_REQUEST_NULL;
	fresh(&st);
	err = MPI_Waitany(2, r, &idx, &st);
	T_EXPECT(err, MPI_ERR_TRUNCATE, "MPI_Waitany of a truncated receive");
	UNTOUCHED(st, "a failed MPI_Waitany");

	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 25, MPI_COMM_WORLD));
	MPI_OK(MPI_Irecv(in, 1, MPI_INT, prev, 25, MPI_COMM_WORLD, &r[0]));
	flag = 0;
	err = MPI_SUCCESS;
	while (!flag && !err) {
		fresh(&st);
		err = MPI_Testany(2, r, &idx, &flag, &st);
	}
	T_EXPECT(err, MPI_ERR_TRUNCATE, "MPI_Testany of a truncated receive");
	UNTOUCHED(st, "a failed MPI_Testany");

	/* The array calls: MPI_ERR_IN_STATUS, each status's error set. */
	MPI_OK(MPI_Send(out, 2, MPI_INT, next, 26, MPI_COMM_WORLD));
	MPI_OK(MPI_Send(out, 1, MPI_INT, next, 27, MPI_COMM_WORLD));
	MPI_OK(MPI_Irecv(in, 1, MPI_INT, prev, 26, MPI_COMM_WORLD, &r[0]));
	MPI_OK(MPI_Irecv(in + 1, 1, MPI_INT, prev, 27, MPI_COMM_WORLD, &r[1]));
	fresh(&sts[0]);
	fresh(&sts[1]);
	err = MPI_Waitall(2, r, sts);
	T_EXPECT(err, MPI_ERR_IN_STATUS, "MPI_Waitall with a truncated receive");
	CHECK(sts[0].MPI_ERROR != SENTINEL && sts[0].MPI_ERROR != MPI_SUCCESS,
	      "MPI_Waitall: the failed one's MPI_ERROR %d", sts[0].MPI_ERROR);
	CHECK(sts[1].MPI_ERROR == MPI_SUCCESS,
	      "MPI_Waitall: the good one's MPI_ERROR %d", sts[1].MPI_ERROR);
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	next = (t_rank + 1) % t_size;
	prev = (t_rank + t_size - 1) % t_size;
	success();
	t_barrier();
	failure();
	t_barrier();
	return t_done();
}
