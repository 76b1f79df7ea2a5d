// SPDX-License-Identifier: MIT
/*
 * Nonblocking and persistent collectives on intercommunicators
 * (MPI-3.1 5.2.2 and 5.12, MPI-4.0 6.13; libmsg/src/coll/
 * coll_inter_nb*.c), between the low and the high half of the job
 * (sizes differ at odd rank counts), as intercoll.c checks the
 * blocking ones:
 *   - every call's data, both directions, the rooted ones with the
 *     root at each rank of each group (MPI_ROOT there, MPI_PROC_NULL
 *     in the rest of its group, whose buffers stay untouched), as
 *     MPI_I... then MPI_Wait, and as MPI_..._init started and waited
 *     for three times (the receive buffers poisoned between starts);
 *   - truly nonblocking: a process of one group issues MPI_Ibarrier and
 *     then a synchronous send to the other group, whose processes
 *     receive it before they call MPI_Ibarrier (a barrier run inside
 *     the I call would never return);
 *   - overlapped requests on two intercommunicators, issued in
 *     opposite orders by the two groups and waited for in reverse;
 *   - Scan, Exscan and neighbourhood collectives, nonblocking and
 *     persistent, are MPI_ERR_COMM on an intercommunicator.
 */
// libmsg-test: np=2,3,4,8 builds=plain,asan
#include "intercoll_util.h"

static int mode;	/* 0: MPI_I... and MPI_Wait; 1: _init and starts */
#define REPEAT 3

/*
 * icall (an I form) or pcall (its _init, started REPEAT times), both
 * with request _r; before each restart n ints of rb become POISON.
 */
#define NB(icall, pcall, rb, n) do {					\
	MPI_Request _r = MPI_REQUEST_NULL;				\
	int _k, _j;							\
	if (!mode) {							\
		MPI_OK(icall);						\
		MPI_OK(MPI_Wait(&_r, MPI_STATUS_IGNORE));		\
		CHECK(_r == MPI_REQUEST_NULL, "request left");		\
		break;							\
	}								\
	MPI_OK(pcall);							\
	for (_k = 0; _k < REPEAT; _k++) {				\
		for (_j = 0; _k && _j < (n); _j++)			\
			((int *)(rb))[_j] = POISON;			\
		MPI_OK(MPI_Start(&_r));					\
		MPI_OK(MPI_Wait(&_r, MPI_STATUS_IGNORE));		\
	}								\
	MPI_OK(MPI_Request_free(&_r));					\
} while (0)

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
			NB(MPI_Ibcast(buf, N, MPI_INT, rarg, ic, &_r),
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
			NB(MPI_Igather(buf, N, MPI_INT, big, N, MPI_INT, rarg, ic, &_r),
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
			NB(MPI_Igatherv(buf, me % 3 + 1, MPI_INT, big, cnt, dsp, MPI_INT, rarg, ic, &_r),
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
			NB(MPI_Iscatter(big, N, MPI_INT, buf, N, MPI_INT, rarg, ic, &_r),
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
			NB(MPI_Iscatterv(big, cnt, dsp, MPI_INT, buf, me % 3 + 1, MPI_INT, rarg, ic, &_r),
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
			NB(MPI_Ireduce(buf, big, N, MPI_INT, MPI_SUM, rarg, ic, &_r),
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

	NB(MPI_Ibarrier(ic, &_r),
		   MPI_Barrier_init(ic, MPI_INFO_NULL, &_r),
		   NULL, 0);
	/* Allgather, with a vector type of every other int on the send side. */
	for (i = 0; i < 2 * N; i++)
		s[i] = i % 2 ? POISON : val(!ra, me, i / 2);
	MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
	MPI_OK(MPI_Type_commit(&vec));
	NB(MPI_Iallgather(s, 1, vec, d, N, MPI_INT, ic, &_r),
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
	NB(MPI_Iallgatherv(s, me % N + 1, MPI_INT, d, rc, rd, MPI_INT, ic, &_r),
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
	NB(MPI_Ialltoall(s, N, MPI_INT, d, N, MPI_INT, ic, &_r),
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
	NB(MPI_Ialltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, ic, &_r),
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
	NB(MPI_Ialltoallw(s, sc, sd, st, d, rc, rd, rt, ic, &_r),
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
	NB(MPI_Iallreduce(s, d, N, MPI_INT, op, ic, &_r),
		   MPI_Allreduce_init(s, d, N, MPI_INT, op, ic, MPI_INFO_NULL, &_r),
		   d, N);
	for (i = 0; i < N; i++)
		CHECK(d[i] == (t_world_of(ra, 0) + i) % 9 + 1,
		      "allreduce, first: [%d] = %d", i, d[i]);
	NB(MPI_Iallreduce(s, d, N, MPI_INT, MPI_SUM, ic, &_r),
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
	NB(MPI_Ireduce_scatter_block(s, d, rs, MPI_INT, MPI_SUM, ic, &_r),
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
	NB(MPI_Ireduce_scatter(s, d, rc, MPI_INT, MPI_SUM, ic, &_r),
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

/*
 * Ireduce and Ireduce_scatter_block in the remote group's rank order (a
 * non-commutative op gives its rank 0's values), and a sum over a
 * vector type of pairs (the reduction's view of a derived type).
 */
static void ordered(MPI_Comm ic)
{
	int ra = !t_in_a, me = t_lrank(), rs = t_rsize(), ls, i, r, want;
	int s[4 * 16], d[4 * 16], root;
	MPI_Datatype pair;
	MPI_Op op;

	MPI_Comm_size(ic, &ls);
	MPI_OK(MPI_Op_create(first_op, 0, &op));
	for (i = 0; i < 4 * 16; i++)
		s[i] = 10 * t_rank + i;
	for (i = 0; i < 4 * 16; i++)
		d[i] = POISON;
	/* Group A's rank 0 is the root. */
	root = t_in_a ? (me ? MPI_PROC_NULL : MPI_ROOT) : 0;
	NB(MPI_Ireduce(s, d, 4, MPI_INT, op, root, ic, &_r),
	   MPI_Reduce_init(s, d, 4, MPI_INT, op, root, ic, MPI_INFO_NULL,
			   &_r), d, t_in_a && !me ? 4 : 0);
	for (i = 0; i < 4; i++)
		CHECK(d[i] == (root == MPI_ROOT ? 10 * t_world_of(ra, 0) + i :
			       POISON), "ireduce, first: [%d] = %d", i, d[i]);
	/* rs to each local rank: ls * rs in all, in both groups. */
	CHECK(ls * rs <= 4 * 16, "too many ranks");
	NB(MPI_Ireduce_scatter_block(s, d, rs, MPI_INT, op, ic, &_r),
	   MPI_Reduce_scatter_block_init(s, d, rs, MPI_INT, op, ic,
					 MPI_INFO_NULL, &_r), d, rs);
	for (i = 0; i < rs; i++)
		CHECK(d[i] == 10 * t_world_of(ra, 0) + rs * me + i,
		      "ireduce_scatter_block, first: [%d] = %d", i, d[i]);
	MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &pair));
	MPI_OK(MPI_Type_commit(&pair));
	for (i = 0; i < 4 * 16; i++)
		d[i] = POISON;
	NB(MPI_Iallreduce(s, d, 3, pair, MPI_SUM, ic, &_r),
	   MPI_Allreduce_init(s, d, 3, pair, MPI_SUM, ic, MPI_INFO_NULL, &_r),
	   d, 0);
	/* Element k of the pair type: ints 3k and 3k + 2. */
	for (i = 0; i < 6; i++) {
		int at = (i / 2) * 3 + (i % 2) * 2;

		for (want = 0, r = 0; r < rs; r++)
			want += 10 * t_world_of(ra, r) + at;
		CHECK(d[at] == want, "iallreduce of pairs: [%d] = %d, want %d",
		      at, d[at], want);
	}
	MPI_OK(MPI_Type_free(&pair));
	MPI_OK(MPI_Op_free(&op));
}

/*
 * Group A's processes start a barrier, then send synchronously to B;
 * B's receive first, then start theirs: each I call must return.
 */
static void nonblocking(MPI_Comm ic)
{
	int me = t_lrank(), i, v = -1;
	MPI_Request r;

	if (t_in_a) {
		MPI_OK(MPI_Ibarrier(ic, &r));
		v = 100 + me;
		MPI_OK(MPI_Ssend(&v, 1, MPI_INT, me % t_nb, 5, ic));
		MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		return;
	}
	for (i = me; i < t_na; i += t_nb) {
		MPI_OK(MPI_Recv(&v, 1, MPI_INT, i, 5, ic, MPI_STATUS_IGNORE));
		CHECK(v == 100 + i, "ssend from %d: %d", i, v);
	}
	MPI_OK(MPI_Ibarrier(ic, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

/*
 * An Iallreduce on ic and an Ialltoall on d, issued in opposite orders
 * by the groups (each communicator's calls in one order, as MPI asks),
 * waited for last first; then a Bcast from A to B on each.
 */
static void overlapped(MPI_Comm ic, MPI_Comm d)
{
	int ra = !t_in_a, me = t_lrank(), rs = t_rsize(), i, r, want;
	int *s = ints(rs), *t = ints(rs), x = 1 + t_rank, y = 0, b1, b2;
	MPI_Request q[4];

	for (r = 0; r < rs; r++)
		s[r] = 1000 * t_rank + r;
	if (t_in_a) {
		MPI_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, ic, &q[0]));
		MPI_OK(MPI_Ialltoall(s, 1, MPI_INT, t, 1, MPI_INT, d, &q[1]));
	} else {
		MPI_OK(MPI_Ialltoall(s, 1, MPI_INT, t, 1, MPI_INT, d, &q[1]));
		MPI_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, ic, &q[0]));
	}
	b1 = b2 = t_in_a ? 7 : -1;
	MPI_OK(MPI_Ibcast(&b1, 1, MPI_INT, t_in_a ? (me ? MPI_PROC_NULL :
						    MPI_ROOT) : 0, ic, &q[2]));
	MPI_OK(MPI_Ibcast(&b2, 1, MPI_INT, t_in_a ? (me ? MPI_PROC_NULL :
						    MPI_ROOT) : 0, d, &q[3]));
	for (i = 3; i >= 0; i--)
		MPI_OK(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
	for (want = 0, r = 0; r < rs; r++)
		want += 1 + t_world_of(ra, r);
	CHECK(y == want, "overlapped allreduce %d, want %d", y, want);
	for (r = 0; r < rs; r++)
		CHECK(t[r] == 1000 * t_world_of(ra, r) + me,
		      "overlapped alltoall from %d: %d", r, t[r]);
	CHECK(b1 == 7 && b2 == 7, "overlapped bcasts %d %d", b1, b2);
	free(s);
	free(t);
}

/* No Scan, Exscan or neighbourhood form on an intercommunicator. */
static void erroneous(MPI_Comm ic)
{
	int x = 1, y;
	MPI_Request r = MPI_REQUEST_NULL;

	MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
	T_EXPECT(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &r),
		 MPI_ERR_COMM, "MPI_Iscan");
	T_EXPECT(MPI_Iexscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &r),
		 MPI_ERR_COMM, "MPI_Iexscan");
	T_EXPECT(MPI_Scan_init(&x, &y, 1, MPI_INT, MPI_SUM, ic,
			       MPI_INFO_NULL, &r), MPI_ERR_COMM,
		 "MPI_Scan_init");
	T_EXPECT(MPI_Exscan_init(&x, &y, 1, MPI_INT, MPI_SUM, ic,
				 MPI_INFO_NULL, &r), MPI_ERR_COMM,
		 "MPI_Exscan_init");
	T_EXPECT(MPI_Ineighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, ic,
					 &r), MPI_ERR_COMM,
		 "MPI_Ineighbor_allgather");
	T_EXPECT(MPI_Neighbor_allgather_init(&x, 1, MPI_INT, &y, 1, MPI_INT,
					     ic, MPI_INFO_NULL, &r),
		 MPI_ERR_COMM, "MPI_Neighbor_allgather_init");
	T_EXPECT(MPI_Ibcast(&x, 1, MPI_INT, t_rsize(), ic, &r), MPI_ERR_ROOT,
		 "MPI_Ibcast with root %d", t_rsize());
	T_EXPECT(MPI_Bcast_init(&x, 1, MPI_INT, -5, ic, MPI_INFO_NULL, &r),
		 MPI_ERR_ROOT, "MPI_Bcast_init with root -5");
	CHECK(r == MPI_REQUEST_NULL, "a request from a failed call");
	MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
	MPI_Comm ic, d;

	t_init(&argc, &argv);
	if (t_size < 2)
		T_SKIP("an intercommunicator needs 2 processes");
	ic = t_inter(0, 11, NULL);
	MPI_OK(MPI_Comm_dup(ic, &d));
	for (mode = 0; mode < 2; mode++) {
		rooted(ic);
		all(ic);
		all(d);
		rooted(d);
		ordered(ic);
	}
	nonblocking(ic);
	overlapped(ic, d);
	erroneous(ic);
	MPI_OK(MPI_Comm_free(&d));
	MPI_OK(MPI_Comm_free(&ic));
	MPI_Finalize();
	if (t_rank == 0)
		printf("intercoll_nb: ok (%d ranks)\n", t_size);
	return 0;
}
