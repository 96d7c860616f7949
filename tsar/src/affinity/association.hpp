// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A buffer mapped to a partition and how the outer iteration selects its parts (thesis
// 6.3.2): an array of up to three dimensions with explicit strides and one partitioned
// dimension (or none: shared), a segmented buffer (iteration i owns data[map[i] ..
// map[i+1])) or an indexed one (iteration i reads data[map[i]]).
//
// Everything is validated when the buffer is mapped -- shape, alignment, rows that overlap,
// map contents -- so that no page moves and no copy is made for a bad description. The
// association then answers which bytes a range of iterations owns (page placement) and
// which box of the array a range needs (copies).

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "queue/chunk_queue.hpp"
#include "tsar/tsar.h"

namespace tsar::core {

enum class AssocKind { kArray, kSegmented, kIndexed };

/// An array's geometry, in elements; unused dimensions have extent 1.
struct ArrayShape {
  std::size_t elem_size = 0;
  int dims = 1;
  std::array<std::size_t, 3> extent{1, 1, 1};
  std::array<std::size_t, 3> stride{1, 1, 1};
};

/// Index ranges along each dimension: [lo[d], hi[d]).
struct Box {
  std::array<std::int64_t, 3> lo{0, 0, 0};
  std::array<std::int64_t, 3> hi{1, 1, 1};
  bool empty(int dims) const;
  std::size_t elements(int dims) const;
};

/// Visits byte ranges [begin, end), as offsets from the buffer's start.
using ByteVisitor = std::function<void(std::size_t begin, std::size_t end)>;

/// Calls visit for the contiguous byte runs of `box` of an array of `shape`, adjacent runs
/// merged.
void for_each_run(const ArrayShape& shape, const Box& box, const ByteVisitor& visit);

class Association {
 public:
  /// Throw Error(TSAR_ERR_NULL / TSAR_ERR_INVALID) naming the buffer and the problem.
  static Association array(void* host, const tsar_array_desc& desc);
  static Association segmented(void* host, const tsar_indirect_desc& desc);
  static Association indexed(void* host, const tsar_indirect_desc& desc);

  AssocKind kind() const { return kind_; }
  void* host() const { return host_; }
  /// Bytes from host() to one past the last element.
  std::size_t bytes() const { return bytes_; }
  /// "'name' (0x...)" or "buffer 0x...", for messages.
  const std::string& label() const { return label_; }
  unsigned flags() const { return flags_; }
  bool input() const { return (flags_ & TSAR_MEM_IN) != 0; }
  bool output() const { return (flags_ & TSAR_MEM_OUT) != 0; }
  /// False for a shared (unpartitioned) array.
  bool partitioned() const { return kind_ != AssocKind::kArray || part_dim_ >= 0; }

  // Arrays.
  const ArrayShape& shape() const { return shape_; }
  int part_dim() const { return part_dim_; }
  std::size_t halo() const { return halo_; }
  /// The box iterations `r` read (halo included, clipped) or own (halo excluded).
  Box box(Range r, bool with_halo) const;
  Box full_box() const;

  // Indirect buffers: the map array.
  const void* map() const { return map_; }
  std::size_t map_size() const { return map_size_; }
  std::size_t map_count() const { return map_count_; }
  std::size_t map_bytes() const { return map_count_ * map_size_; }
  std::int64_t map_entry(std::size_t i) const;

  /// Iterations a pass may have: the partitioned extent, map entries (segments: entries - 1).
  std::int64_t items() const;
  /// Throws Error(TSAR_ERR_INVALID) naming the buffer when a pass of n does not fit, or when
  /// the map (which the program may have rewritten since) points outside the data.
  void check_pass(std::int64_t n) const;

  /// Byte ranges of the data that iterations `r` own (halo excluded; shared arrays: none).
  void for_each_owned(Range r, const ByteVisitor& visit) const;
  /// Byte ranges of the map array that iterations `r` own (their entries).
  void for_each_owned_map(Range r, const ByteVisitor& visit) const;

 private:
  Association() = default;
  void check_map(std::int64_t n) const;

  AssocKind kind_ = AssocKind::kArray;
  void* host_ = nullptr;
  std::size_t bytes_ = 0;
  std::string label_;
  unsigned flags_ = 0;
  ArrayShape shape_;
  int part_dim_ = -1;
  std::size_t halo_ = 0;
  const void* map_ = nullptr;
  std::size_t map_size_ = 0;
  std::size_t map_count_ = 0;
};

}  // namespace tsar::core
