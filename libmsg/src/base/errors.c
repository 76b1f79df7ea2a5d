// SPDX-License-Identifier: MIT
/*
 * Error classes, their strings, and error handlers (a user's handler is
 * made for communicators or for sessions; raising an error on one of
 * those is comm/comm_errh.c's).
 * Predefined error codes are the classes themselves (codes a program
 * adds, errcodes.c, each have a class); the detail of the last error
 * raised (which call, which argument) is kept and shown by
 * MPI_Error_string for that class, and printed when a handler aborts.
 *
 * A user's error handler (MPI_Comm_create_errhandler, and the session
 * and window ones) is counted: the user's handle, each object it is set
 * on (or inherited by), and each MPI_*_get_errhandler hold it; it is
 * freed when the last lets go.  It is called with the library lock held (at
 * MPI_THREAD_MULTIPLE), which the calls it makes take again, nested.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

LM_PREDEFINED(struct libmsg_errhandler, libmsg_errors_are_fatal,
	      LM_ABI_ERRH_SIZE) = { .obj = {
	.magic = LM_MAGIC_ERRH, .kind = LM_ERRH_FATAL
} };
LM_PREDEFINED(struct libmsg_errhandler, libmsg_errors_return,
	      LM_ABI_ERRH_SIZE) = { .obj = {
	.magic = LM_MAGIC_ERRH, .kind = LM_ERRH_RETURN
} };
LM_PREDEFINED(struct libmsg_errhandler, libmsg_errors_abort,
	      LM_ABI_ERRH_SIZE) = { .obj = {
	.magic = LM_MAGIC_ERRH, .kind = LM_ERRH_ABORT
} };

static const char *const class_names[MPI_ERR_LASTCODE] = {
	[MPI_SUCCESS] = "MPI_SUCCESS: no error",
	[MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
	[MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
	[MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
	[MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
	[MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
	[MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
	[MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
	[MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
	[MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
	[MPI_ERR_OP] = "MPI_ERR_OP: invalid reduction operation",
	[MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
	[MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
	[MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
	[MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
	[MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
	[MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
	[MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
	[MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
	[MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
	[MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: a value cannot be converted to the data representation",
	[MPI_ERR_UNSUPPORTED_DATAREP] =
		"MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
	[MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
	[MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: invalid info key",
	[MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: invalid info value",
	[MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: key not in the info object",
	[MPI_ERR_NAME] = "MPI_ERR_NAME: no service of that name is published",
	[MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
	[MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
	[MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: the service is not published",
	[MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: could not spawn processes",
	[MPI_ERR_SESSION] = "MPI_ERR_SESSION: invalid session",
	[MPI_ERR_UNSUPPORTED_OPERATION] =
		"MPI_ERR_UNSUPPORTED_OPERATION: operation not supported",
	[MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid attribute key",
	[MPI_ERR_PROC_FAILED] = "MPI_ERR_PROC_FAILED: a peer process failed",
	[MPI_ERR_PROC_FAILED_PENDING] =
		"MPI_ERR_PROC_FAILED_PENDING: a process the receive may match failed",
	[MPI_ERR_REVOKED] = "MPI_ERR_REVOKED: the communicator was revoked",
	[MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
	[MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base address",
	[MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
	[MPI_ERR_RMA_CONFLICT] =
		"MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
	[MPI_ERR_RMA_SYNC] =
		"MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
	[MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
	[MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
	[MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assertion",
	[MPI_ERR_RMA_RANGE] =
		"MPI_ERR_RMA_RANGE: target memory is not part of the window",
	[MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
	[MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
	[MPI_ERR_RMA_FLAVOR] =
		"MPI_ERR_RMA_FLAVOR: the window's flavor does not allow this",
	/* The tool information interface's (src/tool/). */
	[MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory",
	[MPI_T_ERR_NOT_INITIALIZED] =
		"MPI_T_ERR_NOT_INITIALIZED: MPI_T_init_thread was not called",
	[MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: cannot initialize",
	[MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: invalid index",
	[MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: invalid item index",
	[MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: invalid handle",
	[MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: no more handles",
	[MPI_T_ERR_OUT_OF_SESSIONS] =
		"MPI_T_ERR_OUT_OF_SESSIONS: no more sessions",
	[MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: invalid session",
	[MPI_T_ERR_CVAR_SET_NOT_NOW] =
		"MPI_T_ERR_CVAR_SET_NOT_NOW: the variable cannot be set now",
	[MPI_T_ERR_CVAR_SET_NEVER] =
		"MPI_T_ERR_CVAR_SET_NEVER: the variable cannot be set",
	[MPI_T_ERR_PVAR_NO_STARTSTOP] =
		"MPI_T_ERR_PVAR_NO_STARTSTOP: the variable cannot be started or stopped",
	[MPI_T_ERR_PVAR_NO_WRITE] =
		"MPI_T_ERR_PVAR_NO_WRITE: the variable cannot be written or reset",
	[MPI_T_ERR_PVAR_NO_ATOMIC] =
		"MPI_T_ERR_PVAR_NO_ATOMIC: the variable cannot be read and reset at once",
	[MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: no variable of that name",
	[MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the interface",
	[MPI_T_ERR_NOT_SUPPORTED] = "MPI_T_ERR_NOT_SUPPORTED: not supported",
	[MPI_T_ERR_NOT_ACCESSIBLE] =
		"MPI_T_ERR_NOT_ACCESSIBLE: not accessible here",
};

static int predefined(int code)
{
	return code >= 0 && code < MPI_ERR_LASTCODE && class_names[code];
}

static char last_detail[MPI_MAX_ERROR_STRING];
static int last_class = -1;

int lm_errno_class(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return MPI_SUCCESS;
	case ENOMEM:
		return MPI_ERR_NO_MEM;
	case EPIPE:
	case ESRCH:
		return MPI_ERR_PROC_FAILED;
	case EFAULT:
		return MPI_ERR_BUFFER;
	default:
		return MPI_ERR_OTHER;
	}
}

/*
 * A line goes out in one write: when a peer died, the launcher may end
 * this rank while it reports, and half a line says nothing; and lines
 * of ranks reporting at once do not interleave.
 */
void lm_vsay(const char *fmt, va_list ap)
{
	char msg[512];
	int n;

	/* The rank is known once the job is attached, before MPI_Init ends. */
	if (lm.job.nranks > 0)
		n = snprintf(msg, sizeof(msg), "libmsg: rank %d: ",
			     (int)lm.job.rank);
	else
		n = snprintf(msg, sizeof(msg), "libmsg: ");
	n += vsnprintf(msg + n, sizeof(msg) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(msg) - 2)
		n = (int)sizeof(msg) - 2;
	msg[n++] = '\n';
	if (write(STDERR_FILENO, msg, (size_t)n) < 0)
		return;
}

void lm_fatal(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	lm_vsay(fmt, ap);
	va_end(ap);
	_exit(1);
}

/*
 * Raise code on handler h: the detail is kept for MPI_Error_string, a
 * user's handler is called with the object (*comm, *session or *win,
 * by the kind it was made for), a fatal one ends the process with the
 * detail.
 */
static int errh_raise(MPI_Errhandler h, MPI_Comm comm, MPI_Session session,
		      MPI_Win win, const char *fn, int code, const char *fmt,
		      va_list ap)
{
	char msg[160];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(last_detail, sizeof(last_detail), "%s: %s", fn, msg);
	last_class = code;
	if (!h || h->magic != LM_MAGIC_ERRH)
		h = MPI_ERRORS_ARE_FATAL;
	if (h->kind == LM_ERRH_RETURN)
		return code;
	if (h->kind == LM_ERRH_USER) {
		int e = code;

		if (h->call)
			h->call(h, &comm, &session, &win, &e);
		else if (h->session == LM_ERRH_FOR_SESSION)
			h->session_fn(&session, &e);
		else if (h->session == LM_ERRH_FOR_WIN)
			h->win_fn(&win, &e);
		else
			h->fn(&comm, &e);
		return code;
	}
	lm_fatal("%s: %s (%s)", fn, msg, predefined(code) ? class_names[code] :
		 lm_err_user_class(code) >= 0 ? lm_err_user_string(code) :
		 "unknown error class");
}

int lm_errh_raise(MPI_Errhandler h, MPI_Comm comm, MPI_Session session,
		  const char *fn, int code, const char *fmt, va_list ap)
{
	return errh_raise(h, comm, session, MPI_WIN_NULL, fn, code, fmt, ap);
}

int lm_win_error(MPI_Win win, const char *fn, int code, const char *fmt, ...)
{
	struct lm_win_head *w = (struct lm_win_head *)(void *)win;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = errh_raise(w->errh, MPI_COMM_NULL, MPI_SESSION_NULL, win, fn,
			 code, fmt, ap);
	va_end(ap);
	return ret;
}

int lm_errh_error(MPI_Errhandler h, const char *fn, int code,
		  const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = lm_errh_raise(h, MPI_COMM_NULL, MPI_SESSION_NULL, fn, code, fmt,
			    ap);
	va_end(ap);
	return ret;
}

int lm_err_is_class(int code)
{
	return predefined(code) || lm_err_user_class(code) == code;
}

int MPI_Error_class(int errorcode, int *errorclass)
{
	LM_GUARD();
	int cls = predefined(errorcode) ? errorcode :
		  lm_err_user_class(errorcode);

	if (cls < 0)
		return lm_error(NULL, "MPI_Error_class", MPI_ERR_ARG,
				"unknown error code %d", errorcode);
	if (!errorclass)
		return lm_error(NULL, "MPI_Error_class", MPI_ERR_ARG,
				"errorclass is NULL");
	*errorclass = cls;
	return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
	LM_GUARD();
	int n;

	if (!predefined(errorcode) && lm_err_user_class(errorcode) < 0)
		return lm_error(NULL, "MPI_Error_string", MPI_ERR_ARG,
				"unknown error code %d", errorcode);
	if (!string || !resultlen)
		return lm_error(NULL, "MPI_Error_string", MPI_ERR_ARG,
				"string or resultlen is NULL");
	if (!predefined(errorcode))
		n = snprintf(string, MPI_MAX_ERROR_STRING, "%s",
			     lm_err_user_string(errorcode));
	else if (errorcode == last_class)
		n = snprintf(string, MPI_MAX_ERROR_STRING, "%s (last: %s)",
			     class_names[errorcode], last_detail);
	else
		n = snprintf(string, MPI_MAX_ERROR_STRING, "%s",
			     class_names[errorcode]);
	if (n >= MPI_MAX_ERROR_STRING)
		n = MPI_MAX_ERROR_STRING - 1;
	*resultlen = n;
	return MPI_SUCCESS;
}

const char *lm_errh_misfit(MPI_Errhandler h, int session)
{
	static const char *const made_for[] = {
		[LM_ERRH_FOR_COMM] = "a communicator's",
		[LM_ERRH_FOR_SESSION] = "a session's",
		[LM_ERRH_FOR_WIN] = "a window's",
	};
	static __thread char why[96];

	if (!h || h->magic != LM_MAGIC_ERRH)
		return "invalid error handler";
	if (h->kind != LM_ERRH_USER || h->session == session)
		return NULL;
	snprintf(why, sizeof(why), "%s error handler, not %s",
		 made_for[h->session], made_for[session]);
	return why;
}

void lm_errh_hold(MPI_Errhandler h)
{
	if (h->kind == LM_ERRH_USER)
		h->refs++;
}

/* *slot takes h and lets its old handler go. */
void lm_errh_set(MPI_Errhandler *slot, MPI_Errhandler h)
{
	lm_errh_hold(h);
	lm_errh_put(*slot);
	*slot = h;
}

void lm_errh_put(MPI_Errhandler h)
{
	if (h->kind == LM_ERRH_USER && !--h->refs) {
		h->magic = 0;
		free(h);
	}
}

/* A user's handler: for a session's calls, a communicator's or a window's. */
static int errh_new(const char *fn, int session, void (*f)(void),
		    MPI_Errhandler *errhandler)
{
	MPI_Errhandler h;

	if (!f || !errhandler)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"function or errhandler is NULL");
	h = calloc(1, sizeof(*h));
	if (!h)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM,
				"out of memory for an error handler");
	h->magic = LM_MAGIC_ERRH;
	h->kind = LM_ERRH_USER;
	h->session = session;
	if (session == LM_ERRH_FOR_SESSION)
		h->session_fn = (MPI_Session_errhandler_function *)f;
	else if (session == LM_ERRH_FOR_WIN)
		h->win_fn = (MPI_Win_errhandler_function *)f;
	else
		h->fn = (MPI_Comm_errhandler_function *)f;
	h->refs = 1;
	*errhandler = h;
	return MPI_SUCCESS;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
			       MPI_Errhandler *errhandler)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_create_errhandler";

	lm_check_init(fn);
	return errh_new(fn, LM_ERRH_FOR_COMM, (void (*)(void))comm_errhandler_fn,
			errhandler);
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
			      MPI_Errhandler *errhandler)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_create_errhandler";

	lm_check_init(fn);
	return errh_new(fn, LM_ERRH_FOR_WIN, (void (*)(void))win_errhandler_fn,
			errhandler);
}

/* MPI-4.0 allows this before any initialization. */
int MPI_Session_create_errhandler(
	MPI_Session_errhandler_function *session_errhandler_fn,
	MPI_Errhandler *errhandler)
{
	LM_GUARD();
	return errh_new("MPI_Session_create_errhandler", LM_ERRH_FOR_SESSION,
			(void (*)(void))session_errhandler_fn, errhandler);
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
	LM_GUARD();
	if (!errhandler || !*errhandler || (*errhandler)->magic != LM_MAGIC_ERRH)
		return lm_error(NULL, "MPI_Errhandler_free", MPI_ERR_ARG,
				"invalid error handler");
	/* The predefined handlers are never freed; the handle goes. */
	lm_errh_put(*errhandler);
	*errhandler = MPI_ERRHANDLER_NULL;
	return MPI_SUCCESS;
}

int lm_check_init(const char *fn)
{
	if (lm.initialized && !lm.finalized)
		return MPI_SUCCESS;
	fprintf(stderr, "libmsg: %s called %s\n", fn,
		lm.finalized ? "after MPI was finalized" :
		"before MPI_Init or MPI_Session_init");
	_exit(1);
}
