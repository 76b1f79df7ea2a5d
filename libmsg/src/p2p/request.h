/* SPDX-License-Identifier: MIT */
/*
 * request.h: the request object behind MPI_Request (request.c), what
 * a send or receive, a collective's step or schedule, a generalized or
 * a partitioned request carries, and its life: made, started,
 * completed, released.
 */
#ifndef LIBMSG_REQUEST_H
#define LIBMSG_REQUEST_H

#include "comm/comm.h"

struct libmsg_message;


enum { LM_REQ_SEND = 1, LM_REQ_RECV, LM_REQ_COLL, LM_REQ_GREQ };
enum { LM_MODE_STD, LM_MODE_SYNC, LM_MODE_BUFFERED, LM_MODE_READY };

/* Where a send stands. */
enum {
	LM_S_NEW,	/* not yet in a ring */
	LM_S_QUEUED,	/* waiting for ring space, on lm.pending[dst] */
	LM_S_WAIT_FIN,	/* RTS sent */
	LM_S_WAIT_ACK,	/* synchronous eager sent */
	LM_S_CANCELLING,	/* withdrawn; the module's CQE will say so */
	LM_S_DONE,
};

struct libmsg_request {
	uint32_t magic;
	uint8_t kind;		/* LM_REQ_* */
	uint8_t mode;		/* LM_MODE_* */
	uint8_t persistent;
	uint8_t active;		/* started, not yet completed by Wait/Test */
	uint8_t done;		/* the operation completed */
	uint8_t freed;		/* the user let go: free on completion */
	uint8_t cancel;		/* a cancel is in flight (sends) */
	uint8_t revoked;	/* its communicator was revoked while it
				 * waited for its match: withdrawn, it ends
				 * with MPI_ERR_REVOKED (sends) */
	uint8_t internal;	/* no user handle: Bsend's real send */
	uint8_t packed;		/* dt is not contiguous: buf is a packed copy
				 * (sends) or the data is unpacked into ubuf
				 * as it arrives (receives) */
	uint8_t dt_held;	/* holds a reference on dt (lm_dt_hold) */
	uint8_t ft_nb;		/* a program's nonblocking receive (ULFM) */
	uint8_t ft_pending;	/* done for now with MPI_ERR_PROC_FAILED_PENDING:
				 * finishing it posts it again (match.c) */
	int state;		/* sends: LM_S_* */
	struct libmsg_comm *comm;
	int peer;		/* as given: comm rank, ANY_SOURCE, PROC_NULL */
	int wpeer;		/* world rank, or MPI_ANY_SOURCE */
	int tag;
	uint32_t ctx;
	void *buf;		/* the message's bytes: contiguous (span: where
				 * the first block starts) */
	void *ubuf;		/* the user's buffer, as given */
	int count;
	struct libmsg_datatype *dt;
	uint64_t bytes;		/* count * size */
	MPI_Status status;
	struct cds_list_head link;	/* posted queue, pending, inflight,
					 * cancel_wait */
	void *bbuf;		/* buffered sends: the copy in the attached buffer */
	struct lm_rts rts;	/* rendezvous sends: the offer */
	struct lm_span *span;	/* offered where it lies: its layout */
	struct libmsg_message *msg;	/* Imrecv: the message to receive */
	struct lm_sched *sched;	/* a collective's step: its schedule */
	struct lm_greq *greq;	/* generalized: the user's callbacks */
	struct lm_pcoll *pcoll;	/* persistent collective: its arguments */
	/*
	 * MPI_Isendrecv: the receive (the user's request) and the send
	 * (the library's) name each other until the send is done; the
	 * receive is not done before it (request.c, lm_pair_complete).
	 */
	struct libmsg_request *pair;
	uint8_t pair_held;	/* the receive is over, the send is not */
	int pair_err;		/* the send's error, for the receive's status */
	struct lm_replace *replace;	/* MPI_Isendrecv_replace */
	struct lm_part *part;	/* partitioned: its partitions (partitioned.c) */
	/* A message of a partitioned request's (a partition, a bind). */
	struct libmsg_request *part_of;
};

/*
 * Partitioned messages carry the user's tag with this bit set: above
 * MPI_TAG_UB_VALUE, so no other send or receive names it, and
 * MPI_ANY_TAG does not take it (match.c).
 */
#define LM_TAG_PART	0x40000000

/*
 * What a partitioned receive tells its send when they are matched (the
 * bind): its channel, the context id its partitions come on, and how
 * it cuts the message.
 */
struct lm_part_bind {
	uint32_t ctx;
	int32_t partitions;
	uint64_t bytes;
};

/* A partitioned send or receive (partitioned.c). */
struct lm_part {
	int partitions;
	int count;		/* elements per partition */
	int nready;		/* send: partitions marked ready this round */
	uint8_t *ready;		/* send: which */
	uint8_t *arrived;	/* receive: partitions arrived this round */
	int *need;		/* send: per receive partition, send partitions
				 * not yet ready (-1: sent) this round */
	unsigned char *packed;	/* send: a non-contiguous type's bytes, packed
				 * partition by partition as they are marked */
	struct lm_part_bind bind;	/* receive: sent; send: received */
	struct libmsg_request *bind_req;	/* send: the bind's receive */
	uint8_t bound;		/* send: the bind came */
	uint8_t chan_held;	/* receive: bind.ctx is this request's */
	uint8_t round;		/* started, its messages counted in left */
	int bind_err;		/* send: the bind failed (the receiver died) */
	int left;		/* messages of this round not yet complete */
	int inflight;		/* messages of any kind not yet complete */
	int err;		/* the round's first error */
	uint64_t got;		/* receive: bytes this round */
};

/* MPI_Isendrecv_replace: the message lands in tmp, then in buf. */
struct lm_replace {
	void *tmp;
	void *buf;
	int count;
	MPI_Datatype dt;	/* held */
};

/* ---- request.c ------------------------------------------------------------ */

struct libmsg_request *lm_req_new(int kind);
int lm_req_nomem(MPI_Comm comm, const char *fn);
struct libmsg_request *lm_req_alloc(int kind);
void lm_req_init(struct libmsg_request *req, int kind);
void lm_req_release(struct libmsg_request *req);
/* Let go of a request's packed copy and datatype (one never started). */
void lm_req_drop_data(struct libmsg_request *req);
/* The operation is over: status set, a freed request is released. */
void lm_req_complete(struct libmsg_request *req);
/* MPI_Isendrecv_replace's buffer and copy, released. */
void lm_req_replace_drop(struct libmsg_request *r);
int lm_check_request(MPI_Request req);
int lm_wait_one(struct libmsg_request *req);
/*
 * The status a call that returns a single one hands out (Recv, Wait,
 * Test, Waitany, Sendrecv, ...): every field of src but MPI_ERROR,
 * which MPI sets only in the arrays of the multiple-completion calls
 * (MPI-3.1 section 3.2.5); the error is the call's return value.
 */
void lm_status_out(MPI_Status *st, const MPI_Status *src);

/* ---- grequest.c: generalized requests ------------------------------------- */

/* query_fn into req->status; returns its error. */
int lm_greq_query(struct libmsg_request *req);
/* Report a complete one: status (not MPI_ERROR), free_fn, release; *rp = NULL. */
int lm_greq_finish(MPI_Request *rp, MPI_Status *st);
/* MPI_Request_free of one. */
int lm_greq_release(struct libmsg_request *req);
/* MPI_Cancel of one: cancel_fn's error. */
int lm_greq_cancel(struct libmsg_request *req);
/* Lock held: mark those completed without it (1 if any). */
int lm_greq_drain(void);

#endif /* LIBMSG_REQUEST_H */
