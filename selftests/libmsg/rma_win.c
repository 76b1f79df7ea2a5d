// SPDX-License-Identifier: MIT
/*
 * What a window is, for each flavor (create, allocate,
 * allocate_shared, dynamic):
 *   - its predefined attributes: MPI_WIN_BASE, MPI_WIN_SIZE,
 *     MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL (always
 *     MPI_WIN_UNIFIED), read-only (MPI_ERR_KEYVAL);
 *   - its group (the communicator's), its name (empty until set, cut to
 *     MPI_MAX_OBJECT_NAME - 1), its info hints (defaults, those given at
 *     creation, changed by MPI_Win_set_info);
 *   - error handlers: MPI_ERRORS_ARE_FATAL at first; a program's
 *     handler (MPI_Win_create_errhandler) is called with the window and
 *     the error of a failed call, and by MPI_Win_call_errhandler; a
 *     communicator's handler is refused;
 *   - keyvals: set, get, overwrite, delete (the delete callback sees the
 *     old value), MPI_Win_free runs the delete callbacks; a
 *     communicator's keyval is refused on a window and a window's on a
 *     communicator;
 *   - MPI_Win_shared_query on memory that is not shared is
 *     MPI_ERR_RMA_FLAVOR; MPI_Win_free leaves MPI_WIN_NULL, and
 *     MPI_WIN_NULL is MPI_ERR_WIN.
 */
#include "rma_util.h"

static MPI_Win handler_win;
static int handler_calls, handler_code;

static void handler(MPI_Win *win, int *code, ...)
{
	handler_win = *win;
	handler_code = *code;
	handler_calls++;
}

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
	(void)comm;
	(void)code;
}

static int deletes, last_deleted, copies;

static int del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
	(void)win;
	(void)keyval;
	CHECK(extra == &deletes, "extra_state %p", extra);
	deletes++;
	last_deleted = (int)(intptr_t)val;
	return MPI_SUCCESS;
}

static int fail_deletes;

static int failing_del(MPI_Win win, int keyval, void *val, void *extra)
{
	(void)win; (void)keyval; (void)val; (void)extra;
	return fail_deletes ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int copy_fn(MPI_Win win, int keyval, void *extra, void *in, void *out,
		   int *flag)
{
	(void)win; (void)keyval; (void)extra; (void)in; (void)out;
	copies++;
	*flag = 0;
	return MPI_SUCCESS;
}

static void attributes(struct t_win *w)
{
	static const int flavor[T_FLAVORS] = {
		MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
		MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_DYNAMIC,
	};
	const char *f = t_flavor_name[w->flavor];
	MPI_Aint *size;
	int *unit, *fl, *model, flag;
	void *base;

	MPI_OK(MPI_Win_get_attr(w->win, MPI_WIN_BASE, &base, &flag));
	CHECK(flag, "%s: no MPI_WIN_BASE", f);
	CHECK(base == (w->flavor == T_DYNAMIC ? MPI_BOTTOM : w->base),
	      "%s: MPI_WIN_BASE %p, memory at %p", f, base, w->base);
	MPI_OK(MPI_Win_get_attr(w->win, MPI_WIN_SIZE, &size, &flag));
	CHECK(flag && *size == (w->flavor == T_DYNAMIC ? 0 : (MPI_Aint)w->bytes),
	      "%s: MPI_WIN_SIZE %ld", f, (long)*size);
	MPI_OK(MPI_Win_get_attr(w->win, MPI_WIN_DISP_UNIT, &unit, &flag));
	CHECK(flag && *unit == w->unit, "%s: MPI_WIN_DISP_UNIT %d", f, *unit);
	MPI_OK(MPI_Win_get_attr(w->win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
	CHECK(flag && *fl == flavor[w->flavor], "%s: MPI_WIN_CREATE_FLAVOR %d",
	      f, *fl);
	MPI_OK(MPI_Win_get_attr(w->win, MPI_WIN_MODEL, &model, &flag));
	CHECK(flag && *model == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL %d", f,
	      *model);
	T_EXPECT(MPI_Win_set_attr(w->win, MPI_WIN_BASE, NULL), MPI_ERR_KEYVAL,
		 "%s: setting MPI_WIN_BASE", f);
	T_EXPECT(MPI_Win_delete_attr(w->win, MPI_WIN_SIZE), MPI_ERR_KEYVAL,
		 "%s: deleting MPI_WIN_SIZE", f);
}

static void group_name_info(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	char name[MPI_MAX_OBJECT_NAME], v[MPI_MAX_INFO_VAL], big[300];
	MPI_Group g, cg;
	MPI_Info info;
	int len = -1, cmp, flag;

	MPI_OK(MPI_Win_get_group(w->win, &g));
	MPI_OK(MPI_Comm_group(w->comm, &cg));
	MPI_OK(MPI_Group_compare(g, cg, &cmp));
	CHECK(cmp == MPI_IDENT, "%s: the window's group is not the communicator's (%d)",
	      f, cmp);
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Group_free(&cg));

	MPI_OK(MPI_Win_get_name(w->win, name, &len));
	CHECK(len == 0 && !name[0], "%s: name \"%s\" before any was set", f, name);
	MPI_OK(MPI_Win_set_name(w->win, "the window"));
	MPI_OK(MPI_Win_get_name(w->win, name, &len));
	CHECK(len == 10 && !strcmp(name, "the window"), "%s: name \"%s\"", f, name);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	MPI_OK(MPI_Win_set_name(w->win, big));
	MPI_OK(MPI_Win_get_name(w->win, name, &len));
	CHECK(len == MPI_MAX_OBJECT_NAME - 1, "%s: a long name is %d long", f, len);

	MPI_OK(MPI_Win_get_info(w->win, &info));
	MPI_OK(MPI_Info_get(info, "accumulate_ordering", sizeof(v) - 1, v, &flag));
	CHECK(flag && !strcmp(v, "rar,raw,war,waw"), "%s: accumulate_ordering %s",
	      f, flag ? v : "(none)");
	MPI_OK(MPI_Info_get(info, "no_locks", sizeof(v) - 1, v, &flag));
	CHECK(flag && !strcmp(v, "false"), "%s: no_locks %s", f, flag ? v : "(none)");
	MPI_OK(MPI_Info_free(&info));
	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "accumulate_ops", "same_op"));
	MPI_OK(MPI_Win_set_info(w->win, info));
	MPI_OK(MPI_Info_free(&info));
	MPI_OK(MPI_Win_get_info(w->win, &info));
	MPI_OK(MPI_Info_get(info, "accumulate_ops", sizeof(v) - 1, v, &flag));
	CHECK(flag && !strcmp(v, "same_op"), "%s: accumulate_ops %s after set_info",
	      f, flag ? v : "(none)");
	MPI_OK(MPI_Info_free(&info));
	T_EXPECT(MPI_Win_set_info(w->win, MPI_INFO_NULL), MPI_ERR_INFO,
		 "%s: MPI_Win_set_info(MPI_INFO_NULL)", f);
}

static void errhandlers(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	MPI_Errhandler eh, got, ceh;
	int x = 0, cls;

	MPI_OK(MPI_Win_create_errhandler(handler, &eh));
	MPI_OK(MPI_Win_set_errhandler(w->win, eh));
	MPI_OK(MPI_Win_get_errhandler(w->win, &got));
	CHECK(got == eh, "%s: get_errhandler gave another handler", f);
	MPI_OK(MPI_Errhandler_free(&got));
	MPI_OK(MPI_Errhandler_free(&eh));	/* the window still holds it */

	/* An operation outside any epoch: the handler sees it. */
	handler_calls = 0;
	T_EXPECT(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, w->win),
		 MPI_ERR_RMA_SYNC, "%s: MPI_Put outside an epoch", f);
	CHECK(handler_calls == 1 && handler_win == w->win,
	      "%s: handler called %d times", f, handler_calls);
	MPI_OK(MPI_Error_class(handler_code, &cls));
	CHECK(cls == MPI_ERR_RMA_SYNC, "%s: the handler got class %d", f, cls);
	MPI_OK(MPI_Win_call_errhandler(w->win, MPI_ERR_OTHER));
	CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER,
	      "%s: MPI_Win_call_errhandler: %d calls, code %d", f,
	      handler_calls, handler_code);

	/* A communicator's handler does not go on a window, nor back. */
	MPI_OK(MPI_Comm_create_errhandler(comm_handler, &ceh));
	T_EXPECT(MPI_Win_set_errhandler(w->win, ceh), MPI_ERR_ARG,
		 "%s: a communicator's handler on a window", f);
	MPI_OK(MPI_Win_create_errhandler(handler, &eh));
	T_EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_ERR_ARG,
		 "a window's handler on a communicator");
	MPI_OK(MPI_Errhandler_free(&ceh));
	MPI_OK(MPI_Errhandler_free(&eh));
	handler_calls = 0;
	MPI_OK(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
}

static void keyvals(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	int kv, kv2, ckv, flag, fail;
	void *val;

	deletes = 0;
	MPI_OK(MPI_Win_create_keyval(copy_fn, del_fn, &kv, &deletes));
	MPI_OK(MPI_Win_get_attr(w->win, kv, &val, &flag));
	CHECK(!flag, "%s: an attribute before any was set", f);
	MPI_OK(MPI_Win_set_attr(w->win, kv, (void *)(intptr_t)11));
	MPI_OK(MPI_Win_get_attr(w->win, kv, &val, &flag));
	CHECK(flag && val == (void *)(intptr_t)11, "%s: attribute %p", f, val);
	MPI_OK(MPI_Win_set_attr(w->win, kv, (void *)(intptr_t)12));
	CHECK(deletes == 1 && last_deleted == 11,
	      "%s: overwriting: %d delete callbacks, last of %d", f, deletes,
	      last_deleted);
	MPI_OK(MPI_Win_delete_attr(w->win, kv));
	CHECK(deletes == 2 && last_deleted == 12, "%s: delete: %d callbacks", f,
	      deletes);
	MPI_OK(MPI_Win_get_attr(w->win, kv, &val, &flag));
	CHECK(!flag, "%s: the attribute is still there", f);
	MPI_OK(MPI_Win_set_attr(w->win, kv, (void *)(intptr_t)13));

	/* A failing delete callback fails the delete. */
	MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, failing_del, &kv2, NULL));
	MPI_OK(MPI_Win_set_attr(w->win, kv2, NULL));
	fail_deletes = 1;
	fail = MPI_Win_delete_attr(w->win, kv2);
	CHECK(fail != MPI_SUCCESS, "%s: a failing delete callback was ignored", f);
	MPI_OK(MPI_Win_get_attr(w->win, kv2, &val, &flag));
	CHECK(flag, "%s: the attribute went although its callback failed", f);
	fail_deletes = 0;
	MPI_OK(MPI_Win_delete_attr(w->win, kv2));
	MPI_OK(MPI_Win_free_keyval(&kv2));

	/* Keyvals belong to their kind of object. */
	MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
				      MPI_COMM_NULL_DELETE_FN, &ckv, NULL));
	T_EXPECT(MPI_Win_set_attr(w->win, ckv, NULL), MPI_ERR_KEYVAL,
		 "%s: a communicator's keyval on a window", f);
	T_EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, NULL), MPI_ERR_KEYVAL,
		 "a window's keyval on a communicator");
	MPI_OK(MPI_Comm_free_keyval(&ckv));
	MPI_OK(MPI_Win_free_keyval(&kv));
	CHECK(kv == MPI_KEYVAL_INVALID, "%s: the keyval handle stays", f);
}

static void shared_query(struct t_win *w)
{
	MPI_Aint size;
	int unit;
	void *p;

	if (w->flavor == T_SHARED || w->flavor == T_ALLOCATE) {
		MPI_OK(MPI_Win_shared_query(w->win, t_rank, &size, &unit, &p));
		CHECK(p == w->base && size == (MPI_Aint)w->bytes && unit == w->unit,
		      "%s: shared_query: %p %ld %d", t_flavor_name[w->flavor],
		      p, (long)size, unit);
	} else {
		T_EXPECT(MPI_Win_shared_query(w->win, t_rank, &size, &unit, &p),
			 MPI_ERR_RMA_FLAVOR, "%s: MPI_Win_shared_query",
			 t_flavor_name[w->flavor]);
	}
}

int main(int argc, char **argv)
{
	MPI_Errhandler eh;
	struct t_win w;
	MPI_Info info;
	MPI_Win win;
	char v[MPI_MAX_INFO_VAL];
	int f, flag, *mem;

	t_init(&argc, &argv);

	/* A new window's handler is MPI_ERRORS_ARE_FATAL. */
	MPI_OK(MPI_Win_allocate(64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
	MPI_OK(MPI_Win_get_errhandler(win, &eh));
	CHECK(eh == MPI_ERRORS_ARE_FATAL, "a new window's handler is not MPI_ERRORS_ARE_FATAL");
	MPI_OK(MPI_Errhandler_free(&eh));
	MPI_OK(MPI_Win_free(&win));
	CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
	T_EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN,
		 "MPI_Win_fence of MPI_WIN_NULL");

	/* Hints given at creation come back. */
	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "no_locks", "true"));
	MPI_OK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
	MPI_OK(MPI_Win_allocate_shared(64, 4, info, MPI_COMM_WORLD, &mem, &win));
	MPI_OK(MPI_Info_free(&info));
	MPI_OK(MPI_Win_get_info(win, &info));
	MPI_OK(MPI_Info_get(info, "no_locks", sizeof(v) - 1, v, &flag));
	CHECK(flag && !strcmp(v, "true"), "no_locks given true, got %s", flag ? v : "(none)");
	MPI_OK(MPI_Info_get(info, "alloc_shared_noncontig", sizeof(v) - 1, v, &flag));
	CHECK(flag && !strcmp(v, "true"), "alloc_shared_noncontig %s", flag ? v : "(none)");
	MPI_OK(MPI_Info_free(&info));
	MPI_OK(MPI_Win_free(&win));

	for (f = 0; f < T_FLAVORS; f++) {
		t_win_make(&w, f, 256, 4, MPI_COMM_WORLD);
		attributes(&w);
		group_name_info(&w);
		errhandlers(&w);
		keyvals(&w);
		shared_query(&w);
		deletes = 0;
		/*
		 * MPI_Win_free runs the delete callbacks of the attributes
		 * left, newest (21) first, then 13 from keyvals().
		 */
		{
			int kv;

			MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn,
						     &kv, &deletes));
			MPI_OK(MPI_Win_set_attr(w.win, kv, (void *)(intptr_t)21));
			MPI_OK(MPI_Win_free_keyval(&kv));
		}
		t_win_free(&w);
		CHECK(deletes == 2 && last_deleted == 13,
		      "%s: MPI_Win_free ran %d delete callbacks, last of %d",
		      t_flavor_name[f], deletes, last_deleted);
		CHECK(copies == 0, "a window's copy callback was called");
	}
	if (t_rank == 0)
		printf("rma_win: ok\n");
	return t_done();
}
