// SPDX-License-Identifier: MIT
/*
 * The accumulates on the target's bytes (Accumulate, Get_accumulate,
 * Fetch_and_op and their request-based forms) and Compare_and_swap,
 * once ops.c has checked them: a few elements on memory every member
 * maps as CPU atomics (atomic.c) under the shared side of the target's
 * accumulate lock, the rest with the lock held exclusively (locks.c's
 * lock words) and op.c's loop, in place or over a copy.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rma/ops.h"

/*
 * The op's loop takes an int count: larger accumulates (the _c calls)
 * go LM_ACC_CHUNK elements at a time.
 */
#define LM_ACC_CHUNK	((uint64_t)1 << 28)

/* The op on n elements of dense basic type dt: in into cur. */
static void apply(MPI_Op op, const unsigned char *in, unsigned char *cur,
		  uint64_t n, MPI_Datatype dt)
{
	uint64_t at, k, s = (uint64_t)dt->size;

	for (at = 0; at < n; at += k) {
		k = n - at < LM_ACC_CHUNK ? n - at : LM_ACC_CHUNK;
		lm_op_apply(op, in ? in + at * s : NULL, cur + at * s, (int)k,
			    dt);
	}
}

/* ---- Accumulates ------------------------------------------------------------- */

/*
 * Mapped memory: each run's elements atomically (the lock's shared side
 * held), or plainly once the lock is held exclusively: a run of
 * unaligned elements takes it, and keeps it for the rest.
 */
static int flush_atomic(struct lm_walk *w)
{
	struct xfer *x = (struct xfer *)w;
	uint64_t s = (uint64_t)x->basic->size, pos = w->done;
	const unsigned char *in;
	unsigned char *p, *old;
	uint32_t k;

	for (k = 0; k < w->n; pos += w->run[k].len, k++) {
		p = lm_rma_local(x->g, w->run[k].addr);
		in = x->in ? x->in + pos : NULL;
		old = x->old ? x->old + pos : NULL;
		if (!x->locked && lm_rma_atomic_ok(x->basic, p)) {
			lm_rma_atomic_run(x->op, x->basic, p, w->run[k].len / s,
					  in, old);
			continue;
		}
		if (!x->locked) {
			lm_win_atomics_leave(x->g->win, x->g->t);
			if (lm_win_acc_lock(x->g->win, x->g->t, x->fn))
				return -ESRCH;
			x->locked = 1;
		}
		if (old)
			memcpy(old, p, w->run[k].len);
		if (x->op->id != LM_OP_NO_OP)
			apply(x->op, in, p, w->run[k].len / s, x->basic);
	}
	return 0;
}

static int acc_atomics(struct libmsg_win *win, const char *fn,
		       struct rma_args *a, struct lm_tgt *g,
		       const unsigned char *in, unsigned char *old)
{
	struct xfer *x = malloc(sizeof(*x));
	int e;

	if (!x)
		return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	if ((e = lm_win_atomics_enter(win, a->t, fn))) {
		free(x);
		return e;
	}
	x->w.flush = flush_atomic;
	x->g = g;
	x->op = a->op;
	x->basic = a->basic;
	x->in = in;
	x->old = old;
	x->locked = 0;
	x->fn = fn;
	e = lm_walk_type(&x->w, a->taddr, a->tcount, a->ttype);
	if (x->locked) {
		lm_win_acc_unlock(win, a->t);
	} else if (!e) {
		lm_win_atomics_leave(win, a->t);
	}
	free(x);
	/* The lock's failure was reported already. */
	return e ? MPI_ERR_PROC_FAILED : MPI_SUCCESS;
}

/*
 * The op on n packed elements of basic type dt: in into cur.  The op's
 * loops take the type's C layout, which a padded pair (MPI_DOUBLE_INT:
 * 12 bytes of data, 16 of extent) is not when packed: it is unpacked
 * around the loop.
 */
static int apply_packed(MPI_Op op, const unsigned char *in, unsigned char *cur,
			uint64_t n, MPI_Datatype dt)
{
	uint64_t k = n < LM_ACC_CHUNK ? n : LM_ACC_CHUNK;
	uint64_t wide = k * (uint64_t)dt->extent, bytes, at;
	unsigned char *a, *b;

	if (dt->dense) {
		apply(op, in, cur, n, dt);
		return 0;
	}
	a = lm_scratch_get(wide);
	b = lm_scratch_get(wide);
	if (!a || !b) {
		lm_scratch_put(a, wide);
		lm_scratch_put(b, wide);
		return -ENOMEM;
	}
	for (at = 0; at < n; at += k) {
		k = n - at < LM_ACC_CHUNK ? n - at : LM_ACC_CHUNK;
		bytes = k * (uint64_t)dt->size;
		lm_dt_unpack(in + at * dt->size, bytes, a, (int64_t)k, dt);
		lm_dt_unpack(cur + at * dt->size, bytes, b, (int64_t)k, dt);
		lm_op_apply(op, a, b, (int)k, dt);
		lm_dt_pack(b, (int64_t)k, dt, cur + at * dt->size);
	}
	lm_scratch_put(a, wide);
	lm_scratch_put(b, wide);
	return 0;
}

/* The accumulate lock held: read, apply, write back (in place if mapped). */
static int acc_locked(struct libmsg_win *win, const char *fn,
		      struct rma_args *a, struct lm_tgt *g,
		      const unsigned char *in, unsigned char *old)
{
	unsigned char *cur = NULL;
	int err, reads = old || a->op->id != LM_OP_REPLACE;
	uint64_t n = a->bytes / (uint64_t)a->basic->size;

	err = lm_win_acc_lock(win, a->t, fn);
	if (err)
		return err;
	if (!g->remote && lm_dt_contig(a->ttype, a->tcount)) {
		cur = lm_rma_local(g, a->taddr + (uint64_t)a->ttype->true_lb);
		if (old)
			memcpy(old, cur, a->bytes);
		if (a->op->id != LM_OP_NO_OP)
			apply(a->op, in, cur, n, a->basic);
		lm_win_acc_unlock(win, a->t);
		return MPI_SUCCESS;
	}
	if (reads) {
		cur = lm_scratch_get(a->bytes);
		if (!cur) {
			err = lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
			goto out;
		}
		err = lm_rma_target_io(g, fn, a, cur, 0);
		if (err)
			goto out;
		if (old)
			memcpy(old, cur, a->bytes);
	}
	if (a->op->id == LM_OP_NO_OP)
		goto out;
	if (a->op->id == LM_OP_REPLACE) {
		err = lm_rma_target_io(g, fn, a, (void *)(uintptr_t)in, 1);
	} else if (apply_packed(a->op, in, cur, n, a->basic)) {
		err = lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	} else {
		err = lm_rma_target_io(g, fn, a, cur, 1);
	}
out:
	lm_win_acc_unlock(win, a->t);
	lm_scratch_put(cur, a->bytes);
	return err;
}

int lm_rma_do_acc(struct libmsg_win *win, const char *fn, struct rma_args *a,
		  struct lm_tgt *g)
{
	unsigned char *itmp = NULL, *rtmp = NULL, *old = NULL;
	const unsigned char *in = NULL;
	int err;

	if (a->op->id != LM_OP_NO_OP) {
		in = lm_rma_packed(a->obuf, a->ocount, a->otype, &itmp);
		if (!in)
			return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	if (a->kind == OP_GACC) {
		old = lm_rma_room(a->rbuf, a->rcount, a->rtype, &rtmp);
		if (!old) {
			lm_scratch_put(itmp, a->bytes);
			return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
		}
	}
	/* Padded pairs: packed here, C structs in the window. */
	if (win->mapped && !g->remote && a->basic->dense &&
	    a->bytes <= LM_ACC_ATOMICS * (uint64_t)a->basic->size &&
	    lm_rma_atomic_ok(a->basic, NULL))
		err = acc_atomics(win, fn, a, g, in, old);
	else
		err = acc_locked(win, fn, a, g, in, old);
	lm_scratch_put(itmp, a->bytes);
	if (!err && rtmp)
		lm_rma_unroom(a->rbuf, a->rcount, a->rtype, rtmp);
	else
		lm_scratch_put(rtmp, a->bytes);
	return err;
}

int lm_rma_do_cas(struct libmsg_win *win, const char *fn, struct rma_args *a,
		  struct lm_tgt *g)
{
	uint64_t s = (uint64_t)a->ttype->size;
	unsigned char cur[16];
	int err;

	if (win->mapped && !g->remote &&
	    lm_rma_atomic_ok(a->ttype, lm_rma_local(g, a->taddr))) {
		if ((err = lm_win_atomics_enter(win, a->t, fn)))
			return err;
		lm_rma_atomic_cas(lm_rma_local(g, a->taddr), a->obuf, a->cbuf, a->rbuf,
				  s);
		lm_win_atomics_leave(win, a->t);
		return MPI_SUCCESS;
	}
	err = lm_win_acc_lock(win, a->t, fn);
	if (err)
		return err;
	err = lm_rma_target_io(g, fn, a, cur, 0);
	if (!err) {
		memcpy(a->rbuf, cur, s);
		if (!memcmp(cur, a->cbuf, s))
			err = lm_rma_target_io(g, fn, a, (void *)(uintptr_t)a->obuf, 1);
	}
	lm_win_acc_unlock(win, a->t);
	return err;
}
