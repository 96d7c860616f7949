/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tsar/partition.h
 * NUMA partitions: data placement follows computation (AffinityTSAR, thesis ch. 6). Part of
 * tsar.h. */
#ifndef TSAR_PARTITION_H
#define TSAR_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "tsar/region.h"
#include "tsar/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup tsar_partition NUMA partitions
 * A partition splits an iteration space [0, n) in two levels: over *places* -- a place is a
 * team of the devices of one NUMA node (its cores and the accelerators attached to it) --
 * and, inside each place, over the place's devices. tsar_partition_run runs the place body
 * once per place, on a thread of that place, with the place's range; the body runs inner
 * loops over (parts of) its range with tsar_place_for, each inner loop split over the
 * place's devices by its own schedule, and may meet the other places at barriers and halo
 * updates. One partition pass can hold many loops and iterations (a stencil's time steps):
 * the outer split, and with it the data placement, changes only between partition passes,
 * and only every tsar_partition_set_rebalance passes.
 *
 * Buffers mapped to the partition are associated with the outer iteration (array with
 * explicit strides, segmented, indexed); the memory policy of a level decides what happens
 * to them at the start of a pass: nothing (coherent), their pages spread over the places'
 * nodes (interleave), the pages of each place's part moved to its node (migrate), or a
 * copy of each place's part on its node (replicate) that the body uses instead of the host
 * buffer (tsar_place_mem / tsar_place_view) and that is merged back at the end of the pass.
 *
 *     tsar_partition* p;
 *     tsar_partition_init(&p, "stencil", NULL, "adaptive", "adaptive", TSAR_DEVICE_CPU);
 *     tsar_partition_map_array(p, u, &rows_with_halo_1);
 *     tsar_set_mem_policy(p, TSAR_LEVEL_PLACES, TSAR_POLICY_MIGRATE);
 *     tsar_partition_run(p, rows, place_body, &args);  // place_body: steps, tsar_place_for,
 *                                                      // tsar_place_update(...NEARBY)
 * @{ */

/** A partition (opaque). */
typedef struct tsar_partition tsar_partition;
/** One place during a partition pass, handed to the place body (opaque). */
typedef struct tsar_place tsar_place;

/** Memory policies of a partition level (thesis 6.4.2). Pages move with move_pages(2) in
 * batches sized so that one call stalls the process for at most about 20 ms; only pages
 * wholly inside a buffer and touched by one place's part alone move (boundary pages stay). */
typedef enum tsar_mem_policy {
  TSAR_POLICY_COHERENT = 0,   /**< leave placement to the OS (first touch) */
  TSAR_POLICY_INTERLEAVE = 1, /**< every mapped buffer's pages round-robin over the nodes */
  TSAR_POLICY_MIGRATE = 2,    /**< each place's part moved to its node; shared buffers stay */
  TSAR_POLICY_MIGRATE_INTERLEAVED = 3, /**< migrate the partitioned, interleave the shared */
  TSAR_POLICY_REPLICATE = 4 /**< per-place copies: inputs copied in, outputs merged back */
} tsar_mem_policy;

/** Partition levels. */
enum {
  TSAR_LEVEL_PLACES = 0, /**< the outer split over places (NUMA nodes) */
  TSAR_LEVEL_DEVICES = 1 /**< the inner split over the devices of a place */
};

/** What a place is. */
typedef struct tsar_place_info {
  int numa_node;     /**< logical NUMA node its memory policies place data on */
  int os_node;       /**< the Linux node number of it (numactl, /proc/<pid>/numa_maps) */
  int num_devices;   /**< devices of its inner level */
  int num_cores;     /**< cores of its devices */
  char devices[128]; /**< its devices as a device list ("cpu:0,cpu:1"), truncated to fit */
} tsar_place_info;

/** Creates a partition.
 * @param[out] part the new partition; NULL on failure.
 * @param name key of the learned-times cache of its inner loops; NULL = "partition".
 * @param places NULL: one place per NUMA node with allowed cores, holding the devices of the
 *   current device set (tsar_set_devices / TSAR_DEVICES) on that node; else device lists
 *   separated by '|', one per place ("cpu:0-3|cpu:4-7", "place:0|place:1"), each place on
 *   the NUMA node of its first device.
 * @param outer_schedule split over places: "static" or "adaptive" (the body runs once per
 *   place, so chunk and sub-pass schedules do not apply); NULL = "adaptive".
 * @param inner_schedule schedule of the inner loops (any); NULL = TSAR_SCHEDULE, else
 *   "adaptive".
 * @param device_kinds TSAR_DEVICE_* mask of the devices places keep; 0 = TSAR_DEVICE_ALL.
 *   Default places left without a device are dropped; an explicit place without one fails.
 * @return TSAR_OK; TSAR_ERR_NULL when part is NULL; TSAR_ERR_INVALID for unknown kind bits;
 *   TSAR_ERR_SCHEDULE for a bad schedule (an outer one other than static or adaptive);
 *   TSAR_ERR_DEVICES for a bad places entry (named) or no place left; TSAR_ERR_SYSTEM when
 *   out of memory. */
int tsar_partition_init(tsar_partition** part, const char* name, const char* places,
                        const char* outer_schedule, const char* inner_schedule,
                        unsigned device_kinds);

/** Frees the partition, its inner loops and its per-place copies.
 * @param part a partition or NULL (nothing happens).
 * @return TSAR_OK; TSAR_ERR_STATE during a pass. */
int tsar_partition_free(tsar_partition* part);

/** @return the number of places; 0 for NULL (TSAR_ERR_NULL). */
int tsar_partition_num_places(const tsar_partition* part);

/** Describes place `place` (0 .. tsar_partition_num_places-1).
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_INVALID when place is out of range. */
int tsar_partition_get_place_info(const tsar_partition* part, int place, tsar_place_info* info);

/** Sets the memory policy of a level (outside passes); it takes effect at the next pass.
 * TSAR_LEVEL_PLACES takes every policy (default coherent); TSAR_LEVEL_DEVICES, whose devices
 * share their place's node, takes coherent only.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_INVALID for an unknown level or policy;
 *   TSAR_ERR_UNSUPPORTED for a policy other than coherent at TSAR_LEVEL_DEVICES;
 *   TSAR_ERR_STATE during a pass. */
int tsar_set_mem_policy(tsar_partition* part, int level, int policy);

/** Thesis bind_partition: the time that re-balances the places is the time of inner loop
 * `loop` (tsar_place_for's loop number) alone, summed over the pass, instead of the place
 * body's time less its waits at barriers and halo updates.
 * @param loop an inner loop number, or -1 to restore the default.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_INVALID for loop < -1; TSAR_ERR_STATE during a
 *   pass. */
int tsar_bind_partition(tsar_partition* part, int loop);

/** The outer split is recomputed every `passes` partition passes (default 1), so data placed
 * for it stays placed in between. A pass of another n always re-splits.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_INVALID for passes < 1; TSAR_ERR_STATE during a
 *   pass. */
int tsar_partition_set_rebalance(tsar_partition* part, int passes);

/** @} */

/** @defgroup tsar_partition_map Partition associations
 * @ingroup tsar_partition
 * @{ */

/** An array of up to three dimensions, outermost first, with explicit strides (a flat
 * buffer used as a matrix: dims 2, extent {rows, cols}, stride {row_stride, 1}). Iteration
 * i of the partition uses index i of dimension part_dim (and every index of the others). */
typedef struct tsar_array_desc {
  const char* name; /**< named in messages and reports; NULL = its address */
  size_t elem_size; /**< bytes per element, > 0 */
  int dims;         /**< 1 .. 3 */
  size_t extent[3]; /**< elements along each dimension, > 0 */
  size_t stride[3]; /**< elements from one index to the next along each dimension; 0 = packed
                         (extent * stride of the next dimension, 1 for the last). An outer
                         stride must cover the dimension inside it (rows may not overlap). */
  int part_dim;     /**< dimension the iteration indexes; -1: shared, not partitioned */
  size_t halo;      /**< indices of part_dim read each side of a part (stencil padding) */
  unsigned flags;   /**< TSAR_MEM_IN and/or TSAR_MEM_OUT (outputs must be partitioned) */
} tsar_array_desc;

/** A data buffer reached through a map array: segmented (CSR-like: iteration i owns elements
 * map[i] .. map[i+1]-1, map has n+1 non-decreasing entries) or indexed (iteration i reads
 * element map[i], map has n entries). The map array is partitioned with the data; a place's
 * copy of the map (tsar_place_mem on the map's address) is rewritten to index the place's
 * copy of the data, so the body is the same under every policy. */
typedef struct tsar_indirect_desc {
  const char* name; /**< named in messages and reports; NULL = its address */
  size_t elem_size; /**< bytes per data element, > 0 */
  size_t count;     /**< data elements */
  const void* map;  /**< the segment or index array */
  size_t map_size;  /**< bytes per map entry: 4 (int32_t) or 8 (int64_t) */
  size_t map_count; /**< entries of the map */
  unsigned flags;   /**< segmented: TSAR_MEM_IN and/or OUT; indexed: TSAR_MEM_IN (several
                         iterations may read one element; writes through an index would race) */
} tsar_indirect_desc;

/** Maps buffer `host` to the partition (outside passes). Every check is made here, before
 * any page moves or copy is made.
 * @return TSAR_OK; TSAR_ERR_NULL when part, host, desc or a map is NULL; TSAR_ERR_INVALID
 *   naming the buffer and the problem (a misaligned address, overlapping rows, an index
 *   outside the data, a segment array that decreases or leaves the data); TSAR_ERR_REGISTERED
 *   when it overlaps a mapped buffer; TSAR_ERR_STATE during a pass. */
int tsar_partition_map_array(tsar_partition* part, void* host, const tsar_array_desc* desc);
/** As tsar_partition_map_array, for a segmented buffer. */
int tsar_partition_map_segmented(tsar_partition* part, void* host, const tsar_indirect_desc* desc);
/** As tsar_partition_map_array, for an indexed buffer. */
int tsar_partition_map_indexed(tsar_partition* part, void* host, const tsar_indirect_desc* desc);

/** Unmaps a buffer (outside passes); its per-place copies are freed.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN when not mapped; TSAR_ERR_STATE during a
 *   pass. */
int tsar_partition_unmap(tsar_partition* part, const void* host);

/** @} */

/** @defgroup tsar_partition_run Partition passes
 * @ingroup tsar_partition
 * @{ */

/** A place body: runs once per place per pass with the place's range [begin, end) (possibly
 * empty: it still runs, so barriers and halo updates stay collective). */
typedef void (*tsar_place_fn)(tsar_place* place, int64_t begin, int64_t end, void* arg);

/** Runs one partition pass of n iterations: splits [0, n) over the places, places the data as
 * the policies say, runs body on every place at once (place 0 on the calling thread), merges
 * replicated outputs back, and learns the places' times.
 * @param n iterations, 0 <= n <= 2^60; mapped buffers must hold n items along their
 *   partitioned dimension, indirect maps n (+1) entries.
 * @return TSAR_OK; TSAR_ERR_NULL when part or body is NULL; TSAR_ERR_INVALID for a bad n or
 *   buffers too small for it; TSAR_ERR_CANCELED when a body called tsar_place_cancel;
 *   TSAR_ERR_STATE from inside a pass of this partition; TSAR_ERR_SYSTEM when a copy could
 *   not be allocated. */
int tsar_partition_run(tsar_partition* part, int64_t n, tsar_place_fn body, void* arg);

/** @return the index of the place (0 .. tsar_partition_num_places-1); -1 for NULL. */
int tsar_place_index(const tsar_place* place);

/** Runs inner loop number `loop` (one learned split per loop number and place) over
 * iterations [begin, end) on the place's devices: body(chunk, arg) for each device's ranges,
 * with chunk->begin/end absolute iteration numbers and chunk->worker the device's index in
 * the place. Called from the place body's thread.
 * @return TSAR_OK; TSAR_ERR_NULL when place or body is NULL; TSAR_ERR_INVALID for loop < 0
 *   or begin < 0 or end < begin; TSAR_ERR_THREADS from another thread than the place
 *   body's; TSAR_ERR_CANCELED once the pass was canceled. */
int tsar_place_for(tsar_place* place, int loop, int64_t begin, int64_t end, tsar_body_fn body,
                   void* arg);

/** Waits until every place whose body is still running calls it too (a place whose body
 * returned no longer takes part).
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_THREADS from another thread than the place
 *   body's; TSAR_ERR_CANCELED once the pass was canceled. */
int tsar_place_barrier(tsar_place* place);

/** Halo (padding) updates of a mapped array with a halo (tsar_place_update's `what`). */
enum {
  TSAR_UPDATE_PADDING_NEARBY = 0, /**< each place's halo from its neighbours' copies */
  TSAR_UPDATE_PADDING_FROM = 1,   /**< each place's boundary rows back to the host buffer */
  TSAR_UPDATE_PADDING_TO = 2,     /**< each place's halo from the host buffer */
  TSAR_UPDATE_MERGE = 3           /**< full merge: the whole part to the host, then part and
                                       halo back (what re-partitioning would copy) */
};

/** A halo update of mapped array `host`, collective like a barrier. With per-place copies
 * (replicate) it copies boundaries only; with the host buffer shared (other policies) the
 * data is already coherent and it only synchronises.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN when host is not mapped; TSAR_ERR_INVALID
 *   for an unknown `what` or an array without a halo or partition; TSAR_ERR_THREADS from
 *   another thread than the place body's; TSAR_ERR_CANCELED once the pass was canceled. */
int tsar_place_update(tsar_place* place, const void* host, int what);

/** Stops the pass: barriers and updates return TSAR_ERR_CANCELED, inner loops start no new
 * range, outputs are not merged, nothing is learned; tsar_partition_run fails with
 * TSAR_ERR_CANCELED. Callable from place bodies and inner loop bodies.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_STATE outside a pass. */
int tsar_place_cancel(tsar_place* place);

/** The place's view of a mapped buffer (or of an indirect buffer's map array), indexed like
 * the host buffer for the place's part and halo. Callable from the place body and its inner
 * loop bodies.
 * @return the host buffer itself, or under replicate the place's copy; NULL (tsar_last_status
 *   set) when the buffer is not mapped (TSAR_ERR_UNKNOWN), outside a pass (TSAR_ERR_STATE),
 *   or when the copy is packed differently from the host, a partitioned inner dimension
 *   (TSAR_ERR_STATE): use tsar_place_view then. */
void* tsar_place_mem(const tsar_place* place, const void* host);

/** The place's view of a mapped array: element (i0, i1, i2) of the host array is at
 * base + sum_d (i_d - offset[d]) * stride[d] elements, for the place's part and halo. */
typedef struct tsar_array_view {
  void* base;        /**< the view's first element */
  int dims;          /**< dimensions of the array */
  size_t stride[3];  /**< elements */
  int64_t offset[3]; /**< first index of the view along each dimension */
  int64_t extent[3]; /**< indices the view holds along each dimension */
} tsar_array_view;

/** Fills *view with the place's view of mapped array `host`.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN when not mapped; TSAR_ERR_STATE outside a
 *   pass. */
int tsar_place_view(const tsar_place* place, const void* host, tsar_array_view* view);

/** @} */

/** @defgroup tsar_partition_stats Partition statistics and memory locations
 * @ingroup tsar_partition
 * @{ */

/** One place in one partition pass. */
typedef struct tsar_place_stats {
  int64_t begin;            /**< first iteration of the place's range */
  int64_t end;              /**< one past its last */
  double seconds;           /**< its body, placement excluded */
  double timed_seconds;     /**< what re-balancing learned from: the bound loop, or the body
                                 less barrier and update waits */
  double wait_seconds;      /**< waiting at barriers and halo updates */
  double placement_seconds; /**< planning, moving pages, copying in and merging back */
  int64_t pages_moved;      /**< pages move_pages moved to its node */
  int64_t pages_failed;     /**< pages the kernel could not move (busy, node full) */
  int64_t pages_absent;     /**< pages to move that were never touched (placed at first touch) */
  int64_t bytes_replicated; /**< bytes copied into its copies */
  int64_t bytes_merged;     /**< bytes copied from its copies back to host buffers */
  int64_t halo_bytes;       /**< bytes its halo updates copied */
  int numa_node;            /**< its logical NUMA node */
} tsar_place_stats;

/** Partition passes run so far (the last 4096 are kept). With TSAR_TRACE set to a JSON-lines
 * file, every partition pass is also appended there as {"partition": name, "policy", "pass",
 * "n", "seconds", "places": [these statistics]} (CSV traces hold regions only; the inner
 * loops appear as regions "name/place:P/loop:L").
 * @return the count; -1 for NULL (TSAR_ERR_NULL). */
int64_t tsar_partition_num_passes(const tsar_partition* part);

/** Per-place statistics of pass `pass` (-1 = the last), up to `capacity` places.
 * @param[out] stats the pass's n, time and canceled flag; may be NULL.
 * @return TSAR_OK; TSAR_ERR_NULL when part is NULL, or places is NULL with capacity > 0;
 *   TSAR_ERR_INVALID for a negative capacity or a pass not kept; TSAR_ERR_STATE during a
 *   pass. */
int tsar_partition_get_pass_stats(const tsar_partition* part, int64_t pass, tsar_pass_stats* stats,
                                  tsar_place_stats* places, int capacity);

/** Where memory is: the logical NUMA node of each page of [addr, addr + bytes) into nodes
 * (-1: never touched, so not placed yet), at most `capacity` pages. Uses move_pages(2)
 * without moving.
 * @param[out] pages the number of pages the range spans (may exceed capacity).
 * @return TSAR_OK; TSAR_ERR_NULL when addr or pages is NULL, or nodes with capacity > 0;
 *   TSAR_ERR_SYSTEM when the kernel refused the query. */
int tsar_mem_location(const void* addr, size_t bytes, int* nodes, size_t capacity, size_t* pages);

/** @return the number of NUMA nodes this process may use (1 on a machine without NUMA). */
int tsar_num_numa_nodes(void);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSAR_PARTITION_H */
