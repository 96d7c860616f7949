// SPDX-License-Identifier: BSD-3-Clause
// Uses an installed libtsar from C: sums the iterations of a loop split over the CPU cores.
#include <stdatomic.h>
#include <stdio.h>
#include <tsar/tsar.h>

static void body(const tsar_chunk* chunk, void* arg) {
  int64_t sum = 0;
  for (int64_t i = chunk->begin; i < chunk->end; ++i) sum += i;
  atomic_fetch_add((_Atomic int64_t*)arg, sum);
}

int main(void) {
  tsar_region* region = NULL;
  if (tsar_init(&region, "consumer", "adaptive", TSAR_DEVICE_CPU, NULL, 0, 0) != 0) {
    fprintf(stderr, "consumer: %s\n", tsar_last_error());
    return 1;
  }
  const int64_t n = 100000;
  _Atomic int64_t sum = 0;
  for (int pass = 0; pass < 3; ++pass) {
    sum = 0;
    if (tsar_run(region, n, body, (void*)&sum) != 0) {
      fprintf(stderr, "consumer: %s\n", tsar_last_error());
      return 1;
    }
  }
  printf("consumer: %d devices, sum %lld\n", tsar_num_devices(region), (long long)sum);
  tsar_free(region);
  return sum == n * (n - 1) / 2 ? 0 : 1;
}
