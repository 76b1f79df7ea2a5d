// SPDX-License-Identifier: MIT
// libmsg-test: run-by=peerdeath.sh
/*
 * What the survivors see when a peer dies (the last rank, SIGKILL),
 * under MPI_ERRORS_RETURN, before the launcher ends them:
 *   - a blocking MPI_Recv from MPI_ANY_SOURCE, posted before the death
 *     is known, fails with MPI_ERR_PROC_FAILED instead of hanging, and
 *     MPI_Wait of an MPI_Irecv from MPI_ANY_SOURCE posted before the
 *     death with MPI_ERR_PROC_FAILED_PENDING (as ULFM: the request stays,
 *     and MPI_Cancel then ends it);
 *   - a wildcard MPI_Recv, MPI_Probe and MPI_Iprobe posted afterwards
 *     fail too, and so does a receive naming the dead rank;
 *   - a message a live rank sent before the death is still received by
 *     a wildcard receive (rank 0, from rank 1, with 3 or more ranks);
 *   - a wildcard receive on a communicator without the dead rank is not
 *     failed and completes normally;
 *   - MPI_Waitall/Testall of several receives from the dead rank: with
 *     MPI_STATUSES_IGNORE, MPI_ERR_PROC_FAILED; with statuses,
 *     MPI_ERR_IN_STATUS and each status says MPI_ERR_PROC_FAILED; mixed
 *     with a truncated receive and no statuses, MPI_ERR_IN_STATUS.
 * The survivors then meet in a barrier on the communicator without the
 * dead rank, each prints "peerdeath: rank R ok" and waits for the
 * launcher's SIGTERM (blocked, so the checks finish first); peerdeath.sh
 * counts those lines and checks that the launcher named the victim.
 */
#include "death.h"

#define TAG_EARLY	5	/* rank 1 to rank 0 before the death */
#define TAG_NEVER	7	/* only the victim could have sent these */
#define TAG_TRUNC	9	/* two ints to oneself, received as one */

/* Two receives from the dead rank, posted at once. */
static void post_two(MPI_Request r[2], int b[2], int victim)
{
	MPI_OK(MPI_Irecv(&b[0], 1, MPI_INT, victim, TAG_NEVER, MPI_COMM_WORLD,
			 &r[0]));
	MPI_OK(MPI_Irecv(&b[1], 1, MPI_INT, victim, TAG_NEVER, MPI_COMM_WORLD,
			 &r[1]));
}

/* The array calls' error class, with and without statuses. */
static void all_failed(int victim)
{
	int b[2], two[2] = { 1, 2 }, i, cls, flag = 0;
	MPI_Request r[2];
	MPI_Status st[2];

	post_two(r, b, victim);
	t_proc_failed(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), 0,
		      "MPI_Waitall, statuses ignored");
	post_two(r, b, victim);
	t_proc_failed(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE), 0,
		      "MPI_Testall, statuses ignored");
	CHECK(flag == 1, "MPI_Testall flag %d", flag);
	post_two(r, b, victim);
	T_EXPECT(MPI_Waitall(2, r, st), MPI_ERR_IN_STATUS,
		 "MPI_Waitall with statuses");
	for (i = 0; i < 2; i++) {
		MPI_OK(MPI_Error_class(st[i].MPI_ERROR, &cls));
		CHECK(cls == MPI_ERR_PROC_FAILED, "status %d: class %d", i, cls);
	}
	MPI_OK(MPI_Irecv(&b[0], 1, MPI_INT, t_rank, TAG_TRUNC, MPI_COMM_WORLD,
			 &r[0]));
	MPI_OK(MPI_Send(two, 2, MPI_INT, t_rank, TAG_TRUNC, MPI_COMM_WORLD));
	MPI_OK(MPI_Irecv(&b[1], 1, MPI_INT, victim, TAG_NEVER, MPI_COMM_WORLD,
			 &r[1]));
	T_EXPECT(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_ERR_IN_STATUS,
		 "MPI_Waitall of a truncation and a failure");
}

int main(int argc, char **argv)
{
	int victim, buf = 0, flag = -1, self_rank, val;
	MPI_Request early, local;
	MPI_Comm others;
	MPI_Status st;
	sigset_t term;

	victim = t_death_init(&argc, &argv, &term, &others);
	if (victim < 0)
		return t_done();
	if (t_rank == 1 && victim != 1) {
		val = 4242;
		MPI_OK(MPI_Send(&val, 1, MPI_INT, 0, TAG_EARLY, MPI_COMM_WORLD));
	}
	if (t_rank != victim) {
		MPI_OK(MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, TAG_NEVER,
				 MPI_COMM_WORLD, &early));
		MPI_OK(MPI_Irecv(&val, 1, MPI_INT, MPI_ANY_SOURCE, TAG_NEVER,
				 others, &local));
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == victim)
		raise(SIGKILL);

	/* Posted now, most likely before the death is known: must not hang. */
	t_proc_failed(MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, TAG_NEVER,
			       MPI_COMM_WORLD, &st), 0, "blocking wildcard receive");
	/* ULFM: the receive stays pending, the program may cancel it. */
	T_EXPECT(MPI_Wait(&early, &st), MPI_ERR_PROC_FAILED_PENDING,
		 "wildcard MPI_Irecv, then MPI_Wait");
	CHECK(early != MPI_REQUEST_NULL, "pending request freed");
	MPI_OK(MPI_Cancel(&early));
	MPI_OK(MPI_Wait(&early, &st));
	MPI_OK(MPI_Test_cancelled(&st, &flag));
	CHECK(flag == 1 && early == MPI_REQUEST_NULL,
	      "pending receive not cancelled");
	t_proc_failed(MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, TAG_NEVER,
			       MPI_COMM_WORLD, &st), 0, "wildcard receive afterwards");
	t_proc_failed(MPI_Probe(MPI_ANY_SOURCE, TAG_NEVER, MPI_COMM_WORLD, &st), 0,
		      "wildcard MPI_Probe");
	t_proc_failed(MPI_Iprobe(MPI_ANY_SOURCE, TAG_NEVER, MPI_COMM_WORLD,
				 &flag, &st), 0, "wildcard MPI_Iprobe");
	CHECK(flag == 0, "MPI_Iprobe flag %d", flag);
	t_proc_failed(MPI_Recv(&buf, 1, MPI_INT, victim, TAG_NEVER,
			       MPI_COMM_WORLD, &st), 0, "receive from the dead rank");
	t_proc_failed(MPI_Probe(victim, TAG_NEVER, MPI_COMM_WORLD, &st), 0,
		      "MPI_Probe of the dead rank");
	all_failed(victim);

	/* What a live rank sent before is still there to match. */
	if (t_rank == 0 && victim != 1) {
		buf = 0;
		MPI_OK(MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, TAG_EARLY,
				MPI_COMM_WORLD, &st));
		CHECK(buf == 4242 && st.MPI_SOURCE == 1, "got %d from %d",
		      buf, st.MPI_SOURCE);
	}

	/* The communicator without the dead rank is unaffected. */
	MPI_OK(MPI_Test(&local, &flag, &st));
	CHECK(flag == 0, "wildcard receive on a communicator without the dead rank completed");
	MPI_OK(MPI_Comm_rank(others, &self_rank));
	val = 0;
	buf = 77 + self_rank;
	MPI_OK(MPI_Send(&buf, 1, MPI_INT, self_rank, TAG_NEVER, others));
	MPI_OK(MPI_Wait(&local, &st));
	CHECK(val == 77 + self_rank && st.MPI_SOURCE == self_rank,
	      "got %d from %d", val, st.MPI_SOURCE);

	/*
	 * The launcher ends a survivor as soon as it is done, and its death
	 * fails wildcard receives on "others" too: wait for each other.
	 */
	MPI_OK(MPI_Barrier(others));
	printf("peerdeath: rank %d ok\n", t_rank);
	fflush(stdout);
	/* The launcher ends the job; leave when it says so. */
	sigwait(&term, &val);
	_exit(0);
}
