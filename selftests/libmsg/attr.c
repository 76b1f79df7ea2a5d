// SPDX-License-Identifier: MIT
/*
 * Attribute caching: copy callbacks run on MPI_Comm_dup with the old
 * value (and their result is the new value, or nothing when they say
 * so), delete callbacks run on free, delete and overwrite with the
 * value they replace; MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN; a freed
 * keyval's attributes keep their callbacks; failing callbacks fail the
 * call; the predefined keys on every communicator; MPI_COMM_SELF's
 * attributes are deleted first thing in MPI_Finalize, newest first;
 * bad keyvals give MPI_ERR_KEYVAL; the MPI-1 names (MPI_Keyval_create,
 * MPI_Attr_put/get/delete, MPI_DUP_FN) act on the same attributes; a
 * keyval freed while in use still reads, sets, copies and deletes its
 * attributes until the last goes.
 */
#include "test.h"

struct log {
	int copies, deletes;
	int last_copied, last_deleted;
	MPI_Comm last_comm;
};

static struct log lg;
static int fail_copy, fail_delete;
static int values[16];
static int self_order[2], self_n;

static int copy_cb(MPI_Comm old, int key, void *extra, void *in, void *out,
		   int *flag)
{
	int *v = in;

	(void)key;
	CHECK(extra == &lg, "copy: extra_state %p", extra);
	lg.copies++;
	lg.last_copied = *v;
	lg.last_comm = old;
	if (fail_copy)
		return MPI_ERR_OTHER;
	/* The copy is the next value: values[i] -> values[i + 1]. */
	*(int **)out = v + 1;
	*flag = 1;
	return MPI_SUCCESS;
}

static int skip_copy_cb(MPI_Comm old, int key, void *extra, void *in,
			void *out, int *flag)
{
	(void)old; (void)key; (void)extra; (void)in; (void)out;
	*flag = 0;
	return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm c, int key, void *val, void *extra)
{
	(void)key;
	CHECK(extra == &lg, "delete: extra_state %p", extra);
	lg.deletes++;
	lg.last_deleted = *(int *)val;
	lg.last_comm = c;
	return fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int self_delete_cb(MPI_Comm c, int key, void *val, void *extra)
{
	(void)key; (void)extra;
	if (c == MPI_COMM_SELF && self_n < 2)
		self_order[self_n++] = *(int *)val;
	return MPI_SUCCESS;
}

static int get(MPI_Comm c, int key)
{
	int *v, flag;

	MPI_OK(MPI_Comm_get_attr(c, key, &v, &flag));
	return flag ? *v : -1;
}

static void callbacks(void)
{
	int key, key2, i;
	MPI_Comm a, b, c;

	for (i = 0; i < 16; i++)
		values[i] = i;
	MPI_OK(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, &lg));
	MPI_OK(MPI_Comm_create_keyval(skip_copy_cb, delete_cb, &key2, &lg));
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
	CHECK(get(a, key) == -1, "unset attribute found");
	MPI_OK(MPI_Comm_set_attr(a, key, &values[3]));
	MPI_OK(MPI_Comm_set_attr(a, key2, &values[9]));
	CHECK(get(a, key) == 3 && get(a, key2) == 9, "get after set");

	/* Overwrite: the old value is deleted. */
	MPI_OK(MPI_Comm_set_attr(a, key, &values[5]));
	CHECK(lg.deletes == 1 && lg.last_deleted == 3 && lg.last_comm == a,
	      "overwrite deleted %d (%d deletes)", lg.last_deleted, lg.deletes);
	CHECK(get(a, key) == 5, "get after overwrite");

	/* Dup: copied through the callback; key2's callback declines. */
	MPI_OK(MPI_Comm_dup(a, &b));
	CHECK(lg.copies == 1 && lg.last_copied == 5 && lg.last_comm == a,
	      "dup: %d copies, last %d", lg.copies, lg.last_copied);
	CHECK(get(b, key) == 6 && get(b, key2) == -1, "dup's attributes: %d %d",
	      get(b, key), get(b, key2));
	CHECK(get(a, key) == 5, "dup changed the old attribute");

	/* Delete. */
	MPI_OK(MPI_Comm_delete_attr(b, key));
	CHECK(lg.deletes == 2 && lg.last_deleted == 6 && lg.last_comm == b,
	      "delete_attr deleted %d", lg.last_deleted);
	CHECK(get(b, key) == -1, "deleted attribute still there");
	MPI_OK(MPI_Comm_delete_attr(b, key));	/* nothing left: no callback */
	CHECK(lg.deletes == 2, "delete of nothing ran a callback");

	/* A freed keyval: its attribute stays and is copied and deleted. */
	MPI_OK(MPI_Comm_free_keyval(&key2));
	CHECK(key2 == MPI_KEYVAL_INVALID, "free_keyval did not clear the handle");
	MPI_OK(MPI_Comm_dup(a, &c));
	CHECK(lg.copies == 2 && get(c, key) == 6, "second dup");
	MPI_OK(MPI_Comm_free(&c));
	CHECK(lg.deletes == 3 && lg.last_deleted == 6, "free of c deleted %d",
	      lg.last_deleted);
	MPI_OK(MPI_Comm_free(&a));	/* key (5) and the freed key2 (9) */
	CHECK(lg.deletes == 5, "free of a: %d deletes", lg.deletes);
	MPI_OK(MPI_Comm_free(&b));
	CHECK(lg.deletes == 5, "free of b: %d deletes", lg.deletes);

	/* Failing callbacks fail the call and change nothing. */
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
	MPI_OK(MPI_Comm_set_attr(a, key, &values[1]));
	fail_copy = 1;
	b = MPI_COMM_NULL;
	T_EXPECT(MPI_Comm_dup(a, &b), MPI_ERR_OTHER, "dup with a failing copy");
	CHECK(b == MPI_COMM_NULL, "failed dup made a communicator");
	fail_copy = 0;
	fail_delete = 1;
	T_EXPECT(MPI_Comm_delete_attr(a, key), MPI_ERR_OTHER, "failing delete");
	CHECK(get(a, key) == 1, "failed delete removed the attribute");
	T_EXPECT(MPI_Comm_free(&a), MPI_ERR_OTHER, "free with a failing delete");
	CHECK(a != MPI_COMM_NULL && get(a, key) == 1, "failed free");
	fail_delete = 0;
	MPI_OK(MPI_Comm_free(&a));
	MPI_OK(MPI_Comm_free_keyval(&key));
}

static void predefined_fns(void)
{
	int kd, kn, kz, *v, flag, x = 42;
	MPI_Comm a, b;

	MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kd, NULL));
	MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
				      &kn, NULL));
	MPI_OK(MPI_Comm_create_keyval(NULL, NULL, &kz, NULL));
	CHECK(kd != kn && kn != kz && kd != kz, "keyvals %d %d %d", kd, kn, kz);
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
	MPI_OK(MPI_Comm_set_attr(a, kd, &x));
	MPI_OK(MPI_Comm_set_attr(a, kn, &x));
	MPI_OK(MPI_Comm_set_attr(a, kz, &x));
	MPI_OK(MPI_Comm_dup(a, &b));
	MPI_OK(MPI_Comm_get_attr(b, kd, &v, &flag));
	CHECK(flag && v == &x, "MPI_COMM_DUP_FN: flag %d", flag);
	MPI_OK(MPI_Comm_get_attr(b, kn, &v, &flag));
	CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied");
	MPI_OK(MPI_Comm_get_attr(b, kz, &v, &flag));
	CHECK(!flag, "a NULL copy function copied");
	/* The predefined keys answer on every communicator. */
	MPI_OK(MPI_Comm_get_attr(b, MPI_TAG_UB, &v, &flag));
	CHECK(flag && *v == MPI_TAG_UB_VALUE, "TAG_UB on a duplicate");
	MPI_OK(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_WTIME_IS_GLOBAL, &v, &flag));
	CHECK(flag && *v == 1, "WTIME_IS_GLOBAL on SELF");
	MPI_OK(MPI_Comm_free(&b));
	MPI_OK(MPI_Comm_free(&a));
	MPI_OK(MPI_Comm_free_keyval(&kd));
	MPI_OK(MPI_Comm_free_keyval(&kn));
	MPI_OK(MPI_Comm_free_keyval(&kz));
}

/* The MPI-1 names (deprecated, still MPI): the same keyvals and values. */
static void mpi1_names(void)
{
	int k, *v, flag, x = 7;
	MPI_Comm a;

	MPI_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL));
	MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, k, &x));
	MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag));
	CHECK(flag && v == &x, "MPI_Attr_put not seen by MPI_Comm_get_attr");
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
	MPI_OK(MPI_Attr_get(a, k, &v, &flag));
	CHECK(flag && v == &x, "MPI_DUP_FN did not copy");
	MPI_OK(MPI_Attr_get(a, MPI_TAG_UB, &v, &flag));
	CHECK(flag && *v == MPI_TAG_UB_VALUE, "MPI_Attr_get(MPI_TAG_UB)");
	MPI_OK(MPI_Attr_delete(a, k));
	MPI_OK(MPI_Attr_get(a, k, &v, &flag));
	CHECK(!flag, "MPI_Attr_delete left it");
	MPI_OK(MPI_Comm_free(&a));
	MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, k));
	MPI_OK(MPI_Keyval_free(&k));
	CHECK(k == MPI_KEYVAL_INVALID, "MPI_Keyval_free left %d", k);
	T_EXPECT(MPI_Attr_put(MPI_COMM_WORLD, k, &x), MPI_ERR_KEYVAL,
		 "MPI_Attr_put with a freed keyval");
	T_EXPECT(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, NULL,
				   NULL), MPI_ERR_ARG, "MPI_Keyval_create into NULL");
}

/* Callbacks that count, for a keyval freed while in use. */
static int fu_copies, fu_deletes;

static int fu_copy(MPI_Comm old, int key, void *extra, void *in, void *out,
		   int *flag)
{
	(void)old; (void)key; (void)extra;
	fu_copies++;
	*(long *)out = (long)in + 100;
	*flag = 1;
	return MPI_SUCCESS;
}

static int fu_delete(MPI_Comm c, int key, void *val, void *extra)
{
	(void)c; (void)key; (void)val; (void)extra;
	fu_deletes++;
	return MPI_SUCCESS;
}

static long fu_get(MPI_Comm c, int key, int *flag)
{
	void *v = NULL;

	MPI_OK(MPI_Comm_get_attr(c, key, &v, flag));
	return (long)v;
}

/*
 * A keyval freed while attributes use it is only marked for
 * deallocation (MPI-3.1 6.7.2): its attributes can still be read, set,
 * copied by a dup (its copy callback runs) and deleted (its delete
 * callback runs); it goes when the last of them is deleted.  The
 * MPI-1 names the same.
 */
static void freed_in_use(void)
{
	int key, saved, flag;
	long x;
	MPI_Comm a, b;

	fu_copies = fu_deletes = 0;
	MPI_OK(MPI_Comm_create_keyval(fu_copy, fu_delete, &key, NULL));
	saved = key;
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
	MPI_OK(MPI_Comm_set_attr(a, key, (void *)1L));
	MPI_OK(MPI_Comm_free_keyval(&key));
	CHECK(key == MPI_KEYVAL_INVALID, "free_keyval left %d", key);
	x = fu_get(a, saved, &flag);
	CHECK(flag && x == 1, "get after the keyval's free: %d %ld", flag, x);
	MPI_OK(MPI_Comm_dup(a, &b));
	CHECK(fu_copies == 1, "dup: %d copies", fu_copies);
	x = fu_get(b, saved, &flag);
	CHECK(flag && x == 101, "the dup's copy: %d %ld", flag, x);
	MPI_OK(MPI_Comm_set_attr(a, saved, (void *)2L));
	CHECK(fu_deletes == 1, "set anew: %d deletes", fu_deletes);
	CHECK(fu_get(a, saved, &flag) == 2 && flag, "set anew");
	MPI_OK(MPI_Comm_delete_attr(a, saved));
	CHECK(fu_deletes == 2, "delete_attr: %d deletes", fu_deletes);
	fu_get(a, saved, &flag);
	CHECK(!flag, "deleted, still there");
	MPI_OK(MPI_Comm_free(&b));	/* the last attribute: the keyval goes */
	CHECK(fu_deletes == 3, "free of the dup: %d deletes", fu_deletes);
	T_EXPECT(MPI_Comm_get_attr(a, saved, &x, &flag), MPI_ERR_KEYVAL,
		 "get once the freed keyval's last attribute went");
	MPI_OK(MPI_Comm_free(&a));
	CHECK(fu_deletes == 3, "free of a: %d deletes", fu_deletes);

	/* The MPI-1 names. */
	MPI_OK(MPI_Keyval_create(fu_copy, fu_delete, &key, NULL));
	saved = key;
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
	MPI_OK(MPI_Attr_put(a, key, (void *)5L));
	MPI_OK(MPI_Keyval_free(&key));
	CHECK(key == MPI_KEYVAL_INVALID, "MPI_Keyval_free left %d", key);
	MPI_OK(MPI_Attr_get(a, saved, &x, &flag));
	CHECK(flag && x == 5, "MPI_Attr_get after MPI_Keyval_free: %ld", x);
	MPI_OK(MPI_Comm_dup(a, &b));
	CHECK(fu_copies == 2, "dup: %d copies", fu_copies);
	MPI_OK(MPI_Attr_get(b, saved, &x, &flag));
	CHECK(flag && x == 105, "MPI_Attr_get on the dup: %ld", x);
	MPI_OK(MPI_Attr_delete(a, saved));
	MPI_OK(MPI_Attr_delete(b, saved));
	CHECK(fu_deletes == 5, "MPI_Attr_delete: %d deletes", fu_deletes);
	T_EXPECT(MPI_Attr_put(a, saved, NULL), MPI_ERR_KEYVAL,
		 "MPI_Attr_put once the freed keyval's last attribute went");
	MPI_OK(MPI_Comm_free(&b));
	MPI_OK(MPI_Comm_free(&a));
}

static void bad_arguments(void)
{
	int key, *v, flag, freed;

	MPI_OK(MPI_Comm_create_keyval(NULL, NULL, &freed, NULL));
	key = freed;
	MPI_OK(MPI_Comm_free_keyval(&freed));
	T_EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag), MPI_ERR_KEYVAL,
		 "get with a freed keyval");
	T_EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, key, NULL), MPI_ERR_KEYVAL,
		 "set with a freed keyval");
	T_EXPECT(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL, "free a keyval twice");
	T_EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL,
		 "set MPI_TAG_UB");
	T_EXPECT(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_HOST), MPI_ERR_KEYVAL,
		 "delete MPI_HOST");
	T_EXPECT(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID),
		 MPI_ERR_KEYVAL, "delete MPI_KEYVAL_INVALID");
	T_EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &v, &flag), MPI_ERR_KEYVAL,
		 "get keyval 12345");
	T_EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &flag), MPI_ERR_ARG,
		 "get into NULL");
	T_EXPECT(MPI_Comm_create_keyval(NULL, NULL, NULL, NULL), MPI_ERR_ARG,
		 "create_keyval into NULL");
	T_EXPECT(MPI_Comm_set_attr(MPI_COMM_NULL, 0, NULL), MPI_ERR_COMM,
		 "set on COMM_NULL");
}

/* Checked after MPI_Finalize: no MPI left, so plain exits. */
static void check_self_order(void)
{
	if (self_n != 2 || self_order[0] != 2 || self_order[1] != 1) {
		fprintf(stderr, "FAIL rank %d: SELF's delete callbacks ran %d times, order %d %d\n",
			t_rank, self_n, self_order[0], self_order[1]);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int k1, k2;

	t_init(&argc, &argv);
	callbacks();
	predefined_fns();
	mpi1_names();
	freed_in_use();
	bad_arguments();
	/* Set 1 then 2 on SELF: Finalize deletes 2 first. */
	MPI_OK(MPI_Comm_create_keyval(NULL, self_delete_cb, &k1, NULL));
	MPI_OK(MPI_Comm_create_keyval(NULL, self_delete_cb, &k2, NULL));
	MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k1, &values[1]));
	MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k2, &values[2]));
	MPI_OK(MPI_Comm_free_keyval(&k1));
	CHECK(self_n == 0, "deleted before MPI_Finalize");
	t_done();
	check_self_order();
	return 0;
}
