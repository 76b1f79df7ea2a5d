// SPDX-License-Identifier: GPL-2.0
/*
 * uct_mpichan: a UCX transport (UCT) over the registered regions of
 * /dev/mpichan (Documentation/uapi.md, "Registered regions").
 *
 * The memory domain registers a buffer as a region (REGION_REG); its
 * remote key carries the region's handle, key and base address (rkey.c
 * unpacks it, and maps the peer's region for rkey_ptr).  The
 * interface does get_zcopy and put_zcopy by REGION_COPY: one ioctl per
 * segment, the local side an iovec of up to UCT_SM_MAX_IOV pieces.  The
 * rest (segmenting, the TX arbiter, flush, reachability by boot id and
 * IPC namespace) is UCX's own single-copy base, src/uct/sm/scopy, as for
 * its cma and knem transports.
 *
 * Built against the UCX source of exactly the installed version
 * (uct/build); loaded with LD_PRELOAD, its constructor registers the
 * component.  It refuses a UCX of another version, and, when
 * /dev/mpichan is absent or lacks regions, offers no resource so UCX runs
 * over its other transports (one line says why).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <uct/base/uct_md.h>
#include <uct/base/uct_iface.h>
#include <uct/base/uct_iov.inl>
#include <uct/sm/base/sm_iface.h>
#include <uct/sm/scopy/base/scopy_iface.h>
#include <uct/sm/scopy/base/scopy_ep.h>
#include <ucs/debug/log.h>
#include <ucs/debug/memtrack_int.h>
#include <ucs/memory/rcache.h>
#include <ucs/sys/sys.h>
#include <ucm/api/ucm.h>

#include <linux/mpichan.h>

#include "uct_mpichan.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef MPICHAN_UCX_VERSION
#error "MPICHAN_UCX_VERSION: the version of the UCX source this is built against"
#endif

extern uct_component_t uct_mpichan_component;

/* ---- memory domain ---------------------------------------------------- */

typedef struct uct_mpichan_md {
	struct uct_md super;
	int fd;				/* /dev/mpichan, regions live on it */
	ucs_rcache_t *rcache;		/* registration cache, or NULL */
	int rkey_ptr;			/* offer UCT_MD_FLAG_RKEY_PTR */
	ucs_linear_func_t reg_cost;
} uct_mpichan_md_t;

typedef struct uct_mpichan_md_config {
	uct_md_config_t super;
	ucs_ternary_auto_value_t rcache_enable;
	uct_md_rcache_config_t rcache;
	int rkey_ptr;
	unsigned map_cache;
} uct_mpichan_md_config_t;

/* A region in the registration cache; its key is the memh. */
typedef struct uct_mpichan_rcache_region {
	ucs_rcache_region_t super;
	uct_mpichan_key_t key;
} uct_mpichan_rcache_region_t;

static ucs_config_field_t uct_mpichan_md_config_table[] = {
	{"", "", NULL, ucs_offsetof(uct_mpichan_md_config_t, super),
	 UCS_CONFIG_TYPE_TABLE(uct_md_config_table)},
	{"RCACHE", "try", "Keep registered regions in a registration cache "
	 "(UCX drops them when the memory is unmapped)",
	 ucs_offsetof(uct_mpichan_md_config_t, rcache_enable),
	 UCS_CONFIG_TYPE_TERNARY},
	{"", "", NULL, ucs_offsetof(uct_mpichan_md_config_t, rcache),
	 UCS_CONFIG_TYPE_TABLE(uct_md_config_rcache_table)},
	{"RKEY_PTR", "y", "Offer a pointer to a peer's region mapped into this "
	 "process (REGION_MAP), so that UCX copies with loads and stores",
	 ucs_offsetof(uct_mpichan_md_config_t, rkey_ptr), UCS_CONFIG_TYPE_BOOL},
	{"MAP_CACHE", "64", "How many mappings of peers' regions to keep while "
	 "no message uses them, so that a buffer sent again is not mapped "
	 "again (0: unmap after every message)",
	 ucs_offsetof(uct_mpichan_md_config_t, map_cache), UCS_CONFIG_TYPE_UINT},
	{NULL}
};

/*
 * Why the device cannot serve, or NULL.  Opens it; the caller closes
 * *fd_p when it is >= 0.
 */
static const char *uct_mpichan_probe(int *fd_p)
{
	static char why[160];
	struct mpichan_version v;

	memset(&v, 0, sizeof(v));
	*fd_p = open(UCT_MPICHAN_DEV, O_RDWR | O_CLOEXEC);
	if (*fd_p < 0) {
		snprintf(why, sizeof(why), "%s: %s", UCT_MPICHAN_DEV,
			 strerror(errno));
		return why;
	}
	if (ioctl(*fd_p, MPICHAN_IOC_VERSION, &v) < 0) {
		snprintf(why, sizeof(why), "%s: VERSION: %s", UCT_MPICHAN_DEV,
			 strerror(errno));
		return why;
	}
	if (!(v.features & MPICHAN_FEAT_REGION)) {
		snprintf(why, sizeof(why),
			 "%s: the module has no registered regions (features 0x%llx)",
			 UCT_MPICHAN_DEV, (unsigned long long)v.features);
		return why;
	}
	return NULL;
}

static ucs_status_t
uct_mpichan_query_md_resources(uct_component_t *component,
			       uct_md_resource_desc_t **resources_p,
			       unsigned *num_resources_p)
{
	static int said;
	const char *why;
	int fd;

	why = uct_mpichan_probe(&fd);
	if (fd >= 0)
		close(fd);
	if (why) {
		/* One line, once per process: UCX goes on without us. */
		if (!said++)
			fprintf(stderr, "uct_mpichan: not used: %s\n", why);
		return uct_md_query_empty_md_resource(resources_p,
						      num_resources_p);
	}
	return uct_md_query_single_md_resource(component, resources_p,
					       num_resources_p);
}

static ucs_status_t uct_mpichan_md_query(uct_md_h uct_md, uct_md_attr_t *attr)
{
	uct_mpichan_md_t *md = ucs_derived_of(uct_md, uct_mpichan_md_t);

	attr->rkey_packed_size     = sizeof(uct_mpichan_key_t);
	attr->cap.flags            = UCT_MD_FLAG_REG | UCT_MD_FLAG_NEED_RKEY |
				     (md->rkey_ptr ? UCT_MD_FLAG_RKEY_PTR : 0);
	attr->cap.reg_mem_types    = UCS_BIT(UCS_MEMORY_TYPE_HOST);
	attr->cap.alloc_mem_types  = 0;
	attr->cap.access_mem_types = UCS_BIT(UCS_MEMORY_TYPE_HOST);
	attr->cap.detect_mem_types = 0;
	attr->cap.max_alloc        = 0;
	attr->cap.max_reg          = MPICHAN_REGION_MAX_BYTES;
	attr->reg_cost             = md->reg_cost;
	memset(&attr->local_cpus, 0xff, sizeof(attr->local_cpus));
	return UCS_OK;
}

static ucs_status_t uct_mpichan_reg(uct_mpichan_md_t *md, void *address,
				    size_t length, int silent,
				    uct_mpichan_key_t *k)
{
	struct mpichan_region_reg reg;
	int err;

	memset(&reg, 0, sizeof(reg));
	reg.addr  = (uintptr_t)address;
	reg.len   = length;
	reg.flags = MPICHAN_REGION_WRITE;
	if (ioctl(md->fd, MPICHAN_IOC_REGION_REG, &reg) < 0) {
		/* Memory we may read but not write: a read-only region. */
		if (errno != EFAULT)
			goto fail;
		reg.flags = 0;
		if (ioctl(md->fd, MPICHAN_IOC_REGION_REG, &reg) < 0)
			goto fail;
	}
	k->handle  = reg.handle;
	k->key     = reg.key;
	k->address = (uintptr_t)address;
	k->length  = length;
	return UCS_OK;
fail:
	err = errno;
	if (!silent)
		ucs_error("uct_mpichan: REGION_REG %p+%zu: %s", address, length,
			  strerror(err));
	return err == ENOMEM ? UCS_ERR_NO_MEMORY : UCS_ERR_IO_ERROR;
}

static void uct_mpichan_dereg(uct_mpichan_md_t *md, uct_mpichan_key_t *k)
{
	struct mpichan_region_dereg d;

	memset(&d, 0, sizeof(d));
	d.handle = k->handle;
	if (ioctl(md->fd, MPICHAN_IOC_REGION_DEREG, &d) < 0)
		ucs_error("uct_mpichan: REGION_DEREG %llu: %m",
			  (unsigned long long)k->handle);
}

static ucs_status_t uct_mpichan_mem_reg(uct_md_h uct_md, void *address,
					size_t length, unsigned flags,
					uct_mem_h *memh_p)
{
	uct_mpichan_md_t *md = ucs_derived_of(uct_md, uct_mpichan_md_t);
	size_t page = ucs_get_page_size();
	uintptr_t start = ucs_align_down((uintptr_t)address, page);
	uintptr_t end = ucs_align_up((uintptr_t)address + length, page);
	uct_mpichan_key_t *k;
	ucs_status_t status;

	/* Whole pages, as the cache registers them: a peer can map all of
	 * it (the pages are ours whatever else lies in them). */
	k = ucs_malloc(sizeof(*k), "uct_mpichan_key_t");
	if (!k)
		return UCS_ERR_NO_MEMORY;
	status = uct_mpichan_reg(md, (void *)start, end - start,
				 flags & UCT_MD_MEM_FLAG_HIDE_ERRORS, k);
	if (status != UCS_OK) {
		ucs_free(k);
		return status;
	}
	*memh_p = k;
	return UCS_OK;
}

static ucs_status_t
uct_mpichan_mem_dereg(uct_md_h uct_md, const uct_md_mem_dereg_params_t *params)
{
	uct_mpichan_md_t *md = ucs_derived_of(uct_md, uct_mpichan_md_t);

	UCT_MD_MEM_DEREG_CHECK_PARAMS(params, 0);
	uct_mpichan_dereg(md, params->memh);
	ucs_free(params->memh);
	return UCS_OK;
}

/* The same through the registration cache (whole pages, kept until the
 * memory is unmapped or the cache evicts them). */
static ucs_status_t uct_mpichan_rcache_mem_reg(uct_md_h uct_md, void *address,
					       size_t length, unsigned flags,
					       uct_mem_h *memh_p)
{
	uct_mpichan_md_t *md = ucs_derived_of(uct_md, uct_mpichan_md_t);
	ucs_rcache_region_t *r;
	ucs_status_t status;

	status = ucs_rcache_get(md->rcache, address, length,
				PROT_READ | PROT_WRITE, &flags, &r);
	if (status != UCS_OK)
		return status;
	*memh_p = &ucs_derived_of(r, uct_mpichan_rcache_region_t)->key;
	return UCS_OK;
}

static ucs_status_t
uct_mpichan_rcache_mem_dereg(uct_md_h uct_md,
			     const uct_md_mem_dereg_params_t *params)
{
	uct_mpichan_md_t *md = ucs_derived_of(uct_md, uct_mpichan_md_t);
	uct_mpichan_rcache_region_t *r;

	UCT_MD_MEM_DEREG_CHECK_PARAMS(params, 0);
	r = ucs_container_of(params->memh, uct_mpichan_rcache_region_t, key);
	ucs_rcache_region_put(md->rcache, &r->super);
	return UCS_OK;
}

static ucs_status_t uct_mpichan_rcache_reg_cb(void *context, ucs_rcache_t *rcache,
					      void *arg, ucs_rcache_region_t *rregion,
					      uint16_t reg_flags)
{
	uct_mpichan_rcache_region_t *r = ucs_derived_of(rregion,
							uct_mpichan_rcache_region_t);
	unsigned flags = *(unsigned *)arg;

	(void)rcache;
	return uct_mpichan_reg(context, (void *)r->super.super.start,
			       r->super.super.end - r->super.super.start,
			       (flags & UCT_MD_MEM_FLAG_HIDE_ERRORS) ||
			       (reg_flags & UCS_RCACHE_MEM_REG_HIDE_ERRORS),
			       &r->key);
}

static void uct_mpichan_rcache_dereg_cb(void *context, ucs_rcache_t *rcache,
					ucs_rcache_region_t *rregion)
{
	(void)rcache;
	uct_mpichan_dereg(context, &ucs_derived_of(rregion,
				uct_mpichan_rcache_region_t)->key);
}

static void uct_mpichan_rcache_dump_cb(void *context, ucs_rcache_t *rcache,
				       ucs_rcache_region_t *rregion, char *buf,
				       size_t max)
{
	uct_mpichan_key_t *k = &ucs_derived_of(rregion,
					       uct_mpichan_rcache_region_t)->key;

	(void)context;
	(void)rcache;
	snprintf(buf, max, "handle %llu", (unsigned long long)k->handle);
}

static ucs_rcache_ops_t uct_mpichan_rcache_ops = {
	.mem_reg     = uct_mpichan_rcache_reg_cb,
	.mem_dereg   = uct_mpichan_rcache_dereg_cb,
	.dump_region = uct_mpichan_rcache_dump_cb,
};

static ucs_status_t
uct_mpichan_mkey_pack(uct_md_h md, uct_mem_h memh,
		      const uct_md_mkey_pack_params_t *params, void *buffer)
{
	(void)md;
	(void)params;
	memcpy(buffer, memh, sizeof(uct_mpichan_key_t));
	return UCS_OK;
}

static void uct_mpichan_md_close(uct_md_h uct_md)
{
	uct_mpichan_md_t *md = ucs_derived_of(uct_md, uct_mpichan_md_t);

	if (md->rcache)
		ucs_rcache_destroy(md->rcache);
	close(md->fd);		/* ends every region still registered on it */
	ucs_free(md);
}

static ucs_status_t uct_mpichan_md_open(uct_component_t *component,
					const char *md_name,
					const uct_md_config_t *config,
					uct_md_h *md_p)
{
	const uct_mpichan_md_config_t *cfg = ucs_derived_of(config,
							uct_mpichan_md_config_t);
	static uct_md_ops_t rcache_ops = {
		.close                  = uct_mpichan_md_close,
		.query                  = uct_mpichan_md_query,
		.mem_alloc              = (uct_md_mem_alloc_func_t)ucs_empty_function_return_unsupported,
		.mem_free               = (uct_md_mem_free_func_t)ucs_empty_function_return_unsupported,
		.mkey_pack              = uct_mpichan_mkey_pack,
		.mem_reg                = uct_mpichan_rcache_mem_reg,
		.mem_dereg              = uct_mpichan_rcache_mem_dereg,
		.is_sockaddr_accessible = ucs_empty_function_return_zero_int,
		.detect_memory_type     = ucs_empty_function_return_unsupported,
	};
	static uct_md_ops_t ops = {
		.close                  = uct_mpichan_md_close,
		.query                  = uct_mpichan_md_query,
		.mem_alloc              = (uct_md_mem_alloc_func_t)ucs_empty_function_return_unsupported,
		.mem_free               = (uct_md_mem_free_func_t)ucs_empty_function_return_unsupported,
		.mkey_pack              = uct_mpichan_mkey_pack,
		.mem_reg                = uct_mpichan_mem_reg,
		.mem_dereg              = uct_mpichan_mem_dereg,
		.is_sockaddr_accessible = ucs_empty_function_return_zero_int,
		.detect_memory_type     = ucs_empty_function_return_unsupported,
	};
	ucs_rcache_params_t rp;
	uct_mpichan_md_t *md;
	ucs_status_t status;
	const char *why;
	int fd;

	(void)md_name;
	why = uct_mpichan_probe(&fd);
	if (why) {
		ucs_error("uct_mpichan: %s", why);
		if (fd >= 0)
			close(fd);
		return UCS_ERR_IO_ERROR;
	}
	md = ucs_malloc(sizeof(*md), "uct_mpichan_md_t");
	if (!md) {
		close(fd);
		return UCS_ERR_NO_MEMORY;
	}
	md->super.ops       = &ops;
	md->super.component = component;
	md->fd              = fd;
	md->rcache          = NULL;
	md->rkey_ptr        = cfg->rkey_ptr;
	uct_mpichan_map_cache_limit(cfg->map_cache);
	/* Pinning: a fixed part and a part per byte (4 KiB pages). */
	md->reg_cost        = ucs_linear_func_make(1500e-9, 0.01e-9);
	if (cfg->rcache_enable != UCS_NO) {
		uct_md_set_rcache_params(&rp, &cfg->rcache);
		rp.region_struct_size = sizeof(uct_mpichan_rcache_region_t);
		/* Whole pages, so that a peer can map all of a region. */
		rp.alignment          = ucs_get_page_size();
		rp.max_alignment      = ucs_get_page_size();
		rp.ucm_events         = UCM_EVENT_VM_UNMAPPED;
		rp.context            = md;
		rp.ops                = &uct_mpichan_rcache_ops;
		status = ucs_rcache_create(&rp, "mpichan", ucs_stats_get_root(),
					   &md->rcache);
		if (status == UCS_OK) {
			md->super.ops = &rcache_ops;
			md->reg_cost  = ucs_linear_func_make(
				uct_md_rcache_overhead(&cfg->rcache), 0);
		} else if (cfg->rcache_enable == UCS_YES) {
			ucs_error("uct_mpichan: registration cache: %s",
				  ucs_status_string(status));
			close(fd);
			ucs_free(md);
			return status;
		} else {
			md->rcache = NULL;
		}
	}
	*md_p = &md->super;
	return UCS_OK;
}

uct_component_t uct_mpichan_component = {
	.query_md_resources = uct_mpichan_query_md_resources,
	.md_open            = uct_mpichan_md_open,
	.cm_open            = ucs_empty_function_return_unsupported,
	.rkey_unpack        = uct_mpichan_rkey_unpack,
	.rkey_ptr           = uct_mpichan_rkey_ptr,
	.rkey_release       = uct_mpichan_rkey_release,
	.name               = "mpichan",
	.md_config          = {
		.name   = "mpichan memory domain",
		.prefix = "MPICHAN_",
		.table  = uct_mpichan_md_config_table,
		.size   = sizeof(uct_mpichan_md_config_t),
	},
	.cm_config          = UCS_CONFIG_EMPTY_GLOBAL_LIST_ENTRY,
	.tl_list            = UCT_COMPONENT_TL_LIST_INITIALIZER(&uct_mpichan_component),
	.flags              = 0,
	.md_vfs_init        = (uct_component_md_vfs_init_func_t)ucs_empty_function,
};

/* ---- endpoint --------------------------------------------------------- */

typedef struct uct_mpichan_iface_config {
	uct_scopy_iface_config_t super;
} uct_mpichan_iface_config_t;

typedef struct uct_mpichan_iface {
	uct_scopy_iface_t super;
} uct_mpichan_iface_t;

typedef struct uct_mpichan_ep {
	uct_scopy_ep_t super;
} uct_mpichan_ep_t;

static UCS_CLASS_INIT_FUNC(uct_mpichan_ep_t, const uct_ep_params_t *params)
{
	UCS_CLASS_CALL_SUPER_INIT(uct_scopy_ep_t, params);
	return UCS_OK;
}

static UCS_CLASS_CLEANUP_FUNC(uct_mpichan_ep_t)
{
}

UCS_CLASS_DEFINE(uct_mpichan_ep_t, uct_scopy_ep_t)
static UCS_CLASS_DEFINE_NEW_FUNC(uct_mpichan_ep_t, uct_ep_t,
				 const uct_ep_params_t *);
static UCS_CLASS_DEFINE_DELETE_FUNC(uct_mpichan_ep_t, uct_ep_t);

/*
 * One segment of a get or put: one REGION_COPY entry between the peer's
 * region and up to UCT_SM_MAX_IOV local pieces.
 */
static ucs_status_t uct_mpichan_ep_tx(uct_ep_h tl_ep, const uct_iov_t *iov,
				      size_t iov_cnt, ucs_iov_iter_t *iov_iter,
				      size_t *length_p, uint64_t remote_addr,
				      uct_rkey_t rkey, uct_scopy_tx_op_t tx_op)
{
	uct_base_iface_t *iface = ucs_derived_of(tl_ep->iface, uct_base_iface_t);
	uct_mpichan_md_t *md = ucs_derived_of(iface->md, uct_mpichan_md_t);
	const uct_mpichan_key_t *k = uct_mpichan_rkey_key(rkey);
	struct iovec local[UCT_SM_MAX_IOV];
	size_t cnt = UCT_SM_MAX_IOV, total;
	struct mpichan_region_copy c;
	struct mpichan_rcopy e;
	ucs_status_t status;

	UCS_STATIC_ASSERT(sizeof(struct iovec) == sizeof(struct mpichan_iovec));
	total = uct_iov_to_iovec(local, &cnt, iov, iov_cnt, *length_p, iov_iter);
	ucs_assert(total != 0 && cnt > 0);
	ucs_assert(remote_addr >= k->address &&
		   remote_addr + total <= k->address + k->length);

	memset(&e, 0, sizeof(e));
	if (cnt == 1) {
		e.addr = (uintptr_t)local[0].iov_base;
	} else {
		e.addr   = (uintptr_t)local;
		e.flags  = MPICHAN_RCOPY_IOV;
		e.iovcnt = cnt;
	}
	e.len    = total;
	e.handle = k->handle;
	e.key    = k->key;
	e.offset = remote_addr - k->address;
	if (tx_op == UCT_SCOPY_TX_PUT_ZCOPY)
		e.flags |= MPICHAN_RCOPY_PUT;
	memset(&c, 0, sizeof(c));
	c.entries = (uintptr_t)&e;
	c.count   = 1;
	if (ucs_unlikely(ioctl(md->fd, MPICHAN_IOC_REGION_COPY, &c) < 0)) {
		int err = errno;

		/* The region ended or went stale: its owner is gone or
		 * changed its memory; treat it as the peer failing. */
		status = uct_iface_handle_ep_err(&iface->super, tl_ep,
						 UCS_ERR_CONNECTION_RESET);
		ucs_log(uct_base_iface_failure_log_level(iface, status,
							 UCS_ERR_CONNECTION_RESET),
			"uct_mpichan: REGION_COPY %s handle %llu +%llu len %zu: %s",
			tx_op == UCT_SCOPY_TX_PUT_ZCOPY ? "put" : "get",
			(unsigned long long)k->handle,
			(unsigned long long)e.offset, total, strerror(err));
		return UCS_ERR_IO_ERROR;
	}
	*length_p = total;
	return UCS_OK;
}

/* ---- interface -------------------------------------------------------- */

static ucs_config_field_t uct_mpichan_iface_config_table[] = {
	{"SCOPY_", "ALLOC=huge,thp,mmap,heap;SM_BW=12000MBs", NULL,
	 ucs_offsetof(uct_mpichan_iface_config_t, super),
	 UCS_CONFIG_TYPE_TABLE(uct_scopy_iface_config_table)},
	{NULL}
};

static ucs_status_t uct_mpichan_iface_query(uct_iface_h tl_iface,
					    uct_iface_attr_t *attr)
{
	uct_mpichan_iface_t *iface = ucs_derived_of(tl_iface,
						    uct_mpichan_iface_t);

	uct_scopy_iface_query(&iface->super, attr);
	attr->iface_addr_len      = 0;
	attr->bandwidth.dedicated = iface->super.super.config.bandwidth;
	attr->bandwidth.shared    = 0;
	return UCS_OK;
}

static UCS_CLASS_DECLARE_DELETE_FUNC(uct_mpichan_iface_t, uct_iface_t);

static uct_iface_ops_t uct_mpichan_iface_tl_ops = {
	.ep_put_zcopy             = uct_scopy_ep_put_zcopy,
	.ep_get_zcopy             = uct_scopy_ep_get_zcopy,
	.ep_pending_add           = ucs_empty_function_return_busy,
	.ep_pending_purge         = ucs_empty_function,
	.ep_flush                 = uct_scopy_ep_flush,
	.ep_fence                 = uct_sm_ep_fence,
	.ep_create                = UCS_CLASS_NEW_FUNC_NAME(uct_mpichan_ep_t),
	.ep_destroy               = UCS_CLASS_DELETE_FUNC_NAME(uct_mpichan_ep_t),
	.iface_flush              = uct_scopy_iface_flush,
	.iface_fence              = uct_sm_iface_fence,
	.iface_progress_enable    = ucs_empty_function,
	.iface_progress_disable   = ucs_empty_function,
	.iface_progress           = uct_scopy_iface_progress,
	.iface_event_fd_get       = ucs_empty_function_return_unsupported,
	.iface_event_arm          = uct_scopy_iface_event_arm,
	.iface_close              = UCS_CLASS_DELETE_FUNC_NAME(uct_mpichan_iface_t),
	.iface_query              = uct_mpichan_iface_query,
	.iface_get_device_address = uct_sm_iface_get_device_address,
	.iface_get_address        = ucs_empty_function_return_success,
	/* Same boot id and IPC namespace: UCX's test for shared memory. */
	.iface_is_reachable       = uct_sm_iface_is_reachable,
};

static uct_scopy_iface_ops_t uct_mpichan_iface_ops = {
	.super = {
		.iface_estimate_perf = uct_base_iface_estimate_perf,
		.iface_vfs_refresh   = (uct_iface_vfs_refresh_func_t)ucs_empty_function,
		.ep_query            = (uct_ep_query_func_t)ucs_empty_function_return_unsupported,
		.ep_invalidate       = (uct_ep_invalidate_func_t)ucs_empty_function_return_unsupported,
	},
	.ep_tx = uct_mpichan_ep_tx,
};

static UCS_CLASS_INIT_FUNC(uct_mpichan_iface_t, uct_md_h md,
			   uct_worker_h worker, const uct_iface_params_t *params,
			   const uct_iface_config_t *tl_config)
{
	UCS_CLASS_CALL_SUPER_INIT(uct_scopy_iface_t, &uct_mpichan_iface_tl_ops,
				  &uct_mpichan_iface_ops, md, worker, params,
				  tl_config);
	return UCS_OK;
}

static UCS_CLASS_CLEANUP_FUNC(uct_mpichan_iface_t)
{
}

UCS_CLASS_DEFINE(uct_mpichan_iface_t, uct_scopy_iface_t);
static UCS_CLASS_DEFINE_NEW_FUNC(uct_mpichan_iface_t, uct_iface_t, uct_md_h,
				 uct_worker_h, const uct_iface_params_t *,
				 const uct_iface_config_t *);
static UCS_CLASS_DEFINE_DELETE_FUNC(uct_mpichan_iface_t, uct_iface_t);

UCT_TL_DEFINE_ENTRY(&uct_mpichan_component, mpichan,
		    uct_sm_base_query_tl_devices, uct_mpichan_iface_t,
		    "MPICHAN_", uct_mpichan_iface_config_table,
		    uct_mpichan_iface_config_t);

/* ---- loading ---------------------------------------------------------- */

/*
 * The UCX in this process: its libucp (loaded, or next to the libuct we
 * link) says its version.  Struct layouts differ between versions, so
 * any other than the one built against is refused.
 */
static int uct_mpichan_version_ok(void)
{
	const char *(*get)(void);
	const char *have = NULL;
	char path[PATH_MAX], *slash;
	void *ucp;
	Dl_info info;

	ucp = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD);
	if (!ucp && dladdr((void *)uct_component_register, &info) &&
	    info.dli_fname && strlen(info.dli_fname) < sizeof(path) - 16) {
		strcpy(path, info.dli_fname);
		slash = strrchr(path, '/');
		strcpy(slash ? slash + 1 : path, "libucp.so.0");
		ucp = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	}
	get = ucp ? (const char *(*)(void))dlsym(ucp, "ucp_get_version_string") : NULL;
	if (get)
		have = get();
	if (have && !strcmp(have, MPICHAN_UCX_VERSION)) {
		dlclose(ucp);
		return 1;
	}
	fprintf(stderr, "uct_mpichan: not used: built for UCX %s, this is UCX %s\n",
		MPICHAN_UCX_VERSION, have ? have : "of unknown version");
	if (ucp)
		dlclose(ucp);
	return 0;
}

static int uct_mpichan_registered;

static void UCS_F_CTOR uct_mpichan_init(void)
{
	if (!uct_mpichan_version_ok())
		return;
	uct_component_register(&uct_mpichan_component);
	uct_tl_register(&uct_mpichan_component, &UCT_TL_NAME(mpichan));
	uct_mpichan_registered = 1;
}

static void UCS_F_DTOR uct_mpichan_cleanup(void)
{
	if (!uct_mpichan_registered)
		return;
	uct_tl_unregister(&UCT_TL_NAME(mpichan));
	uct_component_unregister(&uct_mpichan_component);
	uct_mpichan_map_cache_cleanup();
}
