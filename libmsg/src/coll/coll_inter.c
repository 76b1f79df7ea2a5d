// SPDX-License-Identifier: MIT
/*
 * Collectives on intercommunicators (MPI-3.1 5.2.2), data movement:
 * Barrier, Bcast, Gather(v), Scatter(v), Allgather(v), Alltoall(v, w).
 * Reductions: coll_inter_red.c.
 *
 * Built as MPICH builds them, from the intercommunicator's parts
 * (comm/intercomm.c): a collective of the local group on lc, and
 * messages between the groups on xc (the intercommunicator's
 * collective context, so never the program's).  Rooted ones: root is
 * MPI_ROOT at the root, MPI_PROC_NULL at the rest of its group, and
 * the root's rank in the other group there.  Blocking only: the
 * nonblocking and persistent forms are coll_inter_nb*.c's.
 *
 * Cost, with l local and r remote processes, a the latency of one
 * message and L(n) the local collective's cost on n processes:
 *   Barrier     L(l) barrier + one leader exchange + L(l) barrier
 *   Bcast       one message root -> remote rank 0 + L(r) bcast
 *   Gather      L(r) gather to rank 0 + one message of all of it
 *   Scatter     one message of all of it + L(r) scatter
 *   Allgather   L gather + a leader exchange + L bcast, each side
 *   Gatherv, Scatterv: r messages at the root (linear, as MPICH)
 *   Allgatherv, Alltoall(v, w): each process r sends and r receives,
 *               all posted at once (linear, as MPICH's pairwise)
 * The v forms and the all-to-all ones move each block once, where it
 * belongs; the others add one copy (the leader's temporary buffer).
 */

#include <stdlib.h>
#include <string.h>

#include "coll/coll_inter.h"

/* Messages between the groups, on xc: one tag, in call order. */
#define TAG	2

int lm_inter_fail(MPI_Comm ic, const char *fn, int err)
{
	if (!err)
		return MPI_SUCCESS;
	return lm_error(ic, fn, err, "%s",
			err == MPI_ERR_TRUNCATE ?
			"message sizes differ between the groups" :
			err == MPI_ERR_PROC_FAILED ?
			"a process of the intercommunicator died" :
			"failed");
}

int lm_inter_root(MPI_Comm ic, const char *fn, int root)
{
	if (root == MPI_ROOT || root == MPI_PROC_NULL ||
	    (root >= 0 && root < ic->rsize))
		return MPI_SUCCESS;
	return lm_error(ic, fn, MPI_ERR_ROOT,
			"root %d is not MPI_ROOT, MPI_PROC_NULL or one of the %d remote ranks",
			root, ic->rsize);
}

int lm_inter_no_in_place(MPI_Comm ic, const char *fn, const void *buf)
{
	if (buf == MPI_IN_PLACE)
		return lm_error(ic, fn, MPI_ERR_BUFFER,
				"MPI_IN_PLACE on an intercommunicator");
	return MPI_SUCCESS;
}

/* The first error of two, the second step having run anyway. */
static int first(int a, int b)
{
	return a ? a : b;
}

int lm_inter_barrier(const char *fn, MPI_Comm ic)
{
	int err = MPI_Barrier(ic->lc);

	/* Everyone of each group arrived: the leaders tell each other. */
	if (!err && ic->rank == 0)
		err = MPI_Sendrecv(NULL, 0, MPI_BYTE, 0, TAG, NULL, 0,
				   MPI_BYTE, 0, TAG, ic->xc,
				   MPI_STATUS_IGNORE);
	return lm_inter_fail(ic, fn, first(err, MPI_Barrier(ic->lc)));
}

int lm_inter_bcast(const char *fn, void *buf, int count, MPI_Datatype dt,
		   int root, MPI_Comm ic)
{
	int err = lm_inter_root(ic, fn, root);

	if (err || root == MPI_PROC_NULL)
		return err;
	if (root == MPI_ROOT)
		return lm_inter_fail(ic, fn, MPI_Send(buf, count, dt, 0, TAG,
						      ic->xc));
	if (ic->rank == 0)
		err = MPI_Recv(buf, count, dt, root, TAG, ic->xc,
			       MPI_STATUS_IGNORE);
	return lm_inter_fail(ic, fn, first(err, MPI_Bcast(buf, count, dt, 0,
							  ic->lc)));
}

/* The leader's temporary of n bytes (others: none); 0 or MPI_ERR_NO_MEM. */
static int leader_tmp(MPI_Comm ic, uint64_t n, void **tmp)
{
	*tmp = NULL;
	if (ic->rank != 0)
		return MPI_SUCCESS;
	*tmp = malloc(n ? n : 1);
	return *tmp ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int lm_inter_gather(const char *fn, const void *sbuf, int scount,
		    MPI_Datatype stype, void *rbuf, int rcount,
		    MPI_Datatype rtype, int root, MPI_Comm ic)
{
	int err = lm_inter_root(ic, fn, root), sb;
	void *tmp;

	if (err || root == MPI_PROC_NULL)
		return err;
	if (root == MPI_ROOT)
		return lm_inter_fail(ic, fn, MPI_Recv(rbuf, rcount * ic->rsize,
						      rtype, 0, TAG, ic->xc,
						      MPI_STATUS_IGNORE));
	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	TRY(lm_coll_check_data(fn, ic, sbuf, scount, stype, "send"));
	sb = scount * (int)stype->size;
	err = leader_tmp(ic, (uint64_t)sb * (uint64_t)ic->size, &tmp);
	/* The group's blocks, packed, to its leader, then to the root. */
	err = first(err, MPI_Gather(sbuf, scount, stype, tmp, sb, MPI_BYTE, 0,
				    ic->lc));
	if (!err && ic->rank == 0)
		err = MPI_Send(tmp, sb * ic->size, MPI_BYTE, root, TAG, ic->xc);
	free(tmp);
	return lm_inter_fail(ic, fn, err);
}

int lm_inter_scatter(const char *fn, const void *sbuf, int scount,
		     MPI_Datatype stype, void *rbuf, int rcount,
		     MPI_Datatype rtype, int root, MPI_Comm ic)
{
	int err = lm_inter_root(ic, fn, root), rb;
	void *tmp;

	if (err || root == MPI_PROC_NULL)
		return err;
	if (root == MPI_ROOT)
		return lm_inter_fail(ic, fn, MPI_Send(sbuf, scount * ic->rsize,
						      stype, 0, TAG, ic->xc));
	TRY(lm_inter_no_in_place(ic, fn, rbuf));
	TRY(lm_coll_check_data(fn, ic, rbuf, rcount, rtype, "receive"));
	rb = rcount * (int)rtype->size;
	err = leader_tmp(ic, (uint64_t)rb * (uint64_t)ic->size, &tmp);
	if (!err && ic->rank == 0)
		err = MPI_Recv(tmp, rb * ic->size, MPI_BYTE, root, TAG, ic->xc,
			       MPI_STATUS_IGNORE);
	err = first(err, MPI_Scatter(tmp, rb, MPI_BYTE, rbuf, rcount, rtype, 0,
				     ic->lc));
	free(tmp);
	return lm_inter_fail(ic, fn, err);
}

/* Wait for n requests of reqs (freed); the first error. */
static int wait_all(int n, MPI_Request *reqs, int err)
{
	int e = n ? MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;

	free(reqs);
	return first(err, e);
}

static MPI_Request *reqs_new(int n)
{
	return malloc(((size_t)n + 1) * sizeof(MPI_Request));
}

int lm_inter_gatherv(const char *fn, const void *sbuf, int scount,
		     MPI_Datatype stype, void *rbuf, const int rcounts[],
		     const int displs[], MPI_Datatype rtype, int root,
		     MPI_Comm ic)
{
	int err = lm_inter_root(ic, fn, root), i, n = 0;
	MPI_Request *reqs;

	if (err || root == MPI_PROC_NULL)
		return err;
	if (root != MPI_ROOT) {
		TRY(lm_inter_no_in_place(ic, fn, sbuf));
		return lm_inter_fail(ic, fn, MPI_Send(sbuf, scount, stype,
						      root, TAG, ic->xc));
	}
	if (!rcounts || !displs)
		return lm_error(ic, fn, MPI_ERR_ARG,
				"recvcounts or displs is NULL at the root");
	reqs = reqs_new(ic->rsize);
	if (!reqs)
		return lm_error(ic, fn, MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < ic->rsize && !err; i++, n++)
		err = MPI_Irecv((char *)rbuf + (int64_t)displs[i] * rtype->extent,
				rcounts[i], rtype, i, TAG, ic->xc, &reqs[n]);
	return lm_inter_fail(ic, fn, wait_all(n - !!err, reqs, err));
}

int lm_inter_scatterv(const char *fn, const void *sbuf, const int scounts[],
		      const int displs[], MPI_Datatype stype, void *rbuf,
		      int rcount, MPI_Datatype rtype, int root, MPI_Comm ic)
{
	int err = lm_inter_root(ic, fn, root), i, n = 0;
	MPI_Request *reqs;

	if (err || root == MPI_PROC_NULL)
		return err;
	if (root != MPI_ROOT) {
		TRY(lm_inter_no_in_place(ic, fn, rbuf));
		return lm_inter_fail(ic, fn, MPI_Recv(rbuf, rcount, rtype,
						      root, TAG, ic->xc,
						      MPI_STATUS_IGNORE));
	}
	if (!scounts || !displs)
		return lm_error(ic, fn, MPI_ERR_ARG,
				"sendcounts or displs is NULL at the root");
	reqs = reqs_new(ic->rsize);
	if (!reqs)
		return lm_error(ic, fn, MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < ic->rsize && !err; i++, n++)
		err = MPI_Isend((const char *)sbuf +
				(int64_t)displs[i] * stype->extent,
				scounts[i], stype, i, TAG, ic->xc, &reqs[n]);
	return lm_inter_fail(ic, fn, wait_all(n - !!err, reqs, err));
}

int lm_inter_allgather(const char *fn, const void *sbuf, int scount,
		       MPI_Datatype stype, void *rbuf, int rcount,
		       MPI_Datatype rtype, MPI_Comm ic)
{
	int err, sb;
	void *tmp;

	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	TRY(lm_coll_check_data(fn, ic, sbuf, scount, stype, "send"));
	TRY(lm_coll_check_data(fn, ic, rbuf, rcount, rtype, "receive"));
	sb = scount * (int)stype->size;
	err = leader_tmp(ic, (uint64_t)sb * (uint64_t)ic->size, &tmp);
	err = first(err, MPI_Gather(sbuf, scount, stype, tmp, sb, MPI_BYTE, 0,
				    ic->lc));
	if (!err && ic->rank == 0)
		err = MPI_Sendrecv(tmp, sb * ic->size, MPI_BYTE, 0, TAG, rbuf,
				   rcount * ic->rsize, rtype, 0, TAG, ic->xc,
				   MPI_STATUS_IGNORE);
	free(tmp);
	err = first(err, MPI_Bcast(rbuf, rcount * ic->rsize, rtype, 0, ic->lc));
	return lm_inter_fail(ic, fn, err);
}

/*
 * Every process sends to and receives from every remote one: block i
 * of sbuf (scounts[i] of stypes[i] at sdispls[i]) to remote i, and
 * from it into rbuf's block i.  Displacements are bytes when bytes.
 */
static int exchange(MPI_Comm ic, const void *sbuf, const int scounts[],
		    const int sdispls[], const MPI_Datatype stypes[],
		    void *rbuf, const int rcounts[], const int rdispls[],
		    const MPI_Datatype rtypes[], int bytes)
{
	MPI_Request *reqs = reqs_new(2 * ic->rsize);
	int i, n = 0, err = MPI_SUCCESS;
	int64_t so, ro;

	if (!reqs)
		return MPI_ERR_NO_MEM;
	for (i = 0; i < ic->rsize && !err; i++) {
		ro = bytes ? rdispls[i] : (int64_t)rdispls[i] * rtypes[i]->extent;
		err = MPI_Irecv((char *)rbuf + ro, rcounts[i], rtypes[i], i,
				TAG, ic->xc, &reqs[n]);
		n += !err;
	}
	for (i = 0; i < ic->rsize && !err; i++) {
		so = bytes ? sdispls[i] : (int64_t)sdispls[i] * stypes[i]->extent;
		err = MPI_Isend((const char *)sbuf + so, scounts[i], stypes[i],
				i, TAG, ic->xc, &reqs[n]);
		n += !err;
	}
	return wait_all(n, reqs, err);
}

/* Arrays for exchange(): the same count, type and spacing for all. */
static int uniform(MPI_Comm ic, int count, MPI_Datatype dt, int spaced,
		   int **counts, int **displs, MPI_Datatype **types)
{
	int i;

	*counts = malloc(2 * (size_t)ic->rsize * sizeof(int) + 1);
	*types = malloc((size_t)ic->rsize * sizeof(MPI_Datatype) + 1);
	if (!*counts || !*types) {
		free(*counts);
		free(*types);
		return MPI_ERR_NO_MEM;
	}
	*displs = *counts + ic->rsize;
	for (i = 0; i < ic->rsize; i++) {
		(*counts)[i] = count;
		(*displs)[i] = spaced ? i * count : 0;
		(*types)[i] = dt;
	}
	return MPI_SUCCESS;
}

int lm_inter_allgatherv(const char *fn, const void *sbuf, int scount,
			MPI_Datatype stype, void *rbuf, const int rcounts[],
			const int displs[], MPI_Datatype rtype, MPI_Comm ic)
{
	int *sc, *sd, *rc, *rd, err;
	MPI_Datatype *st, *rt;

	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	if (!rcounts || !displs)
		return lm_error(ic, fn, MPI_ERR_ARG,
				"recvcounts or displs is NULL");
	err = uniform(ic, scount, stype, 0, &sc, &sd, &st);
	if (!err && uniform(ic, 0, rtype, 0, &rc, &rd, &rt)) {
		free(sc);
		free(st);
		err = MPI_ERR_NO_MEM;
	}
	if (err)
		return lm_error(ic, fn, err, "out of memory");
	err = exchange(ic, sbuf, sc, sd, st, rbuf, rcounts, displs, rt, 0);
	free(sc);
	free(st);
	free(rc);
	free(rt);
	return lm_inter_fail(ic, fn, err);
}

int lm_inter_alltoallvw(const char *fn, const void *sbuf,
			const int scounts[], const int sdispls[],
			const MPI_Datatype *stypes, MPI_Datatype stype,
			void *rbuf, const int rcounts[], const int rdispls[],
			const MPI_Datatype *rtypes, MPI_Datatype rtype,
			MPI_Comm ic, int w)
{
	MPI_Datatype *st = NULL, *rt = NULL;
	int *c1 = NULL, *d1, *c2 = NULL, *d2, err;

	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	if (!scounts || !sdispls || !rcounts || !rdispls ||
	    (w && (!stypes || !rtypes)))
		return lm_error(ic, fn, MPI_ERR_ARG,
				"a count, displacement or type array is NULL");
	if (!w) {
		err = uniform(ic, 0, stype, 0, &c1, &d1, &st);
		if (!err && uniform(ic, 0, rtype, 0, &c2, &d2, &rt))
			err = MPI_ERR_NO_MEM;
		if (err) {
			free(c1);
			free(st);
			return lm_error(ic, fn, err, "out of memory");
		}
		stypes = st;
		rtypes = rt;
	}
	err = exchange(ic, sbuf, scounts, sdispls, stypes, rbuf, rcounts,
		       rdispls, rtypes, w);
	free(c1);
	free(c2);
	free(st);
	free(rt);
	return lm_inter_fail(ic, fn, err);
}

int lm_inter_alltoall(const char *fn, const void *sbuf, int scount,
		      MPI_Datatype stype, void *rbuf, int rcount,
		      MPI_Datatype rtype, MPI_Comm ic)
{
	int *sc, *sd, *rc, *rd, err;
	MPI_Datatype *st, *rt;

	TRY(lm_inter_no_in_place(ic, fn, sbuf));
	err = uniform(ic, scount, stype, 1, &sc, &sd, &st);
	if (!err && uniform(ic, rcount, rtype, 1, &rc, &rd, &rt)) {
		free(sc);
		free(st);
		err = MPI_ERR_NO_MEM;
	}
	if (err)
		return lm_error(ic, fn, err, "out of memory");
	err = exchange(ic, sbuf, sc, sd, st, rbuf, rc, rd, rt, 0);
	free(sc);
	free(st);
	free(rc);
	free(rt);
	return lm_inter_fail(ic, fn, err);
}
