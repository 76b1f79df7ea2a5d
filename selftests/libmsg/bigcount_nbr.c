// SPDX-License-Identifier: MIT
// libmsg-test: np=1,2,3,4,8 builds=plain,asan
/*
 * The large-count v and w neighbourhood collectives of MPI-4.0 with
 * small counts, blocking, nonblocking and persistent (started twice):
 * MPI_Neighbor_allgatherv_c, Neighbor_alltoallv_c and
 * Neighbor_alltoallw_c on a periodic ring (a 1-D Cartesian topology:
 * the left neighbour, then the right), each block landing at its
 * displacement with a gap left untouched, and on a distributed graph
 * where each rank hears from its left only and sends to its right
 * only (in- and outdegree 1).  A count of 2^32 + 7 elements is not
 * taken as 7: the v calls say MPI_ERR_COUNT (no unit brings it into
 * an int with its displacements); a negative count is MPI_ERR_COUNT; a
 * communicator without a topology MPI_ERR_TOPOLOGY.
 */
#include "test.h"

#define C 5
#define GAP 1

static int left, right;

static int val(int rank, int i)
{
	return rank * 1000 + i;
}

/* form 0: blocking, 1: nonblocking, 2: persistent, started twice. */
#define RUN(form, blocking, nonblocking, persistent) do {		\
	MPI_Request _q;							\
	int _k;								\
	if ((form) == 0) {						\
		MPI_OK(blocking);					\
	} else if ((form) == 1) {					\
		MPI_OK(nonblocking);					\
		MPI_OK(MPI_Wait(&_q, MPI_STATUS_IGNORE));		\
	} else {							\
		MPI_OK(persistent);					\
		for (_k = 0; _k < 2; _k++) {				\
			MPI_OK(MPI_Start(&_q));				\
			MPI_OK(MPI_Wait(&_q, MPI_STATUS_IGNORE));	\
		}							\
		MPI_OK(MPI_Request_free(&_q));				\
	}								\
} while (0)

#define I MPI_INFO_NULL

/* r: C of from0's (base b0) at 0, a gap, C of from1's (b1) after it. */
static void check(const int *r, int from0, int b0, int from1, int b1,
		  const char *what, int form)
{
	int i;

	for (i = 0; i < C; i++) {
		CHECK(r[i] == val(from0, b0 + i), "%s (form %d): block 0 element %d is %d, expected %d",
		      what, form, i, r[i], val(from0, b0 + i));
		CHECK(r[C + GAP + i] == val(from1, b1 + i),
		      "%s (form %d): block 1 element %d is %d, expected %d",
		      what, form, i, r[C + GAP + i], val(from1, b1 + i));
	}
	CHECK(r[C] == -1, "%s (form %d): the gap was written (%d)", what, form,
	      r[C]);
}

static void ring(int form)
{
	int n = t_size, per = 1, i, s[2 * C], r[2 * C + GAP];
	MPI_Count sc[2] = { C, C }, rc[2] = { C, C };
	MPI_Aint sd[2] = { 0, C }, rd[2] = { 0, C + GAP };
	MPI_Aint sdb[2] = { 0, C * sizeof(int) };
	MPI_Aint rdb[2] = { 0, (C + GAP) * sizeof(int) };
	MPI_Datatype ty[2] = { MPI_INT, MPI_INT };
	MPI_Comm ring;

	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &per, 0, &ring));
	for (i = 0; i < 2 * C; i++)
		s[i] = val(t_rank, (i / C) * 100 + i % C);
	memset(r, 0xff, sizeof(r));
	RUN(form, MPI_Neighbor_allgatherv_c(s, C, MPI_INT, r, rc, rd, MPI_INT,
					    ring),
	    MPI_Ineighbor_allgatherv_c(s, C, MPI_INT, r, rc, rd, MPI_INT, ring,
				       &_q),
	    MPI_Neighbor_allgatherv_init_c(s, C, MPI_INT, r, rc, rd, MPI_INT,
					   ring, I, &_q));
	check(r, left, 0, right, 0, "Neighbor_allgatherv_c", form);
	/* Block 0 goes left, block 1 right. */
	memset(r, 0xff, sizeof(r));
	RUN(form, MPI_Neighbor_alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd,
					   MPI_INT, ring),
	    MPI_Ineighbor_alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT,
				      ring, &_q),
	    MPI_Neighbor_alltoallv_init_c(s, sc, sd, MPI_INT, r, rc, rd,
					  MPI_INT, ring, I, &_q));
	check(r, left, 100, right, 0, "Neighbor_alltoallv_c", form);
	memset(r, 0xff, sizeof(r));
	RUN(form, MPI_Neighbor_alltoallw_c(s, sc, sdb, ty, r, rc, rdb, ty,
					   ring),
	    MPI_Ineighbor_alltoallw_c(s, sc, sdb, ty, r, rc, rdb, ty, ring,
				      &_q),
	    MPI_Neighbor_alltoallw_init_c(s, sc, sdb, ty, r, rc, rdb, ty,
					  ring, I, &_q));
	check(r, left, 100, right, 0, "Neighbor_alltoallw_c", form);
	MPI_OK(MPI_Comm_free(&ring));
}

/* Each rank hears from its left and sends to its right: degree 1. */
static void chain(int form)
{
	int s[C], r[C + GAP], i;
	MPI_Count c[1] = { C };
	MPI_Aint d[1] = { 0 }, db[1] = { 0 };
	MPI_Datatype ty[1] = { MPI_INT };
	MPI_Comm g;

	MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left,
					      MPI_UNWEIGHTED, 1, &right,
					      MPI_UNWEIGHTED, I, 0, &g));
	for (i = 0; i < C; i++)
		s[i] = val(t_rank, 200 + i);
	memset(r, 0xff, sizeof(r));
	RUN(form, MPI_Neighbor_allgatherv_c(s, C, MPI_INT, r, c, d, MPI_INT, g),
	    MPI_Ineighbor_allgatherv_c(s, C, MPI_INT, r, c, d, MPI_INT, g, &_q),
	    MPI_Neighbor_allgatherv_init_c(s, C, MPI_INT, r, c, d, MPI_INT, g,
					   I, &_q));
	for (i = 0; i < C; i++)
		CHECK(r[i] == val(left, 200 + i), "chain allgatherv (form %d): element %d is %d",
		      form, i, r[i]);
	memset(r, 0xff, sizeof(r));
	RUN(form, MPI_Neighbor_alltoallv_c(s, c, d, MPI_INT, r, c, d, MPI_INT, g),
	    MPI_Ineighbor_alltoallv_c(s, c, d, MPI_INT, r, c, d, MPI_INT, g,
				      &_q),
	    MPI_Neighbor_alltoallv_init_c(s, c, d, MPI_INT, r, c, d, MPI_INT, g,
					  I, &_q));
	for (i = 0; i < C; i++)
		CHECK(r[i] == val(left, 200 + i), "chain alltoallv (form %d): element %d is %d",
		      form, i, r[i]);
	memset(r, 0xff, sizeof(r));
	RUN(form, MPI_Neighbor_alltoallw_c(s, c, db, ty, r, c, db, ty, g),
	    MPI_Ineighbor_alltoallw_c(s, c, db, ty, r, c, db, ty, g, &_q),
	    MPI_Neighbor_alltoallw_init_c(s, c, db, ty, r, c, db, ty, g, I,
					  &_q));
	for (i = 0; i < C; i++)
		CHECK(r[i] == val(left, 200 + i), "chain alltoallw (form %d): element %d is %d",
		      form, i, r[i]);
	CHECK(r[C] == -1, "chain: past the block written");
	MPI_OK(MPI_Comm_free(&g));
}

static void errors(void)
{
	MPI_Count big = ((MPI_Count)1 << 32) + 7, c[2] = { big, big };
	MPI_Aint d[2] = { 0, 3 };
	int s[C], r[C], n = t_size, per = 1;
	MPI_Comm ring;

	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &per, 0, &ring));
	MPI_OK(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
	/* gcd(2^32 + 7, 3) is 1: no unit brings 2^32 + 7 into an int. */
	T_EXPECT(MPI_Neighbor_allgatherv_c(s, C, MPI_INT, r, c, d, MPI_INT,
					   ring),
		 MPI_ERR_COUNT, "Neighbor_allgatherv_c of 2^32 + 7");
	T_EXPECT(MPI_Neighbor_alltoallv_c(s, c, d, MPI_INT, r, c, d, MPI_INT,
					  ring),
		 MPI_ERR_COUNT, "Neighbor_alltoallv_c of 2^32 + 7");
	c[0] = c[1] = -1;
	T_EXPECT(MPI_Neighbor_alltoallv_c(s, c, d, MPI_INT, r, c, d, MPI_INT,
					  ring),
		 MPI_ERR_COUNT, "Neighbor_alltoallv_c of -1");
	T_EXPECT(MPI_Neighbor_alltoallw_c(s, c, d, (MPI_Datatype[]){ MPI_INT,
					  MPI_INT }, r, c, d, (MPI_Datatype[]){
					  MPI_INT, MPI_INT }, ring),
		 MPI_ERR_COUNT, "Neighbor_alltoallw_c of -1");
	T_EXPECT(MPI_Neighbor_allgatherv_c(s, C, MPI_INT, r, c, d, MPI_INT,
					   MPI_COMM_WORLD),
		 MPI_ERR_TOPOLOGY, "Neighbor_allgatherv_c without a topology");
	MPI_OK(MPI_Comm_free(&ring));
}

int main(int argc, char **argv)
{
	int form;

	t_init(&argc, &argv);
	left = (t_rank + t_size - 1) % t_size;
	right = (t_rank + 1) % t_size;
	for (form = 0; form < 3; form++) {
		ring(form);
		chain(form);
	}
	errors();
	return t_done();
}
