// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/mpichan: the misc device, its file operations and the ioctl
 * dispatcher.  Each ioctl is described by one table entry; the
 * dispatcher does the size checks and user copies so that handlers
 * only ever see a kernel copy of a fully validated-size argument.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mpichan.h>

#include "device.h"
#include "job.h"
#include "match.h"
#include "region.h"
#include "ring.h"
#include "wait.h"
#include "window.h"

union mpichan_ioctl_arg {
	struct mpichan_version version;
	struct mpichan_job_create create;
	struct mpichan_attach attach;
	struct mpichan_wait wait;
	struct mpichan_wake wake;
	struct mpichan_send send;
	struct mpichan_recv recv;
	struct mpichan_cancel cancel;
	struct mpichan_unmap unmap;
	struct mpichan_region_reg region_reg;
	struct mpichan_region_dereg region_dereg;
	struct mpichan_region_copy region_copy;
	struct mpichan_region_map region_map;
	struct mpichan_region_query region_query;
};

struct mpichan_ioctl_desc {
	long (*handler)(struct mpichan_file *mf, union mpichan_ioctl_arg *arg);
	unsigned int dir;	/* _IOC_READ and/or _IOC_WRITE */
	unsigned int size;	/* the struct's size in this module */
	unsigned int min_size;	/* the struct's first published size */
	unsigned int flags;	/* MPICHAN_IOCTL_* */
};

/* Copy the result out even when the handler fails. */
#define MPICHAN_IOCTL_OUT_ON_ERROR	(1U << 0)

static long mpichan_ioctl_version(struct mpichan_file *mf,
				  union mpichan_ioctl_arg *arg)
{
	struct mpichan_version *v = &arg->version;

	v->abi_version = MPICHAN_ABI_VERSION;
	v->max_ranks = MPICHAN_MAX_RANKS;
	v->features = MPICHAN_FEAT_RNDV | MPICHAN_FEAT_WINDOW |
		       MPICHAN_FEAT_MULTI | MPICHAN_FEAT_COLL;
	if (mpichan_window_cache())
		v->features |= MPICHAN_FEAT_WINDOW_CACHE;
	if (mpichan_region_enabled())
		v->features |= MPICHAN_FEAT_REGION;
	return 0;
}

static long mpichan_ioctl_job_create(struct mpichan_file *mf,
				     union mpichan_ioctl_arg *arg)
{
	return mpichan_job_create(mf, &arg->create);
}

static long mpichan_ioctl_attach(struct mpichan_file *mf,
				 union mpichan_ioctl_arg *arg)
{
	return mpichan_job_attach(mf, &arg->attach);
}

static long mpichan_ioctl_wait(struct mpichan_file *mf,
			       union mpichan_ioctl_arg *arg)
{
	return mpichan_wait(mf, &arg->wait);
}

static long mpichan_ioctl_wake(struct mpichan_file *mf,
			       union mpichan_ioctl_arg *arg)
{
	return mpichan_wake(mf, &arg->wake);
}

static long mpichan_ioctl_finish(struct mpichan_file *mf,
				 union mpichan_ioctl_arg *arg)
{
	return mpichan_job_finish(mf);
}

static long mpichan_ioctl_send(struct mpichan_file *mf,
			       union mpichan_ioctl_arg *arg)
{
	return mpichan_send(mf, &arg->send);
}

static long mpichan_ioctl_recv(struct mpichan_file *mf,
			       union mpichan_ioctl_arg *arg)
{
	return mpichan_recv(mf, &arg->recv);
}

static long mpichan_ioctl_cancel(struct mpichan_file *mf,
				 union mpichan_ioctl_arg *arg)
{
	return mpichan_cancel(mf, &arg->cancel);
}

static long mpichan_ioctl_unmap(struct mpichan_file *mf,
				union mpichan_ioctl_arg *arg)
{
	return mpichan_unmap(mf, &arg->unmap);
}

static long mpichan_ioctl_region_reg(struct mpichan_file *mf,
				     union mpichan_ioctl_arg *arg)
{
	return mpichan_region_reg(mf, &arg->region_reg);
}

static long mpichan_ioctl_region_dereg(struct mpichan_file *mf,
				       union mpichan_ioctl_arg *arg)
{
	return mpichan_region_dereg(mf, &arg->region_dereg);
}

static long mpichan_ioctl_region_copy(struct mpichan_file *mf,
				      union mpichan_ioctl_arg *arg)
{
	return mpichan_region_copy(mf, &arg->region_copy);
}

static long mpichan_ioctl_region_map(struct mpichan_file *mf,
				     union mpichan_ioctl_arg *arg)
{
	return mpichan_region_map(mf, &arg->region_map);
}

static long mpichan_ioctl_region_query(struct mpichan_file *mf,
				       union mpichan_ioctl_arg *arg)
{
	return mpichan_region_query(mf, &arg->region_query);
}

/*
 * One entry per ioctl, at its number; the direction and size are the
 * ioctl number's own.  _min_size: the size the struct was first
 * published with, the least a caller may pass.
 */
#define MPICHAN_IOCTL(_cmd, _handler, _min_size, _flags)		\
	[_IOC_NR(_cmd)] = {						\
		.handler = _handler,					\
		.dir = _IOC_DIR(_cmd),					\
		.size = _IOC_SIZE(_cmd),				\
		.min_size = _min_size,					\
		.flags = _flags,					\
	}

static const struct mpichan_ioctl_desc mpichan_ioctls[] = {
	MPICHAN_IOCTL(MPICHAN_IOC_VERSION, mpichan_ioctl_version,
		      MPICHAN_SIZEOF_VERSION_V0, 0),
	MPICHAN_IOCTL(MPICHAN_IOC_JOB_CREATE, mpichan_ioctl_job_create,
		      MPICHAN_SIZEOF_JOB_CREATE_V0, 0),
	/* ABI 2 as first published: without off.coll. */
	MPICHAN_IOCTL(MPICHAN_IOC_ATTACH, mpichan_ioctl_attach,
		      MPICHAN_SIZEOF_ATTACH_V0, 0),
	/* dead_count is reported whatever the wait's outcome. */
	MPICHAN_IOCTL(MPICHAN_IOC_WAIT, mpichan_ioctl_wait,
		      MPICHAN_SIZEOF_WAIT_V0, MPICHAN_IOCTL_OUT_ON_ERROR),
	MPICHAN_IOCTL(MPICHAN_IOC_WAKE, mpichan_ioctl_wake,
		      MPICHAN_SIZEOF_WAKE_V0, 0),
	MPICHAN_IOCTL(MPICHAN_IOC_FINISH, mpichan_ioctl_finish, 0, 0),
	MPICHAN_IOCTL(MPICHAN_IOC_SEND, mpichan_ioctl_send,
		      MPICHAN_SIZEOF_SEND_V0, 0),
	MPICHAN_IOCTL(MPICHAN_IOC_RECV, mpichan_ioctl_recv,
		      MPICHAN_SIZEOF_RECV_V0, 0),
	MPICHAN_IOCTL(MPICHAN_IOC_CANCEL, mpichan_ioctl_cancel,
		      MPICHAN_SIZEOF_CANCEL_V0, 0),
	MPICHAN_IOCTL(MPICHAN_IOC_UNMAP, mpichan_ioctl_unmap,
		      MPICHAN_SIZEOF_UNMAP_V0, 0),
	MPICHAN_IOCTL(MPICHAN_IOC_REGION_REG, mpichan_ioctl_region_reg,
		      MPICHAN_SIZEOF_REGION_REG_V0, 0),
	MPICHAN_IOCTL(MPICHAN_IOC_REGION_DEREG, mpichan_ioctl_region_dereg,
		      MPICHAN_SIZEOF_REGION_DEREG_V0, 0),
	/* How far a batch got is reported whatever its outcome. */
	MPICHAN_IOCTL(MPICHAN_IOC_REGION_COPY, mpichan_ioctl_region_copy,
		      MPICHAN_SIZEOF_REGION_COPY_V0, MPICHAN_IOCTL_OUT_ON_ERROR),
	MPICHAN_IOCTL(MPICHAN_IOC_REGION_MAP, mpichan_ioctl_region_map,
		      MPICHAN_SIZEOF_REGION_MAP_V0, 0),
	MPICHAN_IOCTL(MPICHAN_IOC_REGION_QUERY, mpichan_ioctl_region_query,
		      MPICHAN_SIZEOF_REGION_QUERY_V0, 0),
};

/*
 * Every struct of the uapi is the size the header publishes: a field
 * added, moved or padded differently breaks the build, not the ABI.
 * The ioctl arguments that never grew are still their first size.
 */
static void mpichan_uapi_sizes(void)
{
	/* Shared memory. */
	BUILD_BUG_ON(sizeof(struct mpichan_offsets) != MPICHAN_SIZEOF_OFFSETS);
	BUILD_BUG_ON(sizeof(struct mpichan_job_hdr) != MPICHAN_SIZEOF_JOB_HDR);
	BUILD_BUG_ON(sizeof(struct mpichan_rank_ctl) != MPICHAN_RANK_CTL_SIZE);
	BUILD_BUG_ON(sizeof(struct mpichan_ring_ctl) != MPICHAN_RING_CTL_SIZE);
	BUILD_BUG_ON(sizeof(struct mpichan_msg) != MPICHAN_SIZEOF_MSG);
	BUILD_BUG_ON(sizeof(struct mpichan_cqe) != MPICHAN_CQE_SIZE);
	/* ioctl arguments. */
	BUILD_BUG_ON(sizeof(struct mpichan_iovec) != MPICHAN_SIZEOF_IOVEC);
	BUILD_BUG_ON(sizeof(struct mpichan_version) != MPICHAN_SIZEOF_VERSION_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_job_create) !=
		     MPICHAN_SIZEOF_JOB_CREATE_V0);
	BUILD_BUG_ON(offsetofend(struct mpichan_attach, off.cq) !=
		     MPICHAN_SIZEOF_ATTACH_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_attach) != MPICHAN_SIZEOF_ATTACH_V1);
	BUILD_BUG_ON(sizeof(struct mpichan_wait) != MPICHAN_SIZEOF_WAIT_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_wake) != MPICHAN_SIZEOF_WAKE_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_send) != MPICHAN_SIZEOF_SEND_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_recv) != MPICHAN_SIZEOF_RECV_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_cancel) != MPICHAN_SIZEOF_CANCEL_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_unmap) != MPICHAN_SIZEOF_UNMAP_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_region_reg) !=
		     MPICHAN_SIZEOF_REGION_REG_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_region_dereg) !=
		     MPICHAN_SIZEOF_REGION_DEREG_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_region_copy) !=
		     MPICHAN_SIZEOF_REGION_COPY_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_rcopy) != MPICHAN_SIZEOF_RCOPY);
	BUILD_BUG_ON(sizeof(struct mpichan_region_map) !=
		     MPICHAN_SIZEOF_REGION_MAP_V0);
	BUILD_BUG_ON(sizeof(struct mpichan_region_query) !=
		     MPICHAN_SIZEOF_REGION_QUERY_V0);
}

static long mpichan_ioctl(struct file *file, unsigned int cmd,
			  unsigned long uarg)
{
	void __user *argp = (void __user *)uarg;
	const struct mpichan_ioctl_desc *desc;
	union mpichan_ioctl_arg arg;
	unsigned int nr = _IOC_NR(cmd);
	size_t usize = _IOC_SIZE(cmd);
	long ret;

	if (_IOC_TYPE(cmd) != MPICHAN_IOC_MAGIC ||
	    nr >= ARRAY_SIZE(mpichan_ioctls))
		return -ENOTTY;
	desc = &mpichan_ioctls[nr];
	if (!desc->handler || _IOC_DIR(cmd) != desc->dir)
		return -ENOTTY;
	if (usize < desc->min_size)
		return -EINVAL;

	if (usize > PAGE_SIZE)
		return -E2BIG;
	memset(&arg, 0, sizeof(arg));
	if (desc->dir & _IOC_WRITE) {
		ret = copy_struct_from_user(&arg, desc->size, argp, usize);
		if (ret)
			return ret;
	}
	/*
	 * A result that cannot be written back must fail the call before
	 * the handler acts: a job created or a rank taken that the caller
	 * never hears of would be lost.  Writing the argument back as it
	 * is proves the memory writable.
	 */
	if ((desc->dir & _IOC_READ) &&
	    copy_to_user(argp, &arg, min_t(size_t, usize, desc->size)))
		return -EFAULT;

	ret = desc->handler(file->private_data, &arg);
	if ((ret < 0 && !(desc->flags & MPICHAN_IOCTL_OUT_ON_ERROR)) ||
	    !(desc->dir & _IOC_READ))
		return ret;

	/* A caller built against a newer header gets its tail zeroed. */
	if (copy_to_user(argp, &arg, min_t(size_t, usize, desc->size)))
		return -EFAULT;
	if (usize > desc->size &&
	    clear_user(argp + desc->size, usize - desc->size))
		return -EFAULT;
	return ret;
}

static int mpichan_open(struct inode *inode, struct file *file)
{
	struct mpichan_file *mf;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL_ACCOUNT);
	if (!mf)
		return -ENOMEM;
	mutex_init(&mf->lock);
	mpichan_region_file_init(file, mf);
	/* Replaces the miscdevice pointer the misc core left here. */
	file->private_data = mf;
	return 0;
}

static int mpichan_release(struct inode *inode, struct file *file)
{
	struct mpichan_file *mf = file->private_data;

	mpichan_region_file_release(mf);
	mpichan_file_release(mf);
	mutex_destroy(&mf->lock);
	kfree(mf);
	return 0;
}

/* Regions above MPICHAN_REGION_OFFSET; below, the job and the window. */
static int mpichan_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff >= MPICHAN_REGION_OFFSET >> PAGE_SHIFT)
		return mpichan_region_mmap(file->private_data, vma);
	return mpichan_mmap(file, vma);
}

static const struct file_operations mpichan_fops = {
	.owner		= THIS_MODULE,
	.open		= mpichan_open,
	.release	= mpichan_release,
	.unlocked_ioctl	= mpichan_ioctl,
	.mmap		= mpichan_file_mmap,
	.poll		= mpichan_poll,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice mpichan_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "mpichan",
	.fops	= &mpichan_fops,
	.mode	= 0666,
};

int mpichan_device_init(void)
{
	mpichan_uapi_sizes();
	return misc_register(&mpichan_misc);
}

void mpichan_device_exit(void)
{
	misc_deregister(&mpichan_misc);
	mpichan_job_exit();
}
