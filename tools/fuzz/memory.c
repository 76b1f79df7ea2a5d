// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-fuzz: the operations on memory: mappings of the job and the
 * window, poll, debugfs, the hostile rank, honest ring traffic and the
 * completion queue, fork after attach.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "worker.h"

/* ---- mappings --------------------------------------------------- */

struct tmap *free_map(struct thr *t)
{
	int i;

	for (i = 0; i < NMAPS; i++)
		if (!t->maps[i].addr)
			return &t->maps[i];
	return NULL;
}

struct tmap *some_map(struct thr *t)
{
	int i, n = 0, cand[NMAPS];

	for (i = 0; i < NMAPS; i++)
		if (t->maps[i].addr)
			cand[n++] = i;
	return n ? &t->maps[cand[fz_below(&t->rng, n)]] : NULL;
}

static void forget_window(void *addr)
{
	int i;

	pthread_mutex_lock(&W.lock);
	for (i = 0; i < NSLOTS; i++)
		if (W.slots[i].win == addr)
			W.slots[i].win = NULL;
	pthread_mutex_unlock(&W.lock);
}

static int rand_prot(struct thr *t)
{
	static const int p[] = { PROT_READ, PROT_READ | PROT_WRITE,
		PROT_READ | PROT_WRITE | PROT_EXEC, PROT_READ | PROT_EXEC,
		PROT_NONE, PROT_WRITE };

	return p[fz_chance(&t->rng, 60) ? fz_below(&t->rng, 2) : fz_below(&t->rng, 6)];
}

void do_mmap(struct thr *t, int window)
{
	struct tmap *m = free_map(t);
	struct slot s;
	size_t len;
	off_t off = window ? (off_t)MPICHAN_WINDOW_OFFSET : 0;
	int prot, flags = MAP_SHARED, i, err;
	void *p;

	if (!m)
		return;
	i = pick_slot(t, fz_chance(&t->rng, 80) ? SL_RANK : 0, &s);
	if (i < 0)
		return;
	len = s.kind == SL_RANK ? s.ep.off.map_size : 16 * PAGE;
	switch (fz_below(&t->rng, 8)) {
	case 0: len = PAGE; break;
	case 1: len += PAGE; break;
	case 2: len = PAGE * (1 + fz_below(&t->rng, 64)); break;
	case 3: len = window ? MPICHAN_WINDOW_MAX_BYTES + PAGE * fz_below(&t->rng, 2) :
		(16ULL << 30); break;
	case 4: len = fz_below(&t->rng, 3) ? 1 + fz_below(&t->rng, 3 * PAGE) : 0; break;
	default:
		if (window)
			len = PAGE * (1 + fz_below(&t->rng, 512));
	}
	prot = window ? (fz_chance(&t->rng, 70) ? PROT_READ : rand_prot(t)) : rand_prot(t);
	if (fz_chance(&t->rng, 5))
		flags = MAP_PRIVATE;
	if (!window && fz_chance(&t->rng, 5))
		off = fz_chance(&t->rng, 50) ? (off_t)PAGE :
			(off_t)(fz_next(&t->rng) & 0x7ffffffffff000ULL);
	if (len <= (1 << 20) && fz_chance(&t->rng, 10))
		flags |= MAP_POPULATE;
	op_begin(t, window ? OP_WINMAP : OP_MMAP, 0);
	p = mmap(NULL, len, prot, flags, s.fd, off);
	err = p == MAP_FAILED ? errno : 0;
	op_end(t);
	if (fz_result(window ? OP_WINMAP : OP_MMAP, err, E_MMAP, "mmap") || err)
		goto out;
	if ((prot & PROT_EXEC) && !window)
		fz_fail("mmap of the job with PROT_EXEC succeeded");
	if (window && (prot & PROT_WRITE))
		fz_fail("mmap of the window with PROT_WRITE succeeded");
	if (window && (prot & PROT_EXEC) && 
	    !__atomic_fetch_or(&fz->noted, 1, __ATOMIC_RELAXED))
		fz_log("note: the window accepts PROT_EXEC (not refused by the uapi)");
	if (s.kind == SL_OWNER && (prot & PROT_WRITE))
		fz_fail("owner mapped the job writable");
	m->addr = p;
	m->len = len;
	m->prot = prot;
	snprintf(m->hist, sizeof(m->hist), "mmap(kind %d, %zu, prot %d, flags %#x)",
		 s.kind, len, prot, flags);
	m->window = off == (off_t)MPICHAN_WINDOW_OFFSET;
	if (m->window) {
		pthread_mutex_lock(&W.lock);
		if (W.slots[i].gen == s.gen && W.slots[i].kind == SL_RANK &&
		    !W.slots[i].win) {
			W.slots[i].win = p;
			W.slots[i].win_len = len;
		}
		pthread_mutex_unlock(&W.lock);
	}
out:
	put_slot(t, &s);
}

void drop_map(struct tmap *m)
{
	if (m->window) {
		pthread_rwlock_wrlock(&W.winlock);
		forget_window(m->addr);
	}
	fz_munmap(m->addr, m->len, "drop_map");
	if (m->window)
		pthread_rwlock_unlock(&W.winlock);
	memset(m, 0, sizeof(*m));
}

static void note(struct tmap *m, const char *fmt, ...)
{
	size_t n = strlen(m->hist);
	va_list ap;

	if (n + 2 >= sizeof(m->hist))
		return;
	m->hist[n++] = ';';
	va_start(ap, fmt);
	vsnprintf(m->hist + n, sizeof(m->hist) - n, fmt, ap);
	va_end(ap);
}

void do_munmap(struct thr *t)
{
	struct tmap *m = some_map(t);
	size_t off, len;
	int err;

	if (!m)
		return;
	if (fz_chance(&t->rng, 60)) {
		op_begin(t, OP_MUNMAP, 0);
		drop_map(m);
		op_end(t);
		fz_result(OP_MUNMAP, 0, NULL, "munmap");
		return;
	}
	/* Part of it: splits the job mapping, and is refused on the window. */
	off = PAGE * fz_below(&t->rng, (m->len + PAGE - 1) / PAGE);
	len = PAGE * (1 + fz_below(&t->rng, 4));
	if (off + len > m->len)
		len = m->len - off;
	if (!len)
		return;
	op_begin(t, OP_MUNMAP, 0);
	if (m->window)
		pthread_rwlock_wrlock(&W.winlock);
	err = fz_munmap(m->addr + off, len, "partial") ? errno : 0;
	if (!err && m->window)
		forget_window(m->addr);
	if (m->window)
		pthread_rwlock_unlock(&W.winlock);
	op_end(t);
	fz_result(OP_MUNMAP, err, E_MUNMAP, "munmap of part");
	note(m, "munmap(+%zu, %zu) %d", off, len, err);
	if (!err && m->window && (off || len < m->len))
		fz_fail("munmap split the window");
	if (!err && m->region && (off || len < m->len))
		fz_fail("munmap split a region's mapping");
	if (!err) {
		/*
		 * Unmap the rest too, rather than track holes, but never the
		 * hole itself: another thread may have mapped something there.
		 */
		size_t end = (m->len + PAGE - 1) & ~(PAGE - 1);

		len = (len + PAGE - 1) & ~(PAGE - 1);
		if (off)
			fz_munmap(m->addr, off, "rest");
		if (off + len < end)
			fz_munmap(m->addr + off + len, end - off - len, "rest");
		memset(m, 0, sizeof(*m));
	}
}

void do_mprotect(struct thr *t)
{
	struct tmap *m = some_map(t);
	size_t off, len;
	int prot, err;

	if (!m)
		return;
	prot = rand_prot(t);
	off = fz_chance(&t->rng, 50) ? 0 : PAGE * fz_below(&t->rng, (m->len + PAGE - 1) / PAGE);
	len = fz_chance(&t->rng, 50) ? m->len - off : PAGE;
	if (!len || off >= m->len)
		return;
	op_begin(t, OP_MPROTECT, 0);
	err = mprotect(m->addr + off, len, prot) ? errno : 0;
	op_end(t);
	fz_result(OP_MPROTECT, err, E_MPROTECT, "mprotect");
	if (!err && (prot & PROT_EXEC))
		fz_fail("mprotect added PROT_EXEC to a %s mapping",
			m->window ? "window" : "job");
	if (!err && m->window && (prot & PROT_WRITE))
		fz_fail("mprotect made the window writable");
	if (!err && m->region == 1 && (prot & PROT_WRITE))
		fz_fail("mprotect made a read-only region mapping writable");
	/* Part of it to what it is already is no change, and no split. */
	if (!err && m->region && (off || len < m->len) && prot != m->prot)
		fz_fail("mprotect split a region's mapping");
	if (!err)
		note(m, "mprotect(+%zu, %zu, %d)", off, len, prot);
	if (!err && off == 0 && len == m->len)
		m->prot = prot;
	else if (!err && !m->region)
		m->prot = PROT_NONE;	/* mixed: don't touch it any more */
}

void do_mremap(struct thr *t)
{
	struct tmap *m = some_map(t);
	size_t nlen;
	int flags = fz_chance(&t->rng, 60) ? MREMAP_MAYMOVE : 0, err;
	void *p;

	if (!m)
		return;
	switch (fz_below(&t->rng, 3)) {
	case 0: nlen = m->len; break;
	case 1: nlen = m->len + PAGE; break;
	default: nlen = m->len > PAGE ? m->len - PAGE : m->len;
	}
	op_begin(t, OP_MREMAP, 0);
	p = mremap(m->addr, m->len, nlen, flags);
	err = p == MAP_FAILED ? errno : 0;
	op_end(t);
	fz_result(OP_MREMAP, err, E_MREMAP, "mremap");
	if (err)
		return;
	if (m->window && (p != m->addr || nlen != m->len))
		fz_fail("mremap moved or resized the window (%zu -> %zu)", m->len, nlen);
	if (m->region && (p != m->addr || nlen != m->len))
		fz_fail("mremap moved or resized a region's mapping (%zu -> %zu)",
			m->len, nlen);
	if (nlen > m->len)
		fz_fail("mremap grew a VM_DONTEXPAND mapping");
	note(m, "mremap(%zu -> %zu, %d)%s", m->len, nlen, flags,
	     p != m->addr ? " moved" : "");
	m->addr = p;
	m->len = nlen;
}

/* Read (and where allowed write) a mapping; SIGSEGV/SIGBUS are counted. */
void do_touch(struct thr *t)
{
	struct tmap *m = some_map(t);
	volatile unsigned char *p;
	int sig;

	if (!m || t->touches > 4000)
		return;
	t->touches++;
	if (m->region) {
		region_touch(t, m);
		return;
	}
	p = m->addr + fz_below(&t->rng, m->len);
	op_begin(t, m->window ? OP_WINTOUCH : OP_TOUCH, 0);
	sig = GUARDED((void)*p);
	op_end(t);
	/* The window is empty outside a mapped receive: SIGBUS is expected. */
	fz_result(m->window ? OP_WINTOUCH : OP_TOUCH, sig ? EFAULT : 0, E_TOUCH, "touch");
	if (sig && !m->window && (m->prot & PROT_READ) && sig == SIGSEGV) {
		char maps[8192], want[32];
		ssize_t n = 0;
		int fd = open("/proc/self/maps", O_RDONLY);

		fz_fail("SIGSEGV reading a readable job mapping at offset %zu (%p, len %zu, prot %d): %s",
			(size_t)(p - m->addr), (void *)m->addr, m->len, m->prot, m->hist);
		if (fd >= 0) {
			n = read(fd, maps, sizeof(maps) - 1);
			close(fd);
		}
		maps[n > 0 ? n : 0] = 0;
		snprintf(want, sizeof(want), "%lx-", (unsigned long)m->addr);
		fz_log("mapped there: %s", strstr(maps, want) ? "yes" : "no");
		fz_unmapped(m->addr);
	}}

/* ---- poll, debugfs ------------------------------------------------ */

void do_poll(struct thr *t)
{
	struct pollfd pfd[3];
	struct slot s[3];
	int n = 0, i, ret, to = fz_chance(&t->rng, 50) ? 0 : 1 + fz_below(&t->rng, 10);
	int64_t t0, dt;

	for (i = 0; i < 3; i++) {
		if (pick_slot(t, 0, &s[n]) < 0)
			break;
		pfd[n].fd = s[n].fd;
		pfd[n].events = POLLIN | POLLOUT | POLLPRI;
		pfd[n].revents = 0;
		n++;
	}
	if (!n)
		return;
	op_begin(t, OP_POLL, to * FZ_MS);
	t0 = fz_now();
	ret = poll(pfd, n, to);
	dt = fz_now() - t0;
	op_end(t);
	fz_result(OP_POLL, ret < 0 ? errno : 0, E_POLL, "poll");
	for (i = 0; i < n; i++) {
		if (ret > 0 && (pfd[i].revents & ~(POLLIN | POLLRDNORM | POLLERR)))
			fz_fail("poll: revents %#x", pfd[i].revents);
		if (ret > 0 && s[i].kind != SL_RANK && pfd[i].revents &&
		    pfd[i].revents != POLLERR && s[i].kind != SL_FRESH)
			fz_fail("poll on an owner fd: revents %#x", pfd[i].revents);
		put_slot(t, &s[i]);
	}
	if (dt > to * FZ_MS + FZ_SLACK_NS)
		fz_fail("poll(%d ms) took %lld ns", to, (long long)dt);
}

/* Read a debugfs file whole; counters in stats must never go negative. */
void do_debugfs(struct thr *t)
{
	char path[128], buf[8192];
	ssize_t n, got = 0;
	int fd, err = 0;
	uint64_t id;

	switch (fz_below(&t->rng, 3)) {
	case 0:
		snprintf(path, sizeof(path), FZ_DEBUGFS "/stats");
		break;
	case 1:
		snprintf(path, sizeof(path), FZ_DEBUGFS "/version");
		break;
	default:
		pthread_mutex_lock(&W.lock);
		id = W.jobs[fz_below(&t->rng, W.njobs + 1 < NJOBS ? W.njobs + 1 : NJOBS)].id;
		pthread_mutex_unlock(&W.lock);
		snprintf(path, sizeof(path), FZ_DEBUGFS "/job-%llu/state",
			 (unsigned long long)id);
	}
	op_begin(t, OP_DEBUGFS, 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else {
		while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0 &&
		       got + n < (ssize_t)sizeof(buf) - 1)
			got += n;
		if (n < 0)
			err = errno;
		close(fd);
	}
	op_end(t);
	fz_result(OP_DEBUGFS, err, E_DEBUGFS, path);
	buf[got] = 0;
	if (!err && strstr(path, "stats") && strstr(buf, ": -"))
		fz_fail("negative counter in stats:\n%s", buf);
}

/* ---- the hostile rank, honest traffic ---------------------------- */

void do_scribble(struct thr *t)
{
	struct slot s;
	struct mcr_ep *ep = &s.ep;
	uint64_t off, n, i, r;
	unsigned char *p;

	if (pick_slot(t, SL_RANK, &s) < 0)
		return;
	/* The round's job only in a hostile round; our own jobs now and then. */
	if (s.job == 0 ? !fz->round.hostile || fz->round.hostile_worker != W.index :
	    !job_hostile(s.job) && !fz_chance(&t->rng, 5))
		goto out;
	set_hostile(s.job);
	r = fz_below(&t->rng, ep->nranks);
	switch (fz_below(&t->rng, 7)) {
	case 0: off = ep->off.ring_ctl + mcr_ring_index(ep, ep->rank, (uint32_t)r) *
		MPICHAN_RING_CTL_SIZE; break;			/* our tail */
	case 1: off = ep->off.ring_ctl + mcr_ring_index(ep, (uint32_t)r, ep->rank) *
		MPICHAN_RING_CTL_SIZE + 64; break;		/* our head */
	case 2: off = ep->off.rank_ctl + r * MPICHAN_RANK_CTL_SIZE +
		64 * fz_below(&t->rng, 4); break;		/* rank ctls, cq head */
	case 3: off = ep->off.cq + ep->rank * MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE +
		fz_below(&t->rng, MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE); break;
	case 4: off = 0; break;					/* job header */
	case 5: off = ep->off.ring_data + mcr_ring_index(ep, ep->rank, (uint32_t)r) *
		ep->off.ring_bytes + fz_below(&t->rng, ep->off.ring_bytes); break;
	default:
		if (t->touches++ > 2000)
			goto out;
		off = fz_below(&t->rng, ep->off.map_size);
	}
	n = 1 + fz_below(&t->rng, 16);
	if (off + n > ep->off.map_size)
		off = ep->off.map_size - n;
	op_begin(t, OP_SCRIBBLE, 0);
	pthread_mutex_lock(&W.lock);
	/* Under the lock: thread 0 cannot unmap it meanwhile. */
	p = NULL;
	for (i = 0; i < NSLOTS; i++)
		if (W.slots[i].gen == s.gen && W.slots[i].ep.map)
			p = W.slots[i].ep.map;
	if (p)
		for (i = 0; i < n; i++)
			p[off + i] = (unsigned char)fz_next(&t->rng);
	pthread_mutex_unlock(&W.lock);
	op_end(t);
	fz_result(OP_SCRIBBLE, 0, NULL, "scribble");
out:
	put_slot(t, &s);
}

/* Thread 0 only: the rings are single-producer, single-consumer. */
void do_ring(struct thr *t)
{
	unsigned char payload[512];
	const struct mpichan_msg *m;
	struct slot s;
	uint32_t dst, src, len, k;
	int err, ret;

	if (pick_slot(t, SL_RANK, &s) < 0)
		return;
	dst = fz_below(&t->rng, s.ep.nranks);
	len = fz_below(&t->rng, sizeof(payload));
	if (len > mcr_max_payload(&s.ep))
		len = mcr_max_payload(&s.ep);
	memset(payload, (int)dst, len);
	op_begin(t, OP_RING, 0);
	ret = mcr_send(&s.ep, dst, MPICHAN_MSG_DATA, (int32_t)len, 7,
				payload, len);
	if (!ret) {
		ret = mcr_notify(&s.ep, dst);
		if (ret < 0)
			fz_result(OP_WAKE, -ret, E_WAKE, "WAKE from mcr_notify");
		ret = 0;
	}
	err = -ret;
	for (src = 0; src < s.ep.nranks && !err; src++) {
		for (k = 0; k < 8; k++) {
			m = mcr_peek(&s.ep, src, &ret);
			if (ret || !m) {
				err = -ret;
				break;
			}
			if (!job_hostile(s.job) && m->kind == MPICHAN_MSG_DATA &&
			    (m->tag != (int32_t)m->len || m->context != 7))
				fz_fail("ring %u->%u: message tag %d len %u context %u",
					src, s.ep.rank, m->tag, m->len, m->context);
			mcr_consume(&s.ep, src, m);
		}
	}
	op_end(t);
	if (fz_result(OP_RING, err, job_hostile(s.job) ? E_RING_HOSTILE : E_RING,
		      "ring traffic"))
		fz_log("ring traffic: job %d (id %llu) rank %u of %u", s.job,
		       (unsigned long long)W.jobs[s.job].id, s.ep.rank, s.ep.nranks);
}

/* Thread 0: sleep the honest way, then drain the completion queue. */
void do_sleep_cq(struct thr *t)
{
	struct mpichan_rank_ctl *me;
	struct mpichan_cqe *q, e;
	uint32_t head, tail;
	struct slot s;
	int64_t to = fz_chance(&t->rng, 50) ? 0 : (int64_t)fz_below(&t->rng, 3 * FZ_MS);
	int ret;

	if (pick_slot(t, SL_RANK, &s) < 0)
		return;
	op_begin(t, OP_SLEEP, to);
	ret = mcr_sleep(&s.ep, to, fz_chance(&t->rng, 50) ? MPICHAN_RANK_NONE :
			    (int32_t)fz_below(&t->rng, s.ep.nranks));
	op_end(t);
	fz_result(OP_SLEEP, -ret, E_WAIT, "mcr_sleep");

	me = mcr_rank_ctl(&s.ep, s.ep.rank);
	q = (struct mpichan_cqe *)(s.ep.map + s.ep.off.cq + (uint64_t)s.ep.rank *
				   MPICHAN_CQ_ENTRIES * MPICHAN_CQE_SIZE);
	op_begin(t, OP_CQ, 0);
	head = me->cq_head;
	tail = __atomic_load_n(&me->cq_tail, __ATOMIC_ACQUIRE);
	ret = 0;
	if (tail - head > MPICHAN_CQ_ENTRIES) {
		if (!job_hostile(s.job))
			fz_fail("rank %u: cq head %u tail %u", s.ep.rank, head, tail);
		head = tail;	/* scribbled: resynchronise */
	}
	for (; !ret && head != tail && !job_hostile(s.job); head++) {
		e = q[head % MPICHAN_CQ_ENTRIES];
		if ((e.flags & ~7u) || !(e.flags & 3) || (e.flags & 3) == 3 ||
		    ((e.flags & MPICHAN_CQE_SEND) && (e.flags & MPICHAN_CQE_TRUNCATED)) ||
		    (e.status && e.status != -EPIPE && e.status != -ECANCELED &&
		     e.status != -EFAULT) || (e.status && e.len) ||
		    e.src < MPICHAN_RANK_NONE || e.src >= (int32_t)s.ep.nranks) {
			fz_fail("rank %u cqe %u: user_data %llx len %llu status %d flags %#x src %d tag %d",
				s.ep.rank, head, (unsigned long long)e.user_data,
				(unsigned long long)e.len, e.status, e.flags, e.src, e.tag);
			ret = EBADMSG;
		}
	}
	__atomic_store_n(&me->cq_head, tail, __ATOMIC_RELEASE);
	op_end(t);
	fz_result(OP_CQ, ret, NULL, "completion queue");
}

/* ---- fork after attach -------------------------------------------- */

static void child_say(const char *msg, int code)
{
	if (write(2, msg, strlen(msg)) < 0)
		code |= 0;
	_exit(code);
}

void do_fork(struct thr *t)
{
	struct slot snap[NSLOTS];
	int status, i, delay = fz_below(&t->rng, 20);
	pid_t pid;

	op_begin(t, OP_FORK, 2 * FZ_SEC);
	/* Held over fork(): no slot's mapping can go away meanwhile. */
	pthread_mutex_lock(&W.lock);
	memcpy(snap, W.slots, sizeof(snap));
	pid = fork();
	if (!pid) {
		struct mpichan_wait w = { .timeout_ns = 0, .peer = MPICHAN_RANK_NONE };
		unsigned char vec;
		void *p;

		for (i = 0; i < NSLOTS; i++) {
			if (snap[i].kind != SL_RANK)
				continue;
			if (!ioctl(snap[i].fd, MPICHAN_IOC_WAIT, &w) ||
			    (errno != EBADFD && errno != ENOTCONN && errno != EBADF &&
			     errno != ENOTTY))
				child_say("mpichan-fuzz: FAIL: a forked child could WAIT on its parent's rank\n", 10);
			p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
				 snap[i].fd, 0);
			if (p != MAP_FAILED)
				child_say("mpichan-fuzz: FAIL: a forked child could mmap its parent's rank\n", 11);
			if (snap[i].ep.map && !mincore(snap[i].ep.map, PAGE, &vec))
				child_say("mpichan-fuzz: FAIL: a forked child inherited the job mapping\n", 12);
			if (snap[i].win && !mincore(snap[i].win, PAGE, &vec))
				child_say("mpichan-fuzz: FAIL: a forked child inherited the window\n", 13);
		}
		if (delay)
			usleep(delay * 1000);
		_exit(0);
	}
	pthread_mutex_unlock(&W.lock);
	if (fz_result(OP_FORK, pid < 0 ? errno : 0, E_FORK, "fork") || pid < 0) {
		op_end(t);
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	op_end(t);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fz_fail("forked child: status %#x", status);
}

