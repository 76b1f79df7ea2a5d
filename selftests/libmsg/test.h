/* SPDX-License-Identifier: MIT */
/*
 * test.h: helpers for the MPI-level tests.  A test program exits 0 when
 * every check held; a failed check prints where and why, then aborts
 * the job with 1 (so the launcher reports the failure); a test that
 * cannot run here exits 77 with the reason (T_SKIP).  What a test needs
 * from the runner (rank counts, builds, modes) is in its marker line:
 * see ./list.
 */
#ifndef LIBMSG_TEST_H
#define LIBMSG_TEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int t_rank, t_size;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL rank %d %s:%d: %s: ", t_rank,	\
			__FILE__, __LINE__, #cond);			\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		MPI_Abort(MPI_COMM_WORLD, 1);				\
	}								\
} while (0)

#define MPI_OK(call) do {						\
	int _e = (call);						\
	if (_e != MPI_SUCCESS) {					\
		char _s[MPI_MAX_ERROR_STRING];				\
		int _l;							\
		MPI_Error_string(_e, _s, &_l);				\
		CHECK(_e == MPI_SUCCESS, "%s: %s", #call, _s);		\
	}								\
} while (0)

static inline void t_init(int *argc, char ***argv)
{
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

/* t_init at MPI_THREAD_MULTIPLE, which the library must provide. */
static inline void t_init_multiple(int *argc, char ***argv)
{
	int provided;

	MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &t_size);
	CHECK(provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

/* An MPI_T counter of this process (by name), started in session s. */
static inline MPI_T_pvar_handle t_ctr_open(MPI_T_pvar_session s,
					   const char *name)
{
	MPI_T_pvar_handle h;
	int i, n;

	MPI_OK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i));
	MPI_OK(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n));
	MPI_OK(MPI_T_pvar_start(s, h));
	return h;
}

static inline unsigned long long t_ctr(MPI_T_pvar_session s,
				       MPI_T_pvar_handle h)
{
	unsigned long long v;

	MPI_OK(MPI_T_pvar_read(s, h, &v));
	return v;
}

/* Deterministic bytes of message `seed`. */
static inline void t_fill(void *buf, size_t n, unsigned seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 8));
}

static inline size_t t_bad(const void *buf, size_t n, unsigned seed)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed * 31 + i * 7 + (i >> 8)))
			return i + 1;
	return 0;
}

#define T_BARRIER_TAG 0x3ffffff0

/*
 * A barrier made of point-to-point messages (tag T_BARRIER_TAG): a
 * token goes round the ranks twice.  Rank 0 gets no token before it
 * enters; other ranks may, so only rank 0 may hold wildcard receives
 * across a barrier.
 */
static inline void t_barrier(void)
{
	int round, next = (t_rank + 1) % t_size,
	    prev = (t_rank + t_size - 1) % t_size;

	if (t_size == 1)
		return;
	for (round = 0; round < 2; round++) {
		if (t_rank == 0) {
			MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, next, T_BARRIER_TAG,
					MPI_COMM_WORLD));
			MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, prev, T_BARRIER_TAG,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		} else {
			MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, prev, T_BARRIER_TAG,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, next, T_BARRIER_TAG,
					MPI_COMM_WORLD));
		}
	}
}

/* This rank's partner: rank ^ 1, or itself when that does not exist. */
static inline int t_partner(void)
{
	int p = t_rank ^ 1;

	return p < t_size ? p : t_rank;
}

/*
 * This process skips the test: "SKIP: why" on stderr, exit status 77.
 * Every rank that finds it cannot run skips; the launcher ends the
 * others and returns 77.
 */
#define T_SKIP(...) do {						\
	fprintf(stderr, "SKIP: " __VA_ARGS__);				\
	fputc('\n', stderr);						\
	exit(77);							\
} while (0)

/* err must be an error of class cls (the call failed for that reason). */
#define T_EXPECT(err, cls, ...) do {					\
	int _te = (err), _tc = -1, _tl = 0;				\
	char _tw[200], _ts[MPI_MAX_ERROR_STRING] = "";			\
	snprintf(_tw, sizeof(_tw), __VA_ARGS__);			\
	CHECK(_te != MPI_SUCCESS, "%s succeeded", _tw);			\
	MPI_OK(MPI_Error_class(_te, &_tc));				\
	if (_tc != (cls))						\
		MPI_Error_string(_te, _ts, &_tl);			\
	CHECK(_tc == (cls), "%s: class %d (%s), expected %d", _tw, _tc,	\
	      _ts, (cls));						\
} while (0)

/* The same, the call named by a string. */
static inline void t_expect(int err, int cls, const char *what)
{
	T_EXPECT(err, cls, "%s", what);
}

/* err's error class (-1 when it has none). */
static inline int t_class(int err)
{
	int c = -1;

	MPI_Error_class(err, &c);
	return c;
}

static inline int t_done(void)
{
	MPI_OK(MPI_Finalize());
	return 0;
}

#endif /* LIBMSG_TEST_H */
