// SPDX-License-Identifier: MIT
/*
 * The profiling interface (MPI-3.1 chapter 14): run under a counting
 * profiler (pmpi-wrap's library, linked, preloaded or linked
 * statically: pmpi.sh), every MPI call this program makes is seen
 * exactly once, and none of the calls libmsg makes inside them (a
 * communicator's creation agrees through collectives, Sendrecv is a
 * send and a receive, Waitall waits for each request, MPI_Comm_dup
 * copies attributes through the program's callback, which itself makes
 * MPI calls that are the program's).
 *
 * libmsg-test: builds=plain run-by=pmpi.sh
 *
 * Without a profiler the program says so and exits 77 (skipped): the
 * counts are what it checks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long (*count)(const char *name);
static long (*total)(void);
static int rank;

#define FAIL(...) do {							\
	fprintf(stderr, "FAIL rank %d: ", rank);			\
	fprintf(stderr, __VA_ARGS__);					\
	fputc('\n', stderr);						\
	PMPI_Abort(MPI_COMM_WORLD, 1);					\
} while (0)

/* The program's own callback: the MPI_Comm_rank in it is the program's. */
static int copy_attr(MPI_Comm old, int key, void *extra, void *in, void *out,
		     int *flag)
{
	int r;

	(void)key; (void)extra;
	MPI_Comm_rank(old, &r);
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

static const struct {
	const char *name;
	long calls;
} expect[] = {
	{ "MPI_Init", 1 },
	{ "MPI_Comm_rank", 1 + 1 },	/* and once in copy_attr */
	{ "MPI_Comm_size", 1 },
	{ "MPI_Comm_create_keyval", 1 },
	{ "MPI_Comm_set_attr", 1 },
	{ "MPI_Comm_dup", 1 },
	{ "MPI_Comm_split", 1 },
	{ "MPI_Sendrecv", 3 },
	{ "MPI_Isend", 1 },
	{ "MPI_Irecv", 1 },
	{ "MPI_Waitall", 1 },
	{ "MPI_Bcast", 1 },
	{ "MPI_Allreduce", 2 },
	{ "MPI_Barrier", 1 },
	{ "MPI_Comm_free", 2 },
	{ "MPI_Comm_free_keyval", 1 },
	{ "MPI_Wtime", 1 },
};

int main(int argc, char **argv)
{
	MPI_Comm dup, half;
	MPI_Request rq[2];
	int size, key, i, sum, in, out, right, left;
	long want = 0, seen;

	*(void **)&count = dlsym(RTLD_DEFAULT, "pmpiwrap_count");
	*(void **)&total = dlsym(RTLD_DEFAULT, "pmpiwrap_total");
	if (!count || !total) {
		fprintf(stderr, "pmpi: skipped: no profiling library "
			"(pmpi.sh runs this with one)\n");
		return 77;
	}

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;

	MPI_Comm_create_keyval(copy_attr, MPI_COMM_NULL_DELETE_FN, &key, NULL);
	MPI_Comm_set_attr(MPI_COMM_WORLD, key, &key);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_split(dup, rank % 2, rank, &half);
	for (i = 0; i < 3; i++) {
		in = -1;
		out = rank * 10 + i;
		MPI_Sendrecv(&out, 1, MPI_INT, right, i, &in, 1, MPI_INT, left,
			     i, dup, MPI_STATUS_IGNORE);
		if (in != left * 10 + i)
			FAIL("Sendrecv %d: got %d from %d", i, in, left);
	}
	MPI_Irecv(&in, 1, MPI_INT, left, 9, dup, &rq[0]);
	MPI_Isend(&out, 1, MPI_INT, right, 9, dup, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	sum = rank;
	MPI_Bcast(&sum, 1, MPI_INT, 0, half);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
	if (sum != size * (size - 1) / 2)
		FAIL("Allreduce: %d", sum);
	MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_MAX, half);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);
	MPI_Comm_free_keyval(&key);
	(void)MPI_Wtime();

	for (i = 0; i < (int)(sizeof(expect) / sizeof(expect[0])); i++) {
		seen = count(expect[i].name);
		if (seen != expect[i].calls)
			FAIL("%s seen %ld times, called %ld", expect[i].name,
			     seen, expect[i].calls);
		want += expect[i].calls;
	}
	/* Nothing else: the library's own calls went to PMPI_ directly. */
	seen = total();
	if (seen != want)
		FAIL("%ld calls seen in all, the program made %ld", seen, want);
	MPI_Finalize();
	if (count("MPI_Finalize") != 1)
		FAIL("MPI_Finalize seen %ld times", count("MPI_Finalize"));
	if (rank == 0)
		printf("pmpi: %ld calls seen, each once, none of libmsg's own\n",
		       want);
	return 0;
}
