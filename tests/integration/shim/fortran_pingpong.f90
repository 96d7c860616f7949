! SPDX-License-Identifier: BSD-3-Clause
! Fortran bindings through the shim (`use mpi`): 50 blocking and 50 nonblocking messages of
! 1 KiB from rank 0 to rank 1, statuses ignored and not, then a barrier. The shim must count
! each call exactly once, whichever way MPICH's Fortran library reaches the C functions.
program fortran_pingpong
  use mpi
  implicit none
  integer :: ierr, rank, i, req
  integer :: status(MPI_STATUS_SIZE)
  integer :: buf(256)
  buf = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do i = 1, 50
    if (rank == 0) then
      call MPI_Send(buf, 256, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)
      call MPI_Isend(buf, 256, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, req, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    else if (rank == 1) then
      call MPI_Recv(buf, 256, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Irecv(buf, 256, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, req, ierr)
      call MPI_Wait(req, status, ierr)
    end if
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program fortran_pingpong
