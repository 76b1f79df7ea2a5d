// SPDX-License-Identifier: MIT
/*
 * Large non-contiguous sends the module gathers (libmsg/src/rndv_iov.c):
 * a type too sparse to offer its span goes to the module as its runs of
 * bytes, and a receive into a type of few enough runs gets the data
 * straight into them.  Every case sends a numbered stream of doubles
 * laid out by the sender's type and checks the receiver's whole buffer,
 * gaps included, against the stream unpacked by MPI_Unpack (span.h):
 *   - a vector of 4 KiB blocks, one every 32 (too sparse for a span),
 *     into the same vector (the module scatters), into bytes, into a
 *     vector of 2 KiB blocks (runs cut elsewhere), into a vector of
 *     8-byte blocks (too many runs: into a temporary, then unpacked),
 *     truncated (into a shorter vector, and into too few bytes);
 *   - synchronous, head to head (the unmatched offers are pulled),
 *     persistent (three starts, new data each), a receive of
 *     MPI_ANY_SOURCE, MPI_Mprobe and MPI_Mrecv, a send to oneself, a
 *     send cancelled (withdrawn from the module, or received whole);
 *   - blocks named by absolute address from MPI_BOTTOM, in descending
 *     address order (an hindexed type no span describes);
 *   - a block with a PROT_NONE page in the gap after it: the module pins
 *     only the blocks' pages;
 *   - a sender without CAP_IPC_LOCK over its RLIMIT_MEMLOCK: the module
 *     will not pin the gather (nor the packed copy), the data arrives;
 *   - over the module, which send it holds (debugfs): the vector in 64
 *     segments of its data, a vector of more runs than an iovec takes
 *     (MPICHAN_IOV_MAX) packed, one segment, and a sparse vector of
 *     64-byte blocks packed (MPICHAN_IOV=auto: runs too short) or
 *     gathered (MPICHAN_IOV=on; iov-setting.sh sets it, and off).
 * The test sets MPICHAN_SPAN_SPARSE to 1 (unless set): no span with a
 * gap is offered, so each of these types is gathered or packed.
 * Ranks 0 and 1 exchange; any others only take part in the barriers.
 */
#include <sys/capability.h>
#include <sys/resource.h>

#include <linux/mpichan.h>

#include "span.h"

#define NB	64		/* blocks */
#define BD	512		/* doubles per block: 4 KiB */
#define SD	(32 * BD)	/* doubles from block to block */
#define NDATA	(NB * BD)

/* Received from MPI_ANY_SOURCE, and through MPI_Mprobe / MPI_Mrecv. */
static void wildcard(MPI_Datatype t)
{
	MPI_Message m;
	MPI_Status s;
	double *b;
	int size, n;

	if (t_rank > 1)
		return;
	MPI_OK(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size));
	b = laid_out(t, 1, t_rank == 0);
	if (t_rank == 0) {
		MPI_OK(MPI_Send(b, 1, t, 1, 21, MPI_COMM_WORLD));
		MPI_OK(MPI_Send(b, 1, t, 1, 22, MPI_COMM_WORLD));
	} else {
		MPI_OK(MPI_Recv(b, 1, t, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD,
				&s));
		CHECK(s.MPI_SOURCE == 0, "any source: source %d", s.MPI_SOURCE);
		check_layout("any source", b, t, 1, size);
		free(b);
		b = laid_out(t, 1, 0);
		MPI_OK(MPI_Mprobe(0, 22, MPI_COMM_WORLD, &m, &s));
		MPI_OK(MPI_Get_count(&s, MPI_BYTE, &n));
		CHECK(n == size, "mprobe: %d bytes, sent %d", n, size);
		MPI_OK(MPI_Mrecv(b, 1, t, &m, MPI_STATUS_IGNORE));
		check_layout("mrecv", b, t, 1, size);
	}
	free(b);
}

/*
 * A gathered send cancelled before rank 1 receives it: either the
 * cancel wins (MPI_Test_cancelled, and rank 1 never sees the message)
 * or rank 1 already took it in (a blocked rank pulls unmatched
 * offers), and then it receives it whole.  Rank 0 tells which.
 */
static void cancelled(MPI_Datatype t)
{
	MPI_Request r;
	MPI_Status s;
	double *b;
	int size, gone = 0, flag;

	if (t_rank > 1)
		return;
	MPI_OK(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size));
	b = laid_out(t, 1, t_rank == 0);
	if (t_rank == 0) {
		MPI_OK(MPI_Isend(b, 1, t, 1, 30, MPI_COMM_WORLD, &r));
		MPI_OK(MPI_Cancel(&r));
		MPI_OK(MPI_Wait(&r, &s));
		MPI_OK(MPI_Test_cancelled(&s, &gone));
		MPI_OK(MPI_Send(&gone, 1, MPI_INT, 1, 31, MPI_COMM_WORLD));
	} else {
		MPI_OK(MPI_Recv(&gone, 1, MPI_INT, 0, 31, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		if (gone) {
			MPI_OK(MPI_Iprobe(0, 30, MPI_COMM_WORLD, &flag,
					  MPI_STATUS_IGNORE));
			CHECK(!flag, "cancelled: the message still came");
		} else {
			MPI_OK(MPI_Recv(b, 1, t, 0, 30, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
			check_layout("not cancelled", b, t, 1, size);
		}
		printf("# iov: the cancel %s\n", gone ? "won" : "lost");
	}
	free(b);
}

/* This process's CAP_IPC_LOCK in its effective set: on (1) or off. */
static void ipc_lock(int on)
{
	cap_value_t v = CAP_IPC_LOCK;
	cap_t c = cap_get_proc();

	CHECK(c, "cap_get_proc: %s", strerror(errno));
	cap_set_flag(c, CAP_EFFECTIVE, 1, &v, on ? CAP_SET : CAP_CLEAR);
	/* Without it in the permitted set (not root) there is nothing to drop. */
	cap_set_proc(c);
	cap_free(c);
}

/*
 * Rank 0 without CAP_IPC_LOCK and 16 KiB of RLIMIT_MEMLOCK: the module
 * will not pin the gathered send (256 KiB), nor the packed copy, and
 * the data arrives all the same (the plain address, read with
 * process_vm_readv); the module holds no gathered send.
 */
static void memlock(MPI_Datatype t)
{
	struct rlimit was, low;
	long long len;
	double *b;
	int size;

	if (t_rank > 1)
		return;
	MPI_OK(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size));
	b = laid_out(t, 1, t_rank == 0);
	if (t_rank == 0) {
		CHECK(!getrlimit(RLIMIT_MEMLOCK, &was), "getrlimit: %s",
		      strerror(errno));
		low = was;
		low.rlim_cur = 16384;
		ipc_lock(0);
		CHECK(!setrlimit(RLIMIT_MEMLOCK, &low), "setrlimit: %s",
		      strerror(errno));
	}
	len = send_seen(b, 1, t, b, 1, t, 13);
	if (t_rank == 0) {
		CHECK(!setrlimit(RLIMIT_MEMLOCK, &was), "setrlimit: %s",
		      strerror(errno));
		ipc_lock(1);
	} else {
		check_layout("over RLIMIT_MEMLOCK", b, t, 1, size);
		CHECK(len <= 0 || module_segs == 1,
		      "over RLIMIT_MEMLOCK: the module holds %u segments",
		      module_segs);
		printf("# iov: over RLIMIT_MEMLOCK the module holds %lld bytes\n",
		       len);
	}
	free(b);
}

/* A rank's send to itself, received into the same type. */
static void to_self(MPI_Datatype t)
{
	MPI_Request r;
	double *sb, *rb;
	int size;

	MPI_OK(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size));
	sb = laid_out(t, 1, 1);
	rb = laid_out(t, 1, 0);
	MPI_OK(MPI_Isend(sb, 1, t, t_rank, 23, MPI_COMM_WORLD, &r));
	MPI_OK(MPI_Recv(rb, 1, t, t_rank, 23, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	check_layout("to self", rb, t, 1, size);
	free(sb);
	free(rb);
}

/* Blocks named by absolute address, last block first, from MPI_BOTTOM. */
static void bottom(MPI_Datatype v)
{
	MPI_Aint base, d[NB];
	MPI_Datatype t;
	double *b;
	int k;

	if (t_rank > 1)
		return;
	b = laid_out(v, 1, t_rank == 0);
	MPI_OK(MPI_Get_address(b, &base));
	/* Block k of the message is the vector's block NB - 1 - k. */
	for (k = 0; k < NB; k++)
		d[k] = base + (MPI_Aint)((NB - 1 - k) * SD * sizeof(double));
	MPI_OK(MPI_Type_create_hindexed_block(NB, BD, d, MPI_DOUBLE, &t));
	MPI_OK(MPI_Type_commit(&t));
	if (t_rank == 0) {
		MPI_OK(MPI_Send(MPI_BOTTOM, 1, t, 1, 24, MPI_COMM_WORLD));
	} else {
		double *in = malloc(NDATA * sizeof(double));
		int k2;

		CHECK(in, "out of memory");
		MPI_OK(MPI_Recv(in, NDATA, MPI_DOUBLE, 0, 24, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		for (k = 0; k < NB; k++)
			for (k2 = 0; k2 < BD; k2 += BD - 1)
				CHECK(in[k * BD + k2] ==
				      stream[(NB - 1 - k) * BD + k2],
				      "bottom: block %d: %g", k, in[k * BD + k2]);
		free(in);
	}
	MPI_Type_free(&t);
	free(b);
}

/* Which sends the module holds, and in how many segments. */
static void held(MPI_Datatype v)
{
	MPI_Datatype many, small;
	unsigned int segs;

	/* 1200 blocks of 4 KiB: more runs than an iovec takes (1024). */
	many = vec(1200, BD, 2 * BD);
	/* 512 blocks of 64 bytes, one every 64 blocks: runs too short. */
	small = vec(512, 8, 64 * 8);
	module_holds_segs("vector gathered", v, 1, NDATA * 8LL,
			  iov_is("off") ? 1 : NB);
	module_holds("too many runs packed", many, 1, 1200LL * BD * 8);
	segs = iov_is("on") ? 512 : 1;
	module_holds_segs(segs > 1 ? "short runs gathered (MPICHAN_IOV=on)" :
				     "short runs packed",
			  small, 1, 512LL * 64, segs);
	MPI_Type_free(&many);
	MPI_Type_free(&small);
}

int main(int argc, char **argv)
{
	MPI_Datatype v, half, fine, shorter;

	/* No span is worth offering: every gap goes to this file's path. */
	setenv("MPICHAN_SPAN_SPARSE", "1", 0);
	t_init(&argc, &argv);
	stream_init(1200 * BD);
	v = vec(NB, BD, SD);
	half = vec(2 * NB, BD / 2, SD / 2);
	fine = vec(NDATA, 1, 2);
	shorter = vec(NB / 2, BD, SD);

	if (t_size >= 2) {
		one("same vector", v, 1, v, 1, 0);
		one("into bytes", v, 1, MPI_BYTE, NDATA * 8, 0);
		one("into 2 KiB blocks", v, 1, half, 1, 0);
		one("into 8-byte blocks", v, 1, fine, 1, 0);
		one("truncated into a shorter vector", v, 1, shorter, 1, 0);
		one("truncated into bytes", v, 1, MPI_BYTE, NDATA * 8 / 3 + 5,
		    0);
		one("synchronous", v, 1, v, 1, 1);
		one("from bytes", MPI_BYTE, NDATA * 8, v, 1, 0);
		head_to_head(v, 1);
		persistent_starts(v, NB, BD, SD, 1);
		wildcard(v);
		cancelled(v);
		memlock(v);
		bottom(v);
		/* 1 MiB apart (too sparse for a span): the blocks alone. */
		guarded_send(1 << 20, 16384, iov_is("off") ? 1 : 2);
		held(v);
	}
	to_self(v);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_Type_free(&v);
	MPI_Type_free(&half);
	MPI_Type_free(&fine);
	MPI_Type_free(&shorter);
	free(stream);
	MPI_Finalize();
	if (t_rank == 0)
		printf("iov: ok (%d ranks)\n", t_size);
	return 0;
}
