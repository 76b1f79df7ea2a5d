/* SPDX-License-Identifier: MIT */
/*
 * comm_util.h: checks shared by the communicator tests.
 */
#ifndef LIBMSG_COMM_UTIL_H
#define LIBMSG_COMM_UTIL_H

#include "test.h"

#define MAXN 64

/* The world ranks of comm's ranks, in order; returns the size. */
static inline int t_comm_members(MPI_Comm c, int *out)
{
	MPI_Group g, w;
	int in[MAXN], i, n;

	MPI_OK(MPI_Comm_size(c, &n));
	CHECK(n <= MAXN, "communicator of %d", n);
	MPI_OK(MPI_Comm_group(c, &g));
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
	for (i = 0; i < n; i++)
		in[i] = i;
	MPI_OK(MPI_Group_translate_ranks(g, n, in, w, out));
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Group_free(&w));
	return n;
}

/* The rank in c of world rank w (MPI_UNDEFINED if not in c). */
static inline int t_rank_in(MPI_Comm c, int w)
{
	MPI_Group g, world;
	int r;

	MPI_OK(MPI_Comm_group(c, &g));
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
	MPI_OK(MPI_Group_translate_ranks(world, 1, &w, g, &r));
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Group_free(&world));
	return r;
}

/*
 * c holds the world ranks want[0..n) in that order, this process is
 * want[its rank], and a message goes round c's ranks with the right
 * sources in the statuses (received with MPI_ANY_SOURCE).
 */
static inline void t_check_comm(MPI_Comm c, int n, const int *want,
				const char *what)
{
	int got[MAXN], m, i, r, size, next, prev, v, cnt;
	MPI_Request rq;
	MPI_Status st;

	m = t_comm_members(c, got);
	CHECK(m == n, "%s: size %d, expected %d", what, m, n);
	MPI_OK(MPI_Comm_size(c, &size));
	MPI_OK(MPI_Comm_rank(c, &r));
	CHECK(size == n && r >= 0 && r < n && want[r] == t_rank,
	      "%s: rank %d of %d", what, r, size);
	for (i = 0; i < n; i++)
		CHECK(got[i] == want[i], "%s: rank %d is world %d, expected %d",
		      what, i, got[i], want[i]);
	next = (r + 1) % n;
	prev = (r + n - 1) % n;
	MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 77, c, &rq));
	MPI_OK(MPI_Send(&t_rank, 1, MPI_INT, next, 77, c));
	MPI_OK(MPI_Wait(&rq, &st));
	MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
	CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 77 && cnt == 1 &&
	      v == want[prev], "%s: ring got %d from %d, expected %d from %d",
	      what, v, st.MPI_SOURCE, want[prev], prev);
}

#endif /* LIBMSG_COMM_UTIL_H */
