// SPDX-License-Identifier: BSD-3-Clause
// A C program built against TSAR's install (find_package(TSAR) with tsar_enable_offload, and
// pkg-config tsar): a registered SAXPY whose body has the GPU branch -- an OpenMP target loop
// on the chunk's device -- and takes its region from the chunk; the headers' version must be
// the library's. Exit 0 = every element equals the serial result.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tsar/tsar.h>

typedef struct {
  const double* x;
  double* y;
  double a;
} saxpy_args;

static void saxpy(const tsar_chunk* chunk, void* arg) {
  const saxpy_args* s = (const saxpy_args*)arg;
  const double* x = (const double*)tsar_mem(chunk->region, s->x);
  double* y = (double*)tsar_mem(chunk->region, s->y);
  const double a = s->a;
  if (chunk->kind == TSAR_DEVICE_CPU || chunk->kind == TSAR_DEVICE_EMULATED) {
    for (int64_t i = chunk->begin; i < chunk->end; ++i) y[i] += a * x[i];
  } else {
#pragma omp target teams distribute parallel for device(chunk->omp_device) is_device_ptr(x, y)
    for (int64_t i = chunk->begin; i < chunk->end; ++i) y[i] += a * x[i];
  }
}

int main(void) {
  if (strcmp(tsar_version(), TSAR_VERSION) != 0) {
    fprintf(stderr, "headers %s, library %s\n", TSAR_VERSION, tsar_version());
    return 1;
  }
  enum { N = 4096, PASSES = 3 };
  static double x[N], y[N];
  for (int i = 0; i < N; ++i) {
    x[i] = i;
    y[i] = 1.0;
  }
  saxpy_args args = {x, y, 2.0};
  tsar_region* region = NULL;
  if (tsar_init(&region, "consumer", "adaptive", TSAR_DEVICE_ALL, NULL, 0, 0) != TSAR_OK ||
      tsar_reg_mem(region, x, sizeof(double), N, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN) != TSAR_OK ||
      tsar_reg_mem(region, y, sizeof(double), N, 0, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT) != TSAR_OK) {
    fprintf(stderr, "%s\n", tsar_last_error());
    return 2;
  }
  for (int pass = 0; pass < PASSES; ++pass)
    if (tsar_run(region, N, saxpy, &args) != TSAR_OK) {
      fprintf(stderr, "%s\n", tsar_last_error());
      return 3;
    }
  const int devices = tsar_num_devices(region);
  tsar_free(region);
  for (int i = 0; i < N; ++i)
    if (y[i] != 1.0 + PASSES * 2.0 * i) {
      fprintf(stderr, "y[%d] = %g, expected %g\n", i, y[i], 1.0 + PASSES * 2.0 * i);
      return 4;
    }
#ifdef TSAR_OFFLOAD_NVPTX
  const char* offload = "nvptx";
#else
  const char* offload = "none";
#endif
  printf("tsar consumer: TSAR %s, %d devices, offload %s\n", tsar_version(), devices, offload);
  return 0;
}
