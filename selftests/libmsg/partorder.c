// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan
/*
 * Partitioned communication as MPI-4.0 section 4.2 matches it: by the
 * order of initialization, and partition by partition.  Between rank
 * pairs (r, r ^ 1; the lower one sends), eager-sized and rendezvous-
 * sized partitions each:
 *   - order: two partitioned sends on one communicator and tag,
 *     started in the other order, the second one's partitions all
 *     marked before any of the first's, meet the receives initialized
 *     in the same order (started first to last), three rounds;
 *   - flow: 6 send partitions into 4 receive partitions marked in four
 *     steps by Pready_list, Pready_range and Pready; after each step
 *     every receive partition whose bytes are all ready arrives
 *     (Parrived) and no other does; three rounds, new data each; again
 *     with a vector type on both sides (packed as partitions are marked,
 *     unpacked as they arrive);
 *   - early: every partition marked before the receiver started, and
 *     before it even initialized its receive;
 *   - threads: at MPI_THREAD_MULTIPLE, two sends on one tag whose
 *     partitions four threads each fill and mark, received by two
 *     receives whose partitions four threads each wait for, five
 *     rounds (also under ThreadSanitizer).
 * Every rank also runs the order case with itself on MPI_COMM_SELF.
 * The waits for a partition that must arrive give up after 30 s (a
 * failure); nothing else reads a clock.
 */
#include "test.h"

#include <pthread.h>

#define BIG	(1 << 16)	/* ints a partition: rendezvous-sized */

static int sbuf[2][24 * BIG], rbuf[2][24 * BIG];

static int val(int which, int round, int i)
{
	return which * 100000007 + round * 1000003 + i;
}

static void await_arrived(MPI_Request r, int j, const char *what)
{
	double t0 = MPI_Wtime();
	int flag = 0;

	for (;;) {
		MPI_OK(MPI_Parrived(r, j, &flag));
		if (flag)
			return;
		CHECK(MPI_Wtime() - t0 < 30, "%s: partition %d never arrived",
		      what, j);
	}
}

static void check_ints(const int *got, int n, int which, int round,
		       const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		CHECK(got[i] == val(which, round, i),
		      "%s, round %d: [%d] = %d, expected %d (send %d)", what,
		      round, i, got[i], val(which, round, i), which);
}

/* ---- order ---------------------------------------------------------------- */

static void order_send(int n, int round, MPI_Request s[2])
{
	int w, i;

	for (w = 0; w < 2; w++)
		for (i = 0; i < 4 * n; i++)
			sbuf[w][i] = val(w, round, i);
	MPI_OK(MPI_Start(&s[1]));
	MPI_OK(MPI_Start(&s[0]));
	for (i = 3; i >= 0; i--)
		MPI_OK(MPI_Pready(i, s[1]));
	MPI_OK(MPI_Pready_range(0, 3, s[0]));
}

static void order(MPI_Comm comm, int peer, int sender, int receiver, int n)
{
	MPI_Request s[2], r[2];
	int round, w;

	if (sender)
		for (w = 0; w < 2; w++)
			MPI_OK(MPI_Psend_init(sbuf[w], 4, n, MPI_INT, peer, 21,
					      comm, MPI_INFO_NULL, &s[w]));
	if (receiver)
		for (w = 0; w < 2; w++)
			MPI_OK(MPI_Precv_init(rbuf[w], 2, 2 * n, MPI_INT, peer,
					      21, comm, MPI_INFO_NULL, &r[w]));
	for (round = 0; round < 3; round++) {
		if (receiver) {
			memset(rbuf, 0, sizeof(rbuf));
			MPI_OK(MPI_Startall(2, r));
		}
		if (sender)
			order_send(n, round, s);
		if (sender)
			MPI_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
		if (!receiver)
			continue;
		MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
		MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
		for (w = 0; w < 2; w++)
			check_ints(rbuf[w], 4 * n, w, round, "order");
	}
	for (w = 0; w < 2; w++) {
		if (sender)
			MPI_OK(MPI_Request_free(&s[w]));
		if (receiver)
			MPI_OK(MPI_Request_free(&r[w]));
	}
}

/* ---- flow ----------------------------------------------------------------- */

/*
 * Send partitions of 4 units, receive partitions of 6: receive partition
 * j holds units 6j..6j+5, fed by send partitions 6j/4 .. (6j+5)/4.
 */
static int complete(const int ready[6], int j)
{
	int i;

	for (i = 6 * j / 4; i <= (6 * j + 5) / 4; i++)
		if (!ready[i])
			return 0;
	return 1;
}

/* Step `step` of the marking: done on s (unless MPI_REQUEST_NULL). */
static void flow_mark(MPI_Request s, int step, int ready[6])
{
	static const int list[3] = { 5, 1, 3 };
	int i;

	switch (step) {
	case 0:
		if (s != MPI_REQUEST_NULL)
			MPI_OK(MPI_Pready_list(3, list, s));
		for (i = 0; i < 3; i++)
			ready[list[i]] = 1;
		break;
	case 1:
		if (s != MPI_REQUEST_NULL)
			MPI_OK(MPI_Pready_range(4, 4, s));
		ready[4] = 1;
		break;
	case 2:
		if (s != MPI_REQUEST_NULL)
			MPI_OK(MPI_Pready_range(0, 0, s));
		ready[0] = 1;
		break;
	default:
		if (s != MPI_REQUEST_NULL)
			MPI_OK(MPI_Pready(2, s));
		ready[2] = 1;
		break;
	}
}

/*
 * A unit: `unit` ints, contiguous, or (vec) every other int of 2 * unit
 * (a vector resized to that extent, so the message's int i lies at
 * 2 * i).  6 send partitions of 4 units, 4 receive partitions of 6.
 */
static void flow(int peer, int sender, int unit, int vec)
{
	MPI_Datatype t, v;
	MPI_Request q;
	int round, step, ready[6], j, i, flag, go = 0;
	int stride = vec ? 2 : 1, n = 24 * unit;

	if (vec) {
		MPI_OK(MPI_Type_vector(unit, 1, 2, MPI_INT, &v));
		MPI_OK(MPI_Type_create_resized(v, 0,
					       2 * unit * (MPI_Aint)sizeof(int),
					       &t));
		MPI_OK(MPI_Type_free(&v));
	} else {
		MPI_OK(MPI_Type_contiguous(unit, MPI_INT, &t));
	}
	MPI_OK(MPI_Type_commit(&t));
	if (sender)
		MPI_OK(MPI_Psend_init(sbuf[0], 6, 4, t, peer, 22,
				      MPI_COMM_WORLD, MPI_INFO_NULL, &q));
	else
		MPI_OK(MPI_Precv_init(rbuf[0], 4, 6, t, peer, 22,
				      MPI_COMM_WORLD, MPI_INFO_NULL, &q));
	MPI_OK(MPI_Type_free(&t));	/* the request holds it */
	for (round = 0; round < 3; round++) {
		memset(ready, 0, sizeof(ready));
		if (!sender) {
			for (i = 0; i < n * stride; i++)
				rbuf[0][i] = -1;
			MPI_OK(MPI_Start(&q));
		} else {
			for (i = 0; i < n; i++)
				sbuf[0][i * stride] = val(0, round, i);
			MPI_OK(MPI_Start(&q));
		}
		for (step = 0; step < 4; step++) {
			if (sender) {
				flow_mark(q, step, ready);
				MPI_OK(MPI_Send(&step, 1, MPI_INT, peer, 23,
						MPI_COMM_WORLD));
				MPI_OK(MPI_Recv(&go, 1, MPI_INT, peer, 24,
						MPI_COMM_WORLD,
						MPI_STATUS_IGNORE));
				continue;
			}
			MPI_OK(MPI_Recv(&go, 1, MPI_INT, peer, 23,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			/* What the sender marked, as it did. */
			flow_mark(MPI_REQUEST_NULL, step, ready);
			for (j = 0; j < 4; j++)
				if (complete(ready, j))
					await_arrived(q, j, "flow");
			for (j = 0; j < 4; j++) {
				MPI_OK(MPI_Parrived(q, j, &flag));
				CHECK(flag == complete(ready, j),
				      "flow, round %d step %d: partition %d %s",
				      round, step, j, flag ? "arrived early" :
				      "gone");
			}
			MPI_OK(MPI_Send(&step, 1, MPI_INT, peer, 24,
					MPI_COMM_WORLD));
		}
		MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
		if (sender)
			continue;
		for (i = 0; i < n; i++) {
			CHECK(rbuf[0][i * stride] == val(0, round, i),
			      "flow, round %d: [%d] = %d", round, i,
			      rbuf[0][i * stride]);
			if (vec)
				CHECK(rbuf[0][i * 2 + 1] == -1,
				      "flow: the vector's gap [%d] written",
				      i * 2 + 1);
		}
	}
	MPI_OK(MPI_Request_free(&q));
}

/* ---- early ---------------------------------------------------------------- */

/*
 * Every partition marked before the receiver started its receive
 * (late_init 0) or before it initialized it (1).
 */
static void early(int peer, int sender, int n, int late_init)
{
	MPI_Request q;
	int x = 0, list[4] = { 2, 0, 3, 1 }, i;

	if (sender) {
		for (i = 0; i < 4 * n; i++)
			sbuf[0][i] = val(0, late_init, i);
		MPI_OK(MPI_Psend_init(sbuf[0], 4, n, MPI_INT, peer, 25,
				      MPI_COMM_WORLD, MPI_INFO_NULL, &q));
		if (!late_init)
			MPI_OK(MPI_Recv(&x, 1, MPI_INT, peer, 26,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		MPI_OK(MPI_Start(&q));
		MPI_OK(MPI_Pready_list(4, list, q));
		MPI_OK(MPI_Send(&x, 1, MPI_INT, peer, 27, MPI_COMM_WORLD));
		MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
		MPI_OK(MPI_Request_free(&q));
		return;
	}
	memset(rbuf[0], 0, 4 * (size_t)n * sizeof(int));
	if (!late_init) {
		MPI_OK(MPI_Precv_init(rbuf[0], 1, 4 * n, MPI_INT, peer, 25,
				      MPI_COMM_WORLD, MPI_INFO_NULL, &q));
		MPI_OK(MPI_Send(&x, 1, MPI_INT, peer, 26, MPI_COMM_WORLD));
	}
	MPI_OK(MPI_Recv(&x, 1, MPI_INT, peer, 27, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	if (late_init)
		MPI_OK(MPI_Precv_init(rbuf[0], 1, 4 * n, MPI_INT, peer, 25,
				      MPI_COMM_WORLD, MPI_INFO_NULL, &q));
	MPI_OK(MPI_Start(&q));
	MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	check_ints(rbuf[0], 4 * n, 0, late_init, late_init ?
		   "marked before the receive was initialized" :
		   "marked before the receive started");
	MPI_OK(MPI_Request_free(&q));
}

/* ---- threads -------------------------------------------------------------- */

struct worker {
	MPI_Request *q;		/* two requests */
	int part, round, n, sender;
};

/* Fill and mark partition part of both sends, the second first. */
static void *worker(void *arg)
{
	struct worker *w = arg;
	int k, i;

	for (k = 1; k >= 0; k--) {
		if (w->sender) {
			for (i = w->part * w->n; i < (w->part + 1) * w->n; i++)
				sbuf[k][i] = val(k, w->round, i);
			MPI_OK(MPI_Pready(w->part, w->q[k]));
			continue;
		}
		await_arrived(w->q[k], w->part, "threads");
		for (i = w->part * w->n; i < (w->part + 1) * w->n; i++)
			CHECK(rbuf[k][i] == val(k, w->round, i),
			      "threads, round %d: receive %d [%d] = %d",
			      w->round, k, i, rbuf[k][i]);
	}
	return NULL;
}

static void threads(int peer, int sender, int n)
{
	struct worker w[4];
	pthread_t th[4];
	MPI_Request q[2];
	int round, k, i;

	for (k = 0; k < 2; k++) {
		if (sender)
			MPI_OK(MPI_Psend_init(sbuf[k], 4, n, MPI_INT, peer, 28,
					      MPI_COMM_WORLD, MPI_INFO_NULL,
					      &q[k]));
		else
			MPI_OK(MPI_Precv_init(rbuf[k], 4, n, MPI_INT, peer, 28,
					      MPI_COMM_WORLD, MPI_INFO_NULL,
					      &q[k]));
	}
	for (round = 0; round < 5; round++) {
		if (!sender)
			memset(rbuf, 0, sizeof(rbuf));
		MPI_OK(MPI_Startall(2, q));
		for (i = 0; i < 4; i++) {
			w[i] = (struct worker){ q, i, round, n, sender };
			CHECK(!pthread_create(&th[i], NULL, worker, &w[i]),
			      "pthread_create");
		}
		for (i = 0; i < 4; i++)
			CHECK(!pthread_join(th[i], NULL), "pthread_join");
		MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
		if (!sender)
			for (k = 0; k < 2; k++)
				check_ints(rbuf[k], 4 * n, k, round, "threads");
	}
	for (k = 0; k < 2; k++)
		MPI_OK(MPI_Request_free(&q[k]));
}

int main(int argc, char **argv)
{
	int p, sender, unit;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &p);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	CHECK(p == MPI_THREAD_MULTIPLE, "thread level %d", p);
	order(MPI_COMM_SELF, 0, 1, 1, 4);
	order(MPI_COMM_SELF, 0, 1, 1, BIG);
	p = t_partner();
	if (p != t_rank) {
		sender = t_rank < p;
		for (unit = 1; unit <= BIG / 2; unit *= BIG / 2) {
			order(MPI_COMM_WORLD, p, sender, !sender, 2 * unit);
			flow(p, sender, unit, 0);
			flow(p, sender, unit, 1);
			early(p, sender, 2 * unit, 0);
			early(p, sender, 2 * unit, 1);
			threads(p, sender, 2 * unit);
		}
	}
	return t_done();
}
