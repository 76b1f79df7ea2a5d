/* SPDX-License-Identifier: MIT */
/*
 * dtype_ref.h: reference layouts for the datatype tests.  A type's
 * blocks are written out by hand (offset and length of each run of
 * bytes, in typemap order) with its size and bounds, and the tests
 * check the library against them: what MPI_Pack produces, which bytes
 * MPI_Unpack or a receive writes (and that no other byte changes).
 */
#ifndef LIBMSG_DTYPE_REF_H
#define LIBMSG_DTYPE_REF_H

#include "test.h"

#define REF_MAXBLK 128

struct ref_block {
	long off, len;
};

struct ref {
	const char *name;
	MPI_Datatype dt;
	long size, lb, extent, true_lb, true_extent;
	int nblk;
	struct ref_block blk[REF_MAXBLK];
};

/* Bytes a buffer of n elements spans from the buffer address. */
static inline long ref_span(const struct ref *r, long n)
{
	return n ? (n - 1) * r->extent + r->true_lb + r->true_extent : 0;
}

/*
 * map[i] = index in the packed stream of buffer byte i, or -1 (a gap),
 * for n elements.  Returns the packed size.
 */
static inline long ref_map(const struct ref *r, long n, long *map)
{
	long span = ref_span(r, n), k, i, j, p = 0;

	for (i = 0; i < span; i++)
		map[i] = -1;
	for (k = 0; k < n; k++)
		for (i = 0; i < r->nblk; i++)
			for (j = 0; j < r->blk[i].len; j++)
				map[k * r->extent + r->blk[i].off + j] = p++;
	return p;
}

/* The library's view of the type agrees with the reference. */
static inline void ref_check_bounds(const struct ref *r)
{
	MPI_Aint lb, ext, tlb, text;
	MPI_Count sx;
	int size;

	MPI_OK(MPI_Type_size(r->dt, &size));
	CHECK(size == r->size, "%s: size %d, expected %ld", r->name, size, r->size);
	MPI_OK(MPI_Type_size_x(r->dt, &sx));
	CHECK(sx == r->size, "%s: size_x %lld", r->name, sx);
	MPI_OK(MPI_Type_get_extent(r->dt, &lb, &ext));
	CHECK(lb == r->lb && ext == r->extent, "%s: lb %ld extent %ld, expected %ld %ld",
	      r->name, (long)lb, (long)ext, r->lb, r->extent);
	MPI_OK(MPI_Type_get_true_extent(r->dt, &tlb, &text));
	CHECK(tlb == r->true_lb && text == r->true_extent,
	      "%s: true lb %ld extent %ld, expected %ld %ld", r->name, (long)tlb,
	      (long)text, r->true_lb, r->true_extent);
}

/*
 * A received (or unpacked) buffer of n elements: every mapped byte is
 * want[map], every gap still 0xee.
 */
static inline void ref_check_buf(const struct ref *r, long n, const long *map,
				 const unsigned char *buf,
				 const unsigned char *want, const char *what)
{
	long span = ref_span(r, n), i;

	for (i = 0; i < span; i++) {
		if (map[i] < 0)
			CHECK(buf[i] == 0xee, "%s %s n=%ld: gap byte %ld written (%#x)",
			      what, r->name, n, i, buf[i]);
		else
			CHECK(buf[i] == want[map[i]],
			      "%s %s n=%ld: byte %ld (packed %ld) is %#x, expected %#x",
			      what, r->name, n, i, map[i], buf[i], want[map[i]]);
	}
}

/* The packed form of a buffer by the reference: out[map[i]] = buf[i]. */
static inline void ref_pack(const struct ref *r, long n, const long *map,
			    const unsigned char *buf, unsigned char *out)
{
	long span = ref_span(r, n), i;

	for (i = 0; i < span; i++)
		if (map[i] >= 0)
			out[map[i]] = buf[i];
}

#endif /* LIBMSG_DTYPE_REF_H */
