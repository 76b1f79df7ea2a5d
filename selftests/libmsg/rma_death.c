// SPDX-License-Identifier: MIT
// libmsg-test: run-by=rma_death.sh
/*
 * A rank dies (the last, SIGKILL) in the middle of one-sided epochs,
 * on an allocated window (shared memory) and a created one
 * (process_vm); under MPI_ERRORS_RETURN the survivors see:
 *   - the exclusive locks the victim held on rank 0's memory when it
 *     died are broken: each survivor locks rank 0 exclusively, and
 *     does, within the test's time;
 *   - their passive epochs on the victim (shared locks taken before
 *     the death) end with MPI_ERR_PROC_FAILED from MPI_Win_unlock (an
 *     operation in between may succeed or fail with it too);
 *   - a new lock of the victim, a fence on the window, and a PSCW epoch
 *     with the victim (start waiting for its post) fail with
 *     MPI_ERR_PROC_FAILED, none hangs;
 *   - the shared lock the victim held on rank 0 through
 *     MPI_Win_lock_all is broken too.
 * Then each prints "rma_death: rank R ok" and waits for the launcher's
 * SIGTERM (run: the driver counts those lines).
 */
#include "death.h"

static void expect_failed(int err, const char *what)
{
	T_EXPECT(err, MPI_ERR_PROC_FAILED, "%s", what);
}

int main(int argc, char **argv)
{
	MPI_Win win[2], all;
	MPI_Comm others;
	MPI_Group world, vg;
	sigset_t term;
	int victim, w, x = 1, err, sig, *mem, *cmem, *amem;

	victim = t_death_init(&argc, &argv, &term, &others);
	if (victim < 0)
		return t_done();
	cmem = calloc(64, sizeof(int));
	MPI_OK(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL,
				MPI_COMM_WORLD, &mem, &win[0]));
	MPI_OK(MPI_Win_create(cmem, 64 * sizeof(int), sizeof(int), MPI_INFO_NULL,
			      MPI_COMM_WORLD, &win[1]));
	MPI_OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &amem, &all));
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
	MPI_OK(MPI_Group_incl(world, 1, &victim, &vg));
	for (w = 0; w < 2; w++)
		MPI_OK(MPI_Win_set_errhandler(win[w], MPI_ERRORS_RETURN));
	MPI_OK(MPI_Win_set_errhandler(all, MPI_ERRORS_RETURN));

	/* The victim holds rank 0 exclusively; the others hold it shared. */
	for (w = 0; w < 2; w++) {
		if (t_rank == victim)
			MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win[w]));
		else
			MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, victim, 0, win[w]));
	}
	if (t_rank == victim)
		MPI_OK(MPI_Win_lock_all(0, all));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == victim)
		raise(SIGKILL);

	/* Now everybody knows. */
	expect_failed(MPI_Barrier(MPI_COMM_WORLD), "a barrier with the dead rank");
	for (w = 0; w < 2; w++) {
		err = MPI_Put(&x, 1, MPI_INT, victim, 3, 1, MPI_INT, win[w]);
		if (err)
			expect_failed(err, "MPI_Put to the dead rank");
		expect_failed(MPI_Win_unlock(victim, win[w]),
			      "MPI_Win_unlock of the dead rank");
		expect_failed(MPI_Win_lock(MPI_LOCK_SHARED, victim, 0, win[w]),
			      "MPI_Win_lock of the dead rank");
		/* The victim's exclusive lock on rank 0 is broken. */
		MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win[w]));
		MPI_OK(MPI_Accumulate(&x, 1, MPI_INT, 0, 5, 1, MPI_INT, MPI_SUM,
				      win[w]));
		MPI_OK(MPI_Win_unlock(0, win[w]));
		expect_failed(MPI_Win_start(vg, 0, win[w]),
			      "MPI_Win_start waiting for the dead rank's post");
		expect_failed(MPI_Win_fence(0, win[w]), "MPI_Win_fence");
	}
	MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, all));
	MPI_OK(MPI_Win_unlock(0, all));
	MPI_OK(MPI_Barrier(others));
	if (t_rank == 0)
		CHECK(mem[5] == t_size - 1 && cmem[5] == t_size - 1,
		      "accumulated %d and %d under the broken locks", mem[5],
		      cmem[5]);
	printf("rma_death: rank %d ok\n", t_rank);
	fflush(stdout);
	sigwait(&term, &sig);
	_exit(0);
}
