/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tsar/data.h
 * Data environments: buffers that stay on the devices across passes and across regions, so a
 * time step of several loops moves only what their splits make necessary (as OpenMP's
 * `target data` and StarPU's data handles do). Part of tsar.h. */
#ifndef TSAR_DATA_H
#define TSAR_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "tsar/memory.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup tsar_data Data environments
 * A program maps its arrays to a data environment once, attaches every region that works on
 * them, and registers the arrays with each region as usual (tsar_reg_mem_desc): the
 * registration says how that region's loop uses the array (ROWS with a halo, or FULL; IN,
 * OUT or both); the array's device copies belong to the environment and live as long as it.
 *
 *     tsar_data* env;
 *     tsar_data_create(&env);
 *     tsar_data_map(env, u, &grid);             // grid: elem_size, rows, cols, row_stride
 *     tsar_data_map(env, v, &grid);
 *     tsar_data_attach(smooth, env);            // every region of the time step
 *     tsar_data_attach(update, env);
 *     tsar_reg_mem_desc(smooth, u, &u_in_halo1);  // how each loop uses them
 *     tsar_reg_mem_desc(smooth, v, &v_out);
 *     tsar_reg_mem_desc(update, v, &v_in);
 *     tsar_reg_mem_desc(update, u, &u_inout);
 *     for (step...) { tsar_run(smooth, n, ...); tsar_run(update, n, ...); }
 *     tsar_data_update_host(env, u);            // before the program reads u
 *
 * **Ownership rule.** Coherence is kept per row of a mapped buffer. Each row is at any time
 * either *current on the host* -- the host's row is up to date and any device may hold an
 * equal copy -- or *owned by one device*, the one that wrote it last: the host's row and every
 * other copy are stale.
 * - A pass that writes rows on a device with its own memory makes that device their owner;
 *   nothing is copied back. A CPU worker writes the host's row: it becomes current there and
 *   device copies of it are dropped.
 * - Before a pass, the rows a device's range reads (its rows and halo, or the whole buffer
 *   for FULL) that another device owns are copied into the reading device's copy: straight
 *   from the owner's where the two devices can copy into each other (CUDA GPUs; the owner
 *   keeps them and the host's stay stale), else through the host, whose rows become current.
 *   The rows it does not hold come from the host. Nothing else moves: when one loop's split
 *   differs from the next's, only the rows between the two splits and the halos move, and
 *   rows a device already holds stay where they are. Under chunk schedules (any worker may
 *   take any row) every owned row of an input comes back before the pass.
 * - tsar_data_update_host: the rows devices own are copied back, so the host is current;
 *   devices keep equal copies (a read-only sync). Call it before the program reads a buffer.
 * - tsar_data_update_device: the program wrote the rows on the host: every device copy of them
 *   is dropped, owned ones included (the host wins) and read again when needed. Call
 *   tsar_data_update_host before changing rows a device may own, then this after.
 * - Mapped buffers are persistent (TSAR_MEM_PERSIST) in every region; ROWS outputs are
 *   resident (TSAR_MEM_RESIDENT): these flags need not be given.
 *
 * Regions attached to one environment run their passes one at a time (a second gets
 * TSAR_ERR_STATE); the tsar_data_* calls are refused with TSAR_ERR_STATE while one of them
 * is in a pass.
 * @{ */

/** A data environment (opaque). */
typedef struct tsar_data tsar_data;

/** Creates an empty data environment in *data.
 * @return TSAR_OK; TSAR_ERR_NULL when data is NULL; TSAR_ERR_SYSTEM when out of memory
 *         (*data is then NULL). */
int tsar_data_create(tsar_data** data);

/** Writes back every row devices own (as tsar_data_update_host(data, NULL)) and releases the
 * program's handle. Regions still attached keep the environment -- its device copies, and
 * its buffers coherent among them -- until the last of them is freed, which writes the rows
 * back again. NULL is accepted.
 * @return TSAR_OK; TSAR_ERR_STATE during a pass of an attached region (nothing is freed);
 *         TSAR_ERR_SYSTEM when a device failed writing back (the handle is released anyway,
 *         the rows it owned are lost). */
int tsar_data_free(tsar_data* data);

/** Maps host buffer `host` to the environment. Only the shape of `desc` counts -- elem_size,
 * rows, cols, row_stride and the TSAR_MEM_PAD flag --, so one descriptor may map a buffer and
 * register it; the association, halo and direction are each registration's.
 * @return TSAR_OK; TSAR_ERR_NULL (data, host or desc NULL); TSAR_ERR_INVALID (a bad shape,
 *         named in tsar_last_error); TSAR_ERR_REGISTERED (it overlaps a mapped buffer, or a
 *         buffer an attached region registered on its own); TSAR_ERR_STATE (a pass). */
int tsar_data_map(tsar_data* data, void* host, const tsar_mem_desc* desc);

/** Unmaps a buffer: the rows devices own are written back, its device copies freed.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN (not mapped); TSAR_ERR_STATE (a pass, or
 *         an attached region still registers it: unregister it there first); TSAR_ERR_SYSTEM
 *         (a device failed writing back; the buffer stays mapped). */
int tsar_data_unmap(tsar_data* data, const void* host);

/** Attaches `region` to the environment, for the region's life: from now on, registering a
 * mapped buffer with the region uses the environment's device copies. A region attaches to
 * one environment; one environment takes any number of regions (of any device set: copies
 * are kept per device).
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_STATE (the region is in a pass or attached
 *         already); TSAR_ERR_REGISTERED (the region registered on its own a buffer that
 *         overlaps a mapped one: unregister it first). */
int tsar_data_attach(tsar_region* region, tsar_data* data);

/** Brings buffer `host` up to date on the host -- the rows devices own are copied back --
 * or every mapped buffer when `host` is NULL. Devices keep equal copies.
 * @return TSAR_OK; TSAR_ERR_NULL (data); TSAR_ERR_UNKNOWN (not mapped); TSAR_ERR_STATE (a
 *         pass); TSAR_ERR_SYSTEM (a device failed; rows it did not copy stay its own). */
int tsar_data_update_host(tsar_data* data, const void* host);

/** tsar_data_update_host for rows [first_row, first_row + num_rows) of buffer `host` only.
 * @return as tsar_data_update_host; TSAR_ERR_INVALID when the rows lie outside the buffer. */
int tsar_data_update_host_rows(tsar_data* data, const void* host, size_t first_row,
                               size_t num_rows);

/** The program wrote buffer `host` (every mapped buffer when NULL) on the host: every device
 * copy of it is dropped, rows devices owned included, and read again when needed.
 * @return TSAR_OK; TSAR_ERR_NULL (data); TSAR_ERR_UNKNOWN (not mapped); TSAR_ERR_STATE (a
 *         pass). */
int tsar_data_update_device(tsar_data* data, const void* host);

/** tsar_data_update_device for rows [first_row, first_row + num_rows) of buffer `host` only
 * (the boundary rows a program sets between time steps, say).
 * @return as tsar_data_update_device; TSAR_ERR_INVALID when the rows lie outside the buffer. */
int tsar_data_update_device_rows(tsar_data* data, const void* host, size_t first_row,
                                 size_t num_rows);

/** Traffic and placement of a mapped buffer since it was mapped. */
typedef struct tsar_data_stats {
  int64_t bytes_to_device;   /**< bytes copied from the host into its device copies */
  int64_t bytes_from_device; /**< bytes copied from its device copies to the host */
  int64_t device_rows;       /**< rows devices own now (the host's are stale) */
  int copies;                /**< devices holding an allocation of it */
} tsar_data_stats;

/** Statistics of buffer `host`, or the sums over every mapped buffer when `host` is NULL.
 * @return TSAR_OK; TSAR_ERR_NULL (data or stats); TSAR_ERR_UNKNOWN (not mapped);
 *         TSAR_ERR_STATE (a pass). */
int tsar_data_get_stats(const tsar_data* data, const void* host, tsar_data_stats* stats);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSAR_DATA_H */
