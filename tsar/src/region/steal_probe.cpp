#include "region/steal_probe.hpp"

#include <algorithm>

namespace tsar::core {
namespace {

double median(std::vector<double>& v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

StealProbe::StealProbe() {
  with_.reserve(kProbePasses);
  without_.reserve(kProbePasses);
}

bool StealProbe::probe_steals(int index) {
  const int block = index / kBlockPasses;
  return block == 0 || block == 3;
}

bool StealProbe::steals() const {
  switch (phase_) {
    case Phase::kWarmup:
      return true;
    case Phase::kProbing:
      return probe_steals(count_);
    case Phase::kHolding:
      return decided_steal_;
  }
  return true;
}

void StealProbe::record(double seconds, std::int64_t n) {
  const bool steals = this->steals();
  const bool changed = steals != last_steals_;
  last_steals_ = steals;
  switch (phase_) {
    case Phase::kWarmup:
      if (++count_ >= kWarmupPasses) {
        phase_ = Phase::kProbing;
        count_ = 0;
      }
      return;
    case Phase::kProbing:
      if (!changed && n > 0 && seconds > 0.0)
        (steals ? with_ : without_).push_back(seconds / static_cast<double>(n));
      if (++count_ >= kProbePasses) decide();
      return;
    case Phase::kHolding:
      if (++count_ >= kHoldPasses) {
        phase_ = Phase::kProbing;
        count_ = 0;
      }
      return;
  }
}

void StealProbe::decide() {
  phase_ = Phase::kHolding;
  count_ = 0;
  // Nothing measured on one side: the last decision stands.
  if (!with_.empty() && !without_.empty())
    decided_steal_ = !(median(without_) < (1.0 - kMargin) * median(with_));
  with_.clear();
  without_.clear();
}

}  // namespace tsar::core
