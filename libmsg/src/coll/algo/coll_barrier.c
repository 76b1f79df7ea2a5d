// SPDX-License-Identifier: MIT
/*
 * Barrier algorithms.  Empty messages only; what matters is the
 * number of rounds (log2 n) and that no rank leaves before every rank
 * entered.
 *
 * Cost (coll_cost.c has the terms: alpha a message, beta a byte copied,
 * gamma a byte reduced, R a round's scheduler pass when oversubscribed;
 * lg = ceil(log2 n), msg(b) = alpha + bytes(b), bytes(b) = b beta + the
 * ring's second copy under the eager limit or else the handshake):
 *   dissemination       lg (alpha + R)
 *   recursive_doubling  (lg p + 2 [n not a power of two]) (alpha + R)
 *   area                (n + 1) line + R (coll_area.c: one counter, every rank's
 *                       arrival a handoff of its cache line, then the release)
 */

#include "coll/algo/algo.h"


/*
 * Dissemination (Hensgen, Finkel, Manber): in round k every rank
 * signals rank + 2^k and waits for rank - 2^k.  ceil(log2 n) rounds for
 * any n, no extra rounds for non-powers of two.
 */
LM_ALGO(lm_barrier_dissemination)
{
	int n = s->comm->size, r = s->comm->rank, k;

	(void)a;
	for (k = 1; k < n; k *= 2) {
		TRY(lm_sched_send(s, NULL, 0, (r + k) % n));
		TRY(lm_sched_recv(s, NULL, 0, (r - k + n) % n));
		TRY(lm_sched_round(s));
	}
	return MPI_SUCCESS;
}

/*
 * Recursive doubling: pairs exchange at distance 1, 2, 4...  Ranks
 * beyond the largest power of two report to a partner first and are
 * released last.
 */
LM_ALGO(lm_barrier_recursive_doubling)
{
	int n = s->comm->size, r = s->comm->rank, p = lm_pof2_floor(n), k;

	(void)a;
	if (r >= p) {
		TRY(lm_sched_send(s, NULL, 0, r - p));
		TRY(lm_sched_round(s));
		return lm_sched_recv(s, NULL, 0, r - p);
	}
	if (r + p < n) {
		TRY(lm_sched_recv(s, NULL, 0, r + p));
		TRY(lm_sched_round(s));
	}
	for (k = 1; k < p; k *= 2) {
		TRY(lm_sched_send(s, NULL, 0, r ^ k));
		TRY(lm_sched_recv(s, NULL, 0, r ^ k));
		TRY(lm_sched_round(s));
	}
	if (r + p < n)
		TRY(lm_sched_send(s, NULL, 0, r + p));
	return MPI_SUCCESS;
}
