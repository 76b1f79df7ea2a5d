// SPDX-License-Identifier: MIT
/*
 * Reduction operations: the predefined ops on the types MPI-3.1
 * (section 5.9.2) defines them for, user ops (MPI_Op_create) and
 * MPI_Reduce_local.
 *
 * Every (op, type) pair is a loop of its own, generated from one list
 * of types per MPI type group, so the compiler sees a plain element-wise
 * loop over one C type and vectorises it (the Makefile builds this file
 * with the vectoriser's full cost model).  loops[op][type index] finds
 * the loop; an empty slot is a pair MPI does not define, which is
 * MPI_ERR_OP (as MPICH and Open MPI report it).
 */
#include <complex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datatype/datatype.h"

#define PREDEFINED(lname, ID)						\
	LM_PREDEFINED(struct libmsg_op, libmsg_op_##lname,		\
		      LM_ABI_OP_SIZE) = { .obj = {				\
		LM_MAGIC_OP, 1, 1, LM_OP_##ID, NULL, "MPI_" #ID, 0, NULL	\
	} }

PREDEFINED(max, MAX);
PREDEFINED(min, MIN);
PREDEFINED(sum, SUM);
PREDEFINED(prod, PROD);
PREDEFINED(land, LAND);
PREDEFINED(band, BAND);
PREDEFINED(lor, LOR);
PREDEFINED(bor, BOR);
PREDEFINED(lxor, LXOR);
PREDEFINED(bxor, BXOR);
PREDEFINED(minloc, MINLOC);
PREDEFINED(maxloc, MAXLOC);
PREDEFINED(replace, REPLACE);
PREDEFINED(no_op, NO_OP);

/* MPI_C_BOOL is reduced as bytes (below); that needs a one-byte bool. */
_Static_assert(sizeof(bool) == 1, "MPI_C_BOOL is not one byte");

/* ---- The type groups ---------------------------------------------------- */

/*
 * X(op, index, C type, W): W is the type the arithmetic is done in.  For
 * integers it is unsigned and at least as wide as int and as the type,
 * so SUM and PROD wrap modulo 2^bits instead of overflowing (undefined
 * for signed types, and for unsigned ones narrower than int, which
 * promote to int).  Converting the result back to a signed type keeps
 * its low bits (GCC and Clang define it so).
 * MPI_CHAR is not in MPI's C integer group, but Open MPI and MPICH
 * reduce it as a small integer and programs count on that (the OSU
 * reduction benchmarks use MPI_SUM on MPI_CHAR by default).
 */
#define C_INTEGER(X, op)						\
	X(op, CHAR, char, unsigned)					\
	X(op, SIGNED_CHAR, signed char, unsigned)			\
	X(op, UNSIGNED_CHAR, unsigned char, unsigned)			\
	X(op, SHORT, short, unsigned)					\
	X(op, UNSIGNED_SHORT, unsigned short, unsigned)			\
	X(op, INT, int, unsigned)					\
	X(op, UNSIGNED, unsigned, unsigned)				\
	X(op, LONG, long, unsigned long)				\
	X(op, UNSIGNED_LONG, unsigned long, unsigned long)		\
	X(op, LONG_LONG, long long, unsigned long long)			\
	X(op, UNSIGNED_LONG_LONG, unsigned long long, unsigned long long) \
	X(op, INT8_T, int8_t, unsigned)					\
	X(op, INT16_T, int16_t, unsigned)				\
	X(op, INT32_T, int32_t, uint32_t)				\
	X(op, INT64_T, int64_t, uint64_t)				\
	X(op, UINT8_T, uint8_t, unsigned)				\
	X(op, UINT16_T, uint16_t, unsigned)				\
	X(op, UINT32_T, uint32_t, uint32_t)				\
	X(op, UINT64_T, uint64_t, uint64_t)

#define FORTRAN_INTEGER(X, op)						\
	X(op, INTEGER, int32_t, uint32_t)				\
	X(op, INTEGER1, int8_t, unsigned)				\
	X(op, INTEGER2, int16_t, unsigned)				\
	X(op, INTEGER4, int32_t, uint32_t)				\
	X(op, INTEGER8, int64_t, uint64_t)				\
	X(op, INTEGER16, lm_integer16, unsigned __int128)

#define MULTI_LANGUAGE(X, op)						\
	X(op, AINT, MPI_Aint, uintptr_t)				\
	X(op, OFFSET, MPI_Offset, unsigned long long)			\
	X(op, COUNT, MPI_Count, unsigned long long)

#define FLOATING(X, op)							\
	X(op, FLOAT, float, float)					\
	X(op, DOUBLE, double, double)					\
	X(op, LONG_DOUBLE, long double, long double)			\
	X(op, REAL, float, float)					\
	X(op, DOUBLE_PRECISION, double, double)				\
	X(op, REAL2, lm_real2, float)					\
	X(op, REAL4, float, float)					\
	X(op, REAL8, double, double)					\
	X(op, REAL16, lm_real16, lm_real16)

#define COMPLEX(X, op)							\
	X(op, C_FLOAT_COMPLEX, float complex, float complex)		\
	X(op, C_DOUBLE_COMPLEX, double complex, double complex)		\
	X(op, C_LONG_DOUBLE_COMPLEX, long double complex, long double complex) \
	X(op, CXX_FLOAT_COMPLEX, float complex, float complex)		\
	X(op, CXX_DOUBLE_COMPLEX, double complex, double complex)	\
	X(op, CXX_LONG_DOUBLE_COMPLEX, long double complex, long double complex) \
	X(op, COMPLEX, float complex, float complex)			\
	X(op, DOUBLE_COMPLEX, double complex, double complex)		\
	X(op, COMPLEX8, float complex, float complex)			\
	X(op, COMPLEX16, double complex, double complex)		\
	X(op, COMPLEX32, lm_complex32, lm_complex32)

/*
 * Read as bytes, any non-zero byte is true (a bool holding another value
 * would be undefined); the logical ops write 0 or 1.
 */
#define LOGICAL(X, op)							\
	X(op, C_BOOL, unsigned char, unsigned)				\
	X(op, CXX_BOOL, unsigned char, unsigned)			\
	X(op, LOGICAL, int32_t, unsigned)

#define BYTE(X, op)	X(op, BYTE, unsigned char, unsigned)

#define PAIRS(X, op)							\
	X(op, FLOAT_INT, struct lm_float_int, void)			\
	X(op, DOUBLE_INT, struct lm_double_int, void)			\
	X(op, LONG_INT, struct lm_long_int, void)			\
	X(op, 2INT, struct lm_2int, void)				\
	X(op, SHORT_INT, struct lm_short_int, void)			\
	X(op, LONG_DOUBLE_INT, struct lm_long_double_int, void)		\
	X(op, 2REAL, struct lm_2real, void)				\
	X(op, 2DOUBLE_PRECISION, struct lm_2double_precision, void)	\
	X(op, 2INTEGER, struct lm_2integer, void)

/* Which groups each op is defined on (MPI-3.1, 5.9.2). */
#define MINMAX_TYPES(X, op)						\
	C_INTEGER(X, op) FORTRAN_INTEGER(X, op) MULTI_LANGUAGE(X, op)	\
	FLOATING(X, op)
#define ARITH_TYPES(X, op)						\
	C_INTEGER(X, op) FORTRAN_INTEGER(X, op) MULTI_LANGUAGE(X, op)	\
	FLOATING(X, op) COMPLEX(X, op)
#define LOGICAL_TYPES(X, op)	C_INTEGER(X, op) LOGICAL(X, op)
#define BITWISE_TYPES(X, op)						\
	C_INTEGER(X, op) FORTRAN_INTEGER(X, op) MULTI_LANGUAGE(X, op)	\
	BYTE(X, op)
#define LOC_TYPES(X, op)	PAIRS(X, op)

/* ---- The loops ------------------------------------------------------------ */

/* a = in[i] (the lower rank's), b = inout[i]; the result goes to inout[i]. */
#define E_max(a, b, T, W)	((a) > (b) ? (a) : (b))
#define E_min(a, b, T, W)	((a) < (b) ? (a) : (b))
#define E_sum(a, b, T, W)	((T)((W)(a) + (W)(b)))
#define E_prod(a, b, T, W)	((T)((W)(a) * (W)(b)))
#define E_land(a, b, T, W)	((T)((a) && (b)))
#define E_lor(a, b, T, W)	((T)((a) || (b)))
#define E_lxor(a, b, T, W)	((T)(!(a) != !(b)))
#define E_band(a, b, T, W)	((T)((a) & (b)))
#define E_bor(a, b, T, W)	((T)((a) | (b)))
#define E_bxor(a, b, T, W)	((T)((a) ^ (b)))
/* MPI's tie rule: equal values keep the smaller index. */
#define E_minloc(a, b, T, W)						\
	((a).v < (b).v || ((a).v == (b).v && (a).i < (b).i) ? (a) : (b))
#define E_maxloc(a, b, T, W)						\
	((a).v > (b).v || ((a).v == (b).v && (a).i < (b).i) ? (a) : (b))

/*
 * No element depends on another, also when in == inout (the one overlap
 * allowed): say so, so that no run-time overlap check is needed.
 */
#if defined(__clang__)
#define NO_DEPENDENCE	_Pragma("clang loop vectorize(enable)")
#else
#define NO_DEPENDENCE	_Pragma("GCC ivdep")
#endif

typedef void lm_op_loop(const void *in, void *inout, size_t n);

#define DEFINE_LOOP(op, index, T, W)					\
static void op##_##index(const void *vin, void *vinout, size_t n)	\
{									\
	const T *in = vin;						\
	T *inout = vinout;						\
	size_t i;							\
									\
	NO_DEPENDENCE							\
	for (i = 0; i < n; i++)						\
		inout[i] = E_##op(in[i], inout[i], T, W);		\
}

/*
 * The pairs: member by member, so that the padding of MPI_DOUBLE_INT
 * and the like is never written (it is no part of the type).
 */
#define DEFINE_LOC_LOOP(op, index, T, W)				\
static void op##_##index(const void *vin, void *vinout, size_t n)	\
{									\
	const T *in = vin;						\
	T *inout = vinout, r;						\
	size_t i;							\
									\
	for (i = 0; i < n; i++) {					\
		r = E_##op(in[i], inout[i], T, W);			\
		inout[i].v = r.v;					\
		inout[i].i = r.i;					\
	}								\
}

MINMAX_TYPES(DEFINE_LOOP, max)
MINMAX_TYPES(DEFINE_LOOP, min)
ARITH_TYPES(DEFINE_LOOP, sum)
ARITH_TYPES(DEFINE_LOOP, prod)
LOGICAL_TYPES(DEFINE_LOOP, land)
LOGICAL_TYPES(DEFINE_LOOP, lor)
LOGICAL_TYPES(DEFINE_LOOP, lxor)
BITWISE_TYPES(DEFINE_LOOP, band)
BITWISE_TYPES(DEFINE_LOOP, bor)
BITWISE_TYPES(DEFINE_LOOP, bxor)
LOC_TYPES(DEFINE_LOC_LOOP, minloc)
LOC_TYPES(DEFINE_LOC_LOOP, maxloc)

#define LOOP_ENTRY(op, index, T, W)	[LM_DT_##index] = op##_##index,

/* REPLACE and NO_OP apply to every type and need no loop. */
static lm_op_loop *const loops[LM_OP_REPLACE][LM_DT_NTYPES] = {
	[LM_OP_MAX] = { MINMAX_TYPES(LOOP_ENTRY, max) },
	[LM_OP_MIN] = { MINMAX_TYPES(LOOP_ENTRY, min) },
	[LM_OP_SUM] = { ARITH_TYPES(LOOP_ENTRY, sum) },
	[LM_OP_PROD] = { ARITH_TYPES(LOOP_ENTRY, prod) },
	[LM_OP_LAND] = { LOGICAL_TYPES(LOOP_ENTRY, land) },
	[LM_OP_LOR] = { LOGICAL_TYPES(LOOP_ENTRY, lor) },
	[LM_OP_LXOR] = { LOGICAL_TYPES(LOOP_ENTRY, lxor) },
	[LM_OP_BAND] = { BITWISE_TYPES(LOOP_ENTRY, band) },
	[LM_OP_BOR] = { BITWISE_TYPES(LOOP_ENTRY, bor) },
	[LM_OP_BXOR] = { BITWISE_TYPES(LOOP_ENTRY, bxor) },
	[LM_OP_MINLOC] = { LOC_TYPES(LOOP_ENTRY, minloc) },
	[LM_OP_MAXLOC] = { LOC_TYPES(LOOP_ENTRY, maxloc) },
};

/* ---- The library's interface ------------------------------------------------ */

static int valid_op(MPI_Op op)
{
	return LM_HANDLE(op) && op->magic == LM_MAGIC_OP;
}

int lm_op_check(MPI_Op op, MPI_Datatype dt, const char **why)
{
	static __thread char reason[128];

	if (!valid_op(op)) {
		*why = op ? "invalid operation" : "operation is MPI_OP_NULL";
		return MPI_ERR_OP;
	}
	if (lm_check_datatype(dt)) {
		*why = lm_datatype_why(dt);
		return MPI_ERR_TYPE;
	}
	if (!op->predefined || op->id >= LM_OP_REPLACE)
		return MPI_SUCCESS;
	/* A derived type is reduced as the basic elements it holds. */
	if (dt->index == LM_DT_DERIVED) {
		if (!dt->basic) {
			snprintf(reason, sizeof(reason),
				 "%s needs a datatype of one basic type; %s%s%s mixes several",
				 op->name, *dt->name ? "" : "this derived datatype",
				 dt->name, *dt->name ? " (derived)" : "");
			*why = reason;
			return MPI_ERR_TYPE;
		}
		dt = dt->basic;
	}
	if (loops[op->id][dt->index])
		return MPI_SUCCESS;
	snprintf(reason, sizeof(reason), "%s is not defined on %s",
		 op->name, dt->name);
	*why = reason;
	return MPI_ERR_OP;
}

static void *op_alloc(uint64_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (!p)
		lm_fatal("out of memory reducing %llu bytes", (unsigned long long)bytes);
	return p;
}

/*
 * A predefined op on n padded pairs p packed (their members only): the
 * loop gets them back as C structs, extent apart.
 */
static void packed_pairs(MPI_Op op, const void *in, void *inout, uint64_t n,
			 MPI_Datatype p)
{
	uint64_t bytes = n * (uint64_t)p->size;
	unsigned char *sa = op_alloc(n * (uint64_t)p->extent);
	unsigned char *sb = op_alloc(n * (uint64_t)p->extent);

	lm_dt_unpack(in, bytes, sa, (int64_t)n, p);
	lm_dt_unpack(inout, bytes, sb, (int64_t)n, p);
	loops[op->id][p->index](sa, sb, (size_t)n);
	lm_dt_pack(sb, (int64_t)n, p, inout);
	free(sa);
	free(sb);
}

/*
 * A predefined op on a derived type of one basic type (lm_op_check
 * said so): on the basic elements, in place when the data is one run,
 * else packed and unpacked around the loop.  Pairs with padding
 * (MPI_DOUBLE_INT...) pack to their members only: the loop gets them
 * back as C structs, extent apart.
 */
static void apply_derived(MPI_Op op, const void *in, void *inout, int count,
			  MPI_Datatype dt)
{
	MPI_Datatype p = dt->basic;
	uint64_t n = (uint64_t)count * dt->nbasic, bytes;
	unsigned char *a, *b;

	if (op->id == LM_OP_REPLACE) {
		lm_dt_copy(in, inout, count, dt);
		return;
	}
	if (p->dense && lm_dt_contig(dt, count)) {
		loops[op->id][p->index]((const unsigned char *)in + dt->true_lb,
					(unsigned char *)inout + dt->true_lb,
					(size_t)n);
		return;
	}
	bytes = (uint64_t)count * (uint64_t)dt->size;
	a = op_alloc(bytes);
	b = op_alloc(bytes);
	lm_dt_pack(in, count, dt, a);
	lm_dt_pack(inout, count, dt, b);
	if (p->dense)
		loops[op->id][p->index](a, b, (size_t)n);
	else
		packed_pairs(op, a, b, n, p);
	lm_dt_unpack(b, bytes, inout, count, dt);
	free(a);
	free(b);
}

void lm_op_apply(MPI_Op op, const void *in, void *inout, int count,
		 MPI_Datatype dt)
{
	lm_op_loop *loop;

	if (count <= 0)
		return;
	if (!op->predefined) {
		MPI_Datatype t = dt;	/* the user function may write both */

		MPI_Count len = count;

		if (op->call)
			op->call(op, (void *)in, inout, &count, &t);
		else if (op->fn_c)
			op->fn_c((void *)in, inout, &len, &t);
		else
			op->fn((void *)in, inout, &count, &t);
		return;
	}
	if (op->id == LM_OP_NO_OP)
		return;
	if (dt->index == LM_DT_DERIVED) {
		apply_derived(op, in, inout, count, dt);
		return;
	}
	if (op->id == LM_OP_REPLACE) {
		if (in == inout)
			return;
		if (dt->dense)
			memmove(inout, in, (size_t)count * (size_t)dt->size);
		else
			lm_dt_copy(in, inout, count, dt);	/* a padded pair */
		return;
	}
	loop = loops[op->id][dt->index];
	if (!loop)
		lm_fatal("internal error: %s applied to %s", op->name, dt->name);
	loop(in, inout, (size_t)count);
}

void lm_op_hold(MPI_Op op)
{
	if (!op->predefined)
		__atomic_add_fetch(&op->refs, 1, __ATOMIC_RELAXED);
}

void lm_op_release(MPI_Op op)
{
	if (op->predefined ||
	    __atomic_sub_fetch(&op->refs, 1, __ATOMIC_ACQ_REL))
		return;
	op->magic = 0;
	free(op);
}

/* ---- MPI calls ---------------------------------------------------------------- */

/* A user op of fn (MPI_Op_create) or fn_c (MPI_Op_create_c). */
static int op_create(const char *fn, MPI_User_function *user_fn,
		     MPI_User_function_c *user_fn_c, int commute, MPI_Op *op)
{
	struct libmsg_op *o;

	lm_check_init(fn);
	if (!user_fn && !user_fn_c)
		return lm_error(NULL, fn, MPI_ERR_ARG, "user function is NULL");
	if (!op)
		return lm_error(NULL, fn, MPI_ERR_ARG, "op is NULL");
	o = calloc(1, sizeof(*o));
	if (!o)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM,
				"no memory for an operation");
	o->magic = LM_MAGIC_OP;
	o->commute = commute != 0;
	o->id = LM_OP_USER;
	o->fn = user_fn;
	o->fn_c = user_fn_c;
	o->name = "user operation";
	o->refs = 1;
	*op = o;
	return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
	LM_GUARD();
	return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

/*
 * The reductions call a user function with at most an int's count of
 * elements (larger _c reductions go in slices), so fn_c's len is such
 * a count too.
 */
int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
	LM_GUARD();
	return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

int MPI_Op_free(MPI_Op *op)
{
	LM_GUARD();
	MPI_Op o;

	lm_check_init("MPI_Op_free");
	if (!op)
		return lm_error(NULL, "MPI_Op_free", MPI_ERR_ARG, "op is NULL");
	o = *op;
	if (!valid_op(o))
		return lm_error(NULL, "MPI_Op_free", MPI_ERR_OP, "%s",
				o ? "invalid operation" : "operation is MPI_OP_NULL");
	if (o->predefined)
		return lm_error(NULL, "MPI_Op_free", MPI_ERR_OP,
				"%s is predefined and cannot be freed", o->name);
	*op = MPI_OP_NULL;
	/* Reductions still running with it hold it (lm_op_hold). */
	lm_op_release(o);
	return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute)
{
	LM_GUARD();
	lm_check_init("MPI_Op_commutative");
	if (!valid_op(op))
		return lm_error(NULL, "MPI_Op_commutative", MPI_ERR_OP, "%s",
				op ? "invalid operation" : "operation is MPI_OP_NULL");
	if (!commute)
		return lm_error(NULL, "MPI_Op_commutative", MPI_ERR_ARG,
				"commute is NULL");
	*commute = op->commute;
	return MPI_SUCCESS;
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
		     MPI_Datatype datatype, MPI_Op op)
{
	LM_GUARD();
	static const char fn[] = "MPI_Reduce_local";
	const char *why;
	int err;

	lm_check_init(fn);
	if (count < 0)
		return lm_error(NULL, fn, MPI_ERR_COUNT, "count %d is negative",
				count);
	if (lm_check_datatype(datatype))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(datatype));
	err = lm_op_check(op, datatype, &why);
	if (err)
		return lm_error(NULL, fn, err, "%s", why);
	if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
		return lm_error(NULL, fn, MPI_ERR_BUFFER,
				"MPI_IN_PLACE is not allowed here");
	if (count > 0 && (!inbuf || !inoutbuf))
		return lm_error(NULL, fn, MPI_ERR_BUFFER,
				"%s is NULL for %d element(s)",
				inbuf ? "inoutbuf" : "inbuf", count);
	lm_op_apply(op, inbuf, inoutbuf, count, datatype);
	return MPI_SUCCESS;
}
