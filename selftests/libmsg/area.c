// SPDX-License-Identifier: MIT
/*
 * The collective area (uapi off.coll) as libmsg uses it, looked at from
 * inside a rank: the job's mapping is found in /proc/self/maps and each
 * leader's generation word read as coll_area.c lays it out (32 slots of
 * MPICHAN_COLL_BYTES / 32 per rank, the generation at byte 64).
 *   - a blocking barrier and allreduce (up to 8128 bytes) on
 *     MPI_COMM_WORLD each move world's generation (world rank 0,
 *     channel 0) by exactly one, with correct results, and so do a
 *     reduce and bcast with the area forced (MPICHAN_COLL_REDUCE=area,
 *     MPICHAN_COLL_BCAST=area, which area-forced.sh sets);
 *   - nonblocking ones and ones too large for the area do not;
 *   - a duplicate and the halves of a split use a channel of their own;
 *   - a communicator of one rank has nothing to share: its barrier and
 *     allreduce do not touch the area (the choice by cost copies).
 * A generation only moves once every member arrived, so between two of
 * its own collectives a rank reads a stable value.
 */
#include <linux/mpichan.h>
#include "test.h"

#define CHANNELS	32
#define SLOT		(MPICHAN_COLL_BYTES / CHANNELS)

static const unsigned char *area;

/* The job's shared mapping: the one whose first page is a job header. */
static void find_area(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi, off;
	char line[512];

	CHECK(f, "no /proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		const struct mpichan_job_hdr *h;

		if (!strstr(line, "mpichan") ||
		    sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) != 3 || off)
			continue;
		h = (const struct mpichan_job_hdr *)lo;
		if (h->magic != MPICHAN_JOB_MAGIC || !h->off.coll ||
		    h->off.map_size > hi - lo)
			continue;
		area = (const unsigned char *)lo + h->off.coll;
		break;
	}
	fclose(f);
	CHECK(area, "no job mapping with a collective area");
}

static uint32_t gen(int world, int chan)
{
	return __atomic_load_n((const uint32_t *)(area +
			       (size_t)world * MPICHAN_COLL_BYTES +
			       (size_t)chan * SLOT + 64), __ATOMIC_ACQUIRE);
}

static void snap(int world, uint32_t g[CHANNELS])
{
	int c;

	for (c = 0; c < CHANNELS; c++)
		g[c] = gen(world, c);
}

/* The one channel of `world` that moved by one since g, or -1. */
static int moved_one(int world, const uint32_t g[CHANNELS])
{
	int c, found = -1;

	for (c = 0; c < CHANNELS; c++) {
		if (gen(world, c) == g[c])
			continue;
		CHECK(gen(world, c) == g[c] + 1 && found < 0,
		      "channel %d of rank %d moved from %u to %u", c, world,
		      g[c], gen(world, c));
		found = c;
	}
	return found;
}

/* Does MPICHAN_COLL_<name> force the area? */
static int forced(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "area");
}

static void world_calls(void)
{
	uint32_t fr = forced("MPICHAN_COLL_REDUCE"), fb = forced("MPICHAN_COLL_BCAST");
	int v = t_rank + 1, sum = -1, big[4096], bigsum[4096], i, root;
	uint32_t g = gen(0, 0);
	MPI_Request r;
	double d[4];

	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	CHECK(gen(0, 0) == g + 1, "barrier: generation %u, was %u", gen(0, 0), g);
	MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(sum == t_size * (t_size + 1) / 2, "allreduce sum %d", sum);
	CHECK(gen(0, 0) == g + 2, "allreduce: generation %u, was %u", gen(0, 0), g);
	root = t_size / 2;
	sum = -1;
	MPI_OK(MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
	CHECK(t_rank != root || sum == t_size, "reduce max %d", sum);
	CHECK(gen(0, 0) == g + 2 + fr, "reduce: generation %u, was %u", gen(0, 0), g);
	for (i = 0; i < 4; i++)
		d[i] = t_rank == t_size - 1 ? 0.25 * i - 3.5 : -1;
	MPI_OK(MPI_Bcast(d, 4, MPI_DOUBLE, t_size - 1, MPI_COMM_WORLD));
	for (i = 0; i < 4; i++)
		CHECK(d[i] == 0.25 * i - 3.5, "bcast d[%d] = %g", i, d[i]);
	CHECK(gen(0, 0) == g + 2 + fr + fb, "bcast: generation %u, was %u", gen(0, 0), g);
	/* In place. */
	v = t_rank;
	MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(v == t_size * (t_size - 1) / 2, "in-place allreduce %d", v);
	g += fr + fb;
	CHECK(gen(0, 0) == g + 3, "in place: generation %u, was %u", gen(0, 0), g);

	/* Not through the area: nonblocking, or too large. */
	MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	for (i = 0; i < 4096; i++)
		big[i] = t_rank + i;
	MPI_OK(MPI_Allreduce(big, bigsum, 4096, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	for (i = 0; i < 4096; i++)
		CHECK(bigsum[i] == t_size * (t_size - 1) / 2 + t_size * i,
		      "large allreduce [%d] = %d", i, bigsum[i]);
	CHECK(gen(0, 0) == g + 3, "nonblocking or large: generation %u, was %u",
	      gen(0, 0), g);
}

/* A communicator of its own gets a channel of its own. */
static void other_comms(void)
{
	uint32_t g[CHANNELS], w0;
	MPI_Comm dup, half;
	int chan, lead, v, sum;

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	w0 = gen(0, 0);
	snap(0, g);
	MPI_OK(MPI_Barrier(dup));
	chan = moved_one(0, g);
	CHECK(chan > 0, "a barrier on a duplicate moved channel %d", chan);
	CHECK(gen(0, 0) == w0, "a barrier on a duplicate moved world's");

	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half));
	lead = t_rank % 2;	/* world rank of the half's rank 0 */
	MPI_OK(MPI_Barrier(half));
	snap(lead, g);
	v = 1;
	MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half));
	CHECK(sum == (t_size + 1 - lead) / 2, "half allreduce %d", sum);
	/* A half of one rank has nothing to share: the choice by cost copies. */
	chan = moved_one(lead, g);
	if ((t_size + 1 - lead) / 2 > 1)
		CHECK(chan > 0, "an allreduce on a split moved channel %d", chan);
	MPI_OK(MPI_Comm_free(&half));
	MPI_OK(MPI_Comm_free(&dup));
}

/* One rank: nothing to share, the area untouched. */
static void one_rank(void)
{
	uint32_t g = gen(0, 0);
	int v = 5, sum = -1;

	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(sum == 5, "allreduce of one rank: %d", sum);
	CHECK(gen(0, 0) == g, "one rank moved the area's generation %u -> %u",
	      g, gen(0, 0));
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	find_area();
	if (t_size == 1) {
		one_rank();
		return t_done();
	}
	world_calls();
	other_comms();
	MPI_OK(MPI_Finalize());
	return 0;
}
