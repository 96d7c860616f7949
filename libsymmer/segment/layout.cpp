// SPDX-License-Identifier: BSD-3-Clause
// Names of the layout's enumerations, for reports, and the CPU mask helpers.
#include "symmer/segment/layout.hpp"

#include <bit>

namespace symmer::segment {

std::vector<int> mask_cpus(const CpuMask& mask) {
  std::vector<int> out;
  for (std::size_t w = 0; w < kCpuMaskWords; ++w)
    for (std::uint64_t bits = mask.words[w]; bits != 0; bits &= bits - 1)
      out.push_back(static_cast<int>(64 * w) + std::countr_zero(bits));
  return out;
}

CpuMask mask_of(std::span<const int> cpus) {
  CpuMask m{};
  for (int c : cpus) mask_add(m, c);
  return m;
}

int mask_count(const CpuMask& mask) {
  int n = 0;
  for (std::uint64_t w : mask.words) n += std::popcount(w);
  return n;
}

const char* command_kind_name(CommandKind k) noexcept {
  switch (k) {
    case CommandKind::kNone:
      return "none";
    case CommandKind::kWriting:
      return "writing";
    case CommandKind::kBind:
      return "bind";
  }
  return "unknown";
}

const char* call_class_name(CallClass c) noexcept {
  switch (c) {
    case CallClass::kSend:
      return "send";
    case CallClass::kRecv:
      return "recv";
    case CallClass::kSendrecv:
      return "sendrecv";
    case CallClass::kIsend:
      return "isend";
    case CallClass::kIrecv:
      return "irecv";
    case CallClass::kPersistent:
      return "persistent";
    case CallClass::kWait:
      return "wait";
    case CallClass::kTest:
      return "test";
    case CallClass::kProbe:
      return "probe";
    case CallClass::kIprobe:
      return "iprobe";
    case CallClass::kCollective:
      return "collective";
    case CallClass::kIcollective:
      return "icollective";
    case CallClass::kRmaSync:
      return "rma_sync";
    case CallClass::kCount:
      break;
  }
  return "unknown";
}

const char* ack_status_name(AckStatus s) noexcept {
  switch (s) {
    case AckStatus::kNone:
      return "none";
    case AckStatus::kOk:
      return "ok";
    case AckStatus::kNotAllowed:
      return "not-allowed";
    case AckStatus::kInvalidCpu:
      return "invalid-cpu";
    case AckStatus::kFailed:
      return "failed";
  }
  return "unknown";
}

}  // namespace symmer::segment
