// SPDX-License-Identifier: MIT
/*
 * Communicators: MPI_COMM_WORLD and MPI_COMM_SELF, their sizes and
 * ranks, and the context ids that keep their traffic apart.  Every
 * communicator has two: ctx for point-to-point and ctx + 1 for the
 * library's collective traffic.  Each context id has its own matching
 * queues (struct lm_match), found by id when a message arrives.
 */

#include <stdlib.h>
#include <string.h>

#include "lm.h"

/* Context ids of the predefined communicators. */
#define LM_CTX_WORLD	0
#define LM_CTX_SELF	2

struct libmsg_comm libmsg_comm_world, libmsg_comm_self;

/* Queues by context id; grows as contexts appear. */
static struct lm_match **matches;
static uint32_t nmatches;
static int self_world[1];

struct lm_match *lm_match_get(uint32_t ctx)
{
	struct lm_match **n, *m;
	uint32_t want;

	if (ctx >= nmatches) {
		want = nmatches ? nmatches : 8;
		while (want <= ctx)
			want *= 2;
		n = realloc(matches, want * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + nmatches, 0, (want - nmatches) * sizeof(*n));
		matches = n;
		nmatches = want;
	}
	if (!matches[ctx]) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return NULL;
		m->ctx = ctx;
		CDS_INIT_LIST_HEAD(&m->posted);
		CDS_INIT_LIST_HEAD(&m->unexpected);
		matches[ctx] = m;
	}
	return matches[ctx];
}

/* Apply fn to every context's queues. */
void lm_match_each(void (*fn)(struct lm_match *m, void *arg), void *arg)
{
	uint32_t i;

	for (i = 0; i < nmatches; i++)
		if (matches[i])
			fn(matches[i], arg);
}

static int comm_setup(struct libmsg_comm *c, const char *name, int size,
		      int rank, const int *world, uint32_t ctx)
{
	c->magic = LM_MAGIC_COMM;
	c->name = name;
	c->size = size;
	c->rank = rank;
	c->world = world;
	c->ctx = ctx;
	c->errh = MPI_ERRORS_ARE_FATAL;
	c->p2p = lm_match_get(ctx);
	c->coll = lm_match_get(ctx + 1);
	return c->p2p && c->coll ? 0 : -1;
}

int lm_comm_init(void)
{
	self_world[0] = (int)lm.job.rank;
	if (comm_setup(&libmsg_comm_world, "MPI_COMM_WORLD", (int)lm.job.nranks,
		       (int)lm.job.rank, NULL, LM_CTX_WORLD))
		return -1;
	return comm_setup(&libmsg_comm_self, "MPI_COMM_SELF", 1, 0, self_world,
			  LM_CTX_SELF);
}

static void free_match(struct lm_match *m, void *arg)
{
	struct libmsg_message *msg, *tmp;

	(void)arg;
	cds_list_for_each_entry_safe(msg, tmp, &m->unexpected, link) {
		cds_list_del(&msg->link);
		lm_message_free(msg);
	}
	free(m);
}

void lm_comm_fini(void)
{
	lm_match_each(free_match, NULL);
	free(matches);
	matches = NULL;
	nmatches = 0;
	libmsg_comm_world.magic = 0;
	libmsg_comm_self.magic = 0;
}

int lm_comm_local(const struct libmsg_comm *comm, int w)
{
	int r;

	if (!comm->world)
		return w;
	for (r = 0; r < comm->size; r++)
		if (comm->world[r] == w)
			return r;
	return -1;
}

int lm_check_comm(MPI_Comm comm, const char *fn)
{
	lm_check_init(fn);
	if (!comm)
		return lm_error(NULL, fn, MPI_ERR_COMM, "communicator is MPI_COMM_NULL");
	if (comm->magic != LM_MAGIC_COMM)
		return lm_error(NULL, fn, MPI_ERR_COMM, "invalid communicator");
	return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
	int err = lm_check_comm(comm, "MPI_Comm_size");

	if (err)
		return err;
	if (!size)
		return lm_error(comm, "MPI_Comm_size", MPI_ERR_ARG, "size is NULL");
	*size = comm->size;
	return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
	int err = lm_check_comm(comm, "MPI_Comm_rank");

	if (err)
		return err;
	if (!rank)
		return lm_error(comm, "MPI_Comm_rank", MPI_ERR_ARG, "rank is NULL");
	*rank = comm->rank;
	return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val,
		      int *flag)
{
	static int tag_ub = MPI_TAG_UB_VALUE, host = MPI_PROC_NULL,
		io = MPI_ANY_SOURCE, wtime_global = 1;
	int err = lm_check_comm(comm, "MPI_Comm_get_attr");

	if (err)
		return err;
	if (!attribute_val || !flag)
		return lm_error(comm, "MPI_Comm_get_attr", MPI_ERR_ARG,
				"attribute_val or flag is NULL");
	*flag = 1;
	switch (keyval) {
	case MPI_TAG_UB:
		*(int **)attribute_val = &tag_ub;
		break;
	case MPI_HOST:
		*(int **)attribute_val = &host;
		break;
	case MPI_IO:
		*(int **)attribute_val = &io;
		break;
	case MPI_WTIME_IS_GLOBAL:
		*(int **)attribute_val = &wtime_global;
		break;
	default:
		*flag = 0;
		break;
	}
	return MPI_SUCCESS;
}
