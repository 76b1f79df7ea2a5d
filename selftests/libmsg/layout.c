// SPDX-License-Identifier: MIT
/*
 * Large sends of types that are not a tile, offered where they lie with
 * their layout (libmsg/src/rndv_layout.c): the receiver walks the
 * sender's segments over the span.  Each case sends a numbered stream of
 * doubles laid out by the sender's type and checks the receiver's whole
 * buffer, gaps included, against the stream unpacked by MPI_Unpack (the
 * packing code, which the layout walk does not use):
 *   - a three-dimensional subarray (two strides; and a flat one, many
 *     planes of a few short rows), a transpose (an hvector of
 *     columns: blocks out of address order), a triangle (an indexed
 *     type of 40 blocks of growing length), a struct of 12 fields,
 *     blocks in descending order;
 *   - each into itself, into bytes, into another of them, truncated
 *     (MPI_ERR_TRUNCATE, the part that fits in place);
 *   - synchronous, head to head (both offers wait unmatched and are
 *     pulled), a persistent send started three times with new data, a
 *     probed message (MPI_Probe, MPI_Mprobe/Mrecv), MPI_BOTTOM with
 *     absolute addresses, a send that reads its bytes twice (overlapping
 *     blocks), a cancelled synchronous send (the receiver never sees
 *     it), and every rank's send to itself (one rank too);
 *   - an indexed type of 100 irregular blocks (101 segments): into
 *     itself, into bytes, truncated; one of 300 has more segments than
 *     an offer carries (LM_RTS_SEGS): packed, still delivered;
 *   - over /dev/mpichan with debugfs mounted: the module holds the span
 *     (not the data's length) for each layout, the data's length for
 *     the 300 blocks.
 * Ranks 0 and 1 exchange; any others only take part in the barriers.
 */
#include "span.h"

#define N3	20		/* the 3-D array: N3 x 2 N3 x (2 N3 + 8) */
#define NT	96		/* the transposed matrix: NT x NT */
#define NTRI	40		/* the triangle's rows */
#define NSTRUCT	600		/* structs sent */
#define NSTREAM	(1 << 16)	/* doubles in the stream */
#define DB	128		/* descending: doubles a block */
#define DS	160		/* ... and from block to block */
#define NIRR	300		/* irregular blocks: more than an offer carries */

static MPI_Datatype commit(MPI_Datatype t)
{
	MPI_OK(MPI_Type_commit(&t));
	return t;
}

/* A 3-D subarray of doubles, C order. */
static MPI_Datatype subarray3(const int *sizes, const int *sub,
			      const int *start)
{
	MPI_Datatype t;

	MPI_OK(MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C,
					MPI_DOUBLE, &t));
	return commit(t);
}

/* The interior of a 3-D array, two cells in from each face of it. */
static MPI_Datatype sub3d(void)
{
	static const int sizes[3] = { N3, 2 * N3, 2 * N3 + 8 };
	static const int sub[3] = { N3 - 4, 2 * N3 - 8, 2 * N3 };
	static const int start[3] = { 2, 4, 4 };

	return subarray3(sizes, sub, start);
}

/* A flat one: 256 planes of 3 rows of 4 doubles out of 260 x 5 x 8. */
static MPI_Datatype flat3d(void)
{
	static const int sizes[3] = { 260, 5, 8 }, sub[3] = { 256, 3, 4 };
	static const int start[3] = { 1, 1, 2 };

	return subarray3(sizes, sub, start);
}

/* An NT x NT matrix column by column: its transpose in the message. */
static MPI_Datatype transpose(void)
{
	MPI_Datatype col, t;

	MPI_OK(MPI_Type_vector(NT, 1, NT, MPI_DOUBLE, &col));
	MPI_OK(MPI_Type_create_hvector(NT, 1, sizeof(double), col, &t));
	MPI_Type_free(&col);
	return commit(t);
}

/* Row i: 64 + 8 i doubles from the row's start, rows 384 doubles apart. */
static MPI_Datatype triangle(void)
{
	int bl[NTRI], d[NTRI], i;
	MPI_Datatype t;

	for (i = 0; i < NTRI; i++) {
		bl[i] = 64 + 8 * i;
		d[i] = 384 * i;
	}
	MPI_OK(MPI_Type_indexed(NTRI, bl, d, MPI_DOUBLE, &t));
	return commit(t);
}

/* 12 fields of 1 to 3 doubles with gaps between them, 40 doubles apart. */
static MPI_Datatype structs(void)
{
	int bl[12], i, at = 0;
	MPI_Aint d[12];
	MPI_Datatype ty[12], s, t;

	for (i = 0; i < 12; i++) {
		bl[i] = 1 + i % 3;
		d[i] = at * (MPI_Aint)sizeof(double);
		ty[i] = MPI_DOUBLE;
		at += bl[i] + 1 + (i & 1);
	}
	MPI_OK(MPI_Type_create_struct(12, bl, d, ty, &s));
	MPI_OK(MPI_Type_create_resized(s, 0, 40 * sizeof(double), &t));
	MPI_Type_free(&s);
	return commit(t);
}

/* 24 blocks of DB doubles, the last in memory first, DS doubles apart. */
static MPI_Datatype descending(void)
{
	MPI_Aint d[24];
	MPI_Datatype t;
	int i;

	for (i = 0; i < 24; i++)
		d[i] = (MPI_Aint)(23 - i) * DS * (MPI_Aint)sizeof(double);
	MPI_OK(MPI_Type_create_hindexed_block(24, DB, d, MPI_DOUBLE, &t));
	return commit(t);
}

/* n blocks of irregular length and spacing: a segment each. */
static MPI_Datatype irregular(int n)
{
	int bl[NIRR], d[NIRR], i, at = 0;
	MPI_Datatype t;

	for (i = 0; i < n && i < NIRR; i++) {
		bl[i] = 20 + (i * 7) % 13;
		d[i] = at;
		at += bl[i] + 1 + i % 5;
	}
	MPI_OK(MPI_Type_indexed(i, bl, d, MPI_DOUBLE, &t));
	return commit(t);
}

/* Bytes of the span that count t's are offered as (ascending types). */
static long long span_of(MPI_Datatype t, int count)
{
	MPI_Aint lb, ext, tlb, text;

	MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
	MPI_OK(MPI_Type_get_true_extent(t, &tlb, &text));
	return (long long)text + (long long)ext * (count - 1);
}

static int bytes_of(MPI_Datatype t, int count)
{
	int size;

	MPI_OK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &size));
	return size;
}

/* A persistent send started three times, the stream shifted each time. */
static void persistent(MPI_Datatype t)
{
	int size = bytes_of(t, 1), i, pos;
	MPI_Request r;
	double *b;

	if (t_rank > 1)
		return;
	b = laid_out(t, 1, 0);
	if (t_rank == 0)
		MPI_OK(MPI_Send_init(b, 1, t, 1, 7, MPI_COMM_WORLD, &r));
	else
		MPI_OK(MPI_Recv_init(b, 1, t, 0, 7, MPI_COMM_WORLD, &r));
	for (i = 0; i < 3; i++) {
		pos = 0;
		if (t_rank == 0)
			MPI_OK(MPI_Unpack(stream + i, size, &pos, b, 1, t,
					  MPI_COMM_WORLD));
		MPI_OK(MPI_Start(&r));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		if (t_rank == 1) {
			double *want = laid_out(t, 1, 0);

			MPI_OK(MPI_Unpack(stream + i, size, &pos, want, 1, t,
					  MPI_COMM_WORLD));
			CHECK(!memcmp(b, want, extent_of(t, 1)),
			      "persistent: start %d differs", i);
			free(want);
		}
	}
	MPI_OK(MPI_Request_free(&r));
	free(b);
}

/* Rank 1 probes the message first (it waits, unexpected), then takes it. */
static void probed(MPI_Datatype t, int matched)
{
	int size = bytes_of(t, 1), n;
	MPI_Message m;
	MPI_Status s;
	double *b;

	if (t_rank == 0) {
		b = laid_out(t, 1, 1);
		MPI_OK(MPI_Send(b, 1, t, 1, 13, MPI_COMM_WORLD));
		free(b);
	} else if (t_rank == 1) {
		b = laid_out(t, 1, 0);
		if (matched) {
			MPI_OK(MPI_Mprobe(0, 13, MPI_COMM_WORLD, &m, &s));
			MPI_OK(MPI_Mrecv(b, 1, t, &m, MPI_STATUS_IGNORE));
		} else {
			MPI_OK(MPI_Probe(MPI_ANY_SOURCE, 13, MPI_COMM_WORLD,
					 &s));
			MPI_OK(MPI_Recv(b, 1, t, MPI_ANY_SOURCE, 13,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		}
		MPI_OK(MPI_Get_count(&s, MPI_BYTE, &n));
		CHECK(n == size, "probe: %d bytes, sent %d", n, size);
		check_layout(matched ? "mprobe" : "probe", b, t, 1, size);
		free(b);
	}
}

/* The blocks of t at b named by absolute address, sent from MPI_BOTTOM. */
static void bottom(void)
{
	MPI_Aint base, d[24];
	MPI_Datatype t, down = descending();
	int bl[24], i;
	double *b;

	if (t_rank > 1) {
		MPI_Type_free(&down);
		return;
	}
	b = laid_out(down, 1, t_rank == 0);
	MPI_OK(MPI_Get_address(b, &base));
	for (i = 0; i < 24; i++) {
		bl[i] = DB;
		d[i] = base + (MPI_Aint)(23 - i) * DS * (MPI_Aint)sizeof(double);
	}
	MPI_OK(MPI_Type_create_hindexed(24, bl, d, MPI_DOUBLE, &t));
	MPI_OK(MPI_Type_commit(&t));
	from_bottom(t, down, b, bytes_of(down, 1));
	MPI_Type_free(&t);
	MPI_Type_free(&down);
	free(b);
}

/*
 * A type that reads bytes twice: 30 blocks of 512 doubles, 256 apart.
 * The message is what MPI_Pack makes of the sender's buffer.
 */
static void overlapping(void)
{
	MPI_Datatype t;
	double *b, *r, *want;
	int size, pos = 0;

	MPI_OK(MPI_Type_vector(30, 512, 256, MPI_DOUBLE, &t));
	MPI_OK(MPI_Type_commit(&t));
	size = bytes_of(t, 1);
	if (t_rank <= 1) {
		b = malloc(extent_of(t, 1));
		CHECK(b, "out of memory");
		memcpy(b, stream, extent_of(t, 1));
		if (t_rank == 0) {
			MPI_OK(MPI_Send(b, 1, t, 1, 14, MPI_COMM_WORLD));
		} else {
			r = malloc((size_t)size);
			want = malloc((size_t)size);
			CHECK(r && want, "out of memory");
			MPI_OK(MPI_Recv(r, size, MPI_BYTE, 0, 14,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			MPI_OK(MPI_Pack(b, 1, t, want, size, &pos,
					MPI_COMM_WORLD));
			CHECK(!memcmp(r, want, (size_t)size),
			      "overlapping blocks: message differs");
			free(r);
			free(want);
		}
		free(b);
	}
	MPI_Type_free(&t);
}

/*
 * Every rank sends t to itself (over the fallback the receiver reads
 * the sender's span in its own memory), into t and into doubles.
 */
static void to_self(MPI_Datatype t, int count)
{
	int size = bytes_of(t, count);
	double *b = laid_out(t, count, 1), *r = laid_out(t, count, 0);
	double *d = malloc((size_t)size);
	MPI_Request q;

	CHECK(d, "out of memory");
	MPI_OK(MPI_Isend(b, count, t, t_rank, 16, MPI_COMM_WORLD, &q));
	MPI_OK(MPI_Recv(r, count, t, t_rank, 16, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	check_layout("to itself", r, t, count, size);
	MPI_OK(MPI_Isend(b, count, t, t_rank, 17, MPI_COMM_WORLD, &q));
	MPI_OK(MPI_Recv(d, size / 8, MPI_DOUBLE, t_rank, 17, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	CHECK(!memcmp(d, stream, (size_t)size), "to itself, into doubles");
	free(b);
	free(r);
	free(d);
}

/*
 * Rank 0 cancels a synchronous send rank 1 has not received (nor pulled:
 * a synchronous offer waits for its receive): it never arrives.
 */
static void cancelled(MPI_Datatype t)
{
	MPI_Request r;
	MPI_Status s;
	double *b = NULL;
	int flag = 1;

	if (t_rank == 0) {
		b = laid_out(t, 1, 1);
		MPI_OK(MPI_Issend(b, 1, t, 1, 15, MPI_COMM_WORLD, &r));
		MPI_OK(MPI_Cancel(&r));
		MPI_OK(MPI_Wait(&r, &s));
		MPI_OK(MPI_Test_cancelled(&s, &flag));
		CHECK(flag, "the send was not cancelled");
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	if (t_rank == 1) {
		MPI_OK(MPI_Iprobe(0, 15, MPI_COMM_WORLD, &flag,
				  MPI_STATUS_IGNORE));
		CHECK(!flag, "a cancelled send arrived");
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	free(b);
}

int main(int argc, char **argv)
{
	MPI_Datatype s3, flat, tr, tri, st, down, hundred, many;
	int n3;

	/* The fallback packs unless asked (it saves nothing there). */
	setenv("MPICHAN_SPAN", "on", 0);
	t_init(&argc, &argv);
	stream_init(NSTREAM);
	s3 = sub3d();
	flat = flat3d();
	tr = transpose();
	tri = triangle();
	st = structs();
	down = descending();
	hundred = irregular(100);
	many = irregular(NIRR);
	n3 = bytes_of(s3, 1) / 8;

	to_self(s3, 1);
	to_self(st, NSTRUCT);
	if (t_size >= 2) {
		one("3-D subarray", s3, 1, s3, 1, 0);
		one("3-D subarray into doubles", s3, 1, MPI_DOUBLE, n3, 0);
		one("3-D subarray into structs, truncated", s3, 1, st,
		    NSTRUCT, 0);
		one("3-D subarray, truncated", s3, 1, MPI_DOUBLE, n3 / 3 + 1, 0);
		one("3-D subarray into a triangle, truncated", s3, 1, tri, 1, 0);
		one("doubles into a 3-D subarray", MPI_DOUBLE, n3, s3, 1, 0);
		one("flat 3-D subarray", flat, 1, flat, 1, 0);
		one("flat 3-D subarray into doubles", flat, 1, MPI_DOUBLE,
		    256 * 12, 0);
		one("flat 3-D subarray, truncated", flat, 1, MPI_DOUBLE,
		    256 * 12 - 5, 0);
		one("transpose", tr, 1, tr, 1, 0);
		one("transpose into doubles", tr, 1, MPI_DOUBLE, NT * NT, 0);
		one("doubles into a transpose", MPI_DOUBLE, NT * NT, tr, 1, 0);
		one("triangle", tri, 1, tri, 1, 0);
		one("triangle into bytes", tri, 1, MPI_BYTE, bytes_of(tri, 1), 0);
		one("triangle, synchronous", tri, 1, tri, 1, 1);
		one("structs", st, NSTRUCT, st, NSTRUCT, 0);
		one("structs into a 3-D subarray", st, NSTRUCT, s3, 1, 0);
		one("structs, truncated", st, NSTRUCT, st, NSTRUCT / 2 + 1, 0);
		one("structs into doubles", st, NSTRUCT, MPI_DOUBLE,
		    NSTRUCT * 24, 0);
		one("descending blocks", down, 1, MPI_DOUBLE, 24 * DB, 0);
		one("descending blocks into themselves", down, 1, down, 1, 0);
		one("100 blocks", hundred, 1, hundred, 1, 0);
		one("100 blocks into bytes", hundred, 1, MPI_BYTE,
		    bytes_of(hundred, 1), 0);
		one("100 blocks, truncated", hundred, 1, MPI_DOUBLE,
		    bytes_of(hundred, 1) / 8 / 2 + 3, 0);
		one("300 blocks (packed)", many, 1, MPI_BYTE,
		    bytes_of(many, 1), 0);
		head_to_head(s3, 1);
		head_to_head(st, NSTRUCT);
		persistent(tri);
		probed(s3, 0);
		probed(tr, 1);
		bottom();
		overlapping();
		cancelled(s3);
		module_holds("3-D subarray span", s3, 1, span_of(s3, 1));
		module_holds("triangle span", tri, 1, span_of(tri, 1));
		module_holds("structs span", st, NSTRUCT, span_of(st, NSTRUCT));
		module_holds("descending span", down, 1, span_of(down, 1));
		module_holds("transpose span", tr, 1, span_of(tr, 1));
		module_holds("flat 3-D subarray span", flat, 1, span_of(flat, 1));
		module_holds("100 blocks span", hundred, 1, span_of(hundred, 1));
		module_holds("300 blocks packed", many, 1, bytes_of(many, 1));
	}
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_Type_free(&s3);
	MPI_Type_free(&flat);
	MPI_Type_free(&tr);
	MPI_Type_free(&tri);
	MPI_Type_free(&st);
	MPI_Type_free(&down);
	MPI_Type_free(&hundred);
	MPI_Type_free(&many);
	free(stream);
	MPI_Finalize();
	if (t_rank == 0)
		printf("layout: ok (%d ranks)\n", t_size);
	return 0;
}
