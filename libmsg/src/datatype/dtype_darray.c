// SPDX-License-Identifier: MIT
/*
 * MPI_Type_create_darray (MPI-3.1 section 4.1.4): one process's part of
 * a global array distributed over a grid of processes, each dimension
 * block-wise, cyclically (blocks of darg) or not at all.  Process rank
 * sits at the row-major coordinates of the grid psizes.
 *
 * Each dimension gives the runs of global indices this process owns.
 * The type is built from the fastest dimension out (the last in C
 * order, the first in Fortran order): an hindexed type of the runs over
 * the type so far, which is resized to its dimension's stride, so that
 * the next dimension's runs step over whole rows.  The result spans the
 * whole array: lower bound 0, extent the array's bytes, its elements in
 * the array's order.
 */

#include <stdlib.h>

#include "datatype/datatype.h"

/* The runs of indices of one dimension a process owns. */
struct runs {
	int n;
	int *len;
	MPI_Aint *disp;		/* index * the dimension's stride, in bytes */
};

static int block_size(int gsize, int darg, int psize)
{
	return darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize :
		darg;
}

/* What coordinate coord owns of a dimension of gsize, stride bytes apart. */
static int dim_runs(int gsize, int distrib, int darg, int psize, int coord,
		    int64_t stride, struct runs *r)
{
	int64_t s, b, step;
	int max;

	if (distrib == MPI_DISTRIBUTE_CYCLIC) {
		b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
		step = b * psize;
		max = (int)((gsize + step - 1) / step);
	} else {
		b = distrib == MPI_DISTRIBUTE_NONE ? gsize :
			block_size(gsize, darg, psize);
		step = (int64_t)gsize + 1;
		max = 1;
	}
	r->n = 0;
	r->len = malloc((size_t)max * sizeof(*r->len) + 1);
	r->disp = malloc((size_t)max * sizeof(*r->disp) + 1);
	if (!r->len || !r->disp)
		return MPI_ERR_NO_MEM;
	s = distrib == MPI_DISTRIBUTE_NONE ? 0 : (int64_t)coord * b;
	for (; s < gsize; s += step) {
		r->len[r->n] = (int)(s + b <= gsize ? b : gsize - s);
		r->disp[r->n++] = (MPI_Aint)(s * stride);
	}
	return MPI_SUCCESS;
}

static void runs_free(struct runs *r)
{
	free(r->len);
	free(r->disp);
}

static int check_dims(const char *fn, int size, int rank, int ndims,
		      const int *gsizes, const int *distribs, const int *dargs,
		      const int *psizes, int order)
{
	int64_t procs = 1;
	int i;

	if (size < 1 || rank < 0 || rank >= size)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"rank %d of size %d is not a process", rank, size);
	if (ndims < 1)
		return lm_error(NULL, fn, MPI_ERR_ARG, "ndims %d is not positive",
				ndims);
	if (!gsizes || !distribs || !dargs || !psizes)
		return lm_error(NULL, fn, MPI_ERR_ARG, "an array argument is NULL");
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN",
				order);
	for (i = 0; i < ndims; i++) {
		if (gsizes[i] < 1 || psizes[i] < 1)
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"dimension %d: gsize %d, psize %d", i,
					gsizes[i], psizes[i]);
		if (distribs[i] != MPI_DISTRIBUTE_BLOCK &&
		    distribs[i] != MPI_DISTRIBUTE_CYCLIC &&
		    distribs[i] != MPI_DISTRIBUTE_NONE)
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"dimension %d: distribution %d is not BLOCK, CYCLIC or NONE",
					i, distribs[i]);
		if (distribs[i] == MPI_DISTRIBUTE_NONE && psizes[i] != 1)
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"dimension %d: MPI_DISTRIBUTE_NONE over %d processes",
					i, psizes[i]);
		if (distribs[i] != MPI_DISTRIBUTE_NONE &&
		    dargs[i] != MPI_DISTRIBUTE_DFLT_DARG && dargs[i] < 1)
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"dimension %d: darg %d", i, dargs[i]);
		if (distribs[i] == MPI_DISTRIBUTE_BLOCK &&
		    (int64_t)block_size(gsizes[i], dargs[i], psizes[i]) *
		    psizes[i] < gsizes[i])
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"dimension %d: blocks of %d over %d processes do not cover %d",
					i, dargs[i], psizes[i], gsizes[i]);
		procs *= psizes[i];
		if (procs > size)
			break;
	}
	if (procs != size)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"the process grid does not have %d processes", size);
	return MPI_SUCCESS;
}

/*
 * Wrap the type so far (t, owned unless it is old) one dimension out;
 * on failure (reported) *t is old.
 */
static int wrap(const char *fn, MPI_Datatype old, MPI_Datatype *t,
		const struct runs *r, int64_t extent)
{
	MPI_Datatype next;
	int err;

	err = lm_dt_hindexed(fn, r->n, r->len, r->disp, *t, &next);
	if (*t != old)
		lm_dt_release(*t);
	*t = old;
	if (err)
		return err;
	err = lm_dt_resized(fn, next, 0, (MPI_Aint)extent, t);
	lm_dt_release(next);
	return err;
}

int MPI_Type_create_darray(int size, int rank, int ndims,
			   const int array_of_gsizes[],
			   const int array_of_distribs[],
			   const int array_of_dargs[],
			   const int array_of_psizes[], int order,
			   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_darray";
	struct lm_ints ints[8] = {
		{ &size, 1 }, { &rank, 1 }, { &ndims, 1 },
		{ array_of_gsizes, ndims }, { array_of_distribs, ndims },
		{ array_of_dargs, ndims }, { array_of_psizes, ndims },
		{ &order, 1 },
	};
	MPI_Datatype t = oldtype;
	struct runs r;
	int64_t stride, next;
	int k, d, j, coord, err;

	lm_check_init(fn);
	if (!newtype)
		return lm_error(NULL, fn, MPI_ERR_ARG, "newtype is NULL");
	if (!lm_datatype_valid(oldtype))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "oldtype: %s",
				lm_datatype_why(oldtype));
	err = check_dims(fn, size, rank, ndims, array_of_gsizes,
			 array_of_distribs, array_of_dargs, array_of_psizes,
			 order);
	if (err)
		return err;
	stride = oldtype->extent;
	for (k = 0; k < ndims; k++) {
		d = order == MPI_ORDER_C ? ndims - 1 - k : k;
		/* Row-major grid: the last dimension's coordinate varies fastest. */
		coord = rank;
		for (j = ndims - 1; j > d; j--)
			coord /= array_of_psizes[j];
		coord %= array_of_psizes[d];
		r.len = NULL;
		r.disp = NULL;
		if (__builtin_mul_overflow(stride, (int64_t)array_of_gsizes[d],
					   &next))
			err = lm_error(NULL, fn, MPI_ERR_ARG,
				       "the array is larger than 2^63 bytes");
		else if (dim_runs(array_of_gsizes[d], array_of_distribs[d],
				  array_of_dargs[d], array_of_psizes[d], coord,
				  stride, &r))
			err = lm_error(NULL, fn, MPI_ERR_NO_MEM,
				       "out of memory for a datatype");
		else
			err = wrap(fn, oldtype, &t, &r, next);
		runs_free(&r);
		stride = next;
		if (err) {
			if (t != oldtype)
				lm_dt_release(t);
			return err;
		}
	}
	*newtype = t;
	return lm_dt_made(fn, MPI_SUCCESS, newtype, MPI_COMBINER_DARRAY, ints, 8,
			  NULL, 0, &oldtype, 1);
}
