// SPDX-License-Identifier: BSD-3-Clause
/// @file tsar/data.hpp
/// The C++ face of data environments (tsar/data.h: the ownership rule is there).
///
///   tsar::Data env;
///   env.map_2d(u.data(), rows, cols);
///   tsar::Region smooth("smooth"), update("update");
///   env.attach(smooth);
///   env.attach(update);
///   auto us = smooth.map_2d(u.data(), rows, cols, 0, tsar::Assoc::rows, TSAR_MEM_IN, 1);
///   ...
///   env.update_host(u.data());  // before reading u on the host
///
/// Either may be destroyed first: regions keep the environment they are attached to.
#ifndef TSAR_DATA_HPP
#define TSAR_DATA_HPP

#include <cstddef>
#include <utility>

#include "tsar/data.h"
#include "tsar/tsar.hpp"

namespace tsar {

/// A data environment (tsar_data). Movable, not copyable.
class Data {
 public:
  Data() { detail::check(tsar_data_create(&data_)); }
  Data(Data&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
  Data& operator=(Data&& other) noexcept {
    if (this != &other) {
      tsar_data_free(data_);
      data_ = std::exchange(other.data_, nullptr);
    }
    return *this;
  }
  /// Writes back the rows devices own (tsar_data_free).
  ~Data() { tsar_data_free(data_); }

  /// Maps a 1-D array of count elements.
  template <class T>
  void map(T* host, std::size_t count) {
    map_2d(host, count, 1);
  }
  /// Maps a rows x cols matrix with row_stride elements per row (0 = cols); `pad`: rows may
  /// be padded on devices (TSAR_MEM_PAD).
  template <class T>
  void map_2d(T* host, std::size_t rows, std::size_t cols, std::size_t row_stride = 0,
              bool pad = false) {
    const tsar_mem_desc desc{sizeof(T),
                             rows,
                             cols,
                             row_stride,
                             0,
                             TSAR_ASSOC_ROWS,
                             pad ? static_cast<unsigned>(TSAR_MEM_PAD) : 0u};
    detail::check(tsar_data_map(data_, host, &desc));
  }
  void unmap(const void* host) { detail::check(tsar_data_unmap(data_, host)); }
  /// Attaches `region` for its life (tsar_data_attach).
  void attach(const Region& region) { detail::check(tsar_data_attach(region.handle(), data_)); }

  /// The rows devices own come back to `host` (every buffer when nullptr).
  void update_host(const void* host = nullptr) {
    detail::check(tsar_data_update_host(data_, host));
  }
  void update_host_rows(const void* host, std::size_t first, std::size_t count) {
    detail::check(tsar_data_update_host_rows(data_, host, first, count));
  }
  /// The program wrote `host` (every buffer when nullptr): device copies are dropped.
  void update_device(const void* host = nullptr) {
    detail::check(tsar_data_update_device(data_, host));
  }
  void update_device_rows(const void* host, std::size_t first, std::size_t count) {
    detail::check(tsar_data_update_device_rows(data_, host, first, count));
  }
  /// Traffic and placement of `host` (the sums when nullptr).
  tsar_data_stats stats(const void* host = nullptr) const {
    tsar_data_stats s{};
    detail::check(tsar_data_get_stats(data_, host, &s));
    return s;
  }
  tsar_data* handle() const { return data_; }

 private:
  tsar_data* data_ = nullptr;
};

}  // namespace tsar

#endif  // TSAR_DATA_HPP
