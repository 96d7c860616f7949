// SPDX-License-Identifier: BSD-3-Clause
#include "traffic_model.hpp"

#include <algorithm>

namespace tsar_bench_gpu {
namespace {

bool reads(const tsar_mem_desc& d) { return (d.flags & TSAR_MEM_IN) != 0; }
bool writes(const tsar_mem_desc& d) { return (d.flags & TSAR_MEM_OUT) != 0; }

/// The rows a worker running `r` touches: what it reads (halo included; all of a FULL
/// input), or of an output not written whole, its own rows.
RowRange touched(const tsar_mem_desc& d, RowRange r) {
  const auto rows = static_cast<std::int64_t>(d.rows);
  if (r.end <= r.begin) return {};
  if (!reads(d)) return (d.flags & TSAR_MEM_OVERWRITE) != 0 ? RowRange{} : r;
  if (d.assoc == TSAR_ASSOC_FULL) return {0, rows};
  const auto halo = static_cast<std::int64_t>(d.halo);
  return {std::max<std::int64_t>(0, r.begin - halo), std::min(rows, r.end + halo)};
}

}  // namespace

std::int64_t TrafficModel::pass(std::span<const ModelBuffer> buffers,
                                std::span<const RowRange> ranges,
                                std::span<const unsigned char> host_memory,
                                std::span<const int> peer_group) {
  std::int64_t bytes = 0;
  for (const ModelBuffer& b : buffers) {
    const tsar_mem_desc& d = b.desc;
    const auto row_bytes = static_cast<std::int64_t>(d.cols * d.elem_size);
    if (!b.kept) {
      for (std::size_t w = 0; w < ranges.size(); ++w) {
        if (host_memory[w]) continue;
        const RowRange in = touched(d, ranges[w]);
        bytes += (in.end - in.begin) * row_bytes;
        if (writes(d)) bytes += (ranges[w].end - ranges[w].begin) * row_bytes;
      }
      continue;
    }
    Rows& st = rows_[b.host];
    if (st.owner.empty()) {
      st.owner.assign(d.rows, -1);
      st.holders.assign(d.rows, kHost);
    }
    for (std::size_t w = 0; w < ranges.size(); ++w) {
      const RowRange t = touched(d, ranges[w]);
      const std::uint64_t me = std::uint64_t{1} << w;
      for (std::int64_t row = t.begin; row < t.end; ++row) {
        const auto k = static_cast<std::size_t>(row);
        const int owner = st.owner[k];
        const bool elsewhere = owner >= 0 && owner != static_cast<int>(w);
        if (!host_memory[w] && (st.holders[k] & me) == 0 && elsewhere && peer_group[w] >= 0 &&
            peer_group[static_cast<std::size_t>(owner)] == peer_group[w]) {
          bytes += row_bytes;  // from the owner's copy straight into this worker's device
          st.holders[k] |= me;
          continue;
        }
        if (host_memory[w] ? owner >= 0 : (st.holders[k] & me) == 0 && elsewhere) {
          bytes += row_bytes;  // the owner's copy back to the host
          st.holders[k] |= kHost;
          st.owner[k] = -1;
        }
        if (!host_memory[w] && (st.holders[k] & me) == 0) {
          bytes += row_bytes;  // into this worker's device
          st.holders[k] |= me;
        }
      }
    }
    if (!writes(d)) continue;
    for (std::size_t w = 0; w < ranges.size(); ++w)
      for (std::int64_t row = ranges[w].begin; row < ranges[w].end; ++row) {
        const auto k = static_cast<std::size_t>(row);
        st.owner[k] = host_memory[w] ? -1 : static_cast<int>(w);
        st.holders[k] = host_memory[w] ? kHost : std::uint64_t{1} << w;
      }
  }
  return bytes;
}

}  // namespace tsar_bench_gpu
