! SPDX-License-Identifier: MIT
! fortran_rma: one-sided communication through the mpi_f08 module: a
! window over a Fortran array (MPI_Win_create) and one MPI_Win_allocate
! gives (TYPE(C_PTR), C_F_POINTER), MPI_Put, MPI_Get and MPI_Accumulate
! in fence epochs, MPI_Fetch_and_op under a passive lock; the predefined
! attributes as Fortran sees them (the base address, the size and disp
! unit as values), a keyval of the f08 interfaces whose copy and delete
! callbacks run (delete at MPI_Win_delete_attr and at MPI_Win_free), an
! error handler of the f08 interface raised by a bad target rank and
! given the window, a name, the group.  A failure aborts the job.
module frma_state
  use mpi_f08
  implicit none
  integer :: rank, np
  integer :: errh_calls = 0, errh_code = 0, deletes = 0
  integer(kind=MPI_ADDRESS_KIND) :: deleted_val = 0
  type(MPI_Win) :: errh_win
contains
  include 'ftest_check.inc'

  subroutine on_error(win, error_code)
    type(MPI_Win) :: win
    integer :: error_code
    errh_calls = errh_calls + 1
    errh_win = win
    errh_code = error_code
  end subroutine on_error

  subroutine copy_attr(oldwin, win_keyval, extra_state, attribute_val_in, &
                       attribute_val_out, flag, ierror)
    type(MPI_Win) :: oldwin
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    ! Windows are never copied: MPI calls no copy callback.
    call check(.false., 'a window attribute copied')
    attribute_val_out = attribute_val_in + extra_state + oldwin%MPI_VAL + win_keyval
    flag = .false.
    ierror = MPI_SUCCESS
  end subroutine copy_attr

  subroutine delete_attr(win, win_keyval, attribute_val, extra_state, ierror)
    type(MPI_Win) :: win
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    call check(win /= MPI_WIN_NULL .and. win_keyval /= MPI_KEYVAL_INVALID, &
               'delete callback arguments')
    call check(extra_state == 7, 'delete callback extra state')
    deletes = deletes + 1
    deleted_val = attribute_val
    ierror = MPI_SUCCESS
  end subroutine delete_attr
end module frma_state

program fortran_rma
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  use frma_state
  implicit none
  integer, parameter :: n = 8
  integer, target :: mem(n)
  integer :: buf(n), got(n), i, right, left, key, dunit, namelen, gsize, res, mine
  integer(kind=MPI_ADDRESS_KIND) :: val, wsize, base, disp
  integer(kind=MPI_ADDRESS_KIND), parameter :: isz = 4
  logical :: flag
  type(MPI_Win) :: win, awin
  type(MPI_Errhandler) :: errh
  type(MPI_Group) :: wgroup, cgroup
  type(c_ptr) :: p
  integer, pointer :: amem(:)
  character(len=MPI_MAX_OBJECT_NAME) :: name

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)

  ! A window over a Fortran array; its attributes.
  mem = -1
  call MPI_Win_create(mem, n * isz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_get_attr(win, MPI_WIN_BASE, base, flag)
  call check(flag .and. base == loc_of(mem), &
             'MPI_WIN_BASE is the array''s address')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, wsize, flag)
  call check(flag .and. wsize == n * isz, 'MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, val, flag)
  call check(flag .and. val == 4, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, val, flag)
  call check(flag .and. val == MPI_WIN_FLAVOR_CREATE, 'MPI_WIN_CREATE_FLAVOR')
  call MPI_Win_get_attr(win, MPI_WIN_MODEL, val, flag)
  call check(flag .and. val == MPI_WIN_UNIFIED, 'MPI_WIN_MODEL')

  ! Put to the right, get from the left, accumulate into everybody.
  buf = [(100 * rank + i, i = 1, n)]
  call MPI_Win_fence(0, win)
  call MPI_Put(buf, n / 2, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, n / 2, &
               MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(mem)
  call check(all(mem(1:n/2) == [(100 * left + i, i = 1, n / 2)]), 'MPI_Put')
  call check(all(mem(n/2+1:) == -1), 'MPI_Put wrote past its count')
  call MPI_Get(got, n / 2, MPI_INTEGER, left, 0_MPI_ADDRESS_KIND, n / 2, &
               MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(all(got(1:n/2) == [(100 * mod(left + np - 1, np) + i, i = 1, n / 2)]), &
             'MPI_Get')
  call MPI_Win_fence(0, win)
  mem(n) = 0
  call MPI_F_sync_reg(mem)
  call MPI_Win_fence(0, win)
  mine = rank + 1
  do i = 0, np - 1
    call MPI_Accumulate(mine, 1, MPI_INTEGER, i, int(n - 1, MPI_ADDRESS_KIND), &
                        1, MPI_INTEGER, MPI_SUM, win)
  end do
  call MPI_Win_fence(0, win)
  ! (What the compiler may hold of mem in a register is reloaded.)
  call MPI_F_sync_reg(mem)
  call check(mem(n) == np * (np + 1) / 2, 'MPI_Accumulate')

  ! A keyval of the f08 interfaces; delete runs at delete and at free.
  call MPI_Win_create_keyval(copy_attr, delete_attr, key, 7_MPI_ADDRESS_KIND)
  call MPI_Win_set_attr(win, key, 41_MPI_ADDRESS_KIND)
  call MPI_Win_get_attr(win, key, val, flag)
  call check(flag .and. val == 41, 'a window attribute')
  call MPI_Win_delete_attr(win, key)
  call check(deletes == 1 .and. deleted_val == 41, 'MPI_Win_delete_attr')
  call MPI_Win_get_attr(win, key, val, flag)
  call check(.not. flag, 'a deleted attribute')
  call MPI_Win_set_attr(win, key, 42_MPI_ADDRESS_KIND)

  ! An error handler: a bad target rank is reported on the window.
  call MPI_Win_create_errhandler(on_error, errh)
  call MPI_Win_set_errhandler(win, errh)
  call MPI_Win_fence(0, win)
  call MPI_Put(buf, 1, MPI_INTEGER, np, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, res)
  call check(res /= MPI_SUCCESS .and. errh_calls == 1 .and. errh_code == res .and. &
             errh_win == win, 'the window''s error handler')
  call MPI_Win_fence(0, win)
  call MPI_Errhandler_free(errh)

  ! Its name and group.
  call MPI_Win_set_name(win, 'fortran window')
  call MPI_Win_get_name(win, name, namelen)
  call check(name == 'fortran window' .and. namelen == 14, 'MPI_Win_get_name')
  call MPI_Win_get_group(win, wgroup)
  call MPI_Comm_group(MPI_COMM_WORLD, cgroup)
  call MPI_Group_compare(wgroup, cgroup, res)
  call MPI_Group_size(wgroup, gsize)
  call check(res == MPI_IDENT .and. gsize == np, 'MPI_Win_get_group')
  call MPI_Group_free(wgroup)
  call MPI_Group_free(cgroup)

  call MPI_Win_free(win)
  call check(win == MPI_WIN_NULL, 'MPI_Win_free sets MPI_WIN_NULL')
  call check(deletes == 2 .and. deleted_val == 42, 'MPI_Win_free deletes attributes')
  call MPI_Win_free_keyval(key)

  ! MPI_Win_allocate: memory Fortran reaches through C_F_POINTER.
  call MPI_Win_allocate(n * isz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, awin)
  call c_f_pointer(p, amem, [n])
  amem = 0
  call MPI_Win_get_attr(awin, MPI_WIN_DISP_UNIT, val, flag)
  dunit = int(val)
  call MPI_Win_get_attr(awin, MPI_WIN_CREATE_FLAVOR, val, flag)
  call check(dunit == 4 .and. val == MPI_WIN_FLAVOR_ALLOCATE, 'allocated window')
  call MPI_Barrier(MPI_COMM_WORLD)
  ! Every rank adds its rank + 1 to element 2 of rank 0, under a lock.
  disp = 1
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, awin)
  call MPI_Fetch_and_op(mine, res, MPI_INTEGER, 0, disp, MPI_SUM, awin)
  call MPI_Win_unlock(0, awin)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, awin)
    call MPI_F_sync_reg(amem)
    call check(amem(2) == np * (np + 1) / 2, 'MPI_Fetch_and_op')
    call MPI_Win_unlock(0, awin)
  end if
  call MPI_Win_free(awin)

  call MPI_Finalize()
  if (rank == 0) print '(a)', 'fortran_rma: ok'
contains
  ! The address of the window's array, as an MPI_Aint.
  function loc_of(a) result(addr)
    integer, target :: a(:)
    integer(kind=MPI_ADDRESS_KIND) :: addr
    call MPI_Get_address(a, addr)
  end function loc_of
end program fortran_rma
