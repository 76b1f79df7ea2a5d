// SPDX-License-Identifier: MIT
/*
 * Derived datatypes: every constructor against a layout written out by
 * hand (dtype_ref.h): size and bounds, MPI_Pack and MPI_Unpack (gaps
 * untouched), then a round trip through send/receive at 1, 3 and
 * enough elements for the rendezvous path (> 256 KiB), and across
 * types: a typed send arrives as its packed bytes, packed bytes arrive
 * in place of a typed receive.
 */
#include "dtype_ref.h"

#define NREF 21
static struct ref refs[NREF];
static int nref;

static struct ref *add(const char *name, MPI_Datatype dt, long size, long lb,
		       long extent, long tlb, long text)
{
	struct ref *r = &refs[nref++];

	CHECK(nref <= NREF, "too many reference types");
	MPI_OK(MPI_Type_commit(&dt));
	r->name = name;
	r->dt = dt;
	r->size = size;
	r->lb = lb;
	r->extent = extent;
	r->true_lb = tlb;
	r->true_extent = text;
	r->nblk = 0;
	return r;
}

static void blk(struct ref *r, long off, long len)
{
	CHECK(r->nblk < REF_MAXBLK, "too many blocks");
	r->blk[r->nblk].off = off;
	r->blk[r->nblk].len = len;
	r->nblk++;
}

/* The struct of three members used below, and its layout. */
static MPI_Datatype struct3(void)
{
	int bl[3] = { 1, 1, 3 };
	MPI_Aint d[3] = { 0, 8, 16 };
	MPI_Datatype ty[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, t;

	MPI_OK(MPI_Type_create_struct(3, bl, d, ty, &t));
	return t;
}

static void build(void)
{
	MPI_Datatype t, v;
	struct ref *r;
	long k;

	MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
	r = add("contiguous(3, INT)", t, 12, 0, 12, 0, 12);
	blk(r, 0, 12);

	MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
	r = add("vector(3, 2, 4, INT)", t, 24, 0, 40, 0, 40);
	blk(r, 0, 8); blk(r, 16, 8); blk(r, 32, 8);

	/* stride == blocklength: one run, the contiguous path. */
	MPI_OK(MPI_Type_vector(4, 2, 2, MPI_SHORT, &t));
	r = add("vector(4, 2, 2, SHORT)", t, 16, 0, 16, 0, 16);
	blk(r, 0, 16);

	MPI_OK(MPI_Type_create_hvector(3, 1, 20, MPI_DOUBLE, &t));
	r = add("hvector(3, 1, 20, DOUBLE)", t, 24, 0, 48, 0, 48);
	blk(r, 0, 8); blk(r, 20, 8); blk(r, 40, 8);

	{
		int bl[3] = { 2, 1, 3 }, d[3] = { 5, 0, 9 };

		MPI_OK(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
		r = add("indexed({2,1,3}, {5,0,9}, INT)", t, 24, 0, 48, 0, 48);
		blk(r, 20, 8); blk(r, 0, 4); blk(r, 36, 12);
	}
	{
		int bl[2] = { 1, 2 };
		MPI_Aint d[2] = { 8, 30 };

		MPI_OK(MPI_Type_create_hindexed(2, bl, d, MPI_SHORT, &t));
		r = add("hindexed({1,2}, {8,30}, SHORT)", t, 6, 8, 26, 8, 26);
		blk(r, 8, 2); blk(r, 30, 4);
	}
	{
		int d[3] = { 4, 0, 8 };

		MPI_OK(MPI_Type_create_indexed_block(3, 2, d, MPI_FLOAT, &t));
		r = add("indexed_block(2, {4,0,8}, FLOAT)", t, 24, 0, 40, 0, 40);
		blk(r, 16, 8); blk(r, 0, 8); blk(r, 32, 8);
	}
	{
		MPI_Aint d[2] = { 0, 40 };

		MPI_OK(MPI_Type_create_hindexed_block(2, 3, d, MPI_CHAR, &t));
		r = add("hindexed_block(3, {0,40}, CHAR)", t, 6, 0, 43, 0, 43);
		blk(r, 0, 3); blk(r, 40, 3);
	}
	/*
	 * Blocks of length 0 (first, in the middle) hold no data and have
	 * no say in the bounds (MPI-3.1 4.1.6: those of the typemap).
	 */
	{
		int bl[3] = { 0, 2, 1 }, d[3] = { 1, 3, 7 };

		MPI_OK(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
		r = add("indexed({0,2,1}, {1,3,7}, INT)", t, 12, 12, 20, 12, 20);
		blk(r, 12, 8); blk(r, 28, 4);
	}
	{
		int bl[4] = { 2, 0, 1, 0 };
		MPI_Aint d[4] = { 8, 0, 40, 64 };

		MPI_OK(MPI_Type_create_hindexed(4, bl, d, MPI_SHORT, &t));
		r = add("hindexed({2,0,1,0}, {8,0,40,64}, SHORT)", t, 6, 8, 34,
			8, 34);
		blk(r, 8, 4); blk(r, 40, 2);
	}
	{
		int bl[3] = { 0, 2, 1 };
		MPI_Aint d[3] = { 0, 12, 28 };
		MPI_Datatype ty[3] = { MPI_DOUBLE, MPI_INT, MPI_CHAR };

		/* The double holds nothing: alignment 4, extent 17 -> 20. */
		MPI_OK(MPI_Type_create_struct(3, bl, d, ty, &t));
		r = add("struct{double[0]; int[2]; char}", t, 9, 12, 20, 12, 17);
		blk(r, 12, 8); blk(r, 28, 1);
	}
	{
		int bl[2] = { 1, 1 };
		MPI_Aint d[2] = { 0, 8 };
		MPI_Datatype ty[2] = { MPI_CHAR, MPI_DOUBLE_INT };

		/* A pair is its members, not its padding: 1 + 12 bytes. */
		MPI_OK(MPI_Type_create_struct(2, bl, d, ty, &t));
		r = add("struct{char; DOUBLE_INT}", t, 13, 0, 24, 0, 20);
		blk(r, 0, 1); blk(r, 8, 12);
	}
	/* A struct's extent rounds up to its largest alignment (8). */
	r = add("struct{int; double; char[3]}", struct3(), 15, 0, 24, 0, 19);
	blk(r, 0, 4); blk(r, 8, 8); blk(r, 16, 3);

	MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 12, &t));
	r = add("resized(INT, 0, 12)", t, 4, 0, 12, 0, 4);
	blk(r, 0, 4);

	MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
	MPI_OK(MPI_Type_create_resized(v, -4, 20, &t));
	MPI_OK(MPI_Type_free(&v));
	r = add("resized(vector(2,1,2,INT), -4, 20)", t, 8, -4, 20, 0, 12);
	blk(r, 0, 4); blk(r, 8, 4);

	{
		int sz[2] = { 4, 5 }, sub[2] = { 2, 3 }, st[2] = { 1, 2 };

		MPI_OK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C,
						MPI_INT, &t));
		r = add("subarray C {4,5} {2,3} {1,2}", t, 24, 0, 80, 28, 32);
		blk(r, 28, 12); blk(r, 48, 12);
		MPI_OK(MPI_Type_create_subarray(2, sz, sub, st,
						MPI_ORDER_FORTRAN, MPI_INT, &t));
		r = add("subarray Fortran {4,5} {2,3} {1,2}", t, 24, 0, 80, 36, 40);
		blk(r, 36, 8); blk(r, 52, 8); blk(r, 68, 8);
	}
	{
		int sz[3] = { 3, 4, 5 }, sub[3] = { 2, 2, 2 }, st[3] = { 1, 1, 3 };
		long i, j;

		MPI_OK(MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C,
						MPI_DOUBLE, &t));
		r = add("subarray C {3,4,5} {2,2,2} {1,1,3}", t, 64, 0, 480,
			(20 + 5 + 3) * 8, 0);
		for (i = 1; i < 3; i++)
			for (j = 1; j < 3; j++)
				blk(r, ((i * 4 + j) * 5 + 3) * 8, 16);
		r->true_extent = r->blk[3].off + 16 - r->true_lb;
	}

	MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
	MPI_OK(MPI_Type_dup(v, &t));
	MPI_OK(MPI_Type_free(&v));
	r = add("dup(vector(3, 2, 4, INT))", t, 24, 0, 40, 0, 40);
	blk(r, 0, 8); blk(r, 16, 8); blk(r, 32, 8);

	/* Nested: a vector of structs (stride 3 structs = 72 bytes). */
	v = struct3();
	MPI_OK(MPI_Type_vector(2, 1, 3, v, &t));
	r = add("vector(2, 1, 3, struct)", t, 30, 0, 96, 0, 91);
	for (k = 0; k < 2; k++) {
		blk(r, 72 * k, 4); blk(r, 72 * k + 8, 8); blk(r, 72 * k + 16, 3);
	}
	/* Deeper: a contiguous run of 20 of those (a node, not 120 blocks). */
	MPI_OK(MPI_Type_contiguous(20, t, &t));
	MPI_OK(MPI_Type_free(&v));
	r = add("contiguous(20, vector(2, 1, 3, struct))", t, 600, 0, 96 * 20,
		0, 96 * 19 + 91);
	for (k = 0; k < 40; k++) {
		long base = (k / 2) * 96 + (k % 2) * 72;

		blk(r, base, 4); blk(r, base + 8, 8); blk(r, base + 16, 3);
	}
}

static void check_pack(const struct ref *r, long n)
{
	long span = ref_span(r, n), *map = malloc((size_t)(span + 1) * sizeof(long));
	unsigned char *src = malloc((size_t)span + 1), *dst = malloc((size_t)span + 1);
	unsigned char *packed, *want;
	long bytes = ref_map(r, n, map);
	int pos = 0, psize;

	CHECK(bytes == n * r->size, "%s: reference packs %ld bytes", r->name, bytes);
	packed = malloc((size_t)bytes + 16);
	want = malloc((size_t)bytes + 1);
	MPI_OK(MPI_Pack_size((int)n, r->dt, MPI_COMM_WORLD, &psize));
	CHECK(psize == bytes, "%s: Pack_size %d", r->name, psize);
	t_fill(src, (size_t)span, 5);
	ref_pack(r, n, map, src, want);
	memset(packed, 0xee, (size_t)bytes + 16);
	MPI_OK(MPI_Pack(src, (int)n, r->dt, packed, (int)bytes + 16, &pos,
			MPI_COMM_WORLD));
	CHECK(pos == bytes, "%s: position %d after packing %ld bytes", r->name,
	      pos, bytes);
	CHECK(!memcmp(packed, want, (size_t)bytes), "%s n=%ld: packed bytes differ",
	      r->name, n);
	CHECK(packed[bytes] == 0xee, "%s: packed past the end", r->name);
	memset(dst, 0xee, (size_t)span + 1);
	pos = 0;
	MPI_OK(MPI_Unpack(packed, (int)bytes, &pos, dst, (int)n, r->dt,
			  MPI_COMM_WORLD));
	CHECK(pos == bytes, "%s: position %d after unpacking", r->name, pos);
	ref_check_buf(r, n, map, dst, want, "unpack");
	CHECK(dst[span] == 0xee, "%s: unpacked past the end", r->name);
	free(map);
	free(src);
	free(dst);
	free(packed);
	free(want);
}

/*
 * Send n elements of r to the partner and receive its n: with the type
 * on both sides, then typed send to MPI_BYTE, then MPI_BYTE to typed.
 */
static void check_p2p(const struct ref *r, long n)
{
	int peer = t_partner(), cnt;
	long span = ref_span(r, n), *map = malloc((size_t)span * sizeof(long));
	long bytes = ref_map(r, n, map);
	unsigned char *src = malloc((size_t)span), *dst = malloc((size_t)span);
	unsigned char *want = malloc((size_t)bytes + 1), *pk = malloc((size_t)bytes + 1);
	MPI_Request req;
	MPI_Status st;

	t_fill(src, (size_t)span, (unsigned)t_rank);
	/* What the partner's buffer holds, packed by the reference. */
	t_fill(dst, (size_t)span, (unsigned)peer);
	ref_pack(r, n, map, dst, want);

	memset(dst, 0xee, (size_t)span);
	MPI_OK(MPI_Isend(src, (int)n, r->dt, peer, 1, MPI_COMM_WORLD, &req));
	MPI_OK(MPI_Recv(dst, (int)n, r->dt, peer, 1, MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Get_count(&st, r->dt, &cnt));
	CHECK(cnt == n, "%s: count %d, sent %ld", r->name, cnt, n);
	ref_check_buf(r, n, map, dst, want, "recv");

	/* Typed send, bytes received: the packed typemap order. */
	MPI_OK(MPI_Isend(src, (int)n, r->dt, peer, 2, MPI_COMM_WORLD, &req));
	MPI_OK(MPI_Recv(pk, (int)bytes + 1, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
	CHECK(cnt == bytes && !memcmp(pk, want, (size_t)bytes),
	      "%s n=%ld: typed send as bytes (%d)", r->name, n, cnt);

	/* Bytes sent, typed receive. */
	ref_pack(r, n, map, src, pk);
	memset(dst, 0xee, (size_t)span);
	MPI_OK(MPI_Isend(pk, (int)bytes, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req));
	MPI_OK(MPI_Recv(dst, (int)n, r->dt, peer, 3, MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	ref_check_buf(r, n, map, dst, want, "bytes to typed");
	free(map);
	free(src);
	free(dst);
	free(want);
	free(pk);
}

int main(int argc, char **argv)
{
	long n, big;
	int i;

	t_init(&argc, &argv);
	build();
	for (i = 0; i < nref; i++) {
		ref_check_bounds(&refs[i]);
		for (n = 1; n <= 3; n++)
			check_pack(&refs[i], n);
		/*
		 * Eager, and over 256 KiB: the rendezvous path, taken in
		 * pieces that end inside elements.
		 */
		big = 300000 / refs[i].size + 1;
		check_pack(&refs[i], big);
		check_p2p(&refs[i], 1);
		check_p2p(&refs[i], 3);
		check_p2p(&refs[i], big);
	}
	for (i = 0; i < nref; i++)
		MPI_OK(MPI_Type_free(&refs[i].dt));
	return t_done();
}
