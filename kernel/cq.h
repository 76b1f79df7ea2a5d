/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_CQ_H
#define _MPICHAN_CQ_H

#include <linux/types.h>

struct mpichan_rank;
struct mpichan_cqe;

int mpichan_cq_reserve(struct mpichan_rank *rank);
void mpichan_cq_unreserve(struct mpichan_rank *rank);
void mpichan_cq_post(struct mpichan_rank *rank, const struct mpichan_cqe *e);
bool mpichan_cq_pending(struct mpichan_rank *rank);

#endif /* _MPICHAN_CQ_H */
