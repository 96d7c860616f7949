// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A runtime: this node's model, a set of devices and the worker pool with one thread per
// device. Regions take the current runtime when they are created and keep it alive, so
// tsar_set_devices can switch the device set for new regions while old ones run on.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "devices/default_cpus.hpp"
#include "devices/device.hpp"
#include "symmer/topology/node_model.hpp"
#include "workers/worker_pool.hpp"

namespace tsar::core {

class Runtime {
 public:
  /// `device_spec` is the device list the devices were built from ("" = the default),
  /// `process` the process's CPUs they were built on ({}: every CPU of `node`);
  /// `selection_key` what select() built it from ("" for runtimes select() did not build).
  Runtime(symmer::topology::NodeModel node, std::vector<std::shared_ptr<Device>> devices,
          std::string device_spec = {}, ProcessCpus process = {}, std::string selection_key = {});

  /// The runtime new regions use: built on first use from TSAR_DEVICES or, without it,
  /// from the calling thread's CPUs (default_cpus.hpp) and this node's GPUs.
  static std::shared_ptr<Runtime> current();
  /// Replaces the current runtime with one for `spec` (nullopt: the default), unless the
  /// current one was built from the same selection (device list, TSAR_DEVICE_MEMORY_LIMIT,
  /// GPU control-core policy): then it stays, with its worker pool. Throws
  /// Error(TSAR_ERR_DEVICES) and keeps the current one on a bad spec.
  static void select(const std::optional<std::string>& spec);

  const symmer::topology::NodeModel& node() const { return node_; }
  const std::vector<std::shared_ptr<Device>>& devices() const { return devices_; }
  /// The device list this runtime was built from, to build the same set again elsewhere
  /// (a partition's places build theirs from it).
  const std::string& device_spec() const { return device_spec_; }
  /// The process's CPUs the devices were built on (the same set again takes them too).
  const ProcessCpus& process_cpus() const { return process_; }
  WorkerPool& pool() { return pool_; }

 private:
  symmer::topology::NodeModel node_;
  std::vector<std::shared_ptr<Device>> devices_;
  std::string device_spec_;
  ProcessCpus process_;
  std::string selection_key_;
  WorkerPool pool_;
};

}  // namespace tsar::core
