// SPDX-License-Identifier: MIT
/*
 * Accumulates on memory every member maps (the segment of an allocated
 * window), element by element with CPU atomics: MPI asks that
 * concurrent accumulates to one location with one basic type behave as
 * if done one after the other, whatever their ops (MPI_REPLACE and
 * MPI_NO_OP included).
 *
 * An element of 1, 2, 4 or 8 bytes at an address aligned to its size
 * is one atomic instruction: an exchange (MPI_REPLACE), a load
 * (MPI_NO_OP), fetch-and-add (MPI_SUM of integers), fetch-and-and/or/xor
 * (MPI_BAND/BOR/BXOR of integers and bytes), else a compare-and-swap
 * loop around the op's own loop (op.c) on one element: MAX, MIN, PROD,
 * the logical ops, floating point, MINLOC/MAXLOC of 8-byte pairs.
 * The caller (acc.c) holds the shared side of the target's accumulate
 * lock meanwhile (locks.c).  Larger elements (long double, complex
 * double, most pairs), unaligned ones, and accumulates of more than a
 * few elements are made under that lock held exclusively, with the
 * op's plain loop: nobody makes CPU atomics on the target then, so
 * every pair of accumulates to one location is ordered one way or the
 * other.
 */

#include <string.h>

#include "rma/rma.h"

int lm_rma_atomic_ok(MPI_Datatype dt, const void *p)
{
	uint64_t s = (uint64_t)dt->size;

	return (s == 1 || s == 2 || s == 4 || s == 8) &&
		((uintptr_t)p & (s - 1)) == 0;
}

/* Integers for fetch-and-add and the bitwise ops (op.c's groups). */
static int integer(int index)
{
	switch (index) {
	case LM_DT_CHAR: case LM_DT_SIGNED_CHAR: case LM_DT_UNSIGNED_CHAR:
	case LM_DT_SHORT: case LM_DT_UNSIGNED_SHORT: case LM_DT_INT:
	case LM_DT_UNSIGNED: case LM_DT_LONG: case LM_DT_UNSIGNED_LONG:
	case LM_DT_LONG_LONG: case LM_DT_UNSIGNED_LONG_LONG:
	case LM_DT_INT8_T: case LM_DT_INT16_T: case LM_DT_INT32_T:
	case LM_DT_INT64_T: case LM_DT_UINT8_T: case LM_DT_UINT16_T:
	case LM_DT_UINT32_T: case LM_DT_UINT64_T: case LM_DT_AINT:
	case LM_DT_OFFSET: case LM_DT_COUNT:
		return 1;
	}
	return 0;
}

enum { K_REPLACE, K_LOAD, K_ADD, K_AND, K_OR, K_XOR, K_CAS };

static int kind_of(MPI_Op op, MPI_Datatype dt)
{
	int bytes = dt->index == LM_DT_BYTE;

	switch (op->id) {
	case LM_OP_REPLACE:
		return K_REPLACE;
	case LM_OP_NO_OP:
		return K_LOAD;
	case LM_OP_SUM:
		return integer(dt->index) ? K_ADD : K_CAS;
	case LM_OP_BAND:
		return integer(dt->index) || bytes ? K_AND : K_CAS;
	case LM_OP_BOR:
		return integer(dt->index) || bytes ? K_OR : K_CAS;
	case LM_OP_BXOR:
		return integer(dt->index) || bytes ? K_XOR : K_CAS;
	}
	return K_CAS;
}

/*
 * One width: n elements at p (stride s), in[i] the origin's, old[i]
 * the value replaced (either may be NULL).
 */
#define RUN(T)								\
static void run_##T(int k, MPI_Op op, MPI_Datatype dt, T *p, uint64_t n, \
		    const unsigned char *in, unsigned char *old)	\
{									\
	uint64_t i;							\
	T v = 0, o, nv;							\
									\
	for (i = 0; i < n; i++, p++) {					\
		if (in)							\
			memcpy(&v, in + i * sizeof(T), sizeof(T));	\
		switch (k) {						\
		case K_REPLACE:						\
			o = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);	\
			break;						\
		case K_LOAD:						\
			o = __atomic_load_n(p, __ATOMIC_SEQ_CST);	\
			break;						\
		case K_ADD:						\
			o = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);	\
			break;						\
		case K_AND:						\
			o = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);	\
			break;						\
		case K_OR:						\
			o = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);	\
			break;						\
		case K_XOR:						\
			o = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);	\
			break;						\
		default:						\
			o = __atomic_load_n(p, __ATOMIC_RELAXED);	\
			do {						\
				nv = o;					\
				lm_op_apply(op, &v, &nv, 1, dt);	\
			} while (!__atomic_compare_exchange_n(p, &o, nv, 1, \
					__ATOMIC_SEQ_CST, __ATOMIC_RELAXED)); \
			break;						\
		}							\
		if (old)						\
			memcpy(old + i * sizeof(T), &o, sizeof(T));	\
	}								\
}

RUN(uint8_t)
RUN(uint16_t)
RUN(uint32_t)
RUN(uint64_t)

void lm_rma_atomic_run(MPI_Op op, MPI_Datatype dt, unsigned char *p,
		       uint64_t n, const unsigned char *in, unsigned char *old)
{
	int k = kind_of(op, dt);

	switch (dt->size) {
	case 1:
		run_uint8_t(k, op, dt, (uint8_t *)p, n, in, old);
		break;
	case 2:
		run_uint16_t(k, op, dt, (uint16_t *)(void *)p, n, in, old);
		break;
	case 4:
		run_uint32_t(k, op, dt, (uint32_t *)(void *)p, n, in, old);
		break;
	default:
		run_uint64_t(k, op, dt, (uint64_t *)(void *)p, n, in, old);
		break;
	}
}

#define CAS(T)								\
	do {								\
		T e, d;							\
									\
		memcpy(&e, expected, sizeof(T));			\
		memcpy(&d, desired, sizeof(T));				\
		__atomic_compare_exchange_n((T *)p, &e, d, 0,		\
					    __ATOMIC_SEQ_CST,		\
					    __ATOMIC_SEQ_CST);		\
		memcpy(old, &e, sizeof(T));				\
	} while (0)

void lm_rma_atomic_cas(void *p, const void *desired, const void *expected,
		       void *old, uint64_t size)
{
	switch (size) {
	case 1: CAS(uint8_t); break;
	case 2: CAS(uint16_t); break;
	case 4: CAS(uint32_t); break;
	default: CAS(uint64_t); break;
	}
}
