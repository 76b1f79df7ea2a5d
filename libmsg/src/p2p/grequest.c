// SPDX-License-Identifier: MIT
/*
 * Generalized requests (MPI-3.1 section 12.2): a request for an
 * operation the program runs itself, in any thread, and ends with
 * MPI_Grequest_complete.  The Wait and Test families treat it like any
 * other request; once it is complete the call that reports it asks
 * query_fn for its status, then calls free_fn and releases it.  A
 * request freed (MPI_Request_free) before it is complete is released,
 * free_fn first, by MPI_Grequest_complete.  MPI_Cancel passes cancel_fn
 * whether it is complete.  The callbacks run under the library lock,
 * and may make MPI calls (the lock nests).
 *
 * At MPI_THREAD_MULTIPLE a request is completed from another thread,
 * the program's own worker, and that thread does not take the library
 * lock: it puts the request on a wait-free queue (liburcu's wfcqueue)
 * and wakes this rank; whoever holds the lock next takes the queue off
 * (lm_greq_drain, from every poll and from every call about the
 * request) and marks them complete.  So a worker never waits for a
 * blocked call's poll or a long callback, and never turns the
 * initialising thread's bias off (thread.c): only calls that take the
 * lock do that.  A request already freed (MPI_Request_free) goes the
 * locked way, since its free_fn runs in MPI_Grequest_complete; one
 * freed while its completion is being queued has its free_fn run at the
 * next poll instead.  Bad handles, and a second completion, go the
 * locked way too, which reports them.
 *
 * The status setters query_fn uses are here too.
 */
#if !defined(__SANITIZE_THREAD__)
#define _LGPL_SOURCE	/* wfcqueue inline; see thread.c */
#endif
#include <stdlib.h>
#include <urcu/wfcqueue.h>

#include "p2p/p2p.h"

struct lm_greq {
	MPI_Grequest_query_function *query;
	MPI_Grequest_free_function *free_fn;
	MPI_Grequest_cancel_function *cancel;
	void *extra;
	struct libmsg_request *req;
	int posted;		/* MPI_Grequest_complete was called */
	struct cds_wfcq_node node;	/* on the completed queue */
};

/* Completed without the lock, not yet marked (as __cds_wfcq_init). */
static struct __cds_wfcq_head completed_head;
static struct cds_wfcq_tail completed_tail = { &completed_head.node };

int MPI_Grequest_start(MPI_Grequest_query_function *query_fn,
		       MPI_Grequest_free_function *free_fn,
		       MPI_Grequest_cancel_function *cancel_fn,
		       void *extra_state, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Grequest_start";
	struct libmsg_request *r;
	struct lm_greq *g;

	lm_check_init(fn);
	if (!query_fn || !free_fn || !cancel_fn)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"query_fn, free_fn or cancel_fn is NULL");
	if (!request)
		return lm_error(NULL, fn, MPI_ERR_ARG, "request is NULL");
	g = malloc(sizeof(*g));
	if (!g)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM,
				"no memory for a generalized request");
	g->query = query_fn;
	g->free_fn = free_fn;
	g->cancel = cancel_fn;
	g->extra = extra_state;
	g->posted = 0;
	r = lm_req_new(LM_REQ_GREQ);
	if (!r) {
		free(g);
		return lm_error(NULL, fn, MPI_ERR_NO_MEM,
				"no memory for a generalized request");
	}
	r->greq = g;
	g->req = r;
	*request = r;
	return MPI_SUCCESS;
}

/* The user's free_fn, then the request: returns free_fn's error. */
static int greq_free(struct libmsg_request *r)
{
	int err = r->greq->free_fn(r->greq->extra);

	lm_req_release(r);
	return err;
}

/* r's completion, with the lock held: free it, or mark it done. */
static int greq_done(struct libmsg_request *r)
{
	if (__atomic_load_n(&r->freed, __ATOMIC_ACQUIRE))
		return greq_free(r);
	r->done = 1;
	return MPI_SUCCESS;
}

/*
 * Without the lock: queue r's completion (1), or leave the call to the
 * locked way (0).
 */
static int greq_post(struct libmsg_request *r)
{
	struct lm_greq *g;

	if (!lm.initialized || lm.finalized || !r ||
	    r->magic != LM_MAGIC_REQ || r->kind != LM_REQ_GREQ ||
	    __atomic_load_n(&r->freed, __ATOMIC_ACQUIRE))
		return 0;
	g = r->greq;
	if (__atomic_exchange_n(&g->posted, 1, __ATOMIC_ACQ_REL))
		return 0;
	lm_tsan_release(g);
	cds_wfcq_node_init(&g->node);
	cds_wfcq_enqueue(&completed_head, &completed_tail, &g->node);
	/*
	 * A thread may be asleep in the transport: the device keeps a WAKE
	 * that comes before its WAIT; the fallback's sleeper naps 2 ms at
	 * most at this level (thread.c).
	 */
	lm.job.t->wake(&lm.job, lm.job.rank);
	return 1;
}

/* The lock is held: mark what was completed without it.  1 if any. */
int lm_greq_drain(void)
{
	struct cds_wfcq_node *n;
	struct lm_greq *g;
	int did = 0;

	if (cds_wfcq_empty(&completed_head, &completed_tail))
		return 0;
	while ((n = __cds_wfcq_dequeue_blocking(&completed_head,
						&completed_tail))) {
		g = caa_container_of(n, struct lm_greq, node);
		lm_tsan_acquire(g);
		greq_done(g->req);
		did = 1;
	}
	return did;
}

static int greq_complete_locked(MPI_Request request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Grequest_complete";
	int err;

	lm_check_init(fn);
	if (!request || request->magic != LM_MAGIC_REQ ||
	    request->kind != LM_REQ_GREQ)
		return lm_error(NULL, fn, MPI_ERR_REQUEST,
				"not a generalized request");
	lm_greq_drain();
	if (request->done ||
	    __atomic_exchange_n(&request->greq->posted, 1, __ATOMIC_ACQ_REL))
		return lm_error(NULL, fn, MPI_ERR_REQUEST,
				"the generalized request is complete already");
	err = greq_done(request);
	if (err)
		return lm_error(NULL, fn, err, "free_fn failed");
	if (lm.thread_level == MPI_THREAD_MULTIPLE)
		lm_mt_kick();
	return MPI_SUCCESS;
}

int MPI_Grequest_complete(MPI_Request request)
{
	if (lm.thread_level == MPI_THREAD_MULTIPLE && greq_post(request))
		return MPI_SUCCESS;
	return greq_complete_locked(request);
}

/* query_fn fills the request's status; its error is the status's. */
int lm_greq_query(struct libmsg_request *r)
{
	int err = r->greq->query(r->greq->extra, &r->status);

	r->status.MPI_ERROR = err;
	return err;
}

/* A Wait or Test reports a complete one: status, free_fn, release. */
int lm_greq_finish(MPI_Request *rp, MPI_Status *st)
{
	struct libmsg_request *r = *rp;
	int err = lm_greq_query(r), ferr;

	if (st)
		lm_status_out(st, &r->status);
	*rp = MPI_REQUEST_NULL;
	ferr = greq_free(r);
	return err ? err : ferr;
}

/* MPI_Request_free: now if complete, else when it completes. */
int lm_greq_release(struct libmsg_request *r)
{
	lm_greq_drain();
	if (!r->done) {
		__atomic_store_n(&r->freed, 1, __ATOMIC_RELEASE);
		return MPI_SUCCESS;
	}
	return greq_free(r);
}

int lm_greq_cancel(struct libmsg_request *r)
{
	lm_greq_drain();
	return r->greq->cancel(r->greq->extra, r->done);
}

/* ---- What query_fn sets ------------------------------------------------- */

int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
			      MPI_Count count)
{
	LM_GUARD();
	static const char fn[] = "MPI_Status_set_elements";
	int64_t bytes;

	lm_check_init(fn);
	if (!status)
		return lm_error(NULL, fn, MPI_ERR_ARG, "status is NULL");
	if (lm_check_datatype(datatype))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(datatype));
	if (count < 0)
		return lm_error(NULL, fn, MPI_ERR_COUNT, "count %lld is negative",
				(long long)count);
	bytes = lm_dt_bytes_of_elements(datatype, (uint64_t)count);
	if (bytes < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"no message holds exactly %lld basic elements of %s",
				(long long)count, datatype->name);
	status->libmsg_count = bytes;
	return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype,
			    int count)
{
	return MPI_Status_set_elements_x(status, datatype, count);
}

int MPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype,
			      MPI_Count count)
{
	return MPI_Status_set_elements_x(status, datatype, count);
}

int MPI_Status_set_cancelled(MPI_Status *status, int flag)
{
	lm_check_init("MPI_Status_set_cancelled");
	if (!status)
		return lm_error(NULL, "MPI_Status_set_cancelled", MPI_ERR_ARG,
				"status is NULL");
	status->libmsg_cancelled = flag != 0;
	return MPI_SUCCESS;
}
