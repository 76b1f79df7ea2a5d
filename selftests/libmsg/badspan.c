// SPDX-License-Identifier: MIT
// libmsg-test: run-by=badspan.sh
/*
 * A peer's span offer (LM_RTS_SPAN, libmsg/src/rndv_span.c) or layout
 * offer (LM_RTS_LAYOUT, rndv_layout.c) that no sender could have made:
 * the receiver must refuse it with a protocol error, not divide by zero,
 * overflow, recurse without end or read outside the offer.  Rank 0
 * writes a rendezvous request straight into its ring to rank 1 (the
 * library's own ring and message kind: this program is linked against
 * the static library with its internal headers), rank 1 waits for it
 * with MPI_Recv.  badspan.sh expects the job to fail with
 * "protocol error: bad span offer from rank 0" (cases 1-12) or "bad
 * layout offer" (13-25).  Cases 27-30 are control messages naming a
 * send rank 1 never made (the name is the sender's request address:
 * rank 1 must look it up, not follow it): "completion for an unknown
 * send" or "cancel reply for an unknown send".
 *
 *   badspan CASE   (1 block length 0, 2 size not a multiple of the
 *                   block length, 3 stride below the block length,
 *                   4 negative stride, 5 blocks x stride past 2^63;
 *                   offers of several blocks per element (a struct):
 *                   6 more blocks than LM_RTS_BLOCKS, 7 a block of
 *                   length 0, 8 the first block not at 0, 9 blocks
 *                   overlapping, 10 block lengths that do not add up
 *                   to the element's, 11 stride below the last
 *                   block's end, 12 a message too short for its
 *                   blocks;
 *                   layouts, 16 blocks of 64 bytes 128 apart in a
 *                   span of 2048: 13 an element's segment not after
 *                   its parent (a cycle), 14 segments past the last,
 *                   15 an element's length not its segments' sum,
 *                   16 blocks past the span, 17 a block before it,
 *                   18 count 0, 19 a block of length 0, 20 a size
 *                   the segments do not add up to, 21 more segments
 *                   than LM_RTS_SEGS, 22 fewer segments in the message
 *                   than it says, 23 nested deeper than LM_RTS_DEPTH,
 *                   24 count x stride past 2^63, 25 both span and
 *                   layout; 26: rank 0 only checks that the base
 *                   layout the cases break is valid, and nothing fails;
 *                   27 a FIN naming request 0, 28 a FIN naming an
 *                   address in rank 0, 29 an ACK naming one in rank 1
 *                   (its MPI_COMM_WORLD), 30 a cancel reply;
 *                   31 an offer of runs for the module to gather
 *                   (LM_RTS_IOV, rndv_iov.c) naming a module send that
 *                   does not exist, received into a vector: rank 1's
 *                   receive fails with an error class and the job goes
 *                   on ("badspan: case 31 refused"))
 */
#include "p2p/p2p.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char data[4096];

/* Cases 13-26: a layout offer of data, broken as the case says. */
static int bad_layout(int which)
{
	struct lm_rts_seg seg[LM_RTS_SEGS + 1];
	struct lm_rts rts;
	uint32_t k = 2, j;

	memset(&rts, 0, sizeof(rts));
	memset(seg, 0, sizeof(seg));
	rts.flags = LM_RTS_LAYOUT;
	rts.addr = (uintptr_t)data;
	rts.pid = (uint32_t)getpid();
	rts.size = 1024;
	rts.blen = 2048;
	seg[0] = (struct lm_rts_seg){ .stride = 128, .count = 16, .len = 64,
				      .sub = 1, .nsub = 1 };
	seg[1] = (struct lm_rts_seg){ .count = 1, .len = 64 };
	switch (which) {
	case 13: seg[0].sub = 0; break;
	case 14: seg[0].nsub = 2; break;
	case 15: seg[0].len = 32; break;
	case 16: seg[0].stride = 256; break;
	case 17: seg[1].off = -8; break;
	case 18: seg[1].count = 0; break;
	case 19: seg[1].len = 0; seg[0].len = 0; rts.size = 0; break;
	case 20: rts.size = 2048; break;
	case 21: k = LM_RTS_SEGS + 1; break;
	case 23:	/* a chain, each element the next segment */
		k = LM_RTS_DEPTH + 1;
		for (j = 1; j < k; j++)
			seg[j] = (struct lm_rts_seg){ .count = 1, .len = 64,
						      .sub = j + 1, .nsub = 1 };
		seg[k - 1].nsub = 0;
		break;
	case 24: seg[0].count = 1ULL << 62; seg[0].stride = 1LL << 62;
		rts.size = 1ULL << 40; break;
	case 25: rts.flags |= LM_RTS_SPAN; break;
	}
	rts.nblk = k;
	if (which == 26) {	/* the base itself is well formed */
		printf("badspan: the base layout is %s\n",
		       lm_layout_valid(&rts, seg) ? "valid" : "refused");
		return 0;
	}
	return mcr_send2(&lm.job.ep, 1, LM_MSG_RTS, 3, 0, &rts,
				  LM_RTS_FIXED, seg,
				  (which == 22 ? k - 1 : k) * sizeof(seg[0]));
}

/* Case 31: runs offered under a module send's name that nobody made. */
static void bad_runs(int rank)
{
	MPI_Datatype v;
	struct lm_rts rts;
	int err, cls;

	if (rank == 0) {
		memset(&rts, 0, sizeof(rts));
		rts.flags = LM_RTS_IOV | LM_RTS_HANDLE;
		rts.handle = 0x7777;
		rts.addr = (uintptr_t)data;
		rts.pid = (uint32_t)getpid();
		rts.size = 1024;
		if (mcr_send(&lm.job.ep, 1, LM_MSG_RTS, 3, 0, &rts,
				      lm_rts_wire_len(&rts)))
			MPI_Abort(MPI_COMM_WORLD, 3);
		lm_notify(&lm.job, 1);
		return;
	}
	MPI_Type_vector(16, 64, 128, MPI_BYTE, &v);
	MPI_Type_commit(&v);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	err = MPI_Recv(data, 1, v, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Error_class(err, &cls);
	if (err == MPI_SUCCESS)
		printf("badspan: rank 1 accepted case 31\n");
	else
		printf("badspan: case 31 refused (class %d)\n", cls);
	fflush(stdout);
	MPI_Type_free(&v);
}

int main(int argc, char **argv)
{
	int which = argc > 1 ? atoi(argv[1]) : 0, rank, size;
	struct lm_rts rts;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || which < 1 || which > 31) {
		fprintf(stderr, "badspan: run with 2 ranks and a case 1-31\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (which == 26) {
		if (rank == 0)
			bad_layout(which);
	} else if (which == 31) {
		bad_runs(rank);
	} else if (rank == 0 && which >= 27) {
		static const uint16_t kinds[] = {
			LM_MSG_FIN, LM_MSG_FIN, LM_MSG_ACK, LM_MSG_CANCEL_REPLY
		};
		uint64_t names[] = {
			0, (uintptr_t)&rts, (uintptr_t)MPI_COMM_WORLD, 12345
		};

		lm_send_ctl(1, kinds[which - 27], names[which - 27], 0);
		lm_notify(&lm.job, 1);
	} else if (rank == 0 && which >= 13) {
		if (bad_layout(which))
			MPI_Abort(MPI_COMM_WORLD, 3);
		lm_notify(&lm.job, 1);
	} else if (rank == 0) {
		memset(&rts, 0, sizeof(rts));
		rts.flags = LM_RTS_SPAN;
		rts.addr = (uintptr_t)data;
		rts.pid = (uint32_t)getpid();
		rts.size = 1024;
		rts.blen = 64;
		rts.stride = 128;
		switch (which) {
		case 1: rts.blen = 0; break;
		case 2: rts.blen = 100; break;
		case 3: rts.stride = 32; break;
		case 4: rts.stride = -128; break;
		case 5: rts.size = 1ULL << 40; rts.blen = 1;
			rts.stride = 1LL << 40; break;
		}
		if (which >= 6) {	/* blocks {0, 32} and {64, 32} */
			rts.nblk = 2;
			rts.blk[0].len = 32;
			rts.blk[1].off = 64;
			rts.blk[1].len = 32;
		}
		switch (which) {
		case 6: rts.nblk = LM_RTS_BLOCKS + 1; break;
		case 7: rts.blk[1].len = 0; break;
		case 8: rts.blk[0].off = 8; break;
		case 9: rts.blk[1].off = 16; break;
		case 10: rts.blk[1].len = 16; break;
		case 11: rts.stride = 90; break;
		}
		/* MPI_COMM_WORLD's point-to-point context is 0. */
		if (mcr_send(&lm.job.ep, 1, LM_MSG_RTS, 3, 0, &rts,
				      which == 12 ? lm_rts_wire_len(&rts) - 1 :
				      (uint32_t)sizeof(rts)))
			MPI_Abort(MPI_COMM_WORLD, 3);
		lm_notify(&lm.job, 1);
	} else {
		MPI_Recv(data, sizeof(data), MPI_BYTE, 0, 3, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		printf("badspan: rank 1 accepted case %d\n", which);
	}
	/* Rank 1 must have stopped (but for case 26); the launcher ends
	 * rank 0 then. */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
