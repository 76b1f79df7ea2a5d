/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpichan-fuzz: what the coordinator (mpichan-fuzz.c) and the worker
 * processes (worker.c) share.  Counters and the failure flag live in an
 * anonymous MAP_SHARED region, so a worker that is killed still counts.
 */
#ifndef MPICHAN_FUZZ_H
#define MPICHAN_FUZZ_H

#include <stdint.h>
#include <linux/mpichan.h>

#define FZ_DEBUGFS	"/sys/kernel/debug/mpichan"
#define FZ_MS		1000000LL
#define FZ_SEC		1000000000LL
/* How long any one call may take beyond its own timeout (TCG, KASAN). */
#define FZ_SLACK_NS	(20 * FZ_SEC)
#define FZ_MAX_WORKERS	16
#define FZ_THREADS	3	/* per worker process: thread 0 + extras */
#define FZ_MAX_ERRNO	140	/* counters for errno 0..FZ_MAX_ERRNO-1 */
#define FZ_HANDLES	64	/* handles shared among a round's workers */
#define FZ_REGIONS	64	/* registered regions, shared likewise */

enum fz_op {
	OP_OPEN, OP_CLOSE, OP_VERSION, OP_CREATE, OP_ATTACH, OP_WAIT,
	OP_WAKE, OP_FINISH, OP_SEND, OP_RECV, OP_CANCEL, OP_UNMAP,
	OP_BADIOCTL, OP_BADARG, OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_MREMAP,
	OP_WINMAP, OP_WINTOUCH, OP_TOUCH, OP_POLL, OP_DEBUGFS, OP_SCRIBBLE,
	OP_RING, OP_SLEEP, OP_CQ, OP_FORK, OP_KILL, OP_EXIT,
	OP_REGREG, OP_REGDEREG, OP_REGCOPY, OP_REGMAP, OP_REGQUERY,
	OP_REGTOUCH, OP_REGMEM,
	NOPS
};

/* The round's job, created by the coordinator before forking. */
struct fz_round {
	uint64_t number;
	uint64_t job_id;
	uint64_t secret[2];
	uint32_t nranks;
	uint32_t ring_bytes;
	int hostile;		/* a worker scribbles over the job memory */
	int hostile_worker;
	int nworkers;
	int pad;
	int64_t end_ns;		/* workers wind down after this */
};

/* A region some worker registered, for every worker to use. */
struct fz_region {
	uint64_t seq;		/* odd while a worker rewrites it */
	uint32_t busy;		/* a writer's spin flag */
	uint32_t pad;
	uint64_t handle, key, len;
	uint32_t writable;
	uint32_t pattern;	/* over a send area: word at o is PAT_MAGIC|(base+o) */
	uint64_t base;
};

struct fz_shared {
	uint64_t ops;				/* operations done, all workers */
	uint64_t count[NOPS][FZ_MAX_ERRNO];	/* [op][errno], 0 = success */
	uint64_t other[NOPS];			/* errno >= FZ_MAX_ERRNO */
	int failed;				/* a check failed somewhere */
	int noted;				/* observations said once */
	uint64_t handles[FZ_HANDLES];		/* recent QUEUED handles */
	uint64_t handle_next;
	struct fz_region regions[FZ_REGIONS];	/* recently registered */
	uint64_t region_next;
	uint64_t iterations;			/* --iterations, 0 = none */
	int64_t deadline_ns;			/* --seconds, as a deadline */
	struct fz_round round;
};

extern struct fz_shared *fz;
extern uint64_t fz_seed;
extern const char *const fz_op_name[NOPS];

int64_t fz_now(void);
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fz_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Count a result; unless allowed is NULL, fail (and return 1) when err
 * is neither 0 nor in allowed (0-terminated).
 */
int fz_result(enum fz_op op, int err, const int *allowed, const char *what);
/* What the module holds, from debugfs stats. */
struct fz_held {
	long jobs, ranks, ring_pages, pinned, regions, region_maps;
};

int fz_stats(struct fz_held *h);

/* A splitmix64 generator: one per thread, seeded from the run's seed. */
struct fz_rng {
	uint64_t s;
};

static inline uint64_t fz_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t fz_next(struct fz_rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return fz_mix(r->s);
}

static inline void fz_rng_init(struct fz_rng *r, uint64_t a, uint64_t b,
			       uint64_t c)
{
	r->s = fz_mix(fz_seed ^ fz_mix(a * 0x1000193ULL + 1) ^
		      fz_mix(b * 0x100000001b3ULL + 2) ^ fz_mix(c + 3));
}

/* Uniform in [0, n); n > 0. */
static inline uint64_t fz_below(struct fz_rng *r, uint64_t n)
{
	return fz_next(r) % n;
}

/* True with probability pct/100. */
static inline int fz_chance(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

void fz_worker(int index);

#endif /* MPICHAN_FUZZ_H */
