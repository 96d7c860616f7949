// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The MPI functions the shim's own logic calls (typed), resolved with dlsym(RTLD_NEXT) so the
// shim has no link-time dependency on any MPI library: a process without MPI (mpiexec) loads
// it harmlessly, and the same code serves MPICH and Open MPI builds.

#include "mpi_include.hpp"

namespace symmer::shim {

#define SYMMER_MPI_HELPERS(X)                                                                      \
  X(PMPI_Allgather)                                                                                \
  X(PMPI_Allreduce)                                                                                \
  X(PMPI_Barrier)                                                                                  \
  X(PMPI_Bcast) X(PMPI_Comm_create_keyval) X(PMPI_Comm_dup) X(PMPI_Comm_free)                      \
      X(PMPI_Comm_free_keyval) X(PMPI_Comm_get_attr) X(PMPI_Comm_group) X(PMPI_Comm_rank)          \
          X(PMPI_Comm_remote_group) X(PMPI_Comm_set_attr) X(PMPI_Comm_set_errhandler)              \
              X(PMPI_Comm_size) X(PMPI_Comm_split) X(PMPI_Comm_split_type) X(PMPI_Comm_test_inter) \
                  X(PMPI_Finalized) X(PMPI_Get_count) X(PMPI_Get_library_version)                  \
                      X(PMPI_Group_free) X(PMPI_Group_size) X(PMPI_Group_translate_ranks)          \
                          X(PMPI_Iallgather) X(PMPI_Initialized) X(PMPI_Query_thread)              \
                              X(PMPI_Status_f2c) X(PMPI_T_cvar_get_info) X(PMPI_T_cvar_get_num)    \
                                  X(PMPI_T_cvar_handle_alloc) X(PMPI_T_cvar_handle_free)           \
                                      X(PMPI_T_cvar_read) X(PMPI_T_finalize) X(PMPI_T_init_thread) \
                                          X(PMPI_Test) X(PMPI_Type_size) X(PMPI_Wait)              \
                                              SYMMER_MPI_F2C(X)

// MPICH's handle conversions are macros (its Fortran and C handles are the same integers);
// Open MPI's are functions.
#if defined(OPEN_MPI)
#define SYMMER_MPI_F2C(X) X(PMPI_Comm_f2c) X(PMPI_Message_f2c) X(PMPI_Request_f2c) X(PMPI_Type_f2c)
#else
#define SYMMER_MPI_F2C(X)
#endif

/// Typed pointers to the real functions; null where the process has none.
struct MpiFunctions {
#define SYMMER_MPI_MEMBER(f) decltype(&::f) f = nullptr;
  SYMMER_MPI_HELPERS(SYMMER_MPI_MEMBER)
#undef SYMMER_MPI_MEMBER
  /// True when every function above was found.
  bool complete = false;
};

extern MpiFunctions mpi;

/// Resolves `mpi`.
void resolve_mpi_functions() noexcept;

}  // namespace symmer::shim
