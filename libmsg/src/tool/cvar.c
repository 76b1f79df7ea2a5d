// SPDX-License-Identifier: MIT
/*
 * MPI_T control variables: every MPICHAN_* setting libmsg reads
 * (runtime/init.c, coll/coll_select.c, the transports), named
 * mpichan_<setting> in lower case, and the enumerations of their
 * words.
 *
 * Those the library reads afresh at each use can be written while it
 * runs: the eager threshold, the wait mode, spin time, pull limit, span
 * and iov modes, the span limit, the copy mode, the wait report and
 * the temporaries kept (scope LOCAL), and
 * each collective's forced algorithm (scope ALL_EQ: every rank must
 * write the same value between the same two collectives).  The
 * transport, the ring and receive window sizes and MPI_APPNUM are fixed
 * once the job is joined (CONSTANT, READONLY).  Reading or writing one
 * before MPI_Init (or a session) joined the job, or after the job was
 * left, is MPI_T_ERR_NOT_ACCESSIBLE.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/tool.h"

struct libmsg_t_enum t_enums[T_NENUMS];

struct libmsg_t_cvar_handle {
	uint32_t magic;
	const struct cvar *v;
	struct libmsg_t_cvar_handle *next;
};

static struct libmsg_t_cvar_handle *cvar_handles;

/* ---- The variables --------------------------------------------------- */

static int get_eager(const struct cvar *v, void *buf)
{
	(void)v;
	*(unsigned long long *)buf = lm.eager;
	return MPI_SUCCESS;
}

static int set_eager(const struct cvar *v, const void *buf)
{
	uint64_t max = mcr_max_payload(&lm.job.ep) - sizeof(struct lm_rts);
	unsigned long long x = *(const unsigned long long *)buf;

	(void)v;
	lm.eager = (uint32_t)(x > max ? max : x);
	return MPI_SUCCESS;
}

static int get_int(const struct cvar *v, void *buf)
{
	*(int *)buf = v->arg == 0 ? lm.wait_mode : v->arg == 1 ? lm.span :
		v->arg == 2 ? lm.iov : lm.appnum;
	return MPI_SUCCESS;
}

static int set_mode(const struct cvar *v, const void *buf)
{
	int x = *(const int *)buf;

	if (x < 0 || x > 2)
		return MPI_T_ERR_INVALID;
	if (v->arg == 0)
		lm.wait_mode = x;
	else if (v->arg == 1)
		lm.span = x;
	else
		lm.iov = x;
	return MPI_SUCCESS;
}

static int get_u64(const struct cvar *v, void *buf)
{
	unsigned long long x = 0;

	switch (v->arg) {
	case 0: x = lm.spin_ns / 1000; break;
	case 1: x = lm.pull_max; break;
	case 2: x = lm.span_sparse; break;
	case 3: x = lm.job.window_bytes; break;
	case 4: x = lm.job.ep.off.ring_bytes; break;
	case 5: x = lm_scratch_keep; break;
	}
	*(unsigned long long *)buf = x;
	return MPI_SUCCESS;
}

static int set_u64(const struct cvar *v, const void *buf)
{
	unsigned long long x = *(const unsigned long long *)buf;

	switch (v->arg) {
	case 0:
		if (x > UINT64_MAX / 1000)
			return MPI_T_ERR_INVALID;
		lm.spin_ns = x * 1000;
		break;
	case 1:
		lm.pull_max = x;
		break;
	case 2:
		if (!x)
			return MPI_T_ERR_INVALID;
		lm.span_sparse = x;
		break;
	case 5:
		lm_scratch_set_keep(x);
		break;
	}
	return MPI_SUCCESS;
}

static int get_report(const struct cvar *v, void *buf)
{
	(void)v;
	*(double *)buf = (double)lm.report_ns * 1e-9;
	return MPI_SUCCESS;
}

static int set_report(const struct cvar *v, const void *buf)
{
	double x = *(const double *)buf;

	(void)v;
	if (!(x >= 0 && x <= 1e9))
		return MPI_T_ERR_INVALID;
	lm.report_ns = (uint64_t)(x * 1e9);
	return MPI_SUCCESS;
}

static int get_transport(const struct cvar *v, void *buf)
{
	snprintf(buf, (size_t)v->count, "%s", lm.job.t ? lm.job.t->name : "");
	return MPI_SUCCESS;
}

static int get_coll(const struct cvar *v, void *buf)
{
	*(int *)buf = lm_coll_forced(v->arg);
	return MPI_SUCCESS;
}

static int set_coll(const struct cvar *v, const void *buf)
{
	int x = *(const int *)buf;

	if (x < -1 || x >= lm_coll_nalgos(v->arg))
		return MPI_T_ERR_INVALID;
	lm_coll_force(v->arg, x);
	return MPI_SUCCESS;
}

/* MPICHAN_COPY: read at every rendezvous receive over the device. */
static int get_copy(const struct cvar *v, void *buf)
{
	(void)v;
	*(int *)buf = lm_copy.mode;
	return MPI_SUCCESS;
}

static int set_copy(const struct cvar *v, const void *buf)
{
	int x = *(const int *)buf;

	(void)v;
	if (x < LM_COPY_AUTO || x > LM_COPY_FORCE_MAPPED)
		return MPI_T_ERR_INVALID;
	lm_copy.mode = x;
	return MPI_SUCCESS;
}

#define NCVAR_FIXED 14
struct cvar t_cvars[NCVAR_FIXED + LM_NCOLL];
int t_ncvars;

static const struct cvar cvar_fixed[NCVAR_FIXED] = {
	{ "mpichan_eager", "MPICHAN_EAGER: the largest message sent eagerly "
	  "through the rings, in bytes (capped by the ring's largest payload)",
	  MPI_UNSIGNED_LONG_LONG, -1, MPI_T_VERBOSITY_TUNER_BASIC,
	  MPI_T_SCOPE_LOCAL, C_TRANSPORT, 1, get_eager, set_eager, 0, "", "" },
	{ "mpichan_wait", "MPICHAN_WAIT: how a blocked call waits: spin, "
	  "sleep, or hybrid (spin, then sleep)", MPI_INT, E_WAIT,
	  MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_LOCAL, C_WAIT, 1, get_int,
	  set_mode, 0, "", "" },
	{ "mpichan_spin_us", "MPICHAN_SPIN_US: hybrid waits spin this many "
	  "microseconds before they sleep", MPI_UNSIGNED_LONG_LONG, -1,
	  MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_LOCAL, C_WAIT, 1, get_u64,
	  set_u64, 0, "", "" },
	{ "mpichan_pull_max", "MPICHAN_PULL_MAX: bytes of unmatched rendezvous "
	  "data a blocked rank may copy so that their senders complete",
	  MPI_UNSIGNED_LONG_LONG, -1, MPI_T_VERBOSITY_TUNER_DETAIL,
	  MPI_T_SCOPE_LOCAL, C_P2P, 1, get_u64, set_u64, 1, "", "" },
	{ "mpichan_span", "MPICHAN_SPAN: offer large non-contiguous sends "
	  "where they lie: off, on, auto", MPI_INT, E_MODE,
	  MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_LOCAL, C_P2P, 1, get_int,
	  set_mode, 1, "", "" },
	{ "mpichan_span_sparse", "MPICHAN_SPAN_SPARSE: a span is offered in "
	  "place when it is at most this many times its data",
	  MPI_UNSIGNED_LONG_LONG, -1, MPI_T_VERBOSITY_TUNER_DETAIL,
	  MPI_T_SCOPE_LOCAL, C_P2P, 1, get_u64, set_u64, 2, "", "" },
	{ "mpichan_iov", "MPICHAN_IOV: large non-contiguous sends go as runs "
	  "the module gathers: off, on, auto", MPI_INT, E_MODE,
	  MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_LOCAL, C_P2P, 1, get_int,
	  set_mode, 2, "", "" },
	{ "mpichan_copy", "MPICHAN_COPY: over the device, a rendezvous is "
	  "copied by the module (kernel), out of the receive window (mapped), "
	  "or as measured per size (auto)", MPI_INT, E_COPY,
	  MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_LOCAL, C_TRANSPORT, 1,
	  get_copy, set_copy, 0, "", "" },
	{ "mpichan_scratch_keep", "MPICHAN_SCRATCH_KEEP: bytes of large "
	  "temporaries (packed messages, collectives) kept for the next use "
	  "(0: none)", MPI_UNSIGNED_LONG_LONG, -1,
	  MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_LOCAL, C_ROOT, 1, get_u64,
	  set_u64, 5, "", "" },
	{ "mpichan_wait_report", "MPICHAN_WAIT_REPORT: seconds without "
	  "progress after which a wait says what it waits for (0: never)",
	  MPI_DOUBLE, -1, MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_LOCAL,
	  C_WAIT, 1, get_report, set_report, 0, "", "" },
	{ "mpichan_transport", "MPICHAN_TRANSPORT: the transport in use, "
	  "mpichan (/dev/mpichan) or shm (the fallback)", MPI_CHAR, -1,
	  MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_CONSTANT, C_TRANSPORT, 16,
	  get_transport, NULL, 0, "", "" },
	{ "mpichan_window", "MPICHAN_WINDOW: bytes of the receive window the "
	  "module maps large messages into (0: none)", MPI_UNSIGNED_LONG_LONG,
	  -1, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_CONSTANT, C_TRANSPORT,
	  1, get_u64, NULL, 3, "", "" },
	{ "mpichan_ring_bytes", "MPICHAN_RING_BYTES: bytes of each ring "
	  "(mpiexec's choice, or the module's)", MPI_UNSIGNED_LONG_LONG, -1,
	  MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_CONSTANT, C_TRANSPORT, 1,
	  get_u64, NULL, 4, "", "" },
	{ "mpichan_appnum", "MPICHAN_APPNUM: which of mpiexec's programs this "
	  "is (MPI_APPNUM)", MPI_INT, -1, MPI_T_VERBOSITY_USER_DETAIL,
	  MPI_T_SCOPE_READONLY, C_ROOT, 1, get_int, NULL, 3, "", "" },
};

/* ---- The tables, made at the first MPI_T_init_thread ----------------- */

static void enum_set(struct libmsg_t_enum *e, const char *name, int n,
		     const char *const *items, const int *values)
{
	int i;

	e->name = name;
	e->n = n;
	for (i = 0; i < n; i++) {
		e->items[i] = items[i];
		e->values[i] = values[i];
	}
}

/* Collective c's: an enumeration of its algorithms, and the variable. */
static void coll_cvar(int c)
{
	struct libmsg_t_enum *e = &t_enums[E_COLL0 + c];
	struct cvar *v = &t_cvars[t_ncvars++];
	char upper[32];
	int a, i;

	snprintf(e->namebuf, sizeof(e->namebuf), "mpichan_coll_%s",
		 lm_coll_name(c));
	e->name = e->namebuf;
	e->items[0] = "auto";
	e->values[0] = -1;
	e->n = 1;
	for (a = 0; a < lm_coll_nalgos(c) && e->n < T_MAX_ITEMS; a++) {
		e->items[e->n] = lm_coll_algo_name(c, a);
		e->values[e->n++] = a;
	}
	for (i = 0; lm_coll_name(c)[i] && i < 31; i++)
		upper[i] = (char)(lm_coll_name(c)[i] & ~0x20);
	upper[i] = 0;
	*v = (struct cvar){ .type = MPI_INT, .enumtype = E_COLL0 + c,
		.verbosity = MPI_T_VERBOSITY_TUNER_BASIC,
		.scope = MPI_T_SCOPE_ALL_EQ, .cat = C_COLL, .count = 1,
		.get = get_coll, .set = set_coll, .arg = c };
	snprintf(v->namebuf, sizeof(v->namebuf), "mpichan_coll_%s",
		 lm_coll_name(c));
	snprintf(v->descbuf, sizeof(v->descbuf),
		 "MPICHAN_COLL_%s: the algorithm every %s runs (auto: the "
		 "rules pick); every rank must set the same", upper,
		 lm_coll_name(c));
	v->name = v->namebuf;
	v->desc = v->descbuf;
}

void t_cvars_build(void)
{
	static const char *const waits[] = { "hybrid", "spin", "sleep" };
	static const int wait_values[] = { LM_WAIT_HYBRID, LM_WAIT_SPIN,
					   LM_WAIT_SLEEP };
	static const char *const modes[] = { "off", "on", "auto" };
	static const int mode_values[] = { LM_SPAN_OFF, LM_SPAN_ON,
					   LM_SPAN_AUTO };
	static const char *const copies[] = { "auto", "kernel", "mapped" };
	static const int copy_values[] = { LM_COPY_AUTO, LM_COPY_FORCE_KERNEL,
					   LM_COPY_FORCE_MAPPED };
	int c, i;

	enum_set(&t_enums[E_COPY], "mpichan_copy_mode", 3, copies,
		 copy_values);
	enum_set(&t_enums[E_WAIT], "mpichan_wait_mode", 3, waits, wait_values);
	enum_set(&t_enums[E_MODE], "mpichan_span_mode", 3, modes, mode_values);
	for (i = 0; i < NCVAR_FIXED; i++)
		t_cvars[i] = cvar_fixed[i];
	t_ncvars = NCVAR_FIXED;
	for (c = 0; c < LM_NCOLL; c++)
		coll_cvar(c);
}

void t_cvar_handles_free(void)
{
	while (cvar_handles) {
		struct libmsg_t_cvar_handle *h = cvar_handles;

		cvar_handles = h->next;
		h->magic = 0;
		free(h);
	}
}

/* ---- Control variables ----------------------------------------------- */

int MPI_T_cvar_get_num(int *num_cvar)
{
	T_ENTER();
	if (!num_cvar)
		T_RETURN(MPI_T_ERR_INVALID);
	*num_cvar = t_ncvars;
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len,
			int *verbosity, MPI_Datatype *datatype,
			MPI_T_enum *enumtype, char *desc, int *desc_len,
			int *bind, int *scope)
{
	const struct cvar *v;

	T_ENTER();
	if (cvar_index < 0 || cvar_index >= t_ncvars)
		T_RETURN(MPI_T_ERR_INVALID_INDEX);
	v = &t_cvars[cvar_index];
	t_str_out(name, name_len, v->name);
	t_str_out(desc, desc_len, v->desc);
	if (verbosity)
		*verbosity = v->verbosity;
	if (datatype)
		*datatype = v->type;
	if (enumtype)
		*enumtype = v->enumtype < 0 ? MPI_T_ENUM_NULL : &t_enums[v->enumtype];
	if (bind)
		*bind = MPI_T_BIND_NO_OBJECT;
	if (scope)
		*scope = v->scope;
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_cvar_get_index(const char *name, int *cvar_index)
{
	int i;

	T_ENTER();
	if (!name || !cvar_index)
		T_RETURN(MPI_T_ERR_INVALID);
	for (i = 0; i < t_ncvars; i++)
		if (!strcmp(t_cvars[i].name, name)) {
			*cvar_index = i;
			T_RETURN(MPI_SUCCESS);
		}
	T_RETURN(MPI_T_ERR_INVALID_NAME);
}

int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle,
			    MPI_T_cvar_handle *handle, int *count)
{
	struct libmsg_t_cvar_handle *h;

	(void)obj_handle;	/* every variable is bound to no object */
	T_ENTER();
	if (cvar_index < 0 || cvar_index >= t_ncvars)
		T_RETURN(MPI_T_ERR_INVALID_INDEX);
	if (!handle || !count)
		T_RETURN(MPI_T_ERR_INVALID);
	h = calloc(1, sizeof(*h));
	if (!h)
		T_RETURN(MPI_T_ERR_MEMORY);
	h->magic = T_MAGIC_CVARH;
	h->v = &t_cvars[cvar_index];
	h->next = cvar_handles;
	cvar_handles = h;
	*handle = h;
	*count = h->v->count;
	T_RETURN(MPI_SUCCESS);
}

static int cvar_handle_ok(MPI_T_cvar_handle h)
{
	struct libmsg_t_cvar_handle *x;

	for (x = cvar_handles; x; x = x->next)
		if (x == h && x->magic == T_MAGIC_CVARH)
			return 1;
	return 0;
}

int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
	struct libmsg_t_cvar_handle **p;

	T_ENTER();
	if (!handle || !cvar_handle_ok(*handle))
		T_RETURN(MPI_T_ERR_INVALID_HANDLE);
	for (p = &cvar_handles; *p != *handle; p = &(*p)->next)
		;
	*p = (*handle)->next;
	(*handle)->magic = 0;
	free(*handle);
	*handle = MPI_T_CVAR_HANDLE_NULL;
	T_RETURN(MPI_SUCCESS);
}

/* Library state, read or written: under the library lock, while joined. */
static int cvar_access(MPI_T_cvar_handle handle, void *rbuf, const void *wbuf)
{
	LM_GUARD();
	const struct cvar *v = handle->v;

	if (!lm_live())
		return MPI_T_ERR_NOT_ACCESSIBLE;
	if (rbuf)
		return v->get(v, rbuf);
	if (!v->set)
		return MPI_T_ERR_CVAR_SET_NEVER;
	return v->set(v, wbuf);
}

int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
	T_ENTER();
	if (!cvar_handle_ok(handle))
		T_RETURN(MPI_T_ERR_INVALID_HANDLE);
	if (!buf)
		T_RETURN(MPI_T_ERR_INVALID);
	T_RETURN(cvar_access(handle, buf, NULL));
}

int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
	T_ENTER();
	if (!cvar_handle_ok(handle))
		T_RETURN(MPI_T_ERR_INVALID_HANDLE);
	if (!buf)
		T_RETURN(MPI_T_ERR_INVALID);
	T_RETURN(cvar_access(handle, NULL, buf));
}

