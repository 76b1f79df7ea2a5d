/* SPDX-License-Identifier: MIT */
/*
 * dtype_layout.h: what a datatype constructor places copies of its old
 * types with (dtype_layout.c).  A builder starts zeroed; every
 * lm_dtb_place adds count copies of a type; lm_dtb_build (or
 * lm_dtb_done, which reports the error) turns it into an uncommitted
 * type, or lm_dtb_drop discards it.  Errors (too large, out of memory)
 * are kept in the builder until then.
 */
#ifndef LIBMSG_DTYPE_LAYOUT_H
#define LIBMSG_DTYPE_LAYOUT_H

#include "datatype/datatype.h"

struct lm_dt_builder {
	struct lm_seg *segs;
	uint32_t n, cap;
	int err;		/* MPI_ERR_NO_MEM, or MPI_ERR_ARG: too large */
	int any;		/* something placed: the bounds are set */
	int explicit_bounds;	/* a member had them */
	int64_t lb, ub, tlb, tub;
	uint32_t align;
	MPI_Datatype basic;	/* the one basic type of all members */
	int mixed;
	uint64_t size, nelem;
	struct lm_sig sig;	/* of what was placed, in order */
};

/* Place count copies of c at off, off + stride, ... (bytes). */
void lm_dtb_place(struct lm_dt_builder *b, int64_t off, uint64_t count,
		  int64_t stride, MPI_Datatype c);
void lm_dtb_drop(struct lm_dt_builder *b);
/* The builder's type (uncommitted), or NULL with *err set. */
struct libmsg_datatype *lm_dtb_build(struct lm_dt_builder *b, int *err);
/* The same into *newtype, or the error reported for fn. */
int lm_dtb_done(const char *fn, struct lm_dt_builder *b,
		MPI_Datatype *newtype);
/* count copies of old, back to back. */
struct libmsg_datatype *lm_dt_run_of(MPI_Datatype old, uint64_t count,
				     int *err);
/* A new type with old's data and the given bounds (layout shared). */
struct libmsg_datatype *lm_dt_with_bounds(MPI_Datatype old, int64_t lb,
					  int64_t extent);
/* Bounds changed: set the contiguity flags again. */
void lm_dt_set_flags(struct libmsg_datatype *dt);

#endif /* LIBMSG_DTYPE_LAYOUT_H */
