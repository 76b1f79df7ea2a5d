// SPDX-License-Identifier: MIT
/*
 * Intercommunicators (MPI-3.1 6.6): made by MPI_Intercomm_create and
 * MPI_Intercomm_create_from_groups, merged by MPI_Intercomm_merge, and
 * asked about (remote size and group).  Communicators made from one
 * (dup, idup, split, create) are intercomm_make.c's; their collectives
 * coll/coll_inter*.c's.
 *
 * An intercommunicator is a communicator whose size and rank are its
 * local group's and whose peers (world[], local[], rsize) are the
 * remote group's, so point-to-point needs nothing of its own: a
 * destination or source names a remote rank, a status's MPI_SOURCE is
 * one.  It has one context id, agreed by the processes of both groups,
 * and three parts of its own (comm.c, lm_comm_inter_new):
 *   - lc, the local group as an intracommunicator on the same id: its
 *     collectives travel on ctx + 1 between members of one group;
 *   - xc, the remote group again, whose messages travel on ctx + 1:
 *     the leaders' exchanges and the collectives' messages between the
 *     groups, apart from the program's messages on ctx;
 *   - uc, both groups ordered by world rank on the same id: the
 *     agreements on the context ids of communicators made from it, as
 *     MPI_Comm_create_group's, with tags from iseq (>= 2^30 on ctx + 1,
 *     where lc's collectives and xc's messages have tags below).
 * No message on ctx + 1 can take another's place: lc's go within a
 * group, xc's between the groups, uc's carry tags no other has.
 *
 * Every process of a job is in MPI_COMM_WORLD (there is no spawn), so
 * the agreement on a new intercommunicator's id runs over a temporary
 * communicator of both groups on the reserved context LM_CTX_INTER,
 * with a tag made of the leaders' tag and the members, as
 * MPI_Comm_create_from_group's runs on LM_CTX_SESSION.
 *
 * MPI_Comm_get_parent is MPI_COMM_NULL: nothing was spawned.
 */

#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

/* The leaders' swap on xc (ctx + 1, between the groups). */
#define LM_ITAG_SWAP	1

int lm_inter_swap(struct libmsg_comm *ic, const int *mine, int n, int *theirs,
		  int max, int *got)
{
	MPI_Status st;
	int hdr = 0, err;

	if (ic->rank == 0) {
		err = MPI_Sendrecv(mine, n, MPI_INT, 0, LM_ITAG_SWAP, theirs,
				   max, MPI_INT, 0, LM_ITAG_SWAP, ic->xc, &st);
		if (!err)
			err = MPI_Get_count(&st, MPI_INT, &hdr);
		if (err)
			hdr = -err;
	}
	err = MPI_Bcast(&hdr, 1, MPI_INT, 0, ic->lc);
	if (!err && hdr < 0)
		err = -hdr;
	if (!err)
		err = MPI_Bcast(theirs, hdr, MPI_INT, 0, ic->lc);
	if (got)
		*got = hdr;
	return err;
}

/* A tag for the new intercommunicator's agreement, alike on both sides. */
static int make_tag(uint32_t h, int n, const int *u)
{
	int i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint32_t)u[i]) * 16777619U;
	return (int)(h & MPI_TAG_UB_VALUE);
}

/* A library-internal communicator: errors come back to its caller. */
static struct libmsg_comm *quiet(struct libmsg_comm *c)
{
	if (c) {
		lm_errh_put(c->errh);
		c->errh = MPI_ERRORS_RETURN;
		c->noarea = 1;
	}
	return c;
}

/*
 * Every process of both groups: agree on the id of the
 * intercommunicator of lworld[] and rworld[] (which must be disjoint),
 * with errors raised as fn on errc (or errh).  key: the leaders' tag.
 */
static int inter_make(MPI_Comm errc, MPI_Errhandler errh, const char *fn,
		      int lsize, const int *lworld, int rsize,
		      const int *rworld, uint32_t key, MPI_Comm *out)
{
	int n = lsize + rsize, r, *u, err, tag;
	struct libmsg_comm *tmp, *c;
	char why[160];
	char *mark;

	u = malloc((size_t)n * sizeof(int));
	mark = calloc(lm.job.nranks, 1);
	if (!u || !mark) {
		free(u);
		free(mark);
		return lm_errh_error(errh, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	for (r = 0; r < lsize; r++)
		mark[lworld[r]] = 1;
	for (r = 0; r < rsize; r++)
		if (mark[rworld[r]])
			break;
	free(mark);
	if (r < rsize) {
		free(u);
		(void)errc;
		return lm_errh_error(errh, fn, MPI_ERR_COMM,
				     "the groups overlap (world rank %d is in both)",
				     rworld[r]);
	}
	/* Both groups by world rank: the same communicator on each side. */
	memcpy(u, lworld, (size_t)lsize * sizeof(int));
	memcpy(u + lsize, rworld, (size_t)rsize * sizeof(int));
	for (r = 1; r < n; r++) {
		int v = u[r], k = r;

		for (; k > 0 && u[k - 1] > v; k--)
			u[k] = u[k - 1];
		u[k] = v;
	}
	tag = make_tag(key, n, u);
	tmp = quiet(lm_comm_new(MPI_COMM_WORLD, n, u, LM_CTX_INTER));
	free(u);
	if (!tmp)
		return lm_errh_error(errh, fn, MPI_ERR_NO_MEM, "out of memory");
	c = lm_comm_inter_new(errc ? errc : MPI_COMM_WORLD, lsize, lworld,
			      rsize, rworld);
	if (c && !errc)
		lm_errh_set(&c->errh, errh);
	err = lm_ctx_agree(tmp, tag, c, why, sizeof(why));
	lm_comm_discard(tmp);
	if (err)
		return lm_errh_error(errh, fn, err, "%s", why);
	if (!c)
		return lm_errh_error(errh, fn, MPI_ERR_NO_MEM,
				     "no memory for an intercommunicator");
	*out = c;
	return MPI_SUCCESS;
}

/*
 * The leader's side of the start: check what only it is given, swap
 * group sizes and members with the remote leader over peer (tag);
 * hdr[0] becomes the remote size or minus an error class, *rw the
 * remote members.
 */
static int leader_swap(MPI_Comm peer, int rleader, int tag, int lsize,
		       const int *lw, int *hdr, int **rw)
{
	int err;

	*rw = NULL;
	err = MPI_Sendrecv(&lsize, 1, MPI_INT, rleader, tag, hdr, 1, MPI_INT,
			   rleader, tag, peer, MPI_STATUS_IGNORE);
	if (err)
		return err;
	if (hdr[0] < 1)
		return MPI_ERR_INTERN;
	*rw = malloc((size_t)hdr[0] * sizeof(int));
	if (!*rw)
		return MPI_ERR_NO_MEM;
	return MPI_Sendrecv(lw, lsize, MPI_INT, rleader, tag, *rw, hdr[0],
			    MPI_INT, rleader, tag, peer, MPI_STATUS_IGNORE);
}

/*
 * After the leaders' swap: every process of the local group over lcomm
 * (from root) gets hdr (remote size or -error, the tag) and the remote
 * members; then all agree.
 */
static int spread_make(MPI_Comm lcomm, int root, MPI_Comm errc,
		       MPI_Errhandler errh, const char *fn, int lsize,
		       const int *lw, int *hdr, int *rw, MPI_Comm *out)
{
	int err = MPI_Bcast(hdr, 2, MPI_INT, root, lcomm);

	if (!err && hdr[0] < 0)
		err = -hdr[0];
	if (err) {
		free(rw);
		return lm_errh_error(errh, fn, err,
				     "the leaders could not swap their groups");
	}
	if (!rw)
		rw = malloc((size_t)hdr[0] * sizeof(int));
	if (!rw)
		return lm_errh_error(errh, fn, MPI_ERR_NO_MEM, "out of memory");
	err = MPI_Bcast(rw, hdr[0], MPI_INT, root, lcomm);
	if (!err)
		err = inter_make(errc, errh, fn, lsize, lw, hdr[0], rw,
				 (uint32_t)hdr[1], out);
	else
		err = lm_errh_error(errh, fn, err, "broadcast of the remote group failed");
	free(rw);
	return err;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
			 MPI_Comm peer_comm, int remote_leader, int tag,
			 MPI_Comm *newintercomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Intercomm_create";
	int err = lm_check_intra(local_comm, fn), hdr[2] = { 0, 0 }, *lw, *rw = NULL;
	int r, lsize;

	if (err)
		return err;
	if (!newintercomm)
		return lm_error(local_comm, fn, MPI_ERR_ARG,
				"newintercomm is NULL");
	*newintercomm = MPI_COMM_NULL;
	lsize = local_comm->size;
	if (local_leader < 0 || local_leader >= lsize)
		return lm_error(local_comm, fn, MPI_ERR_RANK,
				"local_leader %d (local_comm has %d ranks)",
				local_leader, lsize);
	lw = malloc((size_t)lsize * sizeof(int));
	if (!lw)
		return lm_error(local_comm, fn, MPI_ERR_NO_MEM, "out of memory");
	for (r = 0; r < lsize; r++)
		lw[r] = lm_comm_world(local_comm, r);
	if (local_comm->rank == local_leader) {
		/* Only the leader's peer_comm, remote_leader and tag count. */
		/* Raised once, below, on every process of the group. */
		if (!peer_comm || peer_comm->magic != LM_MAGIC_COMM)
			err = MPI_ERR_COMM;
		else if (remote_leader < 0 || remote_leader >= peer_comm->rsize)
			err = MPI_ERR_RANK;
		else if (tag < 0 || tag > MPI_TAG_UB_VALUE)
			err = MPI_ERR_TAG;
		if (!err)
			err = leader_swap(peer_comm, remote_leader, tag, lsize,
					  lw, hdr, &rw);
		hdr[1] = tag;
		if (err)
			hdr[0] = -err;
	}
	err = spread_make(local_comm, local_leader, local_comm,
			  local_comm->errh, fn, lsize, lw, hdr, rw,
			  newintercomm);
	free(lw);
	return err;
}

/*
 * MPI-4.0's form without a parent: the local group's leader swaps with
 * the remote group's over a temporary communicator of the whole job on
 * LM_CTX_INTER with a tag hashed from stringtag, and tells its group
 * over a temporary communicator of the local group there.
 */
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
				    MPI_Group remote_group, int remote_leader,
				    const char *stringtag, MPI_Info info,
				    MPI_Errhandler errhandler,
				    MPI_Comm *newintercomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Intercomm_create_from_groups";
	int err = lm_check_group(local_group, fn), hdr[2] = { 0, 0 }, *rw = NULL;
	struct libmsg_comm *all, *lcomm;
	const char *why;
	uint32_t h = 2166136261U;
	const char *s;

	if (err)
		return err;
	why = lm_errh_misfit(errhandler, 0);
	if (why)
		return lm_error(NULL, fn, MPI_ERR_ARG, "%s", why);
	if (!newintercomm || !stringtag)
		return lm_errh_error(errhandler, fn, MPI_ERR_ARG,
				     "newintercomm or stringtag is NULL");
	*newintercomm = MPI_COMM_NULL;
	if (!lm_info_ok(info))
		return lm_errh_error(errhandler, fn, MPI_ERR_INFO,
				     "invalid info object");
	if (local_group->rank == MPI_UNDEFINED)
		return lm_errh_error(errhandler, fn, MPI_ERR_GROUP,
				     "this process is not in local_group");
	if (local_leader < 0 || local_leader >= local_group->size)
		return lm_errh_error(errhandler, fn, MPI_ERR_RANK,
				     "local_leader %d (local_group has %d)",
				     local_leader, local_group->size);
	for (s = stringtag; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619U;
	all = quiet(lm_comm_new(MPI_COMM_WORLD, (int)lm.job.nranks, NULL,
				LM_CTX_INTER));
	lcomm = quiet(lm_comm_new(MPI_COMM_WORLD, local_group->size,
				  local_group->world, LM_CTX_INTER));
	if (!all || !lcomm) {
		if (all)
			lm_comm_discard(all);
		if (lcomm)
			lm_comm_discard(lcomm);
		return lm_errh_error(errhandler, fn, MPI_ERR_NO_MEM,
				     "out of memory");
	}
	lcomm->coll_seq = h & (MPI_TAG_UB_VALUE >> 1);
	hdr[1] = (int)(h & MPI_TAG_UB_VALUE);
	if (local_group->rank == local_leader) {
		if (!remote_group || remote_group->magic != LM_MAGIC_GROUP)
			err = MPI_ERR_GROUP;
		if (!err && (remote_leader < 0 ||
			     remote_leader >= remote_group->size))
			err = MPI_ERR_RANK;
		if (!err)
			err = leader_swap(all, remote_group->world[remote_leader],
					  (int)(h & MPI_TAG_UB_VALUE), local_group->size,
					  local_group->world, hdr, &rw);
		if (err)
			hdr[0] = -err;
	}
	err = spread_make(lcomm, local_leader, NULL, errhandler, fn,
			  local_group->size, local_group->world, hdr, rw,
			  newintercomm);
	lm_comm_discard(lcomm);
	lm_comm_discard(all);
	return err;
}

static int check_inter(MPI_Comm comm, const char *fn)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (!comm->inter)
		return lm_error(comm, fn, MPI_ERR_COMM,
				"not an intercommunicator");
	return MPI_SUCCESS;
}

/*
 * The union, the group that passed high = false first (both the same:
 * the group of the lower leader, by world rank, first), each in its
 * own order; its id agreed over uc.
 */
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Intercomm_merge";
	int err = check_inter(intercomm, fn), mine, theirs = 0, n, first, *w;
	struct libmsg_comm *c;
	char why[160];

	if (newintracomm)
		*newintracomm = MPI_COMM_NULL;
	if (err)
		return err;
	if (!newintracomm)
		return lm_error(intercomm, fn, MPI_ERR_ARG,
				"newintracomm is NULL");
	mine = !!high;
	err = lm_inter_swap(intercomm, &mine, 1, &theirs, 1, NULL);
	if (err)
		return lm_error(intercomm, fn, err, "the leaders' swap failed");
	first = mine != theirs ? !mine :
		intercomm->lworld[0] < intercomm->world[0];
	n = intercomm->size + intercomm->rsize;
	w = malloc((size_t)n * sizeof(int));
	c = NULL;
	if (w) {
		int ls = intercomm->size, rs = intercomm->rsize;

		memcpy(first ? w : w + rs, intercomm->lworld,
		       (size_t)ls * sizeof(int));
		memcpy(first ? w + ls : w, intercomm->world,
		       (size_t)rs * sizeof(int));
		c = lm_comm_new(intercomm, n, w, LM_CTX_NONE);
		free(w);
	}
	err = lm_ctx_agree(intercomm->uc,
			   (int)(intercomm->iseq++ & MPI_TAG_UB_VALUE), c, why,
			   sizeof(why));
	if (err)
		return lm_error(intercomm, fn, err, "%s", why);
	if (!c)
		return lm_error(intercomm, fn, MPI_ERR_NO_MEM,
				"no memory for a communicator of %d", n);
	*newintracomm = c;
	return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
	LM_GUARD();
	int err = check_inter(comm, "MPI_Comm_remote_size");

	if (err)
		return err;
	if (!size)
		return lm_error(comm, "MPI_Comm_remote_size", MPI_ERR_ARG,
				"size is NULL");
	*size = comm->rsize;
	return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
	LM_GUARD();
	int err = check_inter(comm, "MPI_Comm_remote_group");
	struct libmsg_group *g;

	if (err)
		return err;
	if (!group)
		return lm_error(comm, "MPI_Comm_remote_group", MPI_ERR_ARG,
				"group is NULL");
	g = lm_group_new(comm->rsize, comm->world);
	if (!g)
		return lm_error(comm, "MPI_Comm_remote_group", MPI_ERR_NO_MEM,
				"no memory for a group of %d", comm->rsize);
	*group = g;
	return MPI_SUCCESS;
}

int MPI_Comm_get_parent(MPI_Comm *parent)
{
	LM_GUARD();

	lm_check_init("MPI_Comm_get_parent");
	if (!parent)
		return lm_error(NULL, "MPI_Comm_get_parent", MPI_ERR_ARG,
				"parent is NULL");
	*parent = MPI_COMM_NULL;
	return MPI_SUCCESS;
}
