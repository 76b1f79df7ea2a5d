/* SPDX-License-Identifier: MIT */
/*
 * base.h: what every layer of libmsg builds on: the rank's state (lm),
 * error reporting and error handlers, info objects, the library lock
 * (thread.h), and the handle magics.  Nothing here is visible to MPI
 * programs.
 *
 * The layers, each a folder of src/, bottom up; a file includes the
 * headers of its own layer and of the layers below, never above:
 *
 *   base/       this header: state, errors, info, the thread lock
 *   transport/  the device or the fallback: rings, rendezvous copies
 *   datatype/   types, layouts, pack and unpack, reduction ops
 *   comm/       communicators, groups, attributes, topologies
 *   p2p/        requests, matching, the progress engine; p2p/rndv/
 *   coll/       collectives as schedules over point-to-point; coll/algo/
 *   rma/        one-sided communication
 *   runtime/    MPI_Init and sessions: starts every layer
 *
 * A lower layer reaches a higher one only through the public MPI calls
 * (communicator creation agrees through collectives, as a program
 * would) or through the upcalls below, which the higher layer fills in.
 */
#ifndef LIBMSG_BASE_H
#define LIBMSG_BASE_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>
#include <urcu/list.h>
#include <urcu/urcu-memb.h>

#include "mpi.h"
#include "base/scratch.h"
#include "transport/transport.h"

/*
 * The predefined objects (MPI_COMM_WORLD, MPI_INT, MPI_SUM, ...: mpi.h)
 * are defined through LM_PREDEFINED, padded to a size fixed for good.
 * A program that uses one holds its own copy of it (the copy relocation
 * of an object in a shared library), sized as the symbol was when the
 * program was linked, and the library then works on that copy: were an
 * object to grow past it, a newer library would write beyond it.  The
 * symbol is the padded union's; the library's code names the object as
 * mpi.h declares it, the same symbol.
 */
#define LM_ABI_COMM_SIZE	1024
#define LM_ABI_DT_SIZE		512
#define LM_ABI_OP_SIZE		128
#define LM_ABI_GROUP_SIZE	64
#define LM_ABI_ERRH_SIZE	128
#define LM_ABI_MSG_SIZE		512
#define LM_ABI_INFO_SIZE	64
#define LM_PREDEFINED(type, name, size)					\
	_Static_assert(sizeof(type) <= (size), #name " outgrew its ABI size"); \
	union lm_predef_##name { type obj; char pad[size]; };		\
	union lm_predef_##name lm_predef_##name __asm__(#name)

#define LM_MAGIC_COMM	0x434f4d4dU	/* "COMM" */
#define LM_MAGIC_DT	0x44545950U	/* "DTYP" */
#define LM_MAGIC_REQ	0x52455155U	/* "REQU" */
#define LM_MAGIC_ERRH	0x45525248U	/* "ERRH" */
#define LM_MAGIC_MSG	0x4d534721U	/* "MSG!" */
#define LM_MAGIC_OP	0x4f504552U	/* "OPER" */
#define LM_MAGIC_INFO	0x494e464fU	/* "INFO" */
#define LM_MAGIC_GROUP	0x47525550U	/* "GRUP" */
#define LM_MAGIC_SESSION	0x53455353U	/* "SESS" */
#define LM_MAGIC_WIN	0x57494e44U	/* "WIND" */
/*
 * A handle's pointer before its magic is read: NULL and the first page
 * are no object's, and a stray small integer (another MPI's int handle,
 * a field left unset) lands there; reading it would fault.
 */
#define LM_HANDLE(p)	((uintptr_t)(const void *)(p) >= 4096)

/* Return an error class from the calling function unless x is 0. */
#define TRY(x) do { int _e = (x); if (_e) return _e; } while (0)

struct libmsg_comm;
struct libmsg_request;
struct lm_pcoll;

struct libmsg_errhandler {
	uint32_t magic;
	int kind;		/* LM_ERRH_* */
	/* LM_ERRH_USER: */
	int session;		/* made for: LM_ERRH_FOR_* */
	MPI_Comm_errhandler_function *fn;
	MPI_Session_errhandler_function *session_fn;
	MPI_Win_errhandler_function *win_fn;
	int refs;		/* the user's handle, objects it is on, gets */
	/*
	 * A language binding's handler (Fortran: src/fortran/): called
	 * instead of fn, session_fn or win_fn, which it knows how to call.
	 */
	void (*call)(struct libmsg_errhandler *h, MPI_Comm *comm,
		     MPI_Session *session, MPI_Win *win, int *code);
};

enum { LM_ERRH_FATAL, LM_ERRH_RETURN, LM_ERRH_ABORT, LM_ERRH_USER };
/* The objects a user's handler is made for. */
enum { LM_ERRH_FOR_COMM, LM_ERRH_FOR_SESSION, LM_ERRH_FOR_WIN };

/*
 * Why h may not go on an object of kind LM_ERRH_FOR_*: NULL when it
 * may.
 */
const char *lm_errh_misfit(MPI_Errhandler h, int session);

/* A communicator takes (or leaves) an error handler. */
void lm_errh_hold(MPI_Errhandler h);
void lm_errh_put(MPI_Errhandler h);
/* An object's handler becomes h (held), the old one let go. */
void lm_errh_set(MPI_Errhandler *slot, MPI_Errhandler h);

/*
 * What the layers below rma/ know of a window (rma/rma.h has the
 * rest): the first member of struct libmsg_win, so that errors can be
 * raised on its handler (errors.c) and attributes cached on it
 * (comm/attr.c).
 */
struct lm_win_head {
	uint32_t magic;		/* LM_MAGIC_WIN */
	MPI_Errhandler errh;	/* held; MPI_ERRORS_ARE_FATAL at first */
	struct lm_attr *attrs;	/* cached attributes, newest first */
};

/* A live window handle? */
static inline int lm_win_valid(MPI_Win win)
{
	return win && ((const struct lm_win_head *)(const void *)win)->magic ==
		LM_MAGIC_WIN;
}

/* MPI_Session_init's handle (runtime/session.c). */
struct libmsg_session {
	uint32_t magic;
	MPI_Errhandler errh;	/* held */
};

/* ---- Global state ------------------------------------------------------ */

/*
 * What the library counts for the tool interface (MPI_T, src/tool/):
 * plain per-process counters, bumped where the work is done, under the
 * library lock at MPI_THREAD_MULTIPLE; sleeps and wakes may run outside
 * it and are counted atomically (a system call follows anyway).
 */
struct lm_stats {
	uint64_t eager_sent, eager_sent_bytes;	/* data put in a ring */
	uint64_t rndv_sent, rndv_sent_bytes;	/* rendezvous offers made */
	uint64_t offer_module;		/* ... a send queued in the module */
	uint64_t offer_vm;		/* ... an address (process_vm_readv) */
	uint64_t eager_recv, eager_recv_bytes;	/* data from a ring */
	uint64_t rndv_recv, rndv_recv_bytes;	/* rendezvous offers received */
	uint64_t take_module, take_module_bytes;	/* copied by the module */
	uint64_t take_mapped, take_mapped_bytes;	/* through the window */
	uint64_t take_vm, take_vm_bytes;	/* process_vm_readv */
	uint64_t pulled, pulled_bytes;	/* taken before their receive */
	uint64_t unexpected;		/* messages before their receive */
	uint64_t unexpected_now, unexpected_max;	/* held now, at most */
	uint64_t sleeps;		/* waits that slept in the transport */
	uint64_t wakes;			/* wake-ups sent to sleeping ranks */
	uint64_t scratch_mapped;	/* large temporaries mapped fresh */
	uint64_t scratch_reused;	/* ... served by a kept block */
	uint64_t ulfm_agreements;	/* ULFM agreements decided */
	uint64_t ulfm_shrink_retries;	/* shrinks begun again: a death */
};

#define LM_COUNT(field, n)	(lm.stats.field += (n))
#define LM_COUNT_ATOMIC(field)	\
	__atomic_fetch_add(&lm.stats.field, 1, __ATOMIC_RELAXED)

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
	int rma_region;			/* windows as registered regions (device) */
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
	struct lm_stats stats;		/* for MPI_T */
};

extern struct lm_state lm;

/*
 * Calls from a lower layer into a higher one, by pointer, so that the
 * lower one names nothing above it.  The collectives layer fills them
 * in (coll/coll_sched.c); every one is always set.
 */
struct lm_upcalls {
	/* p2p/progress.c: run schedules whose round completed. */
	int (*coll_progress)(void);
	/* p2p/p2p_fast.c: is a collective's round waiting to be started? */
	int (*coll_ready)(void);
	/* p2p/request.c: a request that is a schedule's step completed. */
	void (*sched_step_done)(struct libmsg_request *req);
	/* p2p/p2p.c: MPI_Start of a persistent collective. */
	int (*pcoll_start)(struct libmsg_request *req);
	/* p2p/request.c: a persistent collective's request is freed. */
	void (*pcoll_free)(struct lm_pcoll *pc);
	/*
	 * transport/: before sleeping, after NEED_WAKEUP is set: has a
	 * collective waited for in the area completed?  Safe without the
	 * lock.
	 */
	int (*area_ready)(void);
	/* comm/comm.c: must c's context id stay taken (a member died)? */
	int (*area_keep_ctx)(const struct libmsg_comm *c);
	/*
	 * p2p/request.c: what a collective's error err on comm was, when
	 * its call check failed (coll_check.c), else NULL.
	 */
	const char *(*coll_why)(const struct libmsg_comm *comm, int err);
	/* p2p/report.c: fn for each schedule started and not over. */
	void (*coll_each_live)(void (*fn)(const struct libmsg_comm *comm,
					  int round, int rounds,
					  int outstanding, void *arg),
			       void *arg);
};

extern const struct lm_upcalls lm_up;

#include "base/thread.h"

/* MPI_Init has run and MPI_Finalize has not. */
static inline int lm_live(void)
{
	return lm.initialized && !lm.finalized;
}

static inline uint64_t lm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- errors.c -------------------------------------------------------- */

/*
 * Report error class `code` raised by MPI call `fn` on `comm` (NULL for
 * calls without one: MPI_COMM_WORLD's handler applies).  Returns code
 * when the handler lets the call return.
 */
int lm_error(struct libmsg_comm *comm, const char *fn, int code,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/*
 * Raise code on handler h (NULL: fatal): a user's handler is called
 * with comm or session, by the kind it was made for.  lm_error and
 * lm_session_error (comm/comm_errh.c) pick h.
 */
int lm_errh_raise(MPI_Errhandler h, MPI_Comm comm, MPI_Session session,
		  const char *fn, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));
/* The same on a session's handler (NULL: as for lm_error(NULL, ...)). */
int lm_session_error(struct libmsg_session *s, const char *fn, int code,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/*
 * The same on handler h, for a call that makes the communicator h is
 * for (MPI_Comm_create_from_group): its handler sees MPI_COMM_NULL.
 */
int lm_errh_error(MPI_Errhandler h, const char *fn, int code,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same on window win's handler (win must be valid). */
int lm_win_error(MPI_Win win, const char *fn, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void lm_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						   noreturn));
/* "libmsg: rank R: " and the message, one line in one write to stderr. */
void lm_vsay(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int lm_errno_class(int err);
/* A predefined error class, or one the program added. */
int lm_err_is_class(int code);

/*
 * Handle arguments every layer's calls take (comm/comm.c, comm/group.c):
 * MPI_SUCCESS, or the error class raised as fn.
 */
int lm_check_comm(MPI_Comm comm, const char *fn);
int lm_check_group(MPI_Group group, const char *fn);

/* An MPI call made before MPI_Init or after MPI_Finalize: stop. */
int lm_check_init(const char *fn);

/* ---- errcodes.c: error classes and codes the program adds ------------ */

/* code's class if the program added it, else -1. */
int lm_err_user_class(int code);
/* Its string ("" until MPI_Add_error_string). */
const char *lm_err_user_string(int code);
/* MPI_LASTUSEDCODE's value. */
int *lm_err_lastused(void);

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


/* An info argument: MPI_INFO_NULL or a live info object. */
int lm_check_info_arg(struct libmsg_comm *comm, MPI_Info info, const char *fn);

#endif /* LIBMSG_BASE_H */
