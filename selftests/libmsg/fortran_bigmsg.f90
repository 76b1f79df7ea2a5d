! SPDX-License-Identifier: MIT
! libmsg-test: np=2 builds=plain modes=native
! fortran_bigmsg: more than 2**31 bytes through mpi_f08 for real, as
! large counts (MPI-4.0) carry them: MPI_Send to MPI_Recv of
! 2**31+40 MPI_INTEGER1 elements (MPI_Get_count gives the count as an
! MPI_COUNT_KIND integer), MPI_Bcast of as many from rank 1, and
! MPI_Allreduce with MPI_BXOR over them, each checked element by
! element.  About 2 GiB a rank: natively only (the VM has too little
! memory).  A failure aborts the job.
module fbigmsg_state
  use mpi_f08
  implicit none
  integer :: rank
contains
  include 'ftest_check.inc'

  ! The byte a buffer filled with seed holds at i.
  pure integer(1) function pat(i, seed)
    integer(8), intent(in) :: i
    integer, intent(in) :: seed
    pat = int(iand(i * 7_8 + seed, 127_8), 1)
  end function pat

  subroutine fill(a, seed)
    integer(1), intent(out) :: a(:)
    integer, intent(in) :: seed
    integer(8) :: i
    do i = 1, size(a, kind=8)
      a(i) = pat(i, seed)
    end do
  end subroutine fill

  ! The first element that is not pat(., seed), or 0.
  integer(8) function first_bad(a, seed)
    integer(1), intent(in) :: a(:)
    integer, intent(in) :: seed
    integer(8) :: i
    first_bad = 0
    do i = 1, size(a, kind=8)
      if (a(i) /= pat(i, seed)) then
        first_bad = i
        return
      end if
    end do
  end function first_bad
end module fbigmsg_state

program fortran_bigmsg
  use fbigmsg_state
  implicit none
  integer(kind=MPI_COUNT_KIND), parameter :: n = 2_8**31 + 40
  integer(1), allocatable :: a(:)
  integer(kind=MPI_COUNT_KIND) :: got
  integer(8) :: i, bad
  integer :: np, ierr
  character(len=16) :: mode
  type(MPI_Status) :: st
  double precision :: t(3)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call check(np == 2, 'runs at 2 ranks')
  call get_environment_variable('LIBMSG_MODE', mode)
  if (mode == 'vm') then
    write (0, '(a)') 'SKIP: 2 GiB a rank: natively only'
    call MPI_Finalize()
    call exit(77)
  end if
  allocate (a(n + 8), stat=ierr)
  call check(ierr == 0, 'no memory for 2 GiB')

  ! Point to point, into a larger buffer: the rest stays untouched.
  if (rank == 0) then
    call fill(a, 1)
  else
    a = 0
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  t(1) = MPI_Wtime()
  if (rank == 0) then
    call MPI_Send(a, n, MPI_INTEGER1, 1, 5, MPI_COMM_WORLD)
  else
    call MPI_Recv(a, n + 8, MPI_INTEGER1, 0, 5, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_INTEGER1, got)
    call check(got == n, 'MPI_Get_count: the large count')
    bad = first_bad(a(1:n), 1)
    call check(bad == 0, 'received data')
    call check(all(a(n + 1:) == 0), 'bytes past the message written')
  end if
  t(1) = MPI_Wtime() - t(1)

  ! Broadcast from rank 1.
  if (rank == 1) then
    call fill(a(1:n), 2)
  else
    a = 0
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  t(2) = MPI_Wtime()
  call MPI_Bcast(a, n, MPI_INTEGER1, 1, MPI_COMM_WORLD)
  t(2) = MPI_Wtime() - t(2)
  call check(first_bad(a(1:n), 2) == 0, 'broadcast data')

  ! Allreduce in place, MPI_BXOR: rank 1 holds pat(., 3) xor 85, rank
  ! 0 pat(., 3), so every element comes out 85.
  call fill(a(1:n), 3)
  if (rank == 1) a(1:n) = ieor(a(1:n), 85_1)
  call MPI_Barrier(MPI_COMM_WORLD)
  t(3) = MPI_Wtime()
  call MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INTEGER1, MPI_BXOR, &
                     MPI_COMM_WORLD)
  t(3) = MPI_Wtime() - t(3)
  bad = 0
  do i = 1, n
    if (a(i) /= 85_1) then
      bad = i
      exit
    end if
  end do
  call check(bad == 0, 'allreduce data')

  if (rank == 1) write (0, '(a,i0,a,3f8.2)') 'fortran_bigmsg: ', n, &
    ' bytes: send, bcast, allreduce (s):', t
  call MPI_Finalize()
  if (rank == 0) write (*, '(a)') 'fortran_bigmsg: ok'
end program fortran_bigmsg
