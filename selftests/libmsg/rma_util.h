/* SPDX-License-Identifier: MIT */
/*
 * rma_util.h: what the one-sided tests share: a window of each flavor
 * made the same way (MPI_Win_create over malloc'd memory,
 * MPI_Win_allocate, MPI_Win_allocate_shared, MPI_Win_create_dynamic
 * with the memory attached), and the target displacement of element k
 * of a rank's memory in each (a dynamic window's is an address, which
 * every rank learns from an MPI_Allgather).
 */
#ifndef LIBMSG_RMA_UTIL_H
#define LIBMSG_RMA_UTIL_H

#include "test.h"

enum { T_CREATE, T_ALLOCATE, T_SHARED, T_DYNAMIC, T_FLAVORS };

static const char *const t_flavor_name[T_FLAVORS] = {
	"create", "allocate", "allocate_shared", "dynamic",
};

struct t_win {
	MPI_Win win;
	int flavor;
	MPI_Comm comm;
	int unit;		/* bytes of a displacement unit */
	size_t bytes;		/* this rank's memory */
	void *base;		/* ... here */
	void *mem;		/* malloc'd: create, dynamic */
	MPI_Aint *addr;		/* dynamic: every rank's memory's address */
};

/* A window of bytes per rank (zeroed), unit bytes a displacement. */
static inline void t_win_make(struct t_win *w, int flavor, size_t bytes,
			      int unit, MPI_Comm comm)
{
	int n, me;

	memset(w, 0, sizeof(*w));
	w->flavor = flavor;
	w->comm = comm;
	w->unit = flavor == T_DYNAMIC ? 1 : unit;
	w->bytes = bytes;
	MPI_OK(MPI_Comm_size(comm, &n));
	MPI_OK(MPI_Comm_rank(comm, &me));
	switch (flavor) {
	case T_CREATE:
		w->mem = calloc(1, bytes ? bytes : 1);
		CHECK(w->mem, "out of memory");
		w->base = w->mem;
		MPI_OK(MPI_Win_create(w->base, (MPI_Aint)bytes, unit,
				      MPI_INFO_NULL, comm, &w->win));
		break;
	case T_ALLOCATE:
		MPI_OK(MPI_Win_allocate((MPI_Aint)bytes, unit, MPI_INFO_NULL,
					comm, &w->base, &w->win));
		break;
	case T_SHARED:
		MPI_OK(MPI_Win_allocate_shared((MPI_Aint)bytes, unit,
					       MPI_INFO_NULL, comm, &w->base,
					       &w->win));
		break;
	default:
		w->mem = calloc(1, bytes ? bytes : 1);
		CHECK(w->mem, "out of memory");
		w->base = w->mem;
		w->addr = calloc((size_t)n, sizeof(*w->addr));
		CHECK(w->addr, "out of memory");
		MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &w->win));
		MPI_OK(MPI_Win_attach(w->win, w->base, (MPI_Aint)bytes));
		MPI_OK(MPI_Get_address(w->base, &w->addr[me]));
		MPI_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
				     w->addr, 1, MPI_AINT, comm));
		break;
	}
	memset(w->base, 0, bytes);
	MPI_OK(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Barrier(comm));
}

/* The displacement of byte `off` of rank t's memory, in w's units. */
static inline MPI_Aint t_disp(const struct t_win *w, int t, size_t off)
{
	if (w->flavor == T_DYNAMIC)
		return w->addr[t] + (MPI_Aint)off;
	return (MPI_Aint)(off / (size_t)w->unit);
}

static inline void t_win_free(struct t_win *w)
{
	MPI_OK(MPI_Barrier(w->comm));
	if (w->flavor == T_DYNAMIC)
		MPI_OK(MPI_Win_detach(w->win, w->base));
	MPI_OK(MPI_Win_free(&w->win));
	CHECK(w->win == MPI_WIN_NULL, "MPI_Win_free left the handle");
	free(w->mem);
	free(w->addr);
}

#endif /* LIBMSG_RMA_UTIL_H */
