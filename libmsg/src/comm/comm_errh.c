// SPDX-License-Identifier: MIT
/*
 * Raising an error on a communicator or a session: which handler
 * applies (the object's, else MPI_COMM_WORLD's), and the calls that
 * set, get and call a communicator's handler.  The handlers themselves
 * and the raising are base/errors.c's.
 */

#include "coll/coll.h"

int lm_error(struct libmsg_comm *comm, const char *fn, int code,
	     const char *fmt, ...)
{
	MPI_Errhandler h = MPI_ERRORS_ARE_FATAL;
	va_list ap;
	int ret;

	if (!comm || comm->magic != LM_MAGIC_COMM)
		comm = MPI_COMM_WORLD;
	if (comm->magic == LM_MAGIC_COMM && comm->errh)
		h = comm->errh;
	/* A collective call that fails here: the others must hear of it. */
	LM_CC(lm_cc_error(comm, code));
	va_start(ap, fmt);
	ret = lm_errh_raise(h, comm, MPI_SESSION_NULL, fn, code, fmt, ap);
	va_end(ap);
	return ret;
}

int lm_session_error(struct libmsg_session *s, const char *fn, int code,
		     const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	if (s && s->magic == LM_MAGIC_SESSION) {
		ret = lm_errh_raise(s->errh, MPI_COMM_NULL, s, fn, code, fmt,
				    ap);
	} else {
		/* No session to say how: as a call without an object. */
		MPI_Comm w = MPI_COMM_WORLD;

		ret = lm_errh_raise(w->magic == LM_MAGIC_COMM ? w->errh : NULL,
				    w, MPI_SESSION_NULL, fn, code, fmt, ap);
	}
	va_end(ap);
	return ret;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_call_errhandler";
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	/* The handler's own verdict: MPI_SUCCESS once it returns. */
	lm_error(comm, fn, errorcode, "raised by the program");
	return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
	LM_GUARD();
	int err = lm_check_comm(comm, "MPI_Comm_set_errhandler");
	const char *why;

	if (err)
		return err;
	why = lm_errh_misfit(errhandler, 0);
	if (why)
		return lm_error(comm, "MPI_Comm_set_errhandler", MPI_ERR_ARG,
				"%s", why);
	lm_errh_set(&comm->errh, errhandler);
	return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	LM_GUARD();
	int err = lm_check_comm(comm, "MPI_Comm_get_errhandler");

	if (err)
		return err;
	if (!errhandler)
		return lm_error(comm, "MPI_Comm_get_errhandler", MPI_ERR_ARG,
				"errhandler is NULL");
	/* A new reference: the caller frees it (MPI_Errhandler_free). */
	lm_errh_hold(comm->errh);
	*errhandler = comm->errh;
	return MPI_SUCCESS;
}
