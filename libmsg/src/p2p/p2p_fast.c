// SPDX-License-Identifier: MIT
/*
 * The short way for blocking MPI_Send and MPI_Recv of a small
 * contiguous message, taken when nothing else is going on.
 *
 * A ping-pong of 8 bytes spends most of its time in the general path:
 * a request built and torn down, the matching queues searched and
 * appended to, every ring polled, the status translated.  None of it
 * is needed when the library is quiet: no send queued or waiting for
 * its receiver, no collective round ready to start, nothing posted or
 * unexpected on the communicator.  Then a send is one message put into
 * the ring, and a receive is the message at the head of the source's
 * ring, if that is the one it wants.
 *
 * Whatever does not fit (a wildcard source, a full ring, a message of
 * another context at the head, a dead peer, any argument the checks
 * would look at twice) goes back to the general path, which starts
 * from scratch: the short way never changes state unless it completes
 * the call, so falling back is always safe.
 */

#include "p2p/p2p.h"

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	__asm__ __volatile__("" ::: "memory")
#endif

/* Polls of the source's ring before the general wait takes over. */
#define LM_FAST_POLLS		64
#define LM_FAST_POLLS_OVERSUB	16

/*
 * Valid, committed and one run of bytes: the checks the general path
 * makes, in their cheap form (any doubt, and it makes them again).
 */
static inline int fast_dt(MPI_Datatype dt)
{
	return LM_HANDLE(dt) && dt->magic == LM_MAGIC_DT && dt->committed && !dt->freed &&
		dt->dense;
}

static inline int fast_comm(MPI_Comm comm)
{
	return LM_HANDLE(comm) && comm->magic == LM_MAGIC_COMM && lm.initialized &&
		!lm.finalized && !lm_ulfm_ctx_revoked(comm->ctx);
}

/* Nothing of the library's own is waiting to go out or to be started. */
static inline int quiet(void)
{
	return !lm.npending && cds_list_empty(&lm.inflight) && !lm.cq_wait &&
		!lm_up.coll_ready() &&
		__atomic_load_n(&lm.job.hdr->dead_count, __ATOMIC_ACQUIRE) ==
		lm.job.dead_seen && !lm_ulfm_unseen();
}

/* Payload bytes of count elements, or -1 when it is not for the short way. */
static inline int64_t fast_bytes(const void *buf, int count, MPI_Datatype dt)
{
	int64_t bytes;

	if (count < 0 || !fast_dt(dt))
		return -1;
	bytes = (int64_t)count * dt->size;
	if ((uint64_t)bytes > lm.eager || (!buf && bytes))
		return -1;
	return bytes;
}

/*
 * Put a message of bytes (at most lm.eager) to world rank w on context
 * ctx straight into the ring: 1 when it went, 0 when the general path
 * must send it (not quiet, sends queued to w, ring full, w dead).
 */
int lm_fast_put(uint32_t w, uint32_t ctx, int tag, const void *buf,
		uint64_t bytes)
{
	if (bytes > lm.eager || !quiet() || lm.dead[w] ||
	    !cds_list_empty(&lm.pending[w]) || lm_ulfm_ctx_revoked(ctx))
		return 0;
	if (mcr_send(&lm.job.ep, w, MPICHAN_MSG_DATA, tag, ctx, buf,
			      (uint32_t)bytes))
		return 0;	/* full (or broken: the general path says so) */
	LM_COUNT(eager_sent, 1);
	LM_COUNT(eager_sent_bytes, bytes);
	lm_notify(&lm.job, w);
	return 1;
}

int lm_fast_send(const void *buf, int count, MPI_Datatype dt, int dest,
		 int tag, MPI_Comm comm)
{
	int64_t bytes = fast_bytes(buf, count, dt);

	if (bytes < 0 || !fast_comm(comm) || dest < 0 || dest >= comm->rsize ||
	    tag < 0 || tag > MPI_TAG_UB_VALUE)
		return 0;
	return lm_fast_put((uint32_t)lm_comm_world(comm, dest), comm->ctx, tag,
			   (const char *)buf + dt->true_lb, (uint64_t)bytes);
}

/* Is m the message a receive of (ctx, tag) into bytes wants? */
static inline int fast_match(const struct mpichan_msg *m, uint32_t ctx,
			     int tag, uint64_t bytes, int exact)
{
	return m->kind == MPICHAN_MSG_DATA && m->context == ctx &&
		m->tag >= 0 && (tag == MPI_ANY_TAG ? m->tag <= MPI_TAG_UB_VALUE :
				m->tag == tag) &&
		(exact ? m->len == bytes : m->len <= bytes);
}

/*
 * Take the message at the head of world rank w's ring if it is the one
 * a receive of (q's context, tag) into buf[0..bytes) wants, waiting a
 * few polls for it; exact: only a message of exactly bytes (collective
 * messages have exact sizes).  The message stays in the ring for the
 * caller to read (*mp) and consume with mcr_consume(): 1, or
 * 0 when the general path must receive it.
 */
static int fast_take(struct lm_match *q, uint32_t w, int tag, uint64_t bytes,
		     int exact, const struct mpichan_msg **mp)
{
	const struct mpichan_msg *m;
	unsigned int poll, polls;
	int err;

	polls = lm.wait_mode == LM_WAIT_SLEEP ? 1 :
		lm.spin_ns < 10000 ? LM_FAST_POLLS_OVERSUB : LM_FAST_POLLS;
	for (poll = 0; poll < polls; poll++) {
		/* Again every time: another thread may have come in between. */
		if (!quiet() || lm.dead[w] || !cds_list_empty(&q->posted) ||
		    !cds_list_empty(&q->unexpected))
			return 0;
		m = mcr_peek(&lm.job.ep, w, &err);
		if (m) {
			*mp = m;
			return fast_match(m, q->ctx, tag, bytes, exact);
		}
		if (err)
			return 0;
		/*
		 * Other threads get the lock every 8th poll only: a lock
		 * and an unlock per poll made a thread-multiple ping-pong
		 * 37% slower than a single one in the VM.
		 */
		if (lm.thread_level == MPI_THREAD_MULTIPLE && (poll & 7) == 7)
			lm_mt_relax(1, 2);	/* odd poll: no yield */
		else
			cpu_relax();
	}
	return 0;
}

int lm_fast_get(struct lm_match *q, uint32_t w, int tag, void *buf,
		uint64_t bytes)
{
	const struct mpichan_msg *m;

	if (bytes > lm.eager || lm_ulfm_ctx_revoked(q->ctx) ||
	    !fast_take(q, w, tag, bytes, 1, &m))
		return 0;
	if (m->len)
		mcr_copy(buf, m + 1, m->len);
	LM_COUNT(eager_recv, 1);
	LM_COUNT(eager_recv_bytes, m->len);
	mcr_consume(&lm.job.ep, w, m);
	return 1;
}

int lm_fast_recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
		 MPI_Comm comm, MPI_Status *status)
{
	int64_t bytes = fast_bytes(buf, count, dt);
	const struct mpichan_msg *m;
	uint32_t w;

	if (bytes < 0 || !fast_comm(comm) || source < 0 ||
	    source >= comm->rsize ||
	    (tag != MPI_ANY_TAG && (tag < 0 || tag > MPI_TAG_UB_VALUE)))
		return 0;
	w = (uint32_t)lm_comm_world(comm, source);
	if (!fast_take(comm->p2p, w, tag, (uint64_t)bytes, 0, &m))
		return 0;
	if (m->len)
		mcr_copy((char *)buf + dt->true_lb, m + 1, m->len);
	if (status) {
		status->MPI_SOURCE = source;
		status->MPI_TAG = m->tag;
		status->libmsg_cancelled = 0;
		status->libmsg_count = m->len;
	}
	LM_COUNT(eager_recv, 1);
	LM_COUNT(eager_recv_bytes, m->len);
	mcr_consume(&lm.job.ep, w, m);
	return 1;
}
