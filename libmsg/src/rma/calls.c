// SPDX-License-Identifier: MIT
/*
 * The one-sided communication calls: MPI_Put, Get, Accumulate,
 * Get_accumulate, Fetch_and_op, Compare_and_swap, and Rput, Rget,
 * Raccumulate, Rget_accumulate: their arguments gathered for
 * lm_rma_op (ops.c).
 */

#include "rma/ops.h"

int MPI_Put(const void *origin_addr, int origin_count,
	    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
	    int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_PUT, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype,
	};

	return lm_rma_op(win, "MPI_Put", &a);
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	    int target_rank, MPI_Aint target_disp, int target_count,
	    MPI_Datatype target_datatype, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_GET, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype,
	};

	return lm_rma_op(win, "MPI_Get", &a);
}

int MPI_Accumulate(const void *origin_addr, int origin_count,
		   MPI_Datatype origin_datatype, int target_rank,
		   MPI_Aint target_disp, int target_count,
		   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_ACC, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype, .op = op,
	};

	/* MPI_NO_OP changes nothing: only its checks remain. */
	return lm_rma_op(win, "MPI_Accumulate", &a);
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count,
		       MPI_Datatype origin_datatype, void *result_addr,
		       int result_count, MPI_Datatype result_datatype,
		       int target_rank, MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_GACC, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .rbuf = result_addr,
		.rcount = result_count, .rtype = result_datatype,
		.t = target_rank, .disp = target_disp,
		.tcount = target_count, .ttype = target_datatype, .op = op,
	};

	return lm_rma_op(win, "MPI_Get_accumulate", &a);
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr,
		     MPI_Datatype datatype, int target_rank,
		     MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	LM_GUARD();
	static const char fn[] = "MPI_Fetch_and_op";
	struct rma_args a = {
		.kind = OP_GACC, .obuf = origin_addr, .ocount = 1,
		.otype = datatype, .rbuf = result_addr, .rcount = 1,
		.rtype = datatype, .t = target_rank, .disp = target_disp,
		.tcount = 1, .ttype = datatype, .op = op,
	};

	if (!lm_check_win(win, fn) && lm_datatype_valid(datatype) &&
	    !datatype->predefined)
		return lm_werr(win, fn, MPI_ERR_TYPE,
			       "MPI_Fetch_and_op takes a predefined datatype, not a derived one");
	return lm_rma_op(win, fn, &a);
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
	struct rma_args a = {
		.kind = OP_PUT, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype,
	};

	return lm_rma_op_req(win, "MPI_Rput", &a, request);
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	     int target_rank, MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_GET, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype,
	};

	return lm_rma_op_req(win, "MPI_Rget", &a, request);
}

int MPI_Raccumulate(const void *origin_addr, int origin_count,
		    MPI_Datatype origin_datatype, int target_rank,
		    MPI_Aint target_disp, int target_count,
		    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
		    MPI_Request *request)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_ACC, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .t = target_rank,
		.disp = target_disp, .tcount = target_count,
		.ttype = target_datatype, .op = op,
	};

	return lm_rma_op_req(win, "MPI_Raccumulate", &a, request);
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, void *result_addr,
			int result_count, MPI_Datatype result_datatype,
			int target_rank, MPI_Aint target_disp,
			int target_count, MPI_Datatype target_datatype,
			MPI_Op op, MPI_Win win, MPI_Request *request)
{
	LM_GUARD();
	struct rma_args a = {
		.kind = OP_GACC, .obuf = origin_addr, .ocount = origin_count,
		.otype = origin_datatype, .rbuf = result_addr,
		.rcount = result_count, .rtype = result_datatype,
		.t = target_rank, .disp = target_disp,
		.tcount = target_count, .ttype = target_datatype, .op = op,
	};

	return lm_rma_op_req(win, "MPI_Rget_accumulate", &a, request);
}
