// SPDX-License-Identifier: MIT
/*
 * A job of fixed processes (libmsg/src/dynamic.c) and what goes with it:
 *   - MPI_Comm_spawn and _spawn_multiple refused on every rank without
 *     waiting (errcodes filled, the intercommunicator null), as are
 *     MPI_Open_port, MPI_Comm_join and MPI_Publish_name;
 *   - accept, connect and Close_port have no port (MPI_ERR_PORT),
 *     Lookup_name and Unpublish_name no name (MPI_ERR_NAME,
 *     MPI_ERR_SERVICE); every new class has its string;
 *   - MPI_UNIVERSE_SIZE is the job's size, MPI_APPNUM 0, neither set
 *     nor deleted;
 *   - MPI_Comm_disconnect waits for what is pending on the communicator
 *     (freed receives, small and large, whose messages came while the
 *     receiver looked away) and leaves MPI_COMM_NULL; MPI_COMM_WORLD
 *     cannot be disconnected.
 */
#include "test.h"

#include <time.h>

static void refused(void)
{
	char *args[] = { "x", NULL }, *cmds[] = { "a", "b" }, **argvs[2];
	char port[MPI_MAX_PORT_NAME] = "junk";
	int codes[5] = { 0 }, max[2] = { 2, 3 }, i;
	MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
	MPI_Comm c = MPI_COMM_WORLD;

	argvs[0] = args;
	argvs[1] = MPI_ARGV_NULL;
	CHECK(t_class(MPI_Comm_spawn("true", args, 2, MPI_INFO_NULL, 0,
				     MPI_COMM_WORLD, &c, codes)) ==
	      MPI_ERR_UNSUPPORTED_OPERATION, "spawn");
	CHECK(c == MPI_COMM_NULL, "spawn left an intercommunicator");
	CHECK(codes[0] == MPI_ERR_UNSUPPORTED_OPERATION &&
	      codes[1] == MPI_ERR_UNSUPPORTED_OPERATION && codes[2] == 0,
	      "spawn's errcodes %d %d %d", codes[0], codes[1], codes[2]);
	CHECK(t_class(MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL,
				     t_size, MPI_COMM_WORLD, &c,
				     MPI_ERRCODES_IGNORE)) == MPI_ERR_ROOT,
	      "spawn with a bad root");
	memset(codes, 0, sizeof(codes));
	CHECK(t_class(MPI_Comm_spawn_multiple(2, cmds, argvs, max, infos, 0,
					      MPI_COMM_WORLD, &c, codes)) ==
	      MPI_ERR_UNSUPPORTED_OPERATION, "spawn_multiple");
	for (i = 0; i < 5; i++)
		CHECK(codes[i] == MPI_ERR_UNSUPPORTED_OPERATION,
		      "spawn_multiple's errcode %d: %d", i, codes[i]);
	CHECK(t_class(MPI_Open_port(MPI_INFO_NULL, port)) ==
	      MPI_ERR_UNSUPPORTED_OPERATION && !port[0], "Open_port");
	CHECK(t_class(MPI_Close_port("tag#0$")) == MPI_ERR_PORT, "Close_port");
	c = MPI_COMM_WORLD;
	CHECK(t_class(MPI_Comm_accept("tag#0$", MPI_INFO_NULL, 0, MPI_COMM_WORLD,
				      &c)) == MPI_ERR_PORT && c == MPI_COMM_NULL,
	      "accept");
	c = MPI_COMM_WORLD;
	CHECK(t_class(MPI_Comm_connect("tag#0$", MPI_INFO_NULL, 0, MPI_COMM_SELF,
				       &c)) == MPI_ERR_PORT && c == MPI_COMM_NULL,
	      "connect");
	CHECK(t_class(MPI_Comm_join(0, &c)) == MPI_ERR_UNSUPPORTED_OPERATION,
	      "join");
	CHECK(t_class(MPI_Publish_name("svc", MPI_INFO_NULL, "p")) ==
	      MPI_ERR_UNSUPPORTED_OPERATION, "Publish_name");
	CHECK(t_class(MPI_Lookup_name("svc", MPI_INFO_NULL, port)) == MPI_ERR_NAME,
	      "Lookup_name");
	CHECK(t_class(MPI_Unpublish_name("svc", MPI_INFO_NULL, "p")) ==
	      MPI_ERR_SERVICE, "Unpublish_name");
	/* Nobody waited for anybody: all are here. */
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void strings(void)
{
	static const int classes[] = { MPI_ERR_NAME, MPI_ERR_PORT,
		MPI_ERR_SERVICE, MPI_ERR_SPAWN, MPI_ERR_SESSION };
	char s[MPI_MAX_ERROR_STRING];
	size_t i;
	int len, c;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		MPI_OK(MPI_Error_class(classes[i], &c));
		CHECK(c == classes[i], "class of %d: %d", classes[i], c);
		MPI_OK(MPI_Error_string(classes[i], s, &len));
		CHECK(len > 10 && !strncmp(s, "MPI_ERR_", 8), "string of %d: %s",
		      classes[i], s);
	}
}

static void attributes(void)
{
	int *v = NULL, flag = 0;

	MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
	CHECK(flag && v && *v == t_size, "MPI_UNIVERSE_SIZE %d", v ? *v : -1);
	MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
	CHECK(flag && v && *v == 0, "MPI_APPNUM %d", v ? *v : -1);
	CHECK(t_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, v)) ==
	      MPI_ERR_KEYVAL, "MPI_UNIVERSE_SIZE set");
	CHECK(t_class(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_APPNUM)) ==
	      MPI_ERR_KEYVAL, "MPI_APPNUM deleted");
}

static void disconnect(void)
{
	static char big[1 << 20];
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	MPI_Request r[2];
	MPI_Comm c, w = MPI_COMM_WORLD;
	int x = -1, p = t_partner();

	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
	if (p == t_rank) {
		MPI_OK(MPI_Comm_disconnect(&c));
		CHECK(c == MPI_COMM_NULL, "a disconnected handle stays");
		return;
	}
	/*
	 * Even ranks post receives, let them go and look away while their
	 * partner sends and enters its disconnect: theirs must take the
	 * messages in, whatever way its barrier completes.
	 */
	if (t_rank % 2 == 0) {
		MPI_OK(MPI_Irecv(&x, 1, MPI_INT, p, 1, c, &r[0]));
		MPI_OK(MPI_Irecv(big, sizeof(big), MPI_BYTE, p, 2, c, &r[1]));
		MPI_OK(MPI_Request_free(&r[0]));
		MPI_OK(MPI_Request_free(&r[1]));
		nanosleep(&nap, NULL);
		MPI_OK(MPI_Comm_disconnect(&c));
		CHECK(x == 42 && big[sizeof(big) - 1] == 7,
		      "disconnect returned before the data: %d %d", x,
		      big[sizeof(big) - 1]);
	} else {
		x = 42;
		memset(big, 7, sizeof(big));
		MPI_OK(MPI_Send(&x, 1, MPI_INT, p, 1, c));
		MPI_OK(MPI_Isend(big, sizeof(big), MPI_BYTE, p, 2, c, &r[0]));
		MPI_OK(MPI_Request_free(&r[0]));
		MPI_OK(MPI_Comm_disconnect(&c));
	}
	CHECK(c == MPI_COMM_NULL, "a disconnected handle stays");
	CHECK(t_class(MPI_Comm_disconnect(&w)) == MPI_ERR_COMM,
	      "MPI_COMM_WORLD disconnected");
}

int main(int argc, char **argv)
{
	t_init(&argc, &argv);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	refused();
	strings();
	attributes();
	disconnect();
	return t_done();
}
