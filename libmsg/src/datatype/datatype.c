// SPDX-License-Identifier: MIT
/*
 * Datatypes: the predefined types, the checks every data-moving call
 * makes, reference counts, and the queries (size, extents, names,
 * counts of a status).  Constructors: dtype_build.c; packing: pack.c.
 *
 * A predefined type is one contiguous block (extent == size), but for
 * the MINLOC/MAXLOC pairs with padding (MPI_DOUBLE_INT, MPI_LONG_INT,
 * MPI_SHORT_INT, MPI_LONG_DOUBLE_INT): their size is their two
 * members', as a struct type built from them has, their extent the C
 * struct's, and like a derived type they carry a layout, so that data
 * moves skip the padding.  A
 * derived type carries its layout (datatype.h): how its bytes map to the
 * user's buffer, built once by its constructor and shared, never copied,
 * by the types built on it.  A type lives while its handle or an
 * operation in flight holds it (MPI_Type_free of a type a pending
 * receive still has to unpack into is fine).
 */

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "datatype/datatype.h"

#define DT(id, idx, type, mpiname)					\
	LM_PREDEFINED(struct libmsg_datatype, libmsg_dt_##id,		\
		      LM_ABI_DT_SIZE) = { .obj = {			\
		.magic = LM_MAGIC_DT, .index = LM_DT_##idx,		\
		.size = (int64_t)sizeof(type), .name = mpiname,		\
		.lb = 0, .extent = (int64_t)sizeof(type),		\
		.true_lb = 0, .true_extent = (int64_t)sizeof(type),	\
		.align = (uint32_t)_Alignof(type), .predefined = 1,	\
		.committed = 1, .contig1 = 1, .dense = 1,		\
		.basic = &libmsg_dt_##id, .nbasic = 1,			\
	} }

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
/*
 * The Fortran types C sees (MPI-3.1 3.2.2 and A.1.1), with gfortran's
 * sizes: INTEGER, REAL and LOGICAL 4 bytes, DOUBLE PRECISION 8,
 * COMPLEX two REALs, DOUBLE COMPLEX two DOUBLE PRECISIONs, CHARACTER
 * 1; the sized ones (INTEGER*1 to *16, REAL*2 to *16, COMPLEX*8 to
 * *32) as their names say.  A LOGICAL is 0 or 1 (gfortran's .FALSE.
 * and .TRUE.), any other value read as true.
 */
DT(character, CHARACTER, char, "MPI_CHARACTER");
DT(logical, LOGICAL, int32_t, "MPI_LOGICAL");
DT(integer, INTEGER, int32_t, "MPI_INTEGER");
DT(real, REAL, float, "MPI_REAL");
DT(double_precision, DOUBLE_PRECISION, double, "MPI_DOUBLE_PRECISION");
DT(f_complex, COMPLEX, float complex, "MPI_COMPLEX");
DT(double_complex, DOUBLE_COMPLEX, double complex, "MPI_DOUBLE_COMPLEX");
DT(integer1, INTEGER1, int8_t, "MPI_INTEGER1");
DT(integer2, INTEGER2, int16_t, "MPI_INTEGER2");
DT(integer4, INTEGER4, int32_t, "MPI_INTEGER4");
DT(integer8, INTEGER8, int64_t, "MPI_INTEGER8");
DT(integer16, INTEGER16, lm_integer16, "MPI_INTEGER16");
DT(real2, REAL2, lm_real2, "MPI_REAL2");
DT(real4, REAL4, float, "MPI_REAL4");
DT(real8, REAL8, double, "MPI_REAL8");
DT(real16, REAL16, lm_real16, "MPI_REAL16");
DT(complex8, COMPLEX8, float complex, "MPI_COMPLEX8");
DT(complex16, COMPLEX16, double complex, "MPI_COMPLEX16");
DT(complex32, COMPLEX32, lm_complex32, "MPI_COMPLEX32");
DT(2real, 2REAL, struct lm_2real, "MPI_2REAL");
DT(2double_precision, 2DOUBLE_PRECISION, struct lm_2double_precision,
   "MPI_2DOUBLE_PRECISION");
DT(2integer, 2INTEGER, struct lm_2integer, "MPI_2INTEGER");

/*
 * C++'s bool and std::complex<T>: the same bytes as C's bool and
 * T _Complex (C++ guarantees std::complex<T> is laid out as T[2]); the
 * C++ test checks the sizes from C++.
 */
DT(cxx_bool, CXX_BOOL, bool, "MPI_CXX_BOOL");
DT(cxx_float_complex, CXX_FLOAT_COMPLEX, float complex, "MPI_CXX_FLOAT_COMPLEX");
DT(cxx_double_complex, CXX_DOUBLE_COMPLEX, double complex, "MPI_CXX_DOUBLE_COMPLEX");
DT(cxx_long_double_complex, CXX_LONG_DOUBLE_COMPLEX, long double complex,
   "MPI_CXX_LONG_DOUBLE_COMPLEX");

/*
 * The pairs: (value, int), the size of the two members (MPI_DOUBLE_INT
 * 12 bytes), bounds those of the C struct (extent 16).  The value and
 * the int are one run at 0, but for MPI_SHORT_INT (a hole after the
 * short).  Each run is one leaf of the layout; a pair's two basic
 * elements are counted together (a partial pair is no whole number of
 * elements), except MPI_SHORT_INT's, whose members are apart.
 */
#define PAIR_V(T)	sizeof(((T *)0)->v)
#define PAIR_SIZE(T)	(PAIR_V(T) + sizeof(int))
#define PAIR_LAYOUT(id, T, x)						\
	static struct lm_layout pair_layout_##id = {			\
		.refs = LM_LAYOUT_STATIC, .nsegs = 1,			\
		.size = PAIR_SIZE(T), .nelem = 2,			\
		.segs = { { .count = 1, .len = PAIR_SIZE(T),		\
			    .esize = (uint32_t)PAIR_SIZE(T), .epe = 2,	\
			    .x32 = x } },				\
	}
#define PAIR(id, idx, T, mpiname, lay)					\
	LM_PREDEFINED(struct libmsg_datatype, libmsg_dt_##id,		\
		      LM_ABI_DT_SIZE) = { .obj = {			\
		.magic = LM_MAGIC_DT, .index = LM_DT_##idx,		\
		.size = (int64_t)PAIR_SIZE(T), .name = mpiname,		\
		.lb = 0, .extent = (int64_t)sizeof(T),			\
		.true_lb = 0,						\
		.true_extent = (int64_t)(offsetof(T, i) + sizeof(int)),	\
		.align = (uint32_t)_Alignof(T), .predefined = 1,	\
		.committed = 1,						\
		.contig1 = offsetof(T, i) == PAIR_V(T),			\
		.dense = PAIR_SIZE(T) == sizeof(T),			\
		.layout = lay,						\
		.basic = &libmsg_dt_##id, .nbasic = 1,			\
	} }

_Static_assert(offsetof(struct lm_short_int, i) > sizeof(short),
	       "MPI_SHORT_INT has no hole: its layout below is wrong");
PAIR_LAYOUT(double_int, struct lm_double_int, LM_X32_DOUBLE_INT);
PAIR_LAYOUT(long_int, struct lm_long_int, LM_X32_LONG_INT);
PAIR_LAYOUT(long_double_int, struct lm_long_double_int, LM_X32_LDOUBLE_INT);
static struct lm_layout pair_layout_short_int = {
	.refs = LM_LAYOUT_STATIC, .nsegs = 2, .size = sizeof(short) + sizeof(int),
	.nelem = 2,
	.segs = {
		{ .count = 1, .len = sizeof(short), .esize = sizeof(short),
		  .epe = 1, .x32 = LM_X32_SWAP2 },
		{ .off = offsetof(struct lm_short_int, i), .count = 1,
		  .len = sizeof(int), .esize = sizeof(int), .epe = 1,
		  .x32 = LM_X32_SWAP4 },
	},
};

PAIR(float_int, FLOAT_INT, struct lm_float_int, "MPI_FLOAT_INT", NULL);
PAIR(double_int, DOUBLE_INT, struct lm_double_int, "MPI_DOUBLE_INT",
     &pair_layout_double_int);
PAIR(long_int, LONG_INT, struct lm_long_int, "MPI_LONG_INT",
     &pair_layout_long_int);
PAIR(2int, 2INT, struct lm_2int, "MPI_2INT", NULL);
PAIR(short_int, SHORT_INT, struct lm_short_int, "MPI_SHORT_INT",
     &pair_layout_short_int);
PAIR(long_double_int, LONG_DOUBLE_INT, struct lm_long_double_int,
     "MPI_LONG_DOUBLE_INT", &pair_layout_long_double_int);

/* ---- Checks and references --------------------------------------------- */

int lm_datatype_valid(MPI_Datatype dt)
{
	return LM_HANDLE(dt) && dt->magic == LM_MAGIC_DT && !dt->freed;
}

int lm_check_datatype(MPI_Datatype dt)
{
	return lm_datatype_valid(dt) && dt->committed ? MPI_SUCCESS :
		MPI_ERR_TYPE;
}

const char *lm_datatype_why(MPI_Datatype dt)
{
	if (!dt)
		return "datatype is MPI_DATATYPE_NULL";
	if (!lm_datatype_valid(dt))
		return "invalid datatype (freed, or not a datatype)";
	if (!dt->committed)
		return "datatype is not committed (MPI_Type_commit)";
	return "datatype is fine";
}

/* Basic elements in one element of a predefined type (pairs hold two). */
uint32_t lm_dt_basic_elements(MPI_Datatype dt)
{
	return dt->index >= LM_DT_FLOAT_INT && dt->index <= LM_DT_2INTEGER ?
		2 : 1;
}

void lm_dt_hold(MPI_Datatype dt)
{
	if (!dt->predefined)
		__atomic_add_fetch(&dt->refs, 1, __ATOMIC_RELAXED);
}

static void dt_reclaim(struct rcu_head *head)
{
	struct lm_dt_box *b = caa_container_of(head, struct lm_dt_box, rcu);

	lm_rcu_reclaim(head);
	if (b->dt.layout)
		lm_layout_put(b->dt.layout);
	free(b);
}

/* The last hold: free it after any reader (MPI_Type_size...). */
void lm_dt_release(MPI_Datatype dt)
{
	if (dt->predefined ||
	    __atomic_sub_fetch(&dt->refs, 1, __ATOMIC_ACQ_REL))
		return;
	dt->magic = 0;
	lm_dt_contents_drop(dt);
	lm_defer_free(&caa_container_of(dt, struct lm_dt_box, dt)->rcu,
		      dt_reclaim);
}

/* Report a bad datatype argument of a query or constructor. */
static int bad_type(const char *fn, MPI_Datatype dt, const char *what)
{
	return lm_error(NULL, fn, MPI_ERR_TYPE, "%s: %s", what,
			lm_datatype_why(dt));
}

#define CHECK_TYPE(fn, dt, what) do {					\
	if (!lm_datatype_valid(dt))					\
		return bad_type(fn, dt, what);				\
} while (0)

#define CHECK_PTR(fn, p) do {						\
	if (!(p))							\
		return lm_error(NULL, fn, MPI_ERR_ARG, "%s is NULL", #p); \
} while (0)

/* ---- Commit, free, dup ---------------------------------------------------- */

int MPI_Type_commit(MPI_Datatype *datatype)
{
	LM_GUARD();
	lm_check_init("MPI_Type_commit");
	CHECK_PTR("MPI_Type_commit", datatype);
	CHECK_TYPE("MPI_Type_commit", *datatype, "datatype");
	/* The layout was built by the constructor; its tile, if any, now. */
	lm_dt_tile_cache(*datatype);
	(*datatype)->committed = 1;
	return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype *datatype)
{
	LM_GUARD();
	MPI_Datatype dt;
	int err;

	lm_check_init("MPI_Type_free");
	CHECK_PTR("MPI_Type_free", datatype);
	dt = *datatype;
	CHECK_TYPE("MPI_Type_free", dt, "datatype");
	if (dt->predefined)
		return lm_error(NULL, "MPI_Type_free", MPI_ERR_TYPE,
				"%s is predefined and cannot be freed", dt->name);
	/* A failing delete callback fails the call: the type stays. */
	err = lm_type_attr_delete_all(dt, "MPI_Type_free");
	if (err)
		return err;
	*datatype = MPI_DATATYPE_NULL;
	dt->freed = 1;
	/* Operations still using it hold it (lm_dt_hold). */
	lm_dt_release(dt);
	return MPI_SUCCESS;
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	LM_GUARD();
	int err;

	lm_check_init("MPI_Type_dup");
	CHECK_TYPE("MPI_Type_dup", oldtype, "oldtype");
	CHECK_PTR("MPI_Type_dup", newtype);
	err = lm_dt_made("MPI_Type_dup",
			 lm_dt_dup("MPI_Type_dup", oldtype, newtype), newtype,
			 MPI_COMBINER_DUP, NULL, 0, NULL, 0, &oldtype, 1);
	if (err)
		return err;
	/* The attributes, through their copy callbacks (all or none). */
	err = lm_type_attr_copy(oldtype, *newtype, "MPI_Type_dup");
	if (err) {
		lm_type_attr_drop(*newtype);
		lm_dt_release(*newtype);
		*newtype = MPI_DATATYPE_NULL;
	}
	return err;
}

/* ---- Queries ---------------------------------------------------------------- */

/* Queries read a live type without the lock (LM_QUERY). */
static inline int type_readable(MPI_Datatype dt)
{
	return lm_live() && lm_datatype_valid(dt);
}

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
	LM_QUERY(type_readable(datatype) && size,
		 *size = datatype->size > 0x7fffffff ? MPI_UNDEFINED :
		 (int)datatype->size);
	LM_GUARD();
	CHECK_TYPE("MPI_Type_size", datatype, "datatype");
	CHECK_PTR("MPI_Type_size", size);
	*size = datatype->size > 0x7fffffff ? MPI_UNDEFINED : (int)datatype->size;
	return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
	LM_QUERY(type_readable(datatype) && size, *size = datatype->size);
	LM_GUARD();
	CHECK_TYPE("MPI_Type_size_x", datatype, "datatype");
	CHECK_PTR("MPI_Type_size_x", size);
	*size = datatype->size;
	return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	LM_QUERY(type_readable(datatype) && lb && extent,
		 (*lb = (MPI_Aint)datatype->lb,
		  *extent = (MPI_Aint)datatype->extent));
	LM_GUARD();
	CHECK_TYPE("MPI_Type_get_extent", datatype, "datatype");
	CHECK_PTR("MPI_Type_get_extent", lb);
	CHECK_PTR("MPI_Type_get_extent", extent);
	*lb = (MPI_Aint)datatype->lb;
	*extent = (MPI_Aint)datatype->extent;
	return MPI_SUCCESS;
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
			  MPI_Count *extent)
{
	LM_QUERY(type_readable(datatype) && lb && extent,
		 (*lb = datatype->lb, *extent = datatype->extent));
	LM_GUARD();
	CHECK_TYPE("MPI_Type_get_extent_x", datatype, "datatype");
	CHECK_PTR("MPI_Type_get_extent_x", lb);
	CHECK_PTR("MPI_Type_get_extent_x", extent);
	*lb = datatype->lb;
	*extent = datatype->extent;
	return MPI_SUCCESS;
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
			     MPI_Aint *true_extent)
{
	LM_QUERY(type_readable(datatype) && true_lb && true_extent,
		 (*true_lb = (MPI_Aint)datatype->true_lb,
		  *true_extent = (MPI_Aint)datatype->true_extent));
	LM_GUARD();
	CHECK_TYPE("MPI_Type_get_true_extent", datatype, "datatype");
	CHECK_PTR("MPI_Type_get_true_extent", true_lb);
	CHECK_PTR("MPI_Type_get_true_extent", true_extent);
	*true_lb = (MPI_Aint)datatype->true_lb;
	*true_extent = (MPI_Aint)datatype->true_extent;
	return MPI_SUCCESS;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
			       MPI_Count *true_extent)
{
	LM_QUERY(type_readable(datatype) && true_lb && true_extent,
		 (*true_lb = datatype->true_lb,
		  *true_extent = datatype->true_extent));
	LM_GUARD();
	CHECK_TYPE("MPI_Type_get_true_extent_x", datatype, "datatype");
	CHECK_PTR("MPI_Type_get_true_extent_x", true_lb);
	CHECK_PTR("MPI_Type_get_true_extent_x", true_extent);
	*true_lb = datatype->true_lb;
	*true_extent = datatype->true_extent;
	return MPI_SUCCESS;
}

/* MPI-4.0's large-count names of the three _x queries above. */
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
	return MPI_Type_size_x(datatype, size);
}

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb,
			  MPI_Count *extent)
{
	return MPI_Type_get_extent_x(datatype, lb, extent);
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
			       MPI_Count *true_extent)
{
	return MPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
	LM_GUARD();
	CHECK_TYPE("MPI_Type_set_name", datatype, "datatype");
	CHECK_PTR("MPI_Type_set_name", type_name);
	snprintf(datatype->name_buf, sizeof(datatype->name_buf), "%s",
		 type_name);
	datatype->name = datatype->name_buf;
	return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
	LM_GUARD();
	CHECK_TYPE("MPI_Type_get_name", datatype, "datatype");
	CHECK_PTR("MPI_Type_get_name", type_name);
	CHECK_PTR("MPI_Type_get_name", resultlen);
	snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s",
		 datatype->name ? datatype->name : "");
	*resultlen = (int)strlen(type_name);
	return MPI_SUCCESS;
}

/* ---- Counts of a received message ------------------------------------------ */

/* Whole elements of datatype in what status says arrived. */
static MPI_Count elements_in(const MPI_Status *status, MPI_Datatype datatype)
{
	uint64_t bytes = (uint64_t)status->libmsg_count;

	if (datatype->size == 0)
		return 0;
	if (bytes % (uint64_t)datatype->size)
		return MPI_UNDEFINED;
	return (MPI_Count)(bytes / (uint64_t)datatype->size);
}

static int count_of(const char *fn, const MPI_Status *status,
		    MPI_Datatype datatype, MPI_Count *count)
{
	if (!status || !count)
		return lm_error(NULL, fn, MPI_ERR_ARG, "status or count is NULL");
	CHECK_TYPE(fn, datatype, "datatype");
	*count = elements_in(status, datatype);
	return MPI_SUCCESS;
}

static int count_int(MPI_Count c)
{
	return c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	LM_QUERY(status && count && type_readable(datatype),
		 *count = count_int(elements_in(status, datatype)));
	LM_GUARD();
	MPI_Count c = 0;
	int err = count_of("MPI_Get_count", status, datatype, count ? &c : NULL);

	if (err)
		return err;
	*count = count_int(c);
	return MPI_SUCCESS;
}

int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype,
		    MPI_Count *count)
{
	LM_GUARD();
	return count_of("MPI_Get_count_c", status, datatype, count);
}

/* Basic elements received: a partial last element counts what arrived. */
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
		       MPI_Count *count)
{
	LM_GUARD();
	int64_t n;

	if (!status || !count)
		return lm_error(NULL, "MPI_Get_elements", MPI_ERR_ARG,
				"status or count is NULL");
	CHECK_TYPE("MPI_Get_elements", datatype, "datatype");
	n = lm_dt_elements(datatype, (uint64_t)status->libmsg_count);
	*count = n < 0 ? MPI_UNDEFINED : n;
	return MPI_SUCCESS;
}

int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype,
		       MPI_Count *count)
{
	return MPI_Get_elements_x(status, datatype, count);
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
		     int *count)
{
	LM_GUARD();
	MPI_Count c = 0;
	int err = MPI_Get_elements_x(status, datatype, count ? &c : NULL);

	if (err)
		return err;
	*count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
	return MPI_SUCCESS;
}

/* ---- Addresses ------------------------------------------------------------- */

int MPI_Get_address(const void *location, MPI_Aint *address)
{
	LM_GUARD();
	CHECK_PTR("MPI_Get_address", address);
	*address = (MPI_Aint)(uintptr_t)location;
	return MPI_SUCCESS;
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
	return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
	return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
