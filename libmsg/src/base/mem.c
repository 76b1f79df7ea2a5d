// SPDX-License-Identifier: MIT
/*
 * MPI_Alloc_mem and MPI_Free_mem: memory a program means to send from
 * or receive into.
 *
 * Nothing has to be registered for /dev/mpichan (the module pins pages
 * when a rendezvous is matched), so this is the C heap, aligned so that
 * messages sent from it are cheap to move: a buffer of a page or more
 * starts on a page boundary, so that a receiver's mapped copy
 * (MPICHAN_RECV_MAP) maps all of it and copies no partial first page;
 * a smaller one starts on a cache line.  Hints (the info argument) are
 * checked and ignored.
 */

#include <stdlib.h>
#include <unistd.h>

#include "base/base.h"

#define LM_MEM_LINE	64

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	LM_GUARD();
	static const char fn[] = "MPI_Alloc_mem";
	long page = sysconf(_SC_PAGESIZE);
	size_t align = LM_MEM_LINE;
	void *p = NULL;
	int err;

	lm_check_init(fn);
	if (size < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG, "size %lld is negative",
				(long long)size);
	if (!baseptr)
		return lm_error(NULL, fn, MPI_ERR_ARG, "baseptr is NULL");
	err = lm_check_info_arg(NULL, info, fn);
	if (err)
		return err;
	if (page > 0 && size >= page)
		align = (size_t)page;
	/* Size 0 still gets a pointer of its own, for MPI_Free_mem. */
	err = posix_memalign(&p, align, size ? (size_t)size : 1);
	if (err)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM,
				"no memory for %lld bytes", (long long)size);
	*(void **)baseptr = p;
	return MPI_SUCCESS;
}

int MPI_Free_mem(void *base)
{
	LM_GUARD();

	lm_check_init("MPI_Free_mem");
	free(base);
	return MPI_SUCCESS;
}
