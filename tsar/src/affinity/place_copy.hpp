// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Per-place copies of mapped buffers (the replicate policy, thesis 6.4.2): each place gets
// the part of every buffer its range reads, on its own node, and the body indexes it like
// the host buffer. Arrays partitioned along the outermost dimension (and shared arrays) keep
// the host's strides, so host indexing works unchanged; arrays partitioned along an inner
// dimension become dense sub-arrays (the "tiling effect": a column panel of a matrix turns
// into a small contiguous one). Segmented data keeps its element numbers; indexed data is
// gathered into a compact copy and the place's copy of the index array is rewritten to
// point into it.
//
// Every copy between host buffers and copies, or between two places' copies (halo updates),
// is a box copy between two views.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "affinity/association.hpp"
#include "affinity/numa_memory.hpp"

namespace tsar::core {

/// Where a buffer's elements are: index tuple i at base + sum_d (i_d - offset[d]) * stride[d]
/// elements, for indices offset[d] <= i_d < offset[d] + extent[d].
struct View {
  void* base = nullptr;
  int dims = 1;
  std::array<std::size_t, 3> stride{1, 1, 1};
  std::array<std::int64_t, 3> offset{0, 0, 0};
  std::array<std::int64_t, 3> extent{1, 1, 1};
  /// The pointer a body indexes like the host buffer (base shifted back by the offsets);
  /// nullptr when the strides differ from the host's.
  void* host_indexed = nullptr;
};

/// The host buffer of `a` as a view (the whole array).
View host_view(const Association& a);
/// The host map array of an indirect buffer as a 1-D view.
View host_map_view(const Association& a);
/// Copies the elements of `box` from src to dst; returns the bytes copied.
std::size_t copy_box(const View& dst, const View& src, std::size_t elem_size, const Box& box);

/// One place's copy of one mapped buffer. Storage is allocated on the place's node and kept
/// (grown when needed) across passes.
class PlaceCopy {
 public:
  PlaceCopy(NumaMemory& memory, int os_node) : memory_(memory), os_node_(os_node) {}
  ~PlaceCopy();
  PlaceCopy(const PlaceCopy&) = delete;
  PlaceCopy& operator=(const PlaceCopy&) = delete;

  /// Lays the copy out for iterations `r` and copies in what they read (outputs that are
  /// not inputs: only their halo); returns the bytes copied. `refresh_only_halo`: the
  /// owned part is current from the previous pass (persistent, same range).
  std::size_t copy_in(const Association& a, Range r, bool refresh_only_halo);
  /// Copies the part the range owns back to the host (outputs); returns the bytes copied.
  std::size_t merge_out(const Association& a) const;

  const View& data() const { return data_view_; }
  const View& map() const { return map_view_; }
  Range range() const { return range_; }
  bool laid_out() const { return laid_out_; }

 private:
  void* reserve(void*& storage, std::size_t& capacity, std::size_t bytes);

  NumaMemory& memory_;
  int os_node_;
  void* data_ = nullptr;
  std::size_t data_capacity_ = 0;
  void* map_ = nullptr;
  std::size_t map_capacity_ = 0;
  View data_view_;
  View map_view_;
  Range range_;
  bool laid_out_ = false;
};

}  // namespace tsar::core
