// SPDX-License-Identifier: MIT
/*
 * Creating intracommunicators: Comm_dup (and idup, dup_with_info),
 * Comm_split (and split_type), Comm_create, Comm_create_group.  Given
 * an intercommunicator, dup, idup, split and create make one
 * (intercomm_make.c); split_type and create_group take none.
 *
 * Each builds the new communicator locally, from what every process
 * already knows (dup, create) or from an MPI_Allgather of (colour, key)
 * (split), then agrees on its context id over a communicator that holds
 * all its processes (ctxid.c), which makes it valid.  A process the new
 * communicator leaves out still takes part in the agreement.  A new
 * communicator inherits its parent's error handler; dup also copies
 * attributes through their copy callbacks, before the agreement.  Names
 * are not inherited.
 */

#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

static int check_out(MPI_Comm comm, const char *fn, MPI_Comm *newcomm)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (!newcomm)
		return lm_error(comm, fn, MPI_ERR_ARG, "newcomm is NULL");
	return MPI_SUCCESS;
}

/*
 * A communicator of world[] (size ranks) under parent, valid once its
 * context id is agreed; NULL when out of memory (the caller still takes
 * part in the agreement, then says so).
 */
static struct libmsg_comm *pending(MPI_Comm parent, int size,
				   const int *world)
{
	return lm_comm_new(parent, size, world, LM_CTX_NONE);
}

/*
 * Agree over `over` (tag: lm_ctx_agree's) on the context id of c, this
 * process's new communicator of size ranks: member says whether there
 * is one for it (then c NULL means no memory).  Errors are raised on
 * comm as fn; *newcomm is c once valid.
 */
static int agree(MPI_Comm comm, const char *fn, MPI_Comm over, int tag,
		 int member, struct libmsg_comm *c, int size, MPI_Comm *newcomm)
{
	char why[160];
	int err = lm_ctx_agree(over, tag, c, why, sizeof(why));

	if (err)
		return lm_error(comm, fn, err, "%s", why);
	if (member && !c)
		return lm_error(comm, fn, MPI_ERR_NO_MEM,
				"no memory for a communicator of %d", size);
	if (c)
		*newcomm = c;
	return MPI_SUCCESS;
}

/*
 * The duplicate of comm with its attributes copied, not yet valid; NULL
 * when out of memory (*err 0) or a copy callback failed (*err its
 * class, reported).
 */
static struct libmsg_comm *dup_pending(MPI_Comm comm, const char *fn,
				       int *err)
{
	struct libmsg_comm *c = pending(comm, comm->size, comm->world);

	*err = c ? lm_attr_copy(comm, c, fn) : MPI_SUCCESS;
	if (*err) {
		lm_attr_drop(c);
		lm_comm_discard(c);
		c = NULL;
	}
	return c;
}

static int comm_dup(MPI_Comm comm, const char *fn, MPI_Comm *newcomm)
{
	struct libmsg_comm *c;
	int err = check_out(comm, fn, newcomm), cerr;

	if (err)
		return err;
	*newcomm = MPI_COMM_NULL;
	if (comm->inter)
		return lm_inter_dup(comm, fn, newcomm, NULL);
	c = dup_pending(comm, fn, &cerr);
	/* A failed copy makes no communicator; the others still agree. */
	err = agree(comm, fn, comm, -1, !cerr, c, comm->size, newcomm);
	return cerr ? cerr : err;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	LM_GUARD();
	return comm_dup(comm, "MPI_Comm_dup", newcomm);
}

/*
 * Info hints: libmsg acts on none, so it keeps none.  A communicator's
 * info is checked where it is given, and MPI_Comm_get_info answers, as
 * MPI asks of an implementation that ignored every hint it was given
 * and has none of its own, with a new, empty info object.
 */
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_dup_with_info";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_check_info_arg(comm, info, fn);
	if (err)
		return err;
	return comm_dup(comm, fn, newcomm);
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_set_info";
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (info == MPI_INFO_NULL)
		return lm_error(comm, fn, MPI_ERR_INFO, "info is MPI_INFO_NULL");
	return lm_check_info_arg(comm, info, fn);
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_get_info";
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (!info_used)
		return lm_error(comm, fn, MPI_ERR_ARG, "info_used is NULL");
	err = MPI_Info_create(info_used);
	if (err)
		return lm_error(comm, fn, err, "no info object for the hints");
	return MPI_SUCCESS;
}

/*
 * The duplicate is built and its attributes copied now; the agreement
 * on its context id runs as a nonblocking collective (ctxid.c), and the
 * communicator becomes valid when the request completes, under
 * MPI_Test or MPI_Wait (MPI_COMM_NULL in *newcomm if it fails).  Until
 * then the handle is no valid communicator, as MPI says.
 */
static int comm_idup(MPI_Comm comm, const char *fn, MPI_Comm *newcomm,
		     MPI_Request *request)
{
	struct libmsg_request *r;
	struct libmsg_comm *c;
	int err, cerr;

	if (!request) {
		lm_check_init(fn);
		return lm_error(comm, fn, MPI_ERR_REQUEST, "request is NULL");
	}
	*request = MPI_REQUEST_NULL;
	err = check_out(comm, fn, newcomm);
	if (err)
		return err;
	*newcomm = MPI_COMM_NULL;
	r = lm_req_new(LM_REQ_COLL);	/* a collective: not cancellable */
	if (!r)
		return lm_req_nomem(comm, fn);
	if (comm->inter) {
		err = lm_inter_dup(comm, fn, newcomm, r);
		if (!err)
			*request = r;
		return err;
	}
	c = dup_pending(comm, fn, &cerr);
	if (!c) {
		/* The others' agreement still needs this process. */
		r->freed = 1;	/* released when it completes */
		if (lm_ctx_agree_start(comm, -1, NULL, NULL, r))
			free(r);
		return cerr ? cerr : lm_error(comm, fn, MPI_ERR_NO_MEM,
					      "no memory for a communicator of %d",
					      comm->size);
	}
	*newcomm = c;
	err = lm_ctx_agree_start(comm, -1, c, newcomm, r);
	if (err) {
		*newcomm = MPI_COMM_NULL;
		free(r);
		return lm_error(comm, fn, err, "out of memory");
	}
	*request = r;
	return MPI_SUCCESS;
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	LM_GUARD();
	return comm_idup(comm, "MPI_Comm_idup", newcomm, request);
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
			    MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_idup_with_info";
	int err = lm_check_comm(comm, fn);

	if (!err)
		err = lm_check_info_arg(comm, info, fn);
	if (err)
		return err;
	return comm_idup(comm, fn, newcomm, request);
}

struct member {
	int key;
	int rank;
};

static int by_key(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->rank - y->rank;
}

int lm_split_order(int n, const int *pairs, int color, int *order)
{
	struct member *m = malloc((size_t)n * sizeof(*m) + 1);
	int r, k = 0;

	if (!m)
		return -1;
	for (r = 0; r < n; r++) {
		if (pairs[2 * r] != color)
			continue;
		m[k].key = pairs[2 * r + 1];
		m[k].rank = r;
		k++;
	}
	qsort(m, (size_t)k, sizeof(*m), by_key);
	for (r = 0; r < k; r++)
		order[r] = m[r].rank;
	free(m);
	return k;
}

/*
 * The world ranks of colour's members ordered by (key, parent rank),
 * from the gathered (colour, key) pairs; n set.  NULL: no memory.
 */
static int *split_members(MPI_Comm comm, const int *pairs, int color, int *n)
{
	int *world = malloc((size_t)comm->size * sizeof(int));
	int r, k;

	k = world ? lm_split_order(comm->size, pairs, color, world) : -1;
	if (k < 0) {
		free(world);
		return NULL;
	}
	for (r = 0; r < k; r++)
		world[r] = lm_comm_world(comm, world[r]);
	*n = k;
	return world;
}

static int split(MPI_Comm comm, const char *fn, int color, int key,
		 MPI_Comm *newcomm)
{
	int mine[2] = { color, key }, *pairs, *world = NULL, n = 0, err;
	struct libmsg_comm *c = NULL;

	err = check_out(comm, fn, newcomm);
	if (err)
		return err;
	if (comm->inter)
		return lm_inter_split(comm, fn, color, key, newcomm);
	if (color < 0 && color != MPI_UNDEFINED)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"color %d is negative (and not MPI_UNDEFINED)", color);
	*newcomm = MPI_COMM_NULL;
	pairs = malloc(2 * (size_t)comm->size * sizeof(int));
	if (!pairs)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	err = MPI_Allgather(mine, 2, MPI_INT, pairs, 2, MPI_INT, comm);
	if (!err && color != MPI_UNDEFINED) {
		world = split_members(comm, pairs, color, &n);
		c = world ? pending(comm, n, world) : NULL;
	}
	if (!err)
		err = agree(comm, fn, comm, -1, color != MPI_UNDEFINED, c, n,
			    newcomm);
	free(world);
	free(pairs);
	return err;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	LM_GUARD();
	return split(comm, "MPI_Comm_split", color, key, newcomm);
}

/* All ranks of a job share one machine: SHARED keeps them all. */
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key,
			MPI_Info info, MPI_Comm *newcomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_split_type";
	char res[MPI_MAX_INFO_VAL];
	int err = check_out(comm, fn, newcomm), colour = 0;

	if (!err)
		err = lm_check_intra(comm, fn);
	if (!err)
		err = lm_check_info_arg(comm, info, fn);
	if (err)
		return err;
	switch (split_type) {
	case MPI_COMM_TYPE_SHARED:
		break;
	case MPI_COMM_TYPE_HW_GUIDED:
		if (!lm_info_lookup(info, "mpi_hw_resource_type", res,
				    sizeof(res)))
			return lm_error(comm, fn, MPI_ERR_INFO,
					"MPI_COMM_TYPE_HW_GUIDED without the info key mpi_hw_resource_type");
		/* One machine is the only resource libmsg knows. */
		if (strcmp(res, "mpi_shared_memory"))
			colour = MPI_UNDEFINED;
		break;
	case MPI_COMM_TYPE_HW_UNGUIDED:	/* no level below the machine */
	case MPI_UNDEFINED:
		colour = MPI_UNDEFINED;
		break;
	default:
		return lm_error(comm, fn, MPI_ERR_ARG,
				"split_type %d is not MPI_COMM_TYPE_SHARED, _HW_GUIDED, _HW_UNGUIDED or MPI_UNDEFINED",
				split_type);
	}
	return split(comm, fn, colour, key, newcomm);
}

/* group must be a subgroup of comm's group. */
static int check_subgroup(MPI_Comm comm, const char *fn, MPI_Group group)
{
	int r, err = lm_check_group(group, fn);

	if (err)
		return err;
	for (r = 0; r < group->size; r++)
		if (lm_comm_local(comm, group->world[r]) < 0)
			return lm_error(comm, fn, MPI_ERR_GROUP,
					"rank %d of the group (world rank %d) is not in the communicator",
					r, group->world[r]);
	return MPI_SUCCESS;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_create";
	int err = check_out(comm, fn, newcomm), member;

	if (!err && comm->inter)
		return lm_inter_create(comm, fn, group, newcomm);
	if (!err)
		err = check_subgroup(comm, fn, group);
	if (err)
		return err;
	*newcomm = MPI_COMM_NULL;
	/* Collective over comm: every process takes part in the agreement. */
	member = group->rank != MPI_UNDEFINED;
	return agree(comm, fn, comm, -1, member,
		     member ? pending(comm, group->size, group->world) : NULL,
		     group->size, newcomm);
}

/*
 * MPI_Comm_create_group is collective over the group alone, so the
 * agreement cannot run over comm.  It runs over a temporary
 * communicator of the group's processes, built locally (every member
 * has the same group) on comm's context ids, with the user's tag with
 * bit 30 set as its collective tag (ctxid.c): comm's own collectives
 * (which other processes of comm may run meanwhile) have tags below
 * 2^30, and its user messages travel on the other context.  MPI tells
 * concurrent calls apart by comm and tag, and so do these messages:
 * two calls on different parents never share a context, whatever
 * their tags.
 */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
			  MPI_Comm *newcomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_create_group";
	struct libmsg_comm *tmp;
	int err = check_out(comm, fn, newcomm);

	if (!err)
		err = lm_check_intra(comm, fn);
	if (!err)
		err = check_subgroup(comm, fn, group);
	if (err)
		return err;
	if (tag < 0 || tag > MPI_TAG_UB_VALUE)
		return lm_error(comm, fn, MPI_ERR_TAG, "tag %d out of range", tag);
	*newcomm = MPI_COMM_NULL;
	if (group->rank == MPI_UNDEFINED)
		return MPI_SUCCESS;	/* not a member: nothing to join */
	tmp = lm_comm_new(comm, group->size, group->world, comm->ctx);
	if (!tmp)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	err = agree(comm, fn, tmp, tag, 1,
		    pending(comm, group->size, group->world), group->size,
		    newcomm);
	lm_comm_discard(tmp);
	return err;
}

/* A tag for stringtag (FNV-1a): equal strings, equal tags. */
int lm_comm_string_tag(const char *s)
{
	uint32_t h = 2166136261U;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619U;
	return (int)(h % ((uint32_t)MPI_TAG_UB_VALUE + 1));
}

static int from_group_args(const char *fn, MPI_Group group,
			   const char *stringtag, MPI_Info info,
			   MPI_Errhandler errh, MPI_Comm *newcomm)
{
	if (!group || group->magic != LM_MAGIC_GROUP)
		return lm_errh_error(errh, fn, MPI_ERR_GROUP, "invalid group");
	if (!stringtag)
		return lm_errh_error(errh, fn, MPI_ERR_ARG, "stringtag is NULL");
	if (strnlen(stringtag, MPI_MAX_STRINGTAG_LEN) >= MPI_MAX_STRINGTAG_LEN)
		return lm_errh_error(errh, fn, MPI_ERR_ARG,
				     "stringtag longer than %d characters",
				     MPI_MAX_STRINGTAG_LEN - 1);
	if (!lm_info_ok(info))
		return lm_errh_error(errh, fn, MPI_ERR_INFO,
				     "invalid info object");
	if (!newcomm)
		return lm_errh_error(errh, fn, MPI_ERR_ARG, "newcomm is NULL");
	*newcomm = MPI_COMM_NULL;
	if (group->rank == MPI_UNDEFINED)
		return lm_errh_error(errh, fn, MPI_ERR_GROUP,
				     "this process is not in the group");
	return MPI_SUCCESS;
}

/*
 * MPI_Comm_create_from_group (MPI-4.0) is MPI_Comm_create_group
 * without a parent.  The job's processes are all in MPI_COMM_WORLD,
 * which exists whether the job was joined by MPI_Init or by a session,
 * so the agreement runs as MPI_Comm_create_group's does, over the
 * group's processes, on a reserved context of its own (LM_CTX_SESSION:
 * no parent's), with a tag hashed from stringtag, which MPI makes the
 * way to tell concurrent calls apart.  Errors are raised on
 * errhandler, which the new communicator gets.
 */
int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag,
			       MPI_Info info, MPI_Errhandler errhandler,
			       MPI_Comm *newcomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_create_from_group";
	struct libmsg_comm *c, *tmp;
	const char *misfit;
	char why[160];
	int err;

	lm_check_init(fn);
	misfit = lm_errh_misfit(errhandler, 0);
	if (misfit)
		return lm_error(NULL, fn, MPI_ERR_ARG, "%s", misfit);
	err = from_group_args(fn, group, stringtag, info, errhandler, newcomm);
	if (err)
		return err;
	tmp = lm_comm_new(MPI_COMM_WORLD, group->size, group->world,
			  LM_CTX_SESSION);
	if (!tmp)
		return lm_errh_error(errhandler, fn, MPI_ERR_NO_MEM,
				     "out of memory");
	c = pending(MPI_COMM_WORLD, group->size, group->world);
	if (c)
		lm_errh_set(&c->errh, errhandler);
	err = lm_ctx_agree(tmp, lm_comm_string_tag(stringtag), c, why, sizeof(why));
	lm_comm_discard(tmp);
	if (err)
		return lm_errh_error(errhandler, fn, err, "%s", why);
	if (!c)
		return lm_errh_error(errhandler, fn, MPI_ERR_NO_MEM,
				     "no memory for a communicator of %d",
				     group->size);
	*newcomm = c;
	return MPI_SUCCESS;
}
