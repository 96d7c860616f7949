! SPDX-License-Identifier: BSD-3-Clause
! The Fortran module `tsar`: TSAR's C API (tsar.h) through iso_c_binding, so Fortran codes call
! TSAR as C codes do -- the same names, arguments and status codes (see the C headers for what
! each call does and returns). Two conveniences where Fortran and C differ:
!  - string arguments are ordinary Fortran strings (no c_null_char needed); a blank string
!    stands for NULL, the C API's default (tsar_set_devices(""): the default device list);
!  - strings TSAR returns (tsar_version, tsar_status_string, tsar_last_error, tsar_get_schedule)
!    come back as character(:), allocatable.
! Pointers are type(c_ptr): pass c_loc(x) for a buffer, c_funloc(body) for a body, and turn
! what tsar_mem, tsar_place_mem or tsar_reduction returns into an array with c_f_pointer.
! Iteration i of a region (0-based, as in C) is element i+1 of a 1-based Fortran array; a ROWS
! association of a Fortran matrix a(m, n) (column-major) maps iteration j to column j+1:
! register it as n rows of m elements.
! NUMA partitions (tsar/partition.h): a place body is a bind(C) subroutine with value
! arguments (tsar_place_fn: place, begin, end, arg), its inner loops' bodies are tsar_body_fn.
! tsar_array_desc and tsar_indirect_desc are the C structs: their name is c_null_ptr or c_loc
! of a character(kind=c_char) variable ending in c_null_char (copied when mapped); extent and
! stride are outermost first and part_dim is 0-based, so a matrix a(m, n) split by columns is
! dims 2, extent [n, m, 0], part_dim 0.
!
!   use tsar
!   type(c_ptr) :: r
!   if (tsar_init(r, "saxpy", "adaptive", TSAR_DEVICE_ALL, c_null_ptr, 0, 0) /= TSAR_OK) &
!     print *, tsar_last_error()
!   status = tsar_reg_mem(r, c_loc(x), 8_c_size_t, n, 0_c_size_t, TSAR_ASSOC_ROWS, TSAR_MEM_IN)
!   status = tsar_run(r, n, c_funloc(body), c_loc(args))
module tsar
  use, intrinsic :: iso_c_binding
  implicit none
  private :: c_string, to_c, blank_or

  ! tsar/status.h
  integer(c_int), parameter :: TSAR_OK = 0, TSAR_ERR_NULL = 1, TSAR_ERR_INVALID = 2, &
                               TSAR_ERR_SCHEDULE = 3, TSAR_ERR_DEVICES = 4, &
                               TSAR_ERR_REGISTERED = 5, TSAR_ERR_UNKNOWN = 6, &
                               TSAR_ERR_THREADS = 7, TSAR_ERR_STATE = 8, TSAR_ERR_CANCELED = 9, &
                               TSAR_ERR_IO = 10, TSAR_ERR_SYSTEM = 11, TSAR_ERR_UNSUPPORTED = 12

  ! tsar/devices.h
  integer(c_int), parameter :: TSAR_DEVICE_CPU = 1, TSAR_DEVICE_OMP_TARGET = 2, &
                               TSAR_DEVICE_CUDA = 4, TSAR_DEVICE_EMULATED = 8, &
                               TSAR_DEVICE_ACCEL = 14, TSAR_DEVICE_ALL = 15
  integer(c_int), parameter :: TSAR_GPU_CORES_RESERVE = 0, TSAR_GPU_CORES_SHARE = 1

  type, bind(C) :: tsar_device_info
    integer(c_int) :: kind, id, numa_node, control_core, num_cores, omp_device, retired
    real(c_double) :: peak_gflops
    character(kind=c_char) :: key(32)
    integer(c_int) :: control_cpu
  end type

  ! tsar/region.h
  type, bind(C) :: tsar_chunk
    integer(c_int64_t) :: begin, end
    integer(c_int) :: worker, kind, device_id, omp_device
    type(c_ptr) :: stream, region
  end type

  ! tsar/memory.h
  integer(c_int), parameter :: TSAR_MEM_IN = 1, TSAR_MEM_OUT = 2, TSAR_MEM_INOUT = 3, &
                               TSAR_MEM_PERSIST = 4, TSAR_MEM_PAD = 8, TSAR_MEM_RESIDENT = 16, &
                               TSAR_MEM_OVERWRITE = 32, TSAR_MEM_NO_PIN = 64
  integer(c_int), parameter :: TSAR_ASSOC_FULL = 0, TSAR_ASSOC_ROWS = 1, TSAR_ASSOC_COLS = 2, &
                               TSAR_ASSOC_ROWS_COLS = 3

  type, bind(C) :: tsar_mem_desc
    integer(c_size_t) :: elem_size, rows, cols, row_stride, halo
    integer(c_int) :: assoc, flags
  end type

  type, bind(C) :: tsar_mem_layout
    type(c_ptr) :: base
    integer(c_size_t) :: row_stride
    integer(c_int64_t) :: row_offset, col_offset
  end type

  ! tsar/data.h
  type, bind(C) :: tsar_data_stats
    integer(c_int64_t) :: bytes_to_device, bytes_from_device, device_rows
    integer(c_int) :: copies
  end type

  ! tsar/stats.h
  integer(c_int), parameter :: TSAR_SHARE_OWN = 0, TSAR_SHARE_STEAL = 1, TSAR_SHARE_CHUNKS = 2

  type, bind(C) :: tsar_pass_stats
    integer(c_int64_t) :: pass, n
    integer(c_int) :: sub_passes, canceled
    real(c_double) :: seconds, schedule_seconds
    integer(c_int) :: cpu_sharing
  end type

  type, bind(C) :: tsar_device_stats
    integer(c_int64_t) :: iterations, chunks
    real(c_double) :: busy_seconds, idle_seconds, time_per_iteration
    integer(c_int) :: kind, retired
    integer(c_int64_t) :: bytes_to_device, bytes_from_device, bytes_peer
    integer(c_int64_t) :: stolen_iterations
    integer(c_int) :: late
  end type

  ! tsar/partition.h
  integer(c_int), parameter :: TSAR_POLICY_COHERENT = 0, TSAR_POLICY_INTERLEAVE = 1, &
                               TSAR_POLICY_MIGRATE = 2, TSAR_POLICY_MIGRATE_INTERLEAVED = 3, &
                               TSAR_POLICY_REPLICATE = 4
  integer(c_int), parameter :: TSAR_LEVEL_PLACES = 0, TSAR_LEVEL_DEVICES = 1
  integer(c_int), parameter :: TSAR_UPDATE_PADDING_NEARBY = 0, TSAR_UPDATE_PADDING_FROM = 1, &
                               TSAR_UPDATE_PADDING_TO = 2, TSAR_UPDATE_MERGE = 3

  type, bind(C) :: tsar_place_info
    integer(c_int) :: numa_node, os_node, num_devices, num_cores
    character(kind=c_char) :: devices(128)
  end type

  type, bind(C) :: tsar_array_desc
    type(c_ptr) :: name
    integer(c_size_t) :: elem_size
    integer(c_int) :: dims
    integer(c_size_t) :: extent(3), stride(3)
    integer(c_int) :: part_dim
    integer(c_size_t) :: halo
    integer(c_int) :: flags
  end type

  type, bind(C) :: tsar_indirect_desc
    type(c_ptr) :: name
    integer(c_size_t) :: elem_size, count
    type(c_ptr) :: map
    integer(c_size_t) :: map_size, map_count
    integer(c_int) :: flags
  end type

  type, bind(C) :: tsar_array_view
    type(c_ptr) :: base
    integer(c_int) :: dims
    integer(c_size_t) :: stride(3)
    integer(c_int64_t) :: offset(3), extent(3)
  end type

  type, bind(C) :: tsar_place_stats
    integer(c_int64_t) :: begin, end
    real(c_double) :: seconds, timed_seconds, wait_seconds, placement_seconds
    integer(c_int64_t) :: pages_moved, pages_failed, pages_absent, bytes_replicated, &
                          bytes_merged, halo_bytes
    integer(c_int) :: numa_node
  end type

  ! The procedures TSAR calls back (pass them with c_funloc).
  abstract interface
    subroutine tsar_body_fn(chunk, arg) bind(C)
      import :: tsar_chunk, c_ptr
      type(tsar_chunk), intent(in) :: chunk
      type(c_ptr), value :: arg
    end subroutine
    subroutine tsar_combine_fn(inout, in, ctx) bind(C)
      import :: c_ptr
      type(c_ptr), value :: inout, in, ctx
    end subroutine
    subroutine tsar_place_fn(place, begin, end, arg) bind(C)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: place, arg
      integer(c_int64_t), value :: begin, end
    end subroutine
  end interface

  ! The C API, called directly.
  interface
    integer(c_int) function tsar_last_status() bind(C)
      import :: c_int
    end function

    integer(c_int) function tsar_set_gpu_cores(policy) bind(C)
      import :: c_int
      integer(c_int), value :: policy
    end function
    integer(c_int) function tsar_count_devices(kinds, count) bind(C)
      import :: c_int
      integer(c_int), value :: kinds
      integer(c_int), intent(out) :: count
    end function

    integer(c_int) function tsar_free(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_num_devices(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_get_device_info(region, device, info) bind(C)
      import :: c_ptr, c_int, tsar_device_info
      type(c_ptr), value :: region
      integer(c_int), value :: device
      type(tsar_device_info), intent(out) :: info
    end function
    integer(c_int) function tsar_set_time_per_iteration(region, device, seconds) bind(C)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: region
      integer(c_int), value :: device
      real(c_double), value :: seconds
    end function
    integer(c_int) function tsar_set_backoff(region, passes) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
      integer(c_int), value :: passes
    end function
    integer(c_int) function tsar_run(region, n, body, arg) bind(C)
      import :: c_ptr, c_int, c_int64_t, c_funptr
      type(c_ptr), value :: region, arg
      integer(c_int64_t), value :: n
      type(c_funptr), value :: body
    end function
    integer(c_int) function tsar_run_range(region, first, end, body, arg) bind(C)
      import :: c_ptr, c_int, c_int64_t, c_funptr
      type(c_ptr), value :: region, arg
      integer(c_int64_t), value :: first, end
      type(c_funptr), value :: body
    end function
    integer(c_int) function tsar_cancel(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_next(region, n, begin, end) bind(C)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: region
      integer(c_int64_t), value :: n
      integer(c_int64_t), intent(out) :: begin, end
    end function
    integer(c_int) function tsar_next_range(region, first, end, begin, end_out) bind(C)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: region
      integer(c_int64_t), value :: first, end
      integer(c_int64_t), intent(out) :: begin, end_out
    end function
    integer(c_int) function tsar_loop(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_get_type(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_get_device(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_get_worker(region) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region
    end function
    type(c_ptr) function tsar_get_stream(region) bind(C)
      import :: c_ptr
      type(c_ptr), value :: region
    end function

    integer(c_int) function tsar_reg_mem_desc(region, host, desc) bind(C)
      import :: c_ptr, c_int, tsar_mem_desc
      type(c_ptr), value :: region, host
      type(tsar_mem_desc), intent(in) :: desc
    end function
    integer(c_int) function tsar_reg_mem(region, host, elem_size, count, halo, assoc, flags) &
        bind(C)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: region, host
      integer(c_size_t), value :: elem_size, count, halo
      integer(c_int), value :: assoc, flags
    end function
    integer(c_int) function tsar_reg_mem_2d(region, host, elem_size, rows, cols, row_stride, &
                                            halo, assoc, flags) bind(C)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: region, host
      integer(c_size_t), value :: elem_size, rows, cols, row_stride, halo
      integer(c_int), value :: assoc, flags
    end function
    type(c_ptr) function tsar_mem(region, host) bind(C)
      import :: c_ptr
      type(c_ptr), value :: region, host
    end function
    integer(c_int) function tsar_mem_layout_get(region, host, layout) bind(C)
      import :: c_ptr, c_int, tsar_mem_layout
      type(c_ptr), value :: region, host
      type(tsar_mem_layout), intent(out) :: layout
    end function
    integer(c_int) function tsar_unreg_mem(region, host) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region, host
    end function
    type(c_ptr) function tsar_host_alloc(bytes) bind(C)
      import :: c_ptr, c_size_t
      integer(c_size_t), value :: bytes
    end function
    subroutine tsar_host_free(p) bind(C)
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine
    integer(c_int) function tsar_retarget_mem(region, old_host, new_host) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region, old_host, new_host
    end function
    integer(c_int) function tsar_swap_mem(region, a, b) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region, a, b
    end function
    integer(c_int) function tsar_mem_invalidate(region, host) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region, host
    end function
    integer(c_int) function tsar_mem_sync(region, host) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region, host
    end function

    integer(c_int) function tsar_data_create(data) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: data
    end function
    integer(c_int) function tsar_data_free(data) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: data
    end function
    integer(c_int) function tsar_data_map(data, host, desc) bind(C)
      import :: c_ptr, c_int, tsar_mem_desc
      type(c_ptr), value :: data, host
      type(tsar_mem_desc), intent(in) :: desc
    end function
    integer(c_int) function tsar_data_unmap(data, host) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: data, host
    end function
    integer(c_int) function tsar_data_attach(region, data) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region, data
    end function
    integer(c_int) function tsar_data_update_host(data, host) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: data, host
    end function
    integer(c_int) function tsar_data_update_host_rows(data, host, first_row, rows) bind(C)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: data, host
      integer(c_size_t), value :: first_row, rows
    end function
    integer(c_int) function tsar_data_update_device(data, host) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: data, host
    end function
    integer(c_int) function tsar_data_update_device_rows(data, host, first_row, rows) bind(C)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: data, host
      integer(c_size_t), value :: first_row, rows
    end function
    integer(c_int) function tsar_data_get_stats(data, host, stats) bind(C)
      import :: c_ptr, c_int, tsar_data_stats
      type(c_ptr), value :: data, host
      type(tsar_data_stats), intent(out) :: stats
    end function

    integer(c_int) function tsar_reg_reduction(region, result, identity, size, combine, ctx) &
        bind(C)
      import :: c_ptr, c_int, c_size_t, c_funptr
      type(c_ptr), value :: region, result, identity, ctx
      integer(c_size_t), value :: size
      type(c_funptr), value :: combine
    end function
    type(c_ptr) function tsar_reduction(region, result) bind(C)
      import :: c_ptr
      type(c_ptr), value :: region, result
    end function
    integer(c_int) function tsar_unreg_reduction(region, result) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: region, result
    end function

    integer(c_int64_t) function tsar_num_passes(region) bind(C)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: region
    end function
    integer(c_int) function tsar_get_pass_stats(region, pass, stats, devices, capacity) bind(C)
      import :: c_ptr, c_int, c_int64_t, tsar_pass_stats, tsar_device_stats
      type(c_ptr), value :: region
      integer(c_int64_t), value :: pass
      type(tsar_pass_stats), intent(out) :: stats
      type(tsar_device_stats), intent(out) :: devices(*)
      integer(c_int), value :: capacity
    end function

    integer(c_int) function tsar_partition_free(part) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: part
    end function
    integer(c_int) function tsar_partition_num_places(part) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: part
    end function
    integer(c_int) function tsar_partition_get_place_info(part, place, info) bind(C)
      import :: c_ptr, c_int, tsar_place_info
      type(c_ptr), value :: part
      integer(c_int), value :: place
      type(tsar_place_info), intent(out) :: info
    end function
    integer(c_int) function tsar_set_mem_policy(part, level, policy) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: part
      integer(c_int), value :: level, policy
    end function
    integer(c_int) function tsar_bind_partition(part, loop) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: part
      integer(c_int), value :: loop
    end function
    integer(c_int) function tsar_partition_set_rebalance(part, passes) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: part
      integer(c_int), value :: passes
    end function
    integer(c_int) function tsar_partition_map_array(part, host, desc) bind(C)
      import :: c_ptr, c_int, tsar_array_desc
      type(c_ptr), value :: part, host
      type(tsar_array_desc), intent(in) :: desc
    end function
    integer(c_int) function tsar_partition_map_segmented(part, host, desc) bind(C)
      import :: c_ptr, c_int, tsar_indirect_desc
      type(c_ptr), value :: part, host
      type(tsar_indirect_desc), intent(in) :: desc
    end function
    integer(c_int) function tsar_partition_map_indexed(part, host, desc) bind(C)
      import :: c_ptr, c_int, tsar_indirect_desc
      type(c_ptr), value :: part, host
      type(tsar_indirect_desc), intent(in) :: desc
    end function
    integer(c_int) function tsar_partition_unmap(part, host) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: part, host
    end function
    integer(c_int) function tsar_partition_run(part, n, body, arg) bind(C)
      import :: c_ptr, c_int, c_int64_t, c_funptr
      type(c_ptr), value :: part, arg
      integer(c_int64_t), value :: n
      type(c_funptr), value :: body
    end function
    integer(c_int) function tsar_place_index(place) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: place
    end function
    integer(c_int) function tsar_place_for(place, loop, begin, end, body, arg) bind(C)
      import :: c_ptr, c_int, c_int64_t, c_funptr
      type(c_ptr), value :: place, arg
      integer(c_int), value :: loop
      integer(c_int64_t), value :: begin, end
      type(c_funptr), value :: body
    end function
    integer(c_int) function tsar_place_barrier(place) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: place
    end function
    integer(c_int) function tsar_place_update(place, host, what) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: place, host
      integer(c_int), value :: what
    end function
    integer(c_int) function tsar_place_cancel(place) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: place
    end function
    type(c_ptr) function tsar_place_mem(place, host) bind(C)
      import :: c_ptr
      type(c_ptr), value :: place, host
    end function
    integer(c_int) function tsar_place_view(place, host, view) bind(C)
      import :: c_ptr, c_int, tsar_array_view
      type(c_ptr), value :: place, host
      type(tsar_array_view), intent(out) :: view
    end function
    integer(c_int64_t) function tsar_partition_num_passes(part) bind(C)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: part
    end function
    integer(c_int) function tsar_partition_get_pass_stats(part, pass, stats, places, capacity) &
        bind(C)
      import :: c_ptr, c_int, c_int64_t, tsar_pass_stats, tsar_place_stats
      type(c_ptr), value :: part
      integer(c_int64_t), value :: pass
      type(tsar_pass_stats), intent(out) :: stats
      type(tsar_place_stats), intent(out) :: places(*)
      integer(c_int), value :: capacity
    end function
    integer(c_int) function tsar_mem_location(addr, bytes, nodes, capacity, pages) bind(C)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: addr
      integer(c_size_t), value :: bytes, capacity
      integer(c_int), intent(out) :: nodes(*)
      integer(c_size_t), intent(out) :: pages
    end function
    integer(c_int) function tsar_num_numa_nodes() bind(C)
      import :: c_int
    end function
  end interface

contains

  ! A C string as a Fortran string ("" for NULL).
  function c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    interface
      integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
        import :: c_ptr, c_size_t
        type(c_ptr), value :: s
      end function
    end interface
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! A Fortran string as a NUL-terminated C string (trailing blanks dropped).
  function to_c(s) result(c)
    character(*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: c
    c = trim(s)//c_null_char
  end function

  ! The address of a C string, or NULL for a blank one.
  function blank_or(c) result(p)
    character(kind=c_char, len=*), target, intent(in) :: c
    type(c_ptr) :: p
    if (len(c) <= 1) then
      p = c_null_ptr
    else
      p = c_loc(c)
    end if
  end function

  function tsar_version() result(s)
    character(:), allocatable :: s
    interface
      type(c_ptr) function c_tsar_version() bind(C, name="tsar_version")
        import :: c_ptr
      end function
    end interface
    s = c_string(c_tsar_version())
  end function

  function tsar_status_string(status) result(s)
    integer(c_int), intent(in) :: status
    character(:), allocatable :: s
    interface
      type(c_ptr) function c_tsar_status_string(status) bind(C, name="tsar_status_string")
        import :: c_ptr, c_int
        integer(c_int), value :: status
      end function
    end interface
    s = c_string(c_tsar_status_string(status))
  end function

  function tsar_last_error() result(s)
    character(:), allocatable :: s
    interface
      type(c_ptr) function c_tsar_last_error() bind(C, name="tsar_last_error")
        import :: c_ptr
      end function
    end interface
    s = c_string(c_tsar_last_error())
  end function

  integer(c_int) function tsar_set_devices(spec)
    character(*), intent(in) :: spec
    character(kind=c_char, len=:), allocatable, target :: c
    interface
      integer(c_int) function c_tsar_set_devices(spec) bind(C, name="tsar_set_devices")
        import :: c_ptr, c_int
        type(c_ptr), value :: spec
      end function
    end interface
    c = to_c(spec)
    tsar_set_devices = c_tsar_set_devices(blank_or(c))
  end function

  integer(c_int) function tsar_init(region, name, schedule, device_kinds, time_per_iteration, &
                                    num_times, div)
    type(c_ptr), intent(out) :: region
    character(*), intent(in) :: name, schedule
    integer(c_int), intent(in) :: device_kinds, num_times, div
    type(c_ptr), intent(in) :: time_per_iteration
    character(kind=c_char, len=:), allocatable, target :: cname, cschedule
    interface
      integer(c_int) function c_tsar_init(region, name, schedule, kinds, tpi, ntimes, div) &
          bind(C, name="tsar_init")
        import :: c_ptr, c_int
        type(c_ptr), intent(out) :: region
        type(c_ptr), value :: name, schedule, tpi
        integer(c_int), value :: kinds, ntimes, div
      end function
    end interface
    cname = to_c(name)
    cschedule = to_c(schedule)
    tsar_init = c_tsar_init(region, blank_or(cname), blank_or(cschedule), device_kinds, &
                            time_per_iteration, num_times, div)
  end function

  ! The region's schedule ("split:10"); "" with tsar_last_status() set on failure.
  function tsar_get_schedule(region) result(s)
    type(c_ptr), intent(in) :: region
    character(:), allocatable :: s
    character(kind=c_char) :: buf(128)
    integer :: i
    interface
      integer(c_int) function c_tsar_get_schedule(region, buf, size) &
          bind(C, name="tsar_get_schedule")
        import :: c_ptr, c_int, c_size_t, c_char
        type(c_ptr), value :: region
        character(kind=c_char) :: buf(*)
        integer(c_size_t), value :: size
      end function
    end interface
    s = ""
    if (c_tsar_get_schedule(region, buf, int(size(buf), c_size_t)) /= TSAR_OK) return
    do i = 1, size(buf)
      if (buf(i) == c_null_char) exit
      s = s//buf(i)
    end do
  end function

  integer(c_int) function tsar_write_trace(region, path)
    type(c_ptr), intent(in) :: region
    character(*), intent(in) :: path
    character(kind=c_char, len=:), allocatable, target :: c
    interface
      integer(c_int) function c_tsar_write_trace(region, path) bind(C, name="tsar_write_trace")
        import :: c_ptr, c_int
        type(c_ptr), value :: region, path
      end function
    end interface
    c = to_c(path)
    tsar_write_trace = c_tsar_write_trace(region, c_loc(c))
  end function

  integer(c_int) function tsar_partition_init(part, name, places, outer_schedule, &
                                              inner_schedule, device_kinds)
    type(c_ptr), intent(out) :: part
    character(*), intent(in) :: name, places, outer_schedule, inner_schedule
    integer(c_int), intent(in) :: device_kinds
    character(kind=c_char, len=:), allocatable, target :: cname, cplaces, couter, cinner
    interface
      integer(c_int) function c_tsar_partition_init(part, name, places, outer, inner, kinds) &
          bind(C, name="tsar_partition_init")
        import :: c_ptr, c_int
        type(c_ptr), intent(out) :: part
        type(c_ptr), value :: name, places, outer, inner
        integer(c_int), value :: kinds
      end function
    end interface
    cname = to_c(name)
    cplaces = to_c(places)
    couter = to_c(outer_schedule)
    cinner = to_c(inner_schedule)
    tsar_partition_init = c_tsar_partition_init(part, blank_or(cname), blank_or(cplaces), &
                                                blank_or(couter), blank_or(cinner), device_kinds)
  end function

end module tsar
