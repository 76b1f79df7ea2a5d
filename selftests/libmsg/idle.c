// SPDX-License-Identifier: MIT
/*
 * Blocking without spinning: a rank blocked in MPI_Recv for a
 * second, in the default wait mode, uses under 5% of a CPU meanwhile.
 * (Each pair's upper rank sleeps, then sends; a rank alone skips.)
 */
#include <sys/resource.h>
#include <time.h>
#include "test.h"

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
		(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
	struct timespec second = { 1, 0 };
	double c0, t0, cpu, wall;
	int peer, v = 0;

	t_init(&argc, &argv);
	peer = t_partner();
	if (peer != t_rank && t_rank < peer) {
		t0 = MPI_Wtime();
		c0 = cpu_seconds();
		MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		cpu = cpu_seconds() - c0;
		wall = MPI_Wtime() - t0;
		CHECK(v == 42, "got %d", v);
		CHECK(wall >= 0.9, "waited only %.3f s", wall);
		CHECK(cpu < 0.05 * wall, "blocked %.3f s using %.3f s of CPU",
		      wall, cpu);
	} else if (peer != t_rank) {
		nanosleep(&second, NULL);
		v = 42;
		MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
	}
	return t_done();
}
