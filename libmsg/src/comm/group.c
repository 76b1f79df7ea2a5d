// SPDX-License-Identifier: MIT
/*
 * Groups: ordered sets of processes, kept as their world ranks.  All
 * calls are local.  Set operations mark world ranks in a scratch array
 * of the job's size, so each is linear in the sizes involved.  An
 * empty result is MPI_GROUP_EMPTY (freeing it only clears the handle).
 */

#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"

LM_PREDEFINED(struct libmsg_group, libmsg_group_empty, LM_ABI_GROUP_SIZE) = { .obj = {
	.magic = LM_MAGIC_GROUP, .size = 0, .rank = MPI_UNDEFINED, .world = NULL,
} };

int lm_check_group(MPI_Group group, const char *fn)
{
	lm_check_init(fn);
	if (!group)
		return lm_error(NULL, fn, MPI_ERR_GROUP, "group is MPI_GROUP_NULL");
	if (!LM_HANDLE(group) || group->magic != LM_MAGIC_GROUP)
		return lm_error(NULL, fn, MPI_ERR_GROUP, "invalid group");
	return MPI_SUCCESS;
}

/* A created group, what deferring its free takes, and its members. */
struct group_box {
	struct libmsg_group g;
	struct rcu_head rcu;
	int world[];
};

struct libmsg_group *lm_group_new(int n, const int *world)
{
	struct group_box *b;
	struct libmsg_group *g;
	int r;

	if (n == 0)
		return MPI_GROUP_EMPTY;
	b = malloc(sizeof(*b) + (size_t)n * sizeof(int));
	if (!b)
		return NULL;
	g = &b->g;
	g->magic = LM_MAGIC_GROUP;
	g->size = n;
	g->rank = MPI_UNDEFINED;
	g->world = b->world;
	for (r = 0; r < n; r++) {
		g->world[r] = world ? world[r] : r;
		if (g->world[r] == (int)lm.job.rank)
			g->rank = r;
	}
	return g;
}

/* Store a new group in *out, or report no memory. */
static int give(const char *fn, int n, const int *world, MPI_Group *out)
{
	struct libmsg_group *g = lm_group_new(n, world);

	if (!g)
		return lm_error(NULL, fn, MPI_ERR_NO_MEM,
				"no memory for a group of %d", n);
	*out = g;
	return MPI_SUCCESS;
}

/* A zeroed array of one int per world rank, or NULL. */
static int *marks_new(void)
{
	return calloc(lm.job.nranks ? lm.job.nranks : 1, sizeof(int));
}

static int no_mem(const char *fn)
{
	return lm_error(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
	LM_GUARD();
	int err = lm_check_comm(comm, "MPI_Comm_group");

	if (err)
		return err;
	if (!group)
		return lm_error(comm, "MPI_Comm_group", MPI_ERR_ARG, "group is NULL");
	return give("MPI_Comm_group", comm->size,
		    comm->inter ? comm->lworld : comm->world, group);
}

/* Queries read a live group without the lock (LM_QUERY). */
static inline int group_readable(MPI_Group g)
{
	return lm_live() && LM_HANDLE(g) && g->magic == LM_MAGIC_GROUP;
}

int MPI_Group_size(MPI_Group group, int *size)
{
	LM_QUERY(group_readable(group) && size, *size = group->size);
	LM_GUARD();
	int err = lm_check_group(group, "MPI_Group_size");

	if (err)
		return err;
	if (!size)
		return lm_error(NULL, "MPI_Group_size", MPI_ERR_ARG, "size is NULL");
	*size = group->size;
	return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int *rank)
{
	LM_QUERY(group_readable(group) && rank, *rank = group->rank);
	LM_GUARD();
	int err = lm_check_group(group, "MPI_Group_rank");

	if (err)
		return err;
	if (!rank)
		return lm_error(NULL, "MPI_Group_rank", MPI_ERR_ARG, "rank is NULL");
	*rank = group->rank;
	return MPI_SUCCESS;
}

static void group_reclaim(struct rcu_head *head)
{
	lm_rcu_reclaim(head);
	free(caa_container_of(head, struct group_box, rcu));
}

int MPI_Group_free(MPI_Group *group)
{
	LM_GUARD();
	struct libmsg_group *g;
	int err;

	if (!group)
		return lm_error(NULL, "MPI_Group_free", MPI_ERR_ARG, "group is NULL");
	err = lm_check_group(*group, "MPI_Group_free");
	if (err)
		return err;
	g = *group;
	*group = MPI_GROUP_NULL;
	if (g != MPI_GROUP_EMPTY) {
		g->magic = 0;
		lm_defer_free(&caa_container_of(g, struct group_box, g)->rcu,
			      group_reclaim);
	}
	return MPI_SUCCESS;
}

static int check_two(const char *fn, MPI_Group g1, MPI_Group g2, void *out)
{
	int err = lm_check_group(g1, fn);

	if (!err)
		err = lm_check_group(g2, fn);
	if (err)
		return err;
	if (!out)
		return lm_error(NULL, fn, MPI_ERR_ARG, "result is NULL");
	return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
			      MPI_Group group2, int ranks2[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Group_translate_ranks";
	int i, r, *in2, err = lm_check_group(group1, fn);

	if (!err)
		err = lm_check_group(group2, fn);
	if (err)
		return err;
	if (n < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG, "n %d is negative", n);
	if (n && (!ranks1 || !ranks2))
		return lm_error(NULL, fn, MPI_ERR_ARG, "ranks1 or ranks2 is NULL");
	for (i = 0; i < n; i++)
		if (ranks1[i] != MPI_PROC_NULL &&
		    (ranks1[i] < 0 || ranks1[i] >= group1->size))
			return lm_error(NULL, fn, MPI_ERR_RANK,
					"ranks1[%d] = %d (group1 has %d processes)",
					i, ranks1[i], group1->size);
	in2 = marks_new();	/* world rank -> group2 rank + 1 */
	if (!in2)
		return no_mem(fn);
	for (r = 0; r < group2->size; r++)
		in2[group2->world[r]] = r + 1;
	for (i = 0; i < n; i++) {
		r = ranks1[i];
		if (r == MPI_PROC_NULL)
			ranks2[i] = MPI_PROC_NULL;
		else
			ranks2[i] = in2[group1->world[r]] ? in2[group1->world[r]] - 1 :
				MPI_UNDEFINED;
	}
	free(in2);
	return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
	LM_GUARD();
	static const char fn[] = "MPI_Group_compare";
	int r, *in2, err = check_two(fn, group1, group2, result);

	if (err)
		return err;
	*result = MPI_UNEQUAL;
	if (group1->size != group2->size)
		return MPI_SUCCESS;
	if (!group1->size ||
	    !memcmp(group1->world, group2->world, (size_t)group1->size * sizeof(int))) {
		*result = MPI_IDENT;
		return MPI_SUCCESS;
	}
	in2 = marks_new();
	if (!in2)
		return no_mem(fn);
	for (r = 0; r < group2->size; r++)
		in2[group2->world[r]] = 1;
	*result = MPI_SIMILAR;
	for (r = 0; r < group1->size; r++)
		if (!in2[group1->world[r]])
			*result = MPI_UNEQUAL;
	free(in2);
	return MPI_SUCCESS;
}

enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

/*
 * Union: group1's processes, then group2's that are not in group1.
 * Intersection: group1's that are in group2.  Difference: group1's that
 * are not in group2.  All in the order of the group they come from.
 */
static int set_op(const char *fn, int op, MPI_Group g1, MPI_Group g2,
		  MPI_Group *newgroup)
{
	int r, n = 0, *in2, *out, err = check_two(fn, g1, g2, newgroup);

	if (err)
		return err;
	in2 = marks_new();
	out = malloc(((size_t)g1->size + (size_t)g2->size + 1) * sizeof(int));
	if (!in2 || !out) {
		free(in2);
		free(out);
		return no_mem(fn);
	}
	for (r = 0; r < g2->size; r++)
		in2[g2->world[r]] = 1;
	for (r = 0; r < g1->size; r++) {
		int w = g1->world[r];

		if (op == SET_UNION)
			in2[w] = 2;	/* in the result already */
		else if ((op == SET_INTERSECTION) != (in2[w] == 1))
			continue;
		out[n++] = w;
	}
	if (op == SET_UNION)
		for (r = 0; r < g2->size; r++)
			if (in2[g2->world[r]] == 1)
				out[n++] = g2->world[r];
	err = give(fn, n, out, newgroup);
	free(in2);
	free(out);
	return err;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
	LM_GUARD();
	return set_op("MPI_Group_union", SET_UNION, group1, group2, newgroup);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2,
			   MPI_Group *newgroup)
{
	LM_GUARD();
	return set_op("MPI_Group_intersection", SET_INTERSECTION, group1,
		      group2, newgroup);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2,
			 MPI_Group *newgroup)
{
	LM_GUARD();
	return set_op("MPI_Group_difference", SET_DIFFERENCE, group1, group2,
		      newgroup);
}

static int check_list_args(const char *fn, MPI_Group group, int n,
			   const void *list, MPI_Group *newgroup)
{
	int err = lm_check_group(group, fn);

	if (err)
		return err;
	if (!newgroup)
		return lm_error(NULL, fn, MPI_ERR_ARG, "newgroup is NULL");
	if (n < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG, "n %d is negative", n);
	if (n && !list)
		return lm_error(NULL, fn, MPI_ERR_ARG, "the array of %d is NULL", n);
	return MPI_SUCCESS;
}

/*
 * ranks[0..n) must be distinct ranks of group: sets seen[r] for each.
 * seen has group->size entries, zeroed.
 */
static int check_ranks(const char *fn, MPI_Group group, int n,
		       const int *ranks, char *seen)
{
	int i, r;

	for (i = 0; i < n; i++) {
		r = ranks[i];
		if (r < 0 || r >= group->size)
			return lm_error(NULL, fn, MPI_ERR_RANK,
					"rank %d (element %d) is not in a group of %d",
					r, i, group->size);
		if (seen[r])
			return lm_error(NULL, fn, MPI_ERR_RANK,
					"rank %d appears twice", r);
		seen[r] = 1;
	}
	return MPI_SUCCESS;
}

/* The group of ranks[] (incl), or of group's ranks not in it (excl). */
static int subset(const char *fn, MPI_Group group, int n, const int *ranks,
		  int excl, MPI_Group *newgroup)
{
	int i, m = 0, err, *out;
	char *seen = calloc((size_t)group->size + 1, 1);

	out = malloc(((size_t)group->size + 1) * sizeof(int));
	if (!seen || !out) {
		free(seen);
		free(out);
		return no_mem(fn);
	}
	err = check_ranks(fn, group, n, ranks, seen);
	if (!err) {
		if (excl) {
			for (i = 0; i < group->size; i++)
				if (!seen[i])
					out[m++] = group->world[i];
		} else {
			for (i = 0; i < n; i++)
				out[m++] = group->world[ranks[i]];
		}
		err = give(fn, m, out, newgroup);
	}
	free(seen);
	free(out);
	return err;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[],
		   MPI_Group *newgroup)
{
	LM_GUARD();
	int err = check_list_args("MPI_Group_incl", group, n, ranks, newgroup);

	if (err)
		return err;
	return subset("MPI_Group_incl", group, n, ranks, 0, newgroup);
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[],
		   MPI_Group *newgroup)
{
	LM_GUARD();
	int err = check_list_args("MPI_Group_excl", group, n, ranks, newgroup);

	if (err)
		return err;
	return subset("MPI_Group_excl", group, n, ranks, 1, newgroup);
}

/*
 * The ranks of triplets (first, last, stride): first, first + stride,
 * ... up to last.  More ranks than the group has means a repeat, which
 * check_ranks() reports; the list is cut there.
 */
static int expand(const char *fn, MPI_Group group, int n, int ranges[][3],
		  int *out, int *count)
{
	int i, m = 0;
	long r, first, last, stride;

	for (i = 0; i < n; i++) {
		first = ranges[i][0];
		last = ranges[i][1];
		stride = ranges[i][2];
		if (stride == 0)
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"range %d (%ld, %ld, %ld) has stride 0",
					i, first, last, stride);
		if (first < 0 || first >= group->size || last < 0 ||
		    last >= group->size)
			return lm_error(NULL, fn, MPI_ERR_RANK,
					"range %d (%ld, %ld, %ld) leaves a group of %d",
					i, first, last, stride, group->size);
		if ((last - first) / stride < 0)
			return lm_error(NULL, fn, MPI_ERR_ARG,
					"range %d (%ld, %ld, %ld): the stride leads away from last",
					i, first, last, stride);
		for (r = first; stride > 0 ? r <= last : r >= last; r += stride) {
			out[m++] = (int)r;
			if (m > group->size) {
				*count = m;
				return MPI_SUCCESS;
			}
		}
	}
	*count = m;
	return MPI_SUCCESS;
}

static int range_subset(const char *fn, MPI_Group group, int n,
			int ranges[][3], int excl, MPI_Group *newgroup)
{
	int m = 0, *ranks, err = check_list_args(fn, group, n, ranges, newgroup);

	if (err)
		return err;
	ranks = malloc(((size_t)group->size + 2) * sizeof(int));
	if (!ranks)
		return no_mem(fn);
	err = expand(fn, group, n, ranges, ranks, &m);
	if (!err)
		err = subset(fn, group, m, ranks, excl, newgroup);
	free(ranks);
	return err;
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
			 MPI_Group *newgroup)
{
	LM_GUARD();
	return range_subset("MPI_Group_range_incl", group, n, ranges, 0,
			    newgroup);
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
			 MPI_Group *newgroup)
{
	LM_GUARD();
	return range_subset("MPI_Group_range_excl", group, n, ranges, 1,
			    newgroup);
}
