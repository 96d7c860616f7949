// SPDX-License-Identifier: BSD-3-Clause
// tsar/partition.hpp - NUMA partitions in C++ (tsar::Partition, tsar::Place) over
// tsar/partition.h; included by tsar.hpp.
#ifndef TSAR_PARTITION_HPP
#define TSAR_PARTITION_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tsar/error.hpp"
#include "tsar/partition.h"

namespace tsar {

/// Memory policies of a partition level (tsar_mem_policy).
enum class MemPolicy : int {
  coherent = TSAR_POLICY_COHERENT,
  interleave = TSAR_POLICY_INTERLEAVE,
  migrate = TSAR_POLICY_MIGRATE,
  migrate_interleaved = TSAR_POLICY_MIGRATE_INTERLEAVED,
  replicate = TSAR_POLICY_REPLICATE,
};

/// One place during a partition pass (tsar_place), handed to the place body.
class Place {
 public:
  Place(tsar_place* place, std::int64_t begin, std::int64_t end)
      : place_(place), begin_(begin), end_(end) {}

  int index() const { return tsar_place_index(place_); }
  /// The place's part of the pass.
  std::int64_t begin() const { return begin_; }
  std::int64_t end() const { return end_; }

  /// Runs inner loop number `loop` over [b, e) on the place's devices. body(const
  /// tsar_chunk&) runs once per range a device gets; a body taking std::int64_t runs once
  /// per iteration. An exception from the body cancels the pass and reaches the caller of
  /// Partition::run.
  template <class Body>
  void for_each(int loop, std::int64_t b, std::int64_t e, Body&& body) {
    Inner<std::remove_reference_t<Body>> inner{body, place_};
    const int status =
        tsar_place_for(place_, loop, b, e, &Inner<std::remove_reference_t<Body>>::call, &inner);
    if (inner.error) std::rethrow_exception(inner.error);
    detail::check(status);
  }
  /// Waits for the other places (tsar_place_barrier).
  void barrier() { detail::check(tsar_place_barrier(place_)); }
  /// Halo update of a mapped array (TSAR_UPDATE_*).
  void update(const void* host, int what = TSAR_UPDATE_PADDING_NEARBY) {
    detail::check(tsar_place_update(place_, host, what));
  }
  /// The place's pointer for a mapped buffer, indexed like `host` (tsar_place_mem).
  template <class T>
  T* mem(T* host) const {
    void* p = tsar_place_mem(place_, host);
    if (p == nullptr) throw Error(tsar_last_status(), tsar_last_error());
    return static_cast<T*>(p);
  }
  /// The place's view of a mapped array (packed copies of column parts included).
  tsar_array_view view(const void* host) const {
    tsar_array_view v{};
    detail::check(tsar_place_view(place_, host, &v));
    return v;
  }
  void cancel() { detail::check(tsar_place_cancel(place_)); }
  tsar_place* handle() const { return place_; }

 private:
  template <class Body>
  struct Inner {
    Inner(Body& b, tsar_place* p) : body(b), place(p) {}
    Body& body;
    tsar_place* place;
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    static void call(const tsar_chunk* c, void* arg) {
      auto* self = static_cast<Inner*>(arg);
      try {
        if constexpr (std::is_invocable_v<Body&, const tsar_chunk&>) {
          self->body(*c);
        } else {
          static_assert(std::is_invocable_v<Body&, std::int64_t>,
                        "the body must take a const tsar_chunk& or a std::int64_t");
          for (std::int64_t i = c->begin; i < c->end; ++i) self->body(i);
        }
      } catch (...) {
        if (!self->failed.exchange(true)) self->error = std::current_exception();
        tsar_place_cancel(self->place);
      }
    }
  };

  tsar_place* place_;
  std::int64_t begin_;
  std::int64_t end_;
};

/// A nested partition over NUMA places (tsar_partition; see tsar.h, "NUMA partitions").
/// Mapped buffers stay mapped until the partition is destroyed or unmap is called.
///
///   tsar::Partition part("stream");
///   part.map_array(a.data(), tsar::Partition::vector(n, TSAR_MEM_IN, "a"));
///   part.set_policy(tsar::MemPolicy::migrate);
///   part.run(n, [&](tsar::Place& place) {
///     const double* ap = place.mem(a.data());
///     place.for_each(0, place.begin(), place.end(), [&](std::int64_t i) { ... ap[i] ... });
///   });
class Partition {
 public:
  /// places: "" = one place per NUMA node; outer: "static" or "adaptive"; inner: any
  /// schedule ("" = TSAR_SCHEDULE, else adaptive); device_kinds: the devices places keep.
  explicit Partition(const std::string& name = "partition", const std::string& places = "",
                     const std::string& outer = "adaptive", const std::string& inner = "",
                     unsigned device_kinds = TSAR_DEVICE_ALL) {
    detail::check(tsar_partition_init(&part_, name.c_str(),
                                      places.empty() ? nullptr : places.c_str(), outer.c_str(),
                                      inner.empty() ? nullptr : inner.c_str(), device_kinds));
  }
  Partition(Partition&& other) noexcept : part_(std::exchange(other.part_, nullptr)) {}
  Partition& operator=(Partition&& other) noexcept {
    if (this != &other) {
      tsar_partition_free(part_);
      part_ = std::exchange(other.part_, nullptr);
    }
    return *this;
  }
  ~Partition() { tsar_partition_free(part_); }

  /// A 1-D array descriptor of count elements of T, partitioned (part_dim 0) unless shared.
  template <class T = double>
  static tsar_array_desc vector(std::size_t count, unsigned flags, const char* name = nullptr,
                                std::size_t halo = 0, bool shared = false) {
    tsar_array_desc d{};
    d.name = name;
    d.elem_size = sizeof(T);
    d.dims = 1;
    d.extent[0] = count;
    d.part_dim = shared ? -1 : 0;
    d.halo = halo;
    d.flags = flags;
    return d;
  }
  /// A rows x cols matrix of T with row_stride elements per row (0 = cols), partitioned by
  /// rows (part_dim 0), columns (1) or shared (-1).
  template <class T = double>
  static tsar_array_desc matrix(std::size_t rows, std::size_t cols, std::size_t row_stride,
                                int part_dim, unsigned flags, const char* name = nullptr,
                                std::size_t halo = 0) {
    tsar_array_desc d{};
    d.name = name;
    d.elem_size = sizeof(T);
    d.dims = 2;
    d.extent[0] = rows;
    d.extent[1] = cols;
    d.stride[0] = row_stride;
    d.part_dim = part_dim;
    d.halo = halo;
    d.flags = flags;
    return d;
  }

  void map_array(void* host, const tsar_array_desc& desc) {
    detail::check(tsar_partition_map_array(part_, host, &desc));
  }
  void map_segmented(void* host, const tsar_indirect_desc& desc) {
    detail::check(tsar_partition_map_segmented(part_, host, &desc));
  }
  void map_indexed(void* host, const tsar_indirect_desc& desc) {
    detail::check(tsar_partition_map_indexed(part_, host, &desc));
  }
  void unmap(const void* host) { detail::check(tsar_partition_unmap(part_, host)); }

  /// The memory policy of the places level (or of `level`).
  void set_policy(MemPolicy policy, int level = TSAR_LEVEL_PLACES) {
    detail::check(tsar_set_mem_policy(part_, level, static_cast<int>(policy)));
  }
  /// Re-balance on inner loop `loop`'s time only (-1: the body less its waits).
  void bind(int loop) { detail::check(tsar_bind_partition(part_, loop)); }
  void set_rebalance(int passes) { detail::check(tsar_partition_set_rebalance(part_, passes)); }

  /// Runs one pass of n iterations: body(tsar::Place&) once per place. An exception from a
  /// body cancels the pass and is rethrown here; the partition stays usable.
  template <class Body>
  void run(std::int64_t n, Body&& body) {
    Outer<std::remove_reference_t<Body>> outer{body};
    const int status =
        tsar_partition_run(part_, n, &Outer<std::remove_reference_t<Body>>::call, &outer);
    if (outer.error) std::rethrow_exception(outer.error);
    detail::check(status);
  }

  int num_places() const { return tsar_partition_num_places(part_); }
  tsar_place_info place_info(int place) const {
    tsar_place_info info{};
    detail::check(tsar_partition_get_place_info(part_, place, &info));
    return info;
  }
  std::int64_t passes() const { return tsar_partition_num_passes(part_); }
  /// Per-place statistics of pass `pass` (-1 = the last).
  std::vector<tsar_place_stats> place_stats(std::int64_t pass = -1) const {
    std::vector<tsar_place_stats> s(static_cast<std::size_t>(num_places()));
    detail::check(
        tsar_partition_get_pass_stats(part_, pass, nullptr, s.data(), static_cast<int>(s.size())));
    return s;
  }
  tsar_partition* handle() const { return part_; }

 private:
  template <class Body>
  struct Outer {
    explicit Outer(Body& b) : body(b) {}
    Body& body;
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    static void call(tsar_place* place, std::int64_t begin, std::int64_t end, void* arg) {
      auto* self = static_cast<Outer*>(arg);
      try {
        Place p(place, begin, end);
        self->body(p);
      } catch (const Error& e) {
        // A place that saw the pass canceled by another leaves quietly: the first error wins.
        if (e.status() != TSAR_ERR_CANCELED && !self->failed.exchange(true))
          self->error = std::current_exception();
        tsar_place_cancel(place);
      } catch (...) {
        if (!self->failed.exchange(true)) self->error = std::current_exception();
        tsar_place_cancel(place);
      }
    }
  };

  tsar_partition* part_ = nullptr;
};

/// Where memory is: the logical NUMA node of each page of [addr, addr + bytes), -1 for pages
/// never touched (tsar_mem_location).
inline std::vector<int> mem_location(const void* addr, std::size_t bytes) {
  std::size_t pages = 0;
  detail::check(tsar_mem_location(addr, bytes, nullptr, 0, &pages));
  std::vector<int> nodes(pages);
  detail::check(tsar_mem_location(addr, bytes, nodes.data(), nodes.size(), &pages));
  return nodes;
}

}  // namespace tsar

#endif  // TSAR_PARTITION_HPP
