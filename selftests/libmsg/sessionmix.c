// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan
/*
 * MPI_Init and a session in one program (libmsg/src/session.c):
 *   - a session asking for MPI_THREAD_MULTIPLE raises the level MPI_Init
 *     gave, for both; a thread then sends on the session's communicator
 *     while the main thread uses MPI_COMM_WORLD;
 *   - MPI_Info_create_env describes the arguments it is given;
 *   - MPI_Finalize with the session still open makes MPI_Finalized true
 *     and leaves the job to the session: its communicator still works
 *     until MPI_Session_finalize, which leaves it.
 */
#include <pthread.h>

#include "test.h"

static MPI_Comm sc;

/* The session's communicator, from another thread: a ring of 50. */
static void *ring(void *arg)
{
	int i, r, n, got;

	(void)arg;
	MPI_OK(MPI_Comm_rank(sc, &r));
	MPI_OK(MPI_Comm_size(sc, &n));
	for (i = 0; i < 50; i++) {
		MPI_OK(MPI_Sendrecv(&i, 1, MPI_INT, (r + 1) % n, i, &got, 1,
				    MPI_INT, (r + n - 1) % n, i, sc,
				    MPI_STATUS_IGNORE));
		CHECK(got == i, "ring %d: got %d", i, got);
	}
	return NULL;
}

static void env_info(void)
{
	char *args[] = { "prog", "-x", "7", NULL }, v[MPI_MAX_INFO_VAL];
	MPI_Info info;
	int flag = 0;

	MPI_OK(MPI_Info_create_env(3, args, &info));
	MPI_OK(MPI_Info_get(info, "command", sizeof(v) - 1, v, &flag));
	CHECK(flag && !strcmp(v, "prog"), "command %s", v);
	MPI_OK(MPI_Info_get(info, "argv", sizeof(v) - 1, v, &flag));
	CHECK(flag && !strcmp(v, "-x 7"), "argv \"%s\"", v);
	MPI_OK(MPI_Info_get(info, "maxprocs", sizeof(v) - 1, v, &flag));
	CHECK(flag && atoi(v) == t_size, "maxprocs %s", v);
	MPI_OK(MPI_Info_get(info, "thread_level", sizeof(v) - 1, v, &flag));
	CHECK(flag && !strcmp(v, "MPI_THREAD_MULTIPLE"), "thread_level %s", v);
	/* Unlike MPI_INFO_ENV, it is the program's to change. */
	MPI_OK(MPI_Info_set(info, "command", "other"));
	MPI_OK(MPI_Info_free(&info));
	T_EXPECT(MPI_Info_create_env(-1, NULL, &info), MPI_ERR_ARG,
		 "a negative argc");
}

int main(int argc, char **argv)
{
	MPI_Session s;
	MPI_Group g;
	MPI_Info info;
	pthread_t t;
	int level = -1, flag = -1, i, r, sum = 0;

	t_init(&argc, &argv);
	MPI_OK(MPI_Query_thread(&level));
	CHECK(level == MPI_THREAD_SINGLE, "MPI_Init gave %d", level);
	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE"));
	MPI_OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
	MPI_OK(MPI_Info_free(&info));
	MPI_OK(MPI_Query_thread(&level));
	CHECK(level == MPI_THREAD_MULTIPLE, "the session left level %d", level);
	env_info();

	MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
	MPI_OK(MPI_Comm_create_from_group(g, "org.mpichan.sessionmix",
					  MPI_INFO_NULL, MPI_ERRORS_RETURN,
					  &sc));
	MPI_OK(MPI_Group_free(&g));
	CHECK(pthread_create(&t, NULL, ring, NULL) == 0, "pthread_create");
	for (i = 0; i < 50; i++) {
		MPI_OK(MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM,
				     MPI_COMM_WORLD));
		CHECK(sum == i * t_size, "allreduce %d: %d", i, sum);
	}
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");

	MPI_OK(MPI_Finalize());
	MPI_OK(MPI_Finalized(&flag));
	CHECK(flag, "MPI_Finalized false after MPI_Finalize");
	/* The session holds the job. */
	MPI_OK(MPI_Comm_rank(sc, &r));
	MPI_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, sc));
	CHECK(sum == t_size * (t_size - 1) / 2, "after MPI_Finalize: %d", sum);
	MPI_OK(MPI_Comm_free(&sc));
	MPI_OK(MPI_Session_finalize(&s));
	return 0;
}
