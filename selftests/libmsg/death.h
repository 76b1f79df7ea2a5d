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

#endif /* LIBMSG_DEATH_H */
