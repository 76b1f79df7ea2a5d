// SPDX-License-Identifier: MIT
/*
 * A peer's span offer (LM_RTS_SPAN, libmsg/src/rndv_span.c) that no
 * sender could have made: the receiver must refuse it with a protocol
 * error, not divide by zero, overflow or read outside the offer.  Rank 0
 * writes a rendezvous request straight into its ring to rank 1 (the
 * library's own ring and message kind: this program is linked against
 * the static library with its internal headers), rank 1 waits for it
 * with MPI_Recv.  The run script expects the job to fail with
 * "protocol error: bad span offer from rank 0".
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
 *                   blocks)
 */
#include "lm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char data[4096];
	int which = argc > 1 ? atoi(argv[1]) : 0, rank, size;
	struct lm_rts rts;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || which < 1 || which > 12) {
		fprintf(stderr, "badspan: run with 2 ranks and a case 1-12\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (rank == 0) {
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
		if (mpichan_ring_send(&lm.job.ep, 1, LM_MSG_RTS, 3, 0, &rts,
				      which == 12 ? lm_rts_wire_len(&rts) - 1 :
				      (uint32_t)sizeof(rts)))
			MPI_Abort(MPI_COMM_WORLD, 3);
		lm_notify(&lm.job, 1);
	} else {
		MPI_Recv(data, sizeof(data), MPI_BYTE, 0, 3, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		printf("badspan: rank 1 accepted case %d\n", which);
	}
	/* Rank 1 must have stopped; the launcher ends rank 0 then. */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
