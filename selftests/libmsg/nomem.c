// SPDX-License-Identifier: MIT
/*
 * Out of memory: every allocation libmsg makes in a call may fail, and
 * the call must then return an error (MPI_ERR_NO_MEM, or another class
 * with a message), never crash, and leave the library as it was, so
 * that the same call made again succeeds.
 *
 * The program replaces malloc, calloc and realloc (the library is
 * shared: the executable's definitions come first) with versions that
 * fail the n-th allocation the calling thread makes while armed.  Each
 * operation runs with n = 0, 1, 2, ... until it makes fewer than n + 1
 * allocations, that is, until no failure hit it; that last run must
 * succeed.  Operations (local ones at every rank count; at one rank,
 * where a collective is local, communicator constructors too):
 *   - datatype constructors (contiguous, vector, indexed, struct,
 *     subarray, darray, resized, dup) and commit, get_contents;
 *   - group constructors (incl, excl, range_incl, union, difference);
 *   - attributes: a keyval, set and delete; a datatype's keyval,
 *     attribute and a dup that copies it; communicator names;
 *   - info objects (create, set, dup), a communicator's (get_info);
 *     a session, its info, a process set's info and group;
 *     error classes, codes and strings the program adds; a user op;
 *   - requests: Isend/Irecv to oneself, small and large (rendezvous),
 *     contiguous and typed (packed); Isendrecv and Isendrecv_replace;
 *     persistent ones; Mprobe and Mrecv
 *     (a failed call must leave the message to be received); Bsend; a
 *     generalized request;
 *   - at two ranks and more: a message from rank 1 that arrives
 *     unexpected at rank 0 (it must wait in the ring, then arrive);
 *   - at one rank: Comm_dup, idup, split, split_type, create,
 *     create_group, create_from_group, Cart_create; nonblocking and persistent
 *     collectives.
 * The ASan build replaces malloc itself: there the program says so and
 * only checks that the operations succeed.
 */
#include "test.h"

#include <errno.h>

static __thread int armed;	/* allocations count down to a failure */
static __thread long left;	/* ... this many succeed first */
static __thread long made;	/* allocations while armed */
static __thread int failed;	/* one was refused */

#if defined(__SANITIZE_ADDRESS__)
#define FAULTS 0
#else
#define FAULTS 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

/* Refuse this allocation? */
static int refuse(void)
{
	if (!armed)
		return 0;
	made++;
	if (left-- > 0 || failed)
		return 0;
	failed = 1;
	return 1;
}

void *malloc(size_t n)
{
	if (refuse()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (refuse()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (n && refuse()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}
#endif

struct op {
	const char *name;
	int (*run)(void *ctx);		/* the call(s) under test */
	void (*undo)(void *ctx);	/* after success: free what it made */
};

static char name_buf[MPI_MAX_ERROR_STRING];

/*
 * Run op with the n-th allocation failing, n = 0, 1, ...; every failed
 * run must return an error with a message, and the run that no failure
 * hit must succeed.  Returns how many allocations that run made.
 */
static long sweep(const struct op *op, void *ctx)
{
	long n;
	int err, len;

	if (t_rank == 0 && getenv("NOMEM_VERBOSE"))
		printf("# nomem: %s ...\n", op->name);
	fflush(stdout);
	for (n = 0; n < 100000; n++) {
		left = n;
		made = 0;
		failed = 0;
		armed = FAULTS;
		err = op->run(ctx);
		armed = 0;
		if (!failed) {
			if (err != MPI_SUCCESS) {
				MPI_Error_string(err, name_buf, &len);
				CHECK(0, "%s: fails with no allocation refused: %s",
				      op->name, name_buf);
			}
			op->undo(ctx);
			if (t_rank == 0)
				printf("# nomem: %s: %ld allocations\n",
				       op->name, made);
			return made;
		}
		if (err == MPI_SUCCESS) {	/* it did without */
			op->undo(ctx);
			continue;
		}
		len = 0;
		name_buf[0] = 0;
		CHECK(MPI_Error_string(err, name_buf, &len) == MPI_SUCCESS &&
		      len > 0, "%s: error %d without a message", op->name, err);
	}
	CHECK(0, "%s: still allocating after %ld runs", op->name, n);
	return 0;
}

/* ---- Datatypes ---------------------------------------------------------- */

static MPI_Datatype made_type;

static void type_free(void *ctx)
{
	(void)ctx;
	MPI_OK(MPI_Type_free(&made_type));
}

static int t_contig(void *ctx)
{
	(void)ctx;
	return MPI_Type_contiguous(7, MPI_DOUBLE, &made_type);
}

static int t_vector_commit(void *ctx)
{
	int err;

	(void)ctx;
	err = MPI_Type_vector(100, 3, 7, MPI_INT, &made_type);
	if (err)
		return err;
	err = MPI_Type_commit(&made_type);
	if (err)
		MPI_Type_free(&made_type);
	return err;
}

static int t_indexed(void *ctx)
{
	int bl[40], d[40], i, err;

	(void)ctx;
	for (i = 0; i < 40; i++) {
		bl[i] = 1 + i % 5;
		d[i] = 11 * i + i % 3;
	}
	err = MPI_Type_indexed(40, bl, d, MPI_DOUBLE, &made_type);
	if (err)
		return err;
	err = MPI_Type_commit(&made_type);
	if (err)
		MPI_Type_free(&made_type);
	return err;
}

static int t_struct(void *ctx)
{
	int bl[3] = { 1, 2, 3 };
	MPI_Aint d[3] = { 0, 8, 32 };
	MPI_Datatype ty[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };

	(void)ctx;
	return MPI_Type_create_struct(3, bl, d, ty, &made_type);
}

static int t_subarray(void *ctx)
{
	int sizes[3] = { 10, 12, 14 }, sub[3] = { 4, 5, 6 },
	    start[3] = { 1, 2, 3 };

	(void)ctx;
	return MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C,
					MPI_FLOAT, &made_type);
}

static int t_darray(void *ctx)
{
	int g[2] = { 20, 30 }, dist[2] = { MPI_DISTRIBUTE_CYCLIC,
					   MPI_DISTRIBUTE_BLOCK },
	    darg[2] = { 3, MPI_DISTRIBUTE_DFLT_DARG }, p[2] = { 2, 2 };

	(void)ctx;
	return MPI_Type_create_darray(4, 1, 2, g, dist, darg, p, MPI_ORDER_C,
				      MPI_DOUBLE, &made_type);
}

static int t_resized_dup(void *ctx)
{
	MPI_Datatype r;
	int err;

	(void)ctx;
	err = MPI_Type_create_resized(MPI_INT, -4, 16, &r);
	if (err)
		return err;
	err = MPI_Type_dup(r, &made_type);
	MPI_Type_free(&r);
	return err;
}

static int t_contents(void *ctx)
{
	MPI_Datatype v = *(MPI_Datatype *)ctx;
	int ni, na, nd, comb, ints[4];
	MPI_Aint aints[1];
	MPI_Datatype types[1];
	int err;

	err = MPI_Type_get_envelope(v, &ni, &na, &nd, &comb);
	if (err)
		return err;
	CHECK(ni == 3 && nd == 1, "vector envelope %d %d", ni, nd);
	err = MPI_Type_get_contents(v, 4, 1, 1, ints, aints, types);
	if (!err && types[0] != MPI_INT)
		MPI_Type_free(&types[0]);
	return err;
}

static void nothing(void *ctx)
{
	(void)ctx;
}

/* ---- Groups, attributes, names, info, ops, errhandlers ----------------- */

static MPI_Group world_group, made_group;

static void group_free(void *ctx)
{
	(void)ctx;
	MPI_OK(MPI_Group_free(&made_group));
}

static int g_incl(void *ctx)
{
	int r[1] = { 0 };

	(void)ctx;
	return MPI_Group_incl(world_group, 1, r, &made_group);
}

static int g_excl(void *ctx)
{
	int r[1] = { t_size - 1 };

	(void)ctx;
	return MPI_Group_excl(world_group, 1, r, &made_group);
}

static int g_range(void *ctx)
{
	int r[1][3] = { { t_size - 1, 0, -1 } };

	(void)ctx;
	return MPI_Group_range_incl(world_group, 1, r, &made_group);
}

static int g_union_diff(void *ctx)
{
	MPI_Group a;
	int r[1] = { 0 }, err;

	(void)ctx;
	err = MPI_Group_incl(world_group, 1, r, &a);
	if (err)
		return err;
	err = MPI_Group_union(a, world_group, &made_group);
	if (!err) {
		MPI_Group_free(&made_group);
		err = MPI_Group_difference(world_group, a, &made_group);
	}
	MPI_Group_free(&a);
	return err;
}

static int keyval;

static int a_keyval(void *ctx)
{
	(void)ctx;
	return MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
				      MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
}

static void keyval_free(void *ctx)
{
	(void)ctx;
	MPI_OK(MPI_Comm_free_keyval(&keyval));
}

static int a_set(void *ctx)
{
	return MPI_Comm_set_attr(MPI_COMM_SELF, *(int *)ctx, ctx);
}

static void attr_delete(void *ctx)
{
	MPI_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, *(int *)ctx));
}

/* A type keyval, an attribute on MPI_INT, a dup that copies it. */
static int t_attr(void *ctx)
{
	MPI_Datatype d;
	int kv, err;

	(void)ctx;
	err = MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN,
				     &kv, NULL);
	if (err)
		return err;
	err = MPI_Type_set_attr(MPI_INT, kv, &kv);
	if (!err) {
		err = MPI_Type_dup(MPI_INT, &d);
		if (!err)
			err = MPI_Type_free(&d);
		MPI_OK(MPI_Type_delete_attr(MPI_INT, kv));
	}
	MPI_OK(MPI_Type_free_keyval(&kv));
	return err;
}

static int c_name(void *ctx)
{
	(void)ctx;
	return MPI_Comm_set_name(MPI_COMM_SELF, "a self of a longer name");
}

static MPI_Info made_info;

static int i_info(void *ctx)
{
	MPI_Info a;
	int err;

	(void)ctx;
	err = MPI_Info_create(&a);
	if (err)
		return err;
	err = MPI_Info_set(a, "key one", "value one");
	if (!err)
		err = MPI_Info_set(a, "key two", "a second value");
	if (!err)
		err = MPI_Info_dup(a, &made_info);
	MPI_Info_free(&a);
	return err;
}

static void info_free(void *ctx)
{
	(void)ctx;
	MPI_OK(MPI_Info_free(&made_info));
}

static int e_add(void *ctx)
{
	int cls, code, err;

	(void)ctx;
	err = MPI_Add_error_class(&cls);
	if (!err)
		err = MPI_Add_error_code(cls, &code);
	if (!err)
		err = MPI_Add_error_string(code, "a code of the program's");
	return err;
}

static int c_get_info(void *ctx)
{
	(void)ctx;
	return MPI_Comm_get_info(MPI_COMM_WORLD, &made_info);
}

/* A session, its info and a process set's group and info. */
static int s_session(void *ctx)
{
	MPI_Session s;
	MPI_Info a = MPI_INFO_NULL, b = MPI_INFO_NULL;
	MPI_Group g = MPI_GROUP_NULL;
	int err;

	(void)ctx;
	err = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
	if (err)
		return err;
	err = MPI_Session_get_info(s, &a);
	if (!err)
		err = MPI_Session_get_pset_info(s, "mpi://WORLD", &b);
	if (!err)
		err = MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
	if (a != MPI_INFO_NULL)
		MPI_OK(MPI_Info_free(&a));
	if (b != MPI_INFO_NULL)
		MPI_OK(MPI_Info_free(&b));
	if (g != MPI_GROUP_NULL)
		MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Session_finalize(&s));
	return err;
}

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int i;

	(void)dt;
	for (i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

static MPI_Op made_op;

static int o_create(void *ctx)
{
	(void)ctx;
	return MPI_Op_create(add_ints, 1, &made_op);
}

static void op_free(void *ctx)
{
	(void)ctx;
	MPI_OK(MPI_Op_free(&made_op));
}

/* ---- Requests to oneself ----------------------------------------------- */

struct self_msg {
	MPI_Datatype dt;
	int count;
	size_t bytes;
	unsigned char *s, *r;
};

/* Send and receive to oneself; the receive must hold the data. */
static int p_self(void *ctx)
{
	struct self_msg *m = ctx;
	MPI_Request q[2];
	int err;

	t_fill(m->s, m->bytes, 5);
	memset(m->r, 0, m->bytes);
	err = MPI_Irecv(m->r, m->count, m->dt, 0, 9, MPI_COMM_SELF, &q[0]);
	if (err)
		return err;
	err = MPI_Isend(m->s, m->count, m->dt, 0, 9, MPI_COMM_SELF, &q[1]);
	if (err) {
		MPI_Cancel(&q[0]);
		MPI_Wait(&q[0], MPI_STATUS_IGNORE);
		return err;
	}
	err = MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
	if (!err)
		CHECK(!t_bad(m->r, m->bytes, 5) || m->dt != MPI_BYTE,
		      "self message of %zu bytes damaged", m->bytes);
	return err;
}

/* The same as one MPI_Isendrecv, and as one MPI_Isendrecv_replace. */
static int p_pair(void *ctx)
{
	struct self_msg *m = ctx;
	MPI_Request q;
	int err;

	t_fill(m->s, m->bytes, 6);
	memset(m->r, 0, m->bytes);
	err = MPI_Isendrecv(m->s, m->count, m->dt, 0, 10, m->r, m->count,
			    m->dt, 0, 10, MPI_COMM_SELF, &q);
	if (!err)
		err = MPI_Wait(&q, MPI_STATUS_IGNORE);
	if (!err)
		CHECK(!t_bad(m->r, m->bytes, 6) || m->dt != MPI_BYTE,
		      "isendrecv of %zu bytes damaged", m->bytes);
	if (!err)
		err = MPI_Isendrecv_replace(m->r, m->count, m->dt, 0, 11, 0,
					    11, MPI_COMM_SELF, &q);
	if (!err)
		err = MPI_Wait(&q, MPI_STATUS_IGNORE);
	if (!err)
		CHECK(!t_bad(m->r, m->bytes, 6) || m->dt != MPI_BYTE,
		      "isendrecv_replace of %zu bytes damaged", m->bytes);
	return err;
}

/* The same, persistent, started twice. */
static int p_persistent(void *ctx)
{
	struct self_msg *m = ctx;
	MPI_Request q[2];
	int err, k;

	err = MPI_Recv_init(m->r, m->count, m->dt, 0, 8, MPI_COMM_SELF, &q[0]);
	if (err)
		return err;
	err = MPI_Send_init(m->s, m->count, m->dt, 0, 8, MPI_COMM_SELF, &q[1]);
	if (err) {
		MPI_Request_free(&q[0]);
		return err;
	}
	for (k = 0; k < 2 && !err; k++) {
		err = MPI_Start(&q[0]);
		if (err)
			break;
		err = MPI_Start(&q[1]);
		if (err) {	/* the receive must not stay posted */
			MPI_Cancel(&q[0]);
			MPI_Wait(&q[0], MPI_STATUS_IGNORE);
			break;
		}
		err = MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
	}
	MPI_Request_free(&q[0]);
	MPI_Request_free(&q[1]);
	return err;
}

/*
 * Mprobe and Mrecv a message to oneself.  A failed Mprobe leaves the
 * message queued, a failed Mrecv leaves the matched message the
 * caller's: either way it is then received, unarmed.
 */
static int p_mrecv(void *ctx)
{
	struct self_msg *m = ctx;
	MPI_Message msg = MPI_MESSAGE_NULL;
	MPI_Request q;
	int err, was;

	err = MPI_Isend(m->s, m->count, m->dt, 0, 6, MPI_COMM_SELF, &q);
	if (err)
		return err;
	err = MPI_Mprobe(0, 6, MPI_COMM_SELF, &msg, MPI_STATUS_IGNORE);
	if (!err)
		err = MPI_Mrecv(m->r, m->count, m->dt, &msg, MPI_STATUS_IGNORE);
	was = armed;
	armed = 0;
	if (err && msg != MPI_MESSAGE_NULL)
		MPI_OK(MPI_Mrecv(m->r, m->count, m->dt, &msg,
				 MPI_STATUS_IGNORE));
	else if (err)
		MPI_OK(MPI_Recv(m->r, m->count, m->dt, 0, 6, MPI_COMM_SELF,
				MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
	armed = was;
	return err;
}

/* A buffered send to oneself (the buffer attached beforehand). */
static int p_bsend(void *ctx)
{
	struct self_msg *m = ctx;
	int err;

	err = MPI_Bsend(m->s, m->count, m->dt, 0, 5, MPI_COMM_SELF);
	if (err)
		return err;
	return MPI_Recv(m->r, m->count, m->dt, 0, 5, MPI_COMM_SELF,
			MPI_STATUS_IGNORE);
}

static int gq_query(void *x, MPI_Status *s)
{
	(void)x;
	MPI_Status_set_elements(s, MPI_BYTE, 0);
	MPI_Status_set_cancelled(s, 0);
	s->MPI_SOURCE = MPI_UNDEFINED;
	s->MPI_TAG = MPI_UNDEFINED;
	return MPI_SUCCESS;
}

static int gq_free(void *x)
{
	(void)x;
	return MPI_SUCCESS;
}

static int gq_cancel(void *x, int done)
{
	(void)x;
	(void)done;
	return MPI_SUCCESS;
}

static int p_grequest(void *ctx)
{
	MPI_Request q;
	int err;

	(void)ctx;
	err = MPI_Grequest_start(gq_query, gq_free, gq_cancel, NULL, &q);
	if (err)
		return err;
	MPI_OK(MPI_Grequest_complete(q));
	return MPI_Wait(&q, MPI_STATUS_IGNORE);
}

/* ---- Between two ranks --------------------------------------------------- */

/*
 * Rank 1 sends A (tag 21) then B (tag 22); rank 0 receives B first, so
 * A arrives unexpected and needs memory to be queued.  Refused, A must
 * wait in the ring (B behind it) and be taken at a later poll: both
 * arrive, intact.  What a failed receive leaves is received unarmed.
 */
enum { PAIR_GO = 20, PAIR_A, PAIR_B };

static int x_pair(void *ctx)
{
	int a = 0, b = 0, go = 1, err, was = armed;

	(void)ctx;
	armed = 0;
	MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, PAIR_GO, MPI_COMM_WORLD));
	armed = was;
	err = MPI_Recv(&b, 1, MPI_INT, 1, PAIR_B, MPI_COMM_WORLD,
		       MPI_STATUS_IGNORE);
	if (!err)
		err = MPI_Recv(&a, 1, MPI_INT, 1, PAIR_A, MPI_COMM_WORLD,
			       MPI_STATUS_IGNORE);
	armed = 0;
	if (err) {
		if (!b)
			MPI_OK(MPI_Recv(&b, 1, MPI_INT, 1, PAIR_B,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		if (!a)
			MPI_OK(MPI_Recv(&a, 1, MPI_INT, 1, PAIR_A,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	}
	armed = was;
	CHECK(a == 1111 && b == 2222, "pair: got %d and %d", a, b);
	return err;
}

/* Rank 1's side: A and B each time rank 0 says go, until it says stop. */
static void pair_sender(void)
{
	int go, a = 1111, b = 2222;

	for (;;) {
		MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, PAIR_GO, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE));
		if (!go)
			return;
		MPI_OK(MPI_Send(&a, 1, MPI_INT, 0, PAIR_A, MPI_COMM_WORLD));
		MPI_OK(MPI_Send(&b, 1, MPI_INT, 0, PAIR_B, MPI_COMM_WORLD));
	}
}

/* ---- Communicators (one rank: the collectives are local) -------------- */

static MPI_Comm made_comm;

static void comm_free(void *ctx)
{
	(void)ctx;
	MPI_OK(MPI_Comm_free(&made_comm));
}

static int c_dup(void *ctx)
{
	(void)ctx;
	return MPI_Comm_dup(MPI_COMM_WORLD, &made_comm);
}

static int c_split(void *ctx)
{
	(void)ctx;
	return MPI_Comm_split(MPI_COMM_WORLD, 3, 0, &made_comm);
}

static int c_create(void *ctx)
{
	(void)ctx;
	return MPI_Comm_create(MPI_COMM_WORLD, world_group, &made_comm);
}

static int c_cart(void *ctx)
{
	int dims[1] = { 1 }, periods[1] = { 1 };

	(void)ctx;
	return MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0,
			       &made_comm);
}

static int c_split_type(void *ctx)
{
	(void)ctx;
	return MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
				   MPI_INFO_NULL, &made_comm);
}

static int c_create_group(void *ctx)
{
	(void)ctx;
	return MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 5,
				     &made_comm);
}

static int c_from_group(void *ctx)
{
	(void)ctx;
	return MPI_Comm_create_from_group(world_group, "nomem", MPI_INFO_NULL,
					  MPI_ERRORS_RETURN, &made_comm);
}

static int c_idup(void *ctx)
{
	MPI_Request q;
	int err;

	(void)ctx;
	err = MPI_Comm_idup(MPI_COMM_WORLD, &made_comm, &q);
	if (!err)
		err = MPI_Wait(&q, MPI_STATUS_IGNORE);
	return err;
}

/* Nonblocking collectives (their schedules), at one rank. */
/* A persistent allreduce: made, started twice, freed. */
static int k_pcoll(void *ctx)
{
	static double in[512], out[512];
	MPI_Request q;
	int err, i, was;

	(void)ctx;
	err = MPI_Allreduce_init(in, out, 512, MPI_DOUBLE, MPI_SUM,
				 MPI_COMM_WORLD, MPI_INFO_NULL, &q);
	if (err)
		return err;
	for (i = 0; i < 2 && !err; i++) {
		err = MPI_Start(&q);
		if (!err) {
			was = armed;
			armed = 0;
			MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
			armed = was;
		}
	}
	MPI_OK(MPI_Request_free(&q));
	return err;
}

static int k_icoll(void *ctx)
{
	static double in[4096], out[4096];
	MPI_Request q[3];
	int err, n = 0;

	(void)ctx;
	err = MPI_Iallreduce(in, out, 4096, MPI_DOUBLE, MPI_SUM,
			     MPI_COMM_WORLD, &q[n]);
	if (!err)
		n++, err = MPI_Ibcast(in, 4096, MPI_DOUBLE, 0, MPI_COMM_WORLD,
				       &q[n]);
	if (!err)
		n++, err = MPI_Ibarrier(MPI_COMM_WORLD, &q[n]);
	if (!err)
		n++;
	if (n) {
		int was = armed;

		armed = 0;
		MPI_OK(MPI_Waitall(n, q, MPI_STATUSES_IGNORE));
		armed = was;
	}
	return err;
}

int main(int argc, char **argv)
{
	static const struct op local[] = {
		{ "Type_contiguous", t_contig, type_free },
		{ "Type_vector + commit", t_vector_commit, type_free },
		{ "Type_indexed + commit", t_indexed, type_free },
		{ "Type_create_struct", t_struct, type_free },
		{ "Type_create_subarray", t_subarray, type_free },
		{ "Type_create_darray", t_darray, type_free },
		{ "Type_create_resized + dup", t_resized_dup, type_free },
		{ "Group_incl", g_incl, group_free },
		{ "Group_excl", g_excl, group_free },
		{ "Group_range_incl", g_range, group_free },
		{ "Group_union + difference", g_union_diff, group_free },
		{ "Comm_create_keyval", a_keyval, keyval_free },
		{ "Type_create_keyval + set_attr + dup", t_attr, nothing },
		{ "Comm_set_name", c_name, nothing },
		{ "Info_create + set + dup", i_info, info_free },
		{ "Comm_get_info", c_get_info, info_free },
		{ "Session_init + get_info + pset info + group", s_session,
		  nothing },
		{ "Add_error_class + code + string", e_add, nothing },
		{ "Op_create", o_create, op_free },
		{ "Grequest_start", p_grequest, nothing },
	};
	static const struct op comms[] = {
		{ "Comm_dup", c_dup, comm_free },
		{ "Comm_split", c_split, comm_free },
		{ "Comm_create", c_create, comm_free },
		{ "Cart_create", c_cart, comm_free },
		{ "Comm_split_type", c_split_type, comm_free },
		{ "Comm_create_group", c_create_group, comm_free },
		{ "Comm_create_from_group", c_from_group, comm_free },
		{ "Comm_idup", c_idup, comm_free },
		{ "Iallreduce + Ibcast + Ibarrier", k_icoll, nothing },
		{ "Allreduce_init + Start", k_pcoll, nothing },
	};
	const struct op contents = { "Type_get_contents", t_contents, nothing };
	const struct op attr = { "Comm_set_attr", a_set, attr_delete };
	const struct op self = { "Isend/Irecv to self", p_self, nothing };
	const struct op isr = { "Isendrecv(_replace) to self", p_pair,
				 nothing };
	const struct op pers = { "persistent to self", p_persistent, nothing };
	const struct op mrecv = { "Mprobe/Mrecv to self", p_mrecv, nothing };
	const struct op bsend = { "Bsend to self", p_bsend, nothing };
	const struct op pair = { "a message from rank 1, unexpected", x_pair,
				 nothing };
	void *battach;
	int bsize;
	struct self_msg msgs[4];
	MPI_Datatype vec;
	size_t i, big = 1 << 20;
	long total = 0;
	int kv;

	t_init(&argc, &argv);
	MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
	for (i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		total += sweep(&local[i], NULL);

	MPI_OK(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
	MPI_OK(MPI_Type_commit(&vec));
	total += sweep(&contents, &vec);

	MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
				      MPI_COMM_NULL_DELETE_FN, &kv, NULL));
	total += sweep(&attr, &kv);
	MPI_OK(MPI_Comm_free_keyval(&kv));

	/* Eager and rendezvous; contiguous and typed (packed, or a span). */
	for (i = 0; i < 4; i++) {
		msgs[i].bytes = i % 2 ? big : 256;
		msgs[i].dt = i < 2 ? MPI_BYTE : vec;
		msgs[i].count = i < 2 ? (int)msgs[i].bytes :
			(int)(msgs[i].bytes / 24);
		msgs[i].s = malloc(big * 2);
		msgs[i].r = malloc(big * 2);
		CHECK(msgs[i].s && msgs[i].r, "out of memory");
		total += sweep(&self, &msgs[i]);
		total += sweep(&isr, &msgs[i]);
		total += sweep(&pers, &msgs[i]);
		total += sweep(&mrecv, &msgs[i]);
	}
	bsize = (int)big + MPI_BSEND_OVERHEAD;
	battach = malloc((size_t)bsize);
	CHECK(battach, "out of memory");
	MPI_OK(MPI_Buffer_attach(battach, bsize));
	total += sweep(&bsend, &msgs[0]);
	total += sweep(&bsend, &msgs[3]);
	MPI_OK(MPI_Buffer_detach(&battach, &bsize));
	free(battach);
	if (t_size == 1)
		for (i = 0; i < sizeof(comms) / sizeof(comms[0]); i++)
			total += sweep(&comms[i], NULL);
	if (t_rank == 0 && t_size > 1) {
		int stop = 0;

		total += sweep(&pair, NULL);
		MPI_OK(MPI_Send(&stop, 1, MPI_INT, 1, PAIR_GO, MPI_COMM_WORLD));
	} else if (t_rank == 1) {
		pair_sender();
	}

	for (i = 0; i < 4; i++) {
		free(msgs[i].s);
		free(msgs[i].r);
	}
	MPI_OK(MPI_Type_free(&vec));
	MPI_OK(MPI_Group_free(&world_group));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_Finalize();
	if (t_rank == 0) {
		if (!FAULTS)
			printf("nomem: ok (%d ranks; ASan replaces malloc: no allocation refused)\n",
			       t_size);
		else
			printf("nomem: ok (%d ranks, %ld allocations each refused once)\n",
			       t_size, total);
	}
	return 0;
}
