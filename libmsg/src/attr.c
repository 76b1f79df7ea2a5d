// SPDX-License-Identifier: MIT
/*
 * Attribute caching on communicators: keyvals with copy and delete
 * callbacks, and the (keyval, value) pairs each communicator holds.
 *
 * A keyval lives while the user holds it or an attribute uses it:
 * MPI_Comm_free_keyval only gives up the user's handle, and attributes
 * already set keep their callbacks.  Attributes are kept newest first,
 * so a communicator's delete callbacks run in the reverse order of
 * setting (MPI asks this of MPI_COMM_SELF at MPI_Finalize).
 *
 * The predefined keys (MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL, MPI_LASTUSEDCODE) are answered on every communicator and cannot
 * be set or deleted.
 */

#include <stdlib.h>
#include <string.h>

#include "lm.h"

/* User keyvals are LM_KEYVAL_BASE + index into keyvals[]. */
#define LM_KEYVAL_BASE	0x100
#define LM_KEYVAL_MAX	(1 << 20)

struct lm_keyval {
	MPI_Comm_copy_attr_function *copy;
	MPI_Comm_delete_attr_function *del;
	void *extra;
	int refs;		/* the user's handle, plus attributes using it */
	uint8_t user;		/* the user still holds the handle */
};

struct lm_attr {
	struct lm_attr *next;
	int keyval;
	void *val;
};

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

static int predefined(int keyval)
{
	return keyval == MPI_TAG_UB || keyval == MPI_HOST ||
		keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
		keyval == MPI_LASTUSEDCODE;
}

/* The keyval the user holds, or NULL. */
static struct lm_keyval *keyval_get(int keyval)
{
	int i = keyval - LM_KEYVAL_BASE;

	if (i < 0 || i >= nkeyvals || !keyvals[i].user)
		return NULL;
	return &keyvals[i];
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

/* A user keyval valid for set/get/delete, or an error for fn. */
static int check_keyval(struct libmsg_comm *comm, const char *fn, int keyval,
			struct lm_keyval **k)
{
	if (predefined(keyval))
		return lm_error(comm, fn, MPI_ERR_KEYVAL,
				"keyval %#x is predefined and read-only", keyval);
	*k = keyval_get(keyval);
	if (!*k)
		return lm_error(comm, fn, MPI_ERR_KEYVAL,
				"keyval %d is not a keyval (freed or never created)",
				keyval);
	return MPI_SUCCESS;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
			   MPI_Comm_delete_attr_function *delete_fn,
			   int *comm_keyval, void *extra_state)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_create_keyval";
	struct lm_keyval *n;
	int i;

	lm_check_init(fn);
	if (!comm_keyval)
		return lm_error(NULL, fn, MPI_ERR_ARG, "comm_keyval is NULL");
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
	keyvals[i].copy = copy_fn ? copy_fn : MPI_COMM_NULL_COPY_FN;
	keyvals[i].del = delete_fn ? delete_fn : MPI_COMM_NULL_DELETE_FN;
	keyvals[i].extra = extra_state;
	keyvals[i].refs = 1;
	keyvals[i].user = 1;
	*comm_keyval = LM_KEYVAL_BASE + i;
	return MPI_SUCCESS;
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_free_keyval";
	struct lm_keyval *k;
	int err;

	lm_check_init(fn);
	if (!comm_keyval)
		return lm_error(NULL, fn, MPI_ERR_ARG, "comm_keyval is NULL");
	err = check_keyval(NULL, fn, *comm_keyval, &k);
	if (err)
		return err;
	k->user = 0;
	keyval_put(k);
	*comm_keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

static struct lm_attr *attr_find(struct libmsg_comm *c, int keyval)
{
	struct lm_attr *a;

	for (a = c->attrs; a; a = a->next)
		if (a->keyval == keyval)
			return a;
	return NULL;
}

static void attr_unlink(struct libmsg_comm *c, struct lm_attr *a)
{
	struct lm_attr **p;

	for (p = &c->attrs; *p; p = &(*p)->next) {
		if (*p == a) {
			*p = a->next;
			keyval_put(keyval_of(a));
			free(a);
			return;
		}
	}
}

/* Run a's delete callback: MPI_SUCCESS, or its error reported. */
static int attr_delete_cb(struct libmsg_comm *c, struct lm_attr *a,
			  const char *fn)
{
	struct lm_keyval *k = keyval_of(a);
	int err = k->del(c, a->keyval, a->val, k->extra);

	if (err != MPI_SUCCESS)
		return lm_error(c, fn, err,
				"the delete callback of keyval %d returned %d",
				a->keyval, err);
	return MPI_SUCCESS;
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_set_attr";
	struct lm_keyval *k;
	struct lm_attr *a;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = check_keyval(comm, fn, comm_keyval, &k);
	if (err)
		return err;
	a = attr_find(comm, comm_keyval);
	if (a) {
		/* The old value goes as if deleted. */
		err = attr_delete_cb(comm, a, fn);
		if (err)
			return err;
		a->val = attribute_val;
		return MPI_SUCCESS;
	}
	a = malloc(sizeof(*a));
	if (!a)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	a->keyval = comm_keyval;
	a->val = attribute_val;
	a->next = comm->attrs;
	comm->attrs = a;
	k->refs++;
	return MPI_SUCCESS;
}

static int get_predefined(int keyval, void *attribute_val)
{
	static int tag_ub = MPI_TAG_UB_VALUE, host = MPI_PROC_NULL,
		io = MPI_ANY_SOURCE, wtime_global = 1;

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
	}
	return 0;
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
		      int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_get_attr";
	struct lm_keyval *k;
	struct lm_attr *a;
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (!attribute_val || !flag)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"attribute_val or flag is NULL");
	if (predefined(comm_keyval)) {
		*flag = get_predefined(comm_keyval, attribute_val);
		return MPI_SUCCESS;
	}
	err = check_keyval(comm, fn, comm_keyval, &k);
	if (err)
		return err;
	a = attr_find(comm, comm_keyval);
	*flag = a != NULL;
	if (a)
		*(void **)attribute_val = a->val;
	return MPI_SUCCESS;
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_delete_attr";
	struct lm_keyval *k;
	struct lm_attr *a;
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = check_keyval(comm, fn, comm_keyval, &k);
	if (err)
		return err;
	a = attr_find(comm, comm_keyval);
	if (!a)
		return MPI_SUCCESS;	/* nothing cached: nothing to delete */
	err = attr_delete_cb(comm, a, fn);
	if (err)
		return err;
	attr_unlink(comm, a);
	return MPI_SUCCESS;
}

int lm_attr_copy(struct libmsg_comm *old, struct libmsg_comm *c,
		 const char *fn)
{
	struct lm_attr *a, *n, **tail = &c->attrs;
	struct lm_keyval *k;
	void *out;
	int err, flag;

	for (a = old->attrs; a; a = a->next) {
		k = keyval_of(a);
		out = NULL;
		flag = 0;
		err = k->copy(old, a->keyval, k->extra, a->val, &out, &flag);
		if (err != MPI_SUCCESS)
			return lm_error(old, fn, err,
					"the copy callback of keyval %d returned %d",
					a->keyval, err);
		if (!flag)
			continue;
		n = malloc(sizeof(*n));
		if (!n)
			return lm_error(old, fn, MPI_ERR_NO_MEM, "out of memory");
		/* Keep old's order: the newest stays first. */
		n->keyval = a->keyval;
		n->val = out;
		n->next = NULL;
		*tail = n;
		tail = &n->next;
		keyval_of(a)->refs++;
	}
	return MPI_SUCCESS;
}

int lm_attr_delete_all(struct libmsg_comm *c, const char *fn)
{
	struct lm_attr *a;
	int err;

	/* A callback may set or delete attributes: look at the head anew. */
	while ((a = c->attrs)) {
		err = attr_delete_cb(c, a, fn);
		if (err)
			return err;
		attr_unlink(c, a);
	}
	return MPI_SUCCESS;
}

void lm_attr_drop(struct libmsg_comm *c)
{
	while (c->attrs)
		attr_unlink(c, c->attrs);
}

void lm_attr_fini(void)
{
	free(keyvals);
	keyvals = NULL;
	nkeyvals = 0;
}
