! SPDX-License-Identifier: BSD-3-Clause
! TSAR from Fortran through the installed module `tsar` (tsar/fortran/tsar.f90): the version,
! a bad device list's message, a registered SAXPY run by tsar_run and tsar_run_range with a
! bind(C) body (its region from the chunk), and a thesis-style region whose unchanged
! OpenMP loop sums i over [0, n) into a registered reduction. Each result is checked against
! a serial loop. Exit 0 = correct.
module fortran_example_bodies
  use tsar
  implicit none
  type, bind(C) :: saxpy_args
    type(c_ptr) :: x, y
    integer(c_int64_t) :: n
    real(c_double) :: a
  end type
contains
  ! y(i) = a * x(i) + y(i) for the chunk's iterations (iteration i is element i + 1).
  subroutine saxpy_body(chunk, arg) bind(C)
    type(tsar_chunk), intent(in) :: chunk
    type(c_ptr), value :: arg
    type(saxpy_args), pointer :: args
    real(c_double), pointer :: x(:), y(:)
    integer(c_int64_t) :: i
    call c_f_pointer(arg, args)
    call c_f_pointer(tsar_mem(chunk%region, args%x), x, [args%n])
    call c_f_pointer(tsar_mem(chunk%region, args%y), y, [args%n])
    do i = chunk%begin, chunk%end - 1
      y(i + 1) = args%a * x(i + 1) + y(i + 1)
    end do
  end subroutine

  subroutine add_i64(inout, in, ctx) bind(C)
    integer(c_int64_t), intent(inout) :: inout
    integer(c_int64_t), intent(in) :: in
    type(c_ptr), value :: ctx
    inout = inout + in
  end subroutine
end module

program fortran_example
  use fortran_example_bodies
  implicit none
  type(c_ptr) :: region, acc_ptr
  type(saxpy_args), target :: args
  real(c_double), allocatable, target :: x(:), y(:), want(:)
  integer(c_int64_t), target :: total, zero
  integer(c_int64_t), pointer :: acc
  integer(c_int64_t) :: n, b, e, i
  integer(c_int) :: status, pass, next_status
  character(:), allocatable :: version

  version = tsar_version()
  if (len(version) < 5 .or. index(version, ".") == 0) then
    print *, "tsar_version: '", version, "'"
    stop 1
  end if
  if (tsar_set_devices("cpu:nope") /= TSAR_ERR_DEVICES) stop 2
  if (index(tsar_last_error(), "cpu:nope") == 0) then
    print *, "message does not name the entry: ", tsar_last_error()
    stop 3
  end if
  if (tsar_set_devices("") /= TSAR_OK) stop 4  ! blank: the default list

  ! SAXPY over n elements, then again over the interior [1, n - 1) only.
  n = 10007
  allocate (x(n), y(n), want(n))
  do i = 1, n
    x(i) = real(i, c_double)
    y(i) = 1.0_c_double
  end do
  want = 2.0_c_double * x + 1.0_c_double
  want(2:n - 1) = want(2:n - 1) + 2.0_c_double * x(2:n - 1)
  args = saxpy_args(c_loc(x), c_loc(y), n, 2.0_c_double)
  status = tsar_init(region, "fortran-saxpy", "adaptive", TSAR_DEVICE_ALL, c_null_ptr, 0, 0)
  if (status /= TSAR_OK) then
    print *, tsar_last_error()
    stop 5
  end if
  if (tsar_reg_mem(region, c_loc(x), 8_c_size_t, int(n, c_size_t), 0_c_size_t, &
                   TSAR_ASSOC_ROWS, TSAR_MEM_IN) /= TSAR_OK) stop 6
  if (tsar_reg_mem(region, c_loc(y), 8_c_size_t, int(n, c_size_t), 0_c_size_t, &
                   TSAR_ASSOC_ROWS, TSAR_MEM_INOUT) /= TSAR_OK) stop 7
  if (tsar_run(region, n, c_funloc(saxpy_body), c_loc(args)) /= TSAR_OK) stop 8
  if (tsar_run_range(region, 1_c_int64_t, n - 1, c_funloc(saxpy_body), c_loc(args)) /= TSAR_OK) &
    stop 9
  if (any(abs(y - want) > 1e-12_c_double * abs(want))) then
    print *, "saxpy: ", count(abs(y - want) > 1e-12_c_double * abs(want)), " of ", n, &
      " elements wrong"
    stop 10
  end if
  status = tsar_free(region)

  ! The reduction: the accumulator starts from the identity each pass; the program resets
  ! the result it adds into.
  n = 1000003_c_int64_t
  zero = 0
  status = tsar_init(region, "fortran", "quick", TSAR_DEVICE_ALL, c_null_ptr, 0, 0)
  if (status /= TSAR_OK) stop 11
  status = tsar_reg_reduction(region, c_loc(total), c_loc(zero), 8_c_size_t, c_funloc(add_i64), &
                              c_null_ptr)
  if (status /= TSAR_OK) stop 12
  do pass = 1, 3
    total = 0
    !$omp parallel num_threads(tsar_num_devices(region)) private(b, e, i, acc_ptr, acc, next_status)
    acc_ptr = tsar_reduction(region, c_loc(total))
    call c_f_pointer(acc_ptr, acc)
    do
      next_status = tsar_next(region, n, b, e)
      do i = b, e - 1
        acc = acc + i
      end do
      if (tsar_loop(region) == 0) exit
    end do
    !$omp end parallel
    if (total /= n * (n - 1) / 2) then
      print *, "pass", pass, ": sum", total, "expected", n * (n - 1) / 2
      stop 13
    end if
  end do
  status = tsar_free(region)
  print *, "fortran-example: TSAR ", version, ": saxpy and sums correct"
end program
