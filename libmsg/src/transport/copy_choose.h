/* SPDX-License-Identifier: MIT */
/*
 * copy_choose.h: the rendezvous copy over /dev/mpichan chosen by
 * measurement.  The receiver either has the module copy the message
 * (the kernel copy: MPICHAN_IOC_RECV alone) or has it map the sender's
 * pages into the receive window and copies them itself (the mapped
 * copy: MPICHAN_RECV_MAP).  Which is faster depends on the CPU (kernel
 * copies are slow under QEMU/TCG, at `rep movsb` speed on real CPUs)
 * and on the size, so each size class (powers of two) is measured on
 * its first transfers, alternating the two, and keeps the faster,
 * measured again every LM_COPY_RECHECK transfers.  MPICHAN_COPY=kernel
 * or mapped forces one.  The choice itself (lm_copy_choose) is a pure
 * function of the times measured, so that selftests/libmsg/copychoose
 * drives it with given timings.
 */
#ifndef LIBMSG_COPY_CHOOSE_H
#define LIBMSG_COPY_CHOOSE_H

#include <stdint.h>

enum lm_copy_method { LM_COPY_KERNEL, LM_COPY_MAPPED, LM_COPY_NMETHODS };
enum lm_copy_mode { LM_COPY_AUTO, LM_COPY_FORCE_KERNEL, LM_COPY_FORCE_MAPPED };

/* Timed transfers of each method before a class chooses. */
#define LM_COPY_TRIALS		3
/* Transfers on a choice before its class measures again. */
#define LM_COPY_RECHECK		1024
/* Size classes: class c holds the lengths [2^c, 2^(c+1)). */
#define LM_COPY_CLASSES		64

/* One size class: its measurements this round, and its choice. */
struct lm_copy_class {
	double best[LM_COPY_NMETHODS];	/* fastest ns per byte seen */
	uint32_t n[LM_COPY_NMETHODS];	/* transfers timed this round */
	uint32_t uses;			/* transfers since it chose */
	int choice;			/* an lm_copy_method, or -1 */
};

struct lm_copy_state {
	int mode;			/* enum lm_copy_mode */
	int debug;			/* MPICHAN_COPY_DEBUG: say each choice */
	uint32_t rank;			/* ... as this rank */
	struct lm_copy_class cls[LM_COPY_CLASSES];
	/* Classes (bit c) whose last choice was the kernel / mapped copy. */
	uint64_t chose[LM_COPY_NMETHODS];
};

/*
 * The choice for a class, given each method's best time (ns per byte)
 * and how many transfers of it were timed: -1 while either has fewer
 * than trials, else the faster (the mapped copy on a tie).
 */
int lm_copy_choose(const double best[LM_COPY_NMETHODS],
		   const uint32_t n[LM_COPY_NMETHODS], uint32_t trials);

/* The class of a length (its highest bit). */
unsigned int lm_copy_class_of(uint64_t len);

/* MPICHAN_COPY (auto, kernel, mapped) and MPICHAN_COPY_DEBUG; 0 or -EINVAL. */
int lm_copy_init(struct lm_copy_state *s, const char *mode,
		 const char *debug);

/*
 * The method for a transfer of len bytes; *timed says whether to time
 * it and lm_copy_record() the time.
 */
int lm_copy_next(struct lm_copy_state *s, uint64_t len, int *timed);

/* A timed transfer of len bytes by method took ns nanoseconds. */
void lm_copy_record(struct lm_copy_state *s, uint64_t len, int method,
		    uint64_t ns);

#endif
