// SPDX-License-Identifier: MIT
/*
 * Intercommunicators and dynamic processes: libmsg has neither.  Every
 * communicator is an intracommunicator of the one job mpiexec started,
 * so these calls exist for programs that name them, and answer as MPI
 * says a job without them must:
 *   - MPI_Intercomm_create and MPI_Intercomm_create_from_groups are
 *     refused (MPI_ERR_UNSUPPORTED_OPERATION, with why) on every calling
 *     process, which therefore never waits for the other group;
 *   - MPI_Intercomm_merge, MPI_Comm_remote_size and
 *     MPI_Comm_remote_group are given an intracommunicator, which is
 *     MPI_ERR_COMM;
 *   - MPI_Comm_get_parent is MPI_COMM_NULL: nothing was spawned.
 */

#include "comm/comm.h"

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
			 MPI_Comm peer_comm, int remote_leader, int tag,
			 MPI_Comm *newintercomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Intercomm_create";
	int err = lm_check_comm(local_comm, fn);

	(void)local_leader; (void)peer_comm; (void)remote_leader; (void)tag;
	if (err)
		return err;
	if (!newintercomm)
		return lm_error(local_comm, fn, MPI_ERR_ARG,
				"newintercomm is NULL");
	*newintercomm = MPI_COMM_NULL;
	return lm_error(local_comm, fn, MPI_ERR_UNSUPPORTED_OPERATION,
			"intercommunicators are not supported: libmsg has intracommunicators only");
}

/* MPI-4.0's form without a parent: refused the same way. */
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
				    MPI_Group remote_group, int remote_leader,
				    const char *stringtag, MPI_Info info,
				    MPI_Errhandler errhandler,
				    MPI_Comm *newintercomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Intercomm_create_from_groups";
	int err = lm_check_group(local_group, fn);
	const char *why;

	(void)local_leader; (void)remote_leader; (void)stringtag; (void)info;
	if (!err)
		err = lm_check_group(remote_group, fn);
	if (err)
		return err;
	why = lm_errh_misfit(errhandler, 0);
	if (why)
		return lm_error(NULL, fn, MPI_ERR_ARG, "%s", why);
	if (!newintercomm)
		return lm_errh_error(errhandler, fn, MPI_ERR_ARG,
				     "newintercomm is NULL");
	*newintercomm = MPI_COMM_NULL;
	return lm_errh_error(errhandler, fn, MPI_ERR_UNSUPPORTED_OPERATION,
			     "intercommunicators are not supported: libmsg has intracommunicators only");
}

/* comm must be an intercommunicator: no communicator is. */
static int not_inter(MPI_Comm comm, const char *fn)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	return lm_error(comm, fn, MPI_ERR_COMM,
			"not an intercommunicator (libmsg has intracommunicators only)");
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
	LM_GUARD();

	(void)high;
	if (newintracomm)
		*newintracomm = MPI_COMM_NULL;
	return not_inter(intercomm, "MPI_Intercomm_merge");
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
	LM_GUARD();

	(void)size;
	return not_inter(comm, "MPI_Comm_remote_size");
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
	LM_GUARD();

	if (group)
		*group = MPI_GROUP_NULL;
	return not_inter(comm, "MPI_Comm_remote_group");
}

int MPI_Comm_get_parent(MPI_Comm *parent)
{
	LM_GUARD();

	lm_check_init("MPI_Comm_get_parent");
	if (!parent)
		return lm_error(NULL, "MPI_Comm_get_parent", MPI_ERR_ARG,
				"parent is NULL");
	*parent = MPI_COMM_NULL;
	return MPI_SUCCESS;
}
