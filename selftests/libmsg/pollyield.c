// SPDX-License-Identifier: MIT
// libmsg-test: np=2,3,4,8 builds=plain,asan,tsan
/*
 * Polling calls give the CPU away when the job has more ranks than
 * CPUs (libmsg's rule: more ranks than online CPUs), as blocking calls
 * do, and cost nothing otherwise.
 *
 * This program defines sched_yield, which takes libmsg's calls (the
 * executable's symbol comes first, and the sanitizer builds link libmsg
 * statically), and counts the calls of each thread.  A poller rank
 * polls with each of MPI_Iprobe, MPI_Improbe, MPI_Test, MPI_Testany,
 * MPI_Testall, MPI_Testsome, MPI_Request_get_status and MPI_Parrived
 * for a message from every other rank, which each sends after it was
 * told to go (the poller's first poll comes before that, so it cannot
 * succeed) and then computed a while.  Every poll that comes back with
 * nothing must yield exactly once when the job is oversubscribed and
 * never when it is not; a poll that finds something never yields.  Rank
 * 0 polls first at MPI_THREAD_SINGLE, then rank 1 at
 * MPI_THREAD_MULTIPLE (each rank asks for its own level), where the
 * yield lets the library lock go.
 *
 * No clock is read: the counts judge.  The time each round took is
 * printed for reference.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/syscall.h>
#include "test.h"

#define WORK	300000	/* the senders' loop, a few ms */
#define TAG_GO	100

enum { IPROBE, IMPROBE, TEST, TESTANY, TESTALL, TESTSOME, GET_STATUS,
       PARRIVED, NCALLS };

static const char *const names[NCALLS] = {
	"MPI_Iprobe", "MPI_Improbe", "MPI_Test", "MPI_Testany", "MPI_Testall",
	"MPI_Testsome", "MPI_Request_get_status", "MPI_Parrived",
};

static __thread unsigned long yields;

int sched_yield(void)
{
	yields++;
	return (int)syscall(SYS_sched_yield);
}

static volatile double sink;

static void compute(int rank)
{
	double x = rank;
	int i;

	for (i = 0; i < WORK; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}

struct count {
	long misses, miss_yields, hits, hit_yields;
};

/* One poll: the call, then found says whether it found something. */
#define POLL(cnt, call, found) ({					\
	unsigned long y0_ = yields;					\
	int f_;								\
	MPI_OK(call);							\
	f_ = (found);							\
	if (f_) {							\
		(cnt)->hits++;						\
		(cnt)->hit_yields += (long)(yields - y0_);		\
	} else {							\
		(cnt)->misses++;					\
		(cnt)->miss_yields += (long)(yields - y0_);		\
	}								\
	f_;								\
})

static int value(int src, int call)
{
	return src * 100 + call;
}

static void go(int poller)
{
	int r;

	for (r = 0; r < t_size; r++)
		if (r != poller)
			MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, r, TAG_GO,
					MPI_COMM_WORLD));
}

static int iprobe(int call, struct count *c)
{
	MPI_Message m;
	MPI_Status st;
	int flag, v;

	if (call == IPROBE)
		flag = POLL(c, MPI_Iprobe(MPI_ANY_SOURCE, call, MPI_COMM_WORLD,
					  &flag, &st), flag);
	else
		flag = POLL(c, MPI_Improbe(MPI_ANY_SOURCE, call,
					   MPI_COMM_WORLD, &flag, &m, &st),
			    flag);
	if (!flag)
		return 0;
	if (call == IPROBE)
		MPI_OK(MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, call,
				MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	else
		MPI_OK(MPI_Mrecv(&v, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
	CHECK(v == value(st.MPI_SOURCE, call), "%s: %d from %d", names[call],
	      v, st.MPI_SOURCE);
	return 1;
}

/* Poll n requests with call until all are done; returns how many were. */
static int test_round(int call, MPI_Request *req, int n, struct count *c)
{
	int done = 0, flag, i, k, idx[16];

	switch (call) {
	case TEST:
		for (i = 0; i < n; i++)
			if (req[i] != MPI_REQUEST_NULL) {
				done += POLL(c, MPI_Test(&req[i], &flag,
							 MPI_STATUS_IGNORE),
					     flag);
			}
		break;
	case TESTANY:
		done += POLL(c, MPI_Testany(n, req, &i, &flag,
					    MPI_STATUS_IGNORE), flag);
		CHECK(!flag || i != MPI_UNDEFINED, "Testany: flag, no index");
		break;
	case TESTALL:
		if (POLL(c, MPI_Testall(n, req, &flag, MPI_STATUSES_IGNORE),
			 flag))
			done = n;
		break;
	case TESTSOME:
		if (POLL(c, MPI_Testsome(n, req, &k, idx,
					 MPI_STATUSES_IGNORE), k > 0))
			done += k;
		CHECK(k != MPI_UNDEFINED, "Testsome: nothing active");
		break;
	case GET_STATUS:
		for (i = 0; i < n; i++)
			if (req[i] != MPI_REQUEST_NULL) {
				if (POLL(c, MPI_Request_get_status(req[i], &flag,
						MPI_STATUS_IGNORE), flag)) {
					MPI_OK(MPI_Wait(&req[i],
							MPI_STATUS_IGNORE));
					done++;
				}
			}
		break;
	case PARRIVED:
		for (i = 0; i < n; i++)
			if (req[i] != MPI_REQUEST_NULL) {
				if (POLL(c, MPI_Parrived(req[i], 0, &flag),
					 flag)) {
					MPI_OK(MPI_Wait(&req[i],
							MPI_STATUS_IGNORE));
					MPI_OK(MPI_Request_free(&req[i]));
					done++;
				}
			}
		break;
	}
	return done;
}

static void poll_for(int poller, int call, struct count *c)
{
	int n = t_size - 1, got[16], i, k = 0, done = 0;
	MPI_Request req[16];

	for (i = 0; i < t_size; i++) {
		if (i == poller)
			continue;
		got[k] = -1;
		if (call == PARRIVED) {
			MPI_OK(MPI_Precv_init(&got[k], 1, 1, MPI_INT, i, call,
					      MPI_COMM_WORLD, MPI_INFO_NULL,
					      &req[k]));
			MPI_OK(MPI_Start(&req[k]));
		} else if (call != IPROBE && call != IMPROBE) {
			MPI_OK(MPI_Irecv(&got[k], 1, MPI_INT, i, call,
					 MPI_COMM_WORLD, &req[k]));
		}
		k++;
	}
	/* Nothing can have come: the senders wait for the go. */
	if (call == IPROBE || call == IMPROBE)
		CHECK(!iprobe(call, c), "%s: found a message before the go",
		      names[call]);
	else
		CHECK(!test_round(call, req, n, c),
		      "%s: a request done before the go", names[call]);
	go(poller);
	while (done < n) {
		if (call == IPROBE || call == IMPROBE)
			done += iprobe(call, c);
		else
			done += test_round(call, req, n, c);
	}
	if (call == IPROBE || call == IMPROBE)
		return;
	for (i = 0, k = 0; i < t_size; i++)
		if (i != poller) {
			CHECK(got[k] == value(i, call), "%s: %d from %d",
			      names[call], got[k], i);
			k++;
		}
}

static void send_to(int poller, int call)
{
	MPI_Request r;
	int v = value(t_rank, call);

	MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, poller, TAG_GO, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	compute(t_rank);
	if (call != PARRIVED) {
		MPI_OK(MPI_Send(&v, 1, MPI_INT, poller, call, MPI_COMM_WORLD));
		return;
	}
	MPI_OK(MPI_Psend_init(&v, 1, 1, MPI_INT, poller, call, MPI_COMM_WORLD,
			      MPI_INFO_NULL, &r));
	MPI_OK(MPI_Start(&r));
	MPI_OK(MPI_Pready(0, r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Request_free(&r));
}

static void rounds(int poller, int over)
{
	struct count c;
	double t0;
	int call;

	for (call = 0; call < NCALLS; call++) {
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		if (t_rank != poller) {
			send_to(poller, call);
			continue;
		}
		memset(&c, 0, sizeof(c));
		t0 = MPI_Wtime();
		poll_for(poller, call, &c);
		printf("rank %d, %s: %ld empty polls, %ld yields in them, %ld found, %.1f ms\n",
		       poller, names[call], c.misses, c.miss_yields, c.hits,
		       (MPI_Wtime() - t0) * 1e3);
		CHECK(c.misses > 0, "%s: no empty poll", names[call]);
		CHECK(c.miss_yields == (over ? c.misses : 0),
		      "%s, %s: %ld yields in %ld empty polls", names[call],
		      over ? "oversubscribed" : "not oversubscribed",
		      c.miss_yields, c.misses);
		CHECK(c.hit_yields == 0, "%s: %ld yields in polls that found",
		      names[call], c.hit_yields);
	}
}

int main(int argc, char **argv)
{
	const char *me = getenv("MPICHAN_RANK");
	int want = me && atoi(me) == 1 ? MPI_THREAD_MULTIPLE :
		MPI_THREAD_SINGLE, got, over;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	MPI_Init_thread(&argc, &argv, want, &got);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	if (t_size < 2 || t_size > 16)
		T_SKIP("needs 2 to 16 ranks");
	CHECK(t_rank != 1 || got == MPI_THREAD_MULTIPLE, "rank 1 got level %d",
	      got);
	over = ncpu > 0 && t_size > ncpu;
	if (t_rank == 0)
		printf("%d ranks, %ld CPUs: %s\n", t_size, ncpu,
		       over ? "oversubscribed" : "not oversubscribed");
	rounds(0, over);
	rounds(1, over);
	return t_done();
}
