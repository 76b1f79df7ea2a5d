// SPDX-License-Identifier: MIT
/*
 * One-sided communication (MPI-3.1 chapter 11) is not supported by
 * libmsg.  The calls exist so that programs containing one-sided code
 * (benchmark suites, libraries with an RMA path) compile and link;
 * each one refuses with MPI_ERR_UNSUPPORTED_OPERATION.  Calls that
 * take a communicator raise the error on it; window calls raise it on
 * MPI_COMM_WORLD, since no window can exist.  Output handles are set to
 * their null values so that a program that ignores the error does not
 * go on with garbage.
 */

#include "p2p/p2p.h"

#define NO_RMA "one-sided communication is not supported by libmsg"

static int refuse(struct libmsg_comm *comm, const char *fn)
{
	lm_check_init(fn);
	return lm_error(comm, fn, MPI_ERR_UNSUPPORTED_OPERATION, NO_RMA);
}

static void null_win(MPI_Win *win)
{
	if (win)
		*win = MPI_WIN_NULL;
}

static void null_request(MPI_Request *request)
{
	if (request)
		*request = MPI_REQUEST_NULL;
}

/* ---- Windows -------------------------------------------------------- */

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
		   MPI_Comm comm, MPI_Win *win)
{
	(void)base; (void)size; (void)disp_unit; (void)info;
	null_win(win);
	return refuse(comm, "MPI_Win_create");
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
		     MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	(void)size; (void)disp_unit; (void)info;
	if (baseptr)
		*(void **)baseptr = NULL;
	null_win(win);
	return refuse(comm, "MPI_Win_allocate");
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
			    MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	(void)size; (void)disp_unit; (void)info;
	if (baseptr)
		*(void **)baseptr = NULL;
	null_win(win);
	return refuse(comm, "MPI_Win_allocate_shared");
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	(void)info;
	null_win(win);
	return refuse(comm, "MPI_Win_create_dynamic");
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
			 int *disp_unit, void *baseptr)
{
	(void)win; (void)rank; (void)size; (void)disp_unit;
	if (baseptr)
		*(void **)baseptr = NULL;
	return refuse(NULL, "MPI_Win_shared_query");
}

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
	(void)win; (void)base; (void)size;
	return refuse(NULL, "MPI_Win_attach");
}

int MPI_Win_detach(MPI_Win win, const void *base)
{
	(void)win; (void)base;
	return refuse(NULL, "MPI_Win_detach");
}

int MPI_Win_free(MPI_Win *win)
{
	(void)win;
	return refuse(NULL, "MPI_Win_free");
}

/* ---- Synchronisation ------------------------------------------------- */

int MPI_Win_fence(int assert, MPI_Win win)
{
	(void)assert; (void)win;
	return refuse(NULL, "MPI_Win_fence");
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	(void)group; (void)assert; (void)win;
	return refuse(NULL, "MPI_Win_start");
}

int MPI_Win_complete(MPI_Win win)
{
	(void)win;
	return refuse(NULL, "MPI_Win_complete");
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	(void)group; (void)assert; (void)win;
	return refuse(NULL, "MPI_Win_post");
}

int MPI_Win_wait(MPI_Win win)
{
	(void)win;
	return refuse(NULL, "MPI_Win_wait");
}

int MPI_Win_test(MPI_Win win, int *flag)
{
	(void)win; (void)flag;
	return refuse(NULL, "MPI_Win_test");
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	(void)lock_type; (void)rank; (void)assert; (void)win;
	return refuse(NULL, "MPI_Win_lock");
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
	(void)rank; (void)win;
	return refuse(NULL, "MPI_Win_unlock");
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
	(void)assert; (void)win;
	return refuse(NULL, "MPI_Win_lock_all");
}

int MPI_Win_unlock_all(MPI_Win win)
{
	(void)win;
	return refuse(NULL, "MPI_Win_unlock_all");
}

int MPI_Win_flush(int rank, MPI_Win win)
{
	(void)rank; (void)win;
	return refuse(NULL, "MPI_Win_flush");
}

int MPI_Win_flush_all(MPI_Win win)
{
	(void)win;
	return refuse(NULL, "MPI_Win_flush_all");
}

int MPI_Win_flush_local(int rank, MPI_Win win)
{
	(void)rank; (void)win;
	return refuse(NULL, "MPI_Win_flush_local");
}

int MPI_Win_flush_local_all(MPI_Win win)
{
	(void)win;
	return refuse(NULL, "MPI_Win_flush_local_all");
}

int MPI_Win_sync(MPI_Win win)
{
	(void)win;
	return refuse(NULL, "MPI_Win_sync");
}

/* ---- Communication ---------------------------------------------------- */

int MPI_Put(const void *origin_addr, int origin_count,
	    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
	    int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	(void)origin_addr; (void)origin_count; (void)origin_datatype;
	(void)target_rank; (void)target_disp; (void)target_count;
	(void)target_datatype; (void)win;
	return refuse(NULL, "MPI_Put");
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	    int target_rank, MPI_Aint target_disp, int target_count,
	    MPI_Datatype target_datatype, MPI_Win win)
{
	(void)origin_addr; (void)origin_count; (void)origin_datatype;
	(void)target_rank; (void)target_disp; (void)target_count;
	(void)target_datatype; (void)win;
	return refuse(NULL, "MPI_Get");
}

int MPI_Accumulate(const void *origin_addr, int origin_count,
		   MPI_Datatype origin_datatype, int target_rank,
		   MPI_Aint target_disp, int target_count,
		   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	(void)origin_addr; (void)origin_count; (void)origin_datatype;
	(void)target_rank; (void)target_disp; (void)target_count;
	(void)target_datatype; (void)op; (void)win;
	return refuse(NULL, "MPI_Accumulate");
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count,
		       MPI_Datatype origin_datatype, void *result_addr,
		       int result_count, MPI_Datatype result_datatype,
		       int target_rank, MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	(void)origin_addr; (void)origin_count; (void)origin_datatype;
	(void)result_addr; (void)result_count; (void)result_datatype;
	(void)target_rank; (void)target_disp; (void)target_count;
	(void)target_datatype; (void)op; (void)win;
	return refuse(NULL, "MPI_Get_accumulate");
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr,
		     MPI_Datatype datatype, int target_rank,
		     MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	(void)origin_addr; (void)result_addr; (void)datatype;
	(void)target_rank; (void)target_disp; (void)op; (void)win;
	return refuse(NULL, "MPI_Fetch_and_op");
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
			 void *result_addr, MPI_Datatype datatype,
			 int target_rank, MPI_Aint target_disp, MPI_Win win)
{
	(void)origin_addr; (void)compare_addr; (void)result_addr;
	(void)datatype; (void)target_rank; (void)target_disp; (void)win;
	return refuse(NULL, "MPI_Compare_and_swap");
}

int MPI_Rput(const void *origin_addr, int origin_count,
	     MPI_Datatype origin_datatype, int target_rank,
	     MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	(void)origin_addr; (void)origin_count; (void)origin_datatype;
	(void)target_rank; (void)target_disp; (void)target_count;
	(void)target_datatype; (void)win;
	null_request(request);
	return refuse(NULL, "MPI_Rput");
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	     int target_rank, MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	(void)origin_addr; (void)origin_count; (void)origin_datatype;
	(void)target_rank; (void)target_disp; (void)target_count;
	(void)target_datatype; (void)win;
	null_request(request);
	return refuse(NULL, "MPI_Rget");
}

int MPI_Raccumulate(const void *origin_addr, int origin_count,
		    MPI_Datatype origin_datatype, int target_rank,
		    MPI_Aint target_disp, int target_count,
		    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
		    MPI_Request *request)
{
	(void)origin_addr; (void)origin_count; (void)origin_datatype;
	(void)target_rank; (void)target_disp; (void)target_count;
	(void)target_datatype; (void)op; (void)win;
	null_request(request);
	return refuse(NULL, "MPI_Raccumulate");
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, void *result_addr,
			int result_count, MPI_Datatype result_datatype,
			int target_rank, MPI_Aint target_disp,
			int target_count, MPI_Datatype target_datatype,
			MPI_Op op, MPI_Win win, MPI_Request *request)
{
	(void)origin_addr; (void)origin_count; (void)origin_datatype;
	(void)result_addr; (void)result_count; (void)result_datatype;
	(void)target_rank; (void)target_disp; (void)target_count;
	(void)target_datatype; (void)op; (void)win;
	null_request(request);
	return refuse(NULL, "MPI_Rget_accumulate");
}
