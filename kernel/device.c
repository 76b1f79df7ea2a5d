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

#define MPICHAN_MAX_RANKS	1024

union mpichan_ioctl_arg {
	struct mpichan_version version;
};

struct mpichan_ioctl_desc {
	long (*handler)(struct file *file, void *arg);
	unsigned int dir;	/* _IOC_READ and/or _IOC_WRITE */
	unsigned int size;	/* the struct's size in this module */
	unsigned int min_size;	/* the struct's first published size */
};

static long mpichan_version(struct file *file, void *arg)
{
	struct mpichan_version *v = arg;

	v->abi_version = MPICHAN_ABI_VERSION;
	v->max_ranks = MPICHAN_MAX_RANKS;
	v->features = 0;
	return 0;
}

#define MPICHAN_IOCTL(_nr, _fn, _dir, _type)				\
	[_nr] = { .handler = _fn, .dir = _dir, .size = sizeof(_type),	\
		  .min_size = sizeof(_type) }

static const struct mpichan_ioctl_desc mpichan_ioctls[] = {
	MPICHAN_IOCTL(0x00, mpichan_version, _IOC_READ, struct mpichan_version),
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

	memset(&arg, 0, sizeof(arg));
	if (desc->dir & _IOC_WRITE) {
		ret = copy_struct_from_user(&arg, desc->size, argp, usize);
		if (ret)
			return ret;
	} else if (!access_ok(argp, usize)) {
		return -EFAULT;
	}

	ret = desc->handler(file, &arg);
	if (ret < 0 || !(desc->dir & _IOC_READ))
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
	/* The misc core set private_data to the miscdevice; clear it. */
	file->private_data = NULL;
	return 0;
}

static int mpichan_release(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations mpichan_fops = {
	.owner		= THIS_MODULE,
	.open		= mpichan_open,
	.release	= mpichan_release,
	.unlocked_ioctl	= mpichan_ioctl,
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
}
