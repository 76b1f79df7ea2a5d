// SPDX-License-Identifier: MIT
/*
 * Cartesian topologies at any number of ranks: for grids of 1 to 4
 * dimensions with every combination of periodic dimensions, covering
 * all ranks or fewer (the others get MPI_COMM_NULL), Cart_get,
 * Cart_coords and Cart_rank agree with a row-major numbering computed
 * here, Cart_rank wraps periodic coordinates and refuses others,
 * Cart_shift matches the numbering and a message sent along each shift
 * comes from the rank it names; Cart_sub splits the grid; Comm_dup
 * keeps the topology and Comm_split drops it; bad arguments.
 */
#include "test.h"

/* Row-major coordinates of rank r in dims[0..nd). */
static void coords_of(int r, int nd, const int *dims, int *c)
{
	int i;

	for (i = nd - 1; i >= 0; i--) {
		c[i] = r % dims[i];
		r /= dims[i];
	}
}

static int rank_of(int nd, const int *dims, const int *c)
{
	int i, r = 0;

	for (i = 0; i < nd; i++)
		r = r * dims[i] + c[i];
	return r;
}

static void check_rank_coords(MPI_Comm cart, int nd, const int *dims,
			      const int *periods, int nnodes)
{
	int r, i, c[4], got[4], rr, wrapped[4], err;

	for (r = 0; r < nnodes; r++) {
		MPI_OK(MPI_Cart_coords(cart, r, nd, got));
		coords_of(r, nd, dims, c);
		for (i = 0; i < nd; i++)
			CHECK(got[i] == c[i], "coords of %d: [%d] = %d, expected %d",
			      r, i, got[i], c[i]);
		MPI_OK(MPI_Cart_rank(cart, got, &rr));
		CHECK(rr == r, "rank of coords of %d is %d", r, rr);

		/* Shifted by whole periods: the same rank if periodic. */
		for (i = 0; i < nd; i++) {
			memcpy(wrapped, c, sizeof(wrapped));
			wrapped[i] = c[i] + (r % 2 ? -3 : 2) * dims[i];
			err = MPI_Cart_rank(cart, wrapped, &rr);
			if (periods[i]) {
				CHECK(err == MPI_SUCCESS && rr == r,
				      "periodic wrap of %d in dim %d: %d", r, i, rr);
			} else {
				t_expect(err, MPI_ERR_ARG, "non-periodic out of range");
			}
		}
	}
}

static void check_shift(MPI_Comm cart, int me, int nd, const int *dims,
			const int *periods)
{
	int dir, disp, src, dst, c[4], t[4], want, got, recv, s;

	coords_of(me, nd, dims, c);
	for (dir = 0; dir < nd; dir++) {
		for (disp = -3; disp <= 3; disp++) {
			MPI_OK(MPI_Cart_shift(cart, dir, disp, &src, &dst));
			for (s = -1; s <= 1; s += 2) {
				memcpy(t, c, sizeof(t));
				t[dir] = c[dir] + s * disp;
				if (periods[dir])
					t[dir] = ((t[dir] % dims[dir]) + dims[dir]) %
						dims[dir];
				want = t[dir] < 0 || t[dir] >= dims[dir] ?
					MPI_PROC_NULL : rank_of(nd, dims, t);
				got = s < 0 ? src : dst;
				CHECK(got == want, "shift dir %d disp %d: %s %d, expected %d",
				      dir, disp, s < 0 ? "source" : "dest", got,
				      want);
			}
			/* The source of my shift sends to me along it. */
			recv = -5;
			MPI_OK(MPI_Sendrecv(&me, 1, MPI_INT, dst, dir * 16 + disp + 3,
					    &recv, 1, MPI_INT, src,
					    dir * 16 + disp + 3, cart,
					    MPI_STATUS_IGNORE));
			CHECK(recv == (src == MPI_PROC_NULL ? -5 : src),
			      "shift dir %d disp %d: got %d from %d", dir, disp,
			      recv, src);
		}
	}
}

static void check_sub(MPI_Comm cart, int me, int nd, const int *dims,
		      const int *periods)
{
	int mask, i, n, keep[4], sd[4], sp[4], sc[4], c[4], want_size, size,
	    rank, sub_nd, want_rank;
	MPI_Comm sub;

	coords_of(me, nd, dims, c);
	for (mask = 0; mask < 1 << nd; mask++) {
		want_size = 1;
		want_rank = 0;
		for (i = 0, n = 0; i < nd; i++) {
			keep[i] = !!(mask & 1 << i);
			if (keep[i]) {
				want_size *= dims[i];
				want_rank = want_rank * dims[i] + c[i];
			}
		}
		MPI_OK(MPI_Cart_sub(cart, keep, &sub));
		MPI_OK(MPI_Comm_size(sub, &size));
		MPI_OK(MPI_Comm_rank(sub, &rank));
		CHECK(size == want_size && rank == want_rank,
		      "Cart_sub mask %x: size %d rank %d, expected %d %d", mask,
		      size, rank, want_size, want_rank);
		MPI_OK(MPI_Cartdim_get(sub, &sub_nd));
		MPI_OK(MPI_Cart_get(sub, 4, sd, sp, sc));
		for (i = 0, n = 0; i < nd; i++) {
			if (!keep[i])
				continue;
			CHECK(sd[n] == dims[i] && sp[n] == !!periods[i] &&
			      sc[n] == c[i], "Cart_sub mask %x dim %d", mask, n);
			n++;
		}
		CHECK(sub_nd == n, "Cart_sub mask %x: %d dims", mask, sub_nd);
		/* A collective on the sub-grid: the sum of its ranks. */
		MPI_OK(MPI_Allreduce(&rank, &n, 1, MPI_INT, MPI_SUM, sub));
		CHECK(n == size * (size - 1) / 2, "Allreduce on Cart_sub mask %x",
		      mask);
		MPI_OK(MPI_Comm_free(&sub));
	}
}

/* One grid: dims[0..nd) over the first nnodes ranks of WORLD. */
static void grid(int nd, const int *dims, const int *periods)
{
	int nnodes = 1, i, me, status, gd[4], gp[4], gc[4], c[4], n, size;
	MPI_Comm cart, dup, split;
	MPI_Errhandler h;

	for (i = 0; i < nd; i++)
		nnodes *= dims[i];
	MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, nd, dims, periods, &me));
	CHECK(me == (t_rank < nnodes ? t_rank : MPI_UNDEFINED), "Cart_map");
	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &cart));
	if (t_rank >= nnodes) {
		CHECK(cart == MPI_COMM_NULL, "rank %d outside %d nodes got a comm",
		      t_rank, nnodes);
		return;
	}
	CHECK(cart != MPI_COMM_NULL, "no communicator for rank %d", t_rank);
	MPI_OK(MPI_Comm_size(cart, &size));
	MPI_OK(MPI_Comm_rank(cart, &me));
	CHECK(size == nnodes && me == t_rank, "size %d rank %d", size, me);
	MPI_OK(MPI_Comm_get_errhandler(cart, &h));
	CHECK(h == MPI_ERRORS_RETURN, "error handler not inherited");
	MPI_OK(MPI_Topo_test(cart, &status));
	CHECK(status == MPI_CART, "Topo_test %d", status);
	MPI_OK(MPI_Cartdim_get(cart, &n));
	CHECK(n == nd, "Cartdim_get %d", n);
	MPI_OK(MPI_Cart_get(cart, 4, gd, gp, gc));
	coords_of(me, nd, dims, c);
	for (i = 0; i < nd; i++)
		CHECK(gd[i] == dims[i] && gp[i] == !!periods[i] && gc[i] == c[i],
		      "Cart_get dim %d: %d %d %d", i, gd[i], gp[i], gc[i]);

	check_rank_coords(cart, nd, dims, periods, nnodes);
	check_shift(cart, me, nd, dims, periods);
	if (nd <= 3)
		check_sub(cart, me, nd, dims, periods);

	/* Dup keeps the topology; split does not. */
	MPI_OK(MPI_Comm_dup(cart, &dup));
	MPI_OK(MPI_Topo_test(dup, &status));
	CHECK(status == MPI_CART, "dup: Topo_test %d", status);
	check_rank_coords(dup, nd, dims, periods, nnodes);
	MPI_OK(MPI_Comm_split(cart, 0, me, &split));
	MPI_OK(MPI_Topo_test(split, &status));
	CHECK(status == MPI_UNDEFINED, "split: Topo_test %d", status);
	t_expect(MPI_Cartdim_get(split, &n), MPI_ERR_TOPOLOGY, "Cartdim_get on split");
	MPI_OK(MPI_Comm_free(&split));
	MPI_OK(MPI_Comm_free(&cart));
	/* The duplicate's topology outlives the original. */
	check_shift(dup, me, nd, dims, periods);
	MPI_OK(MPI_Comm_free(&dup));
}

static void grids(void)
{
	int nd, p, i, dims[4], periods[4];

	for (nd = 1; nd <= 4; nd++) {
		for (p = 0; p < 1 << nd; p++) {
			for (i = 0; i < nd; i++)
				periods[i] = p & 1 << i ? 7 : 0; /* any non-zero */
			memset(dims, 0, sizeof(dims));
			MPI_OK(MPI_Dims_create(t_size, nd, dims));
			grid(nd, dims, periods);
			/* A smaller grid: all but the last rank. */
			if (t_size > 1) {
				memset(dims, 0, sizeof(dims));
				MPI_OK(MPI_Dims_create(t_size - 1, nd, dims));
				grid(nd, dims, periods);
			}
		}
	}
	/* 2 x 1 x 3 style grids with ones in the middle. */
	if (t_size >= 2) {
		int d3[3] = { 2, 1, t_size / 2 }, p3[3] = { 1, 0, 1 };

		grid(3, d3, p3);
	}
}

static void zero_dims(void)
{
	MPI_Comm cart;
	int n = -1, size, rank, src, dst;

	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
	if (t_rank) {
		CHECK(cart == MPI_COMM_NULL, "0 dims: rank %d got a comm", t_rank);
		return;
	}
	MPI_OK(MPI_Comm_size(cart, &size));
	MPI_OK(MPI_Cartdim_get(cart, &n));
	CHECK(size == 1 && n == 0, "0 dims: size %d ndims %d", size, n);
	MPI_OK(MPI_Cart_rank(cart, NULL, &rank));
	CHECK(rank == 0, "0 dims: Cart_rank %d", rank);
	t_expect(MPI_Cart_shift(cart, 0, 1, &src, &dst), MPI_ERR_ARG,
	         "shift of a 0-dim grid");
	MPI_OK(MPI_Comm_free(&cart));
}

static void errors(void)
{
	MPI_Comm cart = MPI_COMM_NULL;
	int dims[2] = { t_size, 1 }, periods[2] = { 0, 1 }, c[2], r, s, d;

	t_expect(MPI_Cartdim_get(MPI_COMM_WORLD, &r), MPI_ERR_TOPOLOGY,
	         "Cartdim_get on WORLD");
	t_expect(MPI_Cart_rank(MPI_COMM_NULL, c, &r), MPI_ERR_COMM, "Cart_rank NULL comm");
	dims[0] = t_size + 1;
	t_expect(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart),
	         MPI_ERR_TOPOLOGY, "grid larger than the communicator");
	dims[0] = 0;
	t_expect(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart),
	         MPI_ERR_DIMS, "dims[0] = 0");
	t_expect(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &cart),
	         MPI_ERR_DIMS, "ndims -1");
	dims[0] = t_size;
	t_expect(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, NULL, 0, &cart),
	         MPI_ERR_ARG, "periods NULL");
	CHECK(cart == MPI_COMM_NULL, "failed Cart_create made a communicator");

	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
	t_expect(MPI_Cart_coords(cart, t_size, 2, c), MPI_ERR_RANK, "coords of size");
	t_expect(MPI_Cart_coords(cart, -1, 2, c), MPI_ERR_RANK, "coords of -1");
	t_expect(MPI_Cart_coords(cart, 0, 1, c), MPI_ERR_ARG, "maxdims 1 of 2");
	t_expect(MPI_Cart_get(cart, 1, dims, periods, c), MPI_ERR_ARG,
	         "Cart_get maxdims 1");
	t_expect(MPI_Cart_shift(cart, 2, 1, &s, &d), MPI_ERR_ARG, "direction 2");
	t_expect(MPI_Cart_shift(cart, -1, 1, &s, &d), MPI_ERR_ARG, "direction -1");
	c[0] = t_size;
	c[1] = 0;
	t_expect(MPI_Cart_rank(cart, c, &r), MPI_ERR_ARG, "non-periodic coord = dim");
	c[0] = 0;
	c[1] = -7;
	MPI_OK(MPI_Cart_rank(cart, c, &r));	/* dimension 1 is periodic */
	CHECK(r == 0, "periodic -7 in a dimension of 1: %d", r);
	t_expect(MPI_Graphdims_get(cart, &r, &s), MPI_ERR_TOPOLOGY,
	         "Graphdims_get on a grid");
	t_expect(MPI_Dist_graph_neighbors_count(cart, &r, &s, &d), MPI_ERR_TOPOLOGY,
	         "Dist_graph_neighbors_count on a grid");
	MPI_OK(MPI_Comm_free(&cart));
}

int main(int argc, char **argv)
{
	int status;

	t_init(&argc, &argv);
	MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
	CHECK(status == MPI_UNDEFINED, "WORLD has a topology (%d)", status);
	grids();
	zero_dims();
	errors();
	/* A grid left for MPI_Finalize to release. */
	{
		MPI_Comm keep;
		int d = t_size, p = 1;

		MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &d, &p, 0, &keep));
	}
	return t_done();
}
