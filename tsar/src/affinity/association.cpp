// SPDX-License-Identifier: BSD-3-Clause
#include "affinity/association.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "api/error.hpp"
#include "memory/address_range.hpp"

namespace tsar::core {
namespace {

std::string address(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

std::string make_label(const char* name, const void* host) {
  if (name != nullptr && name[0] != '\0')
    return "'" + std::string(name) + "' (" + address(host) + ")";
  return "buffer " + address(host);
}

[[noreturn]] void bad(const std::string& label, const std::string& problem) {
  throw Error(TSAR_ERR_INVALID, label + ": " + problem);
}

/// Largest power of two dividing elem_size, at most 16: the alignment elements of that size
/// have in any C layout (a double at an odd address is not a double).
std::size_t natural_alignment(std::size_t elem_size) {
  std::size_t a = 1;
  while (a < 16 && elem_size % (a * 2) == 0) a *= 2;
  return a;
}

void check_alignment(const std::string& label, const void* host, std::size_t elem_size) {
  const std::size_t align = natural_alignment(elem_size);
  if (reinterpret_cast<std::uintptr_t>(host) % align != 0)
    bad(label, "misaligned: the address is not a multiple of " + std::to_string(align) +
                   " (the alignment of " + std::to_string(elem_size) + "-byte elements)");
}

void check_flags(const std::string& label, unsigned flags) {
  constexpr unsigned kKnown = TSAR_MEM_INOUT | TSAR_MEM_PERSIST;
  if ((flags & ~kKnown) != 0)
    bad(label, "unknown flag bits " + std::to_string(flags & ~kKnown) +
                   " (partitions take TSAR_MEM_IN, TSAR_MEM_OUT, TSAR_MEM_PERSIST)");
  if ((flags & TSAR_MEM_INOUT) == 0)
    bad(label, "flags name no direction (TSAR_MEM_IN and/or TSAR_MEM_OUT)");
}

bool bytes_of(std::size_t count, std::size_t size, std::size_t* out) {
  return !__builtin_mul_overflow(count, size, out) &&
         *out <= static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max());
}

}  // namespace

bool Box::empty(int dims) const {
  for (int d = 0; d < dims; ++d)
    if (hi[d] <= lo[d]) return true;
  return false;
}

std::size_t Box::elements(int dims) const {
  if (empty(dims)) return 0;
  std::size_t n = 1;
  for (int d = 0; d < dims; ++d) n *= static_cast<std::size_t>(hi[d] - lo[d]);
  return n;
}

void for_each_run(const ArrayShape& s, const Box& box, const ByteVisitor& visit) {
  if (box.empty(s.dims)) return;
  // Pad to three dimensions (outer ones of extent 1), then walk the innermost dimension as
  // runs: one run per row when it is contiguous, one per element otherwise.
  std::array<std::int64_t, 3> lo{0, 0, 0}, hi{1, 1, 1};
  std::array<std::size_t, 3> st{0, 0, 1};
  const int shift = 3 - s.dims;
  for (int d = 0; d < s.dims; ++d) {
    lo[shift + d] = box.lo[d];
    hi[shift + d] = box.hi[d];
    st[shift + d] = s.stride[d];
  }
  const std::size_t e = s.elem_size;
  std::size_t pending_begin = 0, pending_end = 0;
  bool pending = false;
  const auto emit = [&](std::size_t b, std::size_t len) {
    if (pending && b == pending_end) {
      pending_end += len;
      return;
    }
    if (pending) visit(pending_begin, pending_end);
    pending = true;
    pending_begin = b;
    pending_end = b + len;
  };
  const bool contiguous = st[2] == 1;
  for (std::int64_t i = lo[0]; i < hi[0]; ++i) {
    for (std::int64_t j = lo[1]; j < hi[1]; ++j) {
      const std::size_t row =
          static_cast<std::size_t>(i) * st[0] + static_cast<std::size_t>(j) * st[1];
      if (contiguous) {
        emit((row + static_cast<std::size_t>(lo[2])) * e,
             static_cast<std::size_t>(hi[2] - lo[2]) * e);
      } else {
        for (std::int64_t k = lo[2]; k < hi[2]; ++k)
          emit((row + static_cast<std::size_t>(k) * st[2]) * e, e);
      }
    }
  }
  if (pending) visit(pending_begin, pending_end);
}

Association Association::array(void* host, const tsar_array_desc& d) {
  if (host == nullptr) throw Error(TSAR_ERR_NULL, "mapping an array: host pointer is NULL");
  Association a;
  a.kind_ = AssocKind::kArray;
  a.host_ = host;
  a.label_ = make_label(d.name, host);
  const std::string& L = a.label_;
  if (d.elem_size == 0) bad(L, "elem_size is 0");
  if (d.dims < 1 || d.dims > 3)
    bad(L, "dims must be 1, 2 or 3 (got " + std::to_string(d.dims) + ")");
  check_alignment(L, host, d.elem_size);
  check_flags(L, d.flags);
  ArrayShape& s = a.shape_;
  s.elem_size = d.elem_size;
  s.dims = d.dims;
  for (int k = 0; k < d.dims; ++k) {
    if (d.extent[k] == 0) bad(L, "extent[" + std::to_string(k) + "] is 0");
    s.extent[k] = d.extent[k];
  }
  // Strides, innermost first: 0 = packed behind the next dimension.
  for (int k = d.dims - 1; k >= 0; --k) {
    std::size_t inner = 1;
    if (k < d.dims - 1 && __builtin_mul_overflow(s.stride[k + 1], s.extent[k + 1], &inner))
      bad(L, "size overflows the address space");
    s.stride[k] = d.stride[k] == 0 ? inner : d.stride[k];
    if (s.stride[k] < inner)
      bad(L, "overlapping rows: stride[" + std::to_string(k) +
                 "] = " + std::to_string(s.stride[k]) + " elements is less than the " +
                 std::to_string(inner) + " elements of dimension " + std::to_string(k + 1) +
                 " (extent " + std::to_string(s.extent[k + 1]) + " x stride " +
                 std::to_string(s.stride[k + 1]) + ")");
  }
  // Extent: the last element's offset + 1.
  std::size_t last = 0;
  for (int k = 0; k < d.dims; ++k) {
    std::size_t step = 0;
    if (__builtin_mul_overflow(s.extent[k] - 1, s.stride[k], &step) ||
        __builtin_add_overflow(last, step, &last))
      bad(L, "size overflows the address space");
  }
  if (!bytes_of(last + 1, d.elem_size, &a.bytes_)) bad(L, "size overflows the address space");
  if (!in_address_space(host, a.bytes_))
    bad(L, std::to_string(a.bytes_) +
               " bytes from this address run past the end of the address "
               "space");
  if (d.part_dim < -1 || d.part_dim >= d.dims)
    bad(L, "part_dim " + std::to_string(d.part_dim) + " is not a dimension (-1 = shared, 0.." +
               std::to_string(d.dims - 1) + ")");
  a.part_dim_ = d.part_dim;
  a.halo_ = d.halo;
  if (d.part_dim < 0 && d.halo != 0) bad(L, "a halo needs a partitioned dimension (part_dim >= 0)");
  if (d.part_dim < 0 && (d.flags & TSAR_MEM_OUT) != 0)
    bad(L,
        "a shared (part_dim -1) array cannot be an output: places would overwrite each "
        "other's results (partition it)");
  if (d.part_dim >= 0 && d.halo >= s.extent[static_cast<std::size_t>(d.part_dim)])
    bad(L, "halo " + std::to_string(d.halo) + " is not smaller than the partitioned extent " +
               std::to_string(s.extent[static_cast<std::size_t>(d.part_dim)]));
  a.flags_ = d.flags;
  return a;
}

namespace {

Association indirect_data(void* host, const tsar_indirect_desc& d) {
  // The data of an indirect buffer is a 1-D array partitioned along its only dimension:
  // validated as one, and its copies and boxes are those of one.
  tsar_array_desc a{};
  a.name = d.name;
  a.elem_size = d.elem_size;
  a.dims = 1;
  a.extent[0] = d.count;
  a.part_dim = 0;
  a.flags = d.flags;
  return Association::array(host, a);
}

}  // namespace

Association Association::segmented(void* host, const tsar_indirect_desc& d) {
  Association a = indirect_data(host, d);
  a.kind_ = AssocKind::kSegmented;
  const std::string& L = a.label_;
  if (d.map == nullptr) bad(L, "the segment array is NULL");
  if (d.map_size != 4 && d.map_size != 8)
    bad(L, "map_size must be 4 (int32_t) or 8 (int64_t), got " + std::to_string(d.map_size));
  check_alignment(L + " segment array", d.map, d.map_size);
  if (d.map_count < 1) bad(L, "the segment array needs n + 1 >= 1 entries");
  a.map_ = d.map;
  a.map_size_ = d.map_size;
  a.map_count_ = d.map_count;
  a.check_map(a.items());
  return a;
}

Association Association::indexed(void* host, const tsar_indirect_desc& d) {
  if (host == nullptr)
    throw Error(TSAR_ERR_NULL, "mapping an indexed buffer: host pointer is NULL");
  if ((d.flags & TSAR_MEM_OUT) != 0)
    bad(make_label(d.name, host),
        "an indexed buffer is read through its index (TSAR_MEM_IN): iterations sharing an "
        "element would race on writes (map it as an array to write it)");
  Association a = indirect_data(host, d);
  a.kind_ = AssocKind::kIndexed;
  const std::string& L = a.label_;
  if (d.map == nullptr) bad(L, "the index array is NULL");
  if (d.map_size != 4 && d.map_size != 8)
    bad(L, "map_size must be 4 (int32_t) or 8 (int64_t), got " + std::to_string(d.map_size));
  check_alignment(L + " index array", d.map, d.map_size);
  a.map_ = d.map;
  a.map_size_ = d.map_size;
  a.map_count_ = d.map_count;
  a.check_map(a.items());
  return a;
}

std::int64_t Association::map_entry(std::size_t i) const {
  if (map_size_ == 4) {
    std::int32_t v;
    std::memcpy(&v, static_cast<const char*>(map_) + i * 4, 4);
    return v;
  }
  std::int64_t v;
  std::memcpy(&v, static_cast<const char*>(map_) + i * 8, 8);
  return v;
}

std::int64_t Association::items() const {
  switch (kind_) {
    case AssocKind::kArray:
      return part_dim_ < 0
                 ? std::numeric_limits<std::int64_t>::max()
                 : static_cast<std::int64_t>(shape_.extent[static_cast<std::size_t>(part_dim_)]);
    case AssocKind::kSegmented:
      return static_cast<std::int64_t>(map_count_) - 1;
    case AssocKind::kIndexed:
      return static_cast<std::int64_t>(map_count_);
  }
  return 0;
}

void Association::check_map(std::int64_t n) const {
  const auto count = static_cast<std::int64_t>(shape_.extent[0]);
  if (kind_ == AssocKind::kSegmented) {
    std::int64_t prev = map_entry(0);
    if (prev < 0 || prev > count)
      bad(label_, "segment array entry 0 = " + std::to_string(prev) + " is outside the data (" +
                      std::to_string(count) + " elements)");
    for (std::int64_t i = 1; i <= n; ++i) {
      const std::int64_t v = map_entry(static_cast<std::size_t>(i));
      if (v < prev)
        bad(label_, "segment array is not monotonic: entry " + std::to_string(i) + " = " +
                        std::to_string(v) + " < entry " + std::to_string(i - 1) + " = " +
                        std::to_string(prev));
      if (v > count)
        bad(label_, "segment array entry " + std::to_string(i) + " = " + std::to_string(v) +
                        " is past the end of the data (" + std::to_string(count) + " elements)");
      prev = v;
    }
  } else if (kind_ == AssocKind::kIndexed) {
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t v = map_entry(static_cast<std::size_t>(i));
      if (v < 0 || v >= count)
        bad(label_, "index array entry " + std::to_string(i) + " = " + std::to_string(v) +
                        " points outside the data (" + std::to_string(count) + " elements)");
    }
  }
}

void Association::check_pass(std::int64_t n) const {
  if (n > items()) {
    const char* what = kind_ == AssocKind::kSegmented ? " segments"
                       : kind_ == AssocKind::kIndexed ? " index entries"
                                                      : " indices along its partitioned dimension";
    bad(label_, "has " + std::to_string(items()) + what + " but the pass has " + std::to_string(n) +
                    " iterations");
  }
  if (kind_ != AssocKind::kArray) check_map(n);
}

Box Association::full_box() const {
  Box b;
  for (int d = 0; d < shape_.dims; ++d) b.hi[d] = static_cast<std::int64_t>(shape_.extent[d]);
  return b;
}

Box Association::box(Range r, bool with_halo) const {
  Box b = full_box();
  if (part_dim_ < 0) return b;
  const auto d = static_cast<std::size_t>(part_dim_);
  const auto h = with_halo ? static_cast<std::int64_t>(halo_) : 0;
  b.lo[d] = std::max<std::int64_t>(0, r.begin - h);
  b.hi[d] = std::min(b.hi[d], r.end + h);
  if (r.empty()) b.hi[d] = b.lo[d];
  return b;
}

void Association::for_each_owned(Range r, const ByteVisitor& visit) const {
  if (r.empty()) return;
  switch (kind_) {
    case AssocKind::kArray:
      if (part_dim_ >= 0) for_each_run(shape_, box(r, false), visit);
      return;
    case AssocKind::kSegmented: {
      const auto b = static_cast<std::size_t>(map_entry(static_cast<std::size_t>(r.begin)));
      const auto e = static_cast<std::size_t>(map_entry(static_cast<std::size_t>(r.end)));
      if (e > b) visit(b * shape_.elem_size, e * shape_.elem_size);
      return;
    }
    case AssocKind::kIndexed:
      for (std::int64_t i = r.begin; i < r.end; ++i) {
        const auto k = static_cast<std::size_t>(map_entry(static_cast<std::size_t>(i)));
        visit(k * shape_.elem_size, (k + 1) * shape_.elem_size);
      }
      return;
  }
}

void Association::for_each_owned_map(Range r, const ByteVisitor& visit) const {
  if (kind_ == AssocKind::kArray || r.empty()) return;
  visit(static_cast<std::size_t>(r.begin) * map_size_, static_cast<std::size_t>(r.end) * map_size_);
}

}  // namespace tsar::core
