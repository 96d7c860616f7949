/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tsar/memory.h
 * Registered buffers: what each device needs of the data a loop reads and writes, and how it
 * moves to and from accelerators (thesis 5.3.3, 5.4.2-5.4.4). Part of tsar.h. */
#ifndef TSAR_MEMORY_H
#define TSAR_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "tsar/region.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup tsar_memory Memory association
 * On accelerators with their own memory (thesis 5.4.2-5.4.3), a device allocates and moves
 * only what its ranges need, halo included:
 * - FULL: the whole buffer (inputs only)
 * - ROWS: its rows, one allocation; tsar_mem gives an offset pointer indexed like the host
 *   buffer (unless TSAR_MEM_PAD changed the row stride)
 * - COLS: its columns, packed into rows of its own width: index through the layout
 * - ROWS_COLS: the whole matrix is allocated (rows and columns make a plus sign); outputs are
 *   merged back element by element where the device changed them
 *
 * IN parts are copied in before a device's range, OUT parts (its own rows or columns, no
 * halo) copied back after it. An output's copy starts from the host's values of those rows
 * or columns, so elements the loop does not write (a stencil's fixed boundary, say) come
 * back unchanged; with TSAR_MEM_OVERWRITE -- the loop writes every element of its rows or
 * columns, as a matrix product does -- that copy-in is left out and the device's values
 * start as anything (TSAR_CHECK=1 verifies that the loop kept its word). Each pass copies again, except with TSAR_MEM_PERSIST: then a
 * device keeps its copy and moves in only the rows or columns that other devices (or CPU
 * workers) wrote since it last had them. Host changes between passes to a persistent input
 * must be announced with tsar_mem_invalidate. Bytes moved are in tsar_device_stats.
 *
 * TSAR_MEM_RESIDENT (a persistent ROWS output) keeps a device's rows on the device instead
 * of copying them back after its range: the host buffer is stale there until the rows move.
 * They move only when another device or CPU worker reads them -- before each pass TSAR writes
 * back the resident rows that another worker's range, halo included, reads (a stencil's
 * boundary rows; under chunk schedules every resident row of an input) -- and when the
 * program needs the host buffer: tsar_mem_sync, tsar_unreg_mem, tsar_retarget_mem and
 * tsar_free write them back; tsar_mem_invalidate drops them (the host wins). A
 * double-buffered stencil (swap a RESIDENT output with its persistent input each pass) then
 * moves per pass only its halo rows in and its boundary rows out.
 * @{ */

/** Direction and handling flags of a registered buffer. */
enum {
  TSAR_MEM_IN = 1u,        /**< read by the loop: copied to devices before their ranges */
  TSAR_MEM_OUT = 2u,       /**< written by the loop: each device's part copied back */
  TSAR_MEM_INOUT = 3u,     /**< both */
  TSAR_MEM_PERSIST = 4u,   /**< device copies stay between passes until unregistered */
  TSAR_MEM_PAD = 8u,       /**< rows may be padded to the device's alignment (see layout) */
  TSAR_MEM_RESIDENT = 16u, /**< outputs stay on the device that wrote them (see above) */
  TSAR_MEM_OVERWRITE = 32u, /**< the loop writes every element of an output's rows or columns:
                                its device copy need not start from the host's values */
  TSAR_MEM_NO_PIN = 64u /**< never page-lock the host buffer for GPU copies: for a
                             registration kept while the program may free the array (a lock
                             that outlives it makes later copies from its addresses fail) */
};

/** How iterations select the part of a buffer a device needs. */
typedef enum tsar_assoc {
  TSAR_ASSOC_FULL = 0,     /**< every device needs all of it (inputs only) */
  TSAR_ASSOC_ROWS = 1,     /**< iteration i uses row i (1-D: element i) */
  TSAR_ASSOC_COLS = 2,     /**< iteration j uses column j (packed on copying devices) */
  TSAR_ASSOC_ROWS_COLS = 3 /**< iteration i uses row i and column i */
} tsar_assoc;

/** Shape and association of a buffer. A 1-D array is rows = count, cols = 1. */
typedef struct tsar_mem_desc {
  size_t elem_size;  /**< bytes per element, > 0 */
  size_t rows;       /**< rows, > 0 */
  size_t cols;       /**< elements per row, > 0 */
  size_t row_stride; /**< elements from one row start to the next (>= cols); 0 = cols */
  size_t halo;       /**< extra rows (ROWS) or columns (COLS) each side, read-only input */
  int assoc;         /**< tsar_assoc */
  unsigned flags;    /**< TSAR_MEM_*; at least one of IN and OUT */
} tsar_mem_desc;

/** Where the calling worker's view of a buffer is: element (r, c) of the host buffer is at
 * base[(r - row_offset) * row_stride + (c - col_offset)] for the caller's rows/columns (and
 * their halo). On accelerators base is a device pointer. */
typedef struct tsar_mem_layout {
  void* base;         /**< the first element the worker holds */
  size_t row_stride;  /**< elements, padded when TSAR_MEM_PAD and the device wants it */
  int64_t row_offset; /**< host row of base */
  int64_t col_offset; /**< host column of base */
} tsar_mem_layout;

/** Registers host buffer `host` with the region (outside passes).
 * @return TSAR_OK; TSAR_ERR_NULL when region, host or desc is NULL; TSAR_ERR_INVALID for a bad
 *   shape, association or flags (the message says which; TSAR_MEM_OVERWRITE with
 *   TSAR_MEM_IN, say); TSAR_ERR_REGISTERED when `host` or
 *   any byte of it is already registered; TSAR_ERR_STATE during a pass. */
int tsar_reg_mem_desc(tsar_region* region, void* host, const tsar_mem_desc* desc);

/** Shorthand of tsar_reg_mem_desc: a 1-D array of count elements (assoc ROWS = element i for
 * iteration i). Returns as tsar_reg_mem_desc. */
int tsar_reg_mem(tsar_region* region, void* host, size_t elem_size, size_t count, size_t halo,
                 int assoc, unsigned flags);

/** Shorthand of tsar_reg_mem_desc: a rows x cols matrix with row_stride elements per row
 * (0 = cols). Returns as tsar_reg_mem_desc. */
int tsar_reg_mem_2d(tsar_region* region, void* host, size_t elem_size, size_t rows, size_t cols,
                    size_t row_stride, size_t halo, int assoc, unsigned flags);

/** The calling worker's pointer for registered buffer `host`: base shifted by the layout's
 * offsets, so p[r * row_stride + c] is element (r, c) -- indexed like `host` wherever the
 * device keeps the host's row stride (1-D arrays, ROWS without padding).
 * @return `host` itself on host-memory devices; a device pointer on accelerators, valid after
 *   tsar_next gave the worker a range; NULL (tsar_last_status set) when the buffer is not
 *   registered (TSAR_ERR_UNKNOWN), the caller is no worker (TSAR_ERR_THREADS), or the worker
 *   has no copy yet (TSAR_ERR_STATE). */
void* tsar_mem(const tsar_region* region, const void* host);

/** The calling worker's full view of a registered buffer.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_THREADS when the caller is no worker;
 *   TSAR_ERR_UNKNOWN when the buffer is not registered; TSAR_ERR_STATE when the worker has no
 *   copy yet. */
int tsar_mem_layout_get(const tsar_region* region, const void* host, tsar_mem_layout* layout);

/** Unregisters a buffer (outside passes); resident rows are written back, persistent device
 * copies freed.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN when not registered; TSAR_ERR_STATE during
 *   a pass. */
int tsar_unreg_mem(tsar_region* region, const void* host);

/** Moves the registration of `old_host` to `new_host` (same shape), e.g. to point it at the
 * next block of a stream of data. Device allocations are kept, their contents re-read.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN when old_host is not registered;
 *   TSAR_ERR_REGISTERED when new_host overlaps another registration; TSAR_ERR_STATE during a
 *   pass. */
int tsar_retarget_mem(tsar_region* region, const void* old_host, void* new_host);

/** Exchanges the host buffers of two registrations of the same shape, association and
 * padding (outside passes), each keeping its flags and halo: the double buffering of a
 * stencil (register `cur` IN with a halo, `next` OUT, both PERSIST; swap after each pass).
 * Device copies follow their host buffer, so only what changed moves.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN when either is not registered;
 *   TSAR_ERR_INVALID for different shapes or a buffer swapped with itself; TSAR_ERR_STATE
 *   during a pass. */
int tsar_swap_mem(tsar_region* region, const void* a, const void* b);

/** Tells the region that the program changed registered buffer `host` between passes:
 * persistent device copies of it are refreshed before their next use (resident rows not
 * synchronised are dropped).
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN when not registered; TSAR_ERR_STATE during
 *   a pass. */
int tsar_mem_invalidate(tsar_region* region, const void* host);

/** Brings registered buffer `host` up to date on the host (outside passes): rows that devices
 * hold resident (TSAR_MEM_RESIDENT) are copied back; the devices keep their copies. Call it
 * before the program reads an output it registered resident.
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN when not registered; TSAR_ERR_STATE during
 *   a pass; TSAR_ERR_SYSTEM when a copy failed. */
int tsar_mem_sync(tsar_region* region, const void* host);

/** Allocates host memory that GPUs copy by DMA: page-locked by the CUDA runtime where one
 * can be loaded and a GPU is present (cudaHostAlloc), ordinary memory otherwise; aligned to
 * 64 bytes either way. A registered buffer is otherwise locked by the region that first
 * copies it, until it is unregistered; under TSAR_MEM_NO_PIN (the loops tsar-translate
 * generates, whose registrations outlive the program's arrays) it is copied from pageable
 * memory, several times slower. Arrays from here are copied by DMA either way.
 * @return the memory, or NULL when `bytes` is 0 or none is left. Free it with tsar_host_free. */
void* tsar_host_alloc(size_t bytes);

/** Frees memory from tsar_host_alloc (unregister it from every region first). NULL does
 * nothing. */
void tsar_host_free(void* p);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSAR_MEMORY_H */
