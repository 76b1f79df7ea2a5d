// SPDX-License-Identifier: MIT
/*
 * Predefined types found by kind (libmsg/src/dtype_match.c):
 *   - MPI_Type_match_size for every class and size: the size-specific
 *     Fortran type (MPI_REAL4, MPI_INTEGER8, MPI_COMPLEX16...), its
 *     size checked with MPI_Type_size; a size or class there is none
 *     of refused (MPI_ERR_ARG);
 *   - MPI_Type_create_f90_real, _complex, _integer: the smallest type
 *     with the precision and range asked for (float for 6 digits,
 *     double for 7 or a range of 100, ...), MPI_UNDEFINED for either;
 *     too much of either refused;
 *   - what they return is predefined: a message of it goes round the
 *     ranks, and MPI_Type_free refuses it.
 */
#include "test.h"

#include <complex.h>

static void sized(int typeclass, int size, MPI_Datatype want)
{
	MPI_Datatype t = MPI_DATATYPE_NULL;
	int n = -1;

	MPI_OK(MPI_Type_match_size(typeclass, size, &t));
	CHECK(t == want, "class %d size %d: another type", typeclass, size);
	MPI_OK(MPI_Type_size(t, &n));
	CHECK(n == size, "class %d size %d: MPI_Type_size %d", typeclass,
	      size, n);
}

static void f90(int p, int r, MPI_Datatype real, MPI_Datatype cplx)
{
	MPI_Datatype t;

	MPI_OK(MPI_Type_create_f90_real(p, r, &t));
	CHECK(t == real, "f90 real (%d, %d): another type", p, r);
	MPI_OK(MPI_Type_create_f90_complex(p, r, &t));
	CHECK(t == cplx, "f90 complex (%d, %d): another type", p, r);
}

int main(int argc, char **argv)
{
	MPI_Datatype t;
	double in[2] = { 0 }, out[2] = { 0 };

	t_init(&argc, &argv);
	/* The size-specific Fortran types, as MPI-3.1 17.1.9 has it. */
	sized(MPI_TYPECLASS_REAL, 2, MPI_REAL2);
	sized(MPI_TYPECLASS_REAL, 4, MPI_REAL4);
	sized(MPI_TYPECLASS_REAL, 8, MPI_REAL8);
	sized(MPI_TYPECLASS_REAL, 16, MPI_REAL16);
	sized(MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1);
	sized(MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2);
	sized(MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4);
	sized(MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8);
	sized(MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16);
	sized(MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8);
	sized(MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16);
	sized(MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32);
	T_EXPECT(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG,
		 "a 3-byte real");
	T_EXPECT(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t),
		 MPI_ERR_ARG, "a 3-byte integer");
	T_EXPECT(MPI_Type_match_size(7, 4, &t), MPI_ERR_ARG, "class 7");
	T_EXPECT(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, NULL), MPI_ERR_ARG,
		 "a NULL datatype");

	f90(6, 37, MPI_FLOAT, MPI_C_FLOAT_COMPLEX);
	f90(7, MPI_UNDEFINED, MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX);
	f90(MPI_UNDEFINED, 100, MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX);
	f90(15, 307, MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX);
	f90(16, MPI_UNDEFINED, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX);
	T_EXPECT(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t), MPI_ERR_ARG,
		 "40 digits");
	T_EXPECT(MPI_Type_create_f90_complex(MPI_UNDEFINED, 10000, &t),
		 MPI_ERR_ARG, "a range of 10000");
	T_EXPECT(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t),
		 MPI_ERR_ARG, "neither precision nor range");
	MPI_OK(MPI_Type_create_f90_integer(2, &t));
	CHECK(t == MPI_INT8_T, "f90 integer range 2: another type");
	MPI_OK(MPI_Type_create_f90_integer(5, &t));
	CHECK(t == MPI_INT32_T, "f90 integer range 5: another type");
	MPI_OK(MPI_Type_create_f90_integer(18, &t));
	CHECK(t == MPI_INT64_T, "f90 integer range 18: another type");
	T_EXPECT(MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG, "range 19");

	/* Usable as it is, and not the program's to free. */
	MPI_OK(MPI_Type_create_f90_complex(10, 10, &t));
	in[0] = t_rank;
	in[1] = -t_rank;
	MPI_OK(MPI_Allreduce(in, out, 1, t, MPI_SUM, MPI_COMM_WORLD));
	CHECK(out[0] == t_size * (t_size - 1) / 2 &&
	      out[1] == -t_size * (t_size - 1) / 2, "complex sum %g %g",
	      out[0], out[1]);
	CHECK(t_class(MPI_Type_free(&t)) == MPI_ERR_TYPE, "a predefined type freed");
	return t_done();
}
