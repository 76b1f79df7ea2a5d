// SPDX-License-Identifier: MIT
/*
 * Type signatures (MPI-3.1 section 3.3.1): the sequence of basic types
 * a message is made of, whatever the displacements.  Two calls match
 * when their signatures are equal: 4 x MPI_INT matches one contiguous
 * type of 4 ints, not one MPI_DOUBLE and padding.  The collective-call
 * checks (coll/coll_check.c) compare them across ranks.
 *
 * A signature t1 ... tL is kept as a polynomial hash modulo the
 * Mersenne prime p = 2^61 - 1:
 *
 *	h = v(t1) B^(L-1) + v(t2) B^(L-2) + ... + v(tL),  and  P = B^L,
 *
 * v() a fixed pseudo-random value per basic type.  The pair (h, P)
 * composes: t followed by u is (h_t P_u + h_u, P_t P_u), and n copies
 * of t are found by squaring in log2 n steps.  A constructor composes
 * its type's signature from its old types' as it places them
 * (lm_dtb_place), once per type; a call composes count copies of it.
 * The pair types are their two members (MPI_2INT is int, int, so one
 * MPI_2INT matches two MPI_INT), as MPI's typemaps have them.
 */

#include "datatype/datatype.h"

#define LM_SIG_P	((1ULL << 61) - 1)
#define LM_SIG_B	0x0b3f9a6d2c41e57ULL	/* < p: the base */

static uint64_t mulmod(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;
	uint64_t s = (uint64_t)(r & LM_SIG_P) + (uint64_t)(r >> 61);

	s = (s & LM_SIG_P) + (s >> 61);
	return s >= LM_SIG_P ? s - LM_SIG_P : s;
}

static uint64_t addmod(uint64_t a, uint64_t b)
{
	uint64_t s = a + b;

	return s >= LM_SIG_P ? s - LM_SIG_P : s;
}

/* The empty sequence is (0, 1); a zeroed lm_sig counts as empty too. */
static void sig_norm(struct lm_sig *s)
{
	if (!s->p) {
		s->h = 0;
		s->p = 1;
	}
}

void lm_sig_cat(struct lm_sig *a, const struct lm_sig *b)
{
	sig_norm(a);
	if (!b->p)
		return;
	a->h = addmod(mulmod(a->h, b->p), b->h);
	a->p = mulmod(a->p, b->p);
}

void lm_sig_pow(struct lm_sig *s, uint64_t n)
{
	struct lm_sig r = { 0, 1 }, x = *s;

	sig_norm(&x);
	while (n) {
		if (n & 1)
			lm_sig_cat(&r, &x);
		n >>= 1;
		if (n)
			lm_sig_cat(&x, &x);
	}
	*s = r;
}

/* A basic type's value: splitmix64 of its index, reduced. */
static uint64_t basic_value(int index)
{
	uint64_t z = (uint64_t)(index + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	z %= LM_SIG_P;
	return z ? z : 1;
}

/* The members of the pair types, MPI's typemaps. */
static int pair_member(int index, int second)
{
	switch (index) {
	case LM_DT_FLOAT_INT:
		return second ? LM_DT_INT : LM_DT_FLOAT;
	case LM_DT_DOUBLE_INT:
		return second ? LM_DT_INT : LM_DT_DOUBLE;
	case LM_DT_LONG_INT:
		return second ? LM_DT_INT : LM_DT_LONG;
	case LM_DT_2INT:
		return LM_DT_INT;
	case LM_DT_SHORT_INT:
		return second ? LM_DT_INT : LM_DT_SHORT;
	case LM_DT_LONG_DOUBLE_INT:
		return second ? LM_DT_INT : LM_DT_LONG_DOUBLE;
	case LM_DT_2REAL:
		return LM_DT_REAL;
	case LM_DT_2DOUBLE_PRECISION:
		return LM_DT_DOUBLE_PRECISION;
	case LM_DT_2INTEGER:
		return LM_DT_INTEGER;
	default:
		return -1;
	}
}

/* A predefined type's signature, from its index. */
static void basic_sig(int index, struct lm_sig *s)
{
	int a = pair_member(index, 0);

	if (a < 0) {
		s->h = basic_value(index);
		s->p = LM_SIG_B;
		return;
	}
	s->h = addmod(mulmod(basic_value(a), LM_SIG_B),
		      basic_value(pair_member(index, 1)));
	s->p = mulmod(LM_SIG_B, LM_SIG_B);
}

void lm_sig_of(MPI_Datatype dt, struct lm_sig *s)
{
	if (dt->index < LM_DT_NTYPES) {
		basic_sig(dt->index, s);
	} else if (dt->layout && dt->layout->sig.p) {
		*s = dt->layout->sig;
	} else if (dt->basic && dt->basic != dt) {
		/* A dup or resize of a pair, sharing its static layout. */
		lm_sig_of(dt->basic, s);
		lm_sig_pow(s, dt->nbasic);
	} else {
		s->h = 0;
		s->p = 1;
	}
}

void lm_sig_count(MPI_Datatype dt, int64_t count, struct lm_sig *s)
{
	lm_sig_of(dt, s);
	lm_sig_pow(s, count > 0 ? (uint64_t)count : 0);
}

int lm_sig_untyped(MPI_Datatype dt)
{
	const struct libmsg_datatype *b = dt->index < LM_DT_NTYPES ? dt :
		dt->basic;

	return b && (b->index == LM_DT_BYTE || b->index == LM_DT_PACKED);
}

/* ---- Names, for messages that describe a signature ----------------------- */

static const MPI_Datatype predefined[] = {
	MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR,
	MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG,
	MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT,
	MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_BOOL, MPI_INT8_T, MPI_INT16_T,
	MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
	MPI_UINT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_C_FLOAT_COMPLEX,
	MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PACKED,
	MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
	MPI_LONG_DOUBLE_INT, MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER,
	MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX,
	MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_CHARACTER, MPI_LOGICAL, MPI_INTEGER,
	MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
	MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8,
	MPI_INTEGER16, MPI_REAL2, MPI_REAL4, MPI_REAL8, MPI_REAL16,
	MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32,
};

_Static_assert(sizeof(predefined) / sizeof(predefined[0]) == LM_DT_NTYPES,
	       "every basic type has its handle here");

const char *lm_dt_index_name(int index)
{
	if (index < 0 || index >= LM_DT_NTYPES)
		return "a derived datatype";
	/* In the enum's order; the handle says so itself. */
	return predefined[index]->index == index ? predefined[index]->name :
		"a basic datatype";
}
