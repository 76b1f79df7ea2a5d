/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the registered-region kselftests (MPICHAN_IOC_REGION_*):
 * wrappers returning 0 or -errno, a store probe beside xf_probe(), and
 * a wait for debugfs counters that settle asynchronously.
 */
#ifndef MPICHAN_REGION_HELPERS_H
#define MPICHAN_REGION_HELPERS_H

#include "xfer_helpers.h"

#define RG_PAGE	4096UL

/* Does the loaded module have registered regions? */
static inline int rg_feature(void)
{
	struct mpichan_version v = { 0 };
	int fd = mc_open();

	if (fd < 0)
		return 0;
	if (ioctl(fd, MPICHAN_IOC_VERSION, &v))
		v.features = 0;
	close(fd);
	return !!(v.features & MPICHAN_FEAT_REGION);
}

static inline int rg_reg(int fd, const void *addr, uint64_t len,
			 uint32_t flags, struct mpichan_region_reg *out)
{
	struct mpichan_region_reg a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)addr;
	a.len = len;
	a.flags = flags;
	ret = ioctl(fd, MPICHAN_IOC_REGION_REG, &a) ? -errno : 0;
	if (out)
		*out = a;
	return ret;
}

static inline int rg_dereg(int fd, uint64_t handle)
{
	struct mpichan_region_dereg d;

	memset(&d, 0, sizeof(d));
	d.handle = handle;
	return ioctl(fd, MPICHAN_IOC_REGION_DEREG, &d) ? -errno : 0;
}

static inline int rg_query(int fd, uint64_t handle, uint64_t key,
			   struct mpichan_region_query *out)
{
	struct mpichan_region_query q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.handle = handle;
	q.key = key;
	ret = ioctl(fd, MPICHAN_IOC_REGION_QUERY, &q) ? -errno : 0;
	if (out)
		*out = q;
	return ret;
}

static inline int rg_map(int fd, uint64_t handle, uint64_t key, uint32_t flags,
			 struct mpichan_region_map *out)
{
	struct mpichan_region_map m;
	int ret;

	memset(&m, 0, sizeof(m));
	m.handle = handle;
	m.key = key;
	m.flags = flags;
	ret = ioctl(fd, MPICHAN_IOC_REGION_MAP, &m) ? -errno : 0;
	if (out)
		*out = m;
	return ret;
}

/* MAP, then mmap() len bytes with prot: the address or MAP_FAILED. */
static inline unsigned char *rg_mmap(int fd, const struct mpichan_region_reg *r,
				     uint32_t flags, size_t len, int prot)
{
	struct mpichan_region_map m;
	void *p;

	if (rg_map(fd, r->handle, r->key, flags, &m))
		return MAP_FAILED;
	p = mmap(NULL, len, prot, MAP_SHARED, fd, m.offset);
	return p == MAP_FAILED ? MAP_FAILED : (unsigned char *)p;
}

/* A batch: 0 or -errno, with how far it got in *done and *bytes. */
static inline int rg_copyv(int fd, const struct mpichan_rcopy *e, uint32_t n,
			   uint32_t *done, uint64_t *bytes)
{
	struct mpichan_region_copy c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.entries = (uintptr_t)e;
	c.count = n;
	c.done = 0xdead;
	c.bytes = 0xdeadbeef;
	ret = ioctl(fd, MPICHAN_IOC_REGION_COPY, &c) ? -errno : 0;
	if (done)
		*done = c.done;
	if (bytes)
		*bytes = c.bytes;
	return ret;
}

static inline struct mpichan_rcopy rg_entry(const struct mpichan_region_reg *r,
					    uint64_t off, const void *buf,
					    uint64_t len, int put)
{
	struct mpichan_rcopy e;

	memset(&e, 0, sizeof(e));
	e.addr = (uintptr_t)buf;
	e.len = len;
	e.handle = r->handle;
	e.key = r->key;
	e.offset = off;
	e.flags = put ? MPICHAN_RCOPY_PUT : 0;
	return e;
}

/* One copy out of region r (get) or into it (put): 0 or -errno. */
static inline int rg_get(int fd, const struct mpichan_region_reg *r,
			 uint64_t off, void *buf, uint64_t len)
{
	struct mpichan_rcopy e = rg_entry(r, off, buf, len, 0);

	return rg_copyv(fd, &e, 1, NULL, NULL);
}

static inline int rg_put(int fd, const struct mpichan_region_reg *r,
			 uint64_t off, const void *buf, uint64_t len)
{
	struct mpichan_rcopy e = rg_entry(r, off, buf, len, 1);

	return rg_copyv(fd, &e, 1, NULL, NULL);
}

/* Store v at p: 0, or the signal the store raised. */
static inline int rg_probe_write(volatile unsigned char *p, unsigned char v)
{
	struct sigaction sa, obus, osegv;
	volatile int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = xf_probe_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	sig = sigsetjmp(xf_probe_env, 1);
	if (!sig)
		*p = v;
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return sig;
}

/*
 * A debugfs counter that reaches want once asynchronous releases are
 * done (a few milliseconds; 5 s at most): its last value.
 */
static inline long rg_settled(const char *name, long want)
{
	long v = mc_stat(name);
	int i;

	for (i = 0; i < 500 && v != want; i++) {
		mc_sleep_ms(10);
		v = mc_stat(name);
	}
	return v;
}

/* The "region" line of handle in debugfs regions, parsed. */
struct rg_line {
	unsigned int handle, uid;
	int pid, maps;
	unsigned long long len;
	unsigned long pages, map_pages;
	char writable[8], state[16];
	long long copies, bytes_in, bytes_out;
};

/* 0, -ENOENT when there is no line for handle, or -errno. */
static inline int rg_debugfs(uint64_t handle, struct rg_line *l)
{
	static char buf[1 << 16];
	char *line, *save = NULL;
	int ret;

	ret = mc_read_file(MC_DEBUGFS "/regions", buf, sizeof(buf));
	if (ret < 0)
		return ret;
	if (strncmp(buf, "region handle pid uid len pages map_pages writable state maps copies bytes_in bytes_out\n", 88))
		return -EBADMSG;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		memset(l, 0, sizeof(*l));
		if (sscanf(line, "region %u %d %u %llu %lu %lu %7s %15s %d %lld %lld %lld",
			   &l->handle, &l->pid, &l->uid, &l->len, &l->pages,
			   &l->map_pages, l->writable, l->state, &l->maps,
			   &l->copies, &l->bytes_in, &l->bytes_out) == 12 &&
		    l->handle == handle)
			return 0;
	}
	return -ENOENT;
}

/*
 * The line of handle once the module's verdict on an invalidation of its
 * owner's memory is in (state not "checking"; 10 s at most).
 */
static inline int rg_verdict(uint64_t handle, struct rg_line *l)
{
	int i, ret = rg_debugfs(handle, l);

	for (i = 0; i < 1000 && !ret && !strcmp(l->state, "checking"); i++) {
		mc_sleep_ms(10);
		ret = rg_debugfs(handle, l);
	}
	return ret;
}

#endif /* MPICHAN_REGION_HELPERS_H */
