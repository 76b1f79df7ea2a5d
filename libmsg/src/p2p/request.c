// SPDX-License-Identifier: MIT
/*
 * Requests and their completion: the Wait and Test families, freeing,
 * cancelling, and the status of a finished operation.
 *
 * A request is done when its operation is over (the progress engine or
 * matching set its status).  A non-persistent request is released when
 * Wait/Test report it; a persistent one becomes inactive until Start.
 * A request the user freed while active is released on completion.
 */

#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

static void status_empty(MPI_Status *st)
{
	st->MPI_SOURCE = MPI_ANY_SOURCE;
	st->MPI_TAG = MPI_ANY_TAG;
	st->MPI_ERROR = MPI_SUCCESS;
	st->libmsg_cancelled = 0;
	st->libmsg_count = 0;
}

void lm_status_out(MPI_Status *st, const MPI_Status *src)
{
	st->MPI_SOURCE = src->MPI_SOURCE;
	st->MPI_TAG = src->MPI_TAG;
	st->libmsg_cancelled = src->libmsg_cancelled;
	st->libmsg_count = src->libmsg_count;
}

/* An empty status for a call that returns one: MPI_ERROR left alone. */
static void status_empty_out(MPI_Status *st)
{
	MPI_Status e;

	status_empty(&e);
	lm_status_out(st, &e);
}

void lm_req_init(struct libmsg_request *req, int kind)
{
	memset(req, 0, sizeof(*req));
	req->magic = LM_MAGIC_REQ;
	req->kind = (uint8_t)kind;
	req->active = 1;
	CDS_INIT_LIST_HEAD(&req->link);
	status_empty(&req->status);
}

/* A new request, or NULL out of memory: the caller reports it. */
struct libmsg_request *lm_req_new(int kind)
{
	struct libmsg_request *req = malloc(sizeof(*req));

	if (req)
		lm_req_init(req, kind);
	return req;
}

/* lm_req_new failed in fn: the error the call returns. */
int lm_req_nomem(MPI_Comm comm, const char *fn)
{
	return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a request");
}

/* The same where there is nobody to report to (MPI_Finalize). */
struct libmsg_request *lm_req_alloc(int kind)
{
	struct libmsg_request *req = lm_req_new(kind);

	if (!req)
		lm_fatal("out of memory for a request");
	return req;
}

/* A send's packed copy is not needed once the send is over. */
static void free_pack(struct libmsg_request *req)
{
	if (req->kind == LM_REQ_SEND && req->packed) {
		if (req->span)
			lm_span_drop(req);
		else
			lm_scratch_put(req->buf, req->bytes);
		req->buf = NULL;
	}
}

static void put_dt(struct libmsg_request *req)
{
	if (req->dt_held) {
		req->dt_held = 0;
		lm_dt_release(req->dt);
	}
}

void lm_req_drop_data(struct libmsg_request *req)
{
	free_pack(req);
	put_dt(req);
}

void lm_req_release(struct libmsg_request *req)
{
	lm_req_drop_data(req);
	lm_req_replace_drop(req);
	req->magic = 0;
	free(req->greq);
	lm_up.pcoll_free(req->pcoll);
	lm_part_free(req->part);
	free(req);
}

/* An MPI_Isendrecv_replace is over: its message goes into place. */
static void replace_done(struct libmsg_request *r)
{
	struct lm_replace *x = r->replace;

	if (!r->status.MPI_ERROR && !r->status.libmsg_cancelled &&
	    r->status.libmsg_count > 0)
		lm_dt_unpack(x->tmp, (uint64_t)r->status.libmsg_count, x->buf,
			     x->count, x->dt);
	lm_req_replace_drop(r);
}

void lm_req_replace_drop(struct libmsg_request *r)
{
	if (!r->replace)
		return;
	free(r->replace->tmp);
	lm_dt_release(r->replace->dt);
	free(r->replace);
	r->replace = NULL;
}

/*
 * One half of an MPI_Isendrecv is over.  The send (the library's) lets
 * go of the receive, hands it its error and is released; the receive
 * (the user's) waits for the send.  1: nothing more to do here.
 */
static int pair_complete(struct libmsg_request *req)
{
	struct libmsg_request *r = req->pair;

	if (req->kind == LM_REQ_RECV) {
		req->pair_held = 1;	/* completed by the send's end */
		return 1;
	}
	r->pair = NULL;
	if (req->status.MPI_ERROR && !req->status.libmsg_cancelled)
		r->pair_err = req->status.MPI_ERROR;
	lm_req_release(req);
	if (r->pair_held) {
		r->pair_held = 0;
		lm_req_complete(r);
	}
	return 1;
}

void lm_req_complete(struct libmsg_request *req)
{
	if (req->pair && pair_complete(req))
		return;
	if (req->kind == LM_REQ_RECV && req->pair_err &&
	    !req->status.MPI_ERROR)
		req->status.MPI_ERROR = req->pair_err;
	if (req->replace)
		replace_done(req);
	req->done = 1;
	free_pack(req);
	/* A persistent request keeps its type for the next MPI_Start. */
	if (!req->persistent)
		put_dt(req);
	if (req->part_of) {
		lm_part_sub_done(req);
		return;
	}
	if (req->sched) {
		lm_up.sched_step_done(req);
	} else if (req->internal) {
		lm_bsend_release(req);
		lm_req_release(req);
	} else if (req->freed && !(req->part && req->part->inflight)) {
		lm_req_release(req);	/* (else when its last message is in) */
	}
}

int lm_check_request(MPI_Request req)
{
	return LM_HANDLE(req) && req->magic == LM_MAGIC_REQ && !req->freed;
}

int lm_wait_one(struct libmsg_request *req)
{
	return lm_wait_in(NULL, req);
}

/*
 * Is *r a request that Wait/Test must look at?  A receive left pending
 * by a failure (MPI_ERR_PROC_FAILED_PENDING) is posted again first: it
 * goes on if the program acknowledged the failure meanwhile.
 */
static int req_live(MPI_Request r)
{
	if (r && r->ft_pending && r->done)
		lm_match_repost(r);
	return r && (!r->persistent || r->active);
}

/*
 * Report a done request: copy its status (not MPI_ERROR, which only an
 * array call sets, see in_status()), release or deactivate it.  Returns
 * the operation's error class.
 */
static int req_finish(MPI_Request *rp, MPI_Status *st)
{
	struct libmsg_request *r = *rp;
	int err = r->status.MPI_ERROR;

	if (r->kind == LM_REQ_GREQ)
		return lm_greq_finish(rp, st);
	if (st)
		lm_status_out(st, &r->status);
	if (r->ft_pending)
		return err;	/* not over: posted again by the next wait */
	if (r->persistent) {
		r->active = 0;
	} else {
		lm_req_release(r);
		*rp = MPI_REQUEST_NULL;
	}
	return err;
}

static int bad_request(const char *fn, MPI_Request r)
{
	if (!r || (LM_HANDLE(r) && r->magic == LM_MAGIC_REQ))
		return 0;
	return lm_error(NULL, fn, MPI_ERR_REQUEST, "invalid request");
}

static int check_array(const char *fn, int count, MPI_Request *reqs)
{
	int i, err;

	lm_check_init(fn);
	if (count < 0)
		return lm_error(NULL, fn, MPI_ERR_COUNT, "count %d is negative", count);
	if (count && !reqs)
		return lm_error(NULL, fn, MPI_ERR_REQUEST, "array of requests is NULL");
	for (i = 0; i < count; i++)
		if ((err = bad_request(fn, reqs[i])))
			return err;
	return MPI_SUCCESS;
}

/* comm: the request's, taken before req_finish() may release it. */
static int op_error(const char *fn, struct libmsg_comm *comm, int err)
{
	const char *why;

	if (err == MPI_SUCCESS)
		return err;
	why = lm_up.coll_why(comm, err);
	return lm_error(comm, fn, err, "%s", why ? why : "the operation failed");
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	LM_GUARD();
	struct libmsg_comm *comm;
	struct libmsg_request *r;
	int err;

	lm_check_init("MPI_Wait");
	if (!request)
		return lm_error(NULL, "MPI_Wait", MPI_ERR_REQUEST, "request is NULL");
	if ((err = bad_request("MPI_Wait", *request)))
		return err;
	r = *request;
	if (!req_live(r)) {
		if (status)
			status_empty_out(status);
		return MPI_SUCCESS;
	}
	if (r->part && (err = lm_part_stuck(r, "MPI_Wait")))
		return err;
	lm_wait_in("MPI_Wait", r);
	comm = r->comm;
	return op_error("MPI_Wait", comm, req_finish(request, status));
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	LM_GUARD();
	struct libmsg_comm *comm;
	struct libmsg_request *r;
	int err;

	lm_check_init("MPI_Test");
	if (!request || !flag)
		return lm_error(NULL, "MPI_Test", MPI_ERR_ARG, "request or flag is NULL");
	if ((err = bad_request("MPI_Test", *request)))
		return err;
	r = *request;
	if (!req_live(r)) {
		*flag = 1;
		if (status)
			status_empty_out(status);
		return MPI_SUCCESS;
	}
	if (!r->done)
		lm_progress();
	*flag = r->done;
	if (!r->done) {
		lm_poll_missed();
		return MPI_SUCCESS;
	}
	comm = r->comm;
	return op_error("MPI_Test", comm, req_finish(request, status));
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
	LM_GUARD();
	int err;

	lm_check_init("MPI_Request_get_status");
	if (!flag)
		return lm_error(NULL, "MPI_Request_get_status", MPI_ERR_ARG, "flag is NULL");
	if ((err = bad_request("MPI_Request_get_status", request)))
		return err;
	if (!req_live(request)) {
		*flag = 1;
		if (status)
			status_empty_out(status);
		return MPI_SUCCESS;
	}
	if (!request->done)
		lm_progress();
	*flag = request->done;
	if (request->done && request->kind == LM_REQ_GREQ &&
	    (err = lm_greq_query(request)))
		return lm_error(NULL, "MPI_Request_get_status", err,
				"query_fn failed");
	if (request->done && status)
		lm_status_out(status, &request->status);
	if (!request->done)
		lm_poll_missed();
	return MPI_SUCCESS;
}

/* Errors of the requests one call finished: how many, the first one. */
struct errs {
	int n, first;
	int mixed;	/* not all of one error class */
};

static void errs_add(struct errs *e, int err)
{
	int a, b;

	if (!err)
		return;
	if (!e->n++) {
		e->first = err;
		return;
	}
	MPI_Error_class(err, &a);
	MPI_Error_class(e->first, &b);
	if (a != b)
		e->mixed = 1;
}

/*
 * An array call's statuses get MPI_ERROR only when it returns
 * MPI_ERR_IN_STATUS, then every one (MPI-3.1 section 3.2.5): from the
 * first failure on as each is reported, before it MPI_SUCCESS at the end.
 */
static void in_status(struct errs *e, MPI_Status *sts, int i, int err)
{
	errs_add(e, err);
	if (!sts || !e->n)
		return;
	sts[i].MPI_ERROR = err;
	if (err && e->n == 1)
		while (i-- > 0)
			sts[i].MPI_ERROR = MPI_SUCCESS;
}

/* Finish every done request of the array, counting the errors. */
static struct errs finish_all(int count, MPI_Request *reqs, MPI_Status *sts)
{
	struct errs e = { 0, 0, 0 };
	int i;

	for (i = 0; i < count; i++) {
		if (!req_live(reqs[i])) {
			if (sts)
				status_empty_out(&sts[i]);
			in_status(&e, sts, i, MPI_SUCCESS);
			continue;
		}
		in_status(&e, sts, i,
			  req_finish(&reqs[i], sts ? &sts[i] : NULL));
	}
	return e;
}

/*
 * With statuses, MPI_ERR_IN_STATUS: each failed one has its error.
 * Without (MPI_STATUSES_IGNORE), the failures' class when they share
 * one (a dead peer fails all its operations with MPI_ERR_PROC_FAILED),
 * else MPI_ERR_IN_STATUS.  The message names the first error's class.
 */
static int in_status_error(const char *fn, struct errs e, MPI_Status *sts)
{
	char s[MPI_MAX_ERROR_STRING], *p;
	int len, cls = MPI_ERR_IN_STATUS;

	if (!e.n)
		return MPI_SUCCESS;
	s[0] = 0;
	MPI_Error_string(e.first, s, &len);
	p = strchr(s, ':');
	if (p)
		*p = 0;
	if (!sts && !e.mixed)
		MPI_Error_class(e.first, &cls);
	return lm_error(NULL, fn, cls, "%d operation(s) failed, the first with %s",
			e.n, s);
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status sts[])
{
	LM_GUARD();
	int i, err = check_array("MPI_Waitall", count, reqs);

	if (err)
		return err;
	/* Before waiting for any: a wait that would never end. */
	for (i = 0; i < count; i++)
		if (req_live(reqs[i]) && reqs[i]->part &&
		    (err = lm_part_stuck(reqs[i], "MPI_Waitall")))
			return err;
	for (i = 0; i < count; i++)
		if (req_live(reqs[i]))
			lm_wait_in("MPI_Waitall", reqs[i]);
	return in_status_error("MPI_Waitall", finish_all(count, reqs, sts), sts);
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
	LM_GUARD();
	int i, err = check_array("MPI_Testall", count, reqs);

	if (err)
		return err;
	if (!flag)
		return lm_error(NULL, "MPI_Testall", MPI_ERR_ARG, "flag is NULL");
	lm_progress();
	for (i = 0; i < count; i++) {
		if (req_live(reqs[i]) && !reqs[i]->done) {
			*flag = 0;
			lm_poll_missed();
			return MPI_SUCCESS;
		}
	}
	*flag = 1;
	return in_status_error("MPI_Testall", finish_all(count, reqs, sts), sts);
}

/* Index of a done live request, MPI_UNDEFINED if none is live, else -1. */
static int find_done(int count, MPI_Request *reqs)
{
	int i, live = 0;

	for (i = 0; i < count; i++) {
		if (!req_live(reqs[i]))
			continue;
		live = 1;
		if (reqs[i]->done)
			return i;
	}
	return live ? -1 : MPI_UNDEFINED;
}

static int any_finish(const char *fn, int count, MPI_Request *reqs, int i,
		      int *index, MPI_Status *st)
{
	struct libmsg_comm *comm;

	(void)count;
	*index = i;
	if (i == MPI_UNDEFINED) {
		if (st)
			status_empty_out(st);
		return MPI_SUCCESS;
	}
	comm = reqs[i]->comm;
	return op_error(fn, comm, req_finish(&reqs[i], st));
}

/* Block until one of reqs is done (none is yet): its index. */
static int wait_some(const char *fn, int count, MPI_Request reqs[])
{
	struct lm_blocked b;
	int i;

	for (i = 0; i < count && !(req_live(reqs[i]) && !reqs[i]->done); i++)
		;
	lm_blocked_req(&b, fn, reqs[i < count ? i : 0]);
	lm_blocked_enter(&b);
	while ((i = find_done(count, reqs)) == -1)
		lm_progress_block();
	lm_blocked_leave(&b);
	return i;
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *st)
{
	LM_GUARD();
	int i, err = check_array("MPI_Waitany", count, reqs);

	if (err)
		return err;
	if (!index)
		return lm_error(NULL, "MPI_Waitany", MPI_ERR_ARG, "index is NULL");
	if ((i = find_done(count, reqs)) == -1)
		i = wait_some("MPI_Waitany", count, reqs);
	return any_finish("MPI_Waitany", count, reqs, i, index, st);
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag,
		MPI_Status *st)
{
	LM_GUARD();
	int i, err = check_array("MPI_Testany", count, reqs);

	if (err)
		return err;
	if (!index || !flag)
		return lm_error(NULL, "MPI_Testany", MPI_ERR_ARG, "index or flag is NULL");
	i = find_done(count, reqs);
	if (i == -1) {
		lm_progress();
		i = find_done(count, reqs);
	}
	*flag = i != -1;
	if (i == -1) {
		*index = MPI_UNDEFINED;
		lm_poll_missed();
		return MPI_SUCCESS;
	}
	return any_finish("MPI_Testany", count, reqs, i, index, st);
}

static int some_finish(const char *fn, int count, MPI_Request *reqs,
		       int *outcount, int *indices, MPI_Status *sts)
{
	struct errs errs = { 0, 0, 0 };
	int i, n = 0, live = 0;

	for (i = 0; i < count; i++) {
		if (!req_live(reqs[i]))
			continue;
		live = 1;
		if (!reqs[i]->done)
			continue;
		indices[n] = i;
		in_status(&errs, sts, n,
			  req_finish(&reqs[i], sts ? &sts[n] : NULL));
		n++;
	}
	*outcount = live ? n : MPI_UNDEFINED;
	return in_status_error(fn, errs, sts);
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount,
		 int indices[], MPI_Status sts[])
{
	LM_GUARD();
	int i, err = check_array("MPI_Waitsome", incount, reqs);

	if (err)
		return err;
	if (!outcount || (incount && !indices))
		return lm_error(NULL, "MPI_Waitsome", MPI_ERR_ARG,
				"outcount or indices is NULL");
	if ((i = find_done(incount, reqs)) == -1)
		i = wait_some("MPI_Waitsome", incount, reqs);
	return some_finish("MPI_Waitsome", incount, reqs, outcount, indices, sts);
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount,
		 int indices[], MPI_Status sts[])
{
	LM_GUARD();
	int err = check_array("MPI_Testsome", incount, reqs);

	if (err)
		return err;
	if (!outcount || (incount && !indices))
		return lm_error(NULL, "MPI_Testsome", MPI_ERR_ARG,
				"outcount or indices is NULL");
	lm_progress();
	err = some_finish("MPI_Testsome", incount, reqs, outcount, indices, sts);
	if (*outcount == 0)
		lm_poll_missed();
	return err;
}

int MPI_Request_free(MPI_Request *request)
{
	LM_GUARD();
	struct libmsg_request *r;
	int err;

	lm_check_init("MPI_Request_free");
	if (!request || !*request || (*request)->magic != LM_MAGIC_REQ)
		return lm_error(NULL, "MPI_Request_free", MPI_ERR_REQUEST,
				"invalid request");
	r = *request;
	if (r->kind == LM_REQ_COLL && (r->persistent ? r->active : !r->done))
		return lm_error(r->comm, "MPI_Request_free", MPI_ERR_REQUEST,
				"a collective operation in progress cannot be freed");
	/* Not yet sent, it would never be: its partitions wait for Pready. */
	if (r->part && r->kind == LM_REQ_SEND && r->active &&
	    r->part->nready < r->part->partitions)
		return lm_error(r->comm, "MPI_Request_free", MPI_ERR_REQUEST,
				"a partitioned send with partitions not ready cannot be freed");
	*request = MPI_REQUEST_NULL;
	if (r->part && lm_part_free_req(r))
		return MPI_SUCCESS;
	if (r->kind == LM_REQ_GREQ) {
		err = lm_greq_release(r);
		return err ? lm_error(NULL, "MPI_Request_free", err,
				      "free_fn failed") : MPI_SUCCESS;
	}
	if (r->persistent && !r->active)
		lm_req_release(r);
	else if (r->done)
		lm_req_release(r);
	else
		r->freed = 1;	/* released when it completes */
	return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request)
{
	LM_GUARD();
	struct libmsg_request *r;

	lm_check_init("MPI_Cancel");
	if (!request || !*request || (*request)->magic != LM_MAGIC_REQ)
		return lm_error(NULL, "MPI_Cancel", MPI_ERR_REQUEST, "invalid request");
	r = *request;
	if (r->kind == LM_REQ_COLL)
		return lm_error(r->comm, "MPI_Cancel", MPI_ERR_REQUEST,
				"a collective operation cannot be cancelled");
	if (r->part)
		return lm_error(r->comm, "MPI_Cancel", MPI_ERR_REQUEST,
				"a partitioned operation cannot be cancelled");
	if (r->kind == LM_REQ_GREQ) {
		int err = lm_greq_cancel(r);

		return err ? lm_error(NULL, "MPI_Cancel", err,
				      "cancel_fn failed") : MPI_SUCCESS;
	}
	if (req_live(r) && r->ft_pending) {
		lm_match_cancel_recv(r);	/* ULFM: pending, not over */
		return MPI_SUCCESS;
	}
	if (!req_live(r) || r->done)
		return MPI_SUCCESS;
	/* An MPI_Isendrecv: its send too (it may be under way). */
	if (r->pair)
		lm_send_cancel(r->pair);
	if (r->kind == LM_REQ_RECV && !r->done && !r->pair_held)
		lm_match_cancel_recv(r);
	else if (r->kind == LM_REQ_SEND)
		lm_send_cancel(r);
	return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
	LM_GUARD();
	if (!status || !flag)
		return lm_error(NULL, "MPI_Test_cancelled", MPI_ERR_ARG,
				"status or flag is NULL");
	*flag = status->libmsg_cancelled;
	return MPI_SUCCESS;
}
