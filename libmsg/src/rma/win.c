// SPDX-License-Identifier: MIT
/*
 * Windows (MPI-3.1 section 11.2): MPI_Win_create, Win_allocate,
 * Win_allocate_shared, Win_create_dynamic with Win_attach and
 * Win_detach, Win_free, Win_shared_query.  What a window answers (its
 * attributes, group, name, info and error handler) is in win_obj.c.
 *
 * Creation is collective over the communicator given: a context id
 * for the window's own communicator (its fence barriers and PSCW
 * messages never meet the program's traffic), an MPI_Allgather of each
 * member's size, displacement unit, process and exposed memory, then
 * the window's segment (seg.c), which every member maps:
 *
 * - MPI_Win_allocate: each member's memory is a page-aligned part of
 *   the segment.  Every member maps all of it, so an origin reaches a
 *   target with loads and stores, and accumulates with CPU atomics.
 * - MPI_Win_allocate_shared: the same, the parts contiguous (rank i's
 *   right after rank i - 1's) unless alloc_shared_noncontig is set;
 *   MPI_Win_shared_query gives a member's part as mapped here.
 * - MPI_Win_create: the program's memory cannot be moved into shared
 *   memory: each member exposes it through the memory interface
 *   (rma.h; the fallback: process_vm_readv/writev by the origin).
 *   Accumulates hold the target's accumulate lock, in the segment.
 * - MPI_Win_create_dynamic: memory attached later (MPI_Win_attach) is
 *   exposed the same way and published in the member's table in the
 *   segment (a sequence count around each change: readers take a
 *   consistent copy without a lock); an origin finds the region
 *   holding the target's bytes there.
 *
 * libmsg's windows are MPI_WIN_UNIFIED: the memory the origin reaches
 * is the target's own memory, with no copy of its own to make
 * consistent.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rma/rma.h"

int lm_check_win(MPI_Win win, const char *fn)
{
	lm_check_init(fn);
	if (!lm_win_valid(win))
		return lm_error(NULL, fn, MPI_ERR_WIN, "%s",
				win ? "invalid window (freed, or not a window)" :
				"window is MPI_WIN_NULL");
	return MPI_SUCCESS;
}

/* What a member tells the others at creation. */
struct win_info {
	struct lm_rma_desc d;	/* create: its memory, exposed */
	uint64_t size;
	int32_t disp_unit;
	int32_t world;
};

static uint64_t page(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t page_up(uint64_t x)
{
	return (x + page() - 1) & ~(page() - 1);
}

/* Hints a window keeps (and MPI_Win_get_info gives back). */
static void hints_default(struct libmsg_win *w)
{
	strcpy(w->no_locks, "false");
	strcpy(w->acc_ordering, "rar,raw,war,waw");
	strcpy(w->acc_ops, "same_op_no_op");
	strcpy(w->same_size, "false");
	strcpy(w->same_disp_unit, "false");
}

/* A hint's value, cut to what the window keeps. */
static void hint(char *dst, size_t n, const char *v)
{
	size_t l = strnlen(v, n - 1);

	memcpy(dst, v, l);
	dst[l] = 0;
}

void lm_win_hints_take(struct libmsg_win *w, MPI_Info info)
{
	char v[MPI_MAX_INFO_VAL + 1];

	if (info == MPI_INFO_NULL)
		return;
	if (lm_info_lookup(info, "no_locks", v, sizeof(v)))
		hint(w->no_locks, sizeof(w->no_locks), v);
	if (lm_info_lookup(info, "accumulate_ordering", v, sizeof(v)))
		hint(w->acc_ordering, sizeof(w->acc_ordering), v);
	if (lm_info_lookup(info, "accumulate_ops", v, sizeof(v)))
		hint(w->acc_ops, sizeof(w->acc_ops), v);
	if (lm_info_lookup(info, "same_size", v, sizeof(v)))
		hint(w->same_size, sizeof(w->same_size), v);
	if (lm_info_lookup(info, "same_disp_unit", v, sizeof(v)))
		hint(w->same_disp_unit, sizeof(w->same_disp_unit), v);
}

static void win_release(struct libmsg_win *w)
{
	int i;

	if (w->peer) {
		for (i = 0; i < w->size; i++) {
			if (w->peer[i].dyn_valid)
				w->mem->detach(&w->peer[i].dyn);
			if (w->flavor == MPI_WIN_FLAVOR_CREATE && w->peer[i].pid)
				w->mem->detach(&w->peer[i].remote);
		}
	}
	if (w->flavor == MPI_WIN_FLAVOR_CREATE && w->mem)
		w->mem->unexpose(&w->mine);
	if (w->regions)
		for (i = 0; i < LM_WIN_ATTACH_MAX; i++)
			if (w->regions[i].used)
				w->mem->unexpose(&w->regions[i].d);
	lm_seg_unmap(w->seg, w->seg_bytes);
	if (w->comm)
		MPI_Comm_free(&w->comm);
	if (w->h.errh)
		lm_errh_put(w->h.errh);
	free(w->peer);
	free(w->lock);
	free(w->in_start);
	free(w->regions);
	free(w->post);
	free(w->post_reqs);
	w->h.magic = 0;
	free(w);
}

/* The window's own communicator: the members of comm on a new context. */
static int own_comm(MPI_Comm comm, const char *fn, MPI_Comm *out)
{
	struct libmsg_comm *c;
	char why[160];
	int err;

	/* Without memory this process still takes part in the agreement. */
	c = lm_comm_new(comm, comm->size, comm->world, LM_CTX_NONE);
	if (c) {
		/* Its errors come back here, to be raised on the window. */
		lm_errh_set(&c->errh, MPI_ERRORS_RETURN);
		snprintf(c->name, sizeof(c->name), "window of %.100s",
			 *comm->name ? comm->name : "a communicator");
	}
	err = lm_ctx_agree(comm, -1, c, why, sizeof(why));
	if (err)
		return lm_error(comm, fn, err, "%s", why);
	if (!c)
		return lm_error(comm, fn, MPI_ERR_NO_MEM,
				"no memory for the window's communicator");
	*out = c;
	return MPI_SUCCESS;
}

/*
 * Where each member's memory lies in the segment (allocated windows),
 * and the bytes of it all.
 */
static uint64_t data_layout(const struct win_info *in, int n, int contig,
			    uint64_t *off)
{
	uint64_t at = 0;
	int i;

	for (i = 0; i < n; i++) {
		off[i] = at;
		at += contig ? in[i].size : page_up(in[i].size);
	}
	return at;
}

int lm_win_make(MPI_Comm comm, const char *fn, int flavor, void *base,
		MPI_Aint size, int disp_unit, MPI_Info info, void *baseptr,
		MPI_Win *win)
{
	struct libmsg_win *w;
	struct win_info *in = NULL, mine = { 0 };
	uint64_t *off = NULL, data = 0;
	const char *why;
	char v[16];
	int err, i, n;

	lm_check_init(fn);
	if ((err = lm_check_intra(comm, fn)))
		return err;
	if (!win)
		return lm_error(comm, fn, MPI_ERR_ARG, "win is NULL");
	*win = MPI_WIN_NULL;
	if (baseptr)
		*(void **)baseptr = NULL;
	if (size < 0)
		return lm_error(comm, fn, MPI_ERR_SIZE, "size %lld is negative",
				(long long)size);
	if (disp_unit <= 0)
		return lm_error(comm, fn, MPI_ERR_DISP,
				"disp_unit %d is not positive", disp_unit);
	if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
		return lm_error(comm, fn, MPI_ERR_BASE,
				"base is NULL for %lld bytes", (long long)size);
	if ((flavor == MPI_WIN_FLAVOR_ALLOCATE ||
	     flavor == MPI_WIN_FLAVOR_SHARED) && !baseptr)
		return lm_error(comm, fn, MPI_ERR_ARG, "baseptr is NULL");
	if ((err = lm_check_info_arg(comm, info, fn)))
		return err;
	n = comm->size;
	w = calloc(1, sizeof(*w));
	if (w) {
		w->peer = calloc((size_t)n, sizeof(*w->peer));
		w->lock = calloc((size_t)n, 1);
		w->in_start = calloc((size_t)n, 1);
		if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
			w->regions = calloc(LM_WIN_ATTACH_MAX,
					    sizeof(*w->regions));
	}
	in = calloc((size_t)n, sizeof(*in));
	off = calloc((size_t)n, sizeof(*off));
	if (!w || !w->peer || !w->lock || !w->in_start || !in || !off ||
	    (flavor == MPI_WIN_FLAVOR_DYNAMIC && !w->regions)) {
		err = lm_error(comm, fn, MPI_ERR_NO_MEM,
			       "no memory for a window of %d", n);
		goto fail;
	}
	w->flavor = flavor;
	w->size = n;
	w->rank = comm->rank;
	w->disp_unit = disp_unit;
	w->mem = lm_rma_mem();
	w->h.errh = MPI_ERRORS_ARE_FATAL;
	hints_default(w);
	lm_win_hints_take(w, info);
	if (info != MPI_INFO_NULL &&
	    lm_info_lookup(info, "alloc_shared_noncontig", v, sizeof(v)))
		w->noncontig = !strcmp(v, "true");

	mine.size = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : (uint64_t)size;
	mine.disp_unit = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : disp_unit;
	mine.world = (int32_t)lm.job.rank;
	mine.d.pid = (uint32_t)getpid();
	if (flavor == MPI_WIN_FLAVOR_CREATE) {
		err = w->mem->expose(base, (uint64_t)size, &w->mine);
		mine.d = w->mine;
		if (err) {
			err = lm_error(comm, fn, lm_errno_class(err),
				       "cannot expose the window's memory: %s",
				       strerror(-err));
			goto fail;
		}
	}
	if ((err = own_comm(comm, fn, &w->comm)))
		goto fail;
	err = MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, in,
			    (int)sizeof(mine), MPI_BYTE, w->comm);
	if (err) {
		err = lm_error(comm, fn, err,
			       "a member of the window failed (gone?)");
		goto fail;
	}
	if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) {
		w->mapped = 1;
		data = data_layout(in, n, flavor == MPI_WIN_FLAVOR_SHARED &&
				   !w->noncontig, off);
	}
	lm_win_layout((uint32_t)n, flavor == MPI_WIN_FLAVOR_DYNAMIC, data,
		      &w->lay);
	err = lm_seg_make(w->comm, w->lay.bytes, &w->seg, &why);
	if (err) {
		err = lm_error(comm, fn, err, "%s", why);
		goto fail;
	}
	w->seg_bytes = w->lay.bytes;
	for (i = 0; i < n; i++) {
		struct lm_win_peer *p = &w->peer[i];

		p->size = in[i].size;
		p->disp_unit = in[i].disp_unit;
		p->world = in[i].world;
		p->pid = in[i].d.pid;
		if (w->mapped) {
			/* Owner addresses: offsets from its part. */
			p->map = w->seg + w->lay.data + off[i];
			p->base = 0;
		} else if (flavor == MPI_WIN_FLAVOR_CREATE) {
			p->base = in[i].d.addr;
			err = w->mem->attach(&in[i].d, &p->remote);
			if (err) {
				p->pid = 0;
				err = lm_error(comm, fn, lm_errno_class(err),
					       "cannot reach rank %d's memory: %s",
					       i, strerror(-err));
				goto fail;
			}
		}
	}
	if (w->mapped)
		w->base = w->peer[w->rank].map;
	else if (flavor == MPI_WIN_FLAVOR_CREATE)
		w->base = base;
	w->bytes = (MPI_Aint)mine.size;
	if (baseptr)
		*(void **)baseptr = w->base;
	free(in);
	free(off);
	w->h.magic = LM_MAGIC_WIN;
	*win = w;
	return MPI_SUCCESS;
fail:
	free(in);
	free(off);
	if (w)
		win_release(w);
	return err;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
		   MPI_Comm comm, MPI_Win *win)
{
	LM_GUARD();
	return lm_win_make(comm, "MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base,
			   size, disp_unit, info, NULL, win);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
		     MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	LM_GUARD();
	return lm_win_make(comm, "MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE,
			   NULL, size, disp_unit, info, baseptr, win);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
			    MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	LM_GUARD();
	return lm_win_make(comm, "MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED,
			   NULL, size, disp_unit, info, baseptr, win);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	LM_GUARD();
	return lm_win_make(comm, "MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC,
			   MPI_BOTTOM, 0, 1, info, NULL, win);
}

int MPI_Win_free(MPI_Win *win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_free";
	struct libmsg_win *w;
	int err;

	lm_check_init(fn);
	if (!win)
		return lm_error(NULL, fn, MPI_ERR_ARG, "win is NULL");
	if ((err = lm_check_win(*win, fn)))
		return err;
	w = *win;
	if (w->nlocks || w->lock_all || w->started || w->posted)
		return lm_werr(w, fn, MPI_ERR_RMA_SYNC,
			       "an epoch is open (%s): end it first",
			       w->started ? "MPI_Win_start" :
			       w->posted ? "MPI_Win_post" :
			       w->lock_all ? "MPI_Win_lock_all" : "MPI_Win_lock");
	err = lm_win_attr_delete_all(w, fn);
	if (err)
		return err;
	/* Every member is done with every other's memory. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	err = MPI_Barrier(w->comm);
	if (err)
		err = lm_werr(w, fn, err,
			      "a member of the window is gone; freed here anyway");
	win_release(w);
	*win = MPI_WIN_NULL;
	return err;
}

/* ---- Shared memory --------------------------------------------------------- */

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
			 int *disp_unit, void *baseptr)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_shared_query";
	int err = lm_check_win(win, fn), r;

	if (err)
		return err;
	if (!size || !disp_unit || !baseptr)
		return lm_werr(win, fn, MPI_ERR_ARG,
			       "size, disp_unit or baseptr is NULL");
	if (!win->mapped)
		return lm_werr(win, fn, MPI_ERR_RMA_FLAVOR,
			       "the window's memory is not shared (MPI_Win_allocate_shared makes such windows)");
	if (rank == MPI_PROC_NULL) {
		/* The first member with memory (MPI), else the first. */
		for (r = 0; r < win->size - 1 && !win->peer[r].size; r++)
			;
	} else if (rank < 0 || rank >= win->size) {
		return lm_werr(win, fn, MPI_ERR_RANK,
			       "rank %d is not in the window (of %d)", rank,
			       win->size);
	} else {
		r = rank;
	}
	*size = (MPI_Aint)win->peer[r].size;
	*disp_unit = win->peer[r].disp_unit;
	*(void **)baseptr = win->peer[r].map;
	return MPI_SUCCESS;
}

/* ---- Dynamic windows -------------------------------------------------------- */

static struct lm_rma_desc *table(struct libmsg_win *win, int t)
{
	return (struct lm_rma_desc *)(win->seg + win->lay.attach) +
		(uint64_t)t * LM_WIN_ATTACH_MAX;
}

/* Change entry k of this rank's table (len 0: a free entry). */
static void publish(struct libmsg_win *win, int k, const struct lm_rma_desc *d)
{
	struct lm_win_ctl *c = lm_win_ctl(win, win->rank);
	struct lm_rma_desc *e = table(win, win->rank) + k;
	uint32_t n = 0;
	int i;

	__atomic_fetch_add(&c->seq, 1, __ATOMIC_SEQ_CST);	/* odd */
	memcpy(e, d, sizeof(*e));
	for (i = 0; i < LM_WIN_ATTACH_MAX; i++)
		if (win->regions[i].used)
			n = (uint32_t)i + 1;
	__atomic_store_n(&c->nattach, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->seq, 1, __ATOMIC_SEQ_CST);	/* even */
}

int lm_win_find_region(struct libmsg_win *win, int t, uint64_t lo,
		       uint64_t hi, struct lm_rma_desc *out)
{
	struct lm_win_ctl *c = lm_win_ctl(win, t);
	const struct lm_rma_desc *tab = table(win, t);
	struct lm_rma_desc e;
	uint32_t s1, s2, n, k, tries = 0;
	int found;

	for (;;) {
		s1 = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			/* Its owner died while changing it: nothing to find. */
			if (++tries % 1024 == 0 &&
			    lm_rma_rank_gone(win->peer[t].world))
				return 0;
			continue;
		}
		n = __atomic_load_n(&c->nattach, __ATOMIC_RELAXED);
		if (n > LM_WIN_ATTACH_MAX)
			n = LM_WIN_ATTACH_MAX;
		found = 0;
		for (k = 0; k < n && !found; k++) {
			memcpy(&e, &tab[k], sizeof(e));
			if (e.len && lo >= e.addr && hi <= e.addr + e.len &&
			    hi > lo) {
				*out = e;
				found = 1;
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return found;
	}
}

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_attach";
	uint64_t lo = (uintptr_t)base, hi = lo + (uint64_t)size;
	struct lm_rma_desc d;
	int err = lm_check_win(win, fn), i, k = -1;

	if (err)
		return err;
	if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
		return lm_werr(win, fn, MPI_ERR_RMA_FLAVOR,
			       "memory is attached to windows of MPI_Win_create_dynamic only");
	if (size < 0)
		return lm_werr(win, fn, MPI_ERR_SIZE, "size %lld is negative",
			       (long long)size);
	if (!size)
		return MPI_SUCCESS;
	if (!base)
		return lm_werr(win, fn, MPI_ERR_BASE, "base is NULL");
	for (i = 0; i < LM_WIN_ATTACH_MAX; i++) {
		const struct lm_rma_desc *r = &win->regions[i].d;

		if (!win->regions[i].used) {
			if (k < 0)
				k = i;
			continue;
		}
		if (lo < r->addr + r->len && r->addr < hi)
			return lm_werr(win, fn, MPI_ERR_RMA_ATTACH,
				       "[%p, +%lld) overlaps memory attached already at %p",
				       base, (long long)size,
				       (void *)(uintptr_t)r->addr);
	}
	if (k < 0)
		return lm_werr(win, fn, MPI_ERR_RMA_ATTACH,
			       "%d regions are attached already, the most a rank may",
			       LM_WIN_ATTACH_MAX);
	err = win->mem->expose(base, (uint64_t)size, &d);
	if (err)
		return lm_werr(win, fn, err == -ENOMEM ? MPI_ERR_NO_MEM :
			       MPI_ERR_RMA_ATTACH, "cannot expose [%p, +%lld): %s",
			       base, (long long)size, strerror(-err));
	win->regions[k].d = d;
	win->regions[k].used = 1;
	publish(win, k, &d);
	return MPI_SUCCESS;
}

int MPI_Win_detach(MPI_Win win, const void *base)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_detach";
	struct lm_rma_desc none;
	int err = lm_check_win(win, fn), i;

	if (err)
		return err;
	if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
		return lm_werr(win, fn, MPI_ERR_RMA_FLAVOR,
			       "memory is detached from windows of MPI_Win_create_dynamic only");
	for (i = 0; i < LM_WIN_ATTACH_MAX; i++)
		if (win->regions[i].used &&
		    win->regions[i].d.addr == (uintptr_t)base)
			break;
	if (i == LM_WIN_ATTACH_MAX)
		return lm_werr(win, fn, MPI_ERR_BASE,
			       "no memory is attached at %p", base);
	win->regions[i].used = 0;
	memset(&none, 0, sizeof(none));
	publish(win, i, &none);
	win->mem->unexpose(&win->regions[i].d);
	return MPI_SUCCESS;
}
