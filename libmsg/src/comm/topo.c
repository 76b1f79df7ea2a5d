// SPDX-License-Identifier: MIT
/*
 * Process topologies (MPI-3.1 chapter 7) on intracommunicators: the
 * topology object and how it is attached to a communicator, Topo_test,
 * and Cartesian topologies.  Graph and distributed graph topologies
 * are in topo_graph.c, MPI_Dims_create in topo_dims.c.
 *
 * A topology travels with its communicator as a cached attribute of a
 * keyval of the library's own: MPI_Comm_dup's copy callback shares it,
 * MPI_Comm_free's delete callback releases it, and Comm_split or
 * Comm_create do not carry it over, which is what MPI asks.  Topology
 * constructors make their communicator with MPI_Comm_split over the
 * old one (key = old rank), so `reorder` is accepted and ignored: rank
 * r of the new communicator is rank r of the old.
 *
 * Cartesian ranks are row-major: the last dimension varies fastest.
 */

#include <stdlib.h>
#include <string.h>

#include "comm/topo.h"

static int topo_keyval = MPI_KEYVAL_INVALID;
static CDS_LIST_HEAD(live_topos);

struct lm_topo *lm_topo_alloc(int kind, size_t nints)
{
	struct lm_topo *t = calloc(1, sizeof(*t) + nints * sizeof(int));

	if (!t)
		return NULL;
	t->kind = kind;
	t->refs = 1;
	cds_list_add(&t->link, &live_topos);
	return t;
}

void lm_topo_put(struct lm_topo *t)
{
	if (--t->refs)
		return;
	cds_list_del(&t->link);
	free(t);
}

/* MPI_Finalize: communicators not freed leave their topologies here. */
void lm_topo_fini(void)
{
	struct lm_topo *t, *tmp;

	cds_list_for_each_entry_safe(t, tmp, &live_topos, link) {
		cds_list_del(&t->link);
		free(t);
	}
	topo_keyval = MPI_KEYVAL_INVALID;
}

static int topo_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in,
		     void *out, int *flag)
{
	struct lm_topo *t = in;

	(void)oldcomm; (void)keyval; (void)extra;
	t->refs++;
	*(void **)out = t;
	*flag = 1;
	return MPI_SUCCESS;
}

static int topo_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
	(void)comm; (void)keyval; (void)extra;
	lm_topo_put(val);
	return MPI_SUCCESS;
}

int lm_topo_comm(struct libmsg_comm *comm, const char *fn, int color, int key,
		 struct lm_topo *t, MPI_Comm *newcomm)
{
	MPI_Comm c = MPI_COMM_NULL;
	int err;

	if (topo_keyval == MPI_KEYVAL_INVALID) {
		err = MPI_Comm_create_keyval(topo_copy, topo_delete,
					     &topo_keyval, NULL);
		if (err) {
			lm_topo_put(t);
			return err;
		}
	}
	err = MPI_Comm_split(comm, color, key, &c);
	if (err || c == MPI_COMM_NULL) {
		lm_topo_put(t);
		*newcomm = MPI_COMM_NULL;
		return err;
	}
	err = MPI_Comm_set_attr(c, topo_keyval, t);
	if (err) {
		lm_topo_put(t);
		MPI_Comm_free(&c);
		return lm_error(comm, fn, err, "cannot attach the topology");
	}
	*newcomm = c;
	return MPI_SUCCESS;
}

/* comm's topology or NULL; comm is valid. */
static struct lm_topo *topo_of(MPI_Comm comm)
{
	struct lm_topo *t = NULL;
	int flag = 0;

	if (topo_keyval == MPI_KEYVAL_INVALID ||
	    MPI_Comm_get_attr(comm, topo_keyval, &t, &flag) || !flag)
		return NULL;
	return t;
}

static const char *kind_name(int kind)
{
	return kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph" :
		"distributed graph";
}

struct lm_topo *lm_topo_get(MPI_Comm comm, const char *fn, int kind, int *err)
{
	struct lm_topo *t;

	*err = lm_check_comm(comm, fn);
	if (*err)
		return NULL;
	t = topo_of(comm);
	if (t && (t->kind == kind || !kind))
		return t;
	if (!kind)
		*err = lm_error(comm, fn, MPI_ERR_TOPOLOGY,
				"the communicator has no topology");
	else
		*err = lm_error(comm, fn, MPI_ERR_TOPOLOGY,
				"the communicator has no %s topology",
				kind_name(kind));
	return NULL;
}

int MPI_Topo_test(MPI_Comm comm, int *status)
{
	LM_GUARD();
	struct lm_topo *t;
	int err = lm_check_comm(comm, "MPI_Topo_test");

	if (err)
		return err;
	if (!status)
		return lm_error(comm, "MPI_Topo_test", MPI_ERR_ARG,
				"status is NULL");
	t = topo_of(comm);
	*status = t ? t->kind : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

/* ---- Cartesian topologies -------------------------------------------- */

/*
 * Check a grid description for fn; its node count into *nnodes.  The
 * grid must fit in comm.
 */
static int check_grid(MPI_Comm comm, const char *fn, int ndims,
		      const int dims[], const int periods[], int *nnodes)
{
	int i, err = lm_check_intra(comm, fn);
	long long n = 1;

	if (err)
		return err;
	if (ndims < 0)
		return lm_error(comm, fn, MPI_ERR_DIMS, "ndims %d is negative",
				ndims);
	if (ndims > 0 && (!dims || !periods))
		return lm_error(comm, fn, MPI_ERR_ARG, "dims or periods is NULL");
	for (i = 0; i < ndims; i++) {
		if (dims[i] <= 0)
			return lm_error(comm, fn, MPI_ERR_DIMS,
					"dims[%d] = %d is not positive", i,
					dims[i]);
		n *= dims[i];
		if (n > comm->size)
			return lm_error(comm, fn, MPI_ERR_TOPOLOGY,
					"the grid has more than the communicator's %d processes",
					comm->size);
	}
	*nnodes = (int)n;
	return MPI_SUCCESS;
}

/* A Cartesian topology of these dimensions. */
static struct lm_topo *cart_new(int ndims, const int dims[],
				const int periods[])
{
	struct lm_topo *t = lm_topo_alloc(MPI_CART, 2 * (size_t)ndims);
	int i;

	if (!t)
		return NULL;
	t->ndims = ndims;
	t->dims = t->mem;
	t->periods = t->mem + ndims;
	for (i = 0; i < ndims; i++) {
		t->dims[i] = dims[i];
		t->periods[i] = !!periods[i];
	}
	return t;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
		    const int periods[], int reorder, MPI_Comm *comm_cart)
{
	LM_GUARD();
	static const char fn[] = "MPI_Cart_create";
	struct lm_topo *t;
	int nnodes, err = check_grid(comm_old, fn, ndims, dims, periods, &nnodes);

	(void)reorder;
	if (err)
		return err;
	if (!comm_cart)
		return lm_error(comm_old, fn, MPI_ERR_ARG, "comm_cart is NULL");
	t = cart_new(ndims, dims, periods);
	if (!t)
		return lm_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
	return lm_topo_comm(comm_old, fn,
			    comm_old->rank < nnodes ? 0 : MPI_UNDEFINED,
			    comm_old->rank, t, comm_cart);
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[],
		 const int periods[], int *newrank)
{
	LM_GUARD();
	static const char fn[] = "MPI_Cart_map";
	int nnodes, err = check_grid(comm, fn, ndims, dims, periods, &nnodes);

	if (err)
		return err;
	if (!newrank)
		return lm_error(comm, fn, MPI_ERR_ARG, "newrank is NULL");
	*newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
	LM_GUARD();
	int err;
	struct lm_topo *t = lm_topo_get(comm, "MPI_Cartdim_get", MPI_CART, &err);

	if (!t)
		return err;
	if (!ndims)
		return lm_error(comm, "MPI_Cartdim_get", MPI_ERR_ARG,
				"ndims is NULL");
	*ndims = t->ndims;
	return MPI_SUCCESS;
}

/* Coordinates of rank r (0 <= r < the grid's size) into coords[]. */
static void cart_coords(const struct lm_topo *t, int r, int coords[])
{
	int i;

	for (i = t->ndims - 1; i >= 0; i--) {
		coords[i] = r % t->dims[i];
		r /= t->dims[i];
	}
}

static int check_maxdims(MPI_Comm comm, const char *fn,
			 const struct lm_topo *t, int maxdims)
{
	if (maxdims < t->ndims)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"maxdims %d is less than the %d dimensions",
				maxdims, t->ndims);
	return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
		 int coords[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Cart_get";
	int err;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_CART, &err);

	if (!t)
		return err;
	err = check_maxdims(comm, fn, t, maxdims);
	if (err)
		return err;
	if (t->ndims && (!dims || !periods || !coords))
		return lm_error(comm, fn, MPI_ERR_ARG,
				"dims, periods or coords is NULL");
	if (!t->ndims)
		return MPI_SUCCESS;
	memcpy(dims, t->dims, (size_t)t->ndims * sizeof(int));
	memcpy(periods, t->periods, (size_t)t->ndims * sizeof(int));
	cart_coords(t, comm->rank, coords);
	return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Cart_coords";
	int err;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_CART, &err);

	if (!t)
		return err;
	if (rank < 0 || rank >= comm->size)
		return lm_error(comm, fn, MPI_ERR_RANK,
				"rank %d not in 0..%d", rank, comm->size - 1);
	err = check_maxdims(comm, fn, t, maxdims);
	if (err)
		return err;
	if (t->ndims && !coords)
		return lm_error(comm, fn, MPI_ERR_ARG, "coords is NULL");
	cart_coords(t, rank, coords);
	return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
	LM_GUARD();
	static const char fn[] = "MPI_Cart_rank";
	int err, i, c, r = 0;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_CART, &err);

	if (!t)
		return err;
	if ((t->ndims && !coords) || !rank)
		return lm_error(comm, fn, MPI_ERR_ARG, "coords or rank is NULL");
	for (i = 0; i < t->ndims; i++) {
		c = coords[i];
		if (t->periods[i]) {
			c %= t->dims[i];
			if (c < 0)
				c += t->dims[i];
		} else if (c < 0 || c >= t->dims[i]) {
			return lm_error(comm, fn, MPI_ERR_ARG,
					"coords[%d] = %d outside the non-periodic 0..%d",
					i, c, t->dims[i] - 1);
		}
		r = r * t->dims[i] + c;
	}
	*rank = r;
	return MPI_SUCCESS;
}

/* The rank delta steps from rank along dimension dir (stride: its
 * rank distance), or MPI_PROC_NULL off the end of a non-periodic one. */
static int shift_one(const struct lm_topo *t, int rank, int dir, int stride,
		     long long delta)
{
	int n = t->dims[dir], c = rank / stride % n;
	long long to = c + delta;

	if (t->periods[dir]) {
		to %= n;
		if (to < 0)
			to += n;
	} else if (to < 0 || to >= n) {
		return MPI_PROC_NULL;
	}
	return rank + (int)(to - c) * stride;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
		   int *rank_dest)
{
	LM_GUARD();
	static const char fn[] = "MPI_Cart_shift";
	int err, i, stride = 1;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_CART, &err);

	if (!t)
		return err;
	if (direction < 0 || direction >= t->ndims)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"direction %d not in 0..%d", direction,
				t->ndims - 1);
	if (!rank_source || !rank_dest)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"rank_source or rank_dest is NULL");
	for (i = t->ndims - 1; i > direction; i--)
		stride *= t->dims[i];
	*rank_source = shift_one(t, comm->rank, direction, stride,
				 -(long long)disp);
	*rank_dest = shift_one(t, comm->rank, direction, stride, disp);
	return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Cart_sub";
	int err, i, n = 0, color = 0, key = 0, *coords, *dims, *periods;
	struct lm_topo *t = lm_topo_get(comm, fn, MPI_CART, &err), *sub;

	if (!t)
		return err;
	if ((t->ndims && !remain_dims) || !newcomm)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"remain_dims or newcomm is NULL");
	coords = malloc(3 * ((size_t)t->ndims + 1) * sizeof(int));
	if (!coords)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	dims = coords + t->ndims + 1;
	periods = dims + t->ndims + 1;
	cart_coords(t, comm->rank, coords);
	/* Colour: position in the dropped dimensions; key: in the kept. */
	for (i = 0; i < t->ndims; i++) {
		if (remain_dims[i]) {
			key = key * t->dims[i] + coords[i];
			dims[n] = t->dims[i];
			periods[n++] = t->periods[i];
		} else {
			color = color * t->dims[i] + coords[i];
		}
	}
	sub = cart_new(n, dims, periods);
	free(coords);
	if (!sub)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	return lm_topo_comm(comm, fn, color, key, sub, newcomm);
}

/* ---- Neighbourhoods ---------------------------------------------------------- */

/* First edge and number of edges of rank in a graph topology. */
static void graph_edges(const struct lm_topo *t, int rank, int *first, int *n)
{
	*first = rank ? t->index[rank - 1] : 0;
	*n = t->index[rank] - *first;
}

void lm_topo_degrees(const struct lm_topo *t, int rank, int *indeg,
		     int *outdeg)
{
	int first;

	switch (t->kind) {
	case MPI_CART:
		*indeg = *outdeg = 2 * t->ndims;
		break;
	case MPI_GRAPH:
		graph_edges(t, rank, &first, indeg);
		*outdeg = *indeg;
		break;
	default:
		*indeg = t->indegree;
		*outdeg = t->outdegree;
	}
}

void lm_topo_neighbours(const struct lm_topo *t, int rank, int in[],
			int out[])
{
	int i, first, n, stride = 1;

	switch (t->kind) {
	case MPI_CART:
		for (i = t->ndims - 1; i >= 0; i--) {
			in[2 * i] = shift_one(t, rank, i, stride, -1);
			in[2 * i + 1] = shift_one(t, rank, i, stride, 1);
			out[2 * i] = in[2 * i];
			out[2 * i + 1] = in[2 * i + 1];
			stride *= t->dims[i];
		}
		break;
	case MPI_GRAPH:
		graph_edges(t, rank, &first, &n);
		memcpy(in, t->edges + first, (size_t)n * sizeof(int));
		memcpy(out, t->edges + first, (size_t)n * sizeof(int));
		break;
	default:
		memcpy(in, t->sources, (size_t)t->indegree * sizeof(int));
		memcpy(out, t->destinations,
		       (size_t)t->outdegree * sizeof(int));
	}
}
