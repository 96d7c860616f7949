// SPDX-License-Identifier: BSD-3-Clause
// Throttled page migration with move_pages (see page_migration.hpp).
#include "symmer/topology/page_migration.hpp"

#include <numa.h>
#include <numaif.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace symmer::topology {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool parse_hex(std::string_view text, std::uintptr_t& value) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto at = text.find(sep);
    const auto word = text.substr(0, at);
    if (!word.empty()) out.push_back(word);
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return out;
}

}  // namespace

std::vector<MemoryRange> hot_ranges_from(std::string_view maps, std::string_view numa_maps,
                                         int target_os_node) {
  // Writable mappings: start -> end.
  std::map<std::uintptr_t, std::uintptr_t> writable;
  for (auto line : split(maps, '\n')) {
    const auto fields = split(line, ' ');
    if (fields.size() < 2 || fields[1].size() < 2 || fields[1][1] != 'w') continue;
    const auto dash = fields[0].find('-');
    std::uintptr_t start = 0;
    std::uintptr_t end = 0;
    if (dash == std::string_view::npos || !parse_hex(fields[0].substr(0, dash), start) ||
        !parse_hex(fields[0].substr(dash + 1), end) || end <= start)
      continue;
    writable[start] = end;
  }
  std::vector<MemoryRange> out;
  for (auto line : split(numa_maps, '\n')) {
    const auto fields = split(line, ' ');
    if (fields.empty()) continue;
    std::uintptr_t start = 0;
    if (!parse_hex(fields[0], start)) continue;
    const auto w = writable.find(start);
    if (w == writable.end()) continue;
    bool anon = false;
    bool elsewhere = false;
    std::size_t page_kb = 4;
    for (auto f : fields) {
      if (f.starts_with("anon=")) anon = true;
      if (f.starts_with("kernelpagesize_kB=")) {
        f.remove_prefix(std::strlen("kernelpagesize_kB="));
        std::from_chars(f.data(), f.data() + f.size(), page_kb);
      }
      if (f.size() > 1 && f[0] == 'N' && f[1] >= '0' && f[1] <= '9') {
        int node = -1;
        const auto r = std::from_chars(f.data() + 1, f.data() + f.size(), node);
        if (r.ec == std::errc() && node != target_os_node) elsewhere = true;
      }
    }
    if (anon && elsewhere && page_kb > 0) out.push_back({start, w->second, page_kb * 1024});
  }
  return out;
}

std::vector<MemoryRange> hot_ranges(int pid, int target_os_node) {
  const std::string base = "/proc/" + std::to_string(pid);
  return hot_ranges_from(read_file(base + "/maps"), read_file(base + "/numa_maps"), target_os_node);
}

MovePagesFunction system_move_pages() {
  return [](int pid, unsigned long count, void** pages, const int* nodes, int* status, int flags) {
    return numa_move_pages(pid, count, pages, nodes, status, flags);
  };
}

PageMigration::PageMigration(int pid, int target_os_node, std::vector<MemoryRange> ranges,
                             MigrationOptions options, MovePagesFunction move_pages, Now now)
    : pid_(pid),
      node_(target_os_node),
      ranges_(std::move(ranges)),
      options_(options),
      move_pages_(std::move(move_pages)),
      now_(std::move(now)),
      batch_(std::clamp(options.first_batch, options.min_batch, options.max_batch)) {
  std::erase_if(ranges_, [](const MemoryRange& r) { return r.pages() == 0; });
}

bool PageMigration::done() const { return range_ >= ranges_.size() || !stats_.error.empty(); }

bool PageMigration::step() {
  if (done()) return false;
  std::vector<void*> pages;
  pages.reserve(batch_);
  while (pages.size() < batch_ && range_ < ranges_.size()) {
    const MemoryRange& r = ranges_[range_];
    pages.push_back(reinterpret_cast<void*>(r.start + page_ * r.page_size));
    if (++page_ >= r.pages()) ++range_, page_ = 0;
  }
  const std::vector<int> nodes(pages.size(), node_);
  std::vector<int> status(pages.size(), 0);

  const auto t0 = now_();
  const long rc =
      move_pages_(pid_, pages.size(), pages.data(), nodes.data(), status.data(), MPOL_MF_MOVE);
  const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(now_() - t0);
  ++stats_.calls;
  stats_.longest_call = std::max(stats_.longest_call, took);
  stats_.pages_requested += pages.size();
  if (rc < 0) {
    stats_.error =
        std::string("move_pages(pid ") + std::to_string(pid_) + ") failed: " + std::strerror(errno);
    return false;
  }
  for (int s : status) {
    if (s == node_)
      ++stats_.pages_on_target;
    else if (s == -ENOENT)
      ++stats_.pages_absent;
    else
      ++stats_.pages_failed;
  }
  // Size the next call from this one's time per page, aiming a little under the budget and
  // at most doubling, so one lucky fast call cannot make the next one stall.
  const double per_page = static_cast<double>(took.count()) / static_cast<double>(pages.size());
  const double fit = per_page > 0.0
                         ? 0.8 * static_cast<double>(options_.call_budget.count()) / per_page
                         : static_cast<double>(options_.max_batch);
  const double grown = std::min(fit, 2.0 * static_cast<double>(pages.size()));
  batch_ = std::clamp(static_cast<std::size_t>(grown), options_.min_batch, options_.max_batch);
  return !done();
}

}  // namespace symmer::topology
