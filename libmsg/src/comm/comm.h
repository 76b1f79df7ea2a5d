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


/*
 * An intercommunicator (inter set) is the same object: size and rank
 * are the local group's, and world[], local[] and rsize name the ranks
 * its messages go to and come from, the remote group's (intercomm.c).
 */
struct libmsg_comm {
	uint32_t magic;
	int size;
	int rank;
	const int *world;	/* peer rank -> world rank; NULL: identity */
	const int *local;	/* world rank -> peer rank or -1; NULL: search */
	int rsize;		/* peers a message may name: size, or the remote group's */
	uint8_t inter;		/* an intercommunicator */
	uint8_t noarea;		/* never through the collective area */
	uint32_t ctx;		/* point-to-point; ctx + 1 is collective */
	uint32_t coll_seq;	/* collectives started: the next one's tag */
	int probed;		/* messages Mprobe'd on it, not yet received */
	struct lm_match *p2p, *coll;
	MPI_Errhandler errh;
	char name[MPI_MAX_OBJECT_NAME];
	struct lm_attr *attrs;	/* cached attributes, newest first */
	int *maps;		/* created communicators: world[] and local[] */
	struct cds_list_head link;	/* created ones: live or freed list */
	/* Intercommunicators: its parts, never handed to the program. */
	const int *lworld;	/* local rank -> world rank */
	struct libmsg_comm *lc;	/* the local group, on ctx: collectives on ctx + 1 */
	struct libmsg_comm *xc;	/* the remote group, messages on ctx + 1 */
	struct libmsg_comm *uc;	/* both groups by world rank: agreements */
	uint32_t iseq;		/* creations from it: their agreements' tags */
	/*
	 * ULFM (comm/ulfm_api.c): the members this process saw fail, by
	 * world rank, in the order it saw them; the first ft_nacked of
	 * them acknowledged (wildcard receives no longer fail for them).
	 */
	int *ft_failed;
	int ft_nfailed, ft_nacked;
	uint32_t ft_shrinks;	/* shrinks of it: their agreements' tags */
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
#define LM_CTX_SESSION	4	/* MPI_Comm_create_from_group's agreement */
#define LM_CTX_INTER	6	/* MPI_Intercomm_create's and _from_groups' */
#define LM_CTX_FIRST	8	/* the first one for created communicators */
#define LM_CTX_LIMIT	4096	/* context ids: 0 .. LM_CTX_LIMIT - 1 */
#define LM_CTX_NONE	UINT32_MAX	/* not agreed yet (lm_comm_new) */

int lm_comm_init(void);
void lm_comm_fini(void);
/*
 * A communicator of size ranks (world[r]: world rank of rank r; NULL:
 * all of MPI_COMM_WORLD in order) on context ctx, inheriting parent's
 * error handler; this process must be in world[].  Not yet registered
 * (lm_comm_register: it then owns ctx); lm_comm_discard() undoes it.
 * With ctx LM_CTX_NONE it is no valid handle until lm_comm_set_ctx().
 * NULL when out of memory.
 */
struct libmsg_comm *lm_comm_new(const struct libmsg_comm *parent, int size,
				const int *world, uint32_t ctx);
/*
 * An intercommunicator between the local group lworld[] (lsize ranks,
 * this process among them) and the remote group rworld[] (rsize,
 * disjoint), as lm_comm_new makes an intracommunicator: its parts (lc,
 * xc, uc) are made with it and get their context ids with it.
 */
struct libmsg_comm *lm_comm_inter_new(const struct libmsg_comm *parent,
				      int lsize, const int *lworld, int rsize,
				      const int *rworld);
/* c's agreed context id: its queues, a valid handle.  -1: no memory. */
int lm_comm_set_ctx(struct libmsg_comm *c, uint32_t ctx);
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
/* A valid intercommunicator? (the collectives' dispatch) */
static inline int lm_comm_is_inter(const struct libmsg_comm *comm)
{
	return LM_HANDLE(comm) && comm->magic == LM_MAGIC_COMM && comm->inter;
}
/* comm must be an intracommunicator for fn: MPI_ERR_COMM if not. */
int lm_check_intra(MPI_Comm comm, const char *fn);

/* ---- ctxid.c: context ids of created communicators ---------------------- */

void lm_ctx_init(void);
/*
 * Agree with the other processes of `over` on a context id free on all
 * of them, and give it to made (lm_comm_new with LM_CTX_NONE), which is
 * then registered; made NULL: this process only helps (the new
 * communicator leaves it out).  Collective over `over`; made belongs to
 * the agreement from the call on (discarded if it fails).  tag < 0:
 * one of over's collectives, told apart by its sequence number; else
 * MPI_Comm_create_group's (and _from_group's) with that tag, over a
 * temporary communicator of the group on the parent's context ids.
 *
 * lm_ctx_agree_start: nonblocking; req (LM_REQ_COLL) completes, made
 * registered, under MPI_Test or Wait; its status's error says how it
 * ended (MPI_ERR_OTHER: no id is free everywhere), and if it failed the
 * program's handle *out (out not NULL) becomes MPI_COMM_NULL.
 * MPI_SUCCESS, or MPI_ERR_NO_MEM and nothing started.  lm_ctx_agree:
 * the same, waited for (through the collective area where it can):
 * MPI_SUCCESS, or an error class (not reported) and why[] says why.
 */
/* MPI_Comm_create_from_group's tag of a stringtag (comm_create.c). */
int lm_comm_string_tag(const char *s);
int lm_ctx_agree_start(struct libmsg_comm *over, int tag,
		       struct libmsg_comm *made, struct libmsg_comm **out,
		       struct libmsg_request *req);
int lm_ctx_agree(struct libmsg_comm *over, int tag, struct libmsg_comm *made,
		 char *why, size_t len);
void lm_ctx_take(uint32_t ctx);
void lm_ctx_release(uint32_t ctx);
int lm_ctx_in_use(void);

/* ---- intercomm_make.c: communicators made from intercommunicators ------- */

/*
 * MPI_Comm_dup, idup (req not NULL), split and create of an
 * intercommunicator (MPI-3.1 6.4.2), reporting as fn.
 */
int lm_inter_dup(MPI_Comm comm, const char *fn, MPI_Comm *newcomm,
		 struct libmsg_request *req);
int lm_inter_split(MPI_Comm comm, const char *fn, int color, int key,
		   MPI_Comm *newcomm);
int lm_inter_create(MPI_Comm comm, const char *fn, MPI_Group group,
		    MPI_Comm *newcomm);
/*
 * Leaders swap: local rank 0 sends n ints to the remote rank 0 and
 * receives up to max from it, which every local rank then gets over
 * lc; the count received in *got (may be NULL).  An MPI error class.
 */
int lm_inter_swap(struct libmsg_comm *ic, const int *mine, int n, int *theirs,
		  int max, int *got);

/* ---- comm_create.c ------------------------------------------------------ */

/*
 * MPI_Comm_split's order: the indices of colour's members among n
 * gathered (colour, key) pairs, by key then index, into order[]; their
 * count, or -1 (no memory).
 */
int lm_split_order(int n, const int *pairs, int color, int *order);

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
