// SPDX-License-Identifier: MIT
// libmsg-test: np=2,3,4,8 builds=plain,asan
/*
 * Large temporaries are kept for the next use (src/base/scratch.c).  A
 * binomial MPI_Reduce of an 8 MiB vector (MPICHAN_COLL_REDUCE, set
 * before MPI_Init) needs a temporary as large at the root.  Run five
 * times, at least one of the last four calls must map nothing fresh at
 * the root and serve its temporaries from kept blocks (MPI_T counters
 * mpichan_scratch_mapped and mpichan_scratch_reused; oversubscribed, a
 * message that comes before its receive may take a block for a while,
 * so not every call).  Then MPI_T sets mpichan_scratch_keep to 0 on
 * every rank, and every call must map its temporaries fresh and reuse
 * none.  Natively that call must also have faulted in fewer than an
 * eighth of the vector's pages at the root (a block handed out kept but
 * never written before, binomial's spare at 2 ranks, still faults once).
 * Every result is checked.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "test.h"

#define WORDS	(2 << 20)		/* 8 MiB of ints */
#define PAGES	(WORDS * 4 / 4096)

static MPI_T_pvar_session session;
static MPI_T_pvar_handle mapped_h, reused_h;

static long minflt(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return u.ru_minflt;
}

static unsigned long long ctr(MPI_T_pvar_handle h)
{
	return t_ctr(session, h);
}

static MPI_T_pvar_handle ctr_open(const char *name)
{
	return t_ctr_open(session, name);
}

struct call {
	unsigned long long mapped, reused;
	long faults;
};

/* One MPI_Reduce: the root's counters and faults over it, the sum checked. */
static struct call reduce(const int *s, int *r)
{
	unsigned long long m = ctr(mapped_h), u = ctr(reused_h);
	long f = minflt();
	struct call c;
	int i;

	MPI_OK(MPI_Reduce(s, r, WORDS, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
	c.faults = minflt() - f;
	c.mapped = ctr(mapped_h) - m;
	c.reused = ctr(reused_h) - u;
	if (t_rank == 0)
		for (i = 0; i < WORDS; i += 4099)
			CHECK(r[i] == t_size * i + t_size * (t_size - 1) / 2,
			      "word %d: %d", i, r[i]);
	return c;
}

int main(int argc, char **argv)
{
	unsigned long long zero = 0, keep;
	const char *mode = getenv("LIBMSG_MODE");
	int native = !mode || strcmp(mode, "vm");
	MPI_T_cvar_handle h;
	int provided, i, k, n, idx, kept = -1;
	struct call c[5];
	int *s, *r;

	setenv("MPICHAN_COLL_REDUCE", "binomial", 1);
	t_init(&argc, &argv);
	MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
	MPI_OK(MPI_T_pvar_session_create(&session));
	mapped_h = ctr_open("mpichan_scratch_mapped");
	reused_h = ctr_open("mpichan_scratch_reused");
	s = malloc(WORDS * sizeof(int));
	r = malloc(WORDS * sizeof(int));
	CHECK(s && r, "out of memory");
	for (i = 0; i < WORDS; i++) {
		s[i] = i + t_rank;
		r[i] = -1;	/* every page of both present */
	}

	for (k = 0; k < 5; k++)
		c[k] = reduce(s, r);
	if (t_rank == 0) {
		CHECK(c[0].mapped >= 1, "the first reduce mapped nothing");
		for (k = 1; k < 5 && kept < 0; k++)
			if (!c[k].mapped && c[k].reused &&
			    (!native || c[k].faults < PAGES / 8))
				kept = k;
		CHECK(kept > 0,
		      "kept: reduces 2-5 mapped %llu %llu %llu %llu, faulted %ld %ld %ld %ld pages (of %d)",
		      c[1].mapped, c[2].mapped, c[3].mapped, c[4].mapped,
		      c[1].faults, c[2].faults, c[3].faults, c[4].faults,
		      PAGES);
	}

	MPI_OK(MPI_T_cvar_get_index("mpichan_scratch_keep", &idx));
	MPI_OK(MPI_T_cvar_handle_alloc(idx, NULL, &h, &n));
	MPI_OK(MPI_T_cvar_read(h, &keep));
	CHECK(keep >= WORDS * sizeof(int), "default keep %llu", keep);
	MPI_OK(MPI_T_cvar_write(h, &zero));
	for (k = 0; k < 3; k++)
		c[k] = reduce(s, r);
	if (t_rank == 0)
		for (k = 0; k < 3; k++)
			CHECK(c[k].mapped >= 1 && !c[k].reused,
			      "none kept: reduce %d mapped %llu, reused %llu", k,
			      c[k].mapped, c[k].reused);
	MPI_OK(MPI_T_cvar_write(h, &keep));
	MPI_OK(MPI_T_cvar_handle_free(&h));
	MPI_OK(MPI_T_pvar_handle_free(session, &mapped_h));
	MPI_OK(MPI_T_pvar_handle_free(session, &reused_h));
	MPI_OK(MPI_T_pvar_session_free(&session));
	MPI_OK(MPI_T_finalize());
	free(s);
	free(r);
	return t_done();
}
