// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan
/*
 * Matched probes at MPI_THREAD_MULTIPLE.  Each rank runs NS sender and
 * NS receiver threads; receiver k takes, on MPI_COMM_WORLD with its own
 * tag k, what sender k of the partner rank (rank ^ 1, or itself) sends
 * by MPI_Send, MPI_Isend or MPI_Sendrecv (one way per sender), 1 to
 * 65530 integers (eager and rendezvous).  Receivers take each message
 * with MPI_Mprobe and MPI_Mrecv, or MPI_Improbe and MPI_Imrecv
 * (completed by MPI_Wait or a loop of MPI_Test), in turn, and check the
 * probe's and the receive's status (source, tag, count; MPI_ERROR left
 * as it was, which MPI says calls completing one operation do not
 * write), that the message handle became MPI_MESSAGE_NULL, and every
 * integer.  Then all receivers take the senders' messages of one
 * communicator with wildcards at once: each message, whose header
 * names it, is taken once and whole.  Then MPI_PROC_NULL: MPI_Mprobe
 * and MPI_Improbe give MPI_MESSAGE_NO_PROC, whose receive is empty;
 * MPI_Improbe that finds nothing leaves flag 0 and the handle alone.
 */
#include <pthread.h>

#include "test.h"

#define NS	3		/* senders (and receivers) per rank */
#define ITERS	21
#define MAXN	65530		/* integers */
#define SENTINEL 7777		/* in MPI_ERROR, where no call may write */

static MPI_Comm shared;		/* phase 2: wildcards from every receiver */
static pthread_mutex_t got_lock = PTHREAD_MUTEX_INITIALIZER;
static int *got;		/* phase 2: times each message was taken */

static int count_of(int i, int k)
{
	static const int n[] = { 1, 7, 1000, 4090, 4097, 30000, MAXN };

	return n[(i + k) % 7];
}

/* Phase 2: a header of three integers, then the data. */
static int phase2_count(int i, int k)
{
	int n = count_of(i, k + 1);

	return n < 3 ? 3 : n;
}

static int value(int src, int k, int i, int j)
{
	return ((src * NS + k) * ITERS + i) * 131 + j;
}

/* Sender k's message of n integers to the partner, its way. */
static void send_one(int k, int *buf, int n, MPI_Comm comm, int tag, int peer)
{
	MPI_Request r;

	switch (k % 3) {
	case 0:
		MPI_OK(MPI_Send(buf, n, MPI_INT, peer, tag, comm));
		break;
	case 1:
		MPI_OK(MPI_Isend(buf, n, MPI_INT, peer, tag, comm, &r));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		break;
	default:
		MPI_OK(MPI_Sendrecv(buf, n, MPI_INT, peer, tag, NULL, 0, MPI_INT,
				    MPI_PROC_NULL, 0, comm, MPI_STATUS_IGNORE));
		break;
	}
}

static void sender(int k, int *buf)
{
	int i, j, n, p = t_partner();

	for (i = 0; i < ITERS; i++) {
		n = count_of(i, k);
		for (j = 0; j < n; j++)
			buf[j] = value(t_rank, k, i, j);
		send_one(k, buf, n, MPI_COMM_WORLD, k, p);
	}
	/* Phase 2: to the partner's receivers, all on one tag. */
	for (i = 0; i < ITERS; i++) {
		n = phase2_count(i, k);
		buf[0] = t_rank;
		buf[1] = k;
		buf[2] = i;
		for (j = 3; j < n; j++)
			buf[j] = value(t_rank, k, i, j);
		send_one(k, buf, n, shared, 5, p);
	}
}

/* Take one message from (src, tag) on comm, the i-th way. */
static int take(int i, int src, int tag, MPI_Comm comm, int *buf,
		MPI_Status *rst)
{
	MPI_Message msg = MPI_MESSAGE_NULL;
	MPI_Status pst;
	MPI_Request r;
	int n = -1, flag = 0, way = i % 3;

	pst.MPI_ERROR = SENTINEL;
	rst->MPI_ERROR = SENTINEL + 1;
	if (way == 0) {
		MPI_OK(MPI_Mprobe(src, tag, comm, &msg, &pst));
	} else {
		while (!flag) {
			CHECK(msg == MPI_MESSAGE_NULL,
			      "MPI_Improbe with flag 0 set the message");
			MPI_OK(MPI_Improbe(src, tag, comm, &flag, &msg, &pst));
		}
	}
	CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC,
	      "probe gave no message");
	CHECK(pst.MPI_ERROR == SENTINEL,
	      "the probe wrote MPI_ERROR (%d)", pst.MPI_ERROR);
	MPI_OK(MPI_Get_count(&pst, MPI_INT, &n));
	CHECK(n >= 1 && n <= MAXN, "probe says %d integers", n);
	if (way == 0) {
		MPI_OK(MPI_Mrecv(buf, n, MPI_INT, &msg, rst));
	} else {
		MPI_OK(MPI_Imrecv(buf, n, MPI_INT, &msg, &r));
		CHECK(msg == MPI_MESSAGE_NULL, "MPI_Imrecv left the message");
		if (way == 1) {
			MPI_OK(MPI_Wait(&r, rst));
		} else {
			for (flag = 0; !flag;)
				MPI_OK(MPI_Test(&r, &flag, rst));
		}
	}
	CHECK(msg == MPI_MESSAGE_NULL, "the receive left the message");
	CHECK(rst->MPI_ERROR == SENTINEL + 1,
	      "the receive (way %d) wrote MPI_ERROR (%d)", way, rst->MPI_ERROR);
	CHECK(rst->MPI_SOURCE == pst.MPI_SOURCE && rst->MPI_TAG == pst.MPI_TAG,
	      "probed %d/%d, received %d/%d", pst.MPI_SOURCE, pst.MPI_TAG,
	      rst->MPI_SOURCE, rst->MPI_TAG);
	return n;
}

static void receiver(int k, int *buf)
{
	int i, j, n, c, p = t_partner(), total = NS * ITERS;
	MPI_Message msg;
	MPI_Status st, st2;
	MPI_Request r;

	for (i = 0; i < ITERS; i++) {
		for (j = 0; j < MAXN; j++)
			buf[j] = -1;
		n = take(i, p, k, MPI_COMM_WORLD, buf, &st);
		MPI_OK(MPI_Get_count(&st, MPI_INT, &c));
		CHECK(st.MPI_SOURCE == p && st.MPI_TAG == k &&
		      n == count_of(i, k) && c == n,
		      "receiver %d, message %d: from %d tag %d, %d integers (%d)",
		      k, i, st.MPI_SOURCE, st.MPI_TAG, c, n);
		for (j = 0; j < n; j++)
			CHECK(buf[j] == value(p, k, i, j),
			      "receiver %d, message %d: integer %d is %d, not %d",
			      k, i, j, buf[j], value(p, k, i, j));
	}
	/* Phase 2: the receivers share NS * ITERS messages of `shared`. */
	for (i = 0; ; i++) {
		pthread_mutex_lock(&got_lock);
		c = got[total]++;	/* messages claimed so far */
		pthread_mutex_unlock(&got_lock);
		if (c >= total)
			break;
		n = take(i, MPI_ANY_SOURCE, MPI_ANY_TAG, shared, buf, &st);
		CHECK(n >= 3 && buf[0] == p && buf[1] >= 0 && buf[1] < NS &&
		      buf[2] >= 0 && buf[2] < ITERS &&
		      n == phase2_count(buf[2], buf[1]) && st.MPI_SOURCE == p &&
		      st.MPI_TAG == 5,
		      "receiver %d: %d integers from %d say %d/%d/%d", k, n,
		      st.MPI_SOURCE, buf[0], buf[1], buf[2]);
		for (j = 3; j < n; j++)
			CHECK(buf[j] == value(p, buf[1], buf[2], j),
			      "receiver %d: message %d/%d, integer %d is %d", k,
			      buf[1], buf[2], j, buf[j]);
		pthread_mutex_lock(&got_lock);
		got[buf[1] * ITERS + buf[2]]++;
		pthread_mutex_unlock(&got_lock);
	}
	/* Phase 3: MPI_PROC_NULL, and a probe that finds nothing. */
	msg = MPI_MESSAGE_NULL;
	st.MPI_ERROR = SENTINEL;
	MPI_OK(MPI_Mprobe(MPI_PROC_NULL, k, MPI_COMM_WORLD, &msg, &st));
	MPI_OK(MPI_Get_count(&st, MPI_INT, &c));
	CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL &&
	      st.MPI_TAG == MPI_ANY_TAG && c == 0 && st.MPI_ERROR == SENTINEL,
	      "Mprobe of MPI_PROC_NULL: source %d tag %d count %d error %d",
	      st.MPI_SOURCE, st.MPI_TAG, c, st.MPI_ERROR);
	st2.MPI_ERROR = SENTINEL;
	MPI_OK(MPI_Mrecv(buf, 1, MPI_INT, &msg, &st2));
	MPI_OK(MPI_Get_count(&st2, MPI_INT, &c));
	CHECK(msg == MPI_MESSAGE_NULL && st2.MPI_SOURCE == MPI_PROC_NULL &&
	      st2.MPI_TAG == MPI_ANY_TAG && c == 0 &&
	      st2.MPI_ERROR == SENTINEL,
	      "Mrecv of MPI_MESSAGE_NO_PROC: source %d tag %d count %d error %d",
	      st2.MPI_SOURCE, st2.MPI_TAG, c, st2.MPI_ERROR);
	c = 0;
	MPI_OK(MPI_Improbe(MPI_PROC_NULL, k, MPI_COMM_WORLD, &c, &msg, &st));
	CHECK(c == 1 && msg == MPI_MESSAGE_NO_PROC, "Improbe of MPI_PROC_NULL");
	MPI_OK(MPI_Imrecv(buf, 1, MPI_INT, &msg, &r));
	st2.MPI_ERROR = SENTINEL;
	MPI_OK(MPI_Wait(&r, &st2));
	CHECK(msg == MPI_MESSAGE_NULL && st2.MPI_SOURCE == MPI_PROC_NULL &&
	      st2.MPI_ERROR == SENTINEL, "Imrecv of MPI_MESSAGE_NO_PROC");
	c = 1;
	st.MPI_ERROR = SENTINEL;
	MPI_OK(MPI_Improbe(p, 1000 + k, MPI_COMM_WORLD, &c, &msg, &st));
	CHECK(c == 0 && msg == MPI_MESSAGE_NULL && st.MPI_ERROR == SENTINEL,
	      "Improbe that found nothing: flag %d", c);
}

static void *thread_main(void *arg)
{
	int t = (int)(intptr_t)arg;
	int *buf = malloc(MAXN * sizeof(int));

	CHECK(buf, "out of memory");
	if (t < NS)
		receiver(t, buf);
	else
		sender(t - NS, buf);
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2 * NS];
	int provided, t, i;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
	got = calloc(NS * ITERS + 1, sizeof(int));
	CHECK(got, "out of memory");
	for (t = 0; t < 2 * NS; t++)
		CHECK(!pthread_create(&th[t], NULL, thread_main,
				      (void *)(intptr_t)t), "pthread_create");
	for (t = 0; t < 2 * NS; t++)
		pthread_join(th[t], NULL);
	for (i = 0; i < NS * ITERS; i++)
		CHECK(got[i] == 1, "message %d/%d taken %d times", i / ITERS,
		      i % ITERS, got[i]);
	free(got);
	MPI_OK(MPI_Comm_free(&shared));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	return t_done();
}
