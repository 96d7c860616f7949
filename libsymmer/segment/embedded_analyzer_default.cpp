// SPDX-License-Identifier: BSD-3-Clause
// Weak default of the embedded analyzer hook: nothing runs until the analysis code links in a
// strong start_embedded_analyzer (see symmer/embedded_analyzer.hpp).
#include "symmer/embedded_analyzer.hpp"

namespace symmer {

__attribute__((weak)) std::unique_ptr<EmbeddedAnalyzer> start_embedded_analyzer(
    const EmbeddedAnalyzerContext& /*context*/) {
  return nullptr;
}

}  // namespace symmer
