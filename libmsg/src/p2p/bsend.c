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

static int attach(const char *fn, void *buffer, int64_t size)
{
	lm_check_init(fn);
	if (size < 0)
		return lm_error(NULL, fn, MPI_ERR_ARG, "size %lld is negative",
				(long long)size);
	if (!buffer && size)
		return lm_error(NULL, fn, MPI_ERR_BUFFER, "buffer is NULL");
	if (bbase)
		return lm_error(NULL, fn, MPI_ERR_BUFFER,
				"a buffer is already attached");
	bbase = buffer;
	bsize = (size_t)size;
	return MPI_SUCCESS;
}

int MPI_Buffer_attach(void *buffer, int size)
{
	LM_GUARD();
	return attach("MPI_Buffer_attach", buffer, size);
}

int MPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
	LM_GUARD();
	return attach("MPI_Buffer_attach_c", buffer, size);
}

/* Blocks until every message in the buffer has been sent. */
static int detach(const char *fn, void *buffer_addr, int64_t *size,
		  int64_t max)
{
	lm_check_init(fn);
	if (!buffer_addr || !size)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"buffer_addr or size is NULL");
	if (bsize > (uint64_t)max)
		return lm_error(NULL, fn, MPI_ERR_COUNT,
				"the buffer's %zu bytes do not fit in an int: MPI_Buffer_detach_c detaches it",
				bsize);
	while (!cds_list_empty(&chunks))
		lm_progress_block();
	*(void **)buffer_addr = bbase;
	*size = (int64_t)bsize;
	bbase = NULL;
	bsize = 0;
	return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
	LM_GUARD();
	int64_t n = 0;
	int err = detach("MPI_Buffer_detach", buffer_addr, size ? &n : NULL,
			 INT32_MAX);

	if (!err)
		*size = (int)n;
	return err;
}

int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
	LM_GUARD();
	int64_t n = 0;
	int err = detach("MPI_Buffer_detach_c", buffer_addr, size ? &n : NULL,
			 INT64_MAX);

	if (!err)
		*size = n;
	return err;
}
