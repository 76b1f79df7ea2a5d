/* SPDX-License-Identifier: MIT */
/*
 * The tool information interface's shared state (src/tool/): the
 * tables of variables, enumerations and categories, made once at the
 * first MPI_T_init_thread and never changed, and the lock every MPI_T
 * call holds (t_lock; the library lock, when a call reads or writes
 * library state, is taken inside it).
 */
#ifndef LM_TOOL_H
#define LM_TOOL_H

#include <pthread.h>

#include "runtime/runtime.h"

#define T_MAGIC_CVARH	0x54435648U	/* "TCVH" */
#define T_MAGIC_PVARH	0x54505648U	/* "TPVH" */
#define T_MAGIC_SESS	0x54534553U	/* "TSES" */

extern pthread_mutex_t t_lock;
extern int t_inits;		/* MPI_T_init_thread calls not finalized */

/* Every MPI_T call but init: under t_lock, once initialized. */
#define T_ENTER() do {							\
	pthread_mutex_lock(&t_lock);					\
	if (t_inits <= 0) {						\
		pthread_mutex_unlock(&t_lock);				\
		return MPI_T_ERR_NOT_INITIALIZED;			\
	}								\
} while (0)
#define T_RETURN(x) do {						\
	int _r = (x);							\
	pthread_mutex_unlock(&t_lock);					\
	return _r;							\
} while (0)

/* A string out as MPI_T gives them: cut to *len with its NUL; the length. */
void t_str_out(char *buf, int *len, const char *s);

/* ---- Enumerations (cvar.c) ------------------------------------------------ */

#define T_MAX_ITEMS	9

struct libmsg_t_enum {
	const char *name;
	int n;
	const char *items[T_MAX_ITEMS];
	int values[T_MAX_ITEMS];
	char namebuf[40];
};

enum { E_WAIT, E_MODE, E_COPY, E_COLL0, T_NENUMS = E_COLL0 + LM_NCOLL };
extern struct libmsg_t_enum t_enums[T_NENUMS];

/* ---- Categories (mpit.c) -------------------------------------------------- */

enum { C_ROOT, C_TRANSPORT, C_P2P, C_WAIT, C_COLL, C_MODULE, T_NCATS };

/* ---- Control variables (cvar.c) ------------------------------------------- */

struct cvar {
	const char *name, *desc;
	MPI_Datatype type;
	int enumtype;		/* t_enums[] index, or -1 */
	int verbosity, scope, cat, count;
	int (*get)(const struct cvar *v, void *buf);
	int (*set)(const struct cvar *v, const void *buf);	/* NULL: fixed */
	int arg;
	char namebuf[40], descbuf[200];
};

extern struct cvar t_cvars[];
extern int t_ncvars;

/* Makes the enumerations and the control variables. */
void t_cvars_build(void);
/* Frees every control variable handle (the last MPI_T_finalize). */
void t_cvar_handles_free(void);

/* ---- Performance variables (pvar.c) --------------------------------------- */

struct pvar {
	const char *name, *desc;
	int cls, cat, verbosity;
	int readonly, continuous, atomic;
	int (*get)(const struct pvar *p, uint64_t *v);
	const uint64_t *ctr;
	int arg1, arg2;
	char namebuf[64], descbuf[160];
};

extern struct pvar t_pvars[];
extern int t_npvars;

void t_pvars_build(void);
/* Frees every session and its handles (the last MPI_T_finalize). */
void t_sessions_free(void);

#endif
