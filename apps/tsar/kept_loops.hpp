// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A time-step kernel's loops (apps/tsar/kernels), each in a region of its own, with their
// data kept on the devices from loop to loop: the buffers some loop reads are mapped in one
// data environment every region is attached to (tsar/data.h). Buffers the loops only write
// are what the kernel's serial steps read between loops (partial sums): each region registers
// those on its own, copied back every pass. Each loop's split is fed to a TrafficModel: the
// bytes the splits required, set against what moved.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernel.hpp"
#include "traffic_model.hpp"
#include "tsar/tsar.hpp"

namespace tsar_bench_gpu {

class KeptLoops {
 public:
  /// Maps the kept buffers of `kernel`'s loops, attaches `regions` (regions[i]: loop i's) and
  /// registers each loop's buffers with its region. Throws tsar::Error naming the buffer.
  KeptLoops(const tsar::kernels::Kernel& kernel, std::span<tsar::Region* const> regions);
  /// Unregisters the buffers; the environment writes the devices' rows back.
  ~KeptLoops();
  KeptLoops(const KeptLoops&) = delete;
  KeptLoops& operator=(const KeptLoops&) = delete;

  tsar::Data& data() { return *data_; }
  /// Whether the loops keep `host` on the devices.
  bool kept(const void* host) const;
  /// After loop `loop` ran a pass in `region`: notes the pass, whose split the model reads
  /// later, outside a timed pass (reading a pass's statistics and walking its rows takes time
  /// that grows with the devices).
  void count(const tsar::kernels::Loop& loop, const tsar::Region& region);
  /// The bytes the splits of the passes counted since restart() required; -1 once a pass gave
  /// an accelerator several ranges (the model needs one range per device).
  std::int64_t required();
  void restart();
  /// The program restored the buffers on the host: the devices' copies are dropped.
  void host_restored();

 private:
  /// Runs the model over the passes counted and not yet modelled.
  void model_counted();
  struct Counted {
    int loop;
    const tsar::Region* region;
    std::int64_t pass;
  };
  std::vector<Counted> counted_;
  const tsar::kernels::Kernel& kernel_;
  std::vector<tsar::Region*> regions_;
  std::vector<const void*> kept_;
  std::unique_ptr<tsar::Data> data_;
  TrafficModel model_;
  std::int64_t required_ = 0;
};

}  // namespace tsar_bench_gpu
