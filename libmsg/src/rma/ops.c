// SPDX-License-Identifier: MIT
/*
 * The one-sided operations' common part: the checks, the target's
 * bytes as runs, copies, and Put and Get (the accumulates: acc.c; the
 * MPI calls: calls.c).  Each operation is complete at the target and
 * at the origin when its call returns (the request-based ones return a
 * completed request), made by the origin alone:
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

#include "rma/ops.h"

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
int lm_rma_target_io(struct lm_tgt *g, const char *fn,
		     const struct rma_args *a, void *buf, int write)
{
	if (g->remote)
		return copy_runs(g, fn, a, buf, write);
	if (write)
		lm_dt_unpack(buf, a->bytes, lm_rma_local(g, a->taddr), a->tcount,
			     a->ttype);
	else
		lm_dt_pack(lm_rma_local(g, a->taddr), a->tcount, a->ttype, buf);
	return MPI_SUCCESS;
}

/* count dt's at buf packed: in place when contiguous, else a copy. */
const unsigned char *lm_rma_packed(const void *buf, int64_t count,
				   MPI_Datatype dt, unsigned char **tmp)
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
unsigned char *lm_rma_room(void *buf, int64_t count, MPI_Datatype dt,
			   unsigned char **tmp)
{
	uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;

	*tmp = NULL;
	if (lm_dt_contig(dt, count))
		return (unsigned char *)((uintptr_t)buf + (uintptr_t)dt->true_lb);
	*tmp = lm_scratch_get(bytes);
	return *tmp;
}

void lm_rma_unroom(void *buf, int64_t count, MPI_Datatype dt,
		   unsigned char *tmp)
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
			   lm_rma_local(g, a->taddr + (uint64_t)a->ttype->true_lb));
		return MPI_SUCCESS;
	}
	src = lm_rma_packed(a->obuf, a->ocount, a->otype, &tmp);
	if (!src)
		return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	err = lm_rma_target_io(g, fn, a, (void *)(uintptr_t)src, 1);
	lm_scratch_put(tmp, a->bytes);
	return err;
}

static int do_get(struct libmsg_win *win, const char *fn, struct rma_args *a,
		  struct lm_tgt *g)
{
	unsigned char *tmp, *dst;
	int err;

	if (!g->remote && lm_dt_contig(a->ttype, a->tcount)) {
		lm_dt_unpack(lm_rma_local(g, a->taddr + (uint64_t)a->ttype->true_lb),
			     a->bytes, (void *)(uintptr_t)a->obuf, a->ocount,
			     a->otype);
		return MPI_SUCCESS;
	}
	dst = lm_rma_room((void *)(uintptr_t)a->obuf, a->ocount, a->otype, &tmp);
	if (!dst)
		return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	err = lm_rma_target_io(g, fn, a, dst, 0);
	if (!err)
		lm_rma_unroom((void *)(uintptr_t)a->obuf, a->ocount, a->otype, tmp);
	else
		lm_scratch_put(tmp, a->bytes);
	return err;
}

/* ---- Checks ---------------------------------------------------------------------- */

/* A side's count (of the int or the _c calls) and type; its bytes. */
static int check_type(struct libmsg_win *win, const char *fn, const char *what,
		      MPI_Count count, MPI_Datatype dt, uint64_t *bytes)
{
	if (count < 0)
		return lm_werr(win, fn, MPI_ERR_COUNT,
			       "%s count %lld is negative", what,
			       (long long)count);
	if (lm_check_datatype(dt))
		return lm_werr(win, fn, MPI_ERR_TYPE, "%s datatype: %s", what,
			       lm_datatype_why(dt));
	if (__builtin_mul_overflow((uint64_t)count, (uint64_t)dt->size,
				   bytes) || *bytes > (uint64_t)INT64_MAX)
		return lm_werr(win, fn, MPI_ERR_COUNT,
			       "%s data of %lld elements of %lld bytes is more bytes than 64 bits count",
			       what, (long long)count, (long long)dt->size);
	return MPI_SUCCESS;
}

static int check_buf(struct libmsg_win *win, const char *fn, const char *what,
		     const void *buf, MPI_Count count, MPI_Datatype dt)
{
	if (!buf && count > 0 && dt->size && dt->predefined)
		return lm_werr(win, fn, MPI_ERR_BUFFER,
			       "%s buffer is NULL for %lld element(s)", what,
			       (long long)count);
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
	/* Counts of the _c calls: the span itself may pass 64 bits. */
	if (__builtin_mul_overflow((int64_t)(a->tcount - 1), dt->extent,
				   &last) ||
	    __builtin_add_overflow(dt->true_lb + (last < 0 ? last : 0), off,
				   &lo) ||
	    __builtin_add_overflow(dt->true_lb + dt->true_extent,
				   last > 0 ? last : 0, &hi) ||
	    __builtin_add_overflow(hi, off, &hi))
		return lm_werr(win, fn, MPI_ERR_RMA_RANGE,
			       "target rank %d: %lld elements of extent %lld at displacement %lld reach beyond any address",
			       a->t, (long long)a->tcount,
			       (long long)dt->extent, (long long)a->disp);
	lo -= off;
	hi -= off;
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
	uint64_t obytes = 0, rbytes = 0;
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
		if ((err = check_type(win, fn, "origin", a->ocount, a->otype,
				      &obytes)))
			return err;
	if ((err = check_type(win, fn, "target", a->tcount, a->ttype,
			      &a->bytes)))
		return err;
	if (a->kind == OP_GACC &&
	    (err = check_type(win, fn, "result", a->rcount, a->rtype,
			      &rbytes)))
		return err;
	if (a->disp < 0)
		return lm_werr(win, fn, MPI_ERR_DISP,
			       "target displacement %lld is negative",
			       (long long)a->disp);
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
		if (rbytes != a->bytes)
			return lm_werr(win, fn, MPI_ERR_TYPE,
				       "result data is %llu bytes, target data %llu: their type signatures differ",
				       (unsigned long long)rbytes,
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

int lm_rma_op(MPI_Win win, const char *fn, struct rma_args *a)
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
		return lm_rma_do_cas(win, fn, a, &g);
	default:
		return lm_rma_do_acc(win, fn, a, &g);
	}
}

/* A request-based operation is over when it returns: a completed request. */
int lm_rma_op_req(MPI_Win win, const char *fn, struct rma_args *a,
		  MPI_Request *request)
{
	struct libmsg_request *r;
	int err;

	if (!request)
		return lm_check_win(win, fn) ? MPI_ERR_WIN :
			lm_werr(win, fn, MPI_ERR_REQUEST, "request is NULL");
	*request = MPI_REQUEST_NULL;
	a->passive_only = 1;
	err = lm_rma_op(win, fn, a);
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
