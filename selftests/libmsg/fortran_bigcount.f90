! SPDX-License-Identifier: MIT
! fortran_bigcount: the large-count forms of mpi_f08 (MPI-4.0): the
! generic names called with INTEGER(KIND=MPI_COUNT_KIND) counts and
! INTEGER(KIND=MPI_ADDRESS_KIND) displacements resolve to the _c
! procedures.  MPI_Send and MPI_Recv with MPI_Get_count giving a
! MPI_COUNT_KIND count, MPI_Isend of a strided section (a datatype laid
! over it from a large count) and MPI_Irecv, MPI_Bcast of a derived type
! from MPI_Type_contiguous (its envelope and contents: a large count, the
! old type as a Fortran handle), MPI_Allreduce, MPI_Gatherv with count and
! displacement arrays, MPI_Pack_size, MPI_Pack and MPI_Unpack, MPI_Put
! and MPI_Get on a window from MPI_Win_create (its disp_unit an address
! kind), and sizes past 2**31 that only large counts carry (a contiguous
! type of 2**32+3 bytes, the pack size of 3*2**30 bytes).  Without the
! _c procedures the program does not compile.  A failure aborts the job.
module fbig_state
  use mpi_f08
  implicit none
  integer :: rank, np
contains
  include 'ftest_check.inc'
end module fbig_state

program fortran_bigcount
  use fbig_state
  implicit none
  integer, parameter :: ck = MPI_COUNT_KIND, ak = MPI_ADDRESS_KIND
  integer(kind=ck), parameter :: n = 1000
  integer(kind=ck) :: cnt, psize, pos, tsize, ni, na, nl, nd, lcounts(2)
  integer(kind=ak) :: wsize, dunit, tdisp
  integer, allocatable :: sbuf(:), rbuf(:), gbuf(:), pbuf(:)
  integer(kind=ck), allocatable :: rcounts(:)
  integer(kind=ak), allocatable :: displs(:)
  integer :: i, r, left, right, ierr, v(4, 8), total
  integer, target :: warr(8)
  character(len=1), allocatable :: packed(:)
  type(MPI_Status) :: st
  type(MPI_Request) :: req(2)
  type(MPI_Datatype) :: quad, huge_t, dts(2)
  integer :: combiner, ints(1)
  integer(kind=ak) :: addrs(1)
  type(MPI_Win) :: win

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  left = mod(rank - 1 + np, np)
  right = mod(rank + 1, np)
  allocate (sbuf(2 * n), rbuf(n))

  ! MPI_Send / MPI_Recv to rank 0, MPI_Get_count as an MPI_COUNT_KIND.
  if (rank /= 0) then
    sbuf(1:n) = [(rank * 10000 + i, i = 1, int(n))]
    call MPI_Send(sbuf, n, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Send_c')
  else
    do r = 1, np - 1
      rbuf = -1
      call MPI_Recv(rbuf, n, MPI_INTEGER, r, 7, MPI_COMM_WORLD, st, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Recv_c')
      cnt = -1
      call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
      call check(cnt == n, 'MPI_Get_count_c')
      call check(all(rbuf == [(r * 10000 + i, i = 1, int(n))]), 'MPI_Recv_c data')
    end do
  end if

  ! MPI_Isend of every other element (a strided section) around a ring.
  sbuf = [(rank * 100000 + i, i = 1, int(2 * n))]
  rbuf = -1
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 8, MPI_COMM_WORLD, req(1))
  call MPI_Isend(sbuf(1:2 * n:2), n, MPI_INTEGER, right, 8, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Isend_c / MPI_Irecv_c')
  call check(all(rbuf == [(left * 100000 + 2 * i - 1, i = 1, int(n))]), &
             'MPI_Isend_c section data')

  ! MPI_Type_contiguous with a large count; MPI_Type_size as one.
  call MPI_Type_contiguous(4_ck, MPI_INTEGER, quad, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Type_contiguous_c')
  call MPI_Type_commit(quad)
  tsize = -1
  call MPI_Type_size(quad, tsize)
  call check(tsize == 16, 'MPI_Type_size_c')
  ! What a large-count constructor made: its count a large count.
  call MPI_Type_get_envelope(quad, ni, na, nl, nd, combiner, ierr)
  call check(ierr == MPI_SUCCESS .and. ni == 0 .and. na == 0 .and. nl == 1 .and. &
             nd == 1 .and. combiner == MPI_COMBINER_CONTIGUOUS, 'MPI_Type_get_envelope_c')
  lcounts = -1
  call MPI_Type_get_contents(quad, 1_ck, 1_ck, 2_ck, 2_ck, ints, addrs, lcounts, dts, ierr)
  call check(ierr == MPI_SUCCESS .and. lcounts(1) == 4 .and. dts(1) == MPI_INTEGER, &
             'MPI_Type_get_contents_c')
  call MPI_Type_contiguous(2_ck**32 + 3, MPI_BYTE, huge_t)
  call MPI_Type_size(huge_t, tsize)
  call check(tsize == 2_ck**32 + 3, 'MPI_Type_size_c past 2**31')
  call MPI_Type_free(huge_t)

  ! MPI_Bcast of 8 quads from the last rank.
  v = -1
  if (rank == np - 1) v = reshape([(i * 3, i = 1, 32)], [4, 8])
  call MPI_Bcast(v, 8_ck, quad, np - 1, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Bcast_c')
  call check(all(v == reshape([(i * 3, i = 1, 32)], [4, 8])), 'MPI_Bcast_c data')
  call MPI_Type_free(quad)

  ! MPI_Allreduce.
  sbuf(1:n) = [(rank + i, i = 1, int(n))]
  rbuf = -1
  call MPI_Allreduce(sbuf, rbuf, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Allreduce_c')
  call check(all(rbuf == [(np * i + np * (np - 1) / 2, i = 1, int(n))]), &
             'MPI_Allreduce_c data')

  ! MPI_Gatherv: rank r gives r+1 elements, placed in reverse rank order.
  total = np * (np + 1) / 2
  allocate (rcounts(np), displs(np), gbuf(total))
  rcounts = [(int(r + 1, ck), r = 0, np - 1)]
  displs(np) = 0
  do r = np - 1, 1, -1
    displs(r) = displs(r + 1) + rcounts(r + 1)
  end do
  sbuf(1:rank + 1) = [(rank * 1000 + i, i = 1, rank + 1)]
  gbuf = -1
  call MPI_Gatherv(sbuf, int(rank + 1, ck), MPI_INTEGER, gbuf, rcounts, displs, &
                   MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Gatherv_c')
  if (rank == 0) then
    do r = 0, np - 1
      call check(all(gbuf(displs(r + 1) + 1:displs(r + 1) + r + 1) == &
                     [(r * 1000 + i, i = 1, r + 1)]), 'MPI_Gatherv_c data')
    end do
  end if

  ! MPI_Pack_size, MPI_Pack, MPI_Unpack.
  psize = -1
  call MPI_Pack_size(n, MPI_INTEGER, MPI_COMM_WORLD, psize, ierr)
  call check(ierr == MPI_SUCCESS .and. psize >= 4 * n, 'MPI_Pack_size_c')
  allocate (packed(psize), pbuf(n))
  sbuf(1:n) = [(rank - i, i = 1, int(n))]
  pos = 0
  call MPI_Pack(sbuf, n, MPI_INTEGER, packed, psize, pos, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. pos == 4 * n, 'MPI_Pack_c')
  pbuf = -1
  pos = 0
  call MPI_Unpack(packed, psize, pos, pbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. pos == 4 * n, 'MPI_Unpack_c')
  call check(all(pbuf == sbuf(1:n)), 'MPI_Unpack_c data')
  call MPI_Pack_size(3_ck * 2_ck**30, MPI_BYTE, MPI_COMM_WORLD, psize)
  call check(psize >= 3_ck * 2_ck**30, 'MPI_Pack_size_c past 2**31')

  ! MPI_Put to the right and MPI_Get from the left, in fences.
  warr = -1
  wsize = 8 * 4
  dunit = 4
  call MPI_Win_create(warr, wsize, dunit, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_create_c')
  sbuf(1:4) = [(rank * 10 + i, i = 1, 4)]
  tdisp = 2
  call MPI_Win_fence(0, win)
  call MPI_Put(sbuf, 4_ck, MPI_INTEGER, right, tdisp, 4_ck, MPI_INTEGER, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Put_c')
  call MPI_Win_fence(0, win)
  call check(all(warr(3:6) == [(left * 10 + i, i = 1, 4)]) .and. warr(1) == -1 .and. &
             warr(7) == -1, 'MPI_Put_c data')
  rbuf(1:4) = -1
  call MPI_Get(rbuf, 4_ck, MPI_INTEGER, left, tdisp, 4_ck, MPI_INTEGER, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Get_c')
  call MPI_Win_fence(0, win)
  call check(all(rbuf(1:4) == [(mod(left - 1 + np, np) * 10 + i, i = 1, 4)]), &
             'MPI_Get_c data')
  call MPI_Win_free(win)

  deallocate (sbuf, rbuf, rcounts, displs, gbuf, packed, pbuf)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) write (*, '(a,i0,a)') 'fortran_bigcount: ok at ', np, ' ranks'
  call MPI_Finalize(ierr)
end program fortran_bigcount
