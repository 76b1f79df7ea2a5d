// SPDX-License-Identifier: MIT
/*
 * Persistent collectives (libmsg/src/coll_persist.c): every *_init call
 * made once and started three times, with new data each time, results
 * checked against what each rank computes by hand: barrier, bcast,
 * gather(v), scatter(v), allgather(v), alltoall(v,w), reduce,
 * allreduce, reduce_scatter(_block), scan, exscan (MPI_IN_PLACE in
 * one), and the neighbourhood ones on a periodic ring.  Completion by
 * MPI_Wait, by MPI_Test alone, and for two at once by MPI_Startall
 * and MPI_Waitall.  Requests: inactive after completion (MPI_Wait on
 * it returns at once), MPI_Start of an active one and MPI_Request_free
 * of an active one refused, freed when inactive.  Init refusals: a bad
 * root, op, info, a NULL request; a datatype freed after the init
 * makes the start fail with MPI_ERR_TYPE.  Several started in one
 * order and completed in another on each rank (Wait, Test, Waitany,
 * Waitsome), a blocking collective between the starts.
 */
#include "test.h"

#define N 5		/* ints per rank */
#define ROUNDS 3

static int v(int rank, int i, int round)
{
	return 1000 * round + 10 * rank + i;
}

static void run(MPI_Request *r, int round, int by_test)
{
	int flag = 0;

	MPI_OK(MPI_Start(r));
	if (by_test)
		while (!flag)
			MPI_OK(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
	else
		MPI_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
	CHECK(*r != MPI_REQUEST_NULL, "round %d: request gone", round);
}

static void rooted(void)
{
	int root = t_size - 1, p = t_size, i, k, round;
	int *all = malloc(sizeof(int) * N * p), *cnt = malloc(sizeof(int) * p);
	int *dsp = malloc(sizeof(int) * p), mine[N] = { 0 }, bc[N];
	MPI_Request g, gv, s, sv, b;

	for (k = 0; k < p; k++) {
		cnt[k] = N;
		dsp[k] = N * k;
	}
	MPI_OK(MPI_Bcast_init(bc, N, MPI_INT, root, MPI_COMM_WORLD,
			      MPI_INFO_NULL, &b));
	MPI_OK(MPI_Gather_init(mine, N, MPI_INT, all, N, MPI_INT, root,
			       MPI_COMM_WORLD, MPI_INFO_NULL, &g));
	MPI_OK(MPI_Gatherv_init(mine, N, MPI_INT, all, cnt, dsp, MPI_INT, 0,
				MPI_COMM_WORLD, MPI_INFO_NULL, &gv));
	MPI_OK(MPI_Scatter_init(all, N, MPI_INT, mine, N, MPI_INT, root,
				MPI_COMM_WORLD, MPI_INFO_NULL, &s));
	MPI_OK(MPI_Scatterv_init(all, cnt, dsp, MPI_INT, mine, N, MPI_INT, 0,
				 MPI_COMM_WORLD, MPI_INFO_NULL, &sv));
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < N; i++)
			bc[i] = t_rank == root ? v(99, i, round) : -1;
		run(&b, round, round == 1);
		for (i = 0; i < N; i++)
			CHECK(bc[i] == v(99, i, round), "bcast %d: %d", round,
			      bc[i]);
		for (i = 0; i < N; i++)
			mine[i] = v(t_rank, i, round);
		memset(all, 0xff, sizeof(int) * N * p);
		run(&g, round, 0);
		if (t_rank == root)
			for (k = 0; k < N * p; k++)
				CHECK(all[k] == v(k / N, k % N, round),
				      "gather %d: [%d] %d", round, k, all[k]);
		memset(all, 0xff, sizeof(int) * N * p);
		run(&gv, round, 0);
		if (t_rank == 0)
			for (k = 0; k < N * p; k++)
				CHECK(all[k] == v(k / N, k % N, round),
				      "gatherv %d: [%d] %d", round, k, all[k]);
		/* Every rank fills all: whichever is root sends it. */
		for (k = 0; k < N * p; k++)
			all[k] = v(k / N, k % N, round + 7);
		memset(mine, 0, sizeof(mine));
		run(&s, round, round == 2);
		for (i = 0; i < N; i++)
			CHECK(mine[i] == v(t_rank, i, round + 7), "scatter %d",
			      round);
		memset(mine, 0, sizeof(mine));
		run(&sv, round, 0);
		for (i = 0; i < N; i++)
			CHECK(mine[i] == v(t_rank, i, round + 7), "scatterv %d",
			      round);
	}
	MPI_OK(MPI_Request_free(&b));
	MPI_OK(MPI_Request_free(&g));
	MPI_OK(MPI_Request_free(&gv));
	MPI_OK(MPI_Request_free(&s));
	MPI_OK(MPI_Request_free(&sv));
	CHECK(b == MPI_REQUEST_NULL, "freed request not reset");
	free(all);
	free(cnt);
	free(dsp);
}

static void everyone(void)
{
	int p = t_size, i, k, round;
	int *all = malloc(sizeof(int) * N * p), *cnt = malloc(sizeof(int) * p);
	int *dsp = malloc(sizeof(int) * p), *out = malloc(sizeof(int) * N * p);
	MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * p);
	int *bdsp = malloc(sizeof(int) * p), mine[N] = { 0 };
	MPI_Request ag, agv, a2a, a2av, a2aw;

	for (k = 0; k < p; k++) {
		cnt[k] = N;
		dsp[k] = N * k;
		bdsp[k] = (int)sizeof(int) * N * k;
		ty[k] = MPI_INT;
	}
	MPI_OK(MPI_Allgather_init(mine, N, MPI_INT, all, N, MPI_INT,
				  MPI_COMM_WORLD, MPI_INFO_NULL, &ag));
	MPI_OK(MPI_Allgatherv_init(mine, N, MPI_INT, all, cnt, dsp, MPI_INT,
				   MPI_COMM_WORLD, MPI_INFO_NULL, &agv));
	MPI_OK(MPI_Alltoall_init(out, N, MPI_INT, all, N, MPI_INT,
				 MPI_COMM_WORLD, MPI_INFO_NULL, &a2a));
	MPI_OK(MPI_Alltoallv_init(out, cnt, dsp, MPI_INT, all, cnt, dsp,
				  MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
				  &a2av));
	MPI_OK(MPI_Alltoallw_init(out, cnt, bdsp, ty, all, cnt, bdsp, ty,
				  MPI_COMM_WORLD, MPI_INFO_NULL, &a2aw));
	for (round = 0; round < ROUNDS; round++) {
		MPI_Request *gathers[2] = { &ag, &agv };
		MPI_Request *a2as[3] = { &a2a, &a2av, &a2aw };

		for (i = 0; i < N; i++)
			mine[i] = v(t_rank, i, round);
		for (k = 0; k < 2; k++) {
			memset(all, 0xff, sizeof(int) * N * p);
			run(gathers[k], round, k);
			for (i = 0; i < N * p; i++)
				CHECK(all[i] == v(i / N, i % N, round),
				      "allgather%s %d: [%d] %d", k ? "v" : "",
				      round, i, all[i]);
		}
		/* Block k of out goes to rank k: (me, k) encoded. */
		for (i = 0; i < N * p; i++)
			out[i] = v(t_rank, i, round) ;
		for (k = 0; k < 3; k++) {
			memset(all, 0xff, sizeof(int) * N * p);
			run(a2as[k], round, 0);
			for (i = 0; i < N * p; i++)
				CHECK(all[i] == v(i / N, N * t_rank + i % N, round),
				      "alltoall(%d) %d: [%d] %d", k, round, i,
				      all[i]);
		}
	}
	MPI_OK(MPI_Request_free(&ag));
	MPI_OK(MPI_Request_free(&agv));
	MPI_OK(MPI_Request_free(&a2a));
	MPI_OK(MPI_Request_free(&a2av));
	MPI_OK(MPI_Request_free(&a2aw));
	free(all);
	free(cnt);
	free(dsp);
	free(out);
	free(ty);
	free(bdsp);
}

static void reductions(void)
{
	int p = t_size, i, k, round, sum, want;
	int in[N] = { 0 }, red[N], rs[N], rsb[N], sc[N], ex[N], ip[N];
	int *big = malloc(sizeof(int) * N * p), *cnt = malloc(sizeof(int) * p);
	MPI_Request r, ar, rsr, rsbr, scr, exr, ipr, two[2];

	for (k = 0; k < p; k++)
		cnt[k] = N;
	MPI_OK(MPI_Reduce_init(in, red, N, MPI_INT, MPI_SUM, 0,
			       MPI_COMM_WORLD, MPI_INFO_NULL, &r));
	MPI_OK(MPI_Allreduce_init(in, sc, N, MPI_INT, MPI_MAX,
				  MPI_COMM_WORLD, MPI_INFO_NULL, &ar));
	MPI_OK(MPI_Reduce_scatter_init(big, rs, cnt, MPI_INT, MPI_SUM,
				       MPI_COMM_WORLD, MPI_INFO_NULL, &rsr));
	MPI_OK(MPI_Reduce_scatter_block_init(big, rsb, N, MPI_INT, MPI_SUM,
					     MPI_COMM_WORLD, MPI_INFO_NULL,
					     &rsbr));
	MPI_OK(MPI_Scan_init(in, sc, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
			     MPI_INFO_NULL, &scr));
	MPI_OK(MPI_Exscan_init(in, ex, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
			       MPI_INFO_NULL, &exr));
	MPI_OK(MPI_Allreduce_init(MPI_IN_PLACE, ip, N, MPI_INT, MPI_SUM,
				  MPI_COMM_WORLD, MPI_INFO_NULL, &ipr));
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < N; i++)
			in[i] = v(t_rank, i, round);
		for (i = 0; i < N * p; i++)
			big[i] = v(t_rank, i, round);
		run(&r, round, 0);
		if (t_rank == 0)
			for (i = 0; i < N; i++) {
				for (sum = 0, k = 0; k < p; k++)
					sum += v(k, i, round);
				CHECK(red[i] == sum, "reduce %d", round);
			}
		run(&ar, round, 1);
		for (i = 0; i < N; i++)
			CHECK(sc[i] == v(p - 1, i, round), "allreduce max");
		run(&rsr, round, 0);
		run(&rsbr, round, 0);
		for (i = 0; i < N; i++) {
			for (sum = 0, k = 0; k < p; k++)
				sum += v(k, N * t_rank + i, round);
			CHECK(rs[i] == sum && rsb[i] == sum,
			      "reduce_scatter %d: %d %d, want %d", round,
			      rs[i], rsb[i], sum);
		}
		/* Scan and exscan started together, waited for together. */
		two[0] = scr;
		two[1] = exr;
		MPI_OK(MPI_Startall(2, two));
		MPI_OK(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
		for (i = 0; i < N; i++) {
			for (sum = 0, k = 0; k < t_rank; k++)
				sum += v(k, i, round);
			CHECK(sc[i] == sum + v(t_rank, i, round), "scan");
			CHECK(t_rank == 0 || ex[i] == sum, "exscan");
		}
		for (i = 0; i < N; i++)
			ip[i] = t_rank + round;
		run(&ipr, round, 0);
		want = p * (p - 1) / 2 + p * round;
		for (i = 0; i < N; i++)
			CHECK(ip[i] == want, "in place %d: %d", round, ip[i]);
	}
	MPI_OK(MPI_Request_free(&r));
	MPI_OK(MPI_Request_free(&ar));
	MPI_OK(MPI_Request_free(&rsr));
	MPI_OK(MPI_Request_free(&rsbr));
	MPI_OK(MPI_Request_free(&scr));
	MPI_OK(MPI_Request_free(&exr));
	MPI_OK(MPI_Request_free(&ipr));
	free(big);
	free(cnt);
}

/* A periodic ring: left and right neighbours. */
static void neighbours(void)
{
	int dims[1] = { t_size }, per[1] = { 1 }, round, i, left, right;
	int me[4] = { 0 }, got[4], cnt[2] = { 2, 2 }, dsp[2] = { 0, 2 };
	MPI_Aint adsp[2] = { 0, 2 * sizeof(int) };
	MPI_Datatype ty[2] = { MPI_INT, MPI_INT };
	MPI_Request ag, agv, a2a, a2av, a2aw, *vw[2] = { &a2av, &a2aw };
	MPI_Comm ring;

	MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring));
	MPI_OK(MPI_Cart_shift(ring, 0, 1, &left, &right));
	MPI_OK(MPI_Neighbor_allgather_init(me, 2, MPI_INT, got, 2, MPI_INT,
					   ring, MPI_INFO_NULL, &ag));
	MPI_OK(MPI_Neighbor_allgatherv_init(me, 2, MPI_INT, got, cnt, dsp,
					    MPI_INT, ring, MPI_INFO_NULL, &agv));
	MPI_OK(MPI_Neighbor_alltoall_init(me, 1, MPI_INT, got, 1, MPI_INT,
					  ring, MPI_INFO_NULL, &a2a));
	MPI_OK(MPI_Neighbor_alltoallv_init(me, cnt, dsp, MPI_INT, got, cnt,
					   dsp, MPI_INT, ring, MPI_INFO_NULL,
					   &a2av));
	MPI_OK(MPI_Neighbor_alltoallw_init(me, cnt, adsp, ty, got, cnt, adsp,
					   ty, ring, MPI_INFO_NULL, &a2aw));
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < 4; i++)
			me[i] = v(t_rank, i, round);
		for (i = 0; i < 2; i++) {
			memset(got, 0xff, sizeof(got));
			run(i ? &agv : &ag, round, 0);
			CHECK(got[0] == v(left, 0, round) &&
			      got[1] == v(left, 1, round) &&
			      got[2] == v(right, 0, round) &&
			      got[3] == v(right, 1, round),
			      "neighbor allgather%s %d", i ? "v" : "", round);
		}
		/* me[0] goes left, me[1] right. */
		memset(got, 0xff, sizeof(got));
		run(&a2a, round, 1);
		CHECK(got[0] == v(left, 1, round) && got[1] == v(right, 0, round),
		      "neighbor alltoall %d: %d %d", round, got[0], got[1]);
		/* me[0..1] go left, me[2..3] right. */
		for (i = 0; i < 2; i++) {
			memset(got, 0xff, sizeof(got));
			run(vw[i], round, 0);
			CHECK(got[0] == v(left, 2, round) &&
			      got[1] == v(left, 3, round) &&
			      got[2] == v(right, 0, round) &&
			      got[3] == v(right, 1, round),
			      "neighbor alltoall%s %d", i ? "w" : "v", round);
		}
	}
	MPI_OK(MPI_Request_free(&ag));
	MPI_OK(MPI_Request_free(&agv));
	MPI_OK(MPI_Request_free(&a2a));
	MPI_OK(MPI_Request_free(&a2av));
	MPI_OK(MPI_Request_free(&a2aw));
	MPI_OK(MPI_Comm_free(&ring));
}

static void misuse(void)
{
	MPI_Request r, bad;
	MPI_Datatype t;
	MPI_Info info = (MPI_Info)&r;
	int x[2] = { 0, 0 }, err;

	MPI_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r));
	/* Inactive: MPI_Wait returns at once. */
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Start(&r));
	err = MPI_Start(&r);
	CHECK(err == MPI_ERR_REQUEST, "active started again: %d", err);
	err = MPI_Request_free(&r);
	CHECK(err == MPI_ERR_REQUEST && r != MPI_REQUEST_NULL,
	      "active freed: %d", err);
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Request_free(&r));

	bad = MPI_REQUEST_NULL;
	err = MPI_Bcast_init(x, 1, MPI_INT, t_size, MPI_COMM_WORLD,
			     MPI_INFO_NULL, &bad);
	CHECK(err == MPI_ERR_ROOT && bad == MPI_REQUEST_NULL, "root: %d", err);
	err = MPI_Allreduce_init(x, x + 1, 1, MPI_INT, MPI_OP_NULL,
				 MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
	CHECK(err == MPI_ERR_OP, "op: %d", err);
	err = MPI_Barrier_init(MPI_COMM_WORLD, info, &bad);
	CHECK(err == MPI_ERR_INFO, "info: %d", err);
	err = MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL);
	CHECK(err == MPI_ERR_REQUEST, "NULL request: %d", err);
	err = MPI_Bcast_init(x, -1, MPI_INT, 0, MPI_COMM_WORLD,
			     MPI_INFO_NULL, &bad);
	CHECK(err == MPI_ERR_COUNT, "count: %d", err);

	/* A type freed after the init: the start fails, nothing hangs. */
	MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
	MPI_OK(MPI_Type_commit(&t));
	MPI_OK(MPI_Bcast_init(x, 1, t, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
	MPI_OK(MPI_Type_free(&t));
	err = MPI_Start(&r);
	CHECK(err == MPI_ERR_TYPE, "start with a freed type: %d", err);
	MPI_OK(MPI_Request_free(&r));
}

/*
 * Several persistent collectives started in one order on every rank
 * and completed in another on each (a rotation by rank, by Wait, Test,
 * Waitany and Waitsome), with a blocking collective between the
 * starts: each start is its own operation, so no message may go to
 * another (sizes differ: a crossing would truncate) and every result
 * is right.
 */
#define NOOO 5
#define BIG 5000	/* ints: past the eager limit */

static void out_of_order(void)
{
	int p = t_size, last = t_size - 1, round, i, k, idx, n, done;
	int bc[3], sum[7], one = 0, mine[7], *big = malloc(sizeof(int) * BIG);
	int *all = malloc(sizeof(int) * BIG * (size_t)p);
	int *a2a_out = malloc(sizeof(int) * 2 * (size_t)p);
	int *a2a_in = malloc(sizeof(int) * 2 * (size_t)p), idxs[NOOO];
	MPI_Request r[NOOO];

	CHECK(big && all && a2a_out && a2a_in, "malloc");
	MPI_OK(MPI_Bcast_init(bc, 3, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
			      &r[0]));
	MPI_OK(MPI_Allreduce_init(mine, sum, 7, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
				  MPI_INFO_NULL, &r[1]));
	MPI_OK(MPI_Gather_init(big, BIG, MPI_INT, all, BIG, MPI_INT, last,
			       MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
	MPI_OK(MPI_Alltoall_init(a2a_out, 2, MPI_INT, a2a_in, 2, MPI_INT,
				 MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]));
	MPI_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[4]));
	for (round = 0; round < 8; round++) {
		if (t_rank == 0)
			for (i = 0; i < 3; i++)
				bc[i] = round * 10 + i;
		for (i = 0; i < 7; i++)
			mine[i] = t_rank * i + round;
		for (i = 0; i < BIG; i++)
			big[i] = t_rank * BIG + i + round;
		for (i = 0; i < 2 * p; i++)
			a2a_out[i] = 1000 * t_rank + i + round;
		if (round % 2) {
			MPI_OK(MPI_Startall(NOOO, r));
		} else {
			for (i = 0; i < NOOO; i++) {
				MPI_OK(MPI_Start(&r[i]));
				if (i == 2)	/* a blocking one in between */
					MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &one, 1,
							     MPI_INT, MPI_SUM,
							     MPI_COMM_WORLD));
			}
		}
		switch (round % 4) {
		case 0:	/* Wait, from a place that depends on the rank */
			for (k = 0; k < NOOO; k++)
				MPI_OK(MPI_Wait(&r[(k + t_rank) % NOOO],
						MPI_STATUS_IGNORE));
			break;
		case 1:	/* Test, backwards */
			for (k = NOOO - 1; k >= 0; k--) {
				i = (k + t_rank) % NOOO;
				done = 0;
				while (!done)
					MPI_OK(MPI_Test(&r[i], &done,
							MPI_STATUS_IGNORE));
			}
			break;
		case 2:	/* Waitany */
			for (k = 0; k < NOOO; k++)
				MPI_OK(MPI_Waitany(NOOO, r, &idx,
						   MPI_STATUS_IGNORE));
			MPI_OK(MPI_Waitany(NOOO, r, &idx, MPI_STATUS_IGNORE));
			CHECK(idx == MPI_UNDEFINED, "Waitany: %d still active", idx);
			break;
		default:	/* Waitsome */
			for (k = 0; k < NOOO; k += n)
				MPI_OK(MPI_Waitsome(NOOO, r, &n, idxs,
						    MPI_STATUSES_IGNORE));
			break;
		}
		for (i = 0; i < 3; i++)
			CHECK(bc[i] == round * 10 + i, "round %d: bcast %d", round, i);
		for (i = 0; i < 7; i++)
			CHECK(sum[i] == i * p * (p - 1) / 2 + p * round,
			      "round %d: allreduce %d", round, i);
		if (t_rank == last)
			for (k = 0; k < p; k++)
				for (i = 0; i < BIG; i += 499)
					CHECK(all[k * BIG + i] == k * BIG + i + round,
					      "round %d: gathered %d of rank %d",
					      round, i, k);
		for (k = 0; k < p; k++)
			for (i = 0; i < 2; i++)
				CHECK(a2a_in[2 * k + i] ==
				      1000 * k + 2 * t_rank + i + round,
				      "round %d: alltoall from %d", round, k);
	}
	for (i = 0; i < NOOO; i++)
		MPI_OK(MPI_Request_free(&r[i]));
	free(big);
	free(all);
	free(a2a_out);
	free(a2a_in);
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	rooted();
	everyone();
	reductions();
	neighbours();
	misuse();
	out_of_order();
	MPI_Finalize();
	if (t_rank == 0)
		printf("pcoll: ok (%d ranks)\n", t_size);
	return 0;
}
