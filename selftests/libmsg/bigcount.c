// SPDX-License-Identifier: MIT
// libmsg-test: np=1,2,3,4 builds=plain,asan
/*
 * The large-count (_c) calls of MPI-4.0 with small counts, every one:
 * point to point (each send mode, blocking, nonblocking, persistent;
 * sendrecv and its replace and nonblocking forms; Mrecv, Imrecv), the
 * collectives (blocking, nonblocking, persistent: each checked against
 * what it must give; neighbourhood allgather and alltoall on a ring),
 * the type constructors (each against its int twin:
 * size, extent, packed bytes; the envelope and contents record large
 * counts, and the int envelope refuses such a type), pack and unpack
 * (native and external32), the status queries.  A derived type of more
 * than 2^31 bytes: MPI_Type_size_c, MPI_Get_elements_c and
 * MPI_Get_count_c on a status of more than 2^31 elements.  On an
 * intercommunicator: Bcast_c, Gatherv_c, Scatter_c, Allgatherv_c.  A
 * negative count is MPI_ERR_COUNT.  bigmsg.c moves more than 2^31 bytes.
 */
#include <limits.h>

#include "inter_util.h"

#define C 7		/* elements per block */

static int to, from;

/* ---- Point to point --------------------------------------------------- */

static void check_recv(const int *r, MPI_Status *st, int n, unsigned seed)
{
	MPI_Count c;
	int i;

	for (i = 0; i < n; i++)
		CHECK(r[i] == (int)(seed * 100 + (unsigned)i), "element %d is %d",
		      i, r[i]);
	if (st) {
		MPI_OK(MPI_Get_count_c(st, MPI_INT, &c));
		CHECK(c == n, "count %lld, expected %d", c, n);
		MPI_OK(MPI_Get_elements_c(st, MPI_INT, &c));
		CHECK(c == n, "elements %lld, expected %d", c, n);
	}
}

static void fill(int *s, int n, unsigned seed)
{
	int i;

	for (i = 0; i < n; i++)
		s[i] = (int)(seed * 100 + (unsigned)i);
}

enum { M_STD, M_SYNC, M_BUF, M_READY };

static void p2p(void)
{
	int s[C], r[C + 3], mode, flag;
	MPI_Request q, rq;
	MPI_Status st;
	MPI_Message m;
	unsigned seed = 1;
	char *bb;
	MPI_Count bsize;
	void *bout;

	bb = malloc(4096);
	CHECK(bb, "out of memory");
	MPI_OK(MPI_Buffer_attach_c(bb, 4096));
	/* Blocking sends: the receive posted first (ready mode needs it). */
	for (mode = M_STD; mode <= M_READY; mode++, seed++) {
		fill(s, C, seed);
		memset(r, 0, sizeof(r));
		MPI_OK(MPI_Irecv_c(r, C + 3, MPI_INT, from, 1, MPI_COMM_WORLD, &rq));
		t_barrier();
		switch (mode) {
		case M_STD:
			MPI_OK(MPI_Send_c(s, C, MPI_INT, to, 1, MPI_COMM_WORLD));
			break;
		case M_SYNC:
			MPI_OK(MPI_Ssend_c(s, C, MPI_INT, to, 1, MPI_COMM_WORLD));
			break;
		case M_BUF:
			MPI_OK(MPI_Bsend_c(s, C, MPI_INT, to, 1, MPI_COMM_WORLD));
			break;
		case M_READY:
			MPI_OK(MPI_Rsend_c(s, C, MPI_INT, to, 1, MPI_COMM_WORLD));
			break;
		}
		MPI_OK(MPI_Wait(&rq, &st));
		check_recv(r, &st, C, seed);
		t_barrier();
	}
	/* Nonblocking sends, blocking receives. */
	for (mode = M_STD; mode <= M_READY; mode++, seed++) {
		fill(s, C, seed);
		memset(r, 0, sizeof(r));
		MPI_OK(MPI_Irecv_c(r, C + 3, MPI_INT, from, 2, MPI_COMM_WORLD, &rq));
		t_barrier();
		switch (mode) {
		case M_STD:
			MPI_OK(MPI_Isend_c(s, C, MPI_INT, to, 2, MPI_COMM_WORLD, &q));
			break;
		case M_SYNC:
			MPI_OK(MPI_Issend_c(s, C, MPI_INT, to, 2, MPI_COMM_WORLD, &q));
			break;
		case M_BUF:
			MPI_OK(MPI_Ibsend_c(s, C, MPI_INT, to, 2, MPI_COMM_WORLD, &q));
			break;
		case M_READY:
			MPI_OK(MPI_Irsend_c(s, C, MPI_INT, to, 2, MPI_COMM_WORLD, &q));
			break;
		}
		MPI_OK(MPI_Wait(&rq, &st));
		MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
		check_recv(r, &st, C, seed);
		t_barrier();
	}
	/* Persistent, started twice. */
	for (mode = M_STD; mode <= M_READY; mode++) {
		MPI_OK(MPI_Recv_init_c(r, C + 3, MPI_INT, from, 3, MPI_COMM_WORLD,
				       &rq));
		switch (mode) {
		case M_STD:
			MPI_OK(MPI_Send_init_c(s, C, MPI_INT, to, 3, MPI_COMM_WORLD, &q));
			break;
		case M_SYNC:
			MPI_OK(MPI_Ssend_init_c(s, C, MPI_INT, to, 3, MPI_COMM_WORLD, &q));
			break;
		case M_BUF:
			MPI_OK(MPI_Bsend_init_c(s, C, MPI_INT, to, 3, MPI_COMM_WORLD, &q));
			break;
		case M_READY:
			MPI_OK(MPI_Rsend_init_c(s, C, MPI_INT, to, 3, MPI_COMM_WORLD, &q));
			break;
		}
		for (flag = 0; flag < 2; flag++, seed++) {
			fill(s, C, seed);
			memset(r, 0, sizeof(r));
			MPI_OK(MPI_Start(&rq));
			t_barrier();
			MPI_OK(MPI_Start(&q));
			MPI_OK(MPI_Wait(&rq, &st));
			MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
			check_recv(r, &st, C, seed);
			t_barrier();
		}
		MPI_OK(MPI_Request_free(&q));
		MPI_OK(MPI_Request_free(&rq));
	}
	MPI_OK(MPI_Buffer_detach_c(&bout, &bsize));
	CHECK(bout == bb && bsize == 4096, "detached %p, %lld bytes", bout,
	      bsize);
	free(bb);

	/* Sendrecv and its forms: the ring. */
	fill(s, C, seed);
	MPI_OK(MPI_Sendrecv_c(s, C, MPI_INT, to, 4, r, C + 3, MPI_INT, from, 4,
			      MPI_COMM_WORLD, &st));
	check_recv(r, &st, C, seed++);
	fill(s, C, seed);
	MPI_OK(MPI_Isendrecv_c(s, C, MPI_INT, to, 4, r, C + 3, MPI_INT, from,
			       4, MPI_COMM_WORLD, &q));
	MPI_OK(MPI_Wait(&q, &st));
	check_recv(r, &st, C, seed++);
	fill(r, C, seed);
	MPI_OK(MPI_Sendrecv_replace_c(r, C, MPI_INT, to, 5, from, 5,
				      MPI_COMM_WORLD, &st));
	check_recv(r, &st, C, seed++);
	fill(r, C, seed);
	MPI_OK(MPI_Isendrecv_replace_c(r, C, MPI_INT, to, 5, from, 5,
				       MPI_COMM_WORLD, &q));
	MPI_OK(MPI_Wait(&q, &st));
	check_recv(r, &st, C, seed++);

	/* Matched probes. */
	fill(s, C, seed);
	MPI_OK(MPI_Isend_c(s, C, MPI_INT, to, 6, MPI_COMM_WORLD, &q));
	MPI_OK(MPI_Mprobe(from, 6, MPI_COMM_WORLD, &m, &st));
	MPI_OK(MPI_Mrecv_c(r, C + 3, MPI_INT, &m, &st));
	MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	check_recv(r, &st, C, seed++);
	fill(s, C, seed);
	MPI_OK(MPI_Isend_c(s, C, MPI_INT, to, 6, MPI_COMM_WORLD, &q));
	MPI_OK(MPI_Mprobe(from, 6, MPI_COMM_WORLD, &m, &st));
	MPI_OK(MPI_Imrecv_c(r, C + 3, MPI_INT, &m, &rq));
	MPI_OK(MPI_Wait(&rq, &st));
	MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	check_recv(r, &st, C, seed++);

	/* Wrong counts. */
	T_EXPECT(MPI_Send_c(s, -1, MPI_INT, to, 7, MPI_COMM_WORLD), MPI_ERR_COUNT,
		 "MPI_Send_c, count -1");
	T_EXPECT(MPI_Recv_c(r, -5, MPI_INT, from, 7, MPI_COMM_WORLD, &st),
		 MPI_ERR_COUNT, "MPI_Recv_c, count -5");
	T_EXPECT(MPI_Isend_c(s, -((MPI_Count)1 << 40), MPI_INT, to, 7,
			     MPI_COMM_WORLD, &q), MPI_ERR_COUNT,
		 "MPI_Isend_c, count -2^40");
	T_EXPECT(MPI_Bcast_c(s, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT,
		 "MPI_Bcast_c, count -1");
	T_EXPECT(MPI_Allreduce_c(s, r, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
		 MPI_ERR_COUNT, "MPI_Allreduce_c, count -2");
	t_barrier();
}

/* ---- Collectives: variant 0 blocking, 1 nonblocking, 2 persistent --------- */

#define RUN(v, blocking, nonblocking, persistent) do {			\
	MPI_Request _q;							\
	if ((v) == 0) {							\
		MPI_OK(blocking);					\
	} else if ((v) == 1) {						\
		MPI_OK(nonblocking);					\
		MPI_OK(MPI_Wait(&_q, MPI_STATUS_IGNORE));		\
	} else {							\
		MPI_OK(persistent);					\
		MPI_OK(MPI_Start(&_q));					\
		MPI_OK(MPI_Wait(&_q, MPI_STATUS_IGNORE));		\
		MPI_OK(MPI_Request_free(&_q));				\
	}								\
} while (0)

#define W MPI_COMM_WORLD
#define I MPI_INFO_NULL

static int val(int rank, int i)
{
	return rank * 1000 + i;
}

static void coll(int v)
{
	int n = t_size, me = t_rank, root = n - 1, i, j, k;
	int *s = malloc((size_t)n * n * C * sizeof(int) + 64);
	int *r = malloc((size_t)n * n * C * sizeof(int) + 64);
	MPI_Count *sc = malloc((size_t)n * sizeof(*sc)),
		  *rc = malloc((size_t)n * sizeof(*rc));
	MPI_Aint *sd = malloc((size_t)n * sizeof(*sd)),
		 *rd = malloc((size_t)n * sizeof(*rd));
	MPI_Datatype *st = malloc((size_t)n * sizeof(*st)),
		     *rt = malloc((size_t)n * sizeof(*rt));

	CHECK(s && r && sc && rc && sd && rd && st && rt, "out of memory");

	/* Bcast. */
	for (i = 0; i < C; i++)
		s[i] = me == root ? val(root, i) : -1;
	RUN(v, MPI_Bcast_c(s, C, MPI_INT, root, W),
	    MPI_Ibcast_c(s, C, MPI_INT, root, W, &_q),
	    MPI_Bcast_init_c(s, C, MPI_INT, root, W, I, &_q));
	for (i = 0; i < C; i++)
		CHECK(s[i] == val(root, i), "bcast %d: %d", i, s[i]);

	/* Gather, allgather. */
	for (i = 0; i < C; i++)
		s[i] = val(me, i);
	memset(r, 0xff, (size_t)n * C * sizeof(int));
	RUN(v, MPI_Gather_c(s, C, MPI_INT, r, C, MPI_INT, root, W),
	    MPI_Igather_c(s, C, MPI_INT, r, C, MPI_INT, root, W, &_q),
	    MPI_Gather_init_c(s, C, MPI_INT, r, C, MPI_INT, root, W, I, &_q));
	if (me == root)
		for (j = 0; j < n; j++)
			for (i = 0; i < C; i++)
				CHECK(r[j * C + i] == val(j, i), "gather %d.%d", j, i);
	memset(r, 0xff, (size_t)n * C * sizeof(int));
	RUN(v, MPI_Allgather_c(s, C, MPI_INT, r, C, MPI_INT, W),
	    MPI_Iallgather_c(s, C, MPI_INT, r, C, MPI_INT, W, &_q),
	    MPI_Allgather_init_c(s, C, MPI_INT, r, C, MPI_INT, W, I, &_q));
	for (j = 0; j < n; j++)
		for (i = 0; i < C; i++)
			CHECK(r[j * C + i] == val(j, i), "allgather %d.%d", j, i);

	/* Scatter. */
	for (j = 0; j < n; j++)
		for (i = 0; i < C; i++)
			s[j * C + i] = val(j, i);
	memset(r, 0xff, C * sizeof(int));
	RUN(v, MPI_Scatter_c(s, C, MPI_INT, r, C, MPI_INT, root, W),
	    MPI_Iscatter_c(s, C, MPI_INT, r, C, MPI_INT, root, W, &_q),
	    MPI_Scatter_init_c(s, C, MPI_INT, r, C, MPI_INT, root, W, I, &_q));
	for (i = 0; i < C; i++)
		CHECK(r[i] == val(me, i), "scatter %d: %d", i, r[i]);

	/* Alltoall: block j of rank me is val(me, j * C + i). */
	for (j = 0; j < n; j++)
		for (i = 0; i < C; i++)
			s[j * C + i] = val(me, j * 100 + i);
	memset(r, 0xff, (size_t)n * C * sizeof(int));
	RUN(v, MPI_Alltoall_c(s, C, MPI_INT, r, C, MPI_INT, W),
	    MPI_Ialltoall_c(s, C, MPI_INT, r, C, MPI_INT, W, &_q),
	    MPI_Alltoall_init_c(s, C, MPI_INT, r, C, MPI_INT, W, I, &_q));
	for (j = 0; j < n; j++)
		for (i = 0; i < C; i++)
			CHECK(r[j * C + i] == val(j, me * 100 + i), "alltoall %d.%d",
			      j, i);

	/* V variants: rank j's block j + 1 elements, 2 apart more than needed. */
	for (j = 0, k = 0; j < n; j++) {
		rc[j] = j + 1;
		rd[j] = k;
		k += j + 3;
	}
	for (i = 0; i <= me; i++)
		s[i] = val(me, i);
	memset(r, 0xff, (size_t)k * sizeof(int));
	RUN(v, MPI_Gatherv_c(s, me + 1, MPI_INT, r, rc, rd, MPI_INT, root, W),
	    MPI_Igatherv_c(s, me + 1, MPI_INT, r, rc, rd, MPI_INT, root, W, &_q),
	    MPI_Gatherv_init_c(s, me + 1, MPI_INT, r, rc, rd, MPI_INT, root, W,
			       I, &_q));
	if (me == root)
		for (j = 0; j < n; j++) {
			for (i = 0; i <= j; i++)
				CHECK(r[rd[j] + i] == val(j, i), "gatherv %d.%d", j, i);
			CHECK(r[rd[j] + j + 1] == -1, "gatherv wrote a gap");
		}
	memset(r, 0xff, (size_t)k * sizeof(int));
	RUN(v, MPI_Allgatherv_c(s, me + 1, MPI_INT, r, rc, rd, MPI_INT, W),
	    MPI_Iallgatherv_c(s, me + 1, MPI_INT, r, rc, rd, MPI_INT, W, &_q),
	    MPI_Allgatherv_init_c(s, me + 1, MPI_INT, r, rc, rd, MPI_INT, W, I,
				  &_q));
	for (j = 0; j < n; j++)
		for (i = 0; i <= j; i++)
			CHECK(r[rd[j] + i] == val(j, i), "allgatherv %d.%d", j, i);
	for (j = 0; j < n; j++)
		for (i = 0; i <= j; i++)
			s[rd[j] + i] = val(j, i);
	memset(r, 0xff, (size_t)(me + 2) * sizeof(int));
	RUN(v, MPI_Scatterv_c(s, rc, rd, MPI_INT, r, me + 1, MPI_INT, root, W),
	    MPI_Iscatterv_c(s, rc, rd, MPI_INT, r, me + 1, MPI_INT, root, W, &_q),
	    MPI_Scatterv_init_c(s, rc, rd, MPI_INT, r, me + 1, MPI_INT, root, W,
				I, &_q));
	for (i = 0; i <= me; i++)
		CHECK(r[i] == val(me, i), "scatterv %d: %d", i, r[i]);
	CHECK(r[me + 1] == -1, "scatterv wrote past its block");

	/*
	 * Alltoallv: to rank j, j + 1 elements; from rank j, me + 1.
	 * Alltoallw: the same in bytes, each peer's type its own.
	 */
	for (j = 0, k = 0; j < n; j++) {
		sc[j] = j + 1;
		sd[j] = k;
		for (i = 0; i <= j; i++)
			s[k + i] = val(me, j * 100 + i);
		k += j + 2;
		rc[j] = me + 1;
		rd[j] = j * (me + 2);
	}
	memset(r, 0xff, (size_t)n * (me + 2) * sizeof(int));
	RUN(v, MPI_Alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, W),
	    MPI_Ialltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, W, &_q),
	    MPI_Alltoallv_init_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, W, I,
				 &_q));
	for (j = 0; j < n; j++)
		for (i = 0; i <= me; i++)
			CHECK(r[rd[j] + i] == val(j, me * 100 + i), "alltoallv %d.%d",
			      j, i);
	for (j = 0; j < n; j++) {
		sd[j] *= (MPI_Aint)sizeof(int);
		rd[j] *= (MPI_Aint)sizeof(int);
		st[j] = rt[j] = MPI_INT;
	}
	memset(r, 0xff, (size_t)n * (me + 2) * sizeof(int));
	RUN(v, MPI_Alltoallw_c(s, sc, sd, st, r, rc, rd, rt, W),
	    MPI_Ialltoallw_c(s, sc, sd, st, r, rc, rd, rt, W, &_q),
	    MPI_Alltoallw_init_c(s, sc, sd, st, r, rc, rd, rt, W, I, &_q));
	for (j = 0; j < n; j++)
		for (i = 0; i <= me; i++)
			CHECK(r[rd[j] / (MPI_Aint)sizeof(int) + i] ==
			      val(j, me * 100 + i), "alltoallw %d.%d", j, i);

	/* Reductions of val(rank, i), summed. */
	for (i = 0; i < n * C; i++)
		s[i] = val(me, i);
	memset(r, 0xff, (size_t)n * C * sizeof(int));
	RUN(v, MPI_Reduce_c(s, r, C, MPI_INT, MPI_SUM, root, W),
	    MPI_Ireduce_c(s, r, C, MPI_INT, MPI_SUM, root, W, &_q),
	    MPI_Reduce_init_c(s, r, C, MPI_INT, MPI_SUM, root, W, I, &_q));
	if (me == root)
		for (i = 0; i < C; i++)
			CHECK(r[i] == 1000 * n * (n - 1) / 2 + n * i, "reduce %d", i);
	RUN(v, MPI_Allreduce_c(s, r, C, MPI_INT, MPI_SUM, W),
	    MPI_Iallreduce_c(s, r, C, MPI_INT, MPI_SUM, W, &_q),
	    MPI_Allreduce_init_c(s, r, C, MPI_INT, MPI_SUM, W, I, &_q));
	for (i = 0; i < C; i++)
		CHECK(r[i] == 1000 * n * (n - 1) / 2 + n * i, "allreduce %d", i);
	RUN(v, MPI_Scan_c(s, r, C, MPI_INT, MPI_SUM, W),
	    MPI_Iscan_c(s, r, C, MPI_INT, MPI_SUM, W, &_q),
	    MPI_Scan_init_c(s, r, C, MPI_INT, MPI_SUM, W, I, &_q));
	for (i = 0; i < C; i++)
		CHECK(r[i] == 1000 * me * (me + 1) / 2 + (me + 1) * i, "scan %d", i);
	RUN(v, MPI_Exscan_c(s, r, C, MPI_INT, MPI_SUM, W),
	    MPI_Iexscan_c(s, r, C, MPI_INT, MPI_SUM, W, &_q),
	    MPI_Exscan_init_c(s, r, C, MPI_INT, MPI_SUM, W, I, &_q));
	for (i = 0; i < C && me > 0; i++)
		CHECK(r[i] == 1000 * (me - 1) * me / 2 + me * i, "exscan %d", i);
	RUN(v, MPI_Reduce_scatter_block_c(s, r, C, MPI_INT, MPI_SUM, W),
	    MPI_Ireduce_scatter_block_c(s, r, C, MPI_INT, MPI_SUM, W, &_q),
	    MPI_Reduce_scatter_block_init_c(s, r, C, MPI_INT, MPI_SUM, W, I,
					    &_q));
	for (i = 0; i < C; i++)
		CHECK(r[i] == 1000 * n * (n - 1) / 2 + n * (me * C + i),
		      "reduce_scatter_block %d", i);
	for (j = 0, k = 0; j < n; j++)
		rc[j] = j + 1;
	for (j = 0; j < me; j++)
		k += j + 1;
	RUN(v, MPI_Reduce_scatter_c(s, r, rc, MPI_INT, MPI_SUM, W),
	    MPI_Ireduce_scatter_c(s, r, rc, MPI_INT, MPI_SUM, W, &_q),
	    MPI_Reduce_scatter_init_c(s, r, rc, MPI_INT, MPI_SUM, W, I, &_q));
	for (i = 0; i <= me; i++)
		CHECK(r[i] == 1000 * n * (n - 1) / 2 + n * (k + i),
		      "reduce_scatter %d", i);
	if (v == 0) {
		for (i = 0; i < C; i++)
			r[i] = i;
		MPI_OK(MPI_Reduce_local_c(s, r, C, MPI_INT, MPI_SUM));
		for (i = 0; i < C; i++)
			CHECK(r[i] == val(me, i) + i, "reduce_local %d", i);
	}
	free(s);
	free(r);
	free(sc);
	free(rc);
	free(sd);
	free(rd);
	free(st);
	free(rt);
	t_barrier();
}

/* ---- Neighbourhood: a periodic ring, left then right ------------------------ */

static void nbr(int v)
{
	int n = t_size, me = t_rank, per = 1, left, right, i;
	int s[2 * C], r[2 * C];
	MPI_Comm ring;

	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &per, 0, &ring));
	left = (me + n - 1) % n;
	right = (me + 1) % n;
	for (i = 0; i < C; i++)
		s[i] = val(me, i);
	memset(r, 0xff, sizeof(r));
	RUN(v, MPI_Neighbor_allgather_c(s, C, MPI_INT, r, C, MPI_INT, ring),
	    MPI_Ineighbor_allgather_c(s, C, MPI_INT, r, C, MPI_INT, ring, &_q),
	    MPI_Neighbor_allgather_init_c(s, C, MPI_INT, r, C, MPI_INT, ring, I,
					  &_q));
	for (i = 0; i < C; i++)
		CHECK(r[i] == val(left, i) && r[C + i] == val(right, i),
		      "neighbor_allgather %d: %d %d", i, r[i], r[C + i]);
	for (i = 0; i < 2 * C; i++)
		s[i] = val(me, (i / C) * 100 + i % C);
	memset(r, 0xff, sizeof(r));
	RUN(v, MPI_Neighbor_alltoall_c(s, C, MPI_INT, r, C, MPI_INT, ring),
	    MPI_Ineighbor_alltoall_c(s, C, MPI_INT, r, C, MPI_INT, ring, &_q),
	    MPI_Neighbor_alltoall_init_c(s, C, MPI_INT, r, C, MPI_INT, ring, I,
					 &_q));
	for (i = 0; i < C; i++)
		CHECK(r[i] == val(left, 100 + i) && r[C + i] == val(right, i),
		      "neighbor_alltoall %d: %d %d", i, r[i], r[C + i]);
	MPI_OK(MPI_Comm_free(&ring));
}

/* ---- Types, pack -------------------------------------------------------- */

/* a and b (the _c and the int constructor's): same size, extent, data. */
static void same_type(MPI_Datatype a, MPI_Datatype b, const char *what)
{
	MPI_Count sa, sb, la, lb, ea, eb;
	char in[4096], pa[4096], pb[4096];
	MPI_Count pos = 0;
	int posb = 0, i;

	MPI_OK(MPI_Type_commit(&a));
	MPI_OK(MPI_Type_commit(&b));
	MPI_OK(MPI_Type_size_c(a, &sa));
	MPI_OK(MPI_Type_size_x(b, &sb));
	CHECK(sa == sb, "%s: size %lld, the int one's %lld", what, sa, sb);
	MPI_OK(MPI_Type_get_extent_c(a, &la, &ea));
	MPI_OK(MPI_Type_get_extent_x(b, &lb, &eb));
	CHECK(la == lb && ea == eb, "%s: extent %lld/%lld", what, ea, eb);
	MPI_OK(MPI_Type_get_true_extent_c(a, &la, &ea));
	MPI_OK(MPI_Type_get_true_extent_x(b, &lb, &eb));
	CHECK(la == lb && ea == eb, "%s: true extent", what);
	CHECK(sa <= 1024 && la >= 0 && la + ea <= 2048, "%s: too big for here",
	      what);
	for (i = 0; i < (int)sizeof(in); i++)
		in[i] = (char)(i * 13 + 1);
	MPI_OK(MPI_Pack_c(in, 1, a, pa, sizeof(pa), &pos, MPI_COMM_WORLD));
	MPI_OK(MPI_Pack(in, 1, b, pb, sizeof(pb), &posb, MPI_COMM_WORLD));
	CHECK(pos == posb && !memcmp(pa, pb, (size_t)pos), "%s: packed bytes",
	      what);
	MPI_OK(MPI_Type_free(&a));
	MPI_OK(MPI_Type_free(&b));
}

/* t's envelope: nc large counts, and the int envelope refuses it. */
static void envelope(MPI_Datatype t, int combiner, MPI_Count ni,
		     MPI_Count nc, MPI_Count nd, const MPI_Count *want)
{
	MPI_Count a, b, c, d, got[64];
	MPI_Datatype types[4];
	int comb, ints[64], x, y, z, i;
	MPI_Aint addrs[4];

	MPI_OK(MPI_Type_get_envelope_c(t, &a, &b, &c, &d, &comb));
	CHECK(comb == combiner && a == ni && b == 0 && c == nc && d == nd,
	      "envelope: combiner %d, %lld ints, %lld addresses, %lld large counts, %lld types",
	      comb, a, b, c, d);
	T_EXPECT(MPI_Type_get_envelope(t, &x, &y, &z, &comb), MPI_ERR_TYPE,
		 "int envelope of a large-count type");
	CHECK(nc <= 64 && nd <= 4, "test's arrays");
	MPI_OK(MPI_Type_get_contents_c(t, 64, 4, 64, 4, ints, addrs, got, types));
	for (i = 0; i < nc; i++)
		CHECK(got[i] == want[i], "large count %d: %lld, expected %lld", i,
		      got[i], want[i]);
	for (i = 0; i < nd; i++) {
		MPI_OK(MPI_Type_get_envelope_c(types[i], &a, &b, &c, &d, &comb));
		if (comb != MPI_COMBINER_NAMED)
			MPI_OK(MPI_Type_free(&types[i]));
	}
}

static void types(void)
{
	MPI_Datatype a, b, ts[2] = { MPI_INT, MPI_DOUBLE };
	MPI_Count bl[3] = { 2, 1, 3 }, di[3] = { 0, 5, 9 }, hd[3] = { 0, 24, 64 };
	MPI_Count sz[2] = { 6, 5 }, sub[2] = { 3, 2 }, start[2] = { 1, 2 };
	MPI_Count gs[2] = { 8, 6 };
	int ibl[3] = { 2, 1, 3 }, idi[3] = { 0, 5, 9 }, isz[2] = { 6, 5 },
	    isub[2] = { 3, 2 }, istart[2] = { 1, 2 }, igs[2] = { 8, 6 };
	int distr[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
	    dargs[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[2] = { 2, 1 };
	MPI_Aint ihd[3] = { 0, 24, 64 };
	MPI_Count want[16], c, sa;
	MPI_Status st;
	int ic, i;

	MPI_OK(MPI_Type_contiguous_c(5, MPI_INT, &a));
	want[0] = 5;
	envelope(a, MPI_COMBINER_CONTIGUOUS, 0, 1, 1, want);
	MPI_OK(MPI_Type_contiguous(5, MPI_INT, &b));
	same_type(a, b, "contiguous");
	MPI_OK(MPI_Type_vector_c(3, 2, 4, MPI_INT, &a));
	want[0] = 3; want[1] = 2; want[2] = 4;
	envelope(a, MPI_COMBINER_VECTOR, 0, 3, 1, want);
	MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &b));
	same_type(a, b, "vector");
	MPI_OK(MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &a));
	want[2] = 20;
	envelope(a, MPI_COMBINER_HVECTOR, 0, 3, 1, want);
	MPI_OK(MPI_Type_create_hvector(3, 2, 20, MPI_INT, &b));
	same_type(a, b, "hvector");
	MPI_OK(MPI_Type_indexed_c(3, bl, di, MPI_INT, &a));
	want[0] = 3;
	for (i = 0; i < 3; i++) {
		want[1 + i] = bl[i];
		want[4 + i] = di[i];
	}
	envelope(a, MPI_COMBINER_INDEXED, 0, 7, 1, want);
	MPI_OK(MPI_Type_indexed(3, ibl, idi, MPI_INT, &b));
	same_type(a, b, "indexed");
	MPI_OK(MPI_Type_create_hindexed_c(3, bl, hd, MPI_INT, &a));
	MPI_OK(MPI_Type_create_hindexed(3, ibl, ihd, MPI_INT, &b));
	same_type(a, b, "hindexed");
	MPI_OK(MPI_Type_create_indexed_block_c(3, 2, di, MPI_INT, &a));
	want[0] = 3; want[1] = 2;
	for (i = 0; i < 3; i++)
		want[2 + i] = di[i];
	envelope(a, MPI_COMBINER_INDEXED_BLOCK, 0, 5, 1, want);
	MPI_OK(MPI_Type_create_indexed_block(3, 2, idi, MPI_INT, &b));
	same_type(a, b, "indexed_block");
	MPI_OK(MPI_Type_create_hindexed_block_c(3, 2, hd, MPI_INT, &a));
	MPI_OK(MPI_Type_create_hindexed_block(3, 2, ihd, MPI_INT, &b));
	same_type(a, b, "hindexed_block");
	MPI_OK(MPI_Type_create_struct_c(2, bl, hd, ts, &a));
	want[0] = 2; want[1] = 2; want[2] = 1; want[3] = 0; want[4] = 24;
	envelope(a, MPI_COMBINER_STRUCT, 0, 5, 2, want);
	MPI_OK(MPI_Type_create_struct(2, ibl, ihd, ts, &b));
	same_type(a, b, "struct");
	MPI_OK(MPI_Type_create_subarray_c(2, sz, sub, start, MPI_ORDER_C,
					  MPI_INT, &a));
	for (i = 0; i < 2; i++) {
		want[i] = sz[i];
		want[2 + i] = sub[i];
		want[4 + i] = start[i];
	}
	envelope(a, MPI_COMBINER_SUBARRAY, 2, 6, 1, want);
	MPI_OK(MPI_Type_create_subarray(2, isz, isub, istart, MPI_ORDER_C,
					MPI_INT, &b));
	same_type(a, b, "subarray");
	MPI_OK(MPI_Type_create_darray_c(2, 1, 2, gs, distr, dargs, ps,
					MPI_ORDER_C, MPI_INT, &a));
	want[0] = 8; want[1] = 6;
	envelope(a, MPI_COMBINER_DARRAY, 3 * 2 + 4, 2, 1, want);
	MPI_OK(MPI_Type_create_darray(2, 1, 2, igs, distr, dargs, ps,
				      MPI_ORDER_C, MPI_INT, &b));
	same_type(a, b, "darray");
	MPI_OK(MPI_Type_create_resized_c(MPI_INT, -4, 16, &a));
	want[0] = -4; want[1] = 16;
	envelope(a, MPI_COMBINER_RESIZED, 0, 2, 1, want);
	MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &b));
	same_type(a, b, "resized");
	T_EXPECT(MPI_Type_contiguous_c(-1, MPI_INT, &a), MPI_ERR_COUNT,
		 "MPI_Type_contiguous_c, count -1");
	T_EXPECT(MPI_Type_vector_c(-3, 1, 1, MPI_INT, &a), MPI_ERR_COUNT,
		 "MPI_Type_vector_c, count -3");

	/*
	 * Beyond 2^31 bytes: 2^20 blocks of 2^12 ints, 2^13 ints apart
	 * (16 GiB of data, never allocated).
	 */
	MPI_OK(MPI_Type_vector_c(1 << 20, 1 << 12, 1 << 13, MPI_INT, &a));
	MPI_OK(MPI_Type_commit(&a));
	MPI_OK(MPI_Type_size_c(a, &sa));
	CHECK(sa == (MPI_Count)4 << 32, "size_c %lld", sa);
	MPI_OK(MPI_Type_size(a, &ic));
	CHECK(ic == MPI_UNDEFINED, "int size %d", ic);
	MPI_OK(MPI_Type_get_extent_c(a, &c, &sa));
	CHECK(c == 0 && sa == (((MPI_Count)(1 << 20) - 1) * (1 << 13) +
			       (1 << 12)) * 4, "extent_c %lld", sa);
	MPI_OK(MPI_Status_set_elements_c(&st, MPI_INT, ((MPI_Count)1 << 32) + 5));
	MPI_OK(MPI_Get_elements_c(&st, a, &c));
	CHECK(c == ((MPI_Count)1 << 32) + 5, "elements_c %lld", c);
	MPI_OK(MPI_Get_elements_x(&st, a, &c));
	CHECK(c == ((MPI_Count)1 << 32) + 5, "elements_x %lld", c);
	MPI_OK(MPI_Get_elements(&st, a, &ic));
	CHECK(ic == MPI_UNDEFINED, "int elements %d", ic);
	MPI_OK(MPI_Get_count_c(&st, a, &c));
	CHECK(c == MPI_UNDEFINED, "count_c of a partial element %lld", c);
	MPI_OK(MPI_Status_set_elements_c(&st, a, (MPI_Count)3 << 32));
	MPI_OK(MPI_Get_count_c(&st, a, &c));
	CHECK(c == 3, "count_c %lld", c);
	MPI_OK(MPI_Get_count_c(&st, MPI_INT, &c));
	CHECK(c == (MPI_Count)3 << 32, "count_c in ints %lld", c);
	MPI_OK(MPI_Get_elements_c(&st, a, &c));
	CHECK(c == (MPI_Count)3 << 32, "elements_c of 3 %lld", c);
	MPI_OK(MPI_Status_set_elements_x(&st, MPI_INT, 12));
	MPI_OK(MPI_Get_count_c(&st, MPI_INT, &c));
	CHECK(c == 12, "set_elements_x: %lld", c);
	MPI_OK(MPI_Type_free(&a));
	/* A contiguous type of 3 * 2^30 bytes (count over INT_MAX). */
	MPI_OK(MPI_Type_contiguous_c((MPI_Count)3 << 30, MPI_BYTE, &a));
	MPI_OK(MPI_Type_size_c(a, &sa));
	CHECK(sa == (MPI_Count)3 << 30, "contiguous_c size %lld", sa);
	want[0] = (MPI_Count)3 << 30;
	envelope(a, MPI_COMBINER_CONTIGUOUS, 0, 1, 1, want);
	MPI_OK(MPI_Type_free(&a));
}

static void pack(void)
{
	double d[5] = { 1.5, -2, 3.25, 1e300, -0.0 };
	double back[5];
	char buf[256], ext[256];
	MPI_Count pos = 0, size, epos = 0;
	MPI_Aint ipos = 0, isize;
	int ip = 0, is;
	char ibuf[256], iext[256];

	MPI_OK(MPI_Pack_size_c(5, MPI_DOUBLE, MPI_COMM_WORLD, &size));
	MPI_OK(MPI_Pack_size(5, MPI_DOUBLE, MPI_COMM_WORLD, &is));
	CHECK(size == is && size >= 40, "pack_size_c %lld", size);
	MPI_OK(MPI_Pack_size_c((MPI_Count)INT_MAX, MPI_INT, MPI_COMM_WORLD,
			       &size));
	CHECK(size == (MPI_Count)INT_MAX * 4, "pack_size_c beyond an int %lld",
	      size);
	T_EXPECT(MPI_Pack_size(INT_MAX, MPI_INT, MPI_COMM_WORLD, &is),
		 MPI_ERR_COUNT, "MPI_Pack_size beyond an int");
	MPI_OK(MPI_Pack_c(d, 5, MPI_DOUBLE, buf, sizeof(buf), &pos,
			  MPI_COMM_WORLD));
	MPI_OK(MPI_Pack(d, 5, MPI_DOUBLE, ibuf, sizeof(ibuf), &ip,
			MPI_COMM_WORLD));
	CHECK(pos == ip && !memcmp(buf, ibuf, (size_t)ip), "pack_c");
	size = pos;
	pos = 0;
	MPI_OK(MPI_Unpack_c(buf, size, &pos, back, 5, MPI_DOUBLE,
			    MPI_COMM_WORLD));
	CHECK(pos == size && !memcmp(back, d, sizeof(d)), "unpack_c");
	T_EXPECT(MPI_Pack_c(d, -1, MPI_DOUBLE, buf, sizeof(buf), &pos,
			    MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Pack_c, count -1");
	T_EXPECT(MPI_Unpack_c(buf, 8, &epos, back, 5, MPI_DOUBLE,
			      MPI_COMM_WORLD), MPI_ERR_TRUNCATE,
		 "MPI_Unpack_c past insize");
	MPI_OK(MPI_Pack_external_size_c("external32", 5, MPI_DOUBLE, &size));
	MPI_OK(MPI_Pack_external_size("external32", 5, MPI_DOUBLE, &isize));
	CHECK(size == 40 && isize == 40, "external size %lld", size);
	MPI_OK(MPI_Pack_external_c("external32", d, 5, MPI_DOUBLE, ext,
				   sizeof(ext), &epos));
	MPI_OK(MPI_Pack_external("external32", d, 5, MPI_DOUBLE, iext,
				 sizeof(iext), &ipos));
	CHECK(epos == 40 && ipos == 40 && !memcmp(ext, iext, 40),
	      "pack_external_c");
	CHECK((unsigned char)ext[0] == 0x3f && ext[1] == (char)0xf8,
	      "external32 is big-endian");
	memset(back, 0, sizeof(back));
	epos = 0;
	MPI_OK(MPI_Unpack_external_c("external32", ext, 40, &epos, back, 5,
				     MPI_DOUBLE));
	CHECK(epos == 40 && !memcmp(back, d, sizeof(d)), "unpack_external_c");
	T_EXPECT(MPI_Pack_external_size_c("external32", -2, MPI_DOUBLE, &size),
		 MPI_ERR_COUNT, "MPI_Pack_external_size_c, count -2");
}

/* ---- On an intercommunicator (A's rank 0 the root) ------------------------ */

static void inter(void)
{
	MPI_Comm ic = t_inter(0, 11, NULL);
	int nr = t_rsize(), me = t_lrank(), root, i, j, k;
	int s[64], r[64];
	MPI_Count rc[8];
	MPI_Aint rd[8];

	root = t_in_a ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
	for (i = 0; i < C; i++)
		s[i] = root == MPI_ROOT ? val(99, i) : -1;
	MPI_OK(MPI_Bcast_c(s, C, MPI_INT, root, ic));
	for (i = 0; i < C && !t_in_a; i++)
		CHECK(s[i] == val(99, i), "inter bcast %d: %d", i, s[i]);

	for (j = 0, k = 0; j < nr; j++) {
		rc[j] = j + 1;
		rd[j] = k;
		k += j + 2;
	}
	for (i = 0; i <= me; i++)
		s[i] = val(me, i);
	memset(r, 0xff, sizeof(r));
	MPI_OK(MPI_Gatherv_c(s, me + 1, MPI_INT, r, rc, rd, MPI_INT, root, ic));
	if (root == MPI_ROOT)
		for (j = 0; j < nr; j++)
			for (i = 0; i <= j; i++)
				CHECK(r[rd[j] + i] == val(j, i), "inter gatherv %d.%d",
				      j, i);

	for (j = 0; j < nr && root == MPI_ROOT; j++)
		for (i = 0; i < C; i++)
			s[j * C + i] = val(j, i);
	memset(r, 0xff, sizeof(r));
	MPI_OK(MPI_Scatter_c(s, C, MPI_INT, r, C, MPI_INT, root, ic));
	for (i = 0; i < C && !t_in_a; i++)
		CHECK(r[i] == val(me, i), "inter scatter %d: %d", i, r[i]);

	for (i = 0; i <= me; i++)
		s[i] = val(me + (t_in_a ? 0 : 50), i);
	memset(r, 0xff, sizeof(r));
	MPI_OK(MPI_Allgatherv_c(s, me + 1, MPI_INT, r, rc, rd, MPI_INT, ic));
	for (j = 0; j < nr; j++)
		for (i = 0; i <= j; i++)
			CHECK(r[rd[j] + i] == val(j + (t_in_a ? 50 : 0), i),
			      "inter allgatherv %d.%d", j, i);
	MPI_OK(MPI_Comm_free(&ic));
}

int main(int argc, char **argv)
{
	int v;

	t_init(&argc, &argv);
	to = (t_rank + 1) % t_size;
	from = (t_rank + t_size - 1) % t_size;
	types();
	pack();
	p2p();
	for (v = 0; v < 3; v++) {
		coll(v);
		nbr(v);
	}
	if (t_size >= 2)
		inter();
	return t_done();
}
