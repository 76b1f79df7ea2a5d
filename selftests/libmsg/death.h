/* SPDX-License-Identifier: MIT */
/*
 * death.h: what the tests of a dying peer share.  The victim is the
 * last rank; the survivors block SIGTERM (the launcher's, once the
 * victim is gone) so that their checks finish before they leave.
 */
#ifndef LIBMSG_DEATH_H
#define LIBMSG_DEATH_H

#include <signal.h>
#include "test.h"

/*
 * MPI_Init with SIGTERM blocked (in *term), and a communicator of the
 * survivors (the victim alone in its own).  Returns the victim's rank,
 * or -1 when the job has one rank: nobody to lose.
 */
static inline int t_death_init(int *argc, char ***argv, sigset_t *term,
			       MPI_Comm *others)
{
	int victim;

	sigemptyset(term);
	sigaddset(term, SIGTERM);
	sigprocmask(SIG_BLOCK, term, NULL);
	t_init(argc, argv);
	if (t_size < 2)
		return -1;
	victim = t_size - 1;
	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank == victim, t_rank,
			      others));
	return victim;
}

/*
 * err is MPI_ERR_PROC_FAILED: the call failed for the death.  With lax,
 * a success passes too (as ULFM allows, for a rank that had all it
 * needed before the death): 1 then, else 0.
 */
static inline int t_proc_failed(int err, int lax, const char *what)
{
	if (lax && err == MPI_SUCCESS)
		return 1;
	t_expect(err, MPI_ERR_PROC_FAILED, what);
	return 0;
}

#endif /* LIBMSG_DEATH_H */
