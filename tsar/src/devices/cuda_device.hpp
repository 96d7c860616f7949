// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// CUDA devices (built with TSAR_CUDA=ON): memory through cudaMalloc; copies asynchronous on
// the device's stream, straight by DMA from page-locked host memory or through a ring of
// pinned staging buffers, so the worker packs the next
// block on the host while the DMA engine moves the previous one, and copies back complete
// only when the worker next waits (synchronize) or needs the buffer again. Bodies launch the
// application's kernels on chunk->stream, where they are ordered after the copies in and
// before the copies out.
//
// This file compiles with the host compiler against the CUDA runtime API; kernels are the
// application's (nvcc). The runtime is linked shared, so the library and the application
// share one CUDA runtime (the stream handed to bodies is valid in both).

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devices/device.hpp"

namespace tsar::core {

class CudaDevice final : public Device {
 public:
  CudaDevice(DeviceDescription description, int ordinal);
  ~CudaDevice() override;

  /// Makes the GPU current on the thread and, once, creates the stream.
  void attach_worker() override;
  void detach_program_thread() override;
  /// Creates the device's stream from the calling thread (it serves any thread after).
  void prepare_copies() override;
  LaunchContext launch_context() const override { return {-1, stream_}; }

  void copy_to_device(void* dst, const void* src_host, std::size_t bytes) override;
  void copy_from_device(void* dst_host, const void* src, std::size_t bytes) override;
  void copy_rect_to_device(void* dst, const void* src_host, const RectCopy& rect) override;
  void copy_rect_from_device(void* dst_host, const void* src, const RectCopy& rect) override;
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override;
  /// Waits for the stream, then unpacks copies back still in staging.
  void synchronize() override;
  /// Into another CUDA device's memory (cudaMemcpyPeerAsync on this device's stream);
  /// can_copy_peer enables peer access the first time, where the GPUs have it (NVLink or
  /// PCIe peer-to-peer; elsewhere the driver stages the copies itself).
  bool can_copy_peer(const Device& to) override;
  void copy_peer(Device& to, void* dst, const void* src, std::size_t bytes) override;
  /// An event recorded on this stream, waited for by `to`'s (cudaStreamWaitEvent); false
  /// before both streams exist.
  bool order_before(Device& to) override;
  /// cudaHostRegister (pin_host_range).
  std::shared_ptr<void> pin_host(void* host, std::size_t bytes) override;

 protected:
  void* allocate_memory(std::size_t bytes) override;
  void release_memory(void* device_ptr) noexcept override;

 private:
  /// A pinned staging buffer, the event marking the end of its last DMA, and the rows a copy
  /// back still has to unpack from it into host memory.
  struct Slot {
    unsigned char* host = nullptr;
    void* done = nullptr;   ///< cudaEvent_t
    bool recorded = false;  ///< `done` recorded after the slot's last copy, not waited for yet
    unsigned char* unpack_to = nullptr;
    std::size_t unpack_pitch = 0;
    std::size_t unpack_row_bytes = 0;
    std::size_t unpack_rows = 0;
  };

  enum class Direction { kToDevice, kFromDevice };

  void initialise();
  /// The staging ring, at the first copy that needs it (copies of page-locked buffers --
  /// registered ones, as a rule -- never do): pinning it takes milliseconds.
  void allocate_staging();
  Slot& acquire();
  /// Waits for the slot's copy (unless `stream_done`: the stream was synchronised since) and
  /// unpacks what it copied back; nothing for a slot with no copy in flight.
  void finish(Slot& slot, bool stream_done = false);
  /// `rows` rows of `row_bytes`, `spitch`/`dpitch` bytes apart, in direction `dir`: by DMA
  /// straight from/to page-locked host memory, else through the staging ring.
  void move_rows(Direction dir, unsigned char* dst, std::size_t dpitch, const unsigned char* src,
                 std::size_t spitch, std::size_t row_bytes, std::size_t rows);
  void rect(void* dst, const void* src, const RectCopy& rect, Direction dir);

  int ordinal_;
  void* stream_ = nullptr;  ///< cudaStream_t
  void* order_ = nullptr;   ///< cudaEvent_t of order_before, made with the stream
  std::vector<int> peers_;  ///< ordinals can_copy_peer has tried to enable peer access to
  std::once_flag init_;
  std::vector<Slot> slots_;
  std::size_t next_slot_ = 0;
};

/// Page-locks [host, host + bytes) for every CUDA context (cudaHostRegisterPortable): copies
/// from and to it then go straight by DMA, for CUDA and OpenMP (nvptx) devices alike. The
/// handle unregisters it. nullptr when CUDA refuses (e.g. a page already registered).
std::shared_ptr<void> pin_host_range(void* host, std::size_t bytes);
/// Page-locked host memory from cudaHostAlloc (tsar_host_alloc), known to host_range_pinned;
/// null when the runtime or a GPU is missing.
void* alloc_locked_host(std::size_t bytes);
/// Frees memory from alloc_locked_host; false (nothing done) for any other pointer.
bool free_locked_host(void* p);
/// True when [host, host + bytes) lies in one range pin_host_range locked.
bool host_range_pinned(const void* host, std::size_t bytes);

/// CUDA devices visible to this process (0 when there is no driver or no GPU).
int cuda_device_count();
/// Peak double-precision GFLOP/s estimate of CUDA device `ordinal` (the default split).
double cuda_peak_gflops(int ordinal);
/// The PCI address ("0000:3b:00.0") of CUDA device `ordinal`, "" when unknown.
std::string cuda_pci_address(int ordinal);

/// CUDA device `ordinal`. `description` gives its placement (control core, NUMA node,
/// physical GPU); kind, id, key, peak and memory fields are filled in here.
std::shared_ptr<Device> make_cuda(DeviceDescription description, int ordinal);

}  // namespace tsar::core
