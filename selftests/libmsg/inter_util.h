/* SPDX-License-Identifier: MIT */
/*
 * inter_util.h: the intercommunicators the intercommunicator tests
 * make.  Group A is the low half of MPI_COMM_WORLD (ranks below
 * size / 2), group B the rest, so sizes differ at odd rank counts
 * (np 3: A = {0}, B = {1, 2}).
 */
#ifndef LIBMSG_INTER_UTIL_H
#define LIBMSG_INTER_UTIL_H

#include "test.h"

static int t_in_a;		/* this process is in group A */
static int t_na, t_nb;		/* the groups' sizes */

/* World rank of local rank r in group A (a) or B. */
static inline int t_world_of(int a, int r)
{
	return a ? r : t_na + r;
}

/*
 * The intercommunicator between A and B, made by MPI_Intercomm_create
 * with local leader `leader` in each group (taken modulo its size),
 * over MPI_COMM_WORLD with tag; *local gets the group's own
 * communicator (NULL: freed).
 */
static inline MPI_Comm t_inter(int leader, int tag, MPI_Comm *local)
{
	MPI_Comm lc, ic = MPI_COMM_NULL;
	int la, lb;

	t_na = t_size / 2;
	t_nb = t_size - t_na;
	t_in_a = t_rank < t_na;
	la = leader % t_na;
	lb = leader % t_nb;
	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, !t_in_a, t_rank, &lc));
	MPI_OK(MPI_Intercomm_create(lc, t_in_a ? la : lb, MPI_COMM_WORLD,
				    t_in_a ? t_world_of(0, lb) : la, tag,
				    &ic));
	CHECK(ic != MPI_COMM_NULL, "no intercommunicator");
	if (local)
		*local = lc;
	else
		MPI_OK(MPI_Comm_free(&lc));
	return ic;
}

/* The remote group's size and this process's local rank. */
static inline int t_rsize(void)
{
	return t_in_a ? t_nb : t_na;
}

static inline int t_lrank(void)
{
	return t_in_a ? t_rank : t_rank - t_na;
}

#endif
