! SPDX-License-Identifier: BSD-3-Clause
! NUMA partitions from Fortran through the module `tsar` (tsar/fortran/tsar.f90), on two
! explicit places (cpu:0|cpu:1) with per-place copies (replicate), so that a wrong binding
! shows in the data: a 1-D stencil with a halo over several time steps and two passes (inner
! loops, halo updates, place views), a CSR product through a segmented map and a gather
! through an indexed one, each checked element by element against a serial loop; then the
! statistics, page locations, a canceled pass and bad input. Exit 0 = correct.
module fortran_partition_bodies
  use tsar
  implicit none
  integer(c_int64_t), parameter :: modulus = 1000003

  ! What every place of the stencil reads (host buffers) and where it reports problems.
  type, bind(C) :: stencil_args
    type(c_ptr) :: u, v
    integer(c_int64_t) :: n
    integer(c_int) :: steps
    integer(c_int) :: failed(2) ! per place: the first failing status, or 100 + a check's number
  end type

  ! One step of one place: its views of the buffers read and written.
  type, bind(C) :: step_args
    type(c_ptr) :: from, to
    integer(c_int64_t) :: n
  end type

  ! The CSR product and the gather: place views of their buffers.
  type, bind(C) :: csr_args
    type(c_ptr) :: seg, vals, cols, x, y
    integer(c_int64_t) :: rows, nonzeros, xs
  end type
contains
  ! Iterations [lo, hi) of one step: v(i) from u(i-1 .. i+1) for the interior i (0-based), the
  ! two end elements fixed. Asymmetric weights, so a halo from the wrong side shows.
  subroutine stencil(u, v, lo, hi, n)
    integer(c_int64_t), intent(in) :: lo, hi, n
    integer(c_int64_t), intent(in) :: u(0:n - 1)
    integer(c_int64_t), intent(inout) :: v(0:n - 1)
    integer(c_int64_t) :: i
    do i = max(lo, 1_c_int64_t), min(hi, n - 1) - 1
      v(i) = mod(u(i - 1) + 2 * u(i) + 3 * u(i + 1), modulus)
    end do
  end subroutine

  ! Bodies run on TSAR's threads: recursive, so that their locals are per call.
  recursive subroutine step_body(chunk, arg) bind(C)
    type(tsar_chunk), intent(in) :: chunk
    type(c_ptr), value :: arg
    type(step_args), pointer :: s
    integer(c_int64_t), pointer, contiguous :: u(:), v(:)
    call c_f_pointer(arg, s)
    call c_f_pointer(s%from, u, [s%n])
    call c_f_pointer(s%to, v, [s%n])
    call stencil(u, v, chunk%begin, chunk%end, s%n)
  end subroutine

  subroutine report(a, p, code)
    type(stencil_args), intent(inout) :: a
    integer, intent(in) :: p
    integer(c_int), intent(in) :: code
    if (code /= TSAR_OK .and. a%failed(p) == TSAR_OK) a%failed(p) = code
  end subroutine

  ! A place's part of `steps` steps: u -> v, v -> u, ... Each step's output halo comes from
  ! the neighbour's copy before the next step reads it.
  recursive subroutine stencil_place(place, begin, end, arg) bind(C)
    type(c_ptr), value :: place, arg
    integer(c_int64_t), value :: begin, end
    type(stencil_args), pointer :: a
    type(step_args), target :: step
    type(tsar_array_view) :: view
    type(c_ptr) :: host(2), mine(2)
    integer :: p, s
    call c_f_pointer(arg, a)
    p = tsar_place_index(place) + 1
    host = [a%u, a%v]
    mine = [tsar_place_mem(place, a%u), tsar_place_mem(place, a%v)]
    if (.not. (c_associated(mine(1)) .and. c_associated(mine(2)))) call report(a, p, 101)
    ! Replicate: the place's copies, not the host buffers.
    if (c_associated(mine(1), a%u) .or. c_associated(mine(2), a%v)) call report(a, p, 102)
    ! The view of u: the part and its halo, at the address tsar_place_mem indexes from.
    call report(a, p, tsar_place_view(place, a%u, view))
    if (view%dims /= 1 .or. view%stride(1) /= 1 .or. &
        view%offset(1) /= max(begin - 1, 0_c_int64_t) .or. &
        view%extent(1) /= min(end + 1, a%n) - view%offset(1)) call report(a, p, 103)
    if (transfer(view%base, 0_c_intptr_t) /= &
        transfer(mine(1), 0_c_intptr_t) + 8 * view%offset(1)) call report(a, p, 104)
    do s = 0, a%steps - 1
      step = step_args(mine(mod(s, 2) + 1), mine(2 - mod(s, 2)), a%n)
      call report(a, p, tsar_place_for(place, 0, begin, end, c_funloc(step_body), c_loc(step)))
      call report(a, p, tsar_place_update(place, host(2 - mod(s, 2)), TSAR_UPDATE_PADDING_NEARBY))
    end do
  end subroutine

  ! y(r) = sum over row r's nonzeros k of vals(k) * x(cols(k)) (x shared, read from the host).
  recursive subroutine csr_rows(chunk, arg) bind(C)
    type(tsar_chunk), intent(in) :: chunk
    type(c_ptr), value :: arg
    type(csr_args), pointer :: a
    integer(c_int64_t), pointer, contiguous :: seg(:), vals(:), y(:), x(:)
    integer(c_int32_t), pointer, contiguous :: cols(:)
    integer(c_int64_t) :: r, k
    call c_f_pointer(arg, a)
    call c_f_pointer(a%seg, seg, [a%rows + 1])
    call c_f_pointer(a%vals, vals, [a%nonzeros])
    call c_f_pointer(a%cols, cols, [a%nonzeros])
    call c_f_pointer(a%y, y, [a%rows])
    call c_f_pointer(a%x, x, [a%xs])
    do r = chunk%begin, chunk%end - 1
      y(r + 1) = 0
      do k = seg(r + 1), seg(r + 2) - 1
        y(r + 1) = y(r + 1) + vals(k + 1) * x(cols(k + 1) + 1)
      end do
    end do
  end subroutine

  recursive subroutine csr_place(place, begin, end, arg) bind(C)
    type(c_ptr), value :: place, arg
    integer(c_int64_t), value :: begin, end
    type(csr_args), pointer :: host
    type(csr_args), target :: mine
    integer(c_int) :: status
    call c_f_pointer(arg, host)
    mine = host
    mine%seg = tsar_place_mem(place, host%seg)
    mine%vals = tsar_place_mem(place, host%vals)
    mine%cols = tsar_place_mem(place, host%cols)
    mine%y = tsar_place_mem(place, host%y)
    status = tsar_place_for(place, 0, begin, end, c_funloc(csr_rows), c_loc(mine))
    if (status /= TSAR_OK) status = tsar_place_cancel(place)
  end subroutine

  ! Nonzero k (the iteration) gathers x(cols(k)) into out(k); the indexed copy of x holds
  ! only the elements the place reads, at the indices its rewritten copy of cols gives.
  recursive subroutine gather_place(place, begin, end, arg) bind(C)
    type(c_ptr), value :: place, arg
    integer(c_int64_t), value :: begin, end
    type(csr_args), pointer :: a
    type(tsar_array_view) :: xv
    integer(c_int32_t), pointer, contiguous :: cols(:)
    integer(c_int64_t), pointer, contiguous :: x(:), out(:)
    integer(c_int64_t) :: k
    integer(c_int) :: status
    call c_f_pointer(arg, a)
    if (tsar_place_view(place, a%x, xv) /= TSAR_OK) then
      status = tsar_place_cancel(place)
      return
    end if
    call c_f_pointer(xv%base, x, [max(xv%extent(1), 1_c_int64_t)])
    call c_f_pointer(tsar_place_mem(place, a%cols), cols, [a%nonzeros])
    call c_f_pointer(tsar_place_mem(place, a%y), out, [a%nonzeros])
    do k = begin, end - 1
      out(k + 1) = x(cols(k + 1) + 1)
    end do
  end subroutine

  recursive subroutine cancel_place(place, begin, end, arg) bind(C)
    type(c_ptr), value :: place, arg
    integer(c_int64_t), value :: begin, end
    integer(c_int), pointer :: seen(:)
    integer :: p
    call c_f_pointer(arg, seen, [2])
    p = tsar_place_index(place) + 1
    if (p == 1) seen(p) = tsar_place_cancel(place)
    seen(p) = tsar_place_barrier(place)
  end subroutine
end module

program fortran_partition
  use fortran_partition_bodies
  implicit none
  integer(c_int64_t), parameter :: n = 1001, rows = 300, xs = 97
  integer(c_int), parameter :: steps = 4
  character(kind=c_char, len=2), target :: uname = "u"//c_null_char, vname = "v"//c_null_char
  type(c_ptr) :: part
  type(tsar_place_info) :: info
  type(tsar_array_desc) :: desc
  type(tsar_indirect_desc) :: idesc
  type(tsar_pass_stats) :: pass
  type(tsar_place_stats) :: places(2)
  type(stencil_args), target :: sargs
  type(csr_args), target :: cargs
  integer(c_int64_t), allocatable, target :: u(:), v(:), want(:), tmp(:), seg(:), vals(:), &
                                             x(:), y(:), ywant(:), out(:)
  integer(c_int32_t), allocatable, target :: cols(:)
  integer(c_int), target :: seen(2)
  integer(c_int) :: nodes(64), p
  integer(c_size_t) :: pages
  integer(c_int64_t) :: i, k, nonzeros
  integer(c_intptr_t) :: first, last
  interface
    integer(c_int) function getpagesize() bind(C)
      import :: c_int
    end function
  end interface

  ! The places: two CPUs, each its own place on the node of its CPU.
  if (tsar_partition_init(part, "fortran-stencil", "cpu:0|cpu:1", "static", "", &
                          TSAR_DEVICE_CPU) /= TSAR_OK) then
    print *, tsar_last_error()
    stop 1
  end if
  if (tsar_partition_num_places(part) /= 2) stop 2
  do p = 0, 1
    if (tsar_partition_get_place_info(part, p, info) /= TSAR_OK) stop 3
    if (info%num_devices /= 1 .or. info%num_cores < 1 .or. info%numa_node < 0 .or. &
        info%numa_node >= tsar_num_numa_nodes()) stop 4
    if (any(info%devices(1:6) /= transfer("cpu:"//achar(48 + p)//c_null_char, &
                                          info%devices(1:6)))) then
      print *, "place", p, "devices: ", info%devices(1:8)
      stop 5
    end if
  end do

  ! The stencil: u and v with a halo of 1, two passes of `steps` steps; v starts as u so the
  ! fixed ends are right in both.
  allocate (u(n), v(n), want(n), tmp(n))
  do i = 1, n
    u(i) = mod(i * 7919, 1009_c_int64_t)
  end do
  v = u
  want = u
  tmp = u
  do k = 1, 2 * steps
    call stencil(want, tmp, 0_c_int64_t, n, n)
    want = tmp
  end do
  desc = tsar_array_desc(name=c_loc(uname), elem_size=8, dims=1, &
                         extent=[n, 0_c_int64_t, 0_c_int64_t], stride=[0, 0, 0], &
                         part_dim=0, halo=1, flags=TSAR_MEM_INOUT)
  if (tsar_partition_map_array(part, c_loc(u), desc) /= TSAR_OK) stop 6
  desc%name = c_loc(vname)
  if (tsar_partition_map_array(part, c_loc(v), desc) /= TSAR_OK) stop 7
  if (tsar_partition_map_array(part, c_loc(v(2)), desc) /= TSAR_ERR_REGISTERED) stop 8
  if (index(tsar_last_error(), "'v'") == 0) then
    print *, "message does not name the buffer: ", tsar_last_error()
    stop 9
  end if
  ! Level and policy in order: the devices' level takes coherent only.
  if (tsar_set_mem_policy(part, TSAR_LEVEL_DEVICES, TSAR_POLICY_REPLICATE) /= &
      TSAR_ERR_UNSUPPORTED) stop 10
  if (tsar_set_mem_policy(part, TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE) /= TSAR_OK) stop 11
  if (tsar_bind_partition(part, -2) /= TSAR_ERR_INVALID) stop 12
  if (tsar_bind_partition(part, 0) /= TSAR_OK) stop 13
  if (tsar_partition_set_rebalance(part, 0) /= TSAR_ERR_INVALID) stop 14
  if (tsar_partition_set_rebalance(part, 2) /= TSAR_OK) stop 15
  sargs = stencil_args(c_loc(u), c_loc(v), n, steps, [TSAR_OK, TSAR_OK])
  do k = 1, 2
    if (tsar_partition_run(part, n, c_funloc(stencil_place), c_loc(sargs)) /= TSAR_OK) then
      print *, tsar_last_error()
      stop 16
    end if
  end do
  if (any(sargs%failed /= TSAR_OK)) then
    print *, "place bodies failed: ", sargs%failed, " ", tsar_last_error()
    stop 17
  end if
  if (any(u /= want)) then
    print *, "stencil: ", count(u /= want), " of ", n, " elements wrong; first at", &
      findloc(u /= want, .true.)
    stop 18
  end if

  ! The last pass's statistics: the static split, one halo element per step from the one
  ! neighbour.
  if (tsar_partition_num_passes(part) /= 2) stop 19
  if (tsar_partition_get_pass_stats(part, -1_c_int64_t, pass, places, 2) /= TSAR_OK) stop 20
  if (pass%pass /= 1 .or. pass%n /= n .or. pass%canceled /= 0) stop 21
  if (places(1)%begin /= 0 .or. places(1)%end /= places(2)%begin .or. places(2)%end /= n .or. &
      places(1)%end < 1 .or. places(2)%begin >= n) stop 22
  if (any(places%halo_bytes /= steps * 8) .or. any(places%bytes_replicated <= 0) .or. &
      any(places%numa_node < 0)) then
    print *, "halo bytes", places%halo_bytes, " replicated", places%bytes_replicated
    stop 23
  end if

  ! Where u's pages are: every one touched, so on a node.
  if (tsar_mem_location(c_loc(u), int(8 * n, c_size_t), nodes, int(size(nodes), c_size_t), &
                        pages) /= TSAR_OK) stop 24
  first = transfer(c_loc(u), first) / getpagesize()
  last = (transfer(c_loc(u), last) + 8 * n - 1) / getpagesize()
  if (pages /= last - first + 1 .or. any(nodes(1:min(pages, 64_c_size_t)) < 0) .or. &
      any(nodes(1:min(pages, 64_c_size_t)) >= tsar_num_numa_nodes())) then
    print *, "pages", pages, " nodes", nodes(1:min(pages, 64_c_size_t))
    stop 25
  end if

  ! A canceled pass: the run fails, and so does the barrier after the cancel -- on place 1 too
  ! unless its body was not started yet when place 0 canceled (then it never runs).
  seen = -1
  if (tsar_partition_run(part, n, c_funloc(cancel_place), c_loc(seen)) /= TSAR_ERR_CANCELED) &
    stop 26
  if (seen(1) /= TSAR_ERR_CANCELED .or. all(seen(2) /= [-1, TSAR_ERR_CANCELED])) then
    print *, "barrier statuses after the cancel: ", seen
    stop 27
  end if

  if (tsar_partition_unmap(part, c_loc(v)) /= TSAR_OK) stop 28
  if (tsar_partition_unmap(part, c_loc(v)) /= TSAR_ERR_UNKNOWN) stop 29
  if (tsar_partition_free(part) /= TSAR_OK) stop 30

  ! CSR: row r has mod(r, 5) nonzeros (some rows none); values and column numbers segmented
  ! by the 8-byte row pointer, y partitioned by rows, x shared. Place 0 splits its rows over
  ! two devices.
  allocate (seg(rows + 1))
  seg(1) = 0
  do i = 1, rows
    seg(i + 1) = seg(i) + mod(i - 1, 5_c_int64_t)
  end do
  nonzeros = seg(rows + 1)
  allocate (vals(nonzeros), cols(nonzeros), x(xs), y(rows), ywant(rows), out(nonzeros))
  do k = 1, nonzeros
    vals(k) = mod(k * 31, 97_c_int64_t) + 1
    cols(k) = int(mod(k * 13, xs), c_int32_t)
  end do
  do i = 1, xs
    x(i) = i * i
  end do
  do i = 1, rows
    ywant(i) = 0
    do k = seg(i) + 1, seg(i + 1)
      ywant(i) = ywant(i) + vals(k) * x(cols(k) + 1)
    end do
  end do
  y = -1
  if (tsar_partition_init(part, "fortran-csr", "cpu:0,cpu:1|cpu:1", "", "", 0) /= TSAR_OK) &
    stop 31
  if (tsar_partition_get_place_info(part, 0, info) /= TSAR_OK) stop 32
  if (info%num_devices /= 2 .or. info%num_cores < 1 .or. &
      any(info%devices(1:12) /= transfer("cpu:0,cpu:1"//c_null_char, info%devices(1:12)))) then
    print *, "place 0: ", info%num_devices, " devices: ", info%devices(1:12)
    stop 33
  end if
  idesc = tsar_indirect_desc(name=c_null_ptr, elem_size=8, count=nonzeros, map=c_loc(seg), &
                             map_size=8, map_count=rows + 1, flags=TSAR_MEM_IN)
  if (tsar_partition_map_segmented(part, c_loc(vals), idesc) /= TSAR_OK) stop 34
  idesc%elem_size = 4
  if (tsar_partition_map_segmented(part, c_loc(cols), idesc) /= TSAR_OK) stop 35
  desc = tsar_array_desc(name=c_null_ptr, elem_size=8, dims=1, &
                         extent=[rows, 0_c_int64_t, 0_c_int64_t], stride=[0, 0, 0], &
                         part_dim=0, halo=0, flags=TSAR_MEM_OUT)
  if (tsar_partition_map_array(part, c_loc(y), desc) /= TSAR_OK) stop 36
  if (tsar_set_mem_policy(part, TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE) /= TSAR_OK) stop 37
  cargs = csr_args(c_loc(seg), c_loc(vals), c_loc(cols), c_loc(x), c_loc(y), rows, nonzeros, xs)
  if (tsar_partition_run(part, rows, c_funloc(csr_place), c_loc(cargs)) /= TSAR_OK) then
    print *, tsar_last_error()
    stop 38
  end if
  if (any(y /= ywant)) then
    print *, "csr: ", count(y /= ywant), " of ", rows, " rows wrong"
    stop 39
  end if
  if (tsar_partition_free(part) /= TSAR_OK) stop 40

  ! The gather: x indexed by the 4-byte column numbers, one iteration per nonzero.
  out = -1
  if (tsar_partition_init(part, "fortran-gather", "cpu:0|cpu:1", "", "", 0) /= TSAR_OK) stop 41
  idesc = tsar_indirect_desc(name=c_null_ptr, elem_size=8, count=xs, map=c_loc(cols), &
                             map_size=4, map_count=nonzeros, flags=TSAR_MEM_IN)
  if (tsar_partition_map_indexed(part, c_loc(x), idesc) /= TSAR_OK) stop 42
  desc%extent(1) = int(nonzeros, c_size_t)
  if (tsar_partition_map_array(part, c_loc(out), desc) /= TSAR_OK) stop 43
  if (tsar_set_mem_policy(part, TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE) /= TSAR_OK) stop 44
  cargs%y = c_loc(out)
  if (tsar_partition_run(part, nonzeros, c_funloc(gather_place), c_loc(cargs)) /= TSAR_OK) then
    print *, tsar_last_error()
    stop 45
  end if
  do k = 1, nonzeros
    if (out(k) /= x(cols(k) + 1)) then
      print *, "gather: element", k, " is", out(k), " expected", x(cols(k) + 1)
      stop 46
    end if
  end do
  if (tsar_partition_free(part) /= TSAR_OK) stop 47

  ! Bad input: an explicit place that does not exist, named in the message.
  if (tsar_partition_init(part, "bad", "cpu:0|cpu:999", "", "", 0) /= TSAR_ERR_DEVICES) stop 48
  if (c_associated(part) .or. index(tsar_last_error(), "cpu:999") == 0) stop 49
  print *, "fortran-partition: stencil, CSR and gather correct on", tsar_num_numa_nodes(), &
    " NUMA node(s)"
end program
