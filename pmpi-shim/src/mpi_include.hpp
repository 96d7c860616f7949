// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// mpi.h for the shim's typed code, built once per MPI library (MPICH, Open MPI).
//
// The shim is also loaded into processes without MPI (mpiexec, its proxies, shells) through
// LD_PRELOAD. Open MPI's handles are addresses of data symbols (ompi_mpi_comm_world...), which
// the dynamic loader must resolve at load time: every one the shim refers to is declared weak,
// so a process without libmpi still starts. Functions are never called directly (see mpi.hpp).

#define MPICH_SKIP_MPICXX 1
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#if defined(OPEN_MPI)
#pragma weak ompi_mpi_comm_world
#pragma weak ompi_mpi_comm_null
#pragma weak ompi_mpi_comm_self
#pragma weak ompi_request_null
#pragma weak ompi_mpi_byte
#pragma weak ompi_mpi_datatype_null
// The predefined datatypes whose sizes message_size.cpp keeps.
#pragma weak ompi_mpi_char
#pragma weak ompi_mpi_signed_char
#pragma weak ompi_mpi_unsigned_char
#pragma weak ompi_mpi_short
#pragma weak ompi_mpi_unsigned_short
#pragma weak ompi_mpi_long
#pragma weak ompi_mpi_float
#pragma weak ompi_mpi_double
#pragma weak ompi_mpi_long_double
#pragma weak ompi_mpi_int8_t
#pragma weak ompi_mpi_int16_t
#pragma weak ompi_mpi_int32_t
#pragma weak ompi_mpi_int64_t
#pragma weak ompi_mpi_uint8_t
#pragma weak ompi_mpi_uint16_t
#pragma weak ompi_mpi_uint32_t
#pragma weak ompi_mpi_c_bool
#pragma weak ompi_mpi_c_double_complex
#pragma weak ompi_mpi_character
#pragma weak ompi_mpi_logical
#pragma weak ompi_mpi_integer
#pragma weak ompi_mpi_real
#pragma weak ompi_mpi_dblprec
#pragma weak ompi_mpi_dblcplex
#pragma weak ompi_mpi_int
#pragma weak ompi_mpi_unsigned
#pragma weak ompi_mpi_unsigned_long
#pragma weak ompi_mpi_unsigned_long_long
#pragma weak ompi_mpi_long_long_int
#pragma weak ompi_mpi_count
#pragma weak ompi_mpi_uint64_t
#pragma weak ompi_mpi_op_max
#pragma weak ompi_mpi_op_min
#pragma weak ompi_mpi_info_null
#pragma weak ompi_mpi_errors_return
#pragma weak ompi_mpi_group_null
#pragma weak ompi_message_null
#pragma weak MPI_F_STATUS_IGNORE
#pragma weak MPI_F_STATUSES_IGNORE
#else
#pragma weak MPI_F_STATUS_IGNORE
#pragma weak MPI_F_STATUSES_IGNORE
#endif
