/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tsar/stats.h
 * Per-pass statistics of a region and its devices, and trace files. Part of tsar.h. */
#ifndef TSAR_STATS_H
#define TSAR_STATS_H

#include <stdint.h>

#include "tsar/region.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup tsar_stats Statistics
 * A region keeps the statistics of its last 4096 passes. With TSAR_TRACE set, every pass is
 * also appended to that file (CSV when the name ends in .csv, else JSON lines).
 * Members of the structures are only ever appended.
 * @{ */

/** tsar_pass_stats.cpu_sharing: how the CPU cores shared a pass. */
enum {
  TSAR_SHARE_OWN = 0,   /**< each core its own range */
  TSAR_SHARE_STEAL = 1, /**< cores out of work take from each other's ranges */
  TSAR_SHARE_CHUNKS = 2 /**< chunks from one queue */
};

/** One pass. */
typedef struct tsar_pass_stats {
  int64_t pass;            /**< 0-based pass number */
  int64_t n;               /**< iterations of the pass */
  int sub_passes;          /**< sub-passes run (split, quick) */
  int canceled;            /**< 1 when the pass was canceled */
  double seconds;          /**< from the split to the last worker's arrival */
  double schedule_seconds; /**< spent computing splits and adapting */
  int cpu_sharing;         /**< TSAR_SHARE_OWN, TSAR_SHARE_STEAL or TSAR_SHARE_CHUNKS */
} tsar_pass_stats;

/** One device in one pass. */
typedef struct tsar_device_stats {
  int64_t iterations;        /**< iterations the device ran in the pass */
  int64_t chunks;            /**< ranges it ran */
  double busy_seconds;       /**< time running them, its copies included */
  double idle_seconds;       /**< time it waited at the end of (sub-)passes */
  double time_per_iteration; /**< estimate after the pass (seconds), 0 when unknown */
  unsigned kind;             /**< its kind during the pass */
  int retired;               /**< 1 once back-off (or running out of memory) retired it */
  int64_t bytes_to_device;   /**< bytes it copied from host to device memory in the pass */
  int64_t bytes_from_device; /**< bytes it copied back */
  int64_t bytes_peer;        /**< of bytes_from_device, those copied straight into another
                                  device's memory (halo rows GPU to GPU) */
  int64_t stolen_iterations; /**< of iterations, those an accelerator took over from the CPU
                                  cores' ranges once its own range was done */
  int late;                  /**< 1 when the device's worker had not started when the others
                                  were done and the caller ran its rows instead (a core another
                                  thread held) */
} tsar_device_stats;

/** @return the number of passes run so far; -1 for NULL (TSAR_ERR_NULL). */
int64_t tsar_num_passes(const tsar_region* region);

/** Statistics of pass `pass` (-1 = the last one).
 * @param[out] stats the pass; may be NULL.
 * @param[out] devices up to `capacity` entries, one per device in region order; NULL when
 *   capacity is 0.
 * @return TSAR_OK; TSAR_ERR_NULL when region is NULL, or devices is NULL with capacity > 0;
 *   TSAR_ERR_INVALID for a negative capacity or a pass not kept (or none run yet);
 *   TSAR_ERR_STATE during a pass. */
int tsar_get_pass_stats(const tsar_region* region, int64_t pass, tsar_pass_stats* stats,
                        tsar_device_stats* devices, int capacity);

/** Writes the kept statistics to `path`: CSV when it ends in ".csv", else JSON.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_IO when the file cannot be written; TSAR_ERR_STATE
 *   during a pass. */
int tsar_write_trace(const tsar_region* region, const char* path);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSAR_STATS_H */
