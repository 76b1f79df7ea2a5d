// SPDX-License-Identifier: MIT
/*
 * What a job of intracommunicators only answers (libmsg/src/intercomm.c)
 * and communicator info hints:
 *   - MPI_Intercomm_create is refused on every rank with
 *     MPI_ERR_UNSUPPORTED_OPERATION and MPI_COMM_NULL, without waiting
 *     for anyone (the ranks go on to a barrier);
 *   - MPI_Intercomm_merge, MPI_Comm_remote_size, MPI_Comm_remote_group
 *     on an intracommunicator: MPI_ERR_COMM, outputs left null;
 *   - MPI_Comm_get_parent: MPI_COMM_NULL (nothing spawned);
 *   - MPI_Comm_set_info checks its info and MPI_Comm_get_info returns a
 *     new info object with no hints (libmsg ignores them all);
 *     MPI_Comm_dup_with_info and MPI_Comm_idup_with_info give working
 *     communicators and refuse an info that is not one.
 */
#include "test.h"

static void nkeys_is(MPI_Info info, int want)
{
	int n = -1;

	MPI_OK(MPI_Info_get_nkeys(info, &n));
	CHECK(n == want, "%d hints, want %d", n, want);
}

/* c works: an allreduce over it adds every rank. */
static void works(MPI_Comm c, const char *what)
{
	int one = 1, sum = 0;

	MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
	CHECK(sum == t_size, "%s: sum %d", what, sum);
}

int main(int argc, char **argv)
{
	MPI_Comm inter = MPI_COMM_WORLD, c, parent = MPI_COMM_WORLD;
	MPI_Group g = MPI_GROUP_EMPTY;
	MPI_Info info, used, bad;
	MPI_Request r;
	int err, n = -7;

	t_init(&argc, &argv);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	err = MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD,
				   (t_rank + 1) % t_size, 5, &inter);
	CHECK(err == MPI_ERR_UNSUPPORTED_OPERATION,
	      "MPI_Intercomm_create returned %d", err);
	CHECK(inter == MPI_COMM_NULL, "a refused intercommunicator is set");
	err = MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 5,
				   &inter);
	CHECK(err == MPI_ERR_COMM, "an invalid local_comm gave %d", err);

	err = MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c);
	CHECK(err == MPI_ERR_COMM && c == MPI_COMM_NULL,
	      "MPI_Intercomm_merge of an intracommunicator gave %d", err);
	err = MPI_Comm_remote_size(MPI_COMM_WORLD, &n);
	CHECK(err == MPI_ERR_COMM && n == -7,
	      "MPI_Comm_remote_size of an intracommunicator gave %d", err);
	err = MPI_Comm_remote_group(MPI_COMM_WORLD, &g);
	CHECK(err == MPI_ERR_COMM && g == MPI_GROUP_NULL,
	      "MPI_Comm_remote_group of an intracommunicator gave %d", err);
	err = MPI_Comm_remote_size(MPI_COMM_NULL, &n);
	CHECK(err == MPI_ERR_COMM, "remote size of MPI_COMM_NULL: %d", err);
	MPI_OK(MPI_Comm_get_parent(&parent));
	CHECK(parent == MPI_COMM_NULL, "a parent communicator");
	/* Nobody waited for a remote group: all are here. */
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

	/* Hints: checked, ignored, none reported. */
	MPI_OK(MPI_Info_create(&info));
	MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
	MPI_OK(MPI_Comm_set_info(MPI_COMM_WORLD, info));
	MPI_OK(MPI_Comm_get_info(MPI_COMM_WORLD, &used));
	CHECK(used != MPI_INFO_NULL && used != info, "no new info object");
	nkeys_is(used, 0);
	MPI_OK(MPI_Info_free(&used));
	err = MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL);
	CHECK(err == MPI_ERR_INFO, "MPI_INFO_NULL set: %d", err);
	bad = (MPI_Info)&n;	/* not an info object */
	err = MPI_Comm_set_info(MPI_COMM_WORLD, bad);
	CHECK(err == MPI_ERR_INFO, "a bad info set: %d", err);
	err = MPI_Comm_dup_with_info(MPI_COMM_WORLD, bad, &c);
	CHECK(err == MPI_ERR_INFO, "dup with a bad info: %d", err);
	err = MPI_Comm_idup_with_info(MPI_COMM_WORLD, bad, &c, &r);
	CHECK(err == MPI_ERR_INFO, "idup with a bad info: %d", err);

	MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
	works(c, "dup_with_info");
	MPI_OK(MPI_Comm_get_info(c, &used));
	nkeys_is(used, 0);
	MPI_OK(MPI_Info_free(&used));
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c, &r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	works(c, "idup_with_info");
	MPI_OK(MPI_Comm_free(&c));
	MPI_OK(MPI_Info_free(&info));
	err = MPI_Comm_get_info(MPI_COMM_WORLD, NULL);
	CHECK(err == MPI_ERR_ARG, "get_info into NULL: %d", err);

	MPI_Finalize();
	if (t_rank == 0)
		printf("intercomm: ok (%d ranks)\n", t_size);
	return 0;
}
