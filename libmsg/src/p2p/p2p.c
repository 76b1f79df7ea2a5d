// SPDX-License-Identifier: MIT
/*
 * Point-to-point calls: argument checks, then requests handed to the
 * progress engine (sends) or to matching (receives).  Blocking calls
 * keep their request on the stack.
 */

#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

int lm_bsend_start(struct libmsg_request *req, const char *fn);

/*
 * A NULL buffer is MPI_BOTTOM: fine for a derived type, whose
 * displacements may be absolute addresses (MPI_Get_address).
 */
int lm_check_buffer(const void *buf, int count, MPI_Datatype dt,
		    const char *fn, struct libmsg_comm *comm)
{
	if (!buf && count > 0 && dt->predefined && dt->size)
		return lm_error(comm, fn, MPI_ERR_BUFFER,
				"buffer is NULL for %d element(s)", count);
	return MPI_SUCCESS;
}

void lm_req_set_buffer(struct libmsg_request *r, const void *buf, int count,
		       MPI_Datatype dt)
{
	r->ubuf = (void *)buf;
	r->count = count;
	r->dt = dt;
	r->bytes = (uint64_t)count * (uint64_t)dt->size;
	r->packed = r->bytes && !lm_dt_contig(dt, count);
	/* Contiguous data starts at the true lower bound (MPI_BOTTOM: 0). */
	r->buf = r->packed ? NULL :
		(void *)((uintptr_t)buf + (uintptr_t)lm_dt_offset(dt));
	if (!dt->predefined && !r->dt_held) {
		lm_dt_hold(dt);
		r->dt_held = 1;
	}
}

int lm_req_pack(struct libmsg_request *r)
{
	if (!r->packed)
		return MPI_SUCCESS;
	if (r->span) {
		lm_span_drop(r);
		r->buf = NULL;	/* the user's, not a copy (a persistent send) */
	}
	lm_scratch_put(r->buf, r->bytes);
	/*
	 * Large: offered where it lies (a tile of blocks, or a layout), or
	 * its blocks gathered by the module; no copy either way.
	 */
	if (lm_span_prepare(r) || lm_iov_prepare(r))
		return MPI_SUCCESS;
	r->buf = lm_scratch_get(r->bytes);
	if (!r->buf)
		return MPI_ERR_NO_MEM;
	lm_dt_pack(r->ubuf, r->count, r->dt, r->buf);
	return MPI_SUCCESS;
}

static int check_common(const char *fn, const void *buf, int count,
			MPI_Datatype dt, MPI_Comm comm)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (count < 0)
		return lm_error(comm, fn, MPI_ERR_COUNT, "count %d is negative", count);
	if (lm_check_datatype(dt))
		return lm_error(comm, fn, MPI_ERR_TYPE, "%s", lm_datatype_why(dt));
	return lm_check_buffer(buf, count, dt, fn, comm);
}

static int check_send(const char *fn, const void *buf, int count,
		      MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
	int err = check_common(fn, buf, count, dt, comm);

	if (err)
		return err;
	if (dest != MPI_PROC_NULL && (dest < 0 || dest >= comm->rsize))
		return lm_error(comm, fn, MPI_ERR_RANK,
				"destination %d (communicator has %d ranks)",
				dest, comm->rsize);
	if (tag < 0 || tag > MPI_TAG_UB_VALUE)
		return lm_error(comm, fn, MPI_ERR_TAG, "tag %d out of range", tag);
	return MPI_SUCCESS;
}

static int check_recv(const char *fn, const void *buf, int count,
		      MPI_Datatype dt, int source, int tag, MPI_Comm comm)
{
	int err = check_common(fn, buf, count, dt, comm);

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

static void fill(struct libmsg_request *r, const void *buf, int count,
		 MPI_Datatype dt, int peer, int tag, MPI_Comm comm, int mode)
{
	lm_req_set_buffer(r, buf, count, dt);
	r->peer = peer;
	r->wpeer = peer < 0 ? peer : lm_comm_world(comm, peer);
	r->tag = tag;
	r->comm = comm;
	r->ctx = comm->ctx;
	r->mode = (uint8_t)mode;
}

/* Start a send request (fresh or persistent) in its mode. */
int lm_send_begin(struct libmsg_request *r, const char *fn)
{
	if (r->peer != MPI_PROC_NULL && lm_req_pack(r))
		return lm_error(r->comm, fn, MPI_ERR_NO_MEM,
				"no memory to pack %llu bytes",
				(unsigned long long)r->bytes);
	if (r->mode == LM_MODE_BUFFERED)
		return lm_bsend_start(r, fn);
	lm_send_start(r);
	return MPI_SUCCESS;
}

static void recv_begin(struct libmsg_request *r)
{
	if (r->peer == MPI_PROC_NULL) {
		lm_status_set(&r->status, NULL, MPI_PROC_NULL, MPI_ANY_TAG, 0,
			      MPI_SUCCESS);
		lm_req_complete(r);
		return;
	}
	lm_match_post(r);
}

static int blocking_send(const char *fn, const void *buf, int count,
			 MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
			 int mode)
{
	struct libmsg_request r;
	int err = check_send(fn, buf, count, dt, dest, tag, comm);

	if (err)
		return err;
	lm_req_init(&r, LM_REQ_SEND);
	fill(&r, buf, count, dt, dest, tag, comm, mode);
	err = lm_send_begin(&r, fn);
	if (err) {
		lm_req_drop_data(&r);
		return err;
	}
	err = lm_wait_in(fn, &r);
	if (err)
		return lm_error(comm, fn, err, "send to rank %d failed", dest);
	return MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
	     int tag, MPI_Comm comm)
{
	LM_GUARD();
	if (lm_fast_send(buf, count, datatype, dest, tag, comm))
		return MPI_SUCCESS;
	return blocking_send("MPI_Send", buf, count, datatype, dest, tag, comm,
			     LM_MODE_STD);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
	      int tag, MPI_Comm comm)
{
	LM_GUARD();
	return blocking_send("MPI_Ssend", buf, count, datatype, dest, tag, comm,
			     LM_MODE_SYNC);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
	      int tag, MPI_Comm comm)
{
	LM_GUARD();
	return blocking_send("MPI_Bsend", buf, count, datatype, dest, tag, comm,
			     LM_MODE_BUFFERED);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest,
	      int tag, MPI_Comm comm)
{
	LM_GUARD();
	return blocking_send("MPI_Rsend", buf, count, datatype, dest, tag, comm,
			     LM_MODE_READY);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source,
	     int tag, MPI_Comm comm, MPI_Status *status)
{
	LM_GUARD();
	struct libmsg_request r;
	int err;

	if (lm_fast_recv(buf, count, datatype, source, tag, comm, status))
		return MPI_SUCCESS;
	err = check_recv("MPI_Recv", buf, count, datatype, source, tag, comm);
	if (err)
		return err;
	lm_req_init(&r, LM_REQ_RECV);
	fill(&r, buf, count, datatype, source, tag, comm, LM_MODE_STD);
	recv_begin(&r);
	err = lm_wait_in("MPI_Recv", &r);
	if (status)
		lm_status_out(status, &r.status);
	if (err)
		return lm_error(comm, "MPI_Recv", err, "receive from rank %d: %s",
				r.status.MPI_SOURCE,
				err == MPI_ERR_TRUNCATE ? "message longer than the buffer" :
				"failed");
	return MPI_SUCCESS;
}

static int nonblocking_send(const char *fn, const void *buf, int count,
			    MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
			    int mode, int persistent, MPI_Request *request)
{
	struct libmsg_request *r;
	int err = check_send(fn, buf, count, dt, dest, tag, comm);

	if (err)
		return err;
	if (!request)
		return lm_error(comm, fn, MPI_ERR_REQUEST, "request is NULL");
	r = lm_req_new(LM_REQ_SEND);
	if (!r)
		return lm_req_nomem(comm, fn);
	fill(r, buf, count, dt, dest, tag, comm, mode);
	if (persistent) {
		r->persistent = 1;
		r->active = 0;
		*request = r;
		return MPI_SUCCESS;
	}
	err = lm_send_begin(r, fn);
	if (err) {
		lm_req_release(r);
		return err;
	}
	*request = r;
	return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
	      int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_send("MPI_Isend", buf, count, datatype, dest, tag,
				comm, LM_MODE_STD, 0, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest,
	       int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_send("MPI_Issend", buf, count, datatype, dest, tag,
				comm, LM_MODE_SYNC, 0, request);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
	       int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_send("MPI_Ibsend", buf, count, datatype, dest, tag,
				comm, LM_MODE_BUFFERED, 0, request);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest,
	       int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_send("MPI_Irsend", buf, count, datatype, dest, tag,
				comm, LM_MODE_READY, 0, request);
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype,
		  int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_send("MPI_Send_init", buf, count, datatype, dest,
				tag, comm, LM_MODE_STD, 1, request);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype,
		   int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_send("MPI_Ssend_init", buf, count, datatype, dest,
				tag, comm, LM_MODE_SYNC, 1, request);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype,
		   int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_send("MPI_Bsend_init", buf, count, datatype, dest,
				tag, comm, LM_MODE_BUFFERED, 1, request);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype,
		   int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_send("MPI_Rsend_init", buf, count, datatype, dest,
				tag, comm, LM_MODE_READY, 1, request);
}

static int nonblocking_recv(const char *fn, void *buf, int count,
			    MPI_Datatype dt, int source, int tag, MPI_Comm comm,
			    int persistent, MPI_Request *request)
{
	struct libmsg_request *r;
	int err = check_recv(fn, buf, count, dt, source, tag, comm);

	if (err)
		return err;
	if (!request)
		return lm_error(comm, fn, MPI_ERR_REQUEST, "request is NULL");
	r = lm_req_new(LM_REQ_RECV);
	if (!r)
		return lm_req_nomem(comm, fn);
	fill(r, buf, count, dt, source, tag, comm, LM_MODE_STD);
	r->ft_nb = 1;
	*request = r;
	if (persistent) {
		r->persistent = 1;
		r->active = 0;
	} else {
		recv_begin(r);
	}
	return MPI_SUCCESS;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source,
	      int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_recv("MPI_Irecv", buf, count, datatype, source, tag,
				comm, 0, request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
		  int tag, MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	return nonblocking_recv("MPI_Recv_init", buf, count, datatype, source,
				tag, comm, 1, request);
}

/* Persistent requests made by the calls built on them (partitioned.c). */
int lm_send_init(const char *fn, const void *buf, int count, MPI_Datatype dt,
		 int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	return nonblocking_send(fn, buf, count, dt, dest, tag, comm,
				LM_MODE_STD, 1, request);
}

int lm_recv_init(const char *fn, void *buf, int count, MPI_Datatype dt,
		 int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	return nonblocking_recv(fn, buf, count, dt, source, tag, comm, 1,
				request);
}

static int start_one(MPI_Request r, const char *fn)
{
	if (!r || r->magic != LM_MAGIC_REQ || !r->persistent)
		return lm_error(NULL, fn, MPI_ERR_REQUEST,
				"not a persistent request");
	if (r->active)
		return lm_error(r->comm, fn, MPI_ERR_REQUEST,
				"request is already active");
	r->active = 1;
	r->done = 0;
	r->cancel = 0;
	r->status.libmsg_cancelled = 0;
	r->status.MPI_ERROR = MPI_SUCCESS;
	if (r->kind == LM_REQ_COLL)
		return lm_up.pcoll_start(r);
	if (r->part)
		return lm_part_start(r);
	if (r->kind == LM_REQ_RECV) {
		recv_begin(r);
		return MPI_SUCCESS;
	}
	return lm_send_begin(r, fn);
}

int MPI_Start(MPI_Request *request)
{
	LM_GUARD();
	lm_check_init("MPI_Start");
	if (!request)
		return lm_error(NULL, "MPI_Start", MPI_ERR_REQUEST, "request is NULL");
	return start_one(*request, "MPI_Start");
}

int MPI_Startall(int count, MPI_Request reqs[])
{
	LM_GUARD();
	int i, err;

	lm_check_init("MPI_Startall");
	if (count < 0)
		return lm_error(NULL, "MPI_Startall", MPI_ERR_COUNT,
				"count %d is negative", count);
	if (count && !reqs)
		return lm_error(NULL, "MPI_Startall", MPI_ERR_REQUEST,
				"array of requests is NULL");
	for (i = 0; i < count; i++)
		if ((err = start_one(reqs[i], "MPI_Startall")))
			return err;
	return MPI_SUCCESS;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 int dest, int sendtag, void *recvbuf, int recvcount,
		 MPI_Datatype recvtype, int source, int recvtag,
		 MPI_Comm comm, MPI_Status *status)
{
	LM_GUARD();
	struct libmsg_request s, r;
	int err;

	err = check_send("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest,
			 sendtag, comm);
	if (!err)
		err = check_recv("MPI_Sendrecv", recvbuf, recvcount, recvtype,
				 source, recvtag, comm);
	if (err)
		return err;
	lm_req_init(&s, LM_REQ_SEND);
	fill(&s, sendbuf, sendcount, sendtype, dest, sendtag, comm, LM_MODE_STD);
	if (dest != MPI_PROC_NULL && lm_req_pack(&s)) {
		lm_req_drop_data(&s);
		return lm_error(comm, "MPI_Sendrecv", MPI_ERR_NO_MEM,
				"no memory to pack %llu bytes",
				(unsigned long long)s.bytes);
	}
	lm_req_init(&r, LM_REQ_RECV);
	fill(&r, recvbuf, recvcount, recvtype, source, recvtag, comm, LM_MODE_STD);
	recv_begin(&r);
	lm_send_start(&s);
	lm_wait_in("MPI_Sendrecv", &s);
	lm_wait_in("MPI_Sendrecv", &r);
	if (status)
		lm_status_out(status, &r.status);
	if (s.status.MPI_ERROR)
		return lm_error(comm, "MPI_Sendrecv", s.status.MPI_ERROR,
				"send to rank %d failed", dest);
	if (r.status.MPI_ERROR)
		return lm_error(comm, "MPI_Sendrecv", r.status.MPI_ERROR,
				"receive from rank %d failed", r.status.MPI_SOURCE);
	return MPI_SUCCESS;
}

/*
 * MPI_Isendrecv (MPI-4.0): a receive the user holds and a send the
 * library holds, tied (request.h, request.c): the request completes when
 * both have, with the receive's status (and the send's error if only
 * it failed).  rep: MPI_Isendrecv_replace's, recvbuf its rep->tmp.
 */
static int isendrecv(const char *fn, const void *sendbuf, int sendcount,
		     MPI_Datatype sendtype, int dest, int sendtag,
		     void *recvbuf, int recvcount, MPI_Datatype recvtype,
		     int source, int recvtag, MPI_Comm comm,
		     struct lm_replace *rep, MPI_Request *request)
{
	struct libmsg_request *s, *r;

	if (!request)
		return lm_error(comm, fn, MPI_ERR_REQUEST, "request is NULL");
	*request = MPI_REQUEST_NULL;
	s = lm_req_new(LM_REQ_SEND);
	r = lm_req_new(LM_REQ_RECV);
	if (!s || !r) {
		free(s);
		free(r);
		return lm_req_nomem(comm, fn);
	}
	fill(s, sendbuf, sendcount, sendtype, dest, sendtag, comm, LM_MODE_STD);
	if (dest != MPI_PROC_NULL && lm_req_pack(s)) {
		unsigned long long bytes = s->bytes;

		lm_req_release(s);
		free(r);
		return lm_error(comm, fn, MPI_ERR_NO_MEM,
				"no memory to pack %llu bytes", bytes);
	}
	fill(r, recvbuf, recvcount, recvtype, source, recvtag, comm,
	     LM_MODE_STD);
	r->replace = rep;
	r->pair = s;
	s->pair = r;
	*request = r;
	/* Either may be over at once: the receive then waits for the send. */
	recv_begin(r);
	lm_send_start(s);
	return MPI_SUCCESS;
}

int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		  int dest, int sendtag, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, int source, int recvtag,
		  MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Isendrecv";
	int err = check_send(fn, sendbuf, sendcount, sendtype, dest, sendtag,
			     comm);

	if (!err)
		err = check_recv(fn, recvbuf, recvcount, recvtype, source,
				 recvtag, comm);
	if (err)
		return err;
	return isendrecv(fn, sendbuf, sendcount, sendtype, dest, sendtag,
			 recvbuf, recvcount, recvtype, source, recvtag, comm,
			 NULL, request);
}

/* The message arrives packed in a buffer of its own, then lands in buf. */
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype,
			  int dest, int sendtag, int source, int recvtag,
			  MPI_Comm comm, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Isendrecv_replace";
	struct lm_replace *rep;
	size_t bytes;
	int err = check_send(fn, buf, count, datatype, dest, sendtag, comm);

	if (!err)
		err = check_recv(fn, buf, count, datatype, source, recvtag,
				 comm);
	if (err)
		return err;
	bytes = (size_t)count * (size_t)datatype->size;
	if (bytes > 0x7fffffff)
		return lm_error(comm, fn, MPI_ERR_COUNT,
				"%zu bytes: more than this call handles", bytes);
	rep = calloc(1, sizeof(*rep));
	if (rep)
		rep->tmp = malloc(bytes ? bytes : 1);
	if (!rep || !rep->tmp) {
		free(rep);
		return lm_error(comm, fn, MPI_ERR_NO_MEM,
				"no memory for %zu bytes", bytes);
	}
	rep->buf = buf;
	rep->count = count;
	rep->dt = datatype;
	lm_dt_hold(datatype);
	err = isendrecv(fn, buf, count, datatype, dest, sendtag, rep->tmp,
			(int)bytes, MPI_BYTE, source, recvtag, comm, rep,
			request);
	if (err) {
		free(rep->tmp);
		lm_dt_release(datatype);
		free(rep);
	}
	return err;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype,
			 int dest, int sendtag, int source, int recvtag,
			 MPI_Comm comm, MPI_Status *status)
{
	LM_GUARD();
	MPI_Status st = { .libmsg_count = 0 };
	void *tmp;
	size_t bytes;
	int err;

	err = check_send("MPI_Sendrecv_replace", buf, count, datatype, dest,
			 sendtag, comm);
	if (!err)
		err = check_recv("MPI_Sendrecv_replace", buf, count, datatype,
				 source, recvtag, comm);
	if (err)
		return err;
	bytes = (size_t)count * (size_t)datatype->size;
	if (bytes > 0x7fffffff)
		return lm_error(comm, "MPI_Sendrecv_replace", MPI_ERR_COUNT,
				"%zu bytes: more than this call handles", bytes);
	tmp = malloc(bytes ? bytes : 1);
	if (!tmp)
		return lm_error(comm, "MPI_Sendrecv_replace", MPI_ERR_NO_MEM,
				"no memory for %zu bytes", bytes);
	/* The message arrives packed in tmp, then lands in buf as the type says. */
	err = MPI_Sendrecv(buf, count, datatype, dest, sendtag, tmp, (int)bytes,
			   MPI_BYTE, source, recvtag, comm, &st);
	if (st.libmsg_count > 0)
		lm_dt_unpack(tmp, (uint64_t)st.libmsg_count, buf, count, datatype);
	free(tmp);
	if (status)
		lm_status_out(status, &st);
	return err;
}
