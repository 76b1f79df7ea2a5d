// SPDX-License-Identifier: MIT
// libmsg-test: np=2 builds=plain modes=native
/*
 * Large counts for real (MPI-4.0 _c calls): more than 2^31 bytes as
 * more than INT_MAX elements, checked byte for byte:
 *   - MPI_Send_c to MPI_Recv_c, the receive's buffer larger than the
 *     message: MPI_Get_count_c and MPI_Get_elements_c give the true
 *     count, MPI_Get_count (an int) MPI_UNDEFINED;
 *   - MPI_Bcast_c from rank 1;
 *   - MPI_Allgatherv_c in place, rank 0's block N bytes and rank 1's 8
 *     (the counts in a unit of 8 bytes, their greatest common divisor);
 *   - MPI_Allreduce_c in place (MPI_BXOR on MPI_UNSIGNED_CHAR): every
 *     byte the XOR of both ranks';
 *   - the same with user ops: one of MPI_Op_create, whose function takes
 *     an int count (libmsg calls it on slices, none above INT_MAX, all
 *     N elements in all), and, persistent (MPI_Allreduce_init_c,
 *     started twice), one of MPI_Op_create_c;
 *   - MPI_Iallreduce_c with a small MPI_Ibcast started beside it, and
 *     MPI_Ireduce_c to rank 0;
 *   - in place, MPI_Reduce_scatter with int blocks of about N / 2 (N
 *     in all, beyond an int), MPI_Ireduce_scatter_block the same,
 *     MPI_Reduce_scatter_c with rank 0's block beyond an int and
 *     MPI_Reduce_scatter_init_c the same, and on MPI_COMM_SELF
 *     MPI_Reduce_scatter_block_init_c of N;
 *   - one-sided, into rank 1's MPI_Win_allocate_c window: MPI_Put_c,
 *     MPI_Accumulate_c (MPI_BXOR on MPI_UNSIGNED_CHAR), MPI_Get_c.
 * Each rank holds one buffer of N bytes at a time (about 2 GiB).
 * Natively only: the VM has too little memory.
 */
#include <limits.h>

#include "test.h"

#define N (((MPI_Count)1 << 31) + 4104)	/* bytes, a multiple of 8 */

static void fill(uint64_t *w, MPI_Count n, uint64_t seed)
{
	MPI_Count i;

	for (i = 0; i < n / 8; i++)
		w[i] = (uint64_t)i * 0x9e3779b97f4a7c15ULL ^ seed;
}

/* The first word that is not fill(seed)'s (or xor of seeds), or -1. */
static MPI_Count bad(const uint64_t *w, MPI_Count n, uint64_t seed)
{
	MPI_Count i;

	for (i = 0; i < n / 8; i++)
		if (w[i] != ((uint64_t)i * 0x9e3779b97f4a7c15ULL ^ seed))
			return i;
	return -1;
}

/* The user ops' XOR, and what their calls covered. */
static MPI_Count user_elems, user_max;

static void xor_bytes(const void *in, void *inout, MPI_Count n)
{
	const uint64_t *a = in;
	uint64_t *b = inout;
	MPI_Count i;

	for (i = 0; i < n / 8; i++)
		b[i] ^= a[i];
	for (i = n & ~(MPI_Count)7; i < n; i++)
		((unsigned char *)inout)[i] ^= ((const unsigned char *)in)[i];
	user_elems += n;
	if (n > user_max)
		user_max = n;
}

static void xor_int(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	xor_bytes(in, inout, *len);
}

static void xor_count(void *in, void *inout, MPI_Count *len,
		      MPI_Datatype *dt)
{
	(void)dt;
	xor_bytes(in, inout, *len);
}

/* Rank 1's words are rank 0's, multiplied: their XOR is known. */
static void xor_fill(uint64_t *buf)
{
	MPI_Count at;

	fill(buf, N, 3);
	if (t_rank == 1)
		for (at = 0; at < N / 8; at++)
			buf[at] *= 0x2545f4914f6cdd1dULL;
}

static void xor_check(const uint64_t *buf, const char *what)
{
	MPI_Count at;
	uint64_t x;

	for (at = 0; at < N / 8; at++) {
		x = (uint64_t)at * 0x9e3779b97f4a7c15ULL ^ 3;
		if (buf[at] != (x ^ x * 0x2545f4914f6cdd1dULL))
			break;
	}
	CHECK(at == N / 8, "%s: word %lld differs", what, at);
}

enum how { BLOCKING, NONBLOCKING, PERSISTENT };

/*
 * Allreduce in place with op, every word to come out as the XOR of the
 * ranks': blocking; nonblocking, with a small broadcast started while
 * it runs (the slices must keep their place among other collectives);
 * persistent, started twice.  Its time (the last start's).
 */
static double allreduce_xor(uint64_t *buf, MPI_Op op, enum how how,
			    const char *what)
{
	MPI_Request r[2];
	int k, one = t_rank;
	double t = 0;

	if (how == PERSISTENT)
		MPI_OK(MPI_Allreduce_init_c(MPI_IN_PLACE, buf, N,
					    MPI_UNSIGNED_CHAR, op,
					    MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
	for (k = 0; k < (how == PERSISTENT ? 2 : 1); k++) {
		xor_fill(buf);
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		t = MPI_Wtime();
		if (how == BLOCKING) {
			MPI_OK(MPI_Allreduce_c(MPI_IN_PLACE, buf, N,
					       MPI_UNSIGNED_CHAR, op,
					       MPI_COMM_WORLD));
		} else if (how == NONBLOCKING) {
			MPI_OK(MPI_Iallreduce_c(MPI_IN_PLACE, buf, N,
						MPI_UNSIGNED_CHAR, op,
						MPI_COMM_WORLD, &r[0]));
			MPI_OK(MPI_Ibcast(&one, 1, MPI_INT, 1, MPI_COMM_WORLD,
					  &r[1]));
			MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
			CHECK(one == 1, "the broadcast beside it gave %d", one);
		} else {
			MPI_OK(MPI_Start(&r[0]));
			MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
		}
		t = MPI_Wtime() - t;
		xor_check(buf, what);
	}
	if (how == PERSISTENT)
		MPI_OK(MPI_Request_free(&r[0]));
	return t;
}

/*
 * Reduce_scatter in place of the XOR vector, more than an int of
 * elements in all: MPI_Reduce_scatter with int blocks of b and b + 8
 * bytes (b = N / 2 - 4), then MPI_Ireduce_scatter_block of b each;
 * each rank's block of the XOR must come out at the start of buf.
 */
static void rs_check(const uint64_t *buf, MPI_Count from, MPI_Count words,
		     const char *what)
{
	MPI_Count at;
	uint64_t x;

	for (at = 0; at < words; at++) {
		x = (uint64_t)(from + at) * 0x9e3779b97f4a7c15ULL ^ 3;
		if (buf[at] != (x ^ x * 0x2545f4914f6cdd1dULL))
			break;
	}
	CHECK(at == words, "%s: word %lld of the block differs", what, at);
}

static double reduce_scatter_xor(uint64_t *buf)
{
	int b = (int)(N / 2 - 4), counts[2] = { b, b + 8 };
	MPI_Count big[2] = { N - 8, 8 }, at;
	MPI_Request r;
	double t;

	xor_fill(buf);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	t = MPI_Wtime();
	MPI_OK(MPI_Reduce_scatter(MPI_IN_PLACE, buf, counts, MPI_UNSIGNED_CHAR,
				  MPI_BXOR, MPI_COMM_WORLD));
	t = MPI_Wtime() - t;
	rs_check(buf, t_rank ? b / 8 : 0, counts[t_rank] / 8,
		 "MPI_Reduce_scatter");
	xor_fill(buf);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Ireduce_scatter_block(MPI_IN_PLACE, buf, b,
					 MPI_UNSIGNED_CHAR, MPI_BXOR,
					 MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	rs_check(buf, (MPI_Count)t_rank * (b / 8), b / 8,
		 "MPI_Ireduce_scatter_block");
	/* A block beyond an int: MPI_Reduce_scatter_c. */
	xor_fill(buf);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Reduce_scatter_c(MPI_IN_PLACE, buf, big, MPI_UNSIGNED_CHAR,
				    MPI_BXOR, MPI_COMM_WORLD));
	rs_check(buf, t_rank ? big[0] / 8 : 0, big[t_rank] / 8,
		 "MPI_Reduce_scatter_c");
	/* The same persistent: MPI_Reduce_scatter_init_c, started once. */
	MPI_OK(MPI_Reduce_scatter_init_c(MPI_IN_PLACE, buf, big,
					 MPI_UNSIGNED_CHAR, MPI_BXOR,
					 MPI_COMM_WORLD, MPI_INFO_NULL, &r));
	xor_fill(buf);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Start(&r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Request_free(&r));
	rs_check(buf, t_rank ? big[0] / 8 : 0, big[t_rank] / 8,
		 "MPI_Reduce_scatter_init_c");
	/*
	 * A block beyond an int, persistent, on MPI_COMM_SELF (two ranks'
	 * blocks would take 4 GiB each): in place, each start leaves the
	 * rank's own vector as it was.
	 */
	fill(buf, N, 9);
	MPI_OK(MPI_Reduce_scatter_block_init_c(MPI_IN_PLACE, buf, N,
					       MPI_UNSIGNED_CHAR, MPI_BXOR,
					       MPI_COMM_SELF, MPI_INFO_NULL,
					       &r));
	MPI_OK(MPI_Start(&r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Start(&r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Request_free(&r));
	at = bad(buf, N, 9);
	CHECK(at < 0, "MPI_Reduce_scatter_block_init_c on SELF: word %lld",
	      at);
	return t;
}

/* MPI_Ireduce_c to rank 0, in place there. */
static double ireduce_xor(uint64_t *buf)
{
	MPI_Request r;
	double t;

	xor_fill(buf);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	t = MPI_Wtime();
	MPI_OK(MPI_Ireduce_c(t_rank == 0 ? MPI_IN_PLACE : buf,
			     t_rank == 0 ? buf : NULL, N, MPI_UNSIGNED_CHAR,
			     MPI_BXOR, 0, MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	t = MPI_Wtime() - t;
	if (t_rank == 0)
		xor_check(buf, "MPI_Ireduce_c");
	return t;
}

/*
 * One-sided: rank 1's window of N bytes (MPI_Win_allocate_c), rank 0
 * puts N bytes into it (MPI_Put_c), XORs N more in
 * (MPI_Accumulate_c, MPI_BXOR on MPI_UNSIGNED_CHAR: every word becomes
 * 6 ^ 7) and gets them back (MPI_Get_c).  Rank 1 frees its buffer first
 * (the buffer returned: NULL there).
 */
static uint64_t *one_sided(uint64_t *buf)
{
	uint64_t *w;
	MPI_Count at;
	MPI_Win win;
	double t[3] = { 0, 0, 0 };

	if (t_rank == 1) {
		free(buf);
		buf = NULL;
	}
	MPI_OK(MPI_Win_allocate_c(t_rank == 1 ? N : 0, 1, MPI_INFO_NULL,
				  MPI_COMM_WORLD, &w, &win));
	if (t_rank == 0) {
		fill(buf, N, 6);
		t[0] = MPI_Wtime();
		MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
		MPI_OK(MPI_Put_c(buf, N, MPI_BYTE, 1, 0, N, MPI_BYTE, win));
		MPI_OK(MPI_Win_unlock(1, win));
		t[0] = MPI_Wtime() - t[0];
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == 1) {
		at = bad(w, N, 6);
		CHECK(at < 0, "MPI_Put_c: window word %lld differs", at);
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == 0) {
		fill(buf, N, 7);
		t[1] = MPI_Wtime();
		MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
		MPI_OK(MPI_Accumulate_c(buf, N, MPI_UNSIGNED_CHAR, 1, 0, N,
					MPI_UNSIGNED_CHAR, MPI_BXOR, win));
		MPI_OK(MPI_Win_unlock(1, win));
		t[1] = MPI_Wtime() - t[1];
		memset(buf, 0, (size_t)N);
		t[2] = MPI_Wtime();
		MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
		MPI_OK(MPI_Get_c(buf, N, MPI_BYTE, 1, 0, N, MPI_BYTE, win));
		MPI_OK(MPI_Win_unlock(1, win));
		t[2] = MPI_Wtime() - t[2];
		for (at = 0; at < N / 8 && buf[at] == (6 ^ 7); at++)
			;
		CHECK(at == N / 8, "MPI_Accumulate_c then MPI_Get_c: word %lld is %#llx",
		      at, (unsigned long long)buf[at]);
		fprintf(stderr, "bigmsg: %lld bytes: put %.2f s, accumulate %.2f s, get %.2f s\n",
			(long long)N, t[0], t[1], t[2]);
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Win_free(&win));
	return buf;	/* rank 1: NULL */
}

/*
 * The user ops: the ranks call them on N elements or more in all (how
 * the work is shared depends on the algorithm), the MPI_Op_create one
 * never on more than INT_MAX at once.
 */
static void user_ops(uint64_t *buf)
{
	MPI_Op op;
	double t;

	MPI_OK(MPI_Op_create(xor_int, 1, &op));
	user_elems = user_max = 0;
	t = allreduce_xor(buf, op, BLOCKING, "MPI_Op_create");
	MPI_OK(MPI_Op_free(&op));
	CHECK(user_max <= INT_MAX, "a user function called on %lld elements",
	      (long long)user_max);
	MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &user_elems, 1, MPI_COUNT, MPI_SUM,
			     MPI_COMM_WORLD));
	CHECK(user_elems >= N, "user function called on %lld elements in all",
	      (long long)user_elems);
	if (t_rank == 0)
		fprintf(stderr, "bigmsg: allreduce, MPI_Op_create op: %.2f s, at most %lld elements a call\n",
			t, (long long)user_max);

	MPI_OK(MPI_Op_create_c(xor_count, 1, &op));
	user_elems = user_max = 0;
	t = allreduce_xor(buf, op, PERSISTENT, "MPI_Allreduce_init_c, MPI_Op_create_c");
	MPI_OK(MPI_Op_free(&op));
	MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &user_elems, 1, MPI_COUNT, MPI_SUM,
			     MPI_COMM_WORLD));
	CHECK(user_elems >= N, "user function (_c) called on %lld elements in all",
	      (long long)user_elems);
	if (t_rank == 0)
		fprintf(stderr, "bigmsg: persistent allreduce, MPI_Op_create_c op: %.2f s\n",
			t);
}

int main(int argc, char **argv)
{
	const char *env;
	uint64_t *buf;
	MPI_Status st;
	MPI_Count c, at;
	uint64_t x;
	double t[4], tn[3];
	MPI_Count rc[2];
	MPI_Aint rd[2];
	int ic, r;

	t_init(&argc, &argv);
	env = getenv("LIBMSG_MODE");
	if (env && !strcmp(env, "vm"))
		T_SKIP("2 GiB a rank: natively only");
	CHECK(t_size == 2, "runs at 2 ranks");
	buf = malloc((size_t)N + 64);
	if (!buf)
		T_SKIP("no memory for %lld bytes", (long long)N);

	/* Point to point. */
	if (t_rank == 0)
		fill(buf, N, 1);
	else
		memset(buf, 0, (size_t)N + 64);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	t[0] = MPI_Wtime();
	if (t_rank == 0) {
		MPI_OK(MPI_Send_c(buf, N, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
	} else {
		MPI_OK(MPI_Recv_c(buf, N + 64, MPI_BYTE, 0, 5, MPI_COMM_WORLD,
				  &st));
		t[0] = MPI_Wtime() - t[0];
		MPI_OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
		CHECK(c == N, "count %lld, sent %lld", c, (long long)N);
		MPI_OK(MPI_Get_elements_c(&st, MPI_BYTE, &c));
		CHECK(c == N, "elements %lld", c);
		MPI_OK(MPI_Get_count_c(&st, MPI_UINT64_T, &c));
		CHECK(c == N / 8, "%lld uint64s", c);
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &ic));
		CHECK(ic == MPI_UNDEFINED, "int count %d", ic);
		at = bad(buf, N, 1);
		CHECK(at < 0, "received word %lld differs", at);
		x = 0;
		for (r = 0; r < 8; r++)
			x |= ((unsigned char *)buf)[N + r];
		CHECK(x == 0, "bytes past the message written");
	}

	/* Broadcast from rank 1. */
	if (t_rank == 1)
		fill(buf, N, 2);
	else
		memset(buf, 0, (size_t)N);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	t[1] = MPI_Wtime();
	MPI_OK(MPI_Bcast_c(buf, N, MPI_BYTE, 1, MPI_COMM_WORLD));
	t[1] = MPI_Wtime() - t[1];
	at = bad(buf, N, 2);
	CHECK(at < 0, "broadcast word %lld differs", at);

	/*
	 * Allgatherv in place: rank 0's block is N bytes (a count beyond
	 * an int), rank 1's 8 bytes after it.
	 */
	if (t_rank == 0)
		fill(buf, N, 4);
	buf[N / 8] = 0x5eed5eed5eedULL + (uint64_t)t_rank;
	rc[0] = N;
	rc[1] = 8;
	rd[0] = 0;
	rd[1] = N;
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	t[3] = MPI_Wtime();
	MPI_OK(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_BYTE, buf, rc, rd, MPI_BYTE,
				MPI_COMM_WORLD));
	t[3] = MPI_Wtime() - t[3];
	at = bad(buf, N, 4);
	CHECK(at < 0, "allgatherv word %lld differs", at);
	CHECK(buf[N / 8] == 0x5eed5eed5eedULL + 1, "allgatherv: rank 1's block");

	t[2] = allreduce_xor(buf, MPI_BXOR, BLOCKING, "MPI_Allreduce_c");
	user_ops(buf);
	tn[0] = allreduce_xor(buf, MPI_BXOR, NONBLOCKING, "MPI_Iallreduce_c");
	tn[1] = ireduce_xor(buf);
	tn[2] = reduce_scatter_xor(buf);
	if (t_rank == 0)
		fprintf(stderr, "bigmsg: %lld bytes: iallreduce %.2f s, ireduce %.2f s, reduce_scatter %.2f s\n",
			(long long)N, tn[0], tn[1], tn[2]);
	if (t_rank == 1)
		fprintf(stderr, "bigmsg: %lld bytes: send %.2f s, bcast %.2f s, allgatherv %.2f s, allreduce %.2f s\n",
			(long long)N, t[0], t[1], t[3], t[2]);
	buf = one_sided(buf);
	free(buf);
	return t_done();
}
