/* SPDX-License-Identifier: MIT */
/*
 * p2p.h: what point-to-point offers the layers above: the protocol in
 * the rings, unexpected messages, requests and their completion
 * (request.h), the progress engine, matching, and starting sends and
 * receives.  A message from MPI_Send goes p2p.c (checks, a request) ->
 * progress.c (into the ring, or an offer through the transport) ->
 * the receiver's progress.c -> match.c (posted and unexpected queues,
 * in ring order) -> the request completes (request.c).
 */
#ifndef LIBMSG_P2P_H
#define LIBMSG_P2P_H

#include "comm/comm.h"

/* ---- Protocol: message kinds in the rings --------------------------- */

/* Context ids a peer may name; the queues table grows up to this. */
#define LM_MAX_CTX	(1U << 16)

/*
 * MPICHAN_MSG_DATA: an eager message; payload is the data.  The others
 * (>= MPICHAN_MSG_USER) carry a struct below first.
 */
enum {
	LM_MSG_EAGER_SYNC = MPICHAN_MSG_USER,	/* lm_sync, then data */
	LM_MSG_RTS,		/* lm_rts: rendezvous request to send */
	LM_MSG_FIN,		/* lm_ctl: receiver copied a rendezvous */
	LM_MSG_ACK,		/* lm_ctl: a synchronous send was matched */
	LM_MSG_CANCEL,		/* lm_ctl: sender withdraws an unmatched send */
	LM_MSG_CANCEL_REPLY,	/* lm_ctl: status 1 = withdrawn */
};

struct lm_sync {
	uint64_t sreq;		/* sender's request, echoed in the ACK */
};

struct lm_ctl {
	uint64_t sreq;
	int32_t status;		/* FIN: 0 or -errno of the copy; CANCEL_REPLY */
	uint32_t pad;
};

/* An unexpected message, and what MPI_Mprobe hands out. */
struct libmsg_message {
	uint32_t magic;
	uint16_t kind;		/* MPICHAN_MSG_DATA, LM_MSG_EAGER_SYNC, LM_MSG_RTS */
	uint16_t pulled;	/* an RTS whose data was pulled into data[] */
	int err;		/* the pull failed: -errno for the receive */
	int wsrc;		/* sender's world rank */
	int tag;
	uint32_t ctx;
	struct cds_list_head link;
	struct libmsg_comm *comm;	/* set by Mprobe */
	uint64_t size;
	struct lm_rts rts;	/* LM_MSG_RTS; rts.sreq also for EAGER_SYNC */
	unsigned char *data;	/* eager payload or pulled data, owned */
	struct lm_rts_seg *seg;	/* LM_RTS_LAYOUT: its segments, owned */
};

#include "p2p/request.h"
#include "p2p/rndv/rndv.h"

/* ---- progress.c ------------------------------------------------------------ */

int lm_progress_init(void);
void lm_progress_fini(void);
/* Poll once: returns non-zero if anything happened. */
int lm_progress(void);
/* One step of a blocking wait: progress, or spin/sleep when idle. */
void lm_progress_block(void);
/*
 * blocked.c: what a blocking call waits for, published in the rank
 * control block (wait_*) for tools once the wait lasts.
 */
struct lm_blocked {
	const char *call;	/* "MPI_Recv"; NULL: the caller's */
	uint16_t kind;		/* MPICHAN_WAIT_* */
	int32_t peer;		/* world rank, MPICHAN_RANK_ANY or _NONE */
	int32_t tag;
	uint32_t ctx, csize;
	uint64_t bytes;
	int published;
	struct lm_blocked *outer;
};
extern __thread struct lm_blocked *lm_blocked_cur
	__attribute__((tls_model("initial-exec")));
/* peer: a rank of c, MPI_ANY_SOURCE, or MPI_PROC_NULL (no one rank). */
void lm_blocked_comm(struct lm_blocked *b, const char *call, uint16_t kind,
		     const struct libmsg_comm *c, int peer, int tag,
		     uint64_t bytes);
void lm_blocked_req(struct lm_blocked *b, const char *call,
		    const struct libmsg_request *r);
/* Around a wait loop: nothing is written unless the wait lasts. */
void lm_blocked_enter(struct lm_blocked *b);
void lm_blocked_leave(struct lm_blocked *b);
/* lm_progress_block: an idle poll (sleeping: about to sleep). */
void lm_blocked_tick(int sleeping);
/* lm_wait_one, told which call waits. */
int lm_wait_in(const char *call, struct libmsg_request *req);
void lm_poll_yield(void);
/*
 * A nonblocking call (Iprobe, Improbe, the Test family,
 * Request_get_status, Parrived) comes back empty-handed: oversubscribed,
 * it gives the CPU away (lm_poll_yield, progress.c); otherwise this
 * test is all it costs.  Called last, with nothing of the call's held.
 */
static inline void lm_poll_missed(void)
{
	if (__builtin_expect(lm.oversubscribed, 0))
		lm_poll_yield();
}
/* report.c: what this rank waits for, after stalled_ns without progress. */
void lm_report_wait(uint64_t stalled_ns);
/* Put a send into its ring or queue it (order is kept per destination). */
void lm_send_start(struct libmsg_request *req);
/* Send a protocol message (FIN, ACK, ...) to world rank dst. */
void lm_send_ctl(int dst, uint16_t kind, uint64_t sreq, int32_t status);
/* Withdraw a send; returns 1 when it was still unsent. */
int lm_send_cancel(struct libmsg_request *req);

/* ---- p2p_fast.c: blocking small messages on a quiet library --------------- */

/*
 * MPI_Send / MPI_Recv of a small contiguous message in one step:
 * 1 when done, 0 (nothing changed) when the general path must do it.
 */
int lm_fast_send(const void *buf, int count, MPI_Datatype dt, int dest,
		 int tag, MPI_Comm comm);
int lm_fast_recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
		 MPI_Comm comm, MPI_Status *status);
/*
 * The same for a library-internal message (a collective's step) to or
 * from world rank w: put on context ctx, or take from q's context a
 * message of exactly bytes.  1 when done, 0 for the general path.
 */
int lm_fast_put(uint32_t w, uint32_t ctx, int tag, const void *buf,
		uint64_t bytes);
int lm_fast_get(struct lm_match *q, uint32_t w, int tag, void *buf,
		uint64_t bytes);

/* ---- match.c -------------------------------------------------------------- */

/*
 * A message arrived from world rank src (called in ring order): 0 when
 * taken, -ENOMEM when it must stay in the ring for now.
 */
int lm_match_incoming(int src, const struct mpichan_msg *m);
/* Post a receive: match it against the unexpected queue or queue it. */
void lm_match_post(struct libmsg_request *req);
/* Receive an Mprobe'd message into req. */
void lm_match_deliver_msg(struct libmsg_request *req,
			  struct libmsg_message *msg);
/* First unexpected message matching (wsrc, tag) on m, or NULL. */
struct libmsg_message *lm_match_find(struct lm_match *m, int wsrc, int tag);
int lm_match_cancel_recv(struct libmsg_request *req);
/* A sender withdraws its unmatched message: 1 if it was found. */
int lm_match_withdraw(int src, uint64_t sreq);
/* Blocked: copy unexpected rendezvous messages so their senders go on. */
int lm_match_pull(void);
/*
 * A rank died: fail receives waiting for it, by name or as a wildcard on
 * a communicator it belongs to.
 */
void lm_match_peer_dead(int w);
/* The dead world rank a receive from wpeer on comm waits for, or -1. */
int lm_match_dead_source(const struct libmsg_comm *comm, int wpeer);
/* ... but not a failure the program acknowledged (MPIX_Comm_ack_failed). */
int lm_match_dead_unacked(const struct libmsg_comm *comm, int wpeer);
/* Post again a receive finished with MPI_ERR_PROC_FAILED_PENDING. */
void lm_match_repost(struct libmsg_request *req);
void lm_message_free(struct libmsg_message *msg);
void lm_status_set(MPI_Status *st, const struct libmsg_comm *comm, int wsrc,
		   int tag, uint64_t bytes, int err);

/* ---- p2p.c ---------------------------------------------------------------- */

int lm_check_buffer(const void *buf, int count, MPI_Datatype dt,
		    const char *fn, struct libmsg_comm *comm);
/* Point a request at count elements of dt in buf (holds a derived dt). */
void lm_req_set_buffer(struct libmsg_request *r, const void *buf, int count,
		       MPI_Datatype dt);
/* A send of a non-contiguous type: pack it (0, or MPI_ERR_NO_MEM). */
int lm_req_pack(struct libmsg_request *r);
void lm_bsend_release(struct libmsg_request *req);
/* Start a send request in its mode (0, or the error raised). */
int lm_send_begin(struct libmsg_request *r, const char *fn);
/* MPI_Send_init and MPI_Recv_init, reporting as fn. */
int lm_send_init(const char *fn, const void *buf, int count, MPI_Datatype dt,
		 int dest, int tag, MPI_Comm comm, MPI_Request *request);
int lm_recv_init(const char *fn, void *buf, int count, MPI_Datatype dt,
		 int source, int tag, MPI_Comm comm, MPI_Request *request);

/* ---- partitioned.c --------------------------------------------------------- */

/* MPI_Start of a partitioned send (no partition ready yet) or receive. */
int lm_part_start(struct libmsg_request *r);
void lm_part_free(struct lm_part *p);
/* A message of a partitioned request's completed: counted, released. */
void lm_part_sub_done(struct libmsg_request *s);
/* MPI_Request_free: 1 when the release waits for r's messages. */
int lm_part_free_req(struct libmsg_request *r);
/* A wait for r would never end: the error raised as fn, else 0. */
int lm_part_stuck(const struct libmsg_request *r, const char *fn);

/* ---- ulfm.c: revoke and agreement over shared memory (ULFM) ------------ */

/* Bytes at the end of each rank's part of the collective area. */
#define LM_FT_BYTES	32768

/* How a member took part in an agreement (lm_ft_agreement.in[]). */
enum { LM_FT_UNDECIDED, LM_FT_IN, LM_FT_FAILED, LM_FT_LEFT };

struct lm_ft_agreement {
	/* Its members: the communicator's, an intercommunicator's uc. */
	const struct libmsg_comm *comm;
	const struct libmsg_comm *inter;	/* the intercommunicator */
	uint32_t pair;		/* comm->ctx / 2 */
	uint32_t seq;		/* this agreement's number on comm */
	uint32_t value;		/* the AND so far; the result when decided */
	uint32_t rvalue;	/* inter's remote group's AND */
	int left;		/* members not yet decided */
	uint8_t *in;		/* per comm rank: LM_FT_* */
	struct cds_list_head link;	/* under way (next NULL: not) */
	/* Nonblocking: called by progress once decided, else NULL. */
	void (*done)(struct lm_ft_agreement *ag);
	/*
	 * Listed by lm_ulfm_watch instead of an agreement: progress calls
	 * it until it returns non-zero (it then took itself off the list).
	 */
	int (*poll)(struct lm_ft_agreement *ag);
};

/* Can c be revoked and agree over shared memory? */
int lm_ulfm_usable(const struct libmsg_comm *c);
int lm_ulfm_revoked(const struct libmsg_comm *c);
int lm_ulfm_ctx_revoked(uint32_t ctx);
/* Revoke c: every member's calls on it fail with MPI_ERR_REVOKED. */
int lm_ulfm_revoke(const struct libmsg_comm *c);
/* A new communicator took ctx: no revoke, no agreement on it yet. */
void lm_ulfm_ctx_fresh(uint32_t ctx);
/* Progress: revokes that came, nonblocking agreements decided. */
int lm_ulfm_poll(void);
/* Has a revoke come that progress has not taken in yet? */
int lm_ulfm_unseen(void);
/* Before sleeping, without the lock: anything to poll for? */
int lm_ulfm_ready(void);
/*
 * Publish value in a new agreement on c (0 or an MPI error class); on
 * an intercommunicator its members are both groups (c->uc).
 */
int lm_ulfm_agree_start(struct lm_ft_agreement *ag,
			const struct libmsg_comm *c, uint32_t value);
/* 1 when every member is decided (ag->value, ag->in[] final). */
int lm_ulfm_agree_test(struct lm_ft_agreement *ag);
/* Have progress call ag->poll (lm_ulfm_agree_end takes it off). */
void lm_ulfm_watch(struct lm_ft_agreement *ag);
void lm_ulfm_agree_end(struct lm_ft_agreement *ag);
/* progress.c: fail the sends queued on context ctx with err. */
void lm_progress_fail_ctx(uint32_t ctx, int err);

#endif /* LIBMSG_P2P_H */
