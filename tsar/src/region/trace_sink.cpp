// SPDX-License-Identifier: BSD-3-Clause
#include "region/trace_sink.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "region/statistics.hpp"

namespace tsar::core {

TraceSink* TraceSink::from_env() {
  static TraceSink* sink = []() -> TraceSink* {
    const char* path = std::getenv("TSAR_TRACE");
    if (path == nullptr || path[0] == '\0') return nullptr;
    std::FILE* f = std::fopen(path, "w");
    if (f == nullptr) {
      std::fprintf(stderr, "tsar: TSAR_TRACE=%s cannot be opened (%s); tracing is off\n", path,
                   std::strerror(errno));
      return nullptr;
    }
    auto* s = new TraceSink(f, is_csv_path(path));  // lives until exit
    if (s->csv_) s->write(csv_header());
    // The passes still queued (regions not destroyed before exit), then exit() flushes the file.
    // Static objects constructed after this (regions among them) are destroyed before it runs.
    std::atexit([] { sink->flush(); });
    return s;
  }();
  return sink;
}

TraceSink::TraceSink(std::FILE* file, bool csv) : file_(file), csv_(csv) {
  queued_.reserve(kPasses);
  devices_.reserve(kDevices);
}

void TraceSink::record(const TraceContext& ctx, const tsar_pass_stats& pass,
                       std::span<const tsar_device_stats> devices) {
  std::lock_guard lock(mutex_);
  if (queued_.size() == kPasses || devices_.size() + devices.size() > devices_.capacity())
    write_queued();
  queued_.push_back({&ctx, pass, devices_.size(), devices.size()});
  devices_.insert(devices_.end(), devices.begin(), devices.end());
}

void TraceSink::write_queued() {
  for (const Queued& q : queued_) {
    const std::span<const tsar_device_stats> ds(devices_.data() + q.first_device, q.devices);
    if (csv_)
      append_pass_csv(text_, *q.ctx, q.pass, ds);
    else
      append_pass_json(text_, *q.ctx, q.pass, ds);
    if (text_.size() >= kTextChunk) {
      std::fwrite(text_.data(), 1, text_.size(), file_);
      text_.clear();
    }
  }
  std::fwrite(text_.data(), 1, text_.size(), file_);
  text_.clear();
  queued_.clear();
  devices_.clear();
}

void TraceSink::write(const std::string& text) {
  std::lock_guard lock(mutex_);
  write_queued();
  std::fwrite(text.data(), 1, text.size(), file_);
}

void TraceSink::flush() {
  std::lock_guard lock(mutex_);
  write_queued();
  std::fflush(file_);
}

}  // namespace tsar::core
