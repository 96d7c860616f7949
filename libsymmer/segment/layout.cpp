// SPDX-License-Identifier: BSD-3-Clause
// Names of the layout's enumerations, for reports.
#include "symmer/segment/layout.hpp"

namespace symmer::segment {

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
