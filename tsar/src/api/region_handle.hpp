// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The region behind a C API handle, for the library's internal tests (an emulated clock,
// region/pass_clock.hpp) and internal callers.

#include "region/region.hpp"
#include "tsar/tsar.h"

namespace tsar::core {

/// The region of handle `region` (not NULL).
Region& region_of(tsar_region* region);

}  // namespace tsar::core
