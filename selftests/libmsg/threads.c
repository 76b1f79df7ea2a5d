// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan
/*
 * MPI_THREAD_MULTIPLE: four threads per rank call the library at once.
 * Thread t exchanges messages with thread t of every rank (itself
 * included) on MPI_COMM_WORLD, told apart by tag; then on a
 * communicator of its own (a duplicate it makes itself, while the
 * other threads make theirs) it receives with MPI_ANY_SOURCE and
 * MPI_ANY_TAG; then all threads take messages of one shared
 * communicator with MPI_Mprobe/MPI_Mrecv at once; then each runs a
 * collective on its own communicator.  Sizes mix eager and rendezvous;
 * every payload is checked.
 */
#include <pthread.h>

#include "test.h"

#define NT	4		/* threads per rank */
#define ITERS	12
#define MAXLEN	(96 * 1024)

static MPI_Comm base[NT];	/* per thread, made by the main thread */
static MPI_Comm shared;		/* Mprobe'd by every thread */
static pthread_mutex_t got_lock = PTHREAD_MUTEX_INITIALIZER;
static int *got;		/* shared: messages taken per source */

/* Eager and rendezvous sizes, by message number. */
static int len_of(int i, int src, int t)
{
	static const int lens[] = { 0, 8, 1000, 20000, 70000, MAXLEN };

	return lens[(i + src + t) % 6];
}

static unsigned seed_of(int src, int dst, int t, int i)
{
	return (unsigned)(((src * 64 + dst) * NT + t) * 1000 + i);
}

/* Phase 1: tag = thread, on MPI_COMM_WORLD, with every rank. */
static void world_exchange(int t, unsigned char *sb, unsigned char *rb)
{
	MPI_Request *rq = malloc(2 * (size_t)t_size * sizeof(*rq));
	MPI_Status st;
	int i, p, n;

	CHECK(rq, "out of memory");
	for (i = 0; i < ITERS; i++) {
		for (p = 0; p < t_size; p++)
			MPI_OK(MPI_Irecv(rb + (size_t)p * MAXLEN, MAXLEN, MPI_BYTE,
					 p, t, MPI_COMM_WORLD, &rq[p]));
		for (p = 0; p < t_size; p++) {
			n = len_of(i, t_rank, t);
			t_fill(sb + (size_t)p * MAXLEN, (size_t)n,
			       seed_of(t_rank, p, t, i));
			MPI_OK(MPI_Isend(sb + (size_t)p * MAXLEN, n, MPI_BYTE, p,
					 t, MPI_COMM_WORLD, &rq[t_size + p]));
		}
		for (p = 0; p < t_size; p++) {
			MPI_OK(MPI_Wait(&rq[p], &st));
			MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
			CHECK(st.MPI_SOURCE == p && st.MPI_TAG == t &&
			      n == len_of(i, p, t),
			      "thread %d: from %d tag %d len %d", t,
			      st.MPI_SOURCE, st.MPI_TAG, n);
			CHECK(!t_bad(rb + (size_t)p * MAXLEN, (size_t)n,
				     seed_of(p, t_rank, t, i)),
			      "thread %d: payload from %d, message %d", t, p, i);
		}
		MPI_OK(MPI_Waitall(t_size, rq + t_size, MPI_STATUSES_IGNORE));
	}
	free(rq);
}

/* Phase 2: wildcards on the thread's own communicator. */
static void wild_exchange(int t, MPI_Comm c, unsigned char *sb,
			  unsigned char *rb)
{
	MPI_Request *rq = malloc(2 * (size_t)t_size * sizeof(*rq));
	MPI_Status *sts = malloc((size_t)t_size * sizeof(*sts));
	int *seen = calloc((size_t)t_size, sizeof(int));
	int i, p, n, src;

	CHECK(rq && sts && seen, "out of memory");
	for (i = 0; i < ITERS; i++) {
		for (p = 0; p < t_size; p++)
			MPI_OK(MPI_Irecv(rb + (size_t)p * MAXLEN, MAXLEN, MPI_BYTE,
					 MPI_ANY_SOURCE, MPI_ANY_TAG, c, &rq[p]));
		for (p = 0; p < t_size; p++) {
			n = len_of(i + 3, t_rank, t);
			t_fill(sb + (size_t)p * MAXLEN, (size_t)n,
			       seed_of(t_rank, p, t, 100 + i));
			MPI_OK(MPI_Isend(sb + (size_t)p * MAXLEN, n, MPI_BYTE, p,
					 1000 + i, c, &rq[t_size + p]));
		}
		MPI_OK(MPI_Waitall(t_size, rq, sts));
		memset(seen, 0, (size_t)t_size * sizeof(int));
		for (p = 0; p < t_size; p++) {
			src = sts[p].MPI_SOURCE;
			CHECK(src >= 0 && src < t_size && !seen[src] &&
			      sts[p].MPI_TAG == 1000 + i,
			      "thread %d: wildcard got source %d tag %d", t, src,
			      sts[p].MPI_TAG);
			seen[src] = 1;
			MPI_OK(MPI_Get_count(&sts[p], MPI_BYTE, &n));
			CHECK(n == len_of(i + 3, src, t) &&
			      !t_bad(rb + (size_t)p * MAXLEN, (size_t)n,
				     seed_of(src, t_rank, t, 100 + i)),
			      "thread %d: wildcard payload from %d (len %d)", t,
			      src, n);
		}
		MPI_OK(MPI_Waitall(t_size, rq + t_size, MPI_STATUSES_IGNORE));
		/* No rank's next round may meet this round's wildcards. */
		MPI_OK(MPI_Barrier(c));
	}
	free(seen);
	free(sts);
	free(rq);
}

/*
 * Phase 3: every rank sends ITERS messages to every rank on `shared`
 * from each thread; the threads of the receiver take them as they come
 * with MPI_Mprobe and MPI_Mrecv (a probe then a receive could take a
 * message another thread probed).  The header says who sent it.
 */
static void mprobe_exchange(int t, unsigned char *sb, unsigned char *rb)
{
	MPI_Request *rq = malloc((size_t)t_size * ITERS * sizeof(*rq));
	MPI_Message msg;
	MPI_Status st;
	int i, p, n, k, hdr[3];
	unsigned char *s;

	CHECK(rq, "out of memory");
	for (i = 0, k = 0; i < ITERS; i++) {
		for (p = 0; p < t_size; p++, k++) {
			n = len_of(i + 1, p, t) + (int)sizeof(hdr);
			s = sb + (size_t)k * (MAXLEN + sizeof(hdr));
			hdr[0] = t_rank;
			hdr[1] = t;
			hdr[2] = i;
			memcpy(s, hdr, sizeof(hdr));
			t_fill(s + sizeof(hdr), (size_t)n - sizeof(hdr),
			       seed_of(t_rank, p, t, 200 + i));
			MPI_OK(MPI_Isend(s, n, MPI_BYTE, p, 7, shared, &rq[k]));
		}
	}
	/* NT * ITERS * t_size messages arrive; each thread takes its share. */
	for (k = 0; k < ITERS * t_size; k++) {
		MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shared, &msg, &st));
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
		MPI_OK(MPI_Mrecv(rb, n, MPI_BYTE, &msg, &st));
		CHECK(msg == MPI_MESSAGE_NULL, "Mrecv left the message");
		memcpy(hdr, rb, sizeof(hdr));
		CHECK(hdr[0] == st.MPI_SOURCE && hdr[1] >= 0 && hdr[1] < NT &&
		      n == len_of(hdr[2] + 1, t_rank, hdr[1]) + (int)sizeof(hdr),
		      "thread %d: Mrecv from %d says %d/%d/%d, %d bytes", t,
		      st.MPI_SOURCE, hdr[0], hdr[1], hdr[2], n);
		CHECK(!t_bad(rb + sizeof(hdr), (size_t)n - sizeof(hdr),
			     seed_of(hdr[0], t_rank, hdr[1], 200 + hdr[2])),
		      "thread %d: Mrecv payload from %d", t, hdr[0]);
		pthread_mutex_lock(&got_lock);
		got[hdr[0] * NT * ITERS + hdr[1] * ITERS + hdr[2]]++;
		pthread_mutex_unlock(&got_lock);
	}
	MPI_OK(MPI_Waitall(ITERS * t_size, rq, MPI_STATUSES_IGNORE));
	free(rq);
}

static void *thread_main(void *arg)
{
	int t = (int)(intptr_t)arg, sum, want, r;
	size_t slots = (size_t)t_size * ITERS + (size_t)t_size;
	unsigned char *sb = malloc(slots * (MAXLEN + 16));
	unsigned char *rb = malloc(((size_t)t_size + 1) * MAXLEN);
	MPI_Comm mine, again;

	CHECK(sb && rb, "out of memory");
	world_exchange(t, sb, rb);
	/* Duplicates made by all threads at once, on different parents. */
	MPI_OK(MPI_Comm_dup(base[t], &mine));
	wild_exchange(t, mine, sb, rb);
	MPI_OK(MPI_Comm_dup(mine, &again));
	mprobe_exchange(t, sb, rb);
	/* Collectives on distinct communicators at once. */
	MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, again));
	want = t_size * (t_size - 1) / 2;
	CHECK(sum == want, "thread %d: allreduce %d, want %d", t, sum, want);
	MPI_OK(MPI_Bcast(&r, 1, MPI_INT, 0, mine));
	MPI_OK(MPI_Barrier(again));
	MPI_OK(MPI_Comm_free(&again));
	MPI_OK(MPI_Comm_free(&mine));
	free(sb);
	free(rb);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NT];
	int provided, t, i, n;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	MPI_OK(MPI_Query_thread(&provided));
	CHECK(provided == MPI_THREAD_MULTIPLE, "Query_thread says %d", provided);
	for (t = 0; t < NT; t++)
		MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
	got = calloc((size_t)t_size * NT * ITERS, sizeof(int));
	CHECK(got, "out of memory");
	for (t = 0; t < NT; t++)
		CHECK(!pthread_create(&th[t], NULL, thread_main,
				      (void *)(intptr_t)t), "pthread_create");
	for (t = 0; t < NT; t++)
		pthread_join(th[t], NULL);
	/* Each message of `shared` was taken exactly once. */
	n = t_size * NT * ITERS;
	for (i = 0; i < n; i++)
		CHECK(got[i] == 1, "message %d/%d/%d taken %d times",
		      i / (NT * ITERS), i / ITERS % NT, i % ITERS, got[i]);
	free(got);
	for (t = 0; t < NT; t++)
		MPI_OK(MPI_Comm_free(&base[t]));
	MPI_OK(MPI_Comm_free(&shared));
	MPI_Finalize();
	return 0;
}
