/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MPICHAN_MATCH_H
#define _MPICHAN_MATCH_H

#include <linux/list.h>
#include <linux/types.h>

#include "pin.h"

struct mpichan_file;
struct mpichan_rank;
struct mpichan_send;
struct mpichan_recv;
struct mpichan_cancel;
struct mpichan_unmap;
struct seq_file;

enum { MPICHAN_XFER_SEND, MPICHAN_XFER_RECV };

/* A queued send (in its destination's sendq) or receive (in its owner's). */
struct mpichan_xfer {
	struct list_head node;
	u32 id;			/* the handle */
	u8 kind;		/* MPICHAN_XFER_SEND or _RECV */
	u32 owner;		/* the rank that posted it: gets the CQE */
	s32 peer;		/* send: dst; recv: src or MPICHAN_RANK_ANY */
	u32 context;
	s32 tag;		/* recv: may be MPICHAN_TAG_ANY */
	u64 user_data;
	struct mpichan_pin pin;
	/* MPICHAN_SEND_MULTI, under job->xfer_lock: */
	bool multi;
	bool orphan;		/* the owner left: no CQE */
	u32 binds_left;		/* receives still to take it; 0: closed */
	u32 active;		/* receives copying from it now */
	s32 err;		/* first failure, reported in the CQE */
	unsigned long *bound;	/* ranks that took it */
};

int mpichan_send(struct mpichan_file *mf, struct mpichan_send *s);
int mpichan_recv(struct mpichan_file *mf, struct mpichan_recv *r);
int mpichan_cancel(struct mpichan_file *mf, struct mpichan_cancel *c);
int mpichan_unmap(struct mpichan_file *mf, struct mpichan_unmap *um);
void mpichan_match_rank_left(struct mpichan_rank *rank);
void mpichan_match_show(struct seq_file *m, struct mpichan_job *job);

#endif /* _MPICHAN_MATCH_H */
