/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_DEVICE_H
#define _MPICHAN_DEVICE_H

int mpichan_device_init(void);
void mpichan_device_exit(void);

#endif /* _MPICHAN_DEVICE_H */
