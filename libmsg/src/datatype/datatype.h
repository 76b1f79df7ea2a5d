/* SPDX-License-Identifier: MIT */
/*
 * datatype.h: what the datatype layer offers the layers above: the
 * datatype object and its layout (its blocks as segments), the
 * constructors' shared steps, packing and block copies, a type as a
 * tile of repeated blocks (what a send offered in place needs), and
 * reduction operations.
 */
#ifndef LIBMSG_DATATYPE_H
#define LIBMSG_DATATYPE_H

#include "base/base.h"

struct lm_attr;

/*
 * A datatype's layout: its blocks in typemap order (the order pack and
 * unpack follow), as segments.  A leaf segment is `count` blocks of
 * `len` bytes, `stride` apart, from byte `off` of the buffer; a node
 * segment repeats a whole sub-layout instead, so nesting and large
 * counts cost one segment, not one per block.  Layouts are shared
 * (refs) by the types built on them and outlive MPI_Type_free.
 */
struct lm_layout;
struct lm_tile_cache;

/*
 * A type signature, the sequence of its basic types, as a hash that
 * composes (dtype_sig.c): h over the sequence, p = B^length.  Zeroed
 * or { 0, 1 }: the empty sequence.
 */
struct lm_sig {
	uint64_t h, p;
};

struct lm_seg {
	int64_t off;		/* the first block, from the buffer address */
	int64_t stride;		/* bytes between repetitions */
	uint64_t count;		/* repetitions, >= 1 */
	uint64_t len;		/* leaf: bytes per block; node: sub->size */
	struct lm_layout *sub;	/* NULL: a leaf */
	uint32_t esize;		/* leaf: bytes of its basic elements */
	uint16_t epe;		/* leaf: basic elements in esize bytes */
	uint16_t x32;		/* leaf: their external32 form (LM_X32_*) */
};

/* The references of a layout that is never freed (the padded pairs'). */
#define LM_LAYOUT_STATIC	(1U << 30)

struct lm_layout {
	uint32_t refs;
	uint32_t nsegs;
	uint64_t size;		/* bytes of data */
	uint64_t nelem;		/* basic elements */
	/*
	 * A committed type's tile (dtype_tile.c), for the extent it was
	 * worked out with.  Here, not in the type: the predefined types'
	 * size is part of the library's ABI.
	 */
	struct lm_tile_cache *tiles;
	struct lm_sig sig;	/* derived types: their signature */
	struct lm_seg segs[];
};

struct lm_attr;
struct lm_pcoll;

struct libmsg_datatype {
	uint32_t magic;
	int index;		/* LM_DT_*: a basic type's reduction loops */
	int64_t size;		/* bytes of data in one element */
	const char *name;	/* the MPI name, or name_buf */
	int64_t lb, extent;	/* where element i + 1 starts: i * extent */
	int64_t true_lb, true_extent;	/* the bytes actually touched */
	uint32_t align;		/* struct extents round up to this */
	uint8_t predefined;
	uint8_t committed;
	uint8_t contig1;	/* one element is one run of size bytes at true_lb */
	uint8_t dense;		/* ... and extent == size: any count is one run */
	uint8_t freed;		/* the handle is gone (MPI_Type_free) */
	uint8_t explicit_bounds;	/* lb/extent set by resized or subarray */
	uint32_t refs;		/* derived: the handle + operations using it */
	struct lm_layout *layout;	/* derived and padded pairs: its blocks;
					 * NULL for other basic types */
	/* The one basic type all elements are (reductions), or NULL. */
	struct libmsg_datatype *basic;
	uint64_t nbasic;	/* ... and how many of them one element holds */
	struct lm_attr *attrs;	/* cached attributes, newest first */
	char name_buf[MPI_MAX_OBJECT_NAME];
};

/* The basic datatypes, in datatype.c's order. */
enum {
	LM_DT_CHAR, LM_DT_SIGNED_CHAR, LM_DT_UNSIGNED_CHAR, LM_DT_BYTE,
	LM_DT_WCHAR, LM_DT_SHORT, LM_DT_UNSIGNED_SHORT, LM_DT_INT,
	LM_DT_UNSIGNED, LM_DT_LONG, LM_DT_UNSIGNED_LONG, LM_DT_LONG_LONG,
	LM_DT_UNSIGNED_LONG_LONG, LM_DT_FLOAT, LM_DT_DOUBLE,
	LM_DT_LONG_DOUBLE, LM_DT_C_BOOL, LM_DT_INT8_T, LM_DT_INT16_T,
	LM_DT_INT32_T, LM_DT_INT64_T, LM_DT_UINT8_T, LM_DT_UINT16_T,
	LM_DT_UINT32_T, LM_DT_UINT64_T, LM_DT_AINT, LM_DT_OFFSET,
	LM_DT_COUNT, LM_DT_C_FLOAT_COMPLEX, LM_DT_C_DOUBLE_COMPLEX,
	LM_DT_C_LONG_DOUBLE_COMPLEX, LM_DT_PACKED, LM_DT_FLOAT_INT,
	LM_DT_DOUBLE_INT, LM_DT_LONG_INT, LM_DT_2INT, LM_DT_SHORT_INT,
	LM_DT_LONG_DOUBLE_INT, LM_DT_2REAL, LM_DT_2DOUBLE_PRECISION,
	LM_DT_2INTEGER,		/* the last of the pairs */
	LM_DT_CXX_BOOL, LM_DT_CXX_FLOAT_COMPLEX,
	LM_DT_CXX_DOUBLE_COMPLEX, LM_DT_CXX_LONG_DOUBLE_COMPLEX,
	/* Fortran's, as gfortran lays them out on x86-64. */
	LM_DT_CHARACTER, LM_DT_LOGICAL, LM_DT_INTEGER, LM_DT_REAL,
	LM_DT_DOUBLE_PRECISION, LM_DT_COMPLEX, LM_DT_DOUBLE_COMPLEX,
	LM_DT_INTEGER1, LM_DT_INTEGER2, LM_DT_INTEGER4, LM_DT_INTEGER8,
	LM_DT_INTEGER16, LM_DT_REAL2, LM_DT_REAL4, LM_DT_REAL8, LM_DT_REAL16,
	LM_DT_COMPLEX8, LM_DT_COMPLEX16, LM_DT_COMPLEX32,
	LM_DT_NTYPES,
	LM_DT_DERIVED = LM_DT_NTYPES	/* no loops: see basic, nbasic */
};

/* The (value, index) pairs of MINLOC and MAXLOC, as MPI lays them out. */
struct lm_float_int { float v; int i; };
struct lm_double_int { double v; int i; };
struct lm_long_int { long v; int i; };
struct lm_2int { int v, i; };
struct lm_short_int { short v; int i; };
struct lm_long_double_int { long double v; int i; };
/* Fortran's pairs: the index has the value's type. */
struct lm_2real { float v, i; };
struct lm_2double_precision { double v, i; };
struct lm_2integer { int32_t v, i; };
/* Fortran's REAL*2, REAL*16, INTEGER*16 and COMPLEX*32 in C (GCC). */
typedef _Float16 lm_real2;
typedef __float128 lm_real16;
typedef __int128 lm_integer16;
typedef _Complex float __attribute__((mode(TC))) lm_complex32;

/* ---- datatype.c, dtype_build.c, pack.c: datatypes ------------------------ */

/* MPI_SUCCESS if dt can be used to move data (valid, committed), else MPI_ERR_TYPE. */
int lm_check_datatype(MPI_Datatype dt);
/* Why lm_check_datatype() said no, for the message ("datatype is ..."). */
const char *lm_datatype_why(MPI_Datatype dt);
/* A valid handle (committed or not), for queries and constructors. */
int lm_datatype_valid(MPI_Datatype dt);
/* A derived datatype, and what deferring its free takes (dt first). */
struct lm_dt_box {
	struct libmsg_datatype dt;
	struct rcu_head rcu;
	struct lm_contents *contents;	/* how the program built it */
};

/*
 * Attributes cached on a type (MPI_Type_dup, MPI_Type_free): one
 * mechanism for every kind of object, in comm/attr.c.
 */
int lm_type_attr_copy(MPI_Datatype old, MPI_Datatype dt, const char *fn);
int lm_type_attr_delete_all(MPI_Datatype dt, const char *fn);
void lm_type_attr_drop(MPI_Datatype dt);

/* ---- dtype_contents.c: what a derived type was built from ----------------- */

/* A run of the integers a constructor was given. */
struct lm_ints {
	const int *p;
	int n;
};

/*
 * A constructor's last step: err, or record its arguments in the new
 * type for MPI_Type_get_envelope/get_contents (the types held).
 */
int lm_dt_made(const char *fn, int err, MPI_Datatype *newtype, int combiner,
	       const struct lm_ints *ints, int npieces, const MPI_Aint *aints,
	       int na, const MPI_Datatype *types, int nd);
/*
 * The same for the large-count constructors (MPI_Type_*_c): their
 * integers, large counts and types; replaces a record already there.
 */
int lm_dt_made_c(const char *fn, int err, MPI_Datatype *newtype,
		 int combiner, const int *ints, int ni, const MPI_Count *counts,
		 int64_t nc, const MPI_Datatype *types, int nd);
/*
 * A large-count call's count elements of dt as *n elements of *t: dt
 * itself while count fits in an int, else one element of a new
 * committed contiguous type, which lm_big_drop(dt, *t) frees (an
 * operation still using it holds it).  MPI_ERR_COUNT if count < 0.
 */
int lm_big(const char *fn, struct libmsg_comm *comm, MPI_Count count,
	   MPI_Datatype dt, int *n, MPI_Datatype *t);
void lm_big_drop(MPI_Datatype dt, MPI_Datatype t);
/* The last hold on dt went: let go of what it was built from. */
void lm_dt_contents_drop(MPI_Datatype dt);
/* Keep a derived type alive while an operation uses it; no-ops on basic. */
void lm_dt_hold(MPI_Datatype dt);
void lm_dt_release(MPI_Datatype dt);
void lm_layout_put(struct lm_layout *l);
/* Basic elements in one element of a predefined type (pairs: 2). */
uint32_t lm_dt_basic_elements(MPI_Datatype dt);
/* A new handle for a copy of dt (MPI_Type_dup). */
int lm_dt_dup(const char *fn, MPI_Datatype dt, MPI_Datatype *out);
/* The hindexed and resized constructors' types, without a record. */
int lm_dt_hindexed(const char *fn, int count, const int *blocklengths,
		   const MPI_Aint *displs, MPI_Datatype old, MPI_Datatype *out);
int lm_dt_resized(const char *fn, MPI_Datatype old, MPI_Aint lb,
		  MPI_Aint extent, MPI_Datatype *out);
/*
 * Are count elements of dt one run of bytes?  Then they start at
 * buf + lm_dt_offset(dt) (the true lower bound).
 */
static inline int lm_dt_contig(MPI_Datatype dt, int64_t count)
{
	return dt->dense || (count <= 1 && dt->contig1);
}
static inline int64_t lm_dt_offset(MPI_Datatype dt)
{
	return dt->true_lb;
}
/* n blocks of len bytes from s (sstep apart) to d (dstep apart). */
void lm_copy_blocks(unsigned char *d, int64_t dstep, const unsigned char *s,
		    int64_t sstep, uint64_t len, uint64_t n);

/* ---- dtype_tile.c: a message as repeated blocks ------------------------ */

/* Blocks per repeating unit, at most: as many as an RTS carries. */
#define LM_TILE_BLOCKS	LM_RTS_BLOCKS

/*
 * n elements, stride apart, the first at buf + off; each is k blocks,
 * block j blen[j] bytes at boff[j] from the element's start (boff[0] is
 * 0), ascending, apart; size is the sum of blen.
 */
struct lm_tile {
	int64_t off;
	int64_t stride;
	uint64_t n;
	uint64_t size;
	uint32_t k;
	uint64_t boff[LM_TILE_BLOCKS];
	uint64_t blen[LM_TILE_BLOCKS];
};

int lm_dt_tile(MPI_Datatype dt, int64_t count, struct lm_tile *t);
/* MPI_Type_commit: work the answers of lm_dt_tile out once. */
void lm_dt_tile_cache(MPI_Datatype dt);
void lm_tile_pack(const struct lm_tile *t, const void *buf, void *out);
uint64_t lm_tile_span(const struct lm_tile *t);
/* Whole elements copied a run at a time, block column by block column. */
#define LM_TILE_RUN	256
void lm_tile_columns(unsigned char *dst, int64_t dstep, const uint64_t *doff,
		     const unsigned char *src, int64_t sstep,
		     const uint64_t *soff, const struct lm_tile *t, uint64_t m);
void lm_tile_prefix(const struct lm_tile *t, uint64_t *pre);
/* Packed message bytes [from, to) at in into buf, laid out by t. */
void lm_tile_unpack(const struct lm_tile *t, void *buf, const void *in,
		    uint64_t from, uint64_t to);

/* ---- dtype_sig.c: type signatures --------------------------------------- */

/* One element's signature; count elements'. */
void lm_sig_of(MPI_Datatype dt, struct lm_sig *s);
void lm_sig_count(MPI_Datatype dt, int64_t count, struct lm_sig *s);
/* a = a followed by b; s = n copies of s. */
void lm_sig_cat(struct lm_sig *a, const struct lm_sig *b);
void lm_sig_pow(struct lm_sig *s, uint64_t n);
/* Made of MPI_BYTE or MPI_PACKED only: matches any data by its bytes. */
int lm_sig_untyped(MPI_Datatype dt);
/* The MPI name of the basic type with this LM_DT_* index. */
const char *lm_dt_index_name(int index);

/* ---- pack_external.c: the "external32" representation -------------------- */

/*
 * How an element of a leaf converts to external32 (MPI-3.1 13.5.2):
 * one part or two (a complex, a pair), each a byte swap or a change
 * of size.  Leaves merge only when their elements convert alike.
 */
enum {
	LM_X32_COPY1, LM_X32_SWAP2, LM_X32_SWAP4, LM_X32_SWAP8,
	LM_X32_SWAP16, LM_X32_LONG, LM_X32_ULONG, LM_X32_WCHAR,
	LM_X32_LDOUBLE, LM_X32_2SWAP4, LM_X32_2SWAP8, LM_X32_2SWAP16,
	LM_X32_2LDOUBLE, LM_X32_DOUBLE_INT, LM_X32_LONG_INT,
	LM_X32_LDOUBLE_INT,
};
/* A basic type's (by its index): a leaf of it gets this. */
uint16_t lm_x32_of(int index);

/* ---- pack.c: packing, unpacking, element counts ------------------------- */

/* Pack count elements of dt at buf into out (count * size bytes). */
void lm_dt_pack(const void *buf, int64_t count, MPI_Datatype dt, void *out);
/*
 * Unpack the first `bytes` bytes of count packed elements of dt from in
 * into buf (a partial receive stops there; gaps are never written).
 */
void lm_dt_unpack(const void *in, uint64_t bytes, void *buf, int64_t count,
		  MPI_Datatype dt);
/*
 * Unpack packed bytes [from, to) of count elements of dt (in points at
 * byte `from`) into buf: a message that arrives in pieces.
 */
void lm_dt_unpack_range(const void *in, uint64_t from, uint64_t to,
			void *buf, int64_t count, MPI_Datatype dt);
/* Copy count elements of dt from src to dst, both laid out as dt. */
void lm_dt_copy(const void *src, void *dst, int64_t count, MPI_Datatype dt);
/* Basic elements in the first `bytes` bytes of a message of dt, or -1. */
int64_t lm_dt_elements(MPI_Datatype dt, uint64_t bytes);
/* The bytes of the first n basic elements of dt; -1: no whole number. */
int64_t lm_dt_bytes_of_elements(MPI_Datatype dt, uint64_t n);

#include "datatype/op.h"

#endif /* LIBMSG_DATATYPE_H */
