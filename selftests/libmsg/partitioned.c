// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan
/*
 * Partitioned communication (libmsg/src/partitioned.c), between rank
 * pairs (r, r ^ 1):
 *   - 4 partitions sent, received as 8 (the totals agree), three rounds
 *     of new data, partitions marked by Pready, Pready_range and
 *     Pready_list in other orders; small (eager) and 1 MiB (rendezvous);
 *   - a partition arrives when the send partitions holding its bytes are
 *     ready: Parrived says true for the first receive partition and
 *     false for the second while the sender holds its last one back;
 *   - a partitioned message is not taken by a receive or a probe of
 *     MPI_ANY_TAG, though it came first, and its receive's status has
 *     the user's tag;
 *   - at MPI_THREAD_MULTIPLE, four threads each fill their partition
 *     and mark it ready, five rounds (also under ThreadSanitizer);
 *   - refusals: Pready of an inactive request, of a partition out of
 *     range or marked already, a bad range, a list with a repeat (which
 *     marks nothing); wildcards in Precv_init; a negative partition
 *     count; freeing a send not yet sent; cancel; Parrived of a send or
 *     of a receive not started; a tag above MPI_TAG_UB;
 *   - a receive of 0 partitions: against a send of 0 bytes both
 *     complete; against a send of some bytes the send completes with
 *     MPI_ERR_TRUNCATE (the bytes have nowhere to go) rather than losing
 *     them without a word.
 */
#include "test.h"

#include <pthread.h>
#include <time.h>

#define NBIG	(1 << 18)	/* ints: 1 MiB */

static int buf[NBIG], got[NBIG];

static void fill_round(int n, int round)
{
	int i;

	for (i = 0; i < n; i++)
		buf[i] = round * 1000003 + i;
}

static void check_round(int n, int round)
{
	int i;

	for (i = 0; i < n; i++)
		CHECK(got[i] == round * 1000003 + i, "round %d: [%d] = %d", round,
		      i, got[i]);
}

static void mark_all(MPI_Request s, int round)
{
	int list[2] = { 3, 1 };

	switch (round % 3) {
	case 0:
		MPI_OK(MPI_Pready(3, s));
		MPI_OK(MPI_Pready(0, s));
		MPI_OK(MPI_Pready(2, s));
		MPI_OK(MPI_Pready(1, s));
		break;
	case 1:
		MPI_OK(MPI_Pready_range(0, 3, s));
		break;
	default:
		MPI_OK(MPI_Pready_list(2, list, s));
		MPI_OK(MPI_Pready_range(0, 0, s));
		MPI_OK(MPI_Pready(2, s));
		break;
	}
}

/* 4 partitions of n / 4 sent, 8 of n / 8 received, three rounds. */
static void rounds(int n, int p)
{
	MPI_Request s, r;
	MPI_Status st;
	int round, flag, i;

	if (t_rank < p) {
		MPI_OK(MPI_Psend_init(buf, 4, n / 4, MPI_INT, p, 11,
				      MPI_COMM_WORLD, MPI_INFO_NULL, &s));
		for (round = 0; round < 3; round++) {
			MPI_OK(MPI_Start(&s));
			fill_round(n, round);
			mark_all(s, round);
			MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
		}
		MPI_OK(MPI_Request_free(&s));
		return;
	}
	MPI_OK(MPI_Precv_init(got, 8, n / 8, MPI_INT, p, 11, MPI_COMM_WORLD,
			      MPI_INFO_NULL, &r));
	for (round = 0; round < 3; round++) {
		memset(got, 0, sizeof(got));
		MPI_OK(MPI_Start(&r));
		for (i = 0; i < 8; i++) {
			do
				MPI_OK(MPI_Parrived(r, (i + round) % 8, &flag));
			while (!flag);
		}
		MPI_OK(MPI_Wait(&r, &st));
		for (i = 0; i < 8; i++) {
			MPI_OK(MPI_Parrived(r, i, &flag));
			CHECK(flag, "partition %d not arrived after Wait", i);
		}
		CHECK(st.MPI_SOURCE == p && st.MPI_TAG == 11,
		      "status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
		check_round(n, round);
	}
	MPI_OK(MPI_Request_free(&r));
}

/*
 * Sent as 4 partitions of 16, received as 2 of 32: while the sender
 * holds partition 3 back, receive partition 0 (send partitions 0 and 1)
 * arrives and partition 1 does not.
 */
static void held_back(int p)
{
	MPI_Request s, r;
	int flag = 1, i, go = 0;
	struct timespec nap = { 0, 20 * 1000 * 1000 };

	if (t_rank < p) {
		MPI_OK(MPI_Psend_init(buf, 4, 16, MPI_INT, p, 12,
				      MPI_COMM_WORLD, MPI_INFO_NULL, &s));
		MPI_OK(MPI_Start(&s));
		fill_round(64, 7);
		MPI_OK(MPI_Pready_range(0, 2, s));
		MPI_OK(MPI_Send(&go, 1, MPI_INT, p, 13, MPI_COMM_WORLD));
		MPI_OK(MPI_Recv(&go, 1, MPI_INT, p, 14, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		MPI_OK(MPI_Pready(3, s));
		MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
		MPI_OK(MPI_Request_free(&s));
		return;
	}
	MPI_OK(MPI_Precv_init(got, 2, 32, MPI_INT, p, 12, MPI_COMM_WORLD,
			      MPI_INFO_NULL, &r));
	MPI_OK(MPI_Start(&r));
	MPI_OK(MPI_Recv(&go, 1, MPI_INT, p, 13, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	do
		MPI_OK(MPI_Parrived(r, 0, &flag));
	while (!flag);
	for (i = 0; i < 5; i++) {
		nanosleep(&nap, NULL);
		MPI_OK(MPI_Parrived(r, 1, &flag));
		CHECK(!flag, "partition 1 arrived before send partition 3 was ready");
	}
	MPI_OK(MPI_Send(&go, 1, MPI_INT, p, 14, MPI_COMM_WORLD));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	check_round(64, 7);
	MPI_OK(MPI_Request_free(&r));
}

/* MPI_ANY_TAG passes a partitioned message by. */
static void apart(int p)
{
	MPI_Request s, r;
	MPI_Status st;
	int x = 5, y = -1, flag = 1;

	if (t_rank < p) {
		MPI_OK(MPI_Psend_init(buf, 1, 8, MPI_INT, p, 7, MPI_COMM_WORLD,
				      MPI_INFO_NULL, &s));
		MPI_OK(MPI_Start(&s));
		fill_round(8, 3);
		MPI_OK(MPI_Pready(0, s));
		MPI_OK(MPI_Send(&x, 1, MPI_INT, p, 7, MPI_COMM_WORLD));
		MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
		MPI_OK(MPI_Request_free(&s));
		return;
	}
	MPI_OK(MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
			MPI_COMM_WORLD, &st));
	CHECK(y == 5 && st.MPI_TAG == 7, "ANY_TAG took %d (tag %d)", y,
	      st.MPI_TAG);
	MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
			  MPI_STATUS_IGNORE));
	CHECK(!flag, "a probe of MPI_ANY_TAG saw the partitioned message");
	MPI_OK(MPI_Precv_init(got, 1, 8, MPI_INT, p, 7, MPI_COMM_WORLD,
			      MPI_INFO_NULL, &r));
	MPI_OK(MPI_Start(&r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	check_round(8, 3);
	MPI_OK(MPI_Request_free(&r));
}

/* Zero receive partitions: an empty message, then one with nowhere to go. */
static void nowhere(int p)
{
	MPI_Request r;
	MPI_Status st;
	int err, cls, n = -1;

	if (t_rank < p) {
		MPI_OK(MPI_Psend_init(buf, 2, 0, MPI_INT, p, 8, MPI_COMM_WORLD,
				      MPI_INFO_NULL, &r));
		MPI_OK(MPI_Start(&r));
		MPI_OK(MPI_Pready_range(0, 1, r));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		MPI_OK(MPI_Request_free(&r));
		MPI_OK(MPI_Psend_init(buf, 2, 4, MPI_INT, p, 9, MPI_COMM_WORLD,
				      MPI_INFO_NULL, &r));
		MPI_OK(MPI_Start(&r));
		MPI_OK(MPI_Pready_range(0, 1, r));
		err = MPI_Wait(&r, &st);
		MPI_OK(MPI_Error_class(err, &cls));
		CHECK(cls == MPI_ERR_TRUNCATE,
		      "8 ints sent to 0 partitions: class %d, not MPI_ERR_TRUNCATE",
		      cls);
		MPI_OK(MPI_Request_free(&r));
		return;
	}
	MPI_OK(MPI_Precv_init(got, 0, 4, MPI_INT, p, 8, MPI_COMM_WORLD,
			      MPI_INFO_NULL, &r));
	MPI_OK(MPI_Start(&r));
	MPI_OK(MPI_Wait(&r, &st));
	MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
	CHECK(n == 0, "0 partitions received %d ints", n);
	MPI_OK(MPI_Request_free(&r));
	MPI_OK(MPI_Precv_init(got, 0, 4, MPI_INT, p, 9, MPI_COMM_WORLD,
			      MPI_INFO_NULL, &r));
	MPI_OK(MPI_Start(&r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Request_free(&r));
}

struct filler {
	MPI_Request s;
	int part, round;
};

static void *fill_one(void *arg)
{
	struct filler *f = arg;
	int i, n = NBIG / 4;

	for (i = f->part * n; i < (f->part + 1) * n; i++)
		buf[i] = f->round * 1000003 + i;
	MPI_OK(MPI_Pready(f->part, f->s));
	return NULL;
}

/* Each partition filled and marked ready by a thread of its own. */
static void threaded(int p)
{
	struct filler f[4];
	pthread_t th[4];
	MPI_Request s, r;
	int round, i;

	if (t_rank > p) {
		MPI_OK(MPI_Precv_init(got, 1, NBIG, MPI_INT, p, 15,
				      MPI_COMM_WORLD, MPI_INFO_NULL, &r));
		for (round = 0; round < 5; round++) {
			MPI_OK(MPI_Start(&r));
			MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
			check_round(NBIG, round);
		}
		MPI_OK(MPI_Request_free(&r));
		return;
	}
	MPI_OK(MPI_Psend_init(buf, 4, NBIG / 4, MPI_INT, p, 15,
			      MPI_COMM_WORLD, MPI_INFO_NULL, &s));
	for (round = 0; round < 5; round++) {
		MPI_OK(MPI_Start(&s));
		for (i = 0; i < 4; i++) {
			f[i] = (struct filler){ s, i, round };
			CHECK(!pthread_create(&th[i], NULL, fill_one, &f[i]),
			      "pthread_create");
		}
		for (i = 0; i < 4; i++)
			CHECK(!pthread_join(th[i], NULL), "pthread_join");
		MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
	}
	MPI_OK(MPI_Request_free(&s));
}

static void refusals(void)
{
	MPI_Request s, r, q = MPI_REQUEST_NULL;
	int list[3] = { 0, 2, 0 }, flag, *ub, ok;

	MPI_OK(MPI_Psend_init(buf, 4, 2, MPI_INT, 0, 20, MPI_COMM_SELF,
			      MPI_INFO_NULL, &s));
	MPI_OK(MPI_Precv_init(got, 2, 4, MPI_INT, 0, 20, MPI_COMM_SELF,
			      MPI_INFO_NULL, &r));
	T_EXPECT(MPI_Pready(0, s), MPI_ERR_REQUEST, "Pready before Start");
	T_EXPECT(MPI_Parrived(r, 0, &flag), MPI_ERR_REQUEST,
		 "Parrived before Start");
	MPI_OK(MPI_Start(&s));
	MPI_OK(MPI_Start(&r));
	T_EXPECT(MPI_Pready(4, s), MPI_ERR_ARG, "partition 4 of 4");
	T_EXPECT(MPI_Pready_range(2, 1, s), MPI_ERR_ARG, "range 2..1");
	T_EXPECT(MPI_Pready_list(3, list, s), MPI_ERR_ARG, "a repeat");
	MPI_OK(MPI_Pready(1, s));
	T_EXPECT(MPI_Pready(1, s), MPI_ERR_ARG, "partition 1 twice");
	T_EXPECT(MPI_Request_free(&s), MPI_ERR_REQUEST, "free before sent");
	T_EXPECT(MPI_Cancel(&s), MPI_ERR_REQUEST, "cancel");
	T_EXPECT(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST, "Parrived of a send");
	MPI_OK(MPI_Parrived(r, 1, &flag));
	CHECK(!flag, "arrived with partitions 0, 2, 3 not ready");
	/* The list that was refused marked nothing: these are free. */
	MPI_OK(MPI_Pready_list(2, list, s));
	MPI_OK(MPI_Pready(3, s));
	MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Parrived(r, 1, &flag));
	CHECK(flag, "not arrived after Wait");
	MPI_OK(MPI_Request_free(&s));
	MPI_OK(MPI_Request_free(&r));

	T_EXPECT(MPI_Precv_init(got, 1, 1, MPI_INT, MPI_ANY_SOURCE, 1,
				MPI_COMM_WORLD, MPI_INFO_NULL, &q),
		 MPI_ERR_RANK, "MPI_ANY_SOURCE");
	T_EXPECT(MPI_Precv_init(got, 1, 1, MPI_INT, 0, MPI_ANY_TAG,
				MPI_COMM_WORLD, MPI_INFO_NULL, &q),
		 MPI_ERR_TAG, "MPI_ANY_TAG");
	T_EXPECT(MPI_Psend_init(buf, -1, 1, MPI_INT, 0, 1, MPI_COMM_WORLD,
				MPI_INFO_NULL, &q), MPI_ERR_ARG,
		 "-1 partitions");
	T_EXPECT(MPI_Psend_init(buf, 1 << 16, 1 << 16, MPI_INT, 0, 1,
				MPI_COMM_WORLD, MPI_INFO_NULL, &q),
		 MPI_ERR_COUNT, "2^32 elements");
	MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &ok));
	CHECK(ok && *ub == MPI_TAG_UB_VALUE && *ub >= 32767, "MPI_TAG_UB");
	T_EXPECT(MPI_Send(buf, 1, MPI_INT, 0, MPI_TAG_UB_VALUE + 1,
			  MPI_COMM_WORLD), MPI_ERR_TAG, "a tag above MPI_TAG_UB");
}

int main(int argc, char **argv)
{
	int p;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &p);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	CHECK(p == MPI_THREAD_MULTIPLE, "thread level %d", p);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	refusals();
	p = t_partner();
	if (p != t_rank) {
		rounds(64, p);
		rounds(NBIG, p);
		held_back(p);
		apart(p);
		nowhere(p);
		threaded(p);
	}
	return t_done();
}
