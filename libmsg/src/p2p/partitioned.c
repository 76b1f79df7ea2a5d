// SPDX-License-Identifier: MIT
/*
 * Partitioned communication (MPI-4.0 chapter 4): a persistent send of
 * `partitions` blocks of count elements, each marked ready by
 * MPI_Pready (typically by the thread that filled it), and a persistent
 * receive whose partitions the program may ask about (MPI_Parrived).
 *
 * Matching.  MPI matches partitioned operations at initialization: the
 * k-th MPI_Psend_init from rank s to rank d with a tag on a
 * communicator meets d's k-th MPI_Precv_init from s with that tag
 * there, whatever order they are then started, marked ready or
 * completed in.  Each MPI_Precv_init takes a channel, a context id of
 * its own among those no communicator uses (LM_CTX_LIMIT up to
 * LM_MAX_CTX), so that nothing else reaches this process on it, and
 * sends the sender a bind: the channel, its partitions and its size,
 * as a message on the communicator with the user's tag and LM_TAG_PART
 * set (above MPI_TAG_UB: no other call names it and MPI_ANY_TAG does
 * not take it, match.c).  Each MPI_Psend_init posts the receive of a
 * bind.  Binds leave in the receiver's initialization order and their
 * receives are posted in the sender's, and matching keeps both orders,
 * so the k-th send is bound to the k-th receive.
 *
 * Data.  The message is cut where the receiver cuts it: once the send
 * is bound and started, each receive partition goes as a message of
 * its own on the channel (its tag: the partition's index; eager or
 * rendezvous like any send) as soon as every send partition holding
 * its bytes is ready, into a receive that MPI_Start of the partitioned
 * receive posts for each partition.  So a partition arrives as soon as
 * it can, MPI_Parrived tells each apart, and sender and receiver may
 * cut the message into different numbers of partitions (only the
 * total has to agree; bytes beyond the receiver's size truncate its
 * last partition, and a send of some bytes to a receive of 0
 * partitions, which has no partition to truncate, completes with
 * MPI_ERR_TRUNCATE on the sender's side, the only one that knows).  Partitions marked before the receiver started (or
 * before the bind came) go when the bind is in; what arrives before the
 * receive is started waits on the channel as unexpected messages, and
 * a round's messages on one channel cannot pass the previous round's
 * (one sender, one tag per partition).  A send of a non-contiguous type
 * packs each partition as it is marked.  The messages of a partition
 * and the bind are requests of their own (sub-requests, part_of set);
 * the partitioned request completes when the last of its round does.
 *
 * Pready takes the library lock like every call; at levels below
 * MPI_THREAD_MULTIPLE the program calls it from one thread at a time,
 * as any MPI call.  Marking a partition twice in one round, or one of
 * an inactive request, is MPI_ERR_ARG / MPI_ERR_REQUEST.
 * MPI_Request_free of a send whose partitions are not all ready is
 * refused (it would never complete), and neither kind can be cancelled.
 * Below MPI_THREAD_MULTIPLE, MPI_Wait or MPI_Waitall of such a send is
 * refused too (MPI_ERR_REQUEST): no other thread can mark the missing
 * partitions while this one waits, so the wait could never end.  A
 * receive partition holds at most INT_MAX bytes.
 */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

/* ---- Channels ------------------------------------------------------------ */

#define CHAN_FIRST	LM_CTX_LIMIT
#define NCHAN		(LM_MAX_CTX - LM_CTX_LIMIT)

static uint8_t chan_used[NCHAN];

/* The lowest free channel (the match table grows up to it), or -1. */
static int chan_take(uint32_t *ctx)
{
	uint32_t i;

	for (i = 0; i < NCHAN; i++) {
		if (!chan_used[i]) {
			chan_used[i] = 1;
			*ctx = CHAN_FIRST + i;
			return 0;
		}
	}
	return -1;
}

void lm_part_free(struct lm_part *p)
{
	if (!p)
		return;
	if (p->chan_held)
		chan_used[p->bind.ctx - CHAN_FIRST] = 0;
	free(p->ready);
	free(p->arrived);
	free(p->need);
	free(p->packed);
	free(p);
}

/* ---- Sub-requests ---------------------------------------------------------- */

/* A message of r's (a partition, a bind), counted until it completes. */
static struct libmsg_request *sub_new(struct libmsg_request *r, int kind,
				      void *buf, int count, MPI_Datatype dt,
				      uint32_t ctx, int tag)
{
	struct libmsg_request *s = lm_req_new(kind);

	if (!s)
		return NULL;
	lm_req_set_buffer(s, buf, count, dt);
	s->peer = r->peer;
	s->wpeer = r->wpeer;
	s->tag = tag;
	s->comm = r->comm;
	s->ctx = ctx;
	s->mode = LM_MODE_STD;
	s->part_of = r;
	r->part->inflight++;
	return s;
}

static void round_error(struct lm_part *p, int err)
{
	if (err && !p->err)
		p->err = err;
}

/* The round is over when its last message is (and, sending, all marked). */
static void maybe_complete(struct libmsg_request *r)
{
	struct lm_part *p = r->part;

	if (!r->active || r->done || !p->round || p->left)
		return;
	if (r->kind == LM_REQ_SEND && p->nready < p->partitions)
		return;
	p->round = 0;
	if (r->peer == MPI_PROC_NULL)
		lm_status_set(&r->status, NULL, MPI_PROC_NULL, MPI_ANY_TAG, 0,
			      MPI_SUCCESS);
	else
		lm_status_set(&r->status, r->comm, r->wpeer, r->tag,
			      r->kind == LM_REQ_RECV ? p->got : r->bytes,
			      p->err);
	lm_req_complete(r);
}

/* ---- Sending -------------------------------------------------------------- */

/* Bytes of a send partition (the sender's cut). */
static uint64_t send_size(const struct libmsg_request *r)
{
	return (uint64_t)r->part->count * r->dt->size;
}

/* The receive partition that holds byte b of the message. */
static int rpart_of(const struct lm_part *p, uint64_t b)
{
	uint64_t size = p->bind.partitions ?
		p->bind.bytes / (uint64_t)p->bind.partitions : 0;
	uint64_t j = size ? b / size : 0;

	return j < (uint64_t)p->bind.partitions - 1 ? (int)j :
		p->bind.partitions - 1;
}

/* The receive partitions send partition i feeds: [*lo, *hi], or none. */
static int feeds(const struct libmsg_request *r, int i, int *lo, int *hi)
{
	uint64_t s = send_size(r);

	if (!s || !r->part->bind.partitions)
		return 0;
	*lo = rpart_of(r->part, (uint64_t)i * s);
	*hi = rpart_of(r->part, (uint64_t)i * s + s - 1);
	return 1;
}

/* Receive partition j's bytes go: those of the message in its range. */
static void send_part(struct libmsg_request *r, int j)
{
	struct lm_part *p = r->part;
	uint64_t size = p->bind.bytes / (uint64_t)p->bind.partitions;
	uint64_t lo = (uint64_t)j * size, hi = lo + size;
	unsigned char *base = p->packed ? p->packed : r->buf;
	struct libmsg_request *s;

	p->need[j] = -1;
	if (j == p->bind.partitions - 1 || hi > r->bytes)
		hi = r->bytes;	/* the rest: a longer send truncates here */
	if (lo > hi)
		lo = hi;
	if (hi - lo > INT_MAX) {
		round_error(p, MPI_ERR_COUNT);
	} else {
		s = sub_new(r, LM_REQ_SEND, base ? base + lo : NULL,
			    (int)(hi - lo), MPI_BYTE, p->bind.ctx, j);
		if (s) {
			lm_send_start(s);
			return;
		}
		round_error(p, MPI_ERR_NO_MEM);
	}
	p->left--;
	maybe_complete(r);
}

/* Bound and started: count what each receive partition waits for. */
static void send_round(struct libmsg_request *r)
{
	struct lm_part *p = r->part;
	int i, j, lo, hi;

	p->round = 1;
	p->left = p->bind.partitions;
	p->err = 0;
	if (!p->bind.partitions && r->bytes)
		round_error(p, MPI_ERR_TRUNCATE);	/* nowhere to go */
	for (j = 0; j < p->bind.partitions; j++)
		p->need[j] = 0;
	for (i = 0; i < p->partitions; i++)
		if (!p->ready[i] && feeds(r, i, &lo, &hi))
			for (j = lo; j <= hi; j++)
				p->need[j]++;
	for (j = 0; j < p->bind.partitions && r->active && p->round; j++)
		if (!p->need[j])
			send_part(r, j);
	maybe_complete(r);
}

/* The receiver's bind came: the send is matched. */
static void bind_in(struct libmsg_request *r, struct libmsg_request *b)
{
	struct lm_part *p = r->part;

	p->bind_req = NULL;
	if (b->status.libmsg_cancelled)
		return;
	if (b->status.MPI_ERROR) {
		p->bind_err = b->status.MPI_ERROR;
		if (r->active && !r->done) {
			p->round = 1;
			p->left = 0;
			round_error(p, p->bind_err);
			maybe_complete(r);
		}
		return;
	}
	if (b->status.libmsg_count != (long long)sizeof(p->bind) ||
	    p->bind.partitions < 0 || p->bind.ctx < CHAN_FIRST ||
	    p->bind.ctx >= LM_MAX_CTX)
		lm_fatal("protocol error: bad partitioned bind from rank %d",
			 r->wpeer);
	p->need = calloc(p->bind.partitions ? (size_t)p->bind.partitions : 1,
			 sizeof(*p->need));
	if (!p->need)
		lm_fatal("out of memory binding a partitioned send");
	p->bound = 1;
	if (r->active && !r->done)
		send_round(r);
}

/* Partition i is ready: what it completes goes. */
static void marked(struct libmsg_request *r, int i)
{
	struct lm_part *p = r->part;
	int j, lo, hi;

	if (p->packed)
		lm_dt_pack((const void *)((uintptr_t)r->ubuf + (uintptr_t)
					  ((int64_t)i * p->count * r->dt->extent)),
			   p->count, r->dt, p->packed + (uint64_t)i * send_size(r));
	if (!p->bound || !p->round || !feeds(r, i, &lo, &hi))
		return;
	for (j = lo; j <= hi && p->round; j++)
		if (p->need[j] > 0 && --p->need[j] == 0)
			send_part(r, j);
}

static int send_start(struct libmsg_request *r)
{
	struct lm_part *p = r->part;

	memset(p->ready, 0, p->partitions ? (size_t)p->partitions : 1);
	p->nready = 0;
	p->round = 0;
	if (r->peer == MPI_PROC_NULL) {
		p->round = 1;
		p->left = 0;
		maybe_complete(r);
	} else if (p->bind_err) {
		p->round = 1;
		p->left = 0;
		p->err = p->bind_err;
	} else if (p->bound) {
		send_round(r);
	}
	return MPI_SUCCESS;
}

/* ---- Receiving ------------------------------------------------------------ */

static int recv_start(struct libmsg_request *r)
{
	struct lm_part *p = r->part;
	struct libmsg_request *s;
	int j, n = p->partitions;

	memset(p->arrived, 0, n ? (size_t)n : 1);
	p->round = 1;
	p->left = r->peer == MPI_PROC_NULL ? 0 : n;
	p->err = 0;
	p->got = 0;
	for (j = 0; j < n && r->peer != MPI_PROC_NULL; j++) {
		s = sub_new(r, LM_REQ_RECV,
			    (void *)((uintptr_t)r->ubuf + (uintptr_t)((int64_t)j *
				     p->count * r->dt->extent)),
			    p->count, r->dt, p->bind.ctx, j);
		if (!s) {
			round_error(p, MPI_ERR_NO_MEM);
			p->left--;
			continue;
		}
		lm_match_post(s);
	}
	maybe_complete(r);
	return MPI_SUCCESS;
}

int lm_part_start(struct libmsg_request *r)
{
	return r->kind == LM_REQ_SEND ? send_start(r) : recv_start(r);
}

/*
 * A message of r's completed (lm_req_complete): count it, let it go.
 * It stays counted in inflight until the end, so that r, freed by the
 * user, is released here and not by a completion this one causes.
 */
void lm_part_sub_done(struct libmsg_request *s)
{
	struct libmsg_request *r = s->part_of;
	struct lm_part *p = r->part;

	if (s == p->bind_req) {
		bind_in(r, s);
	} else if (r->kind == LM_REQ_RECV && s->kind == LM_REQ_RECV) {
		p->arrived[s->tag] = 1;
		p->got += (uint64_t)s->status.libmsg_count;
		round_error(p, s->status.MPI_ERROR);
		p->left--;
		maybe_complete(r);
	} else if (r->kind == LM_REQ_SEND) {
		round_error(p, s->status.MPI_ERROR);
		p->left--;
		maybe_complete(r);
	}
	/* else the receive's bind, sent */
	lm_req_release(s);
	if (--p->inflight == 0 && r->freed && (r->done || !r->active))
		lm_req_release(r);
}

/* ---- Initialization -------------------------------------------------------- */

/* partitions * count elements in one int (MPI's count), or an error. */
static int check_shape(const char *fn, MPI_Comm comm, int partitions,
		       int count, MPI_Info info)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (partitions < 0 || count < 0)
		return lm_error(comm, fn, partitions < 0 ? MPI_ERR_ARG :
				MPI_ERR_COUNT, "%d partitions of %d elements",
				partitions, count);
	if (count && partitions > INT_MAX / count)
		return lm_error(comm, fn, MPI_ERR_COUNT,
				"%d partitions of %d elements: more than %d",
				partitions, count, INT_MAX);
	return lm_check_info_arg(comm, info, fn);
}

/* Make r partitioned: its tag apart, its partitions counted, matched. */
static int partition(const char *fn, MPI_Request r, int partitions,
		     int count)
{
	size_t n = partitions ? (size_t)partitions : 1;
	struct lm_part *p = calloc(1, sizeof(*p));
	struct libmsg_comm *comm = r->comm;
	struct libmsg_request *b;

	if (!p)
		goto nomem;
	r->part = p;
	p->partitions = partitions;
	p->count = count;
	if (r->tag >= 0)
		r->tag |= LM_TAG_PART;
	if (r->kind == LM_REQ_SEND) {
		p->ready = calloc(n, 1);
		/* Packed partition by partition as they are marked. */
		if (p->ready && r->packed && r->bytes)
			p->packed = malloc(r->bytes);
		if (!p->ready || (r->packed && r->bytes && !p->packed))
			goto nomem;
		r->packed = 0;
		if (r->peer == MPI_PROC_NULL)
			return MPI_SUCCESS;
		/* Posted in initialization order: the k-th bind is ours. */
		b = sub_new(r, LM_REQ_RECV, &p->bind, sizeof(p->bind),
			    MPI_BYTE, comm->ctx, r->tag);
		if (!b)
			goto nomem;
		p->bind_req = b;
		lm_match_post(b);
		return MPI_SUCCESS;
	}
	p->arrived = calloc(n, 1);
	if (!p->arrived)
		goto nomem;
	if (r->peer == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (chan_take(&p->bind.ctx)) {
		lm_req_release(r);
		return lm_error(comm, fn, MPI_ERR_NO_MEM,
				"no channel left for a partitioned receive (%u at once)",
				NCHAN);
	}
	p->chan_held = 1;
	p->bind.partitions = partitions;
	p->bind.bytes = r->bytes;
	/* Sent in initialization order: the k-th send takes it. */
	b = sub_new(r, LM_REQ_SEND, &p->bind, sizeof(p->bind), MPI_BYTE,
		    comm->ctx, r->tag);
	if (!b)
		goto nomem;
	lm_send_start(b);
	return MPI_SUCCESS;
nomem:
	lm_req_release(r);
	return lm_error(comm, fn, MPI_ERR_NO_MEM, "no memory for %d partitions",
			partitions);
}

int MPI_Psend_init(const void *buf, int partitions, int count,
		   MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		   MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Psend_init";
	int err = check_shape(fn, comm, partitions, count, info);

	if (!err)
		err = lm_send_init(fn, buf, partitions * count, datatype, dest,
				   tag, comm, request);
	if (err)
		return err;
	err = partition(fn, *request, partitions, count);
	if (err)
		*request = MPI_REQUEST_NULL;
	return err;
}

int MPI_Precv_init(void *buf, int partitions, int count,
		   MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
		   MPI_Info info, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Precv_init";
	int err = check_shape(fn, comm, partitions, count, info);

	if (err)
		return err;
	if (source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
		return lm_error(comm, fn, source == MPI_ANY_SOURCE ?
				MPI_ERR_RANK : MPI_ERR_TAG,
				"a partitioned receive names its source and tag (no wildcards)");
	err = lm_recv_init(fn, buf, partitions * count, datatype, source, tag,
			   comm, request);
	if (err)
		return err;
	err = partition(fn, *request, partitions, count);
	if (err)
		*request = MPI_REQUEST_NULL;
	return err;
}

/*
 * MPI_Request_free of a partitioned request: 1 when its release must
 * wait for its messages (r is marked freed), 0 to release it now.  A
 * send's bind that has not come is withdrawn.
 */
int lm_part_free_req(struct libmsg_request *r)
{
	struct lm_part *p = r->part;

	if (r->active && !r->done)
		return 0;	/* released on completion, as any request */
	if (p->bind_req)
		lm_match_cancel_recv(p->bind_req);
	if (!p->inflight)
		return 0;
	r->freed = 1;
	return 1;
}

/*
 * Would a wait for r never end?  An active partitioned send with
 * partitions not ready, below MPI_THREAD_MULTIPLE, where no other thread
 * can mark them while this one waits.
 */
int lm_part_stuck(const struct libmsg_request *r, const char *fn)
{
	if (!r->part || r->kind != LM_REQ_SEND || !r->active ||
	    r->part->nready >= r->part->partitions ||
	    lm.thread_level == MPI_THREAD_MULTIPLE)
		return 0;
	return lm_error(r->comm, fn, MPI_ERR_REQUEST,
			"a partitioned send with %d of %d partitions ready: below MPI_THREAD_MULTIPLE nothing can mark the others while this waits",
			r->part->nready, r->part->partitions);
}

/* ---- Pready and Parrived -------------------------------------------------- */

/* r is an active partitioned send, or an error. */
static int check_send_req(MPI_Request r, const char *fn)
{
	lm_check_init(fn);
	if (!r || r->magic != LM_MAGIC_REQ || !r->part ||
	    r->kind != LM_REQ_SEND)
		return lm_error(NULL, fn, MPI_ERR_REQUEST,
				"not a partitioned send request");
	if (!r->active)
		return lm_error(r->comm, fn, MPI_ERR_REQUEST,
				"the partitioned send is not started");
	return MPI_SUCCESS;
}

/* May partition p of r be marked now?  0, or MPI_ERR_ARG raised. */
static int markable(MPI_Request r, int p, const char *fn)
{
	if (p < 0 || p >= r->part->partitions)
		return lm_error(r->comm, fn, MPI_ERR_ARG, "partition %d of %d",
				p, r->part->partitions);
	if (r->part->ready[p])
		return lm_error(r->comm, fn, MPI_ERR_ARG,
				"partition %d is ready, or listed, already", p);
	return MPI_SUCCESS;
}

static void mark(MPI_Request r, int p)
{
	r->part->ready[p] = 1;
	r->part->nready++;
	marked(r, p);
}

/* Marked: the round may be over (every message went already). */
static int mark_done(MPI_Request r)
{
	maybe_complete(r);
	return MPI_SUCCESS;
}

int MPI_Pready(int partition, MPI_Request request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Pready";
	int err = check_send_req(request, fn);

	if (!err)
		err = markable(request, partition, fn);
	if (err)
		return err;
	mark(request, partition);
	return mark_done(request);
}

/* All or none: every partition is checked before any is marked. */
int MPI_Pready_range(int partition_low, int partition_high,
		     MPI_Request request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Pready_range";
	int err = check_send_req(request, fn), i;

	if (err)
		return err;
	if (partition_low > partition_high)
		return lm_error(request->comm, fn, MPI_ERR_ARG,
				"partitions %d..%d", partition_low,
				partition_high);
	for (i = partition_low; i <= partition_high; i++)
		if ((err = markable(request, i, fn)))
			return err;
	for (i = partition_low; i <= partition_high; i++)
		mark(request, i);
	return mark_done(request);
}

int MPI_Pready_list(int length, const int array_of_partitions[],
		    MPI_Request request)
{
	LM_GUARD();
	static const char fn[] = "MPI_Pready_list";
	int err = check_send_req(request, fn), i, j;

	if (err)
		return err;
	if (length < 0 || (length && !array_of_partitions))
		return lm_error(request->comm, fn, MPI_ERR_ARG,
				"%d partitions listed in %s", length,
				array_of_partitions ? "an array" : "NULL");
	/* All or none: listed ones are set aside (2) while checked, so a
	 * repeat is refused, and let go again at a bad one. */
	for (i = 0; i < length; i++) {
		err = markable(request, array_of_partitions[i], fn);
		if (err) {
			for (j = 0; j < i; j++)
				request->part->ready[array_of_partitions[j]] = 0;
			return err;
		}
		request->part->ready[array_of_partitions[i]] = 2;
	}
	for (i = 0; i < length; i++) {
		request->part->ready[array_of_partitions[i]] = 0;
		mark(request, array_of_partitions[i]);
	}
	return mark_done(request);
}

int MPI_Parrived(MPI_Request request, int partition, int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPI_Parrived";
	MPI_Request r = request;

	lm_check_init(fn);
	if (!r || r->magic != LM_MAGIC_REQ || !r->part ||
	    r->kind != LM_REQ_RECV)
		return lm_error(NULL, fn, MPI_ERR_REQUEST,
				"not a partitioned receive request");
	if (!r->active && !r->done)
		return lm_error(r->comm, fn, MPI_ERR_REQUEST,
				"the partitioned receive is not started");
	if (partition < 0 || partition >= r->part->partitions)
		return lm_error(r->comm, fn, MPI_ERR_ARG, "partition %d of %d",
				partition, r->part->partitions);
	if (!flag)
		return lm_error(r->comm, fn, MPI_ERR_ARG, "flag is NULL");
	if (!r->done && !r->part->arrived[partition])
		lm_progress();
	*flag = r->done || r->part->arrived[partition];
	if (!*flag)
		lm_poll_missed();
	return MPI_SUCCESS;
}
