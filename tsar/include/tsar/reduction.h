/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tsar/reduction.h
 * Reductions over a pass (thesis 5.4.4, in the manner of OpenMP 4.0 declare reduction).
 * Part of tsar.h. */
#ifndef TSAR_REDUCTION_H
#define TSAR_REDUCTION_H

#include <stddef.h>

#include "tsar/region.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup tsar_reduction Reductions
 * Each worker gets a private accumulator set to the identity at the start of each pass; at
 * the end of a pass that was not canceled, the accumulators are combined into *result in
 * device order: result = combine(result, acc_0), then acc_1, ... On accelerators the
 * accumulator lives in device memory (the body's kernels combine into it there) and is
 * copied back before the combination.
 *
 * Reset rule: TSAR never resets *result. Each pass combines into the value *result holds
 * when the pass ends, as OpenMP's reduction clause combines into the variable's original
 * value -- so over many passes *result accumulates every pass's total. For one pass's total,
 * set *result to the identity before the pass (in C++, `sum = 0;` before parallel_for). A
 * canceled or refused pass leaves *result as it was.
 * @{ */

/** combine(inout, in, ctx): *inout = *inout (op) *in. */
typedef void (*tsar_combine_fn)(void* inout, const void* in, void* ctx);

/** Registers a reduction into `result` (size bytes) with its identity and combine function
 * (outside passes).
 * @return TSAR_OK; TSAR_ERR_NULL when region, result, identity or combine is NULL;
 *   TSAR_ERR_INVALID when size is 0; TSAR_ERR_REGISTERED when result overlaps a registered
 *   reduction or lies inside a registered buffer; TSAR_ERR_STATE during a pass; TSAR_ERR_SYSTEM
 * when out of memory. */
int tsar_reg_reduction(tsar_region* region, void* result, const void* identity, size_t size,
                       tsar_combine_fn combine, void* ctx);

/** The calling worker's accumulator for `result` during a pass (from a body: pass
 * chunk->region).
 * @return the accumulator, a device pointer on accelerators once tsar_next gave the worker a
 *   range; NULL (tsar_last_status set) when result is not registered (TSAR_ERR_UNKNOWN), the
 *   caller is no worker (TSAR_ERR_THREADS), or the accelerator has no accumulator yet
 *   (TSAR_ERR_STATE). */
void* tsar_reduction(const tsar_region* region, const void* result);

/** Unregisters a reduction (outside passes).
 * @return TSAR_OK; TSAR_ERR_NULL; TSAR_ERR_UNKNOWN when not registered; TSAR_ERR_STATE during
 *   a pass. */
int tsar_unreg_reduction(tsar_region* region, const void* result);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSAR_REDUCTION_H */
