/* SPDX-License-Identifier: MIT */
/*
 * mem.h: how one-sided communication reaches a peer's memory when it
 * is not in the window's segment (struct lm_rma_mem_ops): the
 * fallback's copies with process_vm_readv/writev (mem_vm.c), the
 * device's registered regions (mem_dev.c).
 */
#ifndef LIBMSG_RMA_MEM_H
#define LIBMSG_RMA_MEM_H

#include <stdint.h>

/* ---- Reaching a peer's memory --------------------------------------------- */

/*
 * Memory a rank exposes to its peers (MPI_Win_create's buffer, memory
 * MPI_Win_attach'ed to a dynamic window): what a peer needs to reach
 * it.  Exchanged at window creation, or published in the segment's
 * table for a dynamic window; the same size everywhere.
 */
struct lm_rma_desc {
	uint64_t addr;		/* where it lies in its owner */
	uint64_t len;		/* bytes */
	uint64_t handle;	/* device: the region's handle; fallback: 0 */
	uint64_t key;		/* device: the region's key; fallback: 0 */
	uint32_t pid;		/* the owner's process */
	uint32_t flags;		/* the implementation's */
};

/* A peer's exposed memory, as this rank reaches it (attach). */
struct lm_rma_remote {
	struct lm_rma_desc d;
	/*
	 * The owner's bytes [map_lo, map_hi) are mapped here at map (a
	 * load or store reaches them); the rest is reached by copy.  The
	 * fallback maps nothing but a rank's own memory; the device maps a
	 * region's whole pages.
	 */
	unsigned char *map;
	uint64_t map_lo, map_hi;
	void *priv;		/* the implementation's */
};

/* len bytes at addr, in the owner's address space. */
struct lm_rma_run {
	uint64_t addr;
	uint64_t len;
};

/* Runs per copy call, at most (process_vm_writev's IOV_MAX). */
#define LM_RMA_RUNS	1024

/*
 * How a rank's memory is exposed and reached: the fallback's
 * (lm_rma_mem_vm, mem_vm.c) or the device's registered regions
 * (lm_rma_mem_dev, mem_dev.c).  Every call returns 0 or -errno (-ESRCH:
 * the owner is gone; -EFAULT: not there).
 */
struct lm_rma_mem_ops {
	const char *name;
	/* Owner: make [base, base + len) reachable; fill in *d. */
	int (*expose)(void *base, uint64_t len, struct lm_rma_desc *d);
	/* Owner: no longer (MPI_Win_free, MPI_Win_detach). */
	void (*unexpose)(struct lm_rma_desc *d);
	/* Origin: reach d: map what can be mapped, get ready to copy. */
	int (*attach)(const struct lm_rma_desc *d, struct lm_rma_remote *r);
	void (*detach)(struct lm_rma_remote *r);
	/* Origin: 0 while r->map reaches the owner's memory (NULL: always). */
	int (*check)(struct lm_rma_remote *r);
	/*
	 * Origin: the n runs of the owner's memory (all inside r->d) from
	 * (copy_to) or into (copy_from) the contiguous buf, in order.
	 */
	int (*copy_to)(struct lm_rma_remote *r, const void *buf,
		       const struct lm_rma_run *runs, uint32_t n);
	int (*copy_from)(struct lm_rma_remote *r, void *buf,
			 const struct lm_rma_run *runs, uint32_t n);
};

extern const struct lm_rma_mem_ops lm_rma_mem_vm, lm_rma_mem_dev;
/* A new window's: the device's over /dev/mpichan with regions, else vm. */
const struct lm_rma_mem_ops *lm_rma_mem(void);

#endif /* LIBMSG_RMA_MEM_H */
