! SPDX-License-Identifier: MIT
! fortran_mpif: the mpif.h bindings, in fixed form (include 'mpif.h'
! must be both fixed and free form): point-to-point with status fields,
! collectives (MPI_IN_PLACE), derived datatypes (MPI_BOTTOM and absolute
! addresses), communicators, groups, a Cartesian topology (LOGICALs),
! a user op written in Fortran, an error handler and keyval callbacks
! written in Fortran, attributes, info strings, Pack/Unpack and the
! environment.  Every result is checked; a failure aborts the job.
!
! gfortran compares the calls to one external procedure within a file,
! so each choice argument here is an INTEGER scalar (an array's first
! element, as Fortran 77 passes arrays) and the file compiles without a
! warning; other types go through the mpi and mpi_f08 tests.
      program fmpif
      implicit none
      include 'mpif.h'
      integer rank, np, ierr
      common /tst/ rank, np
      call MPI_INIT(ierr)
      call check(ierr .eq. MPI_SUCCESS, 'MPI_INIT')
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
      call p2p
      call colls
      call dtypes
      call comms
      call userop
      call errhs
      call attrs
      call misc
      call MPI_FINALIZE(ierr)
      call check(ierr .eq. MPI_SUCCESS, 'MPI_FINALIZE')
      end

      subroutine check(ok, what)
      implicit none
      include 'mpif.h'
      logical ok
      character*(*) what
      integer rank, np, ierr
      common /tst/ rank, np
      if (.not. ok) then
         write (*, '(a,i3,2a)') 'FAIL rank ', rank, ': ', what
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
      end

! Blocking and nonblocking, eager and rendezvous sizes, statuses.
      subroutine p2p
      implicit none
      include 'mpif.h'
      integer rank, np
      common /tst/ rank, np
      integer n
      parameter (n = 65536)
      integer buf(n), rbuf(n), st(MPI_STATUS_SIZE)
      integer sts(MPI_STATUS_SIZE, 2), req(2), cnt, nxt, prv, i
      integer idx, ierr
      logical flag, good
      save buf, rbuf
      nxt = mod(rank + 1, np)
      prv = mod(rank + np - 1, np)
      do i = 1, n
         buf(i) = rank * 100000 + i
      end do
      call MPI_SENDRECV(buf(1), n, MPI_INTEGER, nxt, 11, rbuf(1), n,
     &     MPI_INTEGER, prv, 11, MPI_COMM_WORLD, st, ierr)
      call check(ierr .eq. 0, 'sendrecv')
      call check(st(MPI_SOURCE) .eq. prv .and. st(MPI_TAG) .eq. 11,
     &     'sendrecv status source and tag')
      call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. n, 'MPI_GET_COUNT after a sendrecv')
      good = .true.
      do i = 1, n
         good = good .and. rbuf(i) .eq. prv * 100000 + i
      end do
      call check(good, 'sendrecv data')

      call MPI_IRECV(rbuf(1), 50, MPI_INTEGER, MPI_ANY_SOURCE, 12,
     &     MPI_COMM_WORLD, req(1), ierr)
      call MPI_ISEND(buf(1), 30, MPI_INTEGER, nxt, 12, MPI_COMM_WORLD,
     &     req(2), ierr)
      call check(req(1) .ne. MPI_REQUEST_NULL, 'a request')
      call MPI_WAITALL(2, req, sts, ierr)
      call check(ierr .eq. 0, 'waitall')
      call check(req(1) .eq. MPI_REQUEST_NULL .and.
     &     req(2) .eq. MPI_REQUEST_NULL, 'waitall frees the requests')
      call check(sts(MPI_SOURCE, 1) .eq. prv .and.
     &     sts(MPI_TAG, 1) .eq. 12, 'waitall statuses')
      do i = 1, MPI_STATUS_SIZE
         st(i) = sts(i, 1)
      end do
      call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. 30, 'count of a short receive')
      call check(rbuf(30) .eq. prv * 100000 + 30, 'irecv data')

!     A message to itself: probe, iprobe, receive, waitany, test.
      call MPI_ISEND(buf(1), 7, MPI_INTEGER, rank, 13, MPI_COMM_WORLD,
     &     req(1), ierr)
      call MPI_PROBE(MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, st, ierr)
      call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. 7 .and. st(MPI_SOURCE) .eq. rank, 'probe')
      call MPI_IPROBE(rank, 13, MPI_COMM_WORLD, flag, st, ierr)
      call check(flag, 'iprobe finds the message')
      call MPI_RECV(rbuf(1), n, MPI_INTEGER, rank, 13, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, ierr)
      call check(rbuf(7) .eq. buf(7), 'recv with MPI_STATUS_IGNORE')
      call MPI_WAIT(req(1), MPI_STATUS_IGNORE, ierr)
      call MPI_IPROBE(rank, 13, MPI_COMM_WORLD, flag,
     &     MPI_STATUS_IGNORE, ierr)
      call check(.not. flag, 'iprobe finds nothing')

      req(1) = MPI_REQUEST_NULL
      call MPI_IRECV(rbuf(1), 1, MPI_INTEGER, rank, 14,
     &     MPI_COMM_WORLD, req(2), ierr)
      call MPI_TEST(req(2), flag, st, ierr)
      call check(.not. flag, 'test of an unmatched receive')
      call MPI_SEND(buf(1), 1, MPI_INTEGER, rank, 14, MPI_COMM_WORLD,
     &     ierr)
      call MPI_WAITANY(2, req, idx, st, ierr)
      call check(idx .eq. 2, 'waitany index is 1-based')
      call check(req(2) .eq. MPI_REQUEST_NULL, 'waitany frees')
      call MPI_WAITANY(2, req, idx, st, ierr)
      call check(idx .eq. MPI_UNDEFINED, 'waitany of null requests')

!     Persistent requests.
      call MPI_RECV_INIT(rbuf(1), 3, MPI_INTEGER, rank, 15,
     &     MPI_COMM_WORLD, req(1), ierr)
      call MPI_SEND_INIT(buf(1), 3, MPI_INTEGER, rank, 15,
     &     MPI_COMM_WORLD, req(2), ierr)
      do i = 1, 3
         buf(1) = i
         call MPI_STARTALL(2, req, ierr)
         call MPI_WAITALL(2, req, MPI_STATUSES_IGNORE, ierr)
         call check(rbuf(1) .eq. i, 'persistent send')
         call check(req(1) .ne. MPI_REQUEST_NULL,
     &        'a persistent request stays')
      end do
      call MPI_REQUEST_FREE(req(1), ierr)
      call MPI_REQUEST_FREE(req(2), ierr)
      call check(req(1) .eq. MPI_REQUEST_NULL, 'request_free')
      end

      subroutine colls
      implicit none
      include 'mpif.h'
      integer rank, np
      common /tst/ rank, np
      integer x(64), y(64), i, ierr, root
      logical good
      do i = 1, 64
         x(i) = rank + i
      end do
      root = np - 1
      call MPI_BCAST(x(1), 10, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
      call check(x(5) .eq. root + 5, 'bcast')
      x(1) = rank + 1
      call MPI_ALLREDUCE(x(1), y(1), 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call check(y(1) .eq. np * (np + 1) / 2, 'allreduce sum')
      x(1) = rank
      call MPI_ALLREDUCE(MPI_IN_PLACE, x(1), 1, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call check(x(1) .eq. np - 1, 'allreduce MPI_IN_PLACE')
      x(1) = 2 * rank
      if (rank .eq. 0) then
         call MPI_REDUCE(MPI_IN_PLACE, x(1), 1, MPI_INTEGER, MPI_SUM,
     &        0, MPI_COMM_WORLD, ierr)
         call check(x(1) .eq. np * (np - 1), 'reduce MPI_IN_PLACE')
      else
         call MPI_REDUCE(x(1), y(1), 1, MPI_INTEGER, MPI_SUM, 0,
     &        MPI_COMM_WORLD, ierr)
      end if
      x(1) = rank * 3
      call MPI_GATHER(x(1), 1, MPI_INTEGER, y(1), 1, MPI_INTEGER, 0,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
         good = .true.
         do i = 1, np
            good = good .and. y(i) .eq. (i - 1) * 3
         end do
         call check(good, 'gather')
      end if
      call MPI_SCATTER(y(1), 1, MPI_INTEGER, x(2), 1, MPI_INTEGER, 0,
     &     MPI_COMM_WORLD, ierr)
      call check(x(2) .eq. rank * 3, 'scatter')
      x(1) = rank + 100
      call MPI_ALLGATHER(x(1), 1, MPI_INTEGER, y(1), 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, ierr)
      call check(y(np) .eq. np + 99, 'allgather')
      do i = 1, np
         x(i) = rank * 1000 + i
      end do
      call MPI_ALLTOALL(x(1), 1, MPI_INTEGER, y(1), 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, ierr)
      good = .true.
      do i = 1, np
         good = good .and. y(i) .eq. (i - 1) * 1000 + rank + 1
      end do
      call check(good, 'alltoall')
      x(1) = rank + 1
      call MPI_SCAN(x(1), y(1), 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call check(y(1) .eq. (rank + 1) * (rank + 2) / 2, 'scan')
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      call check(ierr .eq. 0, 'barrier')
      end

! A row of a column-major array as a vector type; a struct type of
! absolute addresses sent from MPI_BOTTOM.
      subroutine dtypes
      implicit none
      include 'mpif.h'
      integer rank, np
      common /tst/ rank, np
      integer a(10, 8), b(10, 8), c(8), row, st, i, j, sz, ierr
      integer bl(2), types(2), slen
      integer(kind=MPI_ADDRESS_KIND) lb, ext, disp(2)
      character*(MPI_MAX_OBJECT_NAME) name
      logical good
      do j = 1, 8
         do i = 1, 10
            a(i, j) = 100 * i + j
            b(i, j) = 0
         end do
      end do
      call MPI_TYPE_VECTOR(8, 1, 10, MPI_INTEGER, row, ierr)
      call MPI_TYPE_COMMIT(row, ierr)
      call MPI_TYPE_SIZE(row, sz, ierr)
      call MPI_TYPE_GET_EXTENT(row, lb, ext, ierr)
      call check(sz .eq. 32 .and. lb .eq. 0 .and. ext .eq. 284,
     &     'vector size and extent')
      call MPI_SENDRECV(a(3, 1), 1, row, rank, 1, b(5, 1), 1, row,
     &     rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      good = .true.
      do j = 1, 8
         good = good .and. b(5, j) .eq. 300 + j .and. b(4, j) .eq. 0
      end do
      call check(good, 'a row sent as a vector type')
      call MPI_TYPE_FREE(row, ierr)
      call check(row .eq. MPI_DATATYPE_NULL, 'type_free')

      call MPI_GET_ADDRESS(a(1, 2), disp(1), ierr)
      call MPI_GET_ADDRESS(a(4, 7), disp(2), ierr)
      bl(1) = 3
      bl(2) = 5
      types(1) = MPI_INTEGER
      types(2) = MPI_INTEGER
      call MPI_TYPE_CREATE_STRUCT(2, bl, disp, types, st, ierr)
      call MPI_TYPE_COMMIT(st, ierr)
      call MPI_SENDRECV(MPI_BOTTOM, 1, st, rank, 2, c(1), 8,
     &     MPI_INTEGER, rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     ierr)
      call check(c(1) .eq. 102 .and. c(3) .eq. 302 .and.
     &     c(4) .eq. 407 .and. c(8) .eq. 807, 'struct from MPI_BOTTOM')
      call MPI_TYPE_FREE(st, ierr)
      call MPI_TYPE_GET_NAME(MPI_INTEGER, name, slen, ierr)
      call check(name .eq. 'MPI_INTEGER' .and. slen .eq. 11,
     &     'the name of MPI_INTEGER')
      call MPI_TYPE_SIZE(MPI_DOUBLE_PRECISION, sz, ierr)
      call check(sz .eq. 8, 'MPI_DOUBLE_PRECISION is 8 bytes')
      call MPI_TYPE_SIZE(MPI_2INTEGER, sz, ierr)
      call check(sz .eq. 8, 'MPI_2INTEGER is 8 bytes')
      end

      subroutine comms
      implicit none
      include 'mpif.h'
      integer rank, np
      common /tst/ rank, np
      integer sub, dup, srank, ssize, res, x, y, ierr, g, g0, r(1)
      integer r2(1), gsize, dims(2), cart, src, dst, coords(2)
      integer dims2(2), n
      logical periods(2), per2(2)
      character*(MPI_MAX_OBJECT_NAME) name
      call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), -rank, sub,
     &     ierr)
      call MPI_COMM_SIZE(sub, ssize, ierr)
      call MPI_COMM_RANK(sub, srank, ierr)
      call check(ssize .eq. (np - mod(rank, 2) + 1) / 2, 'split size')
      call check(srank .eq. ssize - 1 - rank / 2, 'split key orders')
      x = rank
      call MPI_ALLREDUCE(x, y, 1, MPI_INTEGER, MPI_MIN, sub, ierr)
      call check(y .eq. mod(rank, 2), 'allreduce on a split')
      call MPI_COMM_FREE(sub, ierr)
      call check(sub .eq. MPI_COMM_NULL, 'comm_free')

      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      call MPI_COMM_SET_NAME(dup, 'the duplicate  ', ierr)
      call MPI_COMM_GET_NAME(dup, name, n, ierr)
      call check(name .eq. 'the duplicate' .and. n .eq. 13,
     &     'communicator name')
      call MPI_COMM_COMPARE(dup, MPI_COMM_WORLD, res, ierr)
      call check(res .eq. MPI_CONGRUENT, 'compare a dup')
      call MPI_COMM_COMPARE(MPI_COMM_WORLD, MPI_COMM_WORLD, res, ierr)
      call check(res .eq. MPI_IDENT, 'compare')

      call MPI_COMM_GROUP(dup, g, ierr)
      r(1) = np - 1
      call MPI_GROUP_INCL(g, 1, r, g0, ierr)
      call MPI_GROUP_SIZE(g0, gsize, ierr)
      call check(gsize .eq. 1, 'group_incl')
      r(1) = 0
      call MPI_GROUP_TRANSLATE_RANKS(g0, 1, r, g, r2, ierr)
      call check(r2(1) .eq. np - 1, 'translate_ranks')
      call MPI_GROUP_FREE(g0, ierr)
      call MPI_GROUP_FREE(g, ierr)
      call check(g .eq. MPI_GROUP_NULL, 'group_free')
      call MPI_COMM_FREE(dup, ierr)

      dims(1) = 0
      dims(2) = 0
      call MPI_DIMS_CREATE(np, 2, dims, ierr)
      call check(dims(1) * dims(2) .eq. np, 'dims_create')
      periods(1) = .true.
      periods(2) = .false.
      call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .false.,
     &     cart, ierr)
      call MPI_CART_GET(cart, 2, dims2, per2, coords, ierr)
      call check(per2(1) .and. .not. per2(2) .and.
     &     dims2(1) .eq. dims(1), 'cart_get and its LOGICALs')
      call MPI_CART_SHIFT(cart, 0, 1, src, dst, ierr)
      call check(dst .eq. mod(rank + dims(2), np), 'cart_shift')
      call MPI_CART_SHIFT(cart, 1, 1, src, dst, ierr)
      if (coords(2) .eq. dims(2) - 1) then
         call check(dst .eq. MPI_PROC_NULL, 'cart_shift off the end')
      end if
      call MPI_COMM_FREE(cart, ierr)
      end

! An op of Fortran: bitwise or, which checks its datatype argument.
      subroutine myop(invec, inoutvec, len, dtype)
      implicit none
      include 'mpif.h'
      integer len, dtype, invec(len), inoutvec(len), i
      integer calls, baddt
      common /opst/ calls, baddt
      calls = calls + 1
      if (dtype .ne. MPI_INTEGER) baddt = baddt + 1
      do i = 1, len
         inoutvec(i) = ior(invec(i), inoutvec(i))
      end do
      end

      subroutine userop
      implicit none
      include 'mpif.h'
      integer rank, np
      common /tst/ rank, np
      integer calls, baddt
      common /opst/ calls, baddt
      external myop
      integer op, x(3), y(3), ierr
      logical comm
      calls = 0
      baddt = 0
      call MPI_OP_CREATE(myop, .true., op, ierr)
      call MPI_OP_COMMUTATIVE(op, comm, ierr)
      call check(comm, 'op_commutative')
      x(1) = ishft(1, rank)
      x(2) = 0
      x(3) = 7
      call MPI_ALLREDUCE(x(1), y(1), 3, MPI_INTEGER, op,
     &     MPI_COMM_WORLD, ierr)
      call check(y(1) .eq. ishft(1, np) - 1 .and. y(3) .eq. 7,
     &     'allreduce with a Fortran op')
      call check(baddt .eq. 0, 'the op sees MPI_INTEGER')
      call MPI_ALLREDUCE(calls, x(1), 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (np .gt. 1) call check(x(1) .gt. 0, 'the op was called')
      call MPI_OP_FREE(op, ierr)
      call check(op .eq. MPI_OP_NULL, 'op_free')
      end

      subroutine myerrh(comm, code)
      implicit none
      integer comm, code
      integer ncalls, lcomm, lcode
      common /errst/ ncalls, lcomm, lcode
      ncalls = ncalls + 1
      lcomm = comm
      lcode = code
      end

      subroutine errhs
      implicit none
      include 'mpif.h'
      integer rank, np
      common /tst/ rank, np
      integer ncalls, lcomm, lcode
      common /errst/ ncalls, lcomm, lcode
      external myerrh
      integer eh, eh2, d, ierr, cls, slen, x
      character*(MPI_MAX_ERROR_STRING) str
      ncalls = 0
      call MPI_COMM_CREATE_ERRHANDLER(myerrh, eh, ierr)
      call MPI_COMM_DUP(MPI_COMM_WORLD, d, ierr)
      call MPI_COMM_SET_ERRHANDLER(d, eh, ierr)
      x = 1
      call MPI_SEND(x, 1, MPI_INTEGER, np + 5, 0, d, ierr)
      call check(ierr .ne. MPI_SUCCESS, 'a send to a bad rank fails')
      call check(ncalls .eq. 1 .and. lcomm .eq. d,
     &     'the Fortran handler is called with the communicator')
      call MPI_ERROR_CLASS(lcode, cls, ierr)
      call check(cls .eq. MPI_ERR_RANK, 'the handler sees MPI_ERR_RANK')
      call MPI_ERROR_STRING(lcode, str, slen, ierr)
      call check(slen .gt. 0 .and. str(slen+1:) .eq. ' ',
     &     'error_string')
      call MPI_COMM_GET_ERRHANDLER(d, eh2, ierr)
      call check(eh2 .eq. eh, 'get_errhandler')
      call MPI_ERRHANDLER_FREE(eh2, ierr)
      call check(eh2 .eq. MPI_ERRHANDLER_NULL, 'errhandler_free')
      call MPI_COMM_CALL_ERRHANDLER(d, MPI_ERR_OTHER, ierr)
      call check(ncalls .eq. 2 .and. lcode .eq. MPI_ERR_OTHER,
     &     'comm_call_errhandler')
      call MPI_ERRHANDLER_FREE(eh, ierr)
      call MPI_COMM_SET_ERRHANDLER(d, MPI_ERRORS_RETURN, ierr)
      call MPI_SEND(x, 1, MPI_INTEGER, -7, 0, d, ierr)
      call check(ierr .ne. 0 .and. ncalls .eq. 2, 'MPI_ERRORS_RETURN')
      call MPI_COMM_FREE(d, ierr)
      end

      subroutine copyfn(old, key, extra, vin, vout, flag, ierr)
      implicit none
      include 'mpif.h'
      integer old, key, ierr
      integer(kind=MPI_ADDRESS_KIND) extra, vin, vout
      logical flag
      integer ncopy, ndel
      common /attst/ ncopy, ndel
      ncopy = ncopy + 1
      vout = vin + extra
      flag = .true.
      ierr = MPI_SUCCESS
      if (old .eq. MPI_COMM_NULL .or. key .eq. MPI_KEYVAL_INVALID)
     &     ierr = MPI_ERR_OTHER
      end

      subroutine delfn(comm, key, val, extra, ierr)
      implicit none
      include 'mpif.h'
      integer comm, key, ierr
      integer(kind=MPI_ADDRESS_KIND) val, extra
      integer ncopy, ndel
      common /attst/ ncopy, ndel
      ndel = ndel + 1
      ierr = MPI_SUCCESS
      if (comm .eq. MPI_COMM_NULL .or. key .eq. MPI_KEYVAL_INVALID .or.
     &     val .lt. 0 .or. extra .ne. 42) ierr = MPI_ERR_OTHER
      end

      subroutine attrs
      implicit none
      include 'mpif.h'
      integer ncopy, ndel
      common /attst/ ncopy, ndel
      external copyfn, delfn
      integer key, key2, d, d2, ierr
      integer(kind=MPI_ADDRESS_KIND) val, extra
      logical flag
      ncopy = 0
      ndel = 0
      extra = 42
      call MPI_COMM_CREATE_KEYVAL(copyfn, delfn, key, extra, ierr)
      call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN,
     &     MPI_COMM_NULL_DELETE_FN, key2, extra, ierr)
      call MPI_COMM_DUP(MPI_COMM_WORLD, d, ierr)
      val = 1000
      call MPI_COMM_SET_ATTR(d, key, val, ierr)
      val = 77
      call MPI_COMM_SET_ATTR(d, key2, val, ierr)
      call MPI_COMM_DUP(d, d2, ierr)
      call check(ncopy .eq. 1, 'the Fortran copy callback')
      call MPI_COMM_GET_ATTR(d2, key, val, flag, ierr)
      call check(flag .and. val .eq. 1042, 'a copied attribute')
      call MPI_COMM_GET_ATTR(d2, key2, val, flag, ierr)
      call check(flag .and. val .eq. 77, 'MPI_COMM_DUP_FN')
      call MPI_COMM_FREE(d2, ierr)
      call check(ndel .eq. 1, 'the Fortran delete callback')
      call MPI_COMM_DELETE_ATTR(d, key, ierr)
      call check(ndel .eq. 2, 'delete_attr')
      call MPI_COMM_GET_ATTR(d, key, val, flag, ierr)
      call check(.not. flag, 'a deleted attribute')
      call MPI_COMM_FREE(d, ierr)
      call MPI_COMM_FREE_KEYVAL(key, ierr)
      call check(key .eq. MPI_KEYVAL_INVALID, 'free_keyval')
      call MPI_COMM_FREE_KEYVAL(key2, ierr)
      call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, val, flag,
     &     ierr)
      call check(flag .and. val .ge. 32767, 'MPI_TAG_UB')
      end

      subroutine misc
      implicit none
      include 'mpif.h'
      integer rank, np
      common /tst/ rank, np
      integer ierr, n, info, nkeys, v, sv, prov, t, sz, pos, i
      integer pk(32), x(4), y(4)
      double precision t0, t1
      logical flag
      character*(MPI_MAX_PROCESSOR_NAME) pname
      character*(20) val
      character*(MPI_MAX_INFO_KEY) key
      t0 = MPI_WTIME()
      t1 = MPI_WTIME()
      call check(t1 .ge. t0 .and. MPI_WTICK() .gt. 0d0, 'wtime')
      call MPI_GET_PROCESSOR_NAME(pname, n, ierr)
      call check(n .gt. 0 .and. pname(n+1:) .eq. ' ', 'processor name')
      call MPI_INITIALIZED(flag, ierr)
      call check(flag, 'initialized')
      call MPI_QUERY_THREAD(prov, ierr)
      call check(prov .eq. MPI_THREAD_SINGLE, 'query_thread')
      call MPI_GET_VERSION(v, sv, ierr)
      call check(v .eq. MPI_VERSION .and. sv .eq. MPI_SUBVERSION,
     &     'get_version')

      call MPI_INFO_CREATE(info, ierr)
      call MPI_INFO_SET(info, ' colour ', 'blue  ', ierr)
      call MPI_INFO_GET_NKEYS(info, nkeys, ierr)
      call check(nkeys .eq. 1, 'info_get_nkeys')
      call MPI_INFO_GET_NTHKEY(info, 0, key, ierr)
      call check(key .eq. 'colour', 'info_get_nthkey')
      call MPI_INFO_GET(info, 'colour', 20, val, flag, ierr)
      call check(flag .and. val .eq. 'blue', 'info_get')
      call MPI_INFO_GET_VALUELEN(info, 'colour', n, flag, ierr)
      call check(flag .and. n .eq. 4, 'info_get_valuelen')
      call MPI_INFO_GET(info, 'shape', 20, val, flag, ierr)
      call check(.not. flag, 'info_get of a missing key')
      call MPI_INFO_FREE(info, ierr)
      call check(info .eq. MPI_INFO_NULL, 'info_free')

      call MPI_TYPE_CREATE_F90_REAL(15, 300, t, ierr)
      call MPI_TYPE_SIZE(t, sz, ierr)
      call check(sz .eq. 8, 'type_create_f90_real')
      call MPI_TYPE_MATCH_SIZE(MPI_TYPECLASS_INTEGER, 8, t, ierr)
      call check(t .eq. MPI_INTEGER8, 'type_match_size')

      do i = 1, 4
         x(i) = i * 11
      end do
      pos = 0
      call MPI_PACK(x(1), 4, MPI_INTEGER, pk(1), 128, pos,
     &     MPI_COMM_WORLD, ierr)
      call check(pos .eq. 16, 'pack position')
      pos = 0
      call MPI_UNPACK(pk(1), 128, pos, y(1), 4, MPI_INTEGER,
     &     MPI_COMM_WORLD, ierr)
      call check(y(4) .eq. 44 .and. pos .eq. 16, 'unpack')
      end
