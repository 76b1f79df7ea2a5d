// SPDX-License-Identifier: MIT
/*
 * What a blocked rank is waiting for, told on stderr when a wait has
 * made no progress for MPICHAN_WAIT_REPORT seconds (off by default).
 *
 * A program that hangs in MPI usually waits for a message that never
 * comes: a receive with the wrong tag or source, a send nobody
 * receives, a collective some rank did not call or called with another
 * count.  The report lists, once per stalled wait, this rank's posted
 * receives, its sends not yet taken by their receiver, its collectives
 * in flight and the messages that came and no receive took, each with
 * its communicator (or context), peer and tag, so
 * that the reports of all ranks side by side show the mismatch.  The
 * wait goes on: a slow peer is not an error.
 */

#include <stdarg.h>
#include <stdio.h>

#include "p2p/p2p.h"

#define REPORT_MAX	16	/* lines per report, then a count */

struct report {
	int lines, more;
};

/* A line of the report (lm_vsay), counted against REPORT_MAX. */
static void say(struct report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct report *rep, const char *fmt, ...)
{
	va_list ap;

	if (rep && rep->lines >= REPORT_MAX) {
		rep->more++;
		return;
	}
	if (rep)
		rep->lines++;
	va_start(ap, fmt);
	lm_vsay(fmt, ap);
	va_end(ap);
}

/* "MPI_COMM_WORLD", the name the program gave, or what it is. */
static const char *comm_name(const struct libmsg_comm *c, char *buf,
			     size_t len)
{
	if (!c)
		return "no communicator";
	if (c->name[0])
		return c->name;
	snprintf(buf, len, "a communicator of %d ranks (context %u)", c->size,
		 c->ctx);
	return buf;
}

static const char *peer_name(int peer, char *buf, size_t len)
{
	if (peer == MPI_ANY_SOURCE)
		return "any rank";
	snprintf(buf, len, "rank %d", peer);
	return buf;
}

static const char *tag_name(int tag, char *buf, size_t len)
{
	if (tag == MPI_ANY_TAG)
		return "any tag";
	if (tag & LM_TAG_PART)
		snprintf(buf, len, "partitioned tag %d", tag & ~LM_TAG_PART);
	else
		snprintf(buf, len, "tag %d", tag);
	return buf;
}

static void request_line(struct report *rep, const char *what,
			 const struct libmsg_request *r, const char *note)
{
	char c[96], p[32], t[48];

	say(rep, "  %s %s %s %s on %s (%llu bytes)%s", what,
	    r->kind == LM_REQ_RECV ? "from" : "to",
	    peer_name(r->peer, p, sizeof(p)), tag_name(r->tag, t, sizeof(t)),
	    comm_name(r->comm, c, sizeof(c)), (unsigned long long)r->bytes,
	    note);
}

/*
 * Point-to-point receives (a collective's own are in its line), and
 * the messages that came and match none: often the one a receive
 * waits for, sent with another tag.
 */
static void posted(struct lm_match *m, void *arg)
{
	struct libmsg_request *r;

	if (m->ctx & 1)
		return;
	cds_list_for_each_entry(r, &m->posted, link)
		request_line(arg, "a receive", r, "");
}

static void unexpected(struct lm_match *m, void *arg)
{
	int coll = m->ctx & 1;
	const struct libmsg_comm *c = lm_comm_of_ctx(m->ctx - (uint32_t)coll);
	struct libmsg_message *msg;
	char t[48], n[96], p[32];

	if (!c)
		return;
	/* A collective's: another collective, or another count, elsewhere. */
	cds_list_for_each_entry(msg, &m->unexpected, link)
		say(arg, "  (not waited for: a %s from %s%s%s on %s, %llu bytes, that no receive took)",
		    coll ? "collective's message" : "message",
		    peer_name(lm_comm_local(c, msg->wsrc), p, sizeof(p)),
		    coll ? "" : " ", coll ? "" : tag_name(msg->tag, t, sizeof(t)),
		    comm_name(c, n, sizeof(n)), (unsigned long long)msg->size);
}

static void collective(const struct libmsg_comm *comm, int round, int rounds,
		       int outstanding, void *arg)
{
	char c[96];

	say(arg, "  a collective on %s: %d of its %d rounds started, %d of its messages outstanding",
	    comm_name(comm, c, sizeof(c)), round, rounds, outstanding);
}

void lm_report_wait(uint64_t stalled_ns)
{
	struct report rep = { 0, 0 };
	struct libmsg_request *r;
	uint32_t w;

	say(NULL, "no progress for %.1f s; waiting, with:",
	    (double)stalled_ns * 1e-9);
	lm_match_each(posted, &rep);
	/* Sends on a collective context belong to its collective's line. */
	for (w = 0; w < lm.job.nranks; w++)
		cds_list_for_each_entry(r, &lm.pending[w], link)
			if (!(r->ctx & 1))
				request_line(&rep, r->internal ?
					     "a buffered send" : "a send", r,
					     ", queued: the ring is full");
	cds_list_for_each_entry(r, &lm.inflight, link)
		if (!(r->ctx & 1))
			request_line(&rep, r->internal ? "a buffered send" :
				     "a send", r,
				     ", not yet taken by its receiver");
	lm_up.coll_each_live(collective, &rep);
	lm_match_each(unexpected, &rep);
	if (!rep.lines)
		say(NULL, "  nothing of its own outstanding");
	if (rep.more)
		say(NULL, "  ... and %d more", rep.more);
}
