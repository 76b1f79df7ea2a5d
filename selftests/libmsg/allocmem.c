// SPDX-License-Identifier: MIT
/*
 * MPI_Alloc_mem and MPI_Free_mem (libmsg/src/mem.c): memory of every
 * size from 0 up, a page or more page-aligned and less on a cache
 * line, writable to its end; messages sent from it and received into
 * it, eager and rendezvous, between neighbours; a negative size, a NULL
 * baseptr and an info that is not one refused with a clear class; an
 * impossible size is MPI_ERR_NO_MEM, not an exit.  MPI_Pcontrol returns
 * MPI_SUCCESS at any level.
 */
#include <stdint.h>

#include "test.h"

/* An impossible size must come back as an error, not end the process. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static const MPI_Aint sizes[] = { 0, 1, 63, 64, 4095, 4096, 4097, 65536,
				  (1 << 20) + 3, 8 << 20 };

static void alloc_each(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i;
	void *p;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p = NULL;
		MPI_OK(MPI_Alloc_mem(sizes[i], MPI_INFO_NULL, &p));
		CHECK(p, "size %lld: NULL", (long long)sizes[i]);
		CHECK((uintptr_t)p % (sizes[i] >= page ? (uintptr_t)page : 64) == 0,
		      "size %lld at %p", (long long)sizes[i], p);
		if (sizes[i])
			memset(p, 0x5a, (size_t)sizes[i]);
		MPI_OK(MPI_Free_mem(p));
	}
}

/* Each rank sends bytes from Alloc_mem memory to the next. */
static void ring(MPI_Aint n, unsigned seed)
{
	int to = (t_rank + 1) % t_size, from = (t_rank + t_size - 1) % t_size;
	unsigned char *s, *r;
	MPI_Info info;

	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "mpi_minimum_memory_alignment", "4096"));
	MPI_OK(MPI_Alloc_mem(n, info, &s));
	MPI_OK(MPI_Alloc_mem(n, MPI_INFO_NULL, &r));
	MPI_OK(MPI_Info_free(&info));
	t_fill(s, (size_t)n, seed + (unsigned)t_rank);
	memset(r, 0, (size_t)n);
	MPI_OK(MPI_Sendrecv(s, (int)n, MPI_BYTE, to, 3, r, (int)n, MPI_BYTE,
			    from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(!t_bad(r, (size_t)n, seed + (unsigned)from),
	      "%lld bytes from rank %d differ", (long long)n, from);
	MPI_OK(MPI_Free_mem(s));
	MPI_OK(MPI_Free_mem(r));
}

int main(int argc, char **argv)
{
	int err, x = 0;
	void *p = &x;

	t_init(&argc, &argv);
	alloc_each();
	ring(100, 1);
	ring(3 << 20, 2);

	err = MPI_Alloc_mem(-1, MPI_INFO_NULL, &p);
	CHECK(err == MPI_ERR_ARG && p == &x, "size -1: %d", err);
	err = MPI_Alloc_mem(16, MPI_INFO_NULL, NULL);
	CHECK(err == MPI_ERR_ARG, "NULL baseptr: %d", err);
	err = MPI_Alloc_mem(16, (MPI_Info)&x, &p);
	CHECK(err == MPI_ERR_INFO && p == &x, "bad info: %d", err);
	err = MPI_Alloc_mem((MPI_Aint)(SIZE_MAX / 2), MPI_INFO_NULL, &p);
	CHECK(err == MPI_ERR_NO_MEM && p == &x, "an impossible size: %d", err);
	MPI_OK(MPI_Free_mem(NULL));

	MPI_OK(MPI_Pcontrol(0));
	MPI_OK(MPI_Pcontrol(1));
	MPI_OK(MPI_Pcontrol(2, "extra", 3));

	MPI_Finalize();
	if (t_rank == 0)
		printf("allocmem: ok (%d ranks)\n", t_size);
	return 0;
}
