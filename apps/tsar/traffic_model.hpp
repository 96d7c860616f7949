// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The bytes a split requires: an independent model of row-coherent device copies, to set
// against what TSAR moved (tsar-bench-gpu prints both for its time-step kernels).
//
// A row of a buffer kept on the devices (a data environment's) is current on the host or
// owned by the device that wrote it last; a device reading a row it does not hold copies it
// in, after the owner copied it back to the host when another device owns it -- or straight
// from the owner's copy where the two devices copy into each other (a peer group: CUDA GPUs,
// OpenMP target devices of one device number), the owner keeping it; a write makes the
// writer the owner (a host-memory worker's makes the host current). A buffer not kept
// moves whole every pass: an accelerator's rows (and halo) in, its own rows out. Outputs not
// written whole (no TSAR_MEM_OVERWRITE) start from the host's values, so they are read too.
// Each loop's split is given as one range per worker, in worker order.

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "tsar/tsar.h"

namespace tsar_bench_gpu {

struct RowRange {
  std::int64_t begin = 0, end = 0;
};

/// A buffer as one loop uses it.
struct ModelBuffer {
  const void* host;
  tsar_mem_desc desc;  ///< ROWS or FULL; the loop's halo and direction
  bool kept;           ///< on the devices between loops (mapped in a data environment)
};

class TrafficModel {
 public:
  /// Every row current on the host, no device holding any (the program restored the inputs).
  void reset() { rows_.clear(); }
  /// One pass of a loop using `buffers` with each worker's `ranges` (at most 64 workers):
  /// the bytes it must move. `host_memory[w]`: worker w computed on the host's memory (a CPU
  /// device) in this pass. `peer_group[w]`: workers of one group >= 0 copy into each other's
  /// memory directly (-1: through the host only).
  std::int64_t pass(std::span<const ModelBuffer> buffers, std::span<const RowRange> ranges,
                    std::span<const unsigned char> host_memory, std::span<const int> peer_group);

 private:
  /// Per row: the worker owning it (-1: the host's is current), and who holds it (bit w:
  /// worker w; kHost: the host).
  struct Rows {
    std::vector<int> owner;
    std::vector<std::uint64_t> holders;
  };
  static constexpr std::uint64_t kHost = std::uint64_t{1} << 63;
  std::map<const void*, Rows> rows_;
};

}  // namespace tsar_bench_gpu
