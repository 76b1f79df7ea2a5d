// SPDX-License-Identifier: MIT
/*
 * Communicators made from an intercommunicator (MPI-3.1 6.4.2): dup
 * and idup (the same groups), split (for each colour, the local
 * processes of that colour facing the remote ones of the same colour)
 * and create (the given subgroup of the local group facing the one the
 * remote group gave).  A new intercommunicator whose local or remote
 * group would be empty is MPI_COMM_NULL.
 *
 * What one group chose reaches the other through the leaders
 * (lm_inter_swap: local rank 0 to remote rank 0, then a broadcast in
 * the group); the context id is agreed over the intercommunicator's uc
 * (both groups), by every process, member or not, with the tag of the
 * intercommunicator's next creation (iseq, alike on all its processes:
 * each creation is collective over both groups).  All the new
 * intercommunicators of a split share that id: they have no process in
 * common.
 */

#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

static int next_tag(struct libmsg_comm *ic)
{
	return (int)(ic->iseq++ & MPI_TAG_UB_VALUE);
}

static int agree(MPI_Comm ic, const char *fn, struct libmsg_comm *c,
		 int member, MPI_Comm *newcomm)
{
	char why[160];
	int err = lm_ctx_agree(ic->uc, next_tag(ic), c, why, sizeof(why));

	if (err)
		return lm_error(ic, fn, err, "%s", why);
	if (member && !c)
		return lm_error(ic, fn, MPI_ERR_NO_MEM,
				"no memory for an intercommunicator");
	if (c)
		*newcomm = c;
	return MPI_SUCCESS;
}

int lm_inter_dup(MPI_Comm comm, const char *fn, MPI_Comm *newcomm,
		 struct libmsg_request *req)
{
	struct libmsg_comm *c;
	int cerr = 0, err;

	c = lm_comm_inter_new(comm, comm->size, comm->lworld, comm->rsize,
			      comm->world);
	if (c)
		cerr = lm_attr_copy(comm, c, fn);
	if (cerr) {
		lm_attr_drop(c);
		lm_comm_discard(c);
		c = NULL;
	}
	if (!req) {
		err = agree(comm, fn, c, !cerr, newcomm);
		return cerr ? cerr : err;
	}
	if (!c) {
		/* The others' agreement still needs this process. */
		req->freed = 1;
		if (lm_ctx_agree_start(comm->uc, next_tag(comm), NULL, NULL,
				       req))
			free(req);
		return cerr ? cerr : lm_error(comm, fn, MPI_ERR_NO_MEM,
					      "no memory for an intercommunicator");
	}
	*newcomm = c;
	err = lm_ctx_agree_start(comm->uc, next_tag(comm), c, newcomm, req);
	if (err) {
		*newcomm = MPI_COMM_NULL;
		free(req);
		return lm_error(comm, fn, err, "out of memory");
	}
	return MPI_SUCCESS;
}

/* The world ranks of colour's members among n (colour, key) pairs. */
static int pick(int n, const int *pairs, const int *world, int color,
		int *out)
{
	int r, k = lm_split_order(n, pairs, color, out);

	for (r = 0; r < k; r++)
		out[r] = world[out[r]];
	return k;
}

int lm_inter_split(MPI_Comm comm, const char *fn, int color, int key,
		   MPI_Comm *newcomm)
{
	int ls = comm->size, rs = comm->rsize, mine[2] = { color, key };
	int *buf, *lp, *rp, *lw, *rw, ln = 0, rn = 0, err;
	struct libmsg_comm *c = NULL;

	if (color < 0 && color != MPI_UNDEFINED)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"color %d is negative (and not MPI_UNDEFINED)", color);
	*newcomm = MPI_COMM_NULL;
	buf = malloc(3 * ((size_t)ls + (size_t)rs) * sizeof(int));
	if (!buf)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	lp = buf;
	rp = lp + 2 * ls;
	lw = rp + 2 * rs;
	rw = lw + ls;
	err = MPI_Allgather(mine, 2, MPI_INT, lp, 2, MPI_INT, comm->lc);
	if (!err)
		err = lm_inter_swap(comm, lp, 2 * ls, rp, 2 * rs, NULL);
	if (err) {
		free(buf);
		return lm_error(comm, fn, err, "the colours could not be exchanged");
	}
	if (color != MPI_UNDEFINED) {
		ln = pick(ls, lp, comm->lworld, color, lw);
		rn = pick(rs, rp, comm->world, color, rw);
		if (ln > 0 && rn > 0)
			c = lm_comm_inter_new(comm, ln, lw, rn, rw);
	}
	err = agree(comm, fn, c, ln > 0 && rn > 0, newcomm);
	free(buf);
	return err;
}

int lm_inter_create(MPI_Comm comm, const char *fn, MPI_Group group,
		    MPI_Comm *newcomm)
{
	struct libmsg_comm *c = NULL;
	int r, rn = 0, err, *rw, member;

	err = lm_check_group(group, fn);
	if (err)
		return err;
	for (r = 0; r < group->size; r++)
		if (lm_comm_local(comm->lc, group->world[r]) < 0)
			return lm_error(comm, fn, MPI_ERR_GROUP,
					"rank %d of the group (world rank %d) is not in the local group",
					r, group->world[r]);
	*newcomm = MPI_COMM_NULL;
	rw = malloc(((size_t)comm->rsize + 1) * sizeof(int));
	if (!rw)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	err = lm_inter_swap(comm, group->world, group->size, rw, comm->rsize,
			    &rn);
	if (err) {
		free(rw);
		return lm_error(comm, fn, err, "the groups could not be exchanged");
	}
	member = group->rank != MPI_UNDEFINED && rn > 0;
	if (member)
		c = lm_comm_inter_new(comm, group->size, group->world, rn, rw);
	err = agree(comm, fn, c, member, newcomm);
	free(rw);
	return err;
}
