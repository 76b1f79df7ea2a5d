// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan
/*
 * Communicator creation from several threads of every rank at once
 * (MPI_THREAD_MULTIPLE), each thread on its own parent (MPI forbids two
 * threads' collectives on one communicator at once):
 *   - MPI_Comm_dup and MPI_Comm_free in a loop, and one more thread
 *     duplicating MPI_COMM_SELF meanwhile;
 *   - MPI_Comm_create_group with a tag per thread, then with one tag
 *     for all (MPI tells concurrent calls apart by communicator and
 *     tag: parents differ), on the whole group and on half of it;
 *   - MPI_Comm_idup, where on even ranks the even threads start theirs
 *     only once the odd threads' idups completed: an agreement that
 *     waits for its members must not hold back the others;
 *   - idups pending while the thread makes blocking communicators of
 *     the same parent, other threads doing the same.
 * Each new communicator is checked by a ring of messages (t_check_comm)
 * or a barrier.
 */
#include <pthread.h>
#include <sched.h>

#include "comm_util.h"

#define NT	4
#define ITERS	60

static MPI_Comm parents[NT];
static MPI_Group world_group, half[2];
static int want[MAXN], nhalf[2], halfw[2][MAXN];
static int odd_done;		/* this rank's odd threads' idups completed */
static pthread_barrier_t bar;

static void dups(int t)
{
	MPI_Comm c;
	int i;

	for (i = 0; i < ITERS; i++) {
		MPI_OK(MPI_Comm_dup(parents[t], &c));
		if (i % 10 == 0)
			t_check_comm(c, t_size, want, "dup in a thread");
		MPI_OK(MPI_Comm_free(&c));
	}
}

static void *self_dups(void *arg)
{
	MPI_Comm c;
	int i;

	(void)arg;
	for (i = 0; i < 4 * ITERS; i++) {
		MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &c));
		MPI_OK(MPI_Barrier(c));
		MPI_OK(MPI_Comm_free(&c));
	}
	return NULL;
}

static void groups(int t)
{
	MPI_Comm c;
	int i, h;

	for (i = 0; i < ITERS / 2; i++) {
		MPI_OK(MPI_Comm_create_group(parents[t], world_group, t, &c));
		MPI_OK(MPI_Barrier(c));
		MPI_OK(MPI_Comm_free(&c));
		/* One tag in every thread: the parents tell them apart. */
		MPI_OK(MPI_Comm_create_group(parents[t], world_group, 9, &c));
		if (i % 5 == 0)
			t_check_comm(c, t_size, want, "create_group, one tag");
		MPI_OK(MPI_Comm_free(&c));
		h = (t + i) % 2;
		if (t_rank % 2 != h)
			continue;
		MPI_OK(MPI_Comm_create_group(parents[t], half[h], 9, &c));
		t_check_comm(c, nhalf[h], halfw[h], "create_group of half");
		MPI_OK(MPI_Comm_free(&c));
	}
}

static void idups(int t)
{
	MPI_Comm c;
	MPI_Request r;

	if (t_rank % 2 == 0 && t % 2 == 0)
		while (__atomic_load_n(&odd_done, __ATOMIC_ACQUIRE) < NT / 2)
			sched_yield();
	MPI_OK(MPI_Comm_idup(parents[t], &c, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	if (t % 2)
		__atomic_add_fetch(&odd_done, 1, __ATOMIC_RELEASE);
	t_check_comm(c, t_size, want, "idup in a thread");
	MPI_OK(MPI_Comm_free(&c));
}

static void idups_overlapped(int t)
{
	MPI_Comm c[3], d, s;
	MPI_Request r[3];
	int i;

	for (i = 0; i < 3; i++)
		MPI_OK(MPI_Comm_idup(parents[t], &c[i], &r[i]));
	MPI_OK(MPI_Comm_dup(parents[t], &d));
	MPI_OK(MPI_Comm_split(parents[t], t_rank % 2, 0, &s));
	MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
	for (i = 0; i < 3; i++) {
		MPI_OK(MPI_Barrier(c[i]));
		MPI_OK(MPI_Comm_free(&c[i]));
	}
	t_check_comm(d, t_size, want, "dup beside idups in a thread");
	MPI_OK(MPI_Barrier(s));
	MPI_OK(MPI_Comm_free(&d));
	MPI_OK(MPI_Comm_free(&s));
}

static void *thread_main(void *arg)
{
	int t = (int)(intptr_t)arg;

	pthread_barrier_wait(&bar);
	dups(t);
	pthread_barrier_wait(&bar);
	groups(t);
	pthread_barrier_wait(&bar);
	idups(t);
	pthread_barrier_wait(&bar);
	idups_overlapped(t);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *env;
	pthread_t th[NT + 1];
	int provided, t, i, h;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	/* 8 ranks of 5 threads on the VM's 2 emulated CPUs: 106 s of 120. */
	env = getenv("LIBMSG_MODE");
	if (env && !strcmp(env, "vm") && t_size > 4)
		T_SKIP("over 4 ranks only natively: under emulation it takes minutes");
	CHECK(t_size <= MAXN, "at most %d ranks", MAXN);
	for (i = 0; i < t_size; i++) {
		want[i] = i;
		h = i % 2;
		halfw[h][nhalf[h]++] = i;
	}
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
	for (h = 0; h < 2; h++)
		MPI_OK(MPI_Group_incl(world_group, nhalf[h], halfw[h],
				      &half[h]));
	for (t = 0; t < NT; t++) {
		MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]));
		MPI_OK(MPI_Comm_set_errhandler(parents[t], MPI_ERRORS_RETURN));
	}
	pthread_barrier_init(&bar, NULL, NT);
	for (t = 0; t < NT; t++)
		CHECK(!pthread_create(&th[t], NULL, thread_main,
				      (void *)(intptr_t)t), "pthread_create");
	CHECK(!pthread_create(&th[NT], NULL, self_dups, NULL),
	      "pthread_create");
	for (t = 0; t <= NT; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&bar);
	for (t = 0; t < NT; t++)
		MPI_OK(MPI_Comm_free(&parents[t]));
	for (h = 0; h < 2; h++)
		MPI_OK(MPI_Group_free(&half[h]));
	MPI_OK(MPI_Group_free(&world_group));
	return t_done();
}
