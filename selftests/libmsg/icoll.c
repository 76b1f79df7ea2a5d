// SPDX-License-Identifier: MIT
/*
 * Nonblocking collectives: every I variant started together with the
 * others and with point-to-point traffic on the same communicator
 * (same tags, wildcards), completed by MPI_Test alone, each result
 * equal to what the blocking call computes; collectives on
 * MPI_COMM_SELF in the middle; collectives on duplicated and split
 * communicators in flight together; and the argument errors of the
 * collective calls, with their classes.
 */
#include "test.h"

#define N 300		/* elements per block */
#define NREQ 17

static int pat(int who, int i)
{
	return who * 7919 + i * 3 + 5;
}

struct bufs {
	int bc[N], ga[N * 16], gv[N * 16], sc[N], sv[N], ag[N * 16];
	int agv[N * 16], a2a[N * 16], a2av[N * 16], a2aw[N * 16];
	long long red[N], ar[N], rs[N], rsb[N], scan[N], exscan[N];
};

/* Inputs shared by the blocking and nonblocking runs. */
static int in[N * 16], cnt[16], dsp[16], bdsp[16], one[16];
static long long lin[N * 16];
static MPI_Datatype types[16];

static void setup(void)
{
	int i, j;

	for (j = 0; j < t_size; j++) {
		for (i = 0; i < N; i++)
			in[j * N + i] = pat(t_rank * 31 + j, i);
		cnt[j] = (j % 3) * N / 3 + 1;
		dsp[j] = j * N;
		bdsp[j] = j * N * (int)sizeof(int);
		one[j] = N;
		types[j] = MPI_INT;
	}
	for (i = 0; i < N * t_size; i++)
		lin[i] = pat(t_rank, i);
}

/*
 * Start (nb) or run every collective into b.  Root 1 % size for the
 * rooted ones, so root and rank 0 differ when they can.
 */
static void run_all(struct bufs *b, MPI_Request *r, int nb)
{
	int root = 1 % t_size, i;

	memset(b, 0xff, sizeof(*b));
	for (i = 0; i < N; i++)
		b->bc[i] = t_rank == root ? pat(root, i) : -1;
#define GO(blocking, nonblocking) do {					\
		if (nb)							\
			MPI_OK(nonblocking);				\
		else							\
			MPI_OK(blocking);				\
	} while (0)
	GO(MPI_Bcast(b->bc, N, MPI_INT, root, MPI_COMM_WORLD),
	   MPI_Ibcast(b->bc, N, MPI_INT, root, MPI_COMM_WORLD, &r[0]));
	GO(MPI_Gather(in, N, MPI_INT, b->ga, N, MPI_INT, root, MPI_COMM_WORLD),
	   MPI_Igather(in, N, MPI_INT, b->ga, N, MPI_INT, root, MPI_COMM_WORLD,
		       &r[1]));
	GO(MPI_Gatherv(in, cnt[t_rank], MPI_INT, b->gv, cnt, dsp, MPI_INT, root,
		       MPI_COMM_WORLD),
	   MPI_Igatherv(in, cnt[t_rank], MPI_INT, b->gv, cnt, dsp, MPI_INT, root,
			MPI_COMM_WORLD, &r[2]));
	GO(MPI_Scatter(in, N, MPI_INT, b->sc, N, MPI_INT, root, MPI_COMM_WORLD),
	   MPI_Iscatter(in, N, MPI_INT, b->sc, N, MPI_INT, root, MPI_COMM_WORLD,
			&r[3]));
	GO(MPI_Scatterv(in, cnt, dsp, MPI_INT, b->sv, cnt[t_rank], MPI_INT, root,
			MPI_COMM_WORLD),
	   MPI_Iscatterv(in, cnt, dsp, MPI_INT, b->sv, cnt[t_rank], MPI_INT, root,
			 MPI_COMM_WORLD, &r[4]));
	GO(MPI_Allgather(in, N, MPI_INT, b->ag, N, MPI_INT, MPI_COMM_WORLD),
	   MPI_Iallgather(in, N, MPI_INT, b->ag, N, MPI_INT, MPI_COMM_WORLD,
			  &r[5]));
	GO(MPI_Allgatherv(in, cnt[t_rank], MPI_INT, b->agv, cnt, dsp, MPI_INT,
			  MPI_COMM_WORLD),
	   MPI_Iallgatherv(in, cnt[t_rank], MPI_INT, b->agv, cnt, dsp, MPI_INT,
			   MPI_COMM_WORLD, &r[6]));
	GO(MPI_Alltoall(in, N, MPI_INT, b->a2a, N, MPI_INT, MPI_COMM_WORLD),
	   MPI_Ialltoall(in, N, MPI_INT, b->a2a, N, MPI_INT, MPI_COMM_WORLD,
			 &r[7]));
	GO(MPI_Alltoallv(in, one, dsp, MPI_INT, b->a2av, one, dsp, MPI_INT,
			 MPI_COMM_WORLD),
	   MPI_Ialltoallv(in, one, dsp, MPI_INT, b->a2av, one, dsp, MPI_INT,
			  MPI_COMM_WORLD, &r[8]));
	GO(MPI_Alltoallw(in, one, bdsp, types, b->a2aw, one, bdsp, types,
			 MPI_COMM_WORLD),
	   MPI_Ialltoallw(in, one, bdsp, types, b->a2aw, one, bdsp, types,
			  MPI_COMM_WORLD, &r[9]));
	GO(MPI_Reduce(lin, b->red, N, MPI_LONG_LONG, MPI_SUM, root, MPI_COMM_WORLD),
	   MPI_Ireduce(lin, b->red, N, MPI_LONG_LONG, MPI_SUM, root,
		       MPI_COMM_WORLD, &r[10]));
	GO(MPI_Allreduce(lin, b->ar, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD),
	   MPI_Iallreduce(lin, b->ar, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
			  &r[11]));
	GO(MPI_Reduce_scatter(lin, b->rs, cnt, MPI_LONG_LONG, MPI_SUM,
			      MPI_COMM_WORLD),
	   MPI_Ireduce_scatter(lin, b->rs, cnt, MPI_LONG_LONG, MPI_SUM,
			       MPI_COMM_WORLD, &r[12]));
	GO(MPI_Reduce_scatter_block(lin, b->rsb, N / 4, MPI_LONG_LONG, MPI_MAX,
				    MPI_COMM_WORLD),
	   MPI_Ireduce_scatter_block(lin, b->rsb, N / 4, MPI_LONG_LONG, MPI_MAX,
				     MPI_COMM_WORLD, &r[13]));
	GO(MPI_Scan(lin, b->scan, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD),
	   MPI_Iscan(lin, b->scan, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
		     &r[14]));
	GO(MPI_Exscan(lin, b->exscan, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD),
	   MPI_Iexscan(lin, b->exscan, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
		       &r[15]));
	GO(MPI_Barrier(MPI_COMM_WORLD), MPI_Ibarrier(MPI_COMM_WORLD, &r[16]));
#undef GO
}

/* Point-to-point around the ring on WORLD while the collectives run. */
static void p2p_start(MPI_Request *r, int *sbuf, int *rbuf)
{
	int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size;
	int i;

	for (i = 0; i < 4; i++) {
		sbuf[i] = pat(t_rank, i);
		MPI_OK(MPI_Isend(&sbuf[i], 1, MPI_INT, next, i, MPI_COMM_WORLD,
				 &r[i]));
		MPI_OK(MPI_Irecv(&rbuf[i], 1, MPI_INT, i % 2 ? prev : MPI_ANY_SOURCE,
				 i % 3 ? i : MPI_ANY_TAG, MPI_COMM_WORLD, &r[4 + i]));
	}
}

static void overlap(void)
{
	static struct bufs want, got;
	MPI_Request r[NREQ], p[8], self;
	int done = 0, flag, sbuf[4], rbuf[4], i, prev, spins = 0;
	long long x = t_rank + 1, y = 0;

	setup();
	run_all(&want, NULL, 0);
	p2p_start(p, sbuf, rbuf);
	run_all(&got, r, 1);
	/* A collective on another communicator in the middle. */
	MPI_OK(MPI_Iallreduce(&x, &y, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_SELF,
			      &self));
	while (!done) {
		done = 1;
		for (i = 0; i < NREQ; i++) {
			MPI_OK(MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE));
			done &= flag;
		}
		MPI_OK(MPI_Testall(8, p, &flag, MPI_STATUSES_IGNORE));
		done &= flag;
		MPI_OK(MPI_Test(&self, &flag, MPI_STATUS_IGNORE));
		done &= flag;
		CHECK(++spins < 50000000, "collectives never completed under MPI_Test");
	}
	for (i = 0; i < NREQ; i++)
		CHECK(r[i] == MPI_REQUEST_NULL, "request %d not freed", i);
	CHECK(y == x, "Iallreduce on MPI_COMM_SELF: %lld", y);
	prev = (t_rank + t_size - 1) % t_size;
	for (i = 0; i < 4; i++)
		CHECK(rbuf[i] == pat(prev, i), "p2p message %d: %d", i, rbuf[i]);
	/* Rooted results are defined only at the root; compare all anyway. */
	CHECK(!memcmp(&want, &got, sizeof(want)),
	      "nonblocking results differ from blocking ones");
	/* And the blocking results are right (spot checks). */
	for (i = 0; i < N; i++) {
		CHECK(want.bc[i] == pat(1 % t_size, i), "bcast [%d]", i);
		CHECK(want.a2a[i] == pat(0 * 31 + t_rank, i), "alltoall [%d]", i);
	}
}

#define EXPECT(cls, call) do {						\
	int _e = (call), _c;						\
	MPI_Error_class(_e, &_c);					\
	CHECK(_c == (cls), "%s: class %d, want %d", #call, _c, (cls));	\
} while (0)

static void errors(void)
{
	int a[4] = { 0 }, b[64] = { 0 }, c4[16], d4[16], i;
	MPI_Request r;

	for (i = 0; i < 16; i++) {
		c4[i] = 1;
		d4[i] = i;
	}
	EXPECT(MPI_ERR_ROOT, MPI_Bcast(a, 1, MPI_INT, t_size, MPI_COMM_WORLD));
	EXPECT(MPI_ERR_ROOT, MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, -1,
					MPI_COMM_WORLD));
	EXPECT(MPI_ERR_COUNT, MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM,
					    MPI_COMM_WORLD));
	EXPECT(MPI_ERR_TYPE, MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM,
					   MPI_COMM_WORLD));
	EXPECT(MPI_ERR_OP, MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL,
					 MPI_COMM_WORLD));
	EXPECT(MPI_ERR_COMM, MPI_Barrier(MPI_COMM_NULL));
	EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(NULL, b, 1, MPI_INT, MPI_SUM,
					     MPI_COMM_WORLD));
	EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM,
					     MPI_COMM_WORLD));
	EXPECT(MPI_ERR_BUFFER, MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0,
					 MPI_COMM_WORLD));
	EXPECT(MPI_ERR_TRUNCATE, MPI_Allgather(a, 2, MPI_INT, b, 1, MPI_INT,
					       MPI_COMM_WORLD));
	EXPECT(MPI_ERR_REQUEST, MPI_Ibarrier(MPI_COMM_WORLD, NULL));
	EXPECT(MPI_ERR_ARG, MPI_Alltoallv(a, NULL, d4, MPI_INT, b, c4, d4,
					  MPI_INT, MPI_COMM_WORLD));
	EXPECT(MPI_ERR_COUNT, MPI_Reduce_scatter_block(a, b, -2, MPI_INT,
						       MPI_SUM, MPI_COMM_WORLD));
	/* MPI_IN_PLACE is for the root only (nobody is root here). */
	if (t_size > 1)
		EXPECT(MPI_ERR_BUFFER, MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1,
						  MPI_INT, (t_rank + 1) % t_size,
						  MPI_COMM_WORLD));
	/*
	 * A collective request cannot be cancelled, nor freed while active:
	 * rank 0's barrier cannot complete before the others start theirs,
	 * which they do only when rank 0 says so.
	 */
	if (t_rank == 0) {
		MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
		EXPECT(MPI_ERR_REQUEST, MPI_Cancel(&r));
		if (t_size > 1)
			EXPECT(MPI_ERR_REQUEST, MPI_Request_free(&r));
		for (i = 1; i < t_size; i++)
			MPI_OK(MPI_Send(NULL, 0, MPI_INT, i, 99, MPI_COMM_WORLD));
	} else {
		MPI_OK(MPI_Recv(NULL, 0, MPI_INT, 0, 99, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
	}
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	/* Sizes that differ between ranks: the receiver sees it. */
	if (t_size == 2) {
		int e = MPI_Bcast(a, t_rank ? 1 : 2, MPI_INT, 0, MPI_COMM_WORLD);

		if (t_rank == 1)
			EXPECT(MPI_ERR_TRUNCATE, e);
		else
			CHECK(e == MPI_SUCCESS, "root's bcast failed");
		/*
		 * Zero elements against one: a rank that gave 0 must not
		 * return without the exchange (others' libraries do, and the
		 * rank that gave 1 then waits for ever), so the rank that
		 * gave 1 is told.
		 */
		e = MPI_Bcast(a, t_rank, MPI_INT, 0, MPI_COMM_WORLD);
		if (t_rank == 1)
			EXPECT(MPI_ERR_TRUNCATE, e);
		e = MPI_Allreduce(a, b, t_rank, MPI_INT, MPI_SUM,
				  MPI_COMM_WORLD);
		if (t_rank == 1)
			EXPECT(MPI_ERR_TRUNCATE, e);
	}
	/* Everything still works after the errors. */
	a[0] = t_rank;
	MPI_OK(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(b[0] == t_size * (t_size - 1) / 2, "allreduce after errors: %d",
	      b[0]);
}

/* Sum written as a user op that does not claim to commute. */
static void usum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	long long *a = in, *b = inout;
	int i;

	(void)dt;
	for (i = 0; i < *len; i++)
		b[i] += a[i];
}

/* A user op freed while a reduction that uses it is still running. */
static void op_freed_early(void)
{
	long long x[64], y[64];
	MPI_Request r;
	MPI_Op op;
	int i;

	for (i = 0; i < 64; i++)
		x[i] = t_rank + i;
	MPI_OK(MPI_Op_create(usum, 0, &op));
	MPI_OK(MPI_Iallreduce(x, y, 64, MPI_LONG_LONG, op, MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Op_free(&op));
	CHECK(op == MPI_OP_NULL, "Op_free did not reset the handle");
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	for (i = 0; i < 64; i++)
		CHECK(y[i] == (long long)t_size * i + t_size * (t_size - 1) / 2,
		      "user-op allreduce [%d] = %lld", i, y[i]);
}

/*
 * Collectives on several communicators at once: two duplicates of
 * WORLD and an even/odd split, all in flight together with one on
 * WORLD, completed in reverse order of starting.
 */
static void many_comms(void)
{
	MPI_Comm d1, d2, half;
	MPI_Request r[5];
	long long x = t_rank + 1, y[5] = { 0 }, hsum = 0;
	int i, bc[64];

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d1));
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d2));
	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, -t_rank, &half));
	for (i = 0; i < 64; i++)
		bc[i] = t_rank == 0 ? i * 5 : -1;
	MPI_OK(MPI_Iallreduce(&x, &y[0], 1, MPI_LONG_LONG, MPI_SUM, d1, &r[0]));
	MPI_OK(MPI_Iallreduce(&x, &y[1], 1, MPI_LONG_LONG, MPI_MAX, d2, &r[1]));
	MPI_OK(MPI_Iallreduce(&x, &y[2], 1, MPI_LONG_LONG, MPI_SUM, half, &r[2]));
	MPI_OK(MPI_Iallreduce(&x, &y[3], 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD,
			      &r[3]));
	MPI_OK(MPI_Ibcast(bc, 64, MPI_INT, 0, d1, &r[4]));
	for (i = 4; i >= 0; i--)
		MPI_OK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
	for (i = t_rank % 2; i < t_size; i += 2)
		hsum += i + 1;
	CHECK(y[0] == (long long)t_size * (t_size + 1) / 2, "dup 1 sum %lld", y[0]);
	CHECK(y[1] == t_size, "dup 2 max %lld", y[1]);
	CHECK(y[2] == hsum, "split sum %lld, want %lld", y[2], hsum);
	CHECK(y[3] == 1, "world min %lld", y[3]);
	for (i = 0; i < 64; i++)
		CHECK(bc[i] == i * 5, "bcast on a dup [%d] = %d", i, bc[i]);
	MPI_OK(MPI_Comm_free(&half));
	MPI_OK(MPI_Comm_free(&d2));
	MPI_OK(MPI_Comm_free(&d1));
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	CHECK(t_size <= 16, "at most 16 ranks");
	overlap();
	op_freed_early();
	many_comms();
	errors();
	return t_done();
}
