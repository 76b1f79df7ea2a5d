// SPDX-License-Identifier: MIT
/*
 * A window as an MPI object (MPI-3.1 sections 11.2.6-11.2.7, 6.7.3,
 * 8.3.3): its attributes (the predefined MPI_WIN_BASE, MPI_WIN_SIZE,
 * MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL, and the
 * program's, through comm/attr.c), group, name, info hints and error
 * handler (MPI_ERRORS_ARE_FATAL until set).  Creation and free are in
 * win.c.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"

/* ---- Attributes --------------------------------------------------------------- */

static int predefined_key(int keyval)
{
	return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE ||
		keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR ||
		keyval == MPI_WIN_MODEL;
}

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
			  MPI_Win_delete_attr_function *win_delete_attr_fn,
			  int *win_keyval, void *extra_state)
{
	LM_GUARD();
	return lm_win_keyval_create("MPI_Win_create_keyval", win_copy_attr_fn,
				    win_delete_attr_fn, win_keyval,
				    extra_state);
}

int MPI_Win_free_keyval(int *win_keyval)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_free_keyval";

	lm_check_init(fn);
	if (win_keyval && predefined_key(*win_keyval))
		return lm_error(NULL, fn, MPI_ERR_KEYVAL,
				"keyval %#x is predefined and cannot be freed",
				*win_keyval);
	return lm_win_keyval_free(fn, win_keyval);
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_set_attr";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (predefined_key(win_keyval))
		return lm_werr(win, fn, MPI_ERR_KEYVAL,
			       "keyval %#x is predefined and read-only",
			       win_keyval);
	return lm_win_attr_set(win, fn, win_keyval, attribute_val);
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val,
		     int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_get_attr";
	static const int model = MPI_WIN_UNIFIED;
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (!attribute_val || !flag)
		return lm_werr(win, fn, MPI_ERR_ARG,
			       "attribute_val or flag is NULL");
	*flag = 1;
	switch (win_keyval) {
	case MPI_WIN_BASE:
		*(void **)attribute_val = win->base;
		return MPI_SUCCESS;
	case MPI_WIN_SIZE:
		*(MPI_Aint **)attribute_val = &win->bytes;
		return MPI_SUCCESS;
	case MPI_WIN_DISP_UNIT:
		*(int **)attribute_val = &win->disp_unit;
		return MPI_SUCCESS;
	case MPI_WIN_CREATE_FLAVOR:
		*(int **)attribute_val = &win->flavor;
		return MPI_SUCCESS;
	case MPI_WIN_MODEL:
		*(const int **)attribute_val = &model;
		return MPI_SUCCESS;
	}
	*flag = 0;
	return lm_win_attr_get(win, fn, win_keyval, attribute_val, flag);
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_delete_attr";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (predefined_key(win_keyval))
		return lm_werr(win, fn, MPI_ERR_KEYVAL,
			       "keyval %#x is predefined and read-only",
			       win_keyval);
	return lm_win_attr_delete(win, fn, win_keyval);
}

/* ---- Error handlers ---------------------------------------------------------- */

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_set_errhandler";
	int err = lm_check_win(win, fn);
	const char *why;

	if (err)
		return err;
	why = lm_errh_misfit(errhandler, LM_ERRH_FOR_WIN);
	if (why)
		return lm_werr(win, fn, MPI_ERR_ARG, "%s", why);
	lm_errh_set(&win->h.errh, errhandler);
	return MPI_SUCCESS;
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_get_errhandler";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (!errhandler)
		return lm_werr(win, fn, MPI_ERR_ARG, "errhandler is NULL");
	/* A new reference: the caller frees it (MPI_Errhandler_free). */
	lm_errh_hold(win->h.errh);
	*errhandler = win->h.errh;
	return MPI_SUCCESS;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_call_errhandler";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	/* The handler's own verdict: MPI_SUCCESS once it returns. */
	lm_werr(win, fn, errorcode, "raised by the program");
	return MPI_SUCCESS;
}

/* ---- Group, name, info ----------------------------------------------------------- */

int MPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_get_group";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (!group)
		return lm_werr(win, fn, MPI_ERR_ARG, "group is NULL");
	err = MPI_Comm_group(win->comm, group);
	if (err)
		return lm_werr(win, fn, err, "no group");
	return MPI_SUCCESS;
}

int MPI_Win_set_name(MPI_Win win, const char *win_name)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_set_name";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (!win_name)
		return lm_werr(win, fn, MPI_ERR_ARG, "win_name is NULL");
	/* Longer names are cut (MPI allows it). */
	snprintf(win->name, sizeof(win->name), "%s", win_name);
	return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_get_name";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (!win_name || !resultlen)
		return lm_werr(win, fn, MPI_ERR_ARG,
			       "win_name or resultlen is NULL");
	strcpy(win_name, win->name);
	*resultlen = (int)strlen(win->name);
	return MPI_SUCCESS;
}

int MPI_Win_set_info(MPI_Win win, MPI_Info info)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_set_info";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (info == MPI_INFO_NULL || !lm_info_ok(info))
		return lm_werr(win, fn, MPI_ERR_INFO, "%s",
			       info ? "invalid info object" :
			       "info is MPI_INFO_NULL");
	lm_win_hints_take(win, info);
	return MPI_SUCCESS;
}

int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_get_info";
	MPI_Info info;
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (!info_used)
		return lm_werr(win, fn, MPI_ERR_ARG, "info_used is NULL");
	info = lm_info_make("no_locks", win->no_locks);
	if (!info)
		return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	err = MPI_Info_set(info, "accumulate_ordering", win->acc_ordering);
	if (!err)
		err = MPI_Info_set(info, "accumulate_ops", win->acc_ops);
	if (!err)
		err = MPI_Info_set(info, "same_size", win->same_size);
	if (!err)
		err = MPI_Info_set(info, "same_disp_unit", win->same_disp_unit);
	if (!err && win->flavor == MPI_WIN_FLAVOR_SHARED)
		err = MPI_Info_set(info, "alloc_shared_noncontig",
				   win->noncontig ? "true" : "false");
	if (err) {
		MPI_Info_free(&info);
		return lm_werr(win, fn, err, "out of memory");
	}
	*info_used = info;
	return MPI_SUCCESS;
}
