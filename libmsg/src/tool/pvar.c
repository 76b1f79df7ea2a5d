// SPDX-License-Identifier: MIT
/*
 * MPI_T performance variables, sessions and their handles.
 *
 * The library's counters (base.h, struct lm_stats): messages and bytes
 * by path, unexpected messages, sleeps and wakes, collective calls by
 * algorithm; the module's own counters of this rank (pin cache, WAITs
 * and WAKEs, bytes moved) and of the module (window cache), read from
 * debugfs (/sys/kernel/debug/mpichan) where this process can read it,
 * else MPI_T_pvar_handle_alloc says MPI_T_ERR_NOT_ACCESSIBLE.  Counters
 * count from their handle's start (MPI_T_pvar_start), and can be
 * stopped, reset and written; levels and the high-water mark are read
 * as they are, continuously.
 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool/tool.h"

#define T_DEBUGFS	"/sys/kernel/debug/mpichan"

struct libmsg_t_pvar_handle {
	uint32_t magic;
	struct libmsg_t_pvar_session *s;
	const struct pvar *p;
	int started;
	uint64_t base;		/* the variable's value at start or reset */
	uint64_t accum;		/* counted before the last stop */
	struct libmsg_t_pvar_handle *next;
};

struct libmsg_t_pvar_session {
	uint32_t magic;
	struct libmsg_t_pvar_handle *handles;
	struct libmsg_t_pvar_session *next;
};

static struct libmsg_t_pvar_session *sessions;

/* ---- The variables --------------------------------------------------- */

static int get_ctr(const struct pvar *p, uint64_t *v)
{
	*v = __atomic_load_n(p->ctr, __ATOMIC_RELAXED);
	return MPI_SUCCESS;
}

static int get_rndv_sent(const struct pvar *p, uint64_t *v)
{
	(void)p;
	*v = lm.stats.offer_module + lm.stats.offer_vm;
	return MPI_SUCCESS;
}

static int get_coll_calls(const struct pvar *p, uint64_t *v)
{
	*v = lm_coll_calls(p->arg1, p->arg2);
	return MPI_SUCCESS;
}

/*
 * The module's counters: the state of this rank's job, or the module's
 * stats.  The job is MPICHAN_JOB_ID's, or (a singleton) the one whose
 * rank line has this pid.
 */
static int job_state_path(char *path, size_t n)
{
	const char *id = getenv("MPICHAN_JOB_ID");
	struct dirent *e;
	char line[256];
	DIR *d;
	FILE *f;
	int found = 0, pid;

	if (!lm_live() || lm.job.t != &lm_transport_mpichan)
		return -1;
	if (id) {
		snprintf(path, n, T_DEBUGFS "/job-%s/state", id);
		return access(path, R_OK);
	}
	d = opendir(T_DEBUGFS);
	if (!d)
		return -1;
	while (!found && (e = readdir(d))) {
		if (strncmp(e->d_name, "job-", 4) || strlen(e->d_name) > 64)
			continue;
		snprintf(path, n, T_DEBUGFS "/%.64s/state", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%*d %d", &pid) == 1 && pid == lm.pid)
				found = 1;
		fclose(f);
	}
	closedir(d);
	return found ? 0 : -1;
}

/* Field col of the line of job state whose first words are key and this rank. */
static int job_field(const char *key, int col, uint64_t *v)
{
	char path[256], line[512], word[32];
	unsigned long long x[16];
	FILE *f;
	int n, rank, ok = 0;

	if (job_state_path(path, sizeof(path)) || !(f = fopen(path, "r")))
		return MPI_T_ERR_NOT_ACCESSIBLE;
	while (!ok && fgets(line, sizeof(line), f)) {
		if (key) {
			n = sscanf(line, "%31s %d %llu %llu %llu %llu %llu %llu",
				   word, &rank, &x[0], &x[1], &x[2], &x[3],
				   &x[4], &x[5]);
			ok = n >= col + 3 && !strcmp(word, key) &&
				rank == (int)lm.job.rank;
		} else {
			/* rank pid state sleeping wakes waits sends recvs pinned moved */
			n = sscanf(line, "%d %llu %31s %31s %llu %llu %llu %llu %llu %llu",
				   &rank, &x[0], word, word, &x[0], &x[1],
				   &x[2], &x[3], &x[4], &x[5]);
			ok = n == 10 && rank == (int)lm.job.rank;
		}
	}
	fclose(f);
	if (!ok)
		return MPI_T_ERR_NOT_ACCESSIBLE;
	*v = x[col];
	return MPI_SUCCESS;
}

/* The rank's line: wakes 0, waits 1, sends 2, recvs 3, pinned 4, moved 5. */
static int get_module_rank(const struct pvar *p, uint64_t *v)
{
	return job_field(NULL, p->arg1, v);
}

/*
 * Its pin cache's line: entries 0, pages 1, hits 2, misses 3; a rank
 * that never pinned a send has none (nothing counted yet).
 */
static int get_module_cache(const struct pvar *p, uint64_t *v)
{
	uint64_t dummy;

	if (job_field(NULL, 0, &dummy))
		return MPI_T_ERR_NOT_ACCESSIBLE;
	if (job_field("cache", p->arg1, v))
		*v = 0;
	return MPI_SUCCESS;
}

/* A line "name: value" of the module's stats. */
static const char *const module_stats[] = { "window_maps", "window_hits" };

static int get_module_stat(const struct pvar *p, uint64_t *v)
{
	char line[128], key[64];
	unsigned long long x;
	FILE *f;
	int ok = 0;

	if (!lm_live() || lm.job.t != &lm_transport_mpichan ||
	    !(f = fopen(T_DEBUGFS "/stats", "r")))
		return MPI_T_ERR_NOT_ACCESSIBLE;
	while (!ok && fgets(line, sizeof(line), f))
		ok = sscanf(line, "%63[^:]: %llu", key, &x) == 2 &&
			!strcmp(key, module_stats[p->arg1]);
	fclose(f);
	if (!ok)
		return MPI_T_ERR_NOT_ACCESSIBLE;
	*v = x;
	return MPI_SUCCESS;
}

#define CTR(nm, field, cat, desc) \
	{ nm, desc, MPI_T_PVAR_CLASS_COUNTER, cat, MPI_T_VERBOSITY_USER_BASIC, \
	  0, 0, 1, get_ctr, &lm.stats.field, 0, 0, "", "" }
#define MOD(nm, fn, arg, desc) \
	{ nm, desc, MPI_T_PVAR_CLASS_COUNTER, C_MODULE, \
	  MPI_T_VERBOSITY_TUNER_DETAIL, 0, 0, 1, fn, NULL, arg, 0, "", "" }

static const struct pvar pvar_fixed[] = {
	CTR("mpichan_eager_sent", eager_sent, C_TRANSPORT,
	    "Messages put into a ring whole (eager), collectives' too"),
	CTR("mpichan_eager_sent_bytes", eager_sent_bytes, C_TRANSPORT,
	    "Bytes of those messages"),
	{ "mpichan_rndv_sent", "Rendezvous offers made (large messages), "
	  "by either way below", MPI_T_PVAR_CLASS_COUNTER, C_TRANSPORT,
	  MPI_T_VERBOSITY_USER_BASIC, 0, 0, 1, get_rndv_sent, NULL, 0, 0, "", "" },
	CTR("mpichan_rndv_sent_bytes", rndv_sent_bytes, C_TRANSPORT,
	    "Bytes of those offers"),
	CTR("mpichan_rndv_sent_module", offer_module, C_TRANSPORT,
	    "Offers queued in the module as a pinned send (/dev/mpichan)"),
	CTR("mpichan_rndv_sent_address", offer_vm, C_TRANSPORT,
	    "Offers of a plain address the receiver copies with process_vm_readv"),
	CTR("mpichan_eager_recv", eager_recv, C_TRANSPORT,
	    "Eager messages taken from the rings"),
	CTR("mpichan_eager_recv_bytes", eager_recv_bytes, C_TRANSPORT,
	    "Bytes of those messages"),
	CTR("mpichan_rndv_recv", rndv_recv, C_TRANSPORT,
	    "Rendezvous offers taken from the rings"),
	CTR("mpichan_rndv_recv_bytes", rndv_recv_bytes, C_TRANSPORT,
	    "Bytes of those offers"),
	CTR("mpichan_copy_module", take_module, C_TRANSPORT,
	    "Rendezvous copies the module made (MPICHAN_IOC_RECV)"),
	CTR("mpichan_copy_module_bytes", take_module_bytes, C_TRANSPORT,
	    "Bytes the module copied (with the partial pages of mapped ones)"),
	CTR("mpichan_copy_mapped", take_mapped, C_TRANSPORT,
	    "Rendezvous copies through the receive window (the mapped copy)"),
	CTR("mpichan_copy_mapped_bytes", take_mapped_bytes, C_TRANSPORT,
	    "Bytes copied out of the receive window"),
	{ "mpichan_copy_chose_kernel", "Over the device: size classes (bit c: "
	  "2^c to 2^(c+1)-1 bytes) whose measured choice is the kernel copy "
	  "(MPICHAN_COPY=auto)", MPI_T_PVAR_CLASS_LEVEL, C_TRANSPORT,
	  MPI_T_VERBOSITY_TUNER_BASIC, 1, 1, 0, get_ctr,
	  &lm_copy.chose[LM_COPY_KERNEL], 0, 0, "", "" },
	{ "mpichan_copy_chose_mapped", "Over the device: size classes (bit c) "
	  "whose measured choice is the mapped copy (MPICHAN_COPY=auto)",
	  MPI_T_PVAR_CLASS_LEVEL, C_TRANSPORT, MPI_T_VERBOSITY_TUNER_BASIC,
	  1, 1, 0, get_ctr, &lm_copy.chose[LM_COPY_MAPPED], 0, 0, "", "" },
	CTR("mpichan_copy_readv", take_vm, C_TRANSPORT,
	    "Rendezvous copies with process_vm_readv (the fallback, or refused sends)"),
	CTR("mpichan_copy_readv_bytes", take_vm_bytes, C_TRANSPORT,
	    "Bytes copied with process_vm_readv"),
	CTR("mpichan_unexpected", unexpected, C_P2P,
	    "Messages that came before a receive matched them"),
	{ "mpichan_unexpected_queue", "Unexpected messages held now, in every "
	  "context", MPI_T_PVAR_CLASS_LEVEL, C_P2P, MPI_T_VERBOSITY_USER_BASIC,
	  1, 1, 0, get_ctr, &lm.stats.unexpected_now, 0, 0, "", "" },
	{ "mpichan_unexpected_queue_max", "The most unexpected messages held at "
	  "once since the process started", MPI_T_PVAR_CLASS_HIGHWATERMARK,
	  C_P2P, MPI_T_VERBOSITY_USER_BASIC, 1, 1, 0, get_ctr,
	  &lm.stats.unexpected_max, 0, 0, "", "" },
	CTR("mpichan_pulled", pulled, C_P2P,
	    "Unmatched rendezvous messages copied in so that their senders go on"),
	CTR("mpichan_pulled_bytes", pulled_bytes, C_P2P, "Bytes of those"),
	{ "mpichan_pulled_now", "Bytes of pulled messages held now",
	  MPI_T_PVAR_CLASS_LEVEL, C_P2P, MPI_T_VERBOSITY_USER_DETAIL, 1, 1, 0,
	  get_ctr, &lm.pulled, 0, 0, "", "" },
	CTR("mpichan_scratch_mapped", scratch_mapped, C_ROOT,
	    "Temporaries of 64 KiB and more mapped fresh from the kernel"),
	CTR("mpichan_scratch_reused", scratch_reused, C_ROOT,
	    "Temporaries of 64 KiB and more served by a block kept from an "
	    "earlier use (MPICHAN_SCRATCH_KEEP)"),
	CTR("mpichan_ulfm_agreements", ulfm_agreements, C_ROOT,
	    "Fault-tolerance agreements decided (MPIX_Comm_agree, iagree, and "
	    "the two of every shrink's round)"),
	CTR("mpichan_ulfm_shrink_retries", ulfm_shrink_retries, C_ROOT,
	    "Shrink rounds begun again because a survivor died during one"),
	CTR("mpichan_sleeps", sleeps, C_WAIT,
	    "Times a blocked call went to sleep in the transport"),
	CTR("mpichan_wakes", wakes, C_WAIT,
	    "Wake-ups this rank sent to a sleeping rank"),
	MOD("mpichan_module_pin_cache_hits", get_module_cache, 2,
	    "Sends of this rank that found their pages in the module's pin cache"),
	MOD("mpichan_module_pin_cache_misses", get_module_cache, 3,
	    "Sends of this rank that pinned their pages"),
	MOD("mpichan_module_wakes", get_module_rank, 0,
	    "WAKEs this rank received (the module's count)"),
	MOD("mpichan_module_waits", get_module_rank, 1,
	    "WAITs of this rank that slept (the module's count)"),
	MOD("mpichan_module_moved_bytes", get_module_rank, 5,
	    "Bytes this rank's transfers moved in the module"),
	MOD("mpichan_module_window_maps", get_module_stat, 0,
	    "Module-wide (all jobs): window_maps: mapped receives that mapped pages"),
	MOD("mpichan_module_window_hits", get_module_stat, 1,
	    "Module-wide (all jobs): window_hits: mapped receives that found them "
	    "left mapped (the window cache)"),
};
#define NPVAR_FIXED ((int)(sizeof(pvar_fixed) / sizeof(pvar_fixed[0])))
#define NPVAR_COLL (LM_NCOLL * 8)
struct pvar t_pvars[NPVAR_FIXED + NPVAR_COLL];
int t_npvars;

/* ---- The table, made at the first MPI_T_init_thread ------------------ */

void t_pvars_build(void)
{
	int c, a, i;

	for (i = 0; i < NPVAR_FIXED; i++)
		t_pvars[i] = pvar_fixed[i];
	t_npvars = NPVAR_FIXED;
	for (c = 0; c < LM_NCOLL; c++)
		for (a = 0; a < lm_coll_nalgos(c); a++) {
			struct pvar *p = &t_pvars[t_npvars++];

			*p = (struct pvar){ .cls = MPI_T_PVAR_CLASS_COUNTER,
				.cat = C_COLL,
				.verbosity = MPI_T_VERBOSITY_TUNER_BASIC,
				.atomic = 1, .get = get_coll_calls, .arg1 = c,
				.arg2 = a };
			snprintf(p->namebuf, sizeof(p->namebuf),
				 "mpichan_coll_%s_%s", lm_coll_name(c),
				 lm_coll_algo_name(c, a));
			snprintf(p->descbuf, sizeof(p->descbuf),
				 "%s calls that ran the %s algorithm",
				 lm_coll_name(c), lm_coll_algo_name(c, a));
			p->name = p->namebuf;
			p->desc = p->descbuf;
		}
}

static void session_free(struct libmsg_t_pvar_session *s)
{
	while (s->handles) {
		struct libmsg_t_pvar_handle *h = s->handles;

		s->handles = h->next;
		h->magic = 0;
		free(h);
	}
	s->magic = 0;
	free(s);
}

void t_sessions_free(void)
{
	while (sessions) {
		struct libmsg_t_pvar_session *s = sessions;

		sessions = s->next;
		session_free(s);
	}
}

/* ---- Performance variables ------------------------------------------- */

int MPI_T_pvar_get_num(int *num_pvar)
{
	T_ENTER();
	if (!num_pvar)
		T_RETURN(MPI_T_ERR_INVALID);
	*num_pvar = t_npvars;
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len,
			int *verbosity, int *var_class, MPI_Datatype *datatype,
			MPI_T_enum *enumtype, char *desc, int *desc_len,
			int *bind, int *readonly, int *continuous,
			int *atomic)
{
	const struct pvar *p;

	T_ENTER();
	if (pvar_index < 0 || pvar_index >= t_npvars)
		T_RETURN(MPI_T_ERR_INVALID_INDEX);
	p = &t_pvars[pvar_index];
	t_str_out(name, name_len, p->name);
	t_str_out(desc, desc_len, p->desc);
	if (verbosity)
		*verbosity = p->verbosity;
	if (var_class)
		*var_class = p->cls;
	if (datatype)
		*datatype = MPI_UNSIGNED_LONG_LONG;
	if (enumtype)
		*enumtype = MPI_T_ENUM_NULL;
	if (bind)
		*bind = MPI_T_BIND_NO_OBJECT;
	if (readonly)
		*readonly = p->readonly;
	if (continuous)
		*continuous = p->continuous;
	if (atomic)
		*atomic = p->atomic;
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
	int i;

	T_ENTER();
	if (!name || !pvar_index)
		T_RETURN(MPI_T_ERR_INVALID);
	for (i = 0; i < t_npvars; i++)
		if (t_pvars[i].cls == var_class && !strcmp(t_pvars[i].name, name)) {
			*pvar_index = i;
			T_RETURN(MPI_SUCCESS);
		}
	T_RETURN(MPI_T_ERR_INVALID_NAME);
}

static int session_ok(MPI_T_pvar_session s)
{
	struct libmsg_t_pvar_session *x;

	for (x = sessions; x; x = x->next)
		if (x == s && x->magic == T_MAGIC_SESS)
			return 1;
	return 0;
}

int MPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
	struct libmsg_t_pvar_session *s;

	T_ENTER();
	if (!session)
		T_RETURN(MPI_T_ERR_INVALID);
	s = calloc(1, sizeof(*s));
	if (!s)
		T_RETURN(MPI_T_ERR_OUT_OF_SESSIONS);
	s->magic = T_MAGIC_SESS;
	s->next = sessions;
	sessions = s;
	*session = s;
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
	struct libmsg_t_pvar_session **p, *s;

	T_ENTER();
	if (!session || !session_ok(*session))
		T_RETURN(MPI_T_ERR_INVALID_SESSION);
	s = *session;
	for (p = &sessions; *p != s; p = &(*p)->next)
		;
	*p = s->next;
	session_free(s);
	*session = MPI_T_PVAR_SESSION_NULL;
	T_RETURN(MPI_SUCCESS);
}

/* The variable's value now, under the library lock. */
static int pvar_now(const struct pvar *p, uint64_t *v)
{
	LM_GUARD();

	return p->get(p, v);
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
			    void *obj_handle, MPI_T_pvar_handle *handle,
			    int *count)
{
	struct libmsg_t_pvar_handle *h;
	const struct pvar *p;
	uint64_t now;
	int err;

	(void)obj_handle;
	T_ENTER();
	if (!session_ok(session))
		T_RETURN(MPI_T_ERR_INVALID_SESSION);
	if (pvar_index < 0 || pvar_index >= t_npvars)
		T_RETURN(MPI_T_ERR_INVALID_INDEX);
	if (!handle || !count)
		T_RETURN(MPI_T_ERR_INVALID);
	p = &t_pvars[pvar_index];
	/* The module's counters: only where debugfs can be read. */
	err = pvar_now(p, &now);
	if (err)
		T_RETURN(err);
	h = calloc(1, sizeof(*h));
	if (!h)
		T_RETURN(MPI_T_ERR_OUT_OF_HANDLES);
	h->magic = T_MAGIC_PVARH;
	h->s = session;
	h->p = p;
	h->started = p->continuous;
	h->base = now;
	h->next = session->handles;
	session->handles = h;
	*handle = h;
	*count = 1;
	T_RETURN(MPI_SUCCESS);
}

static int handle_ok(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
	struct libmsg_t_pvar_handle *x;

	if (!session_ok(s))
		return MPI_T_ERR_INVALID_SESSION;
	for (x = s->handles; x; x = x->next)
		if (x == h && x->magic == T_MAGIC_PVARH)
			return MPI_SUCCESS;
	return MPI_T_ERR_INVALID_HANDLE;
}

int MPI_T_pvar_handle_free(MPI_T_pvar_session session,
			   MPI_T_pvar_handle *handle)
{
	struct libmsg_t_pvar_handle **p;
	int err;

	T_ENTER();
	if (!handle)
		T_RETURN(MPI_T_ERR_INVALID_HANDLE);
	err = handle_ok(session, *handle);
	if (err)
		T_RETURN(err);
	for (p = &session->handles; *p != *handle; p = &(*p)->next)
		;
	*p = (*handle)->next;
	(*handle)->magic = 0;
	free(*handle);
	*handle = MPI_T_PVAR_HANDLE_NULL;
	T_RETURN(MPI_SUCCESS);
}

/*
 * A handle's value: a counter's, what it counted while started (from
 * its start or reset, plus before its stops); a level's or watermark's,
 * the variable's own.
 */
static uint64_t handle_value(const struct libmsg_t_pvar_handle *h,
			     uint64_t now)
{
	if (h->p->cls != MPI_T_PVAR_CLASS_COUNTER)
		return now;
	return h->accum + (h->started ? now - h->base : 0);
}

enum { OP_START, OP_STOP, OP_READ, OP_WRITE, OP_RESET, OP_READRESET };

static int pvar_op(struct libmsg_t_pvar_handle *h, int op, void *rbuf,
		   const void *wbuf)
{
	uint64_t now;
	int err;

	if ((op == OP_START || op == OP_STOP) && h->p->continuous)
		return MPI_T_ERR_PVAR_NO_STARTSTOP;
	if ((op == OP_WRITE || op == OP_RESET || op == OP_READRESET) &&
	    h->p->readonly)
		return MPI_T_ERR_PVAR_NO_WRITE;
	if (op == OP_READRESET && !h->p->atomic)
		return MPI_T_ERR_PVAR_NO_ATOMIC;
	err = pvar_now(h->p, &now);
	if (err)
		return err;
	switch (op) {
	case OP_START:
		if (!h->started) {
			h->base = now;
			h->started = 1;
		}
		break;
	case OP_STOP:
		if (h->started) {
			h->accum += now - h->base;
			h->started = 0;
		}
		break;
	case OP_READ:
		*(unsigned long long *)rbuf = handle_value(h, now);
		break;
	case OP_READRESET:
		*(unsigned long long *)rbuf = handle_value(h, now);
		/* fall through */
	case OP_RESET:
		h->accum = 0;
		h->base = now;
		break;
	case OP_WRITE:
		h->accum = *(const unsigned long long *)wbuf;
		h->base = now;
		break;
	}
	return MPI_SUCCESS;
}

/* op on one handle, or (start, stop, reset) on every one of the session. */
static int pvar_call(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
		     int op, void *rbuf, const void *wbuf)
{
	struct libmsg_t_pvar_handle *h;
	int err;

	T_ENTER();
	if (handle == MPI_T_PVAR_ALL_HANDLES &&
	    (op == OP_START || op == OP_STOP || op == OP_RESET)) {
		if (!session_ok(session))
			T_RETURN(MPI_T_ERR_INVALID_SESSION);
		for (h = session->handles; h; h = h->next) {
			/* Those it does not apply to are left as they are. */
			if ((op != OP_RESET && h->p->continuous) ||
			    (op == OP_RESET && h->p->readonly))
				continue;
			err = pvar_op(h, op, NULL, NULL);
			if (err)
				T_RETURN(err);
		}
		T_RETURN(MPI_SUCCESS);
	}
	err = handle_ok(session, handle);
	if (err)
		T_RETURN(err);
	if ((op == OP_READ || op == OP_READRESET) && !rbuf)
		T_RETURN(MPI_T_ERR_INVALID);
	if (op == OP_WRITE && !wbuf)
		T_RETURN(MPI_T_ERR_INVALID);
	T_RETURN(pvar_op(handle, op, rbuf, wbuf));
}

int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
	return pvar_call(session, handle, OP_START, NULL, NULL);
}

int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
	return pvar_call(session, handle, OP_STOP, NULL, NULL);
}

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
		    void *buf)
{
	return pvar_call(session, handle, OP_READ, buf, NULL);
}

int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
		     const void *buf)
{
	return pvar_call(session, handle, OP_WRITE, NULL, buf);
}

int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
	return pvar_call(session, handle, OP_RESET, NULL, NULL);
}

int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
			 void *buf)
{
	return pvar_call(session, handle, OP_READRESET, buf, NULL);
}

