/* SPDX-License-Identifier: MIT */
/*
 * Large non-contiguous messages sent without packing (rndv_*.c): the
 * sender's offer of its blocks where they lie (a span, a layout, or
 * runs the module gathers), and where the receiver's copy of them goes.
 * Included by p2p.h.
 */
#ifndef LM_RNDV_H
#define LM_RNDV_H

/* ---- rndv_dest.c: where the bytes of an offer taken in place go ------- */

#define LM_DEST_BOUNCE	(64UL << 10)	/* bytes gathered per unpack */

/* A contiguous buffer, or a receive's own type. */
struct lm_dest {
	unsigned char *buf;
	const struct libmsg_request *req;
	struct lm_tile rt;	/* tile offers: req's type, when a tile too */
	int same;		/* ... of the sender's blocks (any stride) */
	unsigned char *bounce;	/* pieces gathered for one unpack */
	uint64_t staged_at, staged;	/* ... from message byte staged_at */
};

int lm_dest_init(struct lm_dest *d, void *buf,
		 const struct libmsg_request *req);
void lm_dest_finish(struct lm_dest *d);
void lm_dest_flush(struct lm_dest *d);
uint64_t lm_dest_room(struct lm_dest *d, uint64_t p);
void lm_dest_piece(struct lm_dest *d, uint64_t p, const unsigned char *src,
		   uint64_t bytes);
void lm_dest_run(struct lm_dest *d, uint64_t p, const unsigned char *src,
		 int64_t sstep, uint64_t len, uint64_t cnt);

/* ---- rndv_span.c: non-contiguous rendezvous without packing ----------- */

/*
 * A span offered may be this many times its data, at most (default;
 * MPICHAN_SPAN_SPARSE).  Measured: a vector of 4 KiB blocks every 16
 * blocks still goes 1.3x faster offered than packed, every 32 no
 * faster (Documentation/performance.md).
 */
#define LM_SPAN_SPARSE	16

/*
 * A send offered where it lies: a tile, a layout's segments, or its
 * runs of bytes for the module to gather (rndv_iov.c).
 */
struct lm_span {
	uint64_t bytes;		/* of the offer */
	struct mpichan_iovec *iov;	/* niov > 0: the runs, owned */
	uint32_t niov;
	struct lm_tile t;	/* nseg and niov 0: the tile */
	uint32_t nseg;		/* LM_RTS_LAYOUT: the segments of seg */
	struct lm_rts_seg seg[];
};

/* Sender: offer r where it lies (sets r->span, r->buf)?  1 if so. */
int lm_span_prepare(struct libmsg_request *r);
/* ... is a span of span bytes worth offering for bytes of data? */
int lm_span_worth(uint64_t span, uint64_t bytes);
uint64_t lm_span_offer_bytes(const struct libmsg_request *r);
/* The send is over (or restarts): forget its span. */
void lm_span_drop(struct libmsg_request *r);
/* The module would not take the span: pack r after all (0, -ENOMEM). */
int lm_span_abandon(struct libmsg_request *r);
void lm_span_mark(struct lm_rts *rts, const struct libmsg_request *r);
/* Receiver: a span RTS from the ring is well formed. */
int lm_span_valid(const struct lm_rts *rts);
int lm_span_take(int wsrc, uint32_t ctx, int tag, const struct lm_rts *rts,
		 uint64_t n, void *buf, const struct libmsg_request *req);

/* ---- rndv_layout.c: any other type offered in place, with its layout -- */

/* Sender: r->span for r's layout (in place of a tile)?  1 if so. */
int lm_layout_prepare(struct libmsg_request *r);
/* Receiver: the segments of a layout RTS are well formed. */
int lm_layout_valid(const struct lm_rts *rts, const struct lm_rts_seg *seg);
int lm_layout_take(int wsrc, uint32_t ctx, int tag, const struct lm_rts *rts,
		   const struct lm_rts_seg *seg, uint64_t n, void *buf,
		   const struct libmsg_request *req);

/* ---- rndv_iov.c: non-contiguous sends the module gathers --------------- */

/*
 * MPICHAN_IOV=auto sends a type's runs to the module (in place of
 * packing it) when they average this many bytes or more: a sparse
 * vector of 4 KiB blocks went 1.5 times faster so, of 64 KiB blocks 2
 * times, where kernel copies run as fast as user ones
 * (Documentation/performance.md, "Sparse sends gathered by the module").
 */
#define LM_IOV_MIN	4096

/* Sender: list r's runs for the module (sets r->span)?  1 if so. */
int lm_iov_prepare(struct libmsg_request *r);
/* ... and offer them to world rank dst: 0, or -errno (then pack). */
int lm_iov_offer(struct libmsg_request *r, uint32_t dst);
/* Receiver: an LM_RTS_IOV offer straight into req's type?  1 if taken. */
int lm_iov_take(const struct libmsg_request *req, int wsrc, uint32_t ctx,
		int tag, const struct lm_rts *rts, uint64_t n, int *err);

#endif
