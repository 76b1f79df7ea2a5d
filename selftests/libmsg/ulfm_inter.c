// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan run-by=ulfm.sh
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
 *            results;
 *   iagree   MPIX_Comm_iagree, with a barrier on MPI_COMM_WORLD
 *            between its start and its wait: each side gets the AND of
 *            the remote group's values; then the last rank dies and
 *            the next one fails with MPI_ERR_PROC_FAILED in both groups
 *            (the remote survivors' AND still given) until the failure
 *            is acknowledged;
 *   adead,   every process of group A (bdead: of B) dies: a shrink
 *   bdead    and an ishrink give MPI_COMM_NULL to every survivor, and
 *            an agreement there gives all ones (none of the remote
 *            group took part) with MPI_ERR_PROC_FAILED;
 *   mtirevoke at MPI_THREAD_MULTIPLE, in every process one thread
 *            blocks in a wildcard MPI_Recv on the intercommunicator
 *            and another agrees on it; rank 0's main thread revokes
 *            it: the receives end with MPI_ERR_REVOKED, the agreement
 *            gives the remote group's AND, and a shrink gives an
 *            intercommunicator of everyone that works (the one case
 *            ulfm.sh runs under ThreadSanitizer too).
 *
 * Each survivor prints "ulfm_inter: rank R ok".
 */
#include <pthread.h>
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

/* An iagree on ic: started, a barrier on MPI_COMM_WORLD, then waited. */
static int iagree(MPI_Comm ic, int *flag)
{
	MPI_Request req;

	MPI_OK(MPIX_Comm_iagree(ic, flag, &req));
	CHECK(req != MPI_REQUEST_NULL, "no request");
	if (victim < 0)
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void case_iagree(void)
{
	MPI_Comm ic = t_inter(0, TAG, NULL);
	int flag, err, i;

	MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
	victim = -1;
	for (i = 0; i < 3; i++) {
		flag = contribution(t_rank) | i << 16;
		MPI_OK(iagree(ic, &flag));
		CHECK(flag == (remote_and() | i << 16),
		      "iagree %d: %#x, the remote group's AND is %#x", i, flag,
		      remote_and() | i << 16);
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	victim = t_size - 1;
	if (t_rank == victim)
		raise(SIGKILL);
	/* Not acknowledged: both groups hear of it, every time. */
	for (i = 0; i < 2; i++) {
		flag = contribution(t_rank);
		err = iagree(ic, &flag);
		expect(err, MPI_ERR_PROC_FAILED, "iagree after the death");
		CHECK(flag == remote_and(),
		      "iagree %d: %#x, the remote survivors' AND is %#x", i,
		      flag, remote_and());
	}
	MPI_OK(MPIX_Comm_failure_ack(ic));
	flag = contribution(t_rank);
	MPI_OK(iagree(ic, &flag));
	CHECK(flag == remote_and(), "iagree %#x after the acknowledgement",
	      flag);
	MPI_OK(MPI_Comm_free(&ic));
}

/* Every process of group A (a) or B dies; the survivors shrink to nothing. */
static void case_gdead(int a)
{
	MPI_Comm ic = t_inter(0, TAG, NULL), s = MPI_COMM_WORLD;
	MPI_Request req;
	int flag;

	MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_in_a == a)
		raise(SIGKILL);
	MPI_OK(MPIX_Comm_shrink(ic, &s));
	CHECK(s == MPI_COMM_NULL, "shrink: not MPI_COMM_NULL");
	s = MPI_COMM_WORLD;
	MPI_OK(MPIX_Comm_ishrink(ic, &s, &req));
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	CHECK(s == MPI_COMM_NULL, "ishrink: not MPI_COMM_NULL");
	flag = 0x5a;
	expect(MPIX_Comm_agree(ic, &flag), MPI_ERR_PROC_FAILED,
	       "agreement with the remote group dead");
	CHECK(flag == ~0, "agreed %#x, none of the remote group took part",
	      flag);
	MPI_OK(MPI_Comm_free(&ic));
}

static MPI_Comm mt_ic;

static void *mt_recv(void *arg)
{
	int v;

	(void)arg;
	expect(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG, mt_ic,
			MPI_STATUS_IGNORE), MPI_ERR_REVOKED,
	       "a thread's blocked MPI_Recv");
	return NULL;
}

static void *mt_agree(void *arg)
{
	int flag = contribution(t_rank);

	(void)arg;
	MPI_OK(MPIX_Comm_agree(mt_ic, &flag));
	CHECK(flag == remote_and(),
	      "a thread agreed %#x, the remote AND is %#x", flag,
	      remote_and());
	return NULL;
}

static void case_mtirevoke(void)
{
	pthread_t th[2];
	MPI_Comm s;
	int flag = -1;

	mt_ic = t_inter(0, TAG, NULL);
	MPI_OK(MPI_Comm_set_errhandler(mt_ic, MPI_ERRORS_RETURN));
	victim = -1;
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	CHECK(!pthread_create(&th[0], NULL, mt_recv, NULL), "pthread_create");
	CHECK(!pthread_create(&th[1], NULL, mt_agree, NULL), "pthread_create");
	if (t_rank == 0) {
		usleep(100000);
		MPI_OK(MPIX_Comm_revoke(mt_ic));
	}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	MPI_OK(MPIX_Comm_is_revoked(mt_ic, &flag));
	CHECK(flag == 1, "not revoked");
	MPI_OK(MPIX_Comm_shrink(mt_ic, &s));
	check_works(s, t_nb);
	MPI_OK(MPI_Comm_free(&s));
	MPI_OK(MPI_Comm_free(&mt_ic));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "mtirevoke"))
		t_init_multiple(&argc, &argv);
	else
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
	else if (!strcmp(c, "mtirevoke"))
		case_mtirevoke();
	else if (!strcmp(c, "iagree"))
		case_iagree();
	else if (!strcmp(c, "adead") || !strcmp(c, "bdead"))
		case_gdead(c[0] == 'a');
	else
		CHECK(0, "no case '%s'", c);
	printf("ulfm_inter: rank %d ok\n", t_rank);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
