/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_DEBUGFS_H
#define _MPICHAN_DEBUGFS_H

void mpichan_debugfs_init(void);
void mpichan_debugfs_exit(void);

#endif /* _MPICHAN_DEBUGFS_H */
