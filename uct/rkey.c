// SPDX-License-Identifier: GPL-2.0
/*
 * uct/rkey.c: a peer's remote key, and the mappings of peers' regions.
 *
 * rkey_unpack copies the packed key (handle, key, address, length).  The
 * first rkey_ptr on it maps the peer's whole region into this process
 * (REGION_MAP, then mmap() of the device), so that UCX moves the data
 * with loads and stores.  UCX unpacks a key for every rendezvous
 * message, and a mapping costs two system calls to make and a TLB
 * shootdown to undo, so mappings are kept in a cache, process-wide and
 * keyed by region handle, as UCX's xpmem transport keeps its
 * attachments: a message to or from a buffer the peer sent before (its
 * registration cache hands out the same region) finds the mapping made
 * for the last one.
 *
 * Why a cached mapping is safe.  The module gives handles out cyclically
 * and each region a random 64-bit key, so a (handle, key) pair names one
 * region for the life of the device: a cached mapping is used again only
 * for the region it shows.  While a peer's message is under way, the
 * peer holds its registration, so the region is alive.  A region that
 * ended (the owner deregistered it, freed the memory, exited) has its
 * mappings zapped by the module and releases its pins at once; its
 * cached mapping is then address space only, never touched again, and
 * unmapped when the cache evicts it.  What is not in use by a message
 * is evicted oldest first beyond UCX_MPICHAN_MAP_CACHE mappings (0: a
 * mapping lasts one message, as without a cache).
 *
 * fork().  The module's mappings are not copied into a child
 * (VM_DONTCOPY), whose address space then has holes where the cache
 * thinks its mappings are, holes the child may fill with its own memory.
 * So the child's cache forgets every mapping without unmapping it (one
 * still used by a key, cached or displaced, is of an older generation:
 * no pointer from it, nothing to unmap), and maps again, through a
 * device fd of its own, what it is asked for (uct_mpichan_maps_child, a
 * pthread_atfork handler set at the first mapping).
 *
 * Locking: uct_mpichan_maps.lock guards the table, the idle list and
 * every mapping's refs; a key's map pointer is set once, under it.
 * fork() takes it (prepare) so that the child's copy is consistent.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "uct_mpichan.h"

#include <ucs/datastruct/khash.h>
#include <ucs/debug/assert.h>
#include <ucs/datastruct/list.h>
#include <ucs/debug/log.h>
#include <ucs/debug/memtrack_int.h>

#include <linux/mpichan.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* A peer's region mapped here. */
typedef struct uct_mpichan_map {
	uint64_t handle;
	uint64_t key;
	char *base;
	uint64_t start;			/* region offset of the mapping */
	uint64_t len;
	unsigned gen;			/* uct_mpichan_maps.gen when made */
	unsigned refs;			/* unpacked keys using it */
	int cached;			/* in the table (not displaced) */
	ucs_list_link_t idle;		/* on the idle list while refs == 0 */
} uct_mpichan_map_t;

/* A peer's key, unpacked; mapped on the first rkey_ptr. */
typedef struct uct_mpichan_rkey {
	uct_mpichan_key_t k;
	uct_mpichan_map_t *map;		/* set once, NULL until mapped */
} uct_mpichan_rkey_t;

KHASH_MAP_INIT_INT64(uct_mpichan_maps, uct_mpichan_map_t *)

static struct {
	pthread_mutex_t lock;
	khash_t(uct_mpichan_maps) table;
	ucs_list_link_t idle;		/* oldest first */
	unsigned count;			/* in the table */
	unsigned limit;
	unsigned gen;			/* forks this process came through */
	int fd;				/* what regions are mapped through */
} uct_mpichan_maps = {
	.lock  = PTHREAD_MUTEX_INITIALIZER,
	.table = KHASH_STATIC_INITIALIZER,
	.idle  = UCS_LIST_INITIALIZER(&uct_mpichan_maps.idle,
				      &uct_mpichan_maps.idle),
	.limit = 64,
	.fd    = -1,
};

ucs_status_t uct_mpichan_rkey_unpack(uct_component_t *component,
				     const void *buffer, uct_rkey_t *rkey_p,
				     void **handle_p)
{
	uct_mpichan_rkey_t *r;

	(void)component;
	r = ucs_calloc(1, sizeof(*r), "uct_mpichan_rkey");
	if (!r)
		return UCS_ERR_NO_MEMORY;
	memcpy(&r->k, buffer, sizeof(r->k));
	*handle_p = NULL;
	*rkey_p   = (uintptr_t)r;
	return UCS_OK;
}

const uct_mpichan_key_t *uct_mpichan_rkey_key(uct_rkey_t rkey)
{
	return &((const uct_mpichan_rkey_t *)rkey)->k;
}

static void uct_mpichan_map_free(uct_mpichan_map_t *m)
{
	if (m->gen == uct_mpichan_maps.gen)
		munmap(m->base, m->len);
	ucs_free(m);
}

static void uct_mpichan_maps_prepare(void)
{
	pthread_mutex_lock(&uct_mpichan_maps.lock);
}

static void uct_mpichan_maps_parent(void)
{
	pthread_mutex_unlock(&uct_mpichan_maps.lock);
}

/* In a fork's child: none of the mappings is here (see above). */
static void uct_mpichan_maps_child(void)
{
	uct_mpichan_map_t *m;

	uct_mpichan_maps.gen++;
	kh_foreach_value(&uct_mpichan_maps.table, m, {
		m->cached = 0;
		if (!m->refs)
			ucs_free(m);	/* on the idle list, reset below */
	});
	kh_clear(uct_mpichan_maps, &uct_mpichan_maps.table);
	ucs_list_head_init(&uct_mpichan_maps.idle);
	uct_mpichan_maps.count = 0;
	if (uct_mpichan_maps.fd >= 0)
		close(uct_mpichan_maps.fd);	/* the parent's file */
	uct_mpichan_maps.fd = -1;
	pthread_mutex_unlock(&uct_mpichan_maps.lock);
}

static void uct_mpichan_maps_atfork(void)
{
	pthread_atfork(uct_mpichan_maps_prepare, uct_mpichan_maps_parent,
		       uct_mpichan_maps_child);
}

/* Out of the table; unmapped now if no key uses it.  Lock held. */
static void uct_mpichan_map_displace(uct_mpichan_map_t *m, khiter_t it)
{
	kh_del(uct_mpichan_maps, &uct_mpichan_maps.table, it);
	uct_mpichan_maps.count--;
	m->cached = 0;
	if (!m->refs) {
		ucs_list_del(&m->idle);
		uct_mpichan_map_free(m);
	}
}

/* Unmap idle mappings, oldest first, down to the limit.  Lock held. */
static void uct_mpichan_map_trim(void)
{
	uct_mpichan_map_t *m;
	khiter_t it;

	while (uct_mpichan_maps.count > uct_mpichan_maps.limit &&
	       !ucs_list_is_empty(&uct_mpichan_maps.idle)) {
		m = ucs_list_head(&uct_mpichan_maps.idle, uct_mpichan_map_t,
				  idle);
		it = kh_get(uct_mpichan_maps, &uct_mpichan_maps.table,
			    m->handle);
		ucs_assert(it != kh_end(&uct_mpichan_maps.table));
		uct_mpichan_map_displace(m, it);
	}
}

/* Map the whole of k's region: REGION_MAP, then mmap() of what it allows. */
static uct_mpichan_map_t *uct_mpichan_map_new(const uct_mpichan_key_t *k)
{
	static pthread_once_t atfork = PTHREAD_ONCE_INIT;
	struct mpichan_region_map rm;
	int prot = PROT_READ | PROT_WRITE;
	uct_mpichan_map_t *m;
	void *p;

	pthread_once(&atfork, uct_mpichan_maps_atfork);
	if (uct_mpichan_maps.fd < 0) {
		uct_mpichan_maps.fd = open(UCT_MPICHAN_DEV, O_RDWR | O_CLOEXEC);
		if (uct_mpichan_maps.fd < 0) {
			ucs_debug("uct_mpichan: %s: %m", UCT_MPICHAN_DEV);
			return NULL;
		}
	}
	memset(&rm, 0, sizeof(rm));
	rm.handle = k->handle;
	rm.key    = k->key;
	rm.flags  = MPICHAN_REGION_WRITE;
	if (ioctl(uct_mpichan_maps.fd, MPICHAN_IOC_REGION_MAP, &rm) < 0) {
		/* A read-only region maps read-only. */
		rm.flags = 0;
		prot     = PROT_READ;
		if (errno != EACCES ||
		    ioctl(uct_mpichan_maps.fd, MPICHAN_IOC_REGION_MAP, &rm) < 0) {
			ucs_debug("uct_mpichan: REGION_MAP %llu: %m",
				  (unsigned long long)k->handle);
			return NULL;
		}
	}
	m = ucs_calloc(1, sizeof(*m), "uct_mpichan_map");
	if (!m)
		return NULL;
	p = mmap(NULL, rm.map_len, prot, MAP_SHARED, uct_mpichan_maps.fd,
		 rm.offset);
	if (p == MAP_FAILED) {
		ucs_debug("uct_mpichan: mmap of region %llu: %m",
			  (unsigned long long)k->handle);
		ucs_free(m);
		return NULL;
	}
	ucs_debug("uct_mpichan: mapped region %llu (%llu bytes) at %p",
		  (unsigned long long)k->handle,
		  (unsigned long long)rm.map_len, p);
	m->handle = k->handle;
	m->key    = k->key;
	m->base   = p;
	m->start  = rm.map_start;
	m->len    = rm.map_len;
	m->gen    = uct_mpichan_maps.gen;
	ucs_list_head_init(&m->idle);
	return m;
}

/* The mapping of k's region, cached or new, with a reference.  Lock held. */
static uct_mpichan_map_t *uct_mpichan_map_get(const uct_mpichan_key_t *k)
{
	khash_t(uct_mpichan_maps) *t = &uct_mpichan_maps.table;
	uct_mpichan_map_t *m;
	khiter_t it;
	int ret;

	it = kh_get(uct_mpichan_maps, t, k->handle);
	if (it != kh_end(t)) {
		m = kh_value(t, it);
		if (m->key == k->key) {
			if (!m->refs++)
				ucs_list_del(&m->idle);
			ucs_debug("uct_mpichan: reused the mapping of region %llu",
				  (unsigned long long)k->handle);
			return m;
		}
		/* The handle came round again: that region is long gone. */
		uct_mpichan_map_displace(m, it);
	}
	m = uct_mpichan_map_new(k);
	if (!m)
		return NULL;
	m->refs = 1;
	it = kh_put(uct_mpichan_maps, t, k->handle, &ret);
	if (ret < 0)
		return m;	/* not cached: unmapped on release */
	kh_value(t, it) = m;
	m->cached = 1;
	uct_mpichan_maps.count++;
	return m;
}

ucs_status_t uct_mpichan_rkey_ptr(uct_component_t *component, uct_rkey_t rkey,
				  void *handle, uint64_t remote_addr,
				  void **local_p)
{
	uct_mpichan_rkey_t *r = (uct_mpichan_rkey_t *)rkey;
	uct_mpichan_map_t *m;
	uint64_t off;

	(void)component;
	(void)handle;
	m = __atomic_load_n(&r->map, __ATOMIC_ACQUIRE);
	if (!m) {
		pthread_mutex_lock(&uct_mpichan_maps.lock);
		m = r->map;
		if (!m) {
			m = uct_mpichan_map_get(&r->k);
			__atomic_store_n(&r->map, m, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&uct_mpichan_maps.lock);
		if (!m)
			return UCS_ERR_UNREACHABLE;
	}
	if (m->gen != __atomic_load_n(&uct_mpichan_maps.gen, __ATOMIC_RELAXED))
		return UCS_ERR_UNREACHABLE;	/* mapped before a fork */
	/* Registrations are whole pages, so the mapping shows all of the
	 * region; UCX reads past remote_addr without saying how far, so a
	 * region not mapped whole is refused. */
	off = remote_addr - r->k.address;
	if (m->start != 0 || m->len != r->k.length ||
	    remote_addr < r->k.address || off >= m->len) {
		ucs_debug("uct_mpichan: region %llu mapped %llu+%llu of %llu, "
			  "address 0x%llx: no pointer",
			  (unsigned long long)r->k.handle,
			  (unsigned long long)m->start,
			  (unsigned long long)m->len,
			  (unsigned long long)r->k.length,
			  (unsigned long long)remote_addr);
		return UCS_ERR_INVALID_ADDR;
	}
	*local_p = m->base + off;
	return UCS_OK;
}

ucs_status_t uct_mpichan_rkey_release(uct_component_t *component,
				      uct_rkey_t rkey, void *handle)
{
	uct_mpichan_rkey_t *r = (uct_mpichan_rkey_t *)rkey;
	uct_mpichan_map_t *m = r->map;

	(void)component;
	(void)handle;
	if (m) {
		pthread_mutex_lock(&uct_mpichan_maps.lock);
		if (!--m->refs) {
			if (m->cached) {
				ucs_list_add_tail(&uct_mpichan_maps.idle,
						  &m->idle);
				uct_mpichan_map_trim();
			} else {
				uct_mpichan_map_free(m);
			}
		}
		pthread_mutex_unlock(&uct_mpichan_maps.lock);
	}
	ucs_free(r);
	return UCS_OK;
}

void uct_mpichan_map_cache_limit(unsigned limit)
{
	pthread_mutex_lock(&uct_mpichan_maps.lock);
	uct_mpichan_maps.limit = limit;
	uct_mpichan_map_trim();
	pthread_mutex_unlock(&uct_mpichan_maps.lock);
}

void uct_mpichan_map_cache_cleanup(void)
{
	pthread_mutex_lock(&uct_mpichan_maps.lock);
	uct_mpichan_maps.limit = 0;
	uct_mpichan_map_trim();
	if (!uct_mpichan_maps.count) {
		kh_destroy_inplace(uct_mpichan_maps, &uct_mpichan_maps.table);
		kh_init_inplace(uct_mpichan_maps, &uct_mpichan_maps.table);
	}
	if (uct_mpichan_maps.fd >= 0)
		close(uct_mpichan_maps.fd);
	uct_mpichan_maps.fd = -1;
	pthread_mutex_unlock(&uct_mpichan_maps.lock);
}
