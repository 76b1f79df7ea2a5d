// SPDX-License-Identifier: MIT
/*
 * Sessions (MPI-4.0 chapter 11.3): a way into MPI without MPI_Init.
 *
 * A session joins the job exactly as MPI_Init does (init.c, lm_join):
 * one process of one job, the same rings, the same MPI_COMM_WORLD
 * underneath.  What a session adds is a handle with its own error
 * handler, and two process sets to build communicators from:
 * "mpi://WORLD" (every process of the job) and "mpi://SELF" (this
 * one).  MPI_Group_from_session_pset gives their groups, and
 * MPI_Comm_create_from_group (comm_create.c) makes a communicator of
 * any group, collectively over its members only.
 *
 * MPI_Init and sessions may be mixed.  The library counts them: the job
 * is left (the finalize barrier, the rings unmapped) by whichever of
 * MPI_Finalize and MPI_Session_finalize ends the last one, and a process
 * that has left cannot join again, so MPI_Session_init after that is
 * refused (MPI_ERR_OTHER, saying so).  As MPI-4.0 has it,
 * MPI_Initialized and MPI_Finalized answer for MPI_Init alone.
 *
 * The info key "thread_level" (MPI-4.0; "mpi_thread_support_level" is
 * taken too) asks for a thread level.  One library serves every session
 * and MPI_Init, so the level is raised for all when one asks for more
 * (below MPI_THREAD_MULTIPLE no other thread is inside MPI then, so
 * turning the lock on is safe), and is never lowered; each session's
 * info says the level the library has.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/runtime.h"

enum { PSET_WORLD, PSET_SELF, NPSETS };

static const char *const pset_names[NPSETS] = {
	[PSET_WORLD] = "mpi://WORLD",
	[PSET_SELF] = "mpi://SELF",
};

static int check_session(MPI_Session s, const char *fn)
{
	lm_check_init(fn);
	if (!s)
		return lm_session_error(NULL, fn, MPI_ERR_SESSION,
					"session is MPI_SESSION_NULL");
	if (s->magic != LM_MAGIC_SESSION)
		return lm_session_error(NULL, fn, MPI_ERR_SESSION,
					"invalid session");
	return MPI_SUCCESS;
}

/* The level the info asks for, or MPI_THREAD_SINGLE. */
static int asked_level(MPI_Info info)
{
	char v[MPI_MAX_INFO_VAL];
	int level = -1;

	if (lm_info_lookup(info, "thread_level", v, sizeof(v)))
		level = lm_thread_level_parse(v);
	if (level < 0 &&
	    lm_info_lookup(info, "mpi_thread_support_level", v, sizeof(v)))
		level = lm_thread_level_parse(v);
	/* An unknown value is a hint ignored, as MPI has it. */
	return level < 0 ? MPI_THREAD_SINGLE : level;
}

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler,
		     MPI_Session *session)
{
	LM_GUARD();
	static const char fn[] = "MPI_Session_init";
	struct libmsg_session *s;
	const char *why;

	why = lm_errh_misfit(errhandler, 1);
	if (why)
		return lm_error(NULL, fn, MPI_ERR_ARG, "%s", why);
	if (!session)
		return lm_errh_error(errhandler, fn, MPI_ERR_ARG,
				     "session is NULL");
	if (!lm_info_ok(info))
		return lm_errh_error(errhandler, fn, MPI_ERR_INFO,
				     "invalid info object");
	if (lm.finalized)
		return lm_errh_error(errhandler, fn, MPI_ERR_OTHER,
				     "MPI was finalized in this process: libmsg cannot join the job again");
	s = calloc(1, sizeof(*s));
	if (!s)
		return lm_errh_error(errhandler, fn, MPI_ERR_NO_MEM,
				     "out of memory for a session");
	lm_join(asked_level(info), fn);
	s->magic = LM_MAGIC_SESSION;
	s->errh = errhandler;
	lm_errh_hold(errhandler);
	lm.sessions++;
	*session = s;
	return MPI_SUCCESS;
}

static int session_end(MPI_Session *session)
{
	LM_GUARD();
	static const char fn[] = "MPI_Session_finalize";
	struct libmsg_session *s;
	int err;

	if (!session)
		return lm_session_error(NULL, fn, MPI_ERR_ARG,
					"session is NULL");
	err = check_session(*session, fn);
	if (err)
		return err;
	s = *session;
	s->magic = 0;
	lm_errh_put(s->errh);
	free(s);
	*session = MPI_SESSION_NULL;
	lm.sessions--;
	return MPI_SUCCESS;
}

/*
 * Communicators made from the session and not freed stay usable until
 * the job is left; MPI leaves their state undefined after this call.
 */
int MPI_Session_finalize(MPI_Session *session)
{
	int err = session_end(session);

	return err ? err : lm_leave_if_last("MPI_Session_finalize");
}

int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info,
			      int *npset_names)
{
	LM_GUARD();
	static const char fn[] = "MPI_Session_get_num_psets";
	int err = check_session(session, fn);

	if (err)
		return err;
	if (!lm_info_ok(info))
		return lm_session_error(session, fn, MPI_ERR_INFO,
					"invalid info object");
	if (!npset_names)
		return lm_session_error(session, fn, MPI_ERR_ARG,
					"npset_names is NULL");
	*npset_names = NPSETS;
	return MPI_SUCCESS;
}

/*
 * *pset_len is the size of pset_name; 0 asks for the size needed.
 * Either way it comes back as that size (with the NUL), and a name
 * longer than the buffer is cut, as MPI_Info_get_string does.
 */
int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n,
			     int *pset_len, char *pset_name)
{
	LM_GUARD();
	static const char fn[] = "MPI_Session_get_nth_pset";
	int err = check_session(session, fn), need;

	if (err)
		return err;
	if (!lm_info_ok(info))
		return lm_session_error(session, fn, MPI_ERR_INFO,
					"invalid info object");
	if (n < 0 || n >= NPSETS)
		return lm_session_error(session, fn, MPI_ERR_ARG,
					"no process set %d: there are %d", n,
					NPSETS);
	if (!pset_len || *pset_len < 0)
		return lm_session_error(session, fn, MPI_ERR_ARG,
					"pset_len is NULL or negative");
	need = (int)strlen(pset_names[n]) + 1;
	if (*pset_len > 0) {
		int room = need < *pset_len ? need : *pset_len;

		if (!pset_name)
			return lm_session_error(session, fn, MPI_ERR_ARG,
						"pset_name is NULL");
		memcpy(pset_name, pset_names[n], (size_t)room - 1);
		pset_name[room - 1] = 0;
	}
	*pset_len = need;
	return MPI_SUCCESS;
}

/* The process set called name (case is not significant), or -1. */
static int pset_find(const char *name)
{
	int i;

	for (i = 0; i < NPSETS; i++)
		if (!strcasecmp(name, pset_names[i]))
			return i;
	return -1;
}

/* name's process set, or an error raised on the session. */
static int pset_arg(MPI_Session session, const char *fn, const char *name,
		    int *pset)
{
	int err = check_session(session, fn);

	if (err)
		return err;
	if (!name)
		return lm_session_error(session, fn, MPI_ERR_ARG,
					"pset_name is NULL");
	*pset = pset_find(name);
	if (*pset < 0)
		return lm_session_error(session, fn, MPI_ERR_ARG,
					"no process set \"%.64s\" (there are %s and %s)",
					name, pset_names[PSET_WORLD],
					pset_names[PSET_SELF]);
	return MPI_SUCCESS;
}

static int pset_size(int pset)
{
	return pset == PSET_WORLD ? (int)lm.job.nranks : 1;
}

/* MPI-4.0 asks for one key, "mpi_size". */
int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name,
			      MPI_Info *info)
{
	LM_GUARD();
	static const char fn[] = "MPI_Session_get_pset_info";
	char size[16];
	int pset, err = pset_arg(session, fn, pset_name, &pset);

	if (err)
		return err;
	if (!info)
		return lm_session_error(session, fn, MPI_ERR_ARG,
					"info is NULL");
	snprintf(size, sizeof(size), "%d", pset_size(pset));
	*info = lm_info_make("mpi_size", size);
	if (!*info)
		return lm_session_error(session, fn, MPI_ERR_NO_MEM,
					"out of memory");
	return MPI_SUCCESS;
}

int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
	LM_GUARD();
	static const char fn[] = "MPI_Session_get_info";
	int err = check_session(session, fn);

	if (err)
		return err;
	if (!info_used)
		return lm_session_error(session, fn, MPI_ERR_ARG,
					"info_used is NULL");
	*info_used = lm_info_make("thread_level",
				  lm_thread_level_name(lm.thread_level));
	if (!*info_used)
		return lm_session_error(session, fn, MPI_ERR_NO_MEM,
					"out of memory");
	return MPI_SUCCESS;
}

int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
				MPI_Group *newgroup)
{
	LM_GUARD();
	static const char fn[] = "MPI_Group_from_session_pset";
	int self = (int)lm.job.rank;
	int pset, err = pset_arg(session, fn, pset_name, &pset);

	if (err)
		return err;
	if (!newgroup)
		return lm_session_error(session, fn, MPI_ERR_ARG,
					"newgroup is NULL");
	*newgroup = lm_group_new(pset_size(pset),
				 pset == PSET_WORLD ? NULL : &self);
	if (!*newgroup)
		return lm_session_error(session, fn, MPI_ERR_NO_MEM,
					"no memory for a group of %d",
					pset_size(pset));
	return MPI_SUCCESS;
}

int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
	LM_GUARD();
	static const char fn[] = "MPI_Session_set_errhandler";
	int err = check_session(session, fn);
	const char *why;

	if (err)
		return err;
	why = lm_errh_misfit(errhandler, 1);
	if (why)
		return lm_session_error(session, fn, MPI_ERR_ARG, "%s", why);
	lm_errh_set(&session->errh, errhandler);
	return MPI_SUCCESS;
}

int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
	LM_GUARD();
	static const char fn[] = "MPI_Session_get_errhandler";
	int err = check_session(session, fn);

	if (err)
		return err;
	if (!errhandler)
		return lm_session_error(session, fn, MPI_ERR_ARG,
					"errhandler is NULL");
	/* A new reference: the caller frees it (MPI_Errhandler_free). */
	lm_errh_hold(session->errh);
	*errhandler = session->errh;
	return MPI_SUCCESS;
}

int MPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
	LM_GUARD();
	static const char fn[] = "MPI_Session_call_errhandler";
	int err = check_session(session, fn);

	if (err)
		return err;
	/* The handler's own verdict: MPI_SUCCESS once it returns. */
	lm_session_error(session, fn, errorcode, "raised by the program");
	return MPI_SUCCESS;
}
