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
#include <dirent.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "fuzz.h"
#include "mpichan_ring.h"

#define PAGE		4096UL
#define NSLOTS		12
#define NJOBS		8
#define NMAPS		6
#define NQ		32
#define BUF_BYTES	(1UL << 20)	/* send pattern, receive, verify areas */
#define GUARD		(64UL << 10)
#define IOV_BYTES	(5 * PAGE)	/* > MPICHAN_IOV_MAX + 1 entries */
#define KADDR		0xffffffff81000000ULL
#define NONCANON	0x8000000000000000ULL
#define PAT_MAGIC	0x5aa55aa5c3000000ULL

enum { SL_FREE, SL_FRESH, SL_OWNER, SL_RANK };

struct job_ref {
	uint64_t id, secret[2];
	uint32_t nranks;
	int hostile;		/* someone may scribble: no ring checks */
};

struct slot {
	int kind, fd, job;
	unsigned int gen;
	struct mpichan_ep ep;	/* rank: the main mapping (thread 0's) */
	void *win;		/* the rank's receive window, if mapped */
	size_t win_len;
};

struct tmap {
	unsigned char *addr;
	size_t len;
	int prot, window;
};

struct thr {
	int index;
	pthread_t tid;
	struct fz_rng rng;
	unsigned char *arena;	/* send | guard | recv | guard | verify | guard | iov | guard */
	unsigned char *send, *recv, *verify, *ro;
	struct mpichan_iovec *iov;	/* IOV_BYTES, a guard page after */
	struct tmap maps[NMAPS];
	uint64_t handles[NQ];
	unsigned int nhandles;
	volatile int64_t op_start;
	volatile int64_t op_limit;
	volatile int op;
	int touches;
};

static struct {
	pthread_mutex_t lock;
	struct slot slots[NSLOTS];
	struct job_ref jobs[NJOBS];
	unsigned int njobs, gen;
	int index;
	int closing;		/* concurrent close at the end */
	int exit_thread;	/* this thread _exit()s mid-work; -1 none */
	struct thr thr[FZ_THREADS];
} W = { .lock = PTHREAD_MUTEX_INITIALIZER };

extern int fz_owner_fd;

static __thread sigjmp_buf fz_jb;
static __thread volatile int fz_guarded;

static const int E_OPEN[] = { ENOMEM, EMFILE, ENFILE, 0 };
static const int E_CREATE[] = { EINVAL, EISCONN, ENOMEM, EFAULT, 0 };
static const int E_ATTACH[] = { ENOENT, EPERM, EACCES, ERANGE, EBUSY,
				EISCONN, EINVAL, ENOMEM, EFAULT, 0 };
static const int E_WAIT[] = { ENOTCONN, EBADFD, EINVAL, ERANGE, ETIMEDOUT,
			      EINTR, EPIPE, EFAULT, 0 };
static const int E_WAKE[] = { ENOTCONN, EBADFD, EINVAL, ERANGE, EFAULT, 0 };
static const int E_FINISH[] = { ENOTCONN, EBADFD, 0 };
static const int E_SEND[] = { ENOTCONN, EBADFD, EINVAL, ERANGE, EFAULT,
			      ENOMEM, EPIPE, EAGAIN, 0 };
static const int E_RECV[] = { ENOTCONN, EBADFD, EINVAL, ERANGE, EFAULT,
			      ENOMEM, EPIPE, EAGAIN, ENOENT, ENOMSG, 0 };
static const int E_CANCEL[] = { ENOTCONN, EBADFD, EINVAL, ENOENT, EFAULT, 0 };
static const int E_MMAP[] = { EINVAL, EPERM, EACCES, ENXIO, EBADFD, ENOMEM,
			      EBUSY, EOVERFLOW, 0 };
static const int E_MUNMAP[] = { EINVAL, 0 };
static const int E_MPROTECT[] = { EACCES, EINVAL, ENOMEM, 0 };
static const int E_MREMAP[] = { EINVAL, EFAULT, ENOMEM, EAGAIN, 0 };
static const int E_POLL[] = { EINTR, ENOMEM, 0 };
static const int E_DEBUGFS[] = { ENOENT, EACCES, EPERM, 0 };
static const int E_RING[] = { EAGAIN, 0 };
static const int E_RING_HOSTILE[] = { EAGAIN, EBADMSG, 0 };
static const int E_TOUCH[] = { EFAULT, 0 };	/* a guarded fault */
static const int E_FORK[] = { EAGAIN, ENOMEM, 0 };

static void on_fault(int sig)
{
	if (fz_guarded) {
		fz_guarded = 0;
		siglongjmp(fz_jb, sig);
	}
	signal(sig, SIG_DFL);	/* an unexpected fault: die of it */
}

/* Run stmt; a SIGSEGV/SIGBUS inside makes it evaluate to the signal. */
#define GUARDED(stmt) ({						\
	int __sig = sigsetjmp(fz_jb, 1);				\
	if (!__sig) {							\
		fz_guarded = 1;						\
		stmt;							\
		fz_guarded = 0;						\
	}								\
	__sig;								\
})

static void op_begin(struct thr *t, enum fz_op op, int64_t limit_ns)
{
	t->op = op;
	t->op_limit = limit_ns + FZ_SLACK_NS;
	t->op_start = fz_now();
	__atomic_fetch_add(&fz->ops, 1, __ATOMIC_RELAXED);
}

static void op_end(struct thr *t)
{
	t->op_start = 0;
}

/* ---- the slot table --------------------------------------------- */

/* A random used slot's fd, dup()ed (thread 0: the fd itself). */
static int pick_slot(struct thr *t, int want_kind, struct slot *copy)
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

static void put_slot(struct thr *t, struct slot *copy)
{
	if (t->index)
		close(copy->fd);
}

static int add_slot(int fd, int kind, int job)
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

static int add_job(uint64_t id, const uint64_t secret[2], uint32_t nranks)
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
static int job_hostile(int j)
{
	return __atomic_load_n(j ? &W.jobs[j].hostile : &fz->round.hostile,
			       __ATOMIC_ACQUIRE);
}

static void set_hostile(int j)
{
	__atomic_store_n(j ? &W.jobs[j].hostile : &fz->round.hostile, 1,
			 __ATOMIC_RELEASE);
}

static void push_handle(struct thr *t, uint64_t h)
{
	uint64_t i = __atomic_fetch_add(&fz->handle_next, 1, __ATOMIC_RELAXED);

	fz->handles[i % FZ_HANDLES] = h;
	t->handles[t->nhandles++ % NQ] = h;
}

static uint64_t any_handle(struct thr *t)
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

static int xioctl(struct thr *t, int fd, unsigned int nr, unsigned int dir,
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

static int32_t rand_rank(struct thr *t, uint32_t nranks)
{
	switch (fz_below(&t->rng, 12)) {
	case 0: return MPICHAN_RANK_ANY;
	case 1: return MPICHAN_RANK_NONE;
	case 2: return (int32_t)nranks;
	case 3: return (int32_t)fz_next(&t->rng);
	default: return nranks ? (int32_t)fz_below(&t->rng, nranks) : 0;
	}
}

static uint64_t rand_bad_ptr(struct thr *t)
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
static uint64_t rand_iov(struct thr *t, unsigned char *area, uint32_t *cnt,
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

/* ---- ioctl operations ------------------------------------------- */

static void do_open(struct thr *t)
{
	int flags = O_RDWR | (fz_chance(&t->rng, 50) ? O_CLOEXEC : 0) |
		(fz_chance(&t->rng, 20) ? O_NONBLOCK : 0);
	int fd;

	op_begin(t, OP_OPEN, 0);
	fd = open(MPICHAN_DEVICE, flags);
	op_end(t);
	if (fz_result(OP_OPEN, fd < 0 ? errno : 0, E_OPEN, "open"))
		return;
	if (fd >= 0 && add_slot(fd, SL_FRESH, -1) < 0)
		close(fd);
}

static void close_slot(int i)
{
	struct slot s;

	pthread_mutex_lock(&W.lock);
	s = W.slots[i];
	W.slots[i].kind = SL_FREE;
	W.slots[i].ep.map = NULL;
	W.slots[i].win = NULL;
	pthread_mutex_unlock(&W.lock);
	if (s.kind == SL_FREE)
		return;
	/* The window is left to whichever thread mapped it. */
	if (s.ep.map)
		munmap(s.ep.map, s.ep.off.map_size);
	close(s.fd);
}

static void do_close(struct thr *t)
{
	struct slot s;
	int i = pick_slot(t, 0, &s);

	if (i < 0)
		return;
	op_begin(t, OP_CLOSE, 0);
	if (fz_chance(&t->rng, 30) && s.kind == SL_RANK) {
		int err = ioctl(s.fd, MPICHAN_IOC_FINISH) ? errno : 0;

		fz_result(OP_FINISH, err, E_FINISH, "finish before close");
	}
	close_slot(i);
	op_end(t);
	fz_result(OP_CLOSE, 0, NULL, "close");
}

static void do_version(struct thr *t)
{
	struct mpichan_version v;
	struct slot s;
	int err;

	if (pick_slot(t, 0, &s) < 0)
		return;
	memset(&v, 0, sizeof(v));
	op_begin(t, OP_VERSION, 0);
	err = xioctl(t, s.fd, 0x00, _IOC_READ, &v, sizeof(v));
	op_end(t);
	put_slot(t, &s);
	if (!fz_result(OP_VERSION, err, (const int[]){ 0 }, "VERSION") && !err &&
	    (v.abi_version != MPICHAN_ABI_VERSION || v.max_ranks != 1024 ||
	     v.features != (MPICHAN_FEAT_RNDV | MPICHAN_FEAT_WINDOW)))
		fz_fail("VERSION: abi %u max_ranks %u features %llx", v.abi_version,
			v.max_ranks, (unsigned long long)v.features);
}

static void do_create(struct thr *t)
{
	static const uint32_t rb[] = { 0, 4096, 8192, 16384, 65536, 1 << 20,
				       4095, 3 * 4096, 1 << 21, 2048 };
	struct mpichan_job_create c;
	struct slot s;
	int i, err;

	i = pick_slot(t, fz_chance(&t->rng, 80) ? SL_FRESH : 0, &s);
	if (i < 0)
		return;
	memset(&c, 0, sizeof(c));
	switch (fz_below(&t->rng, 10)) {
	case 0:
		c.nranks = (uint32_t)fz_next(&t->rng);
		c.ring_bytes = (uint32_t)fz_next(&t->rng);
		break;
	case 1:
		c.nranks = 1024 + fz_below(&t->rng, 2) - fz_below(&t->rng, 2);
		c.ring_bytes = rb[fz_below(&t->rng, 10)];
		break;
	case 2:
		c.nranks = fz_below(&t->rng, 3);
		c.ring_bytes = rb[fz_below(&t->rng, 10)];
		c.flags = fz_chance(&t->rng, 50) ? 1u << fz_below(&t->rng, 32) : 0;
		c.pad = c.flags ? 0 : (uint32_t)fz_next(&t->rng);
		break;
	default:
		c.nranks = 1 + fz_below(&t->rng, 6);
		c.ring_bytes = rb[fz_below(&t->rng, 5)];
	}
	op_begin(t, OP_CREATE, 0);
	err = xioctl(t, s.fd, 0x01, _IOC_READ | _IOC_WRITE, &c, sizeof(c));
	op_end(t);
	if (!fz_result(OP_CREATE, err, E_CREATE, "JOB_CREATE") && !err) {
		int j = add_job(c.job_id, (uint64_t *)c.secret, c.nranks);

		pthread_mutex_lock(&W.lock);
		if (W.slots[i].gen == s.gen && W.slots[i].kind == SL_FRESH) {
			W.slots[i].kind = SL_OWNER;
			W.slots[i].job = j;
		}
		pthread_mutex_unlock(&W.lock);
	}
	put_slot(t, &s);
}

/* The header a rank sees must be the kernel's, unless someone scribbles. */
static void check_header(const struct mpichan_attach *a, const void *map,
			 uint64_t id, int j)
{
	const struct mpichan_job_hdr *h = map;

	if (job_hostile(j))
		return;
	if (h->magic != MPICHAN_JOB_MAGIC || h->abi_version != MPICHAN_ABI_VERSION ||
	    h->job_id != id || h->nranks != a->nranks ||
	    h->ring_cells != a->ring_cells ||
	    memcmp(&h->off, &a->off, sizeof(a->off)))
		fz_fail("job %llu: header after ATTACH: magic %x abi %u id %llu nranks %u/%u",
			(unsigned long long)id, h->magic, h->abi_version,
			(unsigned long long)h->job_id, h->nranks, a->nranks);
}

static void do_attach(struct thr *t)
{
	struct mpichan_attach a;
	struct job_ref job;
	struct slot s;
	void *map;
	int i, j, err, right = 1;

	i = pick_slot(t, fz_chance(&t->rng, 75) ? SL_FRESH : 0, &s);
	if (i < 0)
		return;
	pthread_mutex_lock(&W.lock);
	j = fz_chance(&t->rng, 60) || !W.njobs ? 0 :
		1 + (int)fz_below(&t->rng, W.njobs < NJOBS - 1 ? W.njobs : NJOBS - 1);
	job = W.jobs[j];
	pthread_mutex_unlock(&W.lock);
	memset(&a, 0, sizeof(a));
	a.job_id = job.id;
	a.secret[0] = job.secret[0];
	a.secret[1] = job.secret[1];
	if (j == 0 && fz_chance(&t->rng, 70) && fz->round.nworkers <= (int)job.nranks)
		a.rank = W.index + fz->round.nworkers *
			fz_below(&t->rng, (job.nranks - W.index + fz->round.nworkers - 1) /
				 fz->round.nworkers);
	else
		a.rank = fz_below(&t->rng, job.nranks + 1);
	switch (fz_below(&t->rng, 12)) {
	case 0: a.job_id = fz_below(&t->rng, 2) ? 0 : fz_next(&t->rng); right = 0; break;
	case 1: a.secret[fz_below(&t->rng, 2)] ^= 1ULL << fz_below(&t->rng, 64); right = 0; break;
	case 2: a.rank = (uint32_t)fz_next(&t->rng); break;
	case 3: a.flags = 1; right = 0; break;
	case 4: a.job_id += 1ULL << 32; right = 0; break;
	}
	op_begin(t, OP_ATTACH, 0);
	err = xioctl(t, s.fd, 0x02, _IOC_READ | _IOC_WRITE, &a, sizeof(a));
	op_end(t);
	if (fz_result(OP_ATTACH, err, E_ATTACH, "ATTACH") || err)
		goto out;
	if (!right)
		fz_fail("ATTACH with a wrong id, secret or flags succeeded");
	if (a.nranks != job.nranks || a.ring_cells * 64 != a.off.ring_bytes ||
	    a.off.map_size < a.off.ring_data)
		fz_fail("ATTACH: nranks %u (job %u) ring_cells %u ring_bytes %llu",
			a.nranks, job.nranks, a.ring_cells,
			(unsigned long long)a.off.ring_bytes);
	map = mmap(NULL, a.off.map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   s.fd, 0);
	if (map == MAP_FAILED) {
		fz_result(OP_MMAP, errno, (const int[]){ ENOMEM, 0 },
			  "mmap right after ATTACH");
		goto out;
	}
	check_header(&a, map, job.id, j);
	pthread_mutex_lock(&W.lock);
	if (W.slots[i].gen == s.gen && W.slots[i].kind != SL_FREE &&
	    !W.slots[i].ep.map) {
		struct slot *sl = &W.slots[i];

		sl->kind = SL_RANK;
		sl->job = j;
		sl->ep.fd = sl->fd;
		sl->ep.rank = a.rank;
		sl->ep.nranks = a.nranks;
		sl->ep.ring_cells = a.ring_cells;
		sl->ep.map = map;
		sl->ep.off = a.off;
		map = NULL;
	}
	pthread_mutex_unlock(&W.lock);
	if (map)
		munmap(map, a.off.map_size);
out:
	put_slot(t, &s);
}

static int64_t rand_timeout(struct thr *t)
{
	static const int64_t to[] = { 0, 0, 0, 1000, 100000, FZ_MS, 5 * FZ_MS,
				      20 * FZ_MS };

	return to[fz_below(&t->rng, 8)];
}

static void do_wait(struct thr *t)
{
	struct mpichan_wait w;
	struct slot s;
	int64_t t0, dt;
	int err;

	if (pick_slot(t, fz_chance(&t->rng, 80) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&w, 0, sizeof(w));
	w.timeout_ns = rand_timeout(t);
	w.peer = rand_rank(t, s.kind == SL_RANK ? s.ep.nranks : 4);
	if (fz_chance(&t->rng, 4))
		w.flags = 1u << fz_below(&t->rng, 32);
	if (fz_chance(&t->rng, 4))
		w.pad = 1;
	op_begin(t, OP_WAIT, w.timeout_ns);
	t0 = fz_now();
	err = xioctl(t, s.fd, 0x03, _IOC_READ | _IOC_WRITE, &w, sizeof(w));
	dt = fz_now() - t0;
	op_end(t);
	put_slot(t, &s);
	fz_result(OP_WAIT, err, E_WAIT, "WAIT");
	if (dt > w.timeout_ns + FZ_SLACK_NS)
		fz_fail("WAIT(timeout %lld ns) took %lld ns", (long long)w.timeout_ns,
			(long long)dt);
}

static void do_wake(struct thr *t)
{
	struct mpichan_wake w;
	struct slot s;
	int err;

	if (pick_slot(t, fz_chance(&t->rng, 80) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&w, 0, sizeof(w));
	w.rank = (uint32_t)rand_rank(t, s.kind == SL_RANK ? s.ep.nranks : 4);
	if (fz_chance(&t->rng, 5))
		w.flags = (uint32_t)fz_next(&t->rng) | 1;
	op_begin(t, OP_WAKE, 0);
	err = xioctl(t, s.fd, 0x04, _IOC_WRITE, &w, sizeof(w));
	op_end(t);
	put_slot(t, &s);
	fz_result(OP_WAKE, err, E_WAKE, "WAKE");
}

static void do_finish(struct thr *t)
{
	struct slot s;
	int err;

	if (pick_slot(t, 0, &s) < 0)
		return;
	op_begin(t, OP_FINISH, 0);
	err = ioctl(s.fd, MPICHAN_IOC_FINISH) ? errno : 0;
	op_end(t);
	put_slot(t, &s);
	fz_result(OP_FINISH, err, E_FINISH, "FINISH");
}

static void do_send(struct thr *t)
{
	struct mpichan_send m;
	struct slot s;
	uint64_t total;
	int err;

	if (pick_slot(t, fz_chance(&t->rng, 90) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&m, 0, sizeof(m));
	m.iov = rand_iov(t, t->send, &m.iovcnt, &total, &s);
	if (fz_chance(&t->rng, 30) && m.iov == (uint64_t)t->iov) {
		/* One whole-page segment: the window path's favourite. */
		uint64_t pages = 1 + fz_below(&t->rng, 16);

		t->iov[0].base = (uint64_t)(t->send + PAGE *
			fz_below(&t->rng, BUF_BYTES / PAGE - pages));
		t->iov[0].len = pages * PAGE - (fz_chance(&t->rng, 30) ? 8 : 0);
		m.iovcnt = 1;
		total = t->iov[0].len;
	}
	m.dst = (uint32_t)rand_rank(t, s.kind == SL_RANK ? s.ep.nranks : 4);
	m.context = fz_below(&t->rng, 3);
	m.tag = fz_chance(&t->rng, 5) ? -(int32_t)fz_below(&t->rng, 3) - 1 :
		(int32_t)fz_below(&t->rng, 4);
	m.user_data = fz_next(&t->rng);
	if (fz_chance(&t->rng, 4))
		m.flags = 1u << fz_below(&t->rng, 32);
	op_begin(t, OP_SEND, 0);
	err = xioctl(t, s.fd, 0x06, _IOC_READ | _IOC_WRITE, &m, sizeof(m));
	op_end(t);
	put_slot(t, &s);
	if (fz_result(OP_SEND, err, E_SEND, "SEND") || err)
		return;
	if (m.status == MPICHAN_XFER_QUEUED)
		push_handle(t, m.handle);
	else if (m.status != MPICHAN_XFER_DONE || m.len > total)
		fz_fail("SEND: status %u len %llu of %llu", m.status,
			(unsigned long long)m.len, (unsigned long long)total);
}

/* Bytes of a one-segment send from a send area: word at o is PAT_MAGIC|o. */
static void verify_pattern(const unsigned char *buf, uint64_t len)
{
	uint64_t w0, w, i, base;

	if (len < 16)
		return;
	memcpy(&w0, buf, 8);
	if ((w0 & ~0xffffffULL) != PAT_MAGIC)
		return;		/* not from a send area, or unaligned */
	base = w0 & 0xffffff;
	for (i = 8; i + 8 <= len; i += 8) {
		memcpy(&w, buf + i, 8);
		if (w != (PAT_MAGIC | (base + i))) {
			fz_fail("mapped receive: byte %llu of %llu is %016llx, want %016llx",
				(unsigned long long)i, (unsigned long long)len,
				(unsigned long long)w,
				(unsigned long long)(PAT_MAGIC | (base + i)));
			return;
		}
	}
}

static void do_recv(struct thr *t)
{
	static const uint32_t fl[] = { 0, MPICHAN_RECV_NOQUEUE, MPICHAN_RECV_MAP,
		MPICHAN_RECV_MAP | MPICHAN_RECV_NOQUEUE, MPICHAN_RECV_HANDLE,
		MPICHAN_RECV_HANDLE | MPICHAN_RECV_MAP };
	struct mpichan_recv r;
	struct slot s;
	uint64_t total;
	int err, verify = 0, sig;
	unsigned char *win;

	if (pick_slot(t, fz_chance(&t->rng, 90) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&r, 0, sizeof(r));
	r.flags = fl[fz_below(&t->rng, 6)];
	if (fz_chance(&t->rng, 3))
		r.flags |= 1u << fz_below(&t->rng, 32);
	if ((r.flags & (MPICHAN_RECV_NOQUEUE | MPICHAN_RECV_HANDLE)) &&
	    !(r.flags & ~7u) && fz_chance(&t->rng, 60)) {
		/* Never queued, so nothing else writes the verify area. */
		t->iov[0].base = (uint64_t)t->verify;
		t->iov[0].len = BUF_BYTES - fz_below(&t->rng, 2) * fz_below(&t->rng, BUF_BYTES);
		r.iov = (uint64_t)t->iov;
		r.iovcnt = 1;
		total = t->iov[0].len;
		verify = 1;
	} else {
		r.iov = rand_iov(t, t->recv, &r.iovcnt, &total, &s);
	}
	r.src = rand_rank(t, s.kind == SL_RANK ? s.ep.nranks : 4);
	if (r.src == MPICHAN_RANK_NONE && fz_chance(&t->rng, 50))
		r.src = MPICHAN_RANK_ANY;
	r.context = fz_below(&t->rng, 3);
	r.tag = fz_chance(&t->rng, 30) ? MPICHAN_TAG_ANY :
		fz_chance(&t->rng, 5) ? -2 - (int32_t)fz_below(&t->rng, 5) :
		(int32_t)fz_below(&t->rng, 4);
	r.user_data = fz_next(&t->rng);
	r.handle = any_handle(t);
	op_begin(t, OP_RECV, 0);
	err = xioctl(t, s.fd, 0x07, _IOC_READ | _IOC_WRITE, &r, sizeof(r));
	op_end(t);
	if (fz_result(OP_RECV, err, E_RECV, "RECV") || err)
		goto out;
	switch (r.status) {
	case MPICHAN_XFER_QUEUED:
		push_handle(t, r.handle);
		break;
	case MPICHAN_XFER_DONE:
		if (r.len > total || r.len > r.msg_len || r.msg_src < 0 ||
		    (s.kind == SL_RANK && r.msg_src >= (int32_t)s.ep.nranks) ||
		    r.msg_tag < 0)
			fz_fail("RECV DONE: len %llu msg_len %llu of %llu, src %d tag %d",
				(unsigned long long)r.len, (unsigned long long)r.msg_len,
				(unsigned long long)total, r.msg_src, r.msg_tag);
		break;
	case MPICHAN_XFER_MAPPED:
		if (!(r.flags & MPICHAN_RECV_MAP) || r.map_len % PAGE ||
		    !r.map_len || r.map_off + r.map_len > r.len || r.len > total ||
		    r.len > r.msg_len)
			fz_fail("RECV MAPPED: map_off %llu map_len %llu len %llu msg_len %llu of %llu",
				(unsigned long long)r.map_off, (unsigned long long)r.map_len,
				(unsigned long long)r.len, (unsigned long long)r.msg_len,
				(unsigned long long)total);
		pthread_mutex_lock(&W.lock);
		win = NULL;
		for (int i = 0; i < NSLOTS; i++)
			if (W.slots[i].gen == s.gen && W.slots[i].kind == SL_RANK)
				win = W.slots[i].win;
		pthread_mutex_unlock(&W.lock);
		if (win && verify && r.map_off + r.map_len <= total) {
			sig = GUARDED(memcpy(t->verify + r.map_off, win, r.map_len));
			if (!sig)
				verify_pattern(t->verify, r.len);
			fz_result(OP_WINTOUCH, sig ? EFAULT : 0, E_TOUCH, "copy out of the window");
		}
		if (fz_chance(&t->rng, 90)) {
			struct mpichan_unmap u = { .handle = r.handle };

			op_begin(t, OP_UNMAP, 0);
			err = xioctl(t, s.fd, 0x09, _IOC_WRITE, &u, sizeof(u));
			op_end(t);
			/* Another thread may have guessed the handle first. */
			fz_result(OP_UNMAP, err, (const int[]){ ENOENT, 0 }, "UNMAP after MAPPED");
		}
		break;
	default:
		fz_fail("RECV: status %u", r.status);
	}
out:
	put_slot(t, &s);
}

static void do_cancel_unmap(struct thr *t, int unmap)
{
	struct mpichan_cancel c;
	struct slot s;
	int err;

	if (pick_slot(t, fz_chance(&t->rng, 90) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&c, 0, sizeof(c));
	c.handle = any_handle(t);
	if (fz_chance(&t->rng, 5))
		c.flags = 1;
	if (fz_chance(&t->rng, 5))
		c.pad = 1;
	op_begin(t, unmap ? OP_UNMAP : OP_CANCEL, 0);
	/* struct mpichan_unmap has the same layout. */
	err = xioctl(t, s.fd, unmap ? 0x09 : 0x08, _IOC_WRITE, &c, sizeof(c));
	op_end(t);
	put_slot(t, &s);
	fz_result(unmap ? OP_UNMAP : OP_CANCEL, err, E_CANCEL,
		  unmap ? "UNMAP" : "CANCEL");
}

/*
 * The dispatcher's rules, which must hold whatever the fd: these calls
 * never reach a handler, so the errno is exact.
 */
static void do_badioctl(struct thr *t)
{
	static const struct { unsigned int dir, size; } k[10] = {
		{ _IOC_READ, sizeof(struct mpichan_version) },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_job_create) },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_attach) },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_wait) },
		{ _IOC_WRITE, sizeof(struct mpichan_wake) },
		{ _IOC_NONE, 0 },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_send) },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_recv) },
		{ _IOC_WRITE, sizeof(struct mpichan_cancel) },
		{ _IOC_WRITE, sizeof(struct mpichan_unmap) },
	};
	static const unsigned int magic[] = { 'A', 'z', 0xB7, 0xB9, 0xFF };
	static __thread unsigned char buf[4 * PAGE];
	unsigned int nr = fz_below(&t->rng, 10), dir = k[nr].dir, size, want;
	unsigned int type = MPICHAN_IOC_MAGIC;
	struct slot s;
	int err;

	if (pick_slot(t, 0, &s) < 0)
		return;
	memset(buf, 0, sizeof(buf));
	size = k[nr].size;
	switch (fz_below(&t->rng, 6)) {
	case 0:		/* unknown number */
		nr = 0x0a + fz_below(&t->rng, 0xf6);
		dir = fz_below(&t->rng, 4);
		size = fz_below(&t->rng, 200);
		want = ENOTTY;
		break;
	case 1:		/* other magic */
		type = magic[fz_below(&t->rng, 5)];
		want = ENOTTY;
		break;
	case 2:		/* wrong direction */
		dir = (dir + 1 + fz_below(&t->rng, 3)) & 3;
		want = ENOTTY;
		break;
	case 3:		/* shorter than the first published size */
		if (!size)
			goto out;
		size = fz_below(&t->rng, size);
		want = EINVAL;
		break;
	case 4:		/* over a page */
		size = PAGE + 1 + fz_below(&t->rng, 2 * PAGE);
		want = E2BIG;
		break;
	default:	/* longer, unknown tail not zero */
		if (!(dir & _IOC_WRITE))
			goto out;
		size += 1 + fz_below(&t->rng, PAGE - size);
		buf[k[nr].size + fz_below(&t->rng, size - k[nr].size)] = 1 +
			fz_below(&t->rng, 255);
		want = E2BIG;
	}
	op_begin(t, OP_BADIOCTL, 0);
	err = ioctl(s.fd, _IOC(dir, type, nr, size), buf) ? errno : 0;
	op_end(t);
	if (err != (int)want) {
		fz_result(OP_BADIOCTL, err, NULL, "bad ioctl");
		fz_fail("ioctl(_IOC(%u, %#x, %#x, %u)): errno %d, want %u", dir,
			type, nr, size, err, want);
	} else {
		fz_result(OP_BADIOCTL, err, (const int[]){ (int)want, 0 }, "bad ioctl");
	}
out:
	put_slot(t, &s);
}

/* A right ioctl number with an argument that cannot be copied: EFAULT. */
static void do_badarg(struct thr *t)
{
	static const unsigned long cmds[] = {
		MPICHAN_IOC_VERSION, MPICHAN_IOC_JOB_CREATE, MPICHAN_IOC_ATTACH,
		MPICHAN_IOC_WAIT, MPICHAN_IOC_SEND, MPICHAN_IOC_RECV,
		MPICHAN_IOC_WAKE, MPICHAN_IOC_CANCEL, MPICHAN_IOC_UNMAP,
	};
	unsigned int c = fz_below(&t->rng, 9);
	uint64_t p = rand_bad_ptr(t);
	struct slot s;
	int err;

	/* The read-only page: only calls that write their argument back. */
	if (c < 6 && fz_chance(&t->rng, 30))
		p = (uint64_t)t->ro;
	if (pick_slot(t, 0, &s) < 0)
		return;
	op_begin(t, OP_BADARG, 0);
	err = ioctl(s.fd, cmds[c], (void *)p) ? errno : 0;
	op_end(t);
	put_slot(t, &s);
	if (err != EFAULT)
		fz_fail("ioctl %#lx with argument %#llx: errno %d, want EFAULT",
			cmds[c], (unsigned long long)p, err);
	fz_result(OP_BADARG, err, NULL, "ioctl with a bad argument");
}

/* ---- mappings --------------------------------------------------- */

static struct tmap *free_map(struct thr *t)
{
	int i;

	for (i = 0; i < NMAPS; i++)
		if (!t->maps[i].addr)
			return &t->maps[i];
	return NULL;
}

static struct tmap *some_map(struct thr *t)
{
	int i, n = 0, cand[NMAPS];

	for (i = 0; i < NMAPS; i++)
		if (t->maps[i].addr)
			cand[n++] = i;
	return n ? &t->maps[cand[fz_below(&t->rng, n)]] : NULL;
}

static void forget_window(void *addr)
{
	int i;

	pthread_mutex_lock(&W.lock);
	for (i = 0; i < NSLOTS; i++)
		if (W.slots[i].win == addr)
			W.slots[i].win = NULL;
	pthread_mutex_unlock(&W.lock);
}

static int rand_prot(struct thr *t)
{
	static const int p[] = { PROT_READ, PROT_READ | PROT_WRITE,
		PROT_READ | PROT_WRITE | PROT_EXEC, PROT_READ | PROT_EXEC,
		PROT_NONE, PROT_WRITE };

	return p[fz_chance(&t->rng, 60) ? fz_below(&t->rng, 2) : fz_below(&t->rng, 6)];
}

static void do_mmap(struct thr *t, int window)
{
	struct tmap *m = free_map(t);
	struct slot s;
	size_t len;
	off_t off = window ? (off_t)MPICHAN_WINDOW_OFFSET : 0;
	int prot, flags = MAP_SHARED, i, err;
	void *p;

	if (!m)
		return;
	i = pick_slot(t, fz_chance(&t->rng, 80) ? SL_RANK : 0, &s);
	if (i < 0)
		return;
	len = s.kind == SL_RANK ? s.ep.off.map_size : 16 * PAGE;
	switch (fz_below(&t->rng, 8)) {
	case 0: len = PAGE; break;
	case 1: len += PAGE; break;
	case 2: len = PAGE * (1 + fz_below(&t->rng, 64)); break;
	case 3: len = window ? MPICHAN_WINDOW_MAX_BYTES + PAGE * fz_below(&t->rng, 2) :
		(16ULL << 30); break;
	case 4: len = fz_below(&t->rng, 3) ? 1 + fz_below(&t->rng, 3 * PAGE) : 0; break;
	default:
		if (window)
			len = PAGE * (1 + fz_below(&t->rng, 512));
	}
	prot = window ? (fz_chance(&t->rng, 70) ? PROT_READ : rand_prot(t)) : rand_prot(t);
	if (fz_chance(&t->rng, 5))
		flags = MAP_PRIVATE;
	if (!window && fz_chance(&t->rng, 5))
		off = fz_chance(&t->rng, 50) ? (off_t)PAGE :
			(off_t)(fz_next(&t->rng) & 0x7ffffffffff000ULL);
	if (len <= (1 << 20) && fz_chance(&t->rng, 10))
		flags |= MAP_POPULATE;
	op_begin(t, window ? OP_WINMAP : OP_MMAP, 0);
	p = mmap(NULL, len, prot, flags, s.fd, off);
	err = p == MAP_FAILED ? errno : 0;
	op_end(t);
	if (fz_result(window ? OP_WINMAP : OP_MMAP, err, E_MMAP, "mmap") || err)
		goto out;
	if ((prot & PROT_EXEC) && !window)
		fz_fail("mmap of the job with PROT_EXEC succeeded");
	if (window && (prot & PROT_WRITE))
		fz_fail("mmap of the window with PROT_WRITE succeeded");
	if (s.kind == SL_OWNER && (prot & PROT_WRITE))
		fz_fail("owner mapped the job writable");
	m->addr = p;
	m->len = len;
	m->prot = prot;
	m->window = off == (off_t)MPICHAN_WINDOW_OFFSET;
	if (m->window) {
		pthread_mutex_lock(&W.lock);
		if (W.slots[i].gen == s.gen && W.slots[i].kind == SL_RANK &&
		    !W.slots[i].win) {
			W.slots[i].win = p;
			W.slots[i].win_len = len;
		}
		pthread_mutex_unlock(&W.lock);
	}
out:
	put_slot(t, &s);
}

static void drop_map(struct tmap *m)
{
	if (m->window)
		forget_window(m->addr);
	munmap(m->addr, m->len);
	memset(m, 0, sizeof(*m));
}

static void do_munmap(struct thr *t)
{
	struct tmap *m = some_map(t);
	size_t off, len;
	int err;

	if (!m)
		return;
	if (fz_chance(&t->rng, 60)) {
		op_begin(t, OP_MUNMAP, 0);
		drop_map(m);
		op_end(t);
		fz_result(OP_MUNMAP, 0, NULL, "munmap");
		return;
	}
	/* Part of it: splits the job mapping, and is refused on the window. */
	off = PAGE * fz_below(&t->rng, (m->len + PAGE - 1) / PAGE);
	len = PAGE * (1 + fz_below(&t->rng, 4));
	if (off + len > m->len)
		len = m->len - off;
	if (!len)
		return;
	op_begin(t, OP_MUNMAP, 0);
	err = munmap(m->addr + off, len) ? errno : 0;
	op_end(t);
	fz_result(OP_MUNMAP, err, E_MUNMAP, "munmap of part");
	if (!err && m->window && (off || len < m->len))
		fz_fail("munmap split the window");
	if (!err)
		drop_map(m);	/* the rest too, rather than track holes */
}

static void do_mprotect(struct thr *t)
{
	struct tmap *m = some_map(t);
	size_t off, len;
	int prot, err;

	if (!m)
		return;
	prot = rand_prot(t);
	off = fz_chance(&t->rng, 50) ? 0 : PAGE * fz_below(&t->rng, (m->len + PAGE - 1) / PAGE);
	len = fz_chance(&t->rng, 50) ? m->len - off : PAGE;
	if (!len || off >= m->len)
		return;
	op_begin(t, OP_MPROTECT, 0);
	err = mprotect(m->addr + off, len, prot) ? errno : 0;
	op_end(t);
	fz_result(OP_MPROTECT, err, E_MPROTECT, "mprotect");
	if (!err && (prot & PROT_EXEC))
		fz_fail("mprotect added PROT_EXEC to a %s mapping",
			m->window ? "window" : "job");
	if (!err && m->window && (prot & PROT_WRITE))
		fz_fail("mprotect made the window writable");
	if (!err && off == 0 && len == m->len)
		m->prot = prot;
	else if (!err)
		m->prot = PROT_NONE;	/* mixed: don't touch it any more */
}

static void do_mremap(struct thr *t)
{
	struct tmap *m = some_map(t);
	size_t nlen;
	int flags = fz_chance(&t->rng, 60) ? MREMAP_MAYMOVE : 0, err;
	void *p;

	if (!m)
		return;
	switch (fz_below(&t->rng, 3)) {
	case 0: nlen = m->len; break;
	case 1: nlen = m->len + PAGE; break;
	default: nlen = m->len > PAGE ? m->len - PAGE : m->len;
	}
	op_begin(t, OP_MREMAP, 0);
	p = mremap(m->addr, m->len, nlen, flags);
	err = p == MAP_FAILED ? errno : 0;
	op_end(t);
	fz_result(OP_MREMAP, err, E_MREMAP, "mremap");
	if (err)
		return;
	if (m->window && (p != m->addr || nlen != m->len))
		fz_fail("mremap moved or resized the window (%zu -> %zu)", m->len, nlen);
	if (nlen > m->len)
		fz_fail("mremap grew a VM_DONTEXPAND mapping");
	m->addr = p;
	m->len = nlen;
}

/* Read (and where allowed write) a mapping; SIGSEGV/SIGBUS are counted. */
static void do_touch(struct thr *t)
{
	struct tmap *m = some_map(t);
	volatile unsigned char *p;
	int sig;

	if (!m || t->touches > 4000)
		return;
	t->touches++;
	p = m->addr + fz_below(&t->rng, m->len);
	op_begin(t, m->window ? OP_WINTOUCH : OP_TOUCH, 0);
	sig = GUARDED((void)*p);
	op_end(t);
	/* The window is empty outside a mapped receive: SIGBUS is expected. */
	fz_result(m->window ? OP_WINTOUCH : OP_TOUCH, sig ? EFAULT : 0, E_TOUCH, "touch");
	if (sig && !m->window && (m->prot & PROT_READ) && sig == SIGSEGV) {
		char cmd[128];

		fz_fail("SIGSEGV reading a readable job mapping at offset %zu (%p, len %zu, prot %d)",
			(size_t)(p - m->addr), (void *)m->addr, m->len, m->prot);
		snprintf(cmd, sizeof(cmd), "grep -i '%lx' /proc/%d/maps >&2",
			 (unsigned long)m->addr, getpid());
		if (system(cmd))
			cmd[0] = 0;
	}
}

/* ---- poll, debugfs ------------------------------------------------ */

static void do_poll(struct thr *t)
{
	struct pollfd pfd[3];
	struct slot s[3];
	int n = 0, i, ret, to = fz_chance(&t->rng, 50) ? 0 : 1 + fz_below(&t->rng, 10);
	int64_t t0, dt;

	for (i = 0; i < 3; i++) {
		if (pick_slot(t, 0, &s[n]) < 0)
			break;
		pfd[n].fd = s[n].fd;
		pfd[n].events = POLLIN | POLLOUT | POLLPRI;
		pfd[n].revents = 0;
		n++;
	}
	if (!n)
		return;
	op_begin(t, OP_POLL, to * FZ_MS);
	t0 = fz_now();
	ret = poll(pfd, n, to);
	dt = fz_now() - t0;
	op_end(t);
	fz_result(OP_POLL, ret < 0 ? errno : 0, E_POLL, "poll");
	for (i = 0; i < n; i++) {
		if (ret > 0 && (pfd[i].revents & ~(POLLIN | POLLRDNORM | POLLERR)))
			fz_fail("poll: revents %#x", pfd[i].revents);
		if (ret > 0 && s[i].kind != SL_RANK && pfd[i].revents &&
		    pfd[i].revents != POLLERR && s[i].kind != SL_FRESH)
			fz_fail("poll on an owner fd: revents %#x", pfd[i].revents);
		put_slot(t, &s[i]);
	}
	if (dt > to * FZ_MS + FZ_SLACK_NS)
		fz_fail("poll(%d ms) took %lld ns", to, (long long)dt);
}

/* Read a debugfs file whole; counters in stats must never go negative. */
static void do_debugfs(struct thr *t)
{
	char path[128], buf[8192];
	ssize_t n, got = 0;
	int fd, err = 0;
	uint64_t id;

	switch (fz_below(&t->rng, 3)) {
	case 0:
		snprintf(path, sizeof(path), FZ_DEBUGFS "/stats");
		break;
	case 1:
		snprintf(path, sizeof(path), FZ_DEBUGFS "/version");
		break;
	default:
		pthread_mutex_lock(&W.lock);
		id = W.jobs[fz_below(&t->rng, W.njobs + 1 < NJOBS ? W.njobs + 1 : NJOBS)].id;
		pthread_mutex_unlock(&W.lock);
		snprintf(path, sizeof(path), FZ_DEBUGFS "/job-%llu/state",
			 (unsigned long long)id);
	}
	op_begin(t, OP_DEBUGFS, 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else {
		while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0 &&
		       got + n < (ssize_t)sizeof(buf) - 1)
			got += n;
		if (n < 0)
			err = errno;
		close(fd);
	}
	op_end(t);
	fz_result(OP_DEBUGFS, err, E_DEBUGFS, path);
	buf[got] = 0;
	if (!err && strstr(path, "stats") && strstr(buf, ": -"))
		fz_fail("negative counter in stats:\n%s", buf);
}

/* ---- the hostile rank, honest traffic ---------------------------- */

static void do_scribble(struct thr *t)
{
	struct slot s;
	struct mpichan_ep *ep = &s.ep;
	uint64_t off, n, i, r;
	unsigned char *p;

	if (pick_slot(t, SL_RANK, &s) < 0)
		return;
	/* The round's job only in a hostile round; our own jobs now and then. */
	if (s.job == 0 ? !fz->round.hostile || fz->round.hostile_worker != W.index :
	    !job_hostile(s.job) && !fz_chance(&t->rng, 5))
		goto out;
	set_hostile(s.job);
	r = fz_below(&t->rng, ep->nranks);
	switch (fz_below(&t->rng, 7)) {
	case 0: off = ep->off.ring_ctl + mpichan_ring_index(ep, ep->rank, (uint32_t)r) *
		MPICHAN_RING_CTL_SIZE; break;			/* our tail */
	case 1: off = ep->off.ring_ctl + mpichan_ring_index(ep, (uint32_t)r, ep->rank) *
		MPICHAN_RING_CTL_SIZE + 64; break;		/* our head */
	case 2: off = ep->off.rank_ctl + r * MPICHAN_RANK_CTL_SIZE +
		64 * fz_below(&t->rng, 4); break;		/* rank ctls, cq head */
	case 3: off = ep->off.cq + ep->rank * MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE +
		fz_below(&t->rng, MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE); break;
	case 4: off = 0; break;					/* job header */
	case 5: off = ep->off.ring_data + mpichan_ring_index(ep, ep->rank, (uint32_t)r) *
		ep->off.ring_bytes + fz_below(&t->rng, ep->off.ring_bytes); break;
	default:
		if (t->touches++ > 2000)
			goto out;
		off = fz_below(&t->rng, ep->off.map_size);
	}
	n = 1 + fz_below(&t->rng, 16);
	if (off + n > ep->off.map_size)
		off = ep->off.map_size - n;
	op_begin(t, OP_SCRIBBLE, 0);
	pthread_mutex_lock(&W.lock);
	/* Under the lock: thread 0 cannot unmap it meanwhile. */
	p = NULL;
	for (i = 0; i < NSLOTS; i++)
		if (W.slots[i].gen == s.gen && W.slots[i].ep.map)
			p = W.slots[i].ep.map;
	if (p)
		for (i = 0; i < n; i++)
			p[off + i] = (unsigned char)fz_next(&t->rng);
	pthread_mutex_unlock(&W.lock);
	op_end(t);
	fz_result(OP_SCRIBBLE, 0, NULL, "scribble");
out:
	put_slot(t, &s);
}

/* Thread 0 only: the rings are single-producer, single-consumer. */
static void do_ring(struct thr *t)
{
	unsigned char payload[512];
	const struct mpichan_msg *m;
	struct slot s;
	uint32_t dst, src, len, k;
	int err, ret;

	if (pick_slot(t, SL_RANK, &s) < 0)
		return;
	dst = fz_below(&t->rng, s.ep.nranks);
	len = fz_below(&t->rng, sizeof(payload));
	if (len > mpichan_max_payload(&s.ep))
		len = mpichan_max_payload(&s.ep);
	memset(payload, (int)dst, len);
	op_begin(t, OP_RING, 0);
	ret = mpichan_ring_send(&s.ep, dst, MPICHAN_MSG_DATA, (int32_t)len, 7,
				payload, len);
	if (!ret) {
		ret = mpichan_notify(&s.ep, dst);
		if (ret < 0)
			fz_result(OP_WAKE, -ret, E_WAKE, "WAKE from mpichan_notify");
		ret = 0;
	}
	err = -ret;
	for (src = 0; src < s.ep.nranks && !err; src++) {
		for (k = 0; k < 8; k++) {
			m = mpichan_ring_peek(&s.ep, src, &ret);
			if (ret || !m) {
				err = -ret;
				break;
			}
			if (!job_hostile(s.job) && m->kind == MPICHAN_MSG_DATA &&
			    (m->tag != (int32_t)m->len || m->context != 7))
				fz_fail("ring %u->%u: message tag %d len %u context %u",
					src, s.ep.rank, m->tag, m->len, m->context);
			mpichan_ring_consume(&s.ep, src, m);
		}
	}
	op_end(t);
	if (fz_result(OP_RING, err, job_hostile(s.job) ? E_RING_HOSTILE : E_RING,
		      "ring traffic"))
		fz_log("ring traffic: job %d (id %llu) rank %u of %u", s.job,
		       (unsigned long long)W.jobs[s.job].id, s.ep.rank, s.ep.nranks);
}

/* Thread 0: sleep the honest way, then drain the completion queue. */
static void do_sleep_cq(struct thr *t)
{
	struct mpichan_rank_ctl *me;
	struct mpichan_cqe *q, e;
	uint32_t head, tail;
	struct slot s;
	int64_t to = fz_chance(&t->rng, 50) ? 0 : (int64_t)fz_below(&t->rng, 3 * FZ_MS);
	int ret;

	if (pick_slot(t, SL_RANK, &s) < 0)
		return;
	op_begin(t, OP_SLEEP, to);
	ret = mpichan_sleep(&s.ep, to, fz_chance(&t->rng, 50) ? MPICHAN_RANK_NONE :
			    (int32_t)fz_below(&t->rng, s.ep.nranks));
	op_end(t);
	fz_result(OP_SLEEP, -ret, E_WAIT, "mpichan_sleep");

	me = mpichan_rank_ctl(&s.ep, s.ep.rank);
	q = (struct mpichan_cqe *)(s.ep.map + s.ep.off.cq + (uint64_t)s.ep.rank *
				   MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE);
	op_begin(t, OP_CQ, 0);
	head = me->cq_head;
	tail = __atomic_load_n(&me->cq_tail, __ATOMIC_ACQUIRE);
	ret = 0;
	if (tail - head > MPICHAN_CQ_ENTRIES) {
		if (!job_hostile(s.job))
			fz_fail("rank %u: cq head %u tail %u", s.ep.rank, head, tail);
		head = tail;	/* scribbled: resynchronise */
	}
	for (; !ret && head != tail && !job_hostile(s.job); head++) {
		e = q[head % MPICHAN_CQ_ENTRIES];
		if ((e.flags & ~7u) || !(e.flags & 3) || (e.flags & 3) == 3 ||
		    ((e.flags & MPICHAN_CQE_SEND) && (e.flags & MPICHAN_CQE_TRUNCATED)) ||
		    (e.status && e.status != -EPIPE && e.status != -ECANCELED &&
		     e.status != -EFAULT) || (e.status && e.len) ||
		    e.src < MPICHAN_RANK_NONE || e.src >= (int32_t)s.ep.nranks) {
			fz_fail("rank %u cqe %u: user_data %llx len %llu status %d flags %#x src %d tag %d",
				s.ep.rank, head, (unsigned long long)e.user_data,
				(unsigned long long)e.len, e.status, e.flags, e.src, e.tag);
			ret = EBADMSG;
		}
	}
	__atomic_store_n(&me->cq_head, tail, __ATOMIC_RELEASE);
	op_end(t);
	fz_result(OP_CQ, ret, NULL, "completion queue");
}

/* ---- fork after attach -------------------------------------------- */

static void child_say(const char *msg, int code)
{
	if (write(2, msg, strlen(msg)) < 0)
		code |= 0;
	_exit(code);
}

static void do_fork(struct thr *t)
{
	struct slot snap[NSLOTS];
	int status, i, delay = fz_below(&t->rng, 20);
	pid_t pid;

	op_begin(t, OP_FORK, 2 * FZ_SEC);
	/* Held over fork(): no slot's mapping can go away meanwhile. */
	pthread_mutex_lock(&W.lock);
	memcpy(snap, W.slots, sizeof(snap));
	pid = fork();
	if (!pid) {
		struct mpichan_wait w = { .timeout_ns = 0, .peer = MPICHAN_RANK_NONE };
		unsigned char vec;
		void *p;

		for (i = 0; i < NSLOTS; i++) {
			if (snap[i].kind != SL_RANK)
				continue;
			if (!ioctl(snap[i].fd, MPICHAN_IOC_WAIT, &w) ||
			    (errno != EBADFD && errno != ENOTCONN && errno != EBADF &&
			     errno != ENOTTY))
				child_say("mpichan-fuzz: FAIL: a forked child could WAIT on its parent's rank\n", 10);
			p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
				 snap[i].fd, 0);
			if (p != MAP_FAILED)
				child_say("mpichan-fuzz: FAIL: a forked child could mmap its parent's rank\n", 11);
			if (snap[i].ep.map && !mincore(snap[i].ep.map, PAGE, &vec))
				child_say("mpichan-fuzz: FAIL: a forked child inherited the job mapping\n", 12);
			if (snap[i].win && !mincore(snap[i].win, PAGE, &vec))
				child_say("mpichan-fuzz: FAIL: a forked child inherited the window\n", 13);
		}
		if (delay)
			usleep(delay * 1000);
		_exit(0);
	}
	pthread_mutex_unlock(&W.lock);
	if (fz_result(OP_FORK, pid < 0 ? errno : 0, E_FORK, "fork") || pid < 0) {
		op_end(t);
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	op_end(t);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fz_fail("forked child: status %#x", status);
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
