// SPDX-License-Identifier: MIT
/*
 * The MPI_ERROR field of a status (MPI-3.1 section 3.2.5): calls that
 * complete one operation (Recv, Wait, Test, Waitany, Testany, Probe,
 * Iprobe, Mprobe, Improbe, Mrecv, Sendrecv, Sendrecv_replace,
 * Request_get_status, a receive from MPI_PROC_NULL, a null request's
 * empty status) never write it, failed or not: they return the error.
 * The calls that complete several (Waitall, Testall, Waitsome,
 * Testsome) write it in every status they return only when they return
 * MPI_ERR_IN_STATUS, MPI_SUCCESS for those that went well.  Source,
 * tag and count are right throughout; eager and rendezvous messages
 * from the partner (rank ^ 1, or itself).
 */
#include "test.h"

#define MARK	-4242		/* what MPI_ERROR holds before each call */
#define BIG	(200 * 1000)

static unsigned char sb[4][BIG], rb[4][BIG];

static void mark(MPI_Status *st, int n)
{
	int i;

	for (i = 0; i < n; i++)
		st[i].MPI_ERROR = MARK;
}

/* Status st of a message of n bytes with tag from the partner. */
static void expect(const MPI_Status *st, int tag, int n, const char *what)
{
	int cnt = -1;

	MPI_OK(MPI_Get_count(st, MPI_BYTE, &cnt));
	CHECK(st->MPI_SOURCE == t_partner() && st->MPI_TAG == tag && cnt == n,
	      "%s: source %d tag %d count %d, want %d/%d/%d", what,
	      st->MPI_SOURCE, st->MPI_TAG, cnt, t_partner(), tag, n);
	CHECK(st->MPI_ERROR == MARK, "%s wrote MPI_ERROR (%d)", what,
	      st->MPI_ERROR);
}

/* The partner sends k messages of n bytes with tags tag, tag + 1, ... */
static void post_sends(MPI_Request *r, int k, int tag, int n)
{
	int i;

	for (i = 0; i < k; i++) {
		t_fill(sb[i], (size_t)n, (unsigned)(tag + i));
		MPI_OK(MPI_Isend(sb[i], n, MPI_BYTE, t_partner(), tag + i,
				 MPI_COMM_WORLD, &r[i]));
	}
}

static void single(int n)
{
	int p = t_partner(), flag, idx, c;
	MPI_Request s[4], r[4];
	MPI_Message msg;
	MPI_Status st;

	post_sends(s, 4, 10, n);
	mark(&st, 1);
	MPI_OK(MPI_Probe(p, 10, MPI_COMM_WORLD, &st));
	expect(&st, 10, n, "MPI_Probe");
	for (flag = 0; !flag;) {
		mark(&st, 1);
		MPI_OK(MPI_Iprobe(p, 10, MPI_COMM_WORLD, &flag, &st));
	}
	expect(&st, 10, n, "MPI_Iprobe");
	mark(&st, 1);
	MPI_OK(MPI_Recv(rb[0], BIG, MPI_BYTE, p, 10, MPI_COMM_WORLD, &st));
	expect(&st, 10, n, "MPI_Recv");
	CHECK(!t_bad(rb[0], (size_t)n, 10), "MPI_Recv: payload");

	MPI_OK(MPI_Irecv(rb[1], BIG, MPI_BYTE, p, 11, MPI_COMM_WORLD, &r[0]));
	mark(&st, 1);
	MPI_OK(MPI_Wait(&r[0], &st));
	expect(&st, 11, n, "MPI_Wait");
	MPI_OK(MPI_Irecv(rb[2], BIG, MPI_BYTE, p, 12, MPI_COMM_WORLD, &r[0]));
	for (flag = 0; !flag;) {
		mark(&st, 1);
		MPI_OK(MPI_Test(&r[0], &flag, &st));
	}
	expect(&st, 12, n, "MPI_Test");
	mark(&st, 1);
	MPI_OK(MPI_Mprobe(p, 13, MPI_COMM_WORLD, &msg, &st));
	expect(&st, 13, n, "MPI_Mprobe");
	mark(&st, 1);
	MPI_OK(MPI_Mrecv(rb[3], BIG, MPI_BYTE, &msg, &st));
	expect(&st, 13, n, "MPI_Mrecv");
	MPI_OK(MPI_Waitall(4, s, MPI_STATUSES_IGNORE));

	post_sends(s, 2, 20, n);
	MPI_OK(MPI_Irecv(rb[0], BIG, MPI_BYTE, p, 20, MPI_COMM_WORLD, &r[0]));
	r[1] = MPI_REQUEST_NULL;
	mark(&st, 1);
	MPI_OK(MPI_Waitany(2, r, &idx, &st));
	CHECK(idx == 0, "MPI_Waitany: index %d", idx);
	expect(&st, 20, n, "MPI_Waitany");
	MPI_OK(MPI_Irecv(rb[1], BIG, MPI_BYTE, p, 21, MPI_COMM_WORLD, &r[1]));
	for (flag = 0; !flag;) {
		mark(&st, 1);
		MPI_OK(MPI_Testany(2, r, &idx, &flag, &st));
	}
	CHECK(idx == 1, "MPI_Testany: index %d", idx);
	expect(&st, 21, n, "MPI_Testany");
	MPI_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));

	/* Request_get_status: the status, and the request stays. */
	post_sends(s, 1, 30, n);
	MPI_OK(MPI_Irecv(rb[0], BIG, MPI_BYTE, p, 30, MPI_COMM_WORLD, &r[0]));
	for (flag = 0; !flag;) {
		mark(&st, 1);
		MPI_OK(MPI_Request_get_status(r[0], &flag, &st));
	}
	expect(&st, 30, n, "MPI_Request_get_status");
	MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&s[0], MPI_STATUS_IGNORE));

	mark(&st, 1);
	MPI_OK(MPI_Sendrecv(sb[0], n, MPI_BYTE, p, 40, rb[0], BIG, MPI_BYTE, p,
			    40, MPI_COMM_WORLD, &st));
	expect(&st, 40, n, "MPI_Sendrecv");
	memcpy(rb[1], sb[0], (size_t)n);
	mark(&st, 1);
	MPI_OK(MPI_Sendrecv_replace(rb[1], n, MPI_BYTE, p, 41, p, 41,
				    MPI_COMM_WORLD, &st));
	expect(&st, 41, n, "MPI_Sendrecv_replace");

	/* MPI_PROC_NULL, and the empty status of a null request. */
	mark(&st, 1);
	MPI_OK(MPI_Recv(rb[0], 1, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
			&st));
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &c));
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
	      c == 0 && st.MPI_ERROR == MARK,
	      "receive from MPI_PROC_NULL: %d/%d/%d, error %d", st.MPI_SOURCE,
	      st.MPI_TAG, c, st.MPI_ERROR);
	r[0] = MPI_REQUEST_NULL;
	mark(&st, 1);
	MPI_OK(MPI_Wait(&r[0], &st));
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &c));
	CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG &&
	      c == 0 && st.MPI_ERROR == MARK,
	      "MPI_Wait of MPI_REQUEST_NULL: %d/%d/%d, error %d",
	      st.MPI_SOURCE, st.MPI_TAG, c, st.MPI_ERROR);
	/* A collective's request. */
	MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r[0]));
	mark(&st, 1);
	MPI_OK(MPI_Wait(&r[0], &st));
	CHECK(st.MPI_ERROR == MARK, "MPI_Wait of MPI_Ibarrier wrote MPI_ERROR");
}

/* Failed single completions return the error and leave MPI_ERROR. */
static void single_failed(int n)
{
	int p = t_partner(), err, cls, flag;
	MPI_Request s[2], r;
	MPI_Status st;

	post_sends(s, 2, 50, n);
	mark(&st, 1);
	err = MPI_Recv(rb[0], n / 2, MPI_BYTE, p, 50, MPI_COMM_WORLD, &st);
	MPI_OK(MPI_Error_class(err, &cls));
	CHECK(cls == MPI_ERR_TRUNCATE, "MPI_Recv truncated: class %d", cls);
	CHECK(st.MPI_ERROR == MARK, "MPI_Recv truncated wrote MPI_ERROR (%d)",
	      st.MPI_ERROR);
	MPI_OK(MPI_Irecv(rb[1], n / 2, MPI_BYTE, p, 51, MPI_COMM_WORLD, &r));
	for (flag = 0; !flag;) {
		mark(&st, 1);
		err = MPI_Test(&r, &flag, &st);
		CHECK(flag || err == MPI_SUCCESS, "MPI_Test failed, not done");
	}
	MPI_OK(MPI_Error_class(err, &cls));
	CHECK(cls == MPI_ERR_TRUNCATE && st.MPI_ERROR == MARK,
	      "MPI_Test truncated: class %d, MPI_ERROR %d", cls, st.MPI_ERROR);
	MPI_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
}

/* Waitall, Testall, Waitsome, Testsome. */
static void many(int n)
{
	int p = t_partner(), err, cls, flag, out, idx[3], i;
	MPI_Request s[3], r[3];
	MPI_Status st[3];

	/* All well: MPI_ERROR untouched. */
	post_sends(s, 3, 60, n);
	for (i = 0; i < 3; i++)
		MPI_OK(MPI_Irecv(rb[i], BIG, MPI_BYTE, p, 60 + i,
				 MPI_COMM_WORLD, &r[i]));
	mark(st, 3);
	MPI_OK(MPI_Waitall(3, r, st));
	for (i = 0; i < 3; i++)
		expect(&st[i], 60 + i, n, "MPI_Waitall");
	MPI_OK(MPI_Waitall(3, s, MPI_STATUSES_IGNORE));
	post_sends(s, 3, 63, n);
	for (i = 0; i < 3; i++)
		MPI_OK(MPI_Irecv(rb[i], BIG, MPI_BYTE, p, 63 + i,
				 MPI_COMM_WORLD, &r[i]));
	for (flag = 0; !flag;) {
		mark(st, 3);
		MPI_OK(MPI_Testall(3, r, &flag, st));
	}
	for (i = 0; i < 3; i++)
		expect(&st[i], 63 + i, n, "MPI_Testall");
	MPI_OK(MPI_Waitall(3, s, MPI_STATUSES_IGNORE));
	post_sends(s, 1, 66, n);
	MPI_OK(MPI_Irecv(rb[0], BIG, MPI_BYTE, p, 66, MPI_COMM_WORLD, &r[0]));
	mark(st, 3);
	MPI_OK(MPI_Waitsome(1, r, &out, idx, st));
	CHECK(out == 1 && idx[0] == 0, "MPI_Waitsome: %d done", out);
	expect(&st[0], 66, n, "MPI_Waitsome");
	MPI_OK(MPI_Wait(&s[0], MPI_STATUS_IGNORE));
	post_sends(s, 1, 67, n);
	MPI_OK(MPI_Irecv(rb[0], BIG, MPI_BYTE, p, 67, MPI_COMM_WORLD, &r[0]));
	for (out = 0; !out;) {
		mark(st, 3);
		MPI_OK(MPI_Testsome(1, r, &out, idx, st));
	}
	CHECK(out == 1 && idx[0] == 0, "MPI_Testsome: %d done", out);
	expect(&st[0], 67, n, "MPI_Testsome");
	MPI_OK(MPI_Wait(&s[0], MPI_STATUS_IGNORE));

	/*
	 * One truncated, one fine, one null: MPI_ERR_IN_STATUS and every
	 * status's MPI_ERROR written (MPI_SUCCESS for the two others).
	 */
	post_sends(s, 2, 70, n);
	MPI_OK(MPI_Irecv(rb[0], n / 2, MPI_BYTE, p, 70, MPI_COMM_WORLD, &r[0]));
	MPI_OK(MPI_Irecv(rb[1], BIG, MPI_BYTE, p, 71, MPI_COMM_WORLD, &r[1]));
	r[2] = MPI_REQUEST_NULL;
	mark(st, 3);
	err = MPI_Waitall(3, r, st);
	CHECK(err == MPI_ERR_IN_STATUS, "MPI_Waitall with a truncation: %d",
	      err);
	MPI_OK(MPI_Error_class(st[0].MPI_ERROR, &cls));
	CHECK(cls == MPI_ERR_TRUNCATE && st[1].MPI_ERROR == MPI_SUCCESS &&
	      st[2].MPI_ERROR == MPI_SUCCESS,
	      "MPI_Waitall statuses' errors %d %d %d", st[0].MPI_ERROR,
	      st[1].MPI_ERROR, st[2].MPI_ERROR);
	MPI_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
	post_sends(s, 2, 72, n);
	MPI_OK(MPI_Irecv(rb[0], BIG, MPI_BYTE, p, 72, MPI_COMM_WORLD, &r[0]));
	MPI_OK(MPI_Irecv(rb[1], n / 2, MPI_BYTE, p, 73, MPI_COMM_WORLD, &r[1]));
	MPI_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
	/* Both arrived (the sends are over), so both are done here. */
	for (flag = 0; !flag;)
		MPI_OK(MPI_Request_get_status(r[1], &flag, MPI_STATUS_IGNORE));
	for (flag = 0; !flag;)
		MPI_OK(MPI_Request_get_status(r[0], &flag, MPI_STATUS_IGNORE));
	mark(st, 3);
	err = MPI_Waitsome(2, r, &out, idx, st);
	CHECK(err == MPI_ERR_IN_STATUS && out == 2,
	      "MPI_Waitsome with a truncation: %d, %d done", err, out);
	for (i = 0; i < 2; i++) {
		MPI_OK(MPI_Error_class(st[i].MPI_ERROR, &cls));
		CHECK(cls == (idx[i] == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS),
		      "MPI_Waitsome status %d (request %d): class %d", i,
		      idx[i], cls);
	}
	CHECK(st[2].MPI_ERROR == MARK, "MPI_Waitsome wrote a status past %d",
	      out);
}

int main(int argc, char **argv)
{
	static const int sizes[] = { 8, 3000, BIG };
	int i;

	t_init(&argc, &argv);
	for (i = 0; i < 3; i++) {
		single(sizes[i]);
		single_failed(sizes[i]);
		many(sizes[i]);
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	}
	return t_done();
}
