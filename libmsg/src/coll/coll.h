/* SPDX-License-Identifier: MIT */
/*
 * coll.h: collectives as schedules.
 *
 * Every collective, blocking or not, is built as a schedule: rounds of
 * steps (send, receive, local copy, local reduction) over the
 * communicator's collective context (ctx + 1), with a tag taken from
 * the communicator's collective sequence number, so two collectives in
 * flight on one communicator never exchange messages.  A round's local
 * steps run first, in order; then its sends and receives are posted;
 * the next round starts when all of them completed.  The progress
 * engine advances schedules, so a nonblocking collective completes
 * under MPI_Test alone; a blocking one is the same schedule waited for.
 *
 * An algorithm is a function that appends rounds to a schedule (one
 * file per family in algo/, declared in algo/algo.h); the selection
 * table in coll_select.c picks one per call by collective, message
 * size and communicator size (or MPICHAN_COLL_<NAME>).
 *
 * The layers below reach this one only through the upcalls of base.h,
 * which coll_sched.c fills in.
 */
#ifndef LIBMSG_COLL_H
#define LIBMSG_COLL_H

#include "p2p/p2p.h"

enum { LM_STEP_SEND, LM_STEP_RECV, LM_STEP_COPY, LM_STEP_REDUCE,
       LM_STEP_CALL };

struct lm_sched;
struct lm_step;
/* A local step that is a function: 0 or an MPI error class. */
typedef int (*lm_step_fn)(struct lm_sched *s, struct lm_step *st);

struct lm_step {
	uint8_t kind;		/* LM_STEP_* */
	int peer;		/* SEND/RECV: communicator rank */
	const void *src;	/* COPY/REDUCE: input */
	void *dst;		/* SEND/RECV: the buffer; COPY/REDUCE: output */
	uint64_t bytes;		/* SEND/RECV/COPY */
	int count;		/* REDUCE: dst = src op dst, count elements */
	lm_step_fn call;	/* CALL: run with the step's fields */
	struct libmsg_request req;	/* SEND/RECV while posted */
};

struct lm_sched {
	struct libmsg_comm *comm;
	struct libmsg_request *req;	/* the collective's own request */
	int tag;
	MPI_Datatype dt;		/* reductions */
	MPI_Op op;
	uint64_t esize;			/* reductions: bytes per element */
	/* Run when the schedule ends well: data to put in place (coll_dt.c). */
	struct lm_coll_unpack *unpack;
	struct lm_step *steps;
	int nsteps, cap;
	int *round_end;			/* first step of the next round */
	int nrounds, rcap;
	int cur;			/* next round to start */
	int outstanding;		/* sends and receives of this round */
	int err;			/* first error class */
	int running;			/* in sched_run() or an abort */
	int blocking;			/* its caller waits: steps may take the short way */
	int again;			/* rerun from the first round (lm_sched_again) */
	/* Run as the schedule ends, well or not, before its request completes. */
	void (*fini)(struct lm_sched *s);
	void *fini_arg;
	struct lm_sched_tmp {		/* temporary buffers, freed at the end */
		void *p;
		uint64_t bytes;		/* asked of lm_scratch_get */
	} *tmp;
	int ntmp, tmpcap;
	uint32_t small_used;		/* bytes of small[] handed out */
	/* Small temporaries come from here: no malloc for small collectives. */
	unsigned char small[512] __attribute__((aligned(64)));
	struct cds_list_head ready;	/* on the ready list */
	struct cds_list_head live;	/* started, not yet over */
};

/*
 * The arguments of any collective, normalised by the API layer:
 * MPI_IN_PLACE is resolved (sbuf == rbuf, or the root's own block is
 * already in place), counts are in bytes for data movement, elements
 * for reductions.
 */
struct lm_coll_args {
	const void *sbuf;
	void *rbuf;
	uint64_t sbytes, rbytes;	/* per block, rooted/all-to-all */
	const uint64_t *scounts, *sdispls;	/* bytes, v/w variants */
	const uint64_t *rcounts, *rdispls;
	int root;
	int count;			/* reductions: elements */
	MPI_Datatype dt;
	MPI_Op op;
	uint64_t esize;			/* reductions: element bytes (0: dt's size) */
	uint64_t bytes;			/* what selects the algorithm */
	int in_place;
	/* Neighbourhood collectives: receive from in[], send to out[]. */
	const int *in, *out;
	int indeg, outdeg;
	int cart;			/* in[] pairs down/up per dimension */
	int blocking;			/* the caller waits for it */
	int rooted;			/* root is the call's */
};

typedef int (*lm_algo_fn)(struct lm_sched *s, const struct lm_coll_args *a);

/* Bytes per reduced element: the view's, else the type's (0: none). */
static inline uint64_t lm_coll_esize(const struct lm_coll_args *a)
{
	return a->esize ? a->esize : a->dt ? (uint64_t)a->dt->size : 0;
}

/* ---- coll_sched.c: building and running schedules ------------------- */

struct lm_sched *lm_sched_new(struct libmsg_comm *comm);
void lm_sched_free(struct lm_sched *s);
void lm_sched_cache_drop(void);
/* Append steps to the open round; 0 or MPI_ERR_NO_MEM. */
int lm_sched_send(struct lm_sched *s, const void *buf, uint64_t bytes,
		  int peer);
int lm_sched_recv(struct lm_sched *s, void *buf, uint64_t bytes, int peer);
int lm_sched_copy(struct lm_sched *s, const void *src, void *dst,
		  uint64_t bytes);
/* dst = src op dst over count elements of the schedule's dt and op. */
int lm_sched_reduce(struct lm_sched *s, const void *src, void *dst,
		    int count);
/*
 * A local step that runs fn(s, step) in its round, before the round's
 * sends and receives are posted; the caller fills in the step's fields.
 * NULL: no memory.
 */
struct lm_step *lm_sched_call(struct lm_sched *s, lm_step_fn fn);
/*
 * A step completing outside the rings (coll_area.c): hold the round
 * open, and release it, with an error class or 0, from the progress
 * engine.
 */
void lm_sched_hold(struct lm_sched *s);
void lm_sched_release(struct lm_sched *s, int err);
/* Close the open round: later steps wait for everything before. */
int lm_sched_round(struct lm_sched *s);
/*
 * From a CALL step: once the current round is over, run the schedule
 * again from its first round (a retry; the steps' messages keep the
 * schedule's tag, and one pass's messages all precede the next's).
 */
void lm_sched_again(struct lm_sched *s);
/* A temporary buffer that lives as long as the schedule (NULL: no memory). */
void *lm_sched_tmp(struct lm_sched *s, uint64_t bytes);
/* Start the schedule; req completes when it is over. */
void lm_sched_start(struct lm_sched *s, struct libmsg_request *req);
/* Called by lm_req_complete() for a step's request. */
void lm_sched_step_done(struct libmsg_request *req);
/* Run schedules whose round completed: non-zero if any ran. */
int lm_coll_progress(void);
/* Is a round waiting to be started by lm_coll_progress()? */
int lm_coll_ready(void);
/* fn for each schedule started and not over (report.c). */
void lm_coll_each_live(void (*fn)(const struct libmsg_comm *comm, int round,
				  int rounds, int outstanding, void *arg),
		       void *arg);

/* ---- coll_select.c: the selection table -------------------------------- */

enum lm_coll {
	LM_BARRIER, LM_BCAST, LM_GATHER, LM_GATHERV, LM_SCATTER, LM_SCATTERV,
	LM_ALLGATHER, LM_ALLGATHERV, LM_ALLTOALL, LM_ALLTOALLV, LM_ALLTOALLW,
	LM_REDUCE, LM_ALLREDUCE, LM_REDUCE_SCATTER, LM_REDUCE_SCATTER_BLOCK,
	LM_SCAN, LM_EXSCAN, LM_NCOLL,
};

int lm_coll_init(void);
/* The algorithm for this call (never NULL). */
lm_algo_fn lm_coll_select(enum lm_coll c, const struct libmsg_comm *comm,
			  const struct lm_coll_args *a);
/*
 * For MPI_T (src/tool/): each collective's name and algorithms, the one
 * forced (MPICHAN_COLL_<NAME>; -1: none, the rules decide), which a
 * tool may change on every rank at the same point between collectives,
 * and how many calls each algorithm was picked for.
 */
const char *lm_coll_name(int c);
int lm_coll_nalgos(int c);
const char *lm_coll_algo_name(int c, int a);
int lm_coll_forced(int c);
void lm_coll_force(int c, int a);
uint64_t lm_coll_calls(int c, int a);

/* ---- coll_api.c: what the collective calls share ----------------------- */

int lm_coll_check(const char *fn, MPI_Comm comm, MPI_Request *request,
		  int nonblocking);
int lm_coll_check_data(const char *fn, MPI_Comm comm, const void *buf,
		       int64_t count, MPI_Datatype dt, const char *what);
int lm_coll_check_root(const char *fn, MPI_Comm comm, int root);
/* A schedule for a call on comm (NULL: reported MPI_ERR_NO_MEM). */
struct lm_sched *lm_coll_sched(const char *fn, MPI_Comm comm);
/* Build s with the selected algorithm and run it (request NULL: block). */
int lm_coll_start(struct lm_sched *s, enum lm_coll c, const char *fn,
		  struct lm_coll_args *a, MPI_Request *request);

/*
 * A request (initialised, its sched set) for the next lm_coll_run() to
 * run its schedule under instead of a new one: a slice of a large-count
 * reduction (coll_big_red.c), a step of that one's chain.
 */
extern __thread struct libmsg_request *lm_coll_into
	__attribute__((tls_model("initial-exec")));

/* Build s with algo and run it: lm_coll_start without the selection. */
int lm_coll_run(struct lm_sched *s, lm_algo_fn algo, const char *fn,
		struct lm_coll_args *a, MPI_Request *request);

/* ---- coll_area.c: collectives through the job's collective area ------- */

/* Bytes a collective may move through the area (coll_area.c's slot). */
#define LM_AREA_DATA	8128

void lm_area_init(void);
/* Can a call move bytes through the area on c? */
int lm_area_usable(const struct libmsg_comm *c, const struct lm_coll_args *a,
		   uint64_t bytes);
/* Can c check its calls through the area (coll_check.c)? */
int lm_area_check_usable(const struct libmsg_comm *c);
/* A round where each member gives desc and all get the verdict. */
int lm_area_check(struct lm_sched *s, const void *desc, uint64_t bytes,
		  void *verdict, uint64_t vbytes);
/* Complete the collectives whose generation moved: non-zero if any. */
int lm_area_poll(void);
/* The upcalls (base.h): a collective in the area completed, keep a ctx. */
int lm_area_ready(void);
int lm_area_keep_ctx(const struct libmsg_comm *c);

/* ---- coll_dt.c: datatypes in collectives ---------------------------------- */

/*
 * The algorithms move contiguous bytes.  A type that is one run of
 * bytes from the buffer address (basic types, contiguous derived ones)
 * is used in place; any other is packed into a schedule temporary on
 * the sending side, and received into one and unpacked (by the
 * schedule's completion hook, before the request completes) on the
 * receiving side.
 */
static inline int lm_coll_in_place_ok(MPI_Datatype dt)
{
	return dt->dense && dt->true_lb == 0;
}
/*
 * *buf: count elements of dt; becomes where the algorithm reads them as
 * bytes.  0 or MPI_ERR_NO_MEM.
 */
int lm_coll_send_buf(struct lm_sched *s, const void **buf, int64_t count,
		     MPI_Datatype dt);
/* ... where it writes them; they land in *buf when the schedule ends. */
int lm_coll_recv_buf(struct lm_sched *s, void **buf, int64_t count,
		     MPI_Datatype dt);
/*
 * The blocks of v/w variants on one side: counts[i] elements of
 * types[i] (or dt) at byte uoff[i] of *buf.  arr[i] holds their bytes;
 * arr[n + i] becomes their offsets in the buffer the algorithm uses,
 * and *buf that buffer (a packed temporary unless every type is in
 * place).
 */
int lm_coll_blocks(struct lm_sched *s, int recv, void **buf, int n,
		   const int64_t counts[], const int64_t uoff[],
		   const MPI_Datatype types[], MPI_Datatype dt, uint64_t *arr);
/* An int call's counts as lm_coll_blocks takes them, in s (NULL: none). */
int64_t *lm_coll_widen(struct lm_sched *s, const int *counts, int n);
/*
 * In place with a packed receive: pack count elements of dt at byte
 * uoff of the user's buf into the temporary t at byte poff.
 */
void lm_coll_preload(void *t, uint64_t poff, const void *buf, int64_t uoff,
		     int64_t count, MPI_Datatype dt);
/*
 * Reductions: make a's sbuf, rbuf, dt, count and esize what the
 * algorithms need (a predefined op on a derived type works on its
 * basic elements; a user op sees the user's type, elements extent
 * apart).  rcount: elements of the result in rbuf (0: none here).
 * *mult: basic elements per user element (for counts arrays).
 */
int lm_coll_reduce_view(struct lm_sched *s, struct lm_coll_args *a,
			int64_t rcount, uint64_t *mult, const char **why);
/* Schedule hooks (coll_sched.c calls them). */
void lm_coll_unpack_run(struct lm_sched *s);
void lm_coll_unpack_drop(struct lm_sched *s);

/* ---- coll_check.c: collective-call verification (MPICHAN_CHECK=coll) ---- */

/*
 * With checking on, every collective call describes itself as it
 * checks its arguments, and its schedule starts with an agreement on
 * the descriptions (coll_check.c).  Off: one load and branch per call.
 */
extern int lm_cc_on;
#define LM_CC(call) do {						\
	if (__builtin_expect(lm_cc_on, 0))				\
		call;							\
} while (0)

void lm_cc_init(void);
/* lm_coll_check: a collective call on comm begins (fn: its name). */
void lm_cc_begin(const char *fn, struct libmsg_comm *comm);
/*
 * What it is: root (-1: none), op (NULL), MPI_IN_PLACE, and the block
 * it sends and receives (a NULL type: no such side).
 */
void lm_cc_args(int root, MPI_Op op, int in_place, int64_t scount,
		MPI_Datatype stype, int64_t rcount, MPI_Datatype rtype);
/* MPI_Reduce_scatter's recvcounts, which must be the same everywhere. */
void lm_cc_counts(const int *counts, int n);
/*
 * Per-pair blocks (v/w, neighbourhood): what this rank sends (recv 0)
 * or expects (1) on each edge: n peers (NULL: every rank but skip),
 * counts[i] (NULL: count) elements of types[i] (NULL: dt).
 */
int lm_cc_edges(struct lm_sched *s, int recv, int n, const int *peers,
		int skip, const int64_t *counts, int64_t count,
		const MPI_Datatype *types, MPI_Datatype dt);
/* The edges are a Cartesian topology's (coll_neighbor.c's order). */
void lm_cc_cart(int cart);
/* lm_coll_run: the check's rounds first; *done: nothing else to run. */
int lm_cc_rounds(struct lm_sched *s, int *done);
/* ... and the schedule starts. */
void lm_cc_started(void);
/* lm_error: the call failed its own checks (the others must hear). */
void lm_cc_error(struct libmsg_comm *comm, int err);
/* The message of the last failed check on comm with class err, or NULL. */
const char *lm_cc_why(const struct libmsg_comm *comm, int err);
/* coll_area.c: the verdict on n members' descriptors. */
void lm_cc_judge(const void *const *descs, int n, void *verdict);
uint64_t lm_cc_desc_bytes(void);

/* ---- coll_big_red.c: large-count reductions ----------------------------- */

/*
 * Reduce_scatter of counts[i] elements for rank i, some block or their
 * sum beyond an int, on an intracommunicator: blocking (request NULL)
 * or under a new request.
 */
int lm_big_reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
			  const MPI_Count counts[], MPI_Datatype dt, MPI_Op op,
			  MPI_Comm comm, MPI_Request *request);
/* The same with int counts (NULL: block for every rank). */
int lm_big_reduce_scatter_n(const char *fn, const void *sendbuf,
			    void *recvbuf, const int counts[], MPI_Count block,
			    MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			    MPI_Request *request);

/* ---- coll_persist.c: persistent collectives ---------------------------- */

/* MPI_Start is running a persistent collective: its request, for
 * lm_coll_run() to run the schedule under. */
extern __thread struct libmsg_request *lm_pcoll_into
	__attribute__((tls_model("initial-exec")));
int lm_pcoll_start(struct libmsg_request *req);
void lm_pcoll_free(struct lm_pcoll *pc);
/*
 * A persistent reduction (c: LM_REDUCE, _ALLREDUCE, _SCAN, _EXSCAN,
 * _REDUCE_SCATTER_BLOCK: count; LM_REDUCE_SCATTER: counts, copied) of a
 * count beyond an int: each start runs its _c I form (coll_big_red.c).
 */
int lm_pcoll_big_reduction(const char *fn, enum lm_coll c, const void *sbuf,
			   void *rbuf, MPI_Count count, const MPI_Count *counts,
			   MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
			   MPI_Info info, MPI_Request *request);
/*
 * A large-count _init call's converted arrays (mem, NULLs allowed) and
 * the types it made (MPI_DATATYPE_NULL: none): the request's now,
 * freed with it (the I variant it replays reads them at every start).
 */
void lm_pcoll_keep(MPI_Request r, void *const mem[4], MPI_Datatype *types,
		   int ntypes);

#endif /* LIBMSG_COLL_H */
