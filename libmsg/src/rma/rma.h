/* SPDX-License-Identifier: MIT */
/*
 * rma.h: one-sided communication (MPI-3.1 chapter 11): the window
 * object, the memory every member of a window maps (its segment: lock
 * words, the ranks' memory of allocated windows), and the interface
 * behind which a peer's memory is reached when it is not in that
 * segment (struct lm_rma_mem_ops: process_vm_readv/writev in the
 * fallback, the module's registered regions over the device).
 *
 * Where a call goes:
 *   win.c     creating and freeing windows, queries, attributes, names,
 *             info, error handlers, MPI_Win_attach/detach
 *   win_big.c the _c forms of window creation and MPI_Win_shared_query
 *   seg.c     the window's segment: one memfd, made by the window's rank
 *             0 and opened by the others through /proc/<pid>/fd/<fd>
 *   sync.c    fence, PSCW
 *   locks.c   passive target (lock words in the segment), flush, sync,
 *             the accumulate lock; waiting, locks of dead ranks broken
 *   calls.c   Put, Get, Accumulate, Get_accumulate, Fetch_and_op,
 *             Compare_and_swap, the request-based ones, the _c forms
 *   ops.c     their checks, the target's bytes as runs, copies, Put, Get
 *             (ops.h: what ops.c, acc.c and calls.c share)
 *   acc.c     the accumulates and compare-and-swap on the target's bytes
 *   atomic.c  accumulates element by element with CPU atomics, on memory
 *             every rank maps
 *   mem.h     the interface behind which a peer's memory is reached
 *   mem_vm.c  the fallback's way to reach a peer's memory: copies with
 *             process_vm_readv/writev made by the origin
 *   mem_dev.c the device's: registered regions, mapped whole pages and
 *             copies by key; which way a window uses (lm_rma_mem)
 *
 * Every operation completes before its call returns, made by the origin
 * alone: a load or store (or CPU atomic) into the segment, or a copy
 * into the target's own memory.  The target's library takes part only
 * where MPI makes a call collective or a handshake: window creation and
 * free, fence (a barrier), PSCW's post and complete (messages).
 */
#ifndef LIBMSG_RMA_H
#define LIBMSG_RMA_H

#include "coll/coll.h"
#include "rma/mem.h"

/* ---- The window's segment -------------------------------------------------- */

/*
 * One memfd per window, mapped by every member at window creation
 * (seg.c):
 *
 *   lm_win_shm           the header
 *   ctl[nranks]          per target: its lock words, a cache line each
 *   slots[nranks][row]   slots[t][o]: o holds (or waits for) a shared
 *                        lock on t
 *   waiting[nranks][row] waiting[t][o]: o waits for one of t's locks
 *                        (an unlock wakes it)
 *   atomics[nranks][row] atomics[t][o]: o is making CPU atomics on t's
 *                        memory (the accumulate lock's shared side)
 *   attach[nranks][LM_WIN_ATTACH_MAX]  dynamic windows: each rank's
 *                        attached memory (lm_rma_desc)
 *   data                 MPI_Win_allocate(_shared): every rank's memory
 */
#define LM_WIN_SHM_MAGIC	0x524d4131U	/* "RMA1" */
#define LM_WIN_ATTACH_MAX	256

struct lm_win_shm {
	uint32_t magic;
	uint32_t nranks;
	uint64_t bytes;
};

struct lm_win_ctl {
	uint32_t excl;		/* world rank + 1 holding it exclusively, 0 */
	uint32_t acc;		/* world rank + 1 holding the accumulate lock
				 * (exclusively: no CPU atomics meanwhile) */
	uint32_t waiters;	/* ranks waiting on this target's locks */
	uint32_t seq;		/* dynamic: attach table changing (odd) */
	uint32_t nattach;	/* dynamic: entries of the table in use */
	uint32_t pad[11];
};

struct lm_win_layout {
	uint64_t ctl, slots, waiting, atomics, attach, data, bytes;
	uint64_t row;		/* bytes per row of slots[], waiting[], atomics[] */
};

/*
 * The layout for n ranks; data bytes at the end (0: none); attach: the
 * dynamic tables.
 */
void lm_win_layout(uint32_t n, int attach, uint64_t data,
		   struct lm_win_layout *l);
/*
 * Collective over comm: a new segment of bytes bytes, mapped at *map
 * in every member.  MPI_SUCCESS or an error class (the same on every
 * member), not yet reported: *why says what went wrong.
 */
int lm_seg_make(MPI_Comm comm, uint64_t bytes, unsigned char **map,
		const char **why);
void lm_seg_unmap(unsigned char *map, uint64_t bytes);

/* ---- The window ------------------------------------------------------------ */

/* What this rank holds on a target (lock[]). */
enum { LM_LOCK_NONE, LM_LOCK_SHARED, LM_LOCK_EXCL };
#define LM_LOCK_NOCHECK	0x80	/* ... without the lock words (NOCHECK) */

/* Where a member's window memory is, as this rank sees it. */
struct lm_win_peer {
	uint64_t base;		/* its window's address in its own process */
	uint64_t size;		/* bytes */
	int disp_unit;
	int world;		/* world rank */
	uint32_t pid;
	unsigned char *map;	/* its memory mapped here (base), or NULL */
	struct lm_rma_remote remote;	/* create: how to reach it */
	/* dynamic: the last attached region reached, kept for the next op */
	struct lm_rma_remote dyn;
	uint8_t dyn_valid;
	uint8_t failed;		/* an operation found it dead */
};

/* This rank's memory attached to a dynamic window. */
struct lm_win_region {
	struct lm_rma_desc d;
	uint8_t used;
};

struct libmsg_win {
	struct lm_win_head h;	/* first: magic, error handler, attributes */
	MPI_Comm comm;		/* the window's own: barriers, PSCW messages */
	int rank, size;
	int flavor;		/* MPI_WIN_FLAVOR_* */
	void *base;		/* this rank's memory */
	MPI_Aint bytes;
	int disp_unit;
	/*
	 * Every member maps every target's memory (allocated windows):
	 * accumulates of 1, 2, 4 or 8-byte elements are CPU atomics; else
	 * they hold the target's accumulate lock.
	 */
	uint8_t mapped;
	uint8_t noncontig;	/* alloc_shared_noncontig */
	unsigned char *seg;	/* the segment, mapped */
	uint64_t seg_bytes;
	struct lm_win_layout lay;
	struct lm_win_peer *peer;	/* by window rank */
	const struct lm_rma_mem_ops *mem;
	struct lm_rma_desc mine;	/* create: this rank's memory, exposed */
	struct lm_win_region *regions;	/* dynamic: mine, LM_WIN_ATTACH_MAX */

	/* Epochs (sync.c). */
	uint8_t fence;		/* a fence without NOSUCCEED opened one */
	uint8_t fence_ops;	/* ... and an operation was made in it */
	uint8_t lock_all;	/* MPI_Win_lock_all (| LM_LOCK_NOCHECK) */
	uint8_t *lock;		/* per target: LM_LOCK_* held */
	int nlocks;
	uint8_t *in_start;	/* per target: in the PSCW access group */
	int nstart;		/* its size; 0: no access epoch */
	int started;		/* MPI_Win_start called, complete not yet */
	int *post;		/* the exposure group, window ranks */
	int npost;
	int posted;		/* MPI_Win_post called, wait/test not done */
	MPI_Request *post_reqs;	/* npost receives of "complete", then npost
				 * sends of "post" (MPI_REQUEST_NULL: none) */

	char name[MPI_MAX_OBJECT_NAME];
	/* Hints, as MPI_Win_get_info answers them. */
	char no_locks[32];
	char acc_ordering[32];
	char acc_ops[32];
	char same_size[32], same_disp_unit[32];
};

/* PSCW's messages on the window's communicator. */
#define LM_WIN_TAG_POST		1
#define LM_WIN_TAG_DONE		2

/* ---- win.c ---------------------------------------------------------------- */

/* An error on a window call: raised on the window's handler. */
#define lm_werr(win, fn, code, ...) lm_win_error((win), (fn), (code), __VA_ARGS__)
/*
 * A window of a flavor (MPI_WIN_FLAVOR_*) over comm, collective: the
 * calls MPI_Win_create, allocate, allocate_shared, create_dynamic and
 * their _c forms (win_big.c).
 */
int lm_win_make(MPI_Comm comm, const char *fn, int flavor, void *base,
		MPI_Aint size, int disp_unit, MPI_Info info, void *baseptr,
		MPI_Win *win);
/* Take the hints libmsg knows from info into w (win.c). */
void lm_win_hints_take(struct libmsg_win *w, MPI_Info info);
/* MPI_SUCCESS when win is a live window, else MPI_ERR_WIN raised. */
int lm_check_win(MPI_Win win, const char *fn);
/* Target t's attached region holding [lo, hi) (dynamic), or NULL. */
int lm_win_find_region(struct libmsg_win *win, int t, uint64_t lo,
		       uint64_t hi, struct lm_rma_desc *out);

/* ---- sync.c --------------------------------------------------------------- */

/* win live and assert of the bits allowed only, else the error raised. */
int lm_win_check_sync(MPI_Win win, const char *fn, int assert, int allowed);
/* A target rank argument: 0, or 1 (MPI_PROC_NULL, or *err raised). */
int lm_win_check_rank(MPI_Win win, const char *fn, int rank, int *err);
/* A new epoch may not start inside a fence epoch that was used. */
int lm_win_fence_over(MPI_Win win, const char *fn);
/* Target t is gone, or an operation found it so (reported once). */
int lm_win_peer_failed(struct libmsg_win *win, int t);

/* ---- locks.c -------------------------------------------------------------- */

/* Is world rank w gone (dead, or left the job)? */
int lm_rma_rank_gone(int w);
/* May this rank access target t now (an epoch is open)?  Marks fence use. */
int lm_win_access_ok(struct libmsg_win *win, int t, int passive_only);
/*
 * The accumulate lock of target t: take (may wait) and give back.  Held,
 * nobody else accumulates into t, with CPU atomics or otherwise.
 */
int lm_win_acc_lock(struct libmsg_win *win, int t, const char *fn);
void lm_win_acc_unlock(struct libmsg_win *win, int t);
/*
 * Its shared side: CPU atomics on t's memory may go on together, not
 * while someone holds the lock.  Enter may wait (an error is raised).
 */
int lm_win_atomics_enter(struct libmsg_win *win, int t, const char *fn);
void lm_win_atomics_leave(struct libmsg_win *win, int t);
static inline struct lm_win_ctl *lm_win_ctl(struct libmsg_win *win, int t)
{
	return (struct lm_win_ctl *)(win->seg + win->lay.ctl) + t;
}

/* ---- ops.c ---------------------------------------------------------------- */

/* A target's bytes, and how to reach them. */
struct lm_tgt {
	struct libmsg_win *win;
	int t;
	unsigned char *map;	/* the owner's address `base` is map here */
	uint64_t base;
	struct lm_rma_remote *remote;	/* NULL: mapped */
};

/* Its runs: n runs of the owner's memory, in typemap order. */
struct lm_walk {
	struct lm_rma_run run[LM_RMA_RUNS];
	uint32_t n;
	uint64_t done;		/* bytes of the runs already flushed */
	uint64_t pending;	/* bytes in run[0 .. n) */
	int (*flush)(struct lm_walk *w);
	void *arg;
};

/* count elements of dt at the owner's address addr, run by run. */
int lm_walk_type(struct lm_walk *w, uint64_t addr, int64_t count,
		 MPI_Datatype dt);

/* ---- atomic.c ------------------------------------------------------------- */

/* Can an element of basic type dt at p be CPU atomics? */
int lm_rma_atomic_ok(MPI_Datatype dt, const void *p);
/*
 * Accumulate on mapped memory, lm_rma_atomic_ok for p: n packed
 * elements of basic type dt from in (NULL for MPI_NO_OP) into the n
 * elements at p, each atomically, the old values into old (or NULL).
 */
void lm_rma_atomic_run(MPI_Op op, MPI_Datatype dt, unsigned char *p,
		       uint64_t n, const unsigned char *in, unsigned char *old);
/* Compare-and-swap of one element of size bytes at p. */
void lm_rma_atomic_cas(void *p, const void *desired, const void *expected,
		       void *old, uint64_t size);

#endif /* LIBMSG_RMA_H */
