// SPDX-License-Identifier: MIT
/*
 * Temporaries: packed messages (p2p, rndv), one-sided staging (rma) and
 * the collectives' schedules (coll_sched.c's lm_sched_tmp).
 *
 * Below LM_SCRATCH_MIN a temporary is plain malloc().  Larger ones are
 * mmap'd here and kept after use for the next one: malloc() serves a
 * block above its mmap threshold (32 MiB at most) fresh from the kernel
 * and free() returns it, so every use page-faulted and zeroed the whole
 * block again; at 2 ranks natively an MPI_Reduce of 1 GiB spent more
 * time clearing its temporaries' pages than reducing (Documentation/
 * performance.md, "Collective temporaries").
 *
 * Kept: up to LM_SCRATCH_SLOTS blocks, MPICHAN_SCRATCH_KEEP bytes in all
 * (default 1 GiB, enough for a 1 GiB reduction's temporary; 0: none;
 * a block counts its bytes but its header's page).  A request takes
 * the smallest kept block that holds it, if no more than 4 times its
 * size (a small request does not tie up a large block); a block given
 * back that does not fit the budget replaces smaller ones, or is
 * unmapped.  Blocks of LM_SCRATCH_LAZY bytes and more are marked
 * MADV_FREE while kept, so that the kernel may take their pages back
 * under memory pressure (a block reused after that faults in zeroed
 * pages, as a new one would); smaller ones are not, as the system call
 * would cost a small packed message more than it saves.
 *
 * Each block starts with a header (its mapped size), so a block
 * serves a request smaller than itself.  The slots have their own mutex:
 * a schedule may be freed by whichever thread completes it.  Under ASan
 * a block is poisoned but for the bytes asked for, and wholly while
 * kept, so an overrun or a use after the put is still reported.
 */

#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "base/base.h"

#define LM_SCRATCH_MIN		(64ULL << 10)	/* smaller: malloc/free */
#define LM_SCRATCH_LAZY		(64ULL << 20)	/* MADV_FREE while kept */
#define LM_SCRATCH_SLOTS	8
#define LM_SCRATCH_HEAD		64		/* a cache line: alignment */

uint64_t lm_scratch_keep = 1ULL << 30;

static struct {
	char *map;		/* the mapping (its header first) */
	uint64_t size;		/* its bytes; 0: the slot is empty */
} slots[LM_SCRATCH_SLOTS];
static uint64_t kept;		/* bytes in the slots */
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;

/* What a block counts against the budget: its bytes but the header's page. */
static uint64_t room(uint64_t size)
{
	return size - 4096;
}

static uint64_t *head(char *map)
{
	return (uint64_t *)(void *)map;
}

/* The block's size from its header, which ASan may have poisoned. */
static uint64_t size_of(char *map)
{
	ASAN_UNPOISON_MEMORY_REGION(map, LM_SCRATCH_HEAD);
	return *head(map);
}

static void unmap(char *map, uint64_t size)
{
	ASAN_UNPOISON_MEMORY_REGION(map, size);
	munmap(map, size);
}

/* Unmap the block in slot i (the lock held). */
static void drop(int i)
{
	unmap(slots[i].map, slots[i].size);
	kept -= room(slots[i].size);
	slots[i].size = 0;
	slots[i].map = NULL;
}

void *lm_scratch_get(uint64_t bytes)
{
	uint64_t need = (bytes + LM_SCRATCH_HEAD + 4095) & ~4095ULL;
	char *map = NULL;
	int i, best = -1;

	if (bytes < LM_SCRATCH_MIN)
		return malloc(bytes ? bytes : 1);
	pthread_mutex_lock(&scratch_lock);
	for (i = 0; i < LM_SCRATCH_SLOTS; i++)
		if (slots[i].size >= need && slots[i].size / 4 <= need &&
		    (best < 0 || slots[i].size < slots[best].size))
			best = i;
	if (best >= 0) {
		LM_COUNT_ATOMIC(scratch_reused);
		map = slots[best].map;
		kept -= room(slots[best].size);
		slots[best].size = 0;
		slots[best].map = NULL;
	}
	pthread_mutex_unlock(&scratch_lock);
	if (!map) {
		map = mmap(NULL, need, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED)
			return NULL;
		LM_COUNT_ATOMIC(scratch_mapped);
		*head(map) = need;
	}
	ASAN_POISON_MEMORY_REGION(map, size_of(map));
	ASAN_UNPOISON_MEMORY_REGION(map + LM_SCRATCH_HEAD, bytes);
	return map + LM_SCRATCH_HEAD;
}

void lm_scratch_put(void *p, uint64_t bytes)
{
	uint64_t size;
	int i, empty, small;
	char *map;

	if (!p)
		return;
	if (bytes < LM_SCRATCH_MIN) {
		free(p);
		return;
	}
	map = (char *)p - LM_SCRATCH_HEAD;
	size = size_of(map);
	if (size >= LM_SCRATCH_LAZY)	/* never the header's page */
		madvise(map + 4096, size - 4096, MADV_FREE);
	ASAN_POISON_MEMORY_REGION(map, size);
	pthread_mutex_lock(&scratch_lock);
	while (room(size) <= lm_scratch_keep) {
		empty = small = -1;
		for (i = 0; i < LM_SCRATCH_SLOTS; i++)
			if (!slots[i].size)
				empty = i;
			else if (small < 0 || slots[i].size < slots[small].size)
				small = i;
		if (empty >= 0 && kept + room(size) <= lm_scratch_keep) {
			slots[empty].map = map;
			slots[empty].size = size;
			kept += room(size);
			pthread_mutex_unlock(&scratch_lock);
			return;
		}
		/* No room: drop a smaller kept block, or keep none of this. */
		if (small < 0 || slots[small].size >= size)
			break;
		drop(small);
	}
	pthread_mutex_unlock(&scratch_lock);
	unmap(map, size);
}

/* A new budget (MPI_T): the largest kept blocks go until the rest fit. */
void lm_scratch_set_keep(uint64_t keep)
{
	int i, big;

	pthread_mutex_lock(&scratch_lock);
	lm_scratch_keep = keep;
	while (kept > keep) {
		big = 0;
		for (i = 1; i < LM_SCRATCH_SLOTS; i++)
			if (slots[i].size > slots[big].size)
				big = i;
		drop(big);
	}
	pthread_mutex_unlock(&scratch_lock);
}

void lm_scratch_drop(void)
{
	int i;

	pthread_mutex_lock(&scratch_lock);
	for (i = 0; i < LM_SCRATCH_SLOTS; i++)
		if (slots[i].size)
			drop(i);
	pthread_mutex_unlock(&scratch_lock);
}
