/* SPDX-License-Identifier: MIT */
/*
 * mcr.h: the mpichan channel ring (MCR) protocol of
 * uapi/linux/mpichan.h as inline functions, for programs that talk to
 * /dev/mpichan directly (the kselftests, the raw benchmarks, the
 * fuzzer) and for both of libmsg's transports.  Its names are its own
 * (mcr_*): the module's functions of the same concepts (job.c's
 * mpichan_rank_ctl(), ...) work on kernel objects.
 *
 * Every function treats the shared memory as hostile: a peer that
 * scribbles over its rings gets -EBADMSG, never a read out of bounds.
 */
#ifndef MCR_H
#define MCR_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/mpichan.h>

/* An attached rank's view of its job. */
struct mcr_ep {
	int fd;
	uint32_t rank;
	uint32_t nranks;
	uint32_t ring_cells;
	uint32_t pad;
	unsigned char *map;
	struct mpichan_offsets off;
};

static inline struct mpichan_job_hdr *mcr_hdr(const struct mcr_ep *ep)
{
	return (struct mpichan_job_hdr *)(ep->map + ep->off.job_hdr);
}

static inline struct mpichan_rank_ctl *
mcr_rank_ctl(const struct mcr_ep *ep, uint32_t r)
{
	return (struct mpichan_rank_ctl *)(ep->map + ep->off.rank_ctl +
					   (uint64_t)r * MPICHAN_RANK_CTL_SIZE);
}

static inline uint64_t mcr_ring_index(const struct mcr_ep *ep,
					  uint32_t src, uint32_t dst)
{
	return (uint64_t)dst * ep->nranks + src;
}

static inline struct mpichan_ring_ctl *
mcr_ring_ctl(const struct mcr_ep *ep, uint32_t src, uint32_t dst)
{
	return (struct mpichan_ring_ctl *)(ep->map + ep->off.ring_ctl +
		mcr_ring_index(ep, src, dst) * MPICHAN_RING_CTL_SIZE);
}

static inline unsigned char *
mcr_ring_cells(const struct mcr_ep *ep, uint32_t src, uint32_t dst)
{
	return ep->map + ep->off.ring_data +
		mcr_ring_index(ep, src, dst) * ep->off.ring_bytes;
}

/*
 * Attach fd as `rank` of a job and map its memory.  Returns 0 or a
 * negative errno (the ioctl's refusal, or mmap's); -EPROTO when the
 * module speaks another version of the uapi than this program was
 * built against (the layout would be read wrong).
 */
static inline int mcr_attach(struct mcr_ep *ep, int fd,
				    uint64_t job_id, const __u64 secret[2],
				    uint32_t rank)
{
	struct mpichan_attach a;
	void *map;

	memset(&a, 0, sizeof(a));
	a.job_id = job_id;
	a.secret[0] = secret[0];
	a.secret[1] = secret[1];
	a.rank = rank;
	if (ioctl(fd, MPICHAN_IOC_ATTACH, &a) < 0)
		return -errno;
	map = mmap(NULL, a.off.map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	if (((struct mpichan_job_hdr *)map)->magic != MPICHAN_JOB_MAGIC ||
	    ((struct mpichan_job_hdr *)map)->abi_version != MPICHAN_ABI_VERSION) {
		munmap(map, a.off.map_size);
		return -EPROTO;
	}
	memset(ep, 0, sizeof(*ep));
	ep->fd = fd;
	ep->rank = rank;
	ep->nranks = a.nranks;
	ep->ring_cells = a.ring_cells;
	ep->map = (unsigned char *)map;
	ep->off = a.off;
	return 0;
}

static inline void mcr_detach(struct mcr_ep *ep)
{
	if (ep->map)
		munmap(ep->map, ep->off.map_size);
	ep->map = NULL;
}

/* Cells a message with len payload bytes takes. */
static inline uint32_t mcr_msg_cells(uint32_t len)
{
	return (uint32_t)((len + sizeof(struct mpichan_msg) +
			   MPICHAN_CELL_SIZE - 1) / MPICHAN_CELL_SIZE);
}

/* Largest payload one message can carry in this job's rings. */
static inline uint32_t mcr_max_payload(const struct mcr_ep *ep)
{
	/* Half the ring, so a message always fits after padding. */
	return (uint32_t)MPICHAN_MSG_PAYLOAD(ep->ring_cells / 2);
}

/*
 * Copies of more than a few KiB go in 4 KiB pieces: payloads in and out
 * of a ring, and libmsg's large blocks and small window copies.  Whole,
 * glibc copies them with `rep movsb` (from 4, 8 or 16 KiB up, by vector
 * width), which emulated CPUs (QEMU TCG, where the module is tested)
 * run about 5 times slower than its vector loop (0.15 against 0.7-1.6
 * GB/s); on real CPUs 4 KiB pieces copy as fast as one call.
 */
#define MCR_COPY_PIECE 4096u

static inline void mcr_copy(void *dst, const void *src, size_t len)
{
	unsigned char *d = (unsigned char *)dst;
	const unsigned char *s = (const unsigned char *)src;

	while (len > MCR_COPY_PIECE) {
		memcpy(d, s, MCR_COPY_PIECE);
		d += MCR_COPY_PIECE;
		s += MCR_COPY_PIECE;
		len -= MCR_COPY_PIECE;
	}
	memcpy(d, s, len);
}

/*
 * Try to put one message into ring (ep->rank -> dst): the payload is
 * buf[0..len) followed by buf2[0..len2).  Returns 0, -EAGAIN when the
 * ring has no room yet, -EMSGSIZE when len + len2 is larger than
 * mcr_max_payload(), -EBADMSG when the consumer's head is garbage.
 * Does not wake the receiver: call mcr_notify() after.
 */
static inline int mcr_send2(const struct mcr_ep *ep, uint32_t dst,
				     uint16_t kind, int32_t tag,
				     uint32_t context, const void *buf,
				     uint32_t len, const void *buf2,
				     uint32_t len2)
{
	struct mpichan_ring_ctl *rc = mcr_ring_ctl(ep, ep->rank, dst);
	unsigned char *cells = mcr_ring_cells(ep, ep->rank, dst);
	uint32_t size = ep->ring_cells, need, tail, head, used, pos, pad;
	struct mpichan_msg *m;

	if (len > mcr_max_payload(ep) ||
	    len2 > mcr_max_payload(ep) - len)
		return -EMSGSIZE;
	need = mcr_msg_cells(len + len2);
	tail = rc->tail;	/* only we write it */
	head = __atomic_load_n(&rc->head, __ATOMIC_ACQUIRE);
	used = tail - head;
	if (used > size)
		return -EBADMSG;
	pos = tail & (size - 1);
	pad = (pos + need > size) ? size - pos : 0;
	if (used + pad + need > size)
		return -EAGAIN;
	if (pad) {
		m = (struct mpichan_msg *)(cells + (size_t)pos * MPICHAN_CELL_SIZE);
		m->len = 0;
		m->cells = (uint16_t)pad;
		m->kind = MPICHAN_MSG_PAD;
		tail += pad;
		pos = 0;
	}
	m = (struct mpichan_msg *)(cells + (size_t)pos * MPICHAN_CELL_SIZE);
	m->len = len + len2;
	m->cells = (uint16_t)need;
	m->kind = kind;
	m->tag = tag;
	m->context = context;
	if (len)
		mcr_copy(m + 1, buf, len);
	if (len2)
		mcr_copy((unsigned char *)(m + 1) + len, buf2, len2);
	rc->msgs++;
	rc->bytes += len + len2;
	__atomic_store_n(&rc->tail, tail + need, __ATOMIC_RELEASE);
	return 0;
}

/* mcr_send2() with one payload buffer. */
static inline int mcr_send(const struct mcr_ep *ep, uint32_t dst,
				    uint16_t kind, int32_t tag,
				    uint32_t context, const void *buf,
				    uint32_t len)
{
	return mcr_send2(ep, dst, kind, tag, context, buf, len,
				  NULL, 0);
}

/*
 * The next message in ring (src -> ep->rank), or NULL when it is empty.
 * Padding is consumed on the way.  *err is set to -EBADMSG (and NULL
 * returned) when the producer wrote garbage.  The message stays valid
 * until mcr_consume().
 */
static inline const struct mpichan_msg *
mcr_peek(const struct mcr_ep *ep, uint32_t src, int *err)
{
	struct mpichan_ring_ctl *rc = mcr_ring_ctl(ep, src, ep->rank);
	unsigned char *cells = mcr_ring_cells(ep, src, ep->rank);
	uint32_t size = ep->ring_cells, head, tail, avail, pos, n;
	const struct mpichan_msg *m;

	*err = 0;
	for (;;) {
		head = rc->head;	/* only we write it */
		tail = __atomic_load_n(&rc->tail, __ATOMIC_ACQUIRE);
		avail = tail - head;
		if (!avail)
			return NULL;
		pos = head & (size - 1);
		m = (const struct mpichan_msg *)(cells + (size_t)pos * MPICHAN_CELL_SIZE);
		n = m->cells;
		if (avail > size || !n || n > avail || pos + n > size ||
		    (m->kind != MPICHAN_MSG_PAD &&
		     m->len > MPICHAN_MSG_PAYLOAD(n))) {
			*err = -EBADMSG;
			return NULL;
		}
		if (m->kind != MPICHAN_MSG_PAD)
			return m;
		__atomic_store_n(&rc->head, head + n, __ATOMIC_RELEASE);
	}
}

static inline void mcr_consume(const struct mcr_ep *ep,
					uint32_t src,
					const struct mpichan_msg *m)
{
	struct mpichan_ring_ctl *rc = mcr_ring_ctl(ep, src, ep->rank);

	__atomic_store_n(&rc->head, rc->head + m->cells, __ATOMIC_RELEASE);
}

/* Does any incoming ring hold cells? */
static inline int mcr_any_incoming(const struct mcr_ep *ep)
{
	uint32_t s;

	for (s = 0; s < ep->nranks; s++) {
		struct mpichan_ring_ctl *rc = mcr_ring_ctl(ep, s, ep->rank);

		/* head: relaxed, another thread of this rank may consume. */
		if (__atomic_load_n(&rc->tail, __ATOMIC_ACQUIRE) !=
		    __atomic_load_n(&rc->head, __ATOMIC_RELAXED))
			return 1;
	}
	return 0;
}

/*
 * After publishing to dst: must dst be woken?  True for exactly one
 * sender, the one that clears dst's NEED_WAKEUP; the full barrier pairs
 * with the sleeper's, so either it sees the message or we see the flag.
 */
static inline int mcr_claim_wakeup(const struct mcr_ep *ep,
				       uint32_t dst)
{
	struct mpichan_rank_ctl *rc = mcr_rank_ctl(ep, dst);

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(__atomic_load_n(&rc->flags, __ATOMIC_RELAXED) &
	      MPICHAN_RANK_NEED_WAKEUP))
		return 0;
	return !!(__atomic_fetch_and(&rc->flags, ~MPICHAN_RANK_NEED_WAKEUP,
				     __ATOMIC_SEQ_CST) & MPICHAN_RANK_NEED_WAKEUP);
}

/* After publishing to dst: wake it with MPICHAN_IOC_WAKE if it sleeps. */
static inline int mcr_notify(const struct mcr_ep *ep, uint32_t dst)
{
	struct mpichan_wake w = { .rank = dst, .flags = 0 };

	if (!mcr_claim_wakeup(ep, dst))
		return 0;
	return ioctl(ep->fd, MPICHAN_IOC_WAKE, &w) < 0 ? -errno : 1;
}

/*
 * Sleep until an incoming ring has data, a WAKE arrives or timeout_ns
 * passes (< 0: forever).  Returns 0 or the WAIT ioctl's -errno
 * (-ETIMEDOUT, -EINTR, -EPIPE for a dead `peer`).  With `ready`, also
 * do not sleep when it returns non-zero: it is asked after
 * NEED_WAKEUP is up, so whatever it watches may be published by a
 * rank that then wakes only sleepers whose flag it sees.
 */
static inline int mcr_sleep_unless(const struct mcr_ep *ep,
				       int64_t timeout_ns, int32_t peer,
				       int (*ready)(void))
{
	struct mpichan_rank_ctl *me = mcr_rank_ctl(ep, ep->rank);
	struct mpichan_wait w;
	int ret = 0;

	__atomic_fetch_or(&me->flags, MPICHAN_RANK_NEED_WAKEUP, __ATOMIC_SEQ_CST);
	if (!mcr_any_incoming(ep) && !(ready && ready())) {
		memset(&w, 0, sizeof(w));
		w.timeout_ns = timeout_ns;
		w.peer = peer;
		if (ioctl(ep->fd, MPICHAN_IOC_WAIT, &w) < 0)
			ret = -errno;
	}
	__atomic_fetch_and(&me->flags, ~MPICHAN_RANK_NEED_WAKEUP, __ATOMIC_RELAXED);
	return ret;
}

static inline int mcr_sleep(const struct mcr_ep *ep,
				int64_t timeout_ns, int32_t peer)
{
	return mcr_sleep_unless(ep, timeout_ns, peer, NULL);
}

#endif /* MCR_H */
