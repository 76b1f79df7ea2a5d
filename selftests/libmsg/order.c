// SPDX-License-Identifier: MIT
/*
 * Non-overtaking across eager and rendezvous messages, with wildcards:
 * every rank (rank 0 too, to itself) sends a run of messages of mixed
 * sizes and tags to rank 0, which receives them with ANY_SOURCE and
 * ANY_TAG (and some with a given tag) and checks that each sender's
 * messages come in the order sent, with the right contents.
 */
#include "test.h"

#define NMSG 60
static const int sizes[] = { 0, 8, 1000, 70000, 3, 20000, 300000, 64, 16384,
			     16385, 1 << 20, 5 };
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static int msg_size(int i) { return sizes[i % NSIZES]; }

int main(int argc, char **argv)
{
	MPI_Request *reqs;
	MPI_Status st;
	unsigned char **bufs, *rbuf;
	int *next, i, src, n, round;

	t_init(&argc, &argv);
	rbuf = malloc(1 << 20);
	next = calloc((size_t)t_size, sizeof(int));
	for (round = 0; round < 2; round++) {
		/* Round 1: receives posted late; round 2: posted early. */
		MPI_Request *pre = NULL;
		unsigned char **prebuf = NULL;
		int npre = 0;

		if (t_rank == 0 && round == 1) {
			npre = t_size * NMSG / 2;
			pre = malloc(sizeof(*pre) * (size_t)npre);
			prebuf = malloc(sizeof(*prebuf) * (size_t)npre);
			for (i = 0; i < npre; i++) {
				prebuf[i] = malloc(1 << 20);
				MPI_OK(MPI_Irecv(prebuf[i], 1 << 20, MPI_BYTE,
						 MPI_ANY_SOURCE, MPI_ANY_TAG,
						 MPI_COMM_WORLD, &pre[i]));
			}
		}
		/* Senders start when rank 0 is ready (pre-posted or not). */
		if (t_rank == 0) {
			for (i = 1; i < t_size; i++)
				MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, i, 99, MPI_COMM_WORLD));
		} else {
			MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
		}
		reqs = malloc(sizeof(*reqs) * NMSG);
		bufs = malloc(sizeof(*bufs) * NMSG);
		for (i = 0; i < NMSG; i++) {
			n = msg_size(i + t_rank);
			bufs[i] = malloc((size_t)n + 1);
			t_fill(bufs[i], (size_t)n, (unsigned)(t_rank * 1000 + i));
			MPI_OK(MPI_Isend(bufs[i], n, MPI_BYTE, 0, i % 3,
					 MPI_COMM_WORLD, &reqs[i]));
		}
		if (t_rank == 0) {
			memset(next, 0, sizeof(int) * (size_t)t_size);
			for (i = 0; i < t_size * NMSG; i++) {
				unsigned char *b = i < npre ? prebuf[i] : rbuf;
				int cnt;

				if (i < npre) {
					MPI_OK(MPI_Wait(&pre[i], &st));
				} else if (i % 5 == 1) {
					/* A given tag: the first such message of any sender. */
					MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG,
							 MPI_COMM_WORLD, &st));
					MPI_OK(MPI_Recv(b, 1 << 20, MPI_BYTE,
							st.MPI_SOURCE, st.MPI_TAG,
							MPI_COMM_WORLD, &st));
				} else {
					MPI_OK(MPI_Recv(b, 1 << 20, MPI_BYTE,
							MPI_ANY_SOURCE, MPI_ANY_TAG,
							MPI_COMM_WORLD, &st));
				}
				src = st.MPI_SOURCE;
				CHECK(src >= 0 && src < t_size, "source %d", src);
				CHECK(st.MPI_TAG == next[src] % 3,
				      "from %d: tag %d, expected %d (message %d)",
				      src, st.MPI_TAG, next[src] % 3, next[src]);
				MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
				CHECK(cnt == msg_size(next[src] + src),
				      "from %d message %d: %d bytes, expected %d",
				      src, next[src], cnt, msg_size(next[src] + src));
				CHECK(!t_bad(b, (size_t)cnt,
					     (unsigned)(src * 1000 + next[src])),
				      "from %d message %d: wrong contents", src,
				      next[src]);
				next[src]++;
			}
			for (i = 0; i < npre; i++)
				free(prebuf[i]);
			free(pre);
			free(prebuf);
		}
		MPI_OK(MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
		for (i = 0; i < NMSG; i++)
			free(bufs[i]);
		free(bufs);
		free(reqs);
		t_barrier();
	}
	free(next);
	free(rbuf);
	return t_done();
}
