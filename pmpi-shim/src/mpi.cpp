// SPDX-License-Identifier: BSD-3-Clause
// dlsym resolution of the shim's typed MPI functions and the generated wrapper table.
#include "mpi.hpp"

#include <dlfcn.h>

#include "pmpi_table.hpp"

namespace symmer::shim {

MpiFunctions mpi;

void resolve_mpi_functions() noexcept {
  bool complete = true;
#define SYMMER_MPI_RESOLVE(f)                                        \
  mpi.f = reinterpret_cast<decltype(mpi.f)>(::dlsym(RTLD_NEXT, #f)); \
  complete = complete && mpi.f != nullptr;
  SYMMER_MPI_HELPERS(SYMMER_MPI_RESOLVE)
#undef SYMMER_MPI_RESOLVE
  mpi.complete = complete;
}

namespace {
// Before main(): every wrapper may be called from the first instruction of the application.
__attribute__((constructor)) void resolve_at_load() {
  resolve_pmpi_table(pmpi);
  resolve_mpi_functions();
}
}  // namespace

}  // namespace symmer::shim
