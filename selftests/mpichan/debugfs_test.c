// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/mpichan/: the module-wide stats and each job's
 * state file, in the format of Documentation/debugfs.md.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(dbg) {
	struct mc_job job;
	struct mcr_ep e[3];
};

FIXTURE_SETUP(dbg)
{
	int r;

	self->job.owner = -1;
	for (r = 0; r < 3; r++)
		self->e[r].fd = -1;
	MC_REQUIRE_DEVICE();
	if (!mc_debugfs_present())
		SKIP(return, "%s absent: is debugfs mounted?", MC_DEBUGFS);
	ASSERT_EQ(0, mc_job_create(&self->job, 3, 4096));
}

FIXTURE_TEARDOWN(dbg)
{
	int r;

	for (r = 0; r < 3; r++)
		mc_ep_close(&self->e[r]);
	mc_job_close_owner(&self->job);
}

TEST_F(dbg, stats_format)
{
	static const char *const names[] = {
		"jobs", "ranks", "ring_pages", "ring_bytes", "pinned_pages",
		"cache_entries", "cache_pages", "cache_hits", "cache_misses",
		"cache_invalidated", "cache_evicted", "window_maps", "window_hits",
		"regions", "region_pages", "region_maps", "region_copies",
		"region_bytes_in", "region_bytes_out", "region_stale",
	};
	char buf[1024], *line, *save = NULL;
	size_t i = 0;
	long v;

	ASSERT_LT(0, mc_read_file(MC_DEBUGFS "/stats", buf, sizeof(buf)));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[32], extra;

		if (i >= ARRAY_SIZE(names))
			break;
		ASSERT_EQ(2, sscanf(line, "%31[a-z_]: %ld%c", name, &v, &extra))
			TH_LOG("line '%s'", line);
		EXPECT_STREQ(names[i], name);
		EXPECT_LE(0, v);
		i++;
	}
	EXPECT_EQ(ARRAY_SIZE(names), i);
	EXPECT_LE(1, mc_stat("jobs"));
	EXPECT_EQ(mc_stat("ring_pages") * sysconf(_SC_PAGESIZE),
		  mc_stat("ring_bytes"));
}

TEST_F(dbg, version_file)
{
	char buf[64];

	ASSERT_LT(0, mc_read_file(MC_DEBUGFS "/version", buf, sizeof(buf)));
	EXPECT_EQ(MPICHAN_ABI_VERSION, atoi(buf + 4));
	EXPECT_EQ(0, strncmp(buf, "abi ", 4));
}

TEST_F(dbg, state_first_line)
{
	char path[128], buf[4096], want[256];

	mc_state_path(path, sizeof(path), self->job.id);
	ASSERT_LT(0, mc_read_file(path, buf, sizeof(buf)));
	snprintf(want, sizeof(want),
		 "job %llu uid %u nranks 3 ring_bytes 4096 owner open dead 0 finished 0\n",
		 (unsigned long long)self->job.id, (unsigned int)geteuid());
	EXPECT_EQ(0, strncmp(buf, want, strlen(want)))
		TH_LOG("got '%.*s'", (int)strcspn(buf, "\n"), buf);
	EXPECT_NE(NULL, strstr(buf, "\nrank pid state sleeping wakes waits"));
	EXPECT_NE(NULL, strstr(buf, "\nring src dst head tail used msgs bytes"));
}

TEST_F(dbg, state_rank_lines)
{
	struct mc_jstate s;
	int r;

	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_TRUE(s.format_ok);
	ASSERT_EQ(3, s.nrank_lines);
	for (r = 0; r < 3; r++) {
		EXPECT_EQ(r, s.rank[r].rank);
		EXPECT_EQ(0, s.rank[r].pid);
		EXPECT_STREQ("empty", s.rank[r].state);
		EXPECT_STREQ("no", s.rank[r].sleeping);
		EXPECT_EQ(0, s.rank[r].wakes);
		EXPECT_EQ(0, s.rank[r].waits);
	}
	EXPECT_EQ(0, s.nring_lines);

	ASSERT_EQ(0, mc_ep_open(&self->e[1], &self->job, 1));
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_EQ(getpid(), s.rank[1].pid);
	EXPECT_STREQ("alive", s.rank[1].state);
	EXPECT_STREQ("empty", s.rank[0].state);
	EXPECT_STREQ("empty", s.rank[2].state);
}

TEST_F(dbg, state_departures)
{
	struct mc_jstate s;
	int r;

	for (r = 0; r < 3; r++)
		ASSERT_EQ(0, mc_ep_open(&self->e[r], &self->job, r));
	ASSERT_EQ(0, mc_finish(self->e[0].fd));
	mc_ep_close(&self->e[0]);
	mc_ep_close(&self->e[1]);
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_STREQ("finished", s.rank[0].state);
	EXPECT_STREQ("dead", s.rank[1].state);
	EXPECT_STREQ("alive", s.rank[2].state);
	EXPECT_EQ(1, s.dead);
	EXPECT_EQ(1, s.finished);
	EXPECT_STREQ("open", s.owner);
	/* The pid of a rank that left stays on record. */
	EXPECT_EQ(getpid(), s.rank[1].pid);

	mc_job_close_owner(&self->job);
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_STREQ("closed", s.owner);
}

TEST_F(dbg, state_counts_wakes_and_waits)
{
	struct mc_jstate s;

	ASSERT_EQ(0, mc_ep_open(&self->e[0], &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&self->e[1], &self->job, 1));
	ASSERT_EQ(0, mc_wake(self->e[0].fd, 1));
	ASSERT_EQ(0, mc_wake(self->e[0].fd, 1));
	ASSERT_EQ(0, mc_wake(self->e[1].fd, 1));
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_EQ(3, s.rank[1].wakes);
	EXPECT_EQ(0, s.rank[0].wakes);
	EXPECT_EQ(0, s.rank[1].waits);

	/* A WAIT that finds the pending wake does not sleep. */
	ASSERT_EQ(0, mc_wait(self->e[1].fd, MC_SEC, MPICHAN_RANK_ANY, NULL));
	/* Neither does a check. */
	ASSERT_EQ(-ETIMEDOUT, mc_wait(self->e[1].fd, 0, MPICHAN_RANK_ANY, NULL));
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_EQ(0, s.rank[1].waits);
	/* These two sleep. */
	ASSERT_EQ(-ETIMEDOUT, mc_wait(self->e[1].fd, 10 * MC_MS,
				      MPICHAN_RANK_ANY, NULL));
	ASSERT_EQ(-ETIMEDOUT, mc_wait(self->e[1].fd, 10 * MC_MS, 0, NULL));
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_EQ(2, s.rank[1].waits);
	EXPECT_EQ(3, s.rank[1].wakes);
}

static void *sleep_fn(void *arg)
{
	int *fd = arg;

	*fd = mc_wait(*fd, 20 * MC_SEC, MPICHAN_RANK_NONE, NULL);
	return NULL;
}

TEST_F(dbg, state_shows_sleeper)
{
	struct mc_jstate s;
	int64_t deadline;
	pthread_t t;
	int arg;

	ASSERT_EQ(0, mc_ep_open(&self->e[0], &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&self->e[2], &self->job, 2));
	arg = self->e[2].fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, sleep_fn, &arg));
	deadline = mc_now_ns() + 10 * MC_SEC;
	do {
		mc_sleep_ms(20);
		ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	} while (strcmp(s.rank[2].sleeping, "yes") && mc_now_ns() < deadline);
	EXPECT_STREQ("yes", s.rank[2].sleeping);
	EXPECT_STREQ("no", s.rank[0].sleeping);
	EXPECT_EQ(1, s.rank[2].waits);
	ASSERT_EQ(0, mc_wake(self->e[0].fd, 2));
	pthread_join(t, NULL);
	EXPECT_EQ(0, arg);
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_STREQ("no", s.rank[2].sleeping);
}

TEST_F(dbg, state_ring_lines)
{
	const struct mc_ring_line *l;
	const struct mpichan_msg *m;
	char payload[100] = { 0 };
	struct mc_jstate s;
	int i, err;

	ASSERT_EQ(0, mc_ep_open(&self->e[0], &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&self->e[1], &self->job, 1));
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_EQ(0, s.nring_lines);

	/* 100 bytes + the 16-byte header: two cells each. */
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, mcr_send(&self->e[0], 1, MPICHAN_MSG_DATA,
					       i, 0, payload, 100));
	for (i = 0; i < 2; i++) {
		m = mcr_peek(&self->e[1], 0, &err);
		ASSERT_NE(NULL, m);
		mcr_consume(&self->e[1], 0, m);
	}
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_EQ(1, s.nring_lines);
	l = mc_state_ring(&s, 0, 1);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(4, l->head);
	EXPECT_EQ(10, l->tail);
	EXPECT_EQ(6, l->used);
	EXPECT_EQ(5, l->msgs);
	EXPECT_EQ(500, l->bytes);
	EXPECT_EQ(NULL, mc_state_ring(&s, 1, 0));

	/* A ring in the other direction and one to a third rank. */
	ASSERT_EQ(0, mcr_send(&self->e[1], 0, MPICHAN_MSG_DATA, 0, 0,
				       payload, 1));
	ASSERT_EQ(0, mcr_send(&self->e[1], 2, MPICHAN_MSG_DATA, 0, 0,
				       payload, 60));
	ASSERT_EQ(0, mc_job_state(self->job.id, &s));
	EXPECT_EQ(3, s.nring_lines);
	l = mc_state_ring(&s, 1, 0);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(0, l->head);
	EXPECT_EQ(1, l->tail);
	EXPECT_EQ(1, l->msgs);
	EXPECT_EQ(1, l->bytes);
	l = mc_state_ring(&s, 1, 2);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(2, l->tail);
	EXPECT_EQ(2, l->used);
	EXPECT_EQ(60, l->bytes);
}

/*
 * A queued transfer's line: bytes, pinned pages and the segments of its
 * iovec (empty ones not counted), for a send and for a receive.
 */
TEST_F(dbg, state_xfer_lines)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *buf;
	struct mpichan_iovec iov[3];
	struct mpichan_send snd;
	struct mpichan_recv rcv;
	struct mc_xfer_line x;

	ASSERT_EQ(0, mc_ep_open(&self->e[0], &self->job, 0));
	ASSERT_EQ(0, mc_ep_open(&self->e[1], &self->job, 1));
	buf = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 1, 4 * page);
	/* 200 bytes in page 0, nothing, 5000 bytes from page 2 on (2 pages). */
	iov[0] = (struct mpichan_iovec){ (uintptr_t)(buf + 100), 200 };
	iov[1] = (struct mpichan_iovec){ (uintptr_t)(buf + page), 0 };
	iov[2] = (struct mpichan_iovec){ (uintptr_t)(buf + 2 * page + 10), 5000 };
	memset(&snd, 0, sizeof(snd));
	snd.iov = (uintptr_t)iov;
	snd.iovcnt = 3;
	snd.dst = 1;
	snd.context = 7;
	snd.tag = 5;
	ASSERT_EQ(0, ioctl(self->e[0].fd, MPICHAN_IOC_SEND, &snd));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, snd.status);
	ASSERT_EQ(0, mc_state_xfer(self->job.id, snd.handle, &x));
	EXPECT_STREQ("send", x.kind);
	EXPECT_EQ(0, x.owner);
	EXPECT_EQ(1, x.peer);
	EXPECT_EQ(7, x.context);
	EXPECT_EQ(5, x.tag);
	EXPECT_EQ(5200, x.len);
	EXPECT_EQ(3, x.pages);
	EXPECT_EQ(2, x.segs);

	/* A receive of another tag does not take it: queued, one segment. */
	memset(&rcv, 0, sizeof(rcv));
	rcv.iov = (uintptr_t)&iov[2];
	rcv.iovcnt = 1;
	rcv.src = 0;
	rcv.context = 7;
	rcv.tag = 6;
	ASSERT_EQ(0, ioctl(self->e[1].fd, MPICHAN_IOC_RECV, &rcv));
	ASSERT_EQ(MPICHAN_XFER_QUEUED, rcv.status);
	ASSERT_EQ(0, mc_state_xfer(self->job.id, rcv.handle, &x));
	EXPECT_STREQ("recv", x.kind);
	EXPECT_EQ(1, x.owner);
	EXPECT_EQ(0, x.peer);
	EXPECT_EQ(6, x.tag);
	EXPECT_EQ(5000, x.len);
	EXPECT_EQ(1, x.segs);
	munmap(buf, 4 * page);
}

TEST_F(dbg, stats_follow_jobs_and_ranks)
{
	long jobs0, ranks0, pages0, pages1, pages2;
	struct mc_job other;

	jobs0 = mc_stat("jobs");
	ranks0 = mc_stat("ranks");
	pages0 = mc_stat("ring_pages");
	ASSERT_LE(1, jobs0);
	ASSERT_EQ(0, mc_job_create(&other, 2, 65536));
	EXPECT_EQ(jobs0 + 1, mc_stat("jobs"));
	/* The header and rank controls come with the job. */
	pages1 = mc_stat("ring_pages");
	EXPECT_LT(pages0, pages1);

	ASSERT_EQ(0, mc_ep_open(&self->e[0], &other, 0));
	ASSERT_EQ(0, mc_ep_open(&self->e[1], &other, 1));
	EXPECT_EQ(ranks0 + 2, mc_stat("ranks"));
	/* Mapping allocates nothing more than attach did ... */
	pages2 = mc_stat("ring_pages");
	(void)mcr_hdr(&self->e[0])->magic;
	EXPECT_EQ(pages2, mc_stat("ring_pages"));
	/* ... touching a ring does: its control page and a cell page. */
	ASSERT_EQ(0, mcr_send(&self->e[0], 1, MPICHAN_MSG_DATA, 0, 0,
				       "x", 1));
	EXPECT_EQ(pages2 + 2, mc_stat("ring_pages"));
	/* Only the pages touched: a 64 KiB ring is 16 pages. */
	EXPECT_EQ(mc_stat("ring_pages") * sysconf(_SC_PAGESIZE),
		  mc_stat("ring_bytes"));

	mc_ep_close(&self->e[0]);
	EXPECT_EQ(ranks0 + 1, mc_stat("ranks"));
	mc_ep_close(&self->e[1]);
	EXPECT_EQ(ranks0, mc_stat("ranks"));
	EXPECT_EQ(jobs0 + 1, mc_stat("jobs"));
	mc_job_close_owner(&other);
	EXPECT_EQ(jobs0, mc_stat("jobs"));
	EXPECT_EQ(pages0, mc_stat("ring_pages"));
	EXPECT_EQ(0, mc_stat("pinned_pages"));
}

TEST_F(dbg, job_dir_lives_with_the_job)
{
	struct mc_job other;
	char path[128];

	ASSERT_EQ(0, mc_job_create(&other, 2, 0));
	EXPECT_TRUE(mc_job_dir_exists(other.id));
	ASSERT_EQ(0, mc_ep_open(&self->e[0], &other, 0));
	/* The owner leaves: the job lives on for its rank. */
	mc_job_close_owner(&other);
	EXPECT_TRUE(mc_job_dir_exists(other.id));
	mc_ep_close(&self->e[0]);
	EXPECT_FALSE(mc_job_dir_exists(other.id));
	mc_state_path(path, sizeof(path), other.id);
	EXPECT_EQ(-1, access(path, F_OK));
	EXPECT_EQ(ENOENT, errno);
}

/* The module-wide regions file: a line per region of the reader's user. */
TEST_F(dbg, regions_file)
{
	struct mpichan_region_reg a;
	unsigned char *buf;
	char text[4096], want[160], *line;
	int fd;

	if (access(MC_DEBUGFS "/regions", F_OK))
		SKIP(return, "no regions in this module");
	buf = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 1, 3 * 4096);
	fd = mc_open();
	ASSERT_LE(0, fd);
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)buf + 10;
	a.len = 2 * 4096;
	ASSERT_EQ(0, ioctl(fd, MPICHAN_IOC_REGION_REG, &a));
	ASSERT_LT(0, mc_read_file(MC_DEBUGFS "/regions", text, sizeof(text)));
	EXPECT_EQ(0, strncmp(text, "region handle pid uid len pages map_pages writable state maps copies bytes_in bytes_out\n", 88));
	snprintf(want, sizeof(want), "\nregion %llu %d %u 8192 3 1 no live 0 0 0 0\n",
		 (unsigned long long)a.handle, getpid(), (unsigned int)geteuid());
	line = strstr(text, want);
	EXPECT_NE(NULL, line) TH_LOG("no '%s' in:\n%s", want + 1, text);
	EXPECT_LE(1, mc_stat("regions"));
	EXPECT_LE(3, mc_stat("region_pages"));
	close(fd);
	ASSERT_LT(0, mc_read_file(MC_DEBUGFS "/regions", text, sizeof(text)));
	EXPECT_EQ(NULL, strstr(text, want));
	munmap(buf, 3 * 4096);
}

/* Reading state while the job is torn down under the reader. */
TEST_F(dbg, read_state_open_across_free)
{
	struct mc_job other;
	char path[128], buf[256];
	int fd;

	ASSERT_EQ(0, mc_job_create(&other, 2, 0));
	mc_state_path(path, sizeof(path), other.id);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	mc_job_close_owner(&other);
	EXPECT_FALSE(mc_job_dir_exists(other.id));
	/* The file is gone: reading fails cleanly (or reads nothing). */
	EXPECT_GE(0, read(fd, buf, sizeof(buf)));
	close(fd);
}

TEST_HARNESS_MAIN
