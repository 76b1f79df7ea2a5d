// SPDX-License-Identifier: MIT
/*
 * The Fortran entries gen/fortran leaves to hand (gen/fortran.api's
 * "manual"): calls taking Fortran procedures, which C then calls with
 * Fortran's conventions (every argument by reference, handles as
 * indices, LOGICALs 0 or 1): MPI_Op_create, the keyval and error
 * handler constructors (communicators, datatypes, sessions, windows),
 * MPI_Grequest_start; calls whose values or
 * strings C sizes itself (attribute values, MPI_Info_get_string,
 * MPI_Session_get_nth_pset, MPI_Buffer_detach); MPI_Pcontrol,
 * MPI_F_sync_reg; and the predefined callbacks a Fortran program names
 * (MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN, ...).
 *
 * Each entry is pmpi_x_ with mpi_x_ its weak alias, as generated ones,
 * and, for those in mpi_f08, mpi_x_f08_ and pmpi_x_f08_ too: mpi_f08's
 * specific procedures MPI_X_f08 (MPI-4.0's names) reach the same entry.
 */

#include <pthread.h>

#include "fortran/fortran.h"

typedef void (*fproc)(void);

static void set_ierror(MPI_Fint *ierror, int rc)
{
	if (ierror)
		*ierror = rc;
}

/* ---- MPI_Op_create ---------------------------------------------------------- */

typedef void (*fuser_fn)(void *in, void *inout, MPI_Fint *len,
			 MPI_Fint *datatype);

static void op_call(struct libmsg_op *op, void *in, void *inout, int *len,
		    MPI_Datatype *dt)
{
	int added;
	MPI_Fint fdt = lmf_borrow(LMF_DATATYPE, *dt, &added);

	((fuser_fn)(fproc)op->fn)(in, inout, len, &fdt);
	if (added)
		lmf_release(LMF_DATATYPE, fdt);
}

void pmpi_op_create_(fproc user_fn, MPI_Fint *commute, MPI_Fint *op,
		     MPI_Fint *ierror);
void pmpi_op_create_(fproc user_fn, MPI_Fint *commute, MPI_Fint *op,
		     MPI_Fint *ierror)
{
	MPI_Op c = MPI_OP_NULL;
	int rc = PMPI_Op_create((MPI_User_function *)user_fn, *commute != 0, &c);

	if (!rc)
		c->call = op_call;
	*op = lmf_out(LMF_OP, c);
	set_ierror(ierror, rc);
}
#pragma weak mpi_op_create_ = pmpi_op_create_
#pragma weak mpi_op_create_f08_ = pmpi_op_create_
#pragma weak pmpi_op_create_f08_ = pmpi_op_create_

/* ---- Error handlers ----------------------------------------------------------- */

typedef void (*ferrh_fn)(MPI_Fint *handle, MPI_Fint *code);

static void errh_call(struct libmsg_errhandler *h, MPI_Comm *comm,
		      MPI_Session *session, MPI_Win *win, int *code)
{
	int kind = h->session == LM_ERRH_FOR_SESSION ? LMF_SESSION :
		h->session == LM_ERRH_FOR_WIN ? LMF_WIN : LMF_COMM, added;
	void *c = kind == LMF_SESSION ? (void *)*session :
		kind == LMF_WIN ? (void *)*win : (void *)*comm;
	MPI_Fint f = lmf_borrow(kind, c, &added), e = *code;

	if (kind == LMF_SESSION)
		((ferrh_fn)(fproc)h->session_fn)(&f, &e);
	else if (kind == LMF_WIN)
		((ferrh_fn)(fproc)h->win_fn)(&f, &e);
	else
		((ferrh_fn)(fproc)h->fn)(&f, &e);
	if (added)
		lmf_release(kind, f);
}

static void errh_made(int rc, MPI_Errhandler c, MPI_Fint *errhandler,
		      MPI_Fint *ierror)
{
	if (!rc)
		c->call = errh_call;
	*errhandler = lmf_out(LMF_ERRHANDLER, c);
	set_ierror(ierror, rc);
}

void pmpi_comm_create_errhandler_(fproc fn, MPI_Fint *errhandler,
				  MPI_Fint *ierror);
void pmpi_comm_create_errhandler_(fproc fn, MPI_Fint *errhandler,
				  MPI_Fint *ierror)
{
	MPI_Errhandler c = MPI_ERRHANDLER_NULL;
	int rc = PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn,
					     &c);

	errh_made(rc, c, errhandler, ierror);
}
#pragma weak mpi_comm_create_errhandler_ = pmpi_comm_create_errhandler_
#pragma weak mpi_comm_create_errhandler_f08_ = pmpi_comm_create_errhandler_
#pragma weak pmpi_comm_create_errhandler_f08_ = pmpi_comm_create_errhandler_

void pmpi_errhandler_create_(fproc fn, MPI_Fint *errhandler, MPI_Fint *ierror);
void pmpi_errhandler_create_(fproc fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
	pmpi_comm_create_errhandler_(fn, errhandler, ierror);
}
#pragma weak mpi_errhandler_create_ = pmpi_errhandler_create_

void pmpi_session_create_errhandler_(fproc fn, MPI_Fint *errhandler,
				     MPI_Fint *ierror);
void pmpi_session_create_errhandler_(fproc fn, MPI_Fint *errhandler,
				     MPI_Fint *ierror)
{
	MPI_Errhandler c = MPI_ERRHANDLER_NULL;
	int rc = PMPI_Session_create_errhandler(
		(MPI_Session_errhandler_function *)fn, &c);

	errh_made(rc, c, errhandler, ierror);
}
#pragma weak mpi_session_create_errhandler_ = pmpi_session_create_errhandler_
#pragma weak mpi_session_create_errhandler_f08_ = pmpi_session_create_errhandler_
#pragma weak pmpi_session_create_errhandler_f08_ = pmpi_session_create_errhandler_

void pmpi_win_create_errhandler_(fproc fn, MPI_Fint *errhandler,
				 MPI_Fint *ierror);
void pmpi_win_create_errhandler_(fproc fn, MPI_Fint *errhandler,
				 MPI_Fint *ierror)
{
	MPI_Errhandler c = MPI_ERRHANDLER_NULL;
	int rc = PMPI_Win_create_errhandler(
		(MPI_Win_errhandler_function *)fn, &c);

	errh_made(rc, c, errhandler, ierror);
}
#pragma weak mpi_win_create_errhandler_ = pmpi_win_create_errhandler_
#pragma weak mpi_win_create_errhandler_f08_ = pmpi_win_create_errhandler_
#pragma weak pmpi_win_create_errhandler_f08_ = pmpi_win_create_errhandler_

/* ---- Keyvals ------------------------------------------------------------------- */

/*
 * A keyval made in Fortran: its procedures and extra state, the C
 * callbacks' extra state.  Kept to the end of the process, on a list
 * (attributes may outlive the keyval's free, and nothing says when the
 * last has gone).
 */
struct fkeyval {
	fproc copy, del;
	MPI_Aint extra;
	int kind;		/* LMF_COMM, LMF_DATATYPE or LMF_WIN */
	int mpi1;		/* MPI_KEYVAL_CREATE: INTEGER values */
	struct fkeyval *next;
};

static struct fkeyval *fkeyvals;
static pthread_mutex_t fkeyvals_lock = PTHREAD_MUTEX_INITIALIZER;

typedef void (*fcopy2_fn)(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra,
			  MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
			  MPI_Fint *ierror);
typedef void (*fdel2_fn)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val,
			 MPI_Aint *extra, MPI_Fint *ierror);
typedef void (*fcopy1_fn)(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra,
			  MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag,
			  MPI_Fint *ierror);
typedef void (*fdel1_fn)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *val,
			 MPI_Fint *extra, MPI_Fint *ierror);

static int attr_copy(void *obj, int keyval, void *extra, void *in, void *out,
		     int *flag)
{
	struct fkeyval *k = extra;
	int added;
	MPI_Fint f = lmf_borrow(k->kind, obj, &added), key = keyval, fl = 0;
	MPI_Fint ierr = MPI_SUCCESS;

	if (k->mpi1) {
		MPI_Fint e = (MPI_Fint)k->extra, vin = (MPI_Fint)(intptr_t)in;
		MPI_Fint vout = 0;

		((fcopy1_fn)k->copy)(&f, &key, &e, &vin, &vout, &fl, &ierr);
		*(void **)out = (void *)(intptr_t)vout;
	} else {
		MPI_Aint vin = (MPI_Aint)in, vout = 0;

		((fcopy2_fn)k->copy)(&f, &key, &k->extra, &vin, &vout, &fl,
				     &ierr);
		*(void **)out = (void *)vout;
	}
	*flag = fl != 0;
	if (added)
		lmf_release(k->kind, f);
	return ierr;
}

static int attr_delete(void *obj, int keyval, void *val, void *extra)
{
	struct fkeyval *k = extra;
	int added;
	MPI_Fint f = lmf_borrow(k->kind, obj, &added), key = keyval;
	MPI_Fint ierr = MPI_SUCCESS;

	if (k->mpi1) {
		MPI_Fint e = (MPI_Fint)k->extra, v = (MPI_Fint)(intptr_t)val;

		((fdel1_fn)k->del)(&f, &key, &v, &e, &ierr);
	} else {
		MPI_Aint v = (MPI_Aint)val;

		((fdel2_fn)k->del)(&f, &key, &v, &k->extra, &ierr);
	}
	if (added)
		lmf_release(k->kind, f);
	return ierr;
}

static int comm_copy(MPI_Comm old, int keyval, void *extra, void *in,
		     void *out, int *flag)
{
	return attr_copy(old, keyval, extra, in, out, flag);
}

static int comm_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
	return attr_delete(comm, keyval, val, extra);
}

static int type_copy(MPI_Datatype old, int keyval, void *extra, void *in,
		     void *out, int *flag)
{
	return attr_copy(old, keyval, extra, in, out, flag);
}

static int type_delete(MPI_Datatype dt, int keyval, void *val, void *extra)
{
	return attr_delete(dt, keyval, val, extra);
}

static int win_copy(MPI_Win old, int keyval, void *extra, void *in, void *out,
		    int *flag)
{
	return attr_copy(old, keyval, extra, in, out, flag);
}

static int win_delete(MPI_Win win, int keyval, void *val, void *extra)
{
	return attr_delete(win, keyval, val, extra);
}

static struct fkeyval *fkeyval_new(fproc copy, fproc del, MPI_Aint extra,
				   int kind, int mpi1)
{
	struct fkeyval *k = malloc(sizeof(*k));

	if (k) {
		k->copy = copy;
		k->del = del;
		k->extra = extra;
		k->kind = kind;
		k->mpi1 = mpi1;
		pthread_mutex_lock(&fkeyvals_lock);
		k->next = fkeyvals;
		fkeyvals = k;
		pthread_mutex_unlock(&fkeyvals_lock);
	}
	return k;
}

void pmpi_comm_create_keyval_(fproc copy, fproc del, MPI_Fint *keyval,
			      MPI_Aint *extra_state, MPI_Fint *ierror);
void pmpi_comm_create_keyval_(fproc copy, fproc del, MPI_Fint *keyval,
			      MPI_Aint *extra_state, MPI_Fint *ierror)
{
	struct fkeyval *k = fkeyval_new(copy, del, *extra_state, LMF_COMM, 0);
	int rc = k ? PMPI_Comm_create_keyval(comm_copy, comm_delete, keyval, k) :
		lmf_nomem("MPI_Comm_create_keyval");

	set_ierror(ierror, rc);
}
#pragma weak mpi_comm_create_keyval_ = pmpi_comm_create_keyval_
#pragma weak mpi_comm_create_keyval_f08_ = pmpi_comm_create_keyval_
#pragma weak pmpi_comm_create_keyval_f08_ = pmpi_comm_create_keyval_

void pmpi_keyval_create_(fproc copy, fproc del, MPI_Fint *keyval,
			 MPI_Fint *extra_state, MPI_Fint *ierror);
void pmpi_keyval_create_(fproc copy, fproc del, MPI_Fint *keyval,
			 MPI_Fint *extra_state, MPI_Fint *ierror)
{
	struct fkeyval *k = fkeyval_new(copy, del, *extra_state, LMF_COMM, 1);
	int rc = k ? PMPI_Comm_create_keyval(comm_copy, comm_delete, keyval, k) :
		lmf_nomem("MPI_Keyval_create");

	set_ierror(ierror, rc);
}
#pragma weak mpi_keyval_create_ = pmpi_keyval_create_

void pmpi_type_create_keyval_(fproc copy, fproc del, MPI_Fint *keyval,
			      MPI_Aint *extra_state, MPI_Fint *ierror);
void pmpi_type_create_keyval_(fproc copy, fproc del, MPI_Fint *keyval,
			      MPI_Aint *extra_state, MPI_Fint *ierror)
{
	struct fkeyval *k = fkeyval_new(copy, del, *extra_state, LMF_DATATYPE, 0);
	int rc = k ? PMPI_Type_create_keyval(type_copy, type_delete, keyval, k) :
		lmf_nomem("MPI_Type_create_keyval");

	set_ierror(ierror, rc);
}
#pragma weak mpi_type_create_keyval_ = pmpi_type_create_keyval_
#pragma weak mpi_type_create_keyval_f08_ = pmpi_type_create_keyval_
#pragma weak pmpi_type_create_keyval_f08_ = pmpi_type_create_keyval_

void pmpi_win_create_keyval_(fproc copy, fproc del, MPI_Fint *keyval,
			     MPI_Aint *extra_state, MPI_Fint *ierror);
void pmpi_win_create_keyval_(fproc copy, fproc del, MPI_Fint *keyval,
			     MPI_Aint *extra_state, MPI_Fint *ierror)
{
	struct fkeyval *k = fkeyval_new(copy, del, *extra_state, LMF_WIN, 0);
	int rc = k ? PMPI_Win_create_keyval(win_copy, win_delete, keyval, k) :
		lmf_nomem("MPI_Win_create_keyval");

	set_ierror(ierror, rc);
}
#pragma weak mpi_win_create_keyval_ = pmpi_win_create_keyval_
#pragma weak mpi_win_create_keyval_f08_ = pmpi_win_create_keyval_
#pragma weak pmpi_win_create_keyval_f08_ = pmpi_win_create_keyval_

/*
 * Attribute values: what Fortran set is the value itself; the
 * predefined attributes are C pointers to their int values.
 */
static int predefined_key(int keyval)
{
	return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
		keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_LASTUSEDCODE ||
		keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM;
}

static int comm_get_attr(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
			 MPI_Fint *flag)
{
	void *v = NULL;
	int fl = 0;
	int rc = PMPI_Comm_get_attr(lmf_f2c(LMF_COMM, *comm), *keyval, &v, &fl);

	if (!rc && fl)
		*val = predefined_key(*keyval) ? *(int *)v : (MPI_Aint)v;
	*flag = fl != 0;
	return rc;
}

void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval,
			 MPI_Aint *attribute_val, MPI_Fint *flag,
			 MPI_Fint *ierror);
void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval,
			 MPI_Aint *attribute_val, MPI_Fint *flag,
			 MPI_Fint *ierror)
{
	set_ierror(ierror, comm_get_attr(comm, keyval, attribute_val, flag));
}
#pragma weak mpi_comm_get_attr_ = pmpi_comm_get_attr_
#pragma weak mpi_comm_get_attr_f08_ = pmpi_comm_get_attr_
#pragma weak pmpi_comm_get_attr_f08_ = pmpi_comm_get_attr_

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val,
		    MPI_Fint *flag, MPI_Fint *ierror);
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val,
		    MPI_Fint *flag, MPI_Fint *ierror)
{
	MPI_Aint v = 0;
	int rc = comm_get_attr(comm, keyval, &v, flag);

	if (!rc && *flag)
		*attribute_val = (MPI_Fint)v;
	set_ierror(ierror, rc);
}
#pragma weak mpi_attr_get_ = pmpi_attr_get_

void pmpi_type_get_attr_(MPI_Fint *datatype, MPI_Fint *keyval,
			 MPI_Aint *attribute_val, MPI_Fint *flag,
			 MPI_Fint *ierror);
void pmpi_type_get_attr_(MPI_Fint *datatype, MPI_Fint *keyval,
			 MPI_Aint *attribute_val, MPI_Fint *flag,
			 MPI_Fint *ierror)
{
	void *v = NULL;
	int fl = 0;
	int rc = PMPI_Type_get_attr(lmf_f2c(LMF_DATATYPE, *datatype), *keyval,
				    &v, &fl);

	if (!rc && fl)
		*attribute_val = (MPI_Aint)v;
	*flag = fl != 0;
	set_ierror(ierror, rc);
}
#pragma weak mpi_type_get_attr_ = pmpi_type_get_attr_
#pragma weak mpi_type_get_attr_f08_ = pmpi_type_get_attr_
#pragma weak pmpi_type_get_attr_f08_ = pmpi_type_get_attr_

/*
 * A window's: MPI_WIN_BASE is the base address itself, MPI_WIN_SIZE a
 * pointer to an MPI_Aint, the other predefined ones pointers to ints.
 */
void pmpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval,
			MPI_Aint *attribute_val, MPI_Fint *flag,
			MPI_Fint *ierror);
void pmpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval,
			MPI_Aint *attribute_val, MPI_Fint *flag,
			MPI_Fint *ierror)
{
	void *v = NULL;
	int fl = 0;
	int rc = PMPI_Win_get_attr(lmf_f2c(LMF_WIN, *win), *keyval, &v, &fl);

	if (!rc && fl) {
		if (*keyval == MPI_WIN_SIZE)
			*attribute_val = *(MPI_Aint *)v;
		else if (*keyval == MPI_WIN_DISP_UNIT ||
			 *keyval == MPI_WIN_CREATE_FLAVOR ||
			 *keyval == MPI_WIN_MODEL)
			*attribute_val = *(int *)v;
		else
			*attribute_val = (MPI_Aint)v;
	}
	*flag = fl != 0;
	set_ierror(ierror, rc);
}
#pragma weak mpi_win_get_attr_ = pmpi_win_get_attr_
#pragma weak mpi_win_get_attr_f08_ = pmpi_win_get_attr_
#pragma weak pmpi_win_get_attr_f08_ = pmpi_win_get_attr_

/* ---- MPI_Grequest_start ---------------------------------------------------------- */

struct fgreq {
	fproc query, free, cancel;
	MPI_Aint extra;
};

typedef void (*fquery_fn)(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierror);
typedef void (*ffree_fn)(MPI_Aint *extra, MPI_Fint *ierror);
typedef void (*fcancel_fn)(MPI_Aint *extra, MPI_Fint *complete,
			   MPI_Fint *ierror);

static int greq_query(void *extra, MPI_Status *status)
{
	struct fgreq *g = extra;
	MPI_Fint f[6], ierr = MPI_SUCCESS;

	memcpy(f, status, sizeof(f));
	((fquery_fn)g->query)(&g->extra, f, &ierr);
	memcpy(status, f, sizeof(f));
	return ierr;
}

static int greq_free(void *extra)
{
	struct fgreq *g = extra;
	MPI_Fint ierr = MPI_SUCCESS;

	((ffree_fn)g->free)(&g->extra, &ierr);
	free(g);
	return ierr;
}

static int greq_cancel(void *extra, int complete)
{
	struct fgreq *g = extra;
	MPI_Fint c = complete != 0, ierr = MPI_SUCCESS;

	((fcancel_fn)g->cancel)(&g->extra, &c, &ierr);
	return ierr;
}

void pmpi_grequest_start_(fproc query, fproc freefn, fproc cancel,
			  MPI_Aint *extra_state, MPI_Fint *request,
			  MPI_Fint *ierror);
void pmpi_grequest_start_(fproc query, fproc freefn, fproc cancel,
			  MPI_Aint *extra_state, MPI_Fint *request,
			  MPI_Fint *ierror)
{
	struct fgreq *g = malloc(sizeof(*g));
	MPI_Request c = MPI_REQUEST_NULL;
	int rc;

	if (!g) {
		set_ierror(ierror, lmf_nomem("MPI_Grequest_start"));
		return;
	}
	g->query = query;
	g->free = freefn;
	g->cancel = cancel;
	g->extra = *extra_state;
	rc = PMPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &c);
	if (rc)
		free(g);
	*request = lmf_out(LMF_REQUEST, c);
	set_ierror(ierror, rc);
}
#pragma weak mpi_grequest_start_ = pmpi_grequest_start_
#pragma weak mpi_grequest_start_f08_ = pmpi_grequest_start_
#pragma weak pmpi_grequest_start_f08_ = pmpi_grequest_start_

/* ---- Strings C sizes ------------------------------------------------------------ */

/*
 * MPI-4.0's length-or-copy calls: in Fortran the length counts no NUL;
 * 0 asks for the length only, else the string fills at most that many
 * characters of value (and no more than its declared length).
 */
void pmpi_info_get_string_(MPI_Fint *info, const char *key, MPI_Fint *buflen,
			   char *value, MPI_Fint *flag, MPI_Fint *ierror,
			   size_t key_len, size_t value_len);
void pmpi_info_get_string_(MPI_Fint *info, const char *key, MPI_Fint *buflen,
			   char *value, MPI_Fint *flag, MPI_Fint *ierror,
			   size_t key_len, size_t value_len)
{
	struct lmf_tmp tk, tv;
	char *ckey, *cval = NULL;
	int rc = MPI_SUCCESS, fl = 0, room = 0;

	lmf_tmp_init(&tk);
	lmf_tmp_init(&tv);
	ckey = lmf_str_in(&tk, key, key_len, 1);
	if (*buflen > 0)
		room = ((size_t)*buflen < value_len ? *buflen : (int)value_len) + 1;
	if (!ckey || (room && !(cval = lmf_str_room(&tv, room))))
		rc = lmf_nomem("MPI_Info_get_string");
	if (!rc)
		rc = PMPI_Info_get_string(lmf_f2c(LMF_INFO, *info), ckey, &room,
					  cval, &fl);
	if (!rc && fl) {
		if (cval)
			lmf_str_out(value, value_len, cval);
		*buflen = room - 1;
	}
	*flag = fl != 0;
	lmf_tmp_free(&tk);
	lmf_tmp_free(&tv);
	set_ierror(ierror, rc);
}
#pragma weak mpi_info_get_string_ = pmpi_info_get_string_
#pragma weak mpi_info_get_string_f08_ = pmpi_info_get_string_
#pragma weak pmpi_info_get_string_f08_ = pmpi_info_get_string_

void pmpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info,
				MPI_Fint *n, MPI_Fint *pset_len,
				char *pset_name, MPI_Fint *ierror,
				size_t pset_name_len);
void pmpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info,
				MPI_Fint *n, MPI_Fint *pset_len,
				char *pset_name, MPI_Fint *ierror,
				size_t pset_name_len)
{
	struct lmf_tmp t;
	char *c = NULL;
	int rc = MPI_SUCCESS, room = 0;

	lmf_tmp_init(&t);
	if (*pset_len > 0)
		room = ((size_t)*pset_len < pset_name_len ? *pset_len :
			(int)pset_name_len) + 1;
	if (room && !(c = lmf_str_room(&t, room)))
		rc = lmf_nomem("MPI_Session_get_nth_pset");
	if (!rc)
		rc = PMPI_Session_get_nth_pset(lmf_f2c(LMF_SESSION, *session),
					       lmf_f2c(LMF_INFO, *info), *n,
					       &room, c);
	if (!rc) {
		if (c)
			lmf_str_out(pset_name, pset_name_len, c);
		*pset_len = room - 1;
	}
	lmf_tmp_free(&t);
	set_ierror(ierror, rc);
}
#pragma weak mpi_session_get_nth_pset_ = pmpi_session_get_nth_pset_
#pragma weak mpi_session_get_nth_pset_f08_ = pmpi_session_get_nth_pset_
#pragma weak pmpi_session_get_nth_pset_f08_ = pmpi_session_get_nth_pset_

/* ---- The rest ------------------------------------------------------------------- */

/* The mpi module and mpif.h: the address is no use to Fortran. */
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierror);
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierror)
{
	void *addr = NULL;

	(void)buffer_addr;
	set_ierror(ierror, PMPI_Buffer_detach(&addr, size));
}
#pragma weak mpi_buffer_detach_ = pmpi_buffer_detach_

/* mpi_f08: a TYPE(C_PTR). */
void PMPI_Buffer_detach_f08(void **buffer_addr, MPI_Fint *size,
			    MPI_Fint *ierror);
void PMPI_Buffer_detach_f08(void **buffer_addr, MPI_Fint *size,
			    MPI_Fint *ierror)
{
	set_ierror(ierror, PMPI_Buffer_detach(buffer_addr, size));
}
#pragma weak MPI_Buffer_detach_f08 = PMPI_Buffer_detach_f08

void pmpi_pcontrol_(MPI_Fint *level);
void pmpi_pcontrol_(MPI_Fint *level)
{
	PMPI_Pcontrol(*level);
}
#pragma weak mpi_pcontrol_ = pmpi_pcontrol_
#pragma weak mpi_pcontrol_f08_ = pmpi_pcontrol_
#pragma weak pmpi_pcontrol_f08_ = pmpi_pcontrol_

/*
 * MPI_F_sync_reg: a call the compiler cannot see into, so that it keeps
 * no copy of the buffer in registers across it.
 */
void pmpi_f_sync_reg_(void *buf);
void pmpi_f_sync_reg_(void *buf)
{
	(void)buf;
}
#pragma weak mpi_f_sync_reg_ = pmpi_f_sync_reg_

void PMPI_F_sync_reg_f08ts(void *buf);
void PMPI_F_sync_reg_f08ts(void *buf)
{
	(void)buf;
}
#pragma weak MPI_F_sync_reg_f08ts = PMPI_F_sync_reg_f08ts

/* ---- The predefined callbacks, with Fortran's conventions ------------------------ */

#define UNUSED2(a, b) ((void)(a), (void)(b))

void mpi_comm_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra,
			    MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
			    MPI_Fint *ierror);
void mpi_comm_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra,
			    MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
			    MPI_Fint *ierror)
{
	UNUSED2(old, keyval);
	UNUSED2(extra, in);
	(void)out;
	*flag = 0;
	*ierror = MPI_SUCCESS;
}

void mpi_comm_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra,
		      MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
		      MPI_Fint *ierror);
void mpi_comm_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra,
		      MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
		      MPI_Fint *ierror)
{
	UNUSED2(old, keyval);
	(void)extra;
	*out = *in;
	*flag = 1;
	*ierror = MPI_SUCCESS;
}

void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
			      MPI_Aint *extra, MPI_Fint *ierror);
void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
			      MPI_Aint *extra, MPI_Fint *ierror)
{
	UNUSED2(comm, keyval);
	UNUSED2(val, extra);
	*ierror = MPI_SUCCESS;
}

/* The datatype ones: the same with a datatype. */
#pragma weak mpi_type_null_copy_fn_ = mpi_comm_null_copy_fn_
#pragma weak mpi_type_dup_fn_ = mpi_comm_dup_fn_
#pragma weak mpi_type_null_delete_fn_ = mpi_comm_null_delete_fn_
/* And the window ones. */
#pragma weak mpi_win_null_copy_fn_ = mpi_comm_null_copy_fn_
#pragma weak mpi_win_dup_fn_ = mpi_comm_dup_fn_
#pragma weak mpi_win_null_delete_fn_ = mpi_comm_null_delete_fn_

/* MPI-1's, with INTEGER values. */
void mpi_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra,
		       MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag,
		       MPI_Fint *ierror);
void mpi_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra,
		       MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag,
		       MPI_Fint *ierror)
{
	UNUSED2(old, keyval);
	UNUSED2(extra, in);
	(void)out;
	*flag = 0;
	*ierror = MPI_SUCCESS;
}

void mpi_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra,
		 MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror);
void mpi_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra,
		 MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
	UNUSED2(old, keyval);
	(void)extra;
	*out = *in;
	*flag = 1;
	*ierror = MPI_SUCCESS;
}

void mpi_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val,
			 MPI_Fint *extra, MPI_Fint *ierror);
void mpi_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val,
			 MPI_Fint *extra, MPI_Fint *ierror)
{
	UNUSED2(comm, keyval);
	UNUSED2(val, extra);
	*ierror = MPI_SUCCESS;
}
