// SPDX-License-Identifier: MIT
/*
 * A program of sessions only, never MPI_Init (libmsg/src/session.c):
 *   - info calls and MPI_Session_create_errhandler before MPI is
 *     initialized, MPI_Initialized false all along;
 *   - the process sets: their number, names (the size query, a cut
 *     name), "mpi_size", their groups;
 *   - MPI_Comm_create_from_group: of the world, of a subgroup (odd and
 *     even ranks, each called by its members only), of SELF; messages
 *     and collectives on them; two communicators of one group with
 *     equal tags never crossing;
 *   - errors raised on the session's handler (a user's function sees
 *     the session and the class) and on from_group's handler, refusals
 *     of wrong arguments;
 *   - two sessions at once; the job left when the last is finalized,
 *     and no session after that.
 */
#include "test.h"

static MPI_Session seen_session;
static int seen_code, seen_calls;

static void on_error(MPI_Session *s, int *code, ...)
{
	seen_session = *s;
	seen_code = *code;
	seen_calls++;
}

static void psets(MPI_Session s)
{
	char name[MPI_MAX_PSET_NAME_LEN], cut[5], v[32];
	MPI_Info info;
	int n = -1, len, flag = 0, i, world = 0, self = 0;

	MPI_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
	CHECK(n == 2, "%d process sets", n);
	for (i = 0; i < n; i++) {
		len = 0;
		MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len,
						NULL));
		CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "length %d", len);
		MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len,
						name));
		CHECK((int)strlen(name) + 1 == len, "%s: length %d", name, len);
		world += !strcmp(name, "mpi://WORLD");
		self += !strcmp(name, "mpi://SELF");
		MPI_OK(MPI_Session_get_pset_info(s, name, &info));
		MPI_OK(MPI_Info_get(info, "mpi_size", sizeof(v) - 1, v, &flag));
		CHECK(flag, "%s: no mpi_size", name);
		CHECK(atoi(v) == (strcmp(name, "mpi://SELF") ? t_size : 1),
		      "%s: mpi_size %s", name, v);
		MPI_OK(MPI_Info_free(&info));
	}
	CHECK(world == 1 && self == 1, "world %d self %d", world, self);
	len = sizeof(cut);
	MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, cut));
	CHECK(strlen(cut) == sizeof(cut) - 1 && len > (int)sizeof(cut),
	      "cut name \"%s\", length %d", cut, len);
	/* The session's handler returns: the errors come back. */
	CHECK(t_class(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, name)) ==
	      MPI_ERR_ARG, "a third process set");
	CHECK(t_class(MPI_Session_get_pset_info(s, "mpi://nowhere", &info)) ==
	      MPI_ERR_ARG, "an unknown process set");
	CHECK(t_class(MPI_Session_get_num_psets(s, (MPI_Info)&n, &n)) ==
	      MPI_ERR_INFO, "a bad info object");
}

/* A communicator of the group, checked against it, or MPI_COMM_NULL. */
static MPI_Comm from(MPI_Group g, const char *tag)
{
	MPI_Comm c = MPI_COMM_NULL;
	int gr, gs, cr, cs;

	MPI_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL,
					  MPI_ERRORS_RETURN, &c));
	CHECK(c != MPI_COMM_NULL, "no communicator for %s", tag);
	MPI_OK(MPI_Group_rank(g, &gr));
	MPI_OK(MPI_Group_size(g, &gs));
	MPI_OK(MPI_Comm_rank(c, &cr));
	MPI_OK(MPI_Comm_size(c, &cs));
	CHECK(gr == cr && gs == cs, "%s: rank %d/%d, group %d/%d", tag, cr,
	      cs, gr, gs);
	return c;
}

/* A ring and an allreduce on c. */
static void works(MPI_Comm c, int base)
{
	int r, n, got = -1, sum = 0;

	MPI_OK(MPI_Comm_rank(c, &r));
	MPI_OK(MPI_Comm_size(c, &n));
	MPI_OK(MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, 3, &got, 1, MPI_INT,
			    (r + n - 1) % n, 3, c, MPI_STATUS_IGNORE));
	CHECK(got == (r + n - 1) % n, "ring: %d from %d", got, (r + n - 1) % n);
	r += base;
	MPI_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
	CHECK(sum == n * base + n * (n - 1) / 2, "sum %d", sum);
}

/* Two communicators of one group: equal tags, never crossing. */
static void apart(MPI_Comm a, MPI_Comm b)
{
	int r, n, x = -1, y = -1, va, vb;

	MPI_OK(MPI_Comm_rank(a, &r));
	MPI_OK(MPI_Comm_size(a, &n));
	va = 100 + r;
	vb = 200 + r;
	MPI_OK(MPI_Send(&va, 1, MPI_INT, (r + 1) % n, 9, a));
	MPI_OK(MPI_Send(&vb, 1, MPI_INT, (r + 1) % n, 9, b));
	MPI_OK(MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 9, b,
			MPI_STATUS_IGNORE));
	MPI_OK(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9, a,
			MPI_STATUS_IGNORE));
	CHECK(x == 100 + (r + n - 1) % n && y == 200 + (r + n - 1) % n,
	      "crossed: %d on a, %d on b", x, y);
}

static void errors(MPI_Session s, MPI_Group world)
{
	MPI_Errhandler h, got = MPI_ERRHANDLER_NULL;
	MPI_Group none;
	MPI_Comm c = (MPI_Comm)&c;
	int err;

	MPI_OK(MPI_Session_create_errhandler(on_error, &h));
	MPI_OK(MPI_Session_set_errhandler(s, h));
	MPI_OK(MPI_Session_get_errhandler(s, &got));
	CHECK(got == h, "get_errhandler gave another handler");
	MPI_OK(MPI_Errhandler_free(&got));
	err = MPI_Group_from_session_pset(s, "mpi://elsewhere", &none);
	CHECK(t_class(err) == MPI_ERR_ARG, "an unknown process set: %d", err);
	CHECK(seen_calls == 1 && seen_session == s && seen_code == err,
	      "handler: %d calls, code %d", seen_calls, seen_code);
	MPI_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
	CHECK(seen_calls == 2 && seen_code == MPI_ERR_OTHER,
	      "call_errhandler: %d calls, code %d", seen_calls, seen_code);
	MPI_OK(MPI_Errhandler_free(&h));
	MPI_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
	CHECK(t_class(MPI_Session_set_errhandler(s, MPI_ERRHANDLER_NULL)) ==
	      MPI_ERR_ARG, "a null handler set");

	/* from_group's errors go to its own handler (returning here). */
	c = (MPI_Comm)&c;
	err = MPI_Comm_create_from_group(world, NULL, MPI_INFO_NULL,
					 MPI_ERRORS_RETURN, &c);
	CHECK(t_class(err) == MPI_ERR_ARG, "a NULL stringtag: %d", err);
	err = MPI_Comm_create_from_group(MPI_GROUP_NULL, "x", MPI_INFO_NULL,
					 MPI_ERRORS_RETURN, &c);
	CHECK(t_class(err) == MPI_ERR_GROUP, "MPI_GROUP_NULL: %d", err);
	err = MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "x", MPI_INFO_NULL,
					 MPI_ERRORS_RETURN, &c);
	CHECK(t_class(err) == MPI_ERR_GROUP && c == MPI_COMM_NULL,
	      "a group without this process: %d", err);
	err = MPI_Intercomm_create_from_groups(world, 0, world, 0, "x",
					       MPI_INFO_NULL,
					       MPI_ERRORS_RETURN, &c);
	/* Both groups the same: they overlap, which MPI does not allow. */
	CHECK(t_class(err) == MPI_ERR_COMM && c == MPI_COMM_NULL,
	      "an intercommunicator of overlapping groups: %d", err);
}

int main(void)
{
	MPI_Session s, s2;
	MPI_Errhandler early;
	MPI_Group world, self, half;
	MPI_Comm cw, cw2, ch, cs;
	MPI_Info info, used;
	char v[MPI_MAX_INFO_VAL];
	int flag = -1, ranks[64], i, n;

	/* Allowed before MPI is initialized. */
	MPI_OK(MPI_Initialized(&flag));
	CHECK(!flag, "initialized before anything");
	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "thread_level", "MPI_THREAD_FUNNELED"));
	MPI_OK(MPI_Session_create_errhandler(on_error, &early));
	MPI_OK(MPI_Errhandler_free(&early));

	MPI_OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
	MPI_OK(MPI_Info_free(&info));
	MPI_OK(MPI_Initialized(&flag));
	CHECK(!flag, "a session made MPI_Initialized true");
	MPI_OK(MPI_Session_get_info(s, &used));
	MPI_OK(MPI_Info_get(used, "thread_level", sizeof(v) - 1, v, &flag));
	CHECK(flag && !strcmp(v, "MPI_THREAD_FUNNELED"), "thread_level %s", v);
	MPI_OK(MPI_Info_free(&used));

	MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
	MPI_OK(MPI_Group_size(world, &t_size));
	MPI_OK(MPI_Group_rank(world, &t_rank));
	CHECK(t_size >= 1 && t_rank >= 0 && t_rank < t_size, "%d of %d",
	      t_rank, t_size);
	psets(s);

	cw = from(world, "org.mpichan.session.world");
	works(cw, 0);
	cw2 = from(world, "org.mpichan.session.world2");
	apart(cw, cw2);
	apart(cw2, cw);

	/* Odd and even ranks, each group created by its members alone. */
	for (i = n = 0; i < t_size && n < 64; i++)
		if (i % 2 == t_rank % 2)
			ranks[n++] = i;
	MPI_OK(MPI_Group_incl(world, n, ranks, &half));
	ch = from(half, t_rank % 2 ? "odd" : "even");
	works(ch, 1000 * (t_rank % 2));

	MPI_OK(MPI_Group_from_session_pset(s, "MPI://self", &self));
	cs = from(self, "org.mpichan.session.self");
	works(cs, 7);

	/* A second session: the job stays when the first ends. */
	MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
	errors(s, world);
	MPI_OK(MPI_Comm_free(&cs));
	MPI_OK(MPI_Comm_free(&ch));
	MPI_OK(MPI_Comm_free(&cw2));
	MPI_OK(MPI_Group_free(&self));
	MPI_OK(MPI_Group_free(&half));
	MPI_OK(MPI_Group_free(&world));
	MPI_OK(MPI_Session_finalize(&s));
	CHECK(s == MPI_SESSION_NULL, "the handle stays");
	works(cw, 5);
	MPI_OK(MPI_Comm_free(&cw));
	MPI_OK(MPI_Group_from_session_pset(s2, "mpi://WORLD", &world));
	cw = from(world, "org.mpichan.session.again");
	works(cw, 3);
	MPI_OK(MPI_Comm_free(&cw));
	MPI_OK(MPI_Group_free(&world));
	MPI_OK(MPI_Session_finalize(&s2));

	/* The job is left: no joining it again. */
	MPI_OK(MPI_Finalized(&flag));
	CHECK(!flag, "sessions made MPI_Finalized true");
	CHECK(t_class(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s)) ==
	      MPI_ERR_OTHER, "a session after the job was left");
	return 0;
}
