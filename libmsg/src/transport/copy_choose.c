// SPDX-License-Identifier: MIT
/*
 * The rendezvous copy chosen by measurement (copy_choose.h): per size
 * class, the first transfers alternate the kernel copy and the mapped
 * copy, LM_COPY_TRIALS of each, timed by the receiver from its RECV
 * ioctl to its UNMAP; the class then keeps the method whose best
 * transfer took fewer nanoseconds per byte (the best, not the mean: on
 * a loaded machine the slow outliers are other processes' doing), and
 * measures again after LM_COPY_RECHECK transfers.  No protocol change:
 * the receiver alone decides, by the flags of its RECV.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "transport/copy_choose.h"

static const char *const method_name[] = { "kernel", "mapped" };

int lm_copy_choose(const double best[LM_COPY_NMETHODS],
		   const uint32_t n[LM_COPY_NMETHODS], uint32_t trials)
{
	if (n[LM_COPY_KERNEL] < trials || n[LM_COPY_MAPPED] < trials)
		return -1;
	return best[LM_COPY_KERNEL] < best[LM_COPY_MAPPED] ? LM_COPY_KERNEL :
							     LM_COPY_MAPPED;
}

unsigned int lm_copy_class_of(uint64_t len)
{
	return len ? 63 - (unsigned int)__builtin_clzll(len) : 0;
}

static void class_reset(struct lm_copy_class *c)
{
	memset(c->n, 0, sizeof(c->n));
	memset(c->best, 0, sizeof(c->best));
	c->uses = 0;
	c->choice = -1;
}

int lm_copy_init(struct lm_copy_state *s, const char *mode,
		 const char *debug)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < LM_COPY_CLASSES; i++)
		class_reset(&s->cls[i]);
	s->debug = debug && *debug && strcmp(debug, "0");
	if (!mode || !*mode || !strcmp(mode, "auto"))
		s->mode = LM_COPY_AUTO;
	else if (!strcmp(mode, "kernel"))
		s->mode = LM_COPY_FORCE_KERNEL;
	else if (!strcmp(mode, "mapped"))
		s->mode = LM_COPY_FORCE_MAPPED;
	else
		return -EINVAL;
	return 0;
}

int lm_copy_next(struct lm_copy_state *s, uint64_t len, int *timed)
{
	struct lm_copy_class *c = &s->cls[lm_copy_class_of(len)];

	*timed = 0;
	if (s->mode == LM_COPY_FORCE_KERNEL)
		return LM_COPY_KERNEL;
	if (s->mode == LM_COPY_FORCE_MAPPED)
		return LM_COPY_MAPPED;
	if (c->choice >= 0) {
		if (++c->uses <= LM_COPY_RECHECK)
			return c->choice;
		/* Measure again; the last choice stays reported till then. */
		class_reset(c);
	}
	*timed = 1;
	/* Alternate, the mapped copy (the one that needs no choice) first. */
	return c->n[LM_COPY_MAPPED] <= c->n[LM_COPY_KERNEL] ? LM_COPY_MAPPED :
							      LM_COPY_KERNEL;
}

void lm_copy_record(struct lm_copy_state *s, uint64_t len, int method,
		    uint64_t ns)
{
	unsigned int k = lm_copy_class_of(len);
	struct lm_copy_class *c = &s->cls[k];
	double per = len ? (double)ns / (double)len : 0;

	if (c->choice >= 0 || method < 0 || method >= LM_COPY_NMETHODS)
		return;
	if (!c->n[method] || per < c->best[method])
		c->best[method] = per;
	c->n[method]++;
	c->choice = lm_copy_choose(c->best, c->n, LM_COPY_TRIALS);
	if (c->choice < 0)
		return;
	c->uses = 0;
	s->chose[c->choice] |= 1ULL << k;
	s->chose[!c->choice] &= ~(1ULL << k);
	if (s->debug)
		fprintf(stderr, "mpichan copy: rank %u, %llu-%llu bytes: kernel %.0f MB/s, mapped %.0f MB/s: %s\n",
			s->rank, 1ULL << k, (2ULL << k) - 1,
			1e3 / c->best[LM_COPY_KERNEL],
			1e3 / c->best[LM_COPY_MAPPED], method_name[c->choice]);
}
