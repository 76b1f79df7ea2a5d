// SPDX-License-Identifier: MIT
/*
 * Error classes and codes a program (or a library over MPI) adds:
 * MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string.
 *
 * They are numbered from MPI_ERR_LASTCODE + 1 up, classes and codes in
 * one sequence, and MPI_LASTUSEDCODE (an attribute of every
 * communicator) is the last one given out.  Each knows its class (a
 * class is its own) and, once set, its string; MPI_Error_class and
 * MPI_Error_string (errors.c) answer for them from here.  They are
 * local to the process, as in MPI: a program that wants the same
 * numbers everywhere adds them in the same order on every rank.  They
 * outlive MPI_Finalize, as MPI_Error_string may still be asked.
 */

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

struct lm_user_err {
	int cls;		/* its class: itself for a class */
	char *str;		/* NULL: no string set ("") */
};

static struct lm_user_err *user;
static int nuser, capuser;
static int lastused = MPI_ERR_LASTCODE;

static struct lm_user_err *user_get(int code)
{
	int i = code - MPI_ERR_LASTCODE - 1;

	return i >= 0 && i < nuser ? &user[i] : NULL;
}

int lm_err_user_class(int code)
{
	struct lm_user_err *u = user_get(code);

	return u ? u->cls : -1;
}

const char *lm_err_user_string(int code)
{
	struct lm_user_err *u = user_get(code);

	return u && u->str ? u->str : "";
}

int *lm_err_lastused(void)
{
	return &lastused;
}

/* A new code of class cls (-1: a new class); its number, or -1. */
static int user_add(int cls)
{
	struct lm_user_err *n;
	int cap;

	if (nuser == capuser) {
		cap = capuser ? 2 * capuser : 16;
		if (cap > INT32_MAX / 2 - MPI_ERR_LASTCODE)
			return -1;
		n = realloc(user, (size_t)cap * sizeof(*n));
		if (!n)
			return -1;
		user = n;
		capuser = cap;
	}
	lastused = MPI_ERR_LASTCODE + 1 + nuser;
	user[nuser].cls = cls < 0 ? lastused : cls;
	user[nuser].str = NULL;
	nuser++;
	return lastused;
}

int MPI_Add_error_class(int *errorclass)
{
	LM_GUARD();
	static const char fn[] = "MPI_Add_error_class";
	int c;

	lm_check_init(fn);
	if (!errorclass)
		return lm_error(NULL, fn, MPI_ERR_ARG, "errorclass is NULL");
	c = user_add(-1);
	if (c < 0)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM,
				"no memory for another error class");
	*errorclass = c;
	return MPI_SUCCESS;
}

int MPI_Add_error_code(int errorclass, int *errorcode)
{
	LM_GUARD();
	static const char fn[] = "MPI_Add_error_code";
	int c;

	lm_check_init(fn);
	if (!errorcode)
		return lm_error(NULL, fn, MPI_ERR_ARG, "errorcode is NULL");
	if (!lm_err_is_class(errorclass))
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"%d is not an error class", errorclass);
	c = user_add(errorclass);
	if (c < 0)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM,
				"no memory for another error code");
	*errorcode = c;
	return MPI_SUCCESS;
}

int MPI_Add_error_string(int errorcode, const char *string)
{
	LM_GUARD();
	static const char fn[] = "MPI_Add_error_string";
	struct lm_user_err *u = user_get(errorcode);
	char *s;

	lm_check_init(fn);
	if (!u)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"%d is not an error code added by the program (predefined strings cannot change)",
				errorcode);
	if (!string)
		return lm_error(NULL, fn, MPI_ERR_ARG, "string is NULL");
	if (strlen(string) >= MPI_MAX_ERROR_STRING)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"string of %zu characters: at most %d",
				strlen(string), MPI_MAX_ERROR_STRING - 1);
	s = strdup(string);
	if (!s)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
	free(u->str);
	u->str = s;
	return MPI_SUCCESS;
}
