// SPDX-License-Identifier: MIT
/*
 * Fault tolerance (ULFM) over the job's shared memory: revoking a
 * communicator and agreeing among the survivors, without a message
 * round through a dead rank.  The MPIX_ calls are comm/ulfm_api.c's.
 *
 * Each rank owns the last LM_FT_BYTES of its part of the collective
 * area (uapi: off.coll; coll_area.c leaves those channels alone):
 *
 *   gen        bumped by every rank that revokes a communicator this
 *              rank is in, after setting the bit; then it wakes the rank
 *   revoked[]  a bit per context id pair (ctx / 2), set by revokers
 *   agree[]    per context id pair: this rank's agreements on it, the
 *              sequence number of its latest and its value for the
 *              last two (written by the rank alone)
 *
 * A revoke: set the bit in every member's revoked[], bump its gen, wake
 * it.  Each progress poll compares its own gen with the last it saw;
 * when it moved, the newly set bits are copied into this process's
 * view (revoked_here) and every receive posted on the communicator's
 * two contexts, every send queued for ring space on them and every
 * collective waiting in the area fails with MPI_ERR_REVOKED; later
 * calls on it fail at once (lm_ulfm_revoked()).  The pre-sleep check
 * (lm_ulfm_ready) sees a gen that moved before this rank slept.
 *
 * An agreement (number k on a communicator): publish the value in
 * agree[].val[k % 2], then seq = k, and wake the members.  A member is
 * decided once its seq reaches k (its value counts) or the kernel's
 * word says it died (or finished) without reaching k (it is left out).
 * Memory outlives a dead rank: what it published before dying is read
 * the same by every survivor, and after its death nothing changes, so
 * every survivor decides every member the same way: the result (the
 * AND of the values that count, and who counted) is uniform.  Two
 * values are kept because a member may go on to agreement k + 1 while
 * a slower one still reads k; it cannot reach k + 2 before the slow
 * one has published k + 1.
 *
 * An intercommunicator has one context id pair for both its groups, and
 * a process is in at most one communicator of each id that it has not
 * freed (the intercommunicators of a split share one but have no
 * process in common), so its state is kept per id as an
 * intracommunicator's: a revoke and an agreement reach the members of
 * both groups (its uc).  An agreement ANDs the values of all who took
 * part (value: what a shrink uses, alike on both sides) and, apart,
 * those of the remote group (rvalue: MPIX_Comm_agree's result there).
 */

#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

#define LM_FT_PAIRS	(LM_CTX_LIMIT / 2)

struct lm_ft_agree {
	uint32_t seq;		/* the latest agreement published */
	uint32_t val[2];	/* its value (seq % 2) and the one before */
};

struct lm_ft_area {
	uint32_t gen;
	unsigned char pad[60];
	uint64_t revoked[LM_FT_PAIRS / 64];
	struct lm_ft_agree agree[LM_FT_PAIRS];
};

_Static_assert(sizeof(struct lm_ft_area) <= LM_FT_BYTES,
	       "the fault tolerance state fits its share of the area");

static uint64_t revoked_here[LM_FT_PAIRS / 64];
static uint32_t gen_seen;
/* Agreements under way; nonblocking ones are polled by progress. */
static struct cds_list_head agreeing = CDS_LIST_HEAD_INIT(agreeing);
static uint32_t nagreeing;	/* read without the lock */

static int poll_agreements(void);

static struct lm_ft_area *area_of(uint32_t w)
{
	const struct mcr_ep *ep = &lm.job.ep;

	if (!ep->map || !ep->off.coll || ep->off.coll % 64 ||
	    ep->off.coll + (uint64_t)ep->nranks * MPICHAN_COLL_BYTES >
	    ep->off.map_size || w >= ep->nranks)
		return NULL;
	return (struct lm_ft_area *)(ep->map + ep->off.coll +
				     (uint64_t)(w + 1) * MPICHAN_COLL_BYTES -
				     LM_FT_BYTES);
}

int lm_ulfm_usable(const struct libmsg_comm *c)
{
	return area_of(0) && (!c->inter || c->uc) &&
		c->ctx / 2 < LM_FT_PAIRS &&
		c->ctx != LM_CTX_SESSION && c->ctx != LM_CTX_INTER;
}

/*
 * The processes a revoke or an agreement on c reaches: its members, or
 * an intercommunicator's two groups (uc, on the same context id).
 */
static const struct libmsg_comm *members(const struct libmsg_comm *c)
{
	return c->inter ? c->uc : c;
}

static int bit(const uint64_t *m, uint32_t i)
{
	return (int)(m[i / 64] >> (i % 64) & 1);
}

int lm_ulfm_ctx_revoked(uint32_t ctx)
{
	uint32_t i = ctx / 2;

	return i < LM_FT_PAIRS && bit(revoked_here, i);
}

int lm_ulfm_revoked(const struct libmsg_comm *c)
{
	return c && lm_ulfm_ctx_revoked(c->ctx);
}

void lm_ulfm_ctx_fresh(uint32_t ctx)
{
	struct lm_ft_area *me = area_of(lm.job.rank);
	uint32_t i = ctx / 2;

	if (i >= LM_FT_PAIRS)
		return;
	revoked_here[i / 64] &= ~(1ULL << (i % 64));
	if (!me)
		return;
	__atomic_fetch_and(&me->revoked[i / 64], ~(1ULL << (i % 64)),
			   __ATOMIC_SEQ_CST);
	__atomic_store_n(&me->agree[i].seq, 0, __ATOMIC_RELEASE);
}

/* Fail what waits on context pair i here: the revoke is now seen. */
static void fail_pair(uint32_t i)
{
	struct lm_match *q;
	struct libmsg_request *req;
	uint32_t ctx;

	for (ctx = 2 * i; ctx <= 2 * i + 1; ctx++) {
		q = lm_match_get(ctx);
		if (!q)
			continue;
		/*
		 * Completing one may take others off the list (a collective
		 * withdraws the rest of its round): take the first each time.
		 */
		while (!cds_list_empty(&q->posted)) {
			req = cds_list_first_entry(&q->posted,
						   struct libmsg_request, link);
			cds_list_del(&req->link);
			lm_status_set(&req->status, req->comm, MPI_ANY_SOURCE,
				      MPI_ANY_TAG, 0, MPI_ERR_REVOKED);
			lm_req_complete(req);
		}
		lm_progress_fail_ctx(ctx, MPI_ERR_REVOKED);
	}
}

static void mark_here(uint32_t i)
{
	if (bit(revoked_here, i))
		return;
	revoked_here[i / 64] |= 1ULL << (i % 64);
	fail_pair(i);
}

int lm_ulfm_poll(void)
{
	struct lm_ft_area *me = area_of(lm.job.rank);
	uint32_t g, w;
	uint64_t m;

	if (!me)
		return 0;
	g = __atomic_load_n(&me->gen, __ATOMIC_ACQUIRE);
	if (g == gen_seen)
		return nagreeing ? poll_agreements() : 0;
	__atomic_store_n(&gen_seen, g, __ATOMIC_RELAXED);
	for (w = 0; w < LM_FT_PAIRS / 64; w++) {
		m = __atomic_load_n(&me->revoked[w], __ATOMIC_ACQUIRE) &
			~revoked_here[w];
		while (m) {
			mark_here(w * 64 + (uint32_t)__builtin_ctzll(m));
			m &= m - 1;
		}
	}
	if (nagreeing)
		poll_agreements();
	return 1;
}

int lm_ulfm_revoke(const struct libmsg_comm *c)
{
	uint32_t i = c->ctx / 2, w;
	struct lm_ft_area *a;
	int r;

	if (!lm_ulfm_usable(c))
		return MPI_ERR_UNSUPPORTED_OPERATION;
	c = members(c);
	for (r = 0; r < c->size; r++) {
		w = (uint32_t)lm_comm_world(c, r);
		a = area_of(w);
		if (w == lm.job.rank)
			continue;
		__atomic_fetch_or(&a->revoked[i / 64], 1ULL << (i % 64),
				  __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&a->gen, 1, __ATOMIC_SEQ_CST);
		if (!lm.dead[w])
			lm_notify(&lm.job, w);
	}
	a = area_of(lm.job.rank);
	__atomic_fetch_or(&a->revoked[i / 64], 1ULL << (i % 64),
			  __ATOMIC_SEQ_CST);
	mark_here(i);
	return MPI_SUCCESS;
}

/* ---- Agreement ------------------------------------------------------ */

static uint32_t state_of(uint32_t w)
{
	return __atomic_load_n(&mcr_rank_ctl(&lm.job.ep, w)->state,
			       __ATOMIC_ACQUIRE);
}

static int gone(uint32_t w)
{
	uint32_t s = state_of(w);

	return s == MPICHAN_RANK_DEAD || s == MPICHAN_RANK_FINISHED;
}

int lm_ulfm_agree_start(struct lm_ft_agreement *ag,
			const struct libmsg_comm *c, uint32_t value)
{
	struct lm_ft_area *me = area_of(lm.job.rank);
	uint32_t i = c->ctx / 2, k, w;
	int r;

	if (!lm_ulfm_usable(c))
		return MPI_ERR_UNSUPPORTED_OPERATION;
	memset(ag, 0, sizeof(*ag));
	if (c->inter) {
		ag->inter = c;
		c = c->uc;
	}
	ag->in = calloc((size_t)c->size, 1);
	if (!ag->in)
		return MPI_ERR_NO_MEM;
	ag->comm = c;
	ag->pair = i;
	k = me->agree[i].seq + 1;
	ag->seq = k;
	ag->value = value;
	ag->rvalue = ~0U;
	ag->left = c->size - 1;
	me->agree[i].val[k % 2] = value;
	__atomic_store_n(&me->agree[i].seq, k, __ATOMIC_SEQ_CST);
	ag->in[c->rank] = LM_FT_IN;
	for (r = 0; r < c->size; r++) {
		w = (uint32_t)lm_comm_world(c, r);
		if (w != lm.job.rank && !gone(w))
			lm_notify(&lm.job, w);
	}
	cds_list_add(&ag->link, &agreeing);
	__atomic_add_fetch(&nagreeing, 1, __ATOMIC_SEQ_CST);
	return MPI_SUCCESS;
}

void lm_ulfm_watch(struct lm_ft_agreement *ag)
{
	cds_list_add(&ag->link, &agreeing);
	__atomic_add_fetch(&nagreeing, 1, __ATOMIC_SEQ_CST);
}

static void unlist(struct lm_ft_agreement *ag)
{
	if (!ag->link.next)
		return;
	cds_list_del(&ag->link);
	ag->link.next = NULL;
	__atomic_sub_fetch(&nagreeing, 1, __ATOMIC_SEQ_CST);
}

/* Member r (world rank w) took part: its value counts. */
static int count_in(struct lm_ft_agreement *ag, int r, uint32_t w,
		    const struct lm_ft_agree *e)
{
	uint32_t v = e->val[ag->seq % 2];

	ag->value &= v;
	if (ag->inter && lm_comm_local(ag->inter, (int)w) >= 0)
		ag->rvalue &= v;
	ag->in[r] = LM_FT_IN;
	return 1;
}

/* Is member r decided?  1 then, with its part in ag. */
static int decide(struct lm_ft_agreement *ag, int r)
{
	uint32_t w = (uint32_t)lm_comm_world(ag->comm, r);
	const struct lm_ft_agree *e = &area_of(w)->agree[ag->pair];
	int out;

	if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) >= ag->seq)
		return count_in(ag, r, w, e);
	if (!gone(w))
		return 0;
	/* Gone: nothing it wrote changes any more.  Did k make it? */
	if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) >= ag->seq)
		return count_in(ag, r, w, e);
	out = state_of(w) == MPICHAN_RANK_DEAD ? LM_FT_FAILED : LM_FT_LEFT;
	ag->in[r] = (uint8_t)out;
	return 1;
}

int lm_ulfm_agree_test(struct lm_ft_agreement *ag)
{
	int r;

	for (r = 0; ag->left && r < ag->comm->size; r++)
		if (!ag->in[r] && decide(ag, r))
			ag->left--;
	if (ag->left)
		return 0;
	if (ag->link.next)
		LM_COUNT(ulfm_agreements, 1);
	unlist(ag);
	return 1;
}

void lm_ulfm_agree_end(struct lm_ft_agreement *ag)
{
	unlist(ag);
	free(ag->in);
	ag->in = NULL;
}

/* A revoke came that progress has not seen (the short ways ask). */
int lm_ulfm_unseen(void)
{
	struct lm_ft_area *me = area_of(lm.job.rank);

	return me && __atomic_load_n(&me->gen, __ATOMIC_ACQUIRE) != gen_seen;
}

/*
 * Before sleeping, without the lock: did a revoke come, or is an
 * agreement under way?  (Its members' progress is in shared memory,
 * not in a ring: it is polled, yielding, rather than slept on.)
 */
int lm_ulfm_ready(void)
{
	struct lm_ft_area *me = area_of(lm.job.rank);

	if (!me)
		return 0;
	return __atomic_load_n(&me->gen, __ATOMIC_SEQ_CST) !=
		__atomic_load_n(&gen_seen, __ATOMIC_RELAXED) ||
		__atomic_load_n(&nagreeing, __ATOMIC_SEQ_CST);
}

/* Progress: complete the nonblocking agreements that are decided. */
static int poll_agreements(void)
{
	struct lm_ft_agreement *ag, *t;
	int did = 0;

	cds_list_for_each_entry_safe(ag, t, &agreeing, link)
		if (ag->poll) {
			did |= ag->poll(ag) != 0;
		} else if (ag->done && lm_ulfm_agree_test(ag)) {
			ag->done(ag);
			did = 1;
		}
	return did;
}
