// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Core lists as the command line writes them: "1", "0,2", "0-3,6".

#include <string>
#include <vector>

namespace symmer::noise {

/// Parses a list of logical core indices, each in [0, cores). Throws std::invalid_argument
/// naming the bad entry (syntax, range, duplicate).
std::vector<int> parse_core_list(const std::string& text, int cores);

}  // namespace symmer::noise
