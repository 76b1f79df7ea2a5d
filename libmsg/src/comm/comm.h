/* SPDX-License-Identifier: MIT */
/*
 * comm.h: what the communicator layer offers the layers above: the
 * communicator object with the matching queues of its contexts,
 * groups, context ids, and attribute caching.  Creating a communicator
 * agrees with the other members through collectives, called as a
 * program calls them (the public MPI calls), not by name.
 */
#ifndef LIBMSG_COMM_H
#define LIBMSG_COMM_H

#include "datatype/datatype.h"


/* Posted receives and unexpected messages of one context id. */
struct lm_match {
	uint32_t ctx;
	struct cds_list_head posted;		/* libmsg_request.link */
	struct cds_list_head unexpected;	/* libmsg_message.link */
};


struct libmsg_comm {
	uint32_t magic;
	int size;
	int rank;
	const int *world;	/* comm rank -> world rank; NULL: identity */
	const int *local;	/* world rank -> comm rank or -1; NULL: search */
	uint32_t ctx;		/* point-to-point; ctx + 1 is collective */
	uint32_t coll_seq;	/* collectives started: the next one's tag */
	struct lm_match *p2p, *coll;
	MPI_Errhandler errh;
	char name[MPI_MAX_OBJECT_NAME];
	struct lm_attr *attrs;	/* cached attributes, newest first */
	int *maps;		/* created communicators: world[] and local[] */
	struct cds_list_head link;	/* created ones: live or freed list */
};

/* An ordered set of processes, by world rank. */
struct libmsg_group {
	uint32_t magic;
	int size;
	int rank;		/* this process's rank in it, or MPI_UNDEFINED */
	int *world;		/* group rank -> world rank */
};

/* ---- comm.c ------------------------------------------------------------ */

/* Context ids of the predefined communicators and reserved uses. */
#define LM_CTX_WORLD	0
#define LM_CTX_SELF	2
#define LM_CTX_AGREE	4	/* MPI_Comm_create_group's agreement */
#define LM_CTX_SESSION	6	/* MPI_Comm_create_from_group's agreement */
#define LM_CTX_FIRST	8	/* the first one for created communicators */
#define LM_CTX_LIMIT	4096	/* context ids: 0 .. LM_CTX_LIMIT - 1 */

int lm_comm_init(void);
void lm_comm_fini(void);
/*
 * A communicator of size ranks (world[r]: world rank of rank r; NULL:
 * all of MPI_COMM_WORLD in order) on context ctx, inheriting parent's
 * error handler; this process must be in world[].  Not yet registered
 * (lm_comm_register: it then owns ctx); lm_comm_discard() undoes it.
 * NULL when out of memory.
 */
struct libmsg_comm *lm_comm_new(const struct libmsg_comm *parent, int size,
				const int *world, uint32_t ctx);
void lm_comm_register(struct libmsg_comm *c);
void lm_comm_discard(struct libmsg_comm *c);
/* Release freed communicators whose operations are over. */
void lm_comm_reap(void);
struct lm_match *lm_match_get(uint32_t ctx);
void lm_match_each(void (*fn)(struct lm_match *m, void *arg), void *arg);
/* The live communicator of point-to-point context ctx, or NULL. */
const struct libmsg_comm *lm_comm_of_ctx(uint32_t ctx);
/* Comm rank of world rank w in comm, or -1. */
int lm_comm_local(const struct libmsg_comm *comm, int w);
static inline int lm_comm_world(const struct libmsg_comm *comm, int r)
{
	return comm->world ? comm->world[r] : r;
}

/* ---- ctxid.c: context ids of created communicators ---------------------- */

void lm_ctx_init(void);
/*
 * Collective over `over`: the lowest context id free on every one of
 * its processes (MPI_Allreduce with MPI_BAND of the free masks).
 * MPI_SUCCESS, or an error class already reported for fn.
 */
int lm_ctx_agree(struct libmsg_comm *over, const char *fn, uint32_t *ctx);
void lm_ctx_take(uint32_t ctx);
void lm_ctx_release(uint32_t ctx);
int lm_ctx_in_use(void);

/* ---- group.c ------------------------------------------------------------ */

/* A group of the n world ranks in world[] (copied; NULL: 0 .. n - 1). */
struct libmsg_group *lm_group_new(int n, const int *world);

/* ---- attr.c ------------------------------------------------------------- */

/* MPI_Comm_dup: run the copy callbacks of old's attributes onto c. */
int lm_attr_copy(struct libmsg_comm *old, struct libmsg_comm *c,
		 const char *fn);
/* Run the delete callbacks of every attribute of c, newest first. */
int lm_attr_delete_all(struct libmsg_comm *c, const char *fn);
/* Drop c's attributes without callbacks (the library is going away). */
void lm_attr_drop(struct libmsg_comm *c);
void lm_attr_fini(void);
/*
 * Windows' keyvals and attributes (the MPI_Win_ calls are rma/'s, which
 * answers the predefined keys first); errors go to the window's handler.
 */
int lm_win_keyval_create(const char *fn, MPI_Win_copy_attr_function *copy_fn,
			 MPI_Win_delete_attr_function *delete_fn, int *keyval,
			 void *extra);
int lm_win_keyval_free(const char *fn, int *keyval);
int lm_win_attr_set(MPI_Win win, const char *fn, int keyval, void *val);
int lm_win_attr_get(MPI_Win win, const char *fn, int keyval, void *val,
		    int *flag);
int lm_win_attr_delete(MPI_Win win, const char *fn, int keyval);
/* MPI_Win_free: every delete callback, newest first; stops at a failing one. */
int lm_win_attr_delete_all(MPI_Win win, const char *fn);

/* ---- topo.c ---------------------------------------------------------------- */

/* MPI_Finalize: release the topologies of communicators never freed. */
void lm_topo_fini(void);

#endif /* LIBMSG_COMM_H */
