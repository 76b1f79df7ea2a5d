// SPDX-License-Identifier: MIT
/*
 * Communicators: MPI_COMM_WORLD and MPI_COMM_SELF, the life of created
 * communicators (comm_create.c makes them), sizes, ranks, names,
 * comparison, and the context ids that keep their traffic apart.
 * Every communicator has two: ctx for point-to-point and ctx + 1 for
 * the library's collective traffic.  Each context id has its own
 * matching queues (struct lm_match), found by id when a message
 * arrives.
 *
 * MPI_Comm_free may come while operations on the communicator are
 * still pending (MPI lets them complete normally): the handle dies at
 * once, but the object and its context id stay until no receive is
 * posted on its contexts, no send on them is still going out, no
 * collective runs on it and no message Mprobe'd on it waits for its
 * MPI_Mrecv.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

LM_PREDEFINED(struct libmsg_comm, libmsg_comm_world, LM_ABI_COMM_SIZE);
LM_PREDEFINED(struct libmsg_comm, libmsg_comm_self, LM_ABI_COMM_SIZE);

/* Created communicators the user holds, and those freed but busy. */
static CDS_LIST_HEAD(live_comms);
static CDS_LIST_HEAD(freed_comms);

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

/* The live communicator of point-to-point context ctx, or NULL. */
const struct libmsg_comm *lm_comm_of_ctx(uint32_t ctx)
{
	struct libmsg_comm *c;

	if (ctx == MPI_COMM_WORLD->ctx)
		return MPI_COMM_WORLD;
	if (ctx == MPI_COMM_SELF->ctx)
		return MPI_COMM_SELF;
	cds_list_for_each_entry(c, &live_comms, link)
		if (c->ctx == ctx)
			return c;
	return NULL;
}

/* Apply fn to every context's queues. */
void lm_match_each(void (*fn)(struct lm_match *m, void *arg), void *arg)
{
	uint32_t i;

	for (i = 0; i < nmatches; i++)
		if (matches[i])
			fn(matches[i], arg);
}

int lm_comm_set_ctx(struct libmsg_comm *c, uint32_t ctx)
{
	if (c->inter && (lm_comm_set_ctx(c->lc, ctx) ||
			 lm_comm_set_ctx(c->xc, ctx + 1) ||
			 lm_comm_set_ctx(c->uc, ctx)))
		return -1;
	c->ctx = ctx;
	c->p2p = lm_match_get(ctx);
	c->coll = lm_match_get(ctx + 1);
	if (!c->p2p || !c->coll)
		return -1;
	c->magic = LM_MAGIC_COMM;
	return 0;
}

static int comm_setup(struct libmsg_comm *c, const char *name, int size,
		      int rank, const int *world, uint32_t ctx)
{
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->size = size;
	c->rsize = size;
	c->rank = rank;
	c->world = world;
	c->ctx = ctx;
	c->errh = MPI_ERRORS_ARE_FATAL;
	if (ctx == LM_CTX_NONE)
		return 0;
	return lm_comm_set_ctx(c, ctx);
}

int lm_comm_init(void)
{
	lm_ctx_init();
	self_world[0] = (int)lm.job.rank;
	if (comm_setup(&libmsg_comm_world, "MPI_COMM_WORLD", (int)lm.job.nranks,
		       (int)lm.job.rank, NULL, LM_CTX_WORLD))
		return -1;
	return comm_setup(&libmsg_comm_self, "MPI_COMM_SELF", 1, 0, self_world,
			  LM_CTX_SELF);
}

static int is_identity(int size, const int *world)
{
	int r;

	if (size != (int)lm.job.nranks)
		return 0;
	for (r = 0; r < size; r++)
		if (world[r] != r)
			return 0;
	return 1;
}

/* A created communicator, and what deferring its free takes. */
struct comm_box {
	struct libmsg_comm c;
	struct rcu_head rcu;
};

struct libmsg_comm *lm_comm_new(const struct libmsg_comm *parent, int size,
				const int *world, uint32_t ctx)
{
	struct comm_box *b = calloc(1, sizeof(*b));
	struct libmsg_comm *c;
	int n = (int)lm.job.nranks, r, *local;

	if (!b)
		return NULL;
	c = &b->c;
	CDS_INIT_LIST_HEAD(&c->link);
	if (world && !is_identity(size, world)) {
		/* world[] then local[]: both directions in O(1). */
		c->maps = malloc(((size_t)size + (size_t)n) * sizeof(int));
		if (!c->maps) {
			free(b);
			return NULL;
		}
		memcpy(c->maps, world, (size_t)size * sizeof(int));
		local = c->maps + size;
		for (r = 0; r < n; r++)
			local[r] = -1;
		for (r = 0; r < size; r++)
			local[world[r]] = r;
		c->local = local;
	}
	if (comm_setup(c, "", size, 0, c->maps, ctx)) {
		lm_comm_discard(c);
		return NULL;
	}
	c->rank = lm_comm_local(c, (int)lm.job.rank);
	c->errh = parent->errh;
	lm_errh_hold(c->errh);
	return c;
}

/* A part of an intercommunicator: errors come back to its code. */
static struct libmsg_comm *part(struct libmsg_comm *c)
{
	if (c) {
		lm_errh_put(c->errh);
		c->errh = MPI_ERRORS_RETURN;
	}
	return c;
}

static int by_world(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * maps: rworld[] (peer rank -> world), local[] (world -> peer rank),
 * lworld[] (local rank -> world).  xc shares them; lc and uc are
 * intracommunicators of their own.
 */
struct libmsg_comm *lm_comm_inter_new(const struct libmsg_comm *parent,
				      int lsize, const int *lworld, int rsize,
				      const int *rworld)
{
	struct comm_box *b = calloc(1, sizeof(*b)), *xb;
	int n = (int)lm.job.nranks, r, *local, *u = NULL;
	struct libmsg_comm *c;

	if (!b)
		return NULL;
	c = &b->c;
	CDS_INIT_LIST_HEAD(&c->link);
	c->maps = malloc(((size_t)rsize + (size_t)n + (size_t)lsize) *
			 sizeof(int));
	xb = calloc(1, sizeof(*xb));
	u = malloc(((size_t)lsize + (size_t)rsize) * sizeof(int));
	if (!c->maps || !xb || !u) {
		free(c->maps);
		free(b);
		free(xb);
		free(u);
		return NULL;
	}
	memcpy(c->maps, rworld, (size_t)rsize * sizeof(int));
	local = c->maps + rsize;
	for (r = 0; r < n; r++)
		local[r] = -1;
	for (r = 0; r < rsize; r++)
		local[rworld[r]] = r;
	memcpy(local + n, lworld, (size_t)lsize * sizeof(int));
	c->lworld = local + n;
	comm_setup(c, "", lsize, 0, c->maps, LM_CTX_NONE);
	for (r = 0; r < lsize; r++)
		if (lworld[r] == (int)lm.job.rank)
			c->rank = r;
	c->local = local;
	c->rsize = rsize;
	c->inter = 1;
	c->errh = parent->errh;
	lm_errh_hold(c->errh);
	/* xc: the same peers; its queues are c's collective context. */
	CDS_INIT_LIST_HEAD(&xb->c.link);
	comm_setup(&xb->c, "", lsize, c->rank, c->maps, LM_CTX_NONE);
	xb->c.local = local;
	xb->c.rsize = rsize;
	xb->c.errh = MPI_ERRORS_RETURN;
	c->xc = &xb->c;
	memcpy(u, lworld, (size_t)lsize * sizeof(int));
	memcpy(u + lsize, rworld, (size_t)rsize * sizeof(int));
	qsort(u, (size_t)(lsize + rsize), sizeof(int), by_world);
	c->lc = part(lm_comm_new(parent, lsize, lworld, LM_CTX_NONE));
	c->uc = part(lm_comm_new(parent, lsize + rsize, u, LM_CTX_NONE));
	free(u);
	if (!c->lc || !c->uc) {
		lm_comm_discard(c);
		return NULL;
	}
	c->uc->noarea = 1;
	return c;
}

void lm_comm_register(struct libmsg_comm *c)
{
	lm_ctx_take(c->ctx);
	cds_list_add_tail(&c->link, &live_comms);
}

static void comm_reclaim(struct rcu_head *head)
{
	struct comm_box *b = caa_container_of(head, struct comm_box, rcu);

	lm_rcu_reclaim(head);
	free(b->c.maps);
	free(b->c.ft_failed);
	free(b);
}

/* Readers (MPI_Comm_size...) may still look at it: free it after them. */
/* c lets go of its error handler (a user's is counted). */
static void errh_drop(struct libmsg_comm *c)
{
	lm_errh_put(c->errh);
	c->errh = MPI_ERRORS_ARE_FATAL;
}

void lm_comm_discard(struct libmsg_comm *c)
{
	if (c->lc)
		lm_comm_discard(c->lc);
	if (c->xc)
		lm_comm_discard(c->xc);
	if (c->uc)
		lm_comm_discard(c->uc);
	c->lc = c->xc = c->uc = NULL;
	c->magic = 0;
	errh_drop(c);
	lm_defer_free(&caa_container_of(c, struct comm_box, c)->rcu,
		      comm_reclaim);
}

/* Is a send on context ctx (either of a communicator's) still going? */
static int sending_on(uint32_t ctx)
{
	struct libmsg_request *req;
	uint32_t d;

	for (d = 0; d < lm.job.nranks; d++)
		cds_list_for_each_entry(req, &lm.pending[d], link)
			if ((req->ctx & ~1U) == ctx)
				return 1;
	cds_list_for_each_entry(req, &lm.inflight, link)
		if ((req->ctx & ~1U) == ctx)
			return 1;
	return 0;
}

struct live_on {
	const struct libmsg_comm *c;
	int found;
};

static void live_on_one(const struct libmsg_comm *comm, int round,
			int rounds, int outstanding, void *arg)
{
	struct live_on *l = arg;

	(void)round;
	(void)rounds;
	(void)outstanding;
	if (comm == l->c)
		l->found = 1;
}

/*
 * Is a collective on c started and not over?  Between two of its
 * rounds it may have nothing posted (a context id agreement waiting
 * for another's to let the mask go).
 */
static int sched_live(const struct libmsg_comm *c)
{
	struct live_on l = { c, 0 };

	lm_up.coll_each_live(live_on_one, &l);
	return l.found;
}

/* A message Mprobe'd on c and not yet received also keeps c. */
static int comm_busy(const struct libmsg_comm *c)
{
	if (c->inter && (sched_live(c->lc) || sched_live(c->xc) ||
			 sched_live(c->uc)))
		return 1;
	return !cds_list_empty(&c->p2p->posted) ||
		!cds_list_empty(&c->coll->posted) || sending_on(c->ctx) ||
		c->probed || sched_live(c);
}

/*
 * Messages nobody received (the program sent more than it received)
 * must not meet the next communicator that gets this context id.
 */
static void drop_unexpected(struct lm_match *m)
{
	struct libmsg_message *msg, *tmp;

	cds_list_for_each_entry_safe(msg, tmp, &m->unexpected, link) {
		cds_list_del(&msg->link);
		lm_message_free(msg);
	}
}

static void comm_release(struct libmsg_comm *c)
{
	cds_list_del(&c->link);
	drop_unexpected(c->p2p);
	drop_unexpected(c->coll);
	if (!lm_up.area_keep_ctx(c->inter ? c->lc : c))
		lm_ctx_release(c->ctx);
	lm_comm_discard(c);
}

void lm_comm_reap(void)
{
	struct libmsg_comm *c, *t;

	cds_list_for_each_entry_safe(c, t, &freed_comms, link)
		if (!comm_busy(c))
			comm_release(c);
}

static void free_match(struct lm_match *m, void *arg)
{
	(void)arg;
	drop_unexpected(m);
	free(m);
}

static void drop_comms(struct cds_list_head *list)
{
	struct libmsg_comm *c, *t;

	cds_list_for_each_entry_safe(c, t, list, link) {
		cds_list_del(&c->link);
		lm_attr_drop(c);
		lm_comm_discard(c);
	}
}

void lm_comm_fini(void)
{
	drop_comms(&live_comms);
	drop_comms(&freed_comms);
	lm_attr_drop(&libmsg_comm_world);
	lm_attr_drop(&libmsg_comm_self);
	lm_attr_fini();
	lm_match_each(free_match, NULL);
	free(matches);
	matches = NULL;
	nmatches = 0;
	libmsg_comm_world.magic = 0;
	libmsg_comm_self.magic = 0;
	free(libmsg_comm_world.ft_failed);
	libmsg_comm_world.ft_failed = NULL;
	libmsg_comm_world.ft_nfailed = libmsg_comm_world.ft_nacked = 0;
	errh_drop(&libmsg_comm_world);
	errh_drop(&libmsg_comm_self);
}

int lm_comm_local(const struct libmsg_comm *comm, int w)
{
	int r;

	if (!comm->world)
		return w;
	if (comm->local)
		return comm->local[w];
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
	if (!LM_HANDLE(comm) || comm->magic != LM_MAGIC_COMM)
		return lm_error(NULL, fn, MPI_ERR_COMM, "invalid communicator");
	return MPI_SUCCESS;
}

/* Queries read a live communicator without the lock (LM_QUERY). */
static inline int comm_readable(MPI_Comm c)
{
	return lm_live() && LM_HANDLE(c) && c->magic == LM_MAGIC_COMM;
}

int lm_check_intra(MPI_Comm comm, const char *fn)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (comm->inter)
		return lm_error(comm, fn, MPI_ERR_COMM,
				"an intercommunicator, where an intracommunicator is needed");
	return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
	LM_QUERY(comm_readable(comm) && size, *size = comm->size);
	LM_GUARD();
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
	LM_QUERY(comm_readable(comm) && rank, *rank = comm->rank);
	LM_GUARD();
	int err = lm_check_comm(comm, "MPI_Comm_rank");

	if (err)
		return err;
	if (!rank)
		return lm_error(comm, "MPI_Comm_rank", MPI_ERR_ARG, "rank is NULL");
	*rank = comm->rank;
	return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm)
{
	LM_GUARD();
	struct libmsg_comm *c;
	int err;

	if (!comm)
		return lm_error(NULL, "MPI_Comm_free", MPI_ERR_ARG, "comm is NULL");
	err = lm_check_comm(*comm, "MPI_Comm_free");
	if (err)
		return err;
	c = *comm;
	if (c == MPI_COMM_WORLD || c == MPI_COMM_SELF)
		return lm_error(c, "MPI_Comm_free", MPI_ERR_COMM,
				"%s is predefined and cannot be freed", c->name);
	err = lm_attr_delete_all(c, "MPI_Comm_free");
	if (err)
		return err;
	c->magic = 0;
	*comm = MPI_COMM_NULL;
	cds_list_del(&c->link);
	cds_list_add_tail(&c->link, &freed_comms);
	lm_comm_reap();
	return MPI_SUCCESS;
}

/*
 * MPI_Comm_disconnect: MPI_Comm_free that first waits for everything
 * pending on the communicator (its sends gone, its posted receives
 * matched: a dead peer's fail), and is collective: a barrier, so that
 * every process is done with it when any returns.
 */
int MPI_Comm_disconnect(MPI_Comm *comm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_disconnect";
	struct libmsg_comm *c;
	int err;

	if (!comm)
		return lm_error(NULL, fn, MPI_ERR_ARG, "comm is NULL");
	err = lm_check_comm(*comm, fn);
	if (err)
		return err;
	c = *comm;
	if (c == MPI_COMM_WORLD || c == MPI_COMM_SELF)
		return lm_error(c, fn, MPI_ERR_COMM,
				"%s is predefined and cannot be disconnected",
				c->name);
	while (comm_busy(c))
		lm_progress_block();
	err = MPI_Barrier(c);
	if (err)
		return err;
	return MPI_Comm_free(comm);
}

/* n world ranks in a[] and b[]: MPI_IDENT (same order), _SIMILAR, _UNEQUAL. */
static int cmp_ranks(int n, const int *a, const int *b)
{
	int r, k, same = 1, found;

	for (r = 0; r < n; r++) {
		if (a[r] == b[r])
			continue;
		same = 0;
		found = 0;
		for (k = 0; k < n && !found; k++)
			found = a[r] == b[k];
		if (!found)
			return MPI_UNEQUAL;
	}
	return same ? MPI_IDENT : MPI_SIMILAR;
}

/* The world ranks of c's local group (c->world of an intracommunicator). */
static const int *local_world(const struct libmsg_comm *c, int *tmp)
{
	int r;

	if (c->inter)
		return c->lworld;
	if (c->world)
		return c->world;
	for (r = 0; r < c->size; r++)
		tmp[r] = r;
	return tmp;
}

/*
 * Intercommunicators (MPI-3.1 6.4.1): congruent when both groups are
 * identical, similar when both have the same members.
 */
static int compare(const struct libmsg_comm *a, const struct libmsg_comm *b)
{
	int *ta, *tb, l, rm = MPI_IDENT;

	if (a->inter != b->inter || a->size != b->size ||
	    a->rsize != b->rsize)
		return MPI_UNEQUAL;
	ta = malloc(2 * (size_t)a->size * sizeof(int) + 1);
	if (!ta)
		return -1;
	tb = ta + a->size;
	l = cmp_ranks(a->size, local_world(a, ta), local_world(b, tb));
	free(ta);
	if (a->inter)
		rm = cmp_ranks(a->rsize, a->world, b->world);
	if (l == MPI_UNEQUAL || rm == MPI_UNEQUAL)
		return MPI_UNEQUAL;
	return l == MPI_IDENT && rm == MPI_IDENT ? MPI_CONGRUENT : MPI_SIMILAR;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
	LM_GUARD();
	int err = lm_check_comm(comm1, "MPI_Comm_compare");

	if (!err)
		err = lm_check_comm(comm2, "MPI_Comm_compare");
	if (err)
		return err;
	if (!result)
		return lm_error(comm1, "MPI_Comm_compare", MPI_ERR_ARG,
				"result is NULL");
	if (comm1 == comm2) {
		*result = MPI_IDENT;
		return MPI_SUCCESS;
	}
	*result = compare(comm1, comm2);
	if (*result < 0) {
		*result = MPI_UNEQUAL;
		return lm_error(comm1, "MPI_Comm_compare", MPI_ERR_NO_MEM,
				"out of memory");
	}
	return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
	LM_QUERY(comm_readable(comm) && flag, *flag = comm->inter);
	LM_GUARD();
	int err = lm_check_comm(comm, "MPI_Comm_test_inter");

	if (err)
		return err;
	if (!flag)
		return lm_error(comm, "MPI_Comm_test_inter", MPI_ERR_ARG,
				"flag is NULL");
	*flag = comm->inter;
	return MPI_SUCCESS;
}

/* Names are local: longer ones are cut to MPI_MAX_OBJECT_NAME - 1. */
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
	LM_GUARD();
	int err = lm_check_comm(comm, "MPI_Comm_set_name");

	if (err)
		return err;
	if (!comm_name)
		return lm_error(comm, "MPI_Comm_set_name", MPI_ERR_ARG,
				"comm_name is NULL");
	snprintf(comm->name, sizeof(comm->name), "%s", comm_name);
	return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
	LM_GUARD();
	int err = lm_check_comm(comm, "MPI_Comm_get_name");

	if (err)
		return err;
	if (!comm_name || !resultlen)
		return lm_error(comm, "MPI_Comm_get_name", MPI_ERR_ARG,
				"comm_name or resultlen is NULL");
	strcpy(comm_name, comm->name);
	*resultlen = (int)strlen(comm_name);
	return MPI_SUCCESS;
}
