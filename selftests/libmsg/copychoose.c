// SPDX-License-Identifier: MIT
// libmsg-test: run-by=copychoose.sh
/*
 * The rendezvous copy chosen by measurement (libmsg/src/transport/
 * copy_choose.c), linked against the static library with its internal
 * headers to call the choice as the pure function it is:
 *
 *   copychoose decide    what lm_copy_choose() takes for given timings
 *   copychoose sequence  the order of a class's trials, its choice, the
 *                        bits it reports, its re-measuring, and what
 *                        MPICHAN_COPY=kernel|mapped|bogus does
 *   copychoose MODE      (pairs of ranks, even np) rank r exchanges with
 *                        r^1 messages of several sizes, contiguous and
 *                        into a vector type, checking every byte; then
 *                        MPI_T says which copy ran: over the device,
 *                        MODE kernel: only kernel copies, mapped: only
 *                        mapped ones, auto: both while measuring and a
 *                        choice for every size class measured; natively
 *                        (any MODE) process_vm_readv only; with auto,
 *                        the control variable mpichan_copy written to
 *                        kernel makes the next copies kernel ones
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "base/base.h"
#include "transport/copy_choose.h"

static int fails;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fails++;						\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static void decide(void)
{
	double best[2];
	uint32_t n[2];

	/* Too few trials of either: no choice yet. */
	best[LM_COPY_KERNEL] = 0.1, best[LM_COPY_MAPPED] = 0.2;
	n[LM_COPY_KERNEL] = 3, n[LM_COPY_MAPPED] = 2;
	CHECK(lm_copy_choose(best, n, 3) == -1, "2 mapped trials of 3");
	n[LM_COPY_KERNEL] = 0, n[LM_COPY_MAPPED] = 5;
	CHECK(lm_copy_choose(best, n, 3) == -1, "no kernel trial");
	/* Enough: the fewer ns per byte. */
	n[LM_COPY_KERNEL] = 3, n[LM_COPY_MAPPED] = 3;
	CHECK(lm_copy_choose(best, n, 3) == LM_COPY_KERNEL, "kernel faster");
	best[LM_COPY_KERNEL] = 0.3;
	CHECK(lm_copy_choose(best, n, 3) == LM_COPY_MAPPED, "mapped faster");
	best[LM_COPY_KERNEL] = 0.2;
	CHECK(lm_copy_choose(best, n, 3) == LM_COPY_MAPPED, "a tie: mapped");
	best[LM_COPY_KERNEL] = 0.19999;
	CHECK(lm_copy_choose(best, n, 1) == LM_COPY_KERNEL, "kernel, barely");
	/* Size classes: powers of two. */
	CHECK(lm_copy_class_of(1) == 0, "class of 1");
	CHECK(lm_copy_class_of(65536) == 16, "class of 64 KiB");
	CHECK(lm_copy_class_of(131071) == 16, "class of 128 KiB - 1");
	CHECK(lm_copy_class_of(131072) == 17, "class of 128 KiB");
	CHECK(lm_copy_class_of(4194309) == 22, "class of 4 MiB + 5");
}

/*
 * One class measured: transfers of len bytes, the kernel copy taking
 * kns and the mapped copy mns ns each; returns the method it chose.
 */
static int measure(struct lm_copy_state *s, uint64_t len, uint64_t kns,
		   uint64_t mns)
{
	int i, m, timed, want = LM_COPY_MAPPED;

	for (i = 0; i < 2 * LM_COPY_TRIALS; i++) {
		m = lm_copy_next(s, len, &timed);
		CHECK(timed, "trial %d of %llu bytes timed", i,
		      (unsigned long long)len);
		CHECK(m == want, "trial %d of %llu bytes: method %d, not %d", i,
		      (unsigned long long)len, m, want);
		lm_copy_record(s, len, m, m == LM_COPY_KERNEL ? kns : mns);
		want = !want;
	}
	return s->cls[lm_copy_class_of(len)].choice;
}

static void sequence(void)
{
	struct lm_copy_state s;
	uint64_t bit = 1ULL << 20;
	int i, m, timed;

	CHECK(lm_copy_init(&s, NULL, NULL) == 0 && s.mode == LM_COPY_AUTO,
	      "unset: auto");
	CHECK(measure(&s, 1 << 20, 100000, 200000) == LM_COPY_KERNEL,
	      "1 MiB: kernel twice as fast");
	CHECK(s.chose[LM_COPY_KERNEL] == bit && !s.chose[LM_COPY_MAPPED],
	      "1 MiB class reported kernel: %llx %llx",
	      (unsigned long long)s.chose[0], (unsigned long long)s.chose[1]);
	/* The best trial counts: one slow kernel copy changes nothing. */
	CHECK(lm_copy_init(&s, "auto", "0") == 0 && !s.debug, "auto");
	lm_copy_next(&s, 100000, &timed);
	lm_copy_record(&s, 100000, LM_COPY_MAPPED, 50000);
	lm_copy_next(&s, 100000, &timed);
	lm_copy_record(&s, 100000, LM_COPY_KERNEL, 900000);
	for (i = 0; i < 2; i++) {
		lm_copy_next(&s, 100000, &timed);
		lm_copy_record(&s, 100000, LM_COPY_MAPPED, 60000);
		lm_copy_next(&s, 100000, &timed);
		lm_copy_record(&s, 100000, LM_COPY_KERNEL, 40000);
	}
	CHECK(s.cls[16].choice == LM_COPY_KERNEL, "best of the trials");
	CHECK(s.chose[LM_COPY_KERNEL] == 1ULL << 16, "64 KiB class reported");
	/* Classes are apart: 1 MiB still measures. */
	CHECK(measure(&s, (1 << 20) + 4096, 300000, 200000) == LM_COPY_MAPPED,
	      "1 MiB: mapped faster");
	CHECK(s.chose[LM_COPY_MAPPED] == bit, "1 MiB reported mapped");
	/* The choice holds LM_COPY_RECHECK transfers, then measures again. */
	for (i = 0; i < LM_COPY_RECHECK; i++) {
		m = lm_copy_next(&s, 1 << 20, &timed);
		if (m != LM_COPY_MAPPED || timed)
			break;
	}
	CHECK(i == LM_COPY_RECHECK, "the choice held %d transfers", i);
	CHECK(measure(&s, 1 << 20, 100000, 200000) == LM_COPY_KERNEL,
	      "re-measured: kernel now faster");
	CHECK(s.chose[LM_COPY_KERNEL] == (bit | 1ULL << 16) &&
	      !s.chose[LM_COPY_MAPPED], "1 MiB now reported kernel");
	/* Forced: never timed, never reported. */
	CHECK(lm_copy_init(&s, "kernel", NULL) == 0, "kernel");
	for (i = 0; i < 10; i++)
		CHECK(lm_copy_next(&s, 1 << 20, &timed) == LM_COPY_KERNEL &&
		      !timed, "forced kernel");
	CHECK(lm_copy_init(&s, "mapped", NULL) == 0, "mapped");
	for (i = 0; i < 10; i++)
		CHECK(lm_copy_next(&s, 1 << 20, &timed) == LM_COPY_MAPPED &&
		      !timed, "forced mapped");
	CHECK(!s.chose[0] && !s.chose[1], "forced: nothing reported");
	CHECK(lm_copy_init(&s, "fast", NULL) == -EINVAL, "bad MPICHAN_COPY");
}

/* ---- A job -------------------------------------------------------- */

struct pv {
	const char *name;
	int cls;
	MPI_T_pvar_handle h;
};

static struct pv pvs[] = {
	{ "mpichan_copy_module", MPI_T_PVAR_CLASS_COUNTER, NULL },
	{ "mpichan_copy_mapped", MPI_T_PVAR_CLASS_COUNTER, NULL },
	{ "mpichan_copy_readv", MPI_T_PVAR_CLASS_COUNTER, NULL },
	{ "mpichan_copy_chose_kernel", MPI_T_PVAR_CLASS_LEVEL, NULL },
	{ "mpichan_copy_chose_mapped", MPI_T_PVAR_CLASS_LEVEL, NULL },
};
enum { PV_MODULE, PV_MAPPED, PV_READV, PV_KERNEL_CLS, PV_MAPPED_CLS, NPV };

static unsigned char pattern(int rank, int rep, size_t i)
{
	return (unsigned char)(rank * 31 + rep * 7 + i * 13 + (i >> 12));
}

#define BLK	1000
#define STRIDE	1536

/* One exchange of len bytes with peer, received contiguous or strided. */
static void exchange(int rank, int peer, size_t len, int rep, int strided,
		     unsigned char *sb, unsigned char *rb)
{
	MPI_Datatype vec;
	size_t i, nblk = len / BLK, at;

	for (i = 0; i < len; i++)
		sb[i] = pattern(rank, rep, i);
	if (!strided) {
		memset(rb, 0, len);
		MPI_Sendrecv(sb, (int)len, MPI_BYTE, peer, rep, rb, (int)len,
			     MPI_BYTE, peer, rep, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		for (i = 0; i < len; i++)
			if (rb[i] != pattern(peer, rep, i))
				break;
		CHECK(i == len, "%zu bytes, rep %d: byte %zu wrong", len, rep, i);
		return;
	}
	len = nblk * BLK;
	memset(rb, 0, nblk * STRIDE);
	MPI_Type_vector((int)nblk, BLK, STRIDE, MPI_BYTE, &vec);
	MPI_Type_commit(&vec);
	MPI_Sendrecv(sb, (int)len, MPI_BYTE, peer, rep, rb, 1, vec, peer, rep,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Type_free(&vec);
	for (i = 0; i < nblk * STRIDE; i++) {
		at = i / STRIDE * BLK + i % STRIDE;
		if (i % STRIDE < BLK ? rb[i] != pattern(peer, rep, at) : rb[i])
			break;
	}
	CHECK(i == nblk * STRIDE, "%zu bytes strided, rep %d: byte %zu wrong",
	      len, rep, i);
}

/* The control variable mpichan_copy written to kernel: only kernel copies. */
static void cvar_kernel(MPI_T_pvar_session ses, int rank, int peer, int dev,
			unsigned char *sb, unsigned char *rb)
{
	unsigned long long before[2], after[2];
	MPI_T_cvar_handle h;
	int idx, count, x = -1, i;

	if (MPI_T_cvar_get_index("mpichan_copy", &idx) ||
	    MPI_T_cvar_handle_alloc(idx, NULL, &h, &count)) {
		CHECK(0, "no control variable mpichan_copy");
		return;
	}
	MPI_T_cvar_read(h, &x);
	CHECK(x == 0, "mpichan_copy reads %d, not auto (0)", x);
	x = 1;
	CHECK(MPI_T_cvar_write(h, &x) == MPI_SUCCESS, "mpichan_copy=kernel");
	x = 7;
	CHECK(MPI_T_cvar_write(h, &x) == MPI_T_ERR_INVALID, "mpichan_copy=7");
	for (i = 0; i < 2; i++)
		MPI_T_pvar_read(ses, pvs[i].h, &before[i]);
	for (i = 0; i < 4; i++)
		exchange(rank, peer, 1 << 20, i, i & 1, sb, rb);
	for (i = 0; i < 2; i++)
		MPI_T_pvar_read(ses, pvs[i].h, &after[i]);
	if (dev)
		CHECK(after[PV_MODULE] == before[PV_MODULE] + 4 &&
		      after[PV_MAPPED] == before[PV_MAPPED],
		      "written kernel: module %llu -> %llu, mapped %llu -> %llu",
		      before[PV_MODULE], after[PV_MODULE], before[PV_MAPPED],
		      after[PV_MAPPED]);
	x = 0;
	MPI_T_cvar_write(h, &x);
	MPI_T_cvar_handle_free(&h);
}

static int job(const char *mode)
{
	static const size_t sizes[] = { 65536, 200003, 1 << 20,
					(4 << 20) + 5 };
	unsigned long long v[NPV];
	unsigned char *sb, *rb;
	MPI_T_pvar_session ses;
	uint64_t used = 0;
	int rank, np, peer, provided, idx, count, i, rep, dev;
	size_t s;

	MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (np % 2) {
		if (!rank)
			printf("copychoose: needs an even number of ranks\n");
		MPI_Finalize();
		return 1;
	}
	peer = rank ^ 1;
	dev = lm.job.t == &lm_transport_mpichan && lm.job.window;
	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	MPI_T_pvar_session_create(&ses);
	for (i = 0; i < NPV; i++) {
		if (MPI_T_pvar_get_index(pvs[i].name, pvs[i].cls, &idx) ||
		    MPI_T_pvar_handle_alloc(ses, idx, NULL, &pvs[i].h, &count)) {
			printf("FAIL: no pvar %s\n", pvs[i].name);
			return 1;
		}
		if (pvs[i].cls == MPI_T_PVAR_CLASS_COUNTER)
			MPI_T_pvar_start(ses, pvs[i].h);
	}
	sb = malloc((5 << 20) * 2);
	rb = malloc((5 << 20) * 2);
	/* Enough transfers of each size for auto to choose. */
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (rep = 0; rep < 2 * LM_COPY_TRIALS + 2; rep++)
			exchange(rank, peer, sizes[s], rep, 0, sb, rb);
		used |= 1ULL << lm_copy_class_of(sizes[s]);
		for (rep = 0; rep < 3; rep++)
			exchange(rank, peer, sizes[s], rep, 1, sb, rb);
	}
	for (i = 0; i < NPV; i++)
		MPI_T_pvar_read(ses, pvs[i].h, &v[i]);
	printf("copychoose: rank %d %s MPICHAN_COPY=%s: module %llu mapped %llu readv %llu, chose kernel %#llx mapped %#llx\n",
	       rank, dev ? "device" : "fallback", mode, v[PV_MODULE],
	       v[PV_MAPPED], v[PV_READV], v[PV_KERNEL_CLS], v[PV_MAPPED_CLS]);
	if (!dev) {
		CHECK(!v[PV_MODULE] && !v[PV_MAPPED] && v[PV_READV],
		      "fallback: process_vm_readv only");
		CHECK(!v[PV_KERNEL_CLS] && !v[PV_MAPPED_CLS],
		      "fallback: no choice reported");
	} else if (!strcmp(mode, "kernel")) {
		CHECK(v[PV_MODULE] && !v[PV_MAPPED], "kernel copies only");
	} else if (!strcmp(mode, "mapped")) {
		CHECK(!v[PV_MODULE] && v[PV_MAPPED], "mapped copies only");
	} else {
		CHECK(v[PV_MODULE] && v[PV_MAPPED], "auto: both measured");
		CHECK((v[PV_KERNEL_CLS] | v[PV_MAPPED_CLS]) == used &&
		      !(v[PV_KERNEL_CLS] & v[PV_MAPPED_CLS]),
		      "auto: one choice for each class used (%#llx)",
		      (unsigned long long)used);
	}
	if (dev && strcmp(mode, "auto"))
		CHECK(!v[PV_KERNEL_CLS] && !v[PV_MAPPED_CLS],
		      "forced: no choice reported");
	if (!strcmp(mode, "auto"))
		cvar_kernel(ses, rank, peer, dev, sb, rb);
	free(sb);
	free(rb);
	MPI_T_pvar_session_free(&ses);
	MPI_T_finalize();
	MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM,
		      MPI_COMM_WORLD);
	if (!rank && !fails)
		printf("copychoose: ok\n");
	MPI_Finalize();
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (!strcmp(what, "decide") || !strcmp(what, "sequence")) {
		if (!strcmp(what, "decide"))
			decide();
		else
			sequence();
		printf(fails ? "copychoose: FAILED\n" : "copychoose: ok\n");
		return fails ? 1 : 0;
	}
	if (!strcmp(what, "kernel") || !strcmp(what, "mapped") ||
	    !strcmp(what, "auto"))
		return job(what);
	fprintf(stderr, "usage: copychoose decide|sequence|kernel|mapped|auto\n");
	return 2;
}
