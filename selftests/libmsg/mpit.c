// SPDX-License-Identifier: MIT
/*
 * The tool information interface (src/tool/mpit.c), as a tool sees it:
 * before MPI_Init the variables are listed but not accessible; then
 * every control variable is listed, read (enumerations: a value among
 * their items) and found by name, every performance variable listed,
 * found by name and class, allocated and read (the module's own only
 * where debugfs can be read: MPI_T_ERR_NOT_ACCESSIBLE otherwise), every
 * variable in exactly one category.  Traffic moves what it must and
 * leaves what it must not: small messages count as eager, sent and
 * received, and make no rendezvous; a large one makes one.  Writing
 * mpichan_eager makes a 1 KiB message a rendezvous; forcing an
 * allreduce algorithm on every rank makes allreduce run it.  Start,
 * stop, reset, readreset and write of a counter; a level (the
 * unexpected queue) up and down; the errors MPI_T gives; the clock
 * source; no events; MPI_T_finalize.
 */
#include "test.h"

#define T_OK(call) do {							\
	int _e = (call);						\
	CHECK(_e == MPI_SUCCESS, "%s: %d", #call, _e);			\
} while (0)

static MPI_T_pvar_session session;

struct pv {
	const char *name;
	int index;
	MPI_T_pvar_handle h;
};

/* A counter's handle, started. */
static void pv_open(struct pv *p, const char *name)
{
	int count;

	p->name = name;
	T_OK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &p->index));
	T_OK(MPI_T_pvar_handle_alloc(session, p->index, NULL, &p->h, &count));
	CHECK(count == 1, "%s: count %d", name, count);
	T_OK(MPI_T_pvar_start(session, p->h));
}

static unsigned long long pv_read(struct pv *p)
{
	unsigned long long v;

	T_OK(MPI_T_pvar_read(session, p->h, &v));
	return v;
}

static int cvar_index(const char *name)
{
	int i;

	T_OK(MPI_T_cvar_get_index(name, &i));
	return i;
}

/*
 * A phase of traffic with the partner, its counters from 0: what the
 * partner sends in it comes after the barrier, which this rank entered
 * after the reset (and may take in while it waits there).
 */
static void phase(void)
{
	T_OK(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES));
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void exchange(size_t bytes, int tag)
{
	static char out[1 << 20], in[1 << 20];
	int partner = t_partner();

	t_fill(out, bytes, (unsigned)tag);
	MPI_OK(MPI_Sendrecv(out, (int)bytes, MPI_BYTE, partner, tag, in,
			    (int)bytes, MPI_BYTE, partner, tag,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(!t_bad(in, bytes, (unsigned)tag), "data of %zu bytes", bytes);
}

/* Every control variable: its info, its index by name, its value. */
static void list_cvars(int joined)
{
	char name[128], desc[512], item[64], sval[64];
	int n, i, j, nlen, dlen, verb, bind, scope, count, num, v, iv;
	MPI_T_cvar_handle h;
	MPI_Datatype dt;
	MPI_T_enum en;
	double dv;
	unsigned long long uv;
	void *buf;

	T_OK(MPI_T_cvar_get_num(&n));
	CHECK(n >= 12 + 17, "%d control variables", n);
	for (i = 0; i < n; i++) {
		nlen = sizeof(name);
		dlen = sizeof(desc);
		T_OK(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc,
					 &dlen, &bind, &scope));
		CHECK(nlen == (int)strlen(name) + 1 && dlen > 10 &&
		      !strncmp(name, "mpichan_", 8), "cvar %d: %s", i, name);
		CHECK(strstr(desc, "MPICHAN_"), "%s says its setting: %s", name, desc);
		CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: bound to an object", name);
		T_OK(MPI_T_cvar_get_index(name, &j));
		CHECK(j == i, "%s: index %d, not %d", name, j, i);
		T_OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
		buf = dt == MPI_CHAR ? (void *)sval : dt == MPI_DOUBLE ? (void *)&dv :
			dt == MPI_INT ? (void *)&iv : (void *)&uv;
		CHECK(dt == MPI_CHAR ? count <= (int)sizeof(sval) : count == 1,
		      "%s: count %d", name, count);
		if (!joined) {
			CHECK(MPI_T_cvar_read(h, buf) == MPI_T_ERR_NOT_ACCESSIBLE,
			      "%s read before MPI_Init", name);
			T_OK(MPI_T_cvar_handle_free(&h));
			continue;
		}
		T_OK(MPI_T_cvar_read(h, buf));
		if (en != MPI_T_ENUM_NULL) {
			CHECK(dt == MPI_INT, "%s: an enumeration of int", name);
			T_OK(MPI_T_enum_get_info(en, &num, item, &(int){ sizeof(item) }));
			for (j = 0; j < num; j++) {
				nlen = sizeof(item);
				T_OK(MPI_T_enum_get_item(en, j, &v, item, &nlen));
				if (v == iv)
					break;
			}
			CHECK(j < num, "%s = %d, no item of its enumeration", name, iv);
			CHECK(MPI_T_enum_get_item(en, num, &v, item, &nlen) ==
			      MPI_T_ERR_INVALID_ITEM, "%s: item past the end", name);
		}
		if (!strcmp(name, "mpichan_transport"))
			CHECK(!strcmp(sval, "mpichan") || !strcmp(sval, "shm"),
			      "transport %s", sval);
		if (!strcmp(name, "mpichan_eager"))
			CHECK(uv > 0 && uv <= 16384, "eager %llu", uv);
		if (!strcmp(name, "mpichan_ring_bytes"))
			CHECK(uv >= 4096 && !(uv & (uv - 1)), "ring bytes %llu",
			      uv);
		if (scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY)
			CHECK(MPI_T_cvar_write(h, buf) == MPI_T_ERR_CVAR_SET_NEVER,
			      "%s is read-only", name);
		T_OK(MPI_T_cvar_handle_free(&h));
		CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar_handle_free");
	}
	CHECK(MPI_T_cvar_get_info(n, name, &nlen, &verb, &dt, &en, desc, &dlen,
				  &bind, &scope) == MPI_T_ERR_INVALID_INDEX,
	      "cvar_get_info past the end");
	CHECK(MPI_T_cvar_get_index("no_such_variable", &j) ==
	      MPI_T_ERR_INVALID_NAME, "cvar_get_index of no variable");
}

/* Every performance variable, read once started; how many there are. */
static int list_pvars(void)
{
	char name[128], desc[256];
	int n, i, j, nlen, dlen, verb, cls, bind, ro, cont, atomic, count;
	int device = 0, err;
	MPI_T_pvar_handle h;
	MPI_Datatype dt;
	MPI_T_enum en;
	unsigned long long v;
	char tr[16];
	MPI_T_cvar_handle ch;

	T_OK(MPI_T_cvar_handle_alloc(cvar_index("mpichan_transport"), NULL,
				     &ch, &count));
	T_OK(MPI_T_cvar_read(ch, tr));
	T_OK(MPI_T_cvar_handle_free(&ch));
	device = !strcmp(tr, "mpichan");
	T_OK(MPI_T_pvar_get_num(&n));
	CHECK(n >= 30, "%d performance variables", n);
	for (i = 0; i < n; i++) {
		nlen = sizeof(name);
		dlen = sizeof(desc);
		T_OK(MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &en,
					 desc, &dlen, &bind, &ro, &cont,
					 &atomic));
		CHECK(dt == MPI_UNSIGNED_LONG_LONG && en == MPI_T_ENUM_NULL &&
		      bind == MPI_T_BIND_NO_OBJECT, "pvar %s", name);
		T_OK(MPI_T_pvar_get_index(name, cls, &j));
		CHECK(j == i, "%s: index %d, not %d", name, j, i);
		err = MPI_T_pvar_handle_alloc(session, i, NULL, &h, &count);
		if (!strncmp(name, "mpichan_module_", 15) && err) {
			/* The module's counters: debugfs, over the device only. */
			CHECK(err == MPI_T_ERR_NOT_ACCESSIBLE,
			      "%s: %d, not MPI_T_ERR_NOT_ACCESSIBLE", name, err);
			continue;
		}
		CHECK(err == MPI_SUCCESS, "pvar_handle_alloc of %s: %d", name,
		      err);
		CHECK(!strncmp(name, "mpichan_module_", 15) ? device : 1,
		      "%s readable without the module", name);
		if (!cont)
			T_OK(MPI_T_pvar_start(session, h));
		else
			CHECK(MPI_T_pvar_start(session, h) ==
			      MPI_T_ERR_PVAR_NO_STARTSTOP, "%s: start", name);
		T_OK(MPI_T_pvar_read(session, h, &v));
		if (ro)
			CHECK(MPI_T_pvar_write(session, h, &v) ==
			      MPI_T_ERR_PVAR_NO_WRITE, "%s: write", name);
	}
	CHECK(MPI_T_pvar_get_index("mpichan_eager_sent", MPI_T_PVAR_CLASS_LEVEL,
				   &j) == MPI_T_ERR_INVALID_NAME,
	      "pvar_get_index of the wrong class");
	return n;
}

static void categories(int ncvars, int npvars)
{
	char name[64], desc[256];
	int n, c, i, nlen, dlen, nc, np, ncat, *seen_c, *seen_p, idx[256];
	int found;

	seen_c = calloc((size_t)ncvars, sizeof(int));
	seen_p = calloc((size_t)npvars, sizeof(int));
	T_OK(MPI_T_category_get_num(&n));
	CHECK(n >= 2, "%d categories", n);
	for (c = 0; c < n; c++) {
		nlen = sizeof(name);
		dlen = sizeof(desc);
		T_OK(MPI_T_category_get_info(c, name, &nlen, desc, &dlen, &nc,
					     &np, &ncat));
		T_OK(MPI_T_category_get_index(name, &found));
		CHECK(found == c, "category %s", name);
		CHECK(nc <= 256 && np <= 256, "category sizes");
		T_OK(MPI_T_category_get_cvars(c, nc, idx));
		for (i = 0; i < nc; i++)
			seen_c[idx[i]]++;
		T_OK(MPI_T_category_get_pvars(c, np, idx));
		for (i = 0; i < np; i++)
			seen_p[idx[i]]++;
		T_OK(MPI_T_category_get_categories(c, ncat, idx));
		for (i = 0; i < ncat; i++)
			CHECK(idx[i] > 0 && idx[i] < n, "subcategory %d", idx[i]);
		T_OK(MPI_T_category_get_num_events(c, &found));
		CHECK(found == 0, "no events");
	}
	for (i = 0; i < ncvars; i++)
		CHECK(seen_c[i] == 1, "cvar %d in %d categories", i, seen_c[i]);
	for (i = 0; i < npvars; i++)
		CHECK(seen_p[i] == 1, "pvar %d in %d categories", i, seen_p[i]);
	T_OK(MPI_T_category_changed(&found));
	free(seen_c);
	free(seen_p);
}

int main(int argc, char **argv)
{
	struct pv esent, ebytes, erecv, rsent, rrecv, rd, area, unexp;
	unsigned long long v, v2, eager, small = 64, before, level;
	int provided, count, i, ncvars, npvars, algo, flag, x;
	MPI_T_cvar_handle eh, ah;
	MPI_T_pvar_handle qh;
	MPI_T_enum en;
	MPI_Datatype dt;
	MPI_Count t0, t1;
	MPI_Request r;
	char name[64], s[MPI_MAX_ERROR_STRING];

	/* Before MPI: listed, not accessible. */
	CHECK(MPI_T_cvar_get_num(&i) == MPI_T_ERR_NOT_INITIALIZED,
	      "MPI_T before MPI_T_init_thread");
	T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
	CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
	list_cvars(0);
	t_init(&argc, &argv);
	list_cvars(1);
	T_OK(MPI_T_cvar_get_num(&ncvars));

	T_OK(MPI_T_pvar_session_create(&session));
	npvars = list_pvars();
	categories(ncvars, npvars);

	/* Small messages are eager; they make no rendezvous. */
	pv_open(&esent, "mpichan_eager_sent");
	pv_open(&ebytes, "mpichan_eager_sent_bytes");
	pv_open(&erecv, "mpichan_eager_recv");
	pv_open(&rsent, "mpichan_rndv_sent");
	pv_open(&rrecv, "mpichan_rndv_recv");
	phase();
	for (i = 0; i < 10; i++)
		exchange(100, i);
	CHECK(pv_read(&esent) >= 10 && pv_read(&ebytes) >= 1000,
	      "eager sent: %llu messages, %llu bytes", pv_read(&esent),
	      pv_read(&ebytes));
	CHECK(pv_read(&erecv) >= 10, "eager received: %llu", pv_read(&erecv));
	CHECK(pv_read(&rsent) == 0 && pv_read(&rrecv) == 0,
	      "small messages made %llu rendezvous", pv_read(&rsent));
	phase();
	exchange(1 << 20, 20);
	CHECK(pv_read(&rsent) == 1 && pv_read(&rrecv) == 1,
	      "a 1 MiB message: %llu rendezvous sent, %llu received",
	      pv_read(&rsent), pv_read(&rrecv));

	/* A writable control variable: a smaller eager threshold. */
	T_OK(MPI_T_cvar_handle_alloc(cvar_index("mpichan_eager"), NULL, &eh,
				     &count));
	T_OK(MPI_T_cvar_read(eh, &eager));
	T_OK(MPI_T_cvar_write(eh, &small));
	T_OK(MPI_T_cvar_read(eh, &v));
	CHECK(v == small, "eager threshold written: %llu", v);
	phase();
	exchange(1024, 21);
	CHECK(pv_read(&rsent) == 1 && pv_read(&esent) == 0,
	      "1 KiB over a 64-byte threshold: %llu rendezvous, %llu eager",
	      pv_read(&rsent), pv_read(&esent));
	T_OK(MPI_T_cvar_write(eh, &eager));
	T_OK(MPI_T_cvar_handle_free(&eh));

	/* Every rank forces one allreduce algorithm, then runs it. */
	T_OK(MPI_T_cvar_handle_alloc(cvar_index("mpichan_coll_allreduce"),
				     NULL, &ah, &count));
	T_OK(MPI_T_cvar_get_info(cvar_index("mpichan_coll_allreduce"), NULL,
				 &(int){ 0 }, &i, &dt, &en, NULL, &(int){ 0 },
				 &i, &i));
	algo = -2;
	T_OK(MPI_T_enum_get_info(en, &count, NULL, &(int){ 0 }));
	for (i = 0; i < count; i++) {
		int nlen = sizeof(name);

		T_OK(MPI_T_enum_get_item(en, i, &x, name, &nlen));
		if (!strcmp(name, "recursive_doubling"))
			algo = x;
	}
	CHECK(algo >= 0, "allreduce has recursive_doubling");
	pv_open(&rd, "mpichan_coll_allreduce_recursive_doubling");
	pv_open(&area, "mpichan_coll_allreduce_area");
	T_OK(MPI_T_cvar_write(ah, &algo));
	x = t_rank;
	MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM,
			     MPI_COMM_WORLD));
	CHECK(x == t_size * (t_size - 1) / 2, "allreduce");
	CHECK(pv_read(&rd) == 1 && pv_read(&area) == 0,
	      "forced: %llu recursive doubling, %llu area", pv_read(&rd),
	      pv_read(&area));
	x = -1;
	T_OK(MPI_T_cvar_write(ah, &x));
	x = 12;
	CHECK(MPI_T_cvar_write(ah, &x) == MPI_T_ERR_INVALID, "no algorithm 12");
	T_OK(MPI_T_cvar_handle_free(&ah));

	/* Stop, start, readreset, write. */
	T_OK(MPI_T_pvar_stop(session, esent.h));
	before = pv_read(&esent);
	exchange(10, 22);
	CHECK(pv_read(&esent) == before, "a stopped counter moved");
	T_OK(MPI_T_pvar_start(session, esent.h));
	exchange(10, 23);
	T_OK(MPI_T_pvar_readreset(session, esent.h, &v));
	CHECK(v == before + 1, "readreset: %llu, not %llu", v, before + 1);
	T_OK(MPI_T_pvar_read(session, esent.h, &v2));
	CHECK(v2 == 0, "after readreset: %llu", v2);
	v = 1000;
	T_OK(MPI_T_pvar_write(session, esent.h, &v));
	exchange(10, 24);
	CHECK(pv_read(&esent) == 1001, "written, then one: %llu", pv_read(&esent));

	/*
	 * A level: the unexpected queue, with a message to itself, between
	 * barriers (nobody else is sending, e.g. into MPI_Finalize).
	 */
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	T_OK(MPI_T_pvar_get_index("mpichan_unexpected_queue",
				  MPI_T_PVAR_CLASS_LEVEL, &i));
	T_OK(MPI_T_pvar_handle_alloc(session, i, NULL, &qh, &count));
	pv_open(&unexp, "mpichan_unexpected");
	T_OK(MPI_T_pvar_read(session, qh, &level));
	CHECK(level == 0, "unexpected queue %llu", level);
	x = 5;
	MPI_OK(MPI_Isend(&x, 1, MPI_INT, t_rank, 30, MPI_COMM_WORLD, &r));
	do {
		MPI_OK(MPI_Iprobe(t_rank, 30, MPI_COMM_WORLD, &flag,
				  MPI_STATUS_IGNORE));
	} while (!flag);
	T_OK(MPI_T_pvar_read(session, qh, &level));
	CHECK(level == 1 && pv_read(&unexp) == 1,
	      "one message waiting: level %llu, count %llu", level,
	      pv_read(&unexp));
	MPI_OK(MPI_Recv(&x, 1, MPI_INT, t_rank, 30, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
	T_OK(MPI_T_pvar_read(session, qh, &level));
	CHECK(level == 0, "received: level %llu", level);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	CHECK(MPI_T_pvar_reset(session, qh) == MPI_T_ERR_PVAR_NO_WRITE,
	      "reset of a read-only level");
	CHECK(MPI_T_pvar_stop(session, qh) == MPI_T_ERR_PVAR_NO_STARTSTOP,
	      "stop of a continuous level");
	T_OK(MPI_T_pvar_handle_free(session, &qh));
	CHECK(MPI_T_pvar_read(session, qh, &v) == MPI_T_ERR_INVALID_HANDLE,
	      "read of a freed handle");

	/* The clock source; no events; errors. */
	T_OK(MPI_T_source_get_num(&i));
	CHECK(i == 1, "%d sources", i);
	T_OK(MPI_T_source_get_timestamp(0, &t0));
	T_OK(MPI_T_source_get_timestamp(0, &t1));
	CHECK(t1 >= t0 && t0 > 0, "timestamps");
	T_OK(MPI_T_event_get_num(&i));
	CHECK(i == 0, "%d events", i);
	CHECK(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL,
				       &(MPI_T_event_registration){ 0 }) ==
	      MPI_T_ERR_INVALID_INDEX, "event_handle_alloc");
	CHECK(MPI_T_pvar_get_info(npvars, NULL, NULL, NULL, NULL, NULL, NULL,
				  NULL, NULL, NULL, NULL, NULL, NULL) ==
	      MPI_T_ERR_INVALID_INDEX, "pvar_get_info past the end");
	MPI_OK(MPI_Error_string(MPI_T_ERR_NOT_ACCESSIBLE, s, &i));
	CHECK(strstr(s, "MPI_T_ERR_NOT_ACCESSIBLE"), "error string %s", s);

	T_OK(MPI_T_pvar_session_free(&session));
	CHECK(session == MPI_T_PVAR_SESSION_NULL, "session_free");
	T_OK(MPI_T_finalize());
	CHECK(MPI_T_pvar_get_num(&i) == MPI_T_ERR_NOT_INITIALIZED,
	      "MPI_T after MPI_T_finalize");
	return t_done();
}
