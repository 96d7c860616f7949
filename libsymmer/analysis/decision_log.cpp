// SPDX-License-Identifier: BSD-3-Clause
// JSON-lines decision log (see decision_log.hpp).
#include "symmer/analysis/decision_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace symmer::analysis {
namespace {

constexpr std::size_t kPublishedBytes = 256 * 1024;
constexpr const char* kSegmentPrefix = "symmer-";

// Invalid UTF-8 in evidence (paths, messages) must not lose the event.
std::string line_of(const nlohmann::json& event) {
  return event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

// One write per line where the kernel allows: appends of two writers never interleave
// within a line.
bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::string published_log_path(const std::string& segment_path) {
  const auto slash = segment_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : segment_path.substr(0, slash);
  std::string name = slash == std::string::npos ? segment_path : segment_path.substr(slash + 1);
  if (name.rfind(kSegmentPrefix, 0) == 0) name = name.substr(std::strlen(kSegmentPrefix));
  return dir + "/symmerlog-" + name + ".jsonl";
}

DecisionLog::DecisionLog(const std::string& path, std::size_t keep_in_memory,
                         const std::string& published)
    : path_(path), keep_(keep_in_memory), published_(published) {
  if (!published_.empty())
    published_fd_ =
        ::open(published_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (path.empty()) return;
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) error_ = "cannot open decision log " + path + ": " + std::strerror(errno);
}

DecisionLog::DecisionLog(int fd, std::string path, std::size_t keep_in_memory)
    : path_(std::move(path)), fd_(fd), keep_(keep_in_memory) {}

DecisionLog::~DecisionLog() {
  if (fd_ >= 0) ::close(fd_);
  if (published_fd_ < 0) return;
  ::close(published_fd_);
  ::unlink(published_.c_str());
}

void DecisionLog::write(const nlohmann::json& event) {
  const std::string line = line_of(event);
  if (fd_ >= 0) write_all(fd_, line);
  if (keep_ > 0) {
    recent_.push_back(event);
    while (recent_.size() > keep_) recent_.pop_front();
  }
  if (published_fd_ < 0) return;
  if (published_bytes_ + line.size() > kPublishedBytes) {
    // Full: start again with the recent events (this one among them); readers take whole lines.
    std::string text;
    for (const auto& e : recent_) text += line_of(e);
    if (::ftruncate(published_fd_, 0) == 0 && ::lseek(published_fd_, 0, SEEK_SET) == 0 &&
        write_all(published_fd_, text))
      published_bytes_ = text.size();
    return;
  }
  if (write_all(published_fd_, line)) published_bytes_ += line.size();
}

}  // namespace symmer::analysis
