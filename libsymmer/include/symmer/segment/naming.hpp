// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where node segments live and what they are called.
//
//   <dir>/symmer-<uid>-<job id as 16 hex digits>-<node id>
//   dir = $SYMMER_SHM_DIR when set (tests use a private one), else /dev/shm

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace symmer::segment {

/// File name prefix shared by every node segment.
inline constexpr std::string_view kSegmentPrefix = "symmer-";

/// The directory segments are created in and listed from.
std::string segment_directory();

/// File name (no directory) of the segment of `job_id` on node `node_id` owned by `uid`.
std::string segment_file_name(std::uint64_t uid, std::uint64_t job_id, std::uint64_t node_id);

/// A job id as its segment name writes it: 16 hex digits.
std::string job_id_text(std::uint64_t job_id);

/// What a segment file name says.
struct SegmentName {
  std::uint64_t uid = 0;
  std::uint64_t job_id = 0;
  std::uint64_t node_id = 0;
};

/// Parses a file name made by segment_file_name; nullopt for any other name.
std::optional<SegmentName> parse_segment_file_name(std::string_view file_name);

}  // namespace symmer::segment
