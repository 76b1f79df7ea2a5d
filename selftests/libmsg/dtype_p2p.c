// SPDX-License-Identifier: MIT
/*
 * Derived datatypes through every point-to-point path: a C struct with
 * padding (small and rendezvous), a vector of 4 MiB, persistent
 * requests (repacked at each start), Mprobe/Mrecv, Sendrecv_replace,
 * buffered and synchronous sends, MPI_BOTTOM with absolute addresses,
 * a type freed while an operation still uses it, and truncated or
 * partial receives with MPI_Get_count and MPI_Get_elements.
 */
#include <stddef.h>

#include "dtype_ref.h"

struct rec {
	char c;
	double d;
	int i[3];
	short s;
};

static MPI_Datatype rec_type(void)
{
	struct rec r = { 0 };
	int bl[4] = { 1, 1, 3, 1 };
	MPI_Aint base, d[4];
	MPI_Datatype ty[4] = { MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT }, t;
	int i;

	MPI_OK(MPI_Get_address(&r, &base));
	MPI_OK(MPI_Get_address(&r.c, &d[0]));
	MPI_OK(MPI_Get_address(&r.d, &d[1]));
	MPI_OK(MPI_Get_address(r.i, &d[2]));
	MPI_OK(MPI_Get_address(&r.s, &d[3]));
	for (i = 0; i < 4; i++)
		d[i] = MPI_Aint_diff(d[i], base);
	MPI_OK(MPI_Type_create_struct(4, bl, d, ty, &t));
	MPI_OK(MPI_Type_commit(&t));
	return t;
}

static void rec_fill(struct rec *r, long n, int seed)
{
	long k;

	for (k = 0; k < n; k++) {
		r[k].c = (char)(seed + k);
		r[k].d = seed * 1000.0 + (double)k / 4;
		r[k].i[0] = seed;
		r[k].i[1] = (int)k;
		r[k].i[2] = -(int)k;
		r[k].s = (short)(k * 3);
	}
}

/* Fields as filled, padding bytes still 0xee. */
static void rec_check(const struct rec *r, long n, int seed)
{
	const unsigned char *p;
	long k, b;

	for (k = 0; k < n; k++) {
		CHECK(r[k].c == (char)(seed + k) && r[k].d == seed * 1000.0 + (double)k / 4 &&
		      r[k].i[0] == seed && r[k].i[1] == k && r[k].i[2] == -k &&
		      r[k].s == (short)(k * 3), "struct %ld of %ld wrong", k, n);
		p = (const unsigned char *)&r[k];
		for (b = 1; b < (long)offsetof(struct rec, d); b++)
			CHECK(p[b] == 0xee, "struct %ld: padding byte %ld written", k, b);
		for (b = offsetof(struct rec, s) + sizeof(short); b < (long)sizeof(*r); b++)
			CHECK(p[b] == 0xee, "struct %ld: tail byte %ld written", k, b);
	}
}

static void test_struct(void)
{
	/* The last is taken in pieces that end inside a struct. */
	static const long counts[] = { 1, 7, 4000, 40000 };
	MPI_Datatype t = rec_type();
	MPI_Aint lb, ext;
	struct rec *s, *r;
	MPI_Request req;
	int peer = t_partner(), i, cnt;
	MPI_Status st;
	long n;

	MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
	CHECK(lb == 0 && ext == sizeof(struct rec), "struct extent %ld", (long)ext);
	for (i = 0; i < 4; i++) {
		n = counts[i];
		s = malloc((size_t)n * sizeof(*s));
		r = malloc((size_t)n * sizeof(*r));
		rec_fill(s, n, t_rank);
		memset(r, 0xee, (size_t)n * sizeof(*r));
		MPI_OK(MPI_Irecv(r, (int)n, t, peer, 5, MPI_COMM_WORLD, &req));
		MPI_OK(MPI_Send(s, (int)n, t, peer, 5, MPI_COMM_WORLD));
		MPI_OK(MPI_Wait(&req, &st));
		MPI_OK(MPI_Get_count(&st, t, &cnt));
		CHECK(cnt == n, "struct count %d", cnt);
		MPI_OK(MPI_Get_elements(&st, t, &cnt));
		CHECK(cnt == 6 * n, "struct elements %d", cnt);
		rec_check(r, n, peer);
		free(s);
		free(r);
	}
	MPI_OK(MPI_Type_free(&t));
}

/*
 * 4 MiB of doubles, two in every four (a vector of 512 Ki blocks),
 * received with the type freed while the receive is pending.
 */
static void test_vector_4m(void)
{
	const long blocks = 1L << 18, doubles = 4 * blocks;
	double *s = malloc((size_t)doubles * sizeof(double));
	double *r = malloc((size_t)doubles * sizeof(double));
	int peer = t_partner(), cnt;
	MPI_Datatype v;
	MPI_Request req;
	MPI_Status st;
	long i;

	MPI_OK(MPI_Type_vector((int)blocks, 2, 4, MPI_DOUBLE, &v));
	MPI_OK(MPI_Type_commit(&v));
	for (i = 0; i < doubles; i++)
		s[i] = t_rank * 1e7 + (double)i;
	memset(r, 0xee, (size_t)doubles * sizeof(double));
	MPI_OK(MPI_Irecv(r, 1, v, peer, 6, MPI_COMM_WORLD, &req));
	MPI_OK(MPI_Type_free(&v));
	CHECK(v == MPI_DATATYPE_NULL, "freed handle not nulled");
	/* Send it as plain doubles taken by a second vector type. */
	MPI_OK(MPI_Type_vector((int)blocks, 2, 4, MPI_DOUBLE, &v));
	MPI_OK(MPI_Type_commit(&v));
	MPI_OK(MPI_Send(s, 1, v, peer, 6, MPI_COMM_WORLD));
	MPI_OK(MPI_Wait(&req, &st));
	MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
	CHECK(cnt == 2 * blocks, "4 MiB vector: %d doubles", cnt);
	for (i = 0; i < doubles; i++) {
		if (i % 4 < 2)
			CHECK(r[i] == peer * 1e7 + (double)i, "4 MiB vector: double %ld", i);
		else
			CHECK(((unsigned char *)&r[i])[0] == 0xee, "4 MiB vector: gap %ld written", i);
	}
	MPI_OK(MPI_Type_free(&v));
	free(s);
	free(r);
}

/* A vector of n ints, every other one, filled with seed. */
static void vfill(int *b, long n, int seed)
{
	long i;

	for (i = 0; i < 2 * n; i++)
		b[i] = i % 2 ? -1 : seed * 100000 + (int)i;
}

static void vcheck(const int *b, long n, int seed, const char *what)
{
	long i;

	for (i = 0; i < 2 * n; i++) {
		if (i % 2)
			CHECK(b[i] == (int)0xeeeeeeee, "%s: gap %ld written", what, i);
		else
			CHECK(b[i] == seed * 100000 + (int)i, "%s: int %ld is %d", what, i, b[i]);
	}
}

static MPI_Datatype every_other(long n)
{
	MPI_Datatype v;

	MPI_OK(MPI_Type_vector((int)n, 1, 2, MPI_INT, &v));
	MPI_OK(MPI_Type_commit(&v));
	return v;
}

static void test_paths(long n)
{
	int *s = malloc((size_t)n * 2 * sizeof(int)), *r = malloc((size_t)n * 2 * sizeof(int));
	int peer = t_partner(), k, flag, cnt, bsize;
	MPI_Datatype v = every_other(n);
	MPI_Request ps, pr;
	MPI_Message msg;
	MPI_Status st;
	void *bbuf;

	/* Persistent: each start packs what the buffer holds then. */
	MPI_OK(MPI_Send_init(s, 1, v, peer, 7, MPI_COMM_WORLD, &ps));
	MPI_OK(MPI_Recv_init(r, 1, v, peer, 7, MPI_COMM_WORLD, &pr));
	for (k = 0; k < 3; k++) {
		vfill(s, n, t_rank + 10 * k);
		memset(r, 0xee, (size_t)n * 2 * sizeof(int));
		MPI_OK(MPI_Start(&pr));
		MPI_OK(MPI_Start(&ps));
		MPI_OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
		MPI_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
		vcheck(r, n, peer + 10 * k, "persistent");
	}
	MPI_OK(MPI_Request_free(&ps));
	MPI_OK(MPI_Request_free(&pr));

	/* Mprobe, then Mrecv into the typed buffer. */
	vfill(s, n, t_rank);
	memset(r, 0xee, (size_t)n * 2 * sizeof(int));
	MPI_OK(MPI_Isend(s, 1, v, peer, 8, MPI_COMM_WORLD, &ps));
	MPI_OK(MPI_Mprobe(peer, 8, MPI_COMM_WORLD, &msg, &st));
	MPI_OK(MPI_Get_count(&st, v, &cnt));
	CHECK(cnt == 1, "probed count %d", cnt);
	MPI_OK(MPI_Mrecv(r, 1, v, &msg, &st));
	MPI_OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
	vcheck(r, n, peer, "mrecv");
	/* Improbe and Imrecv. */
	memset(r, 0xee, (size_t)n * 2 * sizeof(int));
	MPI_OK(MPI_Isend(s, 1, v, peer, 9, MPI_COMM_WORLD, &ps));
	do {
		MPI_OK(MPI_Improbe(peer, 9, MPI_COMM_WORLD, &flag, &msg, &st));
	} while (!flag);
	MPI_OK(MPI_Imrecv(r, 1, v, &msg, &pr));
	MPI_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
	vcheck(r, n, peer, "imrecv");

	/* Sendrecv_replace: the partner's data lands, gaps stay. */
	vfill(r, n, t_rank);
	for (k = 0; k < 2 * n; k += 2)
		r[k + 1] = (int)0xeeeeeeee;
	MPI_OK(MPI_Sendrecv_replace(r, 1, v, peer, 10, peer, 10, MPI_COMM_WORLD, &st));
	vcheck(r, n, peer, "sendrecv_replace");

	/* Buffered, then synchronous. */
	MPI_OK(MPI_Pack_size(1, v, MPI_COMM_WORLD, &bsize));
	bsize += MPI_BSEND_OVERHEAD;
	bbuf = malloc((size_t)bsize);
	MPI_OK(MPI_Buffer_attach(bbuf, bsize));
	memset(r, 0xee, (size_t)n * 2 * sizeof(int));
	MPI_OK(MPI_Irecv(r, 1, v, peer, 11, MPI_COMM_WORLD, &pr));
	MPI_OK(MPI_Bsend(s, 1, v, peer, 11, MPI_COMM_WORLD));
	MPI_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
	vcheck(r, n, peer, "bsend");
	MPI_OK(MPI_Buffer_detach(&bbuf, &bsize));
	free(bbuf);
	memset(r, 0xee, (size_t)n * 2 * sizeof(int));
	MPI_OK(MPI_Irecv(r, 1, v, peer, 12, MPI_COMM_WORLD, &pr));
	MPI_OK(MPI_Ssend(s, 1, v, peer, 12, MPI_COMM_WORLD));
	MPI_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
	vcheck(r, n, peer, "ssend");

	/* An Isend whose type is freed at once still sends it. */
	memset(r, 0xee, (size_t)n * 2 * sizeof(int));
	MPI_OK(MPI_Isend(s, 1, v, peer, 13, MPI_COMM_WORLD, &ps));
	MPI_OK(MPI_Type_free(&v));
	v = every_other(n);
	MPI_OK(MPI_Recv(r, 1, v, peer, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
	vcheck(r, n, peer, "isend, type freed");
	MPI_OK(MPI_Type_free(&v));
	free(s);
	free(r);
}

/* Two variables far apart, sent as one message from MPI_BOTTOM. */
static void test_bottom(void)
{
	static int a[4];
	static double b[2];
	int bl[2] = { 4, 2 }, peer = t_partner(), i;
	MPI_Aint d[2];
	MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE }, t;

	MPI_OK(MPI_Get_address(a, &d[0]));
	MPI_OK(MPI_Get_address(b, &d[1]));
	MPI_OK(MPI_Type_create_struct(2, bl, d, ty, &t));
	MPI_OK(MPI_Type_commit(&t));
	for (i = 0; i < 4; i++)
		a[i] = t_rank * 10 + i;
	b[0] = t_rank + 0.5;
	b[1] = t_rank + 0.25;
	MPI_OK(MPI_Sendrecv_replace(MPI_BOTTOM, 1, t, peer, 14, peer, 14,
				    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	for (i = 0; i < 4; i++)
		CHECK(a[i] == peer * 10 + i, "MPI_BOTTOM int %d", i);
	CHECK(b[0] == peer + 0.5 && b[1] == peer + 0.25, "MPI_BOTTOM doubles");
	MPI_OK(MPI_Type_free(&t));
}

/* {int at 0, double at 8}: 12 bytes, 2 basic elements, extent 16. */
static MPI_Datatype pair_type(void)
{
	int bl[2] = { 1, 1 };
	MPI_Aint d[2] = { 0, 8 };
	MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE }, t;

	MPI_OK(MPI_Type_create_struct(2, bl, d, ty, &t));
	MPI_OK(MPI_Type_commit(&t));
	return t;
}

static void test_partial(long n)
{
	MPI_Datatype t = pair_type();
	unsigned char *s = malloc((size_t)n * 16), *r = malloc((size_t)n * 16 + 16);
	unsigned char *pk = malloc((size_t)n * 12);
	int peer = t_partner(), err, cls, cnt, pos = 0;
	long keep = n * 3 / 5, i;
	MPI_Count ecnt;
	MPI_Status st;
	MPI_Request req;

	t_fill(s, (size_t)n * 16, 9);
	MPI_OK(MPI_Pack(s, (int)n, t, pk, (int)n * 12, &pos, MPI_COMM_WORLD));

	/* Longer than the receive: the first `keep` elements, then nothing. */
	memset(r, 0xee, (size_t)n * 16 + 16);
	MPI_OK(MPI_Isend(s, (int)n, t, peer, 15, MPI_COMM_WORLD, &req));
	err = MPI_Recv(r, (int)keep, t, peer, 15, MPI_COMM_WORLD, &st);
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	MPI_Error_class(err, &cls);
	CHECK(cls == MPI_ERR_TRUNCATE, "n=%ld: truncated receive returned %d", n, err);
	MPI_OK(MPI_Get_count(&st, t, &cnt));
	CHECK(cnt == keep, "truncated: count %d, expected %ld", cnt, keep);
	MPI_OK(MPI_Get_elements(&st, t, &cnt));
	CHECK(cnt == 2 * keep, "truncated: %d elements", cnt);
	for (i = 0; i < keep * 16; i++) {
		if (i % 16 < 4 || i % 16 >= 8)
			CHECK(r[i] == s[i], "truncated: byte %ld", i);
		else
			CHECK(r[i] == 0xee, "truncated: gap %ld written", i);
	}
	for (; i < n * 16 + 16; i++)
		CHECK(r[i] == 0xee, "truncated: byte %ld past the receive written", i);

	/* Part of an element: count undefined, elements what arrived. */
	MPI_OK(MPI_Sendrecv(pk, 16, MPI_BYTE, peer, 16, r, (int)n, t, peer, 16,
			    MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Get_count(&st, t, &cnt));
	CHECK(cnt == MPI_UNDEFINED, "16 bytes: count %d", cnt);
	MPI_OK(MPI_Get_elements(&st, t, &cnt));
	CHECK(cnt == 3, "16 bytes: %d elements, expected 3", cnt);
	MPI_OK(MPI_Get_elements_x(&st, t, &ecnt));
	CHECK(ecnt == 3, "16 bytes: %lld elements (x)", ecnt);
	MPI_OK(MPI_Sendrecv(pk, 14, MPI_BYTE, peer, 17, r, (int)n, t, peer, 17,
			    MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Get_elements(&st, t, &cnt));
	CHECK(cnt == MPI_UNDEFINED, "14 bytes: %d elements, expected undefined", cnt);
	MPI_OK(MPI_Get_elements(&st, MPI_SHORT, &cnt));
	CHECK(cnt == 7, "14 bytes as shorts: %d", cnt);
	MPI_OK(MPI_Type_free(&t));
	free(s);
	free(r);
	free(pk);
}

/*
 * Deep nesting: t(i) = vector(2, 1, 2, t(i - 1)), t(0) = MPI_INT, so
 * extent(i) = 4 * 3^i and the ints sit at 8 * (sum of b_j 3^(j-1)) for
 * the bits b_j of their index.  30 levels describe 2^30 ints (4 GiB)
 * and must still be built at once in little memory; 10 levels (1024
 * ints over 236 KB) go through a send and receive.
 */
static void test_deep(void)
{
	MPI_Datatype t = MPI_INT, n;
	MPI_Count size, lb, ext;
	long span = 4 * 59049, i, j, off, p3;
	int *s, *r, peer = t_partner(), lvl;

	for (lvl = 1; lvl <= 30; lvl++) {
		MPI_OK(MPI_Type_vector(2, 1, 2, t, &n));
		if (t != MPI_INT)
			MPI_OK(MPI_Type_free(&t));
		t = n;
		if (lvl == 10) {
			MPI_OK(MPI_Type_dup(t, &n));
			MPI_OK(MPI_Type_commit(&n));
			s = malloc((size_t)span);
			r = malloc((size_t)span);
			for (i = 0; i < span / 4; i++)
				s[i] = t_rank * 1000000 + (int)i;
			memset(r, 0xee, (size_t)span);
			MPI_OK(MPI_Sendrecv(s, 1, n, peer, 18, r, 1, n, peer, 18,
					    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			for (i = 0; i < 1024; i++) {
				for (j = 0, off = 0, p3 = 1; j < 10; j++, p3 *= 3)
					if (i >> j & 1)
						off += 2 * p3;
				CHECK(r[off] == peer * 1000000 + (int)off,
				      "deep: int %ld at %ld", i, off);
				r[off] = (int)0xeeeeeeee;
			}
			for (i = 0; i < span / 4; i++)
				CHECK(r[i] == (int)0xeeeeeeee, "deep: gap int %ld written", i);
			free(s);
			free(r);
			MPI_OK(MPI_Type_free(&n));
		}
	}
	MPI_OK(MPI_Type_size_x(t, &size));
	MPI_OK(MPI_Type_get_extent_x(t, &lb, &ext));
	CHECK(size == 4LL << 30, "30 levels: size %lld", size);
	for (i = 0, p3 = 4; i < 30; i++)
		p3 *= 3;
	CHECK(lb == 0 && ext == p3, "30 levels: extent %lld, expected %ld", ext, p3);
	MPI_OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	test_struct();
	test_vector_4m();
	test_paths(5);
	test_paths(40000);
	test_bottom();
	test_deep();
	test_partial(10);
	test_partial(20000);
	return t_done();
}
