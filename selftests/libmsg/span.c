// SPDX-License-Identifier: MIT
/*
 * Large strided sends without a packing copy (libmsg/src/rndv_span.c):
 * the sender offers the span of its blocks where they lie, the receiver
 * takes the blocks out of it into its own layout.  Every case sends a
 * numbered stream of doubles laid out by the sender's type and checks
 * the receiver's whole buffer, gaps included, against the same stream
 * unpacked (MPI_Unpack, the packing code) into a copy of it:
 *   - a vector into the same vector, into bytes, into another vector
 *     (other block length: the general unpack), truncated;
 *   - head to head (both ranks send first: the unmatched offer is
 *     pulled), persistent (three starts, new data each), synchronous;
 *   - MPI_BOTTOM with absolute block addresses, count > 1 of a resized
 *     type that tiles, a sparse vector (packed instead);
 *   - a gap that is not readable memory (PROT_NONE): over the module the
 *     send is packed (the module will not pin that span; debugfs shows
 *     the data's length), over the fallback the receiver reads the
 *     blocks alone;
 *   - over /dev/mpichan, with debugfs mounted: the module's queued send
 *     is the span (its length is the span's, not the data's).
 * The same for a struct with gaps (three blocks per element, a tile of
 * several blocks): count of it, one contiguous of it, into itself, into
 * bytes, into a vector, truncated, head to head, bytes into it (whole
 * and truncated: the receiver's tile unpacks), and over the module
 * the span queued; a struct whose fields descend in memory and an
 * indexed type of more blocks than a tile holds are packed (the module
 * holds the data's length) and still arrive.
 * Ranks 0 and 1 exchange; any others only take part in the barriers.
 */
#include <errno.h>
#include <sys/mman.h>

#include "test.h"

#define NB	4096		/* blocks */
#define BD	8		/* doubles per block: 64 bytes */
#define SD	16		/* doubles from block to block */
#define NDATA	(NB * BD)

static double *stream;		/* element e is e + 0.25 */

static size_t extent_of(MPI_Datatype t, int count)
{
	MPI_Aint lb, ext;

	MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
	return (size_t)ext * (size_t)count;
}

/* A buffer for count t's, gaps set to 0xee, data from the stream. */
static double *laid_out(MPI_Datatype t, int count, int fill)
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
static void check_layout(const char *what, const double *b, MPI_Datatype t,
			 int count, int got)
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

static MPI_Datatype vec(int nb, int bd, int sd)
{
	MPI_Datatype t;

	MPI_OK(MPI_Type_vector(nb, bd, sd, MPI_DOUBLE, &t));
	MPI_OK(MPI_Type_commit(&t));
	return t;
}

/* Rank 0 sends count st's, rank 1 receives rcount rt's and checks. */
static void one(const char *what, MPI_Datatype st, int count,
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

/* Both send first, then receive: the offers wait unmatched (pulled). */
static void head_to_head(MPI_Datatype t, int count)
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

/* A persistent send started three times, its data changed in between. */
static void persistent(MPI_Datatype t)
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
			for (k = 0; k < NB; k++)
				b[k * SD] = stream[k * BD] + i;
		MPI_OK(MPI_Start(&r));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		if (t_rank == 1)
			for (k = 0; k < NB; k += 97)
				CHECK(b[k * SD] == stream[k * BD] + i &&
				      b[k * SD + 1] == stream[k * BD + 1],
				      "start %d block %d: %g", i, k, b[k * SD]);
		MPI_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, 1 - t_rank, 8, NULL, 0,
				    MPI_BYTE, 1 - t_rank, 8, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE));
	}
	MPI_OK(MPI_Request_free(&r));
	free(b);
}

/* Blocks named by absolute address, sent from MPI_BOTTOM. */
static void bottom(void)
{
	MPI_Aint base, d[NB];
	MPI_Datatype t, v = vec(NB, BD, SD);
	double *b;
	int k;

	if (t_rank > 1) {
		MPI_Type_free(&v);
		return;
	}
	b = laid_out(v, 1, t_rank == 0);
	MPI_OK(MPI_Get_address(b, &base));
	for (k = 0; k < NB; k++)
		d[k] = base + (MPI_Aint)(k * SD * sizeof(double));
	MPI_OK(MPI_Type_create_hindexed_block(NB, BD, d, MPI_DOUBLE, &t));
	MPI_OK(MPI_Type_commit(&t));
	if (t_rank == 0) {
		MPI_OK(MPI_Send(MPI_BOTTOM, 1, t, 1, 9, MPI_COMM_WORLD));
	} else {
		MPI_OK(MPI_Recv(MPI_BOTTOM, 1, t, 0, 9, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		check_layout("MPI_BOTTOM", b, v, 1, NDATA * 8);
	}
	MPI_Type_free(&t);
	MPI_Type_free(&v);
	free(b);
}

/*
 * Over the module, with debugfs mounted: the length of rank 0's queued
 * send to rank 1 with this tag (0 when there is none), or -1 when the
 * job's state cannot be read (the fallback, no debugfs).
 */
static long long module_send_len(int want_tag)
{
	char path[128], line[256];
	const char *id = getenv("MPICHAN_JOB_ID");
	unsigned long long len;
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
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "xfer %*u send %d %d %*u %d %llu", &owner,
			   &peer, &tag, &len) == 4 &&
		    owner == 0 && peer == 1 && tag == want_tag)
			found = (long long)len;
	fclose(f);
	return found;
}

/*
 * Rank 0 starts sending buf (count t's) with tag and tells rank 1, which
 * looks at what the module holds for it (module_send_len) before it
 * receives into rbuf.
 */
static long long send_seen(const void *buf, int count, MPI_Datatype t,
			   void *rbuf, int rcount, MPI_Datatype rt, int tag)
{
	long long len = -1;
	MPI_Request r;

	if (t_rank == 0) {
		MPI_OK(MPI_Isend(buf, count, t, 1, tag, MPI_COMM_WORLD, &r));
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
 * Two 16 KiB blocks 48 KiB apart, a PROT_NONE page in the gap between
 * them: nothing may read the gap, and the blocks still arrive.  The
 * module will not pin that span, so the send is packed: the module
 * holds the 32 KiB of data (over the fallback the receiver reads the
 * blocks alone).
 */
static void guarded(void)
{
	const size_t blk = 16384, stride = 49152, page = 4096;
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
		CHECK(!mprotect(b + 5 * page, page, PROT_NONE), "mprotect: %s",
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
		      "guarded: the module holds %lld bytes, not the packed %zu",
		      len, 2 * blk);
		free(r);
	}
	MPI_Type_free(&t);
}

/*
 * Over the module: the queued send of count t's is `want` bytes (the
 * span, or the data when it is packed).
 */
static void module_holds(const char *what, MPI_Datatype t, int count,
			 long long want)
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
		if (len > 0)
			printf("# span: %s: the module holds %lld bytes\n",
			       what, len);
		check_layout(what, b, t, count, size);
	}
	free(b);
}

/*
 * A struct with gaps, 8 doubles in three blocks: 3 at 0, 4 at 32 bytes,
 * 1 at 80; its extent is SD doubles, so NB of them hold the stream.
 * With descend set, its fields are listed last first: they come in
 * descending order and have no tile.
 */
static MPI_Datatype gapped(int descend)
{
	int bl[3] = { 3, 4, 1 };
	MPI_Aint d[3] = { 0, 32, 80 };
	MPI_Datatype ty[3] = { MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE }, s, t;

	if (descend) {
		bl[0] = 1; d[0] = 80;
		bl[2] = 3; d[2] = 0;
	}
	MPI_OK(MPI_Type_create_struct(3, bl, d, ty, &s));
	MPI_OK(MPI_Type_create_resized(s, 0, SD * sizeof(double), &t));
	MPI_OK(MPI_Type_commit(&t));
	MPI_Type_free(&s);
	return t;
}

/*
 * 9 blocks of one double, 2 doubles apart but for one more gap in the
 * middle (not one stride, so not a vector), 20 doubles an element.
 */
static MPI_Datatype nine_blocks(void)
{
	int bl[9], d[9], k;
	MPI_Datatype s, t;

	for (k = 0; k < 9; k++) {
		bl[k] = 1;
		d[k] = 2 * k + (k > 4);
	}
	MPI_OK(MPI_Type_indexed(9, bl, d, MPI_DOUBLE, &s));
	MPI_OK(MPI_Type_create_resized(s, 0, 20 * sizeof(double), &t));
	MPI_OK(MPI_Type_commit(&t));
	MPI_Type_free(&s);
	return t;
}

/* Structs with gaps: the tile of three blocks an element. */
static void structs(MPI_Datatype v, MPI_Datatype other)
{
	MPI_Datatype g = gapped(0), down = gapped(1), nine = nine_blocks();
	MPI_Datatype all;
	const long long span = ((long long)(NB - 1) * SD + 11) * 8;

	MPI_OK(MPI_Type_contiguous(NB, g, &all));
	MPI_OK(MPI_Type_commit(&all));
	one("struct, same struct", g, NB, g, NB, 0);
	one("struct, into bytes", g, NB, MPI_BYTE, NDATA * 8, 0);
	one("struct, into a vector", g, NB, other, 1, 0);
	one("vector, into a struct", v, 1, g, NB, 0);
	one("bytes, into a struct", MPI_BYTE, NDATA * 8, g, NB, 0);
	one("bytes, into a struct, truncated", MPI_BYTE, NDATA * 8, g, NB / 3, 0);
	one("struct, truncated", g, NB, MPI_BYTE, NDATA * 8 / 3 + 5, 0);
	one("struct, synchronous", g, NB, g, NB, 1);
	one("contiguous of structs", all, 1, MPI_BYTE, NDATA * 8, 0);
	one("descending struct (packed)", down, NB, g, NB, 0);
	one("nine blocks (packed)", nine, NB / 4, MPI_BYTE, NB / 4 * 72, 0);
	head_to_head(g, NB);
	module_holds("struct span", g, NB, span);
	module_holds("contiguous of structs span", all, 1, span);
	module_holds("descending struct packed", down, NB, NDATA * 8LL);
	module_holds("nine blocks packed", nine, NB / 4, NB / 4 * 72LL);
	MPI_Type_free(&all);
	MPI_Type_free(&g);
	MPI_Type_free(&down);
	MPI_Type_free(&nine);
}

int main(int argc, char **argv)
{
	MPI_Datatype v, other, row, tile, sparse;
	int e;

	/* The fallback packs unless asked (it saves nothing there). */
	setenv("MPICHAN_SPAN", "on", 0);
	t_init(&argc, &argv);
	stream = malloc(NDATA * 2 * sizeof(double));
	CHECK(stream, "out of memory");
	for (e = 0; e < NDATA * 2; e++)
		stream[e] = e + 0.25;
	v = vec(NB, BD, SD);
	other = vec(NDATA / 3 + 1, 3, 5);
	sparse = vec(NB / 8, BD, 64 * BD);
	MPI_OK(MPI_Type_contiguous(BD, MPI_DOUBLE, &row));
	MPI_OK(MPI_Type_create_resized(row, 0, SD * sizeof(double), &tile));
	MPI_OK(MPI_Type_commit(&tile));

	if (t_size >= 2) {
		one("same vector", v, 1, v, 1, 0);
		one("into bytes", v, 1, MPI_BYTE, NDATA * 8, 0);
		one("into another vector", v, 1, other, 1, 0);
		one("truncated", v, 1, MPI_BYTE, NDATA * 8 / 3 + 5, 0);
		one("synchronous", v, 1, v, 1, 1);
		one("tiles", tile, NB, v, 1, 0);
		one("sparse", sparse, 1, sparse, 1, 0);
		head_to_head(v, 1);
		persistent(v);
		bottom();
		guarded();
		module_holds("vector span", v, 1,
			     ((long long)(NB - 1) * SD + BD) * 8);
		structs(v, other);
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_Type_free(&v);
	MPI_Type_free(&other);
	MPI_Type_free(&sparse);
	MPI_Type_free(&row);
	MPI_Type_free(&tile);
	free(stream);
	MPI_Finalize();
	if (t_rank == 0)
		printf("span: ok (%d ranks)\n", t_size);
	return 0;
}
