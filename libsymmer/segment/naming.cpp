// SPDX-License-Identifier: BSD-3-Clause
// Node segment names: symmer-<uid>-<job hex>-<node>.
#include "symmer/segment/naming.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace symmer::segment {

std::string segment_directory() {
  const char* dir = std::getenv("SYMMER_SHM_DIR");
  return dir && *dir ? dir : "/dev/shm";
}

std::string segment_file_name(std::uint64_t uid, std::uint64_t job_id, std::uint64_t node_id) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "symmer-%llu-%016llx-%llu", static_cast<unsigned long long>(uid),
                static_cast<unsigned long long>(job_id), static_cast<unsigned long long>(node_id));
  return buf;
}

std::string job_id_text(std::uint64_t job_id) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(job_id));
  return buf;
}

std::optional<SegmentName> parse_segment_file_name(std::string_view name) {
  if (name.substr(0, kSegmentPrefix.size()) != kSegmentPrefix) return std::nullopt;
  name.remove_prefix(kSegmentPrefix.size());
  SegmentName out;
  // Each field must be all digits of its base and be followed by '-' (or the end, for the last).
  auto field = [&name](std::uint64_t& value, int base, bool last) {
    const char* end = name.data() + name.size();
    auto [ptr, ec] = std::from_chars(name.data(), end, value, base);
    if (ec != std::errc() || ptr == name.data()) return false;
    if (last) return ptr == end;
    if (ptr == end || *ptr != '-') return false;
    name.remove_prefix(static_cast<std::size_t>(ptr - name.data()) + 1);
    return true;
  };
  if (!field(out.uid, 10, false) || name.size() < 17 || name[16] != '-') return std::nullopt;
  if (!field(out.job_id, 16, false) || !field(out.node_id, 10, true)) return std::nullopt;
  return out;
}

}  // namespace symmer::segment
