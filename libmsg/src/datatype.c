// SPDX-License-Identifier: MIT
/*
 * Datatypes: the basic C types, contiguous, size == extent.  A message
 * of count elements is count * size bytes.
 */

#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

#include "lm.h"

#define DT(id, index, type, mpiname)					\
	struct libmsg_datatype libmsg_dt_##id = {			\
		LM_MAGIC_DT, (int)sizeof(type), LM_DT_##index, mpiname	\
	}

DT(char, CHAR, char, "MPI_CHAR");
DT(signed_char, SIGNED_CHAR, signed char, "MPI_SIGNED_CHAR");
DT(unsigned_char, UNSIGNED_CHAR, unsigned char, "MPI_UNSIGNED_CHAR");
DT(byte, BYTE, unsigned char, "MPI_BYTE");
DT(wchar, WCHAR, wchar_t, "MPI_WCHAR");
DT(short, SHORT, short, "MPI_SHORT");
DT(unsigned_short, UNSIGNED_SHORT, unsigned short, "MPI_UNSIGNED_SHORT");
DT(int, INT, int, "MPI_INT");
DT(unsigned, UNSIGNED, unsigned, "MPI_UNSIGNED");
DT(long, LONG, long, "MPI_LONG");
DT(unsigned_long, UNSIGNED_LONG, unsigned long, "MPI_UNSIGNED_LONG");
DT(long_long, LONG_LONG, long long, "MPI_LONG_LONG");
DT(unsigned_long_long, UNSIGNED_LONG_LONG, unsigned long long, "MPI_UNSIGNED_LONG_LONG");
DT(float, FLOAT, float, "MPI_FLOAT");
DT(double, DOUBLE, double, "MPI_DOUBLE");
DT(long_double, LONG_DOUBLE, long double, "MPI_LONG_DOUBLE");
DT(c_bool, C_BOOL, bool, "MPI_C_BOOL");
DT(int8_t, INT8_T, int8_t, "MPI_INT8_T");
DT(int16_t, INT16_T, int16_t, "MPI_INT16_T");
DT(int32_t, INT32_T, int32_t, "MPI_INT32_T");
DT(int64_t, INT64_T, int64_t, "MPI_INT64_T");
DT(uint8_t, UINT8_T, uint8_t, "MPI_UINT8_T");
DT(uint16_t, UINT16_T, uint16_t, "MPI_UINT16_T");
DT(uint32_t, UINT32_T, uint32_t, "MPI_UINT32_T");
DT(uint64_t, UINT64_T, uint64_t, "MPI_UINT64_T");
DT(aint, AINT, MPI_Aint, "MPI_AINT");
DT(offset, OFFSET, MPI_Offset, "MPI_OFFSET");
DT(count, COUNT, MPI_Count, "MPI_COUNT");
DT(c_float_complex, C_FLOAT_COMPLEX, float complex, "MPI_C_FLOAT_COMPLEX");
DT(c_double_complex, C_DOUBLE_COMPLEX, double complex, "MPI_C_DOUBLE_COMPLEX");
DT(c_long_double_complex, C_LONG_DOUBLE_COMPLEX, long double complex, "MPI_C_LONG_DOUBLE_COMPLEX");
DT(packed, PACKED, unsigned char, "MPI_PACKED");
DT(float_int, FLOAT_INT, struct lm_float_int, "MPI_FLOAT_INT");
DT(double_int, DOUBLE_INT, struct lm_double_int, "MPI_DOUBLE_INT");
DT(long_int, LONG_INT, struct lm_long_int, "MPI_LONG_INT");
DT(2int, 2INT, struct lm_2int, "MPI_2INT");
DT(short_int, SHORT_INT, struct lm_short_int, "MPI_SHORT_INT");
DT(long_double_int, LONG_DOUBLE_INT, struct lm_long_double_int, "MPI_LONG_DOUBLE_INT");

int lm_check_datatype(MPI_Datatype dt)
{
	return dt && dt->magic == LM_MAGIC_DT ? MPI_SUCCESS : MPI_ERR_TYPE;
}

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
	if (lm_check_datatype(datatype))
		return lm_error(NULL, "MPI_Type_size", MPI_ERR_TYPE, "invalid datatype");
	if (!size)
		return lm_error(NULL, "MPI_Type_size", MPI_ERR_ARG, "size is NULL");
	*size = datatype->size;
	return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	if (lm_check_datatype(datatype))
		return lm_error(NULL, "MPI_Type_get_extent", MPI_ERR_TYPE,
				"invalid datatype");
	if (!lb || !extent)
		return lm_error(NULL, "MPI_Type_get_extent", MPI_ERR_ARG,
				"lb or extent is NULL");
	*lb = 0;
	*extent = datatype->size;
	return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	if (!status || !count)
		return lm_error(NULL, "MPI_Get_count", MPI_ERR_ARG,
				"status or count is NULL");
	if (lm_check_datatype(datatype))
		return lm_error(NULL, "MPI_Get_count", MPI_ERR_TYPE, "invalid datatype");
	if (status->libmsg_count % datatype->size ||
	    status->libmsg_count / datatype->size > 0x7fffffff)
		*count = MPI_UNDEFINED;
	else
		*count = (int)(status->libmsg_count / datatype->size);
	return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	return MPI_Get_count(status, datatype, count);
}
