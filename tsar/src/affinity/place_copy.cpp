// SPDX-License-Identifier: BSD-3-Clause
#include "affinity/place_copy.hpp"

#include <algorithm>
#include <cstring>

namespace tsar::core {
namespace {

char* element(const View& v, std::size_t elem_size, std::int64_t i, std::int64_t j, std::int64_t k,
              int shift) {
  // (i, j, k) are the tuple padded to three dimensions; the view's own dims are the last ones.
  const std::array<std::int64_t, 3> idx{i, j, k};
  std::int64_t off = 0;
  for (int d = 0; d < v.dims; ++d)
    off += (idx[static_cast<std::size_t>(shift + d)] - v.offset[static_cast<std::size_t>(d)]) *
           static_cast<std::int64_t>(v.stride[static_cast<std::size_t>(d)]);
  return static_cast<char*>(v.base) + off * static_cast<std::int64_t>(elem_size);
}

View shifted_1d(void* base, std::int64_t offset, std::int64_t extent, std::size_t elem_size) {
  View v;
  v.base = base;
  v.offset[0] = offset;
  v.extent[0] = extent;
  v.host_indexed = static_cast<char*>(base) - offset * static_cast<std::int64_t>(elem_size);
  return v;
}

}  // namespace

View host_view(const Association& a) {
  const ArrayShape& s = a.shape();
  View v;
  v.base = a.host();
  v.dims = s.dims;
  for (int d = 0; d < s.dims; ++d) {
    v.stride[d] = s.stride[d];
    v.extent[d] = static_cast<std::int64_t>(s.extent[d]);
  }
  v.host_indexed = a.host();
  return v;
}

View host_map_view(const Association& a) {
  return shifted_1d(const_cast<void*>(a.map()), 0, static_cast<std::int64_t>(a.map_count()),
                    a.map_size());
}

std::size_t copy_box(const View& dst, const View& src, std::size_t elem_size, const Box& box) {
  const int dims = dst.dims;
  if (box.empty(dims)) return 0;
  std::array<std::int64_t, 3> lo{0, 0, 0}, hi{1, 1, 1};
  const int shift = 3 - dims;
  for (int d = 0; d < dims; ++d) {
    lo[static_cast<std::size_t>(shift + d)] = box.lo[static_cast<std::size_t>(d)];
    hi[static_cast<std::size_t>(shift + d)] = box.hi[static_cast<std::size_t>(d)];
  }
  const std::size_t last = static_cast<std::size_t>(dims - 1);
  const bool rows = dst.stride[last] == 1 && src.stride[last] == 1;
  const std::size_t row_bytes = static_cast<std::size_t>(hi[2] - lo[2]) * elem_size;
  for (std::int64_t i = lo[0]; i < hi[0]; ++i) {
    for (std::int64_t j = lo[1]; j < hi[1]; ++j) {
      if (rows) {
        std::memcpy(element(dst, elem_size, i, j, lo[2], shift),
                    element(src, elem_size, i, j, lo[2], shift), row_bytes);
      } else {
        for (std::int64_t k = lo[2]; k < hi[2]; ++k)
          std::memcpy(element(dst, elem_size, i, j, k, shift),
                      element(src, elem_size, i, j, k, shift), elem_size);
      }
    }
  }
  return box.elements(dims) * elem_size;
}

PlaceCopy::~PlaceCopy() {
  memory_.release(data_, data_capacity_);
  memory_.release(map_, map_capacity_);
}

void* PlaceCopy::reserve(void*& storage, std::size_t& capacity, std::size_t bytes) {
  if (bytes > capacity || storage == nullptr) {
    memory_.release(storage, capacity);
    storage = nullptr;
    capacity = 0;
    // Grow by half again, so a range that creeps up by a few rows a pass re-allocates rarely.
    const std::size_t want = std::max<std::size_t>(bytes + bytes / 2, 64);
    storage = memory_.allocate_on(want, os_node_);
    capacity = want;
  }
  return storage;
}

std::size_t PlaceCopy::copy_in(const Association& a, Range r, bool refresh_only_halo) {
  const ArrayShape& s = a.shape();
  const std::size_t e = s.elem_size;
  std::size_t copied = 0;
  range_ = r;
  laid_out_ = true;
  switch (a.kind()) {
    case AssocKind::kArray: {
      const Box need = a.box(r, true);
      View v;
      v.dims = s.dims;
      std::size_t elems = 0;
      if (a.part_dim() <= 0) {
        // Host strides from the first element needed: one contiguous stretch of the host.
        std::size_t last = 0;
        for (int d = 0; d < s.dims; ++d) {
          v.stride[d] = s.stride[d];
          v.offset[d] = need.lo[d];
          v.extent[d] = need.hi[d] - need.lo[d];
          last +=
              static_cast<std::size_t>(std::max<std::int64_t>(0, v.extent[d] - 1)) * s.stride[d];
        }
        elems = need.empty(s.dims) ? 0 : last + 1;
      } else {
        // Dense: the needed box packed, innermost dimension contiguous.
        std::size_t step = 1;
        for (int d = s.dims - 1; d >= 0; --d) {
          v.stride[d] = step;
          v.offset[d] = need.lo[d];
          v.extent[d] = need.hi[d] - need.lo[d];
          step *= static_cast<std::size_t>(std::max<std::int64_t>(0, v.extent[d]));
        }
        elems = step;
      }
      v.base = reserve(data_, data_capacity_, elems * e);
      if (a.part_dim() <= 0) {
        std::int64_t back = 0;
        for (int d = 0; d < s.dims; ++d)
          back += v.offset[d] * static_cast<std::int64_t>(v.stride[d]);
        v.host_indexed = static_cast<char*>(v.base) - back * static_cast<std::int64_t>(e);
      }
      data_view_ = v;
      const View host = host_view(a);
      if (a.input() && !refresh_only_halo) {
        copied += copy_box(v, host, e, need);
      } else if (a.part_dim() >= 0) {
        // The owned part is current (persistent) or about to be written (output only): only
        // the halo is read from the host.
        const Box own = a.box(r, false);
        const auto d = static_cast<std::size_t>(a.part_dim());
        Box before = need, after = need;
        before.hi[d] = own.lo[d];
        after.lo[d] = own.hi[d];
        if (r.empty()) after.lo[d] = after.hi[d];
        copied += copy_box(v, host, e, before) + copy_box(v, host, e, after);
      }
      return copied;
    }
    case AssocKind::kSegmented: {
      const auto count = static_cast<std::int64_t>(a.map_count());
      const std::int64_t lo = r.empty() ? 0 : a.map_entry(static_cast<std::size_t>(r.begin));
      const std::int64_t hi = r.empty() ? 0 : a.map_entry(static_cast<std::size_t>(r.end));
      void* d = reserve(data_, data_capacity_, static_cast<std::size_t>(hi - lo) * e);
      data_view_ = shifted_1d(d, lo, hi - lo, e);
      if (a.input() && !refresh_only_halo && hi > lo) {
        std::memcpy(d, static_cast<const char*>(a.host()) + lo * static_cast<std::int64_t>(e),
                    static_cast<std::size_t>(hi - lo) * e);
        copied += static_cast<std::size_t>(hi - lo) * e;
      }
      // The segment entries [begin, end] the range reads, kept as they are: they index the
      // data copy, which keeps the host's element numbers.
      const std::int64_t m_lo = r.empty() ? 0 : r.begin;
      const std::int64_t m_hi = r.empty() ? 0 : std::min(count, r.end + 1);
      void* m = reserve(map_, map_capacity_, static_cast<std::size_t>(m_hi - m_lo) * a.map_size());
      std::memcpy(
          m, static_cast<const char*>(a.map()) + m_lo * static_cast<std::int64_t>(a.map_size()),
          static_cast<std::size_t>(m_hi - m_lo) * a.map_size());
      copied += static_cast<std::size_t>(m_hi - m_lo) * a.map_size();
      map_view_ = shifted_1d(m, m_lo, m_hi - m_lo, a.map_size());
      return copied;
    }
    case AssocKind::kIndexed: {
      // The elements the range reads, each once, in address order; the index copy points
      // into that compact copy.
      std::vector<std::int64_t> elems;
      elems.reserve(static_cast<std::size_t>(r.size() > 0 ? r.size() : 0));
      for (std::int64_t i = r.begin; i < r.end; ++i)
        elems.push_back(a.map_entry(static_cast<std::size_t>(i)));
      std::sort(elems.begin(), elems.end());
      elems.erase(std::unique(elems.begin(), elems.end()), elems.end());
      char* d = static_cast<char*>(reserve(data_, data_capacity_, elems.size() * e));
      const auto* host = static_cast<const char*>(a.host());
      for (std::size_t k = 0; k < elems.size(); ++k)
        std::memcpy(d + k * e, host + static_cast<std::size_t>(elems[k]) * e, e);
      copied += elems.size() * e;
      data_view_ = shifted_1d(d, 0, static_cast<std::int64_t>(elems.size()), e);
      const std::size_t ms = a.map_size();
      char* m = static_cast<char*>(reserve(
          map_, map_capacity_, static_cast<std::size_t>(std::max<std::int64_t>(0, r.size())) * ms));
      for (std::int64_t i = r.begin; i < r.end; ++i) {
        const auto local =
            std::lower_bound(elems.begin(), elems.end(), a.map_entry(static_cast<std::size_t>(i))) -
            elems.begin();
        char* slot = m + static_cast<std::size_t>(i - r.begin) * ms;
        if (ms == 4) {
          const auto v = static_cast<std::int32_t>(local);
          std::memcpy(slot, &v, 4);
        } else {
          const auto v = static_cast<std::int64_t>(local);
          std::memcpy(slot, &v, 8);
        }
      }
      copied += static_cast<std::size_t>(std::max<std::int64_t>(0, r.size())) * ms;
      map_view_ = shifted_1d(m, r.empty() ? 0 : r.begin, std::max<std::int64_t>(0, r.size()), ms);
      return copied;
    }
  }
  return copied;
}

std::size_t PlaceCopy::merge_out(const Association& a) const {
  if (!a.output() || !laid_out_ || range_.empty()) return 0;
  const View host = host_view(a);
  if (a.kind() == AssocKind::kSegmented) {
    const std::int64_t lo = data_view_.offset[0];
    const std::int64_t n = data_view_.extent[0];
    const std::size_t e = a.shape().elem_size;
    if (n > 0)
      std::memcpy(static_cast<char*>(a.host()) + lo * static_cast<std::int64_t>(e), data_view_.base,
                  static_cast<std::size_t>(n) * e);
    return static_cast<std::size_t>(std::max<std::int64_t>(0, n)) * e;
  }
  return copy_box(host, data_view_, a.shape().elem_size, a.box(range_, false));
}

}  // namespace tsar::core
