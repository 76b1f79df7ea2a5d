/* SPDX-License-Identifier: MIT */
/*
 * span.h: what the tests of sends offered where they lie (span.c for
 * tiles, layout.c for other layouts) share.  Rank 0 sends a numbered
 * stream of doubles laid out by its type; rank 1 checks its whole
 * buffer, gaps included, against the same stream unpacked by MPI_Unpack
 * (the packing code, not the one under test).  Over /dev/mpichan with
 * debugfs mounted they also read how long the send the module holds is:
 * the span when the data is offered where it lies, the data's length
 * when it was packed.
 */
#ifndef LIBMSG_SPAN_H
#define LIBMSG_SPAN_H

#include <errno.h>
#include <sys/mman.h>

#include "test.h"

static double *stream;		/* element e is e + 0.25 */

/* The stream: n doubles. */
static inline void stream_init(size_t n)
{
	size_t e;

	stream = malloc(n * sizeof(double));
	CHECK(stream, "out of memory");
	for (e = 0; e < n; e++)
		stream[e] = (double)e + 0.25;
}

/* A committed vector of nb blocks of bd doubles, sd doubles apart. */
static inline MPI_Datatype vec(int nb, int bd, int sd)
{
	MPI_Datatype t;

	MPI_OK(MPI_Type_vector(nb, bd, sd, MPI_DOUBLE, &t));
	MPI_OK(MPI_Type_commit(&t));
	return t;
}

/* Bytes from the buffer's start that count t's reach (lb >= 0). */
static inline size_t extent_of(MPI_Datatype t, int count)
{
	MPI_Aint lb, ext, tlb, text;
	size_t all, last;

	MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
	MPI_OK(MPI_Type_get_true_extent(t, &tlb, &text));
	all = (size_t)ext * (size_t)count;
	last = (size_t)(tlb + text) + (size_t)ext * (size_t)(count - 1);
	return last > all ? last : all;
}

/* A buffer for count t's, gaps set to 0xee, data from the stream. */
static inline double *laid_out(MPI_Datatype t, int count, int fill)
{
	size_t bytes = extent_of(t, count);
	double *b = malloc(bytes);
	int pos = 0, size;

	CHECK(b, "out of memory");
	memset(b, 0xee, bytes);
	if (fill) {
		MPI_OK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &size));
		MPI_OK(MPI_Unpack(stream, size, &pos, b, count, t,
				  MPI_COMM_WORLD));
	}
	return b;
}

/* The receiver's buffer against the stream's first `got` bytes unpacked. */
static inline void check_layout(const char *what, const double *b,
				MPI_Datatype t, int count, int got)
{
	double *want = laid_out(t, count, 0);
	size_t bytes = extent_of(t, count);
	unsigned char *in;
	int pos = 0, room;

	/* What did not arrive stays as it was (0xee), like the gaps. */
	MPI_OK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &room));
	in = malloc((size_t)room);
	CHECK(in, "out of memory");
	memset(in, 0xee, (size_t)room);
	memcpy(in, stream, (size_t)got);
	MPI_OK(MPI_Unpack(in, room, &pos, want, count, t, MPI_COMM_WORLD));
	CHECK(!memcmp(b, want, bytes), "%s: buffer differs from the layout",
	      what);
	free(in);
	free(want);
}

/* Rank 0 sends count st's, rank 1 receives rcount rt's and checks. */
static inline void one(const char *what, MPI_Datatype st, int count,
		       MPI_Datatype rt, int rcount, int sync)
{
	MPI_Status s;
	double *b;
	int got, size;

	if (t_rank == 0) {
		b = laid_out(st, count, 1);
		if (sync)
			MPI_OK(MPI_Ssend(b, count, st, 1, 5, MPI_COMM_WORLD));
		else
			MPI_OK(MPI_Send(b, count, st, 1, 5, MPI_COMM_WORLD));
		free(b);
	} else if (t_rank == 1) {
		int err, room;

		MPI_OK(MPI_Pack_size(count, st, MPI_COMM_WORLD, &size));
		MPI_OK(MPI_Pack_size(rcount, rt, MPI_COMM_WORLD, &room));
		b = laid_out(rt, rcount, 0);
		err = MPI_Recv(b, rcount, rt, 0, 5, MPI_COMM_WORLD, &s);
		got = room < size ? room : size;
		if (room < size) {
			int cls;

			MPI_Error_class(err, &cls);
			CHECK(cls == MPI_ERR_TRUNCATE, "%s: error class %d",
			      what, cls);
		} else {
			MPI_OK(err);
			MPI_OK(MPI_Get_count(&s, MPI_BYTE, &room));
			CHECK(room == size, "%s: count %d, sent %d", what,
			      room, size);
		}
		check_layout(what, b, rt, rcount, got);
		free(b);
	}
}

/*
 * Rank 0 sends one abs (blocks named by absolute address) from
 * MPI_BOTTOM, rank 1 receives one into the same addresses of its own
 * and checks buffer b against rel (the same blocks relative to b).
 */
static inline void from_bottom(MPI_Datatype abs, MPI_Datatype rel,
			       const double *b, int got)
{
	if (t_rank == 0) {
		MPI_OK(MPI_Send(MPI_BOTTOM, 1, abs, 1, 9, MPI_COMM_WORLD));
	} else if (t_rank == 1) {
		MPI_OK(MPI_Recv(MPI_BOTTOM, 1, abs, 0, 9, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		check_layout("MPI_BOTTOM", b, rel, 1, got);
	}
}

/* Both send first, then receive: the offers wait unmatched (pulled). */
static inline void head_to_head(MPI_Datatype t, int count)
{
	int peer = 1 - t_rank, size;
	double *sb, *rb;

	if (t_rank > 1)
		return;
	MPI_OK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &size));
	sb = laid_out(t, count, 1);
	rb = laid_out(t, count, 0);
	MPI_OK(MPI_Send(sb, count, t, peer, 6, MPI_COMM_WORLD));
	MPI_OK(MPI_Recv(rb, count, t, peer, 6, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	check_layout("head to head", rb, t, count, size);
	free(sb);
	free(rb);
}

/* Is MPICHAN_IOV (which sends the module gathers) set to v? */
static inline int iov_is(const char *v)
{
	const char *e = getenv("MPICHAN_IOV");

	return e && !strcmp(e, v);
}

/*
 * A persistent send of a vector t of nb blocks of bd doubles, sd apart,
 * started three times, the first double of each block changed in
 * between; the receiver checks every step-th block.
 */
static inline void persistent_starts(MPI_Datatype t, int nb, int bd, int sd,
				     int step)
{
	MPI_Request r;
	double *b;
	int i, k;

	if (t_rank > 1)
		return;
	b = laid_out(t, 1, t_rank == 0);
	if (t_rank == 0)
		MPI_OK(MPI_Send_init(b, 1, t, 1, 7, MPI_COMM_WORLD, &r));
	else
		MPI_OK(MPI_Recv_init(b, 1, t, 0, 7, MPI_COMM_WORLD, &r));
	for (i = 0; i < 3; i++) {
		if (t_rank == 0)
			for (k = 0; k < nb; k++)
				b[k * sd] = stream[k * bd] + i;
		MPI_OK(MPI_Start(&r));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		if (t_rank == 1)
			for (k = 0; k < nb; k += step)
				CHECK(b[k * sd] == stream[k * bd] + i &&
				      b[k * sd + bd - 1] == stream[k * bd + bd - 1],
				      "start %d block %d: %g", i, k, b[k * sd]);
		MPI_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, 1 - t_rank, 8, NULL, 0,
				    MPI_BYTE, 1 - t_rank, 8, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE));
	}
	MPI_OK(MPI_Request_free(&r));
	free(b);
}

/* The iovec segments of the send module_send_len found last. */
static unsigned int module_segs;

/*
 * Over the module, with debugfs mounted: the length of rank 0's queued
 * send to rank 1 with this tag (0 when there is none), or -1 when the
 * job's state cannot be read (the fallback, no debugfs).  Its segments
 * go to module_segs.
 */
static inline long long module_send_len(int want_tag)
{
	char path[128], line[256];
	const char *id = getenv("MPICHAN_JOB_ID");
	unsigned long long len;
	unsigned long pages;
	unsigned int segs;
	int owner, peer, tag;
	long long found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/mpichan/job-%s/state",
		 id ? id : "none");
	f = fopen(path, "r");
	if (!f) {
		printf("# span: module check skipped: %s: %s\n", path,
		       strerror(errno));
		return -1;
	}
	module_segs = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "xfer %*u send %d %d %*u %d %llu %lu %u",
			   &owner, &peer, &tag, &len, &pages, &segs) == 6 &&
		    owner == 0 && peer == 1 && tag == want_tag) {
			found = (long long)len;
			module_segs = segs;
		}
	fclose(f);
	return found;
}

/*
 * Rank 0 starts sending buf (count t's) with tag and tells rank 1, which
 * looks at what the module holds for it (module_send_len) before it
 * receives into rbuf.  The send is synchronous: rank 1 would pull a
 * standard one's data while it waits for the note, and rank 0 would go
 * on to its next send.
 */
static inline long long send_seen(const void *buf, int count,
				  MPI_Datatype t, void *rbuf, int rcount,
				  MPI_Datatype rt, int tag)
{
	long long len = -1;
	MPI_Request r;

	if (t_rank == 0) {
		MPI_OK(MPI_Issend(buf, count, t, 1, tag, MPI_COMM_WORLD, &r));
		MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 11, MPI_COMM_WORLD));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	} else {
		MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 11, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		len = module_send_len(tag);
		MPI_OK(MPI_Recv(rbuf, rcount, rt, 0, tag, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
	}
	return len;
}

/*
 * Two 16 KiB blocks stride bytes apart, a PROT_NONE page at byte guard
 * in the gap: nothing may read the gap, and the blocks still arrive.
 * Over the module (debugfs) the send holds the 32 KiB of data, in segs
 * segments (2: the module gathers the blocks alone; 1: packed).
 */
static inline void guarded_send(size_t stride, size_t guard, unsigned int segs)
{
	const size_t blk = 16384, page = 4096;
	unsigned char *b = NULL, *r = NULL;
	MPI_Datatype t;
	long long len;
	size_t i;

	if (t_rank > 1)
		return;
	MPI_OK(MPI_Type_vector(2, (int)blk, (int)stride, MPI_BYTE, &t));
	MPI_OK(MPI_Type_commit(&t));
	if (t_rank == 0) {
		b = mmap(NULL, stride + blk, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(b != MAP_FAILED, "mmap: %s", strerror(errno));
		for (i = 0; i < blk; i++) {
			b[i] = (unsigned char)(i * 7 + 1);
			b[stride + i] = (unsigned char)(i * 7 + 2);
		}
		CHECK(!mprotect(b + guard, page, PROT_NONE), "mprotect: %s",
		      strerror(errno));
	} else {
		r = malloc(2 * blk);
		CHECK(r, "out of memory");
	}
	len = send_seen(b, 1, t, r, (int)(2 * blk), MPI_BYTE, 12);
	if (t_rank == 0) {
		munmap(b, stride + blk);
	} else {
		for (i = 0; i < blk; i++)
			CHECK(r[i] == (unsigned char)(i * 7 + 1) &&
			      r[blk + i] == (unsigned char)(i * 7 + 2),
			      "guarded: byte %zu", i);
		CHECK(len < 0 || len == (long long)(2 * blk),
		      "guarded: the module holds %lld bytes, not the data's %zu",
		      len, 2 * blk);
		CHECK(len < 0 || module_segs == segs,
		      "guarded: the module holds %u segments, not %u",
		      module_segs, segs);
		if (len > 0)
			printf("# span: guarded: the module holds %lld bytes in %u segments\n",
			       len, module_segs);
		free(r);
	}
	MPI_Type_free(&t);
}

/*
 * Over the module: the queued send of count t's is `want` bytes (the
 * span, or the data when it is packed or gathered) in `segs` segments
 * of its iovec (1, or one per run of bytes when the module gathers).
 */
static inline void module_holds_segs(const char *what, MPI_Datatype t,
				     int count, long long want,
				     unsigned int segs)
{
	long long len;
	double *b;
	int size;

	if (t_rank > 1)
		return;
	MPI_OK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &size));
	b = laid_out(t, count, t_rank == 0);
	len = send_seen(b, count, t, b, count, t, 10);
	if (t_rank == 1) {
		CHECK(len < 0 || len == want,
		      "%s: the module holds %lld bytes, not %lld", what, len,
		      want);
		CHECK(len < 0 || module_segs == segs,
		      "%s: the module holds %u segments, not %u", what,
		      module_segs, segs);
		if (len > 0)
			printf("# span: %s: the module holds %lld bytes in %u segments\n",
			       what, len, module_segs);
		check_layout(what, b, t, count, size);
	}
	free(b);
}

/* The same, of one segment: a span, or packed data. */
static inline void module_holds(const char *what, MPI_Datatype t,
				int count, long long want)
{
	module_holds_segs(what, t, count, want, 1);
}

#endif
