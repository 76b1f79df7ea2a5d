// SPDX-License-Identifier: MIT
/*
 * The one-sided operations: MPI_Put, Get, Accumulate, Get_accumulate,
 * Fetch_and_op, Compare_and_swap, and Rput, Rget, Raccumulate,
 * Rget_accumulate.  Each is complete at the target and at the origin
 * when its call returns (the request-based ones return a completed
 * request), made by the origin alone:
 *
 * - The target's bytes: count elements of the target datatype from
 *   base + disp * disp_unit of the target's window (a dynamic window:
 *   from the address disp), checked to lie inside the window (inside
 *   one attached region) before anything moves, else
 *   MPI_ERR_RMA_RANGE.
 * - Memory this rank maps (an allocated window's segment, its own
 *   memory): packed into or unpacked from, with the datatype code
 *   (pack.c), or one memcpy when both sides are contiguous.
 * - Other memory (MPI_Win_create's, attached memory): the target's
 *   datatype walked into runs of the owner's addresses, LM_RMA_RUNS at
 *   a time, each batch one copy of the memory interface (rma.h; the
 *   fallback: process_vm_writev/readv), against the origin's data
 *   packed, or in place when contiguous.
 * - Accumulates: on memory every member maps, a few elements (up to
 *   LM_ACC_ATOMICS) are CPU atomics each (atomic.c), under the shared
 *   side of the target's accumulate lock; more, or elements no
 *   instruction updates atomically (size, alignment), take the lock
 *   exclusively and apply op.c's vectorised loop in place.  On other
 *   memory, the lock exclusively: the target's bytes read, the op
 *   applied, written back.  The origin's and the target's datatypes
 *   must be of one basic type, the same, and the op predefined.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"

enum { OP_PUT, OP_GET, OP_ACC, OP_GACC, OP_CAS };

/*
 * Accumulates of up to this many elements on mapped memory are CPU
 * atomics; larger ones hold the accumulate lock and run the op's loop
 * (a lock-prefixed instruction per element costs as much as the lock
 * after a few elements, and the loop is vectorised).
 */
#define LM_ACC_ATOMICS	16

struct rma_args {
	int kind;
	const void *obuf;
	int ocount;
	MPI_Datatype otype;
	void *rbuf;
	int rcount;
	MPI_Datatype rtype;
	const void *cbuf;	/* compare-and-swap: the value compared */
	int t;
	MPI_Aint disp;
	int tcount;
	MPI_Datatype ttype;
	MPI_Op op;
	int passive_only;	/* request-based: only in a passive epoch */
	/* Worked out by check_args: */
	uint64_t bytes;		/* of the target data */
	uint64_t taddr;		/* the target buffer, owner's address */
	uint64_t lo, hi;	/* the bytes touched, owner's addresses */
	MPI_Datatype basic;	/* accumulates: the one basic type */
};

/* ---- The target's runs --------------------------------------------------------- */

static int add(struct lm_walk *w, uint64_t addr, uint64_t len)
{
	struct lm_rma_run *last = w->n ? &w->run[w->n - 1] : NULL;
	int err;

	if (!len)
		return 0;
	if (last && last->addr + last->len == addr) {
		last->len += len;
		w->pending += len;
		return 0;
	}
	if (w->n == LM_RMA_RUNS) {
		err = w->flush(w);
		if (err)
			return err;
		w->done += w->pending;
		w->pending = 0;
		w->n = 0;
	}
	w->run[w->n].addr = addr;
	w->run[w->n].len = len;
	w->n++;
	w->pending += len;
	return 0;
}

static int walk_layout(struct lm_walk *w, const struct lm_layout *l,
		       uint64_t at)
{
	const struct lm_seg *s;
	uint64_t i, e;
	uint32_t k;
	int err;

	for (k = 0; k < l->nsegs; k++) {
		s = &l->segs[k];
		/* Blocks back to back are one run. */
		if (!s->sub && (uint64_t)s->stride == s->len) {
			err = add(w, at + (uint64_t)s->off, s->count * s->len);
			if (err)
				return err;
			continue;
		}
		for (i = 0; i < s->count; i++) {
			e = at + (uint64_t)s->off + (uint64_t)((int64_t)i * s->stride);
			err = s->sub ? walk_layout(w, s->sub, e) : add(w, e, s->len);
			if (err)
				return err;
		}
	}
	return 0;
}

int lm_walk_type(struct lm_walk *w, uint64_t addr, int64_t count,
		 MPI_Datatype dt)
{
	int64_t e;
	int err = 0;

	w->n = 0;
	w->done = 0;
	w->pending = 0;
	if (count <= 0 || !dt->size)
		return 0;
	if (lm_dt_contig(dt, count) || !dt->layout) {
		if (lm_dt_contig(dt, count))
			err = add(w, addr + (uint64_t)dt->true_lb,
				  (uint64_t)count * (uint64_t)dt->size);
		for (e = 0; !lm_dt_contig(dt, count) && !err && e < count; e++)
			err = add(w, addr + (uint64_t)(e * dt->extent + dt->true_lb),
				  (uint64_t)dt->size);
	} else {
		for (e = 0; !err && e < count; e++)
			err = walk_layout(w, dt->layout,
					  addr + (uint64_t)(e * dt->extent));
	}
	if (!err && w->n)
		err = w->flush(w);
	if (!err) {
		w->done += w->pending;
		w->pending = 0;
		w->n = 0;
	}
	return err;
}

/* ---- Reaching the target --------------------------------------------------------- */

/* The memory interface's error for target t, as an MPI error raised. */
static int mem_error(struct libmsg_win *win, const char *fn, int t, int e)
{
	if (lm_rma_rank_gone(win->peer[t].world))
		e = -ESRCH;
	switch (-e) {
	case ESRCH:
		win->peer[t].failed = 1;
		return lm_werr(win, fn, MPI_ERR_PROC_FAILED,
			       "target rank %d is gone", t);
	case EFAULT:
		return lm_werr(win, fn, MPI_ERR_RMA_RANGE,
			       "target rank %d has no memory there (freed or detached?)",
			       t);
	case EPERM:
		return lm_werr(win, fn, MPI_ERR_OTHER,
			       "not allowed to reach rank %d's memory (ptrace restrictions?)",
			       t);
	case ENOMEM:
		return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	return lm_werr(win, fn, MPI_ERR_OTHER,
		       "cannot reach rank %d's memory: %s", t, strerror(-e));
}

/* Where the target's bytes [lo, hi) are, and how to reach them. */
static int target_of(struct libmsg_win *win, const char *fn,
		     const struct rma_args *a, struct lm_tgt *g)
{
	struct lm_win_peer *p = &win->peer[a->t];
	struct lm_rma_remote *r;
	struct lm_rma_desc d;
	int e;

	g->win = win;
	g->t = a->t;
	g->remote = NULL;
	if (p->map) {
		g->map = p->map;
		g->base = p->base;
		return MPI_SUCCESS;
	}
	if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
		if (!lm_win_find_region(win, a->t, a->lo, a->hi, &d))
			return lm_werr(win, fn, MPI_ERR_RMA_RANGE,
				       "target rank %d has no memory attached at [%#llx, %#llx)",
				       a->t, (unsigned long long)a->lo,
				       (unsigned long long)a->hi);
		r = &p->dyn;
		if (!p->dyn_valid || memcmp(&r->d, &d, sizeof(d))) {
			if (p->dyn_valid)
				win->mem->detach(r);
			p->dyn_valid = 0;
			e = win->mem->attach(&d, r);
			if (e)
				return mem_error(win, fn, a->t, e);
			p->dyn_valid = 1;
		}
	} else {
		r = &p->remote;
	}
	if (r->map && win->mem->check && (e = win->mem->check(r)))
		return mem_error(win, fn, a->t, e);
	if (r->map && a->lo >= r->map_lo && a->hi <= r->map_hi) {
		g->map = r->map;
		g->base = r->map_lo;
	} else {
		g->map = NULL;
		g->remote = r;
	}
	return MPI_SUCCESS;
}

static inline unsigned char *local(const struct lm_tgt *g, uint64_t addr)
{
	return g->map + (addr - g->base);
}

/* A walk of the target's runs that copies them from or into buf. */
struct xfer {
	struct lm_walk w;
	struct lm_tgt *g;
	unsigned char *buf;	/* packed, in the target type's order */
	int write;
	/* Accumulates on mapped memory (flush_atomic). */
	MPI_Op op;
	MPI_Datatype basic;
	const unsigned char *in;
	unsigned char *old;
	int locked;		/* holds the target's accumulate lock */
	const char *fn;
};

static int flush_copy(struct lm_walk *w)
{
	struct xfer *x = (struct xfer *)w;
	const struct lm_rma_mem_ops *m = x->g->win->mem;

	return x->write ? m->copy_to(x->g->remote, x->buf + w->done, w->run, w->n) :
		m->copy_from(x->g->remote, x->buf + w->done, w->run, w->n);
}

/* The target data (x->g remote), by runs, from or into buf. */
static int copy_runs(struct lm_tgt *g, const char *fn, const struct rma_args *a,
		     void *buf, int write)
{
	struct xfer *x = malloc(sizeof(*x));
	int e;

	if (!x)
		return lm_werr(g->win, fn, MPI_ERR_NO_MEM, "out of memory");
	x->w.flush = flush_copy;
	x->g = g;
	x->buf = buf;
	x->write = write;
	e = lm_walk_type(&x->w, a->taddr, a->tcount, a->ttype);
	free(x);
	return e ? mem_error(g->win, fn, g->t, e) : MPI_SUCCESS;
}

/* The target data into packed buf (read) or from it (write). */
static int target_io(struct lm_tgt *g, const char *fn, const struct rma_args *a,
		     void *buf, int write)
{
	if (g->remote)
		return copy_runs(g, fn, a, buf, write);
	if (write)
		lm_dt_unpack(buf, a->bytes, local(g, a->taddr), a->tcount,
			     a->ttype);
	else
		lm_dt_pack(local(g, a->taddr), a->tcount, a->ttype, buf);
	return MPI_SUCCESS;
}

/* count dt's at buf packed: in place when contiguous, else a copy. */
static const unsigned char *packed(const void *buf, int count, MPI_Datatype dt,
				   unsigned char **tmp)
{
	uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;

	*tmp = NULL;
	if (lm_dt_contig(dt, count))
		return (const unsigned char *)((uintptr_t)buf +
					       (uintptr_t)dt->true_lb);
	*tmp = lm_scratch_get(bytes);
	if (*tmp)
		lm_dt_pack(buf, count, dt, *tmp);
	return *tmp;
}

/* Room for count dt's packed: buf itself when contiguous. */
static unsigned char *room(void *buf, int count, MPI_Datatype dt,
			   unsigned char **tmp)
{
	uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;

	*tmp = NULL;
	if (lm_dt_contig(dt, count))
		return (unsigned char *)((uintptr_t)buf + (uintptr_t)dt->true_lb);
	*tmp = lm_scratch_get(bytes);
	return *tmp;
}

static void unroom(void *buf, int count, MPI_Datatype dt, unsigned char *tmp)
{
	uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;

	if (!tmp)
		return;
	lm_dt_unpack(tmp, bytes, buf, count, dt);
	lm_scratch_put(tmp, bytes);
}

/* ---- Put, Get ------------------------------------------------------------------ */

static int do_put(struct libmsg_win *win, const char *fn, struct rma_args *a,
		  struct lm_tgt *g)
{
	unsigned char *tmp;
	const unsigned char *src;
	int err;

	if (!g->remote && lm_dt_contig(a->ttype, a->tcount)) {
		lm_dt_pack(a->obuf, a->ocount, a->otype,
			   local(g, a->taddr + (uint64_t)a->ttype->true_lb));
		return MPI_SUCCESS;
	}
	src = packed(a->obuf, a->ocount, a->otype, &tmp);
	if (!src)
		return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	err = target_io(g, fn, a, (void *)(uintptr_t)src, 1);
	lm_scratch_put(tmp, a->bytes);
	return err;
}

static int do_get(struct libmsg_win *win, const char *fn, struct rma_args *a,
		  struct lm_tgt *g)
{
	unsigned char *tmp, *dst;
	int err;

	if (!g->remote && lm_dt_contig(a->ttype, a->tcount)) {
		lm_dt_unpack(local(g, a->taddr + (uint64_t)a->ttype->true_lb),
			     a->bytes, (void *)(uintptr_t)a->obuf, a->ocount,
			     a->otype);
		return MPI_SUCCESS;
	}
	dst = room((void *)(uintptr_t)a->obuf, a->ocount, a->otype, &tmp);
	if (!dst)
		return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	err = target_io(g, fn, a, dst, 0);
	if (!err)
		unroom((void *)(uintptr_t)a->obuf, a->ocount, a->otype, tmp);
	else
		lm_scratch_put(tmp, a->bytes);
	return err;
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
		p = local(x->g, w->run[k].addr);
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
			lm_op_apply(x->op, in, p, (int)(w->run[k].len / s),
				    x->basic);
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
			int n, MPI_Datatype dt)
{
	uint64_t bytes = (uint64_t)n * (uint64_t)dt->size;
	uint64_t wide = (uint64_t)n * (uint64_t)dt->extent;
	unsigned char *a, *b;

	if (dt->dense) {
		lm_op_apply(op, in, cur, n, dt);
		return 0;
	}
	a = lm_scratch_get(wide);
	b = lm_scratch_get(wide);
	if (!a || !b) {
		lm_scratch_put(a, wide);
		lm_scratch_put(b, wide);
		return -ENOMEM;
	}
	lm_dt_unpack(in, bytes, a, n, dt);
	lm_dt_unpack(cur, bytes, b, n, dt);
	lm_op_apply(op, a, b, n, dt);
	lm_dt_pack(b, n, dt, cur);
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
	int n = (int)(a->bytes / (uint64_t)a->basic->size);

	err = lm_win_acc_lock(win, a->t, fn);
	if (err)
		return err;
	if (!g->remote && lm_dt_contig(a->ttype, a->tcount)) {
		cur = local(g, a->taddr + (uint64_t)a->ttype->true_lb);
		if (old)
			memcpy(old, cur, a->bytes);
		if (a->op->id != LM_OP_NO_OP)
			lm_op_apply(a->op, in, cur, n, a->basic);
		lm_win_acc_unlock(win, a->t);
		return MPI_SUCCESS;
	}
	if (reads) {
		cur = lm_scratch_get(a->bytes);
		if (!cur) {
			err = lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
			goto out;
		}
		err = target_io(g, fn, a, cur, 0);
		if (err)
			goto out;
		if (old)
			memcpy(old, cur, a->bytes);
	}
	if (a->op->id == LM_OP_NO_OP)
		goto out;
	if (a->op->id == LM_OP_REPLACE) {
		err = target_io(g, fn, a, (void *)(uintptr_t)in, 1);
	} else if (apply_packed(a->op, in, cur, n, a->basic)) {
		err = lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	} else {
		err = target_io(g, fn, a, cur, 1);
	}
out:
	lm_win_acc_unlock(win, a->t);
	lm_scratch_put(cur, a->bytes);
	return err;
}

static int do_acc(struct libmsg_win *win, const char *fn, struct rma_args *a,
		  struct lm_tgt *g)
{
	unsigned char *itmp = NULL, *rtmp = NULL, *old = NULL;
	const unsigned char *in = NULL;
	int err;

	if (a->op->id != LM_OP_NO_OP) {
		in = packed(a->obuf, a->ocount, a->otype, &itmp);
		if (!in)
			return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	if (a->kind == OP_GACC) {
		old = room(a->rbuf, a->rcount, a->rtype, &rtmp);
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
		unroom(a->rbuf, a->rcount, a->rtype, rtmp);
	else
		lm_scratch_put(rtmp, a->bytes);
	return err;
}

static int do_cas(struct libmsg_win *win, const char *fn, struct rma_args *a,
		  struct lm_tgt *g)
{
	uint64_t s = (uint64_t)a->ttype->size;
	unsigned char cur[16];
	int err;

	if (win->mapped && !g->remote &&
	    lm_rma_atomic_ok(a->ttype, local(g, a->taddr))) {
		if ((err = lm_win_atomics_enter(win, a->t, fn)))
			return err;
		lm_rma_atomic_cas(local(g, a->taddr), a->obuf, a->cbuf, a->rbuf,
				  s);
		lm_win_atomics_leave(win, a->t);
		return MPI_SUCCESS;
	}
	err = lm_win_acc_lock(win, a->t, fn);
	if (err)
		return err;
	err = target_io(g, fn, a, cur, 0);
	if (!err) {
		memcpy(a->rbuf, cur, s);
		if (!memcmp(cur, a->cbuf, s))
			err = target_io(g, fn, a, (void *)(uintptr_t)a->obuf, 1);
	}
	lm_win_acc_unlock(win, a->t);
	return err;
}

/* ---- Checks ---------------------------------------------------------------------- */

static int check_type(struct libmsg_win *win, const char *fn, const char *what,
		      int count, MPI_Datatype dt)
{
	if (count < 0)
		return lm_werr(win, fn, MPI_ERR_COUNT, "%s count %d is negative",
			       what, count);
	if (lm_check_datatype(dt))
		return lm_werr(win, fn, MPI_ERR_TYPE, "%s datatype: %s", what,
			       lm_datatype_why(dt));
	return MPI_SUCCESS;
}

static int check_buf(struct libmsg_win *win, const char *fn, const char *what,
		     const void *buf, int count, MPI_Datatype dt)
{
	if (!buf && count > 0 && dt->size && dt->predefined)
		return lm_werr(win, fn, MPI_ERR_BUFFER,
			       "%s buffer is NULL for %d element(s)", what,
			       count);
	return MPI_SUCCESS;
}

static MPI_Datatype basic_of(MPI_Datatype dt)
{
	return dt->basic;
}

/* The accumulate's op and types. */
static int check_acc(struct libmsg_win *win, const char *fn, struct rma_args *a)
{
	const char *why;
	int err;

	if (!a->op || a->op->magic != LM_MAGIC_OP)
		return lm_werr(win, fn, MPI_ERR_OP, "%s",
			       a->op ? "invalid operation" :
			       "operation is MPI_OP_NULL");
	if (!a->op->predefined)
		return lm_werr(win, fn, MPI_ERR_OP,
			       "one-sided accumulates take predefined operations only, not %s",
			       a->op->name);
	a->basic = basic_of(a->ttype);
	if (!a->basic)
		return lm_werr(win, fn, MPI_ERR_TYPE,
			       "the target datatype mixes basic types: accumulates need one");
	err = lm_op_check(a->op, a->basic, &why);
	if (err)
		return lm_werr(win, fn, err, "%s", why);
	if (a->op->id != LM_OP_NO_OP && basic_of(a->otype) != a->basic)
		return lm_werr(win, fn, MPI_ERR_TYPE,
			       "origin data of %s, target data of %s: accumulates need the same basic type",
			       basic_of(a->otype) ? basic_of(a->otype)->name :
			       "mixed types", a->basic->name);
	if (a->kind == OP_GACC && basic_of(a->rtype) != a->basic)
		return lm_werr(win, fn, MPI_ERR_TYPE,
			       "result data of %s, target data of %s: they must be of the same basic type",
			       basic_of(a->rtype) ? basic_of(a->rtype)->name :
			       "mixed types", a->basic->name);
	return MPI_SUCCESS;
}

/* Compare-and-swap's type: an integer, logical or byte one. */
static int cas_type(MPI_Datatype dt)
{
	switch (dt->index) {
	case LM_DT_CHAR: case LM_DT_SIGNED_CHAR: case LM_DT_UNSIGNED_CHAR:
	case LM_DT_BYTE: case LM_DT_SHORT: case LM_DT_UNSIGNED_SHORT:
	case LM_DT_INT: case LM_DT_UNSIGNED: case LM_DT_LONG:
	case LM_DT_UNSIGNED_LONG: case LM_DT_LONG_LONG:
	case LM_DT_UNSIGNED_LONG_LONG: case LM_DT_C_BOOL: case LM_DT_INT8_T:
	case LM_DT_INT16_T: case LM_DT_INT32_T: case LM_DT_INT64_T:
	case LM_DT_UINT8_T: case LM_DT_UINT16_T: case LM_DT_UINT32_T:
	case LM_DT_UINT64_T: case LM_DT_AINT: case LM_DT_OFFSET:
	case LM_DT_COUNT: case LM_DT_WCHAR:
		return 1;
	}
	return 0;
}

/* Where the target's data is, inside its window: or MPI_ERR_RMA_RANGE. */
static int check_range(struct libmsg_win *win, const char *fn,
		       struct rma_args *a)
{
	struct lm_win_peer *p = &win->peer[a->t];
	MPI_Datatype dt = a->ttype;
	int64_t off, last, lo, hi;

	if (__builtin_mul_overflow((int64_t)a->disp, (int64_t)p->disp_unit,
				   &off))
		return lm_werr(win, fn, MPI_ERR_RMA_RANGE,
			       "displacement %lld is far outside the window",
			       (long long)a->disp);
	last = (int64_t)(a->tcount - 1) * dt->extent;
	lo = dt->true_lb + (last < 0 ? last : 0);
	hi = dt->true_lb + dt->true_extent + (last > 0 ? last : 0);
	a->taddr = p->base + (uint64_t)off;
	a->lo = a->taddr + (uint64_t)lo;
	a->hi = a->taddr + (uint64_t)hi;
	if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
		return MPI_SUCCESS;	/* target_of finds the region */
	if (off + lo < 0 || off + hi > (int64_t)p->size)
		return lm_werr(win, fn, MPI_ERR_RMA_RANGE,
			       "target rank %d: bytes [%lld, %lld) are not all in its window of %llu bytes (displacement %lld, unit %d)",
			       a->t, (long long)(off + lo), (long long)(off + hi),
			       (unsigned long long)p->size, (long long)a->disp,
			       p->disp_unit);
	return MPI_SUCCESS;
}

static int check_args(MPI_Win win, const char *fn, struct rma_args *a)
{
	uint64_t obytes;
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (a->t != MPI_PROC_NULL && (a->t < 0 || a->t >= win->size))
		return lm_werr(win, fn, MPI_ERR_RANK,
			       "target rank %d is not in the window (of %d)",
			       a->t, win->size);
	if (a->kind == OP_CAS) {
		a->ocount = a->tcount = a->rcount = 1;
		a->otype = a->ttype = a->rtype;
	}
	if (a->kind != OP_GACC || a->op != MPI_NO_OP)
		if ((err = check_type(win, fn, "origin", a->ocount, a->otype)))
			return err;
	if ((err = check_type(win, fn, "target", a->tcount, a->ttype)))
		return err;
	if (a->kind == OP_GACC &&
	    (err = check_type(win, fn, "result", a->rcount, a->rtype)))
		return err;
	if (a->disp < 0)
		return lm_werr(win, fn, MPI_ERR_DISP,
			       "target displacement %lld is negative",
			       (long long)a->disp);
	a->bytes = (uint64_t)a->tcount * (uint64_t)a->ttype->size;
	if (a->kind == OP_CAS) {
		if (!cas_type(a->ttype))
			return lm_werr(win, fn, MPI_ERR_TYPE,
				       "%s takes an integer, logical or byte datatype, not %s",
				       fn, a->ttype->name);
		if (!a->obuf || !a->cbuf || !a->rbuf)
			return lm_werr(win, fn, MPI_ERR_BUFFER,
				       "origin, compare or result buffer is NULL");
	} else if (a->kind == OP_ACC || a->kind == OP_GACC) {
		if ((err = check_acc(win, fn, a)))
			return err;
	}
	if (a->kind != OP_GACC || a->op != MPI_NO_OP) {
		if ((err = check_buf(win, fn, "origin", a->obuf, a->ocount,
				     a->otype)))
			return err;
		obytes = (uint64_t)a->ocount * (uint64_t)a->otype->size;
		if (obytes != a->bytes)
			return lm_werr(win, fn, MPI_ERR_TYPE,
				       "origin data is %llu bytes, target data %llu: their type signatures differ",
				       (unsigned long long)obytes,
				       (unsigned long long)a->bytes);
	}
	if (a->kind == OP_GACC) {
		if ((err = check_buf(win, fn, "result", a->rbuf, a->rcount,
				     a->rtype)))
			return err;
		if ((uint64_t)a->rcount * (uint64_t)a->rtype->size != a->bytes)
			return lm_werr(win, fn, MPI_ERR_TYPE,
				       "result data is %llu bytes, target data %llu: their type signatures differ",
				       (unsigned long long)a->rcount *
				       (unsigned long long)a->rtype->size,
				       (unsigned long long)a->bytes);
	}
	if (a->t == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (!lm_win_access_ok(win, a->t, a->passive_only))
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       a->passive_only ?
			       "no passive target epoch on rank %d: request-based operations need MPI_Win_lock or MPI_Win_lock_all" :
			       "no epoch is open for rank %d: call MPI_Win_fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all first",
			       a->t);
	return a->bytes ? check_range(win, fn, a) : MPI_SUCCESS;
}

/* ---- The calls ------------------------------------------------------------------ */

static int rma(MPI_Win win, const char *fn, struct rma_args *a)
{
	struct lm_tgt g;
	int err = check_args(win, fn, a);

	if (err || a->t == MPI_PROC_NULL || !a->bytes)
		return err;
	err = target_of(win, fn, a, &g);
	if (err)
		return err;
	switch (a->kind) {
	case OP_PUT:
		return do_put(win, fn, a, &g);
	case OP_GET:
		return do_get(win, fn, a, &g);
	case OP_CAS:
		return do_cas(win, fn, a, &g);
	default:
		return do_acc(win, fn, a, &g);
	}
}

/* A request-based operation is over when it returns: a completed request. */
static int rma_req(MPI_Win win, const char *fn, struct rma_args *a,
		   MPI_Request *request)
{
	struct libmsg_request *r;
	int err;

	if (!request)
		return lm_check_win(win, fn) ? MPI_ERR_WIN :
			lm_werr(win, fn, MPI_ERR_REQUEST, "request is NULL");
	*request = MPI_REQUEST_NULL;
	a->passive_only = 1;
	err = rma(win, fn, a);
	if (err)
		return err;
	r = lm_req_new(LM_REQ_SEND);
	if (!r)
		return lm_werr(win, fn, MPI_ERR_NO_MEM,
			       "out of memory for a request");
	r->comm = MPI_COMM_WORLD;
	r->peer = r->wpeer = MPI_PROC_NULL;
	lm_req_complete(r);
	*request = r;
	return MPI_SUCCESS;
}

int MPI_Put(const void *origin_addr, int origin_count,
	    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
	    int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_PUT, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype,
	};

	return rma(win, "MPI_Put", &a);
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	    int target_rank, MPI_Aint target_disp, int target_count,
	    MPI_Datatype target_datatype, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_GET, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype,
	};

	return rma(win, "MPI_Get", &a);
}

int MPI_Accumulate(const void *origin_addr, int origin_count,
		   MPI_Datatype origin_datatype, int target_rank,
		   MPI_Aint target_disp, int target_count,
		   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_ACC, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype, .op = op,
	};

	/* MPI_NO_OP changes nothing: only its checks remain. */
	return rma(win, "MPI_Accumulate", &a);
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count,
		       MPI_Datatype origin_datatype, void *result_addr,
		       int result_count, MPI_Datatype result_datatype,
		       int target_rank, MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_GACC, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .rbuf = result_addr,
		.rcount = result_count, .rtype = result_datatype,
		.t = target_rank, .disp = target_disp,
		.tcount = target_count, .ttype = target_datatype, .op = op,
	};

	return rma(win, "MPI_Get_accumulate", &a);
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr,
		     MPI_Datatype datatype, int target_rank,
		     MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Fetch_and_op";
	struct rma_args a = {
		.kind = OP_GACC, .obuf = origin_addr, .ocount = 1,
		.otype = datatype, .rbuf = result_addr, .rcount = 1,
		.rtype = datatype, .t = target_rank, .disp = target_disp,
		.tcount = 1, .ttype = datatype, .op = op,
	};

	if (!lm_check_win(win, fn) && lm_datatype_valid(datatype) &&
	    !datatype->predefined)
		return lm_werr(win, fn, MPI_ERR_TYPE,
			       "MPI_Fetch_and_op takes a predefined datatype, not a derived one");
	return rma(win, fn, &a);
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
			 void *result_addr, MPI_Datatype datatype,
			 int target_rank, MPI_Aint target_disp, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_CAS, .obuf = origin_addr, .cbuf = compare_addr,
		.rbuf = result_addr, .rtype = datatype, .t = target_rank,
		.disp = target_disp,
	};

	return rma(win, "MPI_Compare_and_swap", &a);
}

int MPI_Rput(const void *origin_addr, int origin_count,
	     MPI_Datatype origin_datatype, int target_rank,
	     MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_PUT, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype,
	};

	return rma_req(win, "MPI_Rput", &a, request);
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	     int target_rank, MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_GET, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype,
	};

	return rma_req(win, "MPI_Rget", &a, request);
}

int MPI_Raccumulate(const void *origin_addr, int origin_count,
		    MPI_Datatype origin_datatype, int target_rank,
		    MPI_Aint target_disp, int target_count,
		    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
		    MPI_Request *request)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_ACC, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype, .op = op,
	};

	return rma_req(win, "MPI_Raccumulate", &a, request);
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, void *result_addr,
			int result_count, MPI_Datatype result_datatype,
			int target_rank, MPI_Aint target_disp,
			int target_count, MPI_Datatype target_datatype,
			MPI_Op op, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_GACC, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .rbuf = result_addr,
		.rcount = result_count, .rtype = result_datatype,
		.t = target_rank, .disp = target_disp,
		.tcount = target_count, .ttype = target_datatype, .op = op,
	};

	return rma_req(win, "MPI_Rget_accumulate", &a, request);
}
