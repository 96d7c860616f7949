#include "runtime/runtime.hpp"

#include <cstdlib>
#include <mutex>

#include "api/error.hpp"
#include "devices/device_list.hpp"

namespace tsar::core {
namespace {

std::mutex current_mutex;
std::shared_ptr<Runtime> current_runtime;

std::shared_ptr<Runtime> build(const std::optional<std::string>& spec) {
  symmer::topology::NodeModel node = [] {
    try {
      return symmer::topology::NodeModel::from_this_node();
    } catch (const std::exception& e) {
      throw Error(TSAR_ERR_DEVICES, std::string("reading this node's topology: ") + e.what());
    }
  }();
  std::string text;
  if (spec) {
    text = *spec;
  } else if (const char* env = std::getenv("TSAR_DEVICES"); env != nullptr) {
    text = env;
  }
  try {
    auto devices = build_devices(node, text);
    return std::make_shared<Runtime>(std::move(node), std::move(devices), text);
  } catch (const Error& e) {
    if (spec) throw;
    throw Error(e.status(), std::string("TSAR_DEVICES: ") + e.what());
  }
}

}  // namespace

Runtime::Runtime(symmer::topology::NodeModel node, std::vector<std::shared_ptr<Device>> devices,
                 std::string device_spec)
    : node_(std::move(node)),
      devices_(std::move(devices)),
      device_spec_(std::move(device_spec)),
      pool_(static_cast<int>(devices_.size())) {}

std::shared_ptr<Runtime> Runtime::current() {
  std::lock_guard lock(current_mutex);
  if (!current_runtime) current_runtime = build(std::nullopt);
  return current_runtime;
}

void Runtime::select(const std::optional<std::string>& spec) {
  auto next = build(spec);
  std::lock_guard lock(current_mutex);
  current_runtime = std::move(next);
}

}  // namespace tsar::core
