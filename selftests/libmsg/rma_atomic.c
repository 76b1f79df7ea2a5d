// SPDX-License-Identifier: MIT
/*
 * Accumulates are atomic per element against other ranks' (MPI-3.1
 * 11.7.1), on each window flavor, every rank at once inside
 * MPI_Win_lock_all (shared: nothing else excludes them):
 *   - MPI_Fetch_and_op(+1) on one counter of rank 0, by every rank for
 *     BUSY seconds at least (so that they overlap, however scheduled):
 *     the count is exact and the values fetched are 0 .. count - 1,
 *     each once; with a long long (a CPU atomic on allocated memory)
 *     and a long double (the accumulate lock everywhere);
 *   - MPI_Accumulate MPI_SUM of arrays that overlap (rank r's starts at
 *     element r % 4 * LEN / 2), for BUSY seconds too, of ints, doubles and complex doubles
 *     (16 bytes: the lock): every element's sum is exact;
 *   - MPI_Compare_and_swap as a spin lock guarding a counter updated
 *     with MPI_Get and MPI_Put: exact;
 *   - MPI_Get_accumulate MPI_REPLACE as an atomic exchange: every value
 *     put in is taken out exactly once;
 *   - large accumulates (the whole of an array of MIXLEN long longs: the
 *     accumulate lock held, the op's loop) and single elements
 *     fetched-and-added into the same array (CPU atomics on allocated
 *     memory), both by every rank at once: every element exact.
 */
#include <complex.h>
#include "rma_util.h"

#define ITERS 200
#define LEN 64

/* Rank 0's memory: where each test's data lies (bytes). */
#define AT_COUNT	0
#define AT_LDCOUNT	16
#define AT_MUTEX	48
#define AT_GUARDED	56
#define AT_SWAP		64
#define AT_INTS		128
#define AT_DOUBLES	(AT_INTS + 4 * LEN * 4)
#define AT_COMPLEX	(AT_DOUBLES + 4 * LEN * 8)
#define AT_MIXED	(AT_COMPLEX + 4 * LEN * 16)
#define MIXLEN		2048	/* long longs: a long loop under the lock */
#define BYTES		(AT_MIXED + MIXLEN * 8)

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/*
 * Each rank goes on for at least BUSY seconds, so that all of them are
 * at it at once whenever they were scheduled.
 */
#define BUSY 0.3

static int busy(double t0, int done)
{
	return done < ITERS || MPI_Wtime() - t0 < BUSY;
}

static void fetch_add(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	long long one = 1, *got = NULL, *all = NULL, total = 0;
	long double lone = 1, lold;
	int i, n = 0, cap = 0, *counts = NULL, *displs = NULL;
	double t0;

	MPI_OK(MPI_Win_lock_all(0, w->win));
	t0 = MPI_Wtime();
	for (n = 0; busy(t0, n); n++) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			got = realloc(got, (size_t)cap * sizeof(*got));
			CHECK(got, "out of memory");
		}
		MPI_OK(MPI_Fetch_and_op(&one, &got[n], MPI_LONG_LONG, 0,
					t_disp(w, 0, AT_COUNT), MPI_SUM, w->win));
		MPI_OK(MPI_Fetch_and_op(&lone, &lold, MPI_LONG_DOUBLE, 0,
					t_disp(w, 0, AT_LDCOUNT), MPI_SUM, w->win));
	}
	MPI_OK(MPI_Win_unlock_all(w->win));
	if (t_rank == 0) {
		counts = malloc((size_t)t_size * sizeof(int));
		displs = malloc((size_t)t_size * sizeof(int));
	}
	MPI_OK(MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, w->comm));
	if (t_rank == 0) {
		for (i = 0; i < t_size; i++) {
			displs[i] = (int)total;
			total += counts[i];
		}
		all = malloc((size_t)total * sizeof(long long));
	}
	MPI_OK(MPI_Gatherv(got, n, MPI_LONG_LONG, all, counts, displs,
			   MPI_LONG_LONG, 0, w->comm));
	MPI_OK(MPI_Barrier(w->comm));
	if (t_rank == 0) {
		long long *c = (long long *)((char *)w->base + AT_COUNT);
		long double ld;

		memcpy(&ld, (char *)w->base + AT_LDCOUNT, sizeof(ld));
		CHECK(*c == total, "%s: counter %lld, expected %lld", f, *c, total);
		CHECK(ld == (long double)total,
		      "%s: long double counter %Lg, expected %lld", f, ld, total);
		qsort(all, (size_t)total, sizeof(long long), cmp_ll);
		for (i = 0; i < total; i++)
			CHECK(all[i] == i, "%s: fetched values: %lld where %d belongs (one fetched twice)",
			      f, all[i], i);
	}
	free(all);
	free(got);
	free(counts);
	free(displs);
}

static void overlapping_sums(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	int iv[LEN], i, r, k, off = t_rank % 4 * (LEN / 2), *rounds;
	double dv[LEN], t0;
	double complex cv[LEN];

	for (i = 0; i < LEN; i++) {
		iv[i] = t_rank + 1;
		dv[i] = t_rank + 1;
		cv[i] = (t_rank + 1) - 2.0 * I;
	}
	rounds = malloc((size_t)t_size * sizeof(int));
	MPI_OK(MPI_Win_lock_all(0, w->win));
	t0 = MPI_Wtime();
	for (k = 0; busy(t0, 4 * k); k++) {
		MPI_OK(MPI_Accumulate(iv, LEN, MPI_INT, 0,
				      t_disp(w, 0, AT_INTS + (size_t)off * 4), LEN,
				      MPI_INT, MPI_SUM, w->win));
		MPI_OK(MPI_Accumulate(dv, LEN, MPI_DOUBLE, 0,
				      t_disp(w, 0, AT_DOUBLES + (size_t)off * 8),
				      LEN, MPI_DOUBLE, MPI_SUM, w->win));
		MPI_OK(MPI_Accumulate(cv, LEN, MPI_C_DOUBLE_COMPLEX, 0,
				      t_disp(w, 0, AT_COMPLEX + (size_t)off * 16),
				      LEN, MPI_C_DOUBLE_COMPLEX, MPI_SUM, w->win));
	}
	MPI_OK(MPI_Win_unlock_all(w->win));
	MPI_OK(MPI_Allgather(&k, 1, MPI_INT, rounds, 1, MPI_INT, w->comm));
	MPI_OK(MPI_Barrier(w->comm));
	if (t_rank) {
		free(rounds);
		return;
	}
	for (i = 0; i < 4 * LEN; i++) {
		long long want = 0;
		int *ints = (int *)(void *)((char *)w->base + AT_INTS);
		double *ds = (double *)(void *)((char *)w->base + AT_DOUBLES);
		double complex *cs, c;

		for (r = 0; r < t_size; r++) {
			int o = r % 4 * (LEN / 2);

			if (i >= o && i < o + LEN)
				want += (long long)(r + 1) * rounds[r];
		}
		CHECK(ints[i] == want, "%s: int %d: %d, expected %lld", f, i,
		      ints[i], want);
		CHECK(ds[i] == (double)want, "%s: double %d: %g, expected %lld", f,
		      i, ds[i], want);
		cs = (double complex *)(void *)((char *)w->base + AT_COMPLEX);
		memcpy(&c, &cs[i], sizeof(c));
		CHECK(creal(c) == (double)want, "%s: complex %d: %g, expected %lld",
		      f, i, creal(c), want);
	}
	free(rounds);
}

static void cas_mutex(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	long long zero = 0, me = t_rank + 1, was, v;
	int i;

	MPI_OK(MPI_Win_lock_all(0, w->win));
	for (i = 0; i < ITERS / 4; i++) {
		do {
			MPI_OK(MPI_Compare_and_swap(&me, &zero, &was, MPI_LONG_LONG,
						    0, t_disp(w, 0, AT_MUTEX),
						    w->win));
			MPI_OK(MPI_Win_flush(0, w->win));
		} while (was != 0);
		MPI_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, t_disp(w, 0, AT_GUARDED),
			       1, MPI_LONG_LONG, w->win));
		MPI_OK(MPI_Win_flush(0, w->win));
		v++;
		MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, t_disp(w, 0, AT_GUARDED),
			       1, MPI_LONG_LONG, w->win));
		MPI_OK(MPI_Win_flush(0, w->win));
		MPI_OK(MPI_Compare_and_swap(&zero, &me, &was, MPI_LONG_LONG, 0,
					    t_disp(w, 0, AT_MUTEX), w->win));
		MPI_OK(MPI_Win_flush(0, w->win));
		CHECK(was == me, "%s: the mutex was %lld while rank %d held it",
		      f, was, t_rank);
	}
	MPI_OK(MPI_Win_unlock_all(w->win));
	MPI_OK(MPI_Barrier(w->comm));
	if (t_rank == 0) {
		long long *g = (long long *)(void *)((char *)w->base + AT_GUARDED);

		CHECK(*g == (long long)t_size * (ITERS / 4),
		      "%s: guarded counter %lld, expected %d", f, *g,
		      t_size * (ITERS / 4));
	}
}

static void swaps(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	long long in, out, sum = 0, total = 0, last;
	int i;

	MPI_OK(MPI_Win_lock_all(0, w->win));
	for (i = 0; i < ITERS / 4; i++) {
		in = 1 + t_rank * 1000 + i;
		MPI_OK(MPI_Get_accumulate(&in, 1, MPI_LONG_LONG, &out, 1,
					  MPI_LONG_LONG, 0, t_disp(w, 0, AT_SWAP),
					  1, MPI_LONG_LONG, MPI_REPLACE, w->win));
		sum += out;
	}
	MPI_OK(MPI_Win_unlock_all(w->win));
	MPI_OK(MPI_Reduce(&sum, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, w->comm));
	MPI_OK(MPI_Barrier(w->comm));
	if (t_rank == 0) {
		long long put = 0;
		int r;

		memcpy(&last, (char *)w->base + AT_SWAP, sizeof(last));
		for (r = 0; r < t_size; r++)
			for (i = 0; i < ITERS / 4; i++)
				put += 1 + r * 1000 + i;
		/* Taken out plus still in = put in (0 was there first). */
		CHECK(total + last == put, "%s: swaps: %lld out + %lld left != %lld in",
		      f, total, last, put);
	}
}

static void mixed(struct t_win *w)
{
	const char *f = t_flavor_name[w->flavor];
	long long *ones = malloc(MIXLEN * sizeof(long long)), one = 1, old, bulk = 0, all;
	long long *per = calloc(MIXLEN, sizeof(long long)), *sum = NULL;
	double t0;
	int i, k;

	for (i = 0; i < MIXLEN; i++)
		ones[i] = 1;
	if (t_rank == 0)
		sum = calloc(MIXLEN, sizeof(long long));
	MPI_OK(MPI_Win_lock_all(0, w->win));
	t0 = MPI_Wtime();
	for (k = 0; busy(t0, k); k++) {
		if (k % 4 == 0) {
			MPI_OK(MPI_Accumulate(ones, MIXLEN, MPI_LONG_LONG, 0,
					      t_disp(w, 0, AT_MIXED), MIXLEN,
					      MPI_LONG_LONG, MPI_SUM, w->win));
			bulk++;
		} else {
			i = (int)(((unsigned)k * 7919u + (unsigned)t_rank * 101u) % MIXLEN);
			MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0,
						t_disp(w, 0, AT_MIXED + (size_t)i * 8),
						MPI_SUM, w->win));
			per[i]++;
		}
	}
	MPI_OK(MPI_Win_unlock_all(w->win));
	MPI_OK(MPI_Reduce(&bulk, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, w->comm));
	MPI_OK(MPI_Reduce(per, sum, MIXLEN, MPI_LONG_LONG, MPI_SUM, 0, w->comm));
	MPI_OK(MPI_Barrier(w->comm));
	if (t_rank == 0) {
		long long *m = (long long *)(void *)((char *)w->base + AT_MIXED);

		for (i = 0; i < MIXLEN; i++)
			CHECK(m[i] == all + sum[i],
			      "%s: element %d: %lld, expected %lld whole-array sums + %lld fetch-and-adds",
			      f, i, m[i], all, sum[i]);
	}
	free(ones);
	free(per);
	free(sum);
}

int main(int argc, char **argv)
{
	struct t_win w;
	int f;

	t_init(&argc, &argv);
	for (f = 0; f < T_FLAVORS; f++) {
		t_win_make(&w, f, BYTES, 1, MPI_COMM_WORLD);
		fetch_add(&w);
		overlapping_sums(&w);
		cas_mutex(&w);
		swaps(&w);
		mixed(&w);
		t_win_free(&w);
	}
	if (t_rank == 0)
		printf("rma_atomic: ok\n");
	return t_done();
}
