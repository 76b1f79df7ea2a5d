// SPDX-License-Identifier: MIT
/*
 * Reaching a peer's memory that is not in the window's segment
 * (MPI_Win_create's buffer, memory attached to a dynamic window): the
 * fallback's way.
 *
 * The fallback: exposing is publishing (pid, address, length); the
 * origin copies with process_vm_writev and process_vm_readv, one call
 * per batch of up to LM_RMA_RUNS runs of the target's memory against
 * one contiguous buffer of its own.  The kernel copies between the two
 * address spaces on the origin's CPU: the target's is not needed, it
 * may compute (or sleep) all along.  The ranks are processes of one
 * user, and each lets its siblings read and write it (PR_SET_PTRACER,
 * set by the transports where Yama asks for it).  Nothing is mapped,
 * except a rank's own memory, which it reaches with memcpy.
 *
 * Over the device windows use the module's registered regions instead
 * (mem_dev.c), which fall back to this file for memory the module will
 * not register.  Accumulates on memory reached this way (or by a
 * region) hold the target's accumulate lock: every origin must use one
 * mechanism per location, and an origin whose mapping failed copies.
 * Only memory every member maps in full (the segment) takes CPU
 * atomics.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "rma/rma.h"

static int vm_expose(void *base, uint64_t len, struct lm_rma_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->addr = (uintptr_t)base;
	d->len = len;
	d->pid = (uint32_t)getpid();
	return 0;
}

static void vm_unexpose(struct lm_rma_desc *d)
{
	(void)d;
}

static int vm_attach(const struct lm_rma_desc *d, struct lm_rma_remote *r)
{
	memset(r, 0, sizeof(*r));
	r->d = *d;
	/* A rank's own memory is here already. */
	if (d->pid == (uint32_t)getpid()) {
		r->map = (unsigned char *)(uintptr_t)d->addr;
		r->map_lo = d->addr;
		r->map_hi = d->addr + d->len;
	}
	return 0;
}

static void vm_detach(struct lm_rma_remote *r)
{
	memset(r, 0, sizeof(*r));
}

/*
 * The runs from run[i] + off on, against buf: process_vm_writev (write)
 * or process_vm_readv, again from where a short transfer stopped.
 */
static int vm_copy(struct lm_rma_remote *r, unsigned char *buf,
		   const struct lm_rma_run *run, uint32_t n, int write)
{
	struct iovec local, remote[LM_RMA_RUNS];
	uint64_t off = 0, total = 0;
	uint32_t i = 0, k, m;
	ssize_t got;

	if (r->map) {
		for (k = 0; k < n; k++) {
			unsigned char *p = r->map + (run[k].addr - r->map_lo);

			if (write)
				memcpy(p, buf + total, run[k].len);
			else
				memcpy(buf + total, p, run[k].len);
			total += run[k].len;
		}
		return 0;
	}
	while (i < n) {
		for (m = 0, k = i, total = 0; k < n && m < LM_RMA_RUNS; k++, m++) {
			uint64_t skip = k == i ? off : 0;

			remote[m].iov_base = (void *)(uintptr_t)(run[k].addr + skip);
			remote[m].iov_len = run[k].len - skip;
			total += run[k].len - skip;
		}
		local.iov_base = buf;
		local.iov_len = total;
		got = write ? process_vm_writev((pid_t)r->d.pid, &local, 1,
						remote, m, 0) :
			      process_vm_readv((pid_t)r->d.pid, &local, 1,
					       remote, m, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -EFAULT;
		buf += got;
		/* Past the runs the call moved. */
		while (got > 0) {
			uint64_t left = run[i].len - off;

			if ((uint64_t)got < left) {
				off += (uint64_t)got;
				got = 0;
			} else {
				got -= (ssize_t)left;
				off = 0;
				i++;
			}
		}
	}
	return 0;
}

static int vm_copy_to(struct lm_rma_remote *r, const void *buf,
		      const struct lm_rma_run *runs, uint32_t n)
{
	return vm_copy(r, (unsigned char *)(uintptr_t)buf, runs, n, 1);
}

static int vm_copy_from(struct lm_rma_remote *r, void *buf,
			const struct lm_rma_run *runs, uint32_t n)
{
	return vm_copy(r, buf, runs, n, 0);
}

const struct lm_rma_mem_ops lm_rma_mem_vm = {
	.name = "process_vm",
	.expose = vm_expose,
	.unexpose = vm_unexpose,
	.attach = vm_attach,
	.detach = vm_detach,
	.copy_to = vm_copy_to,
	.copy_from = vm_copy_from,
};
