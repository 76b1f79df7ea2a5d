// SPDX-License-Identifier: MIT
/*
 * Info objects (MPI-3.1 chapter 9): ordered (key, value) string pairs,
 * and MPI-4.0's MPI_Info_get_string.
 *
 * Keys keep the position they were first set at, so MPI_Info_get_nthkey
 * numbers them in the order of setting (a set of an existing key changes
 * its value in place; a delete closes the gap).  A key has 1 to
 * MPI_MAX_INFO_KEY - 1 characters and a value at most
 * MPI_MAX_INFO_VAL - 1, so either always fits a buffer of the maximum
 * size with its terminating NUL.  Keys and values are case sensitive.
 *
 * MPI_INFO_ENV describes how the process was started (filled when first
 * used); it can be read and duplicated, not changed or freed.
 * MPI_Info_create_env makes a changeable object of the same keys.
 *
 * MPI-4.0 allows every info call before MPI is initialized and after
 * it is finalized, so none of them checks for it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/base.h"

struct lm_info_entry {
	char *key;
	char *value;
};

struct libmsg_info {
	uint32_t magic;
	uint8_t predefined;	/* MPI_INFO_ENV */
	uint8_t filled;		/* MPI_INFO_ENV: its entries are in */
	int n, cap;
	struct lm_info_entry *e;
};

LM_PREDEFINED(struct libmsg_info, libmsg_info_env, LM_ABI_INFO_SIZE) = { .obj = {
	.magic = LM_MAGIC_INFO, .predefined = 1,
} };

static struct libmsg_info *info_alloc(void)
{
	struct libmsg_info *info = calloc(1, sizeof(*info));

	if (info)
		info->magic = LM_MAGIC_INFO;
	return info;
}

static void info_clear(struct libmsg_info *info)
{
	int i;

	for (i = 0; i < info->n; i++) {
		free(info->e[i].key);
		free(info->e[i].value);
	}
	free(info->e);
	info->e = NULL;
	info->n = info->cap = 0;
}

static int info_find(const struct libmsg_info *info, const char *key)
{
	int i;

	for (i = 0; i < info->n; i++)
		if (!strcmp(info->e[i].key, key))
			return i;
	return -1;
}

/* Set key to value (both copied); -1 when out of memory. */
static int info_put(struct libmsg_info *info, const char *key,
		    const char *value)
{
	struct lm_info_entry *e;
	char *v = strdup(value), *k;
	int i = info_find(info, key);

	if (!v)
		return -1;
	if (i >= 0) {
		free(info->e[i].value);
		info->e[i].value = v;
		return 0;
	}
	if (info->n == info->cap) {
		e = realloc(info->e, (size_t)(info->cap ? info->cap * 2 : 8) *
			    sizeof(*e));
		if (!e) {
			free(v);
			return -1;
		}
		info->e = e;
		info->cap = info->cap ? info->cap * 2 : 8;
	}
	k = strdup(key);
	if (!k) {
		free(v);
		return -1;
	}
	info->e[info->n].key = k;
	info->e[info->n].value = v;
	info->n++;
	return 0;
}

static const char *const levels[] = {
	[MPI_THREAD_SINGLE] = "MPI_THREAD_SINGLE",
	[MPI_THREAD_FUNNELED] = "MPI_THREAD_FUNNELED",
	[MPI_THREAD_SERIALIZED] = "MPI_THREAD_SERIALIZED",
	[MPI_THREAD_MULTIPLE] = "MPI_THREAD_MULTIPLE",
};

const char *lm_thread_level_name(int level)
{
	if (level < MPI_THREAD_SINGLE || level > MPI_THREAD_MULTIPLE)
		return "MPI_THREAD_SINGLE";
	return levels[level];
}

int lm_thread_level_parse(const char *name)
{
	int i;

	for (i = MPI_THREAD_SINGLE; i <= MPI_THREAD_MULTIPLE; i++)
		if (!strcmp(name, levels[i]))
			return i;
	return -1;
}

/*
 * "command" and "argv": argv[0] (the program, as it was started) and
 * the arguments after it, separated by spaces (no key without any).
 */
static void env_args(struct libmsg_info *info, int argc, char *const argv[])
{
	char args[MPI_MAX_INFO_VAL] = "";
	size_t len = 0;
	int i;

	if (argc < 1 || !argv || !argv[0])
		return;
	info_put(info, "command", argv[0]);
	for (i = 1; i < argc && argv[i]; i++) {
		len += (size_t)snprintf(args + len, sizeof(args) - len, "%s%s",
					i > 1 ? " " : "", argv[i]);
		if (len >= sizeof(args) - 1)
			break;
	}
	if (argc > 1)
		info_put(info, "argv", args);
}

/* The process's command line from /proc, as env_args() takes it. */
static void env_command(struct libmsg_info *info)
{
	char buf[MPI_MAX_INFO_VAL], *argv[MPI_MAX_INFO_VAL / 2];
	size_t n, off;
	int argc = 0;
	FILE *f = fopen("/proc/self/cmdline", "r");

	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (off = 0; off < n; off += strlen(buf + off) + 1)
		argv[argc++] = buf + off;
	env_args(info, argc, argv);
}

/*
 * The processes of MPI_COMM_WORLD: the job's size once joined, before
 * that what mpiexec says (MPICHAN_SIZE), else 1 (a singleton).
 */
static unsigned long env_maxprocs(void)
{
	const char *v = getenv("MPICHAN_SIZE");
	char *end;
	unsigned long n;

	if (lm.initialized)
		return (unsigned long)lm.job.nranks;
	if (!v)
		return 1;
	n = strtoul(v, &end, 10);
	return *v && !*end && n ? n : 1;
}

/*
 * What MPI_INFO_ENV and MPI_Info_create_env describe (MPI-4.0 11.4):
 * "command" and "argv" (from argv, or /proc without one), "maxprocs"
 * (the processes of MPI_COMM_WORLD), "host" and "arch" (uname's node
 * and machine), "wdir" (the working directory) and, once MPI is
 * initialized, "thread_level" (the level asked for: libmsg gives every
 * level asked).  "soft" and "file" are not set: mpiexec takes neither
 * (a job has exactly -n processes and no file of further information).
 * An object filled before MPI_Init is filled again at its next use.
 */
static void env_fill(struct libmsg_info *info, int argc, char *const argv[])
{
	char buf[MPI_MAX_INFO_VAL];
	struct utsname u;

	if (argc < 1 || !argv)
		env_command(info);
	else
		env_args(info, argc, argv);
	snprintf(buf, sizeof(buf), "%lu", env_maxprocs());
	info_put(info, "maxprocs", buf);
	if (!uname(&u)) {
		info_put(info, "host", u.nodename);
		info_put(info, "arch", u.machine);
	}
	if (getcwd(buf, sizeof(buf)))
		info_put(info, "wdir", buf);
	if (lm.initialized)
		info_put(info, "thread_level",
			 lm_thread_level_name(lm.thread_level));
	info->filled = (uint8_t)lm.initialized;
}

int lm_info_lookup(MPI_Info info, const char *key, char *buf, size_t len)
{
	int i;

	if (!info || info->magic != LM_MAGIC_INFO || !len)
		return 0;
	i = info_find(info, key);
	if (i < 0)
		return 0;
	snprintf(buf, len, "%s", info->e[i].value);
	return 1;
}

MPI_Info lm_info_make(const char *key, const char *value)
{
	struct libmsg_info *info = info_alloc();

	if (info && key && info_put(info, key, value)) {
		info->magic = 0;
		free(info);
		return NULL;
	}
	return info;
}

/* info is a live info object (MPI_INFO_NULL is not), or an error. */
static int check_info(MPI_Info info, const char *fn)
{
	if (!info)
		return lm_error(NULL, fn, MPI_ERR_INFO, "info is MPI_INFO_NULL");
	if (info->magic != LM_MAGIC_INFO)
		return lm_error(NULL, fn, MPI_ERR_INFO, "invalid info object");
	if (info->predefined && !info->filled) {
		info_clear(info);
		env_fill(info, -1, NULL);
	}
	return MPI_SUCCESS;
}

/* An info argument of another call: MPI_INFO_NULL or a live object. */
int lm_info_ok(MPI_Info info)
{
	return !info || info->magic == LM_MAGIC_INFO;
}

int lm_check_info_arg(struct libmsg_comm *comm, MPI_Info info, const char *fn)
{
	if (!lm_info_ok(info))
		return lm_error(comm, fn, MPI_ERR_INFO, "invalid info object");
	return MPI_SUCCESS;
}

static int check_key(const char *key, const char *fn)
{
	size_t len;

	if (!key)
		return lm_error(NULL, fn, MPI_ERR_INFO_KEY, "key is NULL");
	len = strnlen(key, MPI_MAX_INFO_KEY);
	if (!len)
		return lm_error(NULL, fn, MPI_ERR_INFO_KEY, "key is empty");
	if (len >= MPI_MAX_INFO_KEY)
		return lm_error(NULL, fn, MPI_ERR_INFO_KEY,
				"key longer than %d characters",
				MPI_MAX_INFO_KEY - 1);
	return MPI_SUCCESS;
}

static int check_changeable(MPI_Info info, const char *fn)
{
	if (info->predefined)
		return lm_error(NULL, fn, MPI_ERR_INFO,
				"MPI_INFO_ENV cannot be changed");
	return MPI_SUCCESS;
}

int MPI_Info_create(MPI_Info *info)
{
	LM_GUARD();
	if (!info)
		return lm_error(NULL, "MPI_Info_create", MPI_ERR_ARG,
				"info is NULL");
	*info = info_alloc();
	if (!*info)
		return lm_error(NULL, "MPI_Info_create", MPI_ERR_NO_MEM,
				"out of memory");
	return MPI_SUCCESS;
}

/* MPI-4.0: MPI_INFO_ENV's keys, for the arguments given. */
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
	LM_GUARD();
	static const char fn[] = "MPI_Info_create_env";

	if (!info)
		return lm_error(NULL, fn, MPI_ERR_ARG, "info is NULL");
	if (argc < 0 || (argc > 0 && !argv))
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"argc %d with argv %s", argc,
				argv ? "given" : "NULL");
	*info = info_alloc();
	if (!*info)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
	/* 0 and NULL: the command line the process has (/proc). */
	env_fill(*info, argc, argv);
	(*info)->filled = 0;
	return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char *key, const char *value)
{
	LM_GUARD();
	static const char fn[] = "MPI_Info_set";
	int err = check_info(info, fn);

	if (!err)
		err = check_changeable(info, fn);
	if (!err)
		err = check_key(key, fn);
	if (err)
		return err;
	if (!value)
		return lm_error(NULL, fn, MPI_ERR_INFO_VALUE, "value is NULL");
	if (strnlen(value, MPI_MAX_INFO_VAL) >= MPI_MAX_INFO_VAL)
		return lm_error(NULL, fn, MPI_ERR_INFO_VALUE,
				"value of %s longer than %d characters", key,
				MPI_MAX_INFO_VAL - 1);
	if (info_put(info, key, value))
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
	return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char *key)
{
	LM_GUARD();
	static const char fn[] = "MPI_Info_delete";
	int err = check_info(info, fn), i;

	if (!err)
		err = check_changeable(info, fn);
	if (!err)
		err = check_key(key, fn);
	if (err)
		return err;
	i = info_find(info, key);
	if (i < 0)
		return lm_error(NULL, fn, MPI_ERR_INFO_NOKEY,
				"no key \"%s\" in the info object", key);
	free(info->e[i].key);
	free(info->e[i].value);
	memmove(&info->e[i], &info->e[i + 1],
		(size_t)(info->n - i - 1) * sizeof(info->e[0]));
	info->n--;
	return MPI_SUCCESS;
}

/* At most `most` characters of v and a NUL into out. */
static void value_copy(const char *v, char *out, size_t most)
{
	size_t n = strlen(v);

	if (n > most)
		n = most;
	memcpy(out, v, n);
	out[n] = 0;
}

/* MPI-3.1: value receives at most valuelen characters and a NUL. */
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
		 int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPI_Info_get";
	int err = check_info(info, fn), i;

	if (!err)
		err = check_key(key, fn);
	if (err)
		return err;
	if (valuelen < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG, "valuelen %d is negative",
				valuelen);
	if (!value || !flag)
		return lm_error(NULL, fn, MPI_ERR_ARG, "value or flag is NULL");
	i = info_find(info, key);
	*flag = i >= 0;
	if (i >= 0)
		value_copy(info->e[i].value, value, (size_t)valuelen);
	return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
			  int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPI_Info_get_valuelen";
	int err = check_info(info, fn), i;

	if (!err)
		err = check_key(key, fn);
	if (err)
		return err;
	if (!valuelen || !flag)
		return lm_error(NULL, fn, MPI_ERR_ARG, "valuelen or flag is NULL");
	i = info_find(info, key);
	*flag = i >= 0;
	if (i >= 0)
		*valuelen = (int)strlen(info->e[i].value);
	return MPI_SUCCESS;
}

/*
 * MPI-4.0's replacement of MPI_Info_get: *buflen in is the room in
 * value (NUL included), out the room the whole value needs; the value
 * is cut to fit, NUL-terminated; with *buflen 0, value may be NULL.
 */
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen,
			char *value, int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPI_Info_get_string";
	int err = check_info(info, fn), i;

	if (!err)
		err = check_key(key, fn);
	if (err)
		return err;
	if (!buflen || !flag)
		return lm_error(NULL, fn, MPI_ERR_ARG, "buflen or flag is NULL");
	if (*buflen < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG, "*buflen %d is negative",
				*buflen);
	if (*buflen && !value)
		return lm_error(NULL, fn, MPI_ERR_ARG, "value is NULL");
	i = info_find(info, key);
	*flag = i >= 0;
	if (i < 0)
		return MPI_SUCCESS;
	if (*buflen)
		value_copy(info->e[i].value, value, (size_t)*buflen - 1);
	*buflen = (int)strlen(info->e[i].value) + 1;
	return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
	LM_GUARD();
	int err = check_info(info, "MPI_Info_get_nkeys");

	if (err)
		return err;
	if (!nkeys)
		return lm_error(NULL, "MPI_Info_get_nkeys", MPI_ERR_ARG,
				"nkeys is NULL");
	*nkeys = info->n;
	return MPI_SUCCESS;
}

/* key must hold MPI_MAX_INFO_KEY characters (with the NUL). */
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
	LM_GUARD();
	static const char fn[] = "MPI_Info_get_nthkey";
	int err = check_info(info, fn);

	if (err)
		return err;
	if (n < 0 || n >= info->n)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"key number %d not in 0..%d", n, info->n - 1);
	if (!key)
		return lm_error(NULL, fn, MPI_ERR_ARG, "key is NULL");
	strcpy(key, info->e[n].key);
	return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
	LM_GUARD();
	static const char fn[] = "MPI_Info_dup";
	struct libmsg_info *dup;
	int err = check_info(info, fn), i;

	if (err)
		return err;
	if (!newinfo)
		return lm_error(NULL, fn, MPI_ERR_ARG, "newinfo is NULL");
	dup = info_alloc();
	if (!dup)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < info->n; i++) {
		if (info_put(dup, info->e[i].key, info->e[i].value)) {
			info_clear(dup);
			free(dup);
			return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
		}
	}
	*newinfo = dup;
	return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info *info)
{
	LM_GUARD();
	static const char fn[] = "MPI_Info_free";
	int err;

	if (!info)
		return lm_error(NULL, fn, MPI_ERR_ARG, "info is NULL");
	err = check_info(*info, fn);
	if (err)
		return err;
	if ((*info)->predefined)
		return lm_error(NULL, fn, MPI_ERR_INFO,
				"MPI_INFO_ENV cannot be freed");
	info_clear(*info);
	(*info)->magic = 0;
	free(*info);
	*info = MPI_INFO_NULL;
	return MPI_SUCCESS;
}
