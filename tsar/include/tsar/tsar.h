/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tsar/tsar.h
 * TSAR, the Task-Size Adapting Runtime: one loop split across every CPU core and accelerator
 * of a node, each device's share learned while the program runs. This header includes every
 * topic header of the C API:
 *
 * | header            | topic                                                         |
 * |-------------------|---------------------------------------------------------------|
 * | tsar/status.h     | status codes, tsar_last_error                                 |
 * | tsar/version.h    | TSAR_VERSION macros, tsar_version()                           |
 * | tsar/devices.h    | device kinds, the device list (tsar_set_devices)              |
 * | tsar/region.h     | regions, tsar_run, the chunk a body gets, tsar_next/tsar_loop |
 * | tsar/memory.h     | registered buffers and their movement to accelerators         |
 * | tsar/data.h       | data environments: buffers resident on devices across regions |
 * | tsar/reduction.h  | reductions                                                    |
 * | tsar/stats.h      | per-pass statistics, traces                                   |
 * | tsar/partition.h  | NUMA partitions (AffinityTSAR)                                |
 *
 * C++ programs use tsar/tsar.hpp.
 *
 * @section tsar_model Model
 * A *region* is a loop of n iterations [0, n) that the program runs many times; each run is a
 * *pass*. TSAR gives every device of the region one worker thread (its own threads pinned to
 * the device's cores; the program's threads keep the CPU masks the program gave them after
 * each call), splits each pass between them with a schedule, times each device and
 * adapts the split (thesis ch. 4-5). Every call returns a tsar_status unless its comment
 * says otherwise; on an error, tsar_last_error() tells what was wrong.
 *
 * @section tsar_schedules Schedules
 * Set by TSAR_SCHEDULE or the schedule argument, like OMP_SCHEDULE:
 * - `static`: split by default times per iteration, once (thesis 4.3.2)
 * - `adaptive`: first pass static, then the split that equalises predicted finish times
 * - `split[:div]`: every pass in div sub-passes, adapting after each (default div 10)
 * - `quick[:div]`: first pass: a 1/div training sub-pass, then the rest; then adaptive
 * - `chunk[:size]`: chunks of one size from a fetch-and-add ticket queue (OpenMP dynamic)
 * - `chunk-static[:size]`: chunk size per device, scaled by its default speed
 * - `chunk-dynamic[:size]`: per-device chunk sizes adapted to measured speed as chunks finish
 * - `hybrid[:size]`: first pass chunk-dynamic, then adaptive
 * - `hguided`: heterogeneous guided (chunk = remaining * device share / 2), a baseline
 *
 * @section tsar_environment Environment
 * - TSAR_SCHEDULE: the schedule when the API gives none
 * - TSAR_DEVICES: the device list (see tsar_set_devices); without it, a CPU device per core of
 *   the process's affinity mask, or of OMP_PLACES's places, the first OMP_NUM_THREADS of them
 *   when that is set (tsar/README.md, "Which CPUs the default devices use")
 * - TSAR_CACHE: file of learned times per region name and device set
 * - TSAR_TRACE: per-pass statistics, CSV when the name ends in .csv, else JSON lines; passes
 *   are queued and written when 4096 are waiting, at a region's end and at exit, so a traced
 *   pass runs almost as fast as an untraced one (formatting waits for those points). JSON
 *   traces also hold a line for each participation trial decided, {"region", "pass",
 *   "trial": {"unit", "way": "out"|"back in", "switched", "why", "rounds",
 *   "baseline_rounds", "u", "critical_u"}}, after the pass that decided it
 * - TSAR_GPU_CORES: reserve|share (see tsar_set_gpu_cores)
 * - TSAR_DEVICE_MEMORY_LIMIT: most bytes TSAR allocates on an accelerator: "256M" for all,
 *   "cuda:1=2G,omphost:0=1M" per device; K/M/G suffixes (for tests of running out of device
 *   memory)
 * - TSAR_LINK_BANDWIDTH: bytes per second of accelerators' links in the same syntax, for the
 *   cost of moving data when the split changes and of probing an accelerator (default:
 *   measured by one copy)
 * - TSAR_ACCEL_STEAL: 0 keeps each accelerator to its own range; 1 (the default) lets one
 *   whose range is done take over pieces of the CPU cores' ranges that pay for their copies
 *   (tsar/README.md, "The default device model"); read when a region is made
 * - TSAR_TRIALS: 0 keeps every device the split gives rows in the pass; 1 (the default) lets a
 *   region try its passes without the unit of fewest rows (an accelerator, or the cores
 *   together) and keep it out while they run faster so (tsar/README.md, "The default device
 *   model"); read when a region is made
 * - TSAR_CHECK: 1 checks before each pass that the program did not change on the host the
 *   rows of a registered buffer that a device holds -- a change needs tsar_mem_invalidate or
 *   tsar_data_update_device -- and refuses the pass with TSAR_ERR_STATE naming the buffer,
 *   rows and device; and after each accelerator range that the loop wrote every element of
 *   a TSAR_MEM_OVERWRITE output's rows or columns there, failing the pass with
 *   TSAR_ERR_STATE naming the first element it left (before anything is copied back); read
 *   when a region or data environment is made; costs hashing those rows twice a pass and
 *   filling and reading back overwritten outputs
 *
 * @section tsar_accelerators Accelerators
 * An OpenMP target device's body offloads its range itself, with pointers from tsar_mem
 * (they are device pointers there):
 *
 *     if (chunk->kind == TSAR_DEVICE_CPU) { for (i = b; i < e; ++i) body(i); } else {
 *       #pragma omp target teams distribute parallel for simd device(chunk->omp_device) \
 *               is_device_ptr(x, y)
 *       for (int64_t i = b; i < e; ++i) body(i);
 *     }
 *
 * A CUDA device's body launches kernels on chunk->stream (ordered after TSAR's copies in and
 * before its copies out; TSAR waits for the stream before the range counts as done). Any
 * accelerator may turn into a CPU worker (back-off, or out of device memory), so bodies
 * handle TSAR_DEVICE_CPU too.
 */
#ifndef TSAR_TSAR_H
#define TSAR_TSAR_H

#include "tsar/data.h"
#include "tsar/devices.h"
#include "tsar/memory.h"
#include "tsar/partition.h"
#include "tsar/reduction.h"
#include "tsar/region.h"
#include "tsar/stats.h"
#include "tsar/status.h"
#include "tsar/version.h"

#endif /* TSAR_TSAR_H */
