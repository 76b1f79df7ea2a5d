// SPDX-License-Identifier: MIT
/*
 * Error classes and codes the program adds (MPI_Add_error_class, _code,
 * _string): numbered above MPI_ERR_LASTCODE, each code of its class,
 * MPI_LASTUSEDCODE following the last, strings read back by
 * MPI_Error_string ("" before one is set), replaced, bounded; a code
 * raised with MPI_Comm_call_errhandler reaches the program's handler;
 * predefined strings cannot be changed, nor codes added to a class
 * that does not exist.  Every rank adds the same ones in the same
 * order, and gets the same numbers.
 */
#include "test.h"

static int seen;

static void handler(MPI_Comm *comm, int *code, ...)
{
	(void)comm;
	seen = *code;
}

static void string_is(int code, const char *want)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = -1;

	MPI_OK(MPI_Error_string(code, s, &len));
	CHECK(len == (int)strlen(want) && !strcmp(s, want),
	      "code %d: string '%s' (%d), want '%s'", code, s, len, want);
}

static int class_of(int code)
{
	int cls = -1;

	MPI_OK(MPI_Error_class(code, &cls));
	return cls;
}

static int lastused(void)
{
	int *v = NULL, flag = 0;

	MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
	CHECK(flag && v, "MPI_LASTUSEDCODE not set");
	return *v;
}

int main(int argc, char **argv)
{
	char big[MPI_MAX_ERROR_STRING + 8];
	int cls, cls2, code, code2, err, all[4], sum[4], i;
	MPI_Errhandler h;

	t_init(&argc, &argv);
	CHECK(lastused() >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d below %d",
	      lastused(), MPI_ERR_LASTCODE);

	MPI_OK(MPI_Add_error_class(&cls));
	CHECK(cls > MPI_ERR_LASTCODE, "class %d", cls);
	CHECK(lastused() == cls, "MPI_LASTUSEDCODE %d, class %d", lastused(),
	      cls);
	CHECK(class_of(cls) == cls, "a class is its own class");
	string_is(cls, "");
	MPI_OK(MPI_Add_error_code(cls, &code));
	CHECK(code > cls && lastused() == code, "code %d after class %d", code,
	      cls);
	CHECK(class_of(code) == cls, "code %d of class %d", code,
	      class_of(code));
	MPI_OK(MPI_Add_error_string(cls, "mpichan test: a class"));
	MPI_OK(MPI_Add_error_string(code, "mpichan test: a code"));
	string_is(cls, "mpichan test: a class");
	string_is(code, "mpichan test: a code");
	MPI_OK(MPI_Add_error_string(code, "replaced"));
	string_is(code, "replaced");

	/* A code of a predefined class; a second class. */
	MPI_OK(MPI_Add_error_code(MPI_ERR_TAG, &code2));
	CHECK(class_of(code2) == MPI_ERR_TAG, "class of code2 %d",
	      class_of(code2));
	MPI_OK(MPI_Add_error_class(&cls2));
	CHECK(cls2 > code2 && class_of(cls2) == cls2, "second class %d", cls2);

	/* Refusals: each says what is wrong, and changes nothing. */
	err = MPI_Add_error_string(MPI_ERR_TAG, "mine now");
	CHECK(err == MPI_ERR_ARG, "predefined string changed: %d", err);
	string_is(MPI_ERR_TAG, "MPI_ERR_TAG: invalid tag");
	err = MPI_Add_error_code(code, &i);
	CHECK(err == MPI_ERR_ARG, "a code added to a code: %d", err);
	err = MPI_Add_error_code(cls2 + 1000, &i);
	CHECK(err == MPI_ERR_ARG, "a code added to no class: %d", err);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	err = MPI_Add_error_string(code, big);
	CHECK(err == MPI_ERR_ARG, "an over-long string taken: %d", err);
	string_is(code, "replaced");
	err = MPI_Error_class(cls2 + 1, &i);
	CHECK(err == MPI_ERR_ARG, "class of an unused number: %d", err);
	err = MPI_Add_error_class(NULL);
	CHECK(err == MPI_ERR_ARG, "NULL class: %d", err);
	CHECK(lastused() == cls2, "MPI_LASTUSEDCODE moved by a refusal");
	err = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &i);
	CHECK(err == MPI_ERR_KEYVAL, "MPI_LASTUSEDCODE set: %d", err);

	/* The program's handler sees its own code. */
	MPI_OK(MPI_Comm_create_errhandler(handler, &h));
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
	MPI_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code));
	CHECK(seen == code, "handler saw %d, not %d", seen, code);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Errhandler_free(&h));

	/* The same numbers on every rank. */
	all[0] = cls; all[1] = code; all[2] = code2; all[3] = cls2;
	MPI_OK(MPI_Allreduce(all, sum, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	for (i = 0; i < 4; i++)
		CHECK(sum[i] == all[i] * t_size, "number %d differs by rank", i);

	MPI_Finalize();
	/* Still answered after MPI_Finalize. */
	string_is(code, "replaced");
	if (t_rank == 0)
		printf("errcodes: ok (%d ranks)\n", t_size);
	return 0;
}
