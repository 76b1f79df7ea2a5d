// SPDX-License-Identifier: MIT
/*
 * MPI_Comm_dup, idup, dup_with_info and free: a duplicate has the same
 * ranks and its own traffic (same source and tag on two communicators
 * never cross, wildcards included, eager and rendezvous); compare
 * results; names; operations pending at free complete; with every
 * context id used but a few, hundreds of dup/free cycles reuse those
 * few; running out is an error (MPI_ERR_OTHER) on every rank, ids free
 * on some ranks only do not help, freeing makes room again; bad
 * arguments give their classes.
 */
#include "comm_util.h"

#define BIG 100000

static unsigned char sbuf[2][BIG], rbuf[2][BIG];
static MPI_Group world_group;

/*
 * The partner (world rank ^ 1) sends on a, then on b (same tag); here a
 * wildcard receive on b is posted after both arrived, then a specific
 * one on a.  a and b hold every rank.
 */
static void no_crossing(MPI_Comm a, MPI_Comm b, int n, const char *what)
{
	int pa = t_rank_in(a, t_partner()), pb = t_rank_in(b, t_partner()), cnt;
	MPI_Request s[2];
	MPI_Status st;

	t_fill(sbuf[0], (size_t)n, 1);
	t_fill(sbuf[1], (size_t)n, 2);
	MPI_OK(MPI_Isend(sbuf[0], n, MPI_BYTE, pa, 9, a, &s[0]));
	MPI_OK(MPI_Isend(sbuf[1], n / 2, MPI_BYTE, pb, 9, b, &s[1]));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Recv(rbuf[1], n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, b, &st));
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
	CHECK(cnt == n / 2 && st.MPI_TAG == 9 && st.MPI_SOURCE == pb &&
	      !t_bad(rbuf[1], (size_t)cnt, 2),
	      "%s: wildcard receive got %d bytes (tag %d) from %d", what, cnt,
	      st.MPI_TAG, st.MPI_SOURCE);
	MPI_OK(MPI_Recv(rbuf[0], n, MPI_BYTE, pa, 9, a, &st));
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
	CHECK(cnt == n && !t_bad(rbuf[0], (size_t)n, 1), "%s: got %d bytes", what, cnt);
	MPI_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
}

/*
 * Receives posted on both first, with wildcards, then the sends.  The
 * barrier's messages travel on WORLD's collective context: wildcard
 * receives on WORLD do not catch them.
 */
static void preposted(MPI_Comm a, MPI_Comm b)
{
	int p = t_partner(), va = -1, vb = -1, one = 100 + t_rank, two = 200 + t_rank,
	    flag;
	MPI_Request r[2];
	MPI_Status st[2];

	MPI_OK(MPI_Irecv(&va, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, a, &r[0]));
	MPI_OK(MPI_Irecv(&vb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, b, &r[1]));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Send(&two, 1, MPI_INT, p, 4, b));
	MPI_OK(MPI_Send(&one, 1, MPI_INT, p, 4, a));
	MPI_OK(MPI_Waitall(2, r, st));
	CHECK(va == 100 + p && vb == 200 + p && st[0].MPI_SOURCE == p &&
	      st[1].MPI_SOURCE == p, "preposted wildcards: a got %d, b got %d", va, vb);
	MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, a, &flag, MPI_STATUS_IGNORE));
	CHECK(!flag, "a stray message on a");
}

static void names(MPI_Comm d)
{
	char name[MPI_MAX_OBJECT_NAME], longname[300];
	int len, flag;

	MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
	CHECK(!strcmp(name, "MPI_COMM_WORLD") && len == 14, "world is named %s", name);
	MPI_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
	CHECK(!strcmp(name, "MPI_COMM_SELF") && len == 13, "self is named %s", name);
	MPI_OK(MPI_Comm_get_name(d, name, &len));
	CHECK(len == 0 && !name[0], "a duplicate is named '%s'", name);
	MPI_OK(MPI_Comm_set_name(d, "my dup"));
	MPI_OK(MPI_Comm_get_name(d, name, &len));
	CHECK(!strcmp(name, "my dup") && len == 6, "named '%s'", name);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	MPI_OK(MPI_Comm_set_name(d, longname));
	MPI_OK(MPI_Comm_get_name(d, name, &len));
	CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len,
	      "long name kept %d characters", len);
	MPI_OK(MPI_Comm_test_inter(d, &flag));
	CHECK(!flag, "an intercommunicator?");
}

static void compare(MPI_Comm d)
{
	MPI_Comm rev, par, d2;
	int cmp;

	MPI_OK(MPI_Comm_compare(d, d, &cmp));
	CHECK(cmp == MPI_IDENT, "d vs d: %d", cmp);
	MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, d, &cmp));
	CHECK(cmp == MPI_CONGRUENT, "world vs dup: %d", cmp);
	MPI_OK(MPI_Comm_dup(d, &d2));
	MPI_OK(MPI_Comm_compare(d2, d, &cmp));
	CHECK(cmp == MPI_CONGRUENT, "dup of dup: %d", cmp);
	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, -t_rank, &rev));
	MPI_OK(MPI_Comm_compare(rev, d, &cmp));
	CHECK(cmp == (t_size > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "reversed: %d", cmp);
	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, 0, &par));
	MPI_OK(MPI_Comm_compare(par, d, &cmp));
	CHECK(cmp == (t_size > 1 ? MPI_UNEQUAL : MPI_CONGRUENT), "parity: %d", cmp);
	MPI_OK(MPI_Comm_compare(MPI_COMM_SELF, d, &cmp));
	CHECK(cmp == (t_size > 1 ? MPI_UNEQUAL : MPI_CONGRUENT), "self: %d", cmp);
	no_crossing(rev, d, 64, "reversed split vs dup");
	MPI_OK(MPI_Comm_free(&par));
	MPI_OK(MPI_Comm_free(&rev));
	MPI_OK(MPI_Comm_free(&d2));
}

static void idup(void)
{
	MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
	MPI_Request r;
	int flag = 0, cmp, want[MAXN], i;

	for (i = 0; i < t_size; i++)
		want[i] = i;
	MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	CHECK(r == MPI_REQUEST_NULL, "Wait left the request");
	MPI_OK(MPI_Comm_idup(a, &b, &r));
	while (!flag)
		MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
	MPI_OK(MPI_Comm_compare(a, b, &cmp));
	CHECK(cmp == MPI_CONGRUENT, "idup of idup: %d", cmp);
	t_check_comm(b, t_size, want, "idup");
	no_crossing(a, b, BIG, "idup'd, rendezvous");
	MPI_OK(MPI_Comm_free(&a));
	MPI_OK(MPI_Comm_dup_with_info(b, MPI_INFO_NULL, &a));
	t_check_comm(a, t_size, want, "dup_with_info");
	MPI_OK(MPI_Comm_free(&a));
	MPI_OK(MPI_Comm_free(&b));
}

/* Free with a receive and a send still pending: both complete. */
static void free_pending(void)
{
	int p = t_partner(), v = -1, mine = 300 + t_rank;
	MPI_Request r[2];
	MPI_Status st[2];
	MPI_Comm d;

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
	MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 6, d, &r[0]));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Isend(&mine, 1, MPI_INT, p, 6, d, &r[1]));
	MPI_OK(MPI_Comm_free(&d));
	MPI_OK(MPI_Waitall(2, r, st));
	CHECK(v == 300 + p && st[0].MPI_SOURCE == p, "after free: got %d from %d",
	      v, st[0].MPI_SOURCE);
}

static void cycles(int n)
{
	int i, v, p = t_partner();
	MPI_Comm d;

	for (i = 0; i < n; i++) {
		MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
		if (i % 50 == 0) {
			MPI_OK(MPI_Sendrecv(&i, 1, MPI_INT, p, 1, &v, 1, MPI_INT, p, 1,
					    d, MPI_STATUS_IGNORE));
			CHECK(v == i, "cycle %d got %d", i, v);
		}
		MPI_OK(MPI_Comm_free(&d));
	}
}

/* Dup n times, keeping them; returns how many worked (then the error). */
static int hold(MPI_Comm *c, int n, int *err)
{
	int i;

	for (i = 0; i < n; i++) {
		*err = MPI_Comm_dup(MPI_COMM_WORLD, &c[i]);
		if (*err)
			break;
	}
	return i;
}

static void same_everywhere(int n, const char *what)
{
	int lo, hi;

	MPI_OK(MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
	MPI_OK(MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	CHECK(lo == n && hi == n, "%s: %d here, %d..%d overall", what, n, lo, hi);
}

/*
 * Use up every context id with communicators of this process alone
 * (create_group on a group of one: no messages, so thousands are
 * cheap), then free a few everywhere: dup/free cycles over WORLD go on
 * in those few ids for ever, holding more than there are fails with
 * MPI_ERR_OTHER on every rank, and ids free on some ranks only do not
 * count.
 */
static void exhaust(void)
{
	enum { MAX = 8192, FEW = 4 };
	MPI_Comm *own = malloc(MAX * sizeof(*own)), held[FEW + 1];
	MPI_Group me;
	int n, i, err, cls;

	MPI_OK(MPI_Group_incl(world_group, 1, &t_rank, &me));
	for (n = 0; n < MAX; n++) {
		err = MPI_Comm_create_group(MPI_COMM_WORLD, me, 0, &own[n]);
		if (err)
			break;
	}
	CHECK(n < MAX && n >= 1000 + FEW * MAXN, "%d communicators before failing", n);
	MPI_OK(MPI_Error_class(err, &cls));
	CHECK(cls == MPI_ERR_OTHER, "out of context ids: class %d", cls);
	same_everywhere(n, "ran out");
	T_EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &held[0]), MPI_ERR_OTHER, "dup with no id");

	for (i = 0; i < FEW; i++)
		MPI_OK(MPI_Comm_free(&own[i]));
	cycles(200);	/* 200 duplicates in FEW ids */
	CHECK(hold(held, FEW + 1, &err) == FEW, "held more than %d", FEW);
	MPI_OK(MPI_Error_class(err, &cls));
	CHECK(cls == MPI_ERR_OTHER, "holding too many: class %d", cls);
	no_crossing(held[0], held[FEW - 1], 64, "in the last ids");
	for (i = 0; i < FEW; i++)
		MPI_OK(MPI_Comm_free(&held[i]));

	/* Each rank frees different ones: none is free everywhere. */
	if (t_size > 1) {
		for (i = FEW; i < FEW + FEW * t_size; i++)
			if (i % t_size == t_rank)
				MPI_OK(MPI_Comm_free(&own[i]));
		CHECK(hold(held, FEW + 1, &err) == FEW, "held more than %d", FEW);
		for (i = 0; i < FEW; i++)
			MPI_OK(MPI_Comm_free(&held[i]));
	}
	for (i = FEW; i < n; i++)
		if (own[i] != MPI_COMM_NULL)
			MPI_OK(MPI_Comm_free(&own[i]));
	MPI_OK(MPI_Group_free(&me));
	free(own);
}

static void bad_arguments(void)
{
	MPI_Comm c = MPI_COMM_WORLD, null = MPI_COMM_NULL;
	MPI_Request r;
	int cmp;

	T_EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM, "free MPI_COMM_WORLD");
	CHECK(c == MPI_COMM_WORLD, "free of WORLD cleared the handle");
	c = MPI_COMM_SELF;
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	T_EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM, "free MPI_COMM_SELF");
	T_EXPECT(MPI_Comm_free(&null), MPI_ERR_COMM, "free MPI_COMM_NULL");
	T_EXPECT(MPI_Comm_free(NULL), MPI_ERR_ARG, "free NULL");
	T_EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM, "dup MPI_COMM_NULL");
	T_EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "dup into NULL");
	T_EXPECT(MPI_Comm_idup(MPI_COMM_WORLD, &c, NULL), MPI_ERR_REQUEST, "idup request NULL");
	T_EXPECT(MPI_Comm_idup(MPI_COMM_NULL, &c, &r), MPI_ERR_COMM, "idup MPI_COMM_NULL");
	CHECK(r == MPI_REQUEST_NULL, "failed idup left a request");
	T_EXPECT(MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &cmp), MPI_ERR_COMM,
		 "compare MPI_COMM_NULL");
	T_EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, NULL), MPI_ERR_ARG,
		 "compare into NULL");
	T_EXPECT(MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "set_name NULL");
	T_EXPECT(MPI_Comm_get_name(MPI_COMM_NULL, NULL, &cmp), MPI_ERR_COMM,
		 "get_name of COMM_NULL");
	T_EXPECT(MPI_Comm_test_inter(MPI_COMM_NULL, &cmp), MPI_ERR_COMM,
		 "test_inter of COMM_NULL");
}

int main(int argc, char **argv)
{
	int want[MAXN], i;
	MPI_Comm d;

	t_init(&argc, &argv);
	CHECK(t_size <= MAXN, "at most %d ranks", MAXN);
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
	for (i = 0; i < t_size; i++)
		want[i] = i;
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
	t_check_comm(d, t_size, want, "dup of world");
	no_crossing(MPI_COMM_WORLD, d, 64, "world vs dup, eager");
	no_crossing(d, MPI_COMM_WORLD, BIG, "dup vs world, rendezvous");
	preposted(MPI_COMM_WORLD, d);
	preposted(d, MPI_COMM_WORLD);
	names(d);
	compare(d);
	MPI_OK(MPI_Comm_free(&d));
	CHECK(d == MPI_COMM_NULL, "free did not clear the handle");
	idup();
	free_pending();
	cycles(100);
	exhaust();
	cycles(100);
	bad_arguments();
	MPI_OK(MPI_Group_free(&world_group));
	return t_done();
}
