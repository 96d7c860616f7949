// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// C views of Fortran arguments, for the Fortran bindings' accounting hooks. The real
// pmpi_x_ always receives the application's own Fortran arguments (except that ignored
// statuses are replaced by scratch ones the shim can read).

#include <cstddef>

#include "abi.hpp"
#include "handles.hpp"
#include "mpi.hpp"
#include "runtime.hpp"
#include "scratch.hpp"

namespace symmer::shim::fortran {

// INTEGERs in a Fortran status (Open MPI's mpi.h does not say: its statuses are the C struct).
#if defined(MPI_F_STATUS_SIZE)
inline constexpr int kStatusSize = MPI_F_STATUS_SIZE;
#else
inline constexpr int kStatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint);
#endif

inline Scratch& scratch() noexcept { return *t_state->scratch; }

inline MPI_Comm comm_f2c(MPI_Fint f) noexcept {
#if defined(OPEN_MPI)
  return mpi.PMPI_Comm_f2c(f);
#else
  return MPI_Comm_f2c(f);
#endif
}

inline MPI_Request request_f2c(MPI_Fint f) noexcept {
#if defined(OPEN_MPI)
  return mpi.PMPI_Request_f2c(f);
#else
  return MPI_Request_f2c(f);
#endif
}

/// A Fortran communicator / datatype as the neutral handle the hooks take.
inline symmer_handle comm(MPI_Fint f) noexcept { return handle_key(comm_f2c(f)); }
inline symmer_handle datatype(MPI_Fint f) noexcept {
#if defined(OPEN_MPI)
  return handle_key(mpi.PMPI_Type_f2c(f));
#else
  return handle_key(MPI_Type_f2c(f));
#endif
}

/// One request, converted when constructed.
class RequestView {
 public:
  explicit RequestView(MPI_Fint f) noexcept : c_(request_f2c(f)) {}
  void* get() noexcept { return &c_; }

 private:
  MPI_Request c_;
};

/// An array of requests, converted into thread scratch.
class RequestArrayView {
 public:
  RequestArrayView(MPI_Fint count, const MPI_Fint* f) noexcept {
    auto& v = scratch().fortran_requests;
    if (count > 0 && v.size() < static_cast<std::size_t>(count)) v.resize(count);
    for (MPI_Fint i = 0; i < count; ++i) v[i] = request_f2c(f[i]);
  }
  void* get() noexcept { return scratch().fortran_requests.data(); }
};

inline bool ignored_status(const MPI_Fint* s) noexcept {
  return &MPI_F_STATUS_IGNORE != nullptr && s == MPI_F_STATUS_IGNORE;
}
inline bool ignored_statuses(const MPI_Fint* s) noexcept {
  return &MPI_F_STATUSES_IGNORE != nullptr && s == MPI_F_STATUSES_IGNORE;
}

/// A status: the Fortran argument (scratch when ignored) and its C conversion.
class StatusView {
 public:
  explicit StatusView(MPI_Fint* user) noexcept : arg_(ignored_status(user) ? store_ : user) {}
  MPI_Fint* fortran_arg() noexcept { return arg_; }
  void convert() noexcept { mpi.PMPI_Status_f2c(arg_, &c_); }
  void* get() noexcept { return &c_; }

 private:
  MPI_Fint store_[kStatusSize] = {};
  MPI_Fint* arg_;
  MPI_Status c_{};
};

/// An array of statuses in thread scratch.
class StatusArrayView {
 public:
  StatusArrayView(MPI_Fint count, MPI_Fint* user) noexcept : arg_(user) {
    if (ignored_statuses(user) && count > 0) {
      auto& store = scratch().fortran_status_store;
      const std::size_t n = static_cast<std::size_t>(count) * kStatusSize;
      if (store.size() < n) store.resize(n);
      arg_ = store.data();
    }
  }
  MPI_Fint* fortran_arg() noexcept { return arg_; }
  /// Converts the first `n` statuses (n may be MPI_UNDEFINED: none).
  void convert(MPI_Fint n) noexcept {
    auto& c = scratch().fortran_statuses;
    if (n <= 0) return;
    if (c.size() < static_cast<std::size_t>(n)) c.resize(n);
    for (MPI_Fint i = 0; i < n; ++i) mpi.PMPI_Status_f2c(arg_ + i * kStatusSize, &c[i]);
  }
  void* get() noexcept { return scratch().fortran_statuses.data(); }

 private:
  MPI_Fint* arg_;
};

/// A Fortran LOGICAL flag as a C int.
class FlagView {
 public:
  explicit FlagView(const MPI_Fint* f) noexcept : c_(*f != 0) {}
  int* get() noexcept { return &c_; }

 private:
  int c_;
};

/// A Fortran (1-based) index as a C (0-based) one.
class IndexView {
 public:
  explicit IndexView(const MPI_Fint* f) noexcept
      : c_(*f == MPI_UNDEFINED ? MPI_UNDEFINED : *f - 1) {}
  int* get() noexcept { return &c_; }

 private:
  int c_;
};

/// Fortran (1-based) indices as C (0-based) ones, in thread scratch.
class IndexArrayView {
 public:
  IndexArrayView(MPI_Fint n, const MPI_Fint* f) noexcept {
    auto& v = scratch().fortran_indices;
    if (n > 0 && v.size() < static_cast<std::size_t>(n)) v.resize(n);
    for (MPI_Fint i = 0; i < n; ++i) v[i] = f[i] - 1;
  }
  int* get() noexcept { return scratch().fortran_indices.data(); }
};

}  // namespace symmer::shim::fortran
