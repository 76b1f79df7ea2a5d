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
 * Completing one from another thread at MPI_THREAD_MULTIPLE takes the
 * lock like any call and then wakes the threads that wait: one may be
 * asleep in the transport (lm_mt_kick).
 *
 * The status setters query_fn uses are here too.
 */
#include <stdlib.h>

#include "lm.h"

struct lm_greq {
	MPI_Grequest_query_function *query;
	MPI_Grequest_free_function *free_fn;
	MPI_Grequest_cancel_function *cancel;
	void *extra;
};

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
	r = lm_req_alloc(LM_REQ_GREQ);
	r->greq = g;
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

int MPI_Grequest_complete(MPI_Request request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Grequest_complete";
	int err;

	lm_check_init(fn);
	if (!request || request->magic != LM_MAGIC_REQ ||
	    request->kind != LM_REQ_GREQ)
		return lm_error(NULL, fn, MPI_ERR_REQUEST,
				"not a generalized request");
	if (request->done)
		return lm_error(NULL, fn, MPI_ERR_REQUEST,
				"the generalized request is complete already");
	if (request->freed) {
		err = greq_free(request);
		return err ? lm_error(NULL, fn, err, "free_fn failed") : 0;
	}
	request->done = 1;
	if (lm.thread_level == MPI_THREAD_MULTIPLE)
		lm_mt_kick();
	return MPI_SUCCESS;
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
		*st = r->status;
	*rp = MPI_REQUEST_NULL;
	ferr = greq_free(r);
	return err ? err : ferr;
}

/* MPI_Request_free: now if complete, else when it completes. */
int lm_greq_release(struct libmsg_request *r)
{
	if (!r->done) {
		r->freed = 1;
		return MPI_SUCCESS;
	}
	return greq_free(r);
}

int lm_greq_cancel(struct libmsg_request *r)
{
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

int MPI_Status_set_cancelled(MPI_Status *status, int flag)
{
	lm_check_init("MPI_Status_set_cancelled");
	if (!status)
		return lm_error(NULL, "MPI_Status_set_cancelled", MPI_ERR_ARG,
				"status is NULL");
	status->libmsg_cancelled = flag != 0;
	return MPI_SUCCESS;
}
