// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan
/*
 * Queries without the library lock (src/thread.c): at
 * MPI_THREAD_MULTIPLE, MPI_Comm_size, _rank and _test_inter,
 * MPI_Group_size and _rank, the datatype size and extent queries and
 * MPI_Get_count read the handle as
 * liburcu readers, and frees of communicators, groups and datatypes
 * wait for a grace period.
 *
 *  1. The initialising thread (the owner of the lock's bias) holds the
 *     lock: MPI_Comm_dup runs an attribute copy callback with it held.
 *     The callback lets a second thread make every query and waits for
 *     it, for up to 10 s.  A query that took the lock would wait for
 *     the callback to return, and the check fails.
 *  2. The other way round: the second thread holds the lock (through
 *     the mutex now) in its own dup's callback while the owner queries.
 *  3. Churn: 4 threads each build, query and free datatypes, groups and
 *     communicators, and query shared ones, while the frees are
 *     deferred past the readers (ASan and TSan builds watch this).
 *  4. A bad argument still gets its error class from a query.
 */
#include "test.h"
#include "flag.h"

#define THREADS		4
#define ROUNDS		100

static struct held_lock hold;

static MPI_Comm half;		/* WORLD split in even and odd ranks */
static MPI_Group world_group;
static MPI_Datatype vec, resized;
static MPI_Status st48, st20;

/* Every lock-free query, on shared handles, checked against the layout. */
static void queries(void)
{
	MPI_Aint lb, ext;
	MPI_Count lbx, extx, sizex;
	int v;

	MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &v));
	CHECK(v == t_size, "world size %d", v);
	MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &v));
	CHECK(v == t_rank, "world rank %d", v);
	MPI_OK(MPI_Comm_size(half, &v));
	CHECK(v == (t_size - t_rank % 2 + 1) / 2, "half size %d", v);
	MPI_OK(MPI_Comm_rank(half, &v));
	CHECK(v == t_rank / 2, "half rank %d", v);
	v = -1;
	MPI_OK(MPI_Comm_test_inter(half, &v));
	CHECK(v == 0, "half is an intercommunicator? %d", v);
	MPI_OK(MPI_Group_size(world_group, &v));
	CHECK(v == t_size, "group size %d", v);
	MPI_OK(MPI_Group_rank(world_group, &v));
	CHECK(v == t_rank, "group rank %d", v);
	/* vec: 3 blocks of 2 ints, 5 ints apart. */
	MPI_OK(MPI_Type_size(vec, &v));
	CHECK(v == 6 * 4, "vec size %d", v);
	MPI_OK(MPI_Type_size_x(vec, &sizex));
	CHECK(sizex == 6 * 4, "vec size_x %lld", (long long)sizex);
	MPI_OK(MPI_Type_get_extent(vec, &lb, &ext));
	CHECK(lb == 0 && ext == 12 * 4, "vec extent %ld %ld", (long)lb,
	      (long)ext);
	/* resized: vec with lb -8 and extent 64. */
	MPI_OK(MPI_Type_get_extent_x(resized, &lbx, &extx));
	CHECK(lbx == -8 && extx == 64, "resized extent %lld %lld",
	      (long long)lbx, (long long)extx);
	MPI_OK(MPI_Type_get_true_extent(resized, &lb, &ext));
	CHECK(lb == 0 && ext == 12 * 4, "resized true extent %ld %ld",
	      (long)lb, (long)ext);
	MPI_OK(MPI_Type_get_true_extent_x(MPI_DOUBLE, &lbx, &extx));
	CHECK(lbx == 0 && extx == 8, "double true extent %lld %lld",
	      (long long)lbx, (long long)extx);
	/* 48 bytes are 2 vecs or 6 doubles; 20 bytes are no whole vec. */
	MPI_OK(MPI_Get_count(&st48, vec, &v));
	CHECK(v == 2, "count of vec %d", v);
	MPI_OK(MPI_Get_count(&st48, MPI_DOUBLE, &v));
	CHECK(v == 6, "count of double %d", v);
	MPI_OK(MPI_Get_count(&st20, vec, &v));
	CHECK(v == MPI_UNDEFINED, "count of vec in 20 bytes %d", v);
}

/* Statuses of real receives of 48 and 20 bytes, for MPI_Get_count. */
static void receive_statuses(void)
{
	int out[12] = { 0 }, in[12];

	MPI_OK(MPI_Sendrecv(out, 12, MPI_INT, t_rank, 1, in, 12, MPI_INT,
			    t_rank, 1, MPI_COMM_WORLD, &st48));
	MPI_OK(MPI_Sendrecv(out, 5, MPI_INT, t_rank, 2, in, 12, MPI_INT,
			    t_rank, 2, MPI_COMM_WORLD, &st20));
}

/* 1: the second thread queries while the owner is in the callback. */
static void *query_when_told(void *arg)
{
	(void)arg;
	if (!wait_for(&hold.go))
		return NULL;
	queries();
	raise_flag(&hold.done);
	return NULL;
}

/* 2: the owner queries while the second thread is in the callback. */
static void *dup_and_wait(void *arg)
{
	MPI_Comm d;

	(void)arg;
	MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &d));
	MPI_OK(MPI_Comm_free(&d));
	return NULL;
}

/* 3: build, query, free; and query what is shared. */
static void *churn(void *arg)
{
	MPI_Comm own = *(MPI_Comm *)arg, d;
	MPI_Datatype t;
	MPI_Group g;
	MPI_Aint lb, ext;
	int i, v, first;

	for (i = 0; i < ROUNDS; i++) {
		MPI_OK(MPI_Type_vector(i % 7 + 1, 2, 3, MPI_INT, &t));
		MPI_OK(MPI_Type_commit(&t));
		MPI_OK(MPI_Type_size(t, &v));
		CHECK(v == (i % 7 + 1) * 8, "round %d: size %d", i, v);
		MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
		CHECK(ext == ((i % 7) * 3 + 2) * 4, "round %d: extent %ld", i,
		      (long)ext);
		MPI_OK(MPI_Type_free(&t));

		first = i % t_size;
		MPI_OK(MPI_Group_incl(world_group, 1, &first, &g));
		MPI_OK(MPI_Group_size(g, &v));
		CHECK(v == 1, "round %d: group size %d", i, v);
		MPI_OK(MPI_Group_rank(g, &v));
		CHECK(v == (first == t_rank ? 0 : MPI_UNDEFINED),
		      "round %d: group rank %d", i, v);
		MPI_OK(MPI_Group_free(&g));

		if (i % 10 == 0) {
			MPI_OK(MPI_Comm_dup(own, &d));
			MPI_OK(MPI_Comm_size(d, &v));
			CHECK(v == 1, "round %d: dup size %d", i, v);
			MPI_OK(MPI_Comm_free(&d));
		}
		queries();
	}
	return NULL;
}

static void bad_arguments(void)
{
	MPI_Aint lb, ext;
	int v;

	T_EXPECT(MPI_Comm_size(MPI_COMM_NULL, &v), MPI_ERR_COMM,
		 "MPI_Comm_size(MPI_COMM_NULL)");
	T_EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
		 "MPI_Comm_rank(rank NULL)");
	T_EXPECT(MPI_Group_size(MPI_GROUP_NULL, &v), MPI_ERR_GROUP,
		 "MPI_Group_size(MPI_GROUP_NULL)");
	T_EXPECT(MPI_Type_size(MPI_DATATYPE_NULL, &v), MPI_ERR_TYPE,
		 "MPI_Type_size(MPI_DATATYPE_NULL)");
	T_EXPECT(MPI_Type_get_extent(vec, NULL, &ext), MPI_ERR_ARG,
		 "MPI_Type_get_extent(lb NULL)");
	T_EXPECT(MPI_Type_get_true_extent(vec, &lb, NULL), MPI_ERR_ARG,
		 "MPI_Type_get_true_extent(true_extent NULL)");
	T_EXPECT(MPI_Get_count(NULL, vec, &v), MPI_ERR_ARG,
		 "MPI_Get_count(status NULL)");
	T_EXPECT(MPI_Comm_test_inter(MPI_COMM_NULL, &v), MPI_ERR_COMM,
		 "MPI_Comm_test_inter(MPI_COMM_NULL)");
}

int main(int argc, char **argv)
{
	MPI_Comm own[THREADS], d;
	pthread_t th[THREADS];
	int provided, keyval, i;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half));
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
	MPI_OK(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
	MPI_OK(MPI_Type_commit(&vec));
	MPI_OK(MPI_Type_create_resized(vec, -8, 64, &resized));
	MPI_OK(MPI_Type_commit(&resized));
	receive_statuses();
	queries();

	/* 1 */
	MPI_OK(MPI_Comm_create_keyval(copy_holds_lock, MPI_COMM_NULL_DELETE_FN,
				      &keyval, &hold));
	MPI_OK(MPI_Comm_set_attr(half, keyval, NULL));
	pthread_create(&th[0], NULL, query_when_told, NULL);
	MPI_OK(MPI_Comm_dup(half, &d));
	pthread_join(th[0], NULL);
	CHECK(hold.in_time, "a query waited for the lock the owner held");
	MPI_OK(MPI_Comm_free(&d));

	/* 2 */
	hold = (struct held_lock){ 0 };
	MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL));
	pthread_create(&th[0], NULL, dup_and_wait, NULL);
	CHECK(wait_for(&hold.go), "the second thread's dup did not start");
	queries();
	raise_flag(&hold.done);
	pthread_join(th[0], NULL);
	CHECK(hold.in_time, "the second thread's callback timed out");
	MPI_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, keyval));
	MPI_OK(MPI_Comm_delete_attr(half, keyval));
	MPI_OK(MPI_Comm_free_keyval(&keyval));

	/* 3 */
	for (i = 0; i < THREADS; i++)
		MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &own[i]));
	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, churn, &own[i]);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < THREADS; i++)
		MPI_OK(MPI_Comm_free(&own[i]));

	/* 4 */
	bad_arguments();

	MPI_OK(MPI_Type_free(&resized));
	MPI_OK(MPI_Type_free(&vec));
	MPI_OK(MPI_Group_free(&world_group));
	MPI_OK(MPI_Comm_free(&half));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	return t_done();
}
