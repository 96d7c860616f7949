// SPDX-License-Identifier: BSD-3-Clause
#include "devices/omp_target_device.hpp"

#include <omp.h>

#include <cstring>
#include <string>

#include "devices/host_device.hpp"
#include "symmer/topology/node_model.hpp"
#if TSAR_HAVE_CUDA
#include "devices/cuda_device.hpp"
#endif

namespace tsar::core {
namespace {

/// True when the elements a rectangle covers in an array of extents `dims` form one
/// contiguous block: every dimension inside the outermost is covered whole.
bool contiguous(const RectCopy& rect, const std::array<std::size_t, 3>& dims) {
  for (int d = 1; d < rect.dims; ++d)
    if (rect.volume[d] != dims[d]) return false;
  return true;
}

std::size_t elements(const RectCopy& rect) {
  std::size_t n = 1;
  for (int d = 0; d < rect.dims; ++d) n *= rect.volume[d];
  return n;
}

/// Element offset of a rectangle's first element in an array of extents `dims`.
std::size_t first_element(const RectCopy& rect, const std::array<std::size_t, 3>& offsets,
                          const std::array<std::size_t, 3>& dims) {
  std::size_t at = 0;
  for (int d = 0; d < rect.dims; ++d) at = at * dims[d] + offsets[d];
  return at;
}

/// The same rectangle with its `side` replaced by a dense array of exactly its volume.
RectCopy with_dense(const RectCopy& rect, bool dst_side) {
  RectCopy r = rect;
  auto& offsets = dst_side ? r.dst_offsets : r.src_offsets;
  auto& dims = dst_side ? r.dst_dims : r.src_dims;
  for (int d = 0; d < rect.dims; ++d) {
    offsets[d] = 0;
    dims[d] = rect.volume[d];
  }
  return r;
}

}  // namespace

OmpTargetDevice::OmpTargetDevice(DeviceDescription description, int device_num)
    : Device(std::move(description)),
      device_num_(device_num),
      host_num_(omp_get_initial_device()) {}

void OmpTargetDevice::attach_worker() {
  // Initialise the device now, not in the first timed range: libgomp loads (and the driver
  // JIT-compiles) every offload image when a device is first used -- up to most of a second,
  // which would make the first pass look like the GPU is slow.
  std::call_once(ready_,
                 [this] { omp_target_free(omp_target_alloc(1, device_num_), device_num_); });
}

std::shared_ptr<void> OmpTargetDevice::pin_host(void* host, std::size_t bytes) {
#if TSAR_HAVE_CUDA
  if (device_num_ != host_num_) return pin_host_range(host, bytes);
#endif
  (void)host;
  (void)bytes;
  return nullptr;
}

void* OmpTargetDevice::allocate_memory(std::size_t bytes) {
  void* p = omp_target_alloc(bytes, device_num_);
  if (p == nullptr)
    throw DeviceOutOfMemory("omp_target_alloc of " + std::to_string(bytes) + " bytes on " +
                            description().key + " (OpenMP device " + std::to_string(device_num_) +
                            ") failed");
  return p;
}

void OmpTargetDevice::release_memory(void* device_ptr) noexcept {
  omp_target_free(device_ptr, device_num_);
}

void OmpTargetDevice::memcpy_checked(void* dst, const void* src, std::size_t bytes, int dst_dev,
                                     int src_dev) {
  if (bytes == 0) return;
  if (omp_target_memcpy(dst, src, bytes, 0, 0, dst_dev, src_dev) != 0)
    throw Error(TSAR_ERR_SYSTEM, "omp_target_memcpy of " + std::to_string(bytes) + " bytes " +
                                     (src_dev == dst_dev       ? "within "
                                      : dst_dev == device_num_ ? "to "
                                                               : "from ") +
                                     description().key + " failed");
}

void OmpTargetDevice::copy_to_device(void* dst, const void* src_host, std::size_t bytes) {
  memcpy_checked(dst, src_host, bytes, device_num_, host_num_);
}

void OmpTargetDevice::copy_from_device(void* dst_host, const void* src, std::size_t bytes) {
  memcpy_checked(dst_host, src, bytes, host_num_, device_num_);
}

void OmpTargetDevice::copy_on_device(void* dst, const void* src, std::size_t bytes) {
  memcpy_checked(dst, src, bytes, device_num_, device_num_);
}

void OmpTargetDevice::copy_rect_to_device(void* dst, const void* src_host, const RectCopy& rect) {
  if (contiguous(rect, rect.dst_dims)) {
    // Pack on the host, then one copy: GCC 12's omp_target_memcpy_rect moves a row at a time.
    const std::size_t bytes = elements(rect) * rect.elem_size;
    pack_.resize(bytes);
    copy_rect_host(pack_.data(), src_host, with_dense(rect, true));
    auto* at = static_cast<unsigned char*>(dst) +
               first_element(rect, rect.dst_offsets, rect.dst_dims) * rect.elem_size;
    memcpy_checked(at, pack_.data(), bytes, device_num_, host_num_);
    return;
  }
  if (omp_target_memcpy_rect(dst, src_host, rect.elem_size, rect.dims, rect.volume.data(),
                             rect.dst_offsets.data(), rect.src_offsets.data(), rect.dst_dims.data(),
                             rect.src_dims.data(), device_num_, host_num_) != 0)
    throw Error(TSAR_ERR_SYSTEM, "omp_target_memcpy_rect to " + description().key + " failed");
}

void OmpTargetDevice::copy_rect_from_device(void* dst_host, const void* src, const RectCopy& rect) {
  if (contiguous(rect, rect.src_dims)) {
    const std::size_t bytes = elements(rect) * rect.elem_size;
    pack_.resize(bytes);
    const auto* at = static_cast<const unsigned char*>(src) +
                     first_element(rect, rect.src_offsets, rect.src_dims) * rect.elem_size;
    memcpy_checked(pack_.data(), at, bytes, host_num_, device_num_);
    copy_rect_host(dst_host, pack_.data(), with_dense(rect, false));
    return;
  }
  if (omp_target_memcpy_rect(dst_host, src, rect.elem_size, rect.dims, rect.volume.data(),
                             rect.dst_offsets.data(), rect.src_offsets.data(), rect.dst_dims.data(),
                             rect.src_dims.data(), host_num_, device_num_) != 0)
    throw Error(TSAR_ERR_SYSTEM, "omp_target_memcpy_rect from " + description().key + " failed");
}

bool OmpTargetDevice::can_copy_peer(const Device& to) {
  const auto* other = dynamic_cast<const OmpTargetDevice*>(&to);
  return other != nullptr && other->device_num_ == device_num_;
}

void OmpTargetDevice::copy_peer(Device& to, void* dst, const void* src, std::size_t bytes) {
  if (!can_copy_peer(to)) Device::copy_peer(to, dst, src, bytes);
  memcpy_checked(dst, src, bytes, device_num_, device_num_);
}

int omp_target_device_count() { return omp_get_num_devices(); }

std::shared_ptr<Device> make_omp_target(DeviceDescription description, int device_num) {
  description.kind = DeviceKind::kOmpTarget;
  description.id = device_num;
  description.key = "omp:" + std::to_string(device_num);
  description.host_memory = false;
  description.accelerator = true;
  return std::make_shared<OmpTargetDevice>(std::move(description), device_num);
}

std::shared_ptr<Device> make_omp_host(const symmer::topology::NodeModel& node, int id, int cpu) {
  const std::string key = "omphost:" + std::to_string(id);
  const int core = core_of_cpu(node, cpu, key);
  DeviceDescription d;
  d.kind = DeviceKind::kOmpTarget;
  d.id = omp_get_initial_device();
  d.key = key;
  d.numa_node = node.cores().at(static_cast<std::size_t>(core)).numa_node;
  d.control_core = core;
  d.cpus = {cpu};
  d.peak_gflops = core_peak_gflops();
  d.alignment = 64;
  d.host_memory = false;
  d.accelerator = true;
  return std::make_shared<OmpTargetDevice>(std::move(d), omp_get_initial_device());
}

}  // namespace tsar::core
