// SPDX-License-Identifier: BSD-3-Clause
// JSON-lines decision log (see decision_log.hpp).
#include "symmer/analysis/decision_log.hpp"

#include <cerrno>
#include <cstring>

namespace symmer::analysis {

DecisionLog::DecisionLog(const std::string& path, std::size_t keep_in_memory)
    : path_(path), keep_(keep_in_memory) {
  if (path.empty()) return;
  file_.open(path, std::ios::app);
  if (!file_) error_ = "cannot open decision log " + path + ": " + std::strerror(errno);
}

void DecisionLog::write(const nlohmann::json& event) {
  if (file_) {
    // Invalid UTF-8 in evidence (paths, messages) must not lose the event.
    file_ << event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    file_.flush();
  }
  if (keep_ == 0) return;
  recent_.push_back(event);
  while (recent_.size() > keep_) recent_.pop_front();
}

}  // namespace symmer::analysis
