// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan: module entry points.
 */
#include <linux/module.h>

#include "debugfs.h"
#include "device.h"
#include "pincache.h"
#include "region.h"

static int __init mpichan_init(void)
{
	int ret;

	/* debugfs first, so the device never exists without its state. */
	ret = mpichan_pcache_init();
	if (ret)
		return ret;
	ret = mpichan_region_init();
	if (ret)
		goto err_pcache;
	mpichan_debugfs_init();
	ret = mpichan_device_init();
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	mpichan_debugfs_exit();
	mpichan_region_exit();
err_pcache:
	mpichan_pcache_exit();
	return ret;
}

static void __exit mpichan_exit(void)
{
	mpichan_device_exit();
	mpichan_debugfs_exit();
	mpichan_region_exit();
	mpichan_pcache_exit();
}

module_init(mpichan_init);
module_exit(mpichan_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("MPI message passing between processes of one machine");
MODULE_AUTHOR("The mpichan developers");
