// SPDX-License-Identifier: MIT
/*
 * Blocking without spinning: a rank blocked in MPI_Recv for two
 * seconds, in the default wait mode, uses under 5% of a CPU meanwhile.
 * (Each pair's lower rank says it is about to block; the upper one then
 * sleeps and sends; a rank alone skips.)
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
	struct timespec two = { 2, 0 };
	double c0, t0, cpu, wall;
	int peer, v = 0;

	t_init(&argc, &argv);
	peer = t_partner();
	if (peer != t_rank && t_rank < peer) {
		t0 = MPI_Wtime();
		c0 = cpu_seconds();
		MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD));
		MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		cpu = cpu_seconds() - c0;
		wall = MPI_Wtime() - t0;
		CHECK(v == 42, "got %d", v);
		CHECK(wall >= 1.9, "waited only %.3f s", wall);
		CHECK(cpu < 0.05 * wall, "blocked %.3f s using %.3f s of CPU",
		      wall, cpu);
	} else if (peer != t_rank) {
		MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		nanosleep(&two, NULL);
		v = 42;
		MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
	}
	return t_done();
}
