// SPDX-License-Identifier: MIT
/*
 * Datatypes in collectives.  The algorithms move contiguous bytes
 * (coll.h); the API layer turns counts of a datatype into bytes.  A
 * type that is one run of bytes starting at the buffer address is used
 * in place.  Any other is packed into a schedule temporary before the
 * schedule is built (the sending side), or received into one that the
 * schedule's completion hook unpacks into the user's buffer before the
 * collective's request completes (the receiving side).  The types a
 * pending unpack needs are held, so MPI_Type_free right after an
 * MPI_I... call is fine.
 *
 * Reductions need elements the op understands: a predefined op on a
 * derived type of one basic type works on those basic elements
 * (packed if need be); a user op gets the user's own type, with the
 * elements extent bytes apart as the user function expects them,
 * moved through temporaries by typed copies.
 */

#include <string.h>

#include "coll/coll.h"

/* Data to put into the user's buffer when the schedule ends well. */
struct lm_coll_unpack {
	struct lm_coll_unpack *next;
	int copy;		/* tmp is laid out as the type: typed copy */
	/*
	 * Else, when set: tmp holds the elements as an array of this
	 * padded pair type (C structs), packed into `packed` first.
	 */
	MPI_Datatype via;
	unsigned char *packed;
	const unsigned char *tmp;
	void *buf;
	int n;			/* blocks */
	const int64_t *counts;	/* elements per block */
	const int64_t *uoff;	/* byte offsets in buf */
	const uint64_t *poff;	/* byte offsets in tmp */
	const MPI_Datatype *types;	/* per block, or NULL: dt */
	MPI_Datatype dt;
	int64_t count1, uoff1;	/* a single block's arrays */
	uint64_t poff1;
};

static void *at(const void *buf, int64_t off)
{
	return (void *)((uintptr_t)buf + (uintptr_t)off);
}

static struct lm_coll_unpack *unpack_new(struct lm_sched *s)
{
	struct lm_coll_unpack *u = lm_sched_tmp(s, sizeof(*u));

	if (!u)
		return NULL;
	memset(u, 0, sizeof(*u));
	u->next = s->unpack;
	s->unpack = u;
	return u;
}

/* One block of count elements of dt: tmp (at 0) -> buf. */
static int unpack_one(struct lm_sched *s, const void *tmp, void *buf,
		      int64_t count, MPI_Datatype dt, int copy)
{
	struct lm_coll_unpack *u = unpack_new(s);

	if (!u)
		return MPI_ERR_NO_MEM;
	u->copy = copy;
	u->tmp = tmp;
	u->buf = buf;
	u->n = 1;
	u->count1 = count;
	u->counts = &u->count1;
	u->uoff = &u->uoff1;
	u->poff = &u->poff1;
	u->dt = dt;
	lm_dt_hold(dt);
	return MPI_SUCCESS;
}

void lm_coll_unpack_run(struct lm_sched *s)
{
	const struct lm_coll_unpack *u;
	MPI_Datatype t;
	int i;

	for (u = s->unpack; u; u = u->next) {
		for (i = 0; i < u->n; i++) {
			t = u->types ? u->types[i] : u->dt;
			if (u->copy) {
				lm_dt_copy(u->tmp + u->poff[i], at(u->buf, u->uoff[i]),
					   u->counts[i], t);
			} else if (u->via) {
				lm_dt_pack(u->tmp, u->counts[i] * (int64_t)t->nbasic,
					   u->via, u->packed);
				lm_dt_unpack(u->packed,
					     (uint64_t)u->counts[i] * (uint64_t)t->size,
					     u->buf, u->counts[i], t);
			} else
				lm_dt_unpack(u->tmp + u->poff[i],
					     (uint64_t)u->counts[i] * (uint64_t)t->size,
					     at(u->buf, u->uoff[i]), u->counts[i], t);
		}
	}
}

void lm_coll_unpack_drop(struct lm_sched *s)
{
	struct lm_coll_unpack *u;
	int i;

	for (u = s->unpack; u; u = u->next) {
		if (!u->types) {
			lm_dt_release(u->dt);
			continue;
		}
		for (i = 0; i < u->n; i++)
			lm_dt_release(u->types[i]);
	}
	s->unpack = NULL;
}

/* ---- Data movement ------------------------------------------------------- */

int lm_coll_send_buf(struct lm_sched *s, const void **buf, int64_t count,
		     MPI_Datatype dt)
{
	uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
	void *t;

	if (!bytes || lm_coll_in_place_ok(dt))
		return MPI_SUCCESS;
	t = lm_sched_tmp(s, bytes);
	if (!t)
		return MPI_ERR_NO_MEM;
	lm_dt_pack(*buf, count, dt, t);
	*buf = t;
	return MPI_SUCCESS;
}

int lm_coll_recv_buf(struct lm_sched *s, void **buf, int64_t count,
		     MPI_Datatype dt)
{
	uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
	void *t;

	if (!bytes || lm_coll_in_place_ok(dt))
		return MPI_SUCCESS;
	t = lm_sched_tmp(s, bytes);
	if (!t || unpack_one(s, t, *buf, count, dt, 0))
		return MPI_ERR_NO_MEM;
	*buf = t;
	return MPI_SUCCESS;
}

void lm_coll_preload(void *t, uint64_t poff, const void *buf, int64_t uoff,
		     int64_t count, MPI_Datatype dt)
{
	lm_dt_pack(at(buf, uoff), count, dt, (unsigned char *)t + poff);
}

int64_t *lm_coll_widen(struct lm_sched *s, const int *counts, int n)
{
	int64_t *w = lm_sched_tmp(s, ((uint64_t)n + 1) * sizeof(*w));
	int i;

	if (w)
		for (i = 0; i < n; i++)
			w[i] = counts[i];
	return w;
}

static int all_in_place(int n, const int64_t counts[],
			const MPI_Datatype types[],
			MPI_Datatype dt)
{
	int i;

	for (i = 0; i < n; i++)
		if (counts[i] && !lm_coll_in_place_ok(types ? types[i] : dt))
			return 0;
	return 1;
}

/* The arrays a packed receive needs at the end, copied and held. */
static int blocks_unpack(struct lm_sched *s, void *t, void *buf, int n,
			 const int64_t counts[], const int64_t uoff[],
			 const MPI_Datatype types[], MPI_Datatype dt,
			 const uint64_t *poff)
{
	struct lm_coll_unpack *u = unpack_new(s);
	int64_t *c, *o;
	MPI_Datatype *ty = NULL;
	int i;

	c = lm_sched_tmp(s, 2 * (uint64_t)n * sizeof(*c));
	if (types)
		ty = lm_sched_tmp(s, (uint64_t)n * sizeof(*ty));
	if (!u || !c || (types && !ty))
		return MPI_ERR_NO_MEM;
	o = c + n;
	for (i = 0; i < n; i++) {
		c[i] = counts[i];
		o[i] = uoff[i];
		if (ty) {
			ty[i] = types[i];
			lm_dt_hold(ty[i]);
		}
	}
	if (!ty)
		lm_dt_hold(dt);
	u->tmp = t;
	u->buf = buf;
	u->n = n;
	u->counts = c;
	u->uoff = o;
	u->poff = poff;
	u->types = ty;
	u->dt = dt;
	return MPI_SUCCESS;
}

int lm_coll_blocks(struct lm_sched *s, int recv, void **buf, int n,
		   const int64_t counts[], const int64_t uoff[],
		   const MPI_Datatype types[], MPI_Datatype dt, uint64_t *arr)
{
	uint64_t total = 0;
	unsigned char *t;
	MPI_Datatype ty;
	int i;

	if (all_in_place(n, counts, types, dt)) {
		for (i = 0; i < n; i++)
			arr[n + i] = (uint64_t)uoff[i];
		return MPI_SUCCESS;
	}
	/* Packed: the blocks one after the other. */
	for (i = 0; i < n; i++) {
		arr[n + i] = total;
		total += arr[i];
	}
	t = lm_sched_tmp(s, total);
	if (!t)
		return MPI_ERR_NO_MEM;
	if (recv) {
		if (blocks_unpack(s, t, *buf, n, counts, uoff, types, dt, arr + n))
			return MPI_ERR_NO_MEM;
	} else {
		for (i = 0; i < n; i++) {
			ty = types ? types[i] : dt;
			lm_dt_pack(at(*buf, uoff[i]), counts[i], ty, t + arr[n + i]);
		}
	}
	*buf = t;
	return MPI_SUCCESS;
}

/* ---- Reductions ------------------------------------------------------------- */

/*
 * The input (a->count elements at a->sbuf) into a temporary, as bytes
 * the algorithm can reduce, and the result (rcount elements) out of
 * one at the end.  copy: laid out as the type (user ops), else packed.
 */
static int reduce_temps(struct lm_sched *s, struct lm_coll_args *a,
			MPI_Datatype udt, int64_t total, int64_t rcount,
			uint64_t esize, int copy)
{
	unsigned char *in, *out;

	in = lm_sched_tmp(s, (uint64_t)total * esize);
	if (!in)
		return MPI_ERR_NO_MEM;
	if (copy)
		lm_dt_copy(a->sbuf, in, total, udt);
	else
		lm_dt_pack(a->sbuf, total, udt, in);
	out = in;
	if (!a->in_place && rcount) {
		out = lm_sched_tmp(s, (uint64_t)rcount * esize);
		if (!out)
			return MPI_ERR_NO_MEM;
	}
	if (rcount && unpack_one(s, out, a->rbuf, rcount, udt, copy))
		return MPI_ERR_NO_MEM;
	a->sbuf = in;
	if (a->in_place || rcount)
		a->rbuf = out;
	return MPI_SUCCESS;
}

/*
 * A derived type of a padded pair (MPI_DOUBLE_INT...) under a
 * predefined op: the loops want C structs, extent apart, which packing
 * does not give (it leaves the padding out).  The input is packed,
 * then unpacked as an array of the pair; the result goes the other way
 * at the end (through the same packed temporary).
 */
static int pair_temps(struct lm_sched *s, struct lm_coll_args *a,
		      MPI_Datatype udt, int64_t total, int64_t rcount)
{
	MPI_Datatype p = udt->basic;
	uint64_t n = udt->nbasic, ext = (uint64_t)p->extent;
	int64_t most = total > rcount ? total : rcount;
	unsigned char *packed, *in, *out;
	struct lm_coll_unpack *u;

	packed = lm_sched_tmp(s, (uint64_t)most * (uint64_t)udt->size);
	in = lm_sched_tmp(s, (uint64_t)total * n * ext);
	if (!packed || !in)
		return MPI_ERR_NO_MEM;
	lm_dt_pack(a->sbuf, total, udt, packed);
	lm_dt_unpack(packed, (uint64_t)total * (uint64_t)udt->size, in,
		     (int64_t)((uint64_t)total * n), p);
	out = in;
	if (!a->in_place && rcount) {
		out = lm_sched_tmp(s, (uint64_t)rcount * n * ext);
		if (!out)
			return MPI_ERR_NO_MEM;
	}
	if (rcount) {
		u = unpack_new(s);
		if (!u)
			return MPI_ERR_NO_MEM;
		u->tmp = out;
		u->buf = a->rbuf;
		u->n = 1;
		u->count1 = rcount;
		u->counts = &u->count1;
		u->uoff = &u->uoff1;
		u->poff = &u->poff1;
		u->dt = udt;
		u->via = p;
		u->packed = packed;
		lm_dt_hold(udt);
	}
	a->sbuf = in;
	if (a->in_place || rcount)
		a->rbuf = out;
	return MPI_SUCCESS;
}

int lm_coll_reduce_view(struct lm_sched *s, struct lm_coll_args *a,
			int64_t rcount, uint64_t *mult, const char **why)
{
	MPI_Datatype udt = a->dt;
	int64_t total = a->count;
	uint64_t n;

	*mult = 1;
	if (udt->index != LM_DT_DERIVED && !udt->dense) {
		/*
		 * A padded pair (MPI_DOUBLE_INT: 12 bytes of data, 16 of
		 * extent): the ops work on the C structs, so the elements
		 * are extent apart, moved in and out of the user's buffers
		 * by typed copies that leave the padding alone.
		 */
		a->esize = (uint64_t)udt->extent;
		a->bytes = (uint64_t)total * a->esize;
		if (!total)
			return MPI_SUCCESS;
		*why = "out of memory";
		return reduce_temps(s, a, udt, total, rcount, a->esize, 1);
	}
	if (udt->index != LM_DT_DERIVED)
		return MPI_SUCCESS;
	/* MPI_REPLACE and MPI_NO_OP take any type: as a user op would. */
	if (a->op->predefined && udt->basic) {
		/* lm_op_check() made sure there is one basic type. */
		n = udt->nbasic;
		if ((uint64_t)total * n > 0x7fffffff) {
			*why = "more basic elements than an int counts";
			return MPI_ERR_COUNT;
		}
		*mult = n;
		a->dt = udt->basic;
		a->count = (int)((uint64_t)total * n);
		if (!udt->basic->dense) {
			a->esize = (uint64_t)udt->basic->extent;
			a->bytes = (uint64_t)a->count * a->esize;
			if (!total)
				return MPI_SUCCESS;
			*why = "out of memory";
			return pair_temps(s, a, udt, total, rcount);
		}
		a->esize = (uint64_t)udt->basic->size;
		if (lm_coll_in_place_ok(udt) || !total)
			return MPI_SUCCESS;
		*why = "out of memory";
		return reduce_temps(s, a, udt, total, rcount, (uint64_t)udt->size, 0);
	}
	if (lm_coll_in_place_ok(udt) || !total)
		return MPI_SUCCESS;
	/* A user op: whole elements of the user's type, extent apart. */
	if (udt->lb != 0 || udt->true_lb < 0 || udt->extent <= 0 ||
	    udt->true_lb + udt->true_extent > udt->extent) {
		*why = "a user operation needs a datatype whose data lies within [0, extent)";
		return MPI_ERR_TYPE;
	}
	a->esize = (uint64_t)udt->extent;
	a->bytes = (uint64_t)total * a->esize;
	*why = "out of memory";
	return reduce_temps(s, a, udt, total, rcount, a->esize, 1);
}
