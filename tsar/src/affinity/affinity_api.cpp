// SPDX-License-Identifier: BSD-3-Clause
// The C API of NUMA partitions (tsar.h, "NUMA partitions") over affinity/partition.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "affinity/mem_location.hpp"
#include "affinity/partition.hpp"
#include "affinity/places.hpp"
#include "api/error.hpp"
#include "memory/address_range.hpp"
#include "runtime/runtime.hpp"
#include "tsar/tsar.h"

struct tsar_partition {
  std::unique_ptr<tsar::core::Partition> impl;
};

namespace {

using tsar::core::Error;
using tsar::core::fail;
using tsar::core::guarded;

#define TSAR_REQUIRE(ptr, call)                                                                 \
  do {                                                                                          \
    if ((ptr) == nullptr) return fail(TSAR_ERR_NULL, std::string(call) + ": " #ptr " is NULL"); \
  } while (0)

tsar::core::Partition* partition_of(const tsar_place* place) {
  return place == nullptr ? nullptr : place->partition;
}

}  // namespace

extern "C" {

int tsar_partition_init(tsar_partition** part, const char* name, const char* places,
                        const char* outer_schedule, const char* inner_schedule,
                        unsigned device_kinds) {
  TSAR_REQUIRE(part, "tsar_partition_init");
  *part = nullptr;
  const unsigned kinds = device_kinds == 0 ? static_cast<unsigned>(TSAR_DEVICE_ALL) : device_kinds;
  if ((kinds & ~static_cast<unsigned>(TSAR_DEVICE_ALL)) != 0)
    return fail(TSAR_ERR_INVALID, "tsar_partition_init: device kinds mask " +
                                      std::to_string(device_kinds) + " has unknown bits");
  return guarded("tsar_partition_init", [&] {
    const auto runtime = tsar::core::Runtime::current();
    tsar::core::Partition::Options options;
    if (name != nullptr && name[0] != '\0') options.name = name;
    options.outer = tsar::core::parse_schedule(
        outer_schedule != nullptr && outer_schedule[0] != '\0' ? outer_schedule : "adaptive");
    options.inner = tsar::core::resolve_schedule(inner_schedule, 0);
    auto impl = std::make_unique<tsar::core::Partition>(
        runtime->node(),
        tsar::core::build_places(runtime->node(), places != nullptr ? places : "",
                                 runtime->device_spec(), runtime->process_cpus(), kinds),
        std::move(options), tsar::core::system_numa_memory());
    *part = new tsar_partition{std::move(impl)};
  });
}

int tsar_partition_free(tsar_partition* part) {
  if (part == nullptr) return TSAR_OK;
  if (part->impl->in_pass())
    return fail(TSAR_ERR_STATE, "tsar_partition_free: the partition is in a pass");
  return guarded("tsar_partition_free", [&] { delete part; });
}

int tsar_partition_num_places(const tsar_partition* part) {
  if (part == nullptr) {
    fail(TSAR_ERR_NULL, "tsar_partition_num_places: part is NULL");
    return 0;
  }
  return part->impl->num_places();
}

int tsar_partition_get_place_info(const tsar_partition* part, int place, tsar_place_info* info) {
  TSAR_REQUIRE(part, "tsar_partition_get_place_info");
  TSAR_REQUIRE(info, "tsar_partition_get_place_info");
  if (place < 0 || place >= part->impl->num_places())
    return fail(TSAR_ERR_INVALID, "tsar_partition_get_place_info: place " + std::to_string(place) +
                                      " out of range (the partition has " +
                                      std::to_string(part->impl->num_places()) + ")");
  const tsar::core::Place& p = part->impl->place(place);
  *info = {};
  info->numa_node = p.numa_node;
  info->os_node = p.os_node;
  info->num_devices = static_cast<int>(p.devices.size());
  info->num_cores = p.cores;
  std::snprintf(info->devices, sizeof info->devices, "%s", p.keys.c_str());
  return TSAR_OK;
}

int tsar_set_mem_policy(tsar_partition* part, int level, int policy) {
  TSAR_REQUIRE(part, "tsar_set_mem_policy");
  return guarded("tsar_set_mem_policy", [&] { part->impl->set_policy(level, policy); });
}

int tsar_bind_partition(tsar_partition* part, int loop) {
  TSAR_REQUIRE(part, "tsar_bind_partition");
  return guarded("tsar_bind_partition", [&] { part->impl->bind(loop); });
}

int tsar_partition_set_rebalance(tsar_partition* part, int passes) {
  TSAR_REQUIRE(part, "tsar_partition_set_rebalance");
  return guarded("tsar_partition_set_rebalance", [&] { part->impl->set_rebalance(passes); });
}

int tsar_partition_map_array(tsar_partition* part, void* host, const tsar_array_desc* desc) {
  TSAR_REQUIRE(part, "tsar_partition_map_array");
  TSAR_REQUIRE(desc, "tsar_partition_map_array");
  return guarded("tsar_partition_map_array",
                 [&] { part->impl->map(tsar::core::Association::array(host, *desc)); });
}

int tsar_partition_map_segmented(tsar_partition* part, void* host, const tsar_indirect_desc* desc) {
  TSAR_REQUIRE(part, "tsar_partition_map_segmented");
  TSAR_REQUIRE(desc, "tsar_partition_map_segmented");
  return guarded("tsar_partition_map_segmented",
                 [&] { part->impl->map(tsar::core::Association::segmented(host, *desc)); });
}

int tsar_partition_map_indexed(tsar_partition* part, void* host, const tsar_indirect_desc* desc) {
  TSAR_REQUIRE(part, "tsar_partition_map_indexed");
  TSAR_REQUIRE(desc, "tsar_partition_map_indexed");
  return guarded("tsar_partition_map_indexed",
                 [&] { part->impl->map(tsar::core::Association::indexed(host, *desc)); });
}

int tsar_partition_unmap(tsar_partition* part, const void* host) {
  TSAR_REQUIRE(part, "tsar_partition_unmap");
  return guarded("tsar_partition_unmap", [&] { part->impl->unmap(host); });
}

int tsar_partition_run(tsar_partition* part, int64_t n, tsar_place_fn body, void* arg) {
  TSAR_REQUIRE(part, "tsar_partition_run");
  TSAR_REQUIRE(body, "tsar_partition_run");
  return guarded("tsar_partition_run", [&] { part->impl->run(n, body, arg); });
}

int tsar_place_index(const tsar_place* place) {
  if (place == nullptr) {
    fail(TSAR_ERR_NULL, "tsar_place_index: place is NULL");
    return -1;
  }
  return place->index;
}

int tsar_place_for(tsar_place* place, int loop, int64_t begin, int64_t end, tsar_body_fn body,
                   void* arg) {
  TSAR_REQUIRE(partition_of(place), "tsar_place_for");
  return place->partition->place_for(place->index, loop, begin, end, body, arg);
}

int tsar_place_barrier(tsar_place* place) {
  TSAR_REQUIRE(partition_of(place), "tsar_place_barrier");
  return place->partition->barrier(place->index);
}

int tsar_place_update(tsar_place* place, const void* host, int what) {
  TSAR_REQUIRE(partition_of(place), "tsar_place_update");
  return place->partition->update(place->index, host, what);
}

int tsar_place_cancel(tsar_place* place) {
  TSAR_REQUIRE(partition_of(place), "tsar_place_cancel");
  return place->partition->cancel();
}

void* tsar_place_mem(const tsar_place* place, const void* host) {
  if (partition_of(place) == nullptr) {
    fail(TSAR_ERR_NULL, "tsar_place_mem: place is NULL");
    return nullptr;
  }
  void* pointer = nullptr;
  const int status = guarded("tsar_place_mem", [&] {
    const tsar::core::View v = place->partition->view(place->index, host);
    if (v.host_indexed == nullptr)
      throw Error(TSAR_ERR_STATE,
                  "the place's copy of this buffer is packed differently from the host (a "
                  "partitioned inner dimension): use tsar_place_view");
    pointer = v.host_indexed;
  });
  if (status == TSAR_OK) tsar::core::clear_last_error();
  return pointer;
}

int tsar_place_view(const tsar_place* place, const void* host, tsar_array_view* view) {
  TSAR_REQUIRE(partition_of(place), "tsar_place_view");
  TSAR_REQUIRE(view, "tsar_place_view");
  return guarded("tsar_place_view", [&] {
    const tsar::core::View v = place->partition->view(place->index, host);
    *view = {};
    view->base = v.base;
    view->dims = v.dims;
    for (int d = 0; d < 3; ++d) {
      view->stride[d] = v.stride[static_cast<std::size_t>(d)];
      view->offset[d] = v.offset[static_cast<std::size_t>(d)];
      view->extent[d] = v.extent[static_cast<std::size_t>(d)];
    }
  });
}

int64_t tsar_partition_num_passes(const tsar_partition* part) {
  if (part == nullptr) {
    fail(TSAR_ERR_NULL, "tsar_partition_num_passes: part is NULL");
    return -1;
  }
  return part->impl->passes();
}

int tsar_partition_get_pass_stats(const tsar_partition* part, int64_t pass, tsar_pass_stats* stats,
                                  tsar_place_stats* places, int capacity) {
  TSAR_REQUIRE(part, "tsar_partition_get_pass_stats");
  return guarded("tsar_partition_get_pass_stats",
                 [&] { part->impl->pass_stats(pass, stats, places, capacity); });
}

int tsar_mem_location(const void* addr, size_t bytes, int* nodes, size_t capacity, size_t* pages) {
  TSAR_REQUIRE(addr, "tsar_mem_location");
  TSAR_REQUIRE(pages, "tsar_mem_location");
  if (capacity > 0 && nodes == nullptr)
    return fail(TSAR_ERR_NULL, "tsar_mem_location: nodes is NULL but capacity > 0");
  if (!tsar::core::in_address_space(addr, bytes))
    return fail(TSAR_ERR_INVALID, "tsar_mem_location: " + std::to_string(bytes) + " bytes from " +
                                      tsar::core::address_text(addr) +
                                      " run past the end of the address space");
  return guarded("tsar_mem_location", [&] {
    const auto located = tsar::core::memory_location(*tsar::core::system_numa_memory(),
                                                     tsar::core::Runtime::current()->node(), addr,
                                                     bytes, capacity, pages);
    std::copy(located.begin(), located.end(), nodes);
  });
}

int tsar_num_numa_nodes(void) {
  int count = 1;
  guarded("tsar_num_numa_nodes", [&] {
    count = std::max<int>(
        1, static_cast<int>(tsar::core::Runtime::current()->node().numa_nodes().size()));
  });
  return count;
}

}  // extern "C"
