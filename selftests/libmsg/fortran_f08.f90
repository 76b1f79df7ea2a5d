! SPDX-License-Identifier: MIT
! fortran_f08: the mpi_f08 module (use mpi_f08): TYPE(MPI_Comm) and the
! other handle types with == and /=, TYPE(MPI_Status), optional IERROR,
! TYPE(*), DIMENSION(..) buffers with array sections that are not
! contiguous, in blocking calls (copied) and nonblocking ones (a
! datatype over the section), collectives with MPI_IN_PLACE, derived
! datatypes and MPI_Type_get_contents, communicators, sessions, a user
! op of the f08 interface (TYPE(C_PTR) vectors), an error handler and
! keyval callbacks of the f08 interfaces, MPI_Alloc_mem's TYPE(C_PTR),
! buffered sends and MPI_Buffer_detach, strings MPI-4.0 sizes
! (MPI_Info_get_string, MPI_Session_get_nth_pset), MPI_Pack_external,
! neighbourhood alltoallw on a graph.  A failure aborts the job.
module ff08_state
  use mpi_f08
  implicit none
  integer :: rank, np
  integer :: errh_calls = 0, errh_code = 0, copies = 0, deletes = 0, op_calls = 0
  type(MPI_Comm) :: errh_comm
  type(MPI_Datatype) :: op_type
contains
  include 'ftest_check.inc'

  ! Element-wise max of absolute values, on REAL(8).
  subroutine absmax(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    real(8), pointer :: a(:), b(:)
    op_calls = op_calls + 1
    call check(datatype == op_type, 'the op sees its datatype')
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(abs(a), abs(b))
  end subroutine absmax

  subroutine on_error(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    errh_calls = errh_calls + 1
    errh_comm = comm
    errh_code = error_code
  end subroutine on_error

  subroutine copy_attr(oldcomm, comm_keyval, extra_state, attribute_val_in, &
                       attribute_val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    copies = copies + 1
    attribute_val_out = attribute_val_in + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
    if (oldcomm == MPI_COMM_NULL .or. comm_keyval == MPI_KEYVAL_INVALID) ierror = MPI_ERR_COMM
  end subroutine copy_attr

  subroutine delete_attr(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    ierror = MPI_SUCCESS
    if (comm == MPI_COMM_NULL .or. comm_keyval == MPI_KEYVAL_INVALID .or. &
        attribute_val < 0 .or. extra_state /= 5) ierror = MPI_ERR_COMM
  end subroutine delete_attr
end module ff08_state

program fortran_f08
  use ff08_state
  implicit none
  integer :: ierr
  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call handles_and_status()
  call sections()
  call colls()
  call dtypes()
  call comms_and_sessions()
  call ops_errors_attrs()
  call memory_and_strings()
  call MPI_Finalize()
contains

  subroutine handles_and_status()
    type(MPI_Status) :: st
    type(MPI_Request) :: req(2)
    integer :: x(5), y(5), n, ierror
    logical :: flag
    call check(MPI_COMM_WORLD /= MPI_COMM_SELF .and. MPI_COMM_WORLD == MPI_COMM_WORLD, &
               'handle comparisons')
    x = [(rank * 10 + n, n = 1, 5)]
    call MPI_Irecv(y, 5, MPI_INTEGER, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, req(1))
    call MPI_Isend(x, 4, MPI_INTEGER, mod(rank + 1, np), 3, MPI_COMM_WORLD, req(2))
    call MPI_Wait(req(1), st)
    call check(req(1) == MPI_REQUEST_NULL, 'wait frees the request')
    call check(st%MPI_SOURCE == mod(rank + np - 1, np) .and. st%MPI_TAG == 3, &
               'TYPE(MPI_Status) fields')
    call MPI_Get_count(st, MPI_INTEGER, n)
    call check(n == 4 .and. y(4) == mod(rank + np - 1, np) * 10 + 4, 'get_count and data')
    call MPI_Test(req(2), flag, MPI_STATUS_IGNORE, ierror)
    do while (.not. flag)
      call MPI_Test(req(2), flag, MPI_STATUS_IGNORE, ierror)
    end do
    call check(ierror == MPI_SUCCESS .and. req(2) == MPI_REQUEST_NULL, 'test with IERROR')
  end subroutine handles_and_status

  ! Sections that are not contiguous: a row of a matrix, every other
  ! element, a 3-d block.
  subroutine sections()
    real(8) :: a(6, 5), b(6, 5), c(4, 4, 4), d(4, 4, 4)
    integer :: v(20), w(20), i
    type(MPI_Request) :: req(2)
    integer :: nxt, prv
    nxt = mod(rank + 1, np)
    prv = mod(rank + np - 1, np)
    a = reshape([(rank * 100 + i, i = 1, 30)], [6, 5])
    b = -1
    ! Blocking: a row to a row.
    call MPI_Sendrecv(a(2, :), 5, MPI_DOUBLE_PRECISION, nxt, 1, b(4, :), 5, &
                      MPI_DOUBLE_PRECISION, prv, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check(all(b(4, :) == a(2, :) - (rank - prv) * 100), 'a row, blocking')
    call check(all(b(3, :) == -1) .and. all(b(5, :) == -1), 'around the row')
    ! Nonblocking: every other element, and a 3-d block.
    v = [(rank * 1000 + i, i = 1, 20)]
    w = 0
    call MPI_Irecv(w(2:20:2), 10, MPI_INTEGER, prv, 2, MPI_COMM_WORLD, req(1))
    call MPI_Isend(v(1:19:2), 10, MPI_INTEGER, nxt, 2, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    call check(all(w(2:20:2) == [(prv * 1000 + i, i = 1, 19, 2)]) .and. all(w(1:19:2) == 0), &
               'every other element, nonblocking')
    c = reshape([(dble(rank * 1000 + i), i = 1, 64)], [4, 4, 4])
    d = 0
    call MPI_Irecv(d(2:3, 1:4:3, 2:4), 12, MPI_DOUBLE_PRECISION, prv, 3, MPI_COMM_WORLD, req(1))
    call MPI_Isend(c(1:2, 2:3, 1:3), 12, MPI_DOUBLE_PRECISION, nxt, 3, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    call check(all(reshape(d(2:3, 1:4:3, 2:4), [12]) == &
                   reshape(c(1:2, 2:3, 1:3), [12]) - (rank - prv) * 1000), &
               'a 3-d block, nonblocking')
    call check(sum(d) == sum(d(2:3, 1:4:3, 2:4)), 'nothing around the block')
    ! A collective on a section, in place.
    a(3, :) = rank
    call MPI_Allreduce(MPI_IN_PLACE, a(3, :), 5, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    call check(all(a(3, :) == dble(np * (np - 1) / 2)) .and. a(2, 1) == rank * 100 + 2, &
               'allreduce in place on a row')
    call MPI_F_sync_reg(a)
  end subroutine sections

  subroutine colls()
    integer :: x(64), y(64), cnt(64), dsp(64), i
    type(MPI_Request) :: req
    x(1:np) = [(rank * np + i, i = 0, np - 1)]
    call MPI_Ialltoall(x, 1, MPI_INTEGER, y, 1, MPI_INTEGER, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call check(all(y(1:np) == [(i * np + rank, i = 0, np - 1)]), 'ialltoall')
    cnt(1:np) = 1
    dsp(1:np) = [(i, i = 0, np - 1)]
    call MPI_Alltoallv(x, cnt, dsp, MPI_INTEGER, y, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD)
    call check(all(y(1:np) == [(i * np + rank, i = 0, np - 1)]), 'alltoallv')
    y(rank + 1) = rank * 7
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, y, 1, MPI_INTEGER, MPI_COMM_WORLD)
    call check(all(y(1:np) == [(i * 7, i = 0, np - 1)]), 'allgather MPI_IN_PLACE')
    call MPI_Ibarrier(MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    i = rank
    call MPI_Bcast_init(i, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req)
    call MPI_Start(req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call check(i == 0 .and. req /= MPI_REQUEST_NULL, 'a persistent bcast')
    call MPI_Request_free(req)
  end subroutine colls

  subroutine dtypes()
    type(MPI_Datatype) :: vec, types(2), got(4)
    integer :: ni, na, nd, comb, ints(4), sz
    integer(kind=MPI_ADDRESS_KIND) :: addrs(4), lb, ext
    real(4) :: m(5, 5), r(5)
    call MPI_Type_vector(5, 1, 5, MPI_REAL, vec)
    call MPI_Type_commit(vec)
    m = reshape([(real(sz), sz = 1, 25)], [5, 5])
    call MPI_Sendrecv(m(2, 1), 1, vec, rank, 4, r, 5, MPI_REAL, rank, 4, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE)
    call check(all(r == m(2, :)), 'a vector type from a scalar start')
    call MPI_Type_get_envelope(vec, ni, na, nd, comb)
    call check(comb == MPI_COMBINER_VECTOR .and. ni == 3 .and. nd == 1, 'get_envelope')
    call MPI_Type_get_contents(vec, 4, 4, 4, ints, addrs, got)
    call check(ints(1) == 5 .and. ints(3) == 5 .and. got(1) == MPI_REAL, 'get_contents')
    types(1) = vec
    call MPI_Type_dup(vec, types(2))
    call MPI_Type_get_contents(types(2), 4, 4, 4, ints, addrs, got)
    call MPI_Type_get_envelope(got(1), ni, na, nd, comb)
    call check(comb == MPI_COMBINER_VECTOR, 'get_contents gives a handle of the old type')
    call MPI_Type_free(got(1))
    call MPI_Type_free(types(2))
    call MPI_Type_free(vec)
    call check(vec == MPI_DATATYPE_NULL, 'type_free')
    call MPI_Type_get_extent(MPI_2DOUBLE_PRECISION, lb, ext)
    call check(lb == 0 .and. ext == 16, 'MPI_2DOUBLE_PRECISION')
    call MPI_Sizeof(r, sz)
    call check(sz == 4, 'MPI_Sizeof')
  end subroutine dtypes

  subroutine comms_and_sessions()
    type(MPI_Comm) :: node, c, graph
    type(MPI_Session) :: s
    type(MPI_Group) :: g
    integer :: nsize, n, plen, i, nbrs(2), idx(64), edges(128)
    integer :: sendcounts(2), recvcounts(2), sbuf(2), rbuf(2)
    integer(kind=MPI_ADDRESS_KIND) :: sdispls(2), rdispls(2)
    type(MPI_Datatype) :: stypes(2), rtypes(2)
    character(len=40) :: pset
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node)
    call MPI_Comm_size(node, nsize)
    call check(nsize == np, 'split_type shared: the whole machine')
    call MPI_Comm_free(node)
    call check(node == MPI_COMM_NULL, 'comm_free')

    call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s)
    call MPI_Session_get_num_psets(s, MPI_INFO_NULL, n)
    call check(n >= 2, 'session_get_num_psets')
    plen = 0
    call MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, plen, pset)
    call check(plen == len('mpi://WORLD'), 'the length of a process set name')
    plen = len(pset)
    call MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, plen, pset)
    call check(pset == 'mpi://WORLD', 'the name of a process set')
    call MPI_Group_from_session_pset(s, 'mpi://WORLD', g)
    call MPI_Comm_create_from_group(g, 'org.mpichan.f08test', MPI_INFO_NULL, &
                                    MPI_ERRORS_RETURN, c)
    call MPI_Comm_size(c, nsize)
    call check(nsize == np, 'a communicator of a session')
    call MPI_Comm_free(c)
    call MPI_Group_free(g)
    call MPI_Session_finalize(s)
    call check(s == MPI_SESSION_NULL, 'session_finalize')

    ! A ring as a graph; neighbor_alltoallw's type arrays are as long
    ! as the neighbours.
    n = 0
    do i = 1, np
      edges(n + 1) = mod(i, np)
      edges(n + 2) = mod(i + np - 2, np)
      n = n + 2
      idx(i) = n
    end do
    call MPI_Graph_create(MPI_COMM_WORLD, np, idx, edges, .true., graph)
    call MPI_Graph_neighbors(graph, rank, 2, nbrs)
    sbuf = [rank * 10 + 1, rank * 10 + 2]
    rbuf = -1
    sendcounts = 1
    recvcounts = 1
    sdispls = [0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND]
    rdispls = sdispls
    stypes = MPI_INTEGER
    rtypes = MPI_INTEGER
    call MPI_Neighbor_alltoallw(sbuf, sendcounts, sdispls, stypes, rbuf, recvcounts, &
                                rdispls, rtypes, graph)
    call check(rbuf(1) == nbrs(1) * 10 + 2 .or. np <= 2, 'neighbor_alltoallw')
    call check(all(rbuf /= -1), 'neighbor_alltoallw fills its receives')
    call MPI_Comm_free(graph)
  end subroutine comms_and_sessions

  subroutine ops_errors_attrs()
    type(MPI_Op) :: op
    type(MPI_Errhandler) :: eh
    type(MPI_Comm) :: d, d2
    integer :: key, cls, ierror, total
    integer(kind=MPI_ADDRESS_KIND) :: val
    logical :: flag
    real(8) :: x(3), y(3)
    call MPI_Type_contiguous(1, MPI_REAL8, op_type)
    call MPI_Type_commit(op_type)
    call MPI_Op_create(absmax, .true., op)
    x = [dble(-rank), 1d0, dble(rank) / 2]
    call MPI_Allreduce(x, y, 3, op_type, op, MPI_COMM_WORLD)
    call check(y(1) == dble(np - 1) .and. y(2) == 1d0, 'allreduce with an f08 op')
    call MPI_Allreduce(op_calls, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call check(total > 0 .or. np == 1, 'the op was called')
    call MPI_Op_free(op)
    call MPI_Type_free(op_type)

    call MPI_Comm_create_errhandler(on_error, eh)
    call MPI_Comm_dup(MPI_COMM_WORLD, d)
    call MPI_Comm_set_errhandler(d, eh)
    call MPI_Errhandler_free(eh)
    call check(eh == MPI_ERRHANDLER_NULL, 'errhandler_free')
    call MPI_Recv(x, 1, MPI_REAL8, rank, -3, d, MPI_STATUS_IGNORE, ierror)
    call check(ierror /= MPI_SUCCESS .and. errh_calls == 1 .and. errh_comm == d, &
               'an f08 error handler')
    call MPI_Error_class(errh_code, cls)
    call check(cls == MPI_ERR_TAG, 'the handler sees MPI_ERR_TAG')

    call MPI_Comm_create_keyval(copy_attr, delete_attr, key, 5_MPI_ADDRESS_KIND)
    call MPI_Comm_set_attr(d, key, 100_MPI_ADDRESS_KIND)
    call MPI_Comm_dup(d, d2)
    call MPI_Comm_get_attr(d2, key, val, flag)
    call check(flag .and. val == 105 .and. copies == 1, 'an f08 copy callback')
    call MPI_Comm_free(d2)
    call MPI_Comm_free(d)
    call check(deletes == 2, 'f08 delete callbacks')
    call MPI_Comm_free_keyval(key)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, val, flag)
    call check(flag .and. val == 0, 'MPI_APPNUM')
  end subroutine ops_errors_attrs

  subroutine memory_and_strings()
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated
    type(c_ptr) :: p, back
    integer, pointer :: mem(:)
    integer :: bsize, buflen
    type(MPI_Info) :: info
    logical :: flag
    character(len=8) :: v
    character(len=1) :: packed(64)
    integer(kind=MPI_ADDRESS_KIND) :: pos
    integer :: x(3), y(3)
    call MPI_Alloc_mem(4096_MPI_ADDRESS_KIND, MPI_INFO_NULL, p)
    call c_f_pointer(p, mem, [1024])
    mem = 3
    call MPI_Buffer_attach(mem, 4096)
    call MPI_Bsend(rank, 1, MPI_INTEGER, rank, 9, MPI_COMM_WORLD)
    call MPI_Recv(bsize, 1, MPI_INTEGER, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check(bsize == rank, 'bsend')
    call MPI_Buffer_detach(back, bsize)
    call check(bsize == 4096 .and. c_associated(back, p), 'buffer_detach gives the address')
    call MPI_Free_mem(mem)

    call MPI_Info_create(info)
    call MPI_Info_set(info, 'k', 'longer value')
    buflen = 0
    call MPI_Info_get_string(info, 'k', buflen, v, flag)
    call check(flag .and. buflen == 12, 'info_get_string: the length')
    buflen = len(v)
    call MPI_Info_get_string(info, 'k', buflen, v, flag)
    call check(flag .and. v == 'longer v' .and. buflen == 12, 'info_get_string: cut')
    call MPI_Info_free(info)

    x = [1, -2, 300000]
    pos = 0
    call MPI_Pack_external('external32', x, 3, MPI_INTEGER, packed, 64_MPI_ADDRESS_KIND, pos)
    call check(pos == 12 .and. ichar(packed(4)) == 1, 'pack_external is big-endian')
    pos = 0
    call MPI_Unpack_external('external32', packed, 64_MPI_ADDRESS_KIND, pos, y, 3, MPI_INTEGER)
    call check(all(y == x), 'unpack_external')
  end subroutine memory_and_strings
end program fortran_f08
