! SPDX-License-Identifier: MIT
! fortran_mpi: the mpi module (use mpi): explicit interfaces whose
! choice buffers take any type and rank.  Point-to-point of REAL,
! DOUBLE PRECISION, COMPLEX, LOGICAL and CHARACTER data, statuses and
! MPI_Get_count, Waitsome and Testany (1-based indices), persistent and
! generalized requests; collectives with MPI_IN_PLACE, v-collectives;
! a subarray type, a struct of mixed types; split, dup, groups, a graph
! topology; a non-commutative user op on DOUBLE PRECISION; an error
! handler; keyvals with Fortran callbacks, also on a datatype;
! MPI_Sizeof; TYPE(MPI_Status) and MPI_Status_f2f08.  A failure aborts.
module fmpi_state
  use mpi
  implicit none
  integer :: rank, np
  integer :: errh_calls = 0, errh_comm = MPI_COMM_NULL, errh_code = 0
  integer :: op_calls = 0, copies = 0, deletes = 0
  integer :: greq_frees = 0
  integer :: mattype = MPI_DATATYPE_NULL
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: ierr
    if (.not. ok) then
      write (*, '(a,i3,2a)') 'FAIL rank ', rank, ': ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check
end module fmpi_state

! inout = in (x) inout for 2x2 matrices stored as 4 doubles: not
! commutative, so the result shows the op ran in rank order.
subroutine matmul_op(invec, inoutvec, len, dtype)
  use fmpi_state
  implicit none
  integer :: len, dtype, i
  double precision :: invec(4, len), inoutvec(4, len), c(4)
  op_calls = op_calls + 1
  call check(dtype == mattype, 'the op sees its datatype')
  do i = 1, len
    c(1) = invec(1, i) * inoutvec(1, i) + invec(3, i) * inoutvec(2, i)
    c(2) = invec(2, i) * inoutvec(1, i) + invec(4, i) * inoutvec(2, i)
    c(3) = invec(1, i) * inoutvec(3, i) + invec(3, i) * inoutvec(4, i)
    c(4) = invec(2, i) * inoutvec(3, i) + invec(4, i) * inoutvec(4, i)
    inoutvec(:, i) = c
  end do
end subroutine matmul_op

subroutine errh(comm, code)
  use fmpi_state
  implicit none
  integer :: comm, code
  errh_calls = errh_calls + 1
  errh_comm = comm
  errh_code = code
end subroutine errh

subroutine type_copy(old, key, extra, vin, vout, flag, ierr)
  use fmpi_state
  implicit none
  integer :: old, key, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, vin, vout
  logical :: flag
  copies = copies + 1
  vout = vin * extra
  flag = .true.
  ierr = MPI_SUCCESS
  if (old == MPI_DATATYPE_NULL .or. key == MPI_KEYVAL_INVALID) ierr = MPI_ERR_TYPE
end subroutine type_copy

subroutine type_delete(dtype, key, val, extra, ierr)
  use fmpi_state
  implicit none
  integer :: dtype, key, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  deletes = deletes + 1
  ierr = MPI_SUCCESS
  if (dtype == MPI_DATATYPE_NULL .or. key == MPI_KEYVAL_INVALID .or. val < 0 .or. &
      extra /= 3) ierr = MPI_ERR_TYPE
end subroutine type_delete

subroutine greq_query(extra, status, ierr)
  use fmpi_state
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: status(MPI_STATUS_SIZE), ierr
  status(MPI_SOURCE) = int(extra)
  status(MPI_TAG) = 99
  call MPI_Status_set_elements(status, MPI_INTEGER, 5, ierr)
  call MPI_Status_set_cancelled(status, .false., ierr)
end subroutine greq_query

subroutine greq_free(extra, ierr)
  use fmpi_state
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: ierr
  greq_frees = greq_frees + 1
  ierr = MPI_SUCCESS
  if (extra /= 7) ierr = MPI_ERR_OTHER
end subroutine greq_free

subroutine greq_cancel(extra, complete, ierr)
  use fmpi_state
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: complete
  integer :: ierr
  ierr = MPI_SUCCESS
  if (extra /= 7 .or. complete) ierr = MPI_ERR_OTHER
end subroutine greq_cancel

program fortran_mpi
  use fmpi_state
  implicit none
  integer :: ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call p2p()
  call colls()
  call dtypes()
  call comms()
  call ops_and_errors()
  call keyvals_and_greq()
  call MPI_Finalize(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Finalize')
contains

  subroutine p2p()
    real :: r(100), rr(100)
    double precision :: d(3000), dd(3000)
    complex :: z(4), zz(4)
    logical :: l(3), ll(3), flag
    character(len=13) :: s, ss
    integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4), req(4), cnt
    integer :: idx(4), outcount, nxt, prv, i, done, x
    type(MPI_Status) :: s08
    nxt = mod(rank + 1, np)
    prv = mod(rank + np - 1, np)
    r = [(real(rank * 1000 + i), i = 1, 100)]
    d = [(dble(rank) + i * 0.5d0, i = 1, 3000)]
    z = cmplx(rank, -rank)
    l = [.true., .false., rank == 0]
    s = 'from rank    '
    write (s(11:12), '(i2)') rank
    call MPI_Irecv(rr, 100, MPI_REAL, prv, 1, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(dd, 3000, MPI_DOUBLE_PRECISION, prv, 2, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Irecv(zz, 4, MPI_COMPLEX, prv, 3, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Irecv(ll, 3, MPI_LOGICAL, prv, 4, MPI_COMM_WORLD, req(4), ierr)
    call MPI_Send(r, 100, MPI_REAL, nxt, 1, MPI_COMM_WORLD, ierr)
    call MPI_Send(d, 3000, MPI_DOUBLE_PRECISION, nxt, 2, MPI_COMM_WORLD, ierr)
    call MPI_Send(z, 4, MPI_COMPLEX, nxt, 3, MPI_COMM_WORLD, ierr)
    call MPI_Send(l, 3, MPI_LOGICAL, nxt, 4, MPI_COMM_WORLD, ierr)
    done = 0
    do while (done < 4)
      call MPI_Waitsome(4, req, outcount, idx, sts, ierr)
      call check(ierr == MPI_SUCCESS .and. outcount >= 1, 'waitsome')
      do i = 1, outcount
        call check(idx(i) >= 1 .and. idx(i) <= 4, 'waitsome indices are 1-based')
        call check(sts(MPI_TAG, i) == idx(i) .and. sts(MPI_SOURCE, i) == prv, &
                   'waitsome statuses')
        call check(req(idx(i)) == MPI_REQUEST_NULL, 'waitsome frees')
      end do
      done = done + outcount
    end do
    call check(all(rr == [(real(prv * 1000 + i), i = 1, 100)]), 'REAL data')
    call check(all(dd == [(dble(prv) + i * 0.5d0, i = 1, 3000)]), 'DOUBLE PRECISION data')
    call check(all(zz == cmplx(prv, -prv)), 'COMPLEX data')
    call check(ll(1) .and. .not. ll(2) .and. (ll(3) .eqv. (prv == 0)), 'LOGICAL data')
    call MPI_Sendrecv(s, 13, MPI_CHARACTER, nxt, 5, ss, 13, MPI_CHARACTER, prv, 5, &
                      MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_CHARACTER, cnt, ierr)
    call check(cnt == 13 .and. ss(1:9) == 'from rank', 'CHARACTER data')
    read (ss(11:12), '(i2)') x
    call check(x == prv, 'CHARACTER contents')
    call MPI_Status_f2f08(st, s08, ierr)
    call check(s08%MPI_SOURCE == prv .and. s08%MPI_TAG == 5, 'MPI_Status_f2f08')
    call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
    call check(cnt == MPI_UNDEFINED, 'a count that is no whole number of elements')

    ! Testany over null and active requests.
    req = MPI_REQUEST_NULL
    call MPI_Irecv(x, 1, MPI_INTEGER, rank, 6, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Testany(4, req, i, flag, st, ierr)
    call check(.not. flag, 'testany before the message')
    call MPI_Send(rank, 1, MPI_INTEGER, rank, 6, MPI_COMM_WORLD, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Testany(4, req, i, flag, st, ierr)
    end do
    call check(i == 3 .and. x == rank, 'testany index is 1-based')
    call MPI_Testany(4, req, i, flag, st, ierr)
    call check(flag .and. i == MPI_UNDEFINED, 'testany of null requests')
  end subroutine p2p

  subroutine colls()
    double precision :: v(8), w(8)
    integer :: counts(64), displs(64), g(64), mine(64), i, n
    v = rank
    call MPI_Allreduce(MPI_IN_PLACE, v, 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(all(v == dble(np * (np - 1) / 2)), 'allreduce MPI_IN_PLACE')
    w = -1
    if (rank == 0) w = 3.25d0
    call MPI_Bcast(w, 8, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    call check(all(w == 3.25d0), 'bcast')
    ! Rank i contributes i + 1 integers.
    n = rank + 1
    mine(1:n) = rank
    do i = 1, np
      counts(i) = i
      displs(i) = (i - 1) * i / 2
    end do
    call MPI_Allgatherv(mine, n, MPI_INTEGER, g, counts, displs, MPI_INTEGER, &
                        MPI_COMM_WORLD, ierr)
    do i = 1, np
      call check(all(g(displs(i) + 1:displs(i) + i) == i - 1), 'allgatherv')
    end do
    g(1:np) = [(i, i = 1, np)]
    if (rank == 0) then
      call MPI_Gather(MPI_IN_PLACE, 1, MPI_INTEGER, g, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call check(all(g(1:np) == [(i, i = 1, np)]), 'gather MPI_IN_PLACE')
    else
      call MPI_Gather(g(rank + 1), 1, MPI_INTEGER, g, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    end if
    call MPI_Exscan(rank + 1, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank > 0) call check(i == rank * (rank + 1) / 2, 'exscan')
    mine(1:np) = rank
    call MPI_Reduce_scatter_block(mine, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(i == np * (np - 1) / 2, 'reduce_scatter_block')
  end subroutine colls

  subroutine dtypes()
    real :: grid(6, 5), part(3, 2)
    integer :: sub, st, sz, bl(3), types(3), i, j
    integer(kind=MPI_ADDRESS_KIND) :: disp(3), base, lb, ext
    type pt
      sequence
      integer :: id
      double precision :: x
      character(len=3) :: tag
    end type pt
    type(pt) :: a(2), b(2)
    grid = reshape([(real(i), i = 1, 30)], [6, 5])
    call MPI_Type_create_subarray(2, [6, 5], [3, 2], [2, 1], MPI_ORDER_FORTRAN, MPI_REAL, sub, ierr)
    call MPI_Type_commit(sub, ierr)
    call MPI_Sendrecv(grid, 1, sub, rank, 1, part, 6, MPI_REAL, rank, 1, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call check(all(part == grid(3:5, 2:3)), 'subarray type')
    call MPI_Type_size(sub, sz, ierr)
    call check(sz == 24, 'subarray size')
    call MPI_Type_free(sub, ierr)
    a(1) = pt(7, 1.5d0, 'abc')
    a(2) = pt(8, -2.5d0, 'xyz')
    call MPI_Get_address(a(1), base, ierr)
    call MPI_Get_address(a(1)%id, disp(1), ierr)
    call MPI_Get_address(a(1)%x, disp(2), ierr)
    call MPI_Get_address(a(1)%tag, disp(3), ierr)
    disp = disp - base
    bl = [1, 1, 3]
    types = [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_CHARACTER]
    call MPI_Type_create_struct(3, bl, disp, types, st, ierr)
    call MPI_Get_address(a(2), ext, ierr)
    call MPI_Type_create_resized(st, 0_MPI_ADDRESS_KIND, ext - base, sub, ierr)
    call MPI_Type_commit(sub, ierr)
    call MPI_Type_get_extent(sub, lb, ext, ierr)
    call check(lb == 0, 'resized lb')
    call MPI_Sendrecv(a, 2, sub, rank, 2, b, 2, sub, rank, 2, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call check(b(2)%id == 8 .and. b(2)%x == -2.5d0 .and. b(2)%tag == 'xyz' .and. &
               b(1)%tag == 'abc', 'a struct of mixed types')
    call MPI_Type_free(st, ierr)
    call MPI_Type_free(sub, ierr)
    call MPI_Sizeof(grid, sz, ierr)
    call check(sz == 4, 'MPI_Sizeof a REAL array')
    call MPI_Sizeof(1.0d0, sz, ierr)
    call check(sz == 8, 'MPI_Sizeof a DOUBLE PRECISION')
    call MPI_Sizeof('abcde', sz, ierr)
    call check(sz == 5, 'MPI_Sizeof a CHARACTER')
    j = 0
    call MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, j, ierr)
    call check(j == MPI_REAL8, 'match_size')
  end subroutine dtypes

  subroutine comms()
    integer :: half, hrank, hsize, world_g, g, ranks(2), graph, nn, nbrs(4)
    integer :: index(64), edges(128), i, k, res
    call MPI_Comm_split(MPI_COMM_WORLD, merge(0, 1, rank < np / 2), rank, half, ierr)
    call MPI_Comm_rank(half, hrank, ierr)
    call MPI_Comm_size(half, hsize, ierr)
    call check(hrank == merge(rank, rank - np / 2, rank < np / 2), 'split rank')
    call MPI_Comm_group(MPI_COMM_WORLD, world_g, ierr)
    call MPI_Comm_group(half, g, ierr)
    call MPI_Group_compare(g, world_g, res, ierr)
    call check(res == merge(MPI_IDENT, MPI_UNEQUAL, hsize == np), 'group_compare')
    ranks = [0, hsize - 1]
    call MPI_Group_translate_ranks(g, 2, ranks, world_g, ranks, ierr)
    call check(ranks(2) - ranks(1) == hsize - 1, 'translate_ranks')
    call MPI_Group_free(g, ierr)
    call MPI_Group_free(world_g, ierr)
    call MPI_Comm_free(half, ierr)
    call check(half == MPI_COMM_NULL, 'comm_free')
    ! A ring as a graph.
    k = 0
    do i = 1, np
      edges(k + 1) = mod(i, np)
      edges(k + 2) = mod(i + np - 2, np)
      k = k + 2
      index(i) = k
    end do
    call MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, .false., graph, ierr)
    call MPI_Graph_neighbors_count(graph, rank, nn, ierr)
    call check(nn == 2, 'graph_neighbors_count')
    call MPI_Graph_neighbors(graph, rank, 4, nbrs, ierr)
    call check(nbrs(1) == mod(rank + 1, np), 'graph_neighbors')
    call MPI_Comm_free(graph, ierr)
  end subroutine comms

  subroutine ops_and_errors()
    integer :: op, eh, d, cls, i, n
    double precision :: m(4), r(4), p(4), c(4)
    logical :: comm
    character(len=MPI_MAX_ERROR_STRING) :: msg
    external :: matmul_op, errh
    ! Rank i contributes [[1, i + 1], [1, 0]]; MPI reduces in rank
    ! order, and these do not commute.
    call MPI_Type_contiguous(4, MPI_DOUBLE_PRECISION, mattype, ierr)
    call MPI_Type_commit(mattype, ierr)
    call MPI_Op_create(matmul_op, .false., op, ierr)
    call MPI_Op_commutative(op, comm, ierr)
    call check(.not. comm, 'op_commutative')
    m = [1d0, 1d0, dble(rank + 1), 0d0]
    call MPI_Reduce(m, r, 1, mattype, op, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
      p = [1d0, 0d0, 0d0, 1d0]
      do i = 0, np - 1
        m = [1d0, 1d0, dble(i + 1), 0d0]
        c(1) = p(1) * m(1) + p(3) * m(2)
        c(2) = p(2) * m(1) + p(4) * m(2)
        c(3) = p(1) * m(3) + p(3) * m(4)
        c(4) = p(2) * m(3) + p(4) * m(4)
        p = c
      end do
      call check(all(r == p), 'reduce with a non-commutative Fortran op')
    end if
    call MPI_Allreduce(MPI_IN_PLACE, m, 1, mattype, op, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS, 'allreduce MPI_IN_PLACE with a Fortran op')
    call MPI_Op_free(op, ierr)
    call check(op == MPI_OP_NULL, 'op_free')
    call MPI_Type_free(mattype, ierr)

    call MPI_Comm_create_errhandler(errh, eh, ierr)
    call MPI_Comm_dup(MPI_COMM_WORLD, d, ierr)
    call MPI_Comm_set_errhandler(d, eh, ierr)
    call MPI_Errhandler_free(eh, ierr)
    call MPI_Bcast(m, 4, MPI_DOUBLE_PRECISION, np + 3, d, ierr)
    call check(ierr /= MPI_SUCCESS .and. errh_calls == 1 .and. errh_comm == d, &
               'a Fortran error handler')
    call MPI_Error_class(errh_code, cls, ierr)
    call check(cls == MPI_ERR_ROOT, 'the handler sees MPI_ERR_ROOT')
    call MPI_Error_string(errh_code, msg, n, ierr)
    call check(index(msg(1:n), 'MPI_ERR_ROOT') > 0, 'error_string')
    call MPI_Comm_free(d, ierr)
  end subroutine ops_and_errors

  subroutine keyvals_and_greq()
    integer :: key, t, t2, req, st(MPI_STATUS_SIZE), cnt
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    logical :: flag
    external :: type_copy, type_delete, greq_query, greq_free, greq_cancel
    extra = 3
    call MPI_Type_create_keyval(type_copy, type_delete, key, extra, ierr)
    call MPI_Type_contiguous(2, MPI_INTEGER, t, ierr)
    val = 14
    call MPI_Type_set_attr(t, key, val, ierr)
    call MPI_Type_dup(t, t2, ierr)
    call MPI_Type_get_attr(t2, key, val, flag, ierr)
    call check(flag .and. val == 42 .and. copies == 1, 'a datatype keyval copied')
    call MPI_Type_free(t2, ierr)
    call MPI_Type_free(t, ierr)
    call check(deletes == 2, 'a datatype keyval deleted')
    call MPI_Type_free_keyval(key, ierr)

    extra = 7
    call MPI_Grequest_start(greq_query, greq_free, greq_cancel, extra, req, ierr)
    call MPI_Test(req, flag, st, ierr)
    call check(.not. flag, 'a generalized request before completion')
    call MPI_Grequest_complete(req, ierr)
    call MPI_Wait(req, st, ierr)
    call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'a generalized request')
    call check(st(MPI_SOURCE) == 7 .and. st(MPI_TAG) == 99 .and. greq_frees == 1, &
               'its query and free callbacks')
    call MPI_Get_elements(st, MPI_INTEGER, cnt, ierr)
    call check(cnt == 5, 'status_set_elements from Fortran')
  end subroutine keyvals_and_greq
end program fortran_mpi
