// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Partitions on this machine for tests: places of explicit device groups that claim the
// NUMA nodes of an in-memory machine (FakeNumaMemory), so placement across nodes runs for
// real -- threads, inner loops, page plans, copies -- on a one-node machine; and helpers to
// run lambdas as place and loop bodies.

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "affinity/partition.hpp"
#include "affinity/places.hpp"
#include "fake_numa_memory.hpp"
#include "schedule/schedule_spec.hpp"
#include "symmer/topology/node_model.hpp"

namespace tsar::test {

/// `groups` device lists ("cpu:0|cpu:1"), place i claiming node nodes[i].
inline std::unique_ptr<core::Partition> make_partition(std::shared_ptr<core::NumaMemory> memory,
                                                       const std::string& groups,
                                                       const std::vector<int>& nodes,
                                                       const std::string& outer = "adaptive",
                                                       const std::string& inner = "adaptive") {
  auto node = symmer::topology::NodeModel::from_this_node(symmer::topology::GpuQuery::kNone);
  auto places = core::build_places(node, groups, "");
  for (std::size_t i = 0; i < places.size() && i < nodes.size(); ++i) {
    places[i].numa_node = nodes[i];
    places[i].os_node = nodes[i];
  }
  core::Partition::Options options;
  options.name = "test";
  options.outer = core::parse_schedule(outer);
  options.inner = core::parse_schedule(inner);
  return std::make_unique<core::Partition>(node, std::move(places), options, std::move(memory));
}

/// A partition with the places of fixture topology `fixture` (one per NUMA node with allowed
/// cores, with its logical and OS node numbers), each place run by a core of this machine
/// (place i on core i mod cores): the fixture's NUMA layout, executed here.
inline std::unique_ptr<core::Partition> fixture_partition(
    std::shared_ptr<core::NumaMemory> memory, const symmer::topology::NodeModel& fixture,
    const std::string& outer = "static") {
  auto node = symmer::topology::NodeModel::from_this_node(symmer::topology::GpuQuery::kNone);
  const auto claimed = core::build_places(fixture, "", "");
  std::string groups;
  for (std::size_t i = 0; i < claimed.size(); ++i)
    groups += (i == 0 ? "" : "|") + std::string("cpu:") +
              std::to_string(node.cores()[i % node.cores().size()].index);
  auto places = core::build_places(node, groups, "");
  for (std::size_t i = 0; i < places.size(); ++i) {
    places[i].numa_node = claimed[i].numa_node;
    places[i].os_node = claimed[i].os_node;
  }
  core::Partition::Options options;
  options.name = "fixture";
  options.outer = core::parse_schedule(outer);
  options.inner = core::parse_schedule("static");
  return std::make_unique<core::Partition>(node, std::move(places), options, std::move(memory));
}

/// Runs a pass whose place body is f(place, begin, end).
template <class F>
void run_pass(core::Partition& p, std::int64_t n, F&& f) {
  using Fn = std::remove_reference_t<F>;
  p.run(
      n,
      [](tsar_place* place, std::int64_t b, std::int64_t e, void* arg) {
        (*static_cast<Fn*>(arg))(place, b, e);
      },
      const_cast<void*>(static_cast<const void*>(&f)));
}

/// Runs inner loop `loop` over [b, e) of the place with g(const tsar_chunk&).
template <class G>
int place_for(tsar_place* place, int loop, std::int64_t b, std::int64_t e, G&& g) {
  using Fn = std::remove_reference_t<G>;
  return place->partition->place_for(
      place->index, loop, b, e,
      [](const tsar_chunk* c, void* arg) { (*static_cast<Fn*>(arg))(*c); },
      const_cast<void*>(static_cast<const void*>(&g)));
}

/// Page-aligned memory of n elements of T, freed on destruction.
template <class T>
struct PageBuffer {
  explicit PageBuffer(std::size_t count, std::size_t page = 4096)
      : data(static_cast<T*>(
            std::aligned_alloc(page, (count * sizeof(T) + page - 1) / page * page))),
        n(count) {}
  ~PageBuffer() { std::free(data); }
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  T& operator[](std::size_t i) { return data[i]; }
  T* data;
  std::size_t n;
};

inline tsar_array_desc vector_desc(const char* name, std::size_t n, unsigned flags,
                                   std::size_t elem_size = sizeof(double), int part_dim = 0,
                                   std::size_t halo = 0) {
  tsar_array_desc d{};
  d.name = name;
  d.elem_size = elem_size;
  d.dims = 1;
  d.extent[0] = n;
  d.part_dim = part_dim;
  d.halo = halo;
  d.flags = flags;
  return d;
}

inline tsar_array_desc matrix_desc(const char* name, std::size_t rows, std::size_t cols,
                                   int part_dim, std::size_t halo, unsigned flags) {
  tsar_array_desc d{};
  d.name = name;
  d.elem_size = sizeof(double);
  d.dims = 2;
  d.extent[0] = rows;
  d.extent[1] = cols;
  d.part_dim = part_dim;
  d.halo = halo;
  d.flags = flags;
  return d;
}

}  // namespace tsar::test
