// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-top: where jobs are found: the module's debugfs, or the
 * memfds of jobs over libmsg's fallback (see mpichan-top.c).
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/mpichan.h>

#include "top.h"

/* ---- The module's view: debugfs ------------------------------------------ */

static char *read_file(const char *path, int *err)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = xcalloc(cap + 1, 1);
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		*err = errno;
		free(buf);
		return NULL;
	}
	for (;;) {
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf) {
				fprintf(stderr, "mpichan-top: out of memory\n");
				exit(1);
			}
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			*err = errno;
			close(fd);
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

static void parse_state(struct look *l, const char *name, char *text)
{
	unsigned long long id;
	unsigned int uid, nranks, ring_bytes, dead, finished;
	char owner[16], *line, *save = NULL;
	struct job *j;

	line = strtok_r(text, "\n", &save);
	if (!line || sscanf(line, "job %llu uid %u nranks %u ring_bytes %u owner %15s dead %u finished %u",
			    &id, &uid, &nranks, &ring_bytes, owner, &dead,
			    &finished) != 7 || !nranks || nranks > MAX_RANKS) {
		note(l, "%s: not a job's state", name);
		return;
	}
	if (opt.job >= 0 && (unsigned long long)opt.job != id)
		return;
	j = new_job(l, nranks);
	j->source = "debugfs";
	snprintf(j->key, sizeof(j->key), "debugfs:%llu", id);
	j->id = id;
	j->uid = uid;
	j->ring_cells = ring_bytes / MPICHAN_CELL_SIZE;
	j->dead = dead;
	j->finished = finished;
	mix(&j->sig, dead);
	mix(&j->sig, finished);
	while ((line = strtok_r(NULL, "\n", &save))) {
		unsigned int a, b, c, d, e, f;
		unsigned long long x, y;
		long long p, q, mv, pin;
		char s1[32], s2[32];
		int pid, peer, tag;
		struct rank *r;

		if (sscanf(line, "%u %d %31s %31s %lld %lld %u %u %lld %lld",
			   &a, &pid, s1, s2, &p, &q, &b, &c, &pin, &mv) == 10 &&
		    isdigit((unsigned char)line[0])) {
			if (a >= nranks)
				continue;
			r = &j->r[a];
			r->pid = pid;
			r->state = state_of(s1);
			r->sleeping = !strcmp(s2, "yes");
			r->sends = b;
			r->recvs = c;
			r->moved = mv;
			mix(&j->sig, (unsigned long long)r->state);
			mix(&j->sig, b);
			mix(&j->sig, c);
			mix(&j->sig, (unsigned long long)mv);
		} else if (sscanf(line, "wait %u %31s %31s %d %d %u %u %llu %u",
				  &a, s1, s2, &peer, &tag, &b, &c, &x, &d) == 9) {
			if (a >= nranks)
				continue;
			r = &j->r[a];
			set_call(r, s1, sizeof(s1));
			r->kind = kind_of(s2);
			r->peer = peer;
			r->tag = tag;
			r->ctx = b;
			r->csize = c;
			r->bytes = x;
			r->seq = d;
			mix(&j->sig, d);
			mix(&j->sig, (unsigned long long)r->kind);
		} else if (sscanf(line, "ring %u %u %u %u %u %llu %llu", &a, &b,
				  &c, &d, &e, &x, &y) == 7) {
			if (a >= nranks || b >= nranks)
				continue;
			mix(&j->sig, c);
			mix(&j->sig, d);
			mix(&j->sig, x);
			j->r[b].in_used += e;
			if (j->ring_cells) {
				f = (unsigned int)((unsigned long long)e * 100 /
						   j->ring_cells);
				if (f > j->r[b].in_max_pct)
					j->r[b].in_max_pct = f;
			}
			j->r[a].out_bytes += y;
		} else if (!strncmp(line, "xfer ", 5) &&
			   sscanf(line, "xfer %llu", &x) == 1) {
			/* A queued transfer: its handle, whatever its kind. */
			mix(&j->sig, x);
		}
	}
}

int from_debugfs(struct look *l)
{
	DIR *d = opendir(opt.debugfs);
	struct dirent *e;
	char path[512];
	char *text;
	int err = 0, denied = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "job-", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s/state", opt.debugfs,
			 e->d_name);
		text = read_file(path, &err);
		if (!text) {
			/* Gone since the listing, or another user's job. */
			if (err == EACCES || err == EPERM)
				denied++;
			continue;
		}
		parse_state(l, e->d_name, text);
		free(text);
	}
	closedir(d);
	if (denied)
		note(l, "%d job(s) of other users not shown (debugfs lets only a job's user or CAP_SYS_ADMIN read them)",
		     denied);
	return 0;
}

/* ---- libmsg's fallback: the job's memfd, through /proc ------------------ */

/* CAP_SYS_ADMIN in the effective set: other users' jobs may be shown. */
static int sys_admin(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return 0;
	if (cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE, &v))
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

struct seen {
	dev_t dev;
	ino_t ino;
};

static int already(struct seen *s, int n, const struct stat *st)
{
	int i;

	for (i = 0; i < n; i++)
		if (s[i].dev == st->st_dev && s[i].ino == st->st_ino)
			return 1;
	return 0;
}

static int in_map(const struct stat *st, uint64_t off, uint64_t len)
{
	return off <= (uint64_t)st->st_size && len <= (uint64_t)st->st_size - off;
}

/* Read a job's memory as the module would, trusting none of it. */
static void read_memfd(struct look *l, int fd, const struct stat *st, int pid)
{
	const struct mpichan_job_hdr *h;
	const unsigned char *m;
	struct mpichan_offsets off;
	unsigned int n, cells, s, d, pct;
	struct job *j;
	uint64_t ring, used;

	if (st->st_size < (off_t)sizeof(*h))
		return;
	m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return;
	h = (const struct mpichan_job_hdr *)m;
	off = h->off;
	n = h->nranks;
	cells = h->ring_cells;
	if (h->magic != MPICHAN_JOB_MAGIC ||
	    h->abi_version != MPICHAN_ABI_VERSION || !n || n > MAX_RANKS ||
	    !in_map(st, off.rank_ctl, (uint64_t)n * MPICHAN_RANK_CTL_SIZE) ||
	    !in_map(st, off.ring_ctl, (uint64_t)n * n * MPICHAN_RING_CTL_SIZE))
		goto out;
	if (opt.job >= 0 && (unsigned long long)opt.job != h->job_id)
		goto out;
	j = new_job(l, n);
	j->source = "memfd";
	snprintf(j->key, sizeof(j->key), "memfd:%llu:%llu",
		 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
	j->id = h->job_id;
	j->uid = st->st_uid;
	j->ring_cells = cells;
	j->dead = h->dead_count;
	j->finished = h->finished_count;
	j->holder = pid;
	mix(&j->sig, j->dead);
	mix(&j->sig, j->finished);
	for (s = 0; s < n; s++) {
		const struct mpichan_rank_ctl *c = (const void *)(m + off.rank_ctl +
					(uint64_t)s * MPICHAN_RANK_CTL_SIZE);
		struct rank *r = &j->r[s];
		uint32_t seq;
		int tries;

		r->pid = (int)c->pid;
		r->state = c->state <= S_DEAD ? (int)c->state : S_EMPTY;
		r->sleeping = !!(__atomic_load_n(&c->flags, __ATOMIC_RELAXED) &
				 MPICHAN_RANK_NEED_WAKEUP);
		for (tries = 0; tries < 4; tries++) {
			seq = __atomic_load_n(&c->wait_seq, __ATOMIC_ACQUIRE);
			r->kind = c->wait_kind;
			r->peer = c->wait_peer;
			r->tag = c->wait_tag;
			r->ctx = c->wait_context;
			r->csize = c->wait_comm_size;
			r->bytes = c->wait_bytes;
			set_call(r, c->wait_call, sizeof(c->wait_call));
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (!(seq & 1) &&
			    __atomic_load_n(&c->wait_seq, __ATOMIC_RELAXED) == seq)
				break;
		}
		r->seq = seq;
		if (r->kind > K_OTHER)
			r->kind = K_OTHER;
		mix(&j->sig, (unsigned long long)r->state);
		mix(&j->sig, seq);
		mix(&j->sig, (unsigned long long)r->kind);
	}
	for (d = 0; d < n; d++)
		for (s = 0; s < n; s++) {
			const struct mpichan_ring_ctl *rc = (const void *)(m +
				off.ring_ctl + ((uint64_t)d * n + s) *
				MPICHAN_RING_CTL_SIZE);

			ring = (uint64_t)__atomic_load_n(&rc->tail, __ATOMIC_RELAXED);
			used = (uint32_t)(ring - __atomic_load_n(&rc->head,
							      __ATOMIC_RELAXED));
			mix(&j->sig, ring);
			mix(&j->sig, rc->head);
			j->r[d].in_used += used;
			if (cells) {
				pct = (unsigned int)(used * 100 / cells);
				if (pct > j->r[d].in_max_pct)
					j->r[d].in_max_pct = pct;
			}
			j->r[s].out_bytes += rc->bytes;
		}
out:
	munmap((void *)m, (size_t)st->st_size);
}

int from_memfds(struct look *l)
{
	int admin = sys_admin(), nseen = 0, skipped = 0, fd;
	struct seen seen[256];
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *p, *f;
	char path[600], link[256];
	struct stat st, pst;
	ssize_t n;

	if (!proc)
		return -errno;
	while ((p = readdir(proc))) {
		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s", p->d_name);
		if (stat(path, &pst))
			continue;
		/* debugfs's rule: the job's user, or CAP_SYS_ADMIN. */
		if (pst.st_uid != geteuid() && !admin)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			if (!isdigit((unsigned char)f->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
				 p->d_name, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = 0;
			if (strncmp(link, "/memfd:mpichan-job", 18))
				continue;
			if (stat(path, &st) || already(seen, nseen, &st))
				continue;
			if (st.st_uid != geteuid() && !admin) {
				skipped++;
				continue;
			}
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			if (nseen < (int)(sizeof(seen) / sizeof(seen[0]))) {
				seen[nseen].dev = st.st_dev;
				seen[nseen].ino = st.st_ino;
				nseen++;
			}
			read_memfd(l, fd, &st, atoi(p->d_name));
			close(fd);
		}
		closedir(fds);
	}
	closedir(proc);
	if (skipped)
		note(l, "%d fallback job(s) of other users not shown (needs CAP_SYS_ADMIN)",
		     skipped);
	return 0;
}
