! SPDX-License-Identifier: BSD-3-Clause
! TSAR's C API from Fortran OpenMP through bind(C) interfaces: a thesis-style region whose
! unchanged loop body sums i over [0, n) into a registered reduction. Exit 0 = correct.
module tsar_f
  use iso_c_binding
  implicit none
  integer(c_int), parameter :: TSAR_OK = 0, TSAR_DEVICE_ALL = 15
  interface
    integer(c_int) function tsar_init(region, name, schedule, kinds, tpi, ntimes, div) bind(C)
      import :: c_ptr, c_int, c_char
      type(c_ptr), intent(out) :: region
      character(kind=c_char), dimension(*), intent(in) :: name, schedule
      integer(c_int), value :: kinds, ntimes, div
      type(c_ptr), value :: tpi
    end function
    integer(c_int) function tsar_free(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_num_devices(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_next(region, n, b, e) bind(C)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: region
      integer(c_int64_t), value :: n
      integer(c_int64_t), intent(out) :: b, e
    end function
    integer(c_int) function tsar_loop(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_reg_reduction(region, result, identity, size, combine, ctx) bind(C)
      import :: c_ptr, c_int, c_size_t, c_funptr
      type(c_ptr), value :: region, result, identity, ctx
      integer(c_size_t), value :: size
      type(c_funptr), value :: combine
    end function
    type(c_ptr) function tsar_reduction(region, result) bind(C)
      import :: c_ptr
      type(c_ptr), value :: region, result
    end function
  end interface
contains
  subroutine add_i64(inout, in, ctx) bind(C)
    integer(c_int64_t), intent(inout) :: inout
    integer(c_int64_t), intent(in) :: in
    type(c_ptr), value :: ctx
    inout = inout + in
  end subroutine
end module

program fortran_example
  use tsar_f
  implicit none
  type(c_ptr) :: region, acc_ptr
  integer(c_int64_t), target :: total, zero
  integer(c_int64_t), pointer :: acc
  integer(c_int64_t) :: n, b, e, i
  integer(c_int) :: status, pass, next_status
  n = 1000003_c_int64_t
  zero = 0
  status = tsar_init(region, "fortran"//c_null_char, "quick"//c_null_char, TSAR_DEVICE_ALL, &
                     c_null_ptr, 0, 0)
  if (status /= TSAR_OK) stop 1
  status = tsar_reg_reduction(region, c_loc(total), c_loc(zero), 8_c_size_t, c_funloc(add_i64), c_null_ptr)
  if (status /= TSAR_OK) stop 2
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
      stop 3
    end if
  end do
  status = tsar_free(region)
  print *, "fortran-example: sums correct on", 3, "passes"
end program
