// SPDX-License-Identifier: BSD-3-Clause
#include "devices/cuda_device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <shared_mutex>
#include <string>

#include "devices/cuda_runtime.hpp"
#include "symmer/topology/node_model.hpp"

namespace tsar::core {
namespace {

// Four 8 MiB pinned buffers per GPU: enough to keep the DMA engine busy while the worker
// packs, small enough to pin at start-up.
constexpr std::size_t kSlots = 4;
constexpr std::size_t kSlotBytes = std::size_t{8} << 20;

/// The loaded runtime: every path here runs after cuda_runtime() succeeded (cuda_device_count
/// found a device, make_cuda made one, pin_host_range checked).
const CudaRuntime& rt() { return *cuda_runtime(); }

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

/// The CUDA device the calling thread had selected before a TSAR device first attached it
/// (-1: none attached since the last detach).
thread_local int tls_selected_before = -1;
cudaEvent_t as_event(void* e) { return static_cast<cudaEvent_t>(e); }

/// Makes `ordinal` current on the calling thread for a scope, restoring the caller's device
/// (allocations and frees may come from application threads).
class DeviceScope {
 public:
  explicit DeviceScope(int ordinal) {
    if (rt().cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (previous_ != ordinal) rt().cudaSetDevice(ordinal);
  }
  ~DeviceScope() {
    if (previous_ >= 0) rt().cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = -1;
};

// Host ranges locked by pin_host_range or allocated by alloc_locked_host: start -> bytes.
std::shared_mutex pinned_mutex;
std::map<std::uintptr_t, std::size_t> pinned;
std::set<std::uintptr_t> allocated;  ///< the starts of alloc_locked_host's

}  // namespace

void* alloc_locked_host(std::size_t bytes) {
  if (bytes == 0 || cuda_runtime() == nullptr) return nullptr;
  void* p = nullptr;
  if (rt().cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    rt().cudaGetLastError();
    return nullptr;
  }
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::unique_lock lock(pinned_mutex);
  pinned[at] = bytes;
  allocated.insert(at);
  return p;
}

bool free_locked_host(void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  {
    std::unique_lock lock(pinned_mutex);
    if (allocated.erase(at) == 0) return false;
    pinned.erase(at);
  }
  rt().cudaFreeHost(p);
  return true;
}

std::shared_ptr<void> pin_host_range(void* host, std::size_t bytes) {
  if (host == nullptr || bytes == 0 || cuda_runtime() == nullptr) return nullptr;
  if (host_range_pinned(host, bytes)) return nullptr;  // tsar_host_alloc's: locked already
  if (rt().cudaHostRegister(host, bytes, cudaHostRegisterPortable) != cudaSuccess) {
    rt().cudaGetLastError();
    return nullptr;
  }
  const auto at = reinterpret_cast<std::uintptr_t>(host);
  {
    std::unique_lock lock(pinned_mutex);
    pinned[at] = bytes;
  }
  return std::shared_ptr<void>(host, [at](void* p) {
    {
      std::unique_lock lock(pinned_mutex);
      pinned.erase(at);
    }
    rt().cudaHostUnregister(p);
  });
}

bool host_range_pinned(const void* host, std::size_t bytes) {
  const auto at = reinterpret_cast<std::uintptr_t>(host);
  std::shared_lock lock(pinned_mutex);
  auto it = pinned.upper_bound(at);
  if (it == pinned.begin()) return false;
  --it;
  return at >= it->first && at + bytes <= it->first + it->second;
}

std::shared_ptr<void> CudaDevice::pin_host(void* host, std::size_t bytes) {
  return pin_host_range(host, bytes);
}

CudaDevice::CudaDevice(DeviceDescription description, int ordinal)
    : Device(std::move(description)), ordinal_(ordinal) {}

CudaDevice::~CudaDevice() {
  if (stream_ == nullptr && slots_.empty()) return;  // never used
  // At process exit the CUDA runtime may already be torn down: errors are ignored.
  DeviceScope scope(ordinal_);
  for (Slot& s : slots_) {
    if (s.done != nullptr) rt().cudaEventDestroy(as_event(s.done));
    if (s.host != nullptr) rt().cudaFreeHost(s.host);
  }
  if (order_ != nullptr) rt().cudaEventDestroy(as_event(order_));
  if (stream_ != nullptr) rt().cudaStreamDestroy(as_stream(stream_));
}

void CudaDevice::initialise() {
  cudaStream_t stream = nullptr;
  if (const cudaError_t e = rt().cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      e != cudaSuccess)
    throw Error(TSAR_ERR_SYSTEM,
                description().key + ": cudaStreamCreate: " + rt().cudaGetErrorString(e));
  cudaEvent_t order = nullptr;
  if (const cudaError_t e = rt().cudaEventCreateWithFlags(&order, cudaEventDisableTiming);
      e != cudaSuccess) {
    rt().cudaStreamDestroy(stream);
    throw Error(TSAR_ERR_SYSTEM,
                description().key + ": cudaEventCreate: " + rt().cudaGetErrorString(e));
  }
  stream_ = stream;
  order_ = order;
}

void CudaDevice::allocate_staging() {
  std::vector<Slot> slots(kSlots);
  const auto release = [&] {
    for (Slot& s : slots) {
      if (s.done != nullptr) rt().cudaEventDestroy(as_event(s.done));
      if (s.host != nullptr) rt().cudaFreeHost(s.host);
    }
  };
  for (Slot& s : slots) {
    void* host = nullptr;
    cudaEvent_t ev = nullptr;
    cudaError_t e = rt().cudaHostAlloc(&host, kSlotBytes, cudaHostAllocPortable);
    if (e == cudaSuccess) {
      s.host = static_cast<unsigned char*>(host);
      e = rt().cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
      s.done = ev;
    }
    if (e != cudaSuccess) {
      release();
      throw Error(TSAR_ERR_SYSTEM,
                  description().key + ": staging memory: " + rt().cudaGetErrorString(e));
    }
  }
  slots_ = std::move(slots);
}

void CudaDevice::attach_worker() {
  if (int selected = -1; tls_selected_before < 0 && rt().cudaGetDevice(&selected) == cudaSuccess)
    tls_selected_before = selected;
  if (const cudaError_t e = rt().cudaSetDevice(ordinal_); e != cudaSuccess)
    throw Error(TSAR_ERR_SYSTEM,
                description().key + ": cudaSetDevice: " + rt().cudaGetErrorString(e));
  std::call_once(init_, [this] { initialise(); });
}

void CudaDevice::detach_program_thread() {
  const int before = tls_selected_before;
  tls_selected_before = -1;
  if (int selected = -1;
      before >= 0 && rt().cudaGetDevice(&selected) == cudaSuccess && selected != before)
    rt().cudaSetDevice(before);
}

void CudaDevice::prepare_copies() {
  DeviceScope scope(ordinal_);
  std::call_once(init_, [this] { initialise(); });
}

void* CudaDevice::allocate_memory(std::size_t bytes) {
  DeviceScope scope(ordinal_);
  void* p = nullptr;
  const cudaError_t e = rt().cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    rt().cudaGetLastError();  // clear the sticky-free error so later calls are not blamed
    throw DeviceOutOfMemory("cudaMalloc of " + std::to_string(bytes) + " bytes on " +
                            description().key + ": out of device memory");
  }
  if (e != cudaSuccess)
    throw Error(TSAR_ERR_SYSTEM, description().key + ": cudaMalloc of " + std::to_string(bytes) +
                                     " bytes: " + rt().cudaGetErrorString(e));
  return p;
}

void CudaDevice::release_memory(void* device_ptr) noexcept {
  DeviceScope scope(ordinal_);
  rt().cudaFree(device_ptr);
}

CudaDevice::Slot& CudaDevice::acquire() {
  if (slots_.empty()) allocate_staging();
  Slot& s = slots_[next_slot_];
  next_slot_ = (next_slot_ + 1) % slots_.size();
  finish(s);
  return s;
}

void CudaDevice::finish(Slot& s, bool stream_done) {
  // A CUDA call costs microseconds on a virtual machine's GPU: a pass must not pay one per
  // idle slot (tsar-bench-cuda-pass, docs/results/tsar/cuda-pass-cost/).
  if (!s.recorded) return;
  s.recorded = false;
  if (!stream_done)
    if (const cudaError_t e = rt().cudaEventSynchronize(as_event(s.done)); e != cudaSuccess)
      throw Error(TSAR_ERR_SYSTEM,
                  description().key + ": waiting for a copy: " + rt().cudaGetErrorString(e));
  if (s.unpack_to == nullptr) return;
  for (std::size_t r = 0; r < s.unpack_rows; ++r)
    std::memcpy(s.unpack_to + r * s.unpack_pitch, s.host + r * s.unpack_row_bytes,
                s.unpack_row_bytes);
  s.unpack_to = nullptr;
}

void CudaDevice::move_rows(Direction dir, unsigned char* dst, std::size_t dpitch,
                           const unsigned char* src, std::size_t spitch, std::size_t row_bytes,
                           std::size_t rows) {
  if (stream_ == nullptr) throw Error(TSAR_ERR_STATE, description().key + ": copy before attach");
  const bool to = dir == Direction::kToDevice;
  const auto async = [&](void* d, std::size_t dp, const void* s, std::size_t sp, std::size_t k) {
    const cudaMemcpyKind kind = to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    const cudaError_t e =
        k == 1 ? rt().cudaMemcpyAsync(d, s, row_bytes, kind, as_stream(stream_))
               : rt().cudaMemcpy2DAsync(d, dp, s, sp, row_bytes, k, kind, as_stream(stream_));
    if (e != cudaSuccess)
      throw Error(TSAR_ERR_SYSTEM, description().key +
                                       (to ? ": copy to device: " : ": copy from device: ") +
                                       rt().cudaGetErrorString(e));
  };
  // Page-locked host side: straight by DMA (copies back complete at synchronize).
  if (to ? host_range_pinned(src, (rows - 1) * spitch + row_bytes)
         : host_range_pinned(dst, (rows - 1) * dpitch + row_bytes)) {
    async(dst, dpitch, src, spitch, rows);
    return;
  }
  if (row_bytes > kSlotBytes) {  // a row larger than a slot: each row in slot-sized pieces
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t off = 0; off < row_bytes; off += kSlotBytes)
        move_rows(dir, dst + r * dpitch + off, 0, src + r * spitch + off, 0,
                  std::min(kSlotBytes, row_bytes - off), 1);
    return;
  }
  const std::size_t batch = kSlotBytes / row_bytes;
  for (std::size_t r0 = 0; r0 < rows; r0 += batch) {
    const std::size_t k = std::min(batch, rows - r0);
    Slot& s = acquire();
    if (to) {  // packed into the slot, then one DMA
      for (std::size_t r = 0; r < k; ++r)
        std::memcpy(s.host + r * row_bytes, src + (r0 + r) * spitch, row_bytes);
      async(dst + r0 * dpitch, dpitch, s.host, row_bytes, k);
    } else {
      async(s.host, row_bytes, src + r0 * spitch, spitch, k);
      // Unpacked when the slot is next needed or at synchronize().
      s.unpack_to = dst + r0 * dpitch;
      s.unpack_pitch = dpitch;
      s.unpack_row_bytes = row_bytes;
      s.unpack_rows = k;
    }
    rt().cudaEventRecord(as_event(s.done), as_stream(stream_));
    s.recorded = true;
  }
}

void CudaDevice::copy_to_device(void* dst, const void* src_host, std::size_t bytes) {
  if (bytes == 0) return;
  DeviceScope scope(ordinal_);
  move_rows(Direction::kToDevice, static_cast<unsigned char*>(dst), 0,
            static_cast<const unsigned char*>(src_host), 0, bytes, 1);
}

void CudaDevice::copy_from_device(void* dst_host, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  DeviceScope scope(ordinal_);
  move_rows(Direction::kFromDevice, static_cast<unsigned char*>(dst_host), 0,
            static_cast<const unsigned char*>(src), 0, bytes, 1);
}

void CudaDevice::copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  DeviceScope scope(ordinal_);
  if (const cudaError_t e =
          rt().cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, as_stream(stream_));
      e != cudaSuccess)
    throw Error(TSAR_ERR_SYSTEM,
                description().key + ": copy on the device: " + rt().cudaGetErrorString(e));
}

bool CudaDevice::can_copy_peer(const Device& to) {
  const auto* other = dynamic_cast<const CudaDevice*>(&to);
  if (other == nullptr) return false;
  if (other->ordinal_ != ordinal_ &&
      std::find(peers_.begin(), peers_.end(), other->ordinal_) == peers_.end()) {
    DeviceScope scope(ordinal_);
    int can = 0;
    if (rt().cudaDeviceCanAccessPeer(&can, ordinal_, other->ordinal_) == cudaSuccess && can != 0 &&
        rt().cudaDeviceEnablePeerAccess(other->ordinal_, 0) != cudaSuccess)
      rt().cudaGetLastError();  // already enabled (another region's device object)
    peers_.push_back(other->ordinal_);
  }
  return true;
}

void CudaDevice::copy_peer(Device& to, void* dst, const void* src, std::size_t bytes) {
  const auto* other = dynamic_cast<const CudaDevice*>(&to);
  if (other == nullptr) Device::copy_peer(to, dst, src, bytes);
  if (bytes == 0) return;
  DeviceScope scope(ordinal_);
  if (const cudaError_t e =
          rt().cudaMemcpyPeerAsync(dst, other->ordinal_, src, ordinal_, bytes, as_stream(stream_));
      e != cudaSuccess)
    throw Error(TSAR_ERR_SYSTEM, description().key + ": copy into " + to.description().key + ": " +
                                     rt().cudaGetErrorString(e));
}

bool CudaDevice::order_before(Device& to) {
  auto* other = dynamic_cast<CudaDevice*>(&to);
  if (other == nullptr || stream_ == nullptr || other->stream_ == nullptr) return false;
  DeviceScope scope(ordinal_);
  cudaError_t e = rt().cudaEventRecord(as_event(order_), as_stream(stream_));
  if (e == cudaSuccess)
    e = rt().cudaStreamWaitEvent(as_stream(other->stream_), as_event(order_), 0);
  if (e != cudaSuccess)
    throw Error(TSAR_ERR_SYSTEM, description().key + ": ordering " + to.description().key +
                                     " after it: " + rt().cudaGetErrorString(e));
  return true;
}

void CudaDevice::rect(void* dst, const void* src, const RectCopy& r, Direction dir) {
  if (dst == nullptr || src == nullptr) throw Error(TSAR_ERR_NULL, "rectangle copy: null array");
  if (r.dims < 1 || r.dims > 3 || r.elem_size == 0)
    throw Error(TSAR_ERR_INVALID, "rectangle copy: dims must be 1..3 and elem_size > 0");
  // Padded to three dimensions, as in copy_rect_host.
  std::array<std::size_t, 3> vol{1, 1, 1}, doff{}, soff{}, ddim{1, 1, 1}, sdim{1, 1, 1};
  const int shift = 3 - r.dims;
  for (int d = 0; d < r.dims; ++d) {
    if (r.volume[d] > r.dst_dims[d] || r.dst_offsets[d] > r.dst_dims[d] - r.volume[d] ||
        r.volume[d] > r.src_dims[d] || r.src_offsets[d] > r.src_dims[d] - r.volume[d])
      throw Error(TSAR_ERR_INVALID,
                  "rectangle copy: dimension " + std::to_string(d) + " leaves its array");
    vol[shift + d] = r.volume[d];
    doff[shift + d] = r.dst_offsets[d];
    soff[shift + d] = r.src_offsets[d];
    ddim[shift + d] = r.dst_dims[d];
    sdim[shift + d] = r.src_dims[d];
  }
  const std::size_t e = r.elem_size;
  const std::size_t row_bytes = vol[2] * e;
  if (row_bytes == 0) return;
  auto* out = static_cast<unsigned char*>(dst);
  const auto* in = static_cast<const unsigned char*>(src);
  DeviceScope scope(ordinal_);
  for (std::size_t i = 0; i < vol[0]; ++i) {
    const std::size_t d_elem = ((doff[0] + i) * ddim[1] + doff[1]) * ddim[2] + doff[2];
    const std::size_t s_elem = ((soff[0] + i) * sdim[1] + soff[1]) * sdim[2] + soff[2];
    move_rows(dir, out + d_elem * e, ddim[2] * e, in + s_elem * e, sdim[2] * e, row_bytes, vol[1]);
  }
}

void CudaDevice::copy_rect_to_device(void* dst, const void* src_host, const RectCopy& r) {
  rect(dst, src_host, r, Direction::kToDevice);
}

void CudaDevice::copy_rect_from_device(void* dst_host, const void* src, const RectCopy& r) {
  rect(dst_host, src, r, Direction::kFromDevice);
}

void CudaDevice::synchronize() {
  if (stream_ == nullptr) return;
  DeviceScope scope(ordinal_);
  if (const cudaError_t e = rt().cudaStreamSynchronize(as_stream(stream_)); e != cudaSuccess)
    throw Error(TSAR_ERR_SYSTEM, description().key + ": " + rt().cudaGetErrorString(e));
  // Every slot's copy was on the stream: done now.
  for (std::size_t k = 0; k < slots_.size(); ++k)
    finish(slots_[(next_slot_ + k) % slots_.size()], true);
}

int cuda_device_count() {
  if (cuda_runtime() == nullptr) return 0;
  int n = 0;
  if (rt().cudaGetDeviceCount(&n) != cudaSuccess) {
    rt().cudaGetLastError();
    return 0;
  }
  return n;
}

double cuda_peak_gflops(int ordinal) {
  int sms = 0, khz = 0, major = 0, minor = 0;
  if (cuda_runtime() == nullptr ||
      rt().cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ordinal) != cudaSuccess ||
      rt().cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal) != cudaSuccess ||
      rt().cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal) !=
          cudaSuccess ||
      rt().cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal) !=
          cudaSuccess)
    return 0.0;
  // FP64 lanes per SM: 64 on Hopper, 32 on the other data-centre parts (x.0), 2 elsewhere.
  const double lanes = minor != 0 ? 2.0 : major >= 9 ? 64.0 : major >= 6 ? 32.0 : 2.0;
  return sms * lanes * 2.0 * khz * 1e-6;
}

std::string cuda_pci_address(int ordinal) {
  char id[32] = {};
  if (cuda_runtime() == nullptr) return "";
  if (rt().cudaDeviceGetPCIBusId(id, sizeof id, ordinal) != cudaSuccess) return "";
  std::string s(id);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::shared_ptr<Device> make_cuda(DeviceDescription description, int ordinal) {
  if (cuda_runtime() == nullptr)
    throw Error(TSAR_ERR_DEVICES, "cuda:" + std::to_string(ordinal) + ": " + cuda_runtime_error());
  description.kind = DeviceKind::kCuda;
  description.id = ordinal;
  description.key = "cuda:" + std::to_string(ordinal);
  description.host_memory = false;
  description.accelerator = true;
  if (description.peak_gflops <= 0.0) description.peak_gflops = cuda_peak_gflops(ordinal);
  return std::make_shared<CudaDevice>(std::move(description), ordinal);
}

}  // namespace tsar::core
