// SPDX-License-Identifier: MIT
/*
 * The large-count type constructors of MPI-4.0 (MPI_Type_*_c): counts,
 * block lengths and displacements as MPI_Count.  The builder works in
 * 64 bits, so contiguous, vector, hvector, the indexed family and
 * struct take any count; subarray and darray are made by their int
 * constructors and take what fits in an int.  Every one records its
 * arguments as large counts (MPI_Type_get_envelope_c/get_contents_c,
 * MPI-4.0 section 5.1.13).
 */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "datatype/dtype_layout.h"

static int check_c(const char *fn, MPI_Count count, MPI_Datatype old,
		   MPI_Datatype *newtype)
{
	lm_check_init(fn);
	if (count < 0)
		return lm_error(NULL, fn, MPI_ERR_COUNT, "count %lld is negative",
				(long long)count);
	if (old != NULL && !lm_datatype_valid(old))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "oldtype: %s",
				lm_datatype_why(old));
	if (!newtype)
		return lm_error(NULL, fn, MPI_ERR_ARG, "newtype is NULL");
	return MPI_SUCCESS;
}

static int check_blocklen_c(const char *fn, MPI_Count bl, MPI_Count i)
{
	if (bl >= 0)
		return MPI_SUCCESS;
	if (i < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"blocklength %lld is negative", (long long)bl);
	return lm_error(NULL, fn, MPI_ERR_ARG,
			"blocklength %lld of block %lld is negative",
			(long long)bl, (long long)i);
}

static int check_array_c(const char *fn, MPI_Count count, const void *p,
			 const char *what)
{
	if (count > 0 && !p)
		return lm_error(NULL, fn, MPI_ERR_ARG, "%s is NULL", what);
	return MPI_SUCCESS;
}

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype,
			  MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_contiguous_c";
	struct lm_dt_builder b = { 0 };

	TRY(check_c(fn, count, oldtype, newtype));
	if (!oldtype)
		return lm_error(NULL, fn, MPI_ERR_TYPE, "oldtype: %s",
				lm_datatype_why(oldtype));
	lm_dtb_place(&b, 0, (uint64_t)count, oldtype->extent, oldtype);
	return lm_dt_made_c(fn, lm_dtb_done(fn, &b, newtype), newtype,
			    MPI_COMBINER_CONTIGUOUS, NULL, 0, &count, 1,
			    &oldtype, 1);
}

/* count blocks of bl copies of old, stride bytes apart. */
static int hvector(const char *fn, MPI_Count count, MPI_Count bl,
		   int64_t stride, MPI_Datatype old, MPI_Datatype *newtype)
{
	struct libmsg_datatype *block;
	struct lm_dt_builder b = { 0 };
	int err;

	TRY(check_c(fn, count, old, newtype));
	if (!old)
		return lm_error(NULL, fn, MPI_ERR_TYPE, "oldtype: %s",
				lm_datatype_why(old));
	TRY(check_blocklen_c(fn, bl, -1));
	block = lm_dt_run_of(old, (uint64_t)bl, &err);
	if (!block)
		return lm_error(NULL, fn, err, "out of memory for a datatype");
	lm_dtb_place(&b, 0, (uint64_t)count, stride, block);
	lm_dt_release(block);
	return lm_dtb_done(fn, &b, newtype);
}

int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
		      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_vector_c";
	MPI_Count args[3] = { count, blocklength, stride };
	int64_t bytes;

	if (oldtype && lm_datatype_valid(oldtype) &&
	    __builtin_mul_overflow((int64_t)stride, oldtype->extent, &bytes))
		return lm_error(NULL, fn, MPI_ERR_ARG, "stride %lld is too large",
				(long long)stride);
	bytes = oldtype && lm_datatype_valid(oldtype) ?
		(int64_t)stride * oldtype->extent : 0;
	return lm_dt_made_c(fn, hvector(fn, count, blocklength, bytes, oldtype,
					newtype), newtype, MPI_COMBINER_VECTOR,
			    NULL, 0, args, 3, &oldtype, 1);
}

int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength,
			      MPI_Count stride, MPI_Datatype oldtype,
			      MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_hvector_c";
	MPI_Count args[3] = { count, blocklength, stride };

	return lm_dt_made_c(fn, hvector(fn, count, blocklength, stride, oldtype,
					newtype), newtype, MPI_COMBINER_HVECTOR,
			    NULL, 0, args, 3, &oldtype, 1);
}

/*
 * The indexed family and struct: block i is bl[i] (or blocklength)
 * copies of types[i] (or old) at displs[i], in bytes or in extents of
 * the block's type.
 */
static int blocks(const char *fn, MPI_Count count, const MPI_Count bl[],
		  MPI_Count blocklength, const MPI_Count displs[], int bytes,
		  const MPI_Datatype types[], MPI_Datatype old,
		  MPI_Datatype *newtype)
{
	struct lm_dt_builder b = { 0 };
	MPI_Datatype t;
	MPI_Count i, n;
	int64_t off;

	TRY(check_c(fn, count, types ? NULL : old, newtype));
	if (!types && !old)
		return lm_error(NULL, fn, MPI_ERR_TYPE, "oldtype: %s",
				lm_datatype_why(old));
	if (!bl)
		TRY(check_blocklen_c(fn, blocklength, -1));
	else
		TRY(check_array_c(fn, count, bl, "array_of_blocklengths"));
	TRY(check_array_c(fn, count, displs, "array_of_displacements"));
	if (types)
		TRY(check_array_c(fn, count, types, "array_of_types"));
	for (i = 0; i < count; i++) {
		t = types ? types[i] : old;
		n = bl ? bl[i] : blocklength;
		if (n < 0) {
			lm_dtb_drop(&b);
			return check_blocklen_c(fn, n, i);
		}
		if (!lm_datatype_valid(t)) {
			lm_dtb_drop(&b);
			return lm_error(NULL, fn, MPI_ERR_TYPE, "type %lld: %s",
					(long long)i, lm_datatype_why(t));
		}
		off = displs[i];
		if (!bytes && __builtin_mul_overflow(off, t->extent, &off)) {
			lm_dtb_drop(&b);
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"displacement %lld is too large",
					(long long)displs[i]);
		}
		lm_dtb_place(&b, off, (uint64_t)n, t->extent, t);
	}
	return lm_dtb_done(fn, &b, newtype);
}

/*
 * The record of an indexed constructor: count, then the block lengths
 * (or the one blocklength), then the displacements.  NULL: no memory.
 */
static MPI_Count *record(MPI_Count count, const MPI_Count bl[],
			 MPI_Count blocklength, const MPI_Count displs[],
			 int64_t *n)
{
	int64_t nb = bl ? count : 1;
	MPI_Count *r;

	*n = 1 + nb + count;
	r = malloc((size_t)*n * sizeof(*r));
	if (!r)
		return NULL;
	r[0] = count;
	if (bl)
		memcpy(r + 1, bl, (size_t)count * sizeof(*r));
	else
		r[1] = blocklength;
	if (count)
		memcpy(r + 1 + nb, displs, (size_t)count * sizeof(*r));
	return r;
}

static int indexed_c(const char *fn, int combiner, MPI_Count count,
		     const MPI_Count bl[], MPI_Count blocklength,
		     const MPI_Count displs[], int bytes,
		     const MPI_Datatype types[], MPI_Datatype old,
		     MPI_Datatype *newtype)
{
	MPI_Count *r;
	int64_t n;
	int err = blocks(fn, count, bl, blocklength, displs, bytes, types, old,
			 newtype);

	if (err)
		return err;
	r = record(count, bl, blocklength, displs, &n);
	if (!r || (types && count > INT_MAX)) {
		lm_dt_release(*newtype);
		*newtype = MPI_DATATYPE_NULL;
		free(r);
		return r ? lm_error(NULL, fn, MPI_ERR_COUNT,
				    "%lld types: more than MPI_Type_get_contents_c can count",
				    (long long)count) :
			lm_error(NULL, fn, MPI_ERR_NO_MEM,
				 "out of memory for a datatype");
	}
	err = lm_dt_made_c(fn, err, newtype, combiner, NULL, 0, r, n,
			   types ? types : &old, types ? (int)count : 1);
	free(r);
	return err;
}

int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
		       const MPI_Count array_of_displacements[],
		       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	return indexed_c("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, count,
			 array_of_blocklengths, 0, array_of_displacements, 0,
			 NULL, oldtype, newtype);
}

int MPI_Type_create_hindexed_c(MPI_Count count,
			       const MPI_Count array_of_blocklengths[],
			       const MPI_Count array_of_displacements[],
			       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	return indexed_c("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED,
			 count, array_of_blocklengths, 0,
			 array_of_displacements, 1, NULL, oldtype, newtype);
}

int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
				    const MPI_Count array_of_displacements[],
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	return indexed_c("MPI_Type_create_indexed_block_c",
			 MPI_COMBINER_INDEXED_BLOCK, count, NULL, blocklength,
			 array_of_displacements, 0, NULL, oldtype, newtype);
}

int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
				     const MPI_Count array_of_displacements[],
				     MPI_Datatype oldtype,
				     MPI_Datatype *newtype)
{
	LM_GUARD();
	return indexed_c("MPI_Type_create_hindexed_block_c",
			 MPI_COMBINER_HINDEXED_BLOCK, count, NULL, blocklength,
			 array_of_displacements, 1, NULL, oldtype, newtype);
}

int MPI_Type_create_struct_c(MPI_Count count,
			     const MPI_Count array_of_blocklengths[],
			     const MPI_Count array_of_displacements[],
			     const MPI_Datatype array_of_types[],
			     MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_struct_c";
	struct libmsg_datatype *dt;

	TRY(check_array_c(fn, count, array_of_types, "array_of_types"));
	TRY(indexed_c(fn, MPI_COMBINER_STRUCT, count, array_of_blocklengths, 0,
		      array_of_displacements, 1, array_of_types, NULL,
		      newtype));
	dt = *newtype;
	/* Like a C struct: arrays of it keep every member aligned. */
	if (!dt->explicit_bounds && dt->extent > 0 && dt->extent % dt->align) {
		dt->extent += dt->align - dt->extent % dt->align;
		lm_dt_set_flags(dt);
	}
	return MPI_SUCCESS;
}

/* n MPI_Counts as ints; NULL after reporting what does not fit. */
static int *ints_of(const char *fn, const MPI_Count *v, int n,
		    const char *what)
{
	int *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(*out));
	int i;

	if (!out) {
		lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (v[i] > INT_MAX || v[i] < INT_MIN) {
			lm_error(NULL, fn, MPI_ERR_COUNT,
				 "%s[%d] = %lld: beyond an int, which libmsg's %s takes (Not yet)",
				 what, i, (long long)v[i], fn);
			free(out);
			return NULL;
		}
		out[i] = (int)v[i];
	}
	return out;
}

int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
			       const MPI_Count array_of_subsizes[],
			       const MPI_Count array_of_starts[], int order,
			       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_subarray_c";
	MPI_Count *r;
	int *v[3] = { NULL, NULL, NULL }, ints[2] = { ndims, order };
	int err = MPI_ERR_NO_MEM, i;

	lm_check_init(fn);
	if (ndims <= 0 || !array_of_sizes || !array_of_subsizes ||
	    !array_of_starts)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"ndims %d, or an array is NULL", ndims);
	r = malloc(3 * (size_t)ndims * sizeof(*r));
	if (!r)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
	memcpy(r, array_of_sizes, (size_t)ndims * sizeof(*r));
	memcpy(r + ndims, array_of_subsizes, (size_t)ndims * sizeof(*r));
	memcpy(r + 2 * ndims, array_of_starts, (size_t)ndims * sizeof(*r));
	for (i = 0; i < 3; i++) {
		v[i] = ints_of(fn, r + i * ndims, ndims, i == 0 ? "array_of_sizes" :
			       i == 1 ? "array_of_subsizes" : "array_of_starts");
		if (!v[i]) {
			err = MPI_ERR_COUNT;
			goto out;
		}
	}
	err = MPI_Type_create_subarray(ndims, v[0], v[1], v[2], order, oldtype,
				       newtype);
	err = lm_dt_made_c(fn, err, newtype, MPI_COMBINER_SUBARRAY, ints, 2, r,
			   3 * (int64_t)ndims, &oldtype, 1);
out:
	for (i = 0; i < 3; i++)
		free(v[i]);
	free(r);
	return err;
}

int MPI_Type_create_darray_c(int size, int rank, int ndims,
			     const MPI_Count array_of_gsizes[],
			     const int array_of_distribs[],
			     const int array_of_dargs[],
			     const int array_of_psizes[], int order,
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_darray_c";
	int *g, *ints, err, i, ni;

	lm_check_init(fn);
	if (ndims <= 0 || !array_of_gsizes || !array_of_distribs ||
	    !array_of_dargs || !array_of_psizes)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"ndims %d, or an array is NULL", ndims);
	g = ints_of(fn, array_of_gsizes, ndims, "array_of_gsizes");
	if (!g)
		return MPI_ERR_COUNT;
	ni = 3 * ndims + 4;
	ints = malloc((size_t)ni * sizeof(*ints));
	if (!ints) {
		free(g);
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	ints[0] = size;
	ints[1] = rank;
	ints[2] = ndims;
	for (i = 0; i < ndims; i++) {
		ints[3 + i] = array_of_distribs[i];
		ints[3 + ndims + i] = array_of_dargs[i];
		ints[3 + 2 * ndims + i] = array_of_psizes[i];
	}
	ints[ni - 1] = order;
	err = MPI_Type_create_darray(size, rank, ndims, g, array_of_distribs,
				     array_of_dargs, array_of_psizes, order,
				     oldtype, newtype);
	err = lm_dt_made_c(fn, err, newtype, MPI_COMBINER_DARRAY, ints, ni,
			   array_of_gsizes, ndims, &oldtype, 1);
	free(ints);
	free(g);
	return err;
}

int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb,
			      MPI_Count extent, MPI_Datatype *newtype)
{
	LM_GUARD();
	MPI_Count r[2] = { lb, extent };

	return lm_dt_made_c("MPI_Type_create_resized_c",
			    MPI_Type_create_resized(oldtype, (MPI_Aint)lb,
						    (MPI_Aint)extent, newtype),
			    newtype, MPI_COMBINER_RESIZED, NULL, 0, r, 2,
			    &oldtype, 1);
}

/* ---- Counts beyond an int, for the _c calls of the layers above --------- */

int lm_big(const char *fn, struct libmsg_comm *comm, MPI_Count count,
	   MPI_Datatype dt, int *n, MPI_Datatype *t)
{
	int err;

	*t = dt;
	*n = 0;
	if (count < 0)
		return lm_error(comm, fn, MPI_ERR_COUNT, "count %lld is negative",
				(long long)count);
	if (count <= INT_MAX) {
		*n = (int)count;
		return MPI_SUCCESS;
	}
	if (lm_check_datatype(dt))
		return lm_error(comm, fn, MPI_ERR_TYPE, "%s", lm_datatype_why(dt));
	err = MPI_Type_contiguous_c(count, dt, t);
	if (!err)
		err = MPI_Type_commit(t);
	if (err) {
		if (*t != dt && *t != MPI_DATATYPE_NULL)
			MPI_Type_free(t);
		*t = dt;
		return lm_error(comm, fn, err,
				"no type for %lld elements of %s (out of memory?)",
				(long long)count, dt->name);
	}
	*n = 1;
	return MPI_SUCCESS;
}

void lm_big_drop(MPI_Datatype dt, MPI_Datatype t)
{
	if (t != dt)
		MPI_Type_free(&t);
}
