// SPDX-License-Identifier: BSD-3-Clause
#include "kept_loops.hpp"

#include <algorithm>
#include <string>

namespace tsar_bench_gpu {
namespace {

using tsar::kernels::Buffer;
using tsar::kernels::Kernel;

bool same_shape(const tsar_mem_desc& a, const tsar_mem_desc& b) {
  return a.elem_size == b.elem_size && a.rows == b.rows && a.cols == b.cols &&
         a.row_stride == b.row_stride;
}

/// The first loop's use of `host`.
const Buffer& first_use(const Kernel& k, const void* host) {
  for (const auto& loop : k.loops())
    for (const Buffer& b : loop.buffers)
      if (b.host == host) return b;
  throw std::logic_error("no loop uses the buffer");
}

/// Buffers some loop reads, registered by rows or whole and with one shape by every loop.
std::vector<const void*> kept_buffers(const Kernel& k) {
  std::vector<const void*> kept, seen;
  for (const auto& loop : k.loops())
    for (const Buffer& b : loop.buffers) {
      if (std::find(seen.begin(), seen.end(), b.host) != seen.end()) continue;
      seen.push_back(b.host);
      bool read = false, fits = true;
      for (const auto& other : k.loops())
        for (const Buffer& o : other.buffers) {
          if (o.host != b.host) continue;
          read = read || (o.desc.flags & TSAR_MEM_IN) != 0;
          fits = fits && (o.desc.assoc == TSAR_ASSOC_ROWS || o.desc.assoc == TSAR_ASSOC_FULL) &&
                 same_shape(o.desc, b.desc);
        }
      if (read && fits) kept.push_back(b.host);
    }
  return kept;
}

/// The peer group of CUDA GPUs (TrafficModel::pass), beside OpenMP device numbers.
constexpr int kCudaGroup = 1 << 20;

void check(int status, const std::string& what) {
  if (status != TSAR_OK) throw tsar::Error(status, what + ": " + tsar_last_error());
}

}  // namespace

KeptLoops::KeptLoops(const Kernel& kernel, std::span<tsar::Region* const> regions)
    : kernel_(kernel),
      regions_(regions.begin(), regions.end()),
      kept_(kept_buffers(kernel)),
      data_(std::make_unique<tsar::Data>()) {
  for (const void* host : kept_) {
    const Buffer& b = first_use(kernel_, host);
    const tsar_mem_desc shape{
        b.desc.elem_size, b.desc.rows, b.desc.cols, b.desc.row_stride, 0, TSAR_ASSOC_ROWS, 0};
    check(tsar_data_map(data_->handle(), b.host, &shape), std::string("mapping ") + b.name);
  }
  for (auto it = regions_.begin(); it != regions_.end(); ++it)
    if (std::find(regions_.begin(), it, *it) == it) data_->attach(**it);  // each region once
  for (const auto& loop : kernel_.loops())
    for (const Buffer& b : loop.buffers)
      check(tsar_reg_mem_desc(regions_[static_cast<std::size_t>(loop.index)]->handle(), b.host,
                              &b.desc),
            loop.name + " buffer " + b.name);
}

KeptLoops::~KeptLoops() {
  for (const auto& loop : kernel_.loops())
    for (const Buffer& b : loop.buffers)
      tsar_unreg_mem(regions_[static_cast<std::size_t>(loop.index)]->handle(), b.host);
}

bool KeptLoops::kept(const void* host) const {
  return std::find(kept_.begin(), kept_.end(), host) != kept_.end();
}

void KeptLoops::count(const tsar::kernels::Loop& loop, const tsar::Region& region) {
  counted_.push_back({loop.index, &region, region.passes() - 1});
}

std::int64_t KeptLoops::required() {
  model_counted();
  return required_;
}

void KeptLoops::restart() {
  model_counted();
  required_ = 0;
}

void KeptLoops::model_counted() {
  for (const Counted& c : counted_) {
    const auto& loop = kernel_.loops()[static_cast<std::size_t>(c.loop)];
    const tsar::Region& region = *c.region;
    const auto stats = region.pass_stats(c.pass);
    std::vector<RowRange> ranges;
    std::vector<unsigned char> host_memory;
    std::vector<int> peer_group;
    std::int64_t at = 0;
    for (std::size_t w = 0; w < stats.devices.size(); ++w) {
      const auto& d = stats.devices[w];
      const bool cpu = d.kind == TSAR_DEVICE_CPU;
      const auto info = region.device(static_cast<int>(w));
      peer_group.push_back(info.kind == TSAR_DEVICE_CUDA         ? kCudaGroup
                           : info.kind == TSAR_DEVICE_OMP_TARGET ? info.omp_device
                                                                 : -1);
      // Where on the host the cores' pieces lie does not change what moves.
      if (!cpu && d.chunks > 1) required_ = -1;
      ranges.push_back({at, at + d.iterations});
      host_memory.push_back(cpu ? 1 : 0);
      at += d.iterations;
    }
    std::vector<ModelBuffer> buffers;
    for (const Buffer& b : loop.buffers) buffers.push_back({b.host, b.desc, kept(b.host)});
    const std::int64_t bytes = model_.pass(buffers, ranges, host_memory, peer_group);
    if (required_ >= 0) required_ += bytes;
  }
  counted_.clear();
}

void KeptLoops::host_restored() {
  model_counted();
  data_->update_device();
  model_.reset();
}

}  // namespace tsar_bench_gpu
