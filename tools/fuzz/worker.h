/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpichan-fuzz: what the parts of a worker process share: its slot
 * table, its threads, the argument generators and the operations.
 */
#ifndef MPICHAN_FUZZ_WORKER_H
#define MPICHAN_FUZZ_WORKER_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>

#include "fuzz.h"
#include "mcr.h"

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
#define RGN_BYTES	(64 * PAGE)	/* memory a thread registers and changes */
#define NREGS		16		/* regions a worker registered */
#define RCOPY_MAX	(MPICHAN_REGION_COPY_MAX + 8)

enum { SL_FREE, SL_FRESH, SL_OWNER, SL_RANK };

struct job_ref {
	uint64_t id, secret[2];
	uint32_t nranks;
	int hostile;		/* someone may scribble: no ring checks */
};

struct slot {
	int kind, fd, job;
	unsigned int gen;
	struct mcr_ep ep;	/* rank: the main mapping (thread 0's) */
	void *win;		/* the rank's receive window, if mapped */
	size_t win_len;
};

struct tmap {
	unsigned char *addr;
	size_t len;
	int prot, window;
	int region;		/* a region's: 1 read-only, 2 writable grant */
	int64_t pat_base;	/* a send area's region: its pattern base, or -1 */
	char hist[160];		/* what was done to it, for a report */
};

struct thr {
	int index;
	pthread_t tid;
	struct fz_rng rng;
	unsigned char *arena;	/* send | guard | recv | guard | verify | guard | iov | guard */
	unsigned char *send, *recv, *verify, *ro;
	unsigned char *rgn;		/* RGN_BYTES, registered and changed */
	struct mpichan_rcopy *rcopy;	/* RCOPY_MAX entries */
	struct mpichan_iovec *iov;	/* IOV_BYTES, a guard page after */
	struct tmap maps[NMAPS];
	uint64_t handles[NQ];
	unsigned int nhandles;
	volatile int64_t op_start;
	volatile int64_t op_limit;
	volatile int op;
	int touches;
};

struct fz_wstate {
	pthread_mutex_t lock;
	/* Held for reading while a window is read, for writing to unmap one. */
	pthread_rwlock_t winlock;
	struct slot slots[NSLOTS];
	struct job_ref jobs[NJOBS];
	/* Regions this worker registered: the slot that owns each. */
	struct { uint64_t handle; unsigned int gen; } regs[NREGS];
	unsigned int nregs;
	unsigned int njobs, gen;
	int index;
	int closing;		/* concurrent close at the end */
	int exit_thread;	/* this thread _exit()s mid-work; -1 none */
	struct thr thr[FZ_THREADS];
};

extern struct fz_wstate W;
extern int fz_owner_fd;
extern __thread sigjmp_buf fz_jb;
extern __thread volatile int fz_guarded;

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
			      ENOMEM, EPIPE, EAGAIN, ENOENT, ENOMSG,
			      EALREADY, 0 };
static const int E_CANCEL[] = { ENOTCONN, EBADFD, EINVAL, ENOENT, EFAULT, 0 };
static const int E_MMAP[] = { EINVAL, EPERM, EACCES, ENXIO, EBADFD, ENOMEM,
			      EBUSY, EOVERFLOW, ENOENT, ESTALE, 0 };
static const int E_MUNMAP[] = { EINVAL, 0 };
static const int E_MPROTECT[] = { EACCES, EINVAL, ENOMEM, 0 };
static const int E_MREMAP[] = { EINVAL, EFAULT, ENOMEM, EAGAIN, 0 };
static const int E_POLL[] = { EINTR, ENOMEM, 0 };
/* EIO: a job's files read while debugfs removes them. */
static const int E_DEBUGFS[] = { ENOENT, EACCES, EPERM, EIO, 0 };
static const int E_RING[] = { EAGAIN, 0 };
static const int E_RING_HOSTILE[] = { EAGAIN, EBADMSG, 0 };
static const int E_TOUCH[] = { EFAULT, 0 };	/* a guarded fault */
static const int E_FORK[] = { EAGAIN, ENOMEM, 0 };
static const int E_REGREG[] = { EINVAL, EFAULT, ENOMEM, ENOSPC, EAGAIN, 0 };
static const int E_REGDEREG[] = { EINVAL, ENOENT, 0 };
static const int E_REGUSE[] = { EINVAL, ENOENT, EPERM, EACCES, ESTALE,
				EFAULT, ENOMEM, 0 };
static const int E_REGMMAP[] = { EINVAL, ENOENT, EPERM, EACCES, ESTALE,
				 ENOMEM, 0 };

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

/* worker.c */
int fz_munmap(void *addr, size_t len, const char *tag);
void fz_unmapped(const void *addr);
void op_begin(struct thr *t, enum fz_op op, int64_t limit_ns);
void op_end(struct thr *t);
int pick_slot(struct thr *t, int want_kind, struct slot *copy);
void put_slot(struct thr *t, struct slot *copy);
int add_slot(int fd, int kind, int job);
int add_job(uint64_t id, const uint64_t secret[2], uint32_t nranks);
int job_hostile(int j);
void set_hostile(int j);
void push_handle(struct thr *t, uint64_t h);
uint64_t any_handle(struct thr *t);
int xioctl(struct thr *t, int fd, unsigned int nr, unsigned int dir,
	   void *arg, size_t size);
int32_t rand_rank(struct thr *t, uint32_t nranks);
uint64_t rand_bad_ptr(struct thr *t);
uint64_t rand_iov(struct thr *t, unsigned char *area, uint32_t *cnt,
		  uint64_t *total, const struct slot *s);

/* ioctls.c */
void do_open(struct thr *t);
void close_slot(int i);
void do_close(struct thr *t);
void do_version(struct thr *t);
void do_create(struct thr *t);
void do_attach(struct thr *t);
void do_wait(struct thr *t);
void do_wake(struct thr *t);
void do_finish(struct thr *t);
void do_send(struct thr *t);
void do_recv(struct thr *t);
void do_cancel_unmap(struct thr *t, int unmap);
void do_badioctl(struct thr *t);
void do_badarg(struct thr *t);
void verify_pattern(const unsigned char *buf, uint64_t len);

/* memory.c */
struct tmap *free_map(struct thr *t);
struct tmap *some_map(struct thr *t);
void do_mmap(struct thr *t, int window);
void drop_map(struct tmap *m);
void do_munmap(struct thr *t);
void do_mprotect(struct thr *t);
void do_mremap(struct thr *t);
void do_touch(struct thr *t);
void do_poll(struct thr *t);
void do_debugfs(struct thr *t);
void do_scribble(struct thr *t);
void do_ring(struct thr *t);
void do_sleep_cq(struct thr *t);
void do_fork(struct thr *t);

/* region.c */
void do_regreg(struct thr *t);
void do_regdereg(struct thr *t);
void do_regcopy(struct thr *t);
void do_regmap(struct thr *t);
void do_regquery(struct thr *t);
void do_regmem(struct thr *t);
void region_touch(struct thr *t, struct tmap *m);

#endif /* MPICHAN_FUZZ_WORKER_H */
