// SPDX-License-Identifier: MIT
/*
 * Buffered sends: MPI_Buffer_attach/detach and the copy of a buffered
 * send's data into the attached buffer.  The copy is then sent by an
 * internal request; the user's request completes at once.  Space is
 * handed out first-fit, each message taking its size plus
 * MPI_BSEND_OVERHEAD, as MPI's sizing rule assumes.
 */

#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

struct chunk {
	struct cds_list_head link;	/* by offset */
	size_t off, len;
};

static unsigned char *bbase;
static size_t bsize;
static struct cds_list_head chunks = CDS_LIST_HEAD_INIT(chunks);

static struct chunk *chunk_alloc(size_t need)
{
	struct chunk *c, *n;
	struct cds_list_head *after = &chunks;
	size_t at = 0;

	cds_list_for_each_entry(c, &chunks, link) {
		if (c->off - at >= need)
			break;
		at = c->off + c->len;
		after = &c->link;
	}
	if (at + need > bsize)
		return NULL;
	n = malloc(sizeof(*n));
	if (!n)
		return NULL;
	n->off = at;
	n->len = need;
	cds_list_add(&n->link, after);
	return n;
}

void lm_bsend_release(struct libmsg_request *req)
{
	struct chunk *c = req->bbuf;

	if (!c)
		return;
	cds_list_del(&c->link);
	free(c);
	req->bbuf = NULL;
}

int lm_bsend_start(struct libmsg_request *req, const char *fn)
{
	struct libmsg_request *s;
	struct chunk *c;

	if (req->peer == MPI_PROC_NULL) {
		lm_send_start(req);
		return MPI_SUCCESS;
	}
	s = lm_req_new(LM_REQ_SEND);
	if (!s)
		return lm_req_nomem(req->comm, fn);
	c = chunk_alloc(req->bytes + MPI_BSEND_OVERHEAD);
	/* Earlier buffered sends may be done but not yet known: look. */
	while (!c && lm_progress())
		c = chunk_alloc(req->bytes + MPI_BSEND_OVERHEAD);
	if (!c) {
		free(s);
		return lm_error(req->comm, fn, MPI_ERR_BUFFER,
				"attached buffer (%zu bytes) has no room for %llu bytes",
				bsize, (unsigned long long)req->bytes);
	}
	memcpy(bbase + c->off, req->buf, req->bytes);
	*s = *req;
	CDS_INIT_LIST_HEAD(&s->link);
	s->buf = bbase + c->off;
	s->mode = LM_MODE_STD;
	s->persistent = 0;
	s->freed = 0;
	s->internal = 1;
	s->bbuf = c;
	/* The copy is plain bytes; req keeps (and drops) its type. */
	s->packed = 0;
	s->dt_held = 0;
	s->dt = MPI_BYTE;
	lm_send_start(s);
	lm_status_set(&req->status, NULL, req->peer, req->tag, req->bytes,
		      MPI_SUCCESS);
	lm_req_complete(req);
	return MPI_SUCCESS;
}

int MPI_Buffer_attach(void *buffer, int size)
{
	LM_GUARD();
	lm_check_init("MPI_Buffer_attach");
	if (size < 0)
		return lm_error(NULL, "MPI_Buffer_attach", MPI_ERR_ARG,
				"size %d is negative", size);
	if (!buffer && size)
		return lm_error(NULL, "MPI_Buffer_attach", MPI_ERR_BUFFER,
				"buffer is NULL");
	if (bbase)
		return lm_error(NULL, "MPI_Buffer_attach", MPI_ERR_BUFFER,
				"a buffer is already attached");
	bbase = buffer;
	bsize = (size_t)size;
	return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
	LM_GUARD();
	lm_check_init("MPI_Buffer_detach");
	if (!buffer_addr || !size)
		return lm_error(NULL, "MPI_Buffer_detach", MPI_ERR_ARG,
				"buffer_addr or size is NULL");
	/* Blocks until every message in the buffer has been sent. */
	while (!cds_list_empty(&chunks))
		lm_progress_block();
	*(void **)buffer_addr = bbase;
	*size = (int)bsize;
	bbase = NULL;
	bsize = 0;
	return MPI_SUCCESS;
}
