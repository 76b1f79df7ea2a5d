// SPDX-License-Identifier: MIT
/*
 * The MPI-1 names MPI-3.0 removed (libmsg/src/mpi1.c), as an old
 * program uses them:
 *   - a struct type from MPI_Type_struct with displacements from
 *     MPI_Address, sent round the ranks and checked field by field;
 *   - MPI_Type_hvector and MPI_Type_hindexed against the layout by hand;
 *   - MPI_Type_extent, MPI_Type_lb and MPI_Type_ub of a resized type;
 *   - MPI_Errhandler_create, _set and _get: the handler is called with
 *     the communicator and the class of an error;
 *   - their refusals are the MPI-2 calls' (a negative count).
 */
#include "test.h"

struct rec {
	int id;
	double x;
	char tag[6];
};

static int handled, handled_code;
static MPI_Comm handled_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
	handled++;
	handled_comm = *comm;
	handled_code = *code;
}

static void structs(void)
{
	struct rec r[2], got[2];
	int lens[3] = { 1, 1, 6 }, i, next = (t_rank + 1) % t_size,
	    prev = (t_rank + t_size - 1) % t_size;
	MPI_Aint base, disp[3];
	MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, t;

	MPI_OK(MPI_Address(&r[0], &base));
	MPI_OK(MPI_Address(&r[0].id, &disp[0]));
	MPI_OK(MPI_Address(&r[0].x, &disp[1]));
	MPI_OK(MPI_Address(r[0].tag, &disp[2]));
	for (i = 0; i < 3; i++)
		disp[i] -= base;
	MPI_OK(MPI_Type_struct(3, lens, disp, types, &t));
	MPI_OK(MPI_Type_commit(&t));
	memset(got, 0, sizeof(got));
	for (i = 0; i < 2; i++) {
		r[i].id = 100 * t_rank + i;
		r[i].x = t_rank + 0.5 * i;
		snprintf(r[i].tag, sizeof(r[i].tag), "r%d.%d", t_rank % 10, i);
	}
	/* Two records: the extent of one is sizeof(struct rec) here. */
	MPI_OK(MPI_Sendrecv(r, 2, t, next, 5, got, 2, t, prev, 5,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	for (i = 0; i < 2; i++) {
		char want[6];

		snprintf(want, sizeof(want), "r%d.%d", prev % 10, i);
		CHECK(got[i].id == 100 * prev + i && got[i].x == prev + 0.5 * i &&
		      !strcmp(got[i].tag, want), "record %d: %d %g %s", i,
		      got[i].id, got[i].x, got[i].tag);
	}
	MPI_OK(MPI_Type_free(&t));
}

static void vectors(void)
{
	int buf[12], out[12], lens[2] = { 2, 1 }, size, i;
	MPI_Aint disp[2] = { 4 * sizeof(int), 10 * sizeof(int) };
	MPI_Datatype hv, hi;

	for (i = 0; i < 12; i++)
		buf[i] = i;
	/* Two blocks of 2 ints, 5 ints apart: 0 1 5 6. */
	MPI_OK(MPI_Type_hvector(2, 2, 5 * sizeof(int), MPI_INT, &hv));
	MPI_OK(MPI_Type_commit(&hv));
	MPI_OK(MPI_Type_size(hv, &size));
	CHECK(size == 4 * (int)sizeof(int), "hvector size %d", size);
	memset(out, 0, sizeof(out));
	MPI_OK(MPI_Sendrecv(buf, 1, hv, t_rank, 1, out, 4, MPI_INT, t_rank,
			    1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(out[0] == 0 && out[1] == 1 && out[2] == 5 && out[3] == 6,
	      "hvector %d %d %d %d", out[0], out[1], out[2], out[3]);
	/* Blocks at ints 4 (2 long) and 10: 4 5 10. */
	MPI_OK(MPI_Type_hindexed(2, lens, disp, MPI_INT, &hi));
	MPI_OK(MPI_Type_commit(&hi));
	MPI_OK(MPI_Sendrecv(buf, 1, hi, t_rank, 2, out, 3, MPI_INT, t_rank,
			    2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(out[0] == 4 && out[1] == 5 && out[2] == 10,
	      "hindexed %d %d %d", out[0], out[1], out[2]);
	MPI_OK(MPI_Type_free(&hv));
	MPI_OK(MPI_Type_free(&hi));
	T_EXPECT(MPI_Type_hvector(-1, 1, 8, MPI_INT, &hv), MPI_ERR_COUNT,
		 "a negative count");
}

static void bounds(void)
{
	MPI_Datatype t;
	MPI_Aint lb, ub, extent;

	MPI_OK(MPI_Type_create_resized(MPI_INT, -8, 32, &t));
	MPI_OK(MPI_Type_extent(t, &extent));
	MPI_OK(MPI_Type_lb(t, &lb));
	MPI_OK(MPI_Type_ub(t, &ub));
	CHECK(extent == 32 && lb == -8 && ub == 24, "extent %ld lb %ld ub %ld",
	      (long)extent, (long)lb, (long)ub);
	MPI_OK(MPI_Type_free(&t));
}

static void errhandlers(void)
{
	MPI_Errhandler h, got;
	int x = 0;

	MPI_OK(MPI_Errhandler_create(handler, &h));
	MPI_OK(MPI_Errhandler_set(MPI_COMM_SELF, h));
	MPI_OK(MPI_Errhandler_get(MPI_COMM_SELF, &got));
	CHECK(got == h, "Errhandler_get gave another handler");
	MPI_OK(MPI_Errhandler_free(&got));
	MPI_Send(&x, 1, MPI_INT, 5, 0, MPI_COMM_SELF);	/* no rank 5 */
	CHECK(handled == 1 && handled_comm == MPI_COMM_SELF &&
	      handled_code != MPI_SUCCESS, "handler: %d calls", handled);
	MPI_OK(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Errhandler_free(&h));
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	structs();
	vectors();
	bounds();
	errhandlers();
	return t_done();
}
