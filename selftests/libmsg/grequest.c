// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan
/*
 * Generalized requests (src/grequest.c), at MPI_THREAD_MULTIPLE:
 *
 *  - complete, then MPI_Wait: query_fn's status (source, tag, count set
 *    with MPI_Status_set_elements, not cancelled), then free_fn, once
 *    each, in that order;
 *  - MPI_Test before and after MPI_Grequest_complete, and
 *    MPI_Request_get_status (query_fn, no free_fn);
 *  - MPI_Request_free before completion (free_fn runs in
 *    MPI_Grequest_complete) and after it (in MPI_Request_free);
 *  - MPI_Cancel passes cancel_fn whether it is complete, and a
 *    query_fn that sets the status cancelled;
 *  - query_fn's error: MPI_Wait returns it, MPI_Waitall returns
 *    MPI_ERR_IN_STATUS with it in the status;
 *  - completed by another thread while the owner blocks in MPI_Wait
 *    (the default wait: spinning, then asleep; run also with
 *    MPICHAN_WAIT=spin and =sleep), and in MPI_Waitany with a receive
 *    that a peer satisfies;
 *  - completed by another thread while the owner holds the library lock
 *    (in MPI_Comm_dup's attribute copy callback, which waits up to 10 s
 *    for MPI_Grequest_complete to return): the completion does not take
 *    the lock, and the owner's MPI_Wait then sees it;
 *  - MPI_Status_set_elements on derived and pair types, and bad
 *    arguments.
 */
#include <pthread.h>

#include "test.h"
#include "flag.h"

struct greq {
	int queries, frees, cancels, last_complete;
	int order;		/* 1: query_fn came before free_fn */
	int err;		/* query_fn returns it */
	int cancelled;		/* query_fn sets the status cancelled */
	int delay_us;		/* completer thread: wait, then complete */
	double done_at;		/* completer thread: MPI_Wtime after it */
	MPI_Request req;
};

static MPI_Datatype pairs;	/* struct { int; double } x 2 */

static int query(void *extra, MPI_Status *st)
{
	struct greq *g = extra;

	g->queries++;
	st->MPI_SOURCE = t_rank;
	st->MPI_TAG = 42;
	MPI_OK(MPI_Status_set_elements(st, MPI_INT, 3));
	MPI_OK(MPI_Status_set_cancelled(st, g->cancelled));
	return g->err;
}

static int release(void *extra)
{
	struct greq *g = extra;

	g->frees++;
	g->order = g->queries > 0;
	return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
	struct greq *g = extra;

	g->cancels++;
	g->last_complete = complete;
	return MPI_SUCCESS;
}

static void start(struct greq *g)
{
	memset(g, 0, sizeof(*g));
	MPI_OK(MPI_Grequest_start(query, release, cancel, g, &g->req));
	CHECK(g->req != MPI_REQUEST_NULL, "no request");
}

static void check_status(const MPI_Status *st)
{
	int n, flag;

	CHECK(st->MPI_SOURCE == t_rank && st->MPI_TAG == 42,
	      "status source %d tag %d", st->MPI_SOURCE, st->MPI_TAG);
	MPI_OK(MPI_Get_count(st, MPI_INT, &n));
	CHECK(n == 3, "count %d", n);
	MPI_OK(MPI_Get_elements(st, MPI_INT, &n));
	CHECK(n == 3, "elements %d", n);
	MPI_OK(MPI_Test_cancelled(st, &flag));
	CHECK(!flag, "cancelled");
}

static void wait_and_test(void)
{
	struct greq g;
	MPI_Status st;
	int flag;

	start(&g);
	MPI_OK(MPI_Grequest_complete(g.req));
	CHECK(!g.queries && !g.frees, "callbacks before Wait");
	MPI_OK(MPI_Wait(&g.req, &st));
	CHECK(g.req == MPI_REQUEST_NULL, "Wait left the request");
	CHECK(g.queries == 1 && g.frees == 1 && g.order,
	      "queries %d frees %d order %d", g.queries, g.frees, g.order);
	check_status(&st);

	start(&g);
	MPI_OK(MPI_Test(&g.req, &flag, &st));
	CHECK(!flag && !g.queries, "Test of an incomplete one: flag %d", flag);
	MPI_OK(MPI_Request_get_status(g.req, &flag, &st));
	CHECK(!flag && !g.queries, "get_status before completion");
	MPI_OK(MPI_Grequest_complete(g.req));
	MPI_OK(MPI_Request_get_status(g.req, &flag, &st));
	CHECK(flag && g.queries == 1 && !g.frees, "get_status: %d %d %d",
	      flag, g.queries, g.frees);
	check_status(&st);
	MPI_OK(MPI_Test(&g.req, &flag, &st));
	CHECK(flag && g.req == MPI_REQUEST_NULL && g.queries == 2 &&
	      g.frees == 1, "Test after completion");
}

static void free_and_cancel(void)
{
	struct greq g;
	MPI_Request keep;
	MPI_Status st;
	int flag;

	start(&g);
	keep = g.req;
	MPI_OK(MPI_Request_free(&g.req));
	CHECK(g.req == MPI_REQUEST_NULL && !g.frees, "freed early");
	MPI_OK(MPI_Grequest_complete(keep));
	CHECK(g.frees == 1 && !g.queries, "free_fn in complete: %d %d",
	      g.frees, g.queries);

	start(&g);
	MPI_OK(MPI_Grequest_complete(g.req));
	MPI_OK(MPI_Request_free(&g.req));
	CHECK(g.frees == 1 && !g.queries, "free_fn in Request_free");

	start(&g);
	MPI_OK(MPI_Cancel(&g.req));
	CHECK(g.cancels == 1 && g.last_complete == 0, "cancel before");
	g.cancelled = 1;
	MPI_OK(MPI_Grequest_complete(g.req));
	MPI_OK(MPI_Cancel(&g.req));
	CHECK(g.cancels == 2 && g.last_complete == 1, "cancel after");
	MPI_OK(MPI_Wait(&g.req, &st));
	MPI_OK(MPI_Test_cancelled(&st, &flag));
	CHECK(flag, "query_fn set it cancelled");
}

static void query_errors(void)
{
	struct greq g[2];
	MPI_Request r[2];
	MPI_Status st[2];
	int cls;

	start(&g[0]);
	g[0].err = MPI_ERR_OTHER;
	MPI_OK(MPI_Grequest_complete(g[0].req));
	T_EXPECT(MPI_Wait(&g[0].req, &st[0]), MPI_ERR_OTHER, "Wait, query fails");
	CHECK(g[0].frees == 1, "free_fn after a failed query");

	start(&g[0]);
	start(&g[1]);
	g[1].err = MPI_ERR_OTHER;
	r[0] = g[0].req;
	r[1] = g[1].req;
	MPI_OK(MPI_Grequest_complete(r[0]));
	MPI_OK(MPI_Grequest_complete(r[1]));
	T_EXPECT(MPI_Waitall(2, r, st), MPI_ERR_IN_STATUS, "Waitall");
	MPI_OK(MPI_Error_class(st[1].MPI_ERROR, &cls));
	CHECK(st[0].MPI_ERROR == MPI_SUCCESS && cls == MPI_ERR_OTHER,
	      "statuses' errors %d %d", st[0].MPI_ERROR, st[1].MPI_ERROR);
	CHECK(g[0].frees == 1 && g[1].frees == 1, "both freed");
}

static void *completer(void *arg)
{
	struct greq *g = arg;

	usleep((useconds_t)g->delay_us);
	MPI_OK(MPI_Grequest_complete(g->req));
	g->done_at = MPI_Wtime();
	return NULL;
}

/* The owner blocks; another thread completes. */
static void other_thread(void)
{
	struct greq g;
	MPI_Request r[2];
	MPI_Status st;
	pthread_t th;
	int idx, v = 0, seen = 0, peer = t_partner();
	double woke;

	start(&g);
	g.delay_us = 50000;
	pthread_create(&th, NULL, completer, &g);
	MPI_OK(MPI_Wait(&g.req, &st));
	woke = MPI_Wtime();
	pthread_join(th, NULL);
	CHECK(g.queries == 1 && g.frees == 1, "Wait woke for the completer");
	/*
	 * Woken by the completion, not by the end of a sleep (1 s on the
	 * device): a lost wake-up shows as most of a second.
	 */
	CHECK(woke - g.done_at < 0.75, "Wait returned %.3f s after completion",
	      woke - g.done_at);
	check_status(&st);

	/* Waitany over it and a receive a peer satisfies: both, once. */
	start(&g);
	g.delay_us = 20000;
	r[0] = g.req;
	MPI_OK(MPI_Irecv(&v, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[1]));
	pthread_create(&th, NULL, completer, &g);
	MPI_OK(MPI_Send(&t_rank, 1, MPI_INT, peer, 7, MPI_COMM_WORLD));
	MPI_OK(MPI_Waitany(2, r, &idx, &st));
	seen |= 1 << idx;
	MPI_OK(MPI_Waitany(2, r, &idx, &st));
	seen |= 1 << idx;
	CHECK(seen == 3 && v == peer && g.frees == 1 &&
	      r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL,
	      "Waitany: seen %#x value %d frees %d", seen, v, g.frees);
	MPI_OK(MPI_Waitany(2, r, &idx, &st));
	CHECK(idx == MPI_UNDEFINED, "Waitany of none: %d", idx);
	pthread_join(th, NULL);
}

static struct greq held;	/* completed while the owner holds the lock */
static struct held_lock hold;

static void *complete_when_told(void *arg)
{
	(void)arg;
	if (!wait_for(&hold.go))
		return NULL;
	MPI_OK(MPI_Grequest_complete(held.req));
	raise_flag(&hold.done);
	return NULL;
}

static void while_locked(void)
{
	int keyval;
	MPI_Status st;
	MPI_Comm d;
	pthread_t th;

	start(&held);
	MPI_OK(MPI_Comm_create_keyval(copy_holds_lock, MPI_COMM_NULL_DELETE_FN,
				      &keyval, &hold));
	MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL));
	pthread_create(&th, NULL, complete_when_told, NULL);
	MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &d));
	pthread_join(th, NULL);
	CHECK(hold.in_time,
	      "MPI_Grequest_complete waited for the lock the owner held");
	MPI_OK(MPI_Wait(&held.req, &st));
	CHECK(held.queries == 1 && held.frees == 1,
	      "after a completion queued: queries %d frees %d",
	      held.queries, held.frees);
	check_status(&st);
	MPI_OK(MPI_Comm_free(&d));
	MPI_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, keyval));
	MPI_OK(MPI_Comm_free_keyval(&keyval));
}

static void set_elements(void)
{
	MPI_Status st;
	MPI_Count n;
	int blen[2] = { 1, 1 }, c;
	MPI_Aint disp[2] = { 0, 8 };
	MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, one;

	MPI_OK(MPI_Type_create_struct(2, blen, disp, types, &one));
	MPI_OK(MPI_Type_contiguous(2, one, &pairs));
	MPI_OK(MPI_Type_commit(&pairs));
	MPI_OK(MPI_Type_free(&one));
	/* 3 basic elements of pairs: int, double, int = 16 bytes. */
	MPI_OK(MPI_Status_set_elements_x(&st, pairs, 3));
	MPI_OK(MPI_Get_elements_x(&st, pairs, &n));
	CHECK(n == 3, "elements of pairs %lld", (long long)n);
	MPI_OK(MPI_Get_count(&st, pairs, &c));
	CHECK(c == MPI_UNDEFINED, "count of pairs %d", c);
	MPI_OK(MPI_Status_set_elements(&st, pairs, 8));
	MPI_OK(MPI_Get_count(&st, pairs, &c));
	CHECK(c == 2, "count of 8 elements of pairs %d", c);
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &c));
	CHECK(c == 48, "bytes of 8 elements of pairs %d", c);
	/* MPI_DOUBLE_INT is a pair: 3 elements are one and a half. */
	MPI_OK(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 4));
	MPI_OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &c));
	CHECK(c == 4, "elements of double_int %d", c);
	T_EXPECT(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 3), MPI_ERR_ARG,
		 "half a pair");
	T_EXPECT(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT,
		 "negative count");
	T_EXPECT(MPI_Status_set_elements(NULL, MPI_INT, 1), MPI_ERR_ARG,
		 "NULL status");
	T_EXPECT(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1),
		 MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
	T_EXPECT(MPI_Status_set_cancelled(NULL, 1), MPI_ERR_ARG, "NULL status");
	MPI_OK(MPI_Type_free(&pairs));
}

static void bad_arguments(void)
{
	MPI_Request r;
	int v = 0;

	T_EXPECT(MPI_Grequest_start(NULL, release, cancel, NULL, &r),
		 MPI_ERR_ARG, "query_fn NULL");
	T_EXPECT(MPI_Grequest_start(query, release, cancel, NULL, NULL),
		 MPI_ERR_ARG, "request NULL");
	T_EXPECT(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST,
		 "complete MPI_REQUEST_NULL");
	MPI_OK(MPI_Irecv(&v, 1, MPI_INT, t_rank, 9, MPI_COMM_WORLD, &r));
	T_EXPECT(MPI_Grequest_complete(r), MPI_ERR_REQUEST,
		 "complete a receive");
	MPI_OK(MPI_Send(&v, 1, MPI_INT, t_rank, 9, MPI_COMM_WORLD));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	{
		struct greq g;

		start(&g);
		MPI_OK(MPI_Grequest_complete(g.req));
		T_EXPECT(MPI_Grequest_complete(g.req), MPI_ERR_REQUEST,
			 "complete twice");
		MPI_OK(MPI_Wait(&g.req, MPI_STATUS_IGNORE));
	}
}

int main(int argc, char **argv)
{
	int provided;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	wait_and_test();
	free_and_cancel();
	query_errors();
	other_thread();
	while_locked();
	set_elements();
	bad_arguments();
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	return t_done();
}
