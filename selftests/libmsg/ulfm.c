// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan run-by=ulfm.sh
/*
 * The ULFM calls of mpi-ext.h, one case per run (ulfm.sh runs each
 * under mpiexec --with-ft; the cases that kill, the last rank):
 *
 *   revoke   ranks 1.. block in MPI_Recv from rank 0 on a duplicate of
 *            MPI_COMM_WORLD; rank 0 revokes it: every receive returns
 *            MPI_ERR_REVOKED, MPIX_Comm_is_revoked says
 *            so everywhere, a send, a receive and a barrier on it fail at
 *            once, an agreement and a shrink on it still work (the
 *            shrink's communicator has everyone and works), and the
 *            other communicator is untouched;
 *   agree    flags agreed by bitwise AND without a failure; then the
 *            victim dies and an agreement among the survivors gives the
 *            AND of theirs with MPI_ERR_PROC_FAILED (not acknowledged);
 *            after MPIX_Comm_failure_ack the next one succeeds and
 *            MPIX_Comm_failure_get_acked names the victim; MPIX_Comm_iagree
 *            too;
 *   shrink   the victim dies; MPIX_Comm_get_failed names it,
 *            MPIX_Comm_ack_failed counts it, and MPIX_Comm_shrink gives a
 *            communicator of the survivors, in order, on which an
 *            allreduce, a wildcard exchange and a further shrink work;
 *            MPIX_Comm_ishrink too, which returns at once on rank 0
 *            while rank 1 has not called it yet (MPI_Test: not done);
 *   pending  rank 0's MPI_Irecv from MPI_ANY_SOURCE waits when the
 *            victim dies: MPI_Wait and MPI_Test give
 *            MPI_ERR_PROC_FAILED_PENDING and leave it; once the failure is
 *            acknowledged, a message of rank 1 completes it;
 *   exit3    the victim dies, the survivors shrink, rank 0 then exits
 *            with status 3 after MPI_Finalize: mpiexec --with-ft must
 *            exit with 3 (the survivors' word, not the signal's);
 *   abort    the victim dies, then rank 0 calls MPI_Abort while the
 *            others block in a receive that nothing matches: the job
 *            must still end (mpiexec is told to end it);
 *   revsend  (2 ranks or more, nobody dies) every rank but 0 starts a
 *            synchronous eager send, a rendezvous send and a
 *            synchronous rendezvous send to rank 0 on a duplicate of
 *            MPI_COMM_WORLD, then blocks in a rendezvous MPI_Send to
 *            it; rank 0, which receives none of them, starts a
 *            synchronous eager and a synchronous rendezvous send to
 *            rank 1 (which receives neither), then revokes: every one
 *            of these sends, already in its ring and waiting for its
 *            match, completes with MPI_ERR_REVOKED on both sides;
 *   mtrevoke (2 ranks or more, MPI_THREAD_MULTIPLE, nobody dies) on
 *            every rank one thread blocks in a wildcard MPI_Recv (of a
 *            tag nobody sends) and another in a synchronous rendezvous
 *            MPI_Ssend (to rank 0, rank 0's to rank 1) on a duplicate
 *            of MPI_COMM_WORLD, a third in an MPIX_Comm_agree on
 *            MPI_COMM_WORLD that rank 0 joins only after it revoked the
 *            duplicate: the first two end with MPI_ERR_REVOKED, the
 *            agreement gives the AND (ulfm.sh runs this one under
 *            ThreadSanitizer too);
 *   restart  the victim dies in the middle of an MPIX_Comm_ishrink: it
 *            took part in the first agreement (who is left) and dies
 *            before the new communicator's context id is agreed, which
 *            it is a member of.  Each survivor, polling with MPI_Test,
 *            tells it (a file) once its own first agreement is decided
 *            (MPI_T: mpichan_ulfm_agreements moved); the victim waits
 *            for every survivor's word without calling MPI, then dies.
 *            The shrink must begin again without it (exactly one more
 *            round: mpichan_ulfm_shrink_retries) and give the survivors'
 *            communicator, which works;
 *   brestart the same with the blocking MPIX_Comm_shrink, a second
 *            thread of each survivor watching the counter
 *            (MPI_THREAD_MULTIPLE; ulfm.sh runs it under
 *            ThreadSanitizer too).
 *
 * Each survivor prints "ulfm: rank R ok" and leaves with MPI_Finalize.
 */
#include <pthread.h>
#include <signal.h>
#include <mpi-ext.h>
#include "test.h"

#define TAG	3

static int victim;

static void expect(int err, int cls, const char *what)
{
	int c;

	MPI_Error_class(err, &c);
	CHECK(c == cls, "%s: class %d, expected %d", what, c, cls);
}

/* A barrier that tells the victim to die once everyone is past it. */
static void kill_victim(MPI_Comm comm)
{
	MPI_OK(MPI_Barrier(comm));
	if (t_rank == victim)
		raise(SIGKILL);
}

static int allreduce_ok(MPI_Comm c, int want_sum)
{
	int r, sum = -1;

	MPI_OK(MPI_Comm_rank(c, &r));
	MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, c));
	return sum == want_sum;
}

static void case_revoke(void)
{
	MPI_Comm c, other, s;
	int v = 0, flag = -1, n;
	MPI_Request req;

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &other));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == 0) {
		/* Let them block, then revoke. */
		usleep(100000);
		MPI_OK(MPIX_Comm_revoke(c));
	} else {
		expect(MPI_Recv(&v, 1, MPI_INT, 0, TAG, c, MPI_STATUS_IGNORE),
		       MPI_ERR_REVOKED, "MPI_Recv blocked in the revoked comm");
	}
	MPI_OK(MPIX_Comm_is_revoked(c, &flag));
	CHECK(flag == 1, "not revoked");
	MPI_OK(MPIX_Comm_is_revoked(other, &flag));
	CHECK(flag == 0, "the other communicator revoked");
	expect(MPI_Send(&v, 1, MPI_INT, (t_rank + 1) % t_size, TAG, c),
	       MPI_ERR_REVOKED, "MPI_Send on a revoked comm");
	expect(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG, c, &req),
	       MPI_SUCCESS, "MPI_Irecv");
	expect(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_REVOKED,
	       "MPI_Irecv on a revoked comm");
	expect(MPI_Barrier(c), MPI_ERR_REVOKED, "MPI_Barrier on a revoked comm");
	flag = 1;
	MPI_OK(MPIX_Comm_agree(c, &flag));
	CHECK(flag == 1, "agreement on a revoked comm: %d", flag);
	MPI_OK(MPIX_Comm_shrink(c, &s));
	MPI_OK(MPI_Comm_size(s, &n));
	CHECK(n == t_size, "shrink of a revoked comm without failures: %d", n);
	CHECK(allreduce_ok(s, t_size * (t_size - 1) / 2), "allreduce on it");
	CHECK(allreduce_ok(other, t_size * (t_size - 1) / 2),
	      "allreduce on the other communicator");
	MPI_OK(MPI_Comm_free(&s));
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Comm_free(&other));
}

static void check_acked(MPI_Comm c, int want)
{
	MPI_Group g, wg;
	int n, r = 0, w = -1;

	MPI_OK(MPIX_Comm_failure_get_acked(c, &g));
	MPI_OK(MPI_Group_size(g, &n));
	CHECK(n == want, "%d acknowledged, expected %d", n, want);
	if (n) {
		MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
		MPI_OK(MPI_Group_translate_ranks(g, 1, &r, wg, &w));
		CHECK(w == victim, "acknowledged rank %d, not %d", w, victim);
		MPI_OK(MPI_Group_free(&wg));
	}
	MPI_OK(MPI_Group_free(&g));
}

static void case_agree(void)
{
	int flag = ~(1 << t_rank), want = 0, r, err;
	MPI_Request req;

	MPI_OK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
	for (r = 0; r < t_size; r++)
		want |= 1 << r;
	CHECK(flag == ~want, "AND of all: %#x, expected %#x", flag, ~want);
	flag = t_rank == 1 ? 0 : 1;
	MPI_OK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
	CHECK(flag == 0, "one rank said 0, agreed %d", flag);
	check_acked(MPI_COMM_WORLD, 0);
	kill_victim(MPI_COMM_WORLD);
	/* The victim's part is never in: the survivors' AND, and the news. */
	flag = 0xff & ~(1 << t_rank);
	err = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
	expect(err, MPI_ERR_PROC_FAILED, "agreement after the death");
	want = 0;
	for (r = 0; r < t_size - 1; r++)
		want |= 1 << r;
	CHECK(flag == (0xff & ~want), "survivors' AND %#x, expected %#x",
	      flag, 0xff & ~want);
	MPI_OK(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
	check_acked(MPI_COMM_WORLD, 1);
	flag = 1;
	MPI_OK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
	CHECK(flag == 1, "agreed %d after the acknowledgement", flag);
	flag = t_rank ? 7 : 5;
	MPI_OK(MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &req));
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	CHECK(flag == 5, "iagree: %d", flag);
}

static void case_shrink(void)
{
	MPI_Comm s, s2;
	MPI_Group g;
	MPI_Request req;
	int n, r, acked = -1, v, i;

	kill_victim(MPI_COMM_WORLD);
	/* The death is noticed at once: get_failed may need a moment. */
	do {
		MPI_OK(MPIX_Comm_get_failed(MPI_COMM_WORLD, &g));
		MPI_OK(MPI_Group_size(g, &n));
		MPI_OK(MPI_Group_free(&g));
	} while (n == 0);
	CHECK(n == 1, "%d failed", n);
	MPI_OK(MPIX_Comm_ack_failed(MPI_COMM_WORLD, 0, &acked));
	CHECK(acked == 0, "acked %d of 0", acked);
	MPI_OK(MPIX_Comm_ack_failed(MPI_COMM_WORLD, 5, &acked));
	CHECK(acked == 1, "acked %d of 1", acked);
	MPI_OK(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
	MPI_OK(MPI_Comm_size(s, &n));
	MPI_OK(MPI_Comm_rank(s, &r));
	CHECK(n == t_size - 1 && r == t_rank, "shrunk: rank %d of %d", r, n);
	CHECK(allreduce_ok(s, (t_size - 1) * (t_size - 2) / 2),
	      "allreduce on the shrunk comm");
	/* A ring of wildcard receives. */
	MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG, s, &req));
	MPI_OK(MPI_Send(&r, 1, MPI_INT, (r + 1) % n, TAG, s));
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	CHECK(v == (r + n - 1) % n, "ring: %d from %d", v, (r + n - 1) % n);
	MPI_OK(MPIX_Comm_shrink(s, &s2));
	MPI_OK(MPI_Comm_size(s2, &i));
	CHECK(i == n, "shrink without a failure: %d of %d", i, n);
	MPI_OK(MPI_Comm_free(&s2));
	/* Rank 1 comes late: rank 0's ishrink returns, still under way. */
	if (t_rank == 1)
		usleep(300000);
	MPI_OK(MPIX_Comm_ishrink(MPI_COMM_WORLD, &s2, &req));
	if (t_rank == 0) {
		i = -1;
		MPI_OK(MPI_Test(&req, &i, MPI_STATUS_IGNORE));
		CHECK(i == 0, "MPIX_Comm_ishrink done before rank 1 called it");
	}
	MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	CHECK(allreduce_ok(s2, (t_size - 1) * (t_size - 2) / 2),
	      "allreduce on the ishrunk comm");
	MPI_OK(MPI_Comm_free(&s2));
	MPI_OK(MPI_Comm_free(&s));
}

static void case_pending(void)
{
	MPI_Request req = MPI_REQUEST_NULL;
	MPI_Status st;
	MPI_Comm s;
	int v = 0, flag = -1, one = 11;

	if (t_rank == 0)
		MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG,
				 MPI_COMM_WORLD, &req));
	kill_victim(MPI_COMM_WORLD);
	if (t_rank == 0) {
		expect(MPI_Wait(&req, &st), MPI_ERR_PROC_FAILED_PENDING,
		       "MPI_Wait of a wildcard MPI_Irecv");
		CHECK(req != MPI_REQUEST_NULL, "the pending request was freed");
		expect(MPI_Test(&req, &flag, &st),
		       MPI_ERR_PROC_FAILED_PENDING, "MPI_Test");
		CHECK(req != MPI_REQUEST_NULL, "the pending request was freed");
		MPI_OK(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
	}
	/* Rank 1 sends only once rank 0 acknowledged. */
	MPI_OK(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
	MPI_OK(MPI_Comm_free(&s));
	if (t_rank == 1)
		MPI_OK(MPI_Send(&one, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD));
	if (t_rank == 0) {
		MPI_OK(MPI_Wait(&req, &st));
		CHECK(v == 11 && st.MPI_SOURCE == 1, "got %d from %d", v,
		      st.MPI_SOURCE);
	}
}

static void case_exit3(void)
{
	MPI_Comm s;

	kill_victim(MPI_COMM_WORLD);
	MPI_OK(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
	MPI_OK(MPI_Barrier(s));
	MPI_OK(MPI_Comm_free(&s));
}

static void case_abort(void)
{
	int v;

	kill_victim(MPI_COMM_WORLD);
	if (t_rank == 0) {
		usleep(100000);
		MPI_Abort(MPI_COMM_WORLD, 5);
	}
	MPI_Recv(&v, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	CHECK(0, "the receive from rank 0 returned");
}

#define BIG	(1 << 20)	/* above every eager limit: a rendezvous */

static void case_revsend(void)
{
	static char big[4][BIG];
	MPI_Request req[3];
	MPI_Comm c;
	int v = 1, i, n;

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == 0) {
		/* Synchronous: rank 1, blocked in its own send, pulls neither. */
		MPI_OK(MPI_Issend(&v, 1, MPI_INT, 1, TAG, c, &req[0]));
		MPI_OK(MPI_Issend(big[0], BIG, MPI_CHAR, 1, TAG, c, &req[1]));
		/* Not in MPI: the sends to it stay unmatched until the revoke. */
		usleep(100000);
		MPI_OK(MPIX_Comm_revoke(c));
		n = 2;
	} else {
		MPI_OK(MPI_Issend(&v, 1, MPI_INT, 0, TAG, c, &req[0]));
		MPI_OK(MPI_Isend(big[0], BIG, MPI_CHAR, 0, TAG, c, &req[1]));
		MPI_OK(MPI_Issend(big[1], BIG, MPI_CHAR, 0, TAG, c, &req[2]));
		expect(MPI_Send(big[2], BIG, MPI_CHAR, 0, TAG, c),
		       MPI_ERR_REVOKED, "a blocked rendezvous MPI_Send");
		n = 3;
	}
	for (i = 0; i < n; i++)
		expect(MPI_Wait(&req[i], MPI_STATUS_IGNORE), MPI_ERR_REVOKED,
		       i == 0 ? "a synchronous eager send" :
		       i == 1 && t_rank ? "a rendezvous send" :
		       "a synchronous rendezvous send");
	/* Nothing of them is left to match on the other communicators. */
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Comm_free(&c));
}

static MPI_Comm mt_comm;

static void *mt_recv(void *arg)
{
	int v;

	(void)arg;
	expect(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG + 1, mt_comm,
			MPI_STATUS_IGNORE), MPI_ERR_REVOKED,
	       "a thread's blocked MPI_Recv");
	return NULL;
}

static void *mt_send(void *arg)
{
	(void)arg;
	expect(MPI_Ssend(arg, BIG, MPI_CHAR, t_rank ? 0 : 1, TAG, mt_comm),
	       MPI_ERR_REVOKED, "a thread's blocked rendezvous MPI_Ssend");
	return NULL;
}

static void *mt_agree(void *arg)
{
	int flag = t_rank ? 3 : 6;

	(void)arg;
	MPI_OK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
	CHECK(flag == 2, "agreed %d, expected 2", flag);
	return NULL;
}

static void case_mtrevoke(void)
{
	static char big[BIG];
	pthread_t th[3];
	int i, flag = 6;

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &mt_comm));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	CHECK(!pthread_create(&th[0], NULL, mt_recv, NULL), "pthread_create");
	CHECK(!pthread_create(&th[1], NULL, mt_send, big), "pthread_create");
	if (t_rank == 0) {
		usleep(100000);
		MPI_OK(MPIX_Comm_revoke(mt_comm));
		MPI_OK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
		CHECK(flag == 2, "agreed %d, expected 2", flag);
		th[2] = th[1];
	} else {
		CHECK(!pthread_create(&th[2], NULL, mt_agree, NULL),
		      "pthread_create");
	}
	for (i = 0; i < (t_rank ? 3 : 2); i++)
		pthread_join(th[i], NULL);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Comm_free(&mt_comm));
}

/* ---- A death between a shrink's steps ------------------------------ */

static MPI_T_pvar_session ses;
static MPI_T_pvar_handle agreed_h, retried_h;
static char mark_dir[64];
static unsigned long long agreed0;

static unsigned long long ctr(MPI_T_pvar_handle h)
{
	return t_ctr(ses, h);
}

static MPI_T_pvar_handle ctr_open(const char *name)
{
	return t_ctr_open(ses, name);
}

static void mark_path(char *p, size_t len, int r)
{
	snprintf(p, len, "%s/%d", mark_dir, r);
}

/* A survivor: its shrink's first agreement is decided. */
static void mark(void)
{
	char p[96];
	FILE *f;

	mark_path(p, sizeof(p), t_rank);
	f = fopen(p, "w");
	CHECK(f && !fclose(f), "cannot make %s", p);
}

/* The victim: once every survivor's first agreement is decided, die. */
static void die_when_marked(void)
{
	char p[96];
	int r = 0;

	while (r < t_size - 1) {
		mark_path(p, sizeof(p), r);
		if (access(p, F_OK))
			usleep(1000);
		else
			r++;
	}
	raise(SIGKILL);
}

static void *watch_agreed(void *arg)
{
	(void)arg;
	while (ctr(agreed_h) == agreed0)
		usleep(1000);
	mark();
	return NULL;
}

static void case_restart(int blocking)
{
	MPI_Comm s = MPI_COMM_NULL;
	MPI_Request req;
	pthread_t th;
	unsigned long long retried0;
	int provided, done = 0, marked = 0, n, r;

	MPI_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
	MPI_OK(MPI_T_pvar_session_create(&ses));
	agreed_h = ctr_open("mpichan_ulfm_agreements");
	retried_h = ctr_open("mpichan_ulfm_shrink_retries");
	if (t_rank == 0) {
		snprintf(mark_dir, sizeof(mark_dir), "/tmp/ulfm-restart.XXXXXX");
		CHECK(mkdtemp(mark_dir), "mkdtemp");
	}
	MPI_OK(MPI_Bcast(mark_dir, sizeof(mark_dir), MPI_CHAR, 0,
			 MPI_COMM_WORLD));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	agreed0 = ctr(agreed_h);
	retried0 = ctr(retried_h);
	if (t_rank == victim) {
		MPI_OK(MPIX_Comm_ishrink(MPI_COMM_WORLD, &s, &req));
		die_when_marked();
	}
	if (blocking) {
		CHECK(!pthread_create(&th, NULL, watch_agreed, NULL),
		      "pthread_create");
		MPI_OK(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
		pthread_join(th, NULL);
	} else {
		MPI_OK(MPIX_Comm_ishrink(MPI_COMM_WORLD, &s, &req));
		while (!done) {
			MPI_OK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
			if (!marked && ctr(agreed_h) > agreed0) {
				mark();
				marked = 1;
			}
		}
		CHECK(marked, "the shrink ended before the victim died");
	}
	CHECK(ctr(retried_h) == retried0 + 1,
	      "%llu shrink rounds begun again, expected 1",
	      ctr(retried_h) - retried0);
	MPI_OK(MPI_Comm_size(s, &n));
	MPI_OK(MPI_Comm_rank(s, &r));
	CHECK(n == t_size - 1 && r == t_rank, "shrunk: rank %d of %d", r, n);
	CHECK(allreduce_ok(s, (t_size - 1) * (t_size - 2) / 2),
	      "allreduce on the shrunk comm");
	MPI_OK(MPI_Barrier(s));
	if (t_rank == 0) {
		char p[96];

		for (r = 0; r < n; r++) {
			mark_path(p, sizeof(p), r);
			unlink(p);
		}
		rmdir(mark_dir);
	}
	MPI_OK(MPI_Comm_free(&s));
	MPI_OK(MPI_T_pvar_handle_free(ses, &agreed_h));
	MPI_OK(MPI_T_pvar_handle_free(ses, &retried_h));
	MPI_OK(MPI_T_pvar_session_free(&ses));
	MPI_OK(MPI_T_finalize());
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "mtrevoke") || !strcmp(c, "brestart"))
		t_init_multiple(&argc, &argv);
	else
		t_init(&argc, &argv);
	victim = t_size - 1;
	if (t_size < 3 && strcmp(c, "revsend") && strcmp(c, "mtrevoke")) {
		if (t_rank == 0)
			printf("ulfm: needs 3 ranks or more\n");
		return t_done();
	}
	if (!strcmp(c, "revoke"))
		case_revoke();
	else if (!strcmp(c, "agree"))
		case_agree();
	else if (!strcmp(c, "shrink"))
		case_shrink();
	else if (!strcmp(c, "pending"))
		case_pending();
	else if (!strcmp(c, "exit3"))
		case_exit3();
	else if (!strcmp(c, "abort"))
		case_abort();
	else if (!strcmp(c, "revsend"))
		case_revsend();
	else if (!strcmp(c, "mtrevoke"))
		case_mtrevoke();
	else if (!strcmp(c, "restart"))
		case_restart(0);
	else if (!strcmp(c, "brestart"))
		case_restart(1);
	else
		CHECK(0, "no case '%s'", c);
	printf("ulfm: rank %d ok\n", t_rank);
	fflush(stdout);
	MPI_Finalize();
	return !strcmp(c, "exit3") && t_rank == 0 ? 3 : 0;
}
