// SPDX-License-Identifier: MIT
/*
 * Intercommunicators (libmsg/src/comm/intercomm.c), and communicator
 * info hints:
 *   - MPI_Intercomm_create between the low and the high half of the
 *     job, with leaders other than rank 0 too: test_inter, sizes,
 *     ranks, the local and remote groups, a name;
 *   - point-to-point names remote ranks: every process sends a small
 *     (the rings' short way) and a large message (rendezvous) to every
 *     remote one and receives them with MPI_ANY_SOURCE (and MPI_ANY_TAG,
 *     the small ones, an intercommunicator barrier before the large
 *     ones): MPI_SOURCE is the sender's remote rank; probes, persistent
 *     requests, MPI_PROC_NULL, a destination beyond the remote group;
 *   - merge (high and low, and both the same), dup, idup, split,
 *     create, compare, attributes copied by dup, free;
 *   - MPI_Intercomm_create_from_groups;
 *   - errors: merge, remote size and group of an intracommunicator,
 *     an intercommunicator as Intercomm_create's local_comm,
 *     overlapping groups, nonblocking collectives (not supported);
 *   - MPI_Comm_get_parent: MPI_COMM_NULL (nothing spawned);
 *   - MPI_Comm_set_info checks its info and MPI_Comm_get_info returns a
 *     new info object with no hints (libmsg ignores them all).
 */
// libmsg-test: np=2,3,4,8
#include "inter_util.h"

#define BIG (256 * 1024)

/* c works: an allreduce over it adds every rank. */
static void works(MPI_Comm c, int want, const char *what)
{
	int one = 1, sum = 0;

	MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
	CHECK(sum == want, "%s: sum %d, want %d", what, sum, want);
}

static void nkeys_is(MPI_Info info, int want)
{
	int n = -1;

	MPI_OK(MPI_Info_get_nkeys(info, &n));
	CHECK(n == want, "%d hints, want %d", n, want);
}

/* ic's shape: this group local, the other remote, in world order. */
static void shape(MPI_Comm ic, const char *what)
{
	int flag = 0, n, r, i, wr[64], in[64];
	MPI_Group g, wg;

	for (i = 0; i < 64; i++)
		in[i] = i;
	MPI_OK(MPI_Comm_test_inter(ic, &flag));
	CHECK(flag, "%s: not an intercommunicator", what);
	MPI_OK(MPI_Comm_size(ic, &n));
	CHECK(n == (t_in_a ? t_na : t_nb), "%s: size %d", what, n);
	MPI_OK(MPI_Comm_rank(ic, &r));
	CHECK(r == t_lrank(), "%s: rank %d", what, r);
	MPI_OK(MPI_Comm_remote_size(ic, &n));
	CHECK(n == t_rsize(), "%s: remote size %d", what, n);
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
	MPI_OK(MPI_Comm_remote_group(ic, &g));
	MPI_OK(MPI_Group_translate_ranks(g, n, in, wg, wr));
	for (i = 0; i < n; i++)
		CHECK(wr[i] == t_world_of(!t_in_a, i),
		      "%s: remote rank %d is world %d", what, i, wr[i]);
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Comm_group(ic, &g));
	MPI_OK(MPI_Group_size(g, &n));
	MPI_OK(MPI_Group_translate_ranks(g, n, in, wg, wr));
	for (i = 0; i < n; i++)
		CHECK(wr[i] == t_world_of(t_in_a, i),
		      "%s: local rank %d is world %d", what, i, wr[i]);
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Group_free(&wg));
}

/* Every process to every remote one, small and large, any source. */
static void p2p(MPI_Comm ic)
{
	int rs = t_rsize(), me = t_lrank(), i, k, v, seen[64] = { 0 }, cnt;
	unsigned char *big = malloc(BIG), *got = malloc(BIG);
	MPI_Request *rq = malloc(2 * (size_t)rs * sizeof(*rq));
	MPI_Status st;

	CHECK(big && got && rq, "no memory");
	t_fill(big, BIG, (unsigned)t_rank);
	for (i = 0; i < rs; i++)
		MPI_OK(MPI_Isend(&me, 1, MPI_INT, i, 100 + me, ic, &rq[2 * i]));
	for (k = 0; k < rs; k++) {
		MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
				ic, &st));
		CHECK(st.MPI_SOURCE == v && st.MPI_TAG == 100 + v && v >= 0 &&
		      v < rs && !seen[v], "small from %d tag %d carries %d",
		      st.MPI_SOURCE, st.MPI_TAG, v);
		seen[v] = 1;
	}
	/* Every small one received everywhere before any large one goes. */
	MPI_OK(MPI_Barrier(ic));
	for (i = 0; i < rs; i++)
		MPI_OK(MPI_Isend(big, BIG, MPI_BYTE, i, 7, ic, &rq[2 * i + 1]));
	for (k = 0; k < rs; k++) {
		MPI_OK(MPI_Probe(MPI_ANY_SOURCE, 7, ic, &st));
		CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rs,
		      "probed source %d", st.MPI_SOURCE);
		MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == BIG, "probed %d bytes", cnt);
		MPI_OK(MPI_Recv(got, BIG, MPI_BYTE, st.MPI_SOURCE, 7, ic, &st));
		CHECK(!t_bad(got, BIG, (unsigned)t_world_of(!t_in_a,
							     st.MPI_SOURCE)),
		      "large message from remote %d corrupt", st.MPI_SOURCE);
	}
	MPI_OK(MPI_Waitall(2 * rs, rq, MPI_STATUSES_IGNORE));

	/* Persistent, to and from remote rank me % rs, twice. */
	{
		int to = me % rs, out, in = -1, flag, r2;
		MPI_Request p[2];

		MPI_OK(MPI_Send_init(&out, 1, MPI_INT, to, 9, ic, &p[0]));
		for (k = 0; k < 2; k++) {
			out = 1000 * k + me;
			MPI_OK(MPI_Start(&p[0]));
			MPI_OK(MPI_Wait(&p[0], MPI_STATUS_IGNORE));
		}
		MPI_OK(MPI_Request_free(&p[0]));
		/* Who sends to me: remote ranks j with j % my size == me. */
		MPI_OK(MPI_Comm_size(ic, &r2));
		for (i = 0; i < rs; i++) {
			if (i % r2 != me)
				continue;
			MPI_OK(MPI_Recv_init(&in, 1, MPI_INT, i, 9, ic, &p[1]));
			for (k = 0; k < 2; k++) {
				MPI_OK(MPI_Start(&p[1]));
				MPI_OK(MPI_Wait(&p[1], &st));
				CHECK(in == 1000 * k + i && st.MPI_SOURCE == i,
				      "persistent: %d from %d", in, st.MPI_SOURCE);
			}
			MPI_OK(MPI_Request_free(&p[1]));
		}
		MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &flag,
				  MPI_STATUS_IGNORE));
		CHECK(!flag, "a message left over");
	}
	MPI_OK(MPI_Send(&me, 1, MPI_INT, MPI_PROC_NULL, 1, ic));
	T_EXPECT(MPI_Send(&me, 1, MPI_INT, rs, 1, ic), MPI_ERR_RANK,
		 "send to remote rank %d of %d", rs, rs);
	free(big);
	free(got);
	free(rq);
}

static int copies;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out,
		   int *flag)
{
	(void)c; (void)key; (void)extra;
	copies++;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

static void derived(MPI_Comm ic)
{
	MPI_Comm d, d2, m, s, c;
	MPI_Group g, sub;
	MPI_Request r;
	int res, key, *v, flag, n, rank, i, half, range[1][3];
	char name[MPI_MAX_OBJECT_NAME];

	copies = 0;
	MPI_OK(MPI_Comm_set_name(ic, "ab"));
	MPI_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key,
				      NULL));
	MPI_OK(MPI_Comm_set_attr(ic, key, &copies));
	MPI_OK(MPI_Comm_dup(ic, &d));
	shape(d, "dup");
	CHECK(copies == 1, "copy callback ran %d times", copies);
	MPI_OK(MPI_Comm_get_attr(d, key, &v, &flag));
	CHECK(flag && v == &copies, "attribute not copied");
	MPI_OK(MPI_Comm_get_name(d, name, &n));
	CHECK(n == 0, "a name inherited: %s", name);
	MPI_OK(MPI_Comm_get_name(ic, name, &n));
	CHECK(!strcmp(name, "ab"), "name %s", name);
	MPI_OK(MPI_Comm_compare(ic, d, &res));
	CHECK(res == MPI_CONGRUENT, "dup compares %d", res);
	MPI_OK(MPI_Comm_compare(ic, ic, &res));
	CHECK(res == MPI_IDENT, "itself compares %d", res);
	MPI_OK(MPI_Comm_compare(ic, MPI_COMM_WORLD, &res));
	CHECK(res == MPI_UNEQUAL, "world compares %d", res);
	MPI_OK(MPI_Comm_idup(ic, &d2, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	shape(d2, "idup");
	MPI_OK(MPI_Comm_free(&d2));

	/* Merge: B high, A low: A's ranks first. */
	MPI_OK(MPI_Intercomm_merge(d, !t_in_a, &m));
	MPI_OK(MPI_Comm_rank(m, &rank));
	CHECK(rank == t_rank, "merged rank %d", rank);
	works(m, t_size, "merge");
	MPI_OK(MPI_Comm_test_inter(m, &flag));
	CHECK(!flag, "merge gave an intercommunicator");
	MPI_OK(MPI_Comm_free(&m));
	/* A high: B first. */
	MPI_OK(MPI_Intercomm_merge(d, t_in_a, &m));
	MPI_OK(MPI_Comm_rank(m, &rank));
	CHECK(rank == (t_in_a ? t_nb + t_rank : t_rank - t_na),
	      "merged (A high) rank %d", rank);
	MPI_OK(MPI_Comm_free(&m));
	/* The same on both: some order, each group in one piece. */
	MPI_OK(MPI_Intercomm_merge(d, 0, &m));
	MPI_OK(MPI_Comm_rank(m, &rank));
	CHECK(rank == t_rank || rank == (t_in_a ? t_nb + t_rank : t_rank - t_na),
	      "merged (same) rank %d", rank);
	works(m, t_size, "merge same");
	MPI_OK(MPI_Comm_free(&m));

	/* Split by local rank parity: evens face evens, odds odds. */
	MPI_OK(MPI_Comm_split(d, t_lrank() % 2, -t_lrank(), &s));
	if (t_lrank() % 2 && t_rsize() < 2) {
		CHECK(s == MPI_COMM_NULL, "split with an empty remote side");
	} else {
		int ls = ((t_in_a ? t_na : t_nb) + 1 - t_lrank() % 2) / 2;

		CHECK(s != MPI_COMM_NULL, "no split intercommunicator");
		MPI_OK(MPI_Comm_size(s, &n));
		CHECK(n == ls, "split size %d, want %d", n, ls);
		MPI_OK(MPI_Comm_rank(s, &rank));
		CHECK(rank == ls - 1 - t_lrank() / 2, "split rank %d (keys reversed)",
		      rank);
		MPI_OK(MPI_Comm_remote_size(s, &n));
		CHECK(n == (t_rsize() + 1 - t_lrank() % 2) / 2,
		      "split remote size %d", n);
		MPI_OK(MPI_Comm_test_inter(s, &flag));
		CHECK(flag, "split is no intercommunicator");
		MPI_OK(MPI_Comm_free(&s));
	}
	MPI_OK(MPI_Comm_split(d, MPI_UNDEFINED, 0, &s));
	CHECK(s == MPI_COMM_NULL, "split with MPI_UNDEFINED");

	/* Create: the first half (at least one) of each group. */
	MPI_OK(MPI_Comm_group(d, &g));
	MPI_OK(MPI_Group_size(g, &n));
	half = (n + 1) / 2;
	range[0][0] = 0;
	range[0][1] = half - 1;
	range[0][2] = 1;
	MPI_OK(MPI_Group_range_incl(g, 1, range, &sub));
	MPI_OK(MPI_Comm_create(d, sub, &c));
	if (t_lrank() < half) {
		CHECK(c != MPI_COMM_NULL, "not in the created one");
		MPI_OK(MPI_Comm_size(c, &i));
		CHECK(i == half, "created size %d", i);
		MPI_OK(MPI_Comm_remote_size(c, &i));
		CHECK(i == (t_rsize() + 1) / 2, "created remote size %d", i);
		works(c, (t_rsize() + 1) / 2, "created");
		MPI_OK(MPI_Comm_free(&c));
	} else {
		CHECK(c == MPI_COMM_NULL, "outside the group, yet a communicator");
	}
	MPI_OK(MPI_Group_free(&sub));
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Comm_free(&d));
	CHECK(d == MPI_COMM_NULL, "freed handle not null");
	MPI_OK(MPI_Comm_free_keyval(&key));
}

static void from_groups(void)
{
	MPI_Group wg, a, b;
	MPI_Comm ic;
	int range[1][3];

	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
	range[0][0] = 0;
	range[0][1] = t_na - 1;
	range[0][2] = 1;
	MPI_OK(MPI_Group_range_incl(wg, 1, range, &a));
	range[0][0] = t_na;
	range[0][1] = t_size - 1;
	MPI_OK(MPI_Group_range_incl(wg, 1, range, &b));
	MPI_OK(MPI_Intercomm_create_from_groups(t_in_a ? a : b, 0,
						t_in_a ? b : a, 0, "t-ab",
						MPI_INFO_NULL,
						MPI_ERRORS_RETURN, &ic));
	shape(ic, "from_groups");
	works(ic, t_rsize(), "from_groups");
	MPI_OK(MPI_Comm_free(&ic));
	MPI_OK(MPI_Group_free(&a));
	MPI_OK(MPI_Group_free(&b));
	MPI_OK(MPI_Group_free(&wg));
}

static void errors(MPI_Comm ic, MPI_Comm lc)
{
	MPI_Comm c = MPI_COMM_WORLD, parent = MPI_COMM_WORLD;
	MPI_Group g = MPI_GROUP_EMPTY;
	MPI_Request r;
	int n = -7, x = 0;

	MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
	T_EXPECT(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM,
		 "merge of an intracommunicator");
	CHECK(c == MPI_COMM_NULL, "merge of an intracommunicator: a comm");
	T_EXPECT(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM,
		 "remote size of an intracommunicator");
	CHECK(n == -7, "remote size written");
	T_EXPECT(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM,
		 "remote group of an intracommunicator");
	T_EXPECT(MPI_Comm_remote_size(MPI_COMM_NULL, &n), MPI_ERR_COMM,
		 "remote size of MPI_COMM_NULL");
	T_EXPECT(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 1, &c),
		 MPI_ERR_COMM, "an intercommunicator as local_comm");
	T_EXPECT(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 5,
				      &c), MPI_ERR_COMM, "local_comm null");
	T_EXPECT(MPI_Iexscan(&x, &n, 1, MPI_INT, MPI_SUM, ic, &r),
		 MPI_ERR_COMM, "MPI_Iexscan on an intercommunicator");
	T_EXPECT(MPI_Scan(&x, &n, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM,
		 "MPI_Scan on an intercommunicator");
	/* Overlapping groups: the local group against itself. */
	MPI_OK(MPI_Comm_set_errhandler(lc, MPI_ERRORS_RETURN));
	T_EXPECT(MPI_Intercomm_create(lc, 0, lc, 0, 3, &c), MPI_ERR_COMM,
		 "overlapping groups");
	CHECK(c == MPI_COMM_NULL, "overlapping groups made a communicator");
	MPI_OK(MPI_Comm_get_parent(&parent));
	CHECK(parent == MPI_COMM_NULL, "a parent communicator");
}

static void hints(void)
{
	MPI_Info info, used, bad;
	MPI_Comm c;
	MPI_Request r;
	int n;

	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
	MPI_OK(MPI_Comm_set_info(MPI_COMM_WORLD, info));
	MPI_OK(MPI_Comm_get_info(MPI_COMM_WORLD, &used));
	CHECK(used != MPI_INFO_NULL && used != info, "no new info object");
	nkeys_is(used, 0);
	MPI_OK(MPI_Info_free(&used));
	T_EXPECT(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL),
		 MPI_ERR_INFO, "MPI_INFO_NULL set");
	bad = (MPI_Info)&n;	/* not an info object */
	T_EXPECT(MPI_Comm_set_info(MPI_COMM_WORLD, bad), MPI_ERR_INFO,
		 "a bad info set");
	T_EXPECT(MPI_Comm_dup_with_info(MPI_COMM_WORLD, bad, &c),
		 MPI_ERR_INFO, "dup with a bad info");
	T_EXPECT(MPI_Comm_idup_with_info(MPI_COMM_WORLD, bad, &c, &r),
		 MPI_ERR_INFO, "idup with a bad info");
	MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
	works(c, t_size, "dup_with_info");
	MPI_OK(MPI_Comm_get_info(c, &used));
	nkeys_is(used, 0);
	MPI_OK(MPI_Info_free(&used));
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	works(c, t_size, "idup_with_info");
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Info_free(&info));
	T_EXPECT(MPI_Comm_get_info(MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
		 "get_info into NULL");
}

int main(int argc, char **argv)
{
	MPI_Comm ic, ic2, lc;
	int leader;

	t_init(&argc, &argv);
	if (t_size < 2)
		T_SKIP("an intercommunicator needs 2 processes");
	for (leader = 0; leader < 2; leader++) {
		ic = t_inter(leader, 5 + leader, &lc);
		shape(ic, "created");
		works(ic, t_rsize(), "created");
		p2p(ic);
		/* A second one at once: its traffic stays its own. */
		ic2 = t_inter(leader + 1, 5, NULL);
		p2p(ic2);
		derived(ic);
		if (leader == 1)
			errors(ic, lc);
		MPI_OK(MPI_Comm_free(&ic2));
		MPI_OK(MPI_Comm_free(&ic));
		MPI_OK(MPI_Comm_free(&lc));
	}
	from_groups();
	hints();
	MPI_Finalize();
	if (t_rank == 0)
		printf("intercomm: ok (%d ranks)\n", t_size);
	return 0;
}
