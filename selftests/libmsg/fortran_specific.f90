! SPDX-License-Identifier: MIT
! libmsg-test: np=2 builds=plain modes=native
! fortran_specific: mpi_f08's specific procedure names, as MPI-4.0 names
! them (each generic MPI_X has the specific MPI_X_f08, and MPI_X_c_f08
! for its large-count form; PMPI_ the same), called by those names: the
! plain path (MPI_Comm_rank_f08, MPI_Barrier_f08, MPI_Wtime_f08), choice
! buffers (MPI_Send_f08, MPI_Recv_f08, MPI_Allreduce_f08), strings
! (MPI_Get_processor_name_f08), an entry written by hand
! (MPI_Comm_get_attr_f08), the large-count forms (MPI_Send_c_f08,
! MPI_Get_count_c_f08) and PMPI_ names.  Without those names the program
! does not compile or link; wrong data or counts abort the job.
module fspec_state
  use mpi_f08
  implicit none
  integer :: rank
contains
  include 'ftest_check.inc'
end module fspec_state

program fortran_specific
  use mpi_f08
  use fspec_state
  implicit none
  integer :: np, buf(8), i, sum, len, ierr
  integer(kind=MPI_COUNT_KIND) :: n, got
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag
  type(MPI_Status) :: st
  character(len=MPI_MAX_PROCESSOR_NAME) :: name
  double precision :: t0, t1

  call MPI_Init_f08()
  call MPI_Comm_rank_f08(MPI_COMM_WORLD, rank)
  call PMPI_Comm_size_f08(MPI_COMM_WORLD, np, ierr)
  call check(ierr == MPI_SUCCESS .and. np >= 2, 'PMPI_Comm_size_f08')
  t0 = MPI_Wtime_f08()
  call MPI_Get_processor_name_f08(name, len)
  call check(len > 0 .and. len <= MPI_MAX_PROCESSOR_NAME, 'MPI_Get_processor_name_f08')
  call MPI_Comm_get_attr_f08(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag)
  call check(flag .and. tag_ub >= 32767, 'MPI_Comm_get_attr_f08')
  n = 8
  if (rank == 0) then
    buf = [(i * 3, i = 1, 8)]
    call MPI_Send_f08(buf, 8, MPI_INTEGER, 1, 7, MPI_COMM_WORLD)
    buf = [(i * 5, i = 1, 8)]
    call MPI_Send_c_f08(buf, n, MPI_INTEGER, 1, 8, MPI_COMM_WORLD)
  else if (rank == 1) then
    call MPI_Recv_f08(buf, 8, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, st)
    call check(all(buf == [(i * 3, i = 1, 8)]), 'MPI_Send_f08 data')
    call PMPI_Recv_c_f08(buf, n, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, st)
    call check(all(buf == [(i * 5, i = 1, 8)]), 'MPI_Send_c_f08 data')
    call MPI_Get_count_c_f08(st, MPI_INTEGER, got)
    call check(got == 8, 'MPI_Get_count_c_f08')
  end if
  sum = rank + 1
  call MPI_Allreduce_f08(MPI_IN_PLACE, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(sum == np * (np + 1) / 2, 'MPI_Allreduce_f08')
  call MPI_Barrier_f08(MPI_COMM_WORLD)
  t1 = PMPI_Wtime_f08()
  call check(t1 >= t0, 'MPI_Wtime_f08')
  if (rank == 0) print '(a)', 'ok'
  call MPI_Finalize_f08()
end program fortran_specific
