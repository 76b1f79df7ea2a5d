// SPDX-License-Identifier: MIT
/*
 * The large-count v collectives with counts and displacements in no
 * unit that brings them into an int (their greatest common divisor is
 * 1, the largest beyond INT_MAX): MPI_Gatherv_c, MPI_Igatherv_c,
 * MPI_Scatterv_c, MPI_Iscatterv_c, MPI_Allgatherv_c, MPI_Iallgatherv_c,
 * MPI_Alltoallv_c and MPI_Ialltoallv_c, on MPI_BYTE.  Before 2026-11-28
 * each refused them (MPI_ERR_COUNT, "Not yet").
 *
 * Every rank's buffers span 2^31 + 4096 * (size + 1) bytes (mmap'd,
 * MAP_NORESERVE: only the pages written are there).  The block of rank
 * p (to or from p) lies at FAR + 4096 * p + p, FAR beyond 2^31, except
 * the right neighbour's, near the start; blocks are 21 + p bytes (1 for
 * rank 0).  Each byte names sender, receiver, round and place; every
 * one is checked, and the byte on each side of a block untouched.
 * Then a gatherv in place whose root's own block is 2^31 + 1 bytes (a
 * count beyond an int; in place, so nothing of it moves), and a
 * negative count, 2^62 ints and a displacement of 2^62 ints (beyond any
 * address): MPI_ERR_COUNT.
 */
#include <limits.h>
#include <sys/mman.h>

#include "test.h"

#define FAR	(((MPI_Aint)1 << 31) + 40)
#define SLOT	4096
#define GUARD	0x5a

static MPI_Aint displ(int p)
{
	if (t_size > 1 && p == (t_rank + 1) % t_size)
		return 64 + 64 * (MPI_Aint)p;
	return FAR + (MPI_Aint)SLOT * p + p;
}

static MPI_Count count(int p)
{
	return p ? 21 + p : 1;
}

static unsigned char val(int from, int to, int round, MPI_Count k)
{
	return (unsigned char)(from * 31 + to * 7 + round * 3 + k + 1);
}

/* Block b of count(n) bytes from `from` to `to`, with guards. */
static void fill(char *b, MPI_Count n, int from, int to, int round)
{
	MPI_Count k;

	b[-1] = b[n] = GUARD;
	for (k = 0; k < n; k++)
		b[k] = (char)val(from, to, round, k);
}

static void clear(char *b, MPI_Count n)
{
	memset(b - 1, GUARD, (size_t)n + 2);
}

static void check(const char *what, const char *b, MPI_Count n, int from,
		  int to, int round)
{
	MPI_Count k;

	CHECK(b[-1] == GUARD && b[n] == GUARD,
	      "%s round %d: bytes around the block from %d written", what,
	      round, from);
	for (k = 0; k < n; k++)
		CHECK((unsigned char)b[k] == val(from, to, round, k),
		      "%s round %d: from %d, byte %lld is %d", what, round,
		      from, (long long)k, b[k]);
}

static MPI_Count *c;
static MPI_Aint *d;
static char *sb, *rb, small[64];

static void gatherv(int round, int root, int nb)
{
	MPI_Request q;
	int p;

	fill(small + 1, count(t_rank), t_rank, root, round);
	if (t_rank == root)
		for (p = 0; p < t_size; p++)
			clear(rb + d[p], c[p]);
	if (nb) {
		MPI_OK(MPI_Igatherv_c(small + 1, count(t_rank), MPI_BYTE, rb, c,
				      d, MPI_BYTE, root, MPI_COMM_WORLD, &q));
		MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	} else {
		MPI_OK(MPI_Gatherv_c(small + 1, count(t_rank), MPI_BYTE, rb, c,
				     d, MPI_BYTE, root, MPI_COMM_WORLD));
	}
	if (t_rank == root)
		for (p = 0; p < t_size; p++)
			check("gatherv", rb + d[p], c[p], p, root, round);
}

static void scatterv(int round, int root, int nb)
{
	MPI_Request q;
	int p;

	if (t_rank == root)
		for (p = 0; p < t_size; p++)
			fill(sb + d[p], c[p], root, p, round);
	clear(small + 1, count(t_rank));
	if (nb) {
		MPI_OK(MPI_Iscatterv_c(sb, c, d, MPI_BYTE, small + 1,
				       count(t_rank), MPI_BYTE, root,
				       MPI_COMM_WORLD, &q));
		MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	} else {
		MPI_OK(MPI_Scatterv_c(sb, c, d, MPI_BYTE, small + 1,
				      count(t_rank), MPI_BYTE, root,
				      MPI_COMM_WORLD));
	}
	check("scatterv", small + 1, count(t_rank), root, t_rank, round);
}

static void allgatherv(int round, int nb)
{
	MPI_Request q;
	int p;

	fill(small + 1, count(t_rank), t_rank, -1, round);
	for (p = 0; p < t_size; p++)
		clear(rb + d[p], c[p]);
	if (nb) {
		MPI_OK(MPI_Iallgatherv_c(small + 1, count(t_rank), MPI_BYTE, rb,
					 c, d, MPI_BYTE, MPI_COMM_WORLD, &q));
		MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	} else {
		MPI_OK(MPI_Allgatherv_c(small + 1, count(t_rank), MPI_BYTE, rb,
					c, d, MPI_BYTE, MPI_COMM_WORLD));
	}
	for (p = 0; p < t_size; p++)
		check("allgatherv", rb + d[p], c[p], p, -1, round);
}

/* Alltoallv: the block between a and b is count(a + b) bytes. */
static void alltoallv(int round, int nb)
{
	MPI_Count *sc = c + t_size;
	MPI_Request q;
	int p;

	for (p = 0; p < t_size; p++) {
		sc[p] = count(t_rank + p);
		fill(sb + d[p], sc[p], t_rank, p, round);
		clear(rb + d[p], sc[p]);
	}
	if (nb) {
		MPI_OK(MPI_Ialltoallv_c(sb, sc, d, MPI_BYTE, rb, sc, d,
					MPI_BYTE, MPI_COMM_WORLD, &q));
		MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	} else {
		MPI_OK(MPI_Alltoallv_c(sb, sc, d, MPI_BYTE, rb, sc, d,
				       MPI_BYTE, MPI_COMM_WORLD));
	}
	for (p = 0; p < t_size; p++)
		check("alltoallv", rb + d[p], sc[p], p, t_rank, round);
}

/* Root's own block of 2^31 + 1 bytes, in place: nothing of it moves. */
static void gatherv_huge_in_place(int root)
{
	MPI_Aint *hd = d + t_size;
	MPI_Count *hc = c + t_size;
	int p;

	for (p = 0; p < t_size; p++) {
		hc[p] = p == root ? ((MPI_Count)1 << 31) + 1 : count(p);
		hd[p] = p == root ? 0 : FAR + (MPI_Aint)SLOT * p + p;
	}
	fill(small + 1, count(t_rank), t_rank, root, 9);
	if (t_rank == root) {
		for (p = 0; p < t_size; p++)
			if (p != root)
				clear(rb + hd[p], hc[p]);
		MPI_OK(MPI_Gatherv_c(MPI_IN_PLACE, 0, MPI_BYTE, rb, hc, hd,
				     MPI_BYTE, root, MPI_COMM_WORLD));
		for (p = 0; p < t_size; p++)
			if (p != root)
				check("gatherv in place", rb + hd[p], hc[p], p,
				      root, 9);
	} else {
		MPI_OK(MPI_Gatherv_c(small + 1, count(t_rank), MPI_BYTE, NULL,
				     NULL, NULL, MPI_BYTE, root,
				     MPI_COMM_WORLD));
	}
}

int main(int argc, char **argv)
{
	size_t len = (size_t)FAR + (size_t)SLOT * 10;
	int p, round, err, cls;

	t_init(&argc, &argv);
	CHECK(t_size <= 8, "at most 8 ranks");
	sb = mmap(NULL, len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	rb = mmap(NULL, len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sb == MAP_FAILED || rb == MAP_FAILED)
		T_SKIP("no room for 2 x %zu bytes of address space", len);
	c = malloc(2 * (size_t)t_size * sizeof(*c));
	d = malloc(2 * (size_t)t_size * sizeof(*d));
	CHECK(c && d, "out of memory");
	for (p = 0; p < t_size; p++) {
		c[p] = count(p);
		d[p] = displ(p);
	}
	for (round = 0; round < 2; round++) {
		gatherv(round, 0, round);
		gatherv(round, t_size - 1, round);
		scatterv(round, t_size / 2, round);
		allgatherv(round, round);
		alltoallv(round, round);
	}
	gatherv_huge_in_place(t_size - 1);
	c[0] = -1;
	err = MPI_Allgatherv_c(small + 1, count(t_rank), MPI_BYTE, rb, c, d,
			       MPI_BYTE, MPI_COMM_WORLD);
	MPI_Error_class(err, &cls);
	CHECK(cls == MPI_ERR_COUNT, "a negative count: class %d", cls);
	/* Beyond any address: refused, not wrapped round. */
	c[0] = (MPI_Count)1 << 62;
	err = MPI_Alltoallv_c(sb, c, d, MPI_INT, rb, c, d, MPI_INT,
			      MPI_COMM_WORLD);
	MPI_Error_class(err, &cls);
	CHECK(cls == MPI_ERR_COUNT, "2^62 ints: class %d", cls);
	c[0] = 1;
	d[0] = (MPI_Aint)1 << 62;
	err = MPI_Alltoallv_c(sb, c, d, MPI_INT, rb, c, d, MPI_INT,
			      MPI_COMM_WORLD);
	MPI_Error_class(err, &cls);
	CHECK(cls == MPI_ERR_COUNT, "a displacement of 2^62 ints: class %d",
	      cls);
	free(c);
	free(d);
	munmap(sb, len);
	munmap(rb, len);
	return t_done();
}
