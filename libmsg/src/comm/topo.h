/* SPDX-License-Identifier: MIT */
/*
 * topo.h: process topologies (topo.c, topo_graph.c).  A topology is an
 * immutable object attached to a communicator made for it; MPI_Comm_dup
 * shares it (reference counted), MPI_Comm_free releases it.
 */
#ifndef LIBMSG_TOPO_H
#define LIBMSG_TOPO_H

#include "comm/comm.h"

struct lm_topo {
	int kind;		/* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
	int refs;
	struct cds_list_head link;	/* every live topology */
	/* MPI_CART: ndims, dims[], periods[] (0/1) */
	int ndims;
	int *dims, *periods;
	/* MPI_GRAPH: nnodes, index[nnodes], edges[index[nnodes - 1]] */
	int nnodes, nedges;
	int *index, *edges;
	/* MPI_DIST_GRAPH: this process's neighbours */
	int indegree, outdegree, weighted;
	int *sources, *sourceweights, *destinations, *destweights;
	int mem[];		/* the arrays above point into this */
};

/* A topology of `kind` with room for `nints` ints in mem[]; NULL: no memory. */
struct lm_topo *lm_topo_alloc(int kind, size_t nints);
void lm_topo_put(struct lm_topo *t);

/*
 * Make the communicator for a topology: MPI_Comm_split(comm, color,
 * key) with t attached (ownership passes); color MPI_UNDEFINED gets
 * MPI_COMM_NULL.  Collective over comm.  On failure t is released and
 * the error, already raised, returned.
 */
int lm_topo_comm(struct libmsg_comm *comm, const char *fn, int color, int key,
		 struct lm_topo *t, MPI_Comm *newcomm);

/*
 * comm's topology if it is of `kind` (0: any); otherwise raises
 * MPI_ERR_TOPOLOGY (or MPI_ERR_COMM) for fn and returns NULL, the error
 * in *err.
 */
struct lm_topo *lm_topo_get(MPI_Comm comm, const char *fn, int kind, int *err);

/*
 * The neighbourhood of `rank` for the neighbourhood collectives
 * (MPI-3.1 section 7.6): *indeg sources and *outdeg destinations.
 */
void lm_topo_degrees(const struct lm_topo *t, int rank, int *indeg,
		     int *outdeg);
/*
 * Fill in[] and out[] (room for the degrees above) in the standard's
 * order: a graph's neighbours as listed; a distributed graph's sources
 * and destinations as given; a Cartesian topology's, for each dimension,
 * the rank one step down, then one step up (MPI_PROC_NULL off the end
 * of a non-periodic dimension), for both lists.
 */
void lm_topo_neighbours(const struct lm_topo *t, int rank, int in[],
			int out[]);

#endif /* LIBMSG_TOPO_H */
