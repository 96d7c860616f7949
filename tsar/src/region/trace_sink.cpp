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
    auto* s = new TraceSink(f, is_csv_path(path));  // lives until exit; flushed by exit()
    if (s->csv_) s->write(csv_header());
    return s;
  }();
  return sink;
}

void TraceSink::write(const std::string& text) {
  std::lock_guard lock(mutex_);
  std::fwrite(text.data(), 1, text.size(), file_);
}

void TraceSink::flush() {
  std::lock_guard lock(mutex_);
  std::fflush(file_);
}

}  // namespace tsar::core
