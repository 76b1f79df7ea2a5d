/* SPDX-License-Identifier: MIT */
/*
 * intercoll_body.h: the checks intercoll.c (blocking collectives) and
 * intercoll_nb.c (nonblocking and persistent ones) both run on an
 * intercommunicator: rooted() and all().  Each call is written
 * COLL(blocking call, I call, _init call, receive buffer, ints in it),
 * and the includer defines COLL to make the form it tests (the I and
 * _init calls take the request _r).
 */
#ifndef LIBMSG_INTERCOLL_BODY_H
#define LIBMSG_INTERCOLL_BODY_H

#include "intercoll_util.h"

static void rooted(MPI_Comm ic)
{
	int ra = !t_in_a, me = t_lrank(), rs = t_rsize(), ls, root, side;
	int *buf, *big, i, r, *cnt, *dsp;
	MPI_Comm_size(ic, &ls);

	buf = ints(N);
	big = ints(N * rs);
	cnt = ints(rs);
	dsp = ints(rs);
	for (side = 0; side < 2; side++) {		/* root in A, then B */
		int mine = side == 0 ? t_in_a : !t_in_a;
		int nroot = side == 0 ? t_na : t_nb;

		for (root = 0; root < nroot; root++) {
			int at_root = mine && me == root;
			int rarg = mine ? (at_root ? MPI_ROOT : MPI_PROC_NULL)
					: root;

			/* Bcast */
			for (i = 0; i < N; i++)
				buf[i] = at_root ? val(!ra, me, i) : POISON;
			COLL(MPI_Bcast(buf, N, MPI_INT, rarg, ic),
		   MPI_Ibcast(buf, N, MPI_INT, rarg, ic, &_r),
		   MPI_Bcast_init(buf, N, MPI_INT, rarg, ic, MPI_INFO_NULL, &_r),
		   buf, at_root ? 0 : N);
			for (i = 0; i < N; i++)
				CHECK(buf[i] == (mine ? (at_root ? val(!ra, me, i)
							 : POISON)
						 : val(ra, root, i)),
				      "bcast root %d side %d: [%d] = %d", root,
				      side, i, buf[i]);
			/* Gather */
			for (i = 0; i < N; i++)
				buf[i] = val(!ra, me, i);
			for (i = 0; i < N * rs; i++)
				big[i] = POISON;
			COLL(MPI_Gather(buf, N, MPI_INT, big, N, MPI_INT, rarg, ic),
		   MPI_Igather(buf, N, MPI_INT, big, N, MPI_INT, rarg, ic, &_r),
		   MPI_Gather_init(buf, N, MPI_INT, big, N, MPI_INT, rarg, ic, MPI_INFO_NULL, &_r),
		   big, N * rs);
			for (r = 0; r < rs; r++)
				for (i = 0; i < N; i++)
					CHECK(big[r * N + i] == (at_root ?
						 val(ra, r, i) : POISON),
					      "gather root %d: [%d][%d] = %d",
					      root, r, i, big[r * N + i]);
			/* Gatherv: remote r sends r % 3 + 1 ints, reversed places. */
			for (r = 0; r < rs; r++)
				cnt[r] = r % 3 + 1;
			for (r = rs - 1, i = 0; r >= 0; r--) {
				dsp[r] = i;
				i += cnt[r];
			}
			for (i = 0; i < N * rs; i++)
				big[i] = POISON;
			COLL(MPI_Gatherv(buf, me % 3 + 1, MPI_INT, big, cnt, dsp, MPI_INT, rarg, ic),
		   MPI_Igatherv(buf, me % 3 + 1, MPI_INT, big, cnt, dsp, MPI_INT, rarg, ic, &_r),
		   MPI_Gatherv_init(buf, me % 3 + 1, MPI_INT, big, cnt, dsp, MPI_INT, rarg, ic, MPI_INFO_NULL, &_r),
		   big, N * rs);
			if (at_root)
				for (r = 0; r < rs; r++)
					for (i = 0; i < cnt[r]; i++)
						CHECK(big[dsp[r] + i] == val(ra, r, i),
						      "gatherv root %d: from %d [%d] = %d",
						      root, r, i, big[dsp[r] + i]);
			/* Scatter */
			for (i = 0; i < N * rs; i++)
				big[i] = at_root ? val(!ra, me, i) : POISON;
			for (i = 0; i < N; i++)
				buf[i] = POISON;
			COLL(MPI_Scatter(big, N, MPI_INT, buf, N, MPI_INT, rarg, ic),
		   MPI_Iscatter(big, N, MPI_INT, buf, N, MPI_INT, rarg, ic, &_r),
		   MPI_Scatter_init(big, N, MPI_INT, buf, N, MPI_INT, rarg, ic, MPI_INFO_NULL, &_r),
		   buf, N);
			for (i = 0; i < N; i++)
				CHECK(buf[i] == (mine ? POISON :
						 val(ra, root, me * N + i)),
				      "scatter root %d: [%d] = %d", root, i,
				      buf[i]);
			/* Scatterv, the same shape as gatherv's */
			for (i = 0; i < N; i++)
				buf[i] = POISON;
			COLL(MPI_Scatterv(big, cnt, dsp, MPI_INT, buf, me % 3 + 1, MPI_INT, rarg, ic),
		   MPI_Iscatterv(big, cnt, dsp, MPI_INT, buf, me % 3 + 1, MPI_INT, rarg, ic, &_r),
		   MPI_Scatterv_init(big, cnt, dsp, MPI_INT, buf, me % 3 + 1, MPI_INT, rarg, ic, MPI_INFO_NULL, &_r),
		   buf, N);
			if (!mine)
				for (i = 0; i < me % 3 + 1; i++) {
					int d = 0;

					for (r = ls - 1; r > me; r--)
						d += r % 3 + 1;
					CHECK(buf[i] == val(ra, root, d + i),
					      "scatterv root %d: [%d] = %d", root,
					      i, buf[i]);
				}
			/* Reduce: the sum of the other group's values */
			for (i = 0; i < N; i++)
				buf[i] = val(!ra, me, i);
			for (i = 0; i < N; i++)
				big[i] = POISON;
			COLL(MPI_Reduce(buf, big, N, MPI_INT, MPI_SUM, rarg, ic),
		   MPI_Ireduce(buf, big, N, MPI_INT, MPI_SUM, rarg, ic, &_r),
		   MPI_Reduce_init(buf, big, N, MPI_INT, MPI_SUM, rarg, ic, MPI_INFO_NULL, &_r),
		   big, N);
			for (i = 0; i < N; i++) {
				int want = 0;

				for (r = 0; r < rs; r++)
					want += val(ra, r, i);
				CHECK(big[i] == (at_root ? want : POISON),
				      "reduce root %d: [%d] = %d", root, i,
				      big[i]);
			}
		}
	}
	free(buf);
	free(big);
	free(cnt);
	free(dsp);
}

static void all(MPI_Comm ic)
{
	int ra = !t_in_a, me = t_lrank(), rs = t_rsize(), ls, i, r, want;
	int *s, *d, *sc, *sd, *rc, *rd;
	MPI_Datatype *st, *rt, vec;
	MPI_Op op;

	MPI_Comm_size(ic, &ls);
	s = ints(N * (rs + ls));
	d = ints(N * (rs + ls));
	sc = ints(rs + ls);
	sd = ints(rs + ls);
	rc = ints(rs + ls);
	rd = ints(rs + ls);
	st = malloc((size_t)rs * sizeof(*st));
	rt = malloc((size_t)rs * sizeof(*rt));
	CHECK(st && rt, "no memory");

	COLL(MPI_Barrier(ic),
		   MPI_Ibarrier(ic, &_r),
		   MPI_Barrier_init(ic, MPI_INFO_NULL, &_r),
		   NULL, 0);
	/* Allgather, with a vector type of every other int on the send side. */
	for (i = 0; i < 2 * N; i++)
		s[i] = i % 2 ? POISON : val(!ra, me, i / 2);
	MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
	MPI_OK(MPI_Type_commit(&vec));
	COLL(MPI_Allgather(s, 1, vec, d, N, MPI_INT, ic),
		   MPI_Iallgather(s, 1, vec, d, N, MPI_INT, ic, &_r),
		   MPI_Allgather_init(s, 1, vec, d, N, MPI_INT, ic, MPI_INFO_NULL, &_r),
		   d, N * rs);
	for (r = 0; r < rs; r++)
		for (i = 0; i < N; i++)
			CHECK(d[r * N + i] == val(ra, r, i),
			      "allgather [%d][%d] = %d", r, i, d[r * N + i]);
	/* Allgatherv: remote r sends r + 1 ints (at most N). */
	for (i = 0; i < N; i++)
		s[i] = val(!ra, me, i);
	for (r = 0, i = 0; r < rs; r++) {
		rc[r] = r % N + 1;
		rd[r] = i;
		i += rc[r];
	}
	COLL(MPI_Allgatherv(s, me % N + 1, MPI_INT, d, rc, rd, MPI_INT, ic),
		   MPI_Iallgatherv(s, me % N + 1, MPI_INT, d, rc, rd, MPI_INT, ic, &_r),
		   MPI_Allgatherv_init(s, me % N + 1, MPI_INT, d, rc, rd, MPI_INT, ic, MPI_INFO_NULL, &_r),
		   d, N * rs);
	for (r = 0; r < rs; r++)
		for (i = 0; i < rc[r]; i++)
			CHECK(d[rd[r] + i] == val(ra, r, i),
			      "allgatherv from %d [%d] = %d", r, i, d[rd[r] + i]);
	/* Alltoall: block r goes to remote r. */
	for (r = 0; r < rs; r++)
		for (i = 0; i < N; i++)
			s[r * N + i] = val(!ra, me, r * N + i);
	COLL(MPI_Alltoall(s, N, MPI_INT, d, N, MPI_INT, ic),
		   MPI_Ialltoall(s, N, MPI_INT, d, N, MPI_INT, ic, &_r),
		   MPI_Alltoall_init(s, N, MPI_INT, d, N, MPI_INT, ic, MPI_INFO_NULL, &_r),
		   d, N * rs);
	for (r = 0; r < rs; r++)
		for (i = 0; i < N; i++)
			CHECK(d[r * N + i] == val(ra, r, me * N + i),
			      "alltoall from %d [%d] = %d", r, i, d[r * N + i]);
	/* Alltoallv: (me + r) % 3 + 1 ints of block r to remote r, into
	 * reversed places. */
	for (r = 0; r < rs; r++) {
		sc[r] = (me + r) % 3 + 1;
		sd[r] = r * N;
		rc[r] = (r + me) % 3 + 1;
		rd[r] = (rs - 1 - r) * N;
		st[r] = MPI_INT;
		rt[r] = MPI_INT;
	}
	for (i = 0; i < N * rs; i++)
		d[i] = POISON;
	COLL(MPI_Alltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, ic),
		   MPI_Ialltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, ic, &_r),
		   MPI_Alltoallv_init(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, ic, MPI_INFO_NULL, &_r),
		   d, N * rs);
	for (r = 0; r < rs; r++)
		for (i = 0; i < rc[r]; i++)
			CHECK(d[rd[r] + i] == val(ra, r, me * N + i),
			      "alltoallv from %d [%d] = %d", r, i, d[rd[r] + i]);
	/* Alltoallw: the same in bytes. */
	for (r = 0; r < rs; r++) {
		sd[r] *= (int)sizeof(int);
		rd[r] *= (int)sizeof(int);
	}
	for (i = 0; i < N * rs; i++)
		d[i] = POISON;
	COLL(MPI_Alltoallw(s, sc, sd, st, d, rc, rd, rt, ic),
		   MPI_Ialltoallw(s, sc, sd, st, d, rc, rd, rt, ic, &_r),
		   MPI_Alltoallw_init(s, sc, sd, st, d, rc, rd, rt, ic, MPI_INFO_NULL, &_r),
		   d, N * rs);
	for (r = 0; r < rs; r++)
		for (i = 0; i < rc[r]; i++)
			CHECK(d[rd[r] / (int)sizeof(int) + i] ==
			      val(ra, r, me * N + i),
			      "alltoallw from %d [%d]", r, i);

	/* Allreduce, in rank order: the other group's rank 0's value. */
	MPI_OK(MPI_Op_create(first_op, 0, &op));
	for (i = 0; i < N; i++)
		s[i] = (t_world_of(!ra, me) + i) % 9 + 1;
	COLL(MPI_Allreduce(s, d, N, MPI_INT, op, ic),
		   MPI_Iallreduce(s, d, N, MPI_INT, op, ic, &_r),
		   MPI_Allreduce_init(s, d, N, MPI_INT, op, ic, MPI_INFO_NULL, &_r),
		   d, N);
	for (i = 0; i < N; i++)
		CHECK(d[i] == (t_world_of(ra, 0) + i) % 9 + 1,
		      "allreduce, first: [%d] = %d", i, d[i]);
	COLL(MPI_Allreduce(s, d, N, MPI_INT, MPI_SUM, ic),
		   MPI_Iallreduce(s, d, N, MPI_INT, MPI_SUM, ic, &_r),
		   MPI_Allreduce_init(s, d, N, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &_r),
		   d, N);
	for (i = 0; i < N; i++) {
		want = 0;
		for (r = 0; r < rs; r++)
			want += (t_world_of(ra, r) + i) % 9 + 1;
		CHECK(d[i] == want, "allreduce [%d] = %d, want %d", i, d[i], want);
	}
	/*
	 * Reduce_scatter(_block): the vectors have the same length in
	 * both groups, ls * rs: rs elements to each local rank.
	 */
	for (i = 0; i < ls * rs; i++)
		s[i] = val(!ra, me, i);
	COLL(MPI_Reduce_scatter_block(s, d, rs, MPI_INT, MPI_SUM, ic),
		   MPI_Ireduce_scatter_block(s, d, rs, MPI_INT, MPI_SUM, ic, &_r),
		   MPI_Reduce_scatter_block_init(s, d, rs, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &_r),
		   d, rs);
	for (i = 0; i < rs; i++) {
		want = 0;
		for (r = 0; r < rs; r++)
			want += val(ra, r, me * rs + i);
		CHECK(d[i] == want, "reduce_scatter_block [%d] = %d", i, d[i]);
	}
	for (r = 0; r < ls; r++)
		rc[r] = rs;
	for (i = 0; i < rs; i++)
		d[i] = POISON;
	COLL(MPI_Reduce_scatter(s, d, rc, MPI_INT, MPI_SUM, ic),
		   MPI_Ireduce_scatter(s, d, rc, MPI_INT, MPI_SUM, ic, &_r),
		   MPI_Reduce_scatter_init(s, d, rc, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &_r),
		   d, rs);
	for (i = 0; i < rs; i++) {
		want = 0;
		for (r = 0; r < rs; r++)
			want += val(ra, r, me * rs + i);
		CHECK(d[i] == want, "reduce_scatter [%d] = %d", i, d[i]);
	}
	MPI_OK(MPI_Op_free(&op));
	MPI_OK(MPI_Type_free(&vec));
	free(s);
	free(d);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(st);
	free(rt);
}

#endif
