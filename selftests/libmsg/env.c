// SPDX-License-Identifier: MIT
/*
 * The environment calls: Initialized/Finalized around Init and
 * Finalize, Init_thread's level, Wtime/Wtick, processor name, version,
 * the world's size and rank from the launcher, MPI_TAG_UB.
 */
#include "test.h"

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
	CHECK(t1 - t0 >= 0.019 && t1 - t0 < 2, "Wtime moved %f", t1 - t0);
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
	MPI_OK(MPI_Finalize());
	MPI_OK(MPI_Finalized(&flag));
	CHECK(flag, "not finalized");
	return 0;
}
