// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The copy engine: moves registered buffers between the host and devices with their own
// memory (thesis 5.3.3, 5.4.2-5.4.3), from the devices' workers, inside their timed ranges.
//
// For each range a worker runs, stage_in allocates on its device only the rows or columns
// the range needs (halo included) and copies in those its copy does not already hold
// unchanged; stage_out copies the range's own rows or columns of outputs back and waits for
// the device. What a copy holds:
//   FULL       all rows (inputs only)
//   ROWS       a window of rows in one allocation; bodies index it like the host buffer through
//              an offset pointer (no repacking), rows padded under TSAR_MEM_PAD
//   COLS       a window of columns packed into rows of the window's width (padded)
//   ROWS_COLS  the whole matrix (a device needs full rows and full columns: a plus sign); its
//              outputs are merged back element by element where the device changed them
// Non-persistent copies are refreshed every pass. Persistent ones (TSAR_MEM_PERSIST) keep
// what stays valid: at the start of a pass, the rows or columns other workers wrote in the
// previous pass -- copied back by devices, or written in place by CPU workers -- are the only
// ones that go stale, so a stencil moves its owned rows out and its halo rows in.
//
// Resident outputs (TSAR_MEM_RESIDENT, persistent ROWS) are not copied back after a range:
// the rows stay on the device that wrote them (its copy's `dirty` set) and the host's go
// stale -- all but the range's boundary rows (as many as the output's halo, where another
// range borders it): a double-buffered stencil swaps the output in as the next pass's input,
// whose halos they are, so they are copied back under the range's own wait. When a plan is
// installed (exchange), the planner writes back the other resident rows another worker will
// read under it -- boundary rows of a split that moved, and whatever a chunk schedule may
// hand to anyone -- waiting for the devices while no worker runs. The rest moves only when
// the host needs it: write_back (tsar_mem_sync, unregistering, retargeting, freeing the
// region), or when the device leaves the region. A double-buffered stencil thus moves its
// halo rows in and its boundary rows out per pass, nothing else.
//
// Between devices that can copy into each other's memory (Device::can_copy_peer: CUDA GPUs;
// in CI, copies on the host's OpenMP device), those boundary rows go straight into the copy of
// the worker whose range reads them as halo, under the same wait, instead of through the host:
// they stay resident on the writer (the host's are stale) and current in the reader's copy,
// which then needs nothing copied in for them. exchange arranges it, before any worker runs,
// where the reader's copy already holds those rows and keeps its window this pass; the rows'
// new home is settled at end_pass. Resident rows an earlier pass left on one device -- another
// loop's output a data environment's loop reads with a halo -- go the same way, copied by
// exchange itself into the reader's copy: the reader's device waits for them
// (Device::order_before), the planner does not.
//
// Copies belong to the buffer's data (BufferData), one per device; each worker uses its
// device's. What a worker writes in a pass is recorded per registration and settled into the
// other copies at the end of the pass (end_pass), so the next loop to use the buffer -- this
// region's next pass, or another region's sharing a data environment -- sees it stale.
//
// Threads: stage_in/stage_out/collect touch only the worker's own copy and write record;
// begin_pass, exchange and end_pass run on the planner while no worker runs. Bytes moved are
// counted per worker and pass.

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "devices/device.hpp"
#include "memory/interval_set.hpp"
#include "memory/reductions.hpp"
#include "memory/registry.hpp"

namespace tsar::core {

/// Bytes a worker moved in one pass.
struct Traffic {
  std::int64_t to_device = 0;
  std::int64_t from_device = 0;
  /// Of from_device, the bytes copied straight into another device's memory (copy_peer).
  std::int64_t peer = 0;
};

class CopyEngine {
 public:
  explicit CopyEngine(int workers);

  /// Planner, before a pass: gives each worker on a device with its own memory that device's
  /// copy of every buffer, frees the region's own copies on devices no worker drives any more
  /// (back-off, out of memory) and forgets the contents of non-persistent copies -- writing
  /// back their resident rows first -- and zeroes the traffic counters.
  /// `origin`: the pass's first iteration; the ranges of this pass's other calls count from
  /// it (range k..l is items origin + k .. origin + l).
  void begin_pass(MemoryRegistry& memory, Reductions& reductions,
                  std::span<const std::shared_ptr<Device>> devices, std::int64_t origin = 0);
  /// Leader, at the end of a pass (finished, canceled or failed): what each worker wrote goes
  /// stale in every other copy of the buffer.
  void end_pass(MemoryRegistry& memory);
  /// Planner, once a plan is installed and before any worker runs it: writes back the
  /// resident rows of inputs that a worker on another device reads (its range, halo
  /// included), whichever device holds them -- unless that worker's copy holds them current
  /// already and keeps its window this pass -- and arranges which boundary rows of resident
  /// outputs go straight to a neighbour's copy (above). `ranges`: each worker's range; empty
  /// for chunk plans, where any worker may read any row.
  void exchange(MemoryRegistry& memory, std::span<const Range> ranges);
  /// Outside passes: brings rows `rows` of the host buffer of `data` up to date (their
  /// resident rows written back, the devices keep their copies). Returns the bytes moved.
  static std::int64_t write_back(BufferData& data, Range rows);
  static std::int64_t write_back(BufferData& data) {
    return write_back(data, {0, static_cast<std::int64_t>(data.shape.rows)});
  }

  /// Worker `worker`, before running `range` on `device` (its own memory): allocates and
  /// copies in. Throws DeviceOutOfMemory when an allocation fails, Error on a failed copy.
  void stage_in(MemoryRegistry& memory, Reductions& reductions, int worker,
                const std::shared_ptr<Device>& device, Range range);
  /// Worker `worker`, after running `range`: copies outputs back (devices with their own
  /// memory) and waits for the device; on host-memory devices records the rows written.
  /// `last`: no other range follows in this (sub-)pass, so the device accumulators come back
  /// with the outputs, under the same wait (collect_reductions then has nothing to do).
  void stage_out(MemoryRegistry& memory, Reductions& reductions, int worker, Device& device,
                 Range range, bool last);
  /// Worker `worker` at the end of its (sub-)pass: device accumulators into host ones, unless
  /// its last stage_out brought them back.
  void collect_reductions(Reductions& reductions, int worker, Device& device);
  /// Worker `worker` leaves its device for the rest of the region (out of memory): its
  /// accumulators are collected and every allocation it holds is freed.
  void abandon_device(MemoryRegistry& memory, Reductions& reductions, int worker, Device& device);

  /// Bytes worker `worker` moved since begin_pass.
  Traffic traffic(int worker) const {
    const WorkerState& s = traffic_[static_cast<std::size_t>(worker)];
    return s.pass == pass_ ? s.bytes : Traffic{};
  }

 private:
  /// Boundary rows of a resident output that a worker copies straight into `to`, the copy
  /// of the worker reading them as halo: where `to`'s allocation lies, as exchange saw it (the
  /// other worker does not move it in this pass).
  struct PeerTarget {
    const BufferData* data = nullptr;
    Range rows;
    DeviceCopy* to = nullptr;
    void* base = nullptr;  ///< to's allocation, holding rows from `first`
    std::int64_t first = 0;
  };
  struct alignas(64) WorkerState {
    std::uint64_t pass = 0;  ///< the pass bytes, staged and collected are of (state)
    Traffic bytes;
    bool staged = false;     ///< device accumulators set up in this pass
    bool collected = false;  ///< ... and in the host ones since the last range ran
    std::vector<Range> missing;
    std::vector<unsigned char> check;  ///< TSAR_CHECK's scratch (host_check.hpp)
    IntervalSet need;                  ///< exchange's scratch
    std::vector<PeerTarget> peer;      ///< exchange's, for this (sub-)pass
    /// Rows copied into other copies in this pass: current there once the pass is settled.
    std::vector<std::pair<DeviceCopy*, Range>> delivered;
  };
  /// exchange's part for the boundary rows of resident outputs (PeerTarget).
  void plan_peer_copies(MemoryRegistry& memory, std::span<const Range> ranges);
  /// copy_back's: copies `rows` of `c` straight into a neighbour's copy if exchange arranged
  /// it; returns the bytes, or -1 when the rows must go through the host.
  std::int64_t copy_to_peer(const BufferData& data, DeviceCopy& c, Device& device, WorkerState& me,
                            Range rows);
  /// exchange's: queues the copies of the resident rows of `c` inside `rows` straight into
  /// `to` (current there from now on) and notes the pair for ordering; returns the bytes.
  std::int64_t copy_rows_to_peer(const BufferData& data, DeviceCopy& c, DeviceCopy& to, Range rows);
  /// Allocates, grows or moves the allocation of `c` (on `device`) so that it holds the
  /// items `need` (window_need of a worker's range): a persistent copy grows with some slack
  /// and keeps what it holds, another moves.
  static void place_window(Registration& reg, DeviceCopy& c, Device& device, Range need);
  void stage_buffer(Registration& reg, WorkerState& me, int worker,
                    const std::shared_ptr<Device>& device, Range range);
  void stage_plus_output(Registration& reg, DeviceCopy& c, WorkerState& me, Device& device,
                         Range rows_needed, Range cols_needed);
  void copy_back(Registration& reg, WorkerState& me, int worker, Device& device, Range range);
  /// Writes back the resident rows of `c` inside `rows` and waits for them; returns bytes.
  static std::int64_t write_back_rows(const BufferData& data, DeviceCopy& c, Range rows);
  /// Queues the copies of the resident rows of `c` inside `rows` to the host (c.leaving);
  /// returns bytes. rows_arrived waits for them. Devices queue theirs first and are waited
  /// for afterwards, so their links carry the copies at the same time.
  static std::int64_t queue_rows_back(const BufferData& data, DeviceCopy& c, Range rows);
  static void rows_arrived(DeviceCopy& c);
  /// Waits for every copy of `reg` that queued rows (after a failure too: the rows they
  /// queued are then still resident).
  static void all_rows_arrived(BufferData& data);
  /// Keeps the rows `c` holds (resident and valid) while it grows to `target` (a new
  /// allocation holding the old one whole).
  static void grow_keeping_resident(const BufferData& data, DeviceCopy& c, Range target,
                                    std::size_t bytes);
  /// The items a range of the pass's iterations uses.
  Range items(Range r) const { return r.empty() ? r : Range{r.begin + origin_, r.end + origin_}; }
  int workers_;
  std::int64_t origin_ = 0;  ///< the pass's first iteration (begin_pass)
  std::vector<WorkerState> traffic_;
  /// Counts begin_pass calls: a worker's state of an earlier pass is cleared when the pass
  /// first touches it, so a pass clears only the workers it touches, not every idle core's.
  std::uint64_t pass_ = 0;
  /// Worker w's state in this pass: bytes, staged and collected cleared if of an earlier one.
  WorkerState& state(int w) {
    WorkerState& s = traffic_[static_cast<std::size_t>(w)];
    if (s.pass != pass_) {
      s.bytes = {};
      s.staged = s.collected = false;
      s.pass = pass_;
    }
    return s;
  }
  std::vector<const Device*> pass_devices_;  ///< the devices linked_ was found for
  std::vector<int> linked_;  ///< begin_pass: the workers on devices with their own memory
  /// exchange's: devices that copied into another's memory, and that device.
  std::vector<std::pair<Device*, Device*>> ordered_;
};

/// Elements per device row for rows of `cols` elements of `elem_size` bytes: `cols` rounded
/// up to the device's alignment (bytes) when `pad` is set and the alignment is a multiple of
/// the element size, else `cols`.
std::size_t padded_stride(std::size_t cols, std::size_t elem_size, std::size_t alignment, bool pad);

}  // namespace tsar::core
