// SPDX-License-Identifier: MIT
/*
 * MPI_Dims_create: the standard's examples; for every nnodes up to 360
 * and 1 to 5 dimensions (some fixed by the caller) the result is the
 * lexicographically smallest non-increasing factorisation, found here
 * by enumerating all of them; large and prime nnodes; bad arguments.
 */
#include "test.h"

static void example(int nnodes, int ndims, const int *in, const int *want)
{
	int d[8], i;

	memcpy(d, in, (size_t)ndims * sizeof(int));
	MPI_OK(MPI_Dims_create(nnodes, ndims, d));
	for (i = 0; i < ndims; i++)
		CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d",
		      nnodes, ndims, i, d[i], want[i]);
}

/* Every non-increasing k-tuple with product m, entries <= cap: keep the
 * lexicographically smallest in best[] (best[0] == 0: none yet). */
static void enumerate(int m, int k, int cap, int *cur, int depth, int *best,
		      int total)
{
	int d, i;

	if (k == 0) {
		if (m != 1)
			return;
		for (i = 0; i < total; i++) {
			if (best[0] && cur[i] > best[i])
				return;
			if (!best[0] || cur[i] < best[i])
				break;
		}
		memcpy(best, cur, (size_t)total * sizeof(int));
		return;
	}
	for (d = 1; d <= cap && d <= m; d++) {
		if (m % d)
			continue;
		cur[depth] = d;
		enumerate(m / d, k - 1, d, cur, depth + 1, best, total);
	}
}

static void exhaustive(void)
{
	int n, k, mask, i, j, d[5], want[5], cur[5], nfree, fixed, ok;

	for (n = 1; n <= 360; n++) {
		for (k = 1; k <= 5; k++) {
			/* Fix dimension 1 to each divisor in turn, or none. */
			for (mask = 0; mask <= n; mask++) {
				if (mask && (k < 2 || n % mask))
					continue;
				memset(d, 0, sizeof(d));
				if (mask)
					d[1] = mask;
				fixed = mask ? mask : 1;
				nfree = k - (mask ? 1 : 0);
				memset(want, 0, sizeof(want));
				enumerate(n / fixed, nfree, n / fixed, cur, 0,
					  want, nfree);
				MPI_OK(MPI_Dims_create(n, k, d));
				ok = !mask || d[1] == mask;
				for (i = 0, j = 0; i < k; i++) {
					if (mask && i == 1)
						continue;
					ok = ok && d[i] == want[j++];
				}
				CHECK(ok, "Dims_create(%d, %d) fixed %d: %d %d %d %d %d, expected %d %d %d %d",
				      n, k, mask, d[0], d[1], d[2], d[3], d[4],
				      want[0], want[1], want[2], want[3]);
				if (k == 5)
					break;	/* the fixed case is covered at 2..4 */
			}
		}
	}
}

/* Large nnodes: product right, non-increasing, quickly. */
static void large(void)
{
	static const int ns[] = { 2147483647, 2095133040, 1073741824,
				  1000000007, 735134400, 2 * 1000003 };
	int i, k, j, d[32];
	double t = MPI_Wtime();
	long long prod;

	for (i = 0; i < (int)(sizeof(ns) / sizeof(ns[0])); i++) {
		for (k = 1; k <= 32; k += 3) {
			memset(d, 0, sizeof(d));
			MPI_OK(MPI_Dims_create(ns[i], k, d));
			prod = 1;
			for (j = 0; j < k; j++) {
				prod *= d[j];
				CHECK(!j || d[j] <= d[j - 1], "%d in %d dims: not sorted",
				      ns[i], k);
			}
			CHECK(prod == ns[i], "%d in %d dims: product %lld", ns[i],
			      k, prod);
		}
	}
	memset(d, 0, sizeof(d));
	MPI_OK(MPI_Dims_create(1073741824, 3, d));
	CHECK(d[0] == 1024 && d[1] == 1024 && d[2] == 1024, "2^30 in 3 dims");
	MPI_OK(MPI_Dims_create(2147483647, 2, (memset(d, 0, sizeof(d)), d)));
	CHECK(d[0] == 2147483647 && d[1] == 1, "a prime in 2 dims");
	t = MPI_Wtime() - t;
	CHECK(t < 5, "large cases took %.1f s", t);
}

int main(int argc, char **argv)
{
	int d[4];

	t_init(&argc, &argv);

	/* MPI-3.1 section 7.5.2, Example 7.1. */
	example(6, 2, (int[]){ 0, 0 }, (int[]){ 3, 2 });
	example(7, 2, (int[]){ 0, 0 }, (int[]){ 7, 1 });
	example(6, 3, (int[]){ 0, 3, 0 }, (int[]){ 2, 3, 1 });
	d[0] = 0; d[1] = 3; d[2] = 0;
	t_expect(MPI_Dims_create(7, 3, d), MPI_ERR_DIMS, "(7, 3, (0,3,0))");

	/* Balanced beyond a greedy split of prime factors. */
	example(72, 2, (int[]){ 0, 0 }, (int[]){ 9, 8 });
	example(360, 3, (int[]){ 0, 0, 0 }, (int[]){ 9, 8, 5 });
	example(16, 3, (int[]){ 0, 0, 0 }, (int[]){ 4, 2, 2 });
	example(1, 3, (int[]){ 0, 0, 0 }, (int[]){ 1, 1, 1 });
	example(12, 3, (int[]){ 2, 0, 3 }, (int[]){ 2, 2, 3 });
	example(12, 2, (int[]){ 4, 3 }, (int[]){ 4, 3 });
	MPI_OK(MPI_Dims_create(1, 0, NULL));
	example(t_size, 1, (int[]){ 0 }, (int[]){ t_size });

	exhaustive();
	large();

	d[0] = d[1] = 0;
	t_expect(MPI_Dims_create(0, 2, d), MPI_ERR_ARG, "nnodes 0");
	t_expect(MPI_Dims_create(-4, 2, d), MPI_ERR_ARG, "nnodes -4");
	t_expect(MPI_Dims_create(4, -1, d), MPI_ERR_DIMS, "ndims -1");
	t_expect(MPI_Dims_create(4, 2, NULL), MPI_ERR_ARG, "dims NULL");
	d[0] = -2;
	t_expect(MPI_Dims_create(4, 2, d), MPI_ERR_DIMS, "dims[0] -2");
	d[0] = 2; d[1] = 3;
	t_expect(MPI_Dims_create(12, 2, d), MPI_ERR_DIMS, "all fixed, product 6 of 12");
	d[0] = 4; d[1] = 0; d[2] = 4;
	t_expect(MPI_Dims_create(8, 3, d), MPI_ERR_DIMS, "fixed 4 x 4 of 8");
	CHECK(d[1] == 0, "a refused call changed dims");
	t_expect(MPI_Dims_create(2, 0, NULL), MPI_ERR_DIMS, "0 dims of 2 nodes");
	return t_done();
}
