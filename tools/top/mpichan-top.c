// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-top: every mpichan job on the machine, live, like top(1): per
 * rank its state, the MPI call it is blocked in and what that waits for,
 * its ring fill, its transfers queued and the bytes it moved; and, when
 * a job made no progress between two looks, why: the cycle of ranks
 * that wait for each other, or the rank everyone waits on.
 *
 * Where it looks (read-only, never touching a job):
 *   - /sys/kernel/debug/mpichan/job-<id>/state, the module's view of
 *     each job over /dev/mpichan (Documentation/debugfs.md), whose
 *     "wait" lines are the ranks' own reports of their blocked calls
 *     (the rank control block's wait_* fields, uapi/linux/mpichan.h);
 *   - jobs over libmsg's fallback (no module): their memory is a memfd
 *     ("mpichan-job") every rank holds; it is found through
 *     /proc/<pid>/fd, opened read-only and mapped read-only, and read
 *     as the module would (rank control blocks, ring heads and tails).
 *     The fallback has no module, so no transfer queues and no bytes
 *     moved by the kernel there.
 * Permissions are debugfs's: a job is shown to its user or to a holder
 * of CAP_SYS_ADMIN.  The kernel enforces it for debugfs; for memfds this
 * program does (libcap), and /proc's own rules apply besides.
 *
 *   mpichan-top [--once] [--json] [--interval S] [--iterations N]
 *               [--job ID] [--source auto|debugfs|memfd] [--debugfs DIR]
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/mpichan.h>

#define MAX_RANKS	4096
#define MAX_FINDINGS	8

enum { K_NONE, K_SEND, K_RECV, K_PROBE, K_COLL, K_OTHER };
static const char *const kind_names[] = { "none", "send", "recv", "probe",
					  "coll", "other" };

enum { S_EMPTY, S_ALIVE, S_FINISHED, S_DEAD };
static const char *const state_names[] = { "empty", "alive", "finished",
					   "dead" };

struct rank {
	int pid;
	int state;		/* S_* */
	int sleeping;
	unsigned int sends, recvs;	/* transfers queued (module) */
	long long moved;	/* bytes its transfers moved (module) */
	/* What it is blocked in (wait_* of its rank control block). */
	int kind;		/* K_* */
	char call[32];
	int peer, tag;
	unsigned int ctx, csize, seq;
	unsigned long long bytes;
	/* From the rings. */
	unsigned long long in_used, out_bytes;
	unsigned int in_max_pct;
	int explained;		/* the diagnosis mentioned it */
};

struct job {
	char key[64];		/* the same job in the next look */
	const char *source;	/* "debugfs" or "memfd" */
	unsigned long long id;
	unsigned int uid, nranks, ring_cells, dead, finished;
	int holder;		/* memfd: a process that holds it */
	struct rank *r;
	unsigned long long sig;	/* of everything that moves */
	int progress;		/* it moved since the last look (or first) */
	double stalled;		/* seconds without progress */
	char *find[MAX_FINDINGS];
	int nfind;
};

struct look {
	struct job *jobs;
	int njobs, cap;
	char *notes[64];
	int nnotes;
	double t;
};

static struct {
	int once, json, iterations, source;
	double interval;
	long long job;
	const char *debugfs;
} opt = { 0, 0, 0, 0, 1.0, -1, "/sys/kernel/debug/mpichan" };

enum { SRC_AUTO, SRC_DEBUGFS, SRC_MEMFD };

static volatile sig_atomic_t stop;

static void on_signal(int s)
{
	(void)s;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "mpichan-top: out of memory\n");
		exit(1);
	}
	return p;
}

static void note(struct look *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct look *l, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (l->nnotes == (int)(sizeof(l->notes) / sizeof(l->notes[0])))
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		l->notes[l->nnotes++] = s;
	va_end(ap);
}

static struct job *new_job(struct look *l, unsigned int nranks)
{
	struct job *j;

	if (l->njobs == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->jobs = realloc(l->jobs, (size_t)l->cap * sizeof(*l->jobs));
		if (!l->jobs) {
			fprintf(stderr, "mpichan-top: out of memory\n");
			exit(1);
		}
	}
	j = &l->jobs[l->njobs++];
	memset(j, 0, sizeof(*j));
	j->nranks = nranks;
	j->r = xcalloc(nranks, sizeof(*j->r));
	return j;
}

static void free_look(struct look *l)
{
	int i, k;

	for (i = 0; i < l->njobs; i++) {
		free(l->jobs[i].r);
		for (k = 0; k < l->jobs[i].nfind; k++)
			free(l->jobs[i].find[k]);
	}
	free(l->jobs);
	for (i = 0; i < l->nnotes; i++)
		free(l->notes[i]);
	memset(l, 0, sizeof(*l));
}

/* FNV-1a over what moves: rings, transfers, states, blocked calls. */
static void mix(unsigned long long *h, unsigned long long v)
{
	int i;

	for (i = 0; i < 8; i++) {
		*h ^= (v >> (8 * i)) & 0xff;
		*h *= 1099511628211ULL;
	}
}

static int kind_of(const char *s)
{
	int k;

	for (k = 0; k < (int)(sizeof(kind_names) / sizeof(kind_names[0])); k++)
		if (!strcmp(s, kind_names[k]))
			return k;
	return K_OTHER;
}

static int state_of(const char *s)
{
	int k;

	for (k = 0; k < 4; k++)
		if (!strcmp(s, state_names[k]))
			return k;
	return S_EMPTY;
}

/* A call's name as shown: an identifier, or "" for none. */
static void set_call(struct rank *r, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < sizeof(r->call) - 1 && s[i]; i++)
		r->call[i] = isalnum((unsigned char)s[i]) || s[i] == '_' ?
			s[i] : '?';
	r->call[i] = 0;
	if (!strcmp(r->call, "-"))
		r->call[0] = 0;
}

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

static int from_debugfs(struct look *l)
{
	DIR *d = opendir(opt.debugfs);
	struct dirent *e;
	char path[512];
	char *text;
	int err, denied = 0;

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

static int from_memfds(struct look *l)
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

/* ---- Why a job does not move ----------------------------------------- */

static const char *human(unsigned long long b, char *buf, size_t len)
{
	if (b >= (1ULL << 20) && !(b & ((1ULL << 20) - 1)))
		snprintf(buf, len, "%llu MiB", b >> 20);
	else if (b >= 1024 && !(b & 1023))
		snprintf(buf, len, "%llu KiB", b >> 10);
	else
		snprintf(buf, len, "%llu bytes", b);
	return buf;
}

struct out {
	char buf[512];
	size_t n;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (o->n >= sizeof(o->buf) - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(o->buf + o->n, sizeof(o->buf) - o->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n += (size_t)k;
	if (o->n >= sizeof(o->buf))
		o->n = sizeof(o->buf) - 1;
}

/* "rank 3", "ranks 0 and 1", "ranks 0-6", "ranks 0-2,5" */
static void put_ranks(struct out *o, const unsigned char *in, int n)
{
	int r, k = 0, first = -1, pieces = 0, b = -1;

	for (r = 0; r < n; r++)
		if (in[r]) {
			k++;
			if (b < 0)
				b = r;
		}
	if (k == 1) {
		put(o, "rank %d", b);
		return;
	}
	if (k == 2) {
		for (r = b + 1; !in[r]; r++)
			;
		put(o, "ranks %d and %d", b, r);
		return;
	}
	put(o, "ranks ");
	for (r = 0; r <= n; r++) {
		if (r < n && in[r]) {
			if (first < 0)
				first = r;
			continue;
		}
		if (first < 0)
			continue;
		put(o, "%s%d", pieces++ ? "," : "", first);
		if (r - 1 > first)
			put(o, "-%d", r - 1);
		first = -1;
	}
}

static const char *call_name(const struct rank *r)
{
	return r->call[0] ? r->call : "a blocking call";
}

static void put_peer(struct out *o, int peer)
{
	if (peer == MPICHAN_RANK_ANY)
		put(o, "any rank");
	else
		put(o, "rank %d", peer);
}

static void put_tag(struct out *o, int tag)
{
	if (tag == MPICHAN_TAG_ANY)
		put(o, " any tag");
	else
		put(o, " tag %d", tag);
}

/* What rank r is doing: "is in MPI_Recv from rank 3 tag 9". */
static void put_doing(struct out *o, const struct job *j, int r)
{
	const struct rank *k = &j->r[r];
	char b[32];

	switch (k->state) {
	case S_DEAD:
		put(o, "died");
		return;
	case S_FINISHED:
		put(o, "has finished");
		return;
	case S_EMPTY:
		put(o, "has not joined the job");
		return;
	}
	switch (k->kind) {
	case K_NONE:
		put(o, "is in no blocking MPI call (computing, or polling)");
		return;
	case K_SEND:
		put(o, "is in %s to ", call_name(k));
		put_peer(o, k->peer);
		put_tag(o, k->tag);
		put(o, " (%s)", human(k->bytes, b, sizeof(b)));
		break;
	case K_RECV:
	case K_PROBE:
		put(o, "is in %s %s ", call_name(k),
		    k->kind == K_PROBE ? "for" : "from");
		put_peer(o, k->peer);
		put_tag(o, k->tag);
		break;
	case K_COLL:
		put(o, "is in %s on comm ctx %u", call_name(k), k->ctx);
		if (k->peer >= 0)
			put(o, " (root rank %d)", k->peer);
		return;
	default:
		put(o, "is in %s", call_name(k));
		return;
	}
	if (k->ctx)
		put(o, " on comm ctx %u", k->ctx);
}

static void finding(struct job *j, struct out *o)
{
	if (j->nfind < MAX_FINDINGS)
		j->find[j->nfind++] = strdup(o->buf);
}

static int p2p_peer(const struct job *j, int r)
{
	const struct rank *k = &j->r[r];

	if (k->state != S_ALIVE ||
	    (k->kind != K_SEND && k->kind != K_RECV && k->kind != K_PROBE) ||
	    k->peer < 0 || (unsigned int)k->peer >= j->nranks)
		return -1;
	return k->peer;
}

/* Ranks that wait for each other in a ring of point-to-point calls. */
static void cycles(struct job *j)
{
	int n = (int)j->nranks, r, x, len, clen, i, sends, recvs, detail;
	int *pos = xcalloc((size_t)n, sizeof(int)), *path = xcalloc((size_t)n, sizeof(int));
	unsigned char *in = xcalloc((size_t)n, 1);
	char b[32];

	/* pos[x]: 0 not seen, r + 1 on the walk from r, -1 done. */
	for (r = 0; r < n; r++) {
		if (pos[r])
			continue;
		/* Walk r -> peer -> ...: each rank waits for at most one. */
		len = 0;
		for (x = r; x >= 0 && !pos[x]; x = p2p_peer(j, x)) {
			pos[x] = r + 1;
			path[len++] = x;
		}
		if (x >= 0 && pos[x] == r + 1) {
			struct out o = { .n = 0 };
			int c0;

			for (c0 = 0; path[c0] != x; c0++)
				;
			memset(in, 0, (size_t)n);
			sends = recvs = 0;
			for (i = c0; i < len; i++) {
				in[path[i]] = 1;
				j->r[path[i]].explained = 1;
				sends += j->r[path[i]].kind == K_SEND;
				recvs += j->r[path[i]].kind != K_SEND;
			}
			clen = len - c0;
			detail = 0;
			if (clen == 1) {
				put(&o, "rank %d ", x);
				put_doing(&o, j, x);
				put(&o, ": it waits for itself");
			} else if (!recvs && clen == 2) {
				const struct rank *a = &j->r[path[c0]],
					*z = &j->r[path[c0 + 1]];

				put_ranks(&o, in, n);
				put(&o, " are both in %s to each other with %s, neither has posted a receive",
				    strcmp(a->call, z->call) ? "a send" :
				    call_name(a), human(a->bytes, b, sizeof(b)));
			} else if (!sends && clen == 2 &&
				   !strcmp(j->r[path[c0]].call,
					   j->r[path[c0 + 1]].call)) {
				put_ranks(&o, in, n);
				put(&o, " are both in %s from each other, neither sends",
				    call_name(&j->r[x]));
			} else {
				put_ranks(&o, in, n);
				put(&o, recvs ? " wait for each other:" :
				    " are in sends in a cycle, none has posted a receive:");
				detail = 1;
			}
			for (i = c0; detail && i < c0 + clen; i++) {
				put(&o, "%s rank %d ", i > c0 ? ";" : "",
				    path[i]);
				put_doing(&o, j, path[i]);
			}
			finding(j, &o);
		}
		for (i = 0; i < len; i++)
			pos[path[i]] = -1;
	}
	free(pos);
	free(path);
	free(in);
}

/* Collectives some member of the communicator is not in. */
static void collectives(struct job *j)
{
	int n = (int)j->nranks, r, s, members, told;
	unsigned char *in = xcalloc((size_t)n, 1), *done = xcalloc((size_t)n, 1);

	for (r = 0; r < n; r++) {
		const struct rank *a = &j->r[r];
		struct out o = { .n = 0 };
		int mixed = 0, other_seq = -1;

		if (done[r] || a->state != S_ALIVE || a->kind != K_COLL ||
		    a->explained)
			continue;
		memset(in, 0, (size_t)n);
		members = 0;
		for (s = r; s < n; s++) {
			const struct rank *b = &j->r[s];

			if (b->state != S_ALIVE || b->kind != K_COLL ||
			    b->ctx != a->ctx || b->csize != a->csize ||
			    b->explained)
				continue;
			if (b->tag != a->tag) {
				other_seq = s;
				continue;
			}
			in[s] = done[s] = 1;
			members++;
			mixed |= strcmp(b->call, a->call) != 0;
		}
		put_ranks(&o, in, n);
		put(&o, " wait%s in %s on comm ctx %u", members == 1 ? "s" : "",
		    mixed ? "different collectives" : call_name(a), a->ctx);
		if (other_seq >= 0) {
			put(&o, ", rank %d in another collective on it (%s, its collective #%d, theirs #%d)",
			    other_seq, call_name(&j->r[other_seq]),
			    j->r[other_seq].tag, a->tag);
			j->r[other_seq].explained = 1;
		} else if ((unsigned int)members >= a->csize) {
			put(&o, ": all %d of its ranks are there, and it does not complete",
			    members);
		} else if (a->csize == j->nranks) {
			/* The whole job's communicator: the others are missing. */
			for (s = 0, told = 0; s < n; s++) {
				if (in[s])
					continue;
				if (told == 3) {
					put(&o, "; ...");
					break;
				}
				put(&o, "%s rank %d ", told ? ";" : ",", s);
				put_doing(&o, j, s);
				j->r[s].explained = 1;
				told++;
			}
		} else {
			put(&o, " (%d of its %u ranks are in it; the others are among ",
			    members, a->csize);
			for (s = 0; s < n; s++)
				in[s] = !in[s];
			put_ranks(&o, in, n);
			put(&o, ")");
		}
		for (s = 0; s < n; s++)
			if (done[s] && j->r[s].ctx == a->ctx)
				j->r[s].explained = 1;
		finding(j, &o);
	}
	free(in);
	free(done);
}

/* What is left: a receive or send whose peer does something else. */
static void stragglers(struct job *j)
{
	int n = (int)j->nranks, r, p, s, any;

	for (r = 0; r < n; r++) {
		struct rank *a = &j->r[r];
		struct out o = { .n = 0 };

		if (a->explained || a->state != S_ALIVE || a->kind == K_NONE)
			continue;
		a->explained = 1;
		put(&o, "rank %d ", r);
		put_doing(&o, j, r);
		p = p2p_peer(j, r);
		if (p >= 0) {
			const struct rank *b = &j->r[p];

			put(&o, "; rank %d ", p);
			put_doing(&o, j, p);
			if (b->state == S_ALIVE && p2p_peer(j, p) == r &&
			    (b->kind == K_SEND) != (a->kind == K_SEND)) {
				if (b->ctx != a->ctx)
					put(&o, ": other communicators");
				else if (b->tag != a->tag &&
					 a->tag != MPICHAN_TAG_ANY &&
					 b->tag != MPICHAN_TAG_ANY)
					put(&o, ": the tags differ");
			}
		} else if ((a->kind == K_RECV || a->kind == K_PROBE) &&
			   a->peer == MPICHAN_RANK_ANY) {
			for (s = 0, any = 0; s < n; s++)
				any |= s != r && j->r[s].kind == K_SEND &&
					j->r[s].peer == r;
			if (!any)
				put(&o, "; no rank is sending to it");
		}
		finding(j, &o);
	}
}

static void diagnose(struct job *j)
{
	int r, blocked = 0;

	for (r = 0; r < (int)j->nranks; r++)
		blocked |= j->r[r].state == S_ALIVE && j->r[r].kind != K_NONE;
	if (!blocked) {
		struct out o = { .n = 0 };

		put(&o, "no rank is blocked in an MPI call");
		finding(j, &o);
		return;
	}
	cycles(j);
	collectives(j);
	stragglers(j);
}

/* ---- Looking ------------------------------------------------------------ */

static void take(struct look *l)
{
	int err = 0, have = 0;

	memset(l, 0, sizeof(*l));
	l->t = now();
	if (opt.source != SRC_MEMFD) {
		err = from_debugfs(l);
		if (!err)
			have = 1;
		else if (opt.source == SRC_DEBUGFS)
			note(l, "%s: %s (is the module loaded and debugfs mounted?)",
			     opt.debugfs, strerror(-err));
	}
	if (opt.source != SRC_DEBUGFS && from_memfds(l) == 0)
		have = 1;
	if (!have && opt.source == SRC_AUTO)
		note(l, "neither %s nor /proc could be read", opt.debugfs);
}

/* Compare with the last look: progress, and how long since. */
static void compare(struct look *l, const struct look *prev)
{
	int i, k;

	for (i = 0; i < l->njobs; i++) {
		struct job *j = &l->jobs[i];

		j->progress = 1;
		j->stalled = 0;
		for (k = 0; prev && k < prev->njobs; k++) {
			const struct job *p = &prev->jobs[k];

			if (strcmp(p->key, j->key))
				continue;
			if (p->sig == j->sig) {
				j->progress = 0;
				j->stalled = p->stalled + (l->t - prev->t);
			}
			break;
		}
		if (!j->progress)
			diagnose(j);
	}
}

/* ---- Showing ---------------------------------------------------------- */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void show_json(const struct look *l)
{
	int i, r, k;

	printf("{\"jobs\":[");
	for (i = 0; i < l->njobs; i++) {
		const struct job *j = &l->jobs[i];

		printf("%s{\"key\":", i ? "," : "");
		json_str(j->key);
		printf(",\"source\":\"%s\",\"id\":%llu,\"uid\":%u,\"nranks\":%u,\"dead\":%u,\"finished\":%u,\"progress\":%s,\"stalled_seconds\":%.1f,\"ranks\":[",
		       j->source, j->id, j->uid, j->nranks, j->dead,
		       j->finished, j->progress ? "true" : "false", j->stalled);
		for (r = 0; r < (int)j->nranks; r++) {
			const struct rank *a = &j->r[r];

			printf("%s{\"rank\":%d,\"pid\":%d,\"state\":\"%s\",\"sleeping\":%s,\"call\":",
			       r ? "," : "", r, a->pid, state_names[a->state],
			       a->sleeping ? "true" : "false");
			json_str(a->call);
			printf(",\"kind\":\"%s\",\"peer\":%d,\"tag\":%d,\"context\":%u,\"comm_size\":%u,\"bytes\":%llu,\"ring_used\":%llu,\"ring_fill_pct\":%u,\"sends\":%u,\"recvs\":%u,\"moved\":%lld,\"sent_ring_bytes\":%llu}",
			       kind_names[a->kind], a->peer, a->tag, a->ctx,
			       a->csize, a->bytes, a->in_used, a->in_max_pct,
			       a->sends, a->recvs, a->moved, a->out_bytes);
		}
		printf("],\"diagnosis\":[");
		for (k = 0; k < j->nfind; k++) {
			if (k)
				putchar(',');
			json_str(j->find[k]);
		}
		printf("]}");
	}
	printf("],\"notes\":[");
	for (k = 0; k < l->nnotes; k++) {
		if (k)
			putchar(',');
		json_str(l->notes[k]);
	}
	printf("]}\n");
}

static void waits_for(const struct rank *a, char *buf, size_t len)
{
	char p[24];

	if (a->peer == MPICHAN_RANK_ANY)
		snprintf(p, sizeof(p), "any");
	else
		snprintf(p, sizeof(p), "%d", a->peer);
	switch (a->kind) {
	case K_SEND:
		snprintf(buf, len, "send to %s", p);
		break;
	case K_RECV:
		snprintf(buf, len, "recv from %s", p);
		break;
	case K_PROBE:
		snprintf(buf, len, "probe %s", p);
		break;
	case K_COLL:
		if (a->peer >= 0)
			snprintf(buf, len, "coll root %d", a->peer);
		else
			snprintf(buf, len, "coll of %u", a->csize);
		break;
	case K_OTHER:
		snprintf(buf, len, "other");
		break;
	default:
		snprintf(buf, len, "-");
	}
}

static const char *short_bytes(unsigned long long b, char *buf, size_t len)
{
	const char *u = "KMGTP";
	double v = (double)b;
	int i = -1;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", b);
	else
		snprintf(buf, len, "%.1f%c", v, u[i]);
	return buf;
}

static void show_text(const struct look *l, int live)
{
	char tbuf[16], w[48], b1[16], b2[16], tag[16];
	time_t t = time(NULL);
	int i, r, k;

	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", localtime(&t));
	if (live)
		printf("\033[H\033[2J");
	printf("mpichan-top - %s - %d job%s\n", tbuf, l->njobs,
	       l->njobs == 1 ? "" : "s");
	for (k = 0; k < l->nnotes; k++)
		printf("note: %s\n", l->notes[k]);
	for (i = 0; i < l->njobs; i++) {
		const struct job *j = &l->jobs[i];

		printf("\njob %llu (%s", j->id, j->source);
		if (j->holder)
			printf(", pid %d", j->holder);
		printf(") uid %u, %u ranks, %u dead, %u finished: ", j->uid,
		       j->nranks, j->dead, j->finished);
		if (j->progress)
			printf("running\n");
		else
			printf("no progress for %.1f s\n", j->stalled);
		printf("%5s %7s %-8s %-5s %-24s %-14s %6s %4s %8s %4s %5s %8s\n",
		       "RANK", "PID", "STATE", "SLEEP", "CALL", "WAITS FOR", "TAG",
		       "CTX", "BYTES", "FILL", "XFERS", "MOVED");
		for (r = 0; r < (int)j->nranks; r++) {
			const struct rank *a = &j->r[r];

			waits_for(a, w, sizeof(w));
			if (a->kind == K_NONE || a->tag == MPICHAN_TAG_ANY)
				snprintf(tag, sizeof(tag), "%s",
					 a->kind == K_NONE ? "-" : "any");
			else
				snprintf(tag, sizeof(tag), "%d", a->tag);
			printf("%5d %7d %-8s %-5s %-24s %-14s %6s %4s %8s %3u%% %5u %8s\n",
			       r, a->pid, state_names[a->state],
			       a->sleeping ? "yes" : "no",
			       a->kind == K_NONE ? "-" : call_name(a), w, tag,
			       a->kind == K_NONE ? "-" :
			       (snprintf(b2, sizeof(b2), "%u", a->ctx), b2),
			       a->kind == K_NONE ? "-" :
			       short_bytes(a->bytes, b1, sizeof(b1)),
			       a->in_max_pct, a->sends + a->recvs,
			       short_bytes((unsigned long long)a->moved +
					   a->out_bytes, b2, sizeof(b2)));
		}
		for (k = 0; k < j->nfind; k++)
			printf("diagnosis: %s\n", j->find[k]);
	}
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mpichan-top [--once] [--json] [--interval S] [--iterations N]\n"
		"                   [--job ID] [--source auto|debugfs|memfd] [--debugfs DIR]\n");
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
		;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, '1' },
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "job", required_argument, NULL, 'J' },
		{ "source", required_argument, NULL, 's' },
		{ "debugfs", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct look prev = { 0 }, cur;
	int c, it;

	while ((c = getopt_long(argc, argv, "1ji:n:J:s:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case '1':
			opt.once = 1;
			break;
		case 'j':
			opt.json = 1;
			break;
		case 'i':
			opt.interval = atof(optarg);
			if (opt.interval < 0.05 || opt.interval > 3600) {
				fprintf(stderr, "mpichan-top: --interval %s: 0.05 to 3600 seconds\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			opt.iterations = atoi(optarg);
			break;
		case 'J':
			opt.job = atoll(optarg);
			break;
		case 's':
			if (!strcmp(optarg, "auto"))
				opt.source = SRC_AUTO;
			else if (!strcmp(optarg, "debugfs"))
				opt.source = SRC_DEBUGFS;
			else if (!strcmp(optarg, "memfd"))
				opt.source = SRC_MEMFD;
			else {
				usage(stderr);
				return 2;
			}
			break;
		case 'd':
			opt.debugfs = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* --once: two looks an interval apart, to tell whether jobs move. */
	take(&prev);
	compare(&prev, NULL);
	for (it = 0; !stop; it++) {
		nap(opt.interval);
		if (stop)
			break;
		take(&cur);
		compare(&cur, &prev);
		if (opt.json)
			show_json(&cur);
		else
			show_text(&cur, !opt.once && isatty(STDOUT_FILENO));
		free_look(&prev);
		prev = cur;
		if (opt.once || (opt.iterations && it + 1 >= opt.iterations))
			break;
	}
	free_look(&prev);
	return 0;
}
