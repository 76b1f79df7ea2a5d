// SPDX-License-Identifier: MIT
/*
 * The large-count window calls of MPI-4.0: MPI_Win_create_c,
 * MPI_Win_allocate_c, MPI_Win_allocate_shared_c (disp_unit an
 * MPI_Aint) and MPI_Win_shared_query_c.  A window keeps its
 * displacement unit in an int: a larger one is refused with
 * MPI_ERR_DISP, never cut.
 */

#include <limits.h>

#include "rma/rma.h"

static int make_c(MPI_Comm comm, const char *fn, int flavor, void *base,
		  MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
		  void *baseptr, MPI_Win *win)
{
	int err;

	if (disp_unit > INT_MAX || disp_unit < INT_MIN) {
		lm_check_init(fn);
		if ((err = lm_check_intra(comm, fn)))
			return err;
		if (win)
			*win = MPI_WIN_NULL;
		if (baseptr)
			*(void **)baseptr = NULL;
		return lm_error(comm, fn, MPI_ERR_DISP,
				"disp_unit %lld does not fit in an int, which holds a window's displacement unit",
				(long long)disp_unit);
	}
	return lm_win_make(comm, fn, flavor, base, size, (int)disp_unit, info,
			   baseptr, win);
}

int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit,
		     MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	LM_GUARD();
	return make_c(comm, "MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base,
		      size, disp_unit, info, NULL, win);
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
		       MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	LM_GUARD();
	return make_c(comm, "MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE,
		      NULL, size, disp_unit, info, baseptr, win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit,
			      MPI_Info info, MPI_Comm comm, void *baseptr,
			      MPI_Win *win)
{
	LM_GUARD();
	return make_c(comm, "MPI_Win_allocate_shared_c",
		      MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info,
		      baseptr, win);
}

int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size,
			   MPI_Aint *disp_unit, void *baseptr)
{
	int du, err;

	if (!disp_unit)
		return lm_check_win(win, "MPI_Win_shared_query_c") ?
			MPI_ERR_WIN :
			lm_werr(win, "MPI_Win_shared_query_c", MPI_ERR_ARG,
				"disp_unit is NULL");
	err = MPI_Win_shared_query(win, rank, size, &du, baseptr);
	if (!err)
		*disp_unit = du;
	return err;
}
