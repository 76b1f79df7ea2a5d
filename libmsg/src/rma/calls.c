// SPDX-License-Identifier: MIT
/*
 * The one-sided communication calls: MPI_Put, Get, Accumulate,
 * Get_accumulate, Fetch_and_op, Compare_and_swap, Rput, Rget,
 * Raccumulate, Rget_accumulate, and the large-count (_c) forms of
 * MPI-4.0 of those with counts: their arguments gathered for lm_rma_op
 * (ops.c), which counts in 64 bits all the way, so an int call and its
 * _c twin differ in their argument types and names only.
 */

#include "rma/ops.h"

/* Put or Get (kind); req: request-based, the request into *r. */
static int put_get(const char *fn, int kind, const void *obuf, MPI_Count oc,
		   MPI_Datatype ot, int t, MPI_Aint disp, MPI_Count tc,
		   MPI_Datatype tt, MPI_Win win, int req, MPI_Request *r)
{
	struct rma_args a = {
		.kind = kind, .obuf = obuf, .ocount = oc, .otype = ot,
		.t = t, .disp = disp, .tcount = tc, .ttype = tt,
	};

	return req ? lm_rma_op_req(win, fn, &a, r) : lm_rma_op(win, fn, &a);
}

/* Accumulate (rbuf NULL, rc 0) or Get_accumulate. */
static int acc(const char *fn, const void *obuf, MPI_Count oc,
	       MPI_Datatype ot, void *rbuf, MPI_Count rc, MPI_Datatype rt,
	       int t, MPI_Aint disp, MPI_Count tc, MPI_Datatype tt, MPI_Op op,
	       MPI_Win win, int gacc, int req, MPI_Request *r)
{
	struct rma_args a = {
		.kind = gacc ? OP_GACC : OP_ACC, .obuf = obuf, .ocount = oc,
		.otype = ot, .rbuf = rbuf, .rcount = rc, .rtype = rt, .t = t,
		.disp = disp, .tcount = tc, .ttype = tt, .op = op,
	};

	/* MPI_NO_OP changes nothing: only its checks remain. */
	return req ? lm_rma_op_req(win, fn, &a, r) : lm_rma_op(win, fn, &a);
}

int MPI_Put(const void *origin_addr, int origin_count,
	    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
	    int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	LM_GUARD();
	return put_get("MPI_Put", OP_PUT, origin_addr, origin_count,
		       origin_datatype, target_rank, target_disp, target_count,
		       target_datatype, win, 0, NULL);
}

int MPI_Put_c(const void *origin_addr, MPI_Count origin_count,
	      MPI_Datatype origin_datatype, int target_rank,
	      MPI_Aint target_disp, MPI_Count target_count,
	      MPI_Datatype target_datatype, MPI_Win win)
{
	LM_GUARD();
	return put_get("MPI_Put_c", OP_PUT, origin_addr, origin_count,
		       origin_datatype, target_rank, target_disp, target_count,
		       target_datatype, win, 0, NULL);
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	    int target_rank, MPI_Aint target_disp, int target_count,
	    MPI_Datatype target_datatype, MPI_Win win)
{
	LM_GUARD();
	return put_get("MPI_Get", OP_GET, origin_addr, origin_count,
		       origin_datatype, target_rank, target_disp, target_count,
		       target_datatype, win, 0, NULL);
}

int MPI_Get_c(void *origin_addr, MPI_Count origin_count,
	      MPI_Datatype origin_datatype, int target_rank,
	      MPI_Aint target_disp, MPI_Count target_count,
	      MPI_Datatype target_datatype, MPI_Win win)
{
	LM_GUARD();
	return put_get("MPI_Get_c", OP_GET, origin_addr, origin_count,
		       origin_datatype, target_rank, target_disp, target_count,
		       target_datatype, win, 0, NULL);
}

int MPI_Accumulate(const void *origin_addr, int origin_count,
		   MPI_Datatype origin_datatype, int target_rank,
		   MPI_Aint target_disp, int target_count,
		   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	return acc("MPI_Accumulate", origin_addr, origin_count,
		   origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
		   target_disp, target_count, target_datatype, op, win, 0, 0,
		   NULL);
}

int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
		     MPI_Datatype origin_datatype, int target_rank,
		     MPI_Aint target_disp, MPI_Count target_count,
		     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	return acc("MPI_Accumulate_c", origin_addr, origin_count,
		   origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
		   target_disp, target_count, target_datatype, op, win, 0, 0,
		   NULL);
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count,
		       MPI_Datatype origin_datatype, void *result_addr,
		       int result_count, MPI_Datatype result_datatype,
		       int target_rank, MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	return acc("MPI_Get_accumulate", origin_addr, origin_count,
		   origin_datatype, result_addr, result_count, result_datatype,
		   target_rank, target_disp, target_count, target_datatype, op,
		   win, 1, 0, NULL);
}

int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
			 MPI_Datatype origin_datatype, void *result_addr,
			 MPI_Count result_count, MPI_Datatype result_datatype,
			 int target_rank, MPI_Aint target_disp,
			 MPI_Count target_count, MPI_Datatype target_datatype,
			 MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	return acc("MPI_Get_accumulate_c", origin_addr, origin_count,
		   origin_datatype, result_addr, result_count, result_datatype,
		   target_rank, target_disp, target_count, target_datatype, op,
		   win, 1, 0, NULL);
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr,
		     MPI_Datatype datatype, int target_rank,
		     MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Fetch_and_op";

	if (!lm_check_win(win, fn) && lm_datatype_valid(datatype) &&
	    !datatype->predefined)
		return lm_werr(win, fn, MPI_ERR_TYPE,
			       "MPI_Fetch_and_op takes a predefined datatype, not a derived one");
	return acc(fn, origin_addr, 1, datatype, result_addr, 1, datatype,
		   target_rank, target_disp, 1, datatype, op, win, 1, 0, NULL);
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
			 void *result_addr, MPI_Datatype datatype,
			 int target_rank, MPI_Aint target_disp, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_CAS, .obuf = origin_addr, .cbuf = compare_addr,
		.rbuf = result_addr, .rtype = datatype, .t = target_rank,
		.disp = target_disp,
	};

	return lm_rma_op(win, "MPI_Compare_and_swap", &a);
}

int MPI_Rput(const void *origin_addr, int origin_count,
	     MPI_Datatype origin_datatype, int target_rank,
	     MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	return put_get("MPI_Rput", OP_PUT, origin_addr, origin_count,
		       origin_datatype, target_rank, target_disp, target_count,
		       target_datatype, win, 1, request);
}

int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count,
	       MPI_Datatype origin_datatype, int target_rank,
	       MPI_Aint target_disp, MPI_Count target_count,
	       MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	return put_get("MPI_Rput_c", OP_PUT, origin_addr, origin_count,
		       origin_datatype, target_rank, target_disp, target_count,
		       target_datatype, win, 1, request);
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	     int target_rank, MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	return put_get("MPI_Rget", OP_GET, origin_addr, origin_count,
		       origin_datatype, target_rank, target_disp, target_count,
		       target_datatype, win, 1, request);
}

int MPI_Rget_c(void *origin_addr, MPI_Count origin_count,
	       MPI_Datatype origin_datatype, int target_rank,
	       MPI_Aint target_disp, MPI_Count target_count,
	       MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	return put_get("MPI_Rget_c", OP_GET, origin_addr, origin_count,
		       origin_datatype, target_rank, target_disp, target_count,
		       target_datatype, win, 1, request);
}

int MPI_Raccumulate(const void *origin_addr, int origin_count,
		    MPI_Datatype origin_datatype, int target_rank,
		    MPI_Aint target_disp, int target_count,
		    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
		    MPI_Request *request)
{
	LM_GUARD();
	return acc("MPI_Raccumulate", origin_addr, origin_count,
		   origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
		   target_disp, target_count, target_datatype, op, win, 0, 1,
		   request);
}

int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
		      MPI_Datatype origin_datatype, int target_rank,
		      MPI_Aint target_disp, MPI_Count target_count,
		      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
		      MPI_Request *request)
{
	LM_GUARD();
	return acc("MPI_Raccumulate_c", origin_addr, origin_count,
		   origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
		   target_disp, target_count, target_datatype, op, win, 0, 1,
		   request);
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, void *result_addr,
			int result_count, MPI_Datatype result_datatype,
			int target_rank, MPI_Aint target_disp,
			int target_count, MPI_Datatype target_datatype,
			MPI_Op op, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	return acc("MPI_Rget_accumulate", origin_addr, origin_count,
		   origin_datatype, result_addr, result_count, result_datatype,
		   target_rank, target_disp, target_count, target_datatype, op,
		   win, 1, 1, request);
}

int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
			  MPI_Datatype origin_datatype, void *result_addr,
			  MPI_Count result_count,
			  MPI_Datatype result_datatype, int target_rank,
			  MPI_Aint target_disp, MPI_Count target_count,
			  MPI_Datatype target_datatype, MPI_Op op,
			  MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	return acc("MPI_Rget_accumulate_c", origin_addr, origin_count,
		   origin_datatype, result_addr, result_count, result_datatype,
		   target_rank, target_disp, target_count, target_datatype, op,
		   win, 1, 1, request);
}
