/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mpichan: MPI message passing between processes of one machine.
 *
 * This header is the whole contract between the module and user space:
 * ioctl numbers, their argument structs and the layout of the shared
 * memory every rank of a job maps.  All fields are fixed width and
 * explicitly padded; structs only ever grow at the end.  The kernel
 * accepts an argument whose size (encoded in the ioctl number) is at
 * least the first published size of that struct: a shorter one gets
 * -EINVAL, a longer one must have its unknown tail zeroed (-E2BIG).
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

/* Bumped on any incompatible change of this header. */
#define MPICHAN_ABI_VERSION	1

#define MPICHAN_IOC_MAGIC	0xB8

/* Rank arguments that name no single rank. */
#define MPICHAN_RANK_ANY	(-1)	/* any rank */
#define MPICHAN_RANK_NONE	(-2)	/* no rank */

/* ---- Shared memory layout ---------------------------------------- */

#define MPICHAN_JOB_MAGIC	0x6d706963U	/* "mpic" */
#define MPICHAN_CELL_SIZE	64	/* ring cell, one cache line */
#define MPICHAN_RANK_CTL_SIZE	128	/* struct mpichan_rank_ctl */
#define MPICHAN_RING_CTL_SIZE	128	/* struct mpichan_ring_ctl */
#define MPICHAN_RING_MIN_BYTES	4096
#define MPICHAN_RING_MAX_BYTES	(1U << 20)

/*
 * Offsets (bytes from the start of the mapping) of each region.  Every
 * region starts on a page boundary.  Ring (src -> dst) has index
 * dst * nranks + src in both ring_ctl and ring_data, so the rings a
 * rank polls lie next to each other.  Ring pages are allocated on first
 * touch: a job costs memory only for the pairs that talk.
 */
struct mpichan_offsets {
	__u64 job_hdr;		/* struct mpichan_job_hdr, always 0 */
	__u64 rank_ctl;		/* nranks x struct mpichan_rank_ctl */
	__u64 ring_ctl;		/* nranks^2 x struct mpichan_ring_ctl */
	__u64 ring_data;	/* nranks^2 x ring_bytes of cells */
	__u64 ring_bytes;	/* bytes of cells per ring, a power of two */
	__u64 map_size;		/* bytes to mmap at offset 0 */
};

/* The first page of the mapping.  Written by the kernel only. */
struct mpichan_job_hdr {
	__u32 magic;		/* MPICHAN_JOB_MAGIC */
	__u32 abi_version;	/* MPICHAN_ABI_VERSION */
	__u64 job_id;
	__u32 nranks;
	__u32 ring_cells;	/* ring_bytes / MPICHAN_CELL_SIZE */
	__u32 dead_count;	/* ranks gone without FINISH; only grows */
	__u32 finished_count;	/* ranks that called FINISH and left */
	struct mpichan_offsets off;
};

/* struct mpichan_rank_ctl.state */
enum {
	MPICHAN_RANK_EMPTY = 0,		/* nobody attached yet */
	MPICHAN_RANK_ALIVE = 1,		/* attached */
	MPICHAN_RANK_FINISHED = 2,	/* called FINISH, then left */
	MPICHAN_RANK_DEAD = 3,		/* left without FINISH */
};

/* struct mpichan_rank_ctl.flags */
#define MPICHAN_RANK_NEED_WAKEUP	(1U << 0)	/* about to sleep: wake me */

/* One per rank, two cache lines: the kernel's, and the rank's own. */
struct mpichan_rank_ctl {
	/* Written by the kernel. */
	__u32 state;		/* MPICHAN_RANK_* */
	__u32 pid;		/* thread-group id of the attached process */
	__u8 kpad[56];
	/* Written by the rank itself (senders may clear NEED_WAKEUP). */
	__u32 flags;		/* MPICHAN_RANK_* flags */
	__u8 upad[60];
};

/*
 * One per ordered pair.  head and tail count cells and run freely,
 * wrapping at 2^32; a ring is empty when head == tail and holds
 * tail - head cells.  The producer writes the cells, then stores tail
 * with release semantics; the consumer loads tail with acquire, reads
 * the cells, then stores head with release.
 */
struct mpichan_ring_ctl {
	/* Producer's cache line. */
	__u32 tail;
	__u32 ppad0;
	__u64 msgs;		/* messages produced (statistics only) */
	__u64 bytes;		/* payload bytes produced (statistics only) */
	__u8 ppad[40];
	/* Consumer's cache line. */
	__u32 head;
	__u8 cpad[60];
};

/*
 * A message in a ring: this header, then len payload bytes, filling
 * cells contiguous cells (the header counts).  A message never wraps:
 * when it does not fit before the end of the ring the producer first
 * writes a MPICHAN_MSG_PAD entry covering the cells up to the end.
 */
struct mpichan_msg {
	__u32 len;		/* payload bytes after this header */
	__u16 cells;		/* cells taken, >= 1, header included */
	__u16 kind;		/* MPICHAN_MSG_*, or >= MPICHAN_MSG_USER */
	__s32 tag;
	__u32 context;		/* communicator context id */
};

#define MPICHAN_MSG_PAD		0	/* skip these cells */
#define MPICHAN_MSG_DATA	1	/* payload is the message */
#define MPICHAN_MSG_USER	0x100	/* kinds from here on: the library's */

/* Payload bytes a message of n cells carries. */
#define MPICHAN_MSG_PAYLOAD(n) \
	((n) * MPICHAN_CELL_SIZE - sizeof(struct mpichan_msg))

/* ---- ioctls ------------------------------------------------------- */

/* MPICHAN_IOC_VERSION: what the loaded module speaks. */
struct mpichan_version {
	__u32 abi_version;	/* out: MPICHAN_ABI_VERSION of the module */
	__u32 max_ranks;	/* out: largest job the module accepts */
	__u64 features;		/* out: MPICHAN_FEAT_* */
};

/* MPICHAN_IOC_JOB_CREATE: make the fd the owner handle of a new job. */
struct mpichan_job_create {
	__u32 nranks;		/* in: 1 .. max_ranks */
	__u32 ring_bytes;	/* in: per ring, a power of two in
				 * [MPICHAN_RING_MIN_BYTES, _MAX_BYTES],
				 * or 0 for the module's choice
				 */
	__u32 flags;		/* in: must be 0 */
	__u32 pad;
	__u64 job_id;		/* out */
	__u64 secret[2];	/* out: hand to the ranks, keep private */
};

/*
 * MPICHAN_IOC_ATTACH: make the fd rank `rank` of a job.  Refusals:
 *   ENOENT   no such job (or its owner handle is gone)
 *   EPERM    the job belongs to another user (CAP_SYS_ADMIN overrides)
 *   EACCES   wrong secret
 *   ERANGE   rank >= nranks
 *   EBUSY    the rank is or was taken
 *   EISCONN  this fd already owns or is attached to a job
 */
struct mpichan_attach {
	__u64 job_id;		/* in */
	__u64 secret[2];	/* in */
	__u32 rank;		/* in */
	__u32 flags;		/* in: must be 0 */
	__u32 nranks;		/* out */
	__u32 ring_cells;	/* out */
	struct mpichan_offsets off;	/* out */
};

/*
 * MPICHAN_IOC_WAIT: sleep until there is something to do.  Returns 0
 * when an incoming ring is non-empty or a WAKE was posted to this rank
 * since the last WAIT returned; -ETIMEDOUT after timeout_ns; -EINTR on
 * a signal; -EPIPE when `peer` has left (a rank), or when any rank died
 * (MPICHAN_RANK_ANY); MPICHAN_RANK_NONE ignores departures.
 */
struct mpichan_wait {
	__s64 timeout_ns;	/* in: < 0 forever, 0 just check */
	__s32 peer;		/* in: rank, MPICHAN_RANK_ANY or _NONE */
	__u32 flags;		/* in: must be 0 */
	__u32 dead_count;	/* out: job's dead_count at return */
	__u32 pad;
};

/* MPICHAN_IOC_WAKE: wake rank `rank` of the caller's job. */
struct mpichan_wake {
	__u32 rank;		/* in */
	__u32 flags;		/* in: must be 0 */
};

#define MPICHAN_IOC_VERSION	_IOR(MPICHAN_IOC_MAGIC, 0x00, struct mpichan_version)
#define MPICHAN_IOC_JOB_CREATE	_IOWR(MPICHAN_IOC_MAGIC, 0x01, struct mpichan_job_create)
#define MPICHAN_IOC_ATTACH	_IOWR(MPICHAN_IOC_MAGIC, 0x02, struct mpichan_attach)
#define MPICHAN_IOC_WAIT	_IOWR(MPICHAN_IOC_MAGIC, 0x03, struct mpichan_wait)
#define MPICHAN_IOC_WAKE	_IOW(MPICHAN_IOC_MAGIC, 0x04, struct mpichan_wake)
/* Mark this rank as finished: its departure is then not a death. */
#define MPICHAN_IOC_FINISH	_IO(MPICHAN_IOC_MAGIC, 0x05)

#endif /* _UAPI_LINUX_MPICHAN_H */
