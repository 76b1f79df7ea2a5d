// SPDX-License-Identifier: MIT
/*
 * Attribute caching on datatypes (libmsg/src/attr.c): keyvals with copy
 * and delete callbacks; set, get, delete, set anew (the old value's
 * delete callback runs); MPI_Type_dup runs the copy callbacks (a value
 * of its own, MPI_TYPE_DUP_FN's shared one, MPI_TYPE_NULL_COPY_FN's
 * none); MPI_Type_free runs the delete callbacks, newest first; a
 * keyval freed while attributes use it keeps their callbacks and can
 * still get, set and delete them by its number; a
 * predefined type holds attributes too.  Refusals: a communicator's
 * keyval on a type and a type's on a communicator, a freed keyval, a
 * bad type (each MPI_ERR_KEYVAL or MPI_ERR_TYPE); a failing copy
 * callback fails MPI_Type_dup (no new type), a failing delete callback
 * fails MPI_Type_free (the type stays usable).
 */
#include "test.h"

static int copies, deletes, fail_copy, fail_delete;
static long deleted[16];

static int copy_plus(MPI_Datatype old, int kv, void *extra, void *in,
		     void *out, int *flag)
{
	(void)old; (void)kv;
	CHECK(extra == &copies, "extra_state %p", extra);
	copies++;
	if (fail_copy)
		return MPI_ERR_OTHER;
	*(long *)out = (long)in + 1000;
	*flag = 1;
	return MPI_SUCCESS;
}

static int delete_rec(MPI_Datatype t, int kv, void *val, void *extra)
{
	(void)t; (void)kv; (void)extra;
	if (fail_delete)
		return MPI_ERR_OTHER;
	if (deletes < 16)
		deleted[deletes] = (long)val;
	deletes++;
	return MPI_SUCCESS;
}

static long get(MPI_Datatype t, int kv, int *flag)
{
	void *v = NULL;

	MPI_OK(MPI_Type_get_attr(t, kv, &v, flag));
	return (long)v;
}

int main(int argc, char **argv)
{
	MPI_Datatype v, d, d2, fresh;
	int kv, kdup, knull, kcomm, ksaved, flag, err, ints[4] = { 0 };
	long x;

	t_init(&argc, &argv);
	MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &v));
	MPI_OK(MPI_Type_commit(&v));
	MPI_OK(MPI_Type_create_keyval(copy_plus, delete_rec, &kv, &copies));
	MPI_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_rec, &kdup,
				      NULL));
	MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN,
				      MPI_TYPE_NULL_DELETE_FN, &knull, NULL));
	MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
				      MPI_COMM_NULL_DELETE_FN, &kcomm, NULL));

	/* Set, get, set anew, delete. */
	x = get(v, kv, &flag);
	CHECK(!flag, "an attribute before any was set");
	MPI_OK(MPI_Type_set_attr(v, kv, (void *)1L));
	x = get(v, kv, &flag);
	CHECK(flag && x == 1, "got %ld (flag %d)", x, flag);
	MPI_OK(MPI_Type_set_attr(v, kv, (void *)2L));
	CHECK(deletes == 1 && deleted[0] == 1, "set anew: %d deletes", deletes);
	MPI_OK(MPI_Type_delete_attr(v, kv));
	CHECK(deletes == 2 && deleted[1] == 2, "delete: %d deletes", deletes);
	x = get(v, kv, &flag);
	CHECK(!flag, "deleted, still there");

	/* Dup: the copy callbacks decide. */
	MPI_OK(MPI_Type_set_attr(v, kv, (void *)3L));
	MPI_OK(MPI_Type_set_attr(v, kdup, (void *)4L));
	MPI_OK(MPI_Type_set_attr(v, knull, (void *)5L));
	MPI_OK(MPI_Type_dup(v, &d));
	CHECK(copies == 1, "%d copy callbacks", copies);
	x = get(d, kv, &flag);
	CHECK(flag && x == 1003, "copied %ld", x);
	x = get(d, kdup, &flag);
	CHECK(flag && x == 4, "MPI_TYPE_DUP_FN: %ld", x);
	get(d, knull, &flag);
	CHECK(!flag, "MPI_TYPE_NULL_COPY_FN copied");
	x = get(v, kv, &flag);
	CHECK(flag && x == 3, "the original changed: %ld", x);
	/* The duplicate is a working type. */
	if (t_size >= 2 && t_rank < 2) {
		int buf[8] = { 1, 0, 2, 0, 3, 0, 4, 0 }, in[4];

		if (t_rank == 0)
			MPI_OK(MPI_Send(buf, 1, d, 1, 1, MPI_COMM_WORLD));
		else {
			MPI_OK(MPI_Recv(in, 4, MPI_INT, 0, 1, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
			CHECK(in[0] == 1 && in[3] == 4, "dup sent %d..%d",
			      in[0], in[3]);
		}
	}

	/*
	 * Free: deletes run, newest first; a freed keyval still counts,
	 * and its attributes can still be read, set and deleted by its
	 * number until the last goes (MPI-3.1 6.7.2).
	 */
	deletes = 0;
	ksaved = kdup;
	MPI_OK(MPI_Type_free_keyval(&kdup));
	CHECK(kdup == MPI_KEYVAL_INVALID, "keyval not reset");
	x = get(d, ksaved, &flag);
	CHECK(flag && x == 4, "get after the keyval's free: %ld", x);
	MPI_OK(MPI_Type_set_attr(MPI_FLOAT, ksaved, (void *)9L));
	x = get(MPI_FLOAT, ksaved, &flag);
	CHECK(flag && x == 9, "set after the keyval's free: %ld", x);
	MPI_OK(MPI_Type_delete_attr(MPI_FLOAT, ksaved));
	CHECK(deletes == 1 && deleted[0] == 9, "delete after the free: %d",
	      deletes);
	MPI_OK(MPI_Type_dup(d, &d2));	/* its copy callback still runs */
	x = get(d2, ksaved, &flag);
	CHECK(flag && x == 4, "dup after the keyval's free: %ld", x);
	MPI_OK(MPI_Type_free(&d2));
	deletes = 0;
	MPI_OK(MPI_Type_free(&d));
	CHECK(deletes == 2 && deleted[0] == 4 && deleted[1] == 1003,
	      "free: %d deletes (%ld, %ld)", deletes, deleted[0], deleted[1]);

	/* A predefined type holds attributes too. */
	MPI_OK(MPI_Type_set_attr(MPI_INT, kv, (void *)6L));
	x = get(MPI_INT, kv, &flag);
	CHECK(flag && x == 6, "MPI_INT: %ld", x);
	MPI_OK(MPI_Type_delete_attr(MPI_INT, kv));

	/* Refusals. */
	err = MPI_Type_set_attr(v, kcomm, (void *)7L);
	CHECK(err == MPI_ERR_KEYVAL, "comm keyval on a type: %d", err);
	err = MPI_Comm_set_attr(MPI_COMM_WORLD, kv, (void *)7L);
	CHECK(err == MPI_ERR_KEYVAL, "type keyval on a comm: %d", err);
	err = MPI_Type_free_keyval(&kcomm);
	CHECK(err == MPI_ERR_KEYVAL, "comm keyval freed as a type's: %d", err);
	err = MPI_Type_get_attr(v, MPI_TAG_UB, &x, &flag);
	CHECK(err == MPI_ERR_KEYVAL, "MPI_TAG_UB on a type: %d", err);
	err = MPI_Type_set_attr(v, kdup, (void *)7L);
	CHECK(err == MPI_ERR_KEYVAL, "freed keyval: %d", err);
	err = MPI_Type_set_attr(MPI_DATATYPE_NULL, kv, (void *)7L);
	CHECK(err == MPI_ERR_TYPE, "MPI_DATATYPE_NULL: %d", err);
	err = MPI_Type_get_attr(v, kv, NULL, &flag);
	CHECK(err == MPI_ERR_ARG, "NULL value: %d", err);

	/* A failing copy callback: no new type. */
	fail_copy = 1;
	d2 = v;
	err = MPI_Type_dup(v, &d2);
	CHECK(err == MPI_ERR_OTHER && d2 == MPI_DATATYPE_NULL,
	      "failed copy: %d", err);
	fail_copy = 0;
	/* A failing delete callback: the type stays, usable. */
	MPI_OK(MPI_Type_dup(v, &fresh));
	fail_delete = 1;
	err = MPI_Type_free(&fresh);
	CHECK(err == MPI_ERR_OTHER && fresh != MPI_DATATYPE_NULL,
	      "failed delete: %d", err);
	MPI_OK(MPI_Pack_size(1, fresh, MPI_COMM_WORLD, &ints[0]));
	CHECK(ints[0] == 16, "pack size %d", ints[0]);
	fail_delete = 0;
	MPI_OK(MPI_Type_free(&fresh));

	deletes = 0;
	MPI_OK(MPI_Type_free(&v));
	/* Its kdup attribute (keyval freed long ago) goes first. */
	CHECK(deletes == 2 && deleted[0] == 4 && deleted[1] == 3,
	      "last free: %d deletes", deletes);
	MPI_OK(MPI_Type_free_keyval(&kv));
	MPI_OK(MPI_Type_free_keyval(&knull));
	MPI_OK(MPI_Comm_free_keyval(&kcomm));
	MPI_Finalize();
	if (t_rank == 0)
		printf("typeattr: ok (%d ranks)\n", t_size);
	return 0;
}
