// SPDX-License-Identifier: MIT
/*
 * Every collective, checked against a serial computation of what each
 * rank must hold: sizes from 0 to COLL_MAX bytes (default 4 MiB), roots
 * at both ends and in the middle, MPI_IN_PLACE where MPI allows it,
 * non-commutative reductions in rank order, results of a floating-point
 * allreduce bitwise identical on every rank; the rooted ones with the
 * root-only arguments NULL, -1 and MPI_DATATYPE_NULL elsewhere.
 *
 *   coll [NAME...]   run only the named collectives (see `tests` below)
 *
 * coll-algorithms.sh forces each algorithm in turn (MPICHAN_COLL_<NAME>)
 * and runs this at 1 to 9 ranks.
 */
#include "test.h"

static size_t coll_max = 4 << 20;

/* Element counts tried; each is skipped when its bytes exceed coll_max. */
static const int counts[] = { 0, 1, 3, 17, 1000, 5000, 40000, 300000 };
#define NCOUNTS (int)(sizeof(counts) / sizeof(counts[0]))

static int pat(int who, int i)
{
	return who * 1000003 + i * 7 + 1;
}

static int fits(int count, int per_rank_blocks)
{
	return (size_t)count * sizeof(int) * (size_t)per_rank_blocks <= coll_max;
}

static int roots(int k)		/* k = 0, 1, 2: first, last, middle */
{
	return k == 0 ? 0 : k == 1 ? t_size - 1 : t_size / 2;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	CHECK(p, "out of memory");
	return p;
}

/* ---- Data movement ------------------------------------------------------ */

static void t_bcast(void)
{
	int c, k, i, root, *b;

	for (c = 0; c < NCOUNTS; c++) {
		if (!fits(counts[c], 1))
			continue;
		b = xmalloc((size_t)counts[c] * sizeof(int));
		for (k = 0; k < 3; k++) {
			root = roots(k);
			for (i = 0; i < counts[c]; i++)
				b[i] = t_rank == root ? pat(root, i) : -1;
			MPI_OK(MPI_Bcast(b, counts[c], MPI_INT, root, MPI_COMM_WORLD));
			for (i = 0; i < counts[c]; i++)
				CHECK(b[i] == pat(root, i), "count %d root %d [%d] = %d",
				      counts[c], root, i, b[i]);
		}
		free(b);
	}
}

static void t_gather(void)
{
	int c, k, i, j, root, n, *sb, *rb, inplace;

	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, t_size))
			continue;
		sb = xmalloc((size_t)n * sizeof(int));
		rb = xmalloc((size_t)n * t_size * sizeof(int));
		for (k = 0; k < 6; k++) {
			root = roots(k % 3);
			inplace = k >= 3 && t_rank == root;
			for (i = 0; i < n; i++)
				sb[i] = pat(t_rank, i);
			for (i = 0; i < n * t_size; i++)
				rb[i] = -1;
			if (inplace)
				memcpy(rb + (size_t)n * root, sb, (size_t)n * sizeof(int));
			MPI_OK(MPI_Gather(inplace ? MPI_IN_PLACE : sb, n, MPI_INT,
					  rb, n, MPI_INT, root, MPI_COMM_WORLD));
			if (t_rank != root)
				continue;
			for (j = 0; j < t_size; j++)
				for (i = 0; i < n; i++)
					CHECK(rb[j * n + i] == pat(j, i),
					      "count %d root %d block %d [%d]", n, root, j, i);
		}
		free(sb);
		free(rb);
	}
}

static void t_scatter(void)
{
	int c, k, i, j, root, n, *sb, *rb, inplace;

	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, t_size))
			continue;
		sb = xmalloc((size_t)n * t_size * sizeof(int));
		rb = xmalloc((size_t)n * sizeof(int));
		for (k = 0; k < 6; k++) {
			root = roots(k % 3);
			inplace = k >= 3 && t_rank == root;
			for (j = 0; j < t_size; j++)
				for (i = 0; i < n; i++)
					sb[j * n + i] = t_rank == root ? pat(j, i) : -1;
			for (i = 0; i < n; i++)
				rb[i] = -1;
			MPI_OK(MPI_Scatter(sb, n, MPI_INT,
					   inplace ? MPI_IN_PLACE : rb, n, MPI_INT,
					   root, MPI_COMM_WORLD));
			for (i = 0; i < n; i++)
				CHECK((inplace ? sb[t_rank * n + i] : rb[i]) ==
				      pat(t_rank, i), "count %d root %d [%d]", n, root, i);
		}
		free(sb);
		free(rb);
	}
}

/* Varying block sizes for the v variants: some ranks send nothing. */
static int vcount(int who, int n)
{
	return (who % 3) * n / 2 + (who % 4 == 1);
}

static void t_gatherv_scatterv(void)
{
	int c, k, i, j, root, n, *sb, *rb, *cnt, *dsp, total, gap = 3;

	cnt = xmalloc(sizeof(int) * t_size);
	dsp = xmalloc(sizeof(int) * t_size);
	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, 2 * t_size))
			continue;
		/* Blocks in reverse rank order with gaps that must stay -1. */
		total = 0;
		for (j = t_size - 1; j >= 0; j--) {
			cnt[j] = vcount(j, n);
			dsp[j] = total;
			total += cnt[j] + gap;
		}
		sb = xmalloc(sizeof(int) * (size_t)(total + n + 1));
		rb = xmalloc(sizeof(int) * (size_t)(total + n + 1));
		for (k = 0; k < 3; k++) {
			root = roots(k);
			for (i = 0; i < cnt[t_rank]; i++)
				sb[i] = pat(t_rank, i);
			for (i = 0; i < total; i++)
				rb[i] = -1;
			MPI_OK(MPI_Gatherv(sb, cnt[t_rank], MPI_INT, rb, cnt, dsp,
					   MPI_INT, root, MPI_COMM_WORLD));
			if (t_rank == root)
				for (j = 0; j < t_size; j++) {
					for (i = 0; i < cnt[j]; i++)
						CHECK(rb[dsp[j] + i] == pat(j, i),
						      "gatherv count %d root %d block %d [%d]",
						      n, root, j, i);
					for (i = 0; i < gap; i++)
						CHECK(rb[dsp[j] + cnt[j] + i] == -1,
						      "gatherv wrote into a gap");
				}
			/* Scatterv back from the same layout. */
			for (i = 0; i < cnt[t_rank]; i++)
				sb[i] = -1;
			MPI_OK(MPI_Scatterv(rb, cnt, dsp, MPI_INT, sb, cnt[t_rank],
					    MPI_INT, root, MPI_COMM_WORLD));
			for (i = 0; i < cnt[t_rank]; i++)
				CHECK(sb[i] == pat(t_rank, i), "scatterv count %d root %d [%d]",
				      n, root, i);
		}
		free(sb);
		free(rb);
	}
	free(cnt);
	free(dsp);
}

static void t_allgather(void)
{
	int c, k, i, j, n, *sb, *rb, *cnt, *dsp, total;

	cnt = xmalloc(sizeof(int) * t_size);
	dsp = xmalloc(sizeof(int) * t_size);
	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, 2 * t_size))
			continue;
		sb = xmalloc((size_t)(n + 2) * sizeof(int));
		rb = xmalloc((size_t)n * t_size * sizeof(int) * 2 + 64);
		for (i = 0; i < n + 2; i++)
			sb[i] = pat(t_rank, i);
		for (k = 0; k < 2; k++) {
			for (i = 0; i < n * t_size; i++)
				rb[i] = k && i / (n ? n : 1) == t_rank ? sb[i % n] : -1;
			MPI_OK(MPI_Allgather(k ? MPI_IN_PLACE : sb, n, MPI_INT, rb, n,
					     MPI_INT, MPI_COMM_WORLD));
			for (j = 0; j < t_size; j++)
				for (i = 0; i < n; i++)
					CHECK(rb[j * n + i] == pat(j, i),
					      "allgather%s count %d block %d [%d]",
					      k ? " in place" : "", n, j, i);
		}
		/* Allgatherv: varying blocks, reverse order, in place too. */
		total = 0;
		for (j = t_size - 1; j >= 0; j--) {
			cnt[j] = vcount(j, n);
			dsp[j] = total;
			total += cnt[j] + 1;
		}
		for (k = 0; k < 2; k++) {
			for (i = 0; i < total; i++)
				rb[i] = -1;
			for (i = 0; i < cnt[t_rank]; i++)
				if (k)
					rb[dsp[t_rank] + i] = pat(t_rank, i);
			MPI_OK(MPI_Allgatherv(k ? MPI_IN_PLACE : sb, cnt[t_rank], MPI_INT,
					      rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
			for (j = 0; j < t_size; j++) {
				for (i = 0; i < cnt[j]; i++)
					CHECK(rb[dsp[j] + i] == pat(j, i),
					      "allgatherv count %d block %d [%d]", n, j, i);
				CHECK(rb[dsp[j] + cnt[j]] == -1, "allgatherv wrote a gap");
			}
		}
		free(sb);
		free(rb);
	}
	free(cnt);
	free(dsp);
}

/* What rank `from` sends to rank `to`, element i. */
static int a2a(int from, int to, int i)
{
	return pat(from * 97 + to, i);
}

static void t_alltoall(void)
{
	int c, k, i, j, n, *sb, *rb;

	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, 2 * t_size))
			continue;
		sb = xmalloc((size_t)n * t_size * sizeof(int));
		rb = xmalloc((size_t)n * t_size * sizeof(int));
		for (k = 0; k < 2; k++) {
			for (j = 0; j < t_size; j++)
				for (i = 0; i < n; i++) {
					sb[j * n + i] = a2a(t_rank, j, i);
					rb[j * n + i] = k ? sb[j * n + i] : -1;
				}
			MPI_OK(MPI_Alltoall(k ? MPI_IN_PLACE : sb, n, MPI_INT, rb, n,
					    MPI_INT, MPI_COMM_WORLD));
			for (j = 0; j < t_size; j++)
				for (i = 0; i < n; i++)
					CHECK(rb[j * n + i] == a2a(j, t_rank, i),
					      "alltoall%s count %d from %d [%d]",
					      k ? " in place" : "", n, j, i);
		}
		free(sb);
		free(rb);
	}
}

/* Alltoallv/w: rank f sends vc(f, t) elements to rank t. */
static int vc(int f, int t, int n)
{
	return ((f + 2 * t) % 3) * n / 2;
}

static void t_alltoallvw(void)
{
	int c, i, j, n, w, *sc, *sd, *rc, *rd, *swd, *rwd, st, rt;
	MPI_Datatype *stp, *rtp;
	unsigned char *sb, *rb;

	sc = xmalloc(sizeof(int) * t_size * 6);
	sd = sc + t_size; rc = sd + t_size; rd = rc + t_size;
	swd = rd + t_size; rwd = swd + t_size;
	stp = xmalloc(sizeof(MPI_Datatype) * t_size * 2);
	rtp = stp + t_size;
	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, 2 * t_size))
			continue;
		st = rt = 0;
		for (j = 0; j < t_size; j++) {
			sc[j] = vc(t_rank, j, n);
			rc[j] = vc(j, t_rank, n);
			/* Send blocks in reverse order, receive blocks forward. */
			sd[t_size - 1 - j] = 0;
		}
		for (j = t_size - 1; j >= 0; j--) {
			sd[j] = st;
			st += sc[j] + 2;
		}
		for (j = 0; j < t_size; j++) {
			rd[j] = rt;
			rt += rc[j] + 1;
		}
		sb = xmalloc((size_t)st * sizeof(int));
		rb = xmalloc((size_t)rt * sizeof(int));
		for (w = 0; w < 2; w++) {
			int *s = (int *)sb, *r = (int *)rb;

			for (j = 0; j < t_size; j++)
				for (i = 0; i < sc[j]; i++)
					s[sd[j] + i] = a2a(t_rank, j, i);
			for (i = 0; i < rt; i++)
				r[i] = -1;
			if (!w) {
				MPI_OK(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd,
						     MPI_INT, MPI_COMM_WORLD));
			} else {
				/* w: byte displacements; pairs of shorts or ints. */
				for (j = 0; j < t_size; j++) {
					stp[j] = (t_rank + j) % 2 ? MPI_SHORT : MPI_INT;
					rtp[j] = (t_rank + j) % 2 ? MPI_SHORT : MPI_INT;
					swd[j] = sd[j] * 4;
					rwd[j] = rd[j] * 4;
				}
				for (j = 0; j < t_size; j++) {
					if (stp[j] == MPI_SHORT)
						sc[j] *= 2;
					if (rtp[j] == MPI_SHORT)
						rc[j] *= 2;
				}
				MPI_OK(MPI_Alltoallw(sb, sc, swd, stp, rb, rc, rwd, rtp,
						     MPI_COMM_WORLD));
				for (j = 0; j < t_size; j++) {
					if (stp[j] == MPI_SHORT)
						sc[j] /= 2;
					if (rtp[j] == MPI_SHORT)
						rc[j] /= 2;
				}
			}
			for (j = 0; j < t_size; j++) {
				for (i = 0; i < rc[j]; i++)
					CHECK(r[rd[j] + i] == a2a(j, t_rank, i),
					      "alltoall%c count %d from %d [%d]",
					      w ? 'w' : 'v', n, j, i);
				CHECK(r[rd[j] + rc[j]] == -1, "wrote into a gap");
			}
		}
		free(sb);
		free(rb);
	}
	free(sc);
	free(stp);
}

/* ---- Reductions ---------------------------------------------------------- */

/* A 2x2 matrix over the integers mod 2^32: product does not commute. */
struct mat { uint32_t a, b, c, d; };

static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	struct mat *x = in, *y = inout, t;
	int i;

	/* Sent as 4 MPI_INTs per matrix: no algorithm splits a matrix. */
	(void)dt;
	for (i = 0; i < *len / 4; i++) {
		t.a = x[i].a * y[i].a + x[i].b * y[i].c;
		t.b = x[i].a * y[i].b + x[i].b * y[i].d;
		t.c = x[i].c * y[i].a + x[i].d * y[i].c;
		t.d = x[i].c * y[i].b + x[i].d * y[i].d;
		y[i] = t;
	}
}

static struct mat mat_of(int who, int i)
{
	struct mat m = { (uint32_t)(who + 2), (uint32_t)(i + 1), 1u,
			 (uint32_t)(who * 3 + i) };

	return m;
}

/* Product of ranks [lo, hi] of element i, in rank order. */
static struct mat mat_prod(int lo, int hi, int i)
{
	struct mat acc = mat_of(lo, i), m;
	int r, four = 4;

	for (r = lo + 1; r <= hi; r++) {
		m = mat_of(r, i);
		matmul(&acc, &m, &four, NULL);
		acc = m;
	}
	return acc;
}

static int mat_eq(struct mat x, struct mat y)
{
	return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
}

static MPI_Op matop;
static MPI_Datatype mat_dt = MPI_INT;	/* 4 ints: count * 4 */

static long long isum(int i)		/* sum over ranks of pat(r, i) */
{
	long long s = 0;
	int r;

	for (r = 0; r < t_size; r++)
		s += pat(r, i);
	return s;
}

static void t_reduce(void)
{
	int c, k, i, n, root, inplace;
	long long *sb, *rb;
	struct mat *ms, *mr;

	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, 4))
			continue;
		sb = xmalloc((size_t)n * sizeof(*sb));
		rb = xmalloc((size_t)n * sizeof(*rb));
		ms = xmalloc((size_t)n * sizeof(*ms));
		mr = xmalloc((size_t)n * sizeof(*mr));
		for (k = 0; k < 6; k++) {
			root = roots(k % 3);
			inplace = k >= 3 && t_rank == root;
			for (i = 0; i < n; i++) {
				sb[i] = pat(t_rank, i);
				rb[i] = inplace ? sb[i] : -1;
				ms[i] = mat_of(t_rank, i);
				mr[i] = ms[i];
			}
			MPI_OK(MPI_Reduce(inplace ? MPI_IN_PLACE : sb, rb, n,
					  MPI_LONG_LONG, MPI_SUM, root,
					  MPI_COMM_WORLD));
			MPI_OK(MPI_Reduce(inplace ? MPI_IN_PLACE : ms, mr, 4 * n,
					  mat_dt, matop, root, MPI_COMM_WORLD));
			if (t_rank != root)
				continue;
			for (i = 0; i < n; i++) {
				CHECK(rb[i] == isum(i), "reduce sum count %d root %d [%d]",
				      n, root, i);
				CHECK(mat_eq(mr[i], mat_prod(0, t_size - 1, i)),
				      "reduce matmul count %d root %d [%d]", n, root, i);
			}
		}
		free(sb); free(rb); free(ms); free(mr);
	}
}

static void t_allreduce(void)
{
	int c, k, i, n, r, diff;
	long long *sb, *rb;
	double *ds, *dr, *d0;
	struct mat *ms, *mr;
	struct { double v; int i; } *ls, *lr;

	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, 4))
			continue;
		sb = xmalloc((size_t)n * sizeof(*sb));
		rb = xmalloc((size_t)n * sizeof(*rb));
		ds = xmalloc((size_t)n * sizeof(*ds));
		dr = xmalloc((size_t)n * sizeof(*dr));
		d0 = xmalloc((size_t)n * sizeof(*d0));
		ms = xmalloc((size_t)n * sizeof(*ms));
		mr = xmalloc((size_t)n * sizeof(*mr));
		ls = xmalloc((size_t)n * sizeof(*ls));
		lr = xmalloc((size_t)n * sizeof(*lr));
		for (k = 0; k < 2; k++) {
			for (i = 0; i < n; i++) {
				sb[i] = pat(t_rank, i);
				rb[i] = k ? sb[i] : -1;
				/* Inexact sums: every rank must get the same bits. */
				ds[i] = 0.1 * (t_rank + 1) + 1e-7 * i;
				dr[i] = k ? ds[i] : -1;
				ms[i] = mat_of(t_rank, i);
				mr[i] = ms[i];
				ls[i].v = (double)((t_rank * 7 + i) % 5);
				ls[i].i = t_rank;
			}
			MPI_OK(MPI_Allreduce(k ? MPI_IN_PLACE : sb, rb, n,
					     MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
			MPI_OK(MPI_Allreduce(k ? MPI_IN_PLACE : ds, dr, n, MPI_DOUBLE,
					     MPI_SUM, MPI_COMM_WORLD));
			MPI_OK(MPI_Allreduce(k ? MPI_IN_PLACE : ms, mr, 4 * n, mat_dt,
					     matop, MPI_COMM_WORLD));
			MPI_OK(MPI_Allreduce(ls, lr, n, MPI_DOUBLE_INT, MPI_MAXLOC,
					     MPI_COMM_WORLD));
			for (i = 0; i < n; i++) {
				double best = -1;
				int at = -1;

				CHECK(rb[i] == isum(i), "allreduce sum count %d [%d]", n, i);
				CHECK(mat_eq(mr[i], mat_prod(0, t_size - 1, i)),
				      "allreduce matmul count %d [%d]", n, i);
				for (r = 0; r < t_size; r++)
					if ((double)((r * 7 + i) % 5) > best) {
						best = (double)((r * 7 + i) % 5);
						at = r;
					}
				CHECK(lr[i].v == best && lr[i].i == at,
				      "maxloc count %d [%d]: %g@%d, want %g@%d", n, i,
				      lr[i].v, lr[i].i, best, at);
			}
			/* Same bits everywhere: compare with rank 0's result. */
			memcpy(d0, dr, (size_t)n * sizeof(double));
			MPI_OK(MPI_Bcast(d0, n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
			diff = n ? memcmp(d0, dr, (size_t)n * sizeof(double)) : 0;
			CHECK(diff == 0, "double allreduce differs from rank 0's (count %d)",
			      n);
		}
		free(sb); free(rb); free(ds); free(dr); free(d0);
		free(ms); free(mr); free(ls); free(lr);
	}
}

static void t_reduce_scatter(void)
{
	int c, k, i, j, n, total, off, *cnt, blk;
	long long *sb, *rb;
	struct mat *ms, *mr;

	cnt = xmalloc(sizeof(int) * t_size);
	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, 4 * t_size))
			continue;
		for (k = 0; k < 4; k++) {
			int block = k >= 2, inplace = k & 1;

			total = 0;
			for (j = 0; j < t_size; j++) {
				cnt[j] = block ? n : vcount(j, n);
				total += cnt[j];
			}
			for (off = 0, j = 0; j < t_rank; j++)
				off += cnt[j];
			blk = cnt[t_rank];
			sb = xmalloc((size_t)total * sizeof(*sb));
			rb = xmalloc((size_t)total * sizeof(*rb));
			ms = xmalloc((size_t)total * sizeof(*ms));
			mr = xmalloc((size_t)total * sizeof(*mr));
			for (i = 0; i < total; i++) {
				sb[i] = pat(t_rank, i);
				rb[i] = inplace ? sb[i] : -1;
				ms[i] = mat_of(t_rank, i);
				mr[i] = ms[i];
			}
			if (block) {
				MPI_OK(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : sb,
								rb, n, MPI_LONG_LONG,
								MPI_SUM, MPI_COMM_WORLD));
				for (j = 0; j < t_size; j++)
					cnt[j] *= 4;
				MPI_OK(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : ms,
								mr, 4 * n, mat_dt, matop,
								MPI_COMM_WORLD));
			} else {
				MPI_OK(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : sb, rb,
							  cnt, MPI_LONG_LONG, MPI_SUM,
							  MPI_COMM_WORLD));
				for (j = 0; j < t_size; j++)
					cnt[j] *= 4;
				MPI_OK(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : ms, mr,
							  cnt, mat_dt, matop,
							  MPI_COMM_WORLD));
			}
			for (i = 0; i < blk; i++) {
				CHECK(rb[i] == isum(off + i),
				      "reduce_scatter%s count %d [%d]",
				      block ? "_block" : "", n, i);
				CHECK(mat_eq(mr[i], mat_prod(0, t_size - 1, off + i)),
				      "reduce_scatter%s matmul count %d [%d]",
				      block ? "_block" : "", n, i);
			}
			free(sb); free(rb); free(ms); free(mr);
		}
	}
	free(cnt);
}

static void t_scan(void)
{
	int c, k, i, r, n, inplace, ex;
	long long *sb, *rb, want;
	struct mat *ms, *mr;

	for (c = 0; c < NCOUNTS; c++) {
		n = counts[c];
		if (!fits(n, 4))
			continue;
		sb = xmalloc((size_t)n * sizeof(*sb));
		rb = xmalloc((size_t)n * sizeof(*rb));
		ms = xmalloc((size_t)n * sizeof(*ms));
		mr = xmalloc((size_t)n * sizeof(*mr));
		for (k = 0; k < 4; k++) {
			ex = k >= 2;
			inplace = k & 1;
			for (i = 0; i < n; i++) {
				sb[i] = pat(t_rank, i);
				rb[i] = inplace ? sb[i] : -1;
				ms[i] = mat_of(t_rank, i);
				mr[i] = ms[i];
			}
			if (ex) {
				MPI_OK(MPI_Exscan(inplace ? MPI_IN_PLACE : sb, rb, n,
						  MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
				MPI_OK(MPI_Exscan(inplace ? MPI_IN_PLACE : ms, mr, 4 * n,
						  mat_dt, matop, MPI_COMM_WORLD));
			} else {
				MPI_OK(MPI_Scan(inplace ? MPI_IN_PLACE : sb, rb, n,
						MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
				MPI_OK(MPI_Scan(inplace ? MPI_IN_PLACE : ms, mr, 4 * n,
						mat_dt, matop, MPI_COMM_WORLD));
			}
			if (ex && t_rank == 0)
				continue;	/* undefined on rank 0 */
			for (i = 0; i < n; i++) {
				want = 0;
				for (r = 0; r <= t_rank - ex; r++)
					want += pat(r, i);
				CHECK(rb[i] == want, "%sscan count %d [%d]",
				      ex ? "ex" : "", n, i);
				CHECK(mat_eq(mr[i], mat_prod(0, t_rank - ex, i)),
				      "%sscan matmul count %d [%d]", ex ? "ex" : "", n, i);
			}
		}
		free(sb); free(rb); free(ms); free(mr);
	}
}

/*
 * Nobody leaves the barrier before the last rank entered it.  Each rank
 * reads the clock before the barrier after which the last rank sleeps,
 * so the sleep comes after every start: with more ranks than CPUs a
 * rank may be descheduled between leaving one barrier and reading the
 * clock (CI saw 0.0899 s when the clock was read after it).
 */
static void t_coll_barrier(void)
{
	double t0;
	int i;

	for (i = 0; i < 20; i++)
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	t0 = MPI_Wtime();
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == t_size - 1)
		usleep(100000);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	CHECK(MPI_Wtime() - t0 >= 0.0995, "left the barrier after %.4f s",
	      MPI_Wtime() - t0);
}

/*
 * What only the root's arguments hold, on the other ranks: a NULL
 * buffer, a count of -1, MPI_DATATYPE_NULL, NULL count and displacement
 * arrays (MPI: significant only at the root).  Gather, gatherv,
 * scatter, scatterv and reduce with each rank as the root in turn, in
 * their blocking, nonblocking and persistent forms.
 */
static void t_rooted_args(void)
{
	int root, form, i, k, n = 4, mine[4], *all, *cnt, *dsp, rc, *sum;
	MPI_Datatype rt;
	MPI_Request req;

	for (root = 0; root < t_size; root++) {
		int me = t_rank == root;

		all = me ? xmalloc(sizeof(int) * (size_t)n * (size_t)t_size) : NULL;
		cnt = me ? xmalloc(sizeof(int) * (size_t)t_size) : NULL;
		dsp = me ? xmalloc(sizeof(int) * (size_t)t_size) : NULL;
		sum = me ? xmalloc(sizeof(int) * (size_t)n) : NULL;
		for (i = 0; me && i < t_size; i++) {
			cnt[i] = n;
			dsp[i] = n * i;
		}
		rc = me ? n : -1;
		rt = me ? MPI_INT : MPI_DATATYPE_NULL;
		for (form = 0; form < 3; form++) {
#define FORM(blocking, nonblocking, persistent) do {			\
	if (form == 0) {						\
		MPI_OK(blocking);					\
	} else if (form == 1) {						\
		MPI_OK(nonblocking);					\
		MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));		\
	} else {							\
		MPI_OK(persistent);					\
		MPI_OK(MPI_Start(&req));				\
		MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));		\
		MPI_OK(MPI_Request_free(&req));				\
	}								\
} while (0)
			for (i = 0; i < n; i++)
				mine[i] = pat(t_rank, i + form);
			FORM(MPI_Gather(mine, n, MPI_INT, all, rc, rt, root,
					MPI_COMM_WORLD),
			     MPI_Igather(mine, n, MPI_INT, all, rc, rt, root,
					 MPI_COMM_WORLD, &req),
			     MPI_Gather_init(mine, n, MPI_INT, all, rc, rt, root,
					     MPI_COMM_WORLD, MPI_INFO_NULL, &req));
			for (k = 0; me && k < t_size; k++)
				for (i = 0; i < n; i++)
					CHECK(all[k * n + i] == pat(k, i + form),
					      "gather to %d, form %d", root, form);
			FORM(MPI_Gatherv(mine, n, MPI_INT, all, cnt, dsp, rt, root,
					 MPI_COMM_WORLD),
			     MPI_Igatherv(mine, n, MPI_INT, all, cnt, dsp, rt,
					  root, MPI_COMM_WORLD, &req),
			     MPI_Gatherv_init(mine, n, MPI_INT, all, cnt, dsp, rt,
					      root, MPI_COMM_WORLD,
					      MPI_INFO_NULL, &req));
			for (k = 0; me && k < t_size; k++)
				CHECK(all[k * n + n - 1] == pat(k, n - 1 + form),
				      "gatherv to %d, form %d", root, form);
			FORM(MPI_Scatter(all, rc, rt, mine, n, MPI_INT, root,
					 MPI_COMM_WORLD),
			     MPI_Iscatter(all, rc, rt, mine, n, MPI_INT, root,
					  MPI_COMM_WORLD, &req),
			     MPI_Scatter_init(all, rc, rt, mine, n, MPI_INT, root,
					      MPI_COMM_WORLD, MPI_INFO_NULL,
					      &req));
			CHECK(mine[0] == pat(t_rank, form), "scatter from %d", root);
			FORM(MPI_Scatterv(all, cnt, dsp, rt, mine, n, MPI_INT,
					  root, MPI_COMM_WORLD),
			     MPI_Iscatterv(all, cnt, dsp, rt, mine, n, MPI_INT,
					   root, MPI_COMM_WORLD, &req),
			     MPI_Scatterv_init(all, cnt, dsp, rt, mine, n,
					       MPI_INT, root, MPI_COMM_WORLD,
					       MPI_INFO_NULL, &req));
			CHECK(mine[0] == pat(t_rank, form), "scatterv from %d", root);
			FORM(MPI_Reduce(mine, sum, n, MPI_INT, MPI_SUM, root,
					MPI_COMM_WORLD),
			     MPI_Ireduce(mine, sum, n, MPI_INT, MPI_SUM, root,
					 MPI_COMM_WORLD, &req),
			     MPI_Reduce_init(mine, sum, n, MPI_INT, MPI_SUM, root,
					     MPI_COMM_WORLD, MPI_INFO_NULL, &req));
			if (me) {
				long want = 0;

				for (k = 0; k < t_size; k++)
					want += pat(k, form);
				CHECK(sum[0] == (int)want, "reduce to %d", root);
			}
#undef FORM
		}
		free(all);
		free(cnt);
		free(dsp);
		free(sum);
	}
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "rooted", t_rooted_args },
	{ "barrier", t_coll_barrier },
	{ "bcast", t_bcast },
	{ "gather", t_gather },
	{ "scatter", t_scatter },
	{ "gatherv", t_gatherv_scatterv },
	{ "allgather", t_allgather },
	{ "alltoall", t_alltoall },
	{ "alltoallv", t_alltoallvw },
	{ "reduce", t_reduce },
	{ "allreduce", t_allreduce },
	{ "reduce_scatter", t_reduce_scatter },
	{ "scan", t_scan },
};

int main(int argc, char **argv)
{
	const char *m = getenv("COLL_MAX");
	size_t t;
	int a;

	t_init(&argc, &argv);
	if (m)
		coll_max = strtoul(m, NULL, 0);
	MPI_OK(MPI_Op_create(matmul, 0, &matop));
	for (t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
		int run = argc < 2;

		for (a = 1; a < argc; a++)
			run |= !strcmp(argv[a], tests[t].name);
		if (run)
			tests[t].fn();
	}
	MPI_OK(MPI_Op_free(&matop));
	return t_done();
}
