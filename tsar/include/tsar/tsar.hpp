// SPDX-License-Identifier: BSD-3-Clause
// tsar.hpp - the C++ API of TSAR, header-only over tsar.h (read it for the model: regions,
// passes, schedules, devices, environment variables).
//
//   tsar::Region region("saxpy", "adaptive");
//   auto xs = region.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
//   auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
//   double sum = 0;
//   auto total = region.reduction(sum, 0.0, std::plus<>{});
//   for (int step = 0; step < steps; ++step)
//     region.parallel_for(n, [&](const tsar::Chunk& c) {
//       const double* xp = c.ptr(xs);
//       double* yp = c.ptr(ys);
//       double& s = c.local(total);
//       for (auto i = c.begin(); i < c.end(); ++i) { yp[i] += a * xp[i]; s += yp[i]; }
//     });
//
// NUMA partitions (tsar::Partition) are in tsar/partition.hpp, included here. Every failure
// throws tsar::Error (tsar/error.hpp). An exception thrown by a body stops the pass (no new
// chunk or sub-pass starts, nothing is learned or merged) and reaches the caller of
// parallel_for; the region and the worker pool stay usable.
#ifndef TSAR_TSAR_HPP
#define TSAR_TSAR_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tsar/error.hpp"
#include "tsar/partition.hpp"
#include "tsar/tsar.h"

namespace tsar {

/// Device kinds (tsar_device_info.kind, Chunk::kind).
enum class DeviceKind : unsigned {
  cpu = TSAR_DEVICE_CPU,
  omp_target = TSAR_DEVICE_OMP_TARGET,
  cuda = TSAR_DEVICE_CUDA,
  emulated = TSAR_DEVICE_EMULATED,
};

/// How iterations select the part of a mapped buffer a device needs (tsar_assoc).
enum class Assoc : int {
  full = TSAR_ASSOC_FULL,
  rows = TSAR_ASSOC_ROWS,
  cols = TSAR_ASSOC_COLS,
  rows_cols = TSAR_ASSOC_ROWS_COLS,
};

/// Sets the devices of regions created from now on (see tsar_set_devices); "" = default.
inline void set_devices(const std::string& spec) {
  detail::check(tsar_set_devices(spec.empty() ? nullptr : spec.c_str()));
}

/// Whether the default device list leaves each GPU's control core to it (reserve, the
/// default) or also computes on it (share); rebuilds the default list (tsar_set_gpu_cores).
inline void set_gpu_cores(bool share) {
  detail::check(tsar_set_gpu_cores(share ? TSAR_GPU_CORES_SHARE : TSAR_GPU_CORES_RESERVE));
}

/// Devices a region allowed `kinds` would get now.
inline int count_devices(unsigned kinds = TSAR_DEVICE_ALL) {
  int n = 0;
  detail::check(tsar_count_devices(kinds, &n));
  return n;
}

/// An allocator of host memory GPUs copy by DMA (tsar_host_alloc), for containers:
/// `std::vector<double, tsar::HostAllocator<double>>`.
template <class T>
struct HostAllocator {
  using value_type = T;
  HostAllocator() = default;
  template <class U>
  HostAllocator(const HostAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    if (void* p = tsar_host_alloc(n * sizeof(T))) return static_cast<T*>(p);
    throw std::bad_alloc();
  }
  void deallocate(T* p, std::size_t) noexcept { tsar_host_free(p); }
  template <class U>
  bool operator==(const HostAllocator<U>&) const noexcept {
    return true;
  }
};

namespace detail {
/// The C region behind a Region, shared with the handles it gives out (Mapped, Reduction)
/// and cleared when the region is freed: a handle that outlives its region does nothing.
struct Owner {
  tsar_region* region = nullptr;
};
/// The live region of a handle; throws Error(TSAR_ERR_STATE) once it is gone.
inline tsar_region* live(const std::shared_ptr<Owner>& owner, const char* what) {
  if (!owner || owner->region == nullptr)
    throw Error(TSAR_ERR_STATE, std::string(what) +
                                    ": the region it was registered with is gone (or it was "
                                    "never registered)");
  return owner->region;
}
}  // namespace detail

class Region;

/// A host buffer registered with a region; unregistered when destroyed. It may outlive the
/// region: it then does nothing when destroyed, and its calls throw Error(TSAR_ERR_STATE).
template <class T>
class Mapped {
 public:
  Mapped() = default;
  Mapped(Mapped&& other) noexcept { *this = std::move(other); }
  Mapped& operator=(Mapped&& other) noexcept {
    if (this != &other) {
      reset();
      owner_ = std::move(other.owner_);
      host_ = std::exchange(other.host_, nullptr);
    }
    return *this;
  }
  ~Mapped() { reset(); }

  T* host() const { return host_; }
  /// Registers the buffer under a new host pointer of the same shape (device allocations are
  /// kept, their contents re-read).
  void retarget(T* new_host) {
    detail::check(tsar_retarget_mem(detail::live(owner_, "retarget"), host_, new_host));
    host_ = new_host;
  }
  /// Exchanges the host buffers of this and `other` (double buffering, tsar_swap_mem): each
  /// keeps its flags, and device copies follow the data.
  void swap_buffers(Mapped& other) {
    detail::check(tsar_swap_mem(detail::live(owner_, "swap_buffers"), host_, other.host_));
    std::swap(host_, other.host_);
  }
  /// The program changed the host buffer: persistent device copies are refreshed.
  void invalidate() {
    detail::check(tsar_mem_invalidate(detail::live(owner_, "invalidate"), host_));
  }
  /// Brings the host buffer up to date: rows devices hold resident (TSAR_MEM_RESIDENT) are
  /// copied back (tsar_mem_sync).
  void sync() { detail::check(tsar_mem_sync(detail::live(owner_, "sync"), host_)); }

 private:
  friend class Region;
  Mapped(std::shared_ptr<detail::Owner> owner, T* host) : owner_(std::move(owner)), host_(host) {}
  void reset() noexcept {
    if (owner_ && owner_->region != nullptr) tsar_unreg_mem(owner_->region, host_);
    owner_.reset();
  }
  std::shared_ptr<detail::Owner> owner_;
  T* host_ = nullptr;
};

/// A reduction registered with a region; unregistered when destroyed. It may outlive the
/// region: it then does nothing when destroyed.
template <class T>
class Reduction {
  static_assert(std::is_trivially_copyable_v<T>, "reduction values are copied bytewise");

 public:
  Reduction() = default;
  Reduction(Reduction&& other) noexcept { *this = std::move(other); }
  Reduction& operator=(Reduction&& other) noexcept {
    if (this != &other) {
      reset();
      owner_ = std::move(other.owner_);
      result_ = std::exchange(other.result_, nullptr);
      combine_ = std::move(other.combine_);
    }
    return *this;
  }
  ~Reduction() { reset(); }

  T* result() const { return result_; }

 private:
  friend class Region;
  struct CombineBase {
    virtual ~CombineBase() = default;
  };
  template <class Combine>
  struct CombineHolder final : CombineBase {
    explicit CombineHolder(Combine c) : combine(std::move(c)) {}
    static void call(void* inout, const void* in, void* ctx) {
      auto& f = static_cast<CombineHolder*>(ctx)->combine;
      T& a = *static_cast<T*>(inout);
      const T& b = *static_cast<const T*>(in);
      if constexpr (std::is_invocable_r_v<T, Combine&, const T&, const T&>)
        a = f(a, b);
      else
        f(a, b);
    }
    Combine combine;
  };

  void reset() noexcept {
    if (owner_ && owner_->region != nullptr) tsar_unreg_reduction(owner_->region, result_);
    owner_.reset();
  }
  std::shared_ptr<detail::Owner> owner_;
  T* result_ = nullptr;
  std::unique_ptr<CombineBase> combine_;
};

/// One range of a pass handed to a body on one device.
class Chunk {
 public:
  Chunk(const tsar_region* region, const tsar_chunk& chunk) : region_(region), chunk_(chunk) {}

  std::int64_t begin() const { return chunk_.begin; }
  std::int64_t end() const { return chunk_.end; }
  std::int64_t size() const { return chunk_.end - chunk_.begin; }
  /// The device's index in the region.
  int worker() const { return chunk_.worker; }
  DeviceKind kind() const { return static_cast<DeviceKind>(chunk_.kind); }
  /// Kind-specific device id (tsar_device_info.id).
  int device_id() const { return chunk_.device_id; }
  /// OpenMP device number for target constructs; -1 on host devices.
  int omp_device() const { return chunk_.omp_device; }
  /// CUDA stream of the device; nullptr elsewhere.
  void* stream() const { return chunk_.stream; }

  /// This device's pointer for a mapped buffer, indexed like the host buffer for this
  /// chunk's rows (the host pointer itself on host-memory devices, a device pointer on
  /// accelerators; with padded rows or packed columns, index through layout()).
  template <class T>
  T* ptr(const Mapped<T>& mapped) const {
    void* p = tsar_mem(region_, mapped.host());
    if (p == nullptr) throw Error(tsar_last_status(), tsar_last_error());
    return static_cast<T*>(p);
  }
  /// This device's full view of a mapped buffer (packed columns, padded rows).
  template <class T>
  tsar_mem_layout layout(const Mapped<T>& mapped) const {
    tsar_mem_layout l{};
    detail::check(tsar_mem_layout_get(region_, mapped.host(), &l));
    return l;
  }
  /// This device's private accumulator of a reduction (in device memory on accelerators).
  template <class T>
  T& local(const Reduction<T>& reduction) const {
    void* p = tsar_reduction(region_, reduction.result());
    if (p == nullptr) throw Error(tsar_last_status(), tsar_last_error());
    return *static_cast<T*>(p);
  }

 private:
  const tsar_region* region_;
  tsar_chunk chunk_;
};

/// Statistics of one pass: the pass and one entry per device.
struct PassStats {
  tsar_pass_stats pass{};
  std::vector<tsar_device_stats> devices;
};

/// What tsar_init takes.
struct RegionOptions {
  std::string name = "region";  ///< key of the learned-times cache and trace
  std::string schedule;         ///< "" = TSAR_SCHEDULE, else adaptive
  unsigned device_kinds = TSAR_DEVICE_ALL;
  std::vector<double> time_per_iteration;  ///< empty, or one per device (0 = unknown)
  int div = 0;                             ///< split/quick sub-passes; 0 = default
};

/// A loop region (tsar_region). Movable, not copyable.
class Region {
 public:
  /// A region named `name` with `schedule` ("" = TSAR_SCHEDULE, else adaptive).
  explicit Region(const std::string& name, const std::string& schedule = "",
                  unsigned device_kinds = TSAR_DEVICE_ALL)
      : Region(RegionOptions{name, schedule, device_kinds, {}, 0}) {}
  explicit Region(const RegionOptions& options = {}) {
    detail::check(tsar_init(
        &region_, options.name.c_str(),
        options.schedule.empty() ? nullptr : options.schedule.c_str(), options.device_kinds,
        options.time_per_iteration.empty() ? nullptr : options.time_per_iteration.data(),
        static_cast<int>(options.time_per_iteration.size()), options.div));
    owner_->region = region_;
  }
  Region(Region&& other) noexcept
      : region_(std::exchange(other.region_, nullptr)), owner_(std::move(other.owner_)) {}
  Region& operator=(Region&& other) noexcept {
    if (this != &other) {
      release();
      region_ = std::exchange(other.region_, nullptr);
      owner_ = std::move(other.owner_);
    }
    return *this;
  }
  /// Frees the region; the buffer and reduction handles it gave out become inert.
  ~Region() { release(); }

  /// Runs one pass of n iterations on every device. body(const Chunk&) runs once per range
  /// a device gets; a body taking std::int64_t runs once per iteration instead.
  template <class Body>
  void parallel_for(std::int64_t n, Body&& body) {
    Invocation<std::remove_reference_t<Body>> inv{body, region_};
    const int status = tsar_run(region_, n, &Invocation<std::remove_reference_t<Body>>::call, &inv);
    if (inv.error) std::rethrow_exception(inv.error);
    detail::check(status);
  }

  /// One pass over iterations [first, end) (tsar_run_range): chunks carry absolute
  /// iteration numbers, iteration i uses row i of each mapped buffer.
  template <class Body>
  void parallel_for(std::int64_t first, std::int64_t end, Body&& body) {
    Invocation<std::remove_reference_t<Body>> inv{body, region_};
    const int status = tsar_run_range(region_, first, end,
                                      &Invocation<std::remove_reference_t<Body>>::call, &inv);
    if (inv.error) std::rethrow_exception(inv.error);
    detail::check(status);
  }

  /// Stops the current pass (from a body); parallel_for then throws Error(TSAR_ERR_CANCELED).
  void cancel() { detail::check(tsar_cancel(region_)); }

  /// Registers a 1-D array of count elements.
  template <class T>
  Mapped<T> map(T* host, std::size_t count, Assoc assoc, unsigned flags, std::size_t halo = 0) {
    detail::check(
        tsar_reg_mem(region_, host, sizeof(T), count, halo, static_cast<int>(assoc), flags));
    return Mapped<T>(owner_, host);
  }
  /// Registers a rows x cols matrix with row_stride elements per row (0 = cols).
  template <class T>
  Mapped<T> map_2d(T* host, std::size_t rows, std::size_t cols, std::size_t row_stride, Assoc assoc,
                   unsigned flags, std::size_t halo = 0) {
    detail::check(tsar_reg_mem_2d(region_, host, sizeof(T), rows, cols, row_stride, halo,
                                  static_cast<int>(assoc), flags));
    return Mapped<T>(owner_, host);
  }
  /// Registers a reduction into `result`: combine(a, b) returns the combined value, or
  /// combines b into a when it returns void.
  template <class T, class Combine>
  Reduction<T> reduction(T& result, const T& identity, Combine combine) {
    using Holder = typename Reduction<T>::template CombineHolder<Combine>;
    auto holder = std::make_unique<Holder>(std::move(combine));
    detail::check(
        tsar_reg_reduction(region_, &result, &identity, sizeof(T), &Holder::call, holder.get()));
    Reduction<T> r;
    r.owner_ = owner_;
    r.result_ = &result;
    r.combine_ = std::move(holder);
    return r;
  }

  int num_devices() const { return tsar_num_devices(region_); }
  tsar_device_info device(int index) const {
    tsar_device_info info{};
    detail::check(tsar_get_device_info(region_, index, &info));
    return info;
  }
  std::string schedule() const {
    char buf[64];
    detail::check(tsar_get_schedule(region_, buf, sizeof buf));
    return buf;
  }
  void set_time_per_iteration(int device, double seconds) {
    detail::check(tsar_set_time_per_iteration(region_, device, seconds));
  }
  void set_backoff(int passes) { detail::check(tsar_set_backoff(region_, passes)); }

  std::int64_t passes() const { return tsar_num_passes(region_); }
  /// Statistics of pass `pass` (-1 = the last).
  PassStats pass_stats(std::int64_t pass = -1) const {
    PassStats s;
    s.devices.resize(static_cast<std::size_t>(num_devices()));
    detail::check(tsar_get_pass_stats(region_, pass, &s.pass, s.devices.data(),
                                      static_cast<int>(s.devices.size())));
    return s;
  }
  /// Iterations each device ran in the last pass.
  std::vector<std::int64_t> split() const {
    std::vector<std::int64_t> out;
    for (const auto& d : pass_stats().devices) out.push_back(d.iterations);
    return out;
  }
  void write_trace(const std::string& path) const {
    detail::check(tsar_write_trace(region_, path.c_str()));
  }

  tsar_region* handle() const { return region_; }

 private:
  template <class Body>
  struct Invocation {
    Invocation(Body& b, const tsar_region* r) : body(b), region(r) {}
    Body& body;
    const tsar_region* region;
    std::atomic<bool> failed{false};
    std::exception_ptr error;

    static void call(const tsar_chunk* c, void* arg) {
      auto* self = static_cast<Invocation*>(arg);
      try {
        const Chunk chunk(self->region, *c);
        if constexpr (std::is_invocable_v<Body&, const Chunk&>) {
          self->body(chunk);
        } else {
          static_assert(std::is_invocable_v<Body&, std::int64_t>,
                        "the body must take a const tsar::Chunk& or a std::int64_t");
          for (std::int64_t i = c->begin; i < c->end; ++i) self->body(i);
        }
      } catch (...) {
        if (!self->failed.exchange(true)) self->error = std::current_exception();
        tsar_cancel(const_cast<tsar_region*>(self->region));
      }
    }
  };

  void release() noexcept {
    if (owner_) owner_->region = nullptr;
    tsar_free(region_);
  }

  tsar_region* region_ = nullptr;
  std::shared_ptr<detail::Owner> owner_ = std::make_shared<detail::Owner>();
};

}  // namespace tsar

#include "tsar/data.hpp"

#endif  // TSAR_TSAR_HPP
