// SPDX-License-Identifier: MIT
// libmsg-test: run-by=colldeath.sh
/*
 * Blocking collectives when a member dies (the last rank, SIGKILL),
 * under MPI_ERRORS_RETURN, before the launcher ends the survivors:
 *   - an MPI_Barrier on MPI_COMM_WORLD that the survivors entered
 *     before the death fails with MPI_ERR_PROC_FAILED instead of
 *     hanging (the victim never enters it);
 *   - a small MPI_Allreduce on it afterwards fails too: through the
 *     collective area (the default) on every rank; with COLLDEATH_LAX
 *     set (colldeath.sh sets it when it forces algorithms made of
 *     messages) a rank may also succeed, as ULFM allows, when it had
 *     all it needed before the death;
 *   - an MPI_Bcast and MPI_Reduce (message trees by default) fail or
 *     succeed with the right data, and do not hang;
 *   - collectives on a communicator without the dead rank still work
 *     and give the right results.
 * Each survivor then prints "colldeath: rank R ok" and waits for the
 * launcher's SIGTERM (or SIGKILL); colldeath.sh counts those lines.
 */
#include <time.h>
#include "death.h"

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	int victim, v, sum, n, lax;
	MPI_Comm others;
	sigset_t term;

	victim = t_death_init(&argc, &argv, &term, &others);
	if (victim < 0)
		return t_done();
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == victim) {
		/* Let the others enter the barrier and go to sleep there. */
		nanosleep(&nap, NULL);
		raise(SIGKILL);
	}
	/* Every survivor's barrier waits, through the others, on the victim. */
	t_proc_failed(MPI_Barrier(MPI_COMM_WORLD), 0,
		      "barrier entered before the death");
	lax = getenv("COLLDEATH_LAX") != NULL;
	v = 1;
	t_proc_failed(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
		      lax, "allreduce after the death");
	v = t_rank ? -1 : 42;
	if (t_proc_failed(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD), 1,
			  "bcast after the death"))
		CHECK(v == 42, "bcast gave %d", v);
	v = 1;
	t_proc_failed(MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD),
		      1, "reduce after the death");

	/* The survivors' own communicator is untouched. */
	MPI_OK(MPI_Comm_size(others, &n));
	MPI_OK(MPI_Comm_rank(others, &v));
	sum = -1;
	MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, others));
	CHECK(sum == n * (n - 1) / 2, "allreduce on the survivors: %d", sum);
	MPI_OK(MPI_Barrier(others));
	printf("colldeath: rank %d ok\n", t_rank);
	fflush(stdout);
	/*
	 * A survivor that leaves is one more death, and made of messages a
	 * barrier lets its first ranks out before the last have their
	 * messages: there the survivors stay until the launcher's SIGKILL.
	 */
	if (lax)
		for (;;)
			pause();
	sigwait(&term, &v);
	_exit(0);
}
