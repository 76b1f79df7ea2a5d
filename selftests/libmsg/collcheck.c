// SPDX-License-Identifier: MIT
/*
 * Collective-call verification (MPICHAN_CHECK=coll, set by the program
 * before MPI_Init; libmsg/src/coll/coll_check.c).  With
 * MPI_ERRORS_RETURN, each kind of mismatch is made on purpose, and
 * every rank must get the error class and a message naming the call,
 * the ranks and what differed, with none of the data moved:
 *   - different collectives (MPI_Allreduce and MPI_Reduce), blocking
 *     against nonblocking (MPI_Bcast, MPI_Ibcast), nonblocking against
 *     persistent (MPI_Ibcast, MPI_Bcast_init), a barrier against an
 *     allreduce;
 *   - another root, another op;
 *   - type signatures of the same size that differ (4 x MPI_INT sent,
 *     2 x MPI_DOUBLE expected), counts that differ (MPI_ERR_COUNT), in
 *     a broadcast, an allreduce, a scatter, an allgather;
 *   - per pair: a gatherv, an alltoallv and a neighbourhood allgather
 *     where one pair's blocks differ;
 *   - MPI_IN_PLACE on some ranks of an allreduce; MPI_IN_PLACE on a
 *     rank that is not the reduce's root, and a root out of range,
 *     which that rank refuses itself while the others learn of it;
 * and after each, a correct collective on the same communicator works.
 * Calls whose signatures differ but are equivalent must pass: 4 x
 * MPI_INT against one contiguous type of 4 ints, a vector of ints,
 * MPI_2INT against 2 x MPI_INT, a struct against another with other
 * displacements, bytes against ints, alltoallw with other types per
 * pair; two nonblocking collectives in flight at once.  Everything
 * runs on MPI_COMM_WORLD (checked in the collective area) and on a
 * communicator whose context id has no area channel (checked by
 * messages).  With one rank only the matching calls run.
 */
#include "test.h"

#include <stdarg.h>

static MPI_Comm comm;
static int rank, size;
static const char *where;

/* "rank 3", "ranks 0-2": as libmsg writes lists of ranks. */
static const char *ranks(int lo, int hi, char *buf, size_t len)
{
	if (lo == hi)
		snprintf(buf, len, "rank %d", lo);
	else
		snprintf(buf, len, "ranks %d-%d", lo, hi);
	return buf;
}

/* err must be of class cls, and its string hold the text fmt makes. */
static void expect(int err, int cls, const char *call, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void expect(int err, int cls, const char *call, const char *fmt, ...)
{
	char want[300], got[MPI_MAX_ERROR_STRING];
	int c = -1, len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	CHECK(err != MPI_SUCCESS, "%s on %s: %s succeeded; expected \"%s\"",
	      call, where, call, want);
	MPI_OK(MPI_Error_class(err, &c));
	MPI_OK(MPI_Error_string(err, got, &len));
	CHECK(c == cls, "%s on %s: class %d, expected %d (%s)", call, where,
	      c, cls, got);
	CHECK(strstr(got, want), "%s on %s: \"%s\" does not say \"%s\"",
	      call, where, got, want);
	CHECK(strstr(got, "collective mismatch"),
	      "%s on %s: \"%s\" is not a collective mismatch", call, where, got);
}

/* The communicator still works: an allreduce of every rank's number. */
static void still_works(void)
{
	int v = rank + 1, sum = 0;

	MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm));
	CHECK(sum == size * (size + 1) / 2, "allreduce after a mismatch: %d",
	      sum);
}

static void fill(int *p, int n, int seed)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = seed * 1000 + i;
}

/* ---- Mismatches ----------------------------------------------------------- */

static void different_calls(void)
{
	int last = size - 1, in[4], out[4], err, i;
	char a[32], b[32];

	fill(in, 4, rank);
	for (i = 0; i < 4; i++)
		out[i] = -7;
	if (rank == last)
		err = MPI_Reduce(in, out, 4, MPI_INT, MPI_SUM, 0, comm);
	else
		err = MPI_Allreduce(in, out, 4, MPI_INT, MPI_SUM, comm);
	expect(err, MPI_ERR_OTHER, "Allreduce/Reduce",
	       "%s called MPI_Allreduce, %s MPI_Reduce",
	       ranks(0, last - 1, a, sizeof(a)), ranks(last, last, b, sizeof(b)));
	for (i = 0; i < 4; i++)
		CHECK(out[i] == -7, "data moved by a mismatched call: %d", out[i]);
	still_works();

	/* A barrier against an allreduce. */
	if (rank == 0)
		err = MPI_Barrier(comm);
	else
		err = MPI_Allreduce(in, out, 4, MPI_INT, MPI_SUM, comm);
	expect(err, MPI_ERR_OTHER, "Barrier/Allreduce",
	       "rank 0 called MPI_Barrier, %s MPI_Allreduce",
	       ranks(1, last, a, sizeof(a)));
	still_works();
}

static void blocking_nonblocking(void)
{
	int last = size - 1, buf[4], err;
	MPI_Request r;
	char a[32];

	fill(buf, 4, 9);
	if (rank == 0) {
		MPI_OK(MPI_Ibcast(buf, 4, MPI_INT, 0, comm, &r));
		err = MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else {
		err = MPI_Bcast(buf, 4, MPI_INT, 0, comm);
	}
	expect(err, MPI_ERR_OTHER, "Ibcast/Bcast",
	       "rank 0 called MPI_Ibcast, %s MPI_Bcast",
	       ranks(1, last, a, sizeof(a)));
	still_works();

	/* A persistent broadcast's start against MPI_Ibcast. */
	if (rank == last) {
		MPI_OK(MPI_Bcast_init(buf, 4, MPI_INT, 0, comm, MPI_INFO_NULL,
				      &r));
		MPI_OK(MPI_Start(&r));
		err = MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_OK(MPI_Request_free(&r));
	} else {
		MPI_OK(MPI_Ibcast(buf, 4, MPI_INT, 0, comm, &r));
		err = MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
	expect(err, MPI_ERR_OTHER, "Ibcast/Bcast_init",
	       "%s called MPI_Ibcast, rank %d MPI_Bcast_init",
	       ranks(0, last - 1, a, sizeof(a)), last);
	still_works();
}

static void root_and_op(void)
{
	int last = size - 1, buf[4], in[4], out[4], err, i;
	char a[32];

	fill(buf, 4, rank);
	err = MPI_Bcast(buf, 4, MPI_INT, rank == last ? 1 : 0, comm);
	expect(err, MPI_ERR_ROOT, "Bcast roots",
	       "%s called MPI_Bcast with root 0, rank %d with root 1",
	       ranks(0, last - 1, a, sizeof(a)), last);
	for (i = 0; i < 4; i++)
		CHECK(buf[i] == rank * 1000 + i, "broadcast moved data");
	still_works();

	fill(in, 4, rank);
	err = MPI_Allreduce(in, out, 4, MPI_INT,
			    rank == last ? MPI_MAX : MPI_SUM, comm);
	expect(err, MPI_ERR_OP, "Allreduce ops",
	       "%s called MPI_Allreduce with MPI_SUM, rank %d with MPI_MAX",
	       ranks(0, last - 1, a, sizeof(a)), last);
	still_works();
}

static void signatures(void)
{
	static int ibuf[64];
	int last = size - 1, err, i;
	double dbuf[4];
	float fbuf[8];

	/* Broadcast: 16 bytes each, but ints are not doubles. */
	fill(ibuf, 4, 5);
	for (i = 0; i < 4; i++)
		dbuf[i] = -1.5;
	if (rank == last)
		err = MPI_Bcast(dbuf, 2, MPI_DOUBLE, 0, comm);
	else
		err = MPI_Bcast(ibuf, 4, MPI_INT, 0, comm);
	expect(err, MPI_ERR_TYPE, "Bcast types",
	       "rank 0 sends 4 x MPI_INT to rank %d in MPI_Bcast, rank %d expects 2 x MPI_DOUBLE",
	       last, last);
	if (rank == last)
		for (i = 0; i < 4; i++)
			CHECK(dbuf[i] == -1.5, "broadcast moved data");
	still_works();

	/* Allreduce: the counts differ. */
	fill(ibuf, 8, rank);
	err = MPI_Allreduce(MPI_IN_PLACE, ibuf, rank == last ? 3 : 4, MPI_INT,
			    MPI_SUM, comm);
	expect(err, MPI_ERR_COUNT, "Allreduce counts",
	       "rank %d called MPI_Allreduce with 3 x MPI_INT, rank 0 with 4 x MPI_INT",
	       last);
	still_works();

	/* Scatter: rank `last` expects floats where the root sends ints. */
	fill(ibuf, 2 * size, 1);
	err = MPI_Scatter(ibuf, 2, MPI_INT, rank == last ? (void *)fbuf :
			  (void *)(ibuf + 2 * size), 2, rank == last ?
			  MPI_FLOAT : MPI_INT, 0, comm);
	expect(err, MPI_ERR_TYPE, "Scatter types",
		       "rank 0 sends 2 x MPI_INT to rank %d in MPI_Scatter, rank %d expects 2 x MPI_FLOAT",
		       last, last);
	still_works();
}

static void allgather_types(void)
{
	int last = size - 1, err, *all = calloc((size_t)size, 2 * sizeof(int));
	int mine[2] = { rank, rank };
	float fmine[2] = { 1, 2 };

	CHECK(all, "calloc");
	/* Rank `last` sends floats, everybody expects ints from everybody. */
	if (rank == last)
		err = MPI_Allgather(fmine, 2, MPI_FLOAT, all, 2, MPI_INT, comm);
	else
		err = MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
	expect(err, MPI_ERR_TYPE, "Allgather types",
	       "rank %d sends 2 x MPI_FLOAT to rank 0 in MPI_Allgather, rank 0 expects 2 x MPI_INT",
	       last);
	free(all);
	still_works();
}

static void per_pair(void)
{
	int *counts = calloc((size_t)size, sizeof(int));
	int *displs = calloc((size_t)size, sizeof(int));
	int *rcounts = calloc((size_t)size, sizeof(int));
	int *rdispls = calloc((size_t)size, sizeof(int));
	double *dbuf = calloc((size_t)size * 4, sizeof(double));
	int *ibuf = calloc((size_t)size * 4, sizeof(int));
	int mine[4], err, i;

	CHECK(counts && displs && rcounts && rdispls && dbuf && ibuf, "calloc");
	/*
	 * Gatherv to 0 of 4 doubles from each rank, but rank 1 sends 4
	 * ints.
	 */
	fill(mine, 4, rank);
	for (i = 0; i < size; i++) {
		counts[i] = 4;
		displs[i] = 4 * i;
	}
	if (rank == 1)
		err = MPI_Gatherv(mine, 4, MPI_INT, NULL, NULL, NULL,
				  MPI_DOUBLE, 0, comm);
	else
		err = MPI_Gatherv(dbuf, 4, MPI_DOUBLE, dbuf, counts, displs,
				  MPI_DOUBLE, 0, comm);
	/* Rank 1 is the first sender whose block the root did not expect. */
	expect(err, MPI_ERR_TYPE, "Gatherv pairs",
	       "rank 1 sends 4 x MPI_INT to rank 0 in MPI_Gatherv, rank 0 expects 4 x MPI_DOUBLE");
	still_works();

	/*
	 * Alltoallv: everyone sends every rank one int, and expects one int
	 * from everyone, but the last rank expects two from rank 0.
	 */
	for (i = 0; i < size; i++) {
		counts[i] = 1;
		displs[i] = i;
		rcounts[i] = rank == size - 1 && i == 0 ? 2 : 1;
		rdispls[i] = 2 * i;
	}
	err = MPI_Alltoallv(ibuf, counts, displs, MPI_INT, ibuf + 2 * size,
			    rcounts, rdispls, MPI_INT, comm);
	expect(err, MPI_ERR_COUNT, "Alltoallv pairs",
	       "rank 0 sends 1 x MPI_INT to rank %d in MPI_Alltoallv, rank %d expects 2 x MPI_INT",
	       size - 1, size - 1);
	still_works();
	free(counts);
	free(displs);
	free(rcounts);
	free(rdispls);
	free(dbuf);
	free(ibuf);
}

static void neighbours(void)
{
	int dims[1] = { size }, periods[1] = { 1 }, err, ibuf[2] = { 1, 2 };
	float fbuf[2] = { 1, 2 }, rbuf[4];
	MPI_Comm ring;

	MPI_OK(MPI_Cart_create(comm, 1, dims, periods, 0, &ring));
	MPI_OK(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
	/* Rank 1 sends ints, its neighbours expect floats. */
	if (rank == 1)
		err = MPI_Neighbor_allgather(ibuf, 2, MPI_INT, rbuf, 2,
					     MPI_FLOAT, ring);
	else
		err = MPI_Neighbor_allgather(fbuf, 2, MPI_FLOAT, rbuf, 2,
					     MPI_FLOAT, ring);
	expect(err, MPI_ERR_TYPE, "Neighbor_allgather pairs",
	       "rank 1 sends 2 x MPI_INT to rank 0 in MPI_Neighbor_allgather, rank 0 expects 2 x MPI_FLOAT");
	/* The same, matched, works. */
	MPI_OK(MPI_Neighbor_allgather(fbuf, 2, MPI_FLOAT, rbuf, 2, MPI_FLOAT,
				      ring));
	MPI_OK(MPI_Comm_free(&ring));
}

static void in_place(void)
{
	int last = size - 1, in[4], out[4], err;
	char a[32];

	fill(in, 4, rank);
	fill(out, 4, rank);
	/* Rank `last` alone gives MPI_IN_PLACE to an allreduce. */
	err = MPI_Allreduce(rank == last ? MPI_IN_PLACE : (void *)in, out, 4,
			    MPI_INT, MPI_SUM, comm);
	expect(err, MPI_ERR_BUFFER, "Allreduce in place",
	       "%s called MPI_Allreduce without, rank %d with MPI_IN_PLACE",
	       ranks(0, last - 1, a, sizeof(a)), last);
	still_works();

	/*
	 * MPI_IN_PLACE on a rank that is not the root: that rank refuses
	 * it, and the others hear of it.
	 */
	err = MPI_Reduce(rank == last ? MPI_IN_PLACE : (void *)in, out, 4,
			 MPI_INT, MPI_SUM, 0, comm);
	if (rank == last) {
		int c;

		CHECK(err != MPI_SUCCESS, "MPI_IN_PLACE on a non-root accepted");
		MPI_OK(MPI_Error_class(err, &c));
		CHECK(c == MPI_ERR_BUFFER, "class %d", c);
	} else {
		expect(err, MPI_ERR_BUFFER, "Reduce in place",
		       "rank %d rejected its arguments to MPI_Reduce (MPI_ERR_BUFFER)",
		       last);
	}
	still_works();

	/* A root out of range on one rank. */
	err = MPI_Bcast(in, 4, MPI_INT, rank == last ? size : 0, comm);
	if (rank != last)
		expect(err, MPI_ERR_ROOT, "Bcast bad root",
		       "rank %d rejected its arguments to MPI_Bcast (MPI_ERR_ROOT)",
		       last);
	else
		CHECK(err != MPI_SUCCESS, "a root out of range accepted");
	still_works();
}

/* ---- Equivalent signatures ---------------------------------------------- */

static void equivalent(void)
{
	MPI_Datatype c4, vec, st1, st2, w_int, *st, *rt;
	int buf[8], i, r, *all, *out, *sc, *sd, *rc, *rd;
	struct { int i; double d; } s1;
	struct { double d; int i; } s2;	/* the same sequence, other places */
	int bl[2] = { 1, 1 };
	MPI_Aint d1[2], d2[2];
	MPI_Datatype t1[2] = { MPI_INT, MPI_DOUBLE };
	MPI_Request req[2];

	MPI_OK(MPI_Type_contiguous(4, MPI_INT, &c4));
	MPI_OK(MPI_Type_commit(&c4));
	/* 4 x MPI_INT at the root, one contiguous of 4 ints elsewhere. */
	fill(buf, 4, 3);
	if (rank == 0)
		MPI_OK(MPI_Bcast(buf, 4, MPI_INT, 0, comm));
	else
		MPI_OK(MPI_Bcast(buf, 1, c4, 0, comm));
	for (i = 0; i < 4; i++)
		CHECK(buf[i] == 3000 + i, "contiguous bcast: %d", buf[i]);

	/* A vector of 2 ints (stride 2) gathered as 2 x MPI_INT. */
	MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
	MPI_OK(MPI_Type_commit(&vec));
	all = calloc((size_t)size * 2, sizeof(int));
	CHECK(all, "calloc");
	buf[0] = rank;
	buf[2] = -rank;
	MPI_OK(MPI_Gather(buf, 1, vec, all, 2, MPI_INT, 0, comm));
	if (rank == 0)
		for (r = 0; r < size; r++)
			CHECK(all[2 * r] == r && all[2 * r + 1] == -r,
			      "vector gather from %d", r);

	/* MPI_2INT against 2 x MPI_INT. */
	buf[0] = 11;
	buf[1] = 12;
	MPI_OK(MPI_Bcast(buf, rank == 0 ? 1 : 2, rank == 0 ? MPI_2INT :
			 MPI_INT, 0, comm));
	CHECK(buf[0] == 11 && buf[1] == 12, "2INT bcast");

	/* Allreduce: one contiguous of 4 ints against 4 x MPI_INT. */
	fill(buf, 4, 0);
	MPI_OK(MPI_Allreduce(MPI_IN_PLACE, buf, rank % 2 ? 1 : 4,
			     rank % 2 ? c4 : MPI_INT, MPI_SUM, comm));
	for (i = 0; i < 4; i++)
		CHECK(buf[i] == size * i, "allreduce of c4: %d", buf[i]);

	/* A struct (int, double) against one with the fields elsewhere. */
	MPI_OK(MPI_Get_address(&s1.i, &d1[0]));
	MPI_OK(MPI_Get_address(&s1.d, &d1[1]));
	d1[1] -= d1[0];
	d1[0] = 0;
	MPI_OK(MPI_Type_create_struct(2, bl, d1, t1, &st1));
	MPI_OK(MPI_Type_commit(&st1));
	MPI_OK(MPI_Get_address(&s2.d, &d2[1]));
	MPI_OK(MPI_Get_address(&s2.i, &d2[0]));
	d2[0] -= d2[1];
	d2[1] = 0;
	MPI_OK(MPI_Type_create_struct(2, bl, d2, t1, &st2));
	MPI_OK(MPI_Type_commit(&st2));
	s1.i = 5;
	s1.d = 2.5;
	if (rank == 0) {
		MPI_OK(MPI_Bcast(&s1, 1, st1, 0, comm));
	} else {
		MPI_OK(MPI_Bcast(&s2, 1, st2, 0, comm));
		CHECK(s2.i == 5 && s2.d == 2.5, "struct bcast");
	}

	/* Bytes against ints: bytes match any data of their size. */
	fill(buf, 4, 8);
	MPI_OK(MPI_Bcast(buf, rank == 0 ? 16 : 4, rank == 0 ? MPI_BYTE :
			 MPI_INT, 0, comm));
	for (i = 0; i < 4; i++)
		CHECK(buf[i] == 8000 + i, "bytes bcast");

	/* Alltoallw: one int to each rank, as MPI_INT or as a pair type. */
	MPI_OK(MPI_Type_contiguous(1, MPI_INT, &w_int));
	MPI_OK(MPI_Type_commit(&w_int));
	st = calloc((size_t)size, sizeof(*st));
	rt = calloc((size_t)size, sizeof(*rt));
	sc = calloc((size_t)size * 4, sizeof(int));
	CHECK(st && rt && sc, "calloc");
	sd = sc + size;
	rc = sd + size;
	rd = rc + size;
	out = calloc((size_t)size, sizeof(int));
	CHECK(out, "calloc");
	for (r = 0; r < size; r++) {
		st[r] = (rank + r) % 2 ? w_int : MPI_INT;
		rt[r] = r % 2 ? MPI_INT : w_int;
		sc[r] = rc[r] = 1;
		sd[r] = rd[r] = r * (int)sizeof(int);
		all[r] = rank * 100 + r;
	}
	MPI_OK(MPI_Alltoallw(all, sc, sd, st, out, rc, rd, rt, comm));
	for (r = 0; r < size; r++)
		CHECK(out[r] == r * 100 + rank, "alltoallw from %d", r);
	free(out);

	/* Two nonblocking collectives in flight, each checked. */
	fill(buf, 8, rank);
	MPI_OK(MPI_Iallreduce(MPI_IN_PLACE, buf, 4, MPI_INT, MPI_SUM, comm,
			      &req[0]));
	MPI_OK(MPI_Ibcast(buf + 4, 1, c4, size - 1, comm, &req[1]));
	MPI_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
	for (i = 0; i < 4; i++) {
		CHECK(buf[i] == 1000 * size * (size - 1) / 2 + size * i,
		      "iallreduce: %d", buf[i]);
		CHECK(buf[4 + i] == (size - 1) * 1000 + 4 + i, "ibcast");
	}
	MPI_OK(MPI_Barrier(comm));

	free(st);
	free(rt);
	free(sc);
	free(all);
	MPI_OK(MPI_Type_free(&c4));
	MPI_OK(MPI_Type_free(&vec));
	MPI_OK(MPI_Type_free(&st1));
	MPI_OK(MPI_Type_free(&st2));
	MPI_OK(MPI_Type_free(&w_int));
}

static void run_all(MPI_Comm c, const char *name)
{
	comm = c;
	where = name;
	MPI_OK(MPI_Comm_rank(comm, &rank));
	MPI_OK(MPI_Comm_size(comm, &size));
	equivalent();
	if (size < 2)
		return;
	different_calls();
	blocking_nonblocking();
	root_and_op();
	signatures();
	allgather_types();
	per_pair();
	neighbours();
	in_place();
	equivalent();
}

int main(int argc, char **argv)
{
	MPI_Comm dups[40], far;
	int i;

	setenv("MPICHAN_CHECK", "coll", 1);
	t_init(&argc, &argv);
	run_all(MPI_COMM_WORLD, "MPI_COMM_WORLD");
	/*
	 * Context ids from 64 up have no channel in the collective area:
	 * there the checks go by messages.
	 */
	for (i = 0; i < 40; i++)
		MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dups[i]));
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &far));
	MPI_OK(MPI_Comm_set_errhandler(far, MPI_ERRORS_RETURN));
	run_all(far, "a communicator checked by messages");
	MPI_OK(MPI_Comm_free(&far));
	for (i = 0; i < 40; i++)
		MPI_OK(MPI_Comm_free(&dups[i]));
	if (t_rank == 0)
		printf("collcheck: %d ranks passed\n", t_size);
	return t_done();
}
