// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The buffers registered with a region and how iterations select their parts (thesis
// 5.3.3, 5.4.2): validation of each association descriptor, detection of double and
// overlapping registrations, retargeting, and each worker's view of a buffer.
//
// A registration is one loop's access to a buffer (association, halo, direction); the
// buffer's data -- the host pointer, the shape and every device's copy -- is a BufferData
// that the registration shares: with no one else for a buffer the region registered alone,
// with the registrations of every region attached to a data environment that maps it
// (memory/data_environment.hpp). Device copies are per device, so two loops running on one
// GPU share what it holds.
//
// Devices with host memory (CPU cores, teams, the emulated accelerator) compute on the
// host buffer itself, so their view is the host pointer with the host layout. Devices with
// their own memory get the rows/columns their ranges need, packed and padded, through the
// Device copy interface: MemoryRegistry::needed computes those parts for every association,
// and memory/copy_engine moves the data.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "memory/device_copy.hpp"
#include "memory/host_check.hpp"
#include "queue/chunk_queue.hpp"
#include "tsar/tsar.h"

namespace tsar::core {

class DataEnvironment;
class Device;
class Reductions;

/// The page-locking of a registered host buffer, done once by the first device that wants
/// it (Device::pin_host) and undone when the registration ends or moves to another buffer.
struct HostPin {
  std::once_flag once;
  std::shared_ptr<void> handle;
};

/// One host buffer's data: its shape and each device's copy of it.
struct BufferData {
  void* host = nullptr;
  /// elem_size, rows, cols, row_stride (never 0) and TSAR_MEM_PAD; the association fields
  /// belong to the registrations.
  tsar_mem_desc shape{};
  std::size_t extent = 0;  ///< bytes from host to one past the last element
  /// Mapped in a data environment: its copies outlive any region's registration and only
  /// the environment (or the last region holding it) writes them back.
  bool shared = false;
  std::vector<std::unique_ptr<DeviceCopy>> copies;             ///< one per device that used it
  std::shared_ptr<HostPin> pin = std::make_shared<HostPin>();  ///< follows `host`
  /// TSAR_CHECK: the host rows and columns as TSAR left them (memory/host_check.hpp).
  HostHashes check;
  /// TSAR_CHECK was set when the registry or environment holding it was made.
  bool checked = false;

  /// The copy on `device`, or nullptr.
  DeviceCopy* copy_on(const Device& device) const;
  /// The copy on `device`, made (empty) when there is none. Only while no worker runs.
  DeviceCopy& ensure_copy(const std::shared_ptr<Device>& device);
};

/// What one worker wrote of a registered buffer in the current pass: rows (ROWS, FULL,
/// ROWS_COLS) or columns (COLS). Settled into the other copies at the end of the pass.
struct alignas(64) PassWrites {
  IntervalSet items;
  bool any = false;  ///< anything written (ROWS_COLS outputs invalidate whole copies)
};

/// A validated registration: one region's access to a buffer.
struct Registration {
  tsar_mem_desc desc{};  ///< the access: shape as data->shape, association, halo, flags
  std::shared_ptr<BufferData> data;
  /// Per worker: its device's copy in the current pass; nullptr on host-memory devices
  /// (set by CopyEngine::begin_pass, cleared when the worker leaves its device).
  std::vector<DeviceCopy*> on;
  std::vector<PassWrites> writes;  ///< per worker, in the current pass

  void* host() const { return data->host; }
  std::size_t extent() const { return data->extent; }
};

class MemoryRegistry {
 public:
  MemoryRegistry() : check_(check_requested()) {}
  ~MemoryRegistry();
  MemoryRegistry(const MemoryRegistry&) = delete;
  MemoryRegistry& operator=(const MemoryRegistry&) = delete;

  /// Registrations from now on of buffers `env` maps use its data (shared device copies).
  /// Throws Error: TSAR_ERR_STATE (attached already), TSAR_ERR_REGISTERED (a buffer this
  /// registry holds on its own overlaps a mapped one).
  void attach(std::shared_ptr<DataEnvironment> env);
  /// Whether some registration uses a data environment's data: passes then run the copy
  /// engine even without a device of their own memory (rows devices own may have to move).
  bool shared() const;
  /// The attached data environment, or nullptr.
  const std::shared_ptr<DataEnvironment>& environment() const { return env_; }

  /// Validates and adds a registration. A buffer the attached environment maps takes its
  /// data: same shape required, by rows or whole (FULL inputs), persistent, outputs resident.
  /// Throws Error: TSAR_ERR_NULL, TSAR_ERR_INVALID (naming the bad field, or a shape other
  /// than the mapped one), TSAR_ERR_UNSUPPORTED (a mapped buffer by columns), TSAR_ERR_REGISTERED
  /// (same or overlapping buffer, overlapping a mapped buffer, or a buffer holding the result
  /// of one of `reductions`).
  void add(void* host, const tsar_mem_desc& desc, const Reductions* reductions = nullptr);
  /// Throws Error(TSAR_ERR_UNKNOWN) when `host` is not registered.
  void remove(const void* host);
  /// Moves a registration to a new host buffer of the same shape. Device copies keep their
  /// allocations but not their contents (the new buffer is copied in when needed).
  void retarget(const void* old_host, void* new_host);
  /// Exchanges the host buffers of two registrations of the same shape, association and
  /// padding (each keeps its direction, halo and persistence); device copies follow their
  /// host buffer, so a double-buffered loop moves only what changed. Throws Error:
  /// TSAR_ERR_UNKNOWN, TSAR_ERR_INVALID (different shapes, or a == b).
  void swap(const void* a, const void* b);
  /// The host contents of `host` changed outside passes: device copies forget them (through
  /// the data environment for a mapped buffer: Error(TSAR_ERR_STATE) during its pass).
  void invalidate(const void* host);
  /// Outside passes: the rows devices own of `host` come back to it; returns the bytes.
  /// Throws Error: TSAR_ERR_UNKNOWN, TSAR_ERR_STATE (a mapped buffer's environment is in a
  /// pass), a device's failure.
  std::int64_t write_back(const void* host);
  /// Changes with every write of host rows the program announces (invalidate, retarget, and
  /// the attached environment's DataEnvironment::update_device): the next pass copies those
  /// rows in again.
  std::uint64_t host_writes() const;
  /// The registration of `host`, or nullptr.
  const Registration* find(const void* host) const;
  /// A registration sharing a byte with [p, p + bytes), or nullptr.
  const Registration* overlapping(const void* p, std::size_t bytes) const;
  /// Checks that a pass's iterations, below `n` (the pass's end), stay inside every
  /// partial buffer.
  void check_pass(std::int64_t n) const;
  /// check_pass, then takes the attached data environment for region `who`'s pass; under
  /// TSAR_CHECK, verifies that the rows devices hold are unchanged on the host. Throws
  /// Error: TSAR_ERR_INVALID, TSAR_ERR_STATE (another region's pass holds the environment,
  /// or a host change TSAR_CHECK caught).
  void enter_pass(std::int64_t n, const std::string& who);
  /// Gives the environment back (nothing when enter_pass did not take it).
  void leave_pass();
  std::size_t size() const { return entries_.size(); }
  /// Every registration, for the copy engine (outside passes, or a worker's own copies).
  std::span<Registration> registrations() { return entries_; }
  std::span<const Registration> registrations() const { return entries_; }

  /// The view of `reg` for worker `worker` on `device`: the host layout on host-memory
  /// devices, else the layout of the worker's device copy. Throws Error(TSAR_ERR_STATE) when
  /// the worker has no copy yet (it was given no range in this pass).
  static tsar_mem_layout view(const Registration& reg, const Device& device, int worker);

  /// Rows (ROWS, ROWS_COLS) or columns (COLS) a device needs for `range`, halo included,
  /// clipped to the buffer. Empty for FULL buffers (they need everything).
  static Range needed(const tsar_mem_desc& desc, Range range);
  /// The same range of columns for a ROWS_COLS buffer (iteration i also uses column i).
  static Range needed_cols(const tsar_mem_desc& desc, Range range);

 private:
  void check_overlap(const void* host, std::size_t extent, const void* ignore) const;
  Registration* entry(const void* host);
  std::vector<Registration> entries_;
  std::shared_ptr<DataEnvironment> env_;
  bool entered_ = false;           ///< enter_pass took env_
  bool check_;                     ///< TSAR_CHECK=1 when the registry was made
  std::uint64_t host_writes_ = 0;  ///< of buffers held on its own
};

/// Validates a descriptor and returns it with row_stride filled in.
tsar_mem_desc validate_mem_desc(const void* host, const tsar_mem_desc& desc, std::size_t* extent);

}  // namespace tsar::core
