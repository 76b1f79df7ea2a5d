// SPDX-License-Identifier: MIT
/*
 * Partitioned communication (MPI-4.0 chapter 4): a persistent send of
 * `partitions` blocks of count elements, each marked ready by
 * MPI_Pready (typically by the thread that filled it), and a persistent
 * receive whose partitions the program may ask about (MPI_Parrived).
 *
 * Both are the persistent point-to-point requests (p2p.c) with two
 * differences.  Their messages carry the user's tag with LM_TAG_PART
 * set, a tag above MPI_TAG_UB that no other call can name and that
 * MPI_ANY_TAG does not take (match.c), so a partitioned send meets a
 * partitioned receive and nothing else, as MPI asks.  And MPI_Start of
 * the send sends nothing: the message goes, as one message by the
 * eager or the rendezvous path, when the last partition is marked
 * ready; one in-place copy, as for a contiguous send, where sending
 * each partition apart would add a message, and a ring slot, per
 * partition.  So a partition "arrives" when the whole message has:
 * MPI_Parrived says true for every partition at once.  Sender and
 * receiver may cut the message into different numbers of partitions;
 * only the total has to agree.
 *
 * Pready takes the library lock like every call; at levels below
 * MPI_THREAD_MULTIPLE the program calls it from one thread at a time,
 * as any MPI call.  Marking a partition twice in one round, or one of
 * an inactive request, is MPI_ERR_ARG / MPI_ERR_REQUEST.
 * MPI_Request_free of a send whose partitions are not all ready is
 * refused (it would never go), and neither kind can be cancelled.
 * Below MPI_THREAD_MULTIPLE, MPI_Wait or MPI_Waitall of such a send is
 * refused too (MPI_ERR_REQUEST): no other thread can mark the missing
 * partitions while this one waits, so the wait could never end.
 */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

void lm_part_free(struct lm_part *p)
{
	if (!p)
		return;
	free(p->ready);
	free(p);
}

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

/* Make r partitioned: its tag apart, its partitions counted. */
static int partition(const char *fn, MPI_Request r, int partitions)
{
	struct lm_part *p = calloc(1, sizeof(*p));

	if (p && r->kind == LM_REQ_SEND)
		p->ready = calloc(partitions ? (size_t)partitions : 1, 1);
	if (!p || (r->kind == LM_REQ_SEND && !p->ready)) {
		struct libmsg_comm *comm = r->comm;

		lm_part_free(p);
		lm_req_release(r);
		return lm_error(comm, fn, MPI_ERR_NO_MEM,
				"no memory for %d partitions", partitions);
	}
	p->partitions = partitions;
	r->part = p;
	if (r->tag >= 0)
		r->tag |= LM_TAG_PART;
	return MPI_SUCCESS;
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
	err = partition(fn, *request, partitions);
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
	err = partition(fn, *request, partitions);
	if (err)
		*request = MPI_REQUEST_NULL;
	return err;
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

/* The message goes when every partition is ready. */
static int all_ready(struct libmsg_request *r, const char *fn)
{
	if (r->part->nready < r->part->partitions)
		return MPI_SUCCESS;
	return lm_send_begin(r, fn);
}

int lm_part_start(struct libmsg_request *r, const char *fn)
{
	memset(r->part->ready, 0, (size_t)r->part->partitions);
	r->part->nready = 0;
	return all_ready(r, fn);
}

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
	return all_ready(request, fn);
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
	return all_ready(request, fn);
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
	return all_ready(request, fn);
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
	if (!r->done)
		lm_progress();
	*flag = r->done;
	if (!r->done)
		lm_poll_missed();
	return MPI_SUCCESS;
}
