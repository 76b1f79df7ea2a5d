// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-fuzz: a worker process.  FZ_THREADS threads share a table of
 * /dev/mpichan fds (fresh, owner or rank) and pick weighted random
 * operations on them until the round ends.  Thread 0 alone closes
 * slots, carries honest ring traffic and drains completion queues;
 * the other threads work on dup()s of the slots' fds, so a close never
 * changes the file under them.  See Documentation/testing.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "worker.h"

struct fz_wstate W = { .lock = PTHREAD_MUTEX_INITIALIZER,
		       .winlock = PTHREAD_RWLOCK_INITIALIZER };
__thread sigjmp_buf fz_jb;
__thread volatile int fz_guarded;

static void on_fault(int sig)
{
	if (fz_guarded) {
		fz_guarded = 0;
		siglongjmp(fz_jb, sig);
	}
	signal(sig, SIG_DFL);	/* an unexpected fault: die of it */
}

/* The last unmaps of the process, to say who unmapped what. */
static struct { void *addr; size_t len; const char *tag; int thread; } unmaps[4096];
static unsigned int nunmaps;
static __thread int my_index;

int fz_munmap(void *addr, size_t len, const char *tag)
{
	unsigned int i = __atomic_fetch_add(&nunmaps, 1, __ATOMIC_RELAXED) % 4096;

	unmaps[i].addr = addr;
	unmaps[i].len = len;
	unmaps[i].tag = tag;
	unmaps[i].thread = my_index;
	return munmap(addr, len);
}

void fz_unmapped(const void *addr)
{
	unsigned int i;

	for (i = 0; i < 4096; i++)
		if (unmaps[i].tag && (const char *)addr >= (char *)unmaps[i].addr &&
		    (const char *)addr < (char *)unmaps[i].addr + unmaps[i].len)
			fz_log("  unmapped by thread %d: %s(%p, %zu)", unmaps[i].thread,
			       unmaps[i].tag, unmaps[i].addr, unmaps[i].len);
}

void op_begin(struct thr *t, enum fz_op op, int64_t limit_ns)
{
	t->op = op;
	t->op_limit = limit_ns + FZ_SLACK_NS;
	t->op_start = fz_now();
	__atomic_fetch_add(&fz->ops, 1, __ATOMIC_RELAXED);
}

void op_end(struct thr *t)
{
	t->op_start = 0;
}

/* ---- the slot table --------------------------------------------- */

/* A random used slot's fd, dup()ed (thread 0: the fd itself). */
int pick_slot(struct thr *t, int want_kind, struct slot *copy)
{
	int i, n = 0, cand[NSLOTS], fd;

	pthread_mutex_lock(&W.lock);
	for (i = 0; i < NSLOTS; i++)
		if (W.slots[i].kind != SL_FREE &&
		    (!want_kind || W.slots[i].kind == want_kind))
			cand[n++] = i;
	if (!n) {
		pthread_mutex_unlock(&W.lock);
		return -1;
	}
	i = cand[fz_below(&t->rng, n)];
	*copy = W.slots[i];
	fd = t->index ? dup(copy->fd) : copy->fd;
	pthread_mutex_unlock(&W.lock);
	if (fd < 0)
		return -1;
	copy->fd = fd;
	return i;
}

void put_slot(struct thr *t, struct slot *copy)
{
	if (t->index)
		close(copy->fd);
}

int add_slot(int fd, int kind, int job)
{
	int i;

	pthread_mutex_lock(&W.lock);
	for (i = 0; i < NSLOTS; i++) {
		if (W.slots[i].kind == SL_FREE) {
			memset(&W.slots[i], 0, sizeof(W.slots[i]));
			W.slots[i].kind = kind;
			W.slots[i].fd = fd;
			W.slots[i].job = job;
			W.slots[i].gen = ++W.gen;
			pthread_mutex_unlock(&W.lock);
			return i;
		}
	}
	pthread_mutex_unlock(&W.lock);
	return -1;
}

int add_job(uint64_t id, const uint64_t secret[2], uint32_t nranks)
{
	int j;

	pthread_mutex_lock(&W.lock);
	/* Never reused: a rank of an old job must keep its hostile flag. */
	if (W.njobs >= NJOBS - 1) {
		pthread_mutex_unlock(&W.lock);
		return -1;
	}
	j = 1 + W.njobs++;	/* 0 is the round's job */
	W.jobs[j].id = id;
	W.jobs[j].secret[0] = secret[0];
	W.jobs[j].secret[1] = secret[1];
	W.jobs[j].nranks = nranks;
	W.jobs[j].hostile = 0;
	pthread_mutex_unlock(&W.lock);
	return j;
}

/* The round's job is known to every worker: its flag is shared. */
int job_hostile(int j)
{
	return __atomic_load_n(j ? &W.jobs[j].hostile : &fz->round.hostile,
			       __ATOMIC_ACQUIRE);
}

/*
 * Before the first scribble: a full fence, so that a thread that reads
 * a scribbled byte and then the flag (check_header) sees the flag set.
 */
void set_hostile(int j)
{
	__atomic_store_n(j ? &W.jobs[j].hostile : &fz->round.hostile, 1,
			 __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void push_handle(struct thr *t, uint64_t h)
{
	uint64_t i = __atomic_fetch_add(&fz->handle_next, 1, __ATOMIC_RELAXED);

	fz->handles[i % FZ_HANDLES] = h;
	t->handles[t->nhandles++ % NQ] = h;
}

uint64_t any_handle(struct thr *t)
{
	switch (fz_below(&t->rng, 5)) {
	case 0:
		return fz->handles[fz_below(&t->rng, FZ_HANDLES)];
	case 1:
	case 2:
		return t->handles[fz_below(&t->rng, NQ)];
	case 3:
		return fz_below(&t->rng, 64);
	default:
		return fz_next(&t->rng);
	}
}

/* ---- ioctls, sometimes with a larger struct and a zero tail ------- */

int xioctl(struct thr *t, int fd, unsigned int nr, unsigned int dir,
		  void *arg, size_t size)
{
	static __thread unsigned char big[2 * PAGE];
	size_t bsize;
	unsigned long cmd;
	int ret, err;

	if (!arg || !fz_chance(&t->rng, 10)) {
		cmd = _IOC(dir, MPICHAN_IOC_MAGIC, nr, size);
		ret = ioctl(fd, cmd, arg);
		return ret < 0 ? errno : 0;
	}
	bsize = size + 1 + fz_below(&t->rng, PAGE - size);
	memset(big, (dir & _IOC_READ) ? 0xa5 : 0, bsize);
	memcpy(big, arg, size);
	memset(big + size, 0, (dir & _IOC_WRITE) ? bsize - size : 0);
	cmd = _IOC(dir, MPICHAN_IOC_MAGIC, nr, bsize);
	ret = ioctl(fd, cmd, big);
	err = ret < 0 ? errno : 0;
	memcpy(arg, big, size);
	if (!err && (dir & _IOC_READ)) {
		size_t i;

		for (i = size; i < bsize; i++)
			if (big[i]) {
				fz_fail("ioctl nr %u size %zu: tail byte %zu not zeroed",
					nr, bsize, i);
				break;
			}
	}
	return err;
}

/* ---- random arguments ------------------------------------------- */

int32_t rand_rank(struct thr *t, uint32_t nranks)
{
	switch (fz_below(&t->rng, 12)) {
	case 0: return MPICHAN_RANK_ANY;
	case 1: return MPICHAN_RANK_NONE;
	case 2: return (int32_t)nranks;
	case 3: return (int32_t)fz_next(&t->rng);
	default: return nranks ? (int32_t)fz_below(&t->rng, nranks) : 0;
	}
}

uint64_t rand_bad_ptr(struct thr *t)
{
	switch (fz_below(&t->rng, 6)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return KADDR;
	case 3: return NONCANON;
	case 4: return (uint64_t)(t->send + BUF_BYTES + 16);	/* guard */
	default: return fz_next(&t->rng);
	}
}

static uint64_t rand_len(struct thr *t)
{
	switch (fz_below(&t->rng, 10)) {
	case 0: return 0;
	case 1: return 1 + fz_below(&t->rng, 64);
	case 2: case 3: return PAGE * (1 + fz_below(&t->rng, 16));
	case 4: return fz_below(&t->rng, 256 << 10);
	default: return fz_below(&t->rng, 8192);
	}
}

/*
 * An iovec for SEND (area = send) or RECV (area = recv): mostly valid
 * segments, sometimes garbage.  Returns the iov pointer to pass.
 */
uint64_t rand_iov(struct thr *t, unsigned char *area, uint32_t *cnt,
			 uint64_t *total, const struct slot *s)
{
	struct mpichan_iovec *v;
	uint32_t n, i;
	uint64_t off, len;

	switch (fz_below(&t->rng, 12)) {
	case 0: n = 0; break;
	case 1: n = MPICHAN_IOV_MAX - fz_below(&t->rng, 2); break;
	case 2: n = MPICHAN_IOV_MAX + 1 + fz_below(&t->rng, 2) *
		(uint32_t)fz_next(&t->rng); break;
	case 3: case 4: n = 2 + fz_below(&t->rng, 7); break;
	default: n = 1;
	}
	*cnt = n;
	*total = 0;
	if (n > MPICHAN_IOV_MAX)
		return (uint64_t)t->iov;
	/* Sometimes the array ends right at the guard page. */
	v = fz_chance(&t->rng, 20) ?
		(struct mpichan_iovec *)((unsigned char *)t->iov + IOV_BYTES -
					 n * sizeof(*v)) : t->iov;
	if (fz_chance(&t->rng, 3))
		v = (struct mpichan_iovec *)((unsigned char *)v + 1 +
					     fz_below(&t->rng, 15));
	if ((unsigned char *)(v + n) > (unsigned char *)t->iov + IOV_BYTES)
		v = t->iov;
	for (i = 0; i < n; i++) {
		len = rand_len(t);
		if (len > BUF_BYTES)
			len = BUF_BYTES;
		if (n > 8 && len > 8192)
			len = 8192;	/* a thousand segments: keep the copy short */
		off = fz_below(&t->rng, BUF_BYTES - len + 1);
		if (fz_chance(&t->rng, 50))
			off &= ~(PAGE - 1);
		v[i].base = (uint64_t)(area + off);
		v[i].len = len;
		if (fz_chance(&t->rng, 4)) {
			switch (fz_below(&t->rng, 8)) {
			case 0: v[i].base = rand_bad_ptr(t); break;
			case 1: v[i].len = ~0ULL - fz_below(&t->rng, 2); break;
			case 2: v[i].len = (1ULL << 31) + fz_below(&t->rng, PAGE); break;
			case 3: v[i].len = BUF_BYTES + GUARD; break;	/* into the guard */
			case 4:
				if (s && s->ep.map) {
					/* The kernel may write the job's pages. */
					if (area != t->send)
						set_hostile(s->job);
					v[i].base = (uint64_t)s->ep.map +
						fz_below(&t->rng, 4) * PAGE;
					v[i].len = fz_below(&t->rng, 2 * PAGE);
				}
				break;
			case 5:
				if (s && s->win) {
					v[i].base = (uint64_t)s->win;
					v[i].len = 1 + fz_below(&t->rng, 2 * PAGE);
				}
				break;
			case 6:
				v[i].base = (uint64_t)t->ro;
				v[i].len = 1 + fz_below(&t->rng, PAGE);
				break;
			default:
				v[i].len = (1ULL << 62) / 2;
			}
		}
		*total += v[i].len;
	}
	if (fz_chance(&t->rng, 3))
		return rand_bad_ptr(t);
	return (uint64_t)v;
}

/* ---- the threads -------------------------------------------------- */

struct weighted {
	void (*fn)(struct thr *t);
	unsigned int w;
	int thread0;		/* only thread 0 may do it */
};

static void do_winmap(struct thr *t) { do_mmap(t, 1); }
static void do_jobmap(struct thr *t) { do_mmap(t, 0); }
static void do_cancel(struct thr *t) { do_cancel_unmap(t, 0); }
static void do_unmap(struct thr *t) { do_cancel_unmap(t, 1); }

static const struct weighted ops[] = {
	{ do_open, 6, 0 }, { do_close, 3, 1 }, { do_version, 1, 0 },
	{ do_create, 4, 0 }, { do_attach, 8, 0 }, { do_wait, 6, 0 },
	{ do_wake, 4, 0 }, { do_finish, 1, 0 }, { do_send, 14, 0 },
	{ do_recv, 14, 0 }, { do_cancel, 5, 0 }, { do_unmap, 3, 0 },
	{ do_badioctl, 3, 0 }, { do_badarg, 2, 0 }, { do_jobmap, 4, 0 },
	{ do_winmap, 4, 0 }, { do_munmap, 4, 0 }, { do_mprotect, 3, 0 },
	{ do_mremap, 2, 0 }, { do_touch, 4, 0 }, { do_poll, 3, 0 },
	{ do_debugfs, 2, 0 }, { do_scribble, 6, 0 }, { do_ring, 12, 1 },
	{ do_sleep_cq, 6, 1 }, { do_fork, 1, 0 },
	{ do_regreg, 4, 0 }, { do_regdereg, 2, 0 }, { do_regcopy, 8, 0 },
	{ do_regmap, 3, 0 }, { do_regquery, 2, 0 }, { do_regmem, 2, 0 },
};

static int keep_going(void)
{
	int64_t now = fz_now();

	if (fz->failed || W.closing)
		return 0;
	if (fz->iterations && fz->ops >= fz->iterations)
		return 0;
	return now < fz->round.end_ns && now < fz->deadline_ns;
}

static void close_all(struct thr *t)
{
	int i;

	for (i = 0; i < NMAPS; i++)
		if (t->maps[i].addr)
			drop_map(&t->maps[i]);
	for (i = 0; i < NSLOTS; i++)
		if (fz_chance(&t->rng, 50))
			close_slot(i);
	for (i = 0; i < NSLOTS; i++)
		close_slot(i);
}

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	unsigned int total = 0, i, x;
	uint64_t n = 0, exit_at = fz_below(&t->rng, 2000);

	my_index = t->index;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		total += ops[i].w;
	while (keep_going()) {
		if (W.exit_thread == t->index && n++ == exit_at) {
			op_begin(t, OP_EXIT, 0);
			fz_result(OP_EXIT, 0, NULL, "exit");
			_exit(0);	/* the other threads are mid-call */
		}
		x = fz_below(&t->rng, total);
		for (i = 0; x >= ops[i].w; i++)
			x -= ops[i].w;
		if (ops[i].thread0 && t->index)
			continue;
		ops[i].fn(t);
	}
	/* The end: every thread closes every fd at once. */
	if (W.closing)
		close_all(t);
	return NULL;
}

static void *watchdog(void *arg)
{
	char path[64];
	int i;

	(void)arg;
	for (;;) {
		usleep(200 * 1000);
		for (i = 0; i < FZ_THREADS; i++) {
			struct thr *t = &W.thr[i];
			int64_t start = t->op_start;

			if (!start || fz_now() - start <= t->op_limit)
				continue;
			fz_fail("worker %d thread %d: %s has not returned after %lld ms",
				W.index, i, fz_op_name[t->op],
				(long long)((fz_now() - start) / FZ_MS));
			snprintf(path, sizeof(path), "cat /proc/%d/task/*/stack >&2",
				 getpid());
			if (system(path))
				path[0] = 0;
			_exit(3);
		}
	}
	return NULL;
}

static void setup_thread(struct thr *t, int index)
{
	size_t total = 3 * (BUF_BYTES + GUARD) + IOV_BYTES + GUARD + PAGE;
	uint64_t i;

	t->index = index;
	fz_rng_init(&t->rng, fz->round.number, W.index, index);
	t->arena = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->arena == MAP_FAILED) {
		fz_fail("worker %d: no memory for the arena", W.index);
		_exit(1);
	}
	t->send = t->arena;
	t->recv = t->send + BUF_BYTES + GUARD;
	t->verify = t->recv + BUF_BYTES + GUARD;
	t->iov = (struct mpichan_iovec *)(t->verify + BUF_BYTES + GUARD);
	t->ro = (unsigned char *)t->iov + IOV_BYTES + GUARD;
	mprotect(t->send, BUF_BYTES, PROT_READ | PROT_WRITE);
	mprotect(t->recv, BUF_BYTES, PROT_READ | PROT_WRITE);
	mprotect(t->verify, BUF_BYTES, PROT_READ | PROT_WRITE);
	mprotect(t->iov, IOV_BYTES, PROT_READ | PROT_WRITE);
	for (i = 0; i < BUF_BYTES; i += 8)
		*(uint64_t *)(t->send + i) = PAT_MAGIC | i;
	/* The pattern stays as it is: the mapped receive checks it. */
	mprotect(t->send, BUF_BYTES, PROT_READ);
	mprotect(t->ro, PAGE, PROT_READ);
	/*
	 * A guard after the arena: the largest registrations start in it
	 * (region.c) and must stop there, not pin on into whatever lies
	 * above, a job's mapping among them, whose pages a pin allocates
	 * (4 GiB of them ended a run in the OOM killer).
	 */
	t->rgn = mmap(NULL, RGN_BYTES + GUARD, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->rgn != MAP_FAILED)
		mprotect(t->rgn + RGN_BYTES, GUARD, PROT_NONE);
	t->rcopy = calloc(RCOPY_MAX, sizeof(*t->rcopy));
	if (t->rgn == MAP_FAILED || !t->rcopy) {
		fz_fail("worker %d: no memory for regions", W.index);
		_exit(1);
	}
	memset(t->rgn, 0x3c, RGN_BYTES);
}

/* Less privilege for some workers: pinning charged, or another user. */
static void pick_role(struct fz_rng *rng)
{
	if (geteuid())
		return;
	if (fz_chance(rng, 15)) {
		cap_t caps = cap_get_proc();
		cap_value_t v = CAP_IPC_LOCK;
		struct rlimit rl = { 64 << 10, 64 << 10 };

		rl.rlim_cur = rl.rlim_max = (64 << 10) << fz_below(rng, 6);
		if (caps && !cap_set_flag(caps, CAP_EFFECTIVE, 1, &v, CAP_CLEAR))
			cap_set_proc(caps);
		cap_free(caps);
		setrlimit(RLIMIT_MEMLOCK, &rl);
	} else if (fz_chance(rng, 10)) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			fz_log("worker %d: could not become nobody", W.index);
	}
}

void fz_worker(int index)
{
	struct fz_rng rng;
	struct sigaction sa;
	pthread_t wd;
	int i;

	W.index = index;
	fz_rng_init(&rng, fz->round.number, index, 1000);
	W.jobs[0].id = fz->round.job_id;
	W.jobs[0].secret[0] = fz->round.secret[0];
	W.jobs[0].secret[1] = fz->round.secret[1];
	W.jobs[0].nranks = fz->round.nranks;
	W.jobs[0].hostile = fz->round.hostile;
	W.exit_thread = fz_chance(&rng, 15) ? (int)fz_below(&rng, FZ_THREADS) : -1;
	W.closing = 0;
	/* Keep the owner fd now and then: it can map the job read-only. */
	if (fz_chance(&rng, 80) || add_slot(fz_owner_fd, SL_OWNER, 0) < 0)
		close(fz_owner_fd);
	pick_role(&rng);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);

	for (i = 0; i < FZ_THREADS; i++)
		setup_thread(&W.thr[i], i);
	pthread_create(&wd, NULL, watchdog, NULL);
	for (i = 1; i < FZ_THREADS; i++)
		pthread_create(&W.thr[i].tid, NULL, thread_main, &W.thr[i]);
	thread_main(&W.thr[0]);

	switch (fz_below(&rng, 3)) {
	case 0:		/* all threads close everything at once */
		W.closing = 1;
		close_all(&W.thr[0]);
		for (i = 1; i < FZ_THREADS; i++)
			pthread_join(W.thr[i].tid, NULL);
		break;
	case 1:		/* finish, then exit with everything open */
		for (i = 0; i < NSLOTS; i++)
			if (W.slots[i].kind == SL_RANK)
				ioctl(W.slots[i].fd, MPICHAN_IOC_FINISH);
		break;
	default:	/* exit while the others are still in their calls */
		break;
	}
	_exit(fz->failed ? 1 : 0);
}
