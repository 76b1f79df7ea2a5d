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
 */
#ifndef _UAPI_LINUX_MPICHAN_H
#define _UAPI_LINUX_MPICHAN_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define MPICHAN_DEVICE		"/dev/mpichan"

/* Bumped on any incompatible change of this header. */
#define MPICHAN_ABI_VERSION	1

#define MPICHAN_IOC_MAGIC	0xB8

/* MPICHAN_IOC_VERSION: what the loaded module speaks. */
struct mpichan_version {
	__u32 abi_version;	/* out: MPICHAN_ABI_VERSION of the module */
	__u32 max_ranks;	/* out: largest job the module accepts */
	__u64 features;		/* out: MPICHAN_FEAT_* */
};

#define MPICHAN_IOC_VERSION	_IOR(MPICHAN_IOC_MAGIC, 0x00, struct mpichan_version)

#endif /* _UAPI_LINUX_MPICHAN_H */
