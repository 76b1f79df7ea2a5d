// SPDX-License-Identifier: MIT
/*
 * Epochs of several windows open at once, each window its own flavor:
 * a passive epoch (MPI_Win_lock_all) on one, fence epochs on another,
 * PSCW on a third and exclusive locks on a fourth, their operations
 * interleaved, each epoch ended in its own time; every window's data is
 * then checked.  A window's epochs do not leak into another's: a lock
 * held on one does not let an operation through on another
 * (MPI_ERR_RMA_SYNC), and one window's fence does not end another's
 * PSCW epoch.  Windows of a communicator that is not MPI_COMM_WORLD
 * (the even and the odd ranks) are used at the same time.
 */
#include "rma_util.h"

#define BLK 8

int main(int argc, char **argv)
{
	int right, left, i, k, src[BLK], *m[4], x = 0;
	struct t_win pw, fw, sw, lw, hw;
	MPI_Group world, gl, gr;
	MPI_Comm half;
	int hr, hn;

	t_init(&argc, &argv);
	right = (t_rank + 1) % t_size;
	left = (t_rank + t_size - 1) % t_size;
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
	MPI_OK(MPI_Group_incl(world, 1, &left, &gl));
	MPI_OK(MPI_Group_incl(world, 1, &right, &gr));
	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half));
	MPI_OK(MPI_Comm_rank(half, &hr));
	MPI_OK(MPI_Comm_size(half, &hn));

	t_win_make(&pw, T_ALLOCATE, 4 * BLK * 4, 4, MPI_COMM_WORLD);
	t_win_make(&fw, T_CREATE, 4 * BLK * 4, 4, MPI_COMM_WORLD);
	t_win_make(&sw, T_DYNAMIC, 4 * BLK * 4, 4, MPI_COMM_WORLD);
	t_win_make(&lw, T_SHARED, 4 * BLK * 4, 4, MPI_COMM_WORLD);
	t_win_make(&hw, T_CREATE, 4 * BLK * 4, 4, half);
	m[0] = pw.base;
	m[1] = fw.base;
	m[2] = sw.base;
	m[3] = lw.base;

	for (k = 0; k < 3; k++) {
		MPI_OK(MPI_Win_lock_all(0, pw.win));
		MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, fw.win));
		MPI_OK(MPI_Win_post(gl, 0, sw.win));
		MPI_OK(MPI_Win_start(gr, 0, sw.win));
		MPI_OK(MPI_Win_fence(0, hw.win));

		/* The lock of pw lets nothing through on lw. */
		T_EXPECT(MPI_Put(&x, 1, MPI_INT, right, 0, 1, MPI_INT, lw.win),
			 MPI_ERR_RMA_SYNC, "MPI_Put on a window without an epoch");
		for (i = 0; i < BLK; i++) {
			src[i] = k * 10000 + t_rank * 100 + i;
			MPI_OK(MPI_Put(&src[i], 1, MPI_INT, right,
				       t_disp(&pw, right, (size_t)i * 4), 1,
				       MPI_INT, pw.win));
			MPI_OK(MPI_Put(&src[i], 1, MPI_INT, right,
				       t_disp(&fw, right, (size_t)i * 4), 1,
				       MPI_INT, fw.win));
			MPI_OK(MPI_Put(&src[i], 1, MPI_INT, right,
				       t_disp(&sw, right, (size_t)i * 4), 1,
				       MPI_INT, sw.win));
			MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, lw.win));
			MPI_OK(MPI_Put(&src[i], 1, MPI_INT, right,
				       t_disp(&lw, right, (size_t)i * 4), 1,
				       MPI_INT, lw.win));
			MPI_OK(MPI_Win_unlock(right, lw.win));
			MPI_OK(MPI_Accumulate(&src[i], 1, MPI_INT, (hr + 1) % hn,
					      t_disp(&hw, (hr + 1) % hn,
						     (size_t)i * 4),
					      1, MPI_INT, MPI_REPLACE, hw.win));
		}
		/* Ended in another order than begun. */
		MPI_OK(MPI_Win_complete(sw.win));
		MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, fw.win));
		MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, hw.win));
		MPI_OK(MPI_Win_unlock_all(pw.win));
		MPI_OK(MPI_Win_wait(sw.win));
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
		for (i = 0; i < BLK; i++) {
			int want = k * 10000 + left * 100 + i, w;

			for (w = 0; w < 4; w++)
				CHECK(m[w][i] == want, "round %d: window %d int %d: %d, expected %d",
				      k, w, i, m[w][i], want);
			/* hw: from the left-hand member of the half. */
			{
				int hl = (hr + hn - 1) % hn, wl;
				MPI_Group hg;

				MPI_OK(MPI_Comm_group(half, &hg));
				MPI_OK(MPI_Group_translate_ranks(hg, 1, &hl, world, &wl));
				MPI_OK(MPI_Group_free(&hg));
				CHECK(((int *)hw.base)[i] == k * 10000 + wl * 100 + i,
				      "round %d: the half's window int %d: %d", k, i,
				      ((int *)hw.base)[i]);
			}
		}
		MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	}
	t_win_free(&hw);
	t_win_free(&lw);
	t_win_free(&sw);
	t_win_free(&fw);
	t_win_free(&pw);
	MPI_OK(MPI_Comm_free(&half));
	MPI_OK(MPI_Group_free(&gl));
	MPI_OK(MPI_Group_free(&gr));
	MPI_OK(MPI_Group_free(&world));
	if (t_rank == 0)
		printf("rma_epochs: ok\n");
	return t_done();
}
