// SPDX-License-Identifier: BSD-3-Clause
/* The thesis-style loop (thesis fig. 5.9) written in C: an OpenMP team with one thread per
 * device, tsar_next/tsar_loop around an unchanged loop body, a reduction registered from C. */
#include <omp.h>
#include <stdint.h>

#include "tsar/tsar.h"

static void add_i64(void* inout, const void* in, void* ctx) {
  (void)ctx;
  *(int64_t*)inout += *(const int64_t*)in;
}

/* sum = sum of i over [0, n); seen[i] counts the visits of iteration i. */
int c_omp_checked_sum(tsar_region* region, int64_t n, int64_t* sum, unsigned char* seen) {
  const int64_t zero = 0;
  int status = TSAR_OK;
  *sum = 0;
  if ((status = tsar_reg_reduction(region, sum, &zero, sizeof zero, add_i64, NULL)) != TSAR_OK)
    return status;
#pragma omp parallel num_threads(tsar_num_devices(region)) reduction(| : status)
  {
    int64_t* acc = (int64_t*)tsar_reduction(region, sum);
    do {
      int64_t b = 0, e = 0;
      status |= tsar_next(region, n, &b, &e);
      for (int64_t i = b; i < e; ++i) {
        *acc += i;
        seen[i]++;
      }
    } while (tsar_loop(region));
    status |= tsar_last_status();
  }
  tsar_unreg_reduction(region, sum);
  return status;
}
