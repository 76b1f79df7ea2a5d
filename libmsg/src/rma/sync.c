// SPDX-License-Identifier: MIT
/*
 * Synchronisation of one-sided communication: fence and PSCW (post,
 * start, complete, wait, test); passive target (lock, unlock,
 * lock_all, unlock_all, the flushes, MPI_Win_sync) is locks.c.
 *
 * Every operation is complete at the target when its call returns
 * (ops.c), so ending an epoch only orders memory and tells whoever
 * waits:
 *
 * - Fence: a full memory barrier and a barrier on the window's
 *   communicator (the collective area: no message).
 * - PSCW: MPI_Win_post sends each origin of its group an empty message
 *   (tag LM_WIN_TAG_POST on the window's communicator) and posts the
 *   receives of their "complete"; MPI_Win_start waits for the posts
 *   of its targets (unless MPI_MODE_NOCHECK), MPI_Win_complete sends
 *   each target its "complete", MPI_Win_wait/test wait for them.
 */

#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"

/* ---- Checks every synchronisation call makes ------------------------------ */

int lm_win_check_sync(MPI_Win win, const char *fn, int assert, int allowed)
{
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (assert & ~allowed)
		return lm_werr(win, fn, MPI_ERR_ASSERT,
			       "assert %#x has bits %s does not take", assert,
			       fn);
	return MPI_SUCCESS;
}

/* A target rank argument: MPI_SUCCESS, or 1 for MPI_PROC_NULL. */
int lm_win_check_rank(MPI_Win win, const char *fn, int rank, int *err)
{
	*err = MPI_SUCCESS;
	if (rank == MPI_PROC_NULL)
		return 1;
	if (rank < 0 || rank >= win->size) {
		*err = lm_werr(win, fn, MPI_ERR_RANK,
			       "rank %d is not in the window (of %d)", rank,
			       win->size);
		return 1;
	}
	return 0;
}

/* A new epoch may not start inside a fence epoch that was used. */
int lm_win_fence_over(MPI_Win win, const char *fn)
{
	if (win->fence && win->fence_ops)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "operations were made since the last MPI_Win_fence: end that epoch with a fence first");
	win->fence = 0;
	return MPI_SUCCESS;
}

/* A peer is gone, or an operation found it so: report it once. */
int lm_win_peer_failed(struct libmsg_win *win, int t)
{
	int f = win->peer[t].failed;

	win->peer[t].failed = 0;
	return f || lm_rma_rank_gone(win->peer[t].world);
}

/* ---- Fence ----------------------------------------------------------------- */

int MPI_Win_fence(int assert, MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_fence";
	int err = lm_win_check_sync(win, fn, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT |
			MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED);

	if (err)
		return err;
	if (win->nlocks || win->lock_all || win->started || win->posted)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "a fence inside a %s epoch",
			       win->started || win->posted ? "PSCW" :
			       "passive target (lock)");
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	err = MPI_Barrier(win->comm);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	win->fence = !(assert & MPI_MODE_NOSUCCEED);
	win->fence_ops = 0;
	if (err)
		return lm_werr(win, fn, err,
			       "the fence's barrier failed (a member of the window is gone)");
	return MPI_SUCCESS;
}

/* ---- PSCW -------------------------------------------------------------------- */

/*
 * The window ranks of group's members in *ranks (n of them), or an
 * error raised.
 */
static int group_ranks(MPI_Win win, const char *fn, MPI_Group group,
		       int **ranks, int *n)
{
	int err = lm_check_group(group, fn), i, r;
	int *v;

	if (err)
		return err;
	v = malloc(((size_t)group->size + 1) * sizeof(*v));
	if (!v)
		return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < group->size; i++) {
		r = lm_comm_local(win->comm, group->world[i]);
		if (r < 0) {
			free(v);
			return lm_werr(win, fn, MPI_ERR_GROUP,
				       "world rank %d of the group is not in the window",
				       group->world[i]);
		}
		v[i] = r;
	}
	*ranks = v;
	*n = group->size;
	return MPI_SUCCESS;
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_start";
	int err = lm_win_check_sync(win, fn, assert, MPI_MODE_NOCHECK), n, i, *ranks;

	if (err)
		return err;
	if (win->started)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "an access epoch (MPI_Win_start) is open already");
	if (win->nlocks || win->lock_all)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "inside a passive target epoch (lock)");
	if ((err = lm_win_fence_over(win, fn)))
		return err;
	if ((err = group_ranks(win, fn, group, &ranks, &n)))
		return err;
	for (i = 0; i < n && !(assert & MPI_MODE_NOCHECK); i++) {
		err = MPI_Recv(NULL, 0, MPI_BYTE, ranks[i], LM_WIN_TAG_POST,
			       win->comm, MPI_STATUS_IGNORE);
		if (err) {
			int bad = ranks[i];

			free(ranks);
			return lm_werr(win, fn, err,
				       "no post from target rank %d (gone?)",
				       bad);
		}
	}
	memset(win->in_start, 0, (size_t)win->size);
	for (i = 0; i < n; i++)
		win->in_start[ranks[i]] = 1;
	free(ranks);
	win->nstart = n;
	win->started = 1;
	return MPI_SUCCESS;
}

int MPI_Win_complete(MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_complete";
	int err = lm_check_win(win, fn), t, first = MPI_SUCCESS, bad = -1;

	if (err)
		return err;
	if (!win->started)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "no access epoch: MPI_Win_start was not called");
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (t = 0; t < win->size; t++) {
		if (!win->in_start[t])
			continue;
		win->in_start[t] = 0;
		err = MPI_Send(NULL, 0, MPI_BYTE, t, LM_WIN_TAG_DONE, win->comm);
		if (!err && lm_win_peer_failed(win, t))
			err = MPI_ERR_PROC_FAILED;
		if (err && !first) {
			first = err;
			bad = t;
		}
	}
	win->started = 0;
	win->nstart = 0;
	if (first)
		return lm_werr(win, fn, first, "target rank %d is gone", bad);
	return MPI_SUCCESS;
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_post";
	int err = lm_win_check_sync(win, fn, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE |
			MPI_MODE_NOPUT), n, i, *ranks;
	MPI_Request *r;

	if (err)
		return err;
	if (win->posted)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "an exposure epoch (MPI_Win_post) is open already");
	if ((err = lm_win_fence_over(win, fn)))
		return err;
	if ((err = group_ranks(win, fn, group, &ranks, &n)))
		return err;
	r = malloc(2 * ((size_t)n + 1) * sizeof(*r));
	if (!r) {
		free(ranks);
		return lm_werr(win, fn, MPI_ERR_NO_MEM, "out of memory");
	}
	/* Local stores before the post are seen by the origins' accesses. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < 2 * n; i++)
		r[i] = MPI_REQUEST_NULL;
	for (i = 0; i < n; i++) {
		err = MPI_Irecv(NULL, 0, MPI_BYTE, ranks[i], LM_WIN_TAG_DONE,
				win->comm, &r[i]);
		if (!err && !(assert & MPI_MODE_NOCHECK))
			err = MPI_Isend(NULL, 0, MPI_BYTE, ranks[i],
					LM_WIN_TAG_POST, win->comm, &r[n + i]);
		if (err) {
			int bad = ranks[i];

			for (i = 0; i < 2 * n; i++) {
				if (r[i] == MPI_REQUEST_NULL)
					continue;
				MPI_Cancel(&r[i]);
				MPI_Request_free(&r[i]);
			}
			free(r);
			free(ranks);
			return lm_werr(win, fn, err, "origin rank %d is gone",
				       bad);
		}
	}
	win->post = ranks;
	win->npost = n;
	win->post_reqs = r;
	win->posted = 1;
	return MPI_SUCCESS;
}

static int post_over(MPI_Win win, const char *fn, int err)
{
	free(win->post);
	free(win->post_reqs);
	win->post = NULL;
	win->post_reqs = NULL;
	win->npost = 0;
	win->posted = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (err)
		return lm_werr(win, fn, err == MPI_ERR_IN_STATUS ?
			       MPI_ERR_PROC_FAILED : err,
			       "an origin of the exposure epoch is gone");
	return MPI_SUCCESS;
}

int MPI_Win_wait(MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_wait";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (!win->posted)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "no exposure epoch: MPI_Win_post was not called");
	err = MPI_Waitall(2 * win->npost, win->post_reqs, MPI_STATUSES_IGNORE);
	return post_over(win, fn, err);
}

int MPI_Win_test(MPI_Win win, int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPI_Win_test";
	int err = lm_check_win(win, fn);

	if (err)
		return err;
	if (!flag)
		return lm_werr(win, fn, MPI_ERR_ARG, "flag is NULL");
	if (!win->posted)
		return lm_werr(win, fn, MPI_ERR_RMA_SYNC,
			       "no exposure epoch: MPI_Win_post was not called");
	err = MPI_Testall(2 * win->npost, win->post_reqs, flag,
			  MPI_STATUSES_IGNORE);
	if (!*flag && !err)
		return MPI_SUCCESS;
	*flag = 1;
	return post_over(win, fn, err);
}

/* ---- Passive target ---------------------------------------------------------- */
