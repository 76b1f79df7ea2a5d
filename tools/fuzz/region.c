// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-fuzz: registered regions.  Workers register parts of their
 * own memory (a send area, read-only, whose words are a known pattern;
 * the region arena, writable, which they also replace, MADV_DONTNEED
 * and mprotect under the regions; the receive area; mappings that cannot
 * be pinned) and publish (handle, key) to every worker, which copies,
 * maps, queries and deregisters them with good, boundary and hostile
 * arguments.  Whatever a region holds at a pattern offset, read by a
 * copy or through a mapping, must be the pattern: never other memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "worker.h"

/* ---- the published regions: a sequence count per record ------------ */

static void publish(const struct mpichan_region_reg *a, int writable,
		    int pattern, uint64_t base)
{
	uint64_t i = __atomic_fetch_add(&fz->region_next, 1, __ATOMIC_RELAXED);
	struct fz_region *r = &fz->regions[i % FZ_REGIONS];

	while (__atomic_exchange_n(&r->busy, 1, __ATOMIC_ACQUIRE))
		;
	__atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	r->handle = a->handle;
	r->key = a->key;
	r->len = a->len;
	r->writable = writable;
	r->pattern = pattern;
	r->base = base;
	__atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&r->busy, 0, __ATOMIC_RELEASE);
}

/*
 * A consistent copy of a published region, mostly one of the latest
 * (older ones have likely ended): 1, or 0 for none.
 */
static int region_pick(struct thr *t, struct fz_region *out)
{
	uint64_t next = __atomic_load_n(&fz->region_next, __ATOMIC_RELAXED);
	uint64_t i = fz_chance(&t->rng, 70) ? next - 1 - fz_below(&t->rng, 8) :
		fz_below(&t->rng, FZ_REGIONS);
	struct fz_region *r = &fz->regions[i % FZ_REGIONS];
	uint64_t s1, s2;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		s1 = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1)
			continue;
		out->handle = r->handle;
		out->key = r->key;
		out->len = r->len;
		out->writable = r->writable;
		out->pattern = r->pattern;
		out->base = r->base;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&r->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return out->handle != 0;
	}
	return 0;
}

/* The slot of generation gen (the one that registered a region), or any. */
static int slot_of(struct thr *t, unsigned int gen, struct slot *copy)
{
	int i, fd;

	pthread_mutex_lock(&W.lock);
	for (i = 0; i < NSLOTS; i++) {
		if (W.slots[i].kind == SL_FREE || W.slots[i].gen != gen)
			continue;
		*copy = W.slots[i];
		fd = t->index ? dup(copy->fd) : copy->fd;
		pthread_mutex_unlock(&W.lock);
		if (fd < 0)
			return -1;
		copy->fd = fd;
		return i;
	}
	pthread_mutex_unlock(&W.lock);
	return pick_slot(t, 0, copy);
}

/* ---- REGION_REG, REGION_DEREG ---------------------------------------- */

void do_regreg(struct thr *t)
{
	struct mpichan_region_reg a;
	int i, err, writable = 0, pattern = 0, bad = 0;
	uint64_t base = 0, off, len;
	struct tmap *m;
	struct slot s;

	i = pick_slot(t, 0, &s);
	if (i < 0)
		return;
	memset(&a, 0, sizeof(a));
	switch (fz_below(&t->rng, 10)) {
	case 0: case 1: case 2: case 3:		/* the arena */
		off = fz_below(&t->rng, RGN_BYTES);
		len = 1 + fz_below(&t->rng, RGN_BYTES - off);
		if (fz_chance(&t->rng, 50)) {
			off &= ~(PAGE - 1);
			len = PAGE * (1 + fz_below(&t->rng, (RGN_BYTES - off) / PAGE));
		}
		a.addr = (uint64_t)(t->rgn + off);
		a.len = len;
		writable = fz_chance(&t->rng, 60);
		break;
	case 4: case 5: case 6:			/* a send area: the pattern */
		off = fz_below(&t->rng, BUF_BYTES) & ~7ULL;
		len = 1 + fz_below(&t->rng, BUF_BYTES - off);
		a.addr = (uint64_t)(t->send + off);
		a.len = len;
		pattern = 1;
		base = off;
		writable = fz_chance(&t->rng, 10);	/* read-only: EFAULT */
		break;
	case 7:					/* the receive area */
		off = fz_below(&t->rng, BUF_BYTES);
		a.addr = (uint64_t)(t->recv + off);
		a.len = 1 + fz_below(&t->rng, BUF_BYTES - off);
		writable = 1;
		break;
	case 8:					/* hostile */
		a.addr = (uint64_t)t->rgn;
		a.len = PAGE;
		switch (fz_below(&t->rng, 8)) {
		case 0:
			a.addr = rand_bad_ptr(t);
			a.len = 1 + fz_below(&t->rng, 4 * PAGE);
			break;
		case 1: a.len = 0; bad = 1; break;
		case 2:
			a.len = MPICHAN_REGION_MAX_BYTES + 1 + fz_below(&t->rng, 2);
			bad = 1;
			break;
		case 3: a.addr = ~0ULL - fz_below(&t->rng, PAGE); bad = 1; break;
		case 4: a.flags = 1u << (1 + fz_below(&t->rng, 31)); bad = 1; break;
		case 5: a.pad = 1 + fz_below(&t->rng, 100); bad = 1; break;
		case 6:		/* into the guard after the send area */
			a.addr = (uint64_t)(t->send + BUF_BYTES - PAGE);
			a.len = 2 * PAGE;
			break;
		default:	/* the largest: the arena is far smaller */
			if (fz_chance(&t->rng, 10))
				a.len = MPICHAN_REGION_MAX_BYTES;
		}
		writable = fz_chance(&t->rng, 50);
		break;
	default:				/* a mapping of ours */
		m = some_map(t);
		if (!m || !m->len)
			goto out;
		a.addr = (uint64_t)m->addr;
		a.len = 1 + fz_below(&t->rng, m->len);
		/*
		 * Read-only over a job's memory (it cannot be pinned with the
		 * write the job's pages would need); a window or a region's
		 * mapping cannot be pinned at all.
		 */
		writable = (m->window || m->region) && fz_chance(&t->rng, 50);
	}
	if (writable)
		a.flags |= MPICHAN_REGION_WRITE;
	op_begin(t, OP_REGREG, 0);
	err = xioctl(t, s.fd, 0x0a, _IOC_READ | _IOC_WRITE, &a, sizeof(a));
	op_end(t);
	if (fz_result(OP_REGREG, err, E_REGREG, "REGION_REG") || err)
		goto out;
	if (bad)
		fz_fail("REGION_REG(addr %#llx, len %llu, flags %#x, pad %u) succeeded",
			(unsigned long long)a.addr, (unsigned long long)a.len,
			a.flags, a.pad);
	if (pattern && writable)
		fz_fail("REGION_REG: read-only memory registered writable");
	if (!a.handle || a.map_start >= PAGE || a.map_len % PAGE ||
	    a.map_start + a.map_len > a.len ||
	    (a.map_len && (a.addr + a.map_start) % PAGE))
		fz_fail("REGION_REG(%#llx, %llu): handle %llu map_start %llu map_len %llu",
			(unsigned long long)a.addr, (unsigned long long)a.len,
			(unsigned long long)a.handle,
			(unsigned long long)a.map_start,
			(unsigned long long)a.map_len);
	pthread_mutex_lock(&W.lock);
	W.regs[W.nregs % NREGS].handle = a.handle;
	W.regs[W.nregs % NREGS].gen = s.gen;
	W.nregs++;
	pthread_mutex_unlock(&W.lock);
	publish(&a, writable, pattern, base);
out:
	put_slot(t, &s);
}

void do_regdereg(struct thr *t)
{
	struct mpichan_region_dereg d;
	struct fz_region r;
	unsigned int gen = 0, j;
	struct slot s;
	int err;

	memset(&d, 0, sizeof(d));
	pthread_mutex_lock(&W.lock);
	if (W.nregs && fz_chance(&t->rng, 80)) {
		j = fz_below(&t->rng, W.nregs < NREGS ? W.nregs : NREGS);
		d.handle = W.regs[j].handle;
		gen = W.regs[j].gen;
	}
	pthread_mutex_unlock(&W.lock);
	if (!d.handle)
		d.handle = region_pick(t, &r) ? r.handle : fz_next(&t->rng);
	/* The slot that registered it while it is there; now and then any. */
	if ((gen && !fz_chance(&t->rng, 10) ? slot_of(t, gen, &s) :
	     pick_slot(t, 0, &s)) < 0)
		return;
	if (fz_chance(&t->rng, 4))
		d.flags = 1u << fz_below(&t->rng, 32);
	if (fz_chance(&t->rng, 4))
		d.pad = 1 + fz_below(&t->rng, 7);
	op_begin(t, OP_REGDEREG, 0);
	err = xioctl(t, s.fd, 0x0b, _IOC_WRITE, &d, sizeof(d));
	op_end(t);
	put_slot(t, &s);
	fz_result(OP_REGDEREG, err, E_REGDEREG, "REGION_DEREG");
	if (!err && (d.flags || d.pad))
		fz_fail("REGION_DEREG with flags %#x pad %u succeeded", d.flags,
			d.pad);
}

/* ---- REGION_COPY ----------------------------------------------------- */

/* How many bytes one entry moves: small mostly, the whole region now and then. */
static uint64_t rcopy_len(struct thr *t, uint64_t rlen, uint32_t n)
{
	uint64_t max = n > 8 ? 4096 : 256 << 10, len;

	switch (fz_below(&t->rng, 10)) {
	case 0: len = rlen; break;
	case 1: len = 0; break;
	case 2: len = fz_below(&t->rng, rlen + 1); break;
	default: len = fz_below(&t->rng, (rlen < 8192 ? rlen : 8192) + 1);
	}
	return len > max ? max : len;
}

/* An iovec of up to four pieces of area covering len bytes at t->iov. */
static void rcopy_iov(struct thr *t, struct mpichan_rcopy *e,
		      unsigned char *area, uint64_t len)
{
	uint32_t n = 1 + fz_below(&t->rng, 4), i;
	uint64_t left = len, at = 0, piece;

	for (i = 0; i < n; i++) {
		piece = i == n - 1 ? left : fz_below(&t->rng, left + 1);
		t->iov[i].base = (uint64_t)(area + at);
		t->iov[i].len = piece;
		at += piece + fz_below(&t->rng, 64);
		if (at + left > BUF_BYTES)
			at = 0;
		left -= piece;
	}
	e->addr = (uint64_t)t->iov;
	e->iovcnt = n;
	e->flags |= MPICHAN_RCOPY_IOV;
	switch (fz_below(&t->rng, 20)) {
	case 0: e->len++; break;		/* the sum disagrees */
	case 1: e->iovcnt = 0; break;
	case 2: e->iovcnt = MPICHAN_IOV_MAX + 1; break;
	case 3: t->iov[0].len = ~0ULL; break;
	}
}

void do_regcopy(struct thr *t)
{
	struct mpichan_region_copy c;
	struct fz_region rg[4], *r;
	struct mpichan_rcopy *e;
	uint32_t n, i, nrg = 0;
	uint64_t sum = 0, entries, vlen = 0;
	int err, put, ro_put = 0, bad = 0, verify = 0;
	struct slot s;

	if (pick_slot(t, 0, &s) < 0)
		return;
	while (nrg < 4 && region_pick(t, &rg[nrg]))
		nrg++;
	if (!nrg)
		goto out;
	switch (fz_below(&t->rng, 20)) {
	case 0: n = 0; bad = 1; break;
	case 1: n = MPICHAN_REGION_COPY_MAX + 1 - fz_below(&t->rng, 3); break;
	case 2: case 3: case 4: n = 2 + fz_below(&t->rng, 30); break;
	default: n = 1;
	}
	if (n > MPICHAN_REGION_COPY_MAX)
		bad = 1;
	for (i = 0; i < n && i < RCOPY_MAX; i++) {
		e = &t->rcopy[i];
		r = &rg[fz_below(&t->rng, nrg)];
		memset(e, 0, sizeof(*e));
		e->handle = r->handle;
		e->key = r->key;
		put = r->writable ? fz_chance(&t->rng, 50) : fz_chance(&t->rng, 5);
		e->len = rcopy_len(t, r->len, n);
		e->offset = fz_below(&t->rng, r->len - e->len + 1);
		if (put)
			e->flags = MPICHAN_RCOPY_PUT;
		e->addr = (uint64_t)((put ? t->send : t->recv) +
				     fz_below(&t->rng, BUF_BYTES - e->len + 1));
		if (n == 1 && !put && r->pattern && e->len >= 16 &&
		    (r->base + e->offset) % 8 == 0 && fz_chance(&t->rng, 60)) {
			e->addr = (uint64_t)t->verify;
			verify = 1;
			vlen = e->len;
		} else if (fz_chance(&t->rng, 10)) {
			rcopy_iov(t, e, put ? t->send : t->recv, e->len);
		}
		switch (fz_below(&t->rng, 40)) {
		case 0: e->key ^= 1ULL << fz_below(&t->rng, 64); break;
		case 1: e->handle = fz_below(&t->rng, 64); break;
		case 2: e->handle = fz_next(&t->rng); break;
		case 3: e->offset = r->len + fz_below(&t->rng, 2) - (e->len ? 0 : 1); break;
		case 4: e->offset = ~0ULL - fz_below(&t->rng, 8); break;
		case 5: e->len = ~0ULL - fz_below(&t->rng, 2); break;
		case 6: e->addr = rand_bad_ptr(t); break;
		case 7: if (!put) e->addr = (uint64_t)t->ro; break;
		case 8: e->flags |= 1u << (2 + fz_below(&t->rng, 30)); break;
		case 9: e->iovcnt = 1 + fz_below(&t->rng, 3); break;
		}
		if (put && !r->writable && e->handle == r->handle &&
		    e->key == r->key)
			ro_put = 1;
		sum += e->len < BUF_BYTES ? e->len : BUF_BYTES;
	}
	memset(&c, 0, sizeof(c));
	c.count = n;
	entries = (uint64_t)t->rcopy;
	if (fz_chance(&t->rng, 3))
		entries = rand_bad_ptr(t);
	else if (fz_chance(&t->rng, 3) && n <= RCOPY_MAX)
		/* The array runs into the guard: EFAULT at the entry past it. */
		entries = (uint64_t)(t->iov + IOV_BYTES / sizeof(*t->iov)) -
			n * sizeof(*e) + sizeof(*e) * fz_below(&t->rng, 2);
	c.entries = entries;
	if (fz_chance(&t->rng, 2)) {
		c.flags = 1u << fz_below(&t->rng, 32);
		bad = 1;
	}
	if (fz_chance(&t->rng, 2)) {
		c.pad = 1 + fz_below(&t->rng, 9);
		bad = 1;
	}
	op_begin(t, OP_REGCOPY, 0);
	err = xioctl(t, s.fd, 0x0c, _IOC_READ | _IOC_WRITE, &c, sizeof(c));
	op_end(t);
	if (fz_result(OP_REGCOPY, err, E_REGUSE, "REGION_COPY"))
		goto out;
	if (c.done > n || (!err && c.done != n) || (!bad && c.bytes > sum &&
						   entries == (uint64_t)t->rcopy))
		fz_fail("REGION_COPY of %u: errno %d, done %u, bytes %llu of at most %llu",
			n, err, c.done, (unsigned long long)c.bytes,
			(unsigned long long)sum);
	if (!err && (bad || ro_put))
		fz_fail("REGION_COPY of %u succeeded: flags %#x pad %u, a put into a read-only region %d",
			n, c.flags, c.pad, ro_put);
	if (!err && verify && entries == (uint64_t)t->rcopy)
		verify_pattern(t->verify, vlen);
out:
	put_slot(t, &s);
}

/* ---- REGION_MAP and mmap(), REGION_QUERY ------------------------------- */

void do_regmap(struct thr *t)
{
	struct mpichan_region_map m;
	int err, prot, flags = MAP_SHARED, write, expect_fail = 0;
	struct fz_region r;
	struct tmap *tm = free_map(t);
	struct slot s;
	off_t off;
	size_t len;
	void *p;

	if (!tm || pick_slot(t, 0, &s) < 0)
		return;
	if (!region_pick(t, &r))
		goto out;
	memset(&m, 0, sizeof(m));
	m.handle = r.handle;
	m.key = r.key;
	write = r.writable ? fz_chance(&t->rng, 60) : fz_chance(&t->rng, 5);
	m.flags = write ? MPICHAN_REGION_WRITE : 0;
	switch (fz_below(&t->rng, 30)) {
	case 0: m.key = fz_next(&t->rng); break;
	case 1: m.flags |= 1u << (1 + fz_below(&t->rng, 31)); break;
	case 2: m.pad = 1; break;
	}
	op_begin(t, OP_REGMAP, 0);
	err = xioctl(t, s.fd, 0x0d, _IOC_READ | _IOC_WRITE, &m, sizeof(m));
	op_end(t);
	if (fz_result(OP_REGMAP, err, E_REGUSE, "REGION_MAP") || err)
		goto out;
	if ((m.flags & ~MPICHAN_REGION_WRITE) || m.pad ||
	    (write && !r.writable && m.key == r.key))
		fz_fail("REGION_MAP(flags %#x, pad %u) of a %s region succeeded",
			m.flags, m.pad, r.writable ? "writable" : "read-only");
	if (m.offset < MPICHAN_REGION_OFFSET || !m.map_len || m.map_len % PAGE ||
	    m.map_start >= PAGE || m.map_start + m.map_len > r.len)
		fz_fail("REGION_MAP of %llu bytes: offset %#llx map_start %llu map_len %llu",
			(unsigned long long)r.len, (unsigned long long)m.offset,
			(unsigned long long)m.map_start,
			(unsigned long long)m.map_len);
	len = m.map_len;
	if (fz_chance(&t->rng, 20))
		len = PAGE * (1 + fz_below(&t->rng, m.map_len / PAGE));
	prot = write && fz_chance(&t->rng, 70) ? PROT_READ | PROT_WRITE : PROT_READ;
	off = (off_t)m.offset;
	switch (fz_below(&t->rng, 30)) {
	case 0: len = m.map_len + PAGE; expect_fail = 1; break;
	case 1: prot |= PROT_EXEC; expect_fail = 1; break;
	case 2: flags = MAP_PRIVATE; expect_fail = 1; break;
	case 3: off += PAGE; expect_fail = 1; break;
	case 4: prot = PROT_READ | PROT_WRITE; break;	/* maybe not granted */
	case 5: flags |= MAP_POPULATE; break;
	}
	op_begin(t, OP_REGMAP, 0);
	p = mmap(NULL, len, prot, flags, s.fd, off);
	err = p == MAP_FAILED ? errno : 0;
	op_end(t);
	if (fz_result(OP_REGMAP, err, E_REGMMAP, "mmap of a region") || err)
		goto out;
	if (expect_fail)
		fz_fail("mmap of a region (len %zu of %llu, prot %d, flags %#x, offset +%lld) succeeded",
			len, (unsigned long long)m.map_len, prot, flags,
			(long long)(off - (off_t)m.offset));
	tm->addr = p;
	tm->len = len;
	tm->prot = prot;
	tm->window = 0;
	/* Whether it may become writable is the grant's, racing with MAPs. */
	tm->region = r.writable ? 2 : 1;
	tm->pat_base = r.pattern ? (int64_t)(r.base + m.map_start) : -1;
	snprintf(tm->hist, sizeof(tm->hist), "region mmap(handle %llu, %zu, prot %d)",
		 (unsigned long long)r.handle, len, prot);
out:
	put_slot(t, &s);
}

/* A load or a store through a region's mapping: data, or SIGBUS. */
void region_touch(struct thr *t, struct tmap *m)
{
	size_t o = fz_below(&t->rng, m->len) & ~7UL;
	volatile uint64_t *p = (volatile uint64_t *)(m->addr + o);
	volatile int store = (m->prot & PROT_WRITE) && fz_chance(&t->rng, 40);
	volatile uint64_t v = 0;
	int sig;

	op_begin(t, OP_REGTOUCH, 0);
	if (store)
		sig = GUARDED(*(volatile unsigned char *)(m->addr + o) =
			      (unsigned char)fz_next(&t->rng));
	else
		sig = GUARDED(v = *p);
	op_end(t);
	/* A region that ended or went stale is zapped: SIGBUS. */
	fz_result(OP_REGTOUCH, sig ? EFAULT : 0, E_TOUCH, "region mapping touch");
	if (sig == SIGSEGV && (m->prot & (store ? PROT_WRITE : PROT_READ)))
		fz_fail("SIGSEGV %s a region's mapping at +%zu: %s",
			store ? "storing into" : "loading from", o, m->hist);
	if (!sig && !store && m->pat_base >= 0 &&
	    v != (PAT_MAGIC | (uint64_t)(m->pat_base + o)))
		fz_fail("a region's mapping shows %016llx at +%zu, want %016llx: %s",
			(unsigned long long)v, o,
			(unsigned long long)(PAT_MAGIC | (uint64_t)(m->pat_base + o)),
			m->hist);
}

void do_regquery(struct thr *t)
{
	struct mpichan_region_query q;
	struct fz_region r;
	struct slot s;
	int err;

	if (pick_slot(t, 0, &s) < 0)
		return;
	if (!region_pick(t, &r))
		goto out;
	memset(&q, 0, sizeof(q));
	q.handle = r.handle;
	q.key = fz_chance(&t->rng, 5) ? fz_next(&t->rng) : r.key;
	op_begin(t, OP_REGQUERY, 0);
	err = xioctl(t, s.fd, 0x0e, _IOC_READ | _IOC_WRITE, &q, sizeof(q));
	op_end(t);
	if (fz_result(OP_REGQUERY, err, E_REGUSE, "REGION_QUERY") || err)
		goto out;
	if (q.key != r.key)
		fz_fail("REGION_QUERY with a wrong key succeeded");
	else if (q.len != r.len || q.flags != (r.writable ? MPICHAN_REGION_WRITE : 0) ||
		 q.map_len % PAGE || q.map_start >= PAGE ||
		 q.map_start + q.map_len > q.len || q.pid <= 0)
		fz_fail("REGION_QUERY: len %llu (%llu) flags %#x (writable %u) map %llu+%llu pid %d",
			(unsigned long long)q.len, (unsigned long long)r.len,
			q.flags, r.writable, (unsigned long long)q.map_start,
			(unsigned long long)q.map_len, q.pid);
out:
	put_slot(t, &s);
}

/* The arena changes under its regions: they go stale, never wrong. */
void do_regmem(struct thr *t)
{
	size_t off = PAGE * fz_below(&t->rng, RGN_BYTES / PAGE);
	size_t len = PAGE * (1 + fz_below(&t->rng, 8));
	unsigned char *at;
	int err = 0;
	void *p;

	if (off + len > RGN_BYTES)
		len = RGN_BYTES - off;
	at = t->rgn + off;
	op_begin(t, OP_REGMEM, 0);
	switch (fz_below(&t->rng, 5)) {
	case 0:		/* new memory in place: an unmap for the notifier */
		p = mmap(at, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		err = p == MAP_FAILED ? errno : 0;
		break;
	case 1:
		err = madvise(at, len, MADV_DONTNEED) ? errno : 0;
		break;
	case 2:		/* a protection change: regions live on */
		err = mprotect(at, len, PROT_READ) ? errno : 0;
		if (mprotect(at, len, PROT_READ | PROT_WRITE) && !err)
			err = errno;
		break;
	case 3:
		memset(at, (int)fz_next(&t->rng), len);
		break;
	default:	/* not inherited: fork no longer ends its regions */
		err = madvise(at, len, fz_chance(&t->rng, 50) ? MADV_DONTFORK :
			      MADV_DOFORK) ? errno : 0;
	}
	op_end(t);
	fz_result(OP_REGMEM, err, (const int[]){ ENOMEM, EAGAIN, 0 },
		  "region memory");
}
