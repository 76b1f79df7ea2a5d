/* SPDX-License-Identifier: MIT */
/*
 * traffic.h: one iteration of mixed MPI traffic with every byte
 * checked, shared by killtrial.c and soak.c.  An iteration is
 *
 *   1. point-to-point with named sources and tags, nonblocking, eager
 *      and rendezvous sizes, some synchronous sends;
 *   2. the same with every receive MPI_ANY_SOURCE/MPI_ANY_TAG (order
 *      from each sender checked: messages do not overtake);
 *   3. blocking collectives: bcast, allreduce, alltoall, barrier, a
 *      large allgather;
 *   4. nonblocking allgather, allreduce and bcast in progress while the
 *      ranks exchange point-to-point messages round a ring.
 *
 * Sizes and contents are functions of (seed, iteration, sender,
 * receiver, index), so a receiver knows what every byte must be.  Tags
 * differ between phases, and a rank finishes its wildcard receives
 * before the collectives of phase 3, which no rank leaves before every
 * rank entered: no wildcard receive can take a message of another
 * phase or iteration.  The program says what happens at each point
 * (tr.at: where killtrial dies) and on an error (tr.error).
 */
#ifndef LIBMSG_TRAFFIC_H
#define LIBMSG_TRAFFIC_H

#include "test.h"

enum tr_point {
	P_START, P_P2P_POSTED, P_P2P_SENT, P_P2P_DONE, P_WILD_SENT,
	P_WILD_HALF, P_WILD_DONE, P_BCAST, P_ALLREDUCE, P_ALLTOALL,
	P_BARRIER, P_ALLGATHER, P_ICOLL_STARTED, P_ICOLL_P2P, P_ICOLL_DONE,
	P_END, P_NPOINTS
};

static const char *const tr_point_names[P_NPOINTS] = {
	"start", "p2p receives posted", "p2p sends started", "p2p done",
	"wildcard sends started", "half the wildcard receives",
	"wildcards done", "bcast", "allreduce", "alltoall", "barrier",
	"allgather", "nonblocking collectives started",
	"p2p ring under nonblocking collectives", "nonblocking collectives done",
	"end"
};

/* Which phase a message belongs to: part of every key. */
enum { K_P2P = 1, K_WILD, K_BCAST, K_AR, K_A2A, K_AG, K_IAG, K_IAR,
	K_IBCAST, K_RING, K_SIZE };

#define TR_NWILD	2	/* wildcard receives outstanding at once */
#define TR_WILD_TAG	100
#define TR_AR_MAX	(128 * 1024)	/* allreduce elements at most */

static struct {
	uint64_t seed;		/* the same on every rank */
	size_t max;		/* largest message or collective buffer */
	size_t small;		/* cap of most point-to-point messages */
	int nmsg;		/* messages per peer in each p2p phase */
	unsigned int iter;
	int point;		/* the last point passed */
	void (*at)(int point);
	void (*error)(int err, const char *what);	/* must not return */
	size_t arena;
	unsigned char *sarena, *rarena, *wild[TR_NWILD], *bc, *ag_s, *ag_r;
	unsigned char *a2a_s, *a2a_r;
	int64_t *ar_in, *ar_out;
	size_t *soff, *roff;
	MPI_Request *req;
	MPI_Status *st;
	uint64_t msgs, bytes;	/* received and checked */
} tr;

static inline uint64_t tr_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint64_t tr_key(uint64_t kind, uint64_t a, uint64_t b,
			      uint64_t c)
{
	return tr_mix(tr_mix(tr_mix(tr_mix(tr.seed ^ kind) ^ tr.iter) ^ a) ^ b) ^ c;
}

static inline uint64_t tr_next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dULL;
}

static inline void tr_fill(void *buf, size_t n, uint64_t key)
{
	unsigned char *p = buf;
	uint64_t x = key | 1, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		w = tr_next(&x);
		memcpy(p + i, &w, 8);
	}
	if (i < n) {
		w = tr_next(&x);
		memcpy(p + i, &w, n - i);
	}
}

/* 0 when buf holds the bytes tr_fill(key) made, else first bad offset + 1. */
static inline size_t tr_bad(const void *buf, size_t n, uint64_t key)
{
	const unsigned char *p = buf;
	uint64_t x = key | 1, w;
	size_t i, j;

	for (i = 0; i < n; i += 8) {
		w = tr_next(&x);
		if (memcmp(p + i, &w, n - i < 8 ? n - i : 8))
			for (j = 0; j < 8; j++)
				if (p[i + j] != ((unsigned char *)&w)[j])
					return i + j + 1;
	}
	return 0;
}

/*
 * A size from 0 to cap: empty, tiny, at the eager threshold (16 KiB),
 * eager, or rendezvous (log-uniform up to cap).
 */
static inline size_t tr_size(uint64_t key, size_t cap)
{
	uint64_t h = tr_mix(key ^ K_SIZE);
	size_t s;
	int e, top = 14;

	while (top < 40 && ((size_t)2 << top) <= cap)
		top++;
	switch (h & 15) {
	case 0: s = 0; break;
	case 1: case 2: case 3: s = 1 + (h >> 8) % 64; break;
	case 4: s = 16384 - 2 + (h >> 8) % 5; break;
	case 5: case 6: case 7: case 8: s = 65 + (h >> 8) % (16384 - 65); break;
	default:
		e = 14 + (int)((h >> 8) % (uint64_t)(top - 13));
		s = ((size_t)1 << e) + (size_t)((h >> 20) % ((uint64_t)1 << e));
	}
	return s < cap ? s : cap;
}

/*
 * The size of message j from src to dst in a p2p phase: one message per
 * sender and receiver each iteration may be as large as tr.max, the
 * others up to tr.small, so an arena holds a phase.
 */
static inline size_t tr_msg_size(int kind, int src, int dst, int j)
{
	int n = t_size, big = n > 1 && j == 0 &&
		(dst - src + n) % n == 1 + (int)(tr.iter % (unsigned int)(n - 1));

	return tr_size(tr_key((uint64_t)kind, (uint64_t)src, (uint64_t)dst,
			      (uint64_t)j), big ? tr.max : tr.small);
}

static inline void tr_at(int point)
{
	tr.point = point;
	if (tr.at)
		tr.at(point);
}

#define TR_OK(call) do {						\
	int _e = (call);						\
	if (_e != MPI_SUCCESS)						\
		tr.error(_e, #call);					\
} while (0)

static inline void tr_waitall(int n, const char *what)
{
	int e = MPI_Waitall(n, tr.req, tr.st), i;

	if (e == MPI_ERR_IN_STATUS) {
		for (i = 0; i < n; i++)
			if (tr.st[i].MPI_ERROR != MPI_SUCCESS &&
			    tr.st[i].MPI_ERROR != MPI_ERR_PENDING)
				tr.error(tr.st[i].MPI_ERROR, what);
	}
	if (e != MPI_SUCCESS)
		tr.error(e, what);
}

static inline void tr_check(const void *buf, size_t n, uint64_t key,
			    const char *what, int from)
{
	size_t bad = tr_bad(buf, n, key);

	CHECK(!bad, "iteration %u: %s from rank %d: byte %zu of %zu wrong",
	      tr.iter, what, from, bad - 1, n);
	tr.msgs++;
	tr.bytes += n;
}

static inline void tr_check_count(const MPI_Status *st, size_t want,
				  const char *what)
{
	int count;

	MPI_Get_count(st, MPI_BYTE, &count);
	CHECK((size_t)count == want, "iteration %u: %s from rank %d tag %d: %d bytes, expected %zu",
	      tr.iter, what, st->MPI_SOURCE, st->MPI_TAG, count, want);
}

static void *tr_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	CHECK(p, "out of memory (%zu bytes)", n);
	memset(p, 0, n);	/* resident from the start: RSS stays flat */
	return p;
}

/* Buffers for every phase; tr.seed, max, small, nmsg set before. */
static inline void tr_setup(void)
{
	int n = t_size, i, nreq = 2 * n * tr.nmsg + 8;

	tr.arena = tr.max + (size_t)(n * tr.nmsg) * tr.small;
	tr.sarena = tr_alloc(tr.arena);
	tr.rarena = tr_alloc(tr.arena);
	for (i = 0; i < TR_NWILD; i++)
		tr.wild[i] = tr_alloc(tr.max);
	tr.bc = tr_alloc(tr.max);
	tr.ag_s = tr_alloc(tr.max / (size_t)n);
	tr.ag_r = tr_alloc(tr.max);
	tr.a2a_s = tr_alloc(tr.max);
	tr.a2a_r = tr_alloc(tr.max);
	tr.ar_in = tr_alloc(TR_AR_MAX * sizeof(int64_t));
	tr.ar_out = tr_alloc(TR_AR_MAX * sizeof(int64_t));
	tr.soff = tr_alloc((size_t)nreq * sizeof(size_t));
	tr.roff = tr_alloc((size_t)nreq * sizeof(size_t));
	tr.req = tr_alloc((size_t)nreq * sizeof(MPI_Request));
	tr.st = tr_alloc((size_t)nreq * sizeof(MPI_Status));
}

/* 1. Named sources and tags; every receive posted before any send. */
static void tr_p2p(void)
{
	int n = t_size, d, j, k = 0, src, dst;
	size_t off = 0, sz;

	for (d = 1; d < n; d++) {
		src = (t_rank - d + n) % n;
		for (j = 0; j < tr.nmsg; j++) {
			sz = tr_msg_size(K_P2P, src, t_rank, j);
			tr.roff[k] = off;
			TR_OK(MPI_Irecv(tr.rarena + off, (int)sz, MPI_BYTE, src, j,
					MPI_COMM_WORLD, &tr.req[k]));
			off += sz;
			k++;
		}
	}
	tr_at(P_P2P_POSTED);
	off = 0;
	for (d = 1; d < n; d++) {
		dst = (t_rank + d) % n;
		for (j = 0; j < tr.nmsg; j++) {
			sz = tr_msg_size(K_P2P, t_rank, dst, j);
			tr_fill(tr.sarena + off, sz, tr_key(K_P2P, (uint64_t)t_rank,
							   (uint64_t)dst, (uint64_t)j));
			if (tr_key(K_P2P, (uint64_t)t_rank, (uint64_t)dst, (uint64_t)j) & 16)
				TR_OK(MPI_Issend(tr.sarena + off, (int)sz, MPI_BYTE, dst,
						 j, MPI_COMM_WORLD, &tr.req[k]));
			else
				TR_OK(MPI_Isend(tr.sarena + off, (int)sz, MPI_BYTE, dst,
						j, MPI_COMM_WORLD, &tr.req[k]));
			off += sz;
			k++;
		}
	}
	tr_at(P_P2P_SENT);
	tr_waitall(k, "p2p waitall");
	k = 0;
	for (d = 1; d < n; d++) {
		src = (t_rank - d + n) % n;
		for (j = 0; j < tr.nmsg; j++, k++) {
			sz = tr_msg_size(K_P2P, src, t_rank, j);
			tr_check_count(&tr.st[k], sz, "p2p message");
			tr_check(tr.rarena + tr.roff[k], sz,
				 tr_key(K_P2P, (uint64_t)src, (uint64_t)t_rank,
					(uint64_t)j), "p2p message", src);
		}
	}
}

/* 2. Every receive MPI_ANY_SOURCE, MPI_ANY_TAG, TR_NWILD at a time. */
static void tr_wild(void)
{
	int n = t_size, d, j, k = 0, dst, slot, got = 0, posted = 0;
	int total = (n - 1) * tr.nmsg, next[64] = { 0 }, src, tag;
	MPI_Request wr[TR_NWILD];
	MPI_Status st;
	size_t off = 0, sz;
	uint64_t key;

	CHECK(n <= 64, "at most 64 ranks");
	for (d = 1; d < n; d++) {
		dst = (t_rank + d) % n;
		for (j = 0; j < tr.nmsg; j++) {
			sz = tr_msg_size(K_WILD, t_rank, dst, j);
			key = tr_key(K_WILD, (uint64_t)t_rank, (uint64_t)dst, (uint64_t)j);
			tr_fill(tr.sarena + off, sz, key);
			if (key & 16)
				TR_OK(MPI_Issend(tr.sarena + off, (int)sz, MPI_BYTE, dst,
						 TR_WILD_TAG + j, MPI_COMM_WORLD, &tr.req[k]));
			else
				TR_OK(MPI_Isend(tr.sarena + off, (int)sz, MPI_BYTE, dst,
						TR_WILD_TAG + j, MPI_COMM_WORLD, &tr.req[k]));
			off += sz;
			k++;
		}
	}
	tr_at(P_WILD_SENT);
	/* Receives complete in the order posted: wait for the oldest. */
	for (slot = 0; slot < TR_NWILD && posted < total; slot++, posted++)
		TR_OK(MPI_Irecv(tr.wild[slot], (int)tr.max, MPI_BYTE, MPI_ANY_SOURCE,
				MPI_ANY_TAG, MPI_COMM_WORLD, &wr[slot]));
	for (slot = 0; got < total; slot = (slot + 1) % TR_NWILD) {
		int e = MPI_Wait(&wr[slot], &st);

		if (e != MPI_SUCCESS)
			tr.error(e, "wildcard receive");
		src = st.MPI_SOURCE;
		tag = st.MPI_TAG;
		CHECK(src >= 0 && src < n && src != t_rank, "iteration %u: wildcard receive from rank %d",
		      tr.iter, src);
		CHECK(tag == TR_WILD_TAG + next[src], "iteration %u: from rank %d tag %d came before tag %d",
		      tr.iter, src, tag, TR_WILD_TAG + next[src]);
		j = next[src]++;
		sz = tr_msg_size(K_WILD, src, t_rank, j);
		tr_check_count(&st, sz, "wildcard message");
		tr_check(tr.wild[slot], sz, tr_key(K_WILD, (uint64_t)src,
						   (uint64_t)t_rank, (uint64_t)j),
			 "wildcard message", src);
		if (++got == total / 2)
			tr_at(P_WILD_HALF);
		if (posted < total) {
			TR_OK(MPI_Irecv(tr.wild[slot], (int)tr.max, MPI_BYTE,
					MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
					&wr[slot]));
			posted++;
		}
	}
	tr_waitall(k, "wildcard sends");
	tr_at(P_WILD_DONE);
}

/* Allreduce input: distinct per rank, the sum known in closed form. */
static inline int64_t tr_ar_val(int rank, int i, uint64_t key)
{
	return (int64_t)(tr_mix(key ^ (uint64_t)i) & 0xffffff) * (rank + 1) +
		rank * 7919;
}

static inline void tr_ar_check(const int64_t *out, int count, uint64_t key,
			       const char *what)
{
	int64_t tri = (int64_t)t_size * (t_size + 1) / 2;
	int64_t lin = 7919 * (int64_t)t_size * (t_size - 1) / 2;
	int i;

	for (i = 0; i < count; i++)
		CHECK(out[i] == (int64_t)(tr_mix(key ^ (uint64_t)i) & 0xffffff) * tri + lin,
		      "iteration %u: %s element %d of %d wrong", tr.iter, what, i, count);
	tr.msgs++;
	tr.bytes += (size_t)count * sizeof(int64_t);
}

static inline int tr_ar_count(int kind)
{
	size_t c = tr_size(tr_key((uint64_t)kind, 0, 0, 0), tr.max) / sizeof(int64_t);

	return (int)(c < TR_AR_MAX ? c : TR_AR_MAX);
}

static inline void tr_ar_fill(int count, uint64_t key)
{
	int i;

	for (i = 0; i < count; i++)
		tr.ar_in[i] = tr_ar_val(t_rank, i, key);
}

/* Allgather block: half the time the largest one the buffer takes. */
static inline size_t tr_ag_block(int kind)
{
	uint64_t key = tr_key((uint64_t)kind, 0, 0, 0);
	size_t cap = tr.max / (size_t)t_size;

	return key & 1 ? cap : tr_size(key, cap);
}

static void tr_ag_check(size_t blk, int kind, const char *what)
{
	int r;

	for (r = 0; r < t_size; r++)
		tr_check(tr.ag_r + (size_t)r * blk, blk,
			 tr_key((uint64_t)kind, (uint64_t)r, 0, 0), what, r);
}

/* 3. Blocking collectives. */
static void tr_coll(void)
{
	int n = t_size, root = (int)(tr.iter % (unsigned int)n), r, count;
	size_t sz, blk;
	uint64_t key;

	key = tr_key(K_BCAST, 0, 0, 0);
	sz = tr_size(key, tr.max);
	if (t_rank == root)
		tr_fill(tr.bc, sz, key);
	TR_OK(MPI_Bcast(tr.bc, (int)sz, MPI_BYTE, root, MPI_COMM_WORLD));
	tr_check(tr.bc, sz, key, "bcast", root);
	tr_at(P_BCAST);

	key = tr_key(K_AR, 0, 0, 0);
	count = tr_ar_count(K_AR);
	tr_ar_fill(count, key);
	TR_OK(MPI_Allreduce(tr.ar_in, tr.ar_out, count, MPI_INT64_T, MPI_SUM,
			    MPI_COMM_WORLD));
	tr_ar_check(tr.ar_out, count, key, "allreduce");
	tr_at(P_ALLREDUCE);

	blk = tr_size(tr_key(K_A2A, 1, 0, 0), tr.max / (size_t)n);
	for (r = 0; r < n; r++)
		tr_fill(tr.a2a_s + (size_t)r * blk, blk,
			tr_key(K_A2A, (uint64_t)t_rank, (uint64_t)r, 0));
	TR_OK(MPI_Alltoall(tr.a2a_s, (int)blk, MPI_BYTE, tr.a2a_r, (int)blk,
			   MPI_BYTE, MPI_COMM_WORLD));
	for (r = 0; r < n; r++)
		tr_check(tr.a2a_r + (size_t)r * blk, blk,
			 tr_key(K_A2A, (uint64_t)r, (uint64_t)t_rank, 0),
			 "alltoall block", r);
	tr_at(P_ALLTOALL);

	TR_OK(MPI_Barrier(MPI_COMM_WORLD));
	tr_at(P_BARRIER);

	blk = tr_ag_block(K_AG);
	tr_fill(tr.ag_s, blk, tr_key(K_AG, (uint64_t)t_rank, 0, 0));
	TR_OK(MPI_Allgather(tr.ag_s, (int)blk, MPI_BYTE, tr.ag_r, (int)blk,
			    MPI_BYTE, MPI_COMM_WORLD));
	tr_ag_check(blk, K_AG, "allgather block");
	tr_at(P_ALLGATHER);
}

/*
 * 4. Nonblocking allgather, allreduce and bcast in flight while each
 * rank sends to its right and receives from its left.
 */
static void tr_icoll(void)
{
	int n = t_size, root = (int)((tr.iter + 1) % (unsigned int)n), count;
	int right = (t_rank + 1) % n, left = (t_rank + n - 1) % n, flag = 0;
	size_t blk = tr_ag_block(K_IAG), bsz, rsz, ssz;
	uint64_t bkey = tr_key(K_IBCAST, 0, 0, 0), akey = tr_key(K_IAR, 0, 0, 0);
	MPI_Status st;

	tr_fill(tr.ag_s, blk, tr_key(K_IAG, (uint64_t)t_rank, 0, 0));
	TR_OK(MPI_Iallgather(tr.ag_s, (int)blk, MPI_BYTE, tr.ag_r, (int)blk,
			     MPI_BYTE, MPI_COMM_WORLD, &tr.req[0]));
	count = tr_ar_count(K_IAR);
	tr_ar_fill(count, akey);
	TR_OK(MPI_Iallreduce(tr.ar_in, tr.ar_out, count, MPI_INT64_T, MPI_SUM,
			     MPI_COMM_WORLD, &tr.req[1]));
	bsz = tr_size(bkey, tr.max);
	if (t_rank == root)
		tr_fill(tr.bc, bsz, bkey);
	TR_OK(MPI_Ibcast(tr.bc, (int)bsz, MPI_BYTE, root, MPI_COMM_WORLD,
			 &tr.req[2]));
	tr_at(P_ICOLL_STARTED);

	ssz = tr_msg_size(K_RING, t_rank, right, 0);
	rsz = tr_msg_size(K_RING, left, t_rank, 0);
	tr_fill(tr.sarena, ssz, tr_key(K_RING, (uint64_t)t_rank, (uint64_t)right, 0));
	TR_OK(MPI_Sendrecv(tr.sarena, (int)ssz, MPI_BYTE, right, 7,
			   tr.rarena, (int)rsz, MPI_BYTE, left, 7,
			   MPI_COMM_WORLD, &st));
	tr_check_count(&st, rsz, "ring message");
	tr_check(tr.rarena, rsz, tr_key(K_RING, (uint64_t)left, (uint64_t)t_rank, 0),
		 "ring message", left);
	TR_OK(MPI_Testall(3, tr.req, &flag, MPI_STATUSES_IGNORE));
	tr_at(P_ICOLL_P2P);
	if (!flag)
		tr_waitall(3, "nonblocking collectives");
	tr_ag_check(blk, K_IAG, "iallgather block");
	tr_ar_check(tr.ar_out, count, akey, "iallreduce");
	tr_check(tr.bc, bsz, bkey, "ibcast", root);
	tr_at(P_ICOLL_DONE);
}

/* One iteration: every phase, then P_END. */
static inline void tr_iteration(void)
{
	tr_at(P_START);
	if (t_size > 1) {
		tr_p2p();
		tr_at(P_P2P_DONE);
		tr_wild();
	}
	tr_coll();
	tr_icoll();
	tr_at(P_END);
}

#endif /* LIBMSG_TRAFFIC_H */
