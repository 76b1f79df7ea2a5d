// SPDX-License-Identifier: MIT
/*
 * Info objects: set/get/delete keep (key, value) pairs in the order of
 * setting, get truncates to valuelen, dup is a deep copy, the length
 * limits hold to the character, MPI_INFO_ENV describes the job and
 * cannot be changed, and every bad argument gets its error class;
 * MPI_Info_get_string reports the room a value needs and cuts it to fit.
 * MPI_INFO_ENV and MPI_Info_create_env (before MPI_Init too, with
 * arguments, one, or none) hold each key MPI-4.0 lists with its meaning.
 */
#include <sys/utsname.h>

#include "test.h"

/* info holds exactly keys[i] = vals[i], i < n, in that order. */
static void expect_contents(MPI_Info info, int n, const char *const *keys,
			    const char *const *vals)
{
	char key[MPI_MAX_INFO_KEY], val[MPI_MAX_INFO_VAL];
	int i, nkeys = -1, flag, len;

	MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
	CHECK(nkeys == n, "%d keys, expected %d", nkeys, n);
	for (i = 0; i < n; i++) {
		MPI_OK(MPI_Info_get_nthkey(info, i, key));
		CHECK(!strcmp(key, keys[i]), "key %d is %s, expected %s", i,
		      key, keys[i]);
		flag = 0;
		MPI_OK(MPI_Info_get(info, keys[i], MPI_MAX_INFO_VAL - 1, val,
				    &flag));
		CHECK(flag && !strcmp(val, vals[i]), "%s = %s, expected %s",
		      keys[i], flag ? val : "(none)", vals[i]);
		flag = 0;
		MPI_OK(MPI_Info_get_valuelen(info, keys[i], &len, &flag));
		CHECK(flag && len == (int)strlen(vals[i]), "valuelen of %s: %d",
		      keys[i], len);
	}
}

static void basics(void)
{
	static const char *const k1[] = { "a", "Key", "key", "empty" };
	static const char *const v1[] = { "1", "upper", "lower", "" };
	static const char *const k2[] = { "a", "key", "empty", "z" };
	static const char *const v2[] = { "one", "lower", "", "last" };
	char val[16];
	MPI_Info info = MPI_INFO_NULL, dup = MPI_INFO_NULL;
	int flag, len;

	MPI_OK(MPI_Info_create(&info));
	CHECK(info != MPI_INFO_NULL, "Info_create gave MPI_INFO_NULL");
	expect_contents(info, 0, NULL, NULL);
	MPI_OK(MPI_Info_set(info, "a", "1"));
	MPI_OK(MPI_Info_set(info, "Key", "upper"));
	MPI_OK(MPI_Info_set(info, "key", "lower"));	/* case sensitive */
	MPI_OK(MPI_Info_set(info, "empty", ""));
	expect_contents(info, 4, k1, v1);

	/* A set of an existing key keeps its place; a delete closes up. */
	MPI_OK(MPI_Info_dup(info, &dup));
	MPI_OK(MPI_Info_set(info, "a", "one"));
	MPI_OK(MPI_Info_delete(info, "Key"));
	MPI_OK(MPI_Info_set(info, "z", "last"));
	expect_contents(info, 4, k2, v2);
	/* The duplicate did not change with the original. */
	expect_contents(dup, 4, k1, v1);
	MPI_OK(MPI_Info_free(&dup));
	CHECK(dup == MPI_INFO_NULL, "Info_free left the handle");

	/* Truncation: valuelen characters and a NUL, nothing beyond. */
	MPI_OK(MPI_Info_set(info, "long", "abcdefgh"));
	memset(val, 'X', sizeof(val));
	MPI_OK(MPI_Info_get(info, "long", 3, val, &flag));
	CHECK(flag && !strcmp(val, "abc") && val[4] == 'X', "truncated get: %s",
	      val);
	MPI_OK(MPI_Info_get(info, "long", 0, val, &flag));
	CHECK(flag && val[0] == 0, "get with valuelen 0");
	/* An absent key: flag 0, value untouched. */
	strcpy(val, "keep");
	flag = 1;
	MPI_OK(MPI_Info_get(info, "absent", 15, val, &flag));
	CHECK(!flag && !strcmp(val, "keep"), "get of an absent key");
	flag = 1;
	MPI_OK(MPI_Info_get_valuelen(info, "absent", &len, &flag));
	CHECK(!flag, "valuelen of an absent key");
	MPI_OK(MPI_Info_free(&info));
}

/* MPI-4.0's get_string: the room needed back in buflen, cut to fit. */
static void get_string(void)
{
	MPI_Info info;
	char val[16];
	int len, flag;

	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "k", "abcdefgh"));
	len = 0;
	MPI_OK(MPI_Info_get_string(info, "k", &len, NULL, &flag));
	CHECK(flag && len == 9, "length query: %d", len);
	memset(val, 'X', sizeof(val));
	len = 4;
	MPI_OK(MPI_Info_get_string(info, "k", &len, val, &flag));
	CHECK(flag && len == 9 && !strcmp(val, "abc") && val[4] == 'X',
	      "cut to 4: '%s', %d", val, len);
	len = sizeof(val);
	MPI_OK(MPI_Info_get_string(info, "k", &len, val, &flag));
	CHECK(flag && len == 9 && !strcmp(val, "abcdefgh"), "whole: %s", val);
	strcpy(val, "keep");
	len = sizeof(val);
	MPI_OK(MPI_Info_get_string(info, "absent", &len, val, &flag));
	CHECK(!flag && len == sizeof(val) && !strcmp(val, "keep"),
	      "absent key: flag %d, %d", flag, len);
	len = -1;
	t_expect(MPI_Info_get_string(info, "k", &len, val, &flag), MPI_ERR_ARG,
	         "negative buflen");
	len = 4;
	t_expect(MPI_Info_get_string(info, "k", &len, NULL, &flag), MPI_ERR_ARG,
	         "NULL value with room");
	t_expect(MPI_Info_get_string(info, "k", NULL, val, &flag), MPI_ERR_ARG,
	         "NULL buflen");
	t_expect(MPI_Info_get_string(MPI_INFO_NULL, "k", &len, val, &flag),
	         MPI_ERR_INFO, "MPI_INFO_NULL");
	MPI_OK(MPI_Info_free(&info));
}

/* The longest key and value fit; one character more does not. */
static void limits(void)
{
	static char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1],
		out[MPI_MAX_INFO_VAL], got[MPI_MAX_INFO_KEY];
	MPI_Info info;
	int flag, n;

	MPI_OK(MPI_Info_create(&info));
	memset(key, 'k', MPI_MAX_INFO_KEY - 1);
	memset(val, 'v', MPI_MAX_INFO_VAL - 1);
	MPI_OK(MPI_Info_set(info, key, val));
	MPI_OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, out, &flag));
	CHECK(flag && !strcmp(out, val), "longest value");
	MPI_OK(MPI_Info_get_nthkey(info, 0, got));
	CHECK(!strcmp(got, key), "longest key");

	val[MPI_MAX_INFO_VAL - 1] = 'v';
	t_expect(MPI_Info_set(info, "k2", val), MPI_ERR_INFO_VALUE,
	         "value of MPI_MAX_INFO_VAL characters");
	key[MPI_MAX_INFO_KEY - 1] = 'k';
	t_expect(MPI_Info_set(info, key, "v"), MPI_ERR_INFO_KEY,
	         "key of MPI_MAX_INFO_KEY characters");
	t_expect(MPI_Info_get(info, key, 4, out, &flag), MPI_ERR_INFO_KEY,
	         "get with a too long key");
	MPI_OK(MPI_Info_get_nkeys(info, &n));
	CHECK(n == 1, "a refused set added a key (%d keys)", n);

	/* Many keys, in order. */
	for (n = 0; n < 300; n++) {
		snprintf(got, sizeof(got), "key%d", n);
		snprintf(out, sizeof(out), "%d", n * 7);
		MPI_OK(MPI_Info_set(info, got, out));
	}
	for (n = 0; n < 300; n += 37) {
		MPI_OK(MPI_Info_get_nthkey(info, n + 1, got));
		snprintf(out, sizeof(out), "key%d", n);
		CHECK(!strcmp(got, out), "key %d is %s", n + 1, got);
		MPI_OK(MPI_Info_get(info, got, 20, out, &flag));
		CHECK(flag && atoi(out) == n * 7, "%s = %s", got, out);
	}
	MPI_OK(MPI_Info_free(&info));
}

static void errors(void)
{
	char val[8], key[MPI_MAX_INFO_KEY];
	MPI_Info info, dead, null = MPI_INFO_NULL;
	int flag, n;

	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "x", "1"));

	t_expect(MPI_Info_set(MPI_INFO_NULL, "x", "1"), MPI_ERR_INFO, "set on NULL");
	t_expect(MPI_Info_get(MPI_INFO_NULL, "x", 4, val, &flag), MPI_ERR_INFO,
	         "get on NULL");
	t_expect(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO, "nkeys on NULL");
	t_expect(MPI_Info_dup(MPI_INFO_NULL, &dead), MPI_ERR_INFO, "dup of NULL");
	t_expect(MPI_Info_free(&null), MPI_ERR_INFO, "free of MPI_INFO_NULL");
	t_expect(MPI_Info_create(NULL), MPI_ERR_ARG, "create into NULL");
	t_expect(MPI_Info_free(NULL), MPI_ERR_ARG, "free of NULL");

	t_expect(MPI_Info_set(info, "", "1"), MPI_ERR_INFO_KEY, "empty key");
	t_expect(MPI_Info_set(info, NULL, "1"), MPI_ERR_INFO_KEY, "NULL key");
	t_expect(MPI_Info_set(info, "y", NULL), MPI_ERR_INFO_VALUE, "NULL value");
	t_expect(MPI_Info_delete(info, "y"), MPI_ERR_INFO_NOKEY, "delete absent");
	t_expect(MPI_Info_delete(info, "X"), MPI_ERR_INFO_NOKEY, "delete wrong case");
	t_expect(MPI_Info_get(info, "x", -1, val, &flag), MPI_ERR_ARG,
	         "negative valuelen");
	t_expect(MPI_Info_get(info, "x", 4, NULL, &flag), MPI_ERR_ARG, "NULL value");
	t_expect(MPI_Info_get(info, "x", 4, val, NULL), MPI_ERR_ARG, "NULL flag");
	t_expect(MPI_Info_get_valuelen(info, "x", NULL, &flag), MPI_ERR_ARG,
	         "NULL valuelen");
	t_expect(MPI_Info_get_nthkey(info, 1, key), MPI_ERR_ARG, "nthkey 1 of 1");
	t_expect(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG, "nthkey -1");
	t_expect(MPI_Info_get_nkeys(info, NULL), MPI_ERR_ARG, "nkeys NULL");
	t_expect(MPI_Info_dup(info, NULL), MPI_ERR_ARG, "dup into NULL");

	/* The error string names the call and the key. */
	{
		char s[MPI_MAX_ERROR_STRING];
		int len;

		t_expect(MPI_Info_delete(info, "gone"), MPI_ERR_INFO_NOKEY,
		         "delete gone");
		MPI_OK(MPI_Error_string(MPI_ERR_INFO_NOKEY, s, &len));
		CHECK(strstr(s, "MPI_Info_delete") && strstr(s, "gone"),
		      "error string: %s", s);
	}

	MPI_OK(MPI_Info_free(&info));
}

/* key's value in info, or NULL. */
static const char *val_of(MPI_Info info, const char *key)
{
	static char v[MPI_MAX_INFO_VAL];
	int flag = 0;

	MPI_OK(MPI_Info_get(info, key, sizeof(v) - 1, v, &flag));
	return flag ? v : NULL;
}

/*
 * The keys MPI-4.0 (11.4) lists, each with its meaning: command and
 * argv as given, maxprocs the world's size, host and arch uname's,
 * wdir the working directory, thread_level the level asked for (none
 * before MPI_Init); soft and file are never set (mpiexec takes
 * neither).
 */
static void env_keys(MPI_Info info, const char *what, const char *command,
		     const char *args, int initialized)
{
	char cwd[4096];
	struct utsname u;
	const char *v;

	CHECK(!uname(&u) && getcwd(cwd, sizeof(cwd)), "uname, getcwd");
	v = val_of(info, "command");
	CHECK(v && (command[0] == '*' ? strstr(v, command + 1) != NULL :
		    !strcmp(v, command)), "%s: command %s", what, v ? v : "(none)");
	v = val_of(info, "argv");
	CHECK(args ? v && !strcmp(v, args) : !v, "%s: argv %s, not %s", what,
	      v ? v : "(none)", args ? args : "(none)");
	v = val_of(info, "maxprocs");
	CHECK(v && atoi(v) == t_size, "%s: maxprocs %s, size %d", what,
	      v ? v : "(none)", t_size);
	v = val_of(info, "host");
	CHECK(v && !strcmp(v, u.nodename), "%s: host %s", what, v ? v : "(none)");
	v = val_of(info, "arch");
	CHECK(v && !strcmp(v, u.machine), "%s: arch %s", what, v ? v : "(none)");
	v = val_of(info, "wdir");
	CHECK(v && !strcmp(v, cwd), "%s: wdir %s", what, v ? v : "(none)");
	v = val_of(info, "thread_level");
	CHECK(initialized ? v && !strcmp(v, "MPI_THREAD_SINGLE") : !v,
	      "%s: thread_level %s", what, v ? v : "(none)");
	CHECK(!val_of(info, "soft") && !val_of(info, "file"),
	      "%s: soft or file set", what);
}

static void create_env(MPI_Info before)
{
	char *args[] = { "prog", "-x", "two words", NULL };
	MPI_Info info;

	env_keys(before, "MPI_Info_create_env before MPI_Init", "*info", NULL, 0);
	MPI_OK(MPI_Info_free(&before));
	MPI_OK(MPI_Info_create_env(3, args, &info));
	env_keys(info, "MPI_Info_create_env(3, ...)", "prog", "-x two words", 1);
	MPI_OK(MPI_Info_free(&info));
	MPI_OK(MPI_Info_create_env(1, args, &info));
	env_keys(info, "MPI_Info_create_env(1, ...)", "prog", NULL, 1);
	MPI_OK(MPI_Info_free(&info));
	/* Without arguments: the process's own command line. */
	MPI_OK(MPI_Info_create_env(0, NULL, &info));
	env_keys(info, "MPI_Info_create_env(0, NULL)", "*info", NULL, 1);
	MPI_OK(MPI_Info_free(&info));
	env_keys(MPI_INFO_ENV, "MPI_INFO_ENV", "*info", NULL, 1);
}

static void env(void)
{
	char val[MPI_MAX_INFO_VAL];
	MPI_Info info = MPI_INFO_ENV, dup;
	int flag = 0, n;

	MPI_OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", sizeof(val) - 1, val, &flag));
	CHECK(flag && atoi(val) == t_size, "maxprocs %s, size %d",
	      flag ? val : "(none)", t_size);
	MPI_OK(MPI_Info_get(MPI_INFO_ENV, "command", sizeof(val) - 1, val, &flag));
	CHECK(flag && strstr(val, "info"), "command: %s", flag ? val : "(none)");
	MPI_OK(MPI_Info_get(MPI_INFO_ENV, "thread_level", sizeof(val) - 1, val,
			    &flag));
	CHECK(flag && !strncmp(val, "MPI_THREAD_", 11), "thread_level");
	MPI_OK(MPI_Info_get(MPI_INFO_ENV, "wdir", sizeof(val) - 1, val, &flag));
	CHECK(flag && val[0] == '/', "wdir");

	t_expect(MPI_Info_set(MPI_INFO_ENV, "x", "1"), MPI_ERR_INFO, "set ENV");
	t_expect(MPI_Info_delete(MPI_INFO_ENV, "wdir"), MPI_ERR_INFO, "delete ENV");
	t_expect(MPI_Info_free(&info), MPI_ERR_INFO, "free ENV");
	CHECK(info == MPI_INFO_ENV, "a refused free changed the handle");

	MPI_OK(MPI_Info_dup(MPI_INFO_ENV, &dup));
	MPI_OK(MPI_Info_set(dup, "x", "1"));
	MPI_OK(MPI_Info_delete(dup, "wdir"));
	MPI_OK(MPI_Info_get(MPI_INFO_ENV, "wdir", sizeof(val) - 1, val, &flag));
	CHECK(flag, "a change of the duplicate reached MPI_INFO_ENV");
	MPI_OK(MPI_Info_get(MPI_INFO_ENV, "x", sizeof(val) - 1, val, &flag));
	CHECK(!flag, "a key set in the duplicate appears in MPI_INFO_ENV");
	MPI_OK(MPI_Info_get_nkeys(dup, &n));
	CHECK(n >= 4, "duplicate of MPI_INFO_ENV has %d keys", n);
	MPI_OK(MPI_Info_free(&dup));
}

int main(int argc, char **argv)
{
	MPI_Info before;

	/* MPI-4.0: info calls work before MPI_Init. */
	MPI_Info_create_env(argc, argv, &before);
	t_init(&argc, &argv);
	create_env(before);
	basics();
	limits();
	errors();
	env();
	get_string();
	return t_done();
}
