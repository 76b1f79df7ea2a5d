/* SPDX-License-Identifier: MIT */
/*
 * runtime.h: joining and leaving the job (init.c), sessions
 * (session.c): the top of the library, which
 * starts every layer below.
 */
#ifndef LIBMSG_RUNTIME_H
#define LIBMSG_RUNTIME_H

#include "coll/coll.h"

/*
 * The first MPI_Init or MPI_Session_init joins the job at thread level
 * `required` (clamped); a later one may raise the level to MULTIPLE.
 * The last MPI_Finalize or MPI_Session_finalize leaves it: each calls
 * lm_leave_if_last once it has ended its own.
 */
void lm_join(int required, const char *fn);
int lm_leave_if_last(const char *fn);

#endif /* LIBMSG_RUNTIME_H */
