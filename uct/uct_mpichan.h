/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uct/uct_mpichan.h: what the memory domain and interface
 * (uct_mpichan.c) and the remote keys with their mapping cache (rkey.c)
 * share.
 */
#ifndef UCT_MPICHAN_H
#define UCT_MPICHAN_H

#include <uct/base/uct_md.h>
#include <stdint.h>

#define UCT_MPICHAN_DEV "/dev/mpichan"

/* A registration (memh) and, packed, a remote key: what a peer needs. */
typedef struct uct_mpichan_key {
	uint64_t handle;
	uint64_t key;
	uint64_t address;		/* the region's first byte, owner's VA */
	uint64_t length;
} uct_mpichan_key_t;

/* rkey.c: the component's remote-key calls. */
ucs_status_t uct_mpichan_rkey_unpack(uct_component_t *component,
				     const void *buffer, uct_rkey_t *rkey_p,
				     void **handle_p);
ucs_status_t uct_mpichan_rkey_ptr(uct_component_t *component, uct_rkey_t rkey,
				  void *handle, uint64_t remote_addr,
				  void **local_p);
ucs_status_t uct_mpichan_rkey_release(uct_component_t *component,
				      uct_rkey_t rkey, void *handle);

/* The key of an unpacked remote key (uct_mpichan_ep_tx). */
const uct_mpichan_key_t *uct_mpichan_rkey_key(uct_rkey_t rkey);

/* How many mappings of peers' regions stay cached (UCX_MPICHAN_MAP_CACHE). */
void uct_mpichan_map_cache_limit(unsigned limit);

/* Unmap what the cache holds and close its fd (unloading). */
void uct_mpichan_map_cache_cleanup(void);

#endif /* UCT_MPICHAN_H */
