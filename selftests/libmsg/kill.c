// SPDX-License-Identifier: MIT
// libmsg-test: run-by=kill.sh,sigterm.sh
/*
 * A rank dies mid-run (`kill`: SIGKILL; `exit`: exit status 3; `abort`:
 * MPI_Abort with 4) while the others wait for messages from it or from
 * anyone.  kill.sh checks that the launcher says which rank and why,
 * returns the right status, and that the job ends instead of hanging.
 * `hang`: nobody dies, every rank waits forever (sigterm.sh signals
 * mpiexec).  Without an argument, nobody dies and the job must succeed.
 */
#include <signal.h>
#include "test.h"

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "none";
	int victim, i, buf = 0;
	MPI_Status st;

	t_init(&argc, &argv);
	victim = t_size - 1;
	/* Some traffic first: everyone talks to the victim. */
	for (i = 0; i < 10; i++) {
		if (t_rank == victim) {
			int r;

			for (r = 0; r < t_size; r++)
				if (r != victim)
					MPI_OK(MPI_Send(&i, 1, MPI_INT, r, 1, MPI_COMM_WORLD));
		} else {
			MPI_OK(MPI_Recv(&buf, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, &st));
			CHECK(buf == i, "got %d", buf);
		}
	}
	if (!strcmp(how, "hang")) {
		MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
		return 1;
	}
	if (t_rank == victim) {
		if (!strcmp(how, "kill"))
			raise(SIGKILL);
		if (!strcmp(how, "exit"))
			exit(3);
		if (!strcmp(how, "abort"))
			MPI_Abort(MPI_COMM_WORLD, 4);
	} else if (strcmp(how, "none")) {
		/* Wait for what never comes: from the victim, and from anyone. */
		if (t_rank % 2)
			MPI_Recv(&buf, 1, MPI_INT, victim, 2, MPI_COMM_WORLD, &st);
		else
			MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
		/* Receives from a dead rank fail rather than hang. */
		return 0;
	}
	return t_done();
}
