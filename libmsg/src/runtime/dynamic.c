// SPDX-License-Identifier: MIT
/*
 * Dynamic processes (MPI-3.1 chapter 10): a job here is the processes
 * mpiexec started, all on one machine, attached to one device job whose
 * size is fixed when it is made.  No process can join it later, so:
 *   - MPI_Comm_spawn, MPI_Comm_spawn_multiple, MPI_Open_port,
 *     MPI_Comm_join and MPI_Publish_name are refused
 *     (MPI_ERR_UNSUPPORTED_OPERATION, with why) on every calling
 *     process, none of which waits for the others;
 *   - no port is ever open and no name published, so the calls that
 *     need one answer as MPI says they must when there is none:
 *     MPI_Comm_accept, MPI_Comm_connect and MPI_Close_port are
 *     MPI_ERR_PORT, MPI_Lookup_name MPI_ERR_NAME, MPI_Unpublish_name
 *     MPI_ERR_SERVICE.
 * Every output handle is set to its null value.  MPI_Comm_get_parent
 * (intercomm.c) is MPI_COMM_NULL, and MPI_UNIVERSE_SIZE (attr.c) the
 * job's size.
 */

#include "runtime/runtime.h"

static const char why[] =
	"dynamic processes are not supported: the job is the processes mpiexec started";

/* The checks a collective call over comm with a root makes first. */
static int rooted(const char *fn, MPI_Comm comm, int root, MPI_Info info,
		  MPI_Comm *out)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (!out)
		return lm_error(comm, fn, MPI_ERR_ARG, "output communicator is NULL");
	*out = MPI_COMM_NULL;
	if (root < 0 || root >= comm->size)
		return lm_error(comm, fn, MPI_ERR_ROOT, "root %d not in 0..%d",
				root, comm->size - 1);
	return lm_check_info_arg(comm, info, fn);
}

static void errcodes_set(int *codes, int n, int code)
{
	int i;

	for (i = 0; codes && i < n; i++)
		codes[i] = code;
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs,
		   MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm,
		   int array_of_errcodes[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_spawn";
	int err = rooted(fn, comm, root, info, intercomm);

	(void)command; (void)argv;
	if (err)
		return err;
	errcodes_set(array_of_errcodes, maxprocs,
		     MPI_ERR_UNSUPPORTED_OPERATION);
	return lm_error(comm, fn, MPI_ERR_UNSUPPORTED_OPERATION, "%s", why);
}

int MPI_Comm_spawn_multiple(int count, char *array_of_commands[],
			    char **array_of_argv[],
			    const int array_of_maxprocs[],
			    const MPI_Info array_of_info[], int root,
			    MPI_Comm comm, MPI_Comm *intercomm,
			    int array_of_errcodes[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_spawn_multiple";
	int err = rooted(fn, comm, root, MPI_INFO_NULL, intercomm), i, n = 0;

	(void)array_of_commands; (void)array_of_argv; (void)array_of_info;
	if (err)
		return err;
	for (i = 0; array_of_maxprocs && i < count; i++)
		n += array_of_maxprocs[i] > 0 ? array_of_maxprocs[i] : 0;
	errcodes_set(array_of_errcodes, n, MPI_ERR_UNSUPPORTED_OPERATION);
	return lm_error(comm, fn, MPI_ERR_UNSUPPORTED_OPERATION, "%s", why);
}

int MPI_Open_port(MPI_Info info, char *port_name)
{
	LM_GUARD();
	static const char fn[] = "MPI_Open_port";
	int err;

	lm_check_init(fn);
	if (port_name)
		port_name[0] = 0;
	err = lm_check_info_arg(NULL, info, fn);
	if (err)
		return err;
	return lm_error(NULL, fn, MPI_ERR_UNSUPPORTED_OPERATION, "%s", why);
}

int MPI_Close_port(const char *port_name)
{
	LM_GUARD();
	static const char fn[] = "MPI_Close_port";

	lm_check_init(fn);
	return lm_error(NULL, fn, MPI_ERR_PORT, "no port \"%.64s\" is open",
			port_name ? port_name : "(null)");
}

static int no_port(const char *fn, const char *port_name, MPI_Info info,
		   int root, MPI_Comm comm, MPI_Comm *newcomm)
{
	int err = rooted(fn, comm, root, info, newcomm);

	if (err)
		return err;
	return lm_error(comm, fn, MPI_ERR_PORT,
			"no port \"%.64s\" is open (%s)",
			port_name ? port_name : "(null)", why);
}

int MPI_Comm_accept(const char *port_name, MPI_Info info, int root,
		    MPI_Comm comm, MPI_Comm *newcomm)
{
	LM_GUARD();
	return no_port("MPI_Comm_accept", port_name, info, root, comm, newcomm);
}

int MPI_Comm_connect(const char *port_name, MPI_Info info, int root,
		     MPI_Comm comm, MPI_Comm *newcomm)
{
	LM_GUARD();
	return no_port("MPI_Comm_connect", port_name, info, root, comm,
		       newcomm);
}

int MPI_Comm_join(int fd, MPI_Comm *intercomm)
{
	LM_GUARD();
	static const char fn[] = "MPI_Comm_join";

	(void)fd;
	lm_check_init(fn);
	if (intercomm)
		*intercomm = MPI_COMM_NULL;
	return lm_error(NULL, fn, MPI_ERR_UNSUPPORTED_OPERATION, "%s", why);
}

int MPI_Publish_name(const char *service_name, MPI_Info info,
		     const char *port_name)
{
	LM_GUARD();
	static const char fn[] = "MPI_Publish_name";
	int err;

	(void)service_name; (void)port_name;
	lm_check_init(fn);
	err = lm_check_info_arg(NULL, info, fn);
	if (err)
		return err;
	return lm_error(NULL, fn, MPI_ERR_UNSUPPORTED_OPERATION, "%s", why);
}

int MPI_Unpublish_name(const char *service_name, MPI_Info info,
		       const char *port_name)
{
	LM_GUARD();
	static const char fn[] = "MPI_Unpublish_name";

	(void)info; (void)port_name;
	lm_check_init(fn);
	return lm_error(NULL, fn, MPI_ERR_SERVICE,
			"no service \"%.64s\" is published",
			service_name ? service_name : "(null)");
}

int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
	LM_GUARD();
	static const char fn[] = "MPI_Lookup_name";

	(void)info;
	lm_check_init(fn);
	if (port_name)
		port_name[0] = 0;
	return lm_error(NULL, fn, MPI_ERR_NAME,
			"no service \"%.64s\" is published",
			service_name ? service_name : "(null)");
}
