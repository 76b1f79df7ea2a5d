// SPDX-License-Identifier: MIT
/*
 * Collectives on intercommunicators (MPI-3.1 5.2.2,
 * libmsg/src/coll/coll_inter*.c), between the low and the high half
 * of the job (sizes differ at odd rank counts):
 *   - rooted ones (Bcast, Gather(v), Scatter(v), Reduce) with the root
 *     at each rank of each group in turn: MPI_ROOT there, MPI_PROC_NULL
 *     at the rest of its group (whose buffers stay untouched), the
 *     root's rank in the other group;
 *   - Barrier, Allgather(v), Alltoall(v, w), Allreduce (a group gets
 *     the other group's sum), Reduce_scatter(_block), both ways, with
 *     a non-commutative user op (the other group's ranks in order) and
 *     a non-contiguous type; on the intercommunicator and its dup.
 */
// libmsg-test: np=2,3,4,8
/* Each call in its blocking form (intercoll_body.h). */
#define COLL(call, icall, pcall, rb, n) MPI_OK(call)
#include "intercoll_body.h"

int main(int argc, char **argv)
{
	MPI_Comm ic, d;

	t_init(&argc, &argv);
	if (t_size < 2)
		T_SKIP("an intercommunicator needs 2 processes");
	ic = t_inter(0, 11, NULL);
	rooted(ic);
	all(ic);
	/* On a duplicate too, its traffic apart from ic's. */
	MPI_OK(MPI_Comm_dup(ic, &d));
	all(d);
	rooted(d);
	MPI_OK(MPI_Comm_free(&d));
	MPI_OK(MPI_Comm_free(&ic));
	MPI_Finalize();
	if (t_rank == 0)
		printf("intercoll: ok (%d ranks)\n", t_size);
	return 0;
}
