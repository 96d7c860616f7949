// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A data environment (tsar/data.h): buffers whose device copies outlive any one loop, shared by
// every region attached to it -- OpenMP's `target data`, StarPU's data handles.
//
// The environment owns the BufferData of each mapped buffer (memory/registry.hpp); a region
// attached to it registers a mapped buffer as usual (its loop's association, halo and
// direction), and the registration then uses the environment's BufferData instead of one of
// its own. Coherence is kept per row by the copy engine's one rule: a row is either current on
// the host (any device may hold an equal copy: DeviceCopy::valid) or owned by the one device
// that wrote it last (DeviceCopy::dirty; the host's and every other copy are stale). Rows move
// only when a worker on another device reads them (CopyEngine::exchange, then stage_in) or the
// program asks for them (update_host).
//
// Threads: one region attached to an environment runs a pass at a time (enter/leave); the
// other calls take the environment's lock and are refused during a pass.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "memory/registry.hpp"
#include "tsar/tsar.h"

namespace tsar::core {

struct SharedTrial;

/// Bytes a mapped buffer moved since it was mapped, and where its rows are now.
struct DataTraffic {
  std::int64_t to_device = 0;
  std::int64_t from_device = 0;
  std::int64_t device_rows = 0;  ///< rows only a device holds up to date (owned by devices)
  int copies = 0;                ///< devices holding an allocation of it
};

class DataEnvironment {
 public:
  /// A row count that means "to the last row".
  static constexpr std::size_t kAllRows = static_cast<std::size_t>(-1);

  DataEnvironment() : check_(check_requested()) {}
  /// Writes back every row devices own (errors are printed: nobody is left to tell).
  ~DataEnvironment();
  DataEnvironment(const DataEnvironment&) = delete;
  DataEnvironment& operator=(const DataEnvironment&) = delete;

  /// Maps `host` with the shape of `desc` (elem_size, rows, cols, row_stride, TSAR_MEM_PAD;
  /// the association, halo and direction are each registration's). Throws Error:
  /// TSAR_ERR_NULL, TSAR_ERR_INVALID (the shape), TSAR_ERR_REGISTERED (overlapping a mapped
  /// buffer, or a buffer an attached region registered on its own), TSAR_ERR_STATE (a pass).
  void map(void* host, const tsar_mem_desc& desc);
  /// Writes the buffer's device-owned rows back and frees its copies. Throws Error:
  /// TSAR_ERR_UNKNOWN, TSAR_ERR_STATE (a pass, or a region still registers it), or a device's
  /// failure (the buffer stays mapped).
  void unmap(const void* host);
  /// Rows [first, first + count) of `host` (every row of every mapped buffer when nullptr;
  /// count kAllRows: to the last row) are brought up to date on the host; devices keep equal
  /// copies. Returns the bytes copied back.
  /// Throws Error: TSAR_ERR_UNKNOWN, TSAR_ERR_INVALID (rows), TSAR_ERR_STATE, a device's.
  std::int64_t update_host(const void* host, std::size_t first, std::size_t count);
  /// The program wrote rows [first, first + count) of `host` (as for update_host): every
  /// device copy of them is dropped, device-owned ones included (the host wins). Throws
  /// Error: TSAR_ERR_UNKNOWN, TSAR_ERR_INVALID (rows), TSAR_ERR_STATE.
  void update_device(const void* host, std::size_t first, std::size_t count);
  /// Calls of update_device so far (MemoryRegistry::host_writes).
  std::uint64_t host_writes() const { return host_writes_.load(std::memory_order_relaxed); }
  /// Traffic and placement of `host` (the sum over every buffer when nullptr). Throws
  /// Error: TSAR_ERR_UNKNOWN, TSAR_ERR_STATE (a pass).
  DataTraffic traffic(const void* host) const;

  /// The mapped buffer `host`, or nullptr. Outside passes.
  std::shared_ptr<BufferData> find(const void* host) const;
  /// A mapped buffer sharing a byte with [p, p + bytes), or nullptr.
  const BufferData* overlapping(const void* p, std::size_t bytes) const;

  /// A registry attaches (MemoryRegistry::attach) and detaches when it goes.
  void attach(const MemoryRegistry* registry);
  void detach(const MemoryRegistry* registry);
  /// Whether no other attached registry reads a buffer `registry` writes while one writes a
  /// buffer it reads: its split leads no other region's, so rows of such an input it takes
  /// off their writer's device are written there again before its next pass, whatever its
  /// split (a dot product over a vector the loop before it made). Call during its pass.
  bool follows_only(const MemoryRegistry& registry) const;
  /// The participation trial the planners of the attached regions share
  /// (schedule/participation_trial.hpp): its loops' rows stay where they are only if a unit
  /// sits out of all of them or of none.
  std::shared_ptr<SharedTrial> shared_trial();
  /// The planner of a pass of region `who` takes the environment for the pass. Throws
  /// Error(TSAR_ERR_STATE) naming the region whose pass holds it.
  void enter(const std::string& who);
  void leave();

 private:
  /// Throws Error(TSAR_ERR_STATE) during a pass. Call with mutex_ held.
  void check_idle(const char* what) const;
  /// overlapping() with mutex_ held.
  const BufferData* overlapping_locked(const void* p, std::size_t bytes) const;
  /// The buffers `host` names (every one when nullptr). Call with mutex_ held.
  std::vector<BufferData*> named(const void* host) const;

  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<BufferData>> buffers_;
  std::vector<const MemoryRegistry*> registries_;
  std::atomic<bool> in_pass_{false};
  std::atomic<std::uint64_t> host_writes_{0};
  std::string pass_owner_;  ///< written by the pass that holds in_pass_
  bool check_;              ///< TSAR_CHECK=1 when the environment was made
  std::shared_ptr<SharedTrial> trial_;
};

}  // namespace tsar::core

/// The program's handle of a data environment (tsar_data): attached regions share the
/// environment and keep it after the handle is freed.
struct tsar_data {
  std::shared_ptr<tsar::core::DataEnvironment> env;
};
