// SPDX-License-Identifier: MIT
/*
 * Neighbourhood collectives, blocking and nonblocking, on every kind of
 * topology: a periodic ring (where at 1 and 2 ranks both neighbours are
 * the same rank, so the pairing of down and up blocks shows), a
 * non-periodic 2-D grid (MPI_PROC_NULL neighbours: their receive
 * blocks stay untouched), a grid with a periodic dimension of size 1,
 * a graph and an asymmetric distributed graph.  Every block carries
 * (sender, the neighbour it was meant for, which block), checked
 * against the topology's own neighbour lists.  The v/w variants use
 * per-neighbour counts and a derived receive type; bad arguments give
 * their error classes.
 */
#include "test.h"

#define UNTOUCHED (-77)

/* The value of element e of the block `from` sends to `to` as block j. */
static int val(int from, int to, int j, int e)
{
	return ((from * 64 + to) * 16 + j) * 8 + e;
}

struct nbrs {
	int nin, nout, cart;
	int in[64], out[64];
};

/* comm's neighbours through the topology calls. */
static void get_nbrs(MPI_Comm comm, struct nbrs *n)
{
	int kind, me, i, nd, w;

	MPI_OK(MPI_Comm_rank(comm, &me));
	MPI_OK(MPI_Topo_test(comm, &kind));
	n->cart = kind == MPI_CART;
	if (kind == MPI_CART) {
		MPI_OK(MPI_Cartdim_get(comm, &nd));
		for (i = 0; i < nd; i++)
			MPI_OK(MPI_Cart_shift(comm, i, 1, &n->in[2 * i],
					      &n->in[2 * i + 1]));
		n->nin = n->nout = 2 * nd;
		memcpy(n->out, n->in, sizeof(n->in));
	} else if (kind == MPI_GRAPH) {
		MPI_OK(MPI_Graph_neighbors_count(comm, me, &n->nin));
		MPI_OK(MPI_Graph_neighbors(comm, me, 64, n->in));
		n->nout = n->nin;
		memcpy(n->out, n->in, sizeof(n->in));
	} else {
		MPI_OK(MPI_Dist_graph_neighbors_count(comm, &n->nin, &n->nout,
						      &w));
		MPI_OK(MPI_Dist_graph_neighbors(comm, 64, n->in,
						MPI_UNWEIGHTED, 64, n->out,
						MPI_UNWEIGHTED));
	}
}

/*
 * Which of the sender's blocks lands in receive block i: the same index
 * for graphs; for a Cartesian grid the block sent up arrives in the
 * receiver's "down" slot and the other way round.
 */
static int sent_as(const struct nbrs *n, int i)
{
	return n->cart ? i ^ 1 : -1;
}

/* Complete req with MPI_Test only (a nonblocking call), or nothing. */
static void finish(MPI_Request *req)
{
	int flag = 0;

	if (*req == MPI_REQUEST_NULL)
		return;
	while (!flag)
		MPI_OK(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
}

/* Check block i (count ints at got) from in-neighbour src. */
static void check_block(const struct nbrs *n, int me, int i, const int *got,
			int count, const char *what)
{
	int e, j = sent_as(n, i), src = n->in[i];

	for (e = 0; e < count; e++) {
		if (src == MPI_PROC_NULL) {
			CHECK(got[e] == UNTOUCHED,
			      "%s: block %d from MPI_PROC_NULL was written", what, i);
			continue;
		}
		if (j < 0) {
			/* Graphs: any block the sender meant for us. */
			CHECK(got[e] / 8 / 16 == src * 64 + me,
			      "%s: block %d element %d is %d, not from %d for %d",
			      what, i, e, got[e], src, me);
		} else {
			CHECK(got[e] == val(src, me, j, e),
			      "%s: block %d element %d is %d, expected %d",
			      what, i, e, got[e], val(src, me, j, e));
		}
	}
}

static void test_allgather(MPI_Comm comm, int nb, const char *name)
{
	struct nbrs n;
	int me, i, e, sb[3], rb[64 * 3];
	MPI_Request req = MPI_REQUEST_NULL;
	char what[80];

	get_nbrs(comm, &n);
	MPI_OK(MPI_Comm_rank(comm, &me));
	for (e = 0; e < 3; e++)
		sb[e] = me * 1000 + e;
	for (i = 0; i < 64 * 3; i++)
		rb[i] = UNTOUCHED;
	if (nb)
		MPI_OK(MPI_Ineighbor_allgather(sb, 3, MPI_INT, rb, 3, MPI_INT,
					       comm, &req));
	else
		MPI_OK(MPI_Neighbor_allgather(sb, 3, MPI_INT, rb, 3, MPI_INT,
					      comm));
	finish(&req);
	snprintf(what, sizeof(what), "%sallgather on %s", nb ? "I" : "", name);
	for (i = 0; i < n.nin; i++)
		for (e = 0; e < 3; e++)
			CHECK(rb[3 * i + e] == (n.in[i] == MPI_PROC_NULL ?
						UNTOUCHED : n.in[i] * 1000 + e),
			      "%s: block %d element %d is %d", what, i, e,
			      rb[3 * i + e]);
	CHECK(rb[3 * n.nin] == UNTOUCHED, "%s: wrote past the blocks", what);
}

static void test_allgatherv(MPI_Comm comm, int nb, const char *name)
{
	struct nbrs n;
	int me, i, e, sb[8], rb[64 * 10], counts[64], displs[64], want;
	MPI_Request req = MPI_REQUEST_NULL;

	get_nbrs(comm, &n);
	MPI_OK(MPI_Comm_rank(comm, &me));
	/* Each sender sends 1 + its rank % 4 ints; blocks reversed, gapped. */
	for (e = 0; e < 8; e++)
		sb[e] = me * 1000 + e;
	for (i = 0; i < 64 * 10; i++)
		rb[i] = UNTOUCHED;
	for (i = 0; i < n.nin; i++) {
		counts[i] = n.in[i] == MPI_PROC_NULL ? 2 : 1 + n.in[i] % 4;
		displs[i] = (n.nin - 1 - i) * 6 + 1;
	}
	if (nb)
		MPI_OK(MPI_Ineighbor_allgatherv(sb, 1 + me % 4, MPI_INT, rb,
						counts, displs, MPI_INT, comm,
						&req));
	else
		MPI_OK(MPI_Neighbor_allgatherv(sb, 1 + me % 4, MPI_INT, rb,
					       counts, displs, MPI_INT, comm));
	finish(&req);
	for (i = 0; i < n.nin; i++)
		for (e = 0; e < counts[i]; e++) {
			want = n.in[i] == MPI_PROC_NULL ? UNTOUCHED :
				n.in[i] * 1000 + e;
			CHECK(rb[displs[i] + e] == want,
			      "%sallgatherv on %s: block %d element %d is %d, expected %d",
			      nb ? "I" : "", name, i, e, rb[displs[i] + e], want);
		}
	CHECK(rb[0] == UNTOUCHED, "allgatherv on %s: a gap was written", name);
}

static void test_alltoall(MPI_Comm comm, int nb, const char *name)
{
	struct nbrs n;
	int me, i, e, sb[64 * 2], rb[64 * 2 + 1];
	MPI_Request req = MPI_REQUEST_NULL;
	char what[80];

	get_nbrs(comm, &n);
	MPI_OK(MPI_Comm_rank(comm, &me));
	for (i = 0; i < n.nout; i++)
		for (e = 0; e < 2; e++)
			sb[2 * i + e] = val(me, n.out[i] < 0 ? 63 : n.out[i],
					    i, e);
	for (i = 0; i < 64 * 2 + 1; i++)
		rb[i] = UNTOUCHED;
	if (nb)
		MPI_OK(MPI_Ineighbor_alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT,
					      comm, &req));
	else
		MPI_OK(MPI_Neighbor_alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT,
					     comm));
	finish(&req);
	snprintf(what, sizeof(what), "%salltoall on %s", nb ? "I" : "", name);
	for (i = 0; i < n.nin; i++)
		check_block(&n, me, i, rb + 2 * i, 2, what);
	CHECK(rb[2 * n.nin] == UNTOUCHED, "%s: wrote past the blocks", what);
}

/*
 * alltoallv: block j to out-neighbour j has 1 + (me + j) % 3 ints, so
 * the receiver must know the sender's block index: Cartesian grids and
 * the distributed graph built below (where block j goes to me + j + 1
 * and block i comes from me - i - 1) allow it.  alltoallw: the same,
 * received through a type of every other int.
 */
static int blk_count(int from, int j)
{
	return 1 + (from + j) % 3;
}

static int in_block_index(const struct nbrs *n, int i)
{
	return n->cart ? i ^ 1 : i;
}

static void test_alltoallvw(MPI_Comm comm, int nb, int w, const char *name)
{
	struct nbrs n;
	int me, i, j, e, pos = 0, sb[64 * 3], rb[64 * 8];
	int sc[64], sd[64], rc[64], rd[64];
	MPI_Aint sdb[64], rdb[64];
	MPI_Datatype st[64], rt[64], one, every_other;
	MPI_Request req = MPI_REQUEST_NULL;
	char what[80];

	get_nbrs(comm, &n);
	MPI_OK(MPI_Comm_rank(comm, &me));
	MPI_OK(MPI_Type_vector(1, 1, 2, MPI_INT, &one));
	MPI_OK(MPI_Type_create_resized(one, 0, 2 * sizeof(int), &every_other));
	MPI_OK(MPI_Type_free(&one));
	MPI_OK(MPI_Type_commit(&every_other));
	for (j = 0; j < n.nout; j++) {
		sc[j] = blk_count(me, j);
		sd[j] = pos;
		sdb[j] = (MPI_Aint)pos * (MPI_Aint)sizeof(int);
		st[j] = MPI_INT;
		for (e = 0; e < sc[j]; e++)
			sb[pos++] = val(me, n.out[j] < 0 ? 63 : n.out[j], j, e);
	}
	pos = 0;
	for (i = 0; i < n.nin; i++) {
		rc[i] = n.in[i] < 0 ? 1 : blk_count(n.in[i], in_block_index(&n, i));
		rd[i] = pos;
		rt[i] = every_other;
		rdb[i] = (MPI_Aint)pos * (MPI_Aint)sizeof(int);
		pos += w ? 2 * rc[i] + 1 : rc[i] + 1;
	}
	for (i = 0; i < 64 * 8; i++)
		rb[i] = UNTOUCHED;
	if (w && nb)
		MPI_OK(MPI_Ineighbor_alltoallw(sb, sc, sdb, st, rb, rc, rdb, rt,
					       comm, &req));
	else if (w)
		MPI_OK(MPI_Neighbor_alltoallw(sb, sc, sdb, st, rb, rc, rdb, rt,
					      comm));
	else if (nb)
		MPI_OK(MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd,
					       MPI_INT, comm, &req));
	else
		MPI_OK(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd,
					      MPI_INT, comm));
	finish(&req);
	snprintf(what, sizeof(what), "%salltoall%s on %s", nb ? "I" : "",
		 w ? "w" : "v", name);
	for (i = 0; i < n.nin; i++) {
		j = in_block_index(&n, i);
		for (e = 0; e < rc[i]; e++) {
			int got = rb[rd[i] + (w ? 2 * e : e)];
			int want = n.in[i] < 0 ? UNTOUCHED : val(n.in[i], me, j, e);

			CHECK(got == want, "%s: block %d element %d is %d, expected %d",
			      what, i, e, got, want);
			if (w)
				CHECK(rb[rd[i] + 2 * e + 1] == UNTOUCHED,
				      "%s: a gap of the type was written", what);
		}
		CHECK(rb[rd[i] + (w ? 2 * rc[i] : rc[i])] == UNTOUCHED,
		      "%s: block %d ran over", what, i);
	}
	MPI_OK(MPI_Type_free(&every_other));
}

static void run_all(MPI_Comm comm, const char *name, int v)
{
	int nb;

	if (comm == MPI_COMM_NULL)
		return;
	for (nb = 0; nb < 2; nb++) {
		test_allgather(comm, nb, name);
		test_allgatherv(comm, nb, name);
		test_alltoall(comm, nb, name);
		if (v) {
			test_alltoallvw(comm, nb, 0, name);
			test_alltoallvw(comm, nb, 1, name);
		}
	}
}

static void test_errors(MPI_Comm cart)
{
	int x[128], c[64] = { 0 }, d[64] = { 0 };
	MPI_Request req;

	T_EXPECT(MPI_Neighbor_allgather(x, 1, MPI_INT, x + 64, 1, MPI_INT,
					MPI_COMM_WORLD),
		 MPI_ERR_TOPOLOGY, "allgather without a topology");
	T_EXPECT(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, x, 1, MPI_INT,
				       cart),
		 MPI_ERR_BUFFER, "alltoall MPI_IN_PLACE");
	T_EXPECT(MPI_Neighbor_allgather(x, -1, MPI_INT, x + 64, 1, MPI_INT,
					cart),
		 MPI_ERR_COUNT, "allgather negative count");
	T_EXPECT(MPI_Neighbor_alltoall(x, 1, MPI_DATATYPE_NULL, x + 64, 1,
				       MPI_INT, cart),
		 MPI_ERR_TYPE, "alltoall MPI_DATATYPE_NULL");
	T_EXPECT(MPI_Ineighbor_alltoall(x, 1, MPI_INT, x + 64, 1, MPI_INT,
					cart, NULL),
		 MPI_ERR_REQUEST, "Ineighbor_alltoall NULL request");
	T_EXPECT(MPI_Neighbor_alltoallv(x, c, d, MPI_INT, x + 64, NULL, d,
					MPI_INT, cart),
		 MPI_ERR_ARG, "alltoallv NULL counts");
	T_EXPECT(MPI_Neighbor_allgather(x, 1, MPI_INT, x + 64, 1, MPI_INT,
					MPI_COMM_NULL),
		 MPI_ERR_COMM, "allgather MPI_COMM_NULL");
	(void)req;
}

int main(int argc, char **argv)
{
	int dims[2] = { 0, 0 }, per[2] = { 1, 1 }, i, n;
	int index[64], edges[128], srcs[2], dsts[2];
	MPI_Comm ring, grid, flat, graph, dist;

	t_init(&argc, &argv);
	n = t_size;

	dims[0] = n;
	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring));
	MPI_OK(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
	run_all(ring, "periodic ring", 1);

	dims[0] = dims[1] = 0;
	MPI_OK(MPI_Dims_create(n, 2, dims));
	per[0] = per[1] = 0;
	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &grid));
	run_all(grid, "non-periodic grid", 1);

	dims[0] = n;
	dims[1] = 1;
	per[0] = 0;
	per[1] = 1;
	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &flat));
	run_all(flat, "grid with a periodic dimension of size 1", 1);

	/* A graph: each rank's neighbours are the next two (repeats at n < 3). */
	for (i = 0; i < n; i++) {
		index[i] = 2 * (i + 1);
		edges[2 * i] = (i + 1) % n;
		edges[2 * i + 1] = (i + n - 1) % n;
	}
	MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph));
	run_all(graph, "graph", 0);

	/* Asymmetric: send to me + 1 and me + 2, receive from me - 1, me - 2. */
	dsts[0] = (t_rank + 1) % n;
	dsts[1] = (t_rank + 2) % n;
	srcs[0] = (t_rank + n - 1) % n;
	srcs[1] = (t_rank + n - 2) % n;
	MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs,
					      MPI_UNWEIGHTED, 2, dsts,
					      MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
					      &dist));
	/* alltoallv's block index check holds when me+j+1 never repeats. */
	run_all(dist, "distributed graph", n >= 3);

	test_errors(ring);
	MPI_OK(MPI_Comm_free(&ring));
	MPI_OK(MPI_Comm_free(&grid));
	MPI_OK(MPI_Comm_free(&flat));
	MPI_OK(MPI_Comm_free(&graph));
	MPI_OK(MPI_Comm_free(&dist));
	return t_done();
}
