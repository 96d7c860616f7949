// SPDX-License-Identifier: BSD-3-Clause
/*
 * tsar.h - TSAR, the Task-Size Adapting Runtime: one loop split across every CPU core and
 * accelerator of a node, each device's share learned while the program runs.
 *
 * A *region* is a loop of n iterations [0, n) that the program runs many times; each run is a
 * *pass*. TSAR gives every device of the region one worker thread (pinned to the device's
 * core), splits each pass between them with a schedule, times each device and adapts the split
 * (thesis ch. 4-5). Every call returns a tsar_status unless its comment says otherwise; on an
 * error, tsar_last_error() tells what was wrong.
 *
 * Two ways to run a region:
 *  1. Callback: tsar_run(region, n, body, arg). TSAR's persistent worker pool runs the pass;
 *     the calling thread is the worker of device 0.
 *  2. Thesis style, from C or Fortran OpenMP: thread t of an OpenMP team of exactly
 *     tsar_num_devices(region) threads is the worker of device t (TSAR pins it):
 *
 *       #pragma omp parallel num_threads(tsar_num_devices(r))
 *       do {
 *         int64_t b, e;
 *         tsar_next(r, n, &b, &e);
 *         for (int64_t i = b; i < e; ++i) body(i);
 *       } while (tsar_loop(r));
 *
 * Schedules (TSAR_SCHEDULE or the schedule argument, like OMP_SCHEDULE):
 *   static         split by default times per iteration, once (thesis 4.3.2)
 *   adaptive       first pass static, then the split that equalises predicted finish times
 *   split[:div]    every pass in div sub-passes, adapting after each (default div 10)
 *   quick[:div]    first pass: a 1/div training sub-pass, then the rest; then adaptive
 *   chunk[:size]   chunks of one size from a fetch-and-add ticket queue (OpenMP dynamic)
 *   chunk-static[:size]   chunk size per device, scaled by its default speed
 *   chunk-dynamic[:size]  per-device chunk sizes adapted to measured speed as chunks finish
 *   hybrid[:size]  first pass chunk-dynamic, then adaptive
 *   hguided        heterogeneous guided (chunk = remaining * device share / 2), a baseline
 *
 * Environment: TSAR_SCHEDULE (schedule when the API gives none), TSAR_DEVICES (device list,
 * see tsar_set_devices), TSAR_CACHE (file of learned times per region name and device set),
 * TSAR_TRACE (per-pass statistics, CSV when the name ends in .csv, else JSON lines),
 * TSAR_GPU_CORES (reserve|share, see tsar_set_gpu_cores), TSAR_DEVICE_MEMORY_LIMIT (most
 * bytes TSAR allocates on an accelerator: "256M" for all, "cuda:1=2G,omphost:0=1M" per
 * device; K/M/G suffixes; for tests of running out of device memory), TSAR_LINK_BANDWIDTH
 * (bytes per second of accelerators' links in the same syntax, for the cost of moving data
 * when the split changes and of probing an accelerator; default: measured by one copy),
 * TSAR_CHECK (1: before each pass, check that the program did not change on the host the
 * rows of a registered buffer that a device holds -- a change needs tsar_mem_invalidate or
 * tsar_data_update_device -- and refuse the pass with TSAR_ERR_STATE naming the buffer,
 * rows and device; read when a region or data environment is made; costs hashing those
 * rows twice a pass).
 *
 * Accelerators. An OpenMP target device's body offloads its range itself, with pointers
 * from tsar_mem (they are device pointers there):
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

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------- */
/* Status codes                                                                               */

typedef enum tsar_status {
  TSAR_OK = 0,
  TSAR_ERR_NULL = 1,        /* a required pointer argument is NULL */
  TSAR_ERR_INVALID = 2,     /* an argument is out of range (negative size, bad flags...) */
  TSAR_ERR_SCHEDULE = 3,    /* unknown schedule name or bad schedule parameter */
  TSAR_ERR_DEVICES = 4,     /* no device of the allowed kinds, or a bad device list */
  TSAR_ERR_REGISTERED = 5,  /* buffer or reduction already registered (or overlapping one) */
  TSAR_ERR_UNKNOWN = 6,     /* buffer or reduction not registered with this region */
  TSAR_ERR_THREADS = 7,     /* called from a thread that is not a worker of the region */
  TSAR_ERR_STATE = 8,       /* not allowed now (e.g. registering memory during a pass) */
  TSAR_ERR_CANCELED = 9,    /* the pass was canceled (tsar_cancel or a failing body) */
  TSAR_ERR_IO = 10,         /* cache or trace file could not be read or written */
  TSAR_ERR_SYSTEM = 11,     /* out of memory, thread creation or binding failed */
  TSAR_ERR_UNSUPPORTED = 12 /* the device kind cannot do this in this build */
} tsar_status;

/* Static description of a status code ("invalid argument"); never NULL. */
const char* tsar_status_string(int status);
/* The message of the last failing TSAR call in the calling thread, naming what was wrong;
 * "" when none failed. Valid until the thread's next failing call. */
const char* tsar_last_error(void);
/* The status of the last failing TSAR call in the calling thread (TSAR_OK when none). Calls
 * that do not return a status (tsar_loop, tsar_mem, ...) set it too. */
int tsar_last_status(void);

/* ---------------------------------------------------------------------------------------- */
/* Devices                                                                                    */

/* Device kinds, combined as masks for a region's allowed devices. */
enum {
  TSAR_DEVICE_CPU = 1u,        /* a CPU core, or a team of cores (a NUMA place) */
  TSAR_DEVICE_OMP_TARGET = 2u, /* an OpenMP target device (omp_target_alloc/memcpy) */
  TSAR_DEVICE_CUDA = 4u,       /* a CUDA device driven through streams */
  TSAR_DEVICE_EMULATED = 8u,   /* accelerator stand-in: runs host code on its control core */
  TSAR_DEVICE_ACCEL = 14u,     /* every accelerator kind */
  TSAR_DEVICE_ALL = 15u
};

/* What a region's device is. */
typedef struct tsar_device_info {
  unsigned kind;      /* one TSAR_DEVICE_* bit */
  int id;             /* CPU: first logical core; OpenMP target: device number; CUDA: ordinal */
  int numa_node;      /* logical NUMA node it is closest to, -1 when unknown */
  int control_core;   /* logical core its worker thread is pinned to */
  int num_cores;      /* cores it computes on: 1 for a core, the team size for a place */
  int omp_device;     /* OpenMP device number for target regions, -1 for host devices */
  int retired;        /* 1 when back-off took it out of the region */
  double peak_gflops; /* the peak estimate behind the default split */
  char key[32];       /* stable name: "cpu:3", "place:0", "omp:1", "cuda:0", "emul:0" */
} tsar_device_info;

/* Sets the devices of regions initialised from now on (existing regions keep theirs).
 * spec is a comma-separated list; NULL restores the default (TSAR_DEVICES, else every
 * allowed core of this node -- less one control core per GPU, see tsar_set_gpu_cores --
 * then every GPU as an OpenMP target device, then every GPU as a CUDA device):
 *   cpu:N | cpu:N-M   a CPU device per core (logical index); a core may be listed twice
 *                     (two workers on one core: tests of many devices on small machines)
 *   cpu:all           one CPU device per allowed core
 *   place:N           one CPU device for all cores of NUMA node N (a team)
 *   team:N-M | team:all  one CPU device for cores N..M, or for the default list's cores
 *                     (GPU control cores left out): a team whose bodies spread each range
 *                     over its cores (tsar_device_info.num_cores), e.g. with
 *                     #pragma omp parallel for schedule(dynamic) num_threads(num_cores)
 *   emul:N            an emulated accelerator whose worker is pinned to core N
 *   omp:N[@C]         OpenMP target device N (a GPU under nvptx offloading); its worker runs
 *                     on a core near the GPU, or on core C
 *   omp:all           every OpenMP target device
 *   omphost:C         the host's initial OpenMP device as an accelerator, worker on core C:
 *                     separate allocations and real copies (the GPU memory path, without GPU)
 *   cuda:N[@C]        CUDA device N (builds with TSAR_CUDA); cuda:all every CUDA device
 * A region never takes two devices driving one GPU (an OpenMP and a CUDA device of it): the
 * first one its kinds allow wins. Fails with TSAR_ERR_DEVICES (naming the bad entry) and
 * changes nothing on a bad spec. */
int tsar_set_devices(const char* spec);

/* What the default device list does with the core that drives each GPU. */
enum {
  TSAR_GPU_CORES_RESERVE = 0, /* the GPU's worker has the core to itself (the default) */
  TSAR_GPU_CORES_SHARE = 1    /* a CPU device computes on it as well */
};
/* Sets the GPU control core policy (overriding TSAR_GPU_CORES=reserve|share) and rebuilds
 * the default device list with it for regions initialised from now on, as
 * tsar_set_devices(NULL) does. Each GPU's control core is the highest-numbered free core of
 * its NUMA node (thesis 6.4.1). */
int tsar_set_gpu_cores(int policy);
/* Number of devices a region allowed `kinds` would get now, in *count. */
int tsar_count_devices(unsigned kinds, int* count);

/* ---------------------------------------------------------------------------------------- */
/* Regions                                                                                    */

typedef struct tsar_region tsar_region;

/* Creates a region in *region.
 *  name      key of the learned-times cache and of the trace; NULL = "region"
 *  schedule  a schedule (see above); NULL or "" = TSAR_SCHEDULE, else "adaptive"
 *  device_kinds  TSAR_DEVICE_* mask of the kinds it may use; 0 = TSAR_DEVICE_ALL
 *  time_per_iteration  NULL, or num_times initial seconds per iteration, one per device in
 *            region order (tsar_count_devices tells how many); 0 entries mean "unknown".
 *            Precedence of defaults: these values, then TSAR_CACHE, then device peaks.
 *  div       sub-passes of split/quick; 0 = the schedule's ":div" or 10
 * On failure *region is NULL. */
int tsar_init(tsar_region** region, const char* name, const char* schedule, unsigned device_kinds,
              const double* time_per_iteration, int num_times, int div);
/* Saves learned times (TSAR_CACHE), flushes the trace, frees the region and its
 * registrations. NULL is accepted. Fails with TSAR_ERR_STATE during a pass. */
int tsar_free(tsar_region* region);

/* Number of devices (= workers) of the region; 0 for NULL. */
int tsar_num_devices(const tsar_region* region);
/* Description of device `device` (0 .. tsar_num_devices-1). */
int tsar_get_device_info(const tsar_region* region, int device, tsar_device_info* info);
/* Initial seconds per iteration of one device, used until it is measured. */
int tsar_set_time_per_iteration(tsar_region* region, int device, double seconds);
/* Back-off: an accelerator slower per iteration than the slowest CPU device for `passes`
 * passes in a row (chunk schedules: running fewer iterations than it) is retired for the
 * region and its worker becomes a CPU worker on its control core. 0 disables; default 2. */
int tsar_set_backoff(tsar_region* region, int passes);
/* The region's schedule as text ("split:10"), written to buf (at most size bytes). */
int tsar_get_schedule(const tsar_region* region, char* buf, size_t size);

/* ---------------------------------------------------------------------------------------- */
/* Running passes, thesis style (inside the caller's OpenMP team)                            */

/* Begins the calling worker's part of a pass of n iterations, 0 <= n <= 2^60 (the first
 * call of the pass computes the split) and returns the caller's range [*begin, *end),
 * possibly empty. Under chunk and split schedules, the do/while loop runs once per chunk or
 * sub-pass, and the range is the current one. All workers must pass the same n. On an
 * error the range is empty and tsar_loop still must be called. */
int tsar_next(tsar_region* region, int64_t n, int64_t* begin, int64_t* end);
/* tsar_next for a pass over iterations [first, end) (0 <= first <= end, end - first <=
 * 2^60): a loop that starts inside its buffers -- the interior rows 1..n-2 of a grid -- with
 * iteration i using row (column) i of each registered buffer. Ranges are absolute
 * iteration numbers. Returns TSAR_ERR_INVALID for end < first. */
int tsar_next_range(tsar_region* region, int64_t first, int64_t end, int64_t* begin,
                    int64_t* end_out);
/* The do/while condition after the caller's range: times it, and either hands the caller
 * another chunk/sub-pass (returns 1) or waits for all workers at the end of the pass, where
 * worker 0, once all have arrived, adapts the split, merges reductions and records
 * statistics (returns 0).
 * Returns 0 with tsar_last_status() set on misuse. */
int tsar_loop(tsar_region* region);
/* Kind (TSAR_DEVICE_*) of the calling worker's device; 0 when the caller is no worker. */
unsigned tsar_get_type(const tsar_region* region);
/* Kind-specific id of the calling worker's device (tsar_device_info.id); -1 when none. */
int tsar_get_device(const tsar_region* region);
/* Index of the calling worker's device in the region (0 .. tsar_num_devices-1); -1 when none. */
int tsar_get_worker(const tsar_region* region);
/* The CUDA stream (cudaStream_t) of the calling worker's device, on which its bodies launch
 * their kernels (tsar_chunk.stream of the callback style); NULL on other devices and when
 * the caller is no worker. Valid after tsar_next gave the worker a range. */
void* tsar_get_stream(const tsar_region* region);
/* Stops handing out work in the current pass (callable from a body): running ranges finish,
 * no new chunk or sub-pass starts, no reduction is merged, no time is learned, and the pass
 * ends with TSAR_ERR_CANCELED from tsar_run (tsar_last_status after tsar_loop). */
int tsar_cancel(tsar_region* region);

/* ---------------------------------------------------------------------------------------- */
/* Running passes with TSAR's worker pool                                                    */

/* One range handed to a body. */
typedef struct tsar_chunk {
  int64_t begin;  /* first iteration */
  int64_t end;    /* one past the last iteration */
  int worker;     /* device index in the region */
  unsigned kind;  /* TSAR_DEVICE_* of the device */
  int device_id;  /* tsar_device_info.id */
  int omp_device; /* OpenMP device number for target regions, -1 for host devices */
  void* stream;   /* CUDA stream of the device, NULL for others */
} tsar_chunk;

typedef void (*tsar_body_fn)(const tsar_chunk* chunk, void* arg);

/* Runs one pass of n iterations (0 <= n <= 2^60; a bad n, or registered buffers too small
 * for it, refuses the pass before anything runs): body(chunk, arg) on each device's worker
 * for each of its
 * ranges, then the end-of-pass work of tsar_loop. The calling thread is device 0's worker
 * and stays pinned to its core. Returns TSAR_ERR_CANCELED when a body called tsar_cancel;
 * the pool stays usable. Concurrent calls on one device set run one after the other; a
 * call from inside a body fails with TSAR_ERR_STATE. */
int tsar_run(tsar_region* region, int64_t n, tsar_body_fn body, void* arg);
/* tsar_run over iterations [first, end): chunk->begin and chunk->end are absolute iteration
 * numbers and iteration i uses row (column) i of each registered buffer, so a stencil runs
 * over the interior rows 1..n-2 of a grid registered whole -- and the rows it does not run
 * (and a write-only output's other cells) stay as the host has them. Fails with
 * TSAR_ERR_INVALID for end < first, first < 0, or registered buffers too small for end. */
int tsar_run_range(tsar_region* region, int64_t first, int64_t end, tsar_body_fn body,
                   void* arg);

/* ---------------------------------------------------------------------------------------- */
/* Memory association (thesis 5.3.3, 5.4.2-5.4.4)                                            */

/* Direction and handling flags of a registered buffer. */
enum {
  TSAR_MEM_IN = 1u,  /* read by the loop: copied to devices before their ranges */
  TSAR_MEM_OUT = 2u, /* written by the loop: each device's part copied back */
  TSAR_MEM_INOUT = 3u,
  TSAR_MEM_PERSIST = 4u,  /* device copies stay between passes until unregistered */
  TSAR_MEM_PAD = 8u,       /* rows may be padded to the device's alignment (see layout) */
  TSAR_MEM_RESIDENT = 16u, /* outputs stay on the device that wrote them (see below) */
  TSAR_MEM_OVERWRITE = 32u /* the loop writes every element of an output's rows or columns:
                              its device copy need not start from the host's values */
};
/* On accelerators with their own memory (thesis 5.4.2-5.4.3), a device allocates and moves
 * only what its ranges need, halo included:
 *   FULL       the whole buffer (inputs only)
 *   ROWS       its rows, one allocation; tsar_mem gives an offset pointer indexed like the
 *              host buffer (unless TSAR_MEM_PAD changed the row stride)
 *   COLS       its columns, packed into rows of its own width: index through the layout
 *   ROWS_COLS  the whole matrix is allocated (rows and columns make a plus sign); outputs
 *              are merged back element by element where the device changed them
 * IN parts are copied in before a device's range, OUT parts (its own rows or columns, no
 * halo) copied back after it. An output's copy starts from the host's values of those rows
 * or columns, so elements the loop does not write (a stencil's fixed boundary, say) come
 * back unchanged; with TSAR_MEM_OVERWRITE -- the loop writes every element of its rows or
 * columns, as a matrix product does -- that copy-in is left out and the device's values
 * start as anything. Each pass copies again, except with TSAR_MEM_PERSIST: then a
 * device keeps its copy and moves in only the rows or columns that other devices (or CPU
 * workers) wrote since it last had them. Host changes between passes to a persistent input
 * must be announced with tsar_mem_invalidate. Bytes moved are in tsar_device_stats.
 *
 * TSAR_MEM_RESIDENT (a persistent ROWS output) keeps a device's rows on the device instead
 * of copying them back after its range: the host buffer is stale there until the rows move.
 * They move only when another device or CPU worker reads them -- before each pass TSAR
 * writes back the resident rows that another worker's range, halo included, reads (a
 * stencil's boundary rows; under chunk schedules every resident row of an input) -- and
 * when the program needs the host buffer: tsar_mem_sync, tsar_unreg_mem, tsar_retarget_mem
 * and tsar_free write them back; tsar_mem_invalidate drops them (the host wins). A
 * double-buffered stencil (swap a RESIDENT output with its persistent input each pass) then
 * moves per pass only its halo rows in and its boundary rows out. */

/* How iterations select the part of a buffer a device needs. */
typedef enum tsar_assoc {
  TSAR_ASSOC_FULL = 0,     /* every device needs all of it (inputs only) */
  TSAR_ASSOC_ROWS = 1,     /* iteration i uses row i (1-D: element i) */
  TSAR_ASSOC_COLS = 2,     /* iteration j uses column j (packed on copying devices) */
  TSAR_ASSOC_ROWS_COLS = 3 /* iteration i uses row i and column i */
} tsar_assoc;

/* Shape and association of a buffer. A 1-D array is rows = count, cols = 1. */
typedef struct tsar_mem_desc {
  size_t elem_size;  /* bytes per element, > 0 */
  size_t rows;       /* rows, > 0 */
  size_t cols;       /* elements per row, > 0 */
  size_t row_stride; /* elements from one row start to the next (>= cols); 0 = cols */
  size_t halo;       /* extra rows (ROWS) or columns (COLS) each side, read-only input */
  int assoc;         /* tsar_assoc */
  unsigned flags;    /* TSAR_MEM_*; at least one of IN and OUT */
} tsar_mem_desc;

/* Where the calling worker's view of a buffer is: element (r, c) of the host buffer is at
 * base[(r - row_offset) * row_stride + (c - col_offset)] for the caller's rows/columns (and
 * their halo). On accelerators base is a device pointer. */
typedef struct tsar_mem_layout {
  void* base;
  size_t row_stride; /* elements, padded when TSAR_MEM_PAD and the device wants it */
  int64_t row_offset;
  int64_t col_offset;
} tsar_mem_layout;

/* Registers host buffer `host` with the region (outside passes). Fails with
 * TSAR_ERR_REGISTERED when `host` or any byte of it is already registered. */
int tsar_reg_mem_desc(tsar_region* region, void* host, const tsar_mem_desc* desc);
/* Shorthand: 1-D array of count elements (assoc ROWS = element i for iteration i). */
int tsar_reg_mem(tsar_region* region, void* host, size_t elem_size, size_t count, size_t halo,
                 int assoc, unsigned flags);
/* Shorthand: rows x cols matrix with row_stride elements per row (0 = cols). */
int tsar_reg_mem_2d(tsar_region* region, void* host, size_t elem_size, size_t rows, size_t cols,
                    size_t row_stride, size_t halo, int assoc, unsigned flags);
/* The calling worker's pointer for registered buffer `host`: base shifted by the layout's
 * offsets, so p[r * row_stride + c] is element (r, c) -- indexed like `host` wherever the
 * device keeps the host's row stride (1-D arrays, ROWS without padding). On host-memory
 * devices it is `host`; on accelerators a device pointer, valid after tsar_next gave the
 * worker a range. NULL (tsar_last_status set) when not registered, not called by a worker,
 * or the worker has no range yet. */
void* tsar_mem(const tsar_region* region, const void* host);
/* The calling worker's full view of a registered buffer. */
int tsar_mem_layout_get(const tsar_region* region, const void* host, tsar_mem_layout* layout);
/* Unregisters a buffer (outside passes); persistent device copies are freed. */
int tsar_unreg_mem(tsar_region* region, const void* host);
/* Moves the registration of `old_host` to `new_host` (same shape), e.g. to point it at the
 * next block of a stream of data. Device allocations are kept, their contents re-read. */
int tsar_retarget_mem(tsar_region* region, const void* old_host, void* new_host);
/* Exchanges the host buffers of two registrations of the same shape, association and
 * padding (outside passes), each keeping its flags and halo: the double buffering of a
 * stencil (register `cur` IN with a halo, `next` OUT, both PERSIST; swap after each pass).
 * Device copies follow their host buffer, so only what changed moves. Fails with
 * TSAR_ERR_UNKNOWN or TSAR_ERR_INVALID (different shapes). */
int tsar_swap_mem(tsar_region* region, const void* a, const void* b);
/* Tells the region that the program changed registered buffer `host` between passes:
 * persistent device copies of it are refreshed before their next use (resident rows not
 * synchronised are dropped). */
int tsar_mem_invalidate(tsar_region* region, const void* host);
/* Brings registered buffer `host` up to date on the host (outside passes): rows that devices
 * hold resident (TSAR_MEM_RESIDENT) are copied back; the devices keep their copies. Call it
 * before the program reads an output it registered resident. */
int tsar_mem_sync(tsar_region* region, const void* host);

/* ---------------------------------------------------------------------------------------- */
/* Reductions (thesis 5.4.4, OpenMP 4.0 declare reduction)                                   */

/* combine(inout, in, ctx): *inout = *inout (op) *in. */
typedef void (*tsar_combine_fn)(void* inout, const void* in, void* ctx);

/* Registers a reduction into `result` (size bytes): each worker gets a private accumulator
 * set to *identity at the start of each pass; at the end of a pass that was not canceled,
 * the accumulators are combined into *result in device order. On accelerators the
 * accumulator lives in device memory (the body's kernels combine into it there) and is
 * copied back before the combination.
 * Reset rule: TSAR never resets *result. Each pass combines into the value *result holds
 * when the pass ends, as OpenMP's reduction clause combines into the variable's original
 * value -- so over many passes *result accumulates every pass's total. For one pass's total,
 * set *result to the identity before the pass (in C++, `sum = 0;` before parallel_for). A
 * canceled or refused pass leaves *result as it was. `result` may not lie inside a
 * registered buffer (TSAR_ERR_REGISTERED). */
int tsar_reg_reduction(tsar_region* region, void* result, const void* identity, size_t size,
                       tsar_combine_fn combine, void* ctx);
/* The calling worker's accumulator for `result` (valid during a pass; a device pointer on
 * accelerators, once tsar_next gave the worker a range); NULL on error. */
void* tsar_reduction(const tsar_region* region, const void* result);
/* Unregisters a reduction (outside passes). */
int tsar_unreg_reduction(tsar_region* region, const void* result);

/* ---------------------------------------------------------------------------------------- */
/* Statistics                                                                                 */

/* tsar_pass_stats.cpu_sharing */
enum { TSAR_SHARE_OWN = 0, TSAR_SHARE_STEAL = 1, TSAR_SHARE_CHUNKS = 2 };

typedef struct tsar_pass_stats {
  int64_t pass;            /* 0-based pass number */
  int64_t n;               /* iterations of the pass */
  int sub_passes;          /* sub-passes run (split, quick) */
  int canceled;            /* 1 when the pass was canceled */
  double seconds;          /* from the split to the last worker's arrival */
  double schedule_seconds; /* spent computing splits and adapting */
  int cpu_sharing;         /* how the CPU cores shared the pass: TSAR_SHARE_OWN (each its own
                              range), TSAR_SHARE_STEAL (taking from each other's ranges when
                              out of work) or TSAR_SHARE_CHUNKS (chunks from one queue) */
} tsar_pass_stats;

typedef struct tsar_device_stats {
  int64_t iterations;        /* iterations the device ran in the pass */
  int64_t chunks;            /* ranges it ran */
  double busy_seconds;       /* time running them, its copies included */
  double idle_seconds;       /* time it waited at the end of (sub-)passes */
  double time_per_iteration; /* estimate after the pass (seconds), 0 when unknown */
  unsigned kind;             /* its kind during the pass */
  int retired;               /* 1 once back-off (or running out of memory) retired it */
  int64_t bytes_to_device;   /* bytes it copied from host to device memory in the pass */
  int64_t bytes_from_device; /* bytes it copied back */
} tsar_device_stats;

/* Passes run so far (the last 4096 are kept for tsar_get_pass_stats); -1 for NULL. */
int64_t tsar_num_passes(const tsar_region* region);
/* Statistics of pass `pass` (-1 = the last one): *stats, and per device up to `capacity`
 * entries of `devices` (NULL when capacity is 0). */
int tsar_get_pass_stats(const tsar_region* region, int64_t pass, tsar_pass_stats* stats,
                        tsar_device_stats* devices, int capacity);
/* Writes the kept statistics to `path`: CSV when it ends in ".csv", else JSON. */
int tsar_write_trace(const tsar_region* region, const char* path);

/* ---------------------------------------------------------------------------------------- */
/* NUMA partitions: data placement follows computation (AffinityTSAR, thesis ch. 6)          */
/*
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
 *   tsar_partition* p;
 *   tsar_partition_init(&p, "stencil", NULL, "adaptive", "adaptive", TSAR_DEVICE_CPU);
 *   tsar_partition_map_array(p, u, &rows_with_halo_1);
 *   tsar_set_mem_policy(p, TSAR_LEVEL_PLACES, TSAR_POLICY_MIGRATE);
 *   tsar_partition_run(p, rows, place_body, &args);   // place_body: steps, tsar_place_for,
 *                                                     // tsar_place_update(...NEARBY)
 */

typedef struct tsar_partition tsar_partition;
/* One place during a partition pass, handed to the place body. */
typedef struct tsar_place tsar_place;

/* Memory policies of a partition level (thesis 6.4.2). Pages move with move_pages(2) in
 * batches sized so that one call stalls the process for at most about 20 ms; only pages
 * wholly inside a buffer and touched by one place's part alone move (boundary pages stay). */
typedef enum tsar_mem_policy {
  TSAR_POLICY_COHERENT = 0,   /* leave placement to the OS (first touch) */
  TSAR_POLICY_INTERLEAVE = 1, /* every mapped buffer's pages round-robin over the nodes */
  TSAR_POLICY_MIGRATE = 2,    /* each place's part moved to its node; shared buffers stay */
  TSAR_POLICY_MIGRATE_INTERLEAVED = 3, /* migrate the partitioned, interleave the shared */
  TSAR_POLICY_REPLICATE = 4            /* per-place copies: inputs copied in, outputs merged back */
} tsar_mem_policy;

/* Partition levels. */
enum {
  TSAR_LEVEL_PLACES = 0, /* the outer split over places (NUMA nodes) */
  TSAR_LEVEL_DEVICES = 1 /* the inner split over the devices of a place */
};

/* What a place is. */
typedef struct tsar_place_info {
  int numa_node;     /* logical NUMA node its memory policies place data on */
  int os_node;       /* the Linux node number of it (numactl, /proc/<pid>/numa_maps) */
  int num_devices;   /* devices of its inner level */
  int num_cores;     /* cores of its devices */
  char devices[128]; /* its devices as a device list ("cpu:0,cpu:1"), truncated to fit */
} tsar_place_info;

/* Creates a partition in *part.
 *  name      key of the learned-times cache of its inner loops; NULL = "partition"
 *  places    NULL: one place per NUMA node with allowed cores, holding the devices of the
 *            current device set (tsar_set_devices / TSAR_DEVICES) on that node; else device
 *            lists separated by '|', one per place ("cpu:0-3|cpu:4-7", "place:0|place:1"),
 *            each place on the NUMA node of its first device
 *  outer_schedule  split over places: "static" or "adaptive" (the body runs once per place,
 *            so chunk and sub-pass schedules do not apply); NULL = "adaptive"
 *  inner_schedule  schedule of the inner loops (any, see above); NULL = TSAR_SCHEDULE, else
 *            "adaptive"
 *  device_kinds  TSAR_DEVICE_* mask of the devices places keep; 0 = TSAR_DEVICE_ALL. Default
 *            places left without a device are dropped; an explicit place without one fails.
 * On failure *part is NULL (TSAR_ERR_DEVICES names a bad places entry). */
int tsar_partition_init(tsar_partition** part, const char* name, const char* places,
                        const char* outer_schedule, const char* inner_schedule,
                        unsigned device_kinds);
/* Frees the partition, its inner loops and its per-place copies. NULL is accepted. Fails
 * with TSAR_ERR_STATE during a pass. */
int tsar_partition_free(tsar_partition* part);
/* Number of places; 0 for NULL. */
int tsar_partition_num_places(const tsar_partition* part);
/* Description of place `place` (0 .. tsar_partition_num_places-1). */
int tsar_partition_get_place_info(const tsar_partition* part, int place, tsar_place_info* info);

/* Sets the memory policy of a level (outside passes). TSAR_LEVEL_PLACES takes every policy
 * (default coherent); TSAR_LEVEL_DEVICES, whose devices share their place's node, takes
 * coherent only (TSAR_ERR_UNSUPPORTED otherwise). Takes effect at the next pass. */
int tsar_set_mem_policy(tsar_partition* part, int level, int policy);
/* Thesis bind_partition: the time that re-balances the places is the time of inner loop
 * `loop` (tsar_place_for's loop number) alone, summed over the pass, instead of the place
 * body's time less its waits at barriers and halo updates. -1 restores the default. */
int tsar_bind_partition(tsar_partition* part, int loop);
/* The outer split is recomputed every `passes` partition passes (default 1), so data placed
 * for it stays placed in between. A pass of another n always re-splits. */
int tsar_partition_set_rebalance(tsar_partition* part, int passes);

/* ---- associations -------------------------------------------------------------------- */

/* An array of up to three dimensions, outermost first, with explicit strides (a flat
 * buffer used as a matrix: dims 2, extent {rows, cols}, stride {row_stride, 1}). Iteration
 * i of the partition uses index i of dimension part_dim (and every index of the others). */
typedef struct tsar_array_desc {
  const char* name; /* named in messages and reports; NULL = its address */
  size_t elem_size; /* bytes per element, > 0 */
  int dims;         /* 1 .. 3 */
  size_t extent[3]; /* elements along each dimension, > 0 */
  size_t stride[3]; /* elements from one index to the next along each dimension; 0 = packed
                       (extent * stride of the next dimension, 1 for the last). An outer
                       stride must cover the dimension inside it (rows may not overlap). */
  int part_dim;     /* dimension the iteration indexes; -1: shared, not partitioned (inputs) */
  size_t halo;      /* indices of part_dim read each side of a part (stencil padding) */
  unsigned flags;   /* TSAR_MEM_IN and/or TSAR_MEM_OUT (outputs must be partitioned) */
} tsar_array_desc;

/* A data buffer reached through a map array: segmented (CSR-like: iteration i owns elements
 * map[i] .. map[i+1]-1, map has n+1 non-decreasing entries) or indexed (iteration i reads
 * element map[i], map has n entries). The map array is partitioned with the data; a place's
 * copy of the map (tsar_place_mem on the map's address) is rewritten to index the place's
 * copy of the data, so the body is the same under every policy. */
typedef struct tsar_indirect_desc {
  const char* name; /* named in messages and reports; NULL = its address */
  size_t elem_size; /* bytes per data element, > 0 */
  size_t count;     /* data elements */
  const void* map;  /* the segment or index array */
  size_t map_size;  /* bytes per map entry: 4 (int32_t) or 8 (int64_t) */
  size_t map_count; /* entries of the map */
  unsigned flags;   /* segmented: TSAR_MEM_IN and/or OUT; indexed: TSAR_MEM_IN (several
                       iterations may read one element; writes through an index would race) */
} tsar_indirect_desc;

/* Maps buffer `host` to the partition (outside passes). Every check is made here, before
 * any page moves or copy is made: TSAR_ERR_INVALID names the buffer and the problem (a
 * misaligned address, overlapping rows, an index outside the data, a segment array that
 * decreases or leaves the data); TSAR_ERR_REGISTERED when it overlaps a mapped buffer. */
int tsar_partition_map_array(tsar_partition* part, void* host, const tsar_array_desc* desc);
int tsar_partition_map_segmented(tsar_partition* part, void* host, const tsar_indirect_desc* desc);
int tsar_partition_map_indexed(tsar_partition* part, void* host, const tsar_indirect_desc* desc);
/* Unmaps a buffer (outside passes); its per-place copies are freed. */
int tsar_partition_unmap(tsar_partition* part, const void* host);

/* ---- running a pass ------------------------------------------------------------------ */

/* A place body: runs once per place per pass with the place's range [begin, end) (possibly
 * empty: it still runs, so barriers and halo updates stay collective). */
typedef void (*tsar_place_fn)(tsar_place* place, int64_t begin, int64_t end, void* arg);

/* Runs one partition pass of n iterations (0 <= n <= 2^60; mapped buffers must hold n
 * items along their partitioned dimension, indirect maps n (+1) entries): splits [0, n) over
 * the places, places the data as the policies say, runs body on every place at once (place
 * 0 on the calling thread, which stays pinned to a core of place 0), merges replicated
 * outputs back, and learns the places' times. Fails with TSAR_ERR_CANCELED when a body
 * called tsar_place_cancel; TSAR_ERR_STATE from inside a pass of this partition. */
int tsar_partition_run(tsar_partition* part, int64_t n, tsar_place_fn body, void* arg);

/* Index of the place (0 .. tsar_partition_num_places-1). */
int tsar_place_index(const tsar_place* place);
/* Runs inner loop number `loop` (>= 0; one learned split per loop number and place) over
 * iterations [begin, end) on the place's devices: body(chunk, arg) for each device's ranges,
 * with chunk->begin/end absolute iteration numbers and chunk->worker the device's index in
 * the place. Called from the place body's thread. */
int tsar_place_for(tsar_place* place, int loop, int64_t begin, int64_t end, tsar_body_fn body,
                   void* arg);
/* Waits until every place whose body is still running calls it too (a place whose body
 * returned no longer takes part). TSAR_ERR_CANCELED once the pass was canceled. */
int tsar_place_barrier(tsar_place* place);

/* Halo (padding) updates of a mapped array with a halo, collective like a barrier. With
 * per-place copies (replicate) they copy boundaries only; with the host buffer shared
 * (other policies) the data is already coherent and they only synchronise. */
enum {
  TSAR_UPDATE_PADDING_NEARBY = 0, /* each place's halo from its neighbours' copies directly */
  TSAR_UPDATE_PADDING_FROM = 1,   /* each place's boundary rows back to the host buffer */
  TSAR_UPDATE_PADDING_TO = 2,     /* each place's halo from the host buffer */
  TSAR_UPDATE_MERGE = 3           /* full merge: the whole part to the host, then part and
                                     halo back (what re-partitioning would copy) */
};
int tsar_place_update(tsar_place* place, const void* host, int what);
/* Stops the pass: barriers and updates return TSAR_ERR_CANCELED, inner loops start no new
 * range, outputs are not merged, nothing is learned; tsar_partition_run fails with
 * TSAR_ERR_CANCELED. Callable from place bodies and inner loop bodies. */
int tsar_place_cancel(tsar_place* place);

/* The place's view of a mapped buffer (or of an indirect buffer's map array), indexed like
 * the host buffer for the place's part and halo: the host buffer itself, or under
 * replicate the place's copy. NULL (tsar_last_status set) when the buffer is not mapped, or
 * when the copy is packed differently from the host (a partitioned inner dimension): use
 * tsar_place_view then. Callable from the place body and its inner loop bodies. */
void* tsar_place_mem(const tsar_place* place, const void* host);
/* The place's view of a mapped array: element (i0, i1, i2) of the host array is at
 * base + sum_d (i_d - offset[d]) * stride[d] elements, for the place's part and halo. */
typedef struct tsar_array_view {
  void* base;
  int dims;
  size_t stride[3];  /* elements */
  int64_t offset[3]; /* first index of the view along each dimension */
  int64_t extent[3]; /* indices the view holds along each dimension */
} tsar_array_view;
int tsar_place_view(const tsar_place* place, const void* host, tsar_array_view* view);

/* ---- statistics and memory locations --------------------------------------------------- */

/* One place in one partition pass. */
typedef struct tsar_place_stats {
  int64_t begin; /* the place's range */
  int64_t end;
  double seconds;           /* its body, placement excluded */
  double timed_seconds;     /* what re-balancing learned from: the bound loop, or the body
                               less barrier and update waits */
  double wait_seconds;      /* waiting at barriers and halo updates */
  double placement_seconds; /* planning, moving pages, copying in and merging back */
  int64_t pages_moved;      /* pages move_pages moved to its node */
  int64_t pages_failed;     /* pages the kernel could not move (busy, node full) */
  int64_t pages_absent;     /* pages to move that were never touched (placed at first touch) */
  int64_t bytes_replicated; /* bytes copied into its copies */
  int64_t bytes_merged;     /* bytes copied from its copies back to host buffers */
  int64_t halo_bytes;       /* bytes its halo updates copied */
  int numa_node;            /* its logical NUMA node */
} tsar_place_stats;

/* Partition passes run so far (the last 4096 are kept); -1 for NULL. With TSAR_TRACE set to
 * a JSON-lines file, every partition pass is also appended there as {"partition": name,
 * "policy", "pass", "n", "seconds", "places": [these statistics]} (CSV traces hold regions
 * only; the inner loops appear as regions "name/place:P/loop:L"). */
int64_t tsar_partition_num_passes(const tsar_partition* part);
/* Per-place statistics of pass `pass` (-1 = the last), up to `capacity` places; *stats (may
 * be NULL) gets the pass's n, time and canceled flag. */
int tsar_partition_get_pass_stats(const tsar_partition* part, int64_t pass, tsar_pass_stats* stats,
                                  tsar_place_stats* places, int capacity);

/* Where memory is: the logical NUMA node of each page of [addr, addr + bytes) into nodes
 * (-1: never touched, so not placed yet), at most `capacity` pages; *pages gets the number
 * of pages the range spans (may exceed capacity). Uses move_pages(2) without moving. */
int tsar_mem_location(const void* addr, size_t bytes, int* nodes, size_t capacity, size_t* pages);
/* Number of NUMA nodes this process may use (1 on a machine without NUMA). */
int tsar_num_numa_nodes(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#include "tsar/data.h"

#endif /* TSAR_TSAR_H */
