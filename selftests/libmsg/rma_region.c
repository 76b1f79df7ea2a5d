// SPDX-License-Identifier: MIT
// libmsg-test: np=1,2,3,8 modes=vm
/*
 * Over /dev/mpichan a created window's memory is a registered region
 * (libmsg/src/rma/mem_dev.c), and the module's debugfs `regions` file
 * shows it (Documentation/debugfs.md):
 *   - after MPI_Win_create each rank's memory is one live, writable
 *     region of its pid and the window's length, mapped once by every
 *     other rank;
 *   - Puts and Gets with the right neighbour, inside the whole pages
 *     (through the mapping: no copy counted), over the partial first
 *     and last pages (by key: REGION_COPY, counted in bytes_in), and
 *     over the whole window at once (its partial pages by key, counted
 *     in bytes_out, the rest through the mapping) move the right bytes;
 *   - MPI_Win_free deregisters it: no region of the pid is left, nor a
 *     mapping of one.
 * Over the fallback (or with MPICHAN_RMA_REGION=off) there is no region
 * and the test fails.
 */
#include <unistd.h>
#include "test.h"

#define PAGE	4096
#define HEAD	100			/* the window starts this far into a page */
#define BYTES	(4 * PAGE - 2 * HEAD)	/* partial, 2 whole pages, partial */

struct t_region {
	unsigned long long len, maps, copies, in, out;
	char writable[8], state[16];
	int found;
};

/* This process's region of len bytes in the debugfs file (or found 0). */
static void region_of_mine(unsigned long long len, struct t_region *r)
{
	FILE *f = fopen("/sys/kernel/debug/mpichan/regions", "r");
	char line[256];
	unsigned long long handle, pages, mpages;
	int pid, uid;

	CHECK(f, "no /sys/kernel/debug/mpichan/regions (debugfs, regions)");
	memset(r, 0, sizeof(*r));
	while (fgets(line, sizeof(line), f)) {
		struct t_region x;

		memset(&x, 0, sizeof(x));
		if (sscanf(line, "region %llu %d %d %llu %llu %llu %7s %15s %llu %llu %llu %llu",
			   &handle, &pid, &uid, &x.len, &pages, &mpages,
			   x.writable, x.state, &x.maps, &x.copies, &x.in,
			   &x.out) != 12)
			continue;
		if (pid != (int)getpid() || x.len != len)
			continue;
		CHECK(!r->found, "two regions of %llu bytes of pid %d", len, pid);
		*r = x;
		r->found = 1;
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	int right, left, i, got[BYTES / 4], mine[BYTES / 4], *mem;
	unsigned char *page = NULL;
	struct t_region r0, r1;
	MPI_Win win;

	t_init(&argc, &argv);
	if (access("/dev/mpichan", F_OK))
		T_SKIP("no /dev/mpichan");
	right = (t_rank + 1) % t_size;
	left = (t_rank + t_size - 1) % t_size;
	CHECK(!posix_memalign((void **)&page, PAGE, 4 * PAGE), "out of memory");
	memset(page, 0, 4 * PAGE);
	mem = (int *)(void *)(page + HEAD);
	MPI_OK(MPI_Win_create(mem, BYTES, sizeof(int), MPI_INFO_NULL,
			      MPI_COMM_WORLD, &win));
	/* Every rank has attached (mapped) every other's. */
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

	region_of_mine(BYTES, &r0);
	CHECK(r0.found, "no region of this rank's %d window bytes: the window is not a registered region",
	      BYTES);
	CHECK(!strcmp(r0.writable, "yes") && !strcmp(r0.state, "live"),
	      "region %s, %s", r0.writable, r0.state);
	CHECK(r0.maps == (unsigned long long)(t_size - 1),
	      "region mapped %llu times, not by each of the %d others", r0.maps,
	      t_size - 1);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

	/* Puts to the right: the whole pages, then the partial ones. */
	for (i = 0; i < BYTES / 4; i++)
		mine[i] = t_rank * 100000 + i;
	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
	MPI_OK(MPI_Put(mine + (PAGE - HEAD) / 4, 2 * PAGE / 4, MPI_INT, right,
		       (PAGE - HEAD) / 4, 2 * PAGE / 4, MPI_INT, win));
	MPI_OK(MPI_Win_flush(right, win));
	MPI_OK(MPI_Put(mine, (PAGE - HEAD) / 4, MPI_INT, right, 0,
		       (PAGE - HEAD) / 4, MPI_INT, win));
	MPI_OK(MPI_Put(mine + (3 * PAGE - HEAD) / 4, (PAGE - HEAD) / 4, MPI_INT,
		       right, (3 * PAGE - HEAD) / 4, (PAGE - HEAD) / 4, MPI_INT,
		       win));
	MPI_OK(MPI_Win_unlock(right, win));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	for (i = 0; i < BYTES / 4; i++)
		CHECK(mem[i] == left * 100000 + i, "element %d is %d, not %d", i,
		      mem[i], left * 100000 + i);
	region_of_mine(BYTES, &r1);
	CHECK(r1.found, "the region is gone");
	/* Only the partial pages went by copy (none in a 1-rank job). */
	CHECK(r1.in - r0.in == (t_size > 1 ? 2 * (PAGE - HEAD) : 0),
	      "%llu bytes put by copy, not the %d of the partial pages",
	      r1.in - r0.in, t_size > 1 ? 2 * (PAGE - HEAD) : 0);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

	/* A Get of the whole window from the left, across all of it. */
	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win));
	MPI_OK(MPI_Get(got, BYTES / 4, MPI_INT, left, 0, BYTES / 4, MPI_INT,
		       win));
	MPI_OK(MPI_Win_unlock(left, win));
	for (i = 0; i < BYTES / 4; i++) {
		int want = ((left + t_size - 1) % t_size) * 100000 + i;

		CHECK(got[i] == want, "got element %d = %d, not %d", i, got[i],
		      want);
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	region_of_mine(BYTES, &r1);
	/* One run over all of it: its partial pages by copy, the rest mapped. */
	CHECK(r1.out - r0.out == (t_size > 1 ? 2 * (PAGE - HEAD) : 0),
	      "%llu bytes got by copy, not the %d of the partial pages",
	      r1.out - r0.out, t_size > 1 ? 2 * (PAGE - HEAD) : 0);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

	MPI_OK(MPI_Win_free(&win));
	region_of_mine(BYTES, &r1);
	CHECK(!r1.found, "the region outlives MPI_Win_free (state %s, %llu maps)",
	      r1.state, r1.maps);
	free(page);
	return t_done();
}
