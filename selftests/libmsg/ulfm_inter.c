// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan run-by=ulfm.sh
/*
 * The ULFM calls on an intercommunicator between group A (the low half
 * of MPI_COMM_WORLD) and group B (the rest, inter_util.h); ulfm.sh
 * runs each case under mpiexec --with-ft:
 *
 *   irevoke  nobody dies: every process but world rank 0 blocks in an
 *            MPI_Recv on the intercommunicator, and rank 0 (in A)
 *            revokes it: the receives end with MPI_ERR_REVOKED in both
 *            groups, MPIX_Comm_is_revoked says so everywhere,
 *            MPI_COMM_WORLD is untouched, a send and a barrier on it
 *            fail at once; an agreement gives each side the AND of the
 *            remote group's values (A's and B's differ, and their
 *            union's AND would be 0), and a shrink gives an
 *            intercommunicator of everyone that works;
 *   ikill    the last rank (in B) dies; rank 0 revokes the
 *            intercommunicator while the others block in a receive on
 *            it; MPIX_Comm_get_failed names the victim; an agreement
 *            raises MPI_ERR_PROC_FAILED in both groups with the
 *            remote survivors' AND, and once the failure is
 *            acknowledged the next one succeeds; MPIX_Comm_shrink and
 *            MPIX_Comm_ishrink give the intercommunicator of the
 *            survivors (B one smaller), on which point-to-point
 *            messages, MPI_Allreduce and MPI_Barrier give the right
 *            results.
 *
 * Each survivor prints "ulfm_inter: rank R ok".
 */
#include <signal.h>
#include <mpi-ext.h>
#include "inter_util.h"

#define TAG	5

static int victim;

static void expect(int err, int cls, const char *what)
{
	int c;

	MPI_Error_class(err, &c);
	CHECK(c == cls, "%s: class %d, expected %d", what, c, cls);
}

/* What world rank w gives an agreement: A's and B's AND to distinct bits. */
static int contribution(int w)
{
	return (w < t_na ? 0x1a00 : 0x2500) | (1 << w);
}

/* The AND of the remote group's contributions (the dead left out). */
static int remote_and(void)
{
	int r, w, want = ~0;

	for (r = 0; r < t_rsize(); r++) {
		w = t_world_of(!t_in_a, r);
		if (w != victim)
			want &= contribution(w);
	}
	return want;
}

/*
 * On an intercommunicator of the survivors (nb_alive of B): sizes,
 * point-to-point between local rank i and remote rank i, an allreduce
 * (each side gets the sum of the other's world ranks) and a barrier.
 */
static void check_works(MPI_Comm ic, int nb_alive)
{
	int inter = 0, ls, rs, lr, got = -1, sum = -1, want = 0, r, w;

	MPI_OK(MPI_Comm_test_inter(ic, &inter));
	CHECK(inter, "not an intercommunicator");
	MPI_OK(MPI_Comm_size(ic, &ls));
	MPI_OK(MPI_Comm_remote_size(ic, &rs));
	MPI_OK(MPI_Comm_rank(ic, &lr));
	CHECK(ls == (t_in_a ? t_na : nb_alive) &&
	      rs == (t_in_a ? nb_alive : t_na),
	      "sizes %d and %d", ls, rs);
	CHECK(lr == t_lrank(), "local rank %d, expected %d", lr, t_lrank());
	if (lr < rs) {
		MPI_OK(MPI_Sendrecv(&t_rank, 1, MPI_INT, lr, TAG, &got, 1,
				    MPI_INT, lr, TAG, ic, MPI_STATUS_IGNORE));
		CHECK(got == t_world_of(!t_in_a, lr),
		      "from remote rank %d: %d", lr, got);
	}
	MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, ic));
	for (r = 0; r < rs; r++) {
		w = t_world_of(!t_in_a, r);
		want += w;
	}
	CHECK(sum == want, "allreduce %d, expected %d", sum, want);
	MPI_OK(MPI_Barrier(ic));
}

/* Every process but world rank 0 blocks in a receive that rank 0 revokes. */
static void revoke_blocked(MPI_Comm ic)
{
	int v = 0, flag = -1;

	if (t_rank == 0) {
		usleep(100000);
		MPI_OK(MPIX_Comm_revoke(ic));
	} else {
		expect(MPI_Recv(&v, 1, MPI_INT, 0, TAG, ic, MPI_STATUS_IGNORE),
		       MPI_ERR_REVOKED, "MPI_Recv blocked in the revoked intercomm");
	}
	MPI_OK(MPIX_Comm_is_revoked(ic, &flag));
	CHECK(flag == 1, "not revoked");
	expect(MPI_Send(&v, 1, MPI_INT, 0, TAG, ic), MPI_ERR_REVOKED,
	       "MPI_Send on a revoked intercomm");
	expect(MPI_Barrier(ic), MPI_ERR_REVOKED,
	       "MPI_Barrier on a revoked intercomm");
}

static void case_irevoke(void)
{
	MPI_Comm ic = t_inter(0, TAG, NULL), s;
	int flag = -1;

	MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
	victim = -1;
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	revoke_blocked(ic);
	MPI_OK(MPIX_Comm_is_revoked(MPI_COMM_WORLD, &flag));
	CHECK(flag == 0, "MPI_COMM_WORLD revoked");
	flag = contribution(t_rank);
	MPI_OK(MPIX_Comm_agree(ic, &flag));
	CHECK(flag == remote_and(), "agreed %#x, the remote group's AND is %#x",
	      flag, remote_and());
	MPI_OK(MPIX_Comm_shrink(ic, &s));
	check_works(s, t_nb);
	MPI_OK(MPI_Comm_free(&s));
	MPI_OK(MPI_Comm_free(&ic));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void case_ikill(void)
{
	MPI_Comm ic = t_inter(0, TAG, NULL), s, s2;
	MPI_Group g, wg;
	MPI_Request req;
	int n, r = 0, w = -1, flag, err;

	MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == victim)
		raise(SIGKILL);
	revoke_blocked(ic);
	/* The death is noticed at once: get_failed may need a moment. */
	do {
		MPI_OK(MPIX_Comm_get_failed(ic, &g));
		MPI_OK(MPI_Group_size(g, &n));
		if (!n)
			MPI_OK(MPI_Group_free(&g));
	} while (n == 0);
	CHECK(n == 1, "%d failed", n);
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
	MPI_OK(MPI_Group_translate_ranks(g, 1, &r, wg, &w));
	CHECK(w == victim, "failed: world rank %d, not %d", w, victim);
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Group_free(&wg));
	/* Not acknowledged: both groups hear of it, with the remote AND. */
	flag = contribution(t_rank);
	err = MPIX_Comm_agree(ic, &flag);
	expect(err, MPI_ERR_PROC_FAILED, "agreement after the death");
	CHECK(flag == remote_and(), "agreed %#x, the remote survivors' AND is %#x",
	      flag, remote_and());
	MPI_OK(MPIX_Comm_failure_ack(ic));
	MPI_OK(MPIX_Comm_failure_get_acked(ic, &g));
	MPI_OK(MPI_Group_size(g, &n));
	CHECK(n == 1, "%d acknowledged", n);
	MPI_OK(MPI_Group_free(&g));
	flag = contribution(t_rank);
	MPI_OK(MPIX_Comm_agree(ic, &flag));
	CHECK(flag == remote_and(), "agreed %#x after the acknowledgement",
	      flag);
	MPI_OK(MPIX_Comm_shrink(ic, &s));
	check_works(s, t_nb - 1);
	MPI_OK(MPIX_Comm_ishrink(ic, &s2, &req));
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	check_works(s2, t_nb - 1);
	MPI_OK(MPI_Comm_free(&s2));
	MPI_OK(MPI_Comm_free(&s));
	MPI_OK(MPI_Comm_free(&ic));
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	t_init(&argc, &argv);
	victim = t_size - 1;
	if (t_size < 3) {
		if (t_rank == 0)
			printf("ulfm_inter: needs 3 ranks or more\n");
		return t_done();
	}
	if (!strcmp(c, "irevoke"))
		case_irevoke();
	else if (!strcmp(c, "ikill"))
		case_ikill();
	else
		CHECK(0, "no case '%s'", c);
	printf("ulfm_inter: rank %d ok\n", t_rank);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
