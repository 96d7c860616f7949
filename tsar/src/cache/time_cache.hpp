// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The learned-times cache (TSAR_CACHE): seconds per iteration each device reached in previous
// runs, keyed by region name and device set, so a region's first pass starts from a good
// split (thesis 5.3.2 "one saved from a previous run"). A JSON file:
//   {"version": 1, "entries": {"<region>@<device keys>": {"region": ..., "devices": [...],
//    "time_per_iteration": [...], "updated": "<ISO time>"}}}
// Writers lock <file>.lock and replace the file atomically; a damaged file is reported once
// on stderr and ignored (never an error of the program using TSAR).

#include <optional>
#include <string>
#include <vector>

namespace tsar::core {

/// Cached times for `region` on `devices` (keys in worker order), or nullopt.
std::optional<std::vector<double>> load_cached_times(const std::string& path,
                                                     const std::string& region,
                                                     const std::vector<std::string>& devices);

/// Stores times (0 = unknown: keeps the cached value) for `region` on `devices`. Returns an
/// error message, or "" on success.
std::string store_cached_times(const std::string& path, const std::string& region,
                               const std::vector<std::string>& devices,
                               const std::vector<double>& times);

}  // namespace tsar::core
