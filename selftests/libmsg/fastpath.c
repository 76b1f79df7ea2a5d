// SPDX-License-Identifier: MIT
/*
 * Blocking MPI_Send / MPI_Recv of small contiguous messages take a
 * short way when the library is quiet (libmsg/src/p2p_fast.c).  These
 * are the cases where it must step aside and leave the message to the
 * general path, each checked for what MPI promises:
 *
 *  - a ping-pong with changing sizes (0 included) and tags: data and
 *    status right;
 *  - a receive posted earlier (MPI_Irecv) matches first;
 *  - another communicator's message at the head of the ring;
 *  - a message with another tag at the head;
 *  - a message longer than the buffer: MPI_ERR_TRUNCATE, then on;
 *  - a small send behind sends queued for ring space keeps its place;
 *  - a dense derived type whose data starts past its lower bound;
 *  - a blocking receive while a nonblocking barrier still needs this
 *    rank's progress;
 *  - bad arguments: the general path's error classes.
 *
 * Pairs of ranks (t_partner); an odd last rank talks to itself.
 */
#include "test.h"

#define QUEUED		64
#define QUEUED_BYTES	16000

static int me, peer, low;

/*
 * The receiver waits until the sender's messages are surely in its
 * ring: the short way then finds them there (and must say no to the
 * ones that are not its).  Only timing; no check depends on it.
 */
static void settle(void)
{
	if (peer != me)
		usleep(20000);
}

static void pingpong(void)
{
	unsigned char sb[512], rb[512];
	MPI_Status st;
	int i, n, cnt;

	for (i = 0; i < 600; i++) {
		n = (i * 37) % (int)sizeof(sb);
		if (low || peer == me) {
			t_fill(sb, (size_t)n, (unsigned)i);
			MPI_OK(MPI_Send(sb, n, MPI_BYTE, peer, i % 100,
					MPI_COMM_WORLD));
		}
		if (!low || peer == me) {
			memset(rb, 0xee, sizeof(rb));
			MPI_OK(MPI_Recv(rb, (int)sizeof(rb), MPI_BYTE, peer,
					i % 2 ? i % 100 : MPI_ANY_TAG,
					MPI_COMM_WORLD, &st));
			MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
			CHECK(cnt == n && st.MPI_SOURCE == peer &&
			      st.MPI_TAG == i % 100, "message %d: count %d source %d tag %d",
			      i, cnt, st.MPI_SOURCE, st.MPI_TAG);
			CHECK(!t_bad(rb, (size_t)n, (unsigned)i) && rb[n] == 0xee,
			      "message %d: data", i);
			if (peer != me)
				MPI_OK(MPI_Send(rb, n, MPI_BYTE, peer, 999,
						MPI_COMM_WORLD));
		}
		if (low && peer != me) {
			MPI_OK(MPI_Recv(rb, (int)sizeof(rb), MPI_BYTE, peer, 999,
					MPI_COMM_WORLD, &st));
			CHECK(!t_bad(rb, (size_t)n, (unsigned)i), "echo %d", i);
		}
	}
}

static void posted_first(void)
{
	int a = 0, b = 0, va = 11, vb = 22;
	MPI_Request r;

	if (!low || peer == me)
		MPI_OK(MPI_Irecv(&a, 1, MPI_INT, peer, MPI_ANY_TAG,
				 MPI_COMM_WORLD, &r));
	if (low || peer == me) {
		MPI_OK(MPI_Send(&va, 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
		MPI_OK(MPI_Send(&vb, 1, MPI_INT, peer, 6, MPI_COMM_WORLD));
	}
	if (!low || peer == me) {
		settle();
		MPI_OK(MPI_Recv(&b, 1, MPI_INT, peer, MPI_ANY_TAG,
				MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK(a == 11 && b == 22, "posted receive got %d, blocking %d", a, b);
	}
}

static void other_comm_and_tag(void)
{
	int d = 1, w = 2, t7 = 7, t8 = 8, x = 0;
	MPI_Comm dup;

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	if (low || peer == me) {
		MPI_OK(MPI_Send(&d, 1, MPI_INT, peer, 1, dup));
		MPI_OK(MPI_Send(&w, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
		MPI_OK(MPI_Send(&t7, 1, MPI_INT, peer, 7, MPI_COMM_WORLD));
		MPI_OK(MPI_Send(&t8, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
	}
	if (!low || peer == me) {
		settle();
		MPI_OK(MPI_Recv(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		CHECK(x == 2, "world receive got %d (dup's message?)", x);
		MPI_OK(MPI_Recv(&x, 1, MPI_INT, peer, 1, dup, MPI_STATUS_IGNORE));
		CHECK(x == 1, "dup receive got %d", x);
		MPI_OK(MPI_Recv(&x, 1, MPI_INT, peer, 8, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		CHECK(x == 8, "tag 8 receive got %d", x);
		MPI_OK(MPI_Recv(&x, 1, MPI_INT, peer, 7, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		CHECK(x == 7, "tag 7 receive got %d", x);
	}
	MPI_OK(MPI_Comm_free(&dup));
}

static void truncated(void)
{
	unsigned char sb[16], rb[8];
	MPI_Status st;
	int cnt;

	t_fill(sb, sizeof(sb), 3);
	if (low || peer == me)
		MPI_OK(MPI_Send(sb, 16, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
	if (!low || peer == me) {
		settle();
		T_EXPECT(MPI_Recv(rb, 8, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &st),
			 MPI_ERR_TRUNCATE, "16 bytes into 8");
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == 8 && !t_bad(rb, 8, 3), "truncated: count %d", cnt);
	}
	/* And the pair goes on. */
	if (low || peer == me)
		MPI_OK(MPI_Send(sb, 4, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
	if (!low || peer == me) {
		MPI_OK(MPI_Recv(rb, 8, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &st));
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == 4 && !t_bad(rb, 4, 3), "after truncation: count %d", cnt);
	}
}

static void behind_queued(void)
{
	static unsigned char big[QUEUED][QUEUED_BYTES];
	MPI_Request r[QUEUED];
	int i, seq, last = QUEUED;

	if (low || peer == me) {
		for (i = 0; i < QUEUED; i++) {
			memcpy(big[i], &i, sizeof(i));
			MPI_OK(MPI_Isend(big[i], QUEUED_BYTES, MPI_BYTE, peer, 9,
					 MPI_COMM_WORLD, &r[i]));
		}
		MPI_OK(MPI_Send(&last, 1, MPI_INT, peer, 9, MPI_COMM_WORLD));
	}
	if (!low || peer == me) {
		settle();	/* the ring fills, the sends queue */
		for (i = 0; i <= QUEUED; i++) {
			static unsigned char rb[QUEUED_BYTES];

			MPI_OK(MPI_Recv(rb, QUEUED_BYTES, MPI_BYTE, peer, 9,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			memcpy(&seq, rb, sizeof(seq));
			CHECK(seq == i, "message %d arrived as number %d", seq, i);
		}
	}
	if (low || peer == me)
		MPI_OK(MPI_Waitall(QUEUED, r, MPI_STATUSES_IGNORE));
}

static void offset_type(void)
{
	int blen = 4, sb[6] = { -1, -1, 1, 2, 3, 4 }, rb[6], i;
	MPI_Aint disp = 2 * sizeof(int);
	MPI_Datatype t;

	MPI_OK(MPI_Type_create_hindexed(1, &blen, &disp, MPI_INT, &t));
	MPI_OK(MPI_Type_commit(&t));
	/* Derived to basic, then basic to derived. */
	if (low || peer == me)
		MPI_OK(MPI_Send(sb, 1, t, peer, 10, MPI_COMM_WORLD));
	if (!low || peer == me) {
		settle();
		MPI_OK(MPI_Recv(rb, 4, MPI_INT, peer, 10, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		CHECK(rb[0] == 1 && rb[3] == 4, "derived send: %d %d", rb[0], rb[3]);
	}
	if (low || peer == me)
		MPI_OK(MPI_Send(sb + 2, 4, MPI_INT, peer, 11, MPI_COMM_WORLD));
	if (!low || peer == me) {
		for (i = 0; i < 6; i++)
			rb[i] = -7;
		MPI_OK(MPI_Recv(rb, 1, t, peer, 11, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		CHECK(rb[0] == -7 && rb[1] == -7 && rb[2] == 1 && rb[5] == 4,
		      "derived receive: %d %d %d %d", rb[0], rb[1], rb[2], rb[5]);
	}
	MPI_OK(MPI_Type_free(&t));
}

static void during_ibarrier(void)
{
	MPI_Request r;
	int v = 42, x = 0;

	MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
	if (peer == me) {
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		return;
	}
	/* The sender's barrier needs the receiver, blocked in MPI_Recv. */
	if (low) {
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 12, MPI_COMM_WORLD));
	} else {
		MPI_OK(MPI_Recv(&x, 1, MPI_INT, peer, 12, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK(x == 42, "got %d", x);
	}
}

static void bad_arguments(void)
{
	int v = 0;

	T_EXPECT(MPI_Send(&v, -1, MPI_INT, peer, 0, MPI_COMM_WORLD),
		 MPI_ERR_COUNT, "negative count");
	T_EXPECT(MPI_Send(&v, 1, MPI_INT, t_size, 0, MPI_COMM_WORLD),
		 MPI_ERR_RANK, "rank out of range");
	T_EXPECT(MPI_Send(&v, 1, MPI_INT, peer, -3, MPI_COMM_WORLD),
		 MPI_ERR_TAG, "negative tag");
	T_EXPECT(MPI_Send(NULL, 1, MPI_INT, peer, 0, MPI_COMM_WORLD),
		 MPI_ERR_BUFFER, "NULL buffer");
	T_EXPECT(MPI_Send(&v, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD),
		 MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
	T_EXPECT(MPI_Recv(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD,
			  MPI_STATUS_IGNORE), MPI_ERR_RANK, "source -5");
	T_EXPECT(MPI_Recv(&v, 1, MPI_INT, peer, -7, MPI_COMM_WORLD,
			  MPI_STATUS_IGNORE), MPI_ERR_TAG, "tag -7");
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	me = t_rank;
	peer = t_partner();
	low = me < peer;
	pingpong();
	posted_first();
	other_comm_and_tag();
	truncated();
	behind_queued();
	offset_type();
	during_ibarrier();
	bad_arguments();
	t_barrier();
	return t_done();
}
