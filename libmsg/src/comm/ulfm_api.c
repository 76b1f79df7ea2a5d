// SPDX-License-Identifier: MIT
/*
 * User-Level Failure Mitigation (ULFM), the MPIX_ calls of mpi-ext.h:
 * revoke, agree, shrink, and the acknowledgement of failures.
 *
 * Revoke and agree run over the job's shared memory (p2p/ulfm.c): a
 * revoke sets a flag in every member's part and wakes it; an agreement
 * reads each member's published value, or the kernel's word that it
 * died, so no round of messages waits on a dead rank.  A shrink agrees
 * on who is left (those whose part of the agreement is in), makes the
 * communicator of them as MPI_Comm_create_from_group does (messages
 * among the survivors alone, on a reserved context that a revoke does
 * not touch), and agrees again that every survivor made it; if one did
 * not (a rank died meanwhile) all try again without it.
 *
 * Failures are acknowledged per communicator: the members this process
 * saw fail are listed in the order it saw them (ft_failed), and a
 * prefix of that list is acknowledged (ft_nacked).  A wildcard receive
 * fails only for a failure not acknowledged (p2p/match.c).
 *
 * On an intercommunicator (as Open MPI's ULFM): a revoke reaches both
 * groups; an agreement runs over both (p2p/ulfm.c) and gives each side
 * the AND of the remote group's values; a shrink gives the
 * intercommunicator of the survivors of each group; the failures
 * listed and acknowledged are those of both groups (an agreement's
 * MPI_ERR_PROC_FAILED is about either).
 */

#include <stdio.h>
#include <stdlib.h>
#include <mpi-ext.h>

#include "coll/algo/algo.h"

#pragma weak MPIX_Comm_revoke = PMPIX_Comm_revoke
#pragma weak MPIX_Comm_is_revoked = PMPIX_Comm_is_revoked
#pragma weak MPIX_Comm_shrink = PMPIX_Comm_shrink
#pragma weak MPIX_Comm_ishrink = PMPIX_Comm_ishrink
#pragma weak MPIX_Comm_agree = PMPIX_Comm_agree
#pragma weak MPIX_Comm_iagree = PMPIX_Comm_iagree
#pragma weak MPIX_Comm_failure_ack = PMPIX_Comm_failure_ack
#pragma weak MPIX_Comm_failure_get_acked = PMPIX_Comm_failure_get_acked
#pragma weak MPIX_Comm_get_failed = PMPIX_Comm_get_failed
#pragma weak MPIX_Comm_ack_failed = PMPIX_Comm_ack_failed

static int check(MPI_Comm comm, const char *fn)
{
	int err = lm_check_comm(comm, fn);

	if (err)
		return err;
	if (!lm_ulfm_usable(comm))
		return lm_error(comm, fn, MPI_ERR_UNSUPPORTED_OPERATION,
				"the job has no shared area for fault tolerance");
	return MPI_SUCCESS;
}

/*
 * Take in the members of c (of both groups of an intercommunicator)
 * that died since this process last looked.
 */
static int refresh(struct libmsg_comm *c)
{
	const struct libmsg_comm *m = c->inter ? c->uc : c;
	int r, i, w, *n;

	lm_progress();
	for (r = 0; r < m->size; r++) {
		w = lm_comm_world(m, r);
		if (!lm.dead[w])
			continue;
		for (i = 0; i < c->ft_nfailed && c->ft_failed[i] != w; i++)
			;
		if (i < c->ft_nfailed)
			continue;
		n = realloc(c->ft_failed, ((size_t)c->ft_nfailed + 1) *
			    sizeof(int));
		if (!n)
			return MPI_ERR_NO_MEM;
		c->ft_failed = n;
		c->ft_failed[c->ft_nfailed++] = w;
	}
	return MPI_SUCCESS;
}

static int acked(const struct libmsg_comm *c, int w)
{
	int i;

	for (i = 0; i < c->ft_nacked; i++)
		if (c->ft_failed[i] == w)
			return 1;
	return 0;
}

int PMPIX_Comm_revoke(MPI_Comm comm)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_revoke";
	int err = check(comm, fn);

	if (err)
		return err;
	err = lm_ulfm_revoke(comm);
	if (err)
		return lm_error(comm, fn, err, "cannot revoke");
	return MPI_SUCCESS;
}

int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_is_revoked";
	int err = check(comm, fn);

	if (err)
		return err;
	if (!flag)
		return lm_error(comm, fn, MPI_ERR_ARG, "flag is NULL");
	lm_progress();
	*flag = lm_ulfm_revoked(comm);
	return MPI_SUCCESS;
}

/*
 * After an agreement: MPI_ERR_PROC_FAILED when a member failed (left
 * out of it, or seen dead here) and this process did not acknowledge
 * the failure.
 */
static int unacked_failure(struct libmsg_comm *c,
			   const struct lm_ft_agreement *ag)
{
	int r, w;

	if (refresh(c))
		return MPI_ERR_NO_MEM;
	for (r = 0; r < ag->comm->size; r++) {
		w = lm_comm_world(ag->comm, r);
		if ((ag->in[r] == LM_FT_FAILED || lm.dead[w]) && !acked(c, w))
			return MPI_ERR_PROC_FAILED;
	}
	return MPI_SUCCESS;
}

/* Run an agreement on c to its end. */
static int agree_wait(struct libmsg_comm *c, const char *fn,
		      struct lm_ft_agreement *ag, uint32_t value)
{
	struct lm_blocked b;
	int err = lm_ulfm_agree_start(ag, c, value);

	if (err)
		return err;
	lm_blocked_comm(&b, fn, MPICHAN_WAIT_COLL, c, MPI_PROC_NULL, 0,
			sizeof(int));
	lm_blocked_enter(&b);
	while (!lm_ulfm_agree_test(ag))
		lm_progress_block();
	lm_blocked_leave(&b);
	return MPI_SUCCESS;
}

int PMPIX_Comm_agree(MPI_Comm comm, int *flag)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_agree";
	struct lm_ft_agreement ag;
	int err = check(comm, fn);

	if (err)
		return err;
	if (!flag)
		return lm_error(comm, fn, MPI_ERR_ARG, "flag is NULL");
	err = agree_wait(comm, fn, &ag, (uint32_t)*flag);
	if (err)
		return lm_error(comm, fn, err, "cannot agree");
	*flag = (int)(comm->inter ? ag.rvalue : ag.value);
	err = unacked_failure(comm, &ag);
	lm_ulfm_agree_end(&ag);
	if (err)
		return lm_error(comm, fn, err,
				"a member failed and the failure was not acknowledged");
	return MPI_SUCCESS;
}

/* MPIX_Comm_iagree: the agreement, its flag and its request. */
struct iagree {
	struct lm_ft_agreement ag;
	struct libmsg_comm *comm;
	int *flag;
	int err;
	MPI_Request req;
};

static int iagree_query(void *extra, MPI_Status *st)
{
	struct iagree *ia = extra;

	PMPI_Status_set_elements(st, MPI_INT, 1);
	PMPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return ia->err;
}

static int iagree_free(void *extra)
{
	struct iagree *ia = extra;

	lm_ulfm_agree_end(&ia->ag);
	free(ia);
	return MPI_SUCCESS;
}

static int iagree_cancel(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS;
}

/* Progress decided the agreement (p2p/ulfm.c). */
static void iagree_done(struct lm_ft_agreement *ag)
{
	struct iagree *ia = caa_container_of(ag, struct iagree, ag);

	*ia->flag = (int)(ia->comm->inter ? ag->rvalue : ag->value);
	ia->err = unacked_failure(ia->comm, ag);
	PMPI_Grequest_complete(ia->req);
}

int PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_iagree";
	struct iagree *ia;
	int err = check(comm, fn);

	if (err)
		return err;
	if (!flag || !request)
		return lm_error(comm, fn, MPI_ERR_ARG, "flag or request is NULL");
	ia = calloc(1, sizeof(*ia));
	if (!ia)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	ia->flag = flag;
	ia->comm = comm;
	err = PMPI_Grequest_start(iagree_query, iagree_free, iagree_cancel, ia,
				  &ia->req);
	if (err) {
		free(ia);
		return lm_error(comm, fn, err, "no request");
	}
	err = lm_ulfm_agree_start(&ia->ag, comm, (uint32_t)*flag);
	if (err) {
		ia->err = err;
		PMPI_Grequest_complete(ia->req);
		PMPI_Request_free(&ia->req);	/* frees ia */
		return lm_error(comm, fn, err, "cannot agree");
	}
	ia->ag.done = iagree_done;
	*request = ia->req;
	return MPI_SUCCESS;
}

/*
 * After a shrink's first agreement: the temporary communicator of the
 * survivors (its members that took part, in its order; an
 * intercommunicator's by world rank, as its uc) on the reserved context
 * MPI_Comm_create_from_group uses, over which they agree on the new
 * one's id (*tmp), and the new one, not yet agreed (*nc): of the
 * survivors in order, or the intercommunicator between each group's
 * survivors, in their order; none when a group has no survivor left
 * (*empty), or no memory.  MPI_ERR_NO_MEM when *tmp is not made.
 */
static int shrink_parts(struct libmsg_comm *c, const struct lm_ft_agreement *ag,
			struct libmsg_comm **tmp, struct libmsg_comm **nc,
			int *empty)
{
	const struct libmsg_comm *m = ag->comm;
	int r, n = 0, ln = 0, rn = 0, *w, *lw, *rw;

	*tmp = *nc = NULL;
	*empty = 0;
	w = malloc(2 * (size_t)m->size * sizeof(int));
	if (!w)
		return MPI_ERR_NO_MEM;
	for (r = 0; r < m->size; r++)
		if (ag->in[r] == LM_FT_IN)
			w[n++] = lm_comm_world(m, r);
	if (!c->inter) {
		*nc = lm_comm_new(MPI_COMM_WORLD, n, w, LM_CTX_NONE);
	} else {
		lw = w + n;
		for (r = 0; r < c->size; r++)
			if (ag->in[lm_comm_local(m, c->lworld[r])] == LM_FT_IN)
				lw[ln++] = c->lworld[r];
		rw = lw + ln;
		for (r = 0; r < c->rsize; r++)
			if (ag->in[lm_comm_local(m, c->world[r])] == LM_FT_IN)
				rw[rn++] = c->world[r];
		*empty = !ln || !rn;
		if (!*empty)
			*nc = lm_comm_inter_new(c, ln, lw, rn, rw);
	}
	*tmp = lm_comm_new(MPI_COMM_WORLD, n, w, LM_CTX_SESSION);
	free(w);
	if (*tmp)
		return MPI_SUCCESS;
	if (*nc)
		lm_comm_discard(*nc);
	*nc = NULL;
	return MPI_ERR_NO_MEM;
}

static void shrink_tag(struct libmsg_comm *c, char *tag, size_t len)
{
	snprintf(tag, len, "libmsg:shrink:%u:%u", c->ctx, c->ft_shrinks++);
}

static int shrink(MPI_Comm comm, const char *fn, MPI_Comm *newcomm)
{
	struct lm_ft_agreement ag;
	struct libmsg_comm *tmp, *nc;
	char tag[64], why[160];
	int err, made, empty;

	for (;;) {
		err = agree_wait(comm, fn, &ag, 1);
		if (err)
			return lm_error(comm, fn, err, "cannot agree");
		err = shrink_parts(comm, &ag, &tmp, &nc, &empty);
		lm_ulfm_agree_end(&ag);
		if (err)
			return lm_error(comm, fn, err, "out of memory");
		shrink_tag(comm, tag, sizeof(tag));
		made = !lm_ctx_agree(tmp, lm_comm_string_tag(tag), nc, why,
				     sizeof(why));
		lm_comm_discard(tmp);
		if (!made)
			nc = NULL;	/* given up by the agreement (ctxid.c) */
		made = made && (nc || empty);
		/* Did every survivor make it?  Else again, without the dead. */
		err = agree_wait(comm, fn, &ag, (uint32_t)made);
		if (err)
			return lm_error(comm, fn, err, "cannot agree");
		made = (int)ag.value;
		lm_ulfm_agree_end(&ag);
		if (made)
			break;
		LM_COUNT(ulfm_shrink_retries, 1);
		if (nc)
			PMPI_Comm_free(&nc);
	}
	if (nc)
		PMPI_Comm_set_errhandler(nc, comm->errh);
	*newcomm = nc ? nc : MPI_COMM_NULL;
	return MPI_SUCCESS;
}

int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_shrink";
	int err = check(comm, fn);

	if (err)
		return err;
	if (!newcomm)
		return lm_error(comm, fn, MPI_ERR_ARG, "newcomm is NULL");
	return shrink(comm, fn, newcomm);
}

/*
 * MPIX_Comm_ishrink: the shrink's three steps chained by progress, so
 * that the call returns at once and a caller overlaps them.  The first
 * agreement's completion (p2p/ulfm.c, inside progress) starts the
 * context id agreement among the survivors (nonblocking, as
 * MPI_Comm_idup's, over a temporary communicator of them on the
 * reserved context MPI_Comm_create_from_group uses, with the tag
 * shrink's string gives), which progress polls (lm_ulfm_watch); its end
 * starts the second agreement, whose completion completes the request,
 * or, when a survivor did not make the communicator, starts again.
 */
struct ishrink {
	struct lm_ft_agreement ag;	/* the step under way */
	struct libmsg_comm *comm;
	MPI_Comm *newcomm;
	MPI_Request req;
	struct libmsg_request creq;	/* the context id agreement */
	struct libmsg_comm *tmp, *nc;
	int empty;	/* an intercommunicator's group has no survivor */
	int err;
};

static void is_agreed(struct lm_ft_agreement *ag);

static void is_finish(struct ishrink *is, int err)
{
	is->err = err;
	if (!err) {
		if (is->nc)
			lm_errh_set(&is->nc->errh, is->comm->errh);
		*is->newcomm = is->nc ? is->nc : MPI_COMM_NULL;
	}
	PMPI_Grequest_complete(is->req);
}

static void is_start(struct ishrink *is)
{
	int err = lm_ulfm_agree_start(&is->ag, is->comm, 1);

	if (err) {
		is_finish(is, err);
		return;
	}
	is->ag.done = is_agreed;
}

/* The second agreement: did every survivor make it? */
static void is_made(struct lm_ft_agreement *ag)
{
	struct ishrink *is = caa_container_of(ag, struct ishrink, ag);
	int made = (int)ag->value;

	lm_ulfm_agree_end(ag);
	if (made) {
		is_finish(is, MPI_SUCCESS);
		return;
	}
	LM_COUNT(ulfm_shrink_retries, 1);
	if (is->nc)
		PMPI_Comm_free(&is->nc);
	is_start(is);
}

/* The context id agreement ended: the second agreement. */
static int is_created(struct lm_ft_agreement *ag)
{
	struct ishrink *is = caa_container_of(ag, struct ishrink, ag);
	int err, made;

	if (!is->creq.done)
		return 0;
	lm_ulfm_agree_end(ag);
	lm_comm_discard(is->tmp);
	is->tmp = NULL;
	if (is->creq.status.MPI_ERROR)
		is->nc = NULL;	/* given up by the agreement (ctxid.c) */
	made = !is->creq.status.MPI_ERROR && (is->nc || is->empty);
	err = lm_ulfm_agree_start(&is->ag, is->comm, (uint32_t)made);
	if (err) {
		if (is->nc)
			PMPI_Comm_free(&is->nc);
		is_finish(is, err);
		return 1;
	}
	is->ag.done = is_made;
	return 1;
}

/* The first agreement: who is left; their communicator's context id. */
static void is_agreed(struct lm_ft_agreement *ag)
{
	struct ishrink *is = caa_container_of(ag, struct ishrink, ag);
	char tag[64];
	int err;

	err = shrink_parts(is->comm, ag, &is->tmp, &is->nc, &is->empty);
	lm_ulfm_agree_end(ag);
	if (err) {
		is_finish(is, err);
		return;
	}
	shrink_tag(is->comm, tag, sizeof(tag));
	lm_req_init(&is->creq, LM_REQ_COLL);
	err = lm_ctx_agree_start(is->tmp, lm_comm_string_tag(tag), is->nc,
				 &is->nc, &is->creq);
	if (err) {
		lm_comm_discard(is->tmp);
		is->tmp = NULL;
		is->nc = NULL;	/* discarded by lm_ctx_agree_start */
		is_finish(is, err);
		return;
	}
	memset(&is->ag, 0, sizeof(is->ag));
	is->ag.poll = is_created;
	lm_ulfm_watch(&is->ag);
}

static int ishrink_query(void *extra, MPI_Status *st)
{
	PMPI_Status_set_elements(st, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return ((struct ishrink *)extra)->err;
}

static int ishrink_free(void *extra)
{
	free(extra);
	return MPI_SUCCESS;
}

int PMPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_ishrink";
	struct ishrink *is;
	int err = check(comm, fn);

	if (err)
		return err;
	if (!newcomm || !request)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"newcomm or request is NULL");
	is = calloc(1, sizeof(*is));
	if (!is)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	is->comm = comm;
	is->newcomm = newcomm;
	*newcomm = MPI_COMM_NULL;
	err = PMPI_Grequest_start(ishrink_query, ishrink_free, iagree_cancel,
				  is, &is->req);
	if (err) {
		free(is);
		return lm_error(comm, fn, err, "no request");
	}
	*request = is->req;
	is_start(is);
	return MPI_SUCCESS;
}

int PMPIX_Comm_failure_ack(MPI_Comm comm)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_failure_ack";
	int err = check(comm, fn);

	if (err)
		return err;
	if (refresh(comm))
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	comm->ft_nacked = comm->ft_nfailed;
	return MPI_SUCCESS;
}

static int failed_group(MPI_Comm comm, const char *fn, int n,
			MPI_Group *failedgrp)
{
	if (!failedgrp)
		return lm_error(comm, fn, MPI_ERR_ARG, "failedgrp is NULL");
	*failedgrp = lm_group_new(n, comm->ft_failed);
	if (!*failedgrp)
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	return MPI_SUCCESS;
}

int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_failure_get_acked";
	int err = check(comm, fn);

	if (err)
		return err;
	return failed_group(comm, fn, comm->ft_nacked, failedgrp);
}

int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_get_failed";
	int err = check(comm, fn);

	if (err)
		return err;
	if (refresh(comm))
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	return failed_group(comm, fn, comm->ft_nfailed, failedgrp);
}

int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked)
{
	LM_GUARD();
	static const char fn[] = "MPIX_Comm_ack_failed";
	int err = check(comm, fn);

	if (err)
		return err;
	if (num_to_ack < 0 || !num_acked)
		return lm_error(comm, fn, MPI_ERR_ARG,
				"num_to_ack is negative or num_acked is NULL");
	if (refresh(comm))
		return lm_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
	if (num_to_ack > comm->ft_nacked)
		comm->ft_nacked = num_to_ack < comm->ft_nfailed ? num_to_ack :
			comm->ft_nfailed;
	*num_acked = comm->ft_nacked;
	return MPI_SUCCESS;
}
