/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tsar/region.h
 * Regions and their passes: creating a region, running a pass with TSAR's worker pool
 * (tsar_run) or inside the caller's OpenMP team (tsar_next/tsar_loop). Part of tsar.h. */
#ifndef TSAR_REGION_H
#define TSAR_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "tsar/devices.h"
#include "tsar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup tsar_region Regions
 * A region is a loop of n iterations [0, n) that the program runs many times; each run is a
 * pass. Every device of the region has one worker thread; each pass is split between them
 * by the region's schedule, and each device's share is learned from its measured times.
 * @{ */

/** A region (opaque). */
typedef struct tsar_region tsar_region;

/** Creates a region.
 * @param[out] region the new region; NULL on failure.
 * @param name key of the learned-times cache and of the trace; NULL = "region".
 * @param schedule a schedule (see tsar.h); NULL or "" = TSAR_SCHEDULE, else "adaptive".
 * @param device_kinds TSAR_DEVICE_* mask of the kinds it may use; 0 = TSAR_DEVICE_ALL.
 * @param time_per_iteration NULL, or num_times initial seconds per iteration, one per device
 *   in region order (tsar_count_devices tells how many); 0 entries mean "unknown". Precedence
 *   of defaults: these values, then TSAR_CACHE, then device peaks.
 * @param num_times entries of time_per_iteration.
 * @param div sub-passes of split/quick; 0 = the schedule's ":div" or 10.
 * @return TSAR_OK; TSAR_ERR_NULL when region is NULL; TSAR_ERR_SCHEDULE for an unknown
 *   schedule (or a bad TSAR_SCHEDULE); TSAR_ERR_INVALID for unknown kind bits, a negative div,
 *   or time_per_iteration of the wrong length or with a negative or non-finite entry;
 *   TSAR_ERR_DEVICES when no device of the kinds exists (or TSAR_DEVICES is bad);
 *   TSAR_ERR_SYSTEM when out of memory. */
int tsar_init(tsar_region** region, const char* name, const char* schedule, unsigned device_kinds,
              const double* time_per_iteration, int num_times, int div);

/** Saves learned times (TSAR_CACHE), flushes the trace, frees the region and its
 * registrations (resident outputs are written back to the host first).
 * @param region a region or NULL (nothing happens).
 * @return TSAR_OK; TSAR_ERR_STATE during a pass (nothing is freed). */
int tsar_free(tsar_region* region);

/** @return the number of devices (= workers) of the region; 0 for NULL (TSAR_ERR_NULL). */
int tsar_num_devices(const tsar_region* region);

/** Describes device `device` (0 .. tsar_num_devices-1) of the region.
 * @return TSAR_OK; TSAR_ERR_NULL when region or info is NULL; TSAR_ERR_INVALID when device
 *   is out of range. */
int tsar_get_device_info(const tsar_region* region, int device, tsar_device_info* info);

/** Sets the initial seconds per iteration of one device, used until it is measured.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_INVALID for a device out of range or seconds
 *   negative or not finite; TSAR_ERR_STATE during a pass. */
int tsar_set_time_per_iteration(tsar_region* region, int device, double seconds);

/** Back-off: an accelerator slower per iteration than the slowest CPU device for `passes`
 * passes in a row (chunk schedules: running fewer iterations than it) is retired for the
 * region and its worker becomes a CPU worker on its control core.
 * @param passes 0 disables back-off; the default is 2.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_INVALID for negative passes; TSAR_ERR_STATE
 *   during a pass. */
int tsar_set_backoff(tsar_region* region, int passes);

/** Writes the region's schedule as text ("split:10") to buf, NUL-terminated.
 * @return TSAR_OK; TSAR_ERR_NULL when region or buf is NULL; TSAR_ERR_INVALID when size is
 *   too small for the text (buf unchanged). */
int tsar_get_schedule(const tsar_region* region, char* buf, size_t size);

/** @} */

/** @defgroup tsar_pool Running passes with TSAR's worker pool
 * tsar_run hands each device's ranges of a pass to a body on the device's worker thread.
 * @{ */

/** One range handed to a body. Members are only ever appended (the ABI of older programs
 * stays valid). */
typedef struct tsar_chunk {
  int64_t begin;       /**< first iteration */
  int64_t end;         /**< one past the last iteration */
  int worker;          /**< device index in the region */
  unsigned kind;       /**< TSAR_DEVICE_* of the device */
  int device_id;       /**< tsar_device_info.id */
  int omp_device;      /**< OpenMP device number for target regions, -1 for host devices */
  void* stream;        /**< CUDA stream of the device, NULL for others */
  tsar_region* region; /**< the region running the chunk: for tsar_mem, tsar_reduction,
                            tsar_cancel from the body without passing it through arg */
} tsar_chunk;

/** A body: runs the iterations [chunk->begin, chunk->end) on the chunk's device. */
typedef void (*tsar_body_fn)(const tsar_chunk* chunk, void* arg);

/** Runs one pass of n iterations: body(chunk, arg) on each device's worker for each of its
 * ranges, then the end-of-pass work (learning the times, merging reductions, statistics).
 * The calling thread is device 0's worker, pinned to its CPUs for the call unless the program
 * bound it to exactly those: after the call its mask is what it was. Concurrent calls on one device
 * set run one after the other; the pool stays usable after any failure.
 * @param n iterations, 0 <= n <= 2^60.
 * @return TSAR_OK; TSAR_ERR_NULL when region or body is NULL; TSAR_ERR_INVALID for a bad n or
 *   registered buffers too small for it (refused before anything runs); TSAR_ERR_STATE from
 *   inside a body of the same device set, or while the region runs a pass;
 *   TSAR_ERR_CANCELED when a body called tsar_cancel; TSAR_ERR_SYSTEM (or the failing
 *   device's status) when a device failed during the pass (allocation, copy, launch). */
int tsar_run(tsar_region* region, int64_t n, tsar_body_fn body, void* arg);

/** tsar_run over iterations [first, end): chunk->begin and chunk->end are absolute iteration
 * numbers and iteration i uses row (column) i of each registered buffer, so a stencil runs
 * over the interior rows 1..n-2 of a grid registered whole -- and the rows it does not run
 * (and a write-only output's other cells) stay as the host has them.
 * @return as tsar_run; TSAR_ERR_INVALID for first < 0, end < first, end - first > 2^60, or
 *   registered buffers too small for end. */
int tsar_run_range(tsar_region* region, int64_t first, int64_t end, tsar_body_fn body, void* arg);

/** Stops handing out work in the current pass (callable from a body): running ranges finish,
 * no new chunk or sub-pass starts, no reduction is merged, no time is learned, and the pass
 * ends with TSAR_ERR_CANCELED from tsar_run (tsar_last_status after tsar_loop).
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_STATE outside a pass. */
int tsar_cancel(tsar_region* region);

/** @} */

/** @defgroup tsar_thesis Running passes inside the caller's OpenMP team
 * Thesis style, from C or Fortran OpenMP: thread t of an OpenMP team of exactly
 * tsar_num_devices(region) threads is the worker of device t, pinned to its device's CPUs for
 * the pass (after tsar_loop returned 0 a thread's mask is what it was; a thread the program
 * bound to exactly its device's CPUs, with OMP_PROC_BIND/OMP_PLACES, is left alone):
 *
 *     #pragma omp parallel num_threads(tsar_num_devices(r))
 *     do {
 *       int64_t b, e;
 *       tsar_next(r, n, &b, &e);
 *       for (int64_t i = b; i < e; ++i) body(i);
 *     } while (tsar_loop(r));
 *
 * A team of the wrong size gets TSAR_ERR_THREADS on every thread (nobody waits for missing
 * workers).
 * @{ */

/** Begins the calling worker's part of a pass of n iterations (the first call of the pass
 * computes the split) and returns the caller's range [*begin, *end), possibly empty. Under
 * chunk and split schedules the do/while loop runs once per chunk or sub-pass, and the range
 * is the current one. All workers must pass the same n, 0 <= n <= 2^60. On an error the range
 * is empty and tsar_loop still must be called.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_THREADS when the caller is no worker of the region;
 *   TSAR_ERR_INVALID for a bad n or registered buffers too small for it; TSAR_ERR_SYSTEM when
 *   planning ran out of memory. */
int tsar_next(tsar_region* region, int64_t n, int64_t* begin, int64_t* end);

/** tsar_next for a pass over iterations [first, end): a loop that starts inside its buffers
 * -- the interior rows 1..n-2 of a grid -- with iteration i using row (column) i of each
 * registered buffer. Ranges are absolute iteration numbers.
 * @return as tsar_next; TSAR_ERR_INVALID for first < 0, end < first or end - first > 2^60. */
int tsar_next_range(tsar_region* region, int64_t first, int64_t end, int64_t* begin,
                    int64_t* end_out);

/** The do/while condition after the caller's range: times it, and either hands the caller
 * another chunk or sub-pass, or waits for all workers at the end of the pass, where the last
 * to arrive adapts the split, merges reductions and records statistics.
 * @return 1 when the caller has another range (call tsar_next's range again); 0 at the end
 *   of the pass, and on misuse with tsar_last_status() set (TSAR_ERR_NULL, TSAR_ERR_THREADS),
 *   or TSAR_ERR_CANCELED there when the pass was canceled. */
int tsar_loop(tsar_region* region);

/** @return the kind (TSAR_DEVICE_*) of the calling worker's device; 0 when the caller is no
 *   worker (tsar_last_status TSAR_ERR_THREADS, or TSAR_ERR_NULL). */
unsigned tsar_get_type(const tsar_region* region);

/** @return the kind-specific id of the calling worker's device (tsar_device_info.id); -1 when
 *   the caller is no worker. */
int tsar_get_device(const tsar_region* region);

/** @return the index of the calling worker's device in the region (0 ..
 *   tsar_num_devices-1); -1 when the caller is no worker. */
int tsar_get_worker(const tsar_region* region);

/** The CUDA stream (cudaStream_t) of the calling worker's device, on which its bodies launch
 * their kernels (tsar_chunk.stream of the callback style). Valid after tsar_next gave the
 * worker a range.
 * @return the stream; NULL on other devices and when the caller is no worker. */
void* tsar_get_stream(const tsar_region* region);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSAR_REGION_H */
