/* SPDX-License-Identifier: MIT */
/*
 * lm.h: libmsg's internal objects and the interfaces between its
 * layers (API and argument checks, requests and progress, matching,
 * transports).  Nothing here is visible to MPI programs.
 */
#ifndef LIBMSG_LM_H
#define LIBMSG_LM_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <urcu/list.h>
#include <urcu/urcu-memb.h>

#include "mpi.h"
#include "transport.h"

#define LM_MAGIC_COMM	0x434f4d4dU	/* "COMM" */
#define LM_MAGIC_DT	0x44545950U	/* "DTYP" */
#define LM_MAGIC_REQ	0x52455155U	/* "REQU" */
#define LM_MAGIC_ERRH	0x45525248U	/* "ERRH" */
#define LM_MAGIC_MSG	0x4d534721U	/* "MSG!" */
#define LM_MAGIC_OP	0x4f504552U	/* "OPER" */
#define LM_MAGIC_INFO	0x494e464fU	/* "INFO" */
#define LM_MAGIC_GROUP	0x47525550U	/* "GRUP" */
#define LM_MAGIC_SESSION	0x53455353U	/* "SESS" */

/* ---- Protocol: message kinds in the rings --------------------------- */

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

/* ---- Objects --------------------------------------------------------- */

/*
 * A datatype's layout: its blocks in typemap order (the order pack and
 * unpack follow), as segments.  A leaf segment is `count` blocks of
 * `len` bytes, `stride` apart, from byte `off` of the buffer; a node
 * segment repeats a whole sub-layout instead, so nesting and large
 * counts cost one segment, not one per block.  Layouts are shared
 * (refs) by the types built on them and outlive MPI_Type_free.
 */
struct lm_layout;
struct lm_tile_cache;

struct lm_seg {
	int64_t off;		/* the first block, from the buffer address */
	int64_t stride;		/* bytes between repetitions */
	uint64_t count;		/* repetitions, >= 1 */
	uint64_t len;		/* leaf: bytes per block; node: sub->size */
	struct lm_layout *sub;	/* NULL: a leaf */
	uint32_t esize;		/* leaf: bytes of its basic elements */
	uint32_t epe;		/* leaf: basic elements in esize bytes */
};

struct lm_layout {
	uint32_t refs;
	uint32_t nsegs;
	uint64_t size;		/* bytes of data */
	uint64_t nelem;		/* basic elements */
	/*
	 * A committed type's tile (dtype_tile.c), for the extent it was
	 * worked out with.  Here, not in the type: the predefined types'
	 * size is part of the library's ABI.
	 */
	struct lm_tile_cache *tiles;
	struct lm_seg segs[];
};

struct lm_attr;
struct lm_pcoll;

struct libmsg_datatype {
	uint32_t magic;
	int index;		/* LM_DT_*: a basic type's reduction loops */
	int64_t size;		/* bytes of data in one element */
	const char *name;	/* the MPI name, or name_buf */
	int64_t lb, extent;	/* where element i + 1 starts: i * extent */
	int64_t true_lb, true_extent;	/* the bytes actually touched */
	uint32_t align;		/* struct extents round up to this */
	uint8_t predefined;
	uint8_t committed;
	uint8_t contig1;	/* one element is one run of size bytes at true_lb */
	uint8_t dense;		/* ... and extent == size: any count is one run */
	uint8_t freed;		/* the handle is gone (MPI_Type_free) */
	uint8_t explicit_bounds;	/* lb/extent set by resized or subarray */
	uint32_t refs;		/* derived: the handle + operations using it */
	struct lm_layout *layout;	/* derived: its blocks; NULL for basic */
	/* The one basic type all elements are (reductions), or NULL. */
	struct libmsg_datatype *basic;
	uint64_t nbasic;	/* ... and how many of them one element holds */
	struct lm_attr *attrs;	/* cached attributes, newest first */
	char name_buf[MPI_MAX_OBJECT_NAME];
};

/* The basic datatypes, in datatype.c's order. */
enum {
	LM_DT_CHAR, LM_DT_SIGNED_CHAR, LM_DT_UNSIGNED_CHAR, LM_DT_BYTE,
	LM_DT_WCHAR, LM_DT_SHORT, LM_DT_UNSIGNED_SHORT, LM_DT_INT,
	LM_DT_UNSIGNED, LM_DT_LONG, LM_DT_UNSIGNED_LONG, LM_DT_LONG_LONG,
	LM_DT_UNSIGNED_LONG_LONG, LM_DT_FLOAT, LM_DT_DOUBLE,
	LM_DT_LONG_DOUBLE, LM_DT_C_BOOL, LM_DT_INT8_T, LM_DT_INT16_T,
	LM_DT_INT32_T, LM_DT_INT64_T, LM_DT_UINT8_T, LM_DT_UINT16_T,
	LM_DT_UINT32_T, LM_DT_UINT64_T, LM_DT_AINT, LM_DT_OFFSET,
	LM_DT_COUNT, LM_DT_C_FLOAT_COMPLEX, LM_DT_C_DOUBLE_COMPLEX,
	LM_DT_C_LONG_DOUBLE_COMPLEX, LM_DT_PACKED, LM_DT_FLOAT_INT,
	LM_DT_DOUBLE_INT, LM_DT_LONG_INT, LM_DT_2INT, LM_DT_SHORT_INT,
	LM_DT_LONG_DOUBLE_INT,
	LM_DT_NTYPES,
	LM_DT_DERIVED = LM_DT_NTYPES	/* no loops: see basic, nbasic */
};

/* The (value, index) pairs of MINLOC and MAXLOC, as MPI lays them out. */
struct lm_float_int { float v; int i; };
struct lm_double_int { double v; int i; };
struct lm_long_int { long v; int i; };
struct lm_2int { int v, i; };
struct lm_short_int { short v; int i; };
struct lm_long_double_int { long double v; int i; };

/* A reduction operation: predefined (fn NULL) or MPI_Op_create's. */
struct libmsg_op {
	uint32_t magic;
	uint8_t commute;	/* the user said the op is commutative */
	uint8_t predefined;
	int id;			/* predefined: LM_OP_* */
	MPI_User_function *fn;
	const char *name;
	uint32_t refs;		/* user ops: the handle + lm_op_hold()s */
};

enum {
	LM_OP_MAX, LM_OP_MIN, LM_OP_SUM, LM_OP_PROD, LM_OP_LAND, LM_OP_BAND,
	LM_OP_LOR, LM_OP_BOR, LM_OP_LXOR, LM_OP_BXOR, LM_OP_MINLOC,
	LM_OP_MAXLOC, LM_OP_REPLACE, LM_OP_NO_OP, LM_OP_USER,
};

struct libmsg_errhandler {
	uint32_t magic;
	int kind;		/* LM_ERRH_* */
	/* LM_ERRH_USER: */
	int session;		/* made for sessions, not communicators */
	MPI_Comm_errhandler_function *fn;
	MPI_Session_errhandler_function *session_fn;
	int refs;		/* the user's handle, objects it is on, gets */
};

enum { LM_ERRH_FATAL, LM_ERRH_RETURN, LM_ERRH_ABORT, LM_ERRH_USER };

/*
 * Why h may not go on a session (session 1) or a communicator (0):
 * NULL when it may.
 */
const char *lm_errh_misfit(MPI_Errhandler h, int session);

/* A communicator takes (or leaves) an error handler. */
void lm_errh_hold(MPI_Errhandler h);
void lm_errh_put(MPI_Errhandler h);
/* An object's handler becomes h (held), the old one let go. */
void lm_errh_set(MPI_Errhandler *slot, MPI_Errhandler h);

/* Posted receives and unexpected messages of one context id. */
struct lm_match {
	uint32_t ctx;
	struct cds_list_head posted;		/* libmsg_request.link */
	struct cds_list_head unexpected;	/* libmsg_message.link */
};


struct libmsg_comm {
	uint32_t magic;
	int size;
	int rank;
	const int *world;	/* comm rank -> world rank; NULL: identity */
	const int *local;	/* world rank -> comm rank or -1; NULL: search */
	uint32_t ctx;		/* point-to-point; ctx + 1 is collective */
	uint32_t coll_seq;	/* collectives started: the next one's tag */
	struct lm_match *p2p, *coll;
	MPI_Errhandler errh;
	char name[MPI_MAX_OBJECT_NAME];
	struct lm_attr *attrs;	/* cached attributes, newest first */
	int *maps;		/* created communicators: world[] and local[] */
	struct cds_list_head link;	/* created ones: live or freed list */
};

/* An ordered set of processes, by world rank. */
struct libmsg_group {
	uint32_t magic;
	int size;
	int rank;		/* this process's rank in it, or MPI_UNDEFINED */
	int *world;		/* group rank -> world rank */
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
	uint8_t internal;	/* no user handle: Bsend's real send */
	uint8_t packed;		/* dt is not contiguous: buf is a packed copy
				 * (sends) or the data is unpacked into ubuf
				 * as it arrives (receives) */
	uint8_t dt_held;	/* holds a reference on dt (lm_dt_hold) */
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
};

/*
 * Partitioned messages carry the user's tag with this bit set: above
 * MPI_TAG_UB_VALUE, so no other send or receive names it, and
 * MPI_ANY_TAG does not take it (match.c).
 */
#define LM_TAG_PART	0x40000000

/* A partitioned send or receive (partitioned.c). */
struct lm_part {
	int partitions;
	int nready;		/* send: partitions marked ready this round */
	uint8_t *ready;		/* send: which */
};

/* MPI_Isendrecv_replace: the message lands in tmp, then in buf. */
struct lm_replace {
	void *tmp;
	void *buf;
	int count;
	MPI_Datatype dt;	/* held */
};

/* MPI_Session_init's handle (session.c). */
struct libmsg_session {
	uint32_t magic;
	MPI_Errhandler errh;	/* held */
};

/* ---- Global state ------------------------------------------------------ */

enum { LM_WAIT_HYBRID, LM_WAIT_SPIN, LM_WAIT_SLEEP };
enum { LM_SPAN_OFF, LM_SPAN_ON, LM_SPAN_AUTO };

struct lm_state {
	int initialized, finalized;	/* joined the job, left it */
	int world_init, world_done;	/* MPI_Init, MPI_Finalize called */
	int sessions;			/* sessions not finalized */
	int thread_level;
	struct lm_job job;
	uint32_t eager;			/* largest eager payload */
	int wait_mode;			/* LM_WAIT_* */
	uint64_t spin_ns;		/* hybrid: spin this long before sleeping */
	int appnum;			/* MPI_APPNUM: mpiexec's program */
	uint64_t report_ns;		/* tell what a wait stalled this long
					 * waits for (0: never; report.c) */
	uint64_t pull_max;		/* bytes of unexpected rendezvous to pull */
	int span;			/* LM_SPAN_*: sends offered in place */
	uint64_t span_sparse;		/* ... spans of at most this x data */
	int iov;			/* LM_SPAN_*: sends the module gathers */
	int oversubscribed;		/* more ranks in the job than CPUs */
	uint64_t pulled;		/* bytes pulled now */
	struct cds_list_head *pending;	/* per destination: queued sends */
	uint32_t npending;		/* sends queued in all of pending[] */
	struct cds_list_head inflight;	/* sends waiting for FIN/ACK */
	struct cds_list_head cancel_wait;	/* sends received, waiting for
						 * their cancel's reply */
	uint32_t cq_wait;		/* sends whose completion is a CQE */
	uint8_t *dead;			/* per world rank: known dead */
	pid_t pid;
};

extern struct lm_state lm;

#include "thread.h"

/* MPI_Init has run and MPI_Finalize has not. */
static inline int lm_live(void)
{
	return lm.initialized && !lm.finalized;
}

/* ---- errors.c -------------------------------------------------------- */

/*
 * Report error class `code` raised by MPI call `fn` on `comm` (NULL for
 * calls without one: MPI_COMM_WORLD's handler applies).  Returns code
 * when the handler lets the call return.
 */
int lm_error(struct libmsg_comm *comm, const char *fn, int code,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same on a session's handler (NULL: as for lm_error(NULL, ...)). */
int lm_session_error(struct libmsg_session *s, const char *fn, int code,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/*
 * The same on handler h, for a call that makes the communicator h is
 * for (MPI_Comm_create_from_group): its handler sees MPI_COMM_NULL.
 */
int lm_errh_error(MPI_Errhandler h, const char *fn, int code,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void lm_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						   noreturn));
/* "libmsg: rank R: " and the message, one line in one write to stderr. */
void lm_vsay(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int lm_errno_class(int err);
/* A predefined error class, or one the program added. */
int lm_err_is_class(int code);

/* ---- coll_persist.c: persistent collectives ---------------------------- */

/* MPI_Start is running a persistent collective: its request, for
 * lm_coll_run() to run the schedule under. */
extern __thread struct libmsg_request *lm_pcoll_into
	__attribute__((tls_model("initial-exec")));
int lm_pcoll_start(struct libmsg_request *req);
void lm_pcoll_free(struct lm_pcoll *pc);

/* ---- errcodes.c: error classes and codes the program adds ------------ */

/* code's class if the program added it, else -1. */
int lm_err_user_class(int code);
/* Its string ("" until MPI_Add_error_string). */
const char *lm_err_user_string(int code);
/* MPI_LASTUSEDCODE's value. */
int *lm_err_lastused(void);

/* ---- init.c ------------------------------------------------------------ */

int lm_check_init(const char *fn);
uint64_t lm_now_ns(void);
/*
 * The first MPI_Init or MPI_Session_init joins the job at thread level
 * `required` (clamped); a later one may raise the level to MULTIPLE.
 * The last MPI_Finalize or MPI_Session_finalize leaves it: each calls
 * lm_leave_if_last once it has ended its own.
 */
void lm_join(int required, const char *fn);
int lm_leave_if_last(const char *fn);

/* ---- info.c ------------------------------------------------------------ */

const char *lm_thread_level_name(int level);
/* "MPI_THREAD_..." -> its level, or -1. */
int lm_thread_level_parse(const char *name);
/* key's value into buf[len] (cut): 1, or 0 when info has no key. */
int lm_info_lookup(MPI_Info info, const char *key, char *buf, size_t len);
/* MPI_INFO_NULL or a live info object. */
int lm_info_ok(MPI_Info info);
/* A new info object, with one key and value unless key is NULL. */
MPI_Info lm_info_make(const char *key, const char *value);

/* ---- comm.c ------------------------------------------------------------ */

/* Context ids of the predefined communicators and reserved uses. */
#define LM_CTX_WORLD	0
#define LM_CTX_SELF	2
#define LM_CTX_AGREE	4	/* MPI_Comm_create_group's agreement */
#define LM_CTX_SESSION	6	/* MPI_Comm_create_from_group's agreement */
#define LM_CTX_FIRST	8	/* the first one for created communicators */
#define LM_CTX_LIMIT	4096	/* context ids: 0 .. LM_CTX_LIMIT - 1 */

int lm_comm_init(void);
void lm_comm_fini(void);
int lm_check_comm(MPI_Comm comm, const char *fn);
/*
 * A communicator of size ranks (world[r]: world rank of rank r; NULL:
 * all of MPI_COMM_WORLD in order) on context ctx, inheriting parent's
 * error handler; this process must be in world[].  Not yet registered
 * (lm_comm_register: it then owns ctx); lm_comm_discard() undoes it.
 * NULL when out of memory.
 */
struct libmsg_comm *lm_comm_new(const struct libmsg_comm *parent, int size,
				const int *world, uint32_t ctx);
void lm_comm_register(struct libmsg_comm *c);
void lm_comm_discard(struct libmsg_comm *c);
/* Release freed communicators whose operations are over. */
void lm_comm_reap(void);
struct lm_match *lm_match_get(uint32_t ctx);
void lm_match_each(void (*fn)(struct lm_match *m, void *arg), void *arg);
/* The live communicator of point-to-point context ctx, or NULL. */
const struct libmsg_comm *lm_comm_of_ctx(uint32_t ctx);
/* Comm rank of world rank w in comm, or -1. */
int lm_comm_local(const struct libmsg_comm *comm, int w);
static inline int lm_comm_world(const struct libmsg_comm *comm, int r)
{
	return comm->world ? comm->world[r] : r;
}

/* ---- ctxid.c: context ids of created communicators ---------------------- */

void lm_ctx_init(void);
/*
 * Collective over `over`: the lowest context id free on every one of
 * its processes (MPI_Allreduce with MPI_BAND of the free masks).
 * MPI_SUCCESS, or an error class already reported for fn.
 */
int lm_ctx_agree(struct libmsg_comm *over, const char *fn, uint32_t *ctx);
void lm_ctx_take(uint32_t ctx);
void lm_ctx_release(uint32_t ctx);
int lm_ctx_in_use(void);

/* ---- group.c ------------------------------------------------------------ */

int lm_check_group(MPI_Group group, const char *fn);
/* A group of the n world ranks in world[] (copied; NULL: 0 .. n - 1). */
struct libmsg_group *lm_group_new(int n, const int *world);

/* ---- attr.c ------------------------------------------------------------- */

/* MPI_Comm_dup: run the copy callbacks of old's attributes onto c. */
int lm_attr_copy(struct libmsg_comm *old, struct libmsg_comm *c,
		 const char *fn);
/* Run the delete callbacks of every attribute of c, newest first. */
int lm_attr_delete_all(struct libmsg_comm *c, const char *fn);
/* Drop c's attributes without callbacks (the library is going away). */
void lm_attr_drop(struct libmsg_comm *c);
/* The same for datatypes (MPI_Type_dup, MPI_Type_free). */
int lm_type_attr_copy(MPI_Datatype old, MPI_Datatype dt, const char *fn);
int lm_type_attr_delete_all(MPI_Datatype dt, const char *fn);
void lm_type_attr_drop(MPI_Datatype dt);
void lm_attr_fini(void);

/* ---- datatype.c, dtype_build.c, pack.c: datatypes ------------------------ */

/* MPI_SUCCESS if dt can be used to move data (valid, committed), else MPI_ERR_TYPE. */
int lm_check_datatype(MPI_Datatype dt);
/* Why lm_check_datatype() said no, for the message ("datatype is ..."). */
const char *lm_datatype_why(MPI_Datatype dt);
/* A valid handle (committed or not), for queries and constructors. */
int lm_datatype_valid(MPI_Datatype dt);
/* A derived datatype, and what deferring its free takes (dt first). */
struct lm_dt_box {
	struct libmsg_datatype dt;
	struct rcu_head rcu;
	struct lm_contents *contents;	/* how the program built it */
};

/* ---- dtype_contents.c: what a derived type was built from ----------------- */

/* A run of the integers a constructor was given. */
struct lm_ints {
	const int *p;
	int n;
};

/*
 * A constructor's last step: err, or record its arguments in the new
 * type for MPI_Type_get_envelope/get_contents (the types held).
 */
int lm_dt_made(const char *fn, int err, MPI_Datatype *newtype, int combiner,
	       const struct lm_ints *ints, int npieces, const MPI_Aint *aints,
	       int na, const MPI_Datatype *types, int nd);
/* The last hold on dt went: let go of what it was built from. */
void lm_dt_contents_drop(MPI_Datatype dt);
/* Keep a derived type alive while an operation uses it; no-ops on basic. */
void lm_dt_hold(MPI_Datatype dt);
void lm_dt_release(MPI_Datatype dt);
void lm_layout_put(struct lm_layout *l);
/* Basic elements in one element of a predefined type (pairs: 2). */
uint32_t lm_dt_basic_elements(MPI_Datatype dt);
/* A new handle for a copy of dt (MPI_Type_dup). */
int lm_dt_dup(const char *fn, MPI_Datatype dt, MPI_Datatype *out);
/* The hindexed and resized constructors' types, without a record. */
int lm_dt_hindexed(const char *fn, int count, const int *blocklengths,
		   const MPI_Aint *displs, MPI_Datatype old, MPI_Datatype *out);
int lm_dt_resized(const char *fn, MPI_Datatype old, MPI_Aint lb,
		  MPI_Aint extent, MPI_Datatype *out);
/*
 * Are count elements of dt one run of bytes?  Then they start at
 * buf + lm_dt_offset(dt) (the true lower bound).
 */
static inline int lm_dt_contig(MPI_Datatype dt, int64_t count)
{
	return dt->dense || (count <= 1 && dt->contig1);
}
static inline int64_t lm_dt_offset(MPI_Datatype dt)
{
	return dt->true_lb;
}
/* n blocks of len bytes from s (sstep apart) to d (dstep apart). */
void lm_copy_blocks(unsigned char *d, int64_t dstep, const unsigned char *s,
		    int64_t sstep, uint64_t len, uint64_t n);

/* ---- dtype_tile.c: a message as repeated blocks ------------------------ */

/* Blocks per repeating unit, at most: as many as an RTS carries. */
#define LM_TILE_BLOCKS	LM_RTS_BLOCKS

/*
 * n elements, stride apart, the first at buf + off; each is k blocks,
 * block j blen[j] bytes at boff[j] from the element's start (boff[0] is
 * 0), ascending, apart; size is the sum of blen.
 */
struct lm_tile {
	int64_t off;
	int64_t stride;
	uint64_t n;
	uint64_t size;
	uint32_t k;
	uint64_t boff[LM_TILE_BLOCKS];
	uint64_t blen[LM_TILE_BLOCKS];
};

int lm_dt_tile(MPI_Datatype dt, int64_t count, struct lm_tile *t);
/* MPI_Type_commit: work the answers of lm_dt_tile out once. */
void lm_dt_tile_cache(MPI_Datatype dt);
void lm_tile_pack(const struct lm_tile *t, const void *buf, void *out);
uint64_t lm_tile_span(const struct lm_tile *t);
/* Whole elements copied a run at a time, block column by block column. */
#define LM_TILE_RUN	256
void lm_tile_columns(unsigned char *dst, int64_t dstep, const uint64_t *doff,
		     const unsigned char *src, int64_t sstep,
		     const uint64_t *soff, const struct lm_tile *t, uint64_t m);
void lm_tile_prefix(const struct lm_tile *t, uint64_t *pre);
/* Packed message bytes [from, to) at in into buf, laid out by t. */
void lm_tile_unpack(const struct lm_tile *t, void *buf, const void *in,
		    uint64_t from, uint64_t to);

#include "rndv.h"

/* ---- op.c ----------------------------------------------------------------- */

/*
 * Can op reduce elements of dt?  MPI_SUCCESS, or MPI_ERR_OP (not an
 * op, or a predefined op MPI does not define on dt) / MPI_ERR_TYPE
 * (not a datatype), with a readable reason in *why (valid until the
 * next call from this thread).
 */
int lm_op_check(MPI_Op op, MPI_Datatype dt, const char **why);
/*
 * inout[i] = in[i] op inout[i] for count elements of dt (MPI order);
 * lm_op_check() said yes.  in == inout is allowed for predefined ops.
 */
void lm_op_apply(MPI_Op op, const void *in, void *inout, int count,
		 MPI_Datatype dt);
/*
 * Keep a user op alive past MPI_Op_free (a nonblocking reduction that
 * uses it); each hold is ended by one release.  No-ops on predefined.
 */
void lm_op_hold(MPI_Op op);
void lm_op_release(MPI_Op op);
static inline int lm_op_commutes(MPI_Op op)
{
	return op->commute;
}

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

/* ---- grequest.c: generalized requests ------------------------------------- */

/* query_fn into req->status; returns its error. */
int lm_greq_query(struct libmsg_request *req);
/* Report a complete one: status, free_fn, release; *rp = NULL. */
int lm_greq_finish(MPI_Request *rp, MPI_Status *st);
/* MPI_Request_free of one. */
int lm_greq_release(struct libmsg_request *req);
/* MPI_Cancel of one: cancel_fn's error. */
int lm_greq_cancel(struct libmsg_request *req);
/* Lock held: mark those completed without it (1 if any). */
int lm_greq_drain(void);

/* ---- progress.c ------------------------------------------------------------ */

int lm_progress_init(void);
void lm_progress_fini(void);
/* Poll once: returns non-zero if anything happened. */
int lm_progress(void);
/* One step of a blocking wait: progress, or spin/sleep when idle. */
void lm_progress_block(void);
/* report.c: what this rank waits for, after stalled_ns without progress. */
void lm_report_wait(uint64_t stalled_ns);
/* Put a send into its ring or queue it (order is kept per destination). */
void lm_send_start(struct libmsg_request *req);
/* Send a protocol message (FIN, ACK, ...) to world rank dst. */
void lm_send_ctl(int dst, uint16_t kind, uint64_t sreq, int32_t status);
/* Withdraw a send; returns 1 when it was still unsent. */
int lm_send_cancel(struct libmsg_request *req);
/* Is a collective's round waiting to be started by lm_progress()? */
int lm_coll_ready(void);
/*
 * coll_area.c.  Before sleeping, after NEED_WAKEUP is set: has a
 * collective waited for in the area completed?  Safe without the lock.
 */
int lm_area_ready(void);
/* Must c's context id stay taken when c goes (a member died)? */
int lm_area_keep_ctx(const struct libmsg_comm *c);

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
void lm_message_free(struct libmsg_message *msg);
void lm_status_set(MPI_Status *st, const struct libmsg_comm *comm, int wsrc,
		   int tag, uint64_t bytes, int err);

/* ---- info.c --------------------------------------------------------------- */

/* An info argument: MPI_INFO_NULL or a live info object. */
int lm_check_info_arg(struct libmsg_comm *comm, MPI_Info info, const char *fn);

/* ---- topo.c ---------------------------------------------------------------- */

/* MPI_Finalize: release the topologies of communicators never freed. */
void lm_topo_fini(void);

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

/* MPI_Start of a partitioned send: no partition is ready yet. */
int lm_part_start(struct libmsg_request *r, const char *fn);
void lm_part_free(struct lm_part *p);
/* A wait for r would never end: the error raised as fn, else 0. */
int lm_part_stuck(const struct libmsg_request *r, const char *fn);

#endif /* LIBMSG_LM_H */
