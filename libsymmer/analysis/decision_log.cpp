// SPDX-License-Identifier: BSD-3-Clause
// JSON-lines decision log (see decision_log.hpp).
#include "symmer/analysis/decision_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace symmer::analysis {

DecisionLog::DecisionLog(const std::string& path, std::size_t keep_in_memory)
    : path_(path), keep_(keep_in_memory) {
  if (path.empty()) return;
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) error_ = "cannot open decision log " + path + ": " + std::strerror(errno);
}

DecisionLog::DecisionLog(int fd, std::string path, std::size_t keep_in_memory)
    : path_(std::move(path)), fd_(fd), keep_(keep_in_memory) {}

DecisionLog::~DecisionLog() {
  if (fd_ >= 0) ::close(fd_);
}

void DecisionLog::write(const nlohmann::json& event) {
  if (fd_ >= 0) {
    // Invalid UTF-8 in evidence (paths, messages) must not lose the event. One write per
    // line: appends of two writers never interleave within a line.
    const std::string line =
        event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
    for (std::size_t done = 0; done < line.size();) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
  }
  if (keep_ == 0) return;
  recent_.push_back(event);
  while (recent_.size() > keep_) recent_.pop_front();
}

}  // namespace symmer::analysis
