// SPDX-License-Identifier: GPL-2.0
/*
 * uct_fork: the transport's mapping cache (uct/rkey.c) across fork().
 *
 * The process registers a buffer as a region (REGION_REG, as the memory
 * domain does) and asks the transport, through its remote-key calls,
 * for a pointer to it: the region is mapped and the mapping cached.  It
 * keeps one key in use and forks.  The module's mappings are not copied
 * into the child, so the child:
 *
 *   - maps memory of its own where the cached mapping was (the hole
 *     must be free) and fills it;
 *   - asks for a pointer to the same region: it must be a new mapping
 *     that shows the region, not the cached address (which now shows
 *     the child's own memory);
 *   - asks the key kept over the fork: refused, not a stale pointer;
 *   - releases everything and empties the cache (what the library's
 *     destructor does at exit): its own memory must still be there.
 *
 * The parent still gets its cached mapping afterwards.  Prints "ok";
 * exits 77 without /dev/mpichan, 1 on a failure.
 *
 *   cc uct_fork.c -I uapi -L build/uct -l:libuct_mpichan.so -luct -lucs
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uct/api/uct.h>
#include <linux/mpichan.h>

/* The transport's remote-key calls (uct/uct_mpichan.h). */
struct key {
	uint64_t handle, key, address, length;
};
ucs_status_t uct_mpichan_rkey_unpack(uct_component_h c, const void *buffer,
				     uct_rkey_t *rkey_p, void **handle_p);
ucs_status_t uct_mpichan_rkey_ptr(uct_component_h c, uct_rkey_t rkey,
				  void *handle, uint64_t remote_addr,
				  void **local_p);
ucs_status_t uct_mpichan_rkey_release(uct_component_h c, uct_rkey_t rkey,
				      void *handle);
void uct_mpichan_map_cache_cleanup(void);

#define LEN	(4 * 4096)

static const char *who = "parent";

#define FAIL(...) do {							\
	printf("uct_fork: %s: ", who);					\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	fflush(stdout);							\
	_exit(1);							\
} while (0)

static int all(const char *p, char c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

/* A pointer to the region's first byte through rkey (kept in *r). */
static char *ptr(const struct key *k, uct_rkey_t *r, ucs_status_t *st)
{
	void *h, *p = NULL;

	if (uct_mpichan_rkey_unpack(NULL, k, r, &h) != UCS_OK)
		FAIL("rkey_unpack");
	*st = uct_mpichan_rkey_ptr(NULL, *r, h, k->address, &p);
	return p;
}

static void release(uct_rkey_t r)
{
	if (uct_mpichan_rkey_release(NULL, r, NULL) != UCS_OK)
		FAIL("rkey_release");
}

static void child(const struct key *k, char *cached, uct_rkey_t kept)
{
	ucs_status_t st;
	uct_rkey_t r;
	char *own, *p;
	void *q = NULL;

	who = "child";
	own = mmap(cached, LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (own != cached)
		FAIL("the cached mapping's place %p is not free after fork (%s)",
		     cached, own == MAP_FAILED ? strerror(errno) : "elsewhere");
	memset(own, 'C', LEN);
	p = ptr(k, &r, &st);
	if (st != UCS_OK)
		FAIL("no pointer to the region: %s", ucs_status_string(st));
	if (p == cached)
		FAIL("the pointer is the mapping cached before fork (%p)", p);
	if (!all(p, 'A', LEN))
		FAIL("the new mapping does not show the region");
	release(r);
	st = uct_mpichan_rkey_ptr(NULL, kept, NULL, k->address, &q);
	if (st == UCS_OK)
		FAIL("a key unpacked before fork gave pointer %p", q);
	release(kept);
	uct_mpichan_map_cache_cleanup();
	if (!all(own, 'C', LEN))
		FAIL("the child's own memory changed");
	printf("uct_fork: child ok\n");
	fflush(stdout);
	_exit(0);
}

int main(void)
{
	struct mpichan_region_reg reg;
	struct key k;
	ucs_status_t st;
	uct_rkey_t r, kept;
	char *buf, *p, *p2;
	int fd, status;
	pid_t pid;

	fd = open("/dev/mpichan", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("SKIP: /dev/mpichan: %s\n", strerror(errno));
		return 77;
	}
	buf = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		FAIL("mmap");
	memset(buf, 'A', LEN);
	memset(&reg, 0, sizeof(reg));
	reg.addr = (uintptr_t)buf;
	reg.len = LEN;
	reg.flags = MPICHAN_REGION_WRITE;
	if (ioctl(fd, MPICHAN_IOC_REGION_REG, &reg) < 0)
		FAIL("REGION_REG: %s", strerror(errno));
	k = (struct key){ reg.handle, reg.key, (uintptr_t)buf, LEN };

	p = ptr(&k, &r, &st);
	if (st != UCS_OK || p == buf || !all(p, 'A', LEN))
		FAIL("no mapping of the region (%s)", ucs_status_string(st));
	release(r);
	p2 = ptr(&k, &kept, &st);	/* in use over the fork */
	if (st != UCS_OK || p2 != p)
		FAIL("the mapping was not cached (%p, then %p)", p, p2);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (pid == 0)
		child(&k, p, kept);
	if (waitpid(pid, &status, 0) != pid)
		FAIL("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		FAIL("the child %s %d", WIFEXITED(status) ? "exited with" :
		     "was killed by signal", WIFEXITED(status) ?
		     WEXITSTATUS(status) : WTERMSIG(status));
	p2 = ptr(&k, &r, &st);
	if (st != UCS_OK || p2 != p || !all(p2, 'A', LEN))
		FAIL("the cached mapping is lost after the fork");
	release(r);
	release(kept);
	printf("ok\n");
	return 0;
}
