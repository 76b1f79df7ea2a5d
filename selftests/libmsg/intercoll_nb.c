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

/* Each call in its I or _init form (intercoll_body.h). */
#define COLL(call, icall, pcall, rb, n) NB(icall, pcall, rb, n)
#include "intercoll_body.h"

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
