// SPDX-License-Identifier: MIT
// libmsg-test: builds=plain,asan,tsan
/*
 * The library lock's bias (src/thread.c): at MPI_THREAD_MULTIPLE the
 * thread that initialised MPI holds the lock without the mutex until
 * another thread makes its first call.  That call must get in while
 * the owner is blocked in a receive only it can satisfy: a bias that
 * waited for the owner's call to end would hang here.  Even ranks wait
 * by spinning (MPICHAN_WAIT=spin, the owner gives the lock up between
 * polls), odd ranks the default way (they sleep in the transport), and
 * on odd ranks the second thread starts late, so the owner is asleep
 * when it comes.  After that both threads run at once, through the
 * mutex, and every payload is checked.
 *
 * The revoking thread fences the owner with membarrier(2).  A seccomp
 * filter sees those calls: it traps MEMBARRIER_CMD_PRIVATE_EXPEDITED,
 * and the SIGSYS handler counts it and makes the same barrier with
 * MEMBARRIER_CMD_GLOBAL.  The owner's calls alone make none; the first
 * call from the other thread makes one (x86-64 only: the handler sets
 * the return register).
 *
 * With BIAS_NO_MEMBARRIER=1 the test execs itself again under a filter
 * that fails every membarrier call with ENOSYS, as a kernel without it
 * would, from before liburcu's constructor asks: there is no bias, and
 * everything goes through the mutex.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/membarrier.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "test.h"

#define ROUNDS	200

static int right, left;

/* Exchange `rounds` numbered messages round the ring, on tag `tag`. */
static void ring(int tag, int rounds)
{
	int i, out, in;

	for (i = 0; i < rounds; i++) {
		out = t_rank * 100000 + tag * 1000 + i;
		MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, tag, &in, 1,
				    MPI_INT, left, tag, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE));
		CHECK(in == left * 100000 + tag * 1000 + i,
		      "tag %d round %d: got %d", tag, i, in);
	}
}

static volatile sig_atomic_t fences;	/* PRIVATE_EXPEDITED calls seen */

static long membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

#if defined(__x86_64__)
/* Load a filter: membarrier(cmd) returns ret; every command when cmd < 0. */
static int filter(int cmd, unsigned int ret)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)cmd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ret),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(f) / sizeof(f[0]),
		.filter = f,
	};

	if (cmd < 0)
		f[5] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void on_sigsys(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	(void)si;
	fences++;
	uc->uc_mcontext.gregs[REG_RAX] = membarrier(MEMBARRIER_CMD_GLOBAL);
}

/* Count the expedited barriers from here on: 1 when it can. */
static int count_fences(void)
{
	struct sigaction sa = {
		.sa_sigaction = on_sigsys,
		.sa_flags = SA_SIGINFO,
	};

	if (!(membarrier(MEMBARRIER_CMD_QUERY) & MEMBARRIER_CMD_GLOBAL))
		return 0;
	if (sigaction(SIGSYS, &sa, NULL))
		return 0;
	return filter(MEMBARRIER_CMD_PRIVATE_EXPEDITED,
		      SECCOMP_RET_TRAP) == 0;
}

/* BIAS_NO_MEMBARRIER: exec again with membarrier gone. */
static void without_membarrier(char **argv)
{
	if (getenv("BIAS_FILTERED"))
		return;
	if (filter(-1, SECCOMP_RET_ERRNO | ENOSYS)) {
		perror("bias: seccomp");
		exit(1);
	}
	setenv("BIAS_FILTERED", "1", 1);
	execv("/proc/self/exe", argv);
	perror("bias: exec");
	exit(1);
}
#else
static int count_fences(void)
{
	return 0;
}

static void without_membarrier(char **argv)
{
	(void)argv;
	T_SKIP("bias: the filter is written for x86-64");
}
#endif

/* The second thread's first call comes while the owner waits for it. */
static void *late_caller(void *arg)
{
	int v = t_rank;

	(void)arg;
	if (t_rank % 2)
		usleep(50000);
	MPI_OK(MPI_Send(&v, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
	v = t_rank * 3;
	MPI_OK(MPI_Send(&v, 1, MPI_INT, t_rank, 8, MPI_COMM_WORLD));
	return NULL;
}

static void *ring_thread(void *arg)
{
	ring(*(int *)arg, ROUNDS);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *r = getenv("MPICHAN_RANK");
	int provided, v, tag_b = 9, sum, counting = 0, gone = 0;
	sig_atomic_t before;
	pthread_t th;

	if (getenv("BIAS_NO_MEMBARRIER")) {
		without_membarrier(argv);
		gone = 1;
	} else {
		counting = count_fences();
	}
	if (r && atoi(r) % 2 == 0)
		setenv("MPICHAN_WAIT", "spin", 1);
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	right = (t_rank + 1) % t_size;
	left = (t_rank + t_size - 1) % t_size;

	if (gone)
		CHECK(membarrier(MEMBARRIER_CMD_QUERY) < 0 && errno == ENOSYS,
		      "membarrier still there: %s", strerror(errno));

	/* The owner alone: the biased lock, no barrier. */
	before = fences;
	ring(1, ROUNDS);
	CHECK(fences == before, "the owner alone made %d membarrier calls",
	      (int)(fences - before));

	/* Another thread's first call, while the owner is blocked. */
	CHECK(!pthread_create(&th, NULL, late_caller, NULL), "pthread_create");
	MPI_OK(MPI_Recv(&v, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	CHECK(v == left, "tag 7: got %d", v);
	MPI_OK(MPI_Recv(&v, 1, MPI_INT, t_rank, 8, MPI_COMM_WORLD,
			MPI_STATUS_IGNORE));
	CHECK(v == t_rank * 3, "tag 8: got %d", v);
	CHECK(!pthread_join(th, NULL), "pthread_join");
	CHECK(!counting || fences > before,
	      "the other thread's first call made no membarrier call");

	/* Revoked: both threads through the mutex, at once. */
	CHECK(!pthread_create(&th, NULL, ring_thread, &tag_b), "pthread_create");
	ring(10, ROUNDS);
	CHECK(!pthread_join(th, NULL), "pthread_join");

	MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM,
			     MPI_COMM_WORLD));
	CHECK(sum == t_size * (t_size - 1) / 2, "allreduce %d", sum);
	MPI_Finalize();
	if (t_rank == 0)
		printf("bias: ok (%d ranks%s)\n", t_size,
		       gone ? ", without membarrier" :
		       counting ? ", revoked by membarrier" : "");
	return 0;
}
