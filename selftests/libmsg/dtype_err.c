// SPDX-License-Identifier: MIT
/*
 * Datatype errors and odds: an uncommitted type in communication, a
 * freed handle, freeing a predefined type (MPI_ERR_TYPE); bad
 * constructor arguments (MPI_ERR_COUNT, MPI_ERR_ARG, MPI_ERR_TYPE);
 * MPI_Pack/Unpack past the end (MPI_ERR_TRUNCATE); names; addresses;
 * an empty type; and the contiguous case of each constructor.
 */
#include "dtype_ref.h"

static void test_errors(void)
{
	int buf[64] = { 0 }, bl[2] = { 1, 1 }, dl[2] = { 0, 2 }, pos = 0;
	int sz[2] = { 4, 4 }, sub[2] = { 2, 2 }, st[2] = { 1, 1 };
	MPI_Aint ad[2] = { 0, 8 };
	MPI_Datatype t, ty[2] = { MPI_INT, MPI_DATATYPE_NULL }, pre = MPI_INT;
	MPI_Request req;
	MPI_Comm w = MPI_COMM_WORLD;
	char packed[16];

	/* Uncommitted: usable by constructors, not for communication. */
	MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
	T_EXPECT(MPI_Send(buf, 1, t, 0, 0, w), MPI_ERR_TYPE, "Send uncommitted");
	T_EXPECT(MPI_Recv(buf, 1, t, 0, 0, w, MPI_STATUS_IGNORE), MPI_ERR_TYPE,
		 "Recv uncommitted");
	T_EXPECT(MPI_Isend(buf, 1, t, 0, 0, w, &req), MPI_ERR_TYPE,
		 "Isend uncommitted");
	T_EXPECT(MPI_Bcast(buf, 1, t, 0, w), MPI_ERR_TYPE, "Bcast uncommitted");
	T_EXPECT(MPI_Allreduce(buf, buf + 8, 1, t, MPI_SUM, w), MPI_ERR_TYPE,
		 "Allreduce uncommitted");
	T_EXPECT(MPI_Pack(buf, 1, t, packed, 16, &pos, w), MPI_ERR_TYPE,
		 "Pack uncommitted");
	MPI_OK(MPI_Type_free(&t));
	CHECK(t == MPI_DATATYPE_NULL, "free left the handle");
	T_EXPECT(MPI_Send(buf, 1, t, 0, 0, w), MPI_ERR_TYPE, "Send freed");
	T_EXPECT(MPI_Type_free(&t), MPI_ERR_TYPE, "free MPI_DATATYPE_NULL");
	T_EXPECT(MPI_Type_free(&pre), MPI_ERR_TYPE, "free MPI_INT");
	CHECK(pre == MPI_INT, "a failed free changed the handle");
	T_EXPECT(MPI_Type_commit(&t), MPI_ERR_TYPE, "commit MPI_DATATYPE_NULL");

	/* Constructors. */
	T_EXPECT(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT, "contiguous -1");
	T_EXPECT(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE,
		 "contiguous of NULL");
	T_EXPECT(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG,
		 "contiguous newtype NULL");
	T_EXPECT(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT, "vector -2");
	T_EXPECT(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG,
		 "vector blocklength -1");
	T_EXPECT(MPI_Type_create_hvector(2, -1, 8, MPI_INT, &t), MPI_ERR_ARG,
		 "hvector blocklength -1");
	T_EXPECT(MPI_Type_indexed(2, NULL, dl, MPI_INT, &t), MPI_ERR_ARG,
		 "indexed blocklengths NULL");
	T_EXPECT(MPI_Type_indexed(2, bl, NULL, MPI_INT, &t), MPI_ERR_ARG,
		 "indexed displacements NULL");
	bl[1] = -3;
	T_EXPECT(MPI_Type_indexed(2, bl, dl, MPI_INT, &t), MPI_ERR_ARG,
		 "indexed blocklength -3");
	T_EXPECT(MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &t), MPI_ERR_ARG,
		 "hindexed blocklength -3");
	bl[1] = 1;
	T_EXPECT(MPI_Type_create_hindexed(-1, bl, ad, MPI_INT, &t), MPI_ERR_COUNT,
		 "hindexed -1");
	T_EXPECT(MPI_Type_create_indexed_block(2, -1, dl, MPI_INT, &t), MPI_ERR_ARG,
		 "indexed_block -1");
	T_EXPECT(MPI_Type_create_hindexed_block(2, 1, NULL, MPI_INT, &t), MPI_ERR_ARG,
		 "hindexed_block NULL");
	T_EXPECT(MPI_Type_create_struct(2, bl, ad, ty, &t), MPI_ERR_TYPE,
		 "struct with MPI_DATATYPE_NULL");
	T_EXPECT(MPI_Type_create_struct(2, bl, ad, NULL, &t), MPI_ERR_ARG,
		 "struct types NULL");
	T_EXPECT(MPI_Type_create_struct(-1, bl, ad, ty, &t), MPI_ERR_COUNT,
		 "struct -1");
	T_EXPECT(MPI_Type_create_subarray(2, sz, sub, st, 99, MPI_INT, &t),
		 MPI_ERR_ARG, "subarray order 99");
	st[1] = 3;
	T_EXPECT(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t),
		 MPI_ERR_ARG, "subarray past the end");
	T_EXPECT(MPI_Type_create_subarray(0, sz, sub, st, MPI_ORDER_C, MPI_INT, &t),
		 MPI_ERR_ARG, "subarray 0 dimensions");
	T_EXPECT(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE,
		 "resized NULL");
	T_EXPECT(MPI_Type_dup(MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE, "dup NULL");

	/* Packing past the end of the buffers. */
	MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
	MPI_OK(MPI_Type_commit(&t));
	pos = 8;
	T_EXPECT(MPI_Pack(buf, 1, t, packed, 16, &pos, w), MPI_ERR_TRUNCATE,
		 "Pack 12 bytes at 8 of 16");
	CHECK(pos == 8, "failed Pack moved the position");
	pos = 0;
	T_EXPECT(MPI_Unpack(packed, 8, &pos, buf, 1, t, w), MPI_ERR_TRUNCATE,
		 "Unpack 12 bytes of 8");
	MPI_OK(MPI_Type_free(&t));
}

static void test_names(void)
{
	char name[MPI_MAX_OBJECT_NAME];
	MPI_Datatype t;
	int len;

	MPI_OK(MPI_Type_get_name(MPI_INT, name, &len));
	CHECK(!strcmp(name, "MPI_INT") && len == 7, "MPI_INT is named %s", name);
	MPI_OK(MPI_Type_contiguous(2, MPI_DOUBLE, &t));
	MPI_OK(MPI_Type_get_name(t, name, &len));
	CHECK(len == 0 && !name[0], "a new type is named '%s'", name);
	MPI_OK(MPI_Type_set_name(t, "pair of doubles"));
	MPI_OK(MPI_Type_get_name(t, name, &len));
	CHECK(!strcmp(name, "pair of doubles") && len == 15, "named '%s'", name);
	MPI_OK(MPI_Type_free(&t));
}

static void test_misc(void)
{
	int a[4] = { 0 }, zero_recv[4] = { 7, 7, 7, 7 }, cnt, peer = t_partner();
	MPI_Aint x, y;
	MPI_Datatype t, d;
	MPI_Status st;

	MPI_OK(MPI_Get_address(&a[0], &x));
	MPI_OK(MPI_Get_address(&a[3], &y));
	CHECK(MPI_Aint_diff(y, x) == 3 * sizeof(int), "Aint_diff");
	CHECK(MPI_Aint_add(x, 12) == y, "Aint_add");

	/* An empty type: messages of it are empty, Get_count says 0. */
	MPI_OK(MPI_Type_contiguous(0, MPI_INT, &t));
	MPI_OK(MPI_Type_commit(&t));
	MPI_OK(MPI_Sendrecv(a, 5, t, peer, 20, zero_recv, 5, t, peer, 20,
			    MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Get_count(&st, t, &cnt));
	CHECK(cnt == 0 && zero_recv[0] == 7, "empty type: count %d", cnt);
	MPI_OK(MPI_Type_free(&t));

	/* Dup of a basic type: the same data, a handle of its own, committed. */
	MPI_OK(MPI_Type_dup(MPI_INT, &d));
	a[0] = t_rank;
	MPI_OK(MPI_Sendrecv(a, 1, d, peer, 21, &cnt, 1, MPI_INT, peer, 21,
			    MPI_COMM_WORLD, &st));
	CHECK(cnt == peer, "dup(MPI_INT) sent %d", cnt);
	MPI_OK(MPI_Allreduce(a, &cnt, 1, d, MPI_SUM, MPI_COMM_WORLD));
	CHECK(cnt == t_size * (t_size - 1) / 2, "allreduce on dup(MPI_INT): %d", cnt);
	MPI_OK(MPI_Type_free(&d));

	/* Reduce_local on a strided type: its elements only. */
	{
		int in[8], io[8], i;

		MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &d));
		MPI_OK(MPI_Type_commit(&d));
		for (i = 0; i < 8; i++) {
			in[i] = i;
			io[i] = 100 * i;
		}
		MPI_OK(MPI_Reduce_local(in, io, 1, d, MPI_SUM));
		for (i = 0; i < 8; i++)
			CHECK(io[i] == (i % 2 ? 100 * i : 101 * i),
			      "Reduce_local strided: %d is %d", i, io[i]);
		MPI_OK(MPI_Reduce_local(in, io, 1, d, MPI_REPLACE));
		for (i = 0; i < 8; i++)
			CHECK(io[i] == (i % 2 ? 100 * i : i),
			      "Reduce_local REPLACE strided: %d is %d", i, io[i]);
		MPI_OK(MPI_Type_free(&d));
	}
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	test_errors();
	test_names();
	test_misc();
	return t_done();
}
