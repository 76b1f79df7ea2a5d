// SPDX-License-Identifier: MIT
/*
 * Reaching a peer's memory over /dev/mpichan: the module's registered
 * regions (uapi/linux/mpichan.h, "Registered regions"), and which way
 * windows use (lm_rma_mem).
 *
 * expose registers the range on the rank's own device fd
 * (MPICHAN_IOC_REGION_REG, writable; read-only when the memory is):
 * pinned once, named by a handle and a 64-bit key that go to the peers
 * in struct lm_rma_desc.  attach maps a writable region's whole pages
 * into the origin (REGION_MAP, then mmap() of the same fd): a Put or Get
 * inside them is a load or a store, made by the origin alone, with no
 * system call.  copy_to and copy_from reach what the mapping does not
 * cover (a partial first or last page, a read-only region, a mapping
 * that was refused) by key, every run of a batch in one REGION_COPY.
 * A region that went stale while its owner lives (the module ends it
 * for any change of the owner's page tables but a protection change: a
 * fork, a huge page split next to it) is unmapped and reached by
 * process_vm from then on (dev_to_vm).
 * detach unmaps, unexpose deregisters (DEREG: the module zaps every
 * peer's mapping and waits for the copies under way, so nothing stays
 * pinned).  A rank's file ends its regions when it dies, whatever
 * killed it: the module zaps the survivors' mappings of them.
 *
 * A zapped mapping raises SIGBUS when touched.  A survivor may touch
 * its mapping of a dead peer's region before it learns of the death
 * (or an operation may be under way when the peer dies), so this file
 * installs a SIGBUS handler while it has mappings: a fault inside one
 * of them puts anonymous memory in its place (the store or load goes
 * there, the data is lost as the peer is) and marks it lost; the next
 * operation on it fails (check), and the epoch's synchronisation call
 * reports the dead rank (MPI_ERR_PROC_FAILED) as over the fallback.  A
 * fault anywhere else goes to the handler that was there before (or the
 * default action).
 *
 * Memory the module will not register (RLIMIT_MEMLOCK without
 * CAP_IPC_LOCK, a length of 0, no free handle) is exposed the
 * fallback's way, process_vm_readv/writev (mem_vm.c); so is a rank's own
 * memory reached.  Accumulates keep holding the target's accumulate
 * lock as over the fallback (mem_vm.c says why).
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "rma/rma.h"

/* struct lm_rma_desc.flags */
#define DEV_REGION	(1U << 0)	/* handle and key name a region */
#define DEV_WRITE	(1U << 1)	/* ... registered writable */

/* ---- The mappings the SIGBUS handler knows -------------------------------- */

struct dev_map {
	uintptr_t lo, hi;	/* [lo, hi) here; hi 0: a free slot */
	int lost;		/* the handler put anonymous memory there */
};

#define DEV_MAPS	4096

static struct dev_map dev_maps[DEV_MAPS];
static pthread_mutex_t dev_maps_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t dev_bus_once = PTHREAD_ONCE_INIT;
static struct sigaction dev_old_bus;
static int dev_bus_ok;

static void dev_bus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr, lo, hi;
	struct sigaction dfl;
	void *p;
	int i;

	for (i = 0; i < DEV_MAPS; i++) {
		hi = __atomic_load_n(&dev_maps[i].hi, __ATOMIC_ACQUIRE);
		lo = __atomic_load_n(&dev_maps[i].lo, __ATOMIC_RELAXED);
		if (!hi || a < lo || a >= hi)
			continue;
		p = mmap((void *)lo, hi - lo, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			break;
		__atomic_store_n(&dev_maps[i].lost, 1, __ATOMIC_RELEASE);
		return;
	}
	if (dev_old_bus.sa_flags & SA_SIGINFO) {
		if (dev_old_bus.sa_sigaction) {
			dev_old_bus.sa_sigaction(sig, si, uc);
			return;
		}
	} else if (dev_old_bus.sa_handler != SIG_DFL &&
		   dev_old_bus.sa_handler != SIG_IGN) {
		dev_old_bus.sa_handler(sig);
		return;
	}
	/* The default action: the fault comes again on return. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGBUS, &dfl, NULL);
}

static void dev_bus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = dev_bus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	dev_bus_ok = !sigaction(SIGBUS, &sa, &dev_old_bus);
}

/* A slot for [lo, hi), or NULL (then the caller does not map). */
static struct dev_map *dev_map_add(uintptr_t lo, uintptr_t hi)
{
	struct dev_map *m = NULL;
	int i;

	pthread_once(&dev_bus_once, dev_bus_install);
	if (!dev_bus_ok)
		return NULL;
	pthread_mutex_lock(&dev_maps_lock);
	for (i = 0; i < DEV_MAPS; i++) {
		if (!__atomic_load_n(&dev_maps[i].hi, __ATOMIC_RELAXED)) {
			m = &dev_maps[i];
			m->lost = 0;
			__atomic_store_n(&m->lo, lo, __ATOMIC_RELAXED);
			__atomic_store_n(&m->hi, hi, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&dev_maps_lock);
	return m;
}

static void dev_map_del(struct dev_map *m)
{
	pthread_mutex_lock(&dev_maps_lock);
	__atomic_store_n(&m->hi, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&dev_maps_lock);
}

/* ---- The region interface ---------------------------------------------- */

static int dev_fd(void)
{
	return lm.job.ep.fd;
}

/* A region that ended or went stale: its owner gone, or its memory. */
static int dev_gone(const struct lm_rma_remote *r)
{
	if (kill((pid_t)r->d.pid, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	return -EFAULT;
}

static int dev_expose(void *base, uint64_t len, struct lm_rma_desc *d)
{
	struct mpichan_region_reg a;
	int e;

	lm_rma_mem_vm.expose(base, len, d);
	if (!len)
		return 0;
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)base;
	a.len = len;
	a.flags = MPICHAN_REGION_WRITE;
	e = ioctl(dev_fd(), MPICHAN_IOC_REGION_REG, &a) ? errno : 0;
	if (e == EFAULT) {
		/* Memory this process may only read. */
		a.flags = 0;
		e = ioctl(dev_fd(), MPICHAN_IOC_REGION_REG, &a) ? errno : 0;
	}
	if (e == ENOMEM || e == ENOSPC || e == EAGAIN)
		return 0;	/* the fallback's way */
	if (e)
		return -e;
	d->handle = a.handle;
	d->key = a.key;
	d->flags = DEV_REGION | (a.flags ? DEV_WRITE : 0);
	return 0;
}

static void dev_unexpose(struct lm_rma_desc *d)
{
	struct mpichan_region_dereg a;

	if (!(d->flags & DEV_REGION))
		return;
	memset(&a, 0, sizeof(a));
	a.handle = d->handle;
	/* Waits for the copies under way; the peers' mappings are zapped. */
	while (ioctl(dev_fd(), MPICHAN_IOC_REGION_DEREG, &a) && errno == EINTR)
		;
	d->flags = 0;
}

static int dev_attach(const struct lm_rma_desc *d, struct lm_rma_remote *r)
{
	struct mpichan_region_map m;
	struct dev_map *slot;
	void *p;

	if (!(d->flags & DEV_REGION) || d->pid == (uint32_t)getpid())
		return lm_rma_mem_vm.attach(d, r);
	memset(r, 0, sizeof(*r));
	r->d = *d;
	/* A read-only region is copied out of, never mapped. */
	if (!(d->flags & DEV_WRITE))
		return 0;
	memset(&m, 0, sizeof(m));
	m.handle = d->handle;
	m.key = d->key;
	m.flags = MPICHAN_REGION_WRITE;
	if (ioctl(dev_fd(), MPICHAN_IOC_REGION_MAP, &m)) {
		if (errno == ENOENT || errno == ESTALE) {
			if (dev_gone(r) == -ESRCH)
				return -ESRCH;
			r->d.flags = 0;	/* the owner lives: process_vm */
			return 0;
		}
		if (errno == EPERM || errno == EACCES)
			return -errno;
		return 0;	/* copy by key only */
	}
	if (!m.map_len)
		return 0;	/* no whole page */
	p = mmap(NULL, m.map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dev_fd(), (off_t)m.offset);
	if (p == MAP_FAILED)
		return 0;
	slot = dev_map_add((uintptr_t)p, (uintptr_t)p + m.map_len);
	if (!slot) {
		munmap(p, m.map_len);
		return 0;
	}
	r->map = p;
	r->map_lo = d->addr + m.map_start;
	r->map_hi = r->map_lo + m.map_len;
	r->priv = slot;
	return 0;
}

static void dev_detach(struct lm_rma_remote *r)
{
	if (r->priv) {
		dev_map_del(r->priv);
		munmap(r->map, r->map_hi - r->map_lo);
	}
	memset(r, 0, sizeof(*r));
}

/*
 * The region went stale (the owner's memory behind it changed: the
 * module ends it for any change but a protection one) or ended while
 * its owner lives: unmap it and reach the memory the fallback's way,
 * which sees what is there now.
 */
static void dev_to_vm(struct lm_rma_remote *r)
{
	if (r->priv) {
		dev_map_del(r->priv);
		munmap(r->map, r->map_hi - r->map_lo);
	}
	r->priv = NULL;
	r->map = NULL;
	r->map_lo = r->map_hi = 0;
	r->d.flags = 0;
}

/*
 * A mapping the SIGBUS handler replaced: its owner died (-ESRCH), or
 * its region went stale; then what was stored there since is lost, said
 * once (-EFAULT), and the memory is reached by process_vm from now on.
 */
static int dev_check(struct lm_rma_remote *r)
{
	const struct dev_map *m = r->priv;

	if (!m || !__atomic_load_n(&m->lost, __ATOMIC_ACQUIRE))
		return 0;
	if (dev_gone(r) == -ESRCH)
		return -ESRCH;
	dev_to_vm(r);
	return -EFAULT;
}

/* A copy by key of the owner's [lo, hi) against local memory at p. */
static void dev_entry(const struct lm_rma_remote *r, struct mpichan_rcopy *e,
		      unsigned char *p, uint64_t lo, uint64_t hi, int write)
{
	e->addr = (uintptr_t)p;
	e->len = hi - lo;
	e->handle = r->d.handle;
	e->key = r->d.key;
	e->offset = lo - r->d.addr;
	e->flags = write ? MPICHAN_RCOPY_PUT : 0;
}

/*
 * The n runs against buf: what lies in the mapping through it, the
 * rest (partial pages) by key, in one REGION_COPY per 1024 pieces.
 */
static int dev_copy(struct lm_rma_remote *r, unsigned char *buf,
		    const struct lm_rma_run *run, uint32_t n, int write)
{
	struct mpichan_rcopy *e = NULL;
	struct mpichan_region_copy c;
	uint64_t off = 0;
	uint32_t k, m = 0;
	int err = 0;

	if (!(r->d.flags & DEV_REGION) || !r->d.handle)
		return write ? lm_rma_mem_vm.copy_to(r, buf, run, n) :
			lm_rma_mem_vm.copy_from(r, buf, run, n);
	for (k = 0; k < n; off += run[k].len, k++) {
		uint64_t lo = run[k].addr, hi = lo + run[k].len;
		uint64_t mlo = lo, mhi = lo;	/* the part in the mapping */

		if (r->map && lo < r->map_hi && hi > r->map_lo) {
			mlo = lo > r->map_lo ? lo : r->map_lo;
			mhi = hi < r->map_hi ? hi : r->map_hi;
			if (write)
				memcpy(r->map + (mlo - r->map_lo),
				       buf + off + (mlo - lo), mhi - mlo);
			else
				memcpy(buf + off + (mlo - lo),
				       r->map + (mlo - r->map_lo), mhi - mlo);
		}
		/* The rest by key: a head before the mapping, a tail after. */
		if (mhi - mlo == hi - lo)
			continue;
		if (!e) {
			e = calloc(2 * (size_t)n, sizeof(*e));
			if (!e)
				return -ENOMEM;
		}
		if (mlo == mhi) {
			dev_entry(r, &e[m++], buf + off, lo, hi, write);
			continue;
		}
		if (lo < mlo)
			dev_entry(r, &e[m++], buf + off, lo, mlo, write);
		if (mhi < hi)
			dev_entry(r, &e[m++], buf + off + (mhi - lo), mhi, hi,
				  write);
	}
	for (k = 0; k < m && !err; k += MPICHAN_REGION_COPY_MAX) {
		memset(&c, 0, sizeof(c));
		c.entries = (uintptr_t)(e + k);
		c.count = m - k < MPICHAN_REGION_COPY_MAX ?
			m - k : MPICHAN_REGION_COPY_MAX;
		if (ioctl(dev_fd(), MPICHAN_IOC_REGION_COPY, &c))
			err = -errno;
	}
	free(e);
	if (!err)
		err = dev_check(r);
	if (err == -ENOENT || err == -ESTALE || err == -EFAULT) {
		/* Again the fallback's way, unless the owner is gone. */
		if (dev_gone(r) == -ESRCH)
			return -ESRCH;
		dev_to_vm(r);
		return write ? lm_rma_mem_vm.copy_to(r, buf, run, n) :
			lm_rma_mem_vm.copy_from(r, buf, run, n);
	}
	return err;
}

static int dev_copy_to(struct lm_rma_remote *r, const void *buf,
		       const struct lm_rma_run *runs, uint32_t n)
{
	return dev_copy(r, (unsigned char *)(uintptr_t)buf, runs, n, 1);
}

static int dev_copy_from(struct lm_rma_remote *r, void *buf,
			 const struct lm_rma_run *runs, uint32_t n)
{
	return dev_copy(r, buf, runs, n, 0);
}

const struct lm_rma_mem_ops lm_rma_mem_dev = {
	.name = "region",
	.expose = dev_expose,
	.unexpose = dev_unexpose,
	.attach = dev_attach,
	.detach = dev_detach,
	.check = dev_check,
	.copy_to = dev_copy_to,
	.copy_from = dev_copy_from,
};

/* ---- Which way windows use ----------------------------------------------- */

const struct lm_rma_mem_ops *lm_rma_mem(void)
{
	static int offered = -1;	/* the module has regions */
	struct mpichan_version v;
	int o;

	if (!lm.rma_region || lm.job.t != &lm_transport_mpichan)
		return &lm_rma_mem_vm;
	o = __atomic_load_n(&offered, __ATOMIC_RELAXED);
	if (o < 0) {
		memset(&v, 0, sizeof(v));
		o = !ioctl(dev_fd(), MPICHAN_IOC_VERSION, &v) &&
			(v.features & MPICHAN_FEAT_REGION);
		__atomic_store_n(&offered, o, __ATOMIC_RELAXED);
	}
	return o ? &lm_rma_mem_dev : &lm_rma_mem_vm;
}
