/* SPDX-License-Identifier: MIT */
/*
 * transport.h: what a transport gives libmsg.  Both transports share
 * the shared-memory layout of uapi/linux/mpichan.h and the ring code of
 * mcr.h; they differ in how the memory is obtained (attach to
 * /dev/mpichan and mmap, or inherit a memfd laid out the same way), how
 * a rank sleeps and is woken (WAIT/WAKE ioctls, or a futex on the rank
 * control block's flags), and how a rendezvous copy is made.
 */
#ifndef LIBMSG_TRANSPORT_H
#define LIBMSG_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/mpichan.h>
#include "mcr.h"
#include "transport/copy_choose.h"

struct lm_job;

/*
 * A rendezvous offer, as carried by an RTS: either the sender's buffer
 * address and pid (copied with process_vm_readv), or, with
 * LM_RTS_HANDLE, the handle of a send queued in the module (pinned,
 * copied by MPICHAN_IOC_RECV; the sender learns it from its completion
 * queue, not from a FIN).
 */
#define LM_RTS_SYNC	(1U << 0)	/* Ssend: never pull before a match */
#define LM_RTS_HANDLE	(1U << 1)	/* handle names a module send */
/*
 * The offer is the sender's span (rndv_span.c): the message's size
 * bytes are elements of blen bytes, stride apart, from the offer's
 * start.  An element is one block (nblk 0), or the nblk blocks of blk,
 * ascending, apart, the first at 0, their lengths summing to blen.
 * Set while rndv_offer runs: the device then fails (-EFAULT) instead of
 * offering the plain address when the module will not pin the span.
 */
#define LM_RTS_SPAN	(1U << 2)
#define LM_RTS_BLOCKS	8	/* blocks of an element, at most */
/*
 * The offer is the sender's span, blen bytes from its start, and the
 * message's size bytes lie in it as the nblk segments that follow the
 * RTS's fixed part (LM_RTS_FIXED) say (rndv_layout.c): segment 0 is the
 * whole message, count elements stride apart from its off.  An element
 * of a segment is a block of len bytes (nsub 0), or segments sub ..
 * sub + nsub - 1 taken in order, sub above the segment's own index.
 * While rndv_offer runs such an offer carries LM_RTS_SPAN, as a tile's.
 */
#define LM_RTS_LAYOUT	(1U << 3)
/*
 * The handle names a module send of several runs (rndv_iov.c): the
 * module cannot map it, it copies, and a receive may give it its own
 * runs to copy into.
 */
#define LM_RTS_IOV	(1U << 4)
/*
 * Segments of a layout, at most (and only as many as fit in a ring
 * message: 256 take 10 KiB, half the payload of a 2-rank job's ring).
 */
#define LM_RTS_SEGS	256
#define LM_RTS_DEPTH	16	/* ... nested this deep, at most */

struct lm_rts_seg {
	int64_t off;		/* the first element, from the enclosing one */
	int64_t stride;		/* bytes between elements */
	uint64_t count;		/* elements, >= 1 */
	uint64_t len;		/* bytes of data in one element */
	uint32_t sub;		/* an element's segments: index of the first */
	uint32_t nsub;		/* ... and how many; 0: a block of len bytes */
};

struct lm_rts_block {
	uint32_t off;		/* from the element's start */
	uint32_t len;
};

struct lm_rts {
	uint64_t size;		/* bytes of the message */
	uint64_t addr;		/* where they are in the sender */
	uint64_t sreq;		/* echoed in FIN (or the CQE) */
	uint64_t handle;	/* LM_RTS_HANDLE */
	uint32_t pid;		/* the sender's pid */
	uint32_t flags;		/* LM_RTS_* */
	int64_t stride;		/* LM_RTS_SPAN: from element to element */
	uint64_t blen;		/* LM_RTS_SPAN: bytes per element;
				 * LM_RTS_LAYOUT: bytes of the span */
	uint32_t nblk;		/* LM_RTS_SPAN: blocks in blk, or 0;
				 * LM_RTS_LAYOUT: segments that follow */
	uint32_t pad;
	struct lm_rts_block blk[LM_RTS_BLOCKS];
};

/* What every RTS carries; a layout's segments follow it in the ring. */
#define LM_RTS_FIXED	offsetof(struct lm_rts, blk)

/* Bytes of an RTS in the ring: only the blocks (or segments) it uses. */
static inline uint32_t lm_rts_wire_len(const struct lm_rts *rts)
{
	uint32_t n;

	if (rts->flags & LM_RTS_LAYOUT) {
		n = rts->nblk < LM_RTS_SEGS ? rts->nblk : LM_RTS_SEGS;
		return (uint32_t)(LM_RTS_FIXED + n * sizeof(struct lm_rts_seg));
	}
	n = rts->nblk < LM_RTS_BLOCKS ? rts->nblk : LM_RTS_BLOCKS;
	return (uint32_t)(LM_RTS_FIXED + n * sizeof(rts->blk[0]));
}

/*
 * A receive into a non-contiguous datatype: instead of filling the
 * buffer, the transport may hand over pieces of the message where they
 * are (the receive window, a staging piece), to be unpacked straight
 * from there.
 */
struct lm_sink {
	void (*put)(struct lm_sink *k, uint64_t off, const void *src,
		    uint64_t len);
	/* Set by rndv_take: [done_off, +done_len) went through put. */
	uint64_t done_off, done_len;
};

struct lm_transport {
	const char *name;
	/* Join the job described by the environment (or a singleton). */
	int (*open)(struct lm_job *job);
	/* Wake rank dst, whose NEED_WAKEUP this rank just cleared. */
	void (*wake)(struct lm_job *job, uint32_t dst);
	/*
	 * Sleep until an incoming ring has data, a wake-up, a new death or
	 * timeout_ns (< 0: none).  0, -ETIMEDOUT, -EINTR or -EPIPE (a rank
	 * died that job->dead_seen does not count yet).
	 */
	int (*sleep)(struct lm_job *job, int64_t timeout_ns);
	/*
	 * Rendezvous, sender: offer buf[0..len) to rank dst; fills in
	 * rts (addr and pid, or a handle).  0 or -errno.
	 */
	int (*rndv_offer)(struct lm_job *job, uint32_t dst, uint32_t context,
			  int32_t tag, const void *buf, uint64_t len,
			  uint64_t sreq, struct lm_rts *rts);
	/*
	 * Rendezvous, receiver: the single copy of up to len bytes of the
	 * offer from rank src into buf.  With a sink, a part (or all) may
	 * go through the sink instead (see struct lm_sink); buf still has
	 * room for len bytes.  0 or -errno.
	 */
	int (*rndv_take)(struct lm_job *job, uint32_t src, uint32_t context,
			 int32_t tag, const struct lm_rts *rts, void *buf,
			 uint64_t len, struct lm_sink *sink);
	/*
	 * Rendezvous of a message of len bytes in the n runs of iov, which
	 * the module gathers (NULL: the transport cannot); -errno when it
	 * will not (pack the message then).
	 */
	int (*rndv_offer_iov)(struct lm_job *job, uint32_t dst,
			      uint32_t context, int32_t tag,
			      const struct mpichan_iovec *iov, uint32_t n,
			      uint64_t len, uint64_t sreq, struct lm_rts *rts);
	/* ... and into the n runs of iov of the receiver (NULL: cannot). */
	int (*rndv_take_iov)(struct lm_job *job, uint32_t src,
			     uint32_t context, int32_t tag,
			     const struct lm_rts *rts,
			     const struct mpichan_iovec *iov, uint32_t n);
	/*
	 * Rendezvous for nrecv receivers at once (a broadcast): fills in
	 * rts, which each of them takes with rndv_take.  The sender is not
	 * told when they are done (the caller arranges that); buf must
	 * stay as it is until then.  0 or -errno.
	 */
	int (*rndv_offer_multi)(struct lm_job *job, uint32_t nrecv,
				uint32_t context, int32_t tag, const void *buf,
				uint64_t len, struct lm_rts *rts);
	/*
	 * Rendezvous, sender: the receiver withdrew an offer it never
	 * took.  1 when a completion (CQE) will still report it, else 0.
	 */
	int (*rndv_cancel)(struct lm_job *job, const struct lm_rts *rts);
	/* Leaving in order (MPI_Finalize); then close. */
	void (*finish)(struct lm_job *job);
	void (*close)(struct lm_job *job);
};

struct lm_job {
	struct mcr_ep ep;
	const struct lm_transport *t;
	struct mpichan_job_hdr *hdr;
	uint32_t rank, nranks;
	uint32_t dead_seen;	/* the transport's view, see sleep() */
	int owner_fd;		/* singleton over the device: the job's owner */
	unsigned char *window;	/* device: the receive window, or NULL */
	size_t window_bytes;
};

extern const struct lm_transport lm_transport_shm, lm_transport_mpichan;
/* Over the device: the rendezvous copy's choice (copy_choose.h). */
extern struct lm_copy_state lm_copy;

/* Is /dev/mpichan usable for this process (and not overridden)? */
int lm_transport_pick_device(void);

/* After publishing to dst: wake it, the transport's way, if it sleeps. */
static inline void lm_notify(struct lm_job *job, uint32_t dst)
{
	if (mcr_claim_wakeup(&job->ep, dst))
		job->t->wake(job, dst);
}

/* Single copy from another process: process_vm_readv, looped. */
int lm_copy_vm_readv(pid_t pid, uint64_t addr, void *dst, uint64_t len);
/* The same into a sink, in pieces staged at the start of buf. */
int lm_copy_vm_readv_sink(pid_t pid, uint64_t addr, void *buf, uint64_t len,
			  struct lm_sink *sink);
/* An offer read with process_vm_readv: the sender's address and pid. */
int lm_rndv_offer_vm(struct lm_job *job, uint32_t dst, uint32_t context,
		     int32_t tag, const void *buf, uint64_t len, uint64_t sreq,
		     struct lm_rts *rts);
int lm_rndv_offer_multi_vm(struct lm_job *job, uint32_t nrecv,
			   uint32_t context, int32_t tag, const void *buf,
			   uint64_t len, struct lm_rts *rts);

#endif /* LIBMSG_TRANSPORT_H */
