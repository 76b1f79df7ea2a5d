// SPDX-License-Identifier: MIT
/*
 * Derived datatype constructors (MPI-3.1 section 4.1): contiguous,
 * vector, hvector, indexed, hindexed, indexed_block, hindexed_block,
 * struct, subarray, resized, dup.
 *
 * Each checks its arguments, then places copies of its old type(s) in
 * a builder (dtype_layout.c), which makes the new type's layout and
 * bounds.  A struct's extent is rounded up to the largest alignment of
 * its members unless a member has explicit bounds (create_resized,
 * subarray), as section 4.1.6 says.
 */

#include <stdlib.h>
#include <string.h>

#include "datatype/dtype_layout.h"

/* ---- Argument checks ---------------------------------------------------------- */

static int check_base(const char *fn, int count, MPI_Datatype old,
		      MPI_Datatype *newtype)
{
	lm_check_init(fn);
	if (count < 0)
		return lm_error(NULL, fn, MPI_ERR_COUNT, "count %d is negative",
				count);
	if (old != NULL && !lm_datatype_valid(old))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "oldtype: %s",
				lm_datatype_why(old));
	if (!newtype)
		return lm_error(NULL, fn, MPI_ERR_ARG, "newtype is NULL");
	return MPI_SUCCESS;
}

static int check_old(const char *fn, MPI_Datatype old)
{
	if (!old)
		return lm_error(NULL, fn, MPI_ERR_TYPE, "oldtype: %s",
				lm_datatype_why(old));
	return MPI_SUCCESS;
}

static int check_blocklen(const char *fn, int bl, int i)
{
	if (bl >= 0)
		return MPI_SUCCESS;
	if (i < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"blocklength %d is negative", bl);
	return lm_error(NULL, fn, MPI_ERR_ARG,
			"blocklength %d of block %d is negative", bl, i);
}

static int check_array(const char *fn, int count, const void *p,
		       const char *what)
{
	if (count > 0 && !p)
		return lm_error(NULL, fn, MPI_ERR_ARG, "%s is NULL", what);
	return MPI_SUCCESS;
}


/* ---- Contiguous, vector, hvector ----------------------------------------- */

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_contiguous";
	struct lm_dt_builder b = { 0 };

	struct lm_ints ints = { &count, 1 };

	TRY(check_base(fn, count, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	lm_dtb_place(&b, 0, (uint64_t)count, oldtype->extent, oldtype);
	return lm_dt_made(fn, lm_dtb_done(fn, &b, newtype), newtype,
			  MPI_COMBINER_CONTIGUOUS, &ints, 1, NULL, 0, &oldtype, 1);
}

static int hvector(const char *fn, int count, int blocklength, int64_t stride,
		   MPI_Datatype old, MPI_Datatype *newtype)
{
	struct libmsg_datatype *block;
	struct lm_dt_builder b = { 0 };
	int err;

	block = lm_dt_run_of(old, (uint64_t)blocklength, &err);
	if (!block)
		return lm_error(NULL, fn, err, "out of memory for a datatype");
	lm_dtb_place(&b, 0, (uint64_t)count, stride, block);
	lm_dt_release(block);
	return lm_dtb_done(fn, &b, newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
			    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_hvector";
	struct lm_ints ints[2] = { { &count, 1 }, { &blocklength, 1 } };

	TRY(check_base(fn, count, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	TRY(check_blocklen(fn, blocklength, -1));
	return lm_dt_made(fn, hvector(fn, count, blocklength, stride, oldtype,
				      newtype), newtype, MPI_COMBINER_HVECTOR,
			  ints, 2, &stride, 1, &oldtype, 1);
}

int MPI_Type_vector(int count, int blocklength, int stride,
		    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_vector";
	int args[3] = { count, blocklength, stride };
	struct lm_ints ints = { args, 3 };
	int64_t bytes;

	TRY(check_base(fn, count, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	TRY(check_blocklen(fn, blocklength, -1));
	if (__builtin_mul_overflow((int64_t)stride, oldtype->extent, &bytes))
		return lm_error(NULL, fn, MPI_ERR_ARG, "stride %d is too large",
				stride);
	return lm_dt_made(fn, hvector(fn, count, blocklength, bytes, oldtype,
				      newtype), newtype, MPI_COMBINER_VECTOR,
			  &ints, 1, NULL, 0, &oldtype, 1);
}

/* ---- Indexed families ------------------------------------------------------ */

/*
 * Blocks of blocklengths[i] (block: blocklength) copies of old at
 * displacements displs[i] (bytes: adispls[i]; else in extents of old).
 */
static int indexed(const char *fn, int count, int block,
		   const int blocklengths[], int blocklength, int bytes,
		   const int displs[], const MPI_Aint adispls[],
		   MPI_Datatype old, MPI_Datatype *newtype)
{
	struct lm_dt_builder b = { 0 };
	int64_t off;
	int i, bl;

	TRY(check_base(fn, count, old, newtype));
	TRY(check_old(fn, old));
	if (block)
		TRY(check_blocklen(fn, blocklength, -1));
	else
		TRY(check_array(fn, count, blocklengths,
				"array_of_blocklengths"));
	TRY(check_array(fn, count, bytes ? (const void *)adispls :
			(const void *)displs, "array_of_displacements"));
	for (i = 0; i < count; i++) {
		bl = block ? blocklength : blocklengths[i];
		if (!block && bl < 0) {
			lm_dtb_drop(&b);
			return check_blocklen(fn, bl, i);
		}
		if (bytes)
			off = adispls[i];
		else if (__builtin_mul_overflow((int64_t)displs[i], old->extent, &off)) {
			lm_dtb_drop(&b);
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"displacement %d is too large", displs[i]);
		}
		lm_dtb_place(&b, off, (uint64_t)bl, old->extent, old);
	}
	return lm_dtb_done(fn, &b, newtype);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[],
		     const int array_of_displacements[], MPI_Datatype oldtype,
		     MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_indexed";
	struct lm_ints ints[3] = { { &count, 1 }, { array_of_blocklengths, count },
				   { array_of_displacements, count } };

	return lm_dt_made(fn, indexed(fn, count, 0, array_of_blocklengths, 0, 0,
				      array_of_displacements, NULL, oldtype,
				      newtype), newtype, MPI_COMBINER_INDEXED,
			  ints, 3, NULL, 0, &oldtype, 1);
}

/* MPI_Type_create_hindexed's type, unrecorded: a building block. */
int lm_dt_hindexed(const char *fn, int count, const int *blocklengths,
		   const MPI_Aint *displs, MPI_Datatype old, MPI_Datatype *out)
{
	return indexed(fn, count, 0, blocklengths, 0, 1, NULL, displs, old, out);
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
			     const MPI_Aint array_of_displacements[],
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_hindexed";
	struct lm_ints ints[2] = { { &count, 1 }, { array_of_blocklengths, count } };

	return lm_dt_made(fn, indexed(fn, count, 0, array_of_blocklengths, 0, 1,
				      NULL, array_of_displacements, oldtype,
				      newtype), newtype, MPI_COMBINER_HINDEXED,
			  ints, 2, array_of_displacements, count, &oldtype, 1);
}

int MPI_Type_create_indexed_block(int count, int blocklength,
				  const int array_of_displacements[],
				  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_indexed_block";
	struct lm_ints ints[3] = { { &count, 1 }, { &blocklength, 1 },
				   { array_of_displacements, count } };

	return lm_dt_made(fn, indexed(fn, count, 1, NULL, blocklength, 0,
				      array_of_displacements, NULL, oldtype,
				      newtype), newtype,
			  MPI_COMBINER_INDEXED_BLOCK, ints, 3, NULL, 0,
			  &oldtype, 1);
}

int MPI_Type_create_hindexed_block(int count, int blocklength,
				   const MPI_Aint array_of_displacements[],
				   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_hindexed_block";
	struct lm_ints ints[2] = { { &count, 1 }, { &blocklength, 1 } };

	return lm_dt_made(fn, indexed(fn, count, 1, NULL, blocklength, 1, NULL,
				      array_of_displacements, oldtype, newtype),
			  newtype, MPI_COMBINER_HINDEXED_BLOCK, ints, 2,
			  array_of_displacements, count, &oldtype, 1);
}

/* ---- Struct ------------------------------------------------------------------- */

int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
			   const MPI_Aint array_of_displacements[],
			   const MPI_Datatype array_of_types[],
			   MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_struct";
	struct lm_ints ints[2] = { { &count, 1 }, { array_of_blocklengths, count } };
	struct libmsg_datatype *dt;
	struct lm_dt_builder b = { 0 };
	MPI_Datatype t;
	int64_t ext;
	int i;

	TRY(check_base(fn, count, NULL, newtype));
	TRY(check_array(fn, count, array_of_blocklengths, "array_of_blocklengths"));
	TRY(check_array(fn, count, array_of_displacements,
			"array_of_displacements"));
	TRY(check_array(fn, count, array_of_types, "array_of_types"));
	for (i = 0; i < count; i++) {
		t = array_of_types[i];
		if (array_of_blocklengths[i] < 0) {
			lm_dtb_drop(&b);
			return check_blocklen(fn, array_of_blocklengths[i], i);
		}
		if (!lm_datatype_valid(t)) {
			lm_dtb_drop(&b);
			return lm_error(NULL, fn, MPI_ERR_TYPE, "type %d: %s", i,
					lm_datatype_why(t));
		}
		lm_dtb_place(&b, array_of_displacements[i],
		     (uint64_t)array_of_blocklengths[i], t->extent, t);
	}
	TRY(lm_dt_made(fn, lm_dtb_done(fn, &b, newtype), newtype,
		       MPI_COMBINER_STRUCT, ints, 2, array_of_displacements,
		       count, array_of_types, count));
	dt = *newtype;
	/* Like a C struct: arrays of it keep every member aligned. */
	if (!dt->explicit_bounds && dt->extent > 0 && dt->extent % dt->align) {
		ext = dt->extent + dt->align - dt->extent % dt->align;
		dt->extent = ext;
		lm_dt_set_flags(dt);
	}
	return MPI_SUCCESS;
}

/* ---- Resized, dup --------------------------------------------------------------- */

/* MPI_Type_create_resized's type, unrecorded: a building block. */
int lm_dt_resized(const char *fn, MPI_Datatype old, MPI_Aint lb,
		  MPI_Aint extent, MPI_Datatype *out)
{
	struct libmsg_datatype *dt = lm_dt_with_bounds(old, lb, extent);

	if (!dt)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory for a datatype");
	dt->explicit_bounds = 1;
	*out = dt;
	return MPI_SUCCESS;
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
			    MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_resized";
	MPI_Aint bounds[2] = { lb, extent };

	TRY(check_base(fn, 0, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	return lm_dt_made(fn, lm_dt_resized(fn, oldtype, lb, extent, newtype),
			  newtype, MPI_COMBINER_RESIZED, NULL, 0, bounds, 2,
			  &oldtype, 1);
}

int lm_dt_dup(const char *fn, MPI_Datatype old, MPI_Datatype *out)
{
	struct libmsg_datatype *dt = lm_dt_with_bounds(old, old->lb, old->extent);

	if (!dt)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory for a datatype");
	dt->explicit_bounds = old->explicit_bounds;
	dt->committed = old->committed;
	if (dt->committed)
		lm_dt_tile_cache(dt);
	*out = dt;
	return MPI_SUCCESS;
}

/* ---- Subarray ---------------------------------------------------------------- */

static int check_subarray(const char *fn, int ndims, const int sizes[],
			  const int subsizes[], const int starts[], int order)
{
	int i;

	if (ndims <= 0)
		return lm_error(NULL, fn, MPI_ERR_ARG, "ndims %d is not positive",
				ndims);
	if (!sizes || !subsizes || !starts)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"array_of_sizes, subsizes or starts is NULL");
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN",
				order);
	for (i = 0; i < ndims; i++) {
		if (sizes[i] < 1 || subsizes[i] < 1 || starts[i] < 0 ||
		    subsizes[i] > sizes[i] || starts[i] > sizes[i] - subsizes[i])
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"dimension %d: size %d, subsize %d, start %d do not fit",
					i, sizes[i], subsizes[i], starts[i]);
	}
	return MPI_SUCCESS;
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
			     const int array_of_subsizes[],
			     const int array_of_starts[], int order,
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_subarray";
	struct lm_ints ints[5] = { { &ndims, 1 }, { array_of_sizes, ndims },
				   { array_of_subsizes, ndims },
				   { array_of_starts, ndims }, { &order, 1 } };
	struct libmsg_datatype *t, *next;
	struct lm_dt_builder b = { 0 };
	int64_t stride, disp = 0, full;
	int k, d, err;

	TRY(check_base(fn, 0, oldtype, newtype));
	TRY(check_old(fn, oldtype));
	TRY(check_subarray(fn, ndims, array_of_sizes, array_of_subsizes,
			   array_of_starts, order));
	/* Innermost (fastest) dimension first: the last in C order. */
	stride = oldtype->extent;
	t = NULL;
	for (k = 0; k < ndims; k++) {
		d = order == MPI_ORDER_C ? ndims - 1 - k : k;
		if (k == 0) {
			t = lm_dt_run_of(oldtype,
					 (uint64_t)array_of_subsizes[d], &err);
		} else {
			struct lm_dt_builder v = { 0 };

			lm_dtb_place(&v, 0, (uint64_t)array_of_subsizes[d],
				     stride, t);
			next = lm_dtb_build(&v, &err);
			lm_dt_release(t);
			t = next;
		}
		if (!t)
			return lm_error(NULL, fn, err, "out of memory for a datatype");
		if (__builtin_mul_overflow((int64_t)array_of_starts[d], stride, &full) ||
		    __builtin_add_overflow(disp, full, &disp) ||
		    __builtin_mul_overflow(stride, (int64_t)array_of_sizes[d], &stride)) {
			lm_dt_release(t);
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"the array is larger than 2^63 bytes");
		}
	}
	/* stride is now the whole array: the extent, from 0. */
	lm_dtb_place(&b, disp, 1, 0, t);
	lm_dt_release(t);
	TRY(lm_dtb_done(fn, &b, newtype));
	t = *newtype;
	t->lb = 0;
	t->extent = stride;
	t->explicit_bounds = 1;
	lm_dt_set_flags(t);
	return lm_dt_made(fn, MPI_SUCCESS, newtype, MPI_COMBINER_SUBARRAY, ints,
			  5, NULL, 0, &oldtype, 1);
}
