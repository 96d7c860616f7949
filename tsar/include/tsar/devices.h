/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tsar/devices.h
 * Device kinds and the device list regions are created with. Part of tsar.h. */
#ifndef TSAR_DEVICES_H
#define TSAR_DEVICES_H

#include "tsar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup tsar_devices Devices
 * A device is a CPU core, a team of cores, or an accelerator; a region has one worker thread
 * per device. The device list applies to regions created after it is set.
 * @{ */

/** Device kinds, combined as masks for a region's allowed devices. */
enum {
  TSAR_DEVICE_CPU = 1u,        /**< a CPU core, or a team of cores (a NUMA place) */
  TSAR_DEVICE_OMP_TARGET = 2u, /**< an OpenMP target device (omp_target_alloc/memcpy) */
  TSAR_DEVICE_CUDA = 4u,       /**< a CUDA device driven through streams */
  TSAR_DEVICE_EMULATED = 8u,   /**< accelerator stand-in: runs host code on its control core */
  TSAR_DEVICE_ACCEL = 14u,     /**< every accelerator kind */
  TSAR_DEVICE_ALL = 15u        /**< every kind */
};

/** What a region's device is (tsar_get_device_info). */
typedef struct tsar_device_info {
  unsigned kind;      /**< one TSAR_DEVICE_* bit */
  int id;             /**< CPU: its first Linux CPU; OpenMP target: device number; CUDA: ordinal */
  int numa_node;      /**< logical NUMA node it is closest to, -1 when unknown */
  int control_core;   /**< logical core its worker thread is pinned to */
  int num_cores;      /**< cores it computes on: 1 for a core, the team's cores for a team */
  int omp_device;     /**< OpenMP device number for target regions, -1 for host devices */
  int retired;        /**< 1 when back-off took it out of the region */
  double peak_gflops; /**< the peak estimate behind the default split */
  char key[32];       /**< stable name: "cpu:3", "place:0", "omp:1", "cuda:0", "emul:0" */
  int control_cpu;    /**< first Linux CPU (as taskset numbers it) its worker is pinned to,
                           one of control_core's; -1 when unknown */
} tsar_device_info;

/** Sets the devices of regions created from now on (existing regions keep theirs).
 * @param spec a comma-separated device list, or NULL for the default: TSAR_DEVICES when set,
 *   else the process's CPUs -- the calling thread's affinity mask (taskset, mpiexec -bind-to,
 *   Slurm), narrowed by OMP_PLACES / OMP_NUM_THREADS when set (the README, "Which CPUs"),
 *   one CPU device per core of them, less one control core per GPU (see tsar_set_gpu_cores)
 *   -- then every GPU as an OpenMP target device, then every GPU as a CUDA device.
 *   CPUs and NUMA nodes are Linux numbers (as taskset and OMP_PLACES write them); logical
 *   (hwloc) indices take the prefix `L:` (`cpu:L:0-3`). Entries:
 *   - `cpu:N`, `cpu:N-M`: a CPU device per CPU, bound to it; `cpu:L:N-M` one per logical
 *     core, bound to all its CPUs. A CPU may be listed twice (two workers on one CPU: tests
 *     of many devices on small machines)
 *   - `cpu:all`: one CPU device per core of the process's CPUs
 *   - `place:N`: one CPU device for the process's CPUs of NUMA node N (a team)
 *   - `team:N-M`, `team:all`: one CPU device for CPUs N..M, or for the default list's CPUs
 *     (GPU control cores left out): a team whose bodies spread each range over its cores
 *     (tsar_device_info.num_cores), e.g. with
 *     `#pragma omp parallel for schedule(dynamic) num_threads(num_cores)`
 *   - `emul:N`: an emulated accelerator whose worker is bound to CPU N
 *   - `omp:N[@C]`: OpenMP target device N (a GPU under nvptx offloading); its worker runs on
 *     a core of the process's near the GPU, or on CPU C; `omp:all` every OpenMP target device
 *   - `omphost:C`: the host's initial OpenMP device as an accelerator, worker on CPU C:
 *     separate allocations and real copies (the GPU memory path, without GPU)
 *   - `cuda:N[@C]`: CUDA device N (builds with TSAR_CUDA); `cuda:all` every CUDA device
 *
 *   A region never takes two devices driving one GPU (an OpenMP and a CUDA device of it): the
 *   first one its kinds allow wins.
 * @return TSAR_OK; TSAR_ERR_DEVICES for a bad entry (the message names it) or a device that
 *   does not exist, and nothing changes; TSAR_ERR_SYSTEM when a device could not be set up. */
int tsar_set_devices(const char* spec);

/** What the default device list does with the core that drives each GPU. */
enum {
  TSAR_GPU_CORES_RESERVE = 0, /**< the GPU's worker has the core to itself (the default) */
  TSAR_GPU_CORES_SHARE = 1    /**< a CPU device computes on it as well */
};

/** Sets the GPU control core policy (overriding TSAR_GPU_CORES=reserve|share) and rebuilds
 * the default device list with it for regions created from now on, as tsar_set_devices(NULL)
 * does. Each GPU's control core is the highest-numbered free core of the process's CPUs
 * on its NUMA node, else of the process's CPUs (thesis 6.4.1).
 * @param policy TSAR_GPU_CORES_RESERVE or TSAR_GPU_CORES_SHARE.
 * @return TSAR_OK; TSAR_ERR_INVALID for another policy; TSAR_ERR_DEVICES when TSAR_DEVICES
 *   holds a bad list; TSAR_ERR_SYSTEM when a device could not be set up. */
int tsar_set_gpu_cores(int policy);

/** How many devices a region allowed `kinds` would get now.
 * @param kinds TSAR_DEVICE_* mask; 0 means TSAR_DEVICE_ALL.
 * @param[out] count the number of devices.
 * @return TSAR_OK; TSAR_ERR_NULL when count is NULL; TSAR_ERR_DEVICES when TSAR_DEVICES holds
 *   a bad list. */
int tsar_count_devices(unsigned kinds, int* count);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSAR_DEVICES_H */
