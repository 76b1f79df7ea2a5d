/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mpichan: MPI message passing between processes of one machine.
 *
 * This header is the whole contract between the module and user space:
 * ioctl numbers, their argument structs and the layout of the shared
 * memory every rank of a job maps.  All fields are fixed width and
 * explicitly padded; structs only ever grow at the end.  The kernel
 * accepts an argument whose size (encoded in the ioctl number) is at
 * least the first published size of that struct (MPICHAN_SIZEOF_*_V0):
 * a shorter one gets -EINVAL, a longer one must have its unknown tail
 * zeroed (-E2BIG).
 *
 * The model:
 *
 *  - A launcher opens /dev/mpichan and creates a job of N ranks
 *    (MPICHAN_IOC_JOB_CREATE), getting a job id and a 128-bit secret.
 *    That fd is the job's owner handle.
 *  - Each rank opens /dev/mpichan and attaches as rank r with the id and
 *    secret (MPICHAN_IOC_ATTACH), then mmap()s map_size bytes at offset
 *    0, MAP_SHARED.  Closing the fd (and unmapping) detaches.
 *  - Rank s sends a small message to rank r by writing it into the
 *    single-producer/single-consumer ring (src s, dst r) and publishing
 *    the new tail with a release store.  No system call.
 *  - Rank r polls the tails of its incoming rings.  To sleep it sets
 *    MPICHAN_RANK_NEED_WAKEUP in its rank control block, issues a full
 *    barrier, checks its rings once more, then calls MPICHAN_IOC_WAIT
 *    (or poll()s the fd).  A sender, after publishing, issues a full
 *    barrier and reads the destination's flags; only if NEED_WAKEUP is
 *    set does it call MPICHAN_IOC_WAKE.  Either the sleeper sees the
 *    message or the sender sees the flag: no wake-up is lost.
 *  - A large message does not go through the rings: the sender posts it
 *    (MPICHAN_IOC_SEND, an iovec; the module pins the pages) and the
 *    receiver takes it (MPICHAN_IOC_RECV), by matching on (context,
 *    source, tag) in the module's queues or by naming the send's handle;
 *    the data moves once, from the sender's pages into the receiver's
 *    buffer.  Whichever side finishes a transfer in its ioctl learns it
 *    there; the other learns it from a completion queue entry in shared
 *    memory, and is woken if it sleeps.
 *  - When a rank's fd goes away without MPICHAN_IOC_FINISH (the process
 *    died), the kernel marks it MPICHAN_RANK_DEAD in shared memory,
 *    bumps dead_count and wakes every sleeper; waits naming it fail with
 *    -EPIPE.
 *
 * The kernel never trusts the shared memory: it only reads ring heads
 * and tails to decide whether a sleeper has work, and writes state it
 * keeps authoritatively in kernel memory.
 */
#ifndef _UAPI_LINUX_MPICHAN_H
#define _UAPI_LINUX_MPICHAN_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define MPICHAN_DEVICE		"/dev/mpichan"

/*
 * Bumped on any incompatible change of this header (2: rank control
 * blocks grew to 256 bytes for the completion queue).  The job header
 * carries it; a program built against another version must not attach.
 */
#define MPICHAN_ABI_VERSION	2

#define MPICHAN_IOC_MAGIC	0xB8

/* Rank arguments that name no single rank. */
#define MPICHAN_RANK_ANY	(-1)	/* any rank */
#define MPICHAN_RANK_NONE	(-2)	/* no rank */

/* ---- Shared memory layout ---------------------------------------- */

#define MPICHAN_JOB_MAGIC	0x6d706963U	/* "mpic" */
#define MPICHAN_CELL_SIZE	64	/* ring cell, one cache line */
#define MPICHAN_RANK_CTL_SIZE	256	/* struct mpichan_rank_ctl */
#define MPICHAN_RING_CTL_SIZE	128	/* struct mpichan_ring_ctl */
#define MPICHAN_RING_MIN_BYTES	4096
#define MPICHAN_RING_MAX_BYTES	(1U << 20)
#define MPICHAN_CQ_ENTRIES	1024	/* completion queue entries per rank */
#define MPICHAN_CQE_SIZE	32	/* struct mpichan_cqe */
#define MPICHAN_COLL_BYTES	524288	/* per rank: the collective area */

/**
 * struct mpichan_offsets - where each region of a job's mapping lies
 * @job_hdr: &struct mpichan_job_hdr, always 0
 * @rank_ctl: nranks x &struct mpichan_rank_ctl
 * @ring_ctl: nranks^2 x &struct mpichan_ring_ctl
 * @ring_data: nranks^2 x @ring_bytes of cells
 * @ring_bytes: bytes of cells per ring, a power of two
 * @map_size: bytes to mmap at offset 0
 * @cq: nranks x %MPICHAN_CQ_ENTRIES &struct mpichan_cqe
 * @coll: nranks x %MPICHAN_COLL_BYTES, 0: none (%MPICHAN_FEAT_COLL;
 *	added after ABI 2 was first published)
 *
 * Offsets (bytes from the start of the mapping) of each region.  Every
 * region starts on a page boundary.  Ring (src -> dst) has index
 * dst * nranks + src in both ring_ctl and ring_data, so the rings a
 * rank polls lie next to each other.  Ring pages are allocated on first
 * touch: a job costs memory only for the pairs that talk.
 */
struct mpichan_offsets {
	__u64 job_hdr;
	__u64 rank_ctl;
	__u64 ring_ctl;
	__u64 ring_data;
	__u64 ring_bytes;
	__u64 map_size;
	__u64 cq;
	__u64 coll;
};

#define MPICHAN_SIZEOF_OFFSETS	64	/* struct mpichan_offsets */

/**
 * struct mpichan_job_hdr - the first page of the mapping
 * @magic: %MPICHAN_JOB_MAGIC
 * @abi_version: %MPICHAN_ABI_VERSION
 * @job_id: the job's id, as JOB_CREATE returned it
 * @nranks: ranks in the job
 * @ring_cells: cells per ring, ring_bytes / %MPICHAN_CELL_SIZE
 * @dead_count: ranks gone without FINISH; only grows
 * @finished_count: ranks that called FINISH and left
 * @off: where each region lies
 *
 * Written by the kernel only.
 */
struct mpichan_job_hdr {
	__u32 magic;
	__u32 abi_version;
	__u64 job_id;
	__u32 nranks;
	__u32 ring_cells;
	__u32 dead_count;
	__u32 finished_count;
	struct mpichan_offsets off;
};

#define MPICHAN_SIZEOF_JOB_HDR	96	/* struct mpichan_job_hdr */

/* struct mpichan_rank_ctl.state */
enum {
	MPICHAN_RANK_EMPTY = 0,		/* nobody attached yet */
	MPICHAN_RANK_ALIVE = 1,		/* attached */
	MPICHAN_RANK_FINISHED = 2,	/* called FINISH, then left */
	MPICHAN_RANK_DEAD = 3,		/* left without FINISH */
};

/* struct mpichan_rank_ctl.flags */
#define MPICHAN_RANK_NEED_WAKEUP	(1U << 0)	/* about to sleep: wake me */

/**
 * struct mpichan_rank_ctl - a rank's control block
 * @state: MPICHAN_RANK_EMPTY, _ALIVE, _FINISHED or _DEAD (the kernel's)
 * @pid: thread-group id of the attached process (the kernel's)
 * @cq_overflow: completions dropped because the rank broke @cq_head (the
 *	kernel's)
 * @kpad: padding to the end of the kernel's cache line
 * @flags: %MPICHAN_RANK_NEED_WAKEUP (the rank's own; senders may clear
 *	NEED_WAKEUP)
 * @upad: padding to the end of the rank's cache line
 * @cq_tail: completion queue producer: the kernel
 * @ctpad: padding to the end of @cq_tail's cache line
 * @cq_head: completion queue consumer: the rank
 * @wait_seq: the rank's: odd while it writes the wait_* fields, even
 *	when they are whole (a reader retries when it changed); it moves
 *	on at every call that blocks
 * @wait_peer: the peer it waits for: a rank of the job, %MPICHAN_RANK_ANY
 *	(any), %MPICHAN_RANK_NONE (no one rank: a collective without a root)
 * @wait_tag: the tag (%MPICHAN_TAG_ANY: any); a collective: its sequence
 *	number on the communicator
 * @wait_context: the communicator's context id
 * @wait_comm_size: the communicator's size
 * @wait_bytes: the message's (or collective block's) size in bytes
 * @wait_kind: what it waits for, %MPICHAN_WAIT_* (%MPICHAN_WAIT_NONE:
 *	it is not blocked in a call; the other wait_* fields mean nothing)
 * @wait_flags: 0
 * @wait_call: the name of the call it is blocked in, e.g. "MPI_Recv",
 *	NUL-padded (not terminated when 24 characters long)
 * @wpad: padding
 *
 * One per rank, %MPICHAN_RANK_CTL_SIZE bytes, four cache lines: the
 * kernel's, the rank's own, and the two ends of the rank's completion
 * queue (see &struct mpichan_cqe).
 *
 * The wait_* fields are a library's report of what the rank is blocked
 * in, for tools (debugfs shows them, mpichan-top reads them): written
 * by the rank when a call blocks, cleared when it returns, on the cache
 * line of @cq_head, which only the rank writes.  The module never acts
 * on them.
 */
struct mpichan_rank_ctl {
	/* Written by the kernel. */
	__u32 state;
	__u32 pid;
	__u32 cq_overflow;
	__u8 kpad[52];
	/* Written by the rank itself (senders may clear NEED_WAKEUP). */
	__u32 flags;
	__u8 upad[60];
	/* Completion queue producer: the kernel. */
	__u32 cq_tail;
	__u8 ctpad[60];
	/* Completion queue consumer, and what it is blocked in: the rank. */
	__u32 cq_head;
	__u32 wait_seq;
	__s32 wait_peer;
	__s32 wait_tag;
	__u32 wait_context;
	__u32 wait_comm_size;
	__u64 wait_bytes;
	__u16 wait_kind;
	__u16 wait_flags;
	char wait_call[24];
	__u8 wpad[4];
};

/* struct mpichan_rank_ctl.wait_kind */
enum {
	MPICHAN_WAIT_NONE = 0,		/* not blocked in a call */
	MPICHAN_WAIT_SEND = 1,		/* for its send to be taken */
	MPICHAN_WAIT_RECV = 2,		/* for a message to receive */
	MPICHAN_WAIT_PROBE = 3,		/* for a message to probe */
	MPICHAN_WAIT_COLL = 4,		/* for the others in a collective */
	MPICHAN_WAIT_OTHER = 5,		/* for something else (a request) */
};

/**
 * struct mpichan_ring_ctl - the two ends of one ring
 * @tail: cells produced; the producer's
 * @ppad0: padding
 * @msgs: messages produced (statistics only)
 * @bytes: payload bytes produced (statistics only)
 * @ppad: padding to the end of the producer's cache line
 * @head: cells consumed; the consumer's
 * @cpad: padding to the end of the consumer's cache line
 *
 * One per ordered pair, %MPICHAN_RING_CTL_SIZE bytes.  head and tail
 * count cells and run freely, wrapping at 2^32; a ring is empty when
 * head == tail and holds tail - head cells.  The producer writes the
 * cells, then stores tail with release semantics; the consumer loads
 * tail with acquire, reads the cells, then stores head with release.
 */
struct mpichan_ring_ctl {
	/* Producer's cache line. */
	__u32 tail;
	__u32 ppad0;
	__u64 msgs;
	__u64 bytes;
	__u8 ppad[40];
	/* Consumer's cache line. */
	__u32 head;
	__u8 cpad[60];
};

/**
 * struct mpichan_msg - a message's header in a ring
 * @len: payload bytes after this header
 * @cells: cells taken, >= 1, header included
 * @kind: MPICHAN_MSG_PAD or _DATA, or >= %MPICHAN_MSG_USER
 * @tag: the message's tag
 * @context: communicator context id
 *
 * A message in a ring: this header, then len payload bytes, filling
 * cells contiguous cells (the header counts).  A message never wraps:
 * when it does not fit before the end of the ring the producer first
 * writes a %MPICHAN_MSG_PAD entry covering the cells up to the end.
 */
struct mpichan_msg {
	__u32 len;
	__u16 cells;
	__u16 kind;
	__s32 tag;
	__u32 context;
};

#define MPICHAN_SIZEOF_MSG	16	/* struct mpichan_msg */

#define MPICHAN_MSG_PAD		0	/* skip these cells */
#define MPICHAN_MSG_DATA	1	/* payload is the message */
#define MPICHAN_MSG_USER	0x100	/* kinds from here on: the library's */

/* Payload bytes a message of n cells carries. */
#define MPICHAN_MSG_PAYLOAD(n) \
	((n) * MPICHAN_CELL_SIZE - sizeof(struct mpichan_msg))

/**
 * struct mpichan_cqe - a completion queue entry
 * @user_data: as given to SEND or RECV
 * @len: bytes moved
 * @status: 0, or -errno: -EPIPE (peer gone), -ECANCELED
 * @flags: MPICHAN_CQE_SEND, _RECV, _TRUNCATED
 * @src: receives: the sender
 * @tag: receives: the send's tag
 *
 * Completion queue: one per rank, %MPICHAN_CQ_ENTRIES entries of
 * %MPICHAN_CQE_SIZE bytes at
 * off.cq + rank * MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE.  The kernel
 * writes an entry and publishes cq_tail (release); the rank reads
 * entries up to cq_tail (acquire) and advances cq_head.  Every transfer
 * the module queues reserves its entry when it is posted, so the queue
 * cannot overflow unless the rank moves cq_head wrongly (cq_overflow).
 */
struct mpichan_cqe {
	__u64 user_data;
	__u64 len;
	__s32 status;
	__u32 flags;
	__s32 src;
	__s32 tag;
};

#define MPICHAN_CQE_SEND	(1U << 0)	/* completes a SEND */
#define MPICHAN_CQE_RECV	(1U << 1)	/* completes a RECV */
#define MPICHAN_CQE_TRUNCATED	(1U << 2)	/* the send was longer: msg_len */

/*
 * The collective area: MPICHAN_COLL_BYTES per rank, rank r's at
 * off.coll + r * MPICHAN_COLL_BYTES, zeroed at creation.  Its layout is
 * the library's (libmsg uses it for barriers and small reductions, by
 * shared counters and flags); the module only supplies the pages and
 * never reads them.  Every rank may write all of it, so a rank can
 * corrupt its own job's collectives there, and nothing else.
 */

/* ---- ioctls ------------------------------------------------------- */

#define MPICHAN_TAG_ANY		(-1)
#define MPICHAN_IOV_MAX		1024

/**
 * struct mpichan_iovec - one piece of a SEND's or RECV's buffer
 * @base: its user address
 * @len: its bytes
 *
 * Same layout as struct iovec on 64-bit, for every caller.
 */
struct mpichan_iovec {
	__u64 base;
	__u64 len;
};

#define MPICHAN_SIZEOF_IOVEC	16	/* struct mpichan_iovec */

/* struct mpichan_send.status / mpichan_recv.status */
enum {
	MPICHAN_XFER_QUEUED = 1,	/* waiting for its match: see handle */
	MPICHAN_XFER_DONE = 2,		/* matched and copied in this call */
	MPICHAN_XFER_MAPPED = 3,	/* matched; copy from the window, then UNMAP */
};

/*
 * The receive window: a rank may mmap() up to MPICHAN_WINDOW_MAX_BYTES
 * of its fd at offset MPICHAN_WINDOW_OFFSET, read-only (PROT_WRITE:
 * -EACCES, PROT_EXEC: -EPERM), once (-EBUSY).  The window cannot be split, moved or
 * inherited.  Outside a mapped receive, touching it raises SIGBUS, except
 * where MPICHAN_FEAT_WINDOW_CACHE keeps a send's pages mapped after
 * UNMAP (see MPICHAN_IOC_UNMAP).
 */
#define MPICHAN_WINDOW_OFFSET		(1ULL << 40)
#define MPICHAN_WINDOW_MAX_BYTES	(1ULL << 30)

/**
 * struct mpichan_send - the argument of MPICHAN_IOC_SEND
 * @iov: in: &struct mpichan_iovec __user *
 * @iovcnt: in: 0 .. %MPICHAN_IOV_MAX
 * @dst: in: rank; with %MPICHAN_SEND_MULTI, the number of receivers
 * @context: in: communicator context id
 * @tag: in: >= 0
 * @user_data: in: echoed in the CQE
 * @flags: in: %MPICHAN_SEND_MULTI or 0
 * @status: out: MPICHAN_XFER_QUEUED or _DONE
 * @handle: out, QUEUED: names the send
 * @len: out, DONE: bytes moved
 *
 * MPICHAN_IOC_SEND: send iov[0..iovcnt) to rank dst.  If a matching
 * receive is posted, the data is copied into it now (status DONE, len);
 * otherwise the pages are pinned, charged to RLIMIT_MEMLOCK (-ENOMEM
 * over it, unless CAP_IPC_LOCK), and the send queued (status QUEUED,
 * handle); its completion arrives as a CQE.  -EPIPE when dst has left,
 * -EAGAIN when the caller's completion queue has no free entry.
 */
struct mpichan_send {
	__u64 iov;
	__u32 iovcnt;
	__u32 dst;
	__u32 context;
	__s32 tag;
	__u64 user_data;
	__u32 flags;
	__u32 status;
	__u64 handle;
	__u64 len;
};

#define MPICHAN_SIZEOF_SEND_V0	56	/* sizeof first published struct */

/*
 * struct mpichan_send.flags: MPICHAN_SEND_MULTI posts one send for
 * `dst` receivers (1 .. nranks - 1), e.g. a broadcast's.  It is always
 * pinned and queued (status QUEUED, handle) and never matched by
 * envelope: any rank but the sender takes it, once, with
 * MPICHAN_RECV_HANDLE (a second RECV of the same rank: -EALREADY; after
 * `dst` have taken it: -ENOENT).  Each receive copies (or maps) the
 * same pinned pages and completes on its own; the sender gets one CQE
 * when the last receive is done: len the message's bytes, status 0 or
 * the first receive's error.  -EPIPE at once, or in the CQE, when any
 * rank of the job died before all receivers took it.
 */
#define MPICHAN_SEND_MULTI	(1U << 0)

/* struct mpichan_recv.flags */
#define MPICHAN_RECV_HANDLE	(1U << 0)	/* take exactly send `handle` */
#define MPICHAN_RECV_NOQUEUE	(1U << 1)	/* no match now: -ENOMSG */
#define MPICHAN_RECV_MAP	(1U << 2)	/* map the send's pages, don't copy */

/**
 * struct mpichan_recv - the argument of MPICHAN_IOC_RECV
 * @iov: in: &struct mpichan_iovec __user *
 * @iovcnt: in: 0 .. %MPICHAN_IOV_MAX
 * @src: in: rank or %MPICHAN_RANK_ANY
 * @context: in: communicator context id
 * @tag: in: tag >= 0 or %MPICHAN_TAG_ANY
 * @user_data: in: echoed in the CQE
 * @handle: in: with %MPICHAN_RECV_HANDLE; out: QUEUED, MAPPED
 * @flags: in: MPICHAN_RECV_HANDLE, _NOQUEUE, _MAP
 * @status: out: MPICHAN_XFER_QUEUED, _DONE or _MAPPED
 * @len: out, DONE: bytes copied; MAPPED: bytes copied and mapped
 * @msg_len: out, DONE, MAPPED: bytes sent
 * @msg_src: out, DONE, MAPPED: the sender
 * @msg_tag: out, DONE, MAPPED: the send's tag
 * @map_off: out, MAPPED: message offset of window[0]
 * @map_len: out, MAPPED: bytes mapped in the window
 *
 * MPICHAN_IOC_RECV: receive into iov from src (or MPICHAN_RANK_ANY)
 * with tag (or MPICHAN_TAG_ANY) on context.  A matching queued send is
 * copied now (status DONE); the first match in posting order wins, so
 * two sends of one sender are taken in the order they were posted.
 * Otherwise the receive is queued (pages pinned like a send's) unless
 * MPICHAN_RECV_NOQUEUE.  With MPICHAN_RECV_HANDLE only send `handle`
 * (queued to the caller) matches, whatever its envelope: -ENOENT if it
 * is not there.  A longer message is truncated to the buffer: len is
 * what was copied, msg_len what was sent.
 *
 * With MPICHAN_RECV_MAP, when the receive takes a queued send of one
 * contiguous segment and the caller has a window, the module copies
 * only the partial first and last pages of the message into the buffer
 * and maps the whole pages between them read-only into the window:
 * status MAPPED, the bytes window[0 .. map_len) belong at message offset
 * map_off of the buffer, len counts all of it.  The caller copies them
 * with memcpy and then calls MPICHAN_IOC_UNMAP(handle), which tears the
 * window down and only then completes the send.  No byte of the
 * sender's memory outside the message is ever mapped.  Otherwise the
 * receive proceeds as without the flag.
 */
struct mpichan_recv {
	__u64 iov;
	__u32 iovcnt;
	__s32 src;
	__u32 context;
	__s32 tag;
	__u64 user_data;
	__u64 handle;
	__u32 flags;
	__u32 status;
	__u64 len;
	__u64 msg_len;
	__s32 msg_src;
	__s32 msg_tag;
	__u64 map_off;
	__u64 map_len;
};

#define MPICHAN_SIZEOF_RECV_V0	88	/* sizeof first published struct */

/**
 * struct mpichan_unmap - the argument of MPICHAN_IOC_UNMAP
 * @handle: in: from the MAPPED receive
 * @flags: in: must be 0
 * @pad: must be 0
 *
 * MPICHAN_IOC_UNMAP: the caller is done with a MAPPED receive: tear the
 * window down, then complete the send.  -ENOENT: not the mapped receive.
 *
 * With MPICHAN_FEAT_WINDOW_CACHE (module parameter window_cache), a
 * send whose buffer is still in the sender's pin cache is not torn
 * down: its pages stay mapped read-only at the start of the window, and
 * pinned, so that the next mapped receive of the same buffer maps
 * nothing.  The caller may then read them as the sender writes them;
 * nothing else of the sender is mapped.  They go at the next mapped
 * receive of other pages, munmap() of the window, or when the rank
 * leaves.
 */
struct mpichan_unmap {
	__u64 handle;
	__u32 flags;
	__u32 pad;
};

#define MPICHAN_SIZEOF_UNMAP_V0	16	/* sizeof first published struct */

/**
 * struct mpichan_cancel - the argument of MPICHAN_IOC_CANCEL
 * @handle: in: the queued send or receive
 * @flags: in: must be 0
 * @pad: must be 0
 *
 * MPICHAN_IOC_CANCEL: withdraw a queued send or receive of the caller.
 * 0: withdrawn, its pages released, and a CQE with -ECANCELED posted;
 * -ENOENT: no such queued transfer (already matched, or never was).
 */
struct mpichan_cancel {
	__u64 handle;
	__u32 flags;
	__u32 pad;
};

#define MPICHAN_SIZEOF_CANCEL_V0 16	/* sizeof first published struct */

/* ---- Registered regions (MPICHAN_FEAT_REGION) -------------------- */

/*
 * A region is memory a process registered on one of its /dev/mpichan
 * fds (any fd: a rank's, a job owner's or a fresh one).  The module pins
 * it once, charges it to RLIMIT_MEMLOCK, and names it by a handle and an
 * unguessable 64-bit key.  Any process of the same effective uid (or
 * with CAP_SYS_ADMIN), a rank of a job or not, that names both may
 *
 *  - copy from it or into it (MPICHAN_IOC_REGION_COPY): one kernel copy
 *    between the region's pinned pages and its own memory, a batch of
 *    pieces in one call;
 *  - map its whole pages (MPICHAN_IOC_REGION_MAP, then mmap() of its fd
 *    at the offset MAP returned), read-only, or writable if the region
 *    was registered writable: then loads and stores reach the owner's
 *    memory with no system call, and CPU atomics on it work between the
 *    processes (the same physical pages).  The module does no atomics of
 *    its own on a copy.
 *
 * No byte outside [addr, addr + len) is ever visible to another process:
 * a partial first or last page is reached by copy only.  The region
 * belongs to the fd that registered it and ends with it (DEREG, or the
 * last close of that file, whatever killed the process).  It goes stale
 * when the owner's memory behind it changes (munmap, mremap, fork,
 * MADV_DONTNEED, a MAP_FIXED mapping over it, exit; not mprotect):
 * copies, MAP and QUERY then fail with -ESTALE, and its pages stay
 * pinned until it ends.  Whatever ends a region or makes it stale, every
 * mapping of it is zapped before its pages are released, and by the time
 * a call has returned -ESTALE or DEREG has returned; a touch afterwards
 * raises SIGBUS.
 */
#define MPICHAN_REGION_MAX_BYTES	(1ULL << 36)	/* largest region, 64 GiB */
#define MPICHAN_REGION_COPY_MAX		1024		/* entries per COPY */
/* mmap() offsets MAP returns lie from here up, one slot per region. */
#define MPICHAN_REGION_OFFSET		(1ULL << 42)

/* struct mpichan_region_reg.flags, _map.flags, _query.flags */
#define MPICHAN_REGION_WRITE	(1U << 0)	/* writable: by copy and by mapping */

/**
 * struct mpichan_region_reg - the argument of MPICHAN_IOC_REGION_REG
 * @addr: in: the first byte of the memory, any alignment
 * @len: in: its bytes, 1 .. %MPICHAN_REGION_MAX_BYTES
 * @flags: in: %MPICHAN_REGION_WRITE or 0 (read-only)
 * @pad: must be 0
 * @handle: out: names the region
 * @key: out: the secret that goes with it; hand it to the peers
 * @map_start: out: region offset of its first whole page (0 if none)
 * @map_len: out: bytes of its whole pages, what a mapping can show
 *	(0: the region has none, copy only)
 *
 * MPICHAN_IOC_REGION_REG: register [addr, addr + len) of the caller's
 * memory on this fd.  Pinned (writable memory needed for
 * %MPICHAN_REGION_WRITE) and charged to RLIMIT_MEMLOCK unless the caller
 * has CAP_IPC_LOCK.  Refusals: EINVAL (flags, pad, len 0 or too long,
 * the range wraps), EFAULT (not mapped, a job's mapping, or not writable for
 * %MPICHAN_REGION_WRITE), ENOMEM (RLIMIT_MEMLOCK or memory), ENOSPC (no
 * free handle), EAGAIN (the memory kept changing while it was pinned).
 */
struct mpichan_region_reg {
	__u64 addr;
	__u64 len;
	__u32 flags;
	__u32 pad;
	__u64 handle;
	__u64 key;
	__u64 map_start;
	__u64 map_len;
};

#define MPICHAN_SIZEOF_REGION_REG_V0	56	/* sizeof first published struct */

/**
 * struct mpichan_region_dereg - the argument of MPICHAN_IOC_REGION_DEREG
 * @handle: in: a region registered on this fd
 * @flags: in: must be 0
 * @pad: must be 0
 *
 * MPICHAN_IOC_REGION_DEREG: end the region.  No new copy or mapping
 * starts; every mapping is zapped; the call waits for the copies already
 * under way (in any process) to finish, then unpins and uncharges.
 * ENOENT: no such region on this fd.  EINTR: a fatal signal came while
 * waiting; the region is gone and its pages go when the last copy ends.
 */
struct mpichan_region_dereg {
	__u64 handle;
	__u32 flags;
	__u32 pad;
};

#define MPICHAN_SIZEOF_REGION_DEREG_V0	16	/* sizeof first published struct */

/**
 * struct mpichan_region_query - the argument of MPICHAN_IOC_REGION_QUERY
 * @handle: in: the region
 * @key: in: its key
 * @len: out: bytes registered
 * @flags: out: %MPICHAN_REGION_WRITE if writable
 * @pid: out: thread-group id of the process that registered it
 * @map_start: out: region offset of its first whole page (0 if none)
 * @map_len: out: bytes of its whole pages (0: none)
 *
 * MPICHAN_IOC_REGION_QUERY: what a region is, for whoever names it.
 * Refusals as for a copy: ENOENT, EPERM, EACCES, ESTALE.
 */
struct mpichan_region_query {
	__u64 handle;
	__u64 key;
	__u64 len;
	__u32 flags;
	__s32 pid;
	__u64 map_start;
	__u64 map_len;
};

#define MPICHAN_SIZEOF_REGION_QUERY_V0	48	/* sizeof first published struct */

/**
 * struct mpichan_region_map - the argument of MPICHAN_IOC_REGION_MAP
 * @handle: in: the region
 * @key: in: its key
 * @flags: in: %MPICHAN_REGION_WRITE to be allowed a writable mapping
 *	(the region must be writable), or 0
 * @pad: must be 0
 * @offset: out: the offset to pass to mmap() on this fd
 * @map_start: out: region offset of the mapping's first byte
 * @map_len: out: bytes that may be mapped: the region's whole pages
 *
 * MPICHAN_IOC_REGION_MAP: allow this fd to mmap() the region's whole
 * pages: mmap(NULL, n, PROT_READ [| PROT_WRITE], MAP_SHARED, fd, offset)
 * with 0 < n <= map_len maps region bytes [map_start, map_start + n).
 * The latest MAP of a region on an fd decides whether its later mmap()s
 * may be writable.  Several regions may be mapped at once, a region
 * several times and by several processes.  A mapping cannot be split,
 * moved, made executable or inherited over fork(); a read-only one
 * cannot be made writable.  Refusals: EINVAL (flags, pad; a region
 * without a whole page), ENOENT, EPERM, EACCES (wrong key, or
 * %MPICHAN_REGION_WRITE on a read-only region), ESTALE, ENOMEM.
 * mmap() refuses: EINVAL (MAP_PRIVATE, an offset that is not one MAP
 * returned, a length over map_len), EACCES (no MAP of this region on
 * this fd, or PROT_WRITE without %MPICHAN_REGION_WRITE), EPERM
 * (PROT_EXEC), ENOENT, ESTALE.  Once the region ends or goes stale the
 * mapping raises SIGBUS; it never shows other memory.
 */
struct mpichan_region_map {
	__u64 handle;
	__u64 key;
	__u32 flags;
	__u32 pad;
	__u64 offset;
	__u64 map_start;
	__u64 map_len;
};

#define MPICHAN_SIZEOF_REGION_MAP_V0	48	/* sizeof first published struct */

/* struct mpichan_rcopy.flags */
#define MPICHAN_RCOPY_PUT	(1U << 0)	/* local memory into the region; else out of it */
#define MPICHAN_RCOPY_IOV	(1U << 1)	/* addr is an array of iovcnt struct mpichan_iovec */

/**
 * struct mpichan_rcopy - one entry of MPICHAN_IOC_REGION_COPY
 * @addr: local memory: the buffer, or with %MPICHAN_RCOPY_IOV an array of
 *	@iovcnt &struct mpichan_iovec whose lengths add up to @len
 * @len: bytes to copy, at most MAX_RW_COUNT (0 copies nothing)
 * @handle: the region
 * @key: its key
 * @offset: where in the region; offset + len <= the region's length
 * @flags: %MPICHAN_RCOPY_PUT (into the region: it must be writable) or
 *	0 (out of it), and %MPICHAN_RCOPY_IOV
 * @iovcnt: with %MPICHAN_RCOPY_IOV 1 .. %MPICHAN_IOV_MAX, else 0
 */
struct mpichan_rcopy {
	__u64 addr;
	__u64 len;
	__u64 handle;
	__u64 key;
	__u64 offset;
	__u32 flags;
	__u32 iovcnt;
};

#define MPICHAN_SIZEOF_RCOPY	48	/* struct mpichan_rcopy */

/**
 * struct mpichan_region_copy - the argument of MPICHAN_IOC_REGION_COPY
 * @entries: in: &struct mpichan_rcopy __user *, @count of them
 * @count: in: 1 .. %MPICHAN_REGION_COPY_MAX
 * @flags: in: must be 0
 * @done: out: entries copied whole; on an error, the index of the entry
 *	that failed
 * @pad: must be 0
 * @bytes: out: bytes copied by all entries, the failed one's part too
 *
 * MPICHAN_IOC_REGION_COPY: copy each entry in turn, each in one kernel
 * copy between the region's pinned pages and the caller's memory (a
 * strided put or get is one call).  Stops at the first entry that fails
 * and returns its error, with @done and @bytes written back: EINVAL
 * (flags, iovcnt, lengths that disagree or overflow, offset + len past
 * the region's end), ENOENT (no such region, or it ended), EPERM (a
 * region of another user, without CAP_SYS_ADMIN), EACCES (wrong key, or
 * a put into a read-only region), ESTALE (the owner's memory changed),
 * EFAULT (the local memory or the array faulted), EINTR (a fatal
 * signal).  Copies into a region are plain stores: two processes
 * putting into the same bytes at once get one or the other, or a mix;
 * the module does no atomics and takes no lock on the data.
 */
struct mpichan_region_copy {
	__u64 entries;
	__u32 count;
	__u32 flags;
	__u32 done;
	__u32 pad;
	__u64 bytes;
};

#define MPICHAN_SIZEOF_REGION_COPY_V0	32	/* sizeof first published struct */

/* struct mpichan_version.features */
#define MPICHAN_FEAT_RNDV	(1ULL << 0)	/* SEND, RECV, CANCEL, CQ */
#define MPICHAN_FEAT_WINDOW	(1ULL << 1)	/* RECV_MAP, UNMAP, the window */
#define MPICHAN_FEAT_MULTI	(1ULL << 2)	/* MPICHAN_SEND_MULTI */
#define MPICHAN_FEAT_COLL	(1ULL << 3)	/* off.coll, the collective area */
#define MPICHAN_FEAT_WINDOW_CACHE (1ULL << 4)	/* UNMAP may leave pages mapped */
#define MPICHAN_FEAT_REGION	(1ULL << 5)	/* registered regions: MPICHAN_IOC_REGION_* */

/**
 * struct mpichan_version - the argument of MPICHAN_IOC_VERSION
 * @abi_version: out: %MPICHAN_ABI_VERSION of the module
 * @max_ranks: out: largest job the module accepts
 * @features: out: MPICHAN_FEAT_* bits
 *
 * MPICHAN_IOC_VERSION: what the loaded module speaks.
 */
struct mpichan_version {
	__u32 abi_version;
	__u32 max_ranks;
	__u64 features;
};

#define MPICHAN_SIZEOF_VERSION_V0 16	/* sizeof first published struct */

/**
 * struct mpichan_job_create - the argument of MPICHAN_IOC_JOB_CREATE
 * @nranks: in: 1 .. max_ranks
 * @ring_bytes: in: per ring, a power of two in
 *	[%MPICHAN_RING_MIN_BYTES, %MPICHAN_RING_MAX_BYTES], or 0 for the
 *	module's choice; out: what the job got
 * @flags: in: must be 0
 * @pad: must be 0
 * @job_id: out: the new job's id
 * @secret: out: hand to the ranks, keep private
 *
 * MPICHAN_IOC_JOB_CREATE: make the fd the owner handle of a new job.
 */
struct mpichan_job_create {
	__u32 nranks;
	__u32 ring_bytes;
	__u32 flags;
	__u32 pad;
	__u64 job_id;
	__u64 secret[2];
};

#define MPICHAN_SIZEOF_JOB_CREATE_V0 40	/* sizeof first published struct */

/**
 * struct mpichan_attach - the argument of MPICHAN_IOC_ATTACH
 * @job_id: in: from JOB_CREATE
 * @secret: in: from JOB_CREATE
 * @rank: in: the rank to become, < nranks
 * @flags: in: must be 0
 * @nranks: out: ranks in the job
 * @ring_cells: out: cells per ring
 * @off: out: where each region of the mapping lies
 *
 * MPICHAN_IOC_ATTACH: make the fd rank `rank` of a job.  Refusals:
 *   ENOENT   no such job (or its owner handle is gone)
 *   EPERM    the job belongs to another user (CAP_SYS_ADMIN overrides)
 *   EACCES   wrong secret
 *   ERANGE   rank >= nranks
 *   EBUSY    the rank is or was taken
 *   EISCONN  this fd already owns or is attached to a job
 */
struct mpichan_attach {
	__u64 job_id;
	__u64 secret[2];
	__u32 rank;
	__u32 flags;
	__u32 nranks;
	__u32 ring_cells;
	struct mpichan_offsets off;
};

#define MPICHAN_SIZEOF_ATTACH_V0 96	/* sizeof first published struct */
#define MPICHAN_SIZEOF_ATTACH_V1 104	/* add: off.coll */

/**
 * struct mpichan_wait - the argument of MPICHAN_IOC_WAIT
 * @timeout_ns: in: < 0 forever, 0 just check
 * @peer: in: rank, %MPICHAN_RANK_ANY or %MPICHAN_RANK_NONE
 * @flags: in: must be 0
 * @dead_count: out: the job's dead_count at return, whatever the outcome
 * @pad: must be 0
 *
 * MPICHAN_IOC_WAIT: sleep until there is something to do.  Returns 0
 * when an incoming ring or the completion queue is non-empty or a WAKE
 * was posted to this rank
 * since the last WAIT returned; -ETIMEDOUT after timeout_ns; -EINTR on
 * a signal; -EPIPE when `peer` has left (a rank), or when any rank died
 * (MPICHAN_RANK_ANY); MPICHAN_RANK_NONE ignores departures.  Work is
 * reported before a departure: a dead peer's last messages come first.
 */
struct mpichan_wait {
	__s64 timeout_ns;
	__s32 peer;
	__u32 flags;
	__u32 dead_count;
	__u32 pad;
};

#define MPICHAN_SIZEOF_WAIT_V0	24	/* sizeof first published struct */

/**
 * struct mpichan_wake - the argument of MPICHAN_IOC_WAKE
 * @rank: in: the rank to wake
 * @flags: in: must be 0
 *
 * MPICHAN_IOC_WAKE: wake rank `rank` of the caller's job.
 */
struct mpichan_wake {
	__u32 rank;
	__u32 flags;
};

#define MPICHAN_SIZEOF_WAKE_V0	8	/* sizeof first published struct */

#define MPICHAN_IOC_VERSION	_IOR(MPICHAN_IOC_MAGIC, 0x00, struct mpichan_version)
#define MPICHAN_IOC_JOB_CREATE	_IOWR(MPICHAN_IOC_MAGIC, 0x01, struct mpichan_job_create)
#define MPICHAN_IOC_ATTACH	_IOWR(MPICHAN_IOC_MAGIC, 0x02, struct mpichan_attach)
#define MPICHAN_IOC_WAIT	_IOWR(MPICHAN_IOC_MAGIC, 0x03, struct mpichan_wait)
#define MPICHAN_IOC_WAKE	_IOW(MPICHAN_IOC_MAGIC, 0x04, struct mpichan_wake)
/* Mark this rank as finished: its departure is then not a death. */
#define MPICHAN_IOC_FINISH	_IO(MPICHAN_IOC_MAGIC, 0x05)
#define MPICHAN_IOC_SEND	_IOWR(MPICHAN_IOC_MAGIC, 0x06, struct mpichan_send)
#define MPICHAN_IOC_RECV	_IOWR(MPICHAN_IOC_MAGIC, 0x07, struct mpichan_recv)
#define MPICHAN_IOC_CANCEL	_IOW(MPICHAN_IOC_MAGIC, 0x08, struct mpichan_cancel)
#define MPICHAN_IOC_UNMAP	_IOW(MPICHAN_IOC_MAGIC, 0x09, struct mpichan_unmap)
#define MPICHAN_IOC_REGION_REG	_IOWR(MPICHAN_IOC_MAGIC, 0x0a, struct mpichan_region_reg)
#define MPICHAN_IOC_REGION_DEREG _IOW(MPICHAN_IOC_MAGIC, 0x0b, struct mpichan_region_dereg)
#define MPICHAN_IOC_REGION_COPY	_IOWR(MPICHAN_IOC_MAGIC, 0x0c, struct mpichan_region_copy)
#define MPICHAN_IOC_REGION_MAP	_IOWR(MPICHAN_IOC_MAGIC, 0x0d, struct mpichan_region_map)
#define MPICHAN_IOC_REGION_QUERY _IOWR(MPICHAN_IOC_MAGIC, 0x0e, struct mpichan_region_query)

#endif /* _UAPI_LINUX_MPICHAN_H */
