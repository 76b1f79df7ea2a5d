// SPDX-License-Identifier: MIT
/*
 * Graph topologies (MPI-1 MPI_Graph_*: every process holds the whole
 * graph) and distributed graph topologies (MPI_Dist_graph_*: each
 * process holds its own in- and out-neighbours, with optional weights).
 *
 * MPI_Dist_graph_create_adjacent takes each process's neighbours as
 * given and keeps their order.  MPI_Dist_graph_create takes edges that
 * any process may specify; they are sent to both their ends with one
 * MPI_Alltoall of counts and one MPI_Alltoallv of (end, peer, weight)
 * records over the old communicator, so a process's neighbours come in
 * the order of the specifying process's rank, then of its arguments.
 * Multiple edges between two processes are kept (MPI allows them).
 *
 * The neighbour queries copy at most the caller's array sizes (the
 * first maxindegree sources, ...), as MPI's "size of array" arguments
 * say.
 */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "comm/topo.h"

int libmsg_unweighted[1], libmsg_weights_empty[1];

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

/* memcpy of n ints, where n may be 0 and the pointers NULL. */
static void copy_ints(int *to, const int *from, int n)
{
	if (n > 0)
		memcpy(to, from, (size_t)n * sizeof(int));
}

/* ---- Graph topologies -------------------------------------------------- */

static int check_graph(MPI_Comm comm, const char *fn, int nnodes,
		       const int index[], const int edges[])
{
	int i, err = lm_check_intra(comm, fn);

	if (err)
		return err;
	if (nnodes < 0)
		return lm_error(comm, fn, MPI_ERR_ARG, "nnodes %d is negative",
				nnodes);
	if (nnodes > comm->size)
		return lm_error(comm, fn, MPI_ERR_TOPOLOGY,
				"%d nodes, more than the communicator's %d processes",
				nnodes, comm->size);
	if (nnodes && !index)
		return lm_error(comm, fn, MPI_ERR_ARG, "index is NULL");
	for (i = 0; i < nnodes; i++)
		if (index[i] < (i ? index[i - 1] : 0))
			return lm_error(comm, fn, MPI_ERR_ARG,
					"index[%d] = %d is less than the one before",
					i, index[i]);
	if (nnodes && index[nnodes - 1] && !edges)
		return lm_error(comm, fn, MPI_ERR_ARG, "edges is NULL");
	for (i = 0; nnodes && i < index[nnodes - 1]; i++)
		if (edges[i] < 0 || edges[i] >= nnodes)
			return lm_error(comm, fn, MPI_ERR_ARG,
					"edges[%d] = %d is not a node (0..%d)",
					i, edges[i], nnodes - 1);
	return MPI_SUCCESS;
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
		     const int edges[], int reorder, MPI_Comm *comm_graph)
{
	LM_GUARD();
	static const char fn[] = "MPI_Graph_create";
	struct lm_topo *t;
	int nedges, err = check_graph(comm_old, fn, nnodes, index, edges);

	(void)reorder;
	if (err)
		return err;
	if (!comm_graph)
		return lm_error(comm_old, fn, MPI_ERR_ARG, "comm_graph is NULL");
	nedges = nnodes ? index[nnodes - 1] : 0;
	t = lm_topo_alloc(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
	if (!t)
		return lm_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
	t->nnodes = nnodes;
	t->nedges = nedges;
	t->index = t->mem;
	t->edges = t->mem + nnodes;
	copy_ints(t->index, index, nnodes);
	copy_ints(t->edges, edges, nedges);
	return lm_topo_comm(comm_old, fn,
			    comm_old->rank < nnodes ? 0 : MPI_UNDEFINED,
			    comm_old->rank, t, comm_graph);
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[],
		  const int edges[], int *newrank)
{
	LM_GUARD();
	static const char fn[] = "MPI_Graph_map";
	int err = check_graph(comm, fn, nnodes, index, edges);

	if (err)
		return err;
	if (!newrank)
		return lm_error(comm, fn, MPI_ERR_ARG, "newrank is NULL");
	*newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
	LM_GUARD();
	static const char fn[] = "MPI_Graphdims_get";
	int err;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_GRAPH, &err);

	if (!t)
		return err;
	if (!nnodes || !nedges)
		return lm_error(comm, fn, MPI_ERR_ARG, "nnodes or nedges is NULL");
	*nnodes = t->nnodes;
	*nedges = t->nedges;
	return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[],
		  int edges[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Graph_get";
	int err;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_GRAPH, &err);

	if (!t)
		return err;
	if (maxindex < 0 || maxedges < 0)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"maxindex %d or maxedges %d is negative",
				maxindex, maxedges);
	if ((maxindex && t->nnodes && !index) ||
	    (maxedges && t->nedges && !edges))
		return lm_error(comm, fn, MPI_ERR_ARG, "index or edges is NULL");
	copy_ints(index, t->index, min_int(maxindex, t->nnodes));
	copy_ints(edges, t->edges, min_int(maxedges, t->nedges));
	return MPI_SUCCESS;
}

/* Rank's neighbours in a graph topology: edges[*first .. *first + n). */
static int graph_rank(MPI_Comm comm, const char *fn, int rank,
		      struct lm_topo **tp, int *first, int *n)
{
	int err;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_GRAPH, &err);

	if (!t)
		return err;
	if (rank < 0 || rank >= t->nnodes)
		return lm_error(comm, fn, MPI_ERR_RANK, "rank %d not in 0..%d",
				rank, t->nnodes - 1);
	*first = rank ? t->index[rank - 1] : 0;
	*n = t->index[rank] - *first;
	*tp = t;
	return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
	LM_GUARD();
	static const char fn[] = "MPI_Graph_neighbors_count";
	struct lm_topo *t;
	int first, n, err = graph_rank(comm, fn, rank, &t, &first, &n);

	if (err)
		return err;
	if (!nneighbors)
		return lm_error(comm, fn, MPI_ERR_ARG, "nneighbors is NULL");
	*nneighbors = n;
	return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
			int neighbors[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Graph_neighbors";
	struct lm_topo *t;
	int first, n, err = graph_rank(comm, fn, rank, &t, &first, &n);

	if (err)
		return err;
	if (maxneighbors < 0)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"maxneighbors %d is negative", maxneighbors);
	n = min_int(n, maxneighbors);
	if (n && !neighbors)
		return lm_error(comm, fn, MPI_ERR_ARG, "neighbors is NULL");
	copy_ints(neighbors, t->edges + first, n);
	return MPI_SUCCESS;
}

/* ---- Distributed graph topologies ----------------------------------------- */

/*
 * A weights argument for `degree` edges: *weighted is 0 for
 * MPI_UNWEIGHTED, else 1.  MPI_WEIGHTS_EMPTY only for no edges.
 */
static int check_weights(MPI_Comm comm, const char *fn, const char *what,
			 const int *w, int degree, int *weighted)
{
	int i;

	*weighted = w != MPI_UNWEIGHTED;
	if (!*weighted)
		return MPI_SUCCESS;
	if (degree && (!w || w == MPI_WEIGHTS_EMPTY))
		return lm_error(comm, fn, MPI_ERR_ARG, "%s is %s for %d edges",
				what, w ? "MPI_WEIGHTS_EMPTY" : "NULL", degree);
	for (i = 0; i < degree; i++)
		if (w[i] < 0)
			return lm_error(comm, fn, MPI_ERR_ARG,
					"%s[%d] = %d is negative", what, i, w[i]);
	return MPI_SUCCESS;
}

static int check_ranks(MPI_Comm comm, const char *fn, const char *what,
		       const int *r, int n)
{
	int i;

	if (n < 0)
		return lm_error(comm, fn, MPI_ERR_ARG, "%d %s", n, what);
	if (n && !r)
		return lm_error(comm, fn, MPI_ERR_ARG, "%s is NULL", what);
	for (i = 0; i < n; i++)
		if (r[i] < 0 || r[i] >= comm->size)
			return lm_error(comm, fn, MPI_ERR_RANK,
					"%s[%d] = %d not in 0..%d", what, i,
					r[i], comm->size - 1);
	return MPI_SUCCESS;
}

static struct lm_topo *dist_new(int indegree, int outdegree, int weighted)
{
	size_t n = (size_t)(indegree + outdegree) * (weighted ? 2 : 1);
	struct lm_topo *t = lm_topo_alloc(MPI_DIST_GRAPH, n);

	if (!t)
		return NULL;
	t->indegree = indegree;
	t->outdegree = outdegree;
	t->weighted = weighted;
	t->sources = t->mem;
	t->destinations = t->mem + indegree;
	if (weighted) {
		t->sourceweights = t->destinations + outdegree;
		t->destweights = t->sourceweights + indegree;
	}
	return t;
}

/* Do all processes of comm agree on weighted?  A raised error if not. */
static int agree_weighted(MPI_Comm comm, const char *fn, int weighted)
{
	int v[2] = { weighted, !weighted }, err;

	err = MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, comm);
	if (err)
		return err;
	if (v[0] && v[1])
		return lm_error(comm, fn, MPI_ERR_ARG,
				"some processes gave weights, others MPI_UNWEIGHTED");
	return MPI_SUCCESS;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
				   const int sources[],
				   const int sourceweights[], int outdegree,
				   const int destinations[],
				   const int destweights[], MPI_Info info,
				   int reorder, MPI_Comm *comm_dist_graph)
{
	LM_GUARD();
	static const char fn[] = "MPI_Dist_graph_create_adjacent";
	struct lm_topo *t;
	int win, wout, err = lm_check_intra(comm_old, fn);

	(void)reorder;
	if (!err)
		err = check_ranks(comm_old, fn, "sources", sources, indegree);
	if (!err)
		err = check_ranks(comm_old, fn, "destinations", destinations,
				  outdegree);
	if (!err)
		err = check_weights(comm_old, fn, "sourceweights", sourceweights,
				    indegree, &win);
	if (!err)
		err = check_weights(comm_old, fn, "destweights", destweights,
				    outdegree, &wout);
	if (!err && win != wout)
		err = lm_error(comm_old, fn, MPI_ERR_ARG,
			       "one of sourceweights and destweights is MPI_UNWEIGHTED");
	if (!err)
		err = lm_check_info_arg(comm_old, info, fn);
	if (!err && !comm_dist_graph)
		err = lm_error(comm_old, fn, MPI_ERR_ARG,
			       "comm_dist_graph is NULL");
	if (!err)
		err = agree_weighted(comm_old, fn, win);
	if (err)
		return err;
	t = dist_new(indegree, outdegree, win);
	if (!t)
		return lm_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
	copy_ints(t->sources, sources, indegree);
	copy_ints(t->destinations, destinations, outdegree);
	if (win) {
		copy_ints(t->sourceweights, sourceweights, indegree);
		copy_ints(t->destweights, destweights, outdegree);
	}
	return lm_topo_comm(comm_old, fn, 0, comm_old->rank, t, comm_dist_graph);
}

/* Records sent to the ends of an edge: (what, peer, weight). */
enum { END_SOURCE, END_DEST };

/* The edges this process specifies, as records to their ends. */
static int *edge_records(MPI_Comm comm, int n, const int sources[],
			 const int degrees[], const int destinations[],
			 const int weights[], int weighted, int *sendcounts,
			 int *sdispls)
{
	int i, j, k, p, *rec, *fill;
	size_t total = 0;

	memset(sendcounts, 0, (size_t)comm->size * sizeof(int));
	for (i = 0, k = 0; i < n; i++) {
		for (j = 0; j < degrees[i]; j++, k++) {
			sendcounts[sources[i]] += 3;
			sendcounts[destinations[k]] += 3;
		}
	}
	for (p = 0; p < comm->size; p++) {
		sdispls[p] = (int)total;
		total += (size_t)sendcounts[p];
	}
	rec = malloc((total ? total : 1) * sizeof(int));
	fill = malloc((size_t)comm->size * sizeof(int));
	if (!rec || !fill) {
		free(rec);
		free(fill);
		return NULL;
	}
	memcpy(fill, sdispls, (size_t)comm->size * sizeof(int));
	for (i = 0, k = 0; i < n; i++) {
		for (j = 0; j < degrees[i]; j++, k++) {
			int s = sources[i], d = destinations[k],
			    w = weighted ? weights[k] : 1;

			rec[fill[s]++] = END_SOURCE;
			rec[fill[s]++] = d;
			rec[fill[s]++] = w;
			rec[fill[d]++] = END_DEST;
			rec[fill[d]++] = s;
			rec[fill[d]++] = w;
		}
	}
	free(fill);
	return rec;
}

static int check_dist_edges(MPI_Comm comm, const char *fn, int n,
			    const int sources[], const int degrees[],
			    const int destinations[], const int weights[],
			    int *nedges, int *weighted)
{
	int i, err = check_ranks(comm, fn, "sources", sources, n);
	long long sum = 0;

	if (err)
		return err;
	if (n && !degrees)
		return lm_error(comm, fn, MPI_ERR_ARG, "degrees is NULL");
	for (i = 0; i < n; i++) {
		if (degrees[i] < 0)
			return lm_error(comm, fn, MPI_ERR_ARG,
					"degrees[%d] = %d is negative", i,
					degrees[i]);
		sum += degrees[i];
		/* Each edge becomes 6 ints of records. */
		if (sum > INT_MAX / 6)
			return lm_error(comm, fn, MPI_ERR_ARG,
					"more than %d edges", INT_MAX / 6);
	}
	*nedges = (int)sum;
	err = check_ranks(comm, fn, "destinations", destinations, *nedges);
	if (!err)
		err = check_weights(comm, fn, "weights", weights, *nedges,
				    weighted);
	return err;
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
			  const int degrees[], const int destinations[],
			  const int weights[], MPI_Info info, int reorder,
			  MPI_Comm *comm_dist_graph)
{
	LM_GUARD();
	static const char fn[] = "MPI_Dist_graph_create";
	struct lm_topo *t = NULL;
	int *counts = NULL, *rec = NULL, *in = NULL, nedges = 0, weighted = 0, err,
	    size, p, i, nin = 0, nout = 0, total = 0;

	(void)reorder;
	err = lm_check_intra(comm_old, fn);
	if (!err)
		err = check_dist_edges(comm_old, fn, n, sources, degrees,
				       destinations, weights, &nedges,
				       &weighted);
	if (!err)
		err = lm_check_info_arg(comm_old, info, fn);
	if (!err && !comm_dist_graph)
		err = lm_error(comm_old, fn, MPI_ERR_ARG,
			       "comm_dist_graph is NULL");
	if (!err)
		err = agree_weighted(comm_old, fn, weighted);
	if (err)
		return err;
	size = comm_old->size;
	/* sendcounts, sdispls, recvcounts, rdispls */
	counts = malloc(4 * (size_t)size * sizeof(int));
	if (counts)
		rec = edge_records(comm_old, n, sources, degrees, destinations,
				   weights, weighted, counts, counts + size);
	if (!rec) {
		err = lm_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
		goto out;
	}
	err = MPI_Alltoall(counts, 1, MPI_INT, counts + 2 * size, 1, MPI_INT,
			   comm_old);
	if (err)
		goto out;
	for (p = 0; p < size; p++) {
		counts[3 * size + p] = total;
		total += counts[2 * size + p];
	}
	in = malloc((total ? (size_t)total : 1) * sizeof(int));
	if (!in) {
		err = lm_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
		goto out;
	}
	err = MPI_Alltoallv(rec, counts, counts + size, MPI_INT, in,
			    counts + 2 * size, counts + 3 * size, MPI_INT,
			    comm_old);
	if (err)
		goto out;
	for (i = 0; i < total; i += 3) {
		if (in[i] == END_SOURCE)
			nout++;
		else
			nin++;
	}
	t = dist_new(nin, nout, weighted);
	if (!t) {
		err = lm_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
		goto out;
	}
	for (i = 0, nin = 0, nout = 0; i < total; i += 3) {
		if (in[i] == END_SOURCE) {
			t->destinations[nout] = in[i + 1];
			if (weighted)
				t->destweights[nout] = in[i + 2];
			nout++;
		} else {
			t->sources[nin] = in[i + 1];
			if (weighted)
				t->sourceweights[nin] = in[i + 2];
			nin++;
		}
	}
	err = lm_topo_comm(comm_old, fn, 0, comm_old->rank, t, comm_dist_graph);
out:
	free(in);
	free(rec);
	free(counts);
	return err;
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
				   int *outdegree, int *weighted)
{
	LM_GUARD();
	static const char fn[] = "MPI_Dist_graph_neighbors_count";
	int err;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_DIST_GRAPH, &err);

	if (!t)
		return err;
	if (!indegree || !outdegree || !weighted)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"indegree, outdegree or weighted is NULL");
	*indegree = t->indegree;
	*outdegree = t->outdegree;
	*weighted = t->weighted;
	return MPI_SUCCESS;
}

/* Copy up to max of n neighbours (and weights when asked and known). */
static void copy_neighbours(int max, int n, int *ranks, int *weights,
			    const int *from, const int *from_w)
{
	n = min_int(n, max);
	copy_ints(ranks, from, n);
	if (from_w && weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY)
		copy_ints(weights, from_w, n);
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
			     int sourceweights[], int maxoutdegree,
			     int destinations[], int destweights[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Dist_graph_neighbors";
	int err;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_DIST_GRAPH, &err);

	if (!t)
		return err;
	if (maxindegree < 0 || maxoutdegree < 0)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"maxindegree %d or maxoutdegree %d is negative",
				maxindegree, maxoutdegree);
	if ((min_int(maxindegree, t->indegree) && !sources) ||
	    (min_int(maxoutdegree, t->outdegree) && !destinations))
		return lm_error(comm, fn, MPI_ERR_ARG,
				"sources or destinations is NULL");
	if (t->weighted &&
	    ((min_int(maxindegree, t->indegree) && !sourceweights) ||
	     (min_int(maxoutdegree, t->outdegree) && !destweights)))
		return lm_error(comm, fn, MPI_ERR_ARG,
				"sourceweights or destweights is NULL");
	copy_neighbours(maxindegree, t->indegree, sources, sourceweights,
			t->sources, t->sourceweights);
	copy_neighbours(maxoutdegree, t->outdegree, destinations, destweights,
			t->destinations, t->destweights);
	return MPI_SUCCESS;
}
