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
};

struct mpichan_ioctl_desc {
	long (*handler)(struct file *file, void *arg);
	unsigned int dir;	/* _IOC_READ and/or _IOC_WRITE */
	unsigned int size;	/* the struct's size in this module */
	unsigned int min_size;	/* the struct's first published size */
	bool out_on_error;	/* copy the result out even on failure */
};

static long mpichan_version(struct file *file, void *arg)
{
	struct mpichan_version *v = arg;

	v->abi_version = MPICHAN_ABI_VERSION;
	v->max_ranks = MPICHAN_MAX_RANKS;
	v->features = MPICHAN_FEAT_RNDV | MPICHAN_FEAT_WINDOW |
		       MPICHAN_FEAT_MULTI | MPICHAN_FEAT_COLL;
	if (mpichan_window_cache())
		v->features |= MPICHAN_FEAT_WINDOW_CACHE;
	return 0;
}

static long mpichan_ioc_create(struct file *file, void *arg)
{
	return mpichan_job_create(file->private_data, arg);
}

static long mpichan_ioc_attach(struct file *file, void *arg)
{
	return mpichan_job_attach(file->private_data, arg);
}

static long mpichan_ioc_wait(struct file *file, void *arg)
{
	return mpichan_wait(file->private_data, arg);
}

static long mpichan_ioc_wake(struct file *file, void *arg)
{
	return mpichan_wake(file->private_data, arg);
}

static long mpichan_ioc_finish(struct file *file, void *arg)
{
	return mpichan_job_finish(file->private_data);
}

static long mpichan_ioc_send(struct file *file, void *arg)
{
	return mpichan_send(file->private_data, arg);
}

static long mpichan_ioc_recv(struct file *file, void *arg)
{
	return mpichan_recv(file->private_data, arg);
}

static long mpichan_ioc_cancel(struct file *file, void *arg)
{
	return mpichan_cancel(file->private_data, arg);
}

static long mpichan_ioc_unmap(struct file *file, void *arg)
{
	return mpichan_unmap(file->private_data, arg);
}

#define MPICHAN_IOCTL(_nr, _fn, _dir, _type)				\
	[_nr] = { .handler = _fn, .dir = _dir, .size = sizeof(_type),	\
		  .min_size = sizeof(_type) }

#define MPICHAN_RW	(_IOC_READ | _IOC_WRITE)

static const struct mpichan_ioctl_desc mpichan_ioctls[] = {
	MPICHAN_IOCTL(0x00, mpichan_version, _IOC_READ, struct mpichan_version),
	MPICHAN_IOCTL(0x01, mpichan_ioc_create, MPICHAN_RW, struct mpichan_job_create),
	/* ABI 2 as first published: without off.coll. */
	[0x02] = { .handler = mpichan_ioc_attach, .dir = MPICHAN_RW,
		   .size = sizeof(struct mpichan_attach),
		   .min_size = offsetofend(struct mpichan_attach, off.cq) },
	[0x03] = { .handler = mpichan_ioc_wait, .dir = MPICHAN_RW,
		   .size = sizeof(struct mpichan_wait),
		   .min_size = sizeof(struct mpichan_wait),
		   .out_on_error = true },
	MPICHAN_IOCTL(0x04, mpichan_ioc_wake, _IOC_WRITE, struct mpichan_wake),
	[0x05] = { .handler = mpichan_ioc_finish, .dir = _IOC_NONE },
	MPICHAN_IOCTL(0x06, mpichan_ioc_send, MPICHAN_RW, struct mpichan_send),
	MPICHAN_IOCTL(0x07, mpichan_ioc_recv, MPICHAN_RW, struct mpichan_recv),
	MPICHAN_IOCTL(0x08, mpichan_ioc_cancel, _IOC_WRITE, struct mpichan_cancel),
	MPICHAN_IOCTL(0x09, mpichan_ioc_unmap, _IOC_WRITE, struct mpichan_unmap),
};

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

	ret = desc->handler(file, &arg);
	if ((ret < 0 && !desc->out_on_error) || !(desc->dir & _IOC_READ))
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
	/* Replaces the miscdevice pointer the misc core left here. */
	file->private_data = mf;
	return 0;
}

static int mpichan_release(struct inode *inode, struct file *file)
{
	struct mpichan_file *mf = file->private_data;

	mpichan_file_release(mf);
	mutex_destroy(&mf->lock);
	kfree(mf);
	return 0;
}

static const struct file_operations mpichan_fops = {
	.owner		= THIS_MODULE,
	.open		= mpichan_open,
	.release	= mpichan_release,
	.unlocked_ioctl	= mpichan_ioctl,
	.mmap		= mpichan_mmap,
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
	return misc_register(&mpichan_misc);
}

void mpichan_device_exit(void)
{
	misc_deregister(&mpichan_misc);
	mpichan_job_exit();
}
