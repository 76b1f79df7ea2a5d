// SPDX-License-Identifier: MIT
/*
 * MPI_Alltoallw_c, MPI_Ialltoallw_c and MPI_Alltoallw_init_c with byte
 * displacements beyond an int: every rank's send buffer and receive
 * buffer span 2^31 + 4096 * size bytes (mmap'd, MAP_NORESERVE: only
 * the pages written are there), the block for (from) peer p at
 * FAR + 4096 * p, FAR beyond 2^31, except for the peer on the right,
 * whose blocks are near the start (near and far displacements in one
 * call).  Each block is 5 ints of values that name sender, receiver
 * and round; every one is checked, and the bytes around it untouched.
 */
#include <limits.h>
#include <sys/mman.h>

#include "test.h"

#define FAR	(((MPI_Aint)1 << 31) + 40)	/* bytes */
#define SLOT	4096
#define K	5

static MPI_Aint displ(int peer)
{
	if (t_size > 1 && peer == (t_rank + 1) % t_size)
		return 64;
	return FAR + (MPI_Aint)SLOT * peer;
}

/* Int k of the block from rank from to rank to in a round. */
static int val(int from, int to, int round, int k)
{
	return ((from * 1000 + to) * 10 + round) * 10 + k;
}

int main(int argc, char **argv)
{
	size_t len = (size_t)FAR + (size_t)SLOT * 9;
	MPI_Count *c;
	MPI_Aint *sd, *rd;
	MPI_Datatype *ty;
	MPI_Request q;
	char *sb, *rb;
	int p, k, round, *x;

	t_init(&argc, &argv);
	CHECK(t_size <= 8, "at most 8 ranks");
	sb = mmap(NULL, len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	rb = mmap(NULL, len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sb == MAP_FAILED || rb == MAP_FAILED)
		T_SKIP("no room for 2 x %zu bytes of address space", len);
	c = malloc((size_t)t_size * sizeof(*c));
	sd = malloc((size_t)t_size * sizeof(*sd));
	rd = malloc((size_t)t_size * sizeof(*rd));
	ty = malloc((size_t)t_size * sizeof(*ty));
	CHECK(c && sd && rd && ty, "out of memory");
	for (p = 0; p < t_size; p++) {
		c[p] = K;
		ty[p] = MPI_INT;
		/* Where this rank keeps the blocks to and from p. */
		sd[p] = displ(p);
		rd[p] = displ(p);
	}
	MPI_OK(MPI_Alltoallw_init_c(sb, c, sd, ty, rb, c, rd, ty,
				    MPI_COMM_WORLD, MPI_INFO_NULL, &q));
	for (round = 0; round < 4; round++) {
		for (p = 0; p < t_size; p++) {
			x = (int *)(sb + sd[p]);
			for (k = 0; k < K; k++)
				x[k] = val(t_rank, p, round, k);
			x = (int *)(rb + rd[p]);
			for (k = -1; k <= K; k++)
				x[k] = -7;
		}
		if (round == 0)
			MPI_OK(MPI_Alltoallw_c(sb, c, sd, ty, rb, c, rd, ty,
					       MPI_COMM_WORLD));
		else if (round == 1) {
			MPI_Request r;

			MPI_OK(MPI_Ialltoallw_c(sb, c, sd, ty, rb, c, rd, ty,
						MPI_COMM_WORLD, &r));
			MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		} else {
			MPI_OK(MPI_Start(&q));
			MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
		}
		for (p = 0; p < t_size; p++) {
			x = (int *)(rb + rd[p]);
			CHECK(x[-1] == -7 && x[K] == -7,
			      "round %d: bytes around peer %d's block written",
			      round, p);
			for (k = 0; k < K; k++)
				CHECK(x[k] == val(p, t_rank, round, k),
				      "round %d: from %d, int %d is %d", round,
				      p, k, x[k]);
		}
	}
	MPI_OK(MPI_Request_free(&q));
	free(c);
	free(sd);
	free(rd);
	free(ty);
	munmap(sb, len);
	munmap(rb, len);
	return t_done();
}
