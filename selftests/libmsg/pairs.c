// SPDX-License-Identifier: MIT
/*
 * The MINLOC/MAXLOC pair types (MPI_FLOAT_INT, MPI_DOUBLE_INT,
 * MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT): their
 * size is their two members' (MPI_DOUBLE_INT 12 bytes, MPI_SHORT_INT
 * 6), their bounds the C struct's (extent 16 and 8), exactly as a
 * struct type built from the members with MPI_Type_create_struct.
 * The padding is no part of the data: MPI_Pack gives the members one
 * after the other, a receive (eager and rendezvous), MPI_Unpack, a
 * broadcast, a gather and every reduction (MINLOC and MAXLOC blocking,
 * nonblocking and in place, on a derived type of pairs, a user op)
 * leave the receive buffer's padding as it was; MPI_Get_count and
 * MPI_Get_elements count pairs and their members.
 */
#include <stddef.h>

#include "test.h"

struct p_float { float v; int i; };
struct p_double { double v; int i; };
struct p_long { long v; int i; };
struct p_2int { int v; int i; };
struct p_short { short v; int i; };
struct p_ldouble { long double v; int i; };

enum { V_FLOAT, V_DOUBLE, V_LONG, V_INT, V_SHORT, V_LDOUBLE };

static const struct pair {
	MPI_Datatype dt, vdt;
	const char *name;
	int kind;
	size_t vsize, ioff, csize;	/* value, the int's offset, sizeof */
} pairs[] = {
#define P(d, vd, S, k)							\
	{ d, vd, #d, k, sizeof(((S *)0)->v), offsetof(S, i), sizeof(S) }
	P(MPI_FLOAT_INT, MPI_FLOAT, struct p_float, V_FLOAT),
	P(MPI_DOUBLE_INT, MPI_DOUBLE, struct p_double, V_DOUBLE),
	P(MPI_LONG_INT, MPI_LONG, struct p_long, V_LONG),
	P(MPI_2INT, MPI_INT, struct p_2int, V_INT),
	P(MPI_SHORT_INT, MPI_SHORT, struct p_short, V_SHORT),
	P(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, struct p_ldouble, V_LDOUBLE),
#undef P
};
#define NPAIRS ((int)(sizeof(pairs) / sizeof(pairs[0])))

#define PAD 0xa5	/* what the padding of a receive buffer holds */

/* Element k of an array of p: its value (as a small integer) and index. */
static void put(const struct pair *p, unsigned char *buf, size_t k, long v,
		int idx)
{
	unsigned char *e = buf + k * p->csize;

	switch (p->kind) {
	case V_FLOAT: { float x = (float)v; memcpy(e, &x, sizeof(x)); break; }
	case V_DOUBLE: { double x = (double)v; memcpy(e, &x, sizeof(x)); break; }
	case V_LONG: { long x = v; memcpy(e, &x, sizeof(x)); break; }
	case V_INT: { int x = (int)v; memcpy(e, &x, sizeof(x)); break; }
	case V_SHORT: { short x = (short)v; memcpy(e, &x, sizeof(x)); break; }
	case V_LDOUBLE: {
		long double x = (long double)v;

		memcpy(e, &x, sizeof(x));
		break;
	}
	}
	memcpy(e + p->ioff, &idx, sizeof(idx));
}

static long value(const struct pair *p, const unsigned char *buf, size_t k)
{
	const unsigned char *e = buf + k * p->csize;

	switch (p->kind) {
	case V_FLOAT: { float x; memcpy(&x, e, sizeof(x)); return (long)x; }
	case V_DOUBLE: { double x; memcpy(&x, e, sizeof(x)); return (long)x; }
	case V_LONG: { long x; memcpy(&x, e, sizeof(x)); return x; }
	case V_INT: { int x; memcpy(&x, e, sizeof(x)); return x; }
	case V_SHORT: { short x; memcpy(&x, e, sizeof(x)); return x; }
	default: { long double x; memcpy(&x, e, sizeof(x)); return (long)x; }
	}
}

static int index_of(const struct pair *p, const unsigned char *buf, size_t k)
{
	int i;

	memcpy(&i, buf + k * p->csize + p->ioff, sizeof(i));
	return i;
}

/*
 * The padding of n elements at buf still PAD?  The long double's own
 * unused bytes (x87: 10 of 16) are the value's, not padding.
 */
static int padding_kept(const struct pair *p, const unsigned char *buf,
			size_t n)
{
	size_t k, b;

	for (k = 0; k < n; k++) {
		const unsigned char *e = buf + k * p->csize;

		for (b = p->vsize; b < p->ioff; b++)
			if (e[b] != PAD)
				return 0;
		for (b = p->ioff + sizeof(int); b < p->csize; b++)
			if (e[b] != PAD)
				return 0;
	}
	return 1;
}

static unsigned char *pads(const struct pair *p, size_t n)
{
	unsigned char *b = malloc(n * p->csize + 1);

	CHECK(b, "malloc");
	memset(b, PAD, n * p->csize + 1);
	return b;
}

/* Size and bounds: those of a struct type of the two members. */
static void sizes(const struct pair *p)
{
	int bl[2] = { 1, 1 }, size, ssize;
	MPI_Aint d[2] = { 0, (MPI_Aint)p->ioff }, lb, ext, tlb, text;
	MPI_Aint slb, sext, stlb, stext;
	MPI_Datatype t[2] = { p->vdt, MPI_INT }, st;

	MPI_OK(MPI_Type_create_struct(2, bl, d, t, &st));
	MPI_OK(MPI_Type_size(p->dt, &size));
	MPI_OK(MPI_Type_get_extent(p->dt, &lb, &ext));
	MPI_OK(MPI_Type_get_true_extent(p->dt, &tlb, &text));
	MPI_OK(MPI_Type_size(st, &ssize));
	MPI_OK(MPI_Type_get_extent(st, &slb, &sext));
	MPI_OK(MPI_Type_get_true_extent(st, &stlb, &stext));
	CHECK((size_t)size == p->vsize + sizeof(int) && size == ssize,
	      "%s: size %d, its members' %zu, the struct type's %d", p->name,
	      size, p->vsize + sizeof(int), ssize);
	CHECK(lb == 0 && (size_t)ext == p->csize && lb == slb && ext == sext,
	      "%s: lb %ld extent %ld, the struct type's %ld %ld, C's %zu",
	      p->name, (long)lb, (long)ext, (long)slb, (long)sext, p->csize);
	CHECK(tlb == stlb && text == stext, "%s: true bounds %ld %ld, not %ld %ld",
	      p->name, (long)tlb, (long)text, (long)stlb, (long)stext);
	MPI_OK(MPI_Type_free(&st));
}

/* MPI_Pack: the members one after the other; MPI_Unpack skips the padding. */
static void packing(const struct pair *p)
{
	enum { N = 5 };
	unsigned char *in = pads(p, N), *out = pads(p, N), packed[N * 40];
	int size, psize, pos = 0, k, idx;
	long v;

	for (k = 0; k < N; k++)
		put(p, in, (size_t)k, 10 * k - 7, 100 + k);
	MPI_OK(MPI_Type_size(p->dt, &size));
	MPI_OK(MPI_Pack_size(N, p->dt, MPI_COMM_WORLD, &psize));
	CHECK(psize >= N * size, "%s: Pack_size %d", p->name, psize);
	MPI_OK(MPI_Pack(in, N, p->dt, packed, (int)sizeof(packed), &pos,
			MPI_COMM_WORLD));
	CHECK(pos == N * size, "%s: packed %d bytes, not %d", p->name, pos,
	      N * size);
	for (k = 0; k < N; k++) {
		/* The value's bytes, then the int's: the padding left out. */
		CHECK(!memcmp(packed + k * size, in + k * p->csize, p->vsize) &&
		      !memcmp(packed + k * size + p->vsize, in + k * p->csize +
			      p->ioff, sizeof(int)),
		      "%s: packed element %d is not value then index", p->name,
		      k);
	}
	pos = 0;
	MPI_OK(MPI_Unpack(packed, N * size, &pos, out, N, p->dt,
			  MPI_COMM_WORLD));
	for (k = 0; k < N; k++) {
		v = value(p, out, (size_t)k);
		idx = index_of(p, out, (size_t)k);
		CHECK(v == 10 * k - 7 && idx == 100 + k,
		      "%s: unpacked %d: %ld %d", p->name, k, v, idx);
	}
	CHECK(padding_kept(p, out, N), "%s: MPI_Unpack wrote the padding",
	      p->name);
	free(in);
	free(out);
}

/* A message of n pairs from the previous rank: data, counts, padding. */
static void messages(const struct pair *p, int n)
{
	int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size;
	unsigned char *out = pads(p, (size_t)n), *in = pads(p, (size_t)n);
	unsigned char *bytes;
	int k, c, size;
	MPI_Status st;

	MPI_OK(MPI_Type_size(p->dt, &size));
	for (k = 0; k < n; k++)
		put(p, out, (size_t)k, k % 1000 + t_rank, k ^ t_rank);
	MPI_OK(MPI_Sendrecv(out, n, p->dt, next, 1, in, n, p->dt, prev, 1,
			    MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Get_count(&st, p->dt, &c));
	CHECK(c == n, "%s x%d: MPI_Get_count %d", p->name, n, c);
	MPI_OK(MPI_Get_elements(&st, p->dt, &c));
	CHECK(c == 2 * n, "%s x%d: MPI_Get_elements %d", p->name, n, c);
	for (k = 0; k < n; k++)
		CHECK(value(p, in, (size_t)k) == k % 1000 + prev &&
		      index_of(p, in, (size_t)k) == (k ^ prev),
		      "%s x%d: element %d: %ld %d", p->name, n, k,
		      value(p, in, (size_t)k), index_of(p, in, (size_t)k));
	CHECK(padding_kept(p, in, (size_t)n), "%s x%d: the receive wrote the padding",
	      p->name, n);
	/* As bytes: n times size, the packed form. */
	bytes = malloc((size_t)n * (size_t)size);
	CHECK(bytes, "malloc");
	MPI_OK(MPI_Sendrecv(out, n, p->dt, next, 2, bytes, n * size, MPI_BYTE,
			    prev, 2, MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &c));
	CHECK(c == n * size, "%s x%d: %d bytes arrived, not %d", p->name, n, c,
	      n * size);
	free(bytes);
	free(out);
	free(in);
}

/* Broadcast and gather: the padding of the receive buffers kept. */
static void moves(const struct pair *p)
{
	enum { N = 3 };
	unsigned char *b = pads(p, N), *mine = pads(p, N);
	unsigned char *all = pads(p, (size_t)N * (size_t)t_size);
	int k, r, root = t_size - 1;

	for (k = 0; k < N; k++) {
		if (t_rank == root)
			put(p, b, (size_t)k, k + 40, k + 50);
		put(p, mine, (size_t)k, t_rank, k);
	}
	MPI_OK(MPI_Bcast(b, N, p->dt, root, MPI_COMM_WORLD));
	for (k = 0; k < N; k++)
		CHECK(value(p, b, (size_t)k) == k + 40 &&
		      index_of(p, b, (size_t)k) == k + 50, "%s: bcast %d",
		      p->name, k);
	CHECK(t_rank == root || padding_kept(p, b, N),
	      "%s: the broadcast wrote the padding", p->name);
	MPI_OK(MPI_Gather(mine, N, p->dt, all, N, p->dt, root, MPI_COMM_WORLD));
	if (t_rank == root) {
		for (r = 0; r < t_size; r++)
			for (k = 0; k < N; k++)
				CHECK(value(p, all, (size_t)(r * N + k)) == r &&
				      index_of(p, all, (size_t)(r * N + k)) == k,
				      "%s: gathered %d of rank %d", p->name, k, r);
		CHECK(padding_kept(p, all, (size_t)N * (size_t)t_size),
		      "%s: the gather wrote the padding", p->name);
	}
	free(b);
	free(mine);
	free(all);
}

/*
 * Rank r's element k: value (k * 7 + r * 3) % 5 with index r; MINLOC
 * and MAXLOC of those over ranks lo..hi, computed by hand.
 */
static long rv(int r, int k)
{
	return (k * 7 + r * 3) % 5;
}

static void expect(int k, int lo, int hi, int max, long *v, int *idx)
{
	int r;

	*v = rv(lo, k);
	*idx = lo;
	for (r = lo + 1; r <= hi; r++) {
		if (max ? rv(r, k) > *v : rv(r, k) < *v) {
			*v = rv(r, k);
			*idx = r;
		}
	}
}

static void check_loc(const struct pair *p, const unsigned char *buf, int n,
		      int kfirst, int lo, int hi, int max, const char *what)
{
	long v;
	int k, idx;

	for (k = 0; k < n; k++) {
		expect(kfirst + k, lo, hi, max, &v, &idx);
		CHECK(value(p, buf, (size_t)k) == v &&
		      index_of(p, buf, (size_t)k) == idx,
		      "%s %s %s: element %d is (%ld, %d), not (%ld, %d)",
		      what, max ? "MAXLOC" : "MINLOC", p->name, kfirst + k,
		      value(p, buf, (size_t)k), index_of(p, buf, (size_t)k), v,
		      idx);
	}
	CHECK(padding_kept(p, buf, (size_t)n), "%s on %s wrote the padding",
	      what, p->name);
}

static void reductions(const struct pair *p, int n)
{
	unsigned char *s = pads(p, (size_t)n * (size_t)t_size);
	unsigned char *r = pads(p, (size_t)n * (size_t)t_size);
	int k, max, root = t_size - 1, *cnt;
	MPI_Op op;
	MPI_Request req;

	cnt = malloc(sizeof(int) * (size_t)t_size);
	CHECK(cnt, "malloc");
	for (max = 0; max < 2; max++) {
		op = max ? MPI_MAXLOC : MPI_MINLOC;
		for (k = 0; k < n * t_size; k++)
			put(p, s, (size_t)k, rv(t_rank, k), t_rank);
		memset(r, PAD, (size_t)n * p->csize);
		MPI_OK(MPI_Allreduce(s, r, n, p->dt, op, MPI_COMM_WORLD));
		check_loc(p, r, n, 0, 0, t_size - 1, max, "MPI_Allreduce");
		memset(r, PAD, (size_t)n * p->csize);
		MPI_OK(MPI_Reduce(s, r, n, p->dt, op, root, MPI_COMM_WORLD));
		if (t_rank == root)
			check_loc(p, r, n, 0, 0, t_size - 1, max, "MPI_Reduce");
		memset(r, PAD, (size_t)n * p->csize);
		MPI_OK(MPI_Iallreduce(s, r, n, p->dt, op, MPI_COMM_WORLD, &req));
		MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
		check_loc(p, r, n, 0, 0, t_size - 1, max, "MPI_Iallreduce");
		memset(r, PAD, (size_t)n * p->csize);
		MPI_OK(MPI_Scan(s, r, n, p->dt, op, MPI_COMM_WORLD));
		check_loc(p, r, n, 0, 0, t_rank, max, "MPI_Scan");
		memset(r, PAD, (size_t)n * p->csize);
		MPI_OK(MPI_Reduce_scatter_block(s, r, n, p->dt, op,
						MPI_COMM_WORLD));
		check_loc(p, r, n, n * t_rank, 0, t_size - 1, max,
			  "MPI_Reduce_scatter_block");
		for (k = 0; k < t_size; k++)
			cnt[k] = n;
		memset(r, PAD, (size_t)n * p->csize);
		MPI_OK(MPI_Reduce_scatter(s, r, cnt, p->dt, op, MPI_COMM_WORLD));
		check_loc(p, r, n, n * t_rank, 0, t_size - 1, max,
			  "MPI_Reduce_scatter");
		/* In place: the padding of the buffer stays too. */
		memcpy(r, s, (size_t)n * p->csize);
		MPI_OK(MPI_Allreduce(MPI_IN_PLACE, r, n, p->dt, op,
				     MPI_COMM_WORLD));
		check_loc(p, r, n, 0, 0, t_size - 1, max,
			  "MPI_Allreduce in place");
		/* Reduce_local: rank 0's in, this rank's inout. */
		for (k = 0; k < n; k++)
			put(p, r, (size_t)k, rv(0, k), 0);
		memset(s, PAD, (size_t)n * p->csize);
		for (k = 0; k < n; k++)
			put(p, s, (size_t)k, rv(t_rank, k), t_rank);
		MPI_OK(MPI_Reduce_local(r, s, n, p->dt, op));
		for (k = 0; k < n; k++) {
			long a = rv(0, k), b = rv(t_rank, k);
			int first = max ? a >= b : a <= b;

			CHECK(value(p, s, (size_t)k) == (first ? a : b) &&
			      index_of(p, s, (size_t)k) == (first ? 0 : t_rank),
			      "MPI_Reduce_local %s: element %d", p->name, k);
		}
		CHECK(padding_kept(p, s, (size_t)n),
		      "MPI_Reduce_local on %s wrote the padding", p->name);
	}
	free(cnt);
	free(s);
	free(r);
}

/*
 * A derived type of pairs (two of them, then a gap) under MAXLOC, and
 * a user op, which sees the C structs, extent apart.
 */
static void user_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	struct p_double *a = in, *b = inout;
	int k;

	CHECK(*dt == MPI_DOUBLE_INT, "user op got another type");
	for (k = 0; k < *len; k++) {
		if (a[k].v > b[k].v || (a[k].v == b[k].v && a[k].i < b[k].i)) {
			b[k].v = a[k].v;
			b[k].i = a[k].i;
		}
	}
}

static void derived(void)
{
	const struct pair *p = &pairs[1];	/* MPI_DOUBLE_INT */
	enum { N = 4, PER = 3 };		/* elements of PER pairs, 2 used */
	unsigned char *s = pads(p, N * PER), *r = pads(p, N * PER);
	MPI_Datatype two, t;
	MPI_Op op;
	int k, j;

	MPI_OK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &two));
	MPI_OK(MPI_Type_create_resized(two, 0, (MPI_Aint)(PER * p->csize), &t));
	MPI_OK(MPI_Type_commit(&t));
	for (k = 0; k < N; k++)
		for (j = 0; j < 2; j++)
			put(p, s, (size_t)(k * PER + j), rv(t_rank, k * 2 + j),
			    t_rank);
	MPI_OK(MPI_Allreduce(s, r, N, t, MPI_MAXLOC, MPI_COMM_WORLD));
	for (k = 0; k < N; k++) {
		for (j = 0; j < 2; j++) {
			long v;
			int idx;

			expect(k * 2 + j, 0, t_size - 1, 1, &v, &idx);
			CHECK(value(p, r, (size_t)(k * PER + j)) == v &&
			      index_of(p, r, (size_t)(k * PER + j)) == idx,
			      "MAXLOC on pairs of a derived type: %d.%d", k, j);
		}
		/* The unused third pair of each element: untouched. */
		CHECK(r[(k * PER + 2) * p->csize] == PAD,
		      "MAXLOC on a derived type wrote its gap");
	}
	CHECK(padding_kept(p, r, N * PER), "MAXLOC on a derived type wrote the padding");

	MPI_OK(MPI_Op_create(user_max, 1, &op));
	memset(r, PAD, N * PER * p->csize);
	MPI_OK(MPI_Allreduce(s, r, N * PER, MPI_DOUBLE_INT, op, MPI_COMM_WORLD));
	for (k = 0; k < N; k++) {
		long v;
		int idx;

		expect(k * 2, 0, t_size - 1, 1, &v, &idx);
		CHECK(value(p, r, (size_t)(k * PER)) == v &&
		      index_of(p, r, (size_t)(k * PER)) == idx,
		      "a user op on MPI_DOUBLE_INT: element %d", k * PER);
	}
	CHECK(padding_kept(p, r, N * PER), "a user op's result wrote the padding");
	MPI_OK(MPI_Op_free(&op));
	MPI_OK(MPI_Type_free(&t));
	MPI_OK(MPI_Type_free(&two));
	free(s);
	free(r);
}

int main(int argc, char **argv)
{
	int i;

	t_init(&argc, &argv);
	for (i = 0; i < NPAIRS; i++) {
		sizes(&pairs[i]);
		packing(&pairs[i]);
		messages(&pairs[i], 7);
		messages(&pairs[i], 5000);	/* past the eager limit */
		moves(&pairs[i]);
		reductions(&pairs[i], 3);
		reductions(&pairs[i], 2000);
	}
	derived();
	return t_done();
}
