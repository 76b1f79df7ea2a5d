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
 *   - one-sided, into rank 1's MPI_Win_allocate_c window: MPI_Put_c,
 *     MPI_Accumulate_c (MPI_BXOR on MPI_UNSIGNED_CHAR), MPI_Get_c.
 * Each rank holds one buffer of N bytes at a time (about 2 GiB).
 * Natively only: the VM has too little memory.
 */
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

int main(int argc, char **argv)
{
	const char *env;
	uint64_t *buf;
	MPI_Status st;
	MPI_Count c, at;
	uint64_t x;
	double t[4];
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

	/* Allreduce in place: rank 1's words are rank 0's, multiplied. */
	fill(buf, N, 3);
	if (t_rank == 1)
		for (at = 0; at < N / 8; at++)
			buf[at] *= 0x2545f4914f6cdd1dULL;
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	t[2] = MPI_Wtime();
	MPI_OK(MPI_Allreduce_c(MPI_IN_PLACE, buf, N, MPI_UNSIGNED_CHAR,
			       MPI_BXOR, MPI_COMM_WORLD));
	t[2] = MPI_Wtime() - t[2];
	for (at = 0; at < N / 8; at++) {
		x = (uint64_t)at * 0x9e3779b97f4a7c15ULL ^ 3;
		if (buf[at] != (x ^ x * 0x2545f4914f6cdd1dULL))
			break;
	}
	CHECK(at == N / 8, "allreduce word %lld differs", at);
	if (t_rank == 1)
		fprintf(stderr, "bigmsg: %lld bytes: send %.2f s, bcast %.2f s, allgatherv %.2f s, allreduce %.2f s\n",
			(long long)N, t[0], t[1], t[3], t[2]);
	buf = one_sided(buf);
	free(buf);
	return t_done();
}
