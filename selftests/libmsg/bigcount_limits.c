// SPDX-License-Identifier: MIT
// libmsg-test: np=1,2,3,4,8 builds=plain,asan
/*
 * MPI_Op_create_c: a user function taking an MPI_Count *len reduces
 * MPI_Allreduce, MPI_Reduce_c, MPI_Iallreduce_c and MPI_Reduce_local_c
 * correctly, called with the element count in an MPI_Count (each call's
 * len between 1 and the count, the datatype the call's); a NULL
 * function is MPI_ERR_ARG.
 *
 * The large-count calls that cannot honour a count beyond an int say
 * so, MPI_ERR_COUNT with a message naming the limit, and move nothing
 * (the buffers they are given are a few bytes): an intercommunicator's
 * reduce_scatters (Reduce_scatter_block_c, Ireduce_scatter_c,
 * Reduce_scatter_init_c) beyond an int, Type_create_subarray_c and
 * Type_create_darray_c with a size beyond an int.  The persistent
 * reduce_scatters beyond an int on an intracommunicator are made (and
 * freed unstarted: bigmsg runs them).
 */
#include <limits.h>

#include "inter_util.h"

#define N 1000

static MPI_Count seen_min = -1, seen_max = -1;
static int bad_type;

static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
	const int *a = in;
	int *b = inout;
	MPI_Count i;

	if (*dt != MPI_INT)
		bad_type = 1;
	if (seen_min < 0 || *len < seen_min)
		seen_min = *len;
	if (*len > seen_max)
		seen_max = *len;
	for (i = 0; i < *len; i++)
		b[i] += a[i];
}

static void seen(MPI_Count count, const char *what)
{
	CHECK(!bad_type, "%s: the user function got another datatype", what);
	CHECK(seen_max <= count && (seen_min >= 1 || seen_min == -1),
	      "%s: the user function got len from %lld to %lld for %lld elements",
	      what, (long long)seen_min, (long long)seen_max,
	      (long long)count);
	seen_min = seen_max = -1;
}

/* Element i of rank r's data, and of the sum over every rank. */
#define VAL(r, i)	((r) + 1 + 3 * (i))
#define SUM(i)		(t_size * (t_size + 1) / 2 + 3 * (i) * t_size)

static void check_sum(const int *r, const char *what)
{
	int i;

	for (i = 0; i < N; i++)
		CHECK(r[i] == SUM(i), "%s: element %d is %d, expected %d",
		      what, i, r[i], SUM(i));
}

static void op_c(void)
{
	int *s = malloc(N * sizeof(int)), *r = malloc(N * sizeof(int));
	MPI_Request q;
	MPI_Op op;
	int i, e;

	CHECK(s && r, "out of memory");
	MPI_OK(MPI_Op_create_c(sum_c, 1, &op));
	for (i = 0; i < N; i++)
		s[i] = VAL(t_rank, i);
	MPI_OK(MPI_Allreduce(s, r, N, MPI_INT, op, MPI_COMM_WORLD));
	seen(N, "MPI_Allreduce");
	check_sum(r, "MPI_Allreduce");
	memset(r, 0, N * sizeof(int));
	MPI_OK(MPI_Reduce_c(s, r, N, MPI_INT, op, 0, MPI_COMM_WORLD));
	seen(N, "MPI_Reduce_c");
	if (t_rank == 0)
		check_sum(r, "MPI_Reduce_c");
	MPI_OK(MPI_Iallreduce_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD, &q));
	MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	seen(N, "MPI_Iallreduce_c");
	check_sum(r, "MPI_Iallreduce_c");
	for (i = 0; i < N; i++)
		r[i] = 5;
	MPI_OK(MPI_Reduce_local_c(s, r, N, MPI_INT, op));
	CHECK(seen_min == N && seen_max == N,
	      "MPI_Reduce_local_c: len from %lld to %lld, expected %d",
	      (long long)seen_min, (long long)seen_max, N);
	seen(N, "MPI_Reduce_local_c");
	for (i = 0; i < N; i++)
		CHECK(r[i] == 5 + VAL(t_rank, i),
		      "MPI_Reduce_local_c: element %d is %d", i, r[i]);
	MPI_OK(MPI_Op_free(&op));
	e = MPI_Op_create_c(NULL, 1, &op);
	T_EXPECT(e, MPI_ERR_ARG, "MPI_Op_create_c of NULL");
	free(s);
	free(r);
}

/* err is MPI_ERR_COUNT, its message naming the limit. */
static void limit(int err, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int l;

	T_EXPECT(err, MPI_ERR_COUNT, "%s", what);
	MPI_OK(MPI_Error_string(err, s, &l));
	CHECK(strstr(s, "INT_MAX") || strstr(s, "an int"),
	      "%s: the message does not say why: %s", what, s);
}

static void limits(void)
{
	MPI_Count big = (MPI_Count)INT_MAX + 1, *rc;
	MPI_Datatype t;
	MPI_Request q;
	int s[4] = { 0 }, r[4] = { 0 }, n = t_size;
	int distrib = MPI_DISTRIBUTE_BLOCK, darg = MPI_DISTRIBUTE_DFLT_DARG;
	int psize = 1;
	MPI_Count sz[2] = { big, 4 }, sub[2] = { 1, 1 }, st[2] = { 0, 0 };

	rc = calloc((size_t)n, sizeof(*rc));
	CHECK(rc, "out of memory");
	rc[n - 1] = big;
	MPI_OK(MPI_Reduce_scatter_block_init_c(s, r, big, MPI_INT, MPI_SUM,
					       MPI_COMM_WORLD, MPI_INFO_NULL,
					       &q));
	MPI_OK(MPI_Request_free(&q));
	MPI_OK(MPI_Reduce_scatter_init_c(s, r, rc, MPI_INT, MPI_SUM,
					 MPI_COMM_WORLD, MPI_INFO_NULL, &q));
	MPI_OK(MPI_Request_free(&q));
	free(rc);
	if (n >= 2) {
		MPI_Comm ic = t_inter(0, 12, NULL);

		rc = calloc((size_t)n, sizeof(*rc));
		CHECK(rc, "out of memory");
		rc[0] = big;
		limit(MPI_Reduce_scatter_block_c(s, r, big, MPI_INT, MPI_SUM,
						 ic),
		      "intercommunicator MPI_Reduce_scatter_block_c of 2^31");
		limit(MPI_Ireduce_scatter_c(s, r, rc, MPI_INT, MPI_SUM, ic, &q),
		      "intercommunicator MPI_Ireduce_scatter_c, a count of 2^31");
		limit(MPI_Reduce_scatter_init_c(s, r, rc, MPI_INT, MPI_SUM, ic,
						MPI_INFO_NULL, &q),
		      "intercommunicator MPI_Reduce_scatter_init_c, a count of 2^31");
		free(rc);
		MPI_OK(MPI_Comm_free(&ic));
	}

	limit(MPI_Type_create_subarray_c(2, sz, sub, st, MPI_ORDER_C, MPI_INT,
					 &t),
	      "MPI_Type_create_subarray_c, a size of 2^31");
	limit(MPI_Type_create_darray_c(1, 0, 1, sz, &distrib, &darg, &psize,
				       MPI_ORDER_C, MPI_INT, &t),
	      "MPI_Type_create_darray_c, a size of 2^31");
	/* Nothing was made: the small forms still work after. */
	MPI_OK(MPI_Allreduce(MPI_IN_PLACE, s, 0, MPI_INT, MPI_SUM,
			     MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	op_c();
	limits();
	return t_done();
}
