// SPDX-License-Identifier: MIT
/*
 * pingpong: one-way latency of the mpichan ring protocol over the raw
 * uapi, two processes, no library.
 *
 * The parent creates a job of two ranks, forks, and both attach (the
 * parent as rank 0, the child as rank 1).  For every size rank 0 sends
 * a message, rank 1 copies it out and sends one of the same size back;
 * after the warm-up the round trips are timed and half the mean round
 * trip is printed.  Both sides copy the payload in (from a user buffer
 * into the ring) and out (from the ring into a user buffer), as an MPI
 * send and receive would.
 *
 * Receivers:
 *   spin         poll the ring until the message is there; senders never
 *                call mcr_notify().
 *   spin-notify  the same, but senders call mcr_notify() after every
 *                send (the fence and flag check a library always pays).
 *   sleep        whenever the ring is empty, mcr_sleep() with an
 *                infinite timeout, at once, every time; senders call
 *                mcr_notify() after every send.
 *
 * Output (the same as flagpingpong's): comment lines starting with '#',
 * then one line per size: size in bytes, one-way latency in
 * microseconds, timed round trips.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/mpichan.h>
#include "mcr.h"

#define MAX_SIZES 64
#define PROG "pingpong"

enum mode { MODE_SPIN, MODE_SPIN_NOTIFY, MODE_SLEEP };

static const char *const mode_names[] = { "spin", "spin-notify", "sleep" };

struct opts {
	enum mode mode;
	long iters;
	long warmup;
	uint32_t ring_bytes;
	int pin;
	int nsizes;
	int size_max[MAX_SIZES];	/* 1: this entry is "max" */
	uint32_t sizes[MAX_SIZES];
	const char *size_spec;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [-m spin|spin-notify|sleep] [-s SIZES] [-i ITERS] [-w WARMUP]\n"
"                [-r RING_BYTES] [-P]\n"
"  -m MODE   how the receiver waits (default spin)\n"
"  -s SIZES  comma-separated sizes in bytes; \"max\" is the eager maximum\n"
"            (mcr_max_payload); default: 8, 16, ... every power of two\n"
"            below the maximum, and the maximum\n"
"  -i ITERS  timed round trips per size (default 10000)\n"
"  -w N      untimed round trips before them (default ITERS/10)\n"
"  -r BYTES  ring size to ask for (default 0: the module's choice)\n"
"  -P        do not pin rank r to CPU r\n");
}

static int parse_sizes(struct opts *o, const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *tok, *end;
	unsigned long v;

	if (!copy)
		return -1;
	o->nsizes = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nsizes == MAX_SIZES)
			goto bad;
		if (!strcmp(tok, "max")) {
			o->size_max[o->nsizes] = 1;
			o->sizes[o->nsizes++] = 0;
			continue;
		}
		errno = 0;
		v = strtoul(tok, &end, 0);
		if (errno || *end || end == tok || v > UINT32_MAX)
			goto bad;
		o->size_max[o->nsizes] = 0;
		o->sizes[o->nsizes++] = (uint32_t)v;
	}
	free(copy);
	return o->nsizes ? 0 : -1;
bad:
	free(copy);
	return -1;
}

/* Fill in "max" and the default list once the ring size is known. */
static int resolve_sizes(struct opts *o, uint32_t max)
{
	uint32_t s;
	int i;

	if (!o->size_spec) {
		o->nsizes = 0;
		for (s = 8; s < max && o->nsizes < MAX_SIZES - 1; s *= 2) {
			o->size_max[o->nsizes] = 0;
			o->sizes[o->nsizes++] = s;
		}
		o->size_max[o->nsizes] = 0;
		o->sizes[o->nsizes++] = max;
		return 0;
	}
	for (i = 0; i < o->nsizes; i++) {
		if (o->size_max[i])
			o->sizes[i] = max;
		if (o->sizes[i] > max) {
			fprintf(stderr, PROG ": size %u is above the eager maximum %u\n",
				o->sizes[i], max);
			return -1;
		}
	}
	return 0;
}

static void pin_to(int cpu)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu % n, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		fprintf(stderr, PROG ": sched_setaffinity: %s\n", strerror(errno));
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Has the peer gone (died or finished)? */
static int peer_gone(const struct mcr_ep *ep, uint32_t peer)
{
	uint32_t st = __atomic_load_n(&mcr_rank_ctl(ep, peer)->state,
				      __ATOMIC_RELAXED);

	return st == MPICHAN_RANK_DEAD || st == MPICHAN_RANK_FINISHED;
}

static int send_one(const struct mcr_ep *ep, enum mode mode, uint32_t peer,
		    int32_t tag, const void *buf, uint32_t len)
{
	unsigned long spins = 0;
	int ret;

	for (;;) {
		ret = mcr_send(ep, peer, MPICHAN_MSG_DATA, tag, 0, buf, len);
		if (ret != -EAGAIN)
			break;
		/* Only one message is ever in flight: a full ring is a bug. */
		if (++spins > 100000000UL || peer_gone(ep, peer)) {
			fprintf(stderr, PROG ": rank %u: ring to %u stays full\n",
				ep->rank, peer);
			return -EAGAIN;
		}
	}
	if (ret) {
		fprintf(stderr, PROG ": rank %u: send: %s\n", ep->rank,
			strerror(-ret));
		return ret;
	}
	if (mode != MODE_SPIN) {
		ret = mcr_notify(ep, peer);
		if (ret < 0) {
			fprintf(stderr, PROG ": rank %u: notify: %s\n", ep->rank,
				strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int recv_one(const struct mcr_ep *ep, enum mode mode, uint32_t peer,
		    int32_t tag, void *buf, uint32_t len)
{
	const struct mpichan_msg *m;
	unsigned long spins = 0;
	int err, ret;

	for (;;) {
		m = mcr_peek(ep, peer, &err);
		if (m)
			break;
		if (err) {
			fprintf(stderr, PROG ": rank %u: peek: %s\n", ep->rank,
				strerror(-err));
			return err;
		}
		if (mode == MODE_SLEEP) {
			ret = mcr_sleep(ep, -1, (int32_t)peer);
			if (ret) {
				fprintf(stderr, PROG ": rank %u: sleep: %s\n",
					ep->rank, strerror(-ret));
				return ret;
			}
		} else if ((++spins & 0xfffff) == 0 && peer_gone(ep, peer)) {
			fprintf(stderr, PROG ": rank %u: peer %u left\n",
				ep->rank, peer);
			return -EPIPE;
		}
	}
	if (m->kind != MPICHAN_MSG_DATA || m->len != len || m->tag != tag) {
		fprintf(stderr, PROG ": rank %u: got kind %u len %u tag %d, "
			"expected len %u tag %d\n", ep->rank, m->kind, m->len,
			m->tag, len, tag);
		return -EBADMSG;
	}
	memcpy(buf, m + 1, len);
	mcr_consume(ep, peer, m);
	return 0;
}

static int run_rank(const struct opts *o, uint64_t job_id,
		    const __u64 secret[2], uint32_t rank)
{
	uint32_t peer = 1 - rank, max, size;
	struct mcr_ep ep;
	struct opts so = *o;
	double t0 = 0, t1;
	unsigned char *sbuf, *rbuf;
	long i, total;
	int fd, ret, k, waited;

	if (o->pin)
		pin_to((int)rank);
	fd = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", MPICHAN_DEVICE, strerror(errno));
		return 1;
	}
	ret = mcr_attach(&ep, fd, job_id, secret, rank);
	if (ret) {
		fprintf(stderr, PROG ": rank %u: attach: %s\n", rank, strerror(-ret));
		return 1;
	}
	/* Our own control block must show us: else header and module differ. */
	if (mcr_hdr(&ep)->magic != MPICHAN_JOB_MAGIC ||
	    mcr_hdr(&ep)->abi_version != MPICHAN_ABI_VERSION ||
	    mcr_rank_ctl(&ep, rank)->state != MPICHAN_RANK_ALIVE ||
	    mcr_rank_ctl(&ep, rank)->pid != (uint32_t)getpid()) {
		fprintf(stderr, PROG ": rank %u: the mapping does not show this "
			"rank attached (magic 0x%x, abi %u, state %u, pid %u): "
			"built against another uapi than the module's?\n", rank,
			mcr_hdr(&ep)->magic, mcr_hdr(&ep)->abi_version,
			mcr_rank_ctl(&ep, rank)->state,
			mcr_rank_ctl(&ep, rank)->pid);
		return 1;
	}
	/* Start together: both ranks attached before the first message. */
	for (waited = 0; __atomic_load_n(&mcr_rank_ctl(&ep, peer)->state,
					 __ATOMIC_ACQUIRE) != MPICHAN_RANK_ALIVE;
	     waited++) {
		if (waited > 300000) {	/* 30 s */
			fprintf(stderr, PROG ": rank %u: rank %u never attached\n",
				rank, peer);
			return 1;
		}
		usleep(100);
	}
	max = mcr_max_payload(&ep);
	if (resolve_sizes(&so, max))
		return 1;
	sbuf = malloc(max ? max : 1);
	rbuf = malloc(max ? max : 1);
	if (!sbuf || !rbuf)
		return 1;
	memset(sbuf, 0xa5 + rank, max);
	memset(rbuf, 0, max);

	if (rank == 0) {
		printf("# mpichan raw ping-pong, two processes, receivers %s%s\n",
		       mode_names[o->mode],
		       o->mode == MODE_SPIN ? " (senders never notify)" :
		       o->mode == MODE_SPIN_NOTIFY ? " (senders notify)" :
		       " (mcr_sleep, infinite timeout; senders notify)");
		printf("# ring_bytes %llu, ring_cells %u, eager max %u B, "
		       "iterations %ld, warm-up %ld, pinned %s\n",
		       (unsigned long long)ep.off.ring_bytes, ep.ring_cells, max,
		       o->iters, o->warmup, o->pin ? "yes" : "no");
		printf("# %-10s %14s %10s\n", "size_B", "oneway_us", "iters");
		fflush(stdout);
	}

	total = o->warmup + o->iters;
	for (k = 0; k < so.nsizes; k++) {
		size = so.sizes[k];
		for (i = 0; i < total; i++) {
			if (i == o->warmup)
				t0 = now_us();
			if (rank == 0) {
				if (send_one(&ep, o->mode, peer, (int32_t)i, sbuf, size) ||
				    recv_one(&ep, o->mode, peer, (int32_t)i, rbuf, size))
					return 1;
			} else {
				if (recv_one(&ep, o->mode, peer, (int32_t)i, rbuf, size) ||
				    send_one(&ep, o->mode, peer, (int32_t)i, sbuf, size))
					return 1;
			}
		}
		t1 = now_us();
		if (rank == 0) {
			printf("  %-10u %14.3f %10ld\n", size,
			       (t1 - t0) / (2.0 * (double)o->iters), o->iters);
			fflush(stdout);
		}
	}

	if (ioctl(fd, MPICHAN_IOC_FINISH) < 0) {
		fprintf(stderr, PROG ": rank %u: finish: %s\n", rank, strerror(errno));
		return 1;
	}
	mcr_detach(&ep);
	close(fd);
	free(sbuf);
	free(rbuf);
	return 0;
}

int main(int argc, char **argv)
{
	struct mpichan_job_create jc;
	struct opts o;
	int c, owner, status, rc;
	pid_t child;
	char *end;

	memset(&o, 0, sizeof(o));
	o.mode = MODE_SPIN;
	o.iters = 10000;
	o.warmup = -1;
	o.pin = 1;
	while ((c = getopt(argc, argv, "m:s:i:w:r:Ph")) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "spin"))
				o.mode = MODE_SPIN;
			else if (!strcmp(optarg, "spin-notify"))
				o.mode = MODE_SPIN_NOTIFY;
			else if (!strcmp(optarg, "sleep"))
				o.mode = MODE_SLEEP;
			else
				goto bad;
			break;
		case 's':
			o.size_spec = optarg;
			if (parse_sizes(&o, optarg))
				goto bad;
			break;
		case 'i':
			o.iters = strtol(optarg, &end, 0);
			if (*end || o.iters < 1)
				goto bad;
			break;
		case 'w':
			o.warmup = strtol(optarg, &end, 0);
			if (*end || o.warmup < 0)
				goto bad;
			break;
		case 'r':
			o.ring_bytes = (uint32_t)strtoul(optarg, &end, 0);
			if (*end)
				goto bad;
			break;
		case 'P':
			o.pin = 0;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (o.warmup < 0)
		o.warmup = o.iters / 10;

	owner = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
	if (owner < 0) {
		fprintf(stderr, PROG ": %s: %s\n", MPICHAN_DEVICE, strerror(errno));
		return 1;
	}
	memset(&jc, 0, sizeof(jc));
	jc.nranks = 2;
	jc.ring_bytes = o.ring_bytes;
	if (ioctl(owner, MPICHAN_IOC_JOB_CREATE, &jc) < 0) {
		fprintf(stderr, PROG ": job create: %s\n", strerror(errno));
		return 1;
	}

	fflush(stdout);
	child = fork();
	if (child < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		close(owner);
		_exit(run_rank(&o, jc.job_id, jc.secret, 1));
	}
	rc = run_rank(&o, jc.job_id, jc.secret, 0);
	if (rc)
		kill(child, SIGTERM);
	if (waitpid(child, &status, 0) < 0) {
		fprintf(stderr, PROG ": waitpid: %s\n", strerror(errno));
		return 1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, PROG ": rank 1 failed (status 0x%x)\n", status);
		rc = 1;
	}
	close(owner);
	return rc;
bad:
	usage(stderr);
	return 2;
}
