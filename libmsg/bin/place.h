/* SPDX-License-Identifier: MIT */
/*
 * place.h: where mpiexec puts each rank (place.c): mapping ranks onto
 * the machine's objects and binding them there, with hwloc.
 */
#ifndef MPIEXEC_PLACE_H
#define MPIEXEC_PLACE_H

/* The levels of --map-by and --bind-to, finest first. */
enum place_level {
	PLACE_HWTHREAD,
	PLACE_CORE,
	PLACE_NUMA,
	PLACE_SOCKET,
	PLACE_NONE,		/* --bind-to none */
	PLACE_DEFAULT,		/* not given on the command line */
};

struct place_opts {
	enum place_level map;	/* ranks go round-robin over these */
	enum place_level bind;	/* each is bound to the one it lands in */
	int report;		/* --report-bindings */
};

/* "core", "hwthread", ... -> its level; -1 when none is called so. */
int place_level_parse(const char *name, int allow_none);

/*
 * Work out every rank's place for a job of nranks (dies with a message
 * when the topology cannot be read).  The defaults are Open MPI's: map
 * by core, bind to cores when there are no more ranks than cores, and
 * bind nothing when there are (oversubscribed ranks must be free to
 * move to an idle CPU).
 */
void place_plan(const struct place_opts *o, int nranks);

/*
 * In rank r's child, before exec: bind it, and put its place in its
 * environment (MPICHAN_PLACE, for libmsg: the logical index of each
 * object that holds its CPU, "package=0 numa=0 l3=0 l2=1 core=1 pu=1").
 * Returns 0, or -1 with errno (the binding failed).
 */
int place_apply(int r);

/* --report-bindings: one line on stderr per rank, from mpiexec itself. */
void place_report(int nranks);

#endif /* MPIEXEC_PLACE_H */
