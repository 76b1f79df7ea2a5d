// SPDX-License-Identifier: MIT
/*
 * Where the bytes of an offer taken where it lies go (rndv_span.c,
 * rndv_layout.c): straight into a contiguous buffer at their message
 * offset, or into a receive's own datatype.  For a type, pieces that
 * follow each other in the message are gathered in a bounce of
 * LM_DEST_BOUNCE bytes and unpacked from there in one go: unpacking
 * every small block on its own would walk the receive's layout from
 * its start each time.
 */

#include <errno.h>
#include <string.h>

#include "p2p/p2p.h"

/* Message bytes [p, p + bytes), packed at src, into the receive's type. */
static void dest_unpack(struct lm_dest *d, const unsigned char *src,
			uint64_t p, uint64_t bytes)
{
	const struct libmsg_request *q = d->req;

	lm_dt_unpack_range(src, p, p + bytes, q->ubuf, q->count, q->dt);
}

void lm_dest_flush(struct lm_dest *d)
{
	if (d->staged)
		dest_unpack(d, d->bounce, d->staged_at, d->staged);
	d->staged = 0;
}

/* Room in the bounce for message bytes from p on (0: unpack directly). */
uint64_t lm_dest_room(struct lm_dest *d, uint64_t p)
{
	if (!d->bounce)
		return 0;
	if (d->staged && (p != d->staged_at + d->staged ||
			  d->staged == LM_DEST_BOUNCE))
		lm_dest_flush(d);
	if (!d->staged)
		d->staged_at = p;
	return LM_DEST_BOUNCE - d->staged;
}

/* bytes of the message from offset p, at src, into place. */
void lm_dest_piece(struct lm_dest *d, uint64_t p, const unsigned char *src,
		   uint64_t bytes)
{
	if (d->buf) {
		lm_copy_blocks(d->buf + p, 0, src, 0, bytes, 1);
		return;
	}
	if (bytes <= lm_dest_room(d, p)) {
		lm_copy_blocks(d->bounce + d->staged, 0, src, 0, bytes, 1);
		d->staged += bytes;
		return;
	}
	lm_dest_flush(d);
	dest_unpack(d, src, p, bytes);
}

/*
 * cnt blocks of len bytes, sstep apart from src, that are message bytes
 * p .. p + cnt * len - 1: one strided copy into a buffer, or as many
 * as fit into the bounce at a time.
 */
void lm_dest_run(struct lm_dest *d, uint64_t p, const unsigned char *src,
		 int64_t sstep, uint64_t len, uint64_t cnt)
{
	uint64_t m;

	if (d->buf) {
		lm_copy_blocks(d->buf + p, (int64_t)len, src, sstep, len, cnt);
		return;
	}
	while (cnt) {
		m = lm_dest_room(d, p) / len;
		if (!m) {	/* a block larger than the bounce */
			lm_dest_piece(d, p, src, len);
			m = 1;
		} else {
			if (m > cnt)
				m = cnt;
			lm_copy_blocks(d->bounce + d->staged, (int64_t)len,
				       src, sstep, len, m);
			d->staged += m * len;
		}
		cnt -= m;
		p += m * len;
		src += (int64_t)m * sstep;
	}
}

/* Into buf, or into req's type (or, both NULL, nowhere): 0, -ENOMEM. */
int lm_dest_init(struct lm_dest *d, void *buf,
		 const struct libmsg_request *req)
{
	memset(d, 0, sizeof(*d));
	d->buf = buf;
	if (buf || !req)
		return 0;
	d->req = req;
	d->bounce = lm_scratch_get(LM_DEST_BOUNCE);
	return d->bounce ? 0 : -ENOMEM;
}

/* Unpack what is still staged and let the bounce go. */
void lm_dest_finish(struct lm_dest *d)
{
	lm_dest_flush(d);
	lm_scratch_put(d->bounce, LM_DEST_BOUNCE);
	d->bounce = NULL;
}
