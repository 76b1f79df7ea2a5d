// SPDX-License-Identifier: MIT
/*
 * Probing the unexpected queue: Probe/Iprobe look, Mprobe/Improbe take
 * the message out of matching (MPI_Message) for Mrecv/Imrecv.
 */

#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

LM_PREDEFINED(struct libmsg_message, libmsg_message_no_proc,
	      LM_ABI_MSG_SIZE) = { .obj = { .magic = LM_MAGIC_MSG } };

static int check_probe(const char *fn, int source, int tag, MPI_Comm comm)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE &&
	    (source < 0 || source >= comm->rsize))
		return lm_error(comm, fn, MPI_ERR_RANK,
				"source %d (communicator has %d ranks)",
				source, comm->rsize);
	if (tag != MPI_ANY_TAG && (tag < 0 || tag > MPI_TAG_UB_VALUE))
		return lm_error(comm, fn, MPI_ERR_TAG, "tag %d out of range", tag);
	return MPI_SUCCESS;
}

static struct libmsg_message *find(int source, int tag, MPI_Comm comm)
{
	int w = source == MPI_ANY_SOURCE ? source : lm_comm_world(comm, source);

	return lm_match_find(comm->p2p, w, tag);
}

/* Nothing matched: an error when what could match is from a dead rank. */
static int dead_source(const char *fn, int source, MPI_Comm comm)
{
	int w = source == MPI_ANY_SOURCE ? source : lm_comm_world(comm, source);
	int dead = lm_match_dead_unacked(comm, w);

	if (lm_ulfm_revoked(comm))
		return lm_error(comm, fn, MPI_ERR_REVOKED,
				"the communicator was revoked");
	if (dead < 0)
		return MPI_SUCCESS;
	return lm_error(comm, fn, MPI_ERR_PROC_FAILED,
			"rank %d of the communicator failed",
			lm_comm_local(comm, dead));
}

/* The program's status (MPI_ERROR left alone: lm_status_out). */
static void probe_status(MPI_Status *st, MPI_Comm comm,
			 const struct libmsg_message *msg)
{
	MPI_Status s;

	if (!st)
		return;
	lm_status_set(&s, comm, msg->wsrc, msg->tag, msg->size, MPI_SUCCESS);
	lm_status_out(st, &s);
}

/* What a probe or receive from MPI_PROC_NULL finds. */
static void null_status(MPI_Status *st)
{
	MPI_Status s;

	if (!st)
		return;
	lm_status_set(&s, NULL, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
	lm_status_out(st, &s);
}

static int iprobe(const char *fn, int source, int tag, MPI_Comm comm,
		  int *flag, MPI_Message *message, MPI_Status *status)
{
	struct libmsg_message *msg;
	int err = check_probe(fn, source, tag, comm);

	if (err)
		return err;
	if (!flag)
		return lm_error(comm, fn, MPI_ERR_ARG, "flag is NULL");
	if (source == MPI_PROC_NULL) {
		*flag = 1;
		if (message)
			*message = MPI_MESSAGE_NO_PROC;
		null_status(status);
		return MPI_SUCCESS;
	}
	msg = find(source, tag, comm);
	if (!msg) {
		lm_progress();
		msg = find(source, tag, comm);
	}
	*flag = msg != NULL;
	if (!msg) {
		err = dead_source(fn, source, comm);
		lm_poll_missed();
		return err;
	}
	probe_status(status, comm, msg);
	if (message) {
		/* Off the queue, the handle is its only way in. */
		cds_list_del(&msg->link);
		msg->comm = comm;
		comm->probed++;	/* a freed comm waits for its Mrecv */
		*message = msg;
	}
	return MPI_SUCCESS;
}

static int probe(const char *fn, int source, int tag, MPI_Comm comm,
		 MPI_Message *message, MPI_Status *status)
{
	struct lm_blocked b;
	int err, flag = 0;

	err = iprobe(fn, source, tag, comm, &flag, message, status);
	if (err || flag)
		return err;
	lm_blocked_comm(&b, fn, MPICHAN_WAIT_PROBE, comm, source, tag, 0);
	lm_blocked_enter(&b);
	for (;;) {
		lm_progress_block();
		err = iprobe(fn, source, tag, comm, &flag, message, status);
		if (err || flag)
			break;
	}
	lm_blocked_leave(&b);
	return err;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
	       MPI_Status *status)
{
	LM_GUARD();
	return iprobe("MPI_Iprobe", source, tag, comm, flag, NULL, status);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	LM_GUARD();
	return probe("MPI_Probe", source, tag, comm, NULL, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
		MPI_Message *message, MPI_Status *status)
{
	LM_GUARD();
	if (!message)
		return lm_error(comm, "MPI_Improbe", MPI_ERR_ARG, "message is NULL");
	return iprobe("MPI_Improbe", source, tag, comm, flag, message, status);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
	       MPI_Status *status)
{
	LM_GUARD();
	if (!message)
		return lm_error(comm, "MPI_Mprobe", MPI_ERR_ARG, "message is NULL");
	return probe("MPI_Mprobe", source, tag, comm, message, status);
}

static int check_mrecv(const char *fn, void *buf, int count, MPI_Datatype dt,
		       MPI_Message *message)
{
	lm_check_init(fn);
	if (!message || !*message || (*message)->magic != LM_MAGIC_MSG)
		return lm_error(NULL, fn, MPI_ERR_REQUEST, "invalid message handle");
	if (count < 0)
		return lm_error(NULL, fn, MPI_ERR_COUNT, "count %d is negative", count);
	if (lm_check_datatype(dt))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "%s", lm_datatype_why(dt));
	return lm_check_buffer(buf, count, dt, fn, NULL);
}

/*
 * The receive of a matched message, started; NULL out of memory, the
 * message still the caller's.
 */
static struct libmsg_request *mrecv_start(void *buf, int count,
					  MPI_Datatype dt, MPI_Message *message)
{
	struct libmsg_message *msg = *message;
	struct libmsg_request *r = lm_req_new(LM_REQ_RECV);

	if (!r)
		return NULL;
	*message = MPI_MESSAGE_NULL;
	lm_req_set_buffer(r, buf, count, dt);
	if (msg == MPI_MESSAGE_NO_PROC) {
		r->peer = MPI_PROC_NULL;
		lm_status_set(&r->status, NULL, MPI_PROC_NULL, MPI_ANY_TAG, 0,
			      MPI_SUCCESS);
		lm_req_complete(r);
		return r;
	}
	r->comm = msg->comm;
	r->peer = lm_comm_local(msg->comm, msg->wsrc);
	r->wpeer = msg->wsrc;
	r->tag = msg->tag;
	r->ctx = msg->ctx;
	lm_match_deliver_msg(r, msg);
	r->comm->probed--;
	return r;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype,
	      MPI_Message *message, MPI_Status *status)
{
	LM_GUARD();
	struct libmsg_request *r;
	int err = check_mrecv("MPI_Mrecv", buf, count, datatype, message);

	if (err)
		return err;
	r = mrecv_start(buf, count, datatype, message);
	if (!r)
		return lm_req_nomem(NULL, "MPI_Mrecv");
	err = lm_wait_in("MPI_Mrecv", r);
	if (status)
		lm_status_out(status, &r->status);
	lm_req_release(r);
	if (err)
		return lm_error(NULL, "MPI_Mrecv", err, "receive failed");
	return MPI_SUCCESS;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype,
	       MPI_Message *message, MPI_Request *request)
{
	LM_GUARD();
	int err = check_mrecv("MPI_Imrecv", buf, count, datatype, message);

	if (err)
		return err;
	if (!request)
		return lm_error(NULL, "MPI_Imrecv", MPI_ERR_REQUEST, "request is NULL");
	*request = mrecv_start(buf, count, datatype, message);
	if (!*request) {
		*request = MPI_REQUEST_NULL;
		return lm_req_nomem(NULL, "MPI_Imrecv");
	}
	return MPI_SUCCESS;
}
