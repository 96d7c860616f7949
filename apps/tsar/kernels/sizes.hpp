// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Picking a kernel's problem size by Scale.

#include "kernel.hpp"

namespace tsar::kernels {

/// The value for `scale` among one per scale.
template <class T>
T by_scale(Scale scale, T tiny, T quick, T full, T large) {
  switch (scale) {
    case Scale::tiny:
      return tiny;
    case Scale::quick:
      return quick;
    case Scale::full:
      return full;
    case Scale::large:
      return large;
  }
  return full;
}

}  // namespace tsar::kernels
