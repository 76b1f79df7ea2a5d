// SPDX-License-Identifier: GPL-2.0
/*
 * mpichan-top: printing a look, as a table (live or once) or as JSON.
 */

#include <stdio.h>
#include <time.h>
#include <linux/mpichan.h>

#include "top.h"

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

void show_json(const struct look *l)
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

void show_text(const struct look *l, int live)
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
