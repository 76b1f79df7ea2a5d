// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/mpichan/: live state for people and tests.
 * The format is documented in Documentation/debugfs.md.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/mpichan.h>

#include "debugfs.h"
#include "job.h"
#include "match.h"
#include "pincache.h"
#include "region.h"

struct mpichan_stats mpichan_stats;
static struct dentry *mpichan_debugfs_root;

static int version_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "abi %u\n", MPICHAN_ABI_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

static int stats_show(struct seq_file *m, void *unused)
{
	long pages = atomic_long_read(&mpichan_stats.ring_pages);

	seq_printf(m, "jobs: %ld\n", atomic_long_read(&mpichan_stats.jobs));
	seq_printf(m, "ranks: %ld\n", atomic_long_read(&mpichan_stats.ranks));
	seq_printf(m, "ring_pages: %ld\n", pages);
	seq_printf(m, "ring_bytes: %ld\n", pages * (long)PAGE_SIZE);
	seq_printf(m, "pinned_pages: %ld\n",
		   atomic_long_read(&mpichan_stats.pinned_pages));
	seq_printf(m, "cache_entries: %ld\n",
		   atomic_long_read(&mpichan_stats.cache_entries));
	seq_printf(m, "cache_pages: %ld\n",
		   atomic_long_read(&mpichan_stats.cache_pages));
	seq_printf(m, "cache_hits: %ld\n",
		   atomic_long_read(&mpichan_stats.cache_hits));
	seq_printf(m, "cache_misses: %ld\n",
		   atomic_long_read(&mpichan_stats.cache_misses));
	seq_printf(m, "cache_invalidated: %ld\n",
		   atomic_long_read(&mpichan_stats.cache_invalidated));
	seq_printf(m, "cache_evicted: %ld\n",
		   atomic_long_read(&mpichan_stats.cache_evicted));
	seq_printf(m, "window_maps: %ld\n",
		   atomic_long_read(&mpichan_stats.window_maps));
	seq_printf(m, "window_hits: %ld\n",
		   atomic_long_read(&mpichan_stats.window_hits));
	seq_printf(m, "regions: %ld\n",
		   atomic_long_read(&mpichan_stats.regions));
	seq_printf(m, "region_pages: %ld\n",
		   atomic_long_read(&mpichan_stats.region_pages));
	seq_printf(m, "region_maps: %ld\n",
		   atomic_long_read(&mpichan_stats.region_maps));
	seq_printf(m, "region_copies: %ld\n",
		   atomic_long_read(&mpichan_stats.region_copies));
	seq_printf(m, "region_bytes_in: %ld\n",
		   atomic_long_read(&mpichan_stats.region_bytes_in));
	seq_printf(m, "region_bytes_out: %ld\n",
		   atomic_long_read(&mpichan_stats.region_bytes_out));
	seq_printf(m, "region_stale: %ld\n",
		   atomic_long_read(&mpichan_stats.region_stale));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* Readable by all; each reader sees only its own user's regions. */
static int regions_show(struct seq_file *m, void *unused)
{
	mpichan_region_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(regions);

static const char *const rank_state_names[] = {
	[MPICHAN_RANK_EMPTY] = "empty",
	[MPICHAN_RANK_ALIVE] = "alive",
	[MPICHAN_RANK_FINISHED] = "finished",
	[MPICHAN_RANK_DEAD] = "dead",
};

static void show_ranks(struct seq_file *m, struct mpichan_job *job)
{
	u32 r;

	seq_puts(m, "rank pid state sleeping wakes waits sends recvs pinned moved\n");
	for (r = 0; r < job->nranks; r++) {
		struct mpichan_rank *rank = &job->ranks[r];

		seq_printf(m, "%u %d %s %s %lld %lld %u %u %lld %lld\n", r,
			   rank->pid, rank_state_names[rank->state],
			   atomic_read(&rank->sleeping) ? "yes" : "no",
			   (long long)atomic64_read(&rank->wakes),
			   (long long)atomic64_read(&rank->waits),
			   READ_ONCE(rank->queued_sends),
			   READ_ONCE(rank->queued_recvs),
			   (long long)atomic64_read(&rank->pinned),
			   (long long)atomic64_read(&rank->moved));
	}
}

static const char *const wait_kind_names[] = {
	[MPICHAN_WAIT_NONE] = "none",
	[MPICHAN_WAIT_SEND] = "send",
	[MPICHAN_WAIT_RECV] = "recv",
	[MPICHAN_WAIT_PROBE] = "probe",
	[MPICHAN_WAIT_COLL] = "coll",
	[MPICHAN_WAIT_OTHER] = "other",
};

/* A rank's report of the call it is blocked in, as the rank wrote it. */
struct wait_snap {
	u32 seq;
	s32 peer, tag;
	u32 context, comm_size;
	u64 bytes;
	u16 kind;
	char call[sizeof_field(struct mpichan_rank_ctl, wait_call) + 1];
};

/*
 * Read it whole: the rank makes wait_seq odd while it writes.  The
 * memory is the rank's to scribble on, so a rank that never lets go
 * gets its fields as they were at the last try, and a name that is not
 * an identifier is shown with '?' for the odd characters.
 */
static void read_wait(struct mpichan_rank_ctl *ctl, struct wait_snap *w)
{
	int try, i;

	for (try = 0; try < 4; try++) {
		w->seq = READ_ONCE(ctl->wait_seq);
		/* Pairs with the rank's release of the fields before seq. */
		smp_rmb();
		w->peer = READ_ONCE(ctl->wait_peer);
		w->tag = READ_ONCE(ctl->wait_tag);
		w->context = READ_ONCE(ctl->wait_context);
		w->comm_size = READ_ONCE(ctl->wait_comm_size);
		w->bytes = READ_ONCE(ctl->wait_bytes);
		w->kind = READ_ONCE(ctl->wait_kind);
		memcpy(w->call, ctl->wait_call, sizeof(ctl->wait_call));
		/* The fields before the second look at seq. */
		smp_rmb();
		if (!(w->seq & 1) && READ_ONCE(ctl->wait_seq) == w->seq)
			break;
	}
	w->call[sizeof(w->call) - 1] = 0;
	for (i = 0; w->call[i]; i++)
		if (!isalnum(w->call[i]) && w->call[i] != '_')
			w->call[i] = '?';
	if (!w->call[0])
		strscpy(w->call, "-", sizeof(w->call));
}

/* The ranks blocked in a call, as their library reports it. */
static void show_waits(struct seq_file *m, struct mpichan_job *job)
{
	struct wait_snap w;
	u32 r;

	seq_puts(m, "wait rank call kind peer tag context comm_size bytes seq\n");
	for (r = 0; r < job->nranks; r++) {
		struct mpichan_rank_ctl *ctl = mpichan_rank_ctl(job, r);

		if (!ctl || !READ_ONCE(ctl->wait_kind))
			continue;
		read_wait(ctl, &w);
		if (w.kind == MPICHAN_WAIT_NONE)
			continue;
		seq_printf(m, "wait %u %s %s %d %d %u %u %llu %u\n", r, w.call,
			   w.kind < ARRAY_SIZE(wait_kind_names) ?
			   wait_kind_names[w.kind] : "?", w.peer, w.tag,
			   w.context, w.comm_size, (unsigned long long)w.bytes,
			   w.seq);
	}
}

/* Rings whose control page exists and that have carried anything. */
static void show_rings(struct seq_file *m, struct mpichan_job *job)
{
	u32 src, dst;

	seq_puts(m, "ring src dst head tail used msgs bytes\n");
	for (dst = 0; dst < job->nranks; dst++) {
		for (src = 0; src < job->nranks; src++) {
			struct mpichan_ring_ctl *rc;
			u32 head, tail;

			rc = mpichan_ring_ctl(job, src, dst);
			if (!rc)
				continue;
			head = READ_ONCE(rc->head);
			tail = READ_ONCE(rc->tail);
			if (!head && !tail && !READ_ONCE(rc->msgs))
				continue;
			seq_printf(m, "ring %u %u %u %u %u %llu %llu\n", src, dst,
				   head, tail, tail - head,
				   (unsigned long long)READ_ONCE(rc->msgs),
				   (unsigned long long)READ_ONCE(rc->bytes));
		}
		cond_resched();
	}
}

static int job_state_show(struct seq_file *m, void *unused)
{
	struct mpichan_job *job = m->private;

	mutex_lock(&job->lock);
	seq_printf(m, "job %u uid %u nranks %u ring_bytes %u owner %s dead %u finished %u\n",
		   job->id, from_kuid_munged(&init_user_ns, job->uid),
		   job->nranks, job->ring_bytes,
		   job->owner_open ? "open" : "closed",
		   job->dead_count, job->finished_count);
	show_ranks(m, job);
	mutex_unlock(&job->lock);
	show_waits(m, job);
	show_rings(m, job);
	mpichan_match_show(m, job);
	mpichan_pcache_show(m, job);
	return 0;
}

static int job_state_open(struct inode *inode, struct file *file)
{
	struct mpichan_job *job = inode->i_private;

	/* Only the job's user may look, whatever the mount allows. */
	if (!mpichan_job_may_inspect(job))
		return -EACCES;
	return single_open(file, job_state_show, job);
}

static const struct file_operations job_state_fops = {
	.owner		= THIS_MODULE,
	.open		= job_state_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

void mpichan_debugfs_job_add(struct mpichan_job *job)
{
	char name[24];

	snprintf(name, sizeof(name), "job-%u", job->id);
	job->debugfs = debugfs_create_dir(name, mpichan_debugfs_root);
	debugfs_create_file("state", 0400, job->debugfs, job, &job_state_fops);
}

/* Waits for readers still inside the job's files. */
void mpichan_debugfs_job_remove(struct mpichan_job *job)
{
	debugfs_remove_recursive(job->debugfs);
	job->debugfs = NULL;
}

void mpichan_debugfs_init(void)
{
	/*
	 * debugfs failures are not fatal by design: the device works
	 * without its state view, so errors are deliberately ignored.
	 */
	mpichan_debugfs_root = debugfs_create_dir("mpichan", NULL);
	debugfs_create_file("version", 0444, mpichan_debugfs_root, NULL,
			    &version_fops);
	debugfs_create_file("stats", 0444, mpichan_debugfs_root, NULL,
			    &stats_fops);
	if (mpichan_region_enabled())
		debugfs_create_file("regions", 0444, mpichan_debugfs_root,
				    NULL, &regions_fops);
}

void mpichan_debugfs_exit(void)
{
	debugfs_remove_recursive(mpichan_debugfs_root);
}
