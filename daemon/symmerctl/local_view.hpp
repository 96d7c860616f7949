// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What symmerctl shows when no symmerd answers (embedded mode, the default: every job's
// analyzer runs inside the job): the daemon's replies, built from this node's segments, the
// decisions embedded analyzers publish beside them (analysis/decision_log.hpp
// published_log_path) and /proc. Each returns a reply of the shape the daemon's request of
// the same name gives, with "mode": "embedded", so one printer serves both.

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

namespace symmer::ctl {

/// `status`: the jobs on this node and who analyses each (its embedded analyzer, or a
/// symmerd that claimed it).
nlohmann::json local_status(const std::string& dir);
/// `jobs`: one entry per job, with the moves its analyzer made so far.
nlohmann::json local_jobs(const std::string& dir);
/// `ranks` and `cores` over a window of `window` (the figures are window deltas; capability
/// leaves the jobs' own CPU time out, as the analyzers do).
nlohmann::json local_ranks(const std::string& dir, std::chrono::milliseconds window);
nlohmann::json local_cores(const std::string& dir, std::chrono::milliseconds window);
/// `decisions`: the recent decisions of every job (or of `job`: an id, a segment name, or a
/// unique prefix), oldest first, at most `limit`.
nlohmann::json local_decisions(const std::string& dir, const std::string& job, std::size_t limit);

}  // namespace symmer::ctl
