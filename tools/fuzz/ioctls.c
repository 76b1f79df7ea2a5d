// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-fuzz: the ioctl operations of a worker thread, with valid,
 * boundary and garbage arguments, and what their answers must be.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "worker.h"

/* ---- ioctl operations ------------------------------------------- */

void do_open(struct thr *t)
{
	int flags = O_RDWR | (fz_chance(&t->rng, 50) ? O_CLOEXEC : 0) |
		(fz_chance(&t->rng, 20) ? O_NONBLOCK : 0);
	int fd;

	op_begin(t, OP_OPEN, 0);
	fd = open(MPICHAN_DEVICE, flags);
	op_end(t);
	if (fz_result(OP_OPEN, fd < 0 ? errno : 0, E_OPEN, "open"))
		return;
	if (fd >= 0 && add_slot(fd, SL_FRESH, -1) < 0)
		close(fd);
}

void close_slot(int i)
{
	struct slot s;

	pthread_mutex_lock(&W.lock);
	s = W.slots[i];
	W.slots[i].kind = SL_FREE;
	W.slots[i].ep.map = NULL;
	W.slots[i].win = NULL;
	pthread_mutex_unlock(&W.lock);
	if (s.kind == SL_FREE)
		return;
	/* The window is left to whichever thread mapped it. */
	if (s.ep.map)
		fz_munmap(s.ep.map, s.ep.off.map_size, "close_slot");
	close(s.fd);
}

void do_close(struct thr *t)
{
	struct slot s;
	int i = pick_slot(t, 0, &s);

	if (i < 0)
		return;
	op_begin(t, OP_CLOSE, 0);
	if (fz_chance(&t->rng, 30) && s.kind == SL_RANK) {
		int err = ioctl(s.fd, MPICHAN_IOC_FINISH) ? errno : 0;

		fz_result(OP_FINISH, err, E_FINISH, "finish before close");
	}
	close_slot(i);
	op_end(t);
	fz_result(OP_CLOSE, 0, NULL, "close");
}

void do_version(struct thr *t)
{
	struct mpichan_version v;
	struct slot s;
	int err;

	if (pick_slot(t, 0, &s) < 0)
		return;
	memset(&v, 0, sizeof(v));
	op_begin(t, OP_VERSION, 0);
	err = xioctl(t, s.fd, 0x00, _IOC_READ, &v, sizeof(v));
	op_end(t);
	put_slot(t, &s);
	if (!fz_result(OP_VERSION, err, (const int[]){ 0 }, "VERSION") && !err &&
	    (v.abi_version != MPICHAN_ABI_VERSION || v.max_ranks != 1024 ||
	     (v.features & ~(MPICHAN_FEAT_WINDOW_CACHE | MPICHAN_FEAT_REGION)) !=
		(MPICHAN_FEAT_RNDV | MPICHAN_FEAT_WINDOW |
		 MPICHAN_FEAT_MULTI | MPICHAN_FEAT_COLL)))
		fz_fail("VERSION: abi %u max_ranks %u features %llx", v.abi_version,
			v.max_ranks, (unsigned long long)v.features);
}

void do_create(struct thr *t)
{
	static const uint32_t rb[] = { 0, 4096, 8192, 16384, 65536, 1 << 20,
				       4095, 3 * 4096, 1 << 21, 2048 };
	struct mpichan_job_create c;
	struct slot s;
	int i, err;

	i = pick_slot(t, fz_chance(&t->rng, 80) ? SL_FRESH : 0, &s);
	if (i < 0)
		return;
	memset(&c, 0, sizeof(c));
	switch (fz_below(&t->rng, 10)) {
	case 0:
		c.nranks = (uint32_t)fz_next(&t->rng);
		c.ring_bytes = (uint32_t)fz_next(&t->rng);
		break;
	case 1:
		c.nranks = 1024 + fz_below(&t->rng, 2) - fz_below(&t->rng, 2);
		c.ring_bytes = rb[fz_below(&t->rng, 10)];
		break;
	case 2:
		c.nranks = fz_below(&t->rng, 3);
		c.ring_bytes = rb[fz_below(&t->rng, 10)];
		c.flags = fz_chance(&t->rng, 50) ? 1u << fz_below(&t->rng, 32) : 0;
		c.pad = c.flags ? 0 : (uint32_t)fz_next(&t->rng);
		break;
	default:
		c.nranks = 1 + fz_below(&t->rng, 6);
		c.ring_bytes = rb[fz_below(&t->rng, 5)];
	}
	op_begin(t, OP_CREATE, 0);
	err = xioctl(t, s.fd, 0x01, _IOC_READ | _IOC_WRITE, &c, sizeof(c));
	op_end(t);
	if (!fz_result(OP_CREATE, err, E_CREATE, "JOB_CREATE") && !err) {
		int j = add_job(c.job_id, (uint64_t *)c.secret, c.nranks);

		pthread_mutex_lock(&W.lock);
		if (W.slots[i].gen == s.gen && W.slots[i].kind == SL_FRESH) {
			W.slots[i].kind = SL_OWNER;
			W.slots[i].job = j;
		}
		pthread_mutex_unlock(&W.lock);
	}
	put_slot(t, &s);
}

/*
 * The header a rank sees must be the kernel's, unless someone scribbles.
 * The flag is read after the header: another thread may start
 * scribbling on this job (flag first, then the bytes) between the two,
 * and a header read before the flag was set could not tell.
 */
static void check_header(const struct mpichan_attach *a, const void *map,
			 uint64_t id, int j)
{
	const struct mpichan_job_hdr *h = map;
	struct mpichan_job_hdr copy;

	memcpy(&copy, h, sizeof(copy));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (job_hostile(j))
		return;
	if (copy.magic != MPICHAN_JOB_MAGIC ||
	    copy.abi_version != MPICHAN_ABI_VERSION || copy.job_id != id ||
	    copy.nranks != a->nranks || copy.ring_cells != a->ring_cells ||
	    memcmp(&copy.off, &a->off, sizeof(a->off)))
		fz_fail("job %llu: header after ATTACH: magic %x abi %u id %llu nranks %u/%u ring_cells %u/%u offsets %s",
			(unsigned long long)id, copy.magic, copy.abi_version,
			(unsigned long long)copy.job_id, copy.nranks, a->nranks,
			copy.ring_cells, a->ring_cells,
			memcmp(&copy.off, &a->off, sizeof(a->off)) ?
			"differ" : "agree");
}

void do_attach(struct thr *t)
{
	struct mpichan_attach a;
	struct job_ref job;
	struct slot s;
	void *map;
	int i, j, err, right = 1;

	i = pick_slot(t, fz_chance(&t->rng, 75) ? SL_FRESH : 0, &s);
	if (i < 0)
		return;
	pthread_mutex_lock(&W.lock);
	j = fz_chance(&t->rng, 60) || !W.njobs ? 0 :
		1 + (int)fz_below(&t->rng, W.njobs < NJOBS - 1 ? W.njobs : NJOBS - 1);
	job = W.jobs[j];
	pthread_mutex_unlock(&W.lock);
	memset(&a, 0, sizeof(a));
	a.job_id = job.id;
	a.secret[0] = job.secret[0];
	a.secret[1] = job.secret[1];
	if (j == 0 && fz_chance(&t->rng, 70) && fz->round.nworkers <= (int)job.nranks)
		a.rank = W.index + fz->round.nworkers *
			fz_below(&t->rng, (job.nranks - W.index + fz->round.nworkers - 1) /
				 fz->round.nworkers);
	else
		a.rank = fz_below(&t->rng, job.nranks + 1);
	switch (fz_below(&t->rng, 12)) {
	case 0: a.job_id = fz_below(&t->rng, 2) ? 0 : fz_next(&t->rng); right = 0; break;
	case 1: a.secret[fz_below(&t->rng, 2)] ^= 1ULL << fz_below(&t->rng, 64); right = 0; break;
	case 2: a.rank = (uint32_t)fz_next(&t->rng); break;
	case 3: a.flags = 1; right = 0; break;
	case 4: a.job_id += 1ULL << 32; right = 0; break;
	}
	op_begin(t, OP_ATTACH, 0);
	err = xioctl(t, s.fd, 0x02, _IOC_READ | _IOC_WRITE, &a, sizeof(a));
	op_end(t);
	if (fz_result(OP_ATTACH, err, E_ATTACH, "ATTACH") || err)
		goto out;
	if (!right)
		fz_fail("ATTACH with a wrong id, secret or flags succeeded");
	if (a.nranks != job.nranks || a.ring_cells * 64 != a.off.ring_bytes ||
	    a.off.map_size < a.off.ring_data)
		fz_fail("ATTACH: nranks %u (job %u) ring_cells %u ring_bytes %llu",
			a.nranks, job.nranks, a.ring_cells,
			(unsigned long long)a.off.ring_bytes);
	map = mmap(NULL, a.off.map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   s.fd, 0);
	if (map == MAP_FAILED) {
		fz_result(OP_MMAP, errno, (const int[]){ ENOMEM, 0 },
			  "mmap right after ATTACH");
		goto out;
	}
	check_header(&a, map, job.id, j);
	pthread_mutex_lock(&W.lock);
	if (W.slots[i].gen == s.gen && W.slots[i].kind != SL_FREE &&
	    !W.slots[i].ep.map) {
		struct slot *sl = &W.slots[i];

		sl->kind = SL_RANK;
		sl->job = j;
		sl->ep.fd = sl->fd;
		sl->ep.rank = a.rank;
		sl->ep.nranks = a.nranks;
		sl->ep.ring_cells = a.ring_cells;
		sl->ep.map = map;
		sl->ep.off = a.off;
		map = NULL;
	}
	pthread_mutex_unlock(&W.lock);
	if (map)
		fz_munmap(map, a.off.map_size, "attach");
out:
	put_slot(t, &s);
}

static int64_t rand_timeout(struct thr *t)
{
	static const int64_t to[] = { 0, 0, 0, 1000, 100000, FZ_MS, 5 * FZ_MS,
				      20 * FZ_MS };

	return to[fz_below(&t->rng, 8)];
}

void do_wait(struct thr *t)
{
	struct mpichan_wait w;
	struct slot s;
	int64_t t0, dt;
	int err;

	if (pick_slot(t, fz_chance(&t->rng, 80) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&w, 0, sizeof(w));
	w.timeout_ns = rand_timeout(t);
	w.peer = rand_rank(t, s.kind == SL_RANK ? s.ep.nranks : 4);
	if (fz_chance(&t->rng, 4))
		w.flags = 1u << fz_below(&t->rng, 32);
	if (fz_chance(&t->rng, 4))
		w.pad = 1;
	op_begin(t, OP_WAIT, w.timeout_ns);
	t0 = fz_now();
	err = xioctl(t, s.fd, 0x03, _IOC_READ | _IOC_WRITE, &w, sizeof(w));
	dt = fz_now() - t0;
	op_end(t);
	put_slot(t, &s);
	fz_result(OP_WAIT, err, E_WAIT, "WAIT");
	if (dt > w.timeout_ns + FZ_SLACK_NS)
		fz_fail("WAIT(timeout %lld ns) took %lld ns", (long long)w.timeout_ns,
			(long long)dt);
}

void do_wake(struct thr *t)
{
	struct mpichan_wake w;
	struct slot s;
	int err;

	if (pick_slot(t, fz_chance(&t->rng, 80) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&w, 0, sizeof(w));
	w.rank = (uint32_t)rand_rank(t, s.kind == SL_RANK ? s.ep.nranks : 4);
	if (fz_chance(&t->rng, 5))
		w.flags = (uint32_t)fz_next(&t->rng) | 1;
	op_begin(t, OP_WAKE, 0);
	err = xioctl(t, s.fd, 0x04, _IOC_WRITE, &w, sizeof(w));
	op_end(t);
	put_slot(t, &s);
	fz_result(OP_WAKE, err, E_WAKE, "WAKE");
}

void do_finish(struct thr *t)
{
	struct slot s;
	int err;

	if (pick_slot(t, 0, &s) < 0)
		return;
	op_begin(t, OP_FINISH, 0);
	err = ioctl(s.fd, MPICHAN_IOC_FINISH) ? errno : 0;
	op_end(t);
	put_slot(t, &s);
	fz_result(OP_FINISH, err, E_FINISH, "FINISH");
}

void do_send(struct thr *t)
{
	struct mpichan_send m;
	struct slot s;
	uint64_t total;
	int err;

	if (pick_slot(t, fz_chance(&t->rng, 90) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&m, 0, sizeof(m));
	m.iov = rand_iov(t, t->send, &m.iovcnt, &total, &s);
	if (fz_chance(&t->rng, 30) && m.iov == (uint64_t)t->iov) {
		/* One whole-page segment: the window path's favourite. */
		uint64_t pages = 1 + fz_below(&t->rng, 16);

		t->iov[0].base = (uint64_t)(t->send + PAGE *
			fz_below(&t->rng, BUF_BYTES / PAGE - pages));
		t->iov[0].len = pages * PAGE - (fz_chance(&t->rng, 30) ? 8 : 0);
		m.iovcnt = 1;
		total = t->iov[0].len;
	}
	m.dst = (uint32_t)rand_rank(t, s.kind == SL_RANK ? s.ep.nranks : 4);
	m.context = fz_below(&t->rng, 3);
	m.tag = fz_chance(&t->rng, 5) ? -(int32_t)fz_below(&t->rng, 3) - 1 :
		(int32_t)fz_below(&t->rng, 4);
	m.user_data = fz_next(&t->rng);
	if (fz_chance(&t->rng, 4))
		m.flags = 1u << fz_below(&t->rng, 32);
	else if (fz_chance(&t->rng, 10))
		/* One send for several receivers: m.dst counts them. */
		m.flags = MPICHAN_SEND_MULTI;
	op_begin(t, OP_SEND, 0);
	err = xioctl(t, s.fd, 0x06, _IOC_READ | _IOC_WRITE, &m, sizeof(m));
	op_end(t);
	put_slot(t, &s);
	if (fz_result(OP_SEND, err, E_SEND, "SEND") || err)
		return;
	if (m.status == MPICHAN_XFER_QUEUED)
		push_handle(t, m.handle);
	else if (m.status != MPICHAN_XFER_DONE || m.len > total)
		fz_fail("SEND: status %u len %llu of %llu", m.status,
			(unsigned long long)m.len, (unsigned long long)total);
}

/* Bytes of a one-segment send from a send area: word at o is PAT_MAGIC|o. */
void verify_pattern(const unsigned char *buf, uint64_t len)
{
	uint64_t w0, w, i, base;

	if (len < 16)
		return;
	memcpy(&w0, buf, 8);
	if ((w0 & ~0xffffffULL) != PAT_MAGIC)
		return;		/* not from a send area, or unaligned */
	base = w0 & 0xffffff;
	for (i = 8; i + 8 <= len; i += 8) {
		memcpy(&w, buf + i, 8);
		if (w != (PAT_MAGIC | (base + i))) {
			fz_fail("mapped receive: byte %llu of %llu is %016llx, want %016llx",
				(unsigned long long)i, (unsigned long long)len,
				(unsigned long long)w,
				(unsigned long long)(PAT_MAGIC | (base + i)));
			return;
		}
	}
}

void do_recv(struct thr *t)
{
	static const uint32_t fl[] = { 0, MPICHAN_RECV_NOQUEUE, MPICHAN_RECV_MAP,
		MPICHAN_RECV_MAP | MPICHAN_RECV_NOQUEUE, MPICHAN_RECV_HANDLE,
		MPICHAN_RECV_HANDLE | MPICHAN_RECV_MAP };
	struct mpichan_recv r;
	struct slot s;
	uint64_t total;
	int err, verify = 0, sig;
	unsigned char *win;

	if (pick_slot(t, fz_chance(&t->rng, 90) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&r, 0, sizeof(r));
	r.flags = fl[fz_below(&t->rng, 6)];
	if (fz_chance(&t->rng, 3))
		r.flags |= 1u << fz_below(&t->rng, 32);
	if ((r.flags & (MPICHAN_RECV_NOQUEUE | MPICHAN_RECV_HANDLE)) &&
	    !(r.flags & ~7u) && fz_chance(&t->rng, 60)) {
		/* Never queued, so nothing else writes the verify area. */
		t->iov[0].base = (uint64_t)t->verify;
		t->iov[0].len = BUF_BYTES - fz_below(&t->rng, 2) * fz_below(&t->rng, BUF_BYTES);
		r.iov = (uint64_t)t->iov;
		r.iovcnt = 1;
		total = t->iov[0].len;
		verify = 1;
	} else {
		r.iov = rand_iov(t, t->recv, &r.iovcnt, &total, &s);
	}
	r.src = rand_rank(t, s.kind == SL_RANK ? s.ep.nranks : 4);
	if (r.src == MPICHAN_RANK_NONE && fz_chance(&t->rng, 50))
		r.src = MPICHAN_RANK_ANY;
	r.context = fz_below(&t->rng, 3);
	r.tag = fz_chance(&t->rng, 30) ? MPICHAN_TAG_ANY :
		fz_chance(&t->rng, 5) ? -2 - (int32_t)fz_below(&t->rng, 5) :
		(int32_t)fz_below(&t->rng, 4);
	r.user_data = fz_next(&t->rng);
	r.handle = any_handle(t);
	op_begin(t, OP_RECV, 0);
	err = xioctl(t, s.fd, 0x07, _IOC_READ | _IOC_WRITE, &r, sizeof(r));
	op_end(t);
	if (fz_result(OP_RECV, err, E_RECV, "RECV") || err)
		goto out;
	switch (r.status) {
	case MPICHAN_XFER_QUEUED:
		push_handle(t, r.handle);
		break;
	case MPICHAN_XFER_DONE:
		if (r.len > total || r.len > r.msg_len || r.msg_src < 0 ||
		    (s.kind == SL_RANK && r.msg_src >= (int32_t)s.ep.nranks) ||
		    r.msg_tag < 0)
			fz_fail("RECV DONE: len %llu msg_len %llu of %llu, src %d tag %d",
				(unsigned long long)r.len, (unsigned long long)r.msg_len,
				(unsigned long long)total, r.msg_src, r.msg_tag);
		break;
	case MPICHAN_XFER_MAPPED:
		if (!(r.flags & MPICHAN_RECV_MAP) || r.map_len % PAGE ||
		    !r.map_len || r.map_off + r.map_len > r.len || r.len > total ||
		    r.len > r.msg_len)
			fz_fail("RECV MAPPED: map_off %llu map_len %llu len %llu msg_len %llu of %llu",
				(unsigned long long)r.map_off, (unsigned long long)r.map_len,
				(unsigned long long)r.len, (unsigned long long)r.msg_len,
				(unsigned long long)total);
		/* The window must stay where it is while it is read. */
		pthread_rwlock_rdlock(&W.winlock);
		pthread_mutex_lock(&W.lock);
		win = NULL;
		for (int i = 0; i < NSLOTS; i++)
			if (W.slots[i].gen == s.gen && W.slots[i].kind == SL_RANK)
				win = W.slots[i].win;
		pthread_mutex_unlock(&W.lock);
		if (win && verify && r.map_off + r.map_len <= total) {
			sig = GUARDED(memcpy(t->verify + r.map_off, win, r.map_len));
			if (!sig)
				verify_pattern(t->verify, r.len);
			fz_result(OP_WINTOUCH, sig ? EFAULT : 0, E_TOUCH, "copy out of the window");
		}
		pthread_rwlock_unlock(&W.winlock);
		if (fz_chance(&t->rng, 90)) {
			struct mpichan_unmap u = { .handle = r.handle };

			op_begin(t, OP_UNMAP, 0);
			err = xioctl(t, s.fd, 0x09, _IOC_WRITE, &u, sizeof(u));
			op_end(t);
			/* Another thread may have guessed the handle first. */
			fz_result(OP_UNMAP, err, (const int[]){ ENOENT, 0 }, "UNMAP after MAPPED");
		}
		break;
	default:
		fz_fail("RECV: status %u", r.status);
	}
out:
	put_slot(t, &s);
}

void do_cancel_unmap(struct thr *t, int unmap)
{
	struct mpichan_cancel c;
	struct slot s;
	int err;

	if (pick_slot(t, fz_chance(&t->rng, 90) ? SL_RANK : 0, &s) < 0)
		return;
	memset(&c, 0, sizeof(c));
	c.handle = any_handle(t);
	if (fz_chance(&t->rng, 5))
		c.flags = 1;
	if (fz_chance(&t->rng, 5))
		c.pad = 1;
	op_begin(t, unmap ? OP_UNMAP : OP_CANCEL, 0);
	/* struct mpichan_unmap has the same layout. */
	err = xioctl(t, s.fd, unmap ? 0x09 : 0x08, _IOC_WRITE, &c, sizeof(c));
	op_end(t);
	put_slot(t, &s);
	fz_result(unmap ? OP_UNMAP : OP_CANCEL, err, E_CANCEL,
		  unmap ? "UNMAP" : "CANCEL");
}

/*
 * The dispatcher's rules, which must hold whatever the fd: these calls
 * never reach a handler, so the errno is exact.
 */
void do_badioctl(struct thr *t)
{
	/* min: the first published size, where it is not the size. */
	static const struct { unsigned int dir, size, min; } k[15] = {
		{ _IOC_READ, sizeof(struct mpichan_version), 0 },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_job_create), 0 },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_attach),
		  offsetof(struct mpichan_attach, off.coll) },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_wait), 0 },
		{ _IOC_WRITE, sizeof(struct mpichan_wake), 0 },
		{ _IOC_NONE, 0, 0 },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_send), 0 },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_recv), 0 },
		{ _IOC_WRITE, sizeof(struct mpichan_cancel), 0 },
		{ _IOC_WRITE, sizeof(struct mpichan_unmap), 0 },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_region_reg), 0 },
		{ _IOC_WRITE, sizeof(struct mpichan_region_dereg), 0 },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_region_copy), 0 },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_region_map), 0 },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct mpichan_region_query), 0 },
	};
	static const unsigned int magic[] = { 'A', 'z', 0xB7, 0xB9, 0xFF };
	static __thread unsigned char buf[4 * PAGE];
	unsigned int nr = fz_below(&t->rng, 15), dir = k[nr].dir, size, want;
	unsigned int type = MPICHAN_IOC_MAGIC;
	struct slot s;
	int err;

	if (pick_slot(t, 0, &s) < 0)
		return;
	memset(buf, 0, sizeof(buf));
	size = k[nr].size;
	switch (fz_below(&t->rng, 6)) {
	case 0:		/* unknown number */
		nr = 0x0f + fz_below(&t->rng, 0xf1);
		dir = fz_below(&t->rng, 4);
		size = fz_below(&t->rng, 200);
		want = ENOTTY;
		break;
	case 1:		/* other magic */
		type = magic[fz_below(&t->rng, 5)];
		want = ENOTTY;
		break;
	case 2:		/* wrong direction */
		dir = (dir + 1 + fz_below(&t->rng, 3)) & 3;
		want = ENOTTY;
		break;
	case 3:		/* shorter than the first published size */
		if (k[nr].min)
			size = k[nr].min;
		if (!size)
			goto out;
		size = fz_below(&t->rng, size);
		want = EINVAL;
		break;
	case 4:		/* over a page */
		size = PAGE + 1 + fz_below(&t->rng, 2 * PAGE);
		want = E2BIG;
		break;
	default:	/* longer, unknown tail not zero */
		if (!(dir & _IOC_WRITE))
			goto out;
		size += 1 + fz_below(&t->rng, PAGE - size);
		buf[k[nr].size + fz_below(&t->rng, size - k[nr].size)] = 1 +
			fz_below(&t->rng, 255);
		want = E2BIG;
	}
	op_begin(t, OP_BADIOCTL, 0);
	err = ioctl(s.fd, _IOC(dir, type, nr, size), buf) ? errno : 0;
	op_end(t);
	if (err != (int)want) {
		fz_result(OP_BADIOCTL, err, NULL, "bad ioctl");
		fz_fail("ioctl(_IOC(%u, %#x, %#x, %u)): errno %d, want %u", dir,
			type, nr, size, err, want);
	} else {
		fz_result(OP_BADIOCTL, err, (const int[]){ (int)want, 0 }, "bad ioctl");
	}
out:
	put_slot(t, &s);
}

/* A right ioctl number with an argument that cannot be copied: EFAULT. */
void do_badarg(struct thr *t)
{
	static const unsigned long cmds[] = {
		MPICHAN_IOC_VERSION, MPICHAN_IOC_JOB_CREATE, MPICHAN_IOC_ATTACH,
		MPICHAN_IOC_WAIT, MPICHAN_IOC_SEND, MPICHAN_IOC_RECV,
		MPICHAN_IOC_REGION_REG, MPICHAN_IOC_REGION_COPY,
		MPICHAN_IOC_REGION_MAP, MPICHAN_IOC_REGION_QUERY,
		MPICHAN_IOC_WAKE, MPICHAN_IOC_CANCEL, MPICHAN_IOC_UNMAP,
		MPICHAN_IOC_REGION_DEREG,
	};
	unsigned int c = fz_below(&t->rng, 14);
	uint64_t p = rand_bad_ptr(t);
	struct slot s;
	int err;

	/* The read-only page: only calls that write their argument back. */
	if (c < 10 && fz_chance(&t->rng, 30))
		p = (uint64_t)t->ro;
	if (pick_slot(t, 0, &s) < 0)
		return;
	op_begin(t, OP_BADARG, 0);
	err = ioctl(s.fd, cmds[c], (void *)p) ? errno : 0;
	op_end(t);
	put_slot(t, &s);
	if (err != EFAULT)
		fz_fail("ioctl %#lx with argument %#llx: errno %d, want EFAULT",
			cmds[c], (unsigned long long)p, err);
	fz_result(OP_BADARG, err, NULL, "ioctl with a bad argument");
}

