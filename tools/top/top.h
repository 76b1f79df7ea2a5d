/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpichan-top's picture of the machine: a look is every job seen at
 * one moment, a job its ranks.  look.c fills it (debugfs, or the
 * fallback's memfds), diagnose.c says why a job does not move, show.c
 * prints it, mpichan-top.c takes looks and compares them.
 */
#ifndef MPICHAN_TOP_H
#define MPICHAN_TOP_H

#include <stddef.h>

#define MAX_RANKS	4096
#define MAX_FINDINGS	8

enum { K_NONE, K_SEND, K_RECV, K_PROBE, K_COLL, K_OTHER };
extern const char *const kind_names[];

enum { S_EMPTY, S_ALIVE, S_FINISHED, S_DEAD };
extern const char *const state_names[];

struct rank {
	int pid;
	int state;		/* S_* */
	int sleeping;
	unsigned int sends, recvs;	/* transfers queued (module) */
	long long moved;	/* bytes its transfers moved (module) */
	/* What it is blocked in (wait_* of its rank control block). */
	int kind;		/* K_* */
	char call[32];
	int peer, tag;
	unsigned int ctx, csize, seq;
	unsigned long long bytes;
	/* From the rings. */
	unsigned long long in_used, out_bytes;
	unsigned int in_max_pct;
	int explained;		/* the diagnosis mentioned it */
};

struct job {
	char key[64];		/* the same job in the next look */
	const char *source;	/* "debugfs" or "memfd" */
	unsigned long long id;
	unsigned int uid, nranks, ring_cells, dead, finished;
	int holder;		/* memfd: a process that holds it */
	struct rank *r;
	unsigned long long sig;	/* of everything that moves */
	int progress;		/* it moved since the last look (or first) */
	double stalled;		/* seconds without progress */
	char *find[MAX_FINDINGS];
	int nfind;
};

struct look {
	struct job *jobs;
	int njobs, cap;
	char *notes[64];
	int nnotes;
	double t;
};

struct top_opt {
	int once, json, iterations, source;
	double interval;
	long long job;
	const char *debugfs;
};
extern struct top_opt opt;

enum { SRC_AUTO, SRC_DEBUGFS, SRC_MEMFD };

void *xcalloc(size_t n, size_t size);
void note(struct look *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
struct job *new_job(struct look *l, unsigned int nranks);
void mix(unsigned long long *h, unsigned long long v);
int kind_of(const char *s);
int state_of(const char *s);
void set_call(struct rank *r, const char *s, size_t n);

/* look.c: where jobs are found */
int from_debugfs(struct look *l);
int from_memfds(struct look *l);
/* diagnose.c: why a job does not move */
const char *human(unsigned long long b, char *buf, size_t len);
const char *call_name(const struct rank *r);
void diagnose(struct job *j);
/* show.c */
void show_json(const struct look *l);
void show_text(const struct look *l, int live);

#endif /* MPICHAN_TOP_H */
