// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-top: why a job made no progress between two looks: the cycle
 * of ranks that wait for each other, a collective some ranks are not
 * in, or the rank everyone waits on.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mpichan.h>

#include "top.h"

/* ---- Why a job does not move ----------------------------------------- */

const char *human(unsigned long long b, char *buf, size_t len)
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

const char *call_name(const struct rank *r)
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

void diagnose(struct job *j)
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
