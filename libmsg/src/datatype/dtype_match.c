// SPDX-License-Identifier: MIT
/*
 * Predefined types found by what they hold rather than by name:
 * MPI_Type_match_size (a class and a size in bytes) gives the
 * size-specific Fortran type (MPI_REAL4 for a 4-byte real, MPI_INTEGER8
 * for an 8-byte integer, MPI_COMPLEX16 for two doubles), as MPI says;
 * the Fortran 90 calls (a decimal precision and exponent range, as
 * SELECTED_REAL_KIND and SELECTED_INT_KIND take them) give the C type
 * of that kind: MPI_FLOAT for 6 digits, MPI_INT32_T for a range of 9,
 * and so on.  They are predefined:
 * MPI_Type_free refuses them, as MPI asks.  MPI_Type_get_envelope
 * names them (MPI_COMBINER_NAMED), where MPI would have the f90 calls'
 * results say MPI_COMBINER_F90_*.
 */

#include <float.h>

#include "datatype/datatype.h"

struct kind {
	int size;		/* bytes */
	int precision;		/* decimal digits (reals) */
	int range;		/* decimal exponent range */
	MPI_Datatype type;
};

/* Smallest first: the f90 calls take the first that is enough. */
static const struct kind reals[] = {
	{ 4, FLT_DIG, -FLT_MIN_10_EXP < FLT_MAX_10_EXP ? -FLT_MIN_10_EXP :
	  FLT_MAX_10_EXP, MPI_FLOAT },
	{ 8, DBL_DIG, -DBL_MIN_10_EXP < DBL_MAX_10_EXP ? -DBL_MIN_10_EXP :
	  DBL_MAX_10_EXP, MPI_DOUBLE },
	{ (int)sizeof(long double), LDBL_DIG,
	  -LDBL_MIN_10_EXP < LDBL_MAX_10_EXP ? -LDBL_MIN_10_EXP :
	  LDBL_MAX_10_EXP, MPI_LONG_DOUBLE },
};

static const struct kind complexes[] = {
	{ 8, FLT_DIG, 0, MPI_C_FLOAT_COMPLEX },
	{ 16, DBL_DIG, 0, MPI_C_DOUBLE_COMPLEX },
	{ 2 * (int)sizeof(long double), LDBL_DIG, 0,
	  MPI_C_LONG_DOUBLE_COMPLEX },
};

/* range: the largest n with 10^n representable. */
static const struct kind integers[] = {
	{ 1, 0, 2, MPI_INT8_T },
	{ 2, 0, 4, MPI_INT16_T },
	{ 4, 0, 9, MPI_INT32_T },
	{ 8, 0, 18, MPI_INT64_T },
};

#define NKINDS(a)	((int)(sizeof(a) / sizeof((a)[0])))

/*
 * MPI_Type_match_size: the size-specific Fortran types (MPI-3.1
 * 17.1.9, whose advice to implementors returns MPI_REAL4,
 * MPI_INTEGER8 and the like).
 */
static const struct kind sized_reals[] = {
	{ 2, 0, 0, MPI_REAL2 }, { 4, 0, 0, MPI_REAL4 },
	{ 8, 0, 0, MPI_REAL8 }, { 16, 0, 0, MPI_REAL16 },
};
static const struct kind sized_integers[] = {
	{ 1, 0, 0, MPI_INTEGER1 }, { 2, 0, 0, MPI_INTEGER2 },
	{ 4, 0, 0, MPI_INTEGER4 }, { 8, 0, 0, MPI_INTEGER8 },
	{ 16, 0, 0, MPI_INTEGER16 },
};
static const struct kind sized_complexes[] = {
	{ 8, 0, 0, MPI_COMPLEX8 }, { 16, 0, 0, MPI_COMPLEX16 },
	{ 32, 0, 0, MPI_COMPLEX32 },
};

int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_match_size";
	const struct kind *k;
	int i, n;

	if (!datatype)
		return lm_error(NULL, fn, MPI_ERR_ARG, "datatype is NULL");
	switch (typeclass) {
	case MPI_TYPECLASS_REAL:
		k = sized_reals, n = NKINDS(sized_reals);
		break;
	case MPI_TYPECLASS_INTEGER:
		k = sized_integers, n = NKINDS(sized_integers);
		break;
	case MPI_TYPECLASS_COMPLEX:
		k = sized_complexes, n = NKINDS(sized_complexes);
		break;
	default:
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"typeclass %d is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX",
				typeclass);
	}
	for (i = 0; i < n; i++) {
		if (k[i].size == size) {
			*datatype = k[i].type;
			return MPI_SUCCESS;
		}
	}
	return lm_error(NULL, fn, MPI_ERR_ARG,
			"no type of class %d has %d bytes", typeclass, size);
}

/*
 * The first kind with at least p digits and an exponent range of at
 * least r (either may be MPI_UNDEFINED: not asked for).
 */
static int select_kind(const char *fn, const struct kind *k, int n, int p,
		       int r, MPI_Datatype *newtype)
{
	int i;

	if (!newtype)
		return lm_error(NULL, fn, MPI_ERR_ARG, "newtype is NULL");
	if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"neither precision nor range is given");
	if ((p != MPI_UNDEFINED && p < 0) || (r != MPI_UNDEFINED && r < 0))
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"precision %d or range %d is negative", p, r);
	for (i = 0; i < n; i++) {
		if ((p == MPI_UNDEFINED || k[i].precision >= p) &&
		    (r == MPI_UNDEFINED || k[i].range >= r)) {
			*newtype = k[i].type;
			return MPI_SUCCESS;
		}
	}
	return lm_error(NULL, fn, MPI_ERR_ARG,
			"no type has precision %d and range %d", p, r);
}

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
	LM_GUARD();
	return select_kind("MPI_Type_create_f90_real", reals, NKINDS(reals),
			   p, r, newtype);
}

/* A complex has the range of its parts. */
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_create_f90_complex";
	MPI_Datatype part;
	int i, err = select_kind(fn, reals, NKINDS(reals), p, r, &part);

	if (err)
		return err;
	for (i = 0; reals[i].type != part; i++)
		;
	*newtype = complexes[i].type;
	return MPI_SUCCESS;
}

int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
	LM_GUARD();
	return select_kind("MPI_Type_create_f90_integer", integers,
			   NKINDS(integers), MPI_UNDEFINED, r, newtype);
}
