// SPDX-License-Identifier: MIT
/*
 * Graph and distributed graph topologies: Dist_graph_create_adjacent
 * keeps each process's neighbours and weights in order, and messages
 * sent along the out-edges arrive on the matching in-edges;
 * Dist_graph_create delivers edges specified anywhere to both their
 * ends in the documented order (specifying rank, then argument order),
 * computed here from the whole edge list; MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY; MPI-1 graphs (Graph_create, Graph_get,
 * Graph_neighbors); bad arguments.
 */
#include "test.h"

static int mod(int a)
{
	return ((a % t_size) + t_size) % t_size;
}

static void adjacent(void)
{
	int src[2] = { mod(t_rank - 1), mod(t_rank - 2) },
	    dst[2] = { mod(t_rank + 1), mod(t_rank + 2) },
	    sw[2] = { 100 * src[0] + t_rank, 100 * src[1] + t_rank },
	    dw[2] = { 100 * t_rank + dst[0], 100 * t_rank + dst[1] };
	int in, out, weighted, s[3] = { -1, -1, -1 }, w[3] = { -1, -1, -1 },
	    d[3], x[3], i, status, got[2];
	MPI_Comm g, dup;
	MPI_Request r[4];

	MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst,
					      dw, MPI_INFO_NULL, 1, &g));
	MPI_OK(MPI_Topo_test(g, &status));
	CHECK(status == MPI_DIST_GRAPH, "Topo_test %d", status);
	MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
	CHECK(in == 2 && out == 2 && weighted, "counts %d %d %d", in, out,
	      weighted);
	MPI_OK(MPI_Dist_graph_neighbors(g, 3, s, w, 3, d, x));
	for (i = 0; i < 2; i++)
		CHECK(s[i] == src[i] && w[i] == sw[i] && d[i] == dst[i] &&
		      x[i] == dw[i], "neighbour %d: %d(%d) %d(%d)", i, s[i],
		      w[i], d[i], x[i]);
	CHECK(s[2] == -1 && w[2] == -1, "wrote beyond the in-degree");
	/* maxindegree 1: the first source only. */
	s[0] = s[1] = -1;
	MPI_OK(MPI_Dist_graph_neighbors(g, 1, s, w, 0, NULL, NULL));
	CHECK(s[0] == src[0] && s[1] == -1, "maxindegree 1");

	/* Out-edge k carries its weight with tag k to in-edge k there. */
	for (i = 0; i < 2; i++) {
		MPI_OK(MPI_Irecv(&got[i], 1, MPI_INT, src[i], i, g, &r[i]));
		MPI_OK(MPI_Isend(&dw[i], 1, MPI_INT, dst[i], i, g, &r[2 + i]));
	}
	MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
	for (i = 0; i < 2; i++)
		CHECK(got[i] == sw[i], "edge from %d: weight %d, expected %d",
		      src[i], got[i], sw[i]);

	MPI_OK(MPI_Comm_dup(g, &dup));
	MPI_OK(MPI_Comm_free(&g));
	MPI_OK(MPI_Dist_graph_neighbors_count(dup, &in, &out, &weighted));
	CHECK(in == 2 && out == 2 && weighted, "dup: counts");
	MPI_OK(MPI_Comm_free(&dup));

	/* Unweighted: the weight arrays are not touched. */
	MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src,
					      MPI_UNWEIGHTED, 1, dst,
					      MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
					      &g));
	MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
	CHECK(in == 2 && out == 1 && !weighted, "unweighted counts %d %d %d",
	      in, out, weighted);
	w[0] = x[0] = -9;
	MPI_OK(MPI_Dist_graph_neighbors(g, 2, s, w, 1, d, x));
	CHECK(s[0] == src[0] && s[1] == src[1] && d[0] == dst[0] &&
	      w[0] == -9 && x[0] == -9, "unweighted neighbours");
	MPI_OK(MPI_Comm_free(&g));
}

/* Rank 0 has no edges (MPI_WEIGHTS_EMPTY); the others form a ring. */
static void empty_weights(void)
{
	int n = t_size - 1, me = t_rank - 1, nb, w, in, out, weighted;
	MPI_Comm g;

	if (t_rank == 0) {
		MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL,
						      MPI_WEIGHTS_EMPTY, 0, NULL,
						      MPI_WEIGHTS_EMPTY,
						      MPI_INFO_NULL, 0, &g));
		MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
		CHECK(!in && !out && weighted, "rank 0: %d %d %d", in, out,
		      weighted);
	} else {
		nb = 1 + (me + 1) % n;
		w = 5;
		MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1,
						      (int[]){ 1 + (me + n - 1) % n },
						      &w, 1, &nb, &w,
						      MPI_INFO_NULL, 0, &g));
		MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
		CHECK(in == 1 && out == 1 && weighted, "ring: %d %d %d", in,
		      out, weighted);
	}
	MPI_OK(MPI_Comm_free(&g));
}

/*
 * Every rank r specifies: r -> r+1, r -> r+2 and r+1 -> r, with weight
 * 1000 r + 10 k + 1 for its k-th edge; rank 0 also 0 -> each rank.
 */
struct edge { int s, d, w; };

static int edges_of(int r, struct edge *e)
{
	int n = 0, i;

	e[n++] = (struct edge){ r, mod(r + 1), 0 };
	e[n++] = (struct edge){ r, mod(r + 2), 0 };
	e[n++] = (struct edge){ mod(r + 1), r, 0 };
	if (r == 0)
		for (i = 0; i < t_size; i++)
			e[n++] = (struct edge){ 0, i, 0 };
	for (i = 0; i < n; i++)
		e[i].w = 1000 * r + 10 * i + 1;
	return n;
}

static void general(void)
{
	struct edge e[16];
	int n = edges_of(t_rank, e), i, j, k, srcs[16], degs[16], dsts[16],
	    ws[16], nsrc = 0, in, out, weighted, wi = 0, wo = 0;
	int *s, *sw, *d, *dw, *es, *esw, *ed, *edw;
	MPI_Comm g;

	/* Group this rank's edges by source, as the call takes them. */
	for (i = 0, k = 0; i < n; i++) {
		if (i && e[i].s == e[i - 1].s) {
			degs[nsrc - 1]++;
		} else {
			srcs[nsrc] = e[i].s;
			degs[nsrc++] = 1;
		}
		dsts[k] = e[i].d;
		ws[k++] = e[i].w;
	}
	MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, srcs, degs, dsts, ws,
				     MPI_INFO_NULL, 0, &g));
	MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
	CHECK(weighted, "general: not weighted");

	es = calloc(4 * (size_t)t_size * 16, sizeof(int));
	esw = es + t_size * 16;
	ed = esw + t_size * 16;
	edw = ed + t_size * 16;
	for (j = 0; j < t_size; j++) {
		n = edges_of(j, e);
		for (i = 0; i < n; i++) {
			if (e[i].s == t_rank) {
				ed[wo] = e[i].d;
				edw[wo++] = e[i].w;
			}
			if (e[i].d == t_rank) {
				es[wi] = e[i].s;
				esw[wi++] = e[i].w;
			}
		}
	}
	CHECK(in == wi && out == wo, "general: degrees %d %d, expected %d %d",
	      in, out, wi, wo);
	s = calloc(4 * (size_t)(in + out + 1), sizeof(int));
	sw = s + in + out + 1;
	d = sw + in + out + 1;
	dw = d + in + out + 1;
	MPI_OK(MPI_Dist_graph_neighbors(g, in, s, sw, out, d, dw));
	for (i = 0; i < in; i++)
		CHECK(s[i] == es[i] && sw[i] == esw[i],
		      "general: in-edge %d from %d (%d), expected %d (%d)", i,
		      s[i], sw[i], es[i], esw[i]);
	for (i = 0; i < out; i++)
		CHECK(d[i] == ed[i] && dw[i] == edw[i],
		      "general: out-edge %d to %d (%d), expected %d (%d)", i,
		      d[i], dw[i], ed[i], edw[i]);
	free(s);
	free(es);
	MPI_OK(MPI_Comm_free(&g));

	/* Nobody specifies anything: every process has no neighbours. */
	MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL,
				     MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
	MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
	CHECK(!in && !out && !weighted, "empty graph: %d %d %d", in, out,
	      weighted);
	MPI_OK(MPI_Comm_free(&g));
}

static void mpi1_graph(void)
{
	int nnodes, index[8], edges[16], i, n, e, status, nb[4], gi[8], ge[16],
	    rank;
	MPI_Comm g;

	for (nnodes = t_size; nnodes >= t_size - 1 && nnodes > 0; nnodes--) {
		/* A ring of nnodes: i's neighbours are i - 1 and i + 1. */
		for (i = 0; i < nnodes; i++) {
			index[i] = 2 * (i + 1);
			edges[2 * i] = (i + nnodes - 1) % nnodes;
			edges[2 * i + 1] = (i + 1) % nnodes;
		}
		MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &rank));
		CHECK(rank == (t_rank < nnodes ? t_rank : MPI_UNDEFINED),
		      "Graph_map");
		MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0,
					&g));
		if (t_rank >= nnodes) {
			CHECK(g == MPI_COMM_NULL, "rank outside the graph got a comm");
			continue;
		}
		MPI_OK(MPI_Topo_test(g, &status));
		CHECK(status == MPI_GRAPH, "Topo_test %d", status);
		MPI_OK(MPI_Graphdims_get(g, &n, &e));
		CHECK(n == nnodes && e == 2 * nnodes, "Graphdims %d %d", n, e);
		MPI_OK(MPI_Graph_get(g, 8, 16, gi, ge));
		CHECK(!memcmp(gi, index, (size_t)n * sizeof(int)) &&
		      !memcmp(ge, edges, (size_t)e * sizeof(int)), "Graph_get");
		for (i = 0; i < nnodes; i++) {
			MPI_OK(MPI_Graph_neighbors_count(g, i, &n));
			CHECK(n == 2, "node %d: %d neighbours", i, n);
			nb[1] = -1;
			MPI_OK(MPI_Graph_neighbors(g, i, 4, nb));
			CHECK(nb[0] == edges[2 * i] && nb[1] == edges[2 * i + 1],
			      "node %d: neighbours %d %d", i, nb[0], nb[1]);
		}
		t_expect(MPI_Graph_neighbors(g, nnodes, 4, nb), MPI_ERR_RANK,
		         "Graph_neighbors of rank nnodes");
		t_expect(MPI_Cart_shift(g, 0, 1, &n, &e), MPI_ERR_TOPOLOGY,
		         "Cart_shift on a graph");
		MPI_OK(MPI_Comm_free(&g));
	}
}

static void errors(void)
{
	static int junk[16];
	int bad = t_size, one = 1, neg = -1, w = 1, index[2] = { 1, 1 },
	    edge = t_size + 1, in, out, weighted, err;
	MPI_Comm g = MPI_COMM_NULL;

	t_expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, &w, 0,
					        NULL, &w, MPI_INFO_NULL, 0, &g),
	         MPI_ERR_RANK, "source = size");
	t_expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, NULL, &w, 0,
					        NULL, &w, MPI_INFO_NULL, 0, &g),
	         MPI_ERR_ARG, "indegree -1");
	t_expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &t_rank, &neg,
					        0, NULL, &w, MPI_INFO_NULL, 0, &g),
	         MPI_ERR_ARG, "negative weight");
	t_expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &t_rank, &w, 1,
					        &t_rank, MPI_UNWEIGHTED,
					        MPI_INFO_NULL, 0, &g),
	         MPI_ERR_ARG, "weights and MPI_UNWEIGHTED");
	t_expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &t_rank,
					        MPI_WEIGHTS_EMPTY, 0, NULL,
					        MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
					        0, &g),
	         MPI_ERR_ARG, "MPI_WEIGHTS_EMPTY for an edge");
	t_expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL,
					        MPI_UNWEIGHTED, 0, NULL,
					        MPI_UNWEIGHTED, (MPI_Info)junk, 0,
					        &g),
	         MPI_ERR_INFO, "not an info object");
	t_expect(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &t_rank, &neg, &one,
				       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
	         MPI_ERR_ARG, "negative degree");
	t_expect(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &t_rank, &one, &bad,
				       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
	         MPI_ERR_RANK, "destination = size");
	CHECK(g == MPI_COMM_NULL, "a failed call made a communicator");

	/* Weights on rank 0 only: every rank fails, none hangs. */
	err = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL,
					     t_rank ? MPI_UNWEIGHTED : MPI_WEIGHTS_EMPTY,
					     0, NULL,
					     t_rank ? MPI_UNWEIGHTED : MPI_WEIGHTS_EMPTY,
					     MPI_INFO_NULL, 0, &g);
	if (t_size > 1)
		t_expect(err, MPI_ERR_ARG, "weighted on rank 0 only");
	else
		MPI_OK(MPI_Comm_free(&g));

	t_expect(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out,
					        &weighted),
	         MPI_ERR_TOPOLOGY, "neighbours of WORLD");
	t_expect(MPI_Graph_create(MPI_COMM_WORLD, 1, index, &edge, 0, &g),
	         MPI_ERR_ARG, "edge outside the graph");
	t_expect(MPI_Graph_create(MPI_COMM_WORLD, t_size + 1, index, &edge, 0, &g),
	         MPI_ERR_TOPOLOGY, "graph larger than the communicator");
	index[0] = 2;
	index[1] = 1;
	t_expect(MPI_Graph_create(MPI_COMM_WORLD, 2, index, &edge, 0, &g),
	         t_size >= 2 ? MPI_ERR_ARG : MPI_ERR_TOPOLOGY, "decreasing index");
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	adjacent();
	if (t_size >= 2)
		empty_weights();
	general();
	mpi1_graph();
	errors();
	return t_done();
}
