// SPDX-License-Identifier: MIT
/*
 * MPI_Dims_create: a balanced Cartesian grid of nnodes processes.
 *
 * MPI asks for dimensions "as close to each other as possible", in
 * non-increasing order, leaving the entries the caller fixed (> 0)
 * alone.  libmsg gives the most balanced factorisation in one precise
 * sense: of all non-increasing factorisations of the free part, the
 * lexicographically smallest, i.e. the smallest possible largest
 * dimension, then the smallest possible second one, and so on.  (For
 * 72 in two dimensions that is 9 x 8; a greedy assignment of prime
 * factors, as some libraries do, gives 12 x 6.)
 *
 * The search runs over the divisors of the free part (at most 1536 for
 * an int), smallest first, so the first complete factorisation found is
 * the answer; branches that cannot hold the largest remaining prime
 * factor are cut.
 */

#include <stdlib.h>

#include "comm/comm.h"

#define MAX_DIVISORS	1600	/* more than any int has */
#define MAX_PRIMES	10	/* distinct prime factors of an int */

struct dims_search {
	int ndiv, div[MAX_DIVISORS];	/* divisors of the free part, ascending */
	int nprimes, primes[MAX_PRIMES];	/* its prime factors, ascending */
};

static void find_divisors(struct dims_search *s, int m)
{
	int small[MAX_DIVISORS / 2], nsmall = 0, large[MAX_DIVISORS / 2],
	    nlarge = 0, i, p, n;

	for (i = 1; (long)i * i <= m; i++) {
		if (m % i)
			continue;
		small[nsmall++] = i;
		if (i != m / i)
			large[nlarge++] = m / i;
	}
	s->ndiv = 0;
	for (i = 0; i < nsmall; i++)
		s->div[s->ndiv++] = small[i];
	for (i = nlarge - 1; i >= 0; i--)
		s->div[s->ndiv++] = large[i];

	s->nprimes = 0;
	for (n = m, p = 2; (long)p * p <= n; p++) {
		if (n % p)
			continue;
		s->primes[s->nprimes++] = p;
		while (n % p == 0)
			n /= p;
	}
	if (n > 1)
		s->primes[s->nprimes++] = n;
}

/* d^k >= m, without overflow. */
static int pow_reaches(int d, int k, int m)
{
	long long v = 1;

	if (d >= m)
		return 1;
	if (d == 1)
		return m <= 1;
	while (k-- > 0) {
		v *= d;
		if (v >= m)
			return 1;
	}
	return 0;
}

static int largest_prime(const struct dims_search *s, int m)
{
	int i;

	for (i = s->nprimes - 1; i >= 0; i--)
		if (m % s->primes[i] == 0)
			return s->primes[i];
	return 1;
}

/*
 * The lexicographically smallest non-increasing k-tuple of divisors
 * with product m and entries <= cap, into out[]; 0 if there is none.
 */
static int factor(const struct dims_search *s, int m, int k, int cap, int *out)
{
	int i, d;

	if (m == 1) {
		for (i = 0; i < k; i++)
			out[i] = 1;
		return 1;
	}
	if (k == 1 || largest_prime(s, m) > cap) {
		out[0] = m;
		return k == 1 && m <= cap;
	}
	for (i = 0; i < s->ndiv && (d = s->div[i]) <= cap; i++) {
		if (m % d || !pow_reaches(d, k, m))
			continue;
		if (factor(s, m / d, k - 1, d, out + 1)) {
			out[0] = d;
			return 1;
		}
	}
	return 0;
}

int MPI_Dims_create(int nnodes, int ndims, int dims[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Dims_create";
	struct dims_search *s;
	int i, j, nfree = 0, fixed = 1, *free_dims;

	lm_check_init(fn);
	if (nnodes < 1)
		return lm_error(NULL, fn, MPI_ERR_ARG, "nnodes %d is not positive",
				nnodes);
	if (ndims < 0)
		return lm_error(NULL, fn, MPI_ERR_DIMS, "ndims %d is negative",
				ndims);
	if (ndims > 0 && !dims)
		return lm_error(NULL, fn, MPI_ERR_ARG, "dims is NULL");
	for (i = 0; i < ndims; i++) {
		if (dims[i] < 0)
			return lm_error(NULL, fn, MPI_ERR_DIMS,
					"dims[%d] = %d is negative", i, dims[i]);
		if (!dims[i]) {
			nfree++;
			continue;
		}
		if (nnodes % dims[i] || (nnodes / dims[i]) % fixed)
			return lm_error(NULL, fn, MPI_ERR_DIMS,
					"nnodes %d is not a multiple of the given dimensions",
					nnodes);
		fixed *= dims[i];
	}
	if (!nfree) {
		if (fixed != nnodes)
			return lm_error(NULL, fn, MPI_ERR_DIMS,
					"the given dimensions make %d nodes, not %d",
					fixed, nnodes);
		return MPI_SUCCESS;
	}
	s = malloc(sizeof(*s));
	free_dims = malloc((size_t)nfree * sizeof(*free_dims));
	if (!s || !free_dims) {
		free(s);
		free(free_dims);
		return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	find_divisors(s, nnodes / fixed);
	/* Always succeeds: (m, 1, ..., 1) is a factorisation. */
	factor(s, nnodes / fixed, nfree, nnodes / fixed, free_dims);
	for (i = 0, j = 0; i < ndims; i++)
		if (!dims[i])
			dims[i] = free_dims[j++];
	free(free_dims);
	free(s);
	return MPI_SUCCESS;
}
