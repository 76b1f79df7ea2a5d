/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_WAIT_H
#define _MPICHAN_WAIT_H

#include <linux/fs.h>
#include <linux/poll.h>

struct mpichan_file;
struct mpichan_wait;
struct mpichan_wake;

int mpichan_wait(struct mpichan_file *mf, struct mpichan_wait *w);
int mpichan_wake(struct mpichan_file *mf, struct mpichan_wake *w);
__poll_t mpichan_poll(struct file *file, poll_table *pt);

#endif /* _MPICHAN_WAIT_H */
