// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/mpichan/: live state for people and tests.
 * The format is documented in Documentation/debugfs.rst.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/mpichan.h>

#include "debugfs.h"

static struct dentry *mpichan_debugfs_root;

static int version_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "abi %u\n", MPICHAN_ABI_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

void mpichan_debugfs_init(void)
{
	/*
	 * debugfs failures are not fatal by design: the device works
	 * without its state view, so errors are deliberately ignored.
	 */
	mpichan_debugfs_root = debugfs_create_dir("mpichan", NULL);
	debugfs_create_file("version", 0444, mpichan_debugfs_root, NULL,
			    &version_fops);
}

void mpichan_debugfs_exit(void)
{
	debugfs_remove_recursive(mpichan_debugfs_root);
}
