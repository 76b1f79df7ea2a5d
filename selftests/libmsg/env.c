// SPDX-License-Identifier: MIT
/*
 * The environment calls: Initialized/Finalized around Init and
 * Finalize, Init_thread's level, Wtime/Wtick, processor name, version,
 * the world's size and rank from the launcher, MPI_TAG_UB.  Over
 * /dev/mpichan, the receive window's size (/proc/self/maps): as
 * MPICHAN_WINDOW says, else 1 GiB, or (ENV_WINDOW_CAPPED=1: run under a
 * small RLIMIT_AS) less, but no less than 64 MiB.
 */
#include <linux/mpichan.h>

#include "test.h"

/* The receive window's bytes in /proc/self/maps, or 0: none. */
static unsigned long long window_bytes(void)
{
	unsigned long long lo, hi, off, found = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	CHECK(f, "/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, MPICHAN_DEVICE) &&
		    sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) == 3 &&
		    off == MPICHAN_WINDOW_OFFSET)
			found = hi - lo;
	fclose(f);
	return found;
}

static void check_window(void)
{
	const char *set = getenv("MPICHAN_WINDOW");
	const char *capped = getenv("ENV_WINDOW_CAPPED");
	const char *tr = getenv("MPICHAN_TRANSPORT");
	unsigned long long w = window_bytes();

	if (access(MPICHAN_DEVICE, F_OK) || (tr && !strcmp(tr, "shm"))) {
		CHECK(!w, "a window of %llu bytes without the device", w);
		return;
	}
	if (t_rank == 0)
		printf("# env: receive window of %llu bytes\n", w);
	if (set)
		CHECK(w == (strtoull(set, NULL, 0) & ~4095ULL),
		      "window %llu bytes, MPICHAN_WINDOW=%s", w, set);
	else if (capped)
		CHECK(w >= 64ULL << 20 && w < MPICHAN_WINDOW_MAX_BYTES,
		      "window %llu bytes under RLIMIT_AS", w);
	else
		CHECK(w == MPICHAN_WINDOW_MAX_BYTES, "window %llu bytes", w);
}

int main(int argc, char **argv)
{
	char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int flag, provided, len, v, sv, *ub;
	double t0, t1;
	const char *env;

	MPI_OK(MPI_Initialized(&flag));
	CHECK(!flag, "initialized before Init");
	MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
	CHECK(provided == MPI_THREAD_FUNNELED, "provided %d", provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_OK(MPI_Initialized(&flag));
	CHECK(flag, "not initialized after Init");
	MPI_OK(MPI_Finalized(&flag));
	CHECK(!flag, "finalized early");
	env = getenv("MPICHAN_SIZE");
	CHECK(env && atoi(env) == t_size, "size %d, MPICHAN_SIZE %s", t_size, env);
	env = getenv("MPICHAN_RANK");
	CHECK(env && atoi(env) == t_rank, "rank %d, MPICHAN_RANK %s", t_rank, env);
	t0 = MPI_Wtime();
	usleep(20000);
	t1 = MPI_Wtime();
	/* Seconds: milliseconds would read 20; a loaded host may stall. */
	CHECK(t1 - t0 >= 0.019 && t1 - t0 < 10, "Wtime moved %f", t1 - t0);
	CHECK(MPI_Wtick() > 0 && MPI_Wtick() < 0.01, "Wtick %g", MPI_Wtick());
	MPI_OK(MPI_Get_processor_name(name, &len));
	CHECK(len > 0 && (int)strlen(name) == len, "processor name");
	MPI_OK(MPI_Get_version(&v, &sv));
	CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "version %d.%d", v, sv);
	MPI_OK(MPI_Get_library_version(lib, &len));
	CHECK(len > 0 && strstr(lib, "libmsg"), "library version %s", lib);
	MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
	CHECK(flag && *ub >= 32767, "MPI_TAG_UB");
	MPI_OK(MPI_Query_thread(&provided));
	CHECK(provided == MPI_THREAD_FUNNELED, "Query_thread");
	MPI_OK(MPI_Is_thread_main(&flag));
	CHECK(flag, "Is_thread_main");
	check_window();
	MPI_OK(MPI_Finalize());
	MPI_OK(MPI_Finalized(&flag));
	CHECK(flag, "not finalized");
	return 0;
}
