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
 *     type that tiles, a sparse vector (64 times its data: packed
 *     instead);
 *   - over the module, which send is offered (debugfs): a vector 8 times
 *     its data is its span, the 64-times one its packed data; a vector
 *     of 32 KiB blocks whose span is larger than the receive window
 *     (this test sets MPICHAN_WINDOW to 4 MiB unless it is set) is
 *     gathered by the module, a segment per block (rndv_iov.c); with
 *     MPICHAN_SPAN_SPARSE set, the 8-times one is packed below 8 and the
 *     64-times one offered from 64 (span-sparse.sh sets 4 and 64);
 *   - a gap that is not readable memory (PROT_NONE): the module will
 *     not pin that span, so it gathers the two blocks alone (debugfs:
 *     the data's length in 2 segments); over the fallback the receiver
 *     reads the blocks alone;
 *   - over /dev/mpichan, with debugfs mounted: the module's queued send
 *     is the span (its length is the span's, not the data's).
 * The same for a struct with gaps (three blocks per element, a tile of
 * several blocks): count of it, one contiguous of it, into itself, into
 * bytes, into a vector, truncated, head to head, bytes into it (whole
 * and truncated: the receiver's tile unpacks), and over the module
 * the span queued; a struct whose fields descend in memory and an
 * indexed type of more blocks than a tile holds are no tiles: they are
 * offered with their layout (layout.c tests those), the module holding
 * their span too.
 * Ranks 0 and 1 exchange; any others only take part in the barriers.
 */
#include <linux/mpichan.h>

#include "span.h"

#define NB	4096		/* blocks */
#define BD	8		/* doubles per block: 64 bytes */
#define SD	16		/* doubles from block to block */
#define NDATA	(NB * BD)

/*
 * Spans lm_span_worth refuses, and one it takes: over the module the
 * send is packed or gathered (the module holds the data's length, in
 * one segment or one per block) unless it is worth offering (the
 * span's, one segment).
 */
static void sparse_spans(MPI_Datatype sparse)
{
	const char *env = getenv("MPICHAN_WINDOW");
	const char *lim = getenv("MPICHAN_SPAN_SPARSE");
	unsigned long long win = env ? strtoull(env, NULL, 0) :
					   MPICHAN_WINDOW_MAX_BYTES;
	/* libmsg's limit: 16 (LM_SPAN_SPARSE) unless set. */
	long long most = lim ? strtoll(lim, NULL, 0) : 16;
	long long data = (long long)(NB / 8) * BD * 8;
	long long span8 = ((long long)(NB / 8 - 1) * 8 * BD + BD) * 8;
	long long span64 = ((long long)(NB / 8 - 1) * 64 * BD + BD) * 8;
	/* Not offered, runs of 64 bytes are packed unless MPICHAN_IOV=on. */
	unsigned int runs = iov_is("on") ? NB / 8 : 1;
	MPI_Datatype v8, wide;
	int nb;

	if (most < 1)
		most = 1;
	v8 = vec(NB / 8, BD, 8 * BD);
	/* Offered unless the span is more than `most` times the data. */
	module_holds_segs(most >= 8 ? "8x sparse vector span" :
				      "8x sparse vector packed (MPICHAN_SPAN_SPARSE)",
			  v8, 1, span8 / most > data ? data : span8,
			  most >= 8 ? 1 : runs);
	module_holds_segs(most >= 64 ? "64x sparse vector span (MPICHAN_SPAN_SPARSE)" :
				       "64x sparse vector packed",
			  sparse, 1, span64 / most > data ? data : span64,
			  most >= 64 ? 1 : runs);
	MPI_Type_free(&v8);
	/* 32 KiB blocks every 512 KiB (16x): a span just over the window. */
	nb = (int)(win / (512 << 10)) + 1;
	if (win < (1 << 20) || (long long)nb * 4096 > NDATA * 2) {
		if (t_rank == 0)
			printf("# span: window of %llu bytes: no span over it tested\n",
			       win);
		return;
	}
	wide = vec(nb, 4096, 16 * 4096);
	/* Its 32 KiB blocks are large: the module gathers them instead. */
	module_holds_segs("span over the window gathered", wide, 1,
			  (long long)nb * 4096 * 8,
			  iov_is("off") ? 1 : (unsigned int)nb);
	MPI_Type_free(&wide);
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
	from_bottom(t, v, b, NDATA * 8);
	MPI_Type_free(&t);
	MPI_Type_free(&v);
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
	one("descending struct (layout)", down, NB, g, NB, 0);
	one("nine blocks (layout)", nine, NB / 4, MPI_BYTE, NB / 4 * 72, 0);
	head_to_head(g, NB);
	module_holds("struct span", g, NB, span);
	module_holds("contiguous of structs span", all, 1, span);
	module_holds("descending struct span", down, NB, span);
	module_holds("nine blocks span", nine, NB / 4,
		     ((NB / 4 - 1) * 20 + 18) * 8LL);
	MPI_Type_free(&all);
	MPI_Type_free(&g);
	MPI_Type_free(&down);
	MPI_Type_free(&nine);
}

int main(int argc, char **argv)
{
	MPI_Datatype v, other, row, tile, sparse;

	/* The fallback packs unless asked (it saves nothing there). */
	setenv("MPICHAN_SPAN", "on", 0);
	/* A small window, for a span that does not fit in it. */
	setenv("MPICHAN_WINDOW", "4194304", 0);
	t_init(&argc, &argv);
	stream_init(NDATA * 2);
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
		persistent_starts(v, NB, BD, SD, 97);
		bottom();
		/* 48 KiB apart: a span the module will not pin; the blocks. */
		guarded_send(49152, 5 * 4096, iov_is("off") ? 1 : 2);
		sparse_spans(sparse);
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
