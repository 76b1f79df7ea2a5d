// SPDX-License-Identifier: MIT
/*
 * Collectives on intercommunicators (MPI-3.1 5.2.2), reductions:
 * Reduce, Allreduce, Reduce_scatter, Reduce_scatter_block.  A group's
 * result is the reduction of the other group's data.  As in
 * coll_inter.c: a reduction in each group on lc (in rank order, so a
 * non-commutative op sees the order MPI gives), and the leaders'
 * messages on xc.  Scan and Exscan have no intercommunicator form.
 *
 * Cost (l local, r remote processes, R(n) a reduction on n):
 *   Reduce          R(r) to remote rank 0 + one message to the root
 *   Allreduce       R(l) + a leader exchange + a bcast, each side
 *   Reduce_scatter  R(l) of the whole vector + a leader exchange +
 *                   a scatter(v) on each side
 */

#include <stdlib.h>

#include "coll/coll_inter.h"

#define TAG	3

/*
 * The leader's buffer for count elements of dt (others: NULL), where
 * the elements' bounds fall inside it; *mem is what to free.
 */
static int elems_tmp(MPI_Comm ic, int count, MPI_Datatype dt, void **buf,
		     void **mem)
{
	int64_t n;

	*buf = *mem = NULL;
	if (ic->rank != 0)
		return MPI_SUCCESS;
	n = count > 0 ? dt->true_extent + (int64_t)(count - 1) * dt->extent : 0;
	*mem = malloc(n > 0 ? (size_t)n : 1);
	if (!*mem)
		return MPI_ERR_NO_MEM;
	*buf = (char *)*mem - dt->true_lb;
	return MPI_SUCCESS;
}

static int first(int a, int b)
{
	return a ? a : b;
}

int lm_inter_reduce(const char *fn, const void *sbuf, void *rbuf, int count,
		    MPI_Datatype dt, MPI_Op op, int root, MPI_Comm ic)
{
	int err = lm_inter_root(ic, fn, root);
	void *tmp, *mem;

	if (err || root == MPI_PROC_NULL)
		return err;
	if (root == MPI_ROOT)
		return lm_inter_fail(ic, fn, MPI_Recv(rbuf, count, dt, 0, TAG,
						      ic->xc,
						      MPI_STATUS_IGNORE));
	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	err = elems_tmp(ic, count, dt, &tmp, &mem);
	err = first(err, MPI_Reduce(sbuf, tmp, count, dt, op, 0, ic->lc));
	if (!err && ic->rank == 0)
		err = MPI_Send(tmp, count, dt, root, TAG, ic->xc);
	free(mem);
	return lm_inter_fail(ic, fn, err);
}

int lm_inter_allreduce(const char *fn, const void *sbuf, void *rbuf,
		       int count, MPI_Datatype dt, MPI_Op op, MPI_Comm ic)
{
	void *tmp, *mem;
	int err;

	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	err = elems_tmp(ic, count, dt, &tmp, &mem);
	err = first(err, MPI_Reduce(sbuf, tmp, count, dt, op, 0, ic->lc));
	/* Each leader gets the other group's result, and spreads it. */
	if (!err && ic->rank == 0)
		err = MPI_Sendrecv(tmp, count, dt, 0, TAG, rbuf, count, dt, 0,
				   TAG, ic->xc, MPI_STATUS_IGNORE);
	free(mem);
	err = first(err, MPI_Bcast(rbuf, count, dt, 0, ic->lc));
	return lm_inter_fail(ic, fn, err);
}

/*
 * Reduce_scatter (counts, one per local rank) and _block (counts NULL,
 * count each): the vector's total is the same in both groups.
 */
int lm_inter_reduce_scatter(const char *fn, const void *sbuf, void *rbuf,
			    const int counts[], int count, MPI_Datatype dt,
			    MPI_Op op, MPI_Comm ic)
{
	void *tmp, *mem, *res, *rmem;
	int err, i, total = 0, *displs = NULL;

	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	if (counts) {
		displs = malloc((size_t)ic->size * sizeof(int));
		if (!displs)
			return lm_error(ic, fn, MPI_ERR_NO_MEM, "out of memory");
		for (i = 0; i < ic->size; i++) {
			displs[i] = total;
			total += counts[i];
		}
	} else {
		total = count * ic->size;
	}
	err = elems_tmp(ic, total, dt, &tmp, &mem);
	if (!err)
		err = elems_tmp(ic, total, dt, &res, &rmem);
	else
		res = rmem = NULL;
	err = first(err, MPI_Reduce(sbuf, tmp, total, dt, op, 0, ic->lc));
	if (!err && ic->rank == 0)
		err = MPI_Sendrecv(tmp, total, dt, 0, TAG, res, total, dt, 0,
				   TAG, ic->xc, MPI_STATUS_IGNORE);
	free(mem);
	if (counts)
		err = first(err, MPI_Scatterv(res, counts, displs, dt, rbuf,
					      counts[ic->rank], dt, 0, ic->lc));
	else
		err = first(err, MPI_Scatter(res, count, dt, rbuf, count, dt, 0,
					     ic->lc));
	free(rmem);
	free(displs);
	return lm_inter_fail(ic, fn, err);
}
