// SPDX-License-Identifier: MIT
/*
 * A window's segment: the memory every member maps (rma.h has its
 * layout): the lock words of passive target and accumulates, the
 * tables of a dynamic window, and the ranks' memory of
 * MPI_Win_allocate and MPI_Win_allocate_shared.
 *
 * The window's rank 0 makes it, a memfd (close-on-exec, sized with
 * ftruncate: its pages come on first touch), and tells the others its
 * pid and fd; they open /proc/<pid>/fd/<fd> (the ranks are processes
 * of one user, which may open each other's files this way), map it
 * and close the fd.  Once every member has it mapped rank 0 closes its
 * fd too, so the segment lives exactly as long as a mapping of it:
 * whatever ends the processes, nothing is left behind (no name in
 * /dev/shm, no file).  The job's own memory cannot grow (the launcher
 * or the module made it once), hence a file per window.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rma/rma.h"

#define LINE	64ULL
#define ALIGN(x, a)	(((x) + (a) - 1) & ~((a) - 1))

void lm_win_layout(uint32_t n, int attach, uint64_t data,
		   struct lm_win_layout *l)
{
	uint64_t at;

	l->row = ALIGN((uint64_t)n, LINE);
	l->ctl = LINE;
	l->slots = l->ctl + (uint64_t)n * sizeof(struct lm_win_ctl);
	l->waiting = l->slots + (uint64_t)n * l->row;
	l->atomics = l->waiting + (uint64_t)n * l->row;
	l->attach = l->atomics + (uint64_t)n * l->row;
	at = l->attach;
	if (attach)
		at += (uint64_t)n * LM_WIN_ATTACH_MAX * sizeof(struct lm_rma_desc);
	l->data = ALIGN(at, (uint64_t)sysconf(_SC_PAGESIZE));
	l->bytes = l->data + data;
}

/* What rank 0 tells the others. */
struct seg_offer {
	int32_t err;		/* an MPI error class: no segment */
	int32_t pid;
	int32_t fd;
	int32_t pad;
};

static int errno_class(int e)
{
	return e == ENOMEM || e == ENOSPC || e == EFBIG || e == EMFILE ||
		e == ENFILE ? MPI_ERR_NO_MEM : MPI_ERR_RMA_SHARED;
}

static unsigned char *map_fd(int fd, uint64_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

int lm_seg_make(MPI_Comm comm, uint64_t bytes, unsigned char **map,
		const char **why)
{
	static __thread char msg[128];
	struct seg_offer o = { 0 };
	unsigned char *p = NULL;
	int rank, err, any = 0, fd = -1;
	char path[64];
	struct stat st;

	*map = NULL;
	*why = msg;
	msg[0] = 0;
	MPI_Comm_rank(comm, &rank);
	if (rank == 0) {
		o.pid = (int32_t)getpid();
		fd = (int)syscall(SYS_memfd_create, "mpichan-win",
				  (unsigned int)MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)bytes) < 0 ||
		    !(p = map_fd(fd, bytes))) {
			o.err = errno_class(errno);
			snprintf(msg, sizeof(msg),
				 "cannot make the window's %llu bytes of shared memory: %s",
				 (unsigned long long)bytes, strerror(errno));
			if (fd >= 0)
				close(fd);
			fd = -1;
		}
		o.fd = fd;
	}
	err = MPI_Bcast(&o, (int)sizeof(o), MPI_BYTE, 0, comm);
	if (err) {
		snprintf(msg, sizeof(msg), "a member of the window failed");
		goto fail;
	}
	if (o.err) {
		if (rank)
			snprintf(msg, sizeof(msg),
				 "the window's rank 0 could not make its shared memory");
		err = o.err;
		goto fail;
	}
	if (rank) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)o.pid,
			 (int)o.fd);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) < 0 ||
				(uint64_t)st.st_size < bytes)) {
			close(fd);	/* not the window's */
			fd = -1;
			errno = EINVAL;
		}
		if (fd < 0 || !(p = map_fd(fd, bytes))) {
			any = errno_class(errno);
			snprintf(msg, sizeof(msg),
				 "cannot map the window's shared memory (%s): %s",
				 path, strerror(errno));
		}
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	/* Everybody has it mapped (or nobody keeps it). */
	err = MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm);
	if (rank == 0 && o.fd >= 0)
		close(o.fd);
	if (err) {
		snprintf(msg, sizeof(msg), "a member of the window failed");
		goto fail;
	}
	if (any) {
		if (p && !*msg)
			snprintf(msg, sizeof(msg),
				 "another member could not map the window's shared memory");
		err = any;
		goto fail;
	}
	if (rank == 0) {
		struct lm_win_shm *h = (struct lm_win_shm *)p;
		int n;

		MPI_Comm_size(comm, &n);
		h->magic = LM_WIN_SHM_MAGIC;
		h->nranks = (uint32_t)n;
		h->bytes = bytes;
	}
	*map = p;
	return MPI_SUCCESS;
fail:
	if (p)
		munmap(p, bytes ? bytes : 1);
	return err;
}

void lm_seg_unmap(unsigned char *map, uint64_t bytes)
{
	if (map)
		munmap(map, bytes ? bytes : 1);
}
