// SPDX-License-Identifier: MIT
/*
 * Attribute caching on communicators, datatypes and windows: keyvals
 * with copy and delete callbacks, and the (keyval, value) pairs each
 * object holds.
 *
 * A keyval is made for one kind of object (MPI_Comm_create_keyval,
 * MPI_Type_create_keyval or MPI_Win_create_keyval) and is refused on
 * the others.  It lives while the user holds it or an attribute uses
 * it: freeing the keyval only gives up the user's handle and marks it
 * for deallocation (MPI-3.1 section 6.7.2); the attributes already set
 * work on, callbacks and all (get, set, delete, copied by a dup), until
 * the last of them is deleted and the keyval goes.  Attributes are kept
 * newest first, so an object's delete callbacks run in the reverse
 * order of setting (MPI asks this of MPI_COMM_SELF at MPI_Finalize).
 * Copy callbacks run when the object is duplicated (MPI_Comm_dup and
 * friends, MPI_Type_dup; windows are never duplicated), delete
 * callbacks when it is freed, when the attribute is deleted or set
 * anew.  Errors about a window's attributes go to the window's handler.
 *
 * The predefined keys (MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL, MPI_LASTUSEDCODE, MPI_UNIVERSE_SIZE, MPI_APPNUM)
 * are answered on every communicator and cannot be set or deleted.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"

/* User keyvals are LM_KEYVAL_BASE + index into keyvals[]. */
#define LM_KEYVAL_BASE	0x100
#define LM_KEYVAL_MAX	(1 << 20)

enum { LM_KV_COMM = 1, LM_KV_TYPE, LM_KV_WIN };

struct lm_keyval {
	union {
		MPI_Comm_copy_attr_function *comm;
		MPI_Type_copy_attr_function *type;
		MPI_Win_copy_attr_function *win;	/* never called */
	} copy;
	union {
		MPI_Comm_delete_attr_function *comm;
		MPI_Type_delete_attr_function *type;
		MPI_Win_delete_attr_function *win;
	} del;
	void *extra;
	int refs;		/* the user's handle, plus attributes using it */
	uint8_t kind;		/* LM_KV_COMM, LM_KV_TYPE or LM_KV_WIN */
	uint8_t user;		/* the user still holds the handle */
};

struct lm_attr {
	struct lm_attr *next;
	int keyval;
	void *val;
};

/* An object attributes hang on: a communicator, a datatype or a window. */
struct holder {
	int kind;
	void *obj;		/* MPI_Comm, MPI_Datatype or MPI_Win */
	struct lm_attr **head;
	struct libmsg_comm *comm;	/* whose error handler reports
					 * (a window's own reports for it) */
};

static struct holder of_comm(struct libmsg_comm *c)
{
	return (struct holder){ LM_KV_COMM, c, &c->attrs, c };
}

static struct holder of_type(MPI_Datatype dt)
{
	return (struct holder){ LM_KV_TYPE, dt, &dt->attrs, NULL };
}

static struct holder of_win(MPI_Win win)
{
	struct lm_win_head *w = (struct lm_win_head *)(void *)win;

	return (struct holder){ LM_KV_WIN, win, &w->attrs, NULL };
}

static const char *const kind_name[] = {
	[LM_KV_COMM] = "communicator", [LM_KV_TYPE] = "datatype",
	[LM_KV_WIN] = "window",
};

/* Raise an error on h's object: a window's handler, else h->comm's. */
static int herr(const struct holder *h, const char *fn, int code,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int herr(const struct holder *h, const char *fn, int code,
		const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (h->kind == LM_KV_WIN && h->obj)
		return lm_win_error(h->obj, fn, code, "%s", msg);
	return lm_error(h->comm, fn, code, "%s", msg);
}

static struct lm_keyval *keyvals;
static int nkeyvals;

int libmsg_comm_null_copy_fn(MPI_Comm oldcomm, int keyval, void *extra,
			     void *in, void *out, int *flag)
{
	(void)oldcomm; (void)keyval; (void)extra; (void)in; (void)out;
	*flag = 0;
	return MPI_SUCCESS;
}

int libmsg_comm_dup_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in,
		       void *out, int *flag)
{
	(void)oldcomm; (void)keyval; (void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

int libmsg_comm_null_delete_fn(MPI_Comm comm, int keyval, void *val,
			       void *extra)
{
	(void)comm; (void)keyval; (void)val; (void)extra;
	return MPI_SUCCESS;
}

int libmsg_type_null_copy_fn(MPI_Datatype oldtype, int keyval, void *extra,
			     void *in, void *out, int *flag)
{
	(void)oldtype; (void)keyval; (void)extra; (void)in; (void)out;
	*flag = 0;
	return MPI_SUCCESS;
}

int libmsg_type_dup_fn(MPI_Datatype oldtype, int keyval, void *extra,
		       void *in, void *out, int *flag)
{
	(void)oldtype; (void)keyval; (void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

int libmsg_type_null_delete_fn(MPI_Datatype type, int keyval, void *val,
			       void *extra)
{
	(void)type; (void)keyval; (void)val; (void)extra;
	return MPI_SUCCESS;
}

int libmsg_win_null_copy_fn(MPI_Win oldwin, int keyval, void *extra,
			    void *in, void *out, int *flag)
{
	(void)oldwin; (void)keyval; (void)extra; (void)in; (void)out;
	*flag = 0;
	return MPI_SUCCESS;
}

int libmsg_win_dup_fn(MPI_Win oldwin, int keyval, void *extra, void *in,
		      void *out, int *flag)
{
	(void)oldwin; (void)keyval; (void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

int libmsg_win_null_delete_fn(MPI_Win win, int keyval, void *val,
			      void *extra)
{
	(void)win; (void)keyval; (void)val; (void)extra;
	return MPI_SUCCESS;
}

static int predefined(int keyval)
{
	return keyval == MPI_TAG_UB || keyval == MPI_HOST ||
		keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
		keyval == MPI_LASTUSEDCODE || keyval == MPI_UNIVERSE_SIZE ||
		keyval == MPI_APPNUM;
}

/* a's keyval (callbacks may create keyvals and move keyvals[]). */
static struct lm_keyval *keyval_of(const struct lm_attr *a)
{
	return &keyvals[a->keyval - LM_KEYVAL_BASE];
}

static void keyval_put(struct lm_keyval *k)
{
	if (--k->refs == 0)
		memset(k, 0, sizeof(*k));
}

/*
 * A user keyval of h's kind, or an error.  user: the user must still
 * hold it (MPI_Comm_free_keyval); set, get and delete also take one
 * that was freed while attributes still use it.
 */
static int check_keyval(const struct holder *h, const char *fn, int keyval,
			struct lm_keyval **k, int user)
{
	int i = keyval - LM_KEYVAL_BASE;

	if (h->kind == LM_KV_COMM && predefined(keyval))
		return herr(h, fn, MPI_ERR_KEYVAL,
			    "keyval %#x is predefined and read-only", keyval);
	if (i < 0 || i >= nkeyvals || !keyvals[i].refs ||
	    (user && !keyvals[i].user))
		return herr(h, fn, MPI_ERR_KEYVAL,
			    "keyval %d is not a keyval (freed or never created)",
			    keyval);
	if (keyvals[i].kind != h->kind)
		return herr(h, fn, MPI_ERR_KEYVAL,
			    "keyval %d is a %s keyval, not a %s one", keyval,
			    kind_name[keyvals[i].kind], kind_name[h->kind]);
	*k = &keyvals[i];
	return MPI_SUCCESS;
}

/* A new keyval of kind: its number, or an error. */
static int keyval_create(int kind, const char *fn, void *copy_fn,
			 void *delete_fn, int *keyval, void *extra)
{
	struct lm_keyval *n;
	int i;

	lm_check_init(fn);
	if (!keyval)
		return lm_error(NULL, fn, MPI_ERR_ARG, "keyval is NULL");
	for (i = 0; i < nkeyvals && keyvals[i].refs; i++)
		;
	if (i == nkeyvals) {
		if (nkeyvals == LM_KEYVAL_MAX)
			return lm_error(NULL, fn, MPI_ERR_OTHER,
					"all %d keyvals are in use", LM_KEYVAL_MAX);
		n = realloc(keyvals, (size_t)(nkeyvals + 16) * sizeof(*n));
		if (!n)
			return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
		memset(n + nkeyvals, 0, 16 * sizeof(*n));
		keyvals = n;
		nkeyvals += 16;
	}
	/* NULL callbacks behave as the null ones. */
	if (kind == LM_KV_COMM) {
		keyvals[i].copy.comm = copy_fn ? copy_fn : MPI_COMM_NULL_COPY_FN;
		keyvals[i].del.comm = delete_fn ? delete_fn :
						  MPI_COMM_NULL_DELETE_FN;
	} else if (kind == LM_KV_WIN) {
		keyvals[i].copy.win = copy_fn ? copy_fn : MPI_WIN_NULL_COPY_FN;
		keyvals[i].del.win = delete_fn ? delete_fn :
						 MPI_WIN_NULL_DELETE_FN;
	} else {
		keyvals[i].copy.type = copy_fn ? copy_fn : MPI_TYPE_NULL_COPY_FN;
		keyvals[i].del.type = delete_fn ? delete_fn :
						  MPI_TYPE_NULL_DELETE_FN;
	}
	keyvals[i].extra = extra;
	keyvals[i].kind = (uint8_t)kind;
	keyvals[i].refs = 1;
	keyvals[i].user = 1;
	*keyval = LM_KEYVAL_BASE + i;
	return MPI_SUCCESS;
}

static int keyval_free(int kind, const char *fn, int *keyval)
{
	struct holder h = { .kind = kind };
	struct lm_keyval *k;
	int err;

	lm_check_init(fn);
	if (!keyval)
		return lm_error(NULL, fn, MPI_ERR_ARG, "keyval is NULL");
	err = check_keyval(&h, fn, *keyval, &k, 1);
	if (err)
		return err;
	k->user = 0;
	keyval_put(k);
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
			   MPI_Comm_delete_attr_function *delete_fn,
			   int *comm_keyval, void *extra_state)
{
	LM_GUARD();
	return keyval_create(LM_KV_COMM, "MPI_Comm_create_keyval", copy_fn,
			     delete_fn, comm_keyval, extra_state);
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
	LM_GUARD();
	return keyval_free(LM_KV_COMM, "MPI_Comm_free_keyval", comm_keyval);
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
			   MPI_Type_delete_attr_function *delete_fn,
			   int *type_keyval, void *extra_state)
{
	LM_GUARD();
	return keyval_create(LM_KV_TYPE, "MPI_Type_create_keyval", copy_fn,
			     delete_fn, type_keyval, extra_state);
}

int MPI_Type_free_keyval(int *type_keyval)
{
	LM_GUARD();
	return keyval_free(LM_KV_TYPE, "MPI_Type_free_keyval", type_keyval);
}

static struct lm_attr *attr_find(const struct holder *h, int keyval)
{
	struct lm_attr *a;

	for (a = *h->head; a; a = a->next)
		if (a->keyval == keyval)
			return a;
	return NULL;
}

static void attr_unlink(const struct holder *h, struct lm_attr *a)
{
	struct lm_attr **p;

	for (p = h->head; *p; p = &(*p)->next) {
		if (*p == a) {
			*p = a->next;
			keyval_put(keyval_of(a));
			free(a);
			return;
		}
	}
}

/* Run a's delete callback: MPI_SUCCESS, or its error reported. */
static int attr_delete_cb(const struct holder *h, struct lm_attr *a,
			  const char *fn)
{
	struct lm_keyval *k = keyval_of(a);
	int err = h->kind == LM_KV_COMM ?
		k->del.comm(h->obj, a->keyval, a->val, k->extra) :
		h->kind == LM_KV_WIN ?
		k->del.win(h->obj, a->keyval, a->val, k->extra) :
		k->del.type(h->obj, a->keyval, a->val, k->extra);

	if (err != MPI_SUCCESS)
		return herr(h, fn, err,
			    "the delete callback of keyval %d returned %d",
			    a->keyval, err);
	return MPI_SUCCESS;
}

static int attr_set(const struct holder *h, const char *fn, int keyval,
		    void *val)
{
	struct lm_keyval *k;
	struct lm_attr *a;
	int err = check_keyval(h, fn, keyval, &k, 0);

	if (err)
		return err;
	a = attr_find(h, keyval);
	if (a) {
		/* The old value goes as if deleted. */
		err = attr_delete_cb(h, a, fn);
		if (err)
			return err;
		a->val = val;
		return MPI_SUCCESS;
	}
	a = malloc(sizeof(*a));
	if (!a)
		return herr(h, fn, MPI_ERR_NO_MEM, "out of memory");
	a->keyval = keyval;
	a->val = val;
	a->next = *h->head;
	*h->head = a;
	k->refs++;
	return MPI_SUCCESS;
}

static int attr_get(const struct holder *h, const char *fn, int keyval,
		    void *val, int *flag)
{
	struct lm_keyval *k;
	struct lm_attr *a;
	int err;

	if (!val || !flag)
		return herr(h, fn, MPI_ERR_ARG, "attribute_val or flag is NULL");
	err = check_keyval(h, fn, keyval, &k, 0);
	if (err)
		return err;
	a = attr_find(h, keyval);
	*flag = a != NULL;
	if (a)
		*(void **)val = a->val;
	return MPI_SUCCESS;
}

static int attr_delete(const struct holder *h, const char *fn, int keyval)
{
	struct lm_keyval *k;
	struct lm_attr *a;
	int err = check_keyval(h, fn, keyval, &k, 0);

	if (err)
		return err;
	a = attr_find(h, keyval);
	if (!a)
		return MPI_SUCCESS;	/* nothing cached: nothing to delete */
	err = attr_delete_cb(h, a, fn);
	if (err)
		return err;
	attr_unlink(h, a);
	return MPI_SUCCESS;
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_set_attr";
	struct holder h;
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	h = of_comm(comm);
	return attr_set(&h, fn, comm_keyval, attribute_val);
}

static int get_predefined(int keyval, void *attribute_val)
{
	static int tag_ub = MPI_TAG_UB_VALUE, host = MPI_PROC_NULL,
		io = MPI_ANY_SOURCE, wtime_global = 1, universe, appnum;

	switch (keyval) {
	case MPI_TAG_UB:
		*(int **)attribute_val = &tag_ub;
		return 1;
	case MPI_HOST:
		*(int **)attribute_val = &host;
		return 1;
	case MPI_IO:
		*(int **)attribute_val = &io;
		return 1;
	case MPI_WTIME_IS_GLOBAL:
		*(int **)attribute_val = &wtime_global;
		return 1;
	case MPI_LASTUSEDCODE:
		*(int **)attribute_val = lm_err_lastused();
		return 1;
	/* No processes can be added to the job. */
	case MPI_UNIVERSE_SIZE:
		universe = (int)lm.job.nranks;
		*(int **)attribute_val = &universe;
		return 1;
	/* Which of mpiexec's programs (MPMD: "a : b") this one is. */
	case MPI_APPNUM:
		appnum = lm.appnum;
		*(int **)attribute_val = &appnum;
		return 1;
	}
	return 0;
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
		      int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_get_attr";
	struct holder h;
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (predefined(comm_keyval) && attribute_val && flag) {
		*flag = get_predefined(comm_keyval, attribute_val);
		return MPI_SUCCESS;
	}
	h = of_comm(comm);
	return attr_get(&h, fn, comm_keyval, attribute_val, flag);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_delete_attr";
	struct holder h;
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	h = of_comm(comm);
	return attr_delete(&h, fn, comm_keyval);
}

/* The MPI-1 names: the same calls, each reporting under its own name. */
int MPI_Keyval_create(MPI_Copy_function *copy_fn,
		      MPI_Delete_function *delete_fn, int *keyval,
		      void *extra_state)
{
	LM_GUARD();
	return keyval_create(LM_KV_COMM, "MPI_Keyval_create", copy_fn,
			     delete_fn, keyval, extra_state);
}

int MPI_Keyval_free(int *keyval)
{
	LM_GUARD();
	return keyval_free(LM_KV_COMM, "MPI_Keyval_free", keyval);
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
	return MPI_Comm_set_attr(comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	return MPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval)
{
	return MPI_Comm_delete_attr(comm, keyval);
}

/* A datatype argument attributes may hang on (predefined ones too). */
static int check_type(MPI_Datatype dt, const char *fn)
{
	lm_check_init(fn);
	if (!lm_datatype_valid(dt))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "datatype: %s",
				lm_datatype_why(dt));
	return MPI_SUCCESS;
}

int MPI_Type_set_attr(MPI_Datatype type, int type_keyval,
		      void *attribute_val)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_set_attr";
	struct holder h;
	int err = check_type(type, fn);

	if (err)
		return err;
	h = of_type(type);
	return attr_set(&h, fn, type_keyval, attribute_val);
}

int MPI_Type_get_attr(MPI_Datatype type, int type_keyval,
		      void *attribute_val, int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_get_attr";
	struct holder h;
	int err = check_type(type, fn);

	if (err)
		return err;
	h = of_type(type);
	return attr_get(&h, fn, type_keyval, attribute_val, flag);
}

int MPI_Type_delete_attr(MPI_Datatype type, int type_keyval)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_delete_attr";
	struct holder h;
	int err = check_type(type, fn);

	if (err)
		return err;
	h = of_type(type);
	return attr_delete(&h, fn, type_keyval);
}

/* old's attributes onto the new object n, through the copy callbacks. */
static int attr_copy(const struct holder *old, const struct holder *n,
		     const char *fn)
{
	struct lm_attr *a, *c, **tail = n->head;
	struct lm_keyval *k;
	void *out;
	int err, flag;

	for (a = *old->head; a; a = a->next) {
		k = keyval_of(a);
		out = NULL;
		flag = 0;
		err = old->kind == LM_KV_COMM ?
			k->copy.comm(old->obj, a->keyval, k->extra, a->val,
				     &out, &flag) :
			k->copy.type(old->obj, a->keyval, k->extra, a->val,
				     &out, &flag);
		if (err != MPI_SUCCESS)
			return lm_error(old->comm, fn, err,
					"the copy callback of keyval %d returned %d",
					a->keyval, err);
		if (!flag)
			continue;
		c = malloc(sizeof(*c));
		if (!c)
			return lm_error(old->comm, fn, MPI_ERR_NO_MEM,
					"out of memory");
		/* Keep old's order: the newest stays first. */
		c->keyval = a->keyval;
		c->val = out;
		c->next = NULL;
		*tail = c;
		tail = &c->next;
		keyval_of(a)->refs++;
	}
	return MPI_SUCCESS;
}

/* Delete every attribute, callbacks run; stops at a failing one. */
static int attr_delete_all(const struct holder *h, const char *fn)
{
	struct lm_attr *a;
	int err;

	/* A callback may set or delete attributes: look at the head anew. */
	while ((a = *h->head)) {
		err = attr_delete_cb(h, a, fn);
		if (err)
			return err;
		attr_unlink(h, a);
	}
	return MPI_SUCCESS;
}

/* Forget every attribute, no callback (a duplicate that failed). */
static void attr_drop(const struct holder *h)
{
	while (*h->head)
		attr_unlink(h, *h->head);
}

int lm_attr_copy(struct libmsg_comm *old, struct libmsg_comm *c,
		 const char *fn)
{
	struct holder o = of_comm(old), n = of_comm(c);

	return attr_copy(&o, &n, fn);
}

int lm_attr_delete_all(struct libmsg_comm *c, const char *fn)
{
	struct holder h = of_comm(c);

	return attr_delete_all(&h, fn);
}

void lm_attr_drop(struct libmsg_comm *c)
{
	struct holder h = of_comm(c);

	attr_drop(&h);
}

int lm_type_attr_copy(MPI_Datatype old, MPI_Datatype dt, const char *fn)
{
	struct holder o = of_type(old), n = of_type(dt);

	return attr_copy(&o, &n, fn);
}

int lm_type_attr_delete_all(MPI_Datatype dt, const char *fn)
{
	struct holder h = of_type(dt);

	return attr_delete_all(&h, fn);
}

void lm_type_attr_drop(MPI_Datatype dt)
{
	struct holder h = of_type(dt);

	attr_drop(&h);
}

/* Windows: the calls themselves are rma/'s, which answers the predefined keys. */
int lm_win_keyval_create(const char *fn, MPI_Win_copy_attr_function *copy_fn,
			 MPI_Win_delete_attr_function *delete_fn, int *keyval,
			 void *extra)
{
	return keyval_create(LM_KV_WIN, fn, copy_fn, delete_fn, keyval, extra);
}

int lm_win_keyval_free(const char *fn, int *keyval)
{
	return keyval_free(LM_KV_WIN, fn, keyval);
}

int lm_win_attr_set(MPI_Win win, const char *fn, int keyval, void *val)
{
	struct holder h = of_win(win);

	return attr_set(&h, fn, keyval, val);
}

int lm_win_attr_get(MPI_Win win, const char *fn, int keyval, void *val,
		    int *flag)
{
	struct holder h = of_win(win);

	return attr_get(&h, fn, keyval, val, flag);
}

int lm_win_attr_delete(MPI_Win win, const char *fn, int keyval)
{
	struct holder h = of_win(win);

	return attr_delete(&h, fn, keyval);
}

int lm_win_attr_delete_all(MPI_Win win, const char *fn)
{
	struct holder h = of_win(win);

	return attr_delete_all(&h, fn);
}

void lm_attr_fini(void)
{
	free(keyvals);
	keyvals = NULL;
	nkeyvals = 0;
}
