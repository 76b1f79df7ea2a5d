// SPDX-License-Identifier: MIT
/*
 * Packing: moving the data of count elements of a datatype between the
 * user's buffer (laid out as the type says) and a contiguous packed
 * form (the message), by walking the type's layout (datatype.h) once per
 * element.  Also the typed copy (same layout on both sides), counting
 * basic elements of a partial message, and MPI_Pack, MPI_Unpack,
 * MPI_Pack_size.
 *
 * Contiguous types never come here through the walk: they are one
 * memcpy (and point-to-point sends them with no copy at all).
 */

#include <stdlib.h>
#include <string.h>

#include "datatype/datatype.h"

enum { LM_PACK, LM_UNPACK, LM_COPY };

/*
 * An address in the user's buffer.  The buffer may be MPI_BOTTOM (NULL)
 * with absolute displacements: add as integers, not as pointers.
 */
static inline unsigned char *addr(const void *base, int64_t off)
{
	return (unsigned char *)((uintptr_t)base + (uintptr_t)off);
}

struct walk {
	int mode;
	unsigned char *packed;	/* LM_PACK/LM_UNPACK: the packed cursor */
	uint64_t left;		/* bytes still to move */
	uint64_t skip;		/* packed bytes to pass over first */
};

/*
 * n blocks of len bytes, dstep and sstep apart.  Common small block
 * sizes get a constant-size memcpy, which the compiler inlines.  A
 * block of up to 8 bytes is then one load and one store, and the loop's
 * own three instructions cost as much again: those loops are unrolled 8
 * times (in the emulated VM a strided receive of 8-byte blocks went 1.3
 * times as fast; 64-byte blocks, unrolled, went slower).
 */
#ifdef __clang__
#define UNROLL8	_Pragma("unroll 8")
#else
#define UNROLL8	_Pragma("GCC unroll 8")
#endif
#define BLOCKS(UNROLL, L) do {						\
	UNROLL								\
	for (i = 0; i < n; i++, d += dstep, s += sstep)			\
		memcpy(d, s, (L));					\
} while (0)
#define BLOCK_LOOP(L)	BLOCKS(, L)
#define SCALAR_LOOP(L)	BLOCKS(UNROLL8, L)

static void blocks(unsigned char *d, int64_t dstep, const unsigned char *s,
		   int64_t sstep, uint64_t len, uint64_t n)
{
	uint64_t i;

	switch (len) {
	case 1: SCALAR_LOOP(1); break;
	case 2: SCALAR_LOOP(2); break;
	case 4: SCALAR_LOOP(4); break;
	case 8: SCALAR_LOOP(8); break;
	case 12: BLOCK_LOOP(12); break;
	case 16: BLOCK_LOOP(16); break;
	case 32: BLOCK_LOOP(32); break;
	default:
		/* Larger blocks go in pieces (mcr_copy says why). */
		if (len <= MCR_COPY_PIECE)
			BLOCK_LOOP(len);
		else
			for (i = 0; i < n; i++, d += dstep, s += sstep)
				mcr_copy(d, s, len);
		break;
	}
}

void lm_copy_blocks(unsigned char *d, int64_t dstep, const unsigned char *s,
		    int64_t sstep, uint64_t len, uint64_t n)
{
	blocks(d, dstep, s, sstep, len, n);
}

/*
 * Blocks b .. b + n - 1 of leaf s at u (COPY: to c), then `tail` bytes
 * of block b + n.
 */
static void leaf_move(const struct lm_seg *s, unsigned char *u,
		      unsigned char *c, uint64_t b, uint64_t n, uint64_t tail,
		      struct walk *w)
{
	int64_t first = s->off + (int64_t)b * s->stride;
	unsigned char *at = addr(u, first);
	uint64_t bytes = n * s->len;
	int64_t last = (int64_t)n * s->stride;

	switch (w->mode) {
	case LM_PACK:
		blocks(w->packed, (int64_t)s->len, at, s->stride, s->len, n);
		if (tail)
			memcpy(w->packed + bytes, addr(at, last), tail);
		break;
	case LM_UNPACK:
		blocks(at, s->stride, w->packed, (int64_t)s->len, s->len, n);
		if (tail)
			memcpy(addr(at, last), w->packed + bytes, tail);
		break;
	default:
		blocks(addr(c, first), s->stride, at, s->stride, s->len, n);
		return;
	}
	w->packed += bytes + tail;
}

/* n bytes from offset o of block b of leaf s (the rest of a block). */
static void leaf_part(const struct lm_seg *s, unsigned char *u, uint64_t b,
		      uint64_t o, uint64_t n, struct walk *w)
{
	unsigned char *at = addr(u, s->off + (int64_t)b * s->stride + (int64_t)o);

	if (w->mode == LM_PACK)
		memcpy(w->packed, at, n);
	else
		memcpy(at, w->packed, n);
	w->packed += n;
}

/* One leaf: 0 when all is done. */
static int walk_leaf(const struct lm_seg *s, unsigned char *u, unsigned char *c,
		     struct walk *w)
{
	uint64_t b = 0, o, n, whole;

	if (w->skip) {
		if (w->skip >= s->count * s->len) {
			w->skip -= s->count * s->len;
			return 1;
		}
		/* Start inside this leaf (pack and unpack only). */
		b = w->skip / s->len;
		o = w->skip % s->len;
		w->skip = 0;
		if (o) {
			n = s->len - o < w->left ? s->len - o : w->left;
			leaf_part(s, u, b++, o, n, w);
			w->left -= n;
			if (!w->left)
				return 0;
		}
	}
	whole = s->count - b;
	if (w->left < whole * s->len) {
		leaf_move(s, u, c, b, w->left / s->len, w->left % s->len, w);
		w->left = 0;
		return 0;
	}
	leaf_move(s, u, c, b, whole, 0, w);
	w->left -= whole * s->len;
	return w->left != 0;
}

/* Move the blocks of one element at u (COPY: to c); 0 when all is done. */
static int walk_layout(const struct lm_layout *l, unsigned char *u,
		       unsigned char *c, struct walk *w)
{
	const struct lm_seg *s;
	uint64_t i;
	int64_t at;
	uint32_t k;

	for (k = 0; k < l->nsegs; k++) {
		s = &l->segs[k];
		if (!s->sub) {
			if (!walk_leaf(s, u, c, w))
				return 0;
			continue;
		}
		i = 0;
		if (w->skip) {
			if (w->skip >= s->count * s->len) {
				w->skip -= s->count * s->len;
				continue;
			}
			i = w->skip / s->len;
			w->skip %= s->len;
		}
		for (at = s->off + (int64_t)i * s->stride; i < s->count;
		     i++, at += s->stride)
			if (!walk_layout(s->sub, addr(u, at), addr(c, at), w))
				return 0;
	}
	return 1;
}

static void walk(unsigned char *u, unsigned char *c, int64_t count,
		 MPI_Datatype dt, struct walk *w)
{
	int64_t k = 0;

	/* Whole elements to skip first. */
	if (w->skip) {
		k = (int64_t)(w->skip / (uint64_t)dt->size);
		w->skip %= (uint64_t)dt->size;
	}
	for (; k < count && w->left; k++)
		walk_layout(dt->layout, addr(u, k * dt->extent),
			    addr(c, k * dt->extent), w);
}

void lm_dt_pack(const void *buf, int64_t count, MPI_Datatype dt, void *out)
{
	uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
	struct walk w = { .mode = LM_PACK, .packed = out, .left = bytes };
	struct lm_tile t;

	if (!bytes)
		return;
	if (lm_dt_contig(dt, count)) {
		memcpy(out, addr(buf, dt->true_lb), bytes);
		return;
	}
	if (lm_dt_tile(dt, count, &t) && t.n * t.size == bytes) {
		/* Block columns, no walk (dtype_tile.c). */
		lm_tile_pack(&t, buf, out);
		return;
	}
	walk((unsigned char *)buf, (unsigned char *)buf, count, dt, &w);
}

void lm_dt_unpack_range(const void *in, uint64_t from, uint64_t to,
			void *buf, int64_t count, MPI_Datatype dt)
{
	uint64_t all = (uint64_t)count * (uint64_t)dt->size;
	struct walk w = {
		.mode = LM_UNPACK, .packed = (unsigned char *)in, .skip = from
	};
	struct lm_tile t;

	if (to > all)
		to = all;
	if (from >= to)
		return;
	w.left = to - from;
	if (lm_dt_contig(dt, count)) {
		memcpy(addr(buf, dt->true_lb + (int64_t)from), in, w.left);
		return;
	}
	if (lm_dt_tile(dt, count, &t) && t.n * t.size == all) {
		lm_tile_unpack(&t, buf, in, from, to);
		return;
	}
	walk(buf, buf, count, dt, &w);
}

void lm_dt_unpack(const void *in, uint64_t bytes, void *buf, int64_t count,
		  MPI_Datatype dt)
{
	lm_dt_unpack_range(in, 0, bytes, buf, count, dt);
}

void lm_dt_copy(const void *src, void *dst, int64_t count, MPI_Datatype dt)
{
	uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
	struct walk w = { .mode = LM_COPY, .left = bytes };

	if (!bytes || src == dst)
		return;
	if (lm_dt_contig(dt, count)) {
		memcpy(addr(dst, dt->true_lb), addr(src, dt->true_lb), bytes);
		return;
	}
	walk((unsigned char *)src, dst, count, dt, &w);
}

/* ---- Basic elements of a partial message -------------------------------- */

/* Elements in the first *left bytes of one element of l; -1: mid-element. */
static int64_t layout_elements(const struct lm_layout *l, uint64_t *left)
{
	const struct lm_seg *s;
	uint64_t total, k;
	int64_t n = 0, r;
	uint32_t i;

	for (i = 0; i < l->nsegs && *left; i++) {
		s = &l->segs[i];
		if (!s->sub) {
			total = s->count * s->len;
			if (*left >= total) {
				n += (int64_t)(total / s->esize * s->epe);
				*left -= total;
				continue;
			}
			if (*left % s->esize)
				return -1;
			n += (int64_t)(*left / s->esize * s->epe);
			*left = 0;
			break;
		}
		k = *left / s->len;
		if (k > s->count)
			k = s->count;
		n += (int64_t)(k * s->sub->nelem);
		*left -= k * s->len;
		if (k == s->count || !*left)
			continue;
		r = layout_elements(s->sub, left);
		if (r < 0)
			return -1;
		n += r;
		break;
	}
	return n;
}

/* Bytes of the first *want elements of one element of l; -1: mid-pair. */
static int64_t layout_bytes(const struct lm_layout *l, uint64_t *want)
{
	const struct lm_seg *s;
	uint64_t total, k;
	int64_t b = 0, r;
	uint32_t i;

	for (i = 0; i < l->nsegs && *want; i++) {
		s = &l->segs[i];
		if (!s->sub) {
			total = s->count * s->len / s->esize * s->epe;
			if (*want >= total) {
				b += (int64_t)(s->count * s->len);
				*want -= total;
				continue;
			}
			if (*want % s->epe)
				return -1;
			b += (int64_t)(*want / s->epe * s->esize);
			*want = 0;
			break;
		}
		k = s->sub->nelem ? *want / s->sub->nelem : s->count;
		if (k > s->count)
			k = s->count;
		b += (int64_t)(k * s->len);
		*want -= k * s->sub->nelem;
		if (k == s->count || !*want)
			continue;
		r = layout_bytes(s->sub, want);
		if (r < 0)
			return -1;
		b += r;
		break;
	}
	return b;
}

/* The bytes that hold the first n basic elements of dt; -1: none do. */
int64_t lm_dt_bytes_of_elements(MPI_Datatype dt, uint64_t n)
{
	uint64_t size = (uint64_t)dt->size, per, r;
	int64_t b;

	per = dt->layout ? dt->layout->nelem : lm_dt_basic_elements(dt);
	if (!size || !per)
		return n ? -1 : 0;
	if (n / per > (uint64_t)INT64_MAX / size)
		return -1;
	r = n % per;
	b = (int64_t)(n / per * size);
	if (!r)
		return b;
	if (!dt->layout)
		return -1;	/* half of a pair type */
	n = r;
	r = (uint64_t)layout_bytes(dt->layout, &n);
	return (int64_t)r < 0 || n ? -1 : b + (int64_t)r;
}

int64_t lm_dt_elements(MPI_Datatype dt, uint64_t bytes)
{
	uint64_t size = (uint64_t)dt->size, left;
	int64_t n, r;

	if (!size)
		return 0;
	if (!dt->layout)
		return bytes % size ? -1 :
			(int64_t)(bytes / size * lm_dt_basic_elements(dt));
	n = (int64_t)(bytes / size * dt->layout->nelem);
	left = bytes % size;
	if (left) {
		r = layout_elements(dt->layout, &left);
		if (r < 0)
			return -1;
		n += r;
	}
	return n;
}

/* ---- MPI_Pack, MPI_Unpack, MPI_Pack_size ----------------------------------- */

static int check_pack(const char *fn, int64_t count, MPI_Datatype dt,
		      MPI_Comm comm, const int64_t *position)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (count < 0)
		return lm_error(comm, fn, MPI_ERR_COUNT, "count %lld is negative",
				(long long)count);
	if (lm_check_datatype(dt))
		return lm_error(comm, fn, MPI_ERR_TYPE, "%s", lm_datatype_why(dt));
	if (!position)
		return lm_error(comm, fn, MPI_ERR_ARG, "position is NULL");
	if (*position < 0)
		return lm_error(comm, fn, MPI_ERR_ARG, "position %lld is negative",
				(long long)*position);
	return MPI_SUCCESS;
}

/* MPI_Pack and MPI_Pack_c: position in and out through *pos. */
static int pack(const char *fn, const void *inbuf, int64_t incount,
		MPI_Datatype datatype, void *outbuf, int64_t outsize,
		int64_t *pos, MPI_Comm comm)
{
	uint64_t bytes;
	int err = check_pack(fn, incount, datatype, comm, pos);

	if (err)
		return err;
	bytes = (uint64_t)incount * (uint64_t)datatype->size;
	if (outsize < 0 || (uint64_t)*pos + bytes > (uint64_t)outsize)
		return lm_error(comm, fn, MPI_ERR_TRUNCATE,
				"%llu bytes do not fit at position %lld of %lld",
				(unsigned long long)bytes, (long long)*pos,
				(long long)outsize);
	if (bytes && !outbuf)
		return lm_error(comm, fn, MPI_ERR_BUFFER, "outbuf is NULL");
	if (bytes && !inbuf && datatype->predefined)
		return lm_error(comm, fn, MPI_ERR_BUFFER, "inbuf is NULL");
	lm_dt_pack(inbuf, incount, datatype, (unsigned char *)outbuf + *pos);
	*pos += (int64_t)bytes;
	return MPI_SUCCESS;
}

static int unpack(const char *fn, const void *inbuf, int64_t insize,
		  int64_t *pos, void *outbuf, int64_t outcount,
		  MPI_Datatype datatype, MPI_Comm comm)
{
	uint64_t bytes;
	int err = check_pack(fn, outcount, datatype, comm, pos);

	if (err)
		return err;
	bytes = (uint64_t)outcount * (uint64_t)datatype->size;
	if (insize < 0 || (uint64_t)*pos + bytes > (uint64_t)insize)
		return lm_error(comm, fn, MPI_ERR_TRUNCATE,
				"%llu bytes to unpack at position %lld, but insize is %lld",
				(unsigned long long)bytes, (long long)*pos,
				(long long)insize);
	if (bytes && !inbuf)
		return lm_error(comm, fn, MPI_ERR_BUFFER, "inbuf is NULL");
	if (bytes && !outbuf && datatype->predefined)
		return lm_error(comm, fn, MPI_ERR_BUFFER, "outbuf is NULL");
	lm_dt_unpack((const unsigned char *)inbuf + *pos, bytes, outbuf,
		     outcount, datatype);
	*pos += (int64_t)bytes;
	return MPI_SUCCESS;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
	     void *outbuf, int outsize, int *position, MPI_Comm comm)
{
	LM_GUARD();
	int64_t pos = position ? *position : 0;
	int err = pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize,
		       position ? &pos : NULL, comm);

	if (!err)
		*position = (int)pos;	/* <= outsize */
	return err;
}

int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
	       void *outbuf, MPI_Count outsize, MPI_Count *position,
	       MPI_Comm comm)
{
	LM_GUARD();
	int64_t pos = position ? *position : 0;
	int err = pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize,
		       position ? &pos : NULL, comm);

	if (!err)
		*position = pos;
	return err;
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
	       int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
	LM_GUARD();
	int64_t pos = position ? *position : 0;
	int err = unpack("MPI_Unpack", inbuf, insize, position ? &pos : NULL,
			 outbuf, outcount, datatype, comm);

	if (!err)
		*position = (int)pos;	/* <= insize */
	return err;
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position,
		 void *outbuf, MPI_Count outcount, MPI_Datatype datatype,
		 MPI_Comm comm)
{
	LM_GUARD();
	int64_t pos = position ? *position : 0;
	int err = unpack("MPI_Unpack_c", inbuf, insize, position ? &pos : NULL,
			 outbuf, outcount, datatype, comm);

	if (!err)
		*position = pos;
	return err;
}

static int pack_size(const char *fn, int64_t incount, MPI_Datatype datatype,
		     MPI_Comm comm, int64_t max, int64_t *size)
{
	uint64_t bytes;
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (incount < 0)
		return lm_error(comm, fn, MPI_ERR_COUNT, "count %lld is negative",
				(long long)incount);
	if (!lm_datatype_valid(datatype))
		return lm_error(comm, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(datatype));
	if (!size)
		return lm_error(comm, fn, MPI_ERR_ARG, "size is NULL");
	if (datatype->size &&
	    (uint64_t)incount > (uint64_t)max / (uint64_t)datatype->size)
		return lm_error(comm, fn, MPI_ERR_COUNT,
				"%lld elements of %lld bytes do not fit in %s",
				(long long)incount, (long long)datatype->size,
				max == INT32_MAX ? "an int (MPI_Pack_size_c does)" :
				"an MPI_Count");
	bytes = (uint64_t)incount * (uint64_t)datatype->size;
	*size = (int64_t)bytes;
	return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
	LM_GUARD();
	int64_t n = 0;
	int err = pack_size("MPI_Pack_size", incount, datatype, comm, INT32_MAX,
			    size ? &n : NULL);

	if (!err)
		*size = (int)n;
	return err;
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
		    MPI_Count *size)
{
	LM_GUARD();
	int64_t n = 0;
	int err = pack_size("MPI_Pack_size_c", incount, datatype, comm,
			    INT64_MAX, size ? &n : NULL);

	if (!err)
		*size = n;
	return err;
}
