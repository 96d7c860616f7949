/* SPDX-License-Identifier: BSD-3-Clause */
/* tsar/translated.h, the bookkeeping of generated code, driven by hand on a host-as-device
 * accelerator (omphost), where every copy is counted in the pass statistics:
 *  - an execution with the same arrays registers nothing again: a persistent input is not
 *    copied in the second pass;
 *  - arrays exchanged between two buffers are swapped, not re-registered: the device copy
 *    of the array the last pass wrote serves as the next pass's input (nothing copied in);
 *  - overlapping arrays make the loop run as written (begin returns 0) and the loop recovers
 *    when the arrays are separate again;
 *  - depersist frees the device copy: the next pass copies the input again;
 *  - a loop whose region cannot be made (no device) stays as written;
 *  - in a data block, an array stays on the device from one pass to the next (nothing copied
 *    in again), its results reach the host at the block's exit, and a change the host makes
 *    between two entries is seen by the next.
 * Exit 0 when all hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsar/translated.h"

enum { N = 64 };

static int failures = 0;
#define CHECK(cond, ...)                                    \
  do {                                                      \
    if (!(cond)) {                                          \
      fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);      \
      fprintf(stderr, __VA_ARGS__);                         \
      fprintf(stderr, "\n");                                \
      ++failures;                                           \
    }                                                       \
  } while (0)

struct args {
  tsar_region* region;
  const double* in;
  double* out;
};

/* out[i] = 2 in[i], on the host pointers TSAR gives (host memory behind omphost too). */
static void twice(const tsar_chunk* c, void* arg) {
  const struct args* a = arg;
  const double* in = tsar_mem(a->region, a->in);
  double* out = tsar_mem(a->region, a->out);
  if (c->kind == TSAR_DEVICE_OMP_TARGET) {
#pragma omp target teams distribute parallel for device(c->omp_device) is_device_ptr(in, out)
    for (int64_t i = c->begin; i < c->end; ++i) out[i] = 2.0 * in[i];
  } else {
    for (int64_t i = c->begin; i < c->end; ++i) out[i] = 2.0 * in[i];
  }
}

static tsar_tr_buffer buffer(const char* name, void* host, unsigned flags) {
  tsar_tr_buffer b = {name, host, {sizeof(double), N, 1, 0, 0, TSAR_ASSOC_ROWS, flags}};
  return b;
}

/* One execution: in -> out; returns the bytes copied to the device, -1 when it ran as
 * written. */
static int64_t execute(tsar_tr_loop* loop, double* in, double* out) {
  const tsar_tr_buffer want[2] = {buffer("in", in, TSAR_MEM_IN | TSAR_MEM_PERSIST),
                                  buffer("out", out, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)};
  if (!tsar_tr_begin(loop, want)) return -1;
  struct args a = {loop->region, in, out};
  tsar_tr_run(loop, 0, N, twice, &a);
  tsar_device_stats d;
  tsar_get_pass_stats(loop->region, -1, NULL, &d, 1);
  tsar_tr_end(loop);
  for (int i = 0; i < N; ++i) CHECK(out[i] == 2.0 * in[i], "out[%d] = %g", i, out[i]);
  return d.bytes_to_device;
}

static tsar_tr_buffer held[2], held2[2];

int main(void) {
  static tsar_tr_loop loop = TSAR_TR_LOOP("test:1", "static", TSAR_DEVICE_OMP_TARGET, 0, held, 2,
                                          NULL, 0, NULL);
  double* x = malloc(2 * N * sizeof *x);
  double *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
  for (int i = 0; i < 2 * N; ++i) x[i] = i;
  tsar_set_devices("omphost:0");

  const int64_t first = execute(&loop, x, y);
  CHECK(first == N * (int64_t)sizeof(double), "first pass copied %lld bytes in",
        (long long)first);
  CHECK(execute(&loop, x, y) == 0, "the same arrays again: the persistent input was re-copied");
  CHECK(held[0].host == x && held[1].host == y, "held arrays changed");

  /* in and out exchanged (same shape, flags stay with their buffer) */
  memcpy(z, y, N * sizeof *z);
  const tsar_tr_buffer swapped[2] = {buffer("in", y, TSAR_MEM_IN | TSAR_MEM_PERSIST),
                                     buffer("out", x, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)};
  CHECK(tsar_tr_begin(&loop, swapped), "begin after a swap");
  struct args a = {loop.region, y, x};
  tsar_tr_run(&loop, 0, N, twice, &a);
  tsar_device_stats d;
  tsar_get_pass_stats(loop.region, -1, NULL, &d, 1);
  tsar_tr_end(&loop);
  /* y, written on the device by the last pass, is the input now: its device copy serves */
  CHECK(d.bytes_to_device == 0, "after the swap %lld bytes were copied in (re-registered?)",
        (long long)d.bytes_to_device);
  for (int i = 0; i < N; ++i) CHECK(x[i] == 2.0 * z[i], "swapped: x[%d] = %g", i, x[i]);
  CHECK(held[0].host == y && held[1].host == x, "the swap did not follow the arrays");

  /* overlapping arrays: the loop runs as written this time, and recovers */
  CHECK(execute(&loop, x, x + N / 2) == -1, "overlapping arrays were registered");
  CHECK(execute(&loop, x, y) >= 0, "the loop did not recover from a refused registration");

  /* depersist: the next pass copies the input again */
  CHECK(execute(&loop, x, y) == 0, "persistent input re-copied");
  tsar_tr_depersist(x);
  CHECK(held[0].host == NULL, "depersist kept the registration");
  CHECK(execute(&loop, x, y) == N * (int64_t)sizeof(double), "depersisted input not copied anew");

  /* no device of the allowed kinds: off for good */
  tsar_set_devices("cpu:0");
  static tsar_tr_loop none = TSAR_TR_LOOP("test:2", NULL, TSAR_DEVICE_OMP_TARGET, 0, held2, 2,
                                          NULL, 0, NULL);
  CHECK(execute(&none, x, y) == -1, "a loop without devices ran under TSAR");
  CHECK(none.state == TSAR_TR_OFF, "a loop without devices is not off");

  /* a data block: y = 2 x in place, twice per entry, on the accelerator alone */
  tsar_set_devices("omphost:0");
  static tsar_tr_buffer data_held[1], loop_held[1];
  static tsar_tr_data data = TSAR_TR_DATA("test:3", data_held, 1);
  static tsar_tr_loop inside = TSAR_TR_LOOP("test:4", "static", TSAR_DEVICE_OMP_TARGET, 0,
                                            loop_held, 1, NULL, 0, &data);
  for (int i = 0; i < N; ++i) y[i] = i;
  for (int entry = 0; entry < 2; ++entry) {
    const tsar_tr_buffer mapped[1] = {buffer("y", y, TSAR_MEM_INOUT)};
    tsar_tr_data_enter(&data, mapped);
    for (int pass = 0; pass < 2; ++pass) {
      const tsar_tr_buffer uses[1] = {buffer("y", y, TSAR_MEM_INOUT)};
      CHECK(tsar_tr_begin(&inside, uses), "a loop in a data block did not run under TSAR");
      struct args in_place = {inside.region, y, y};
      tsar_tr_run(&inside, 0, N, twice, &in_place);
      tsar_device_stats ds;
      tsar_get_pass_stats(inside.region, -1, NULL, &ds, 1);
      tsar_tr_end(&inside);
      CHECK(ds.bytes_to_device == (pass == 0 ? N * (int64_t)sizeof(double) : 0),
            "entry %d pass %d copied %lld bytes in", entry, pass, (long long)ds.bytes_to_device);
    }
    tsar_tr_data_exit(&data);
    for (int i = 0; i < N; ++i)
      CHECK(y[i] == (entry == 0 ? 4.0 * i : 4.0 * (1.0 + 4.0 * i)), "entry %d: y[%d] = %g",
            entry, i, y[i]);
    for (int i = 0; i < N; ++i) y[i] += 1.0; /* the host changes y between the entries */
  }

  free(x), free(y), free(z);
  if (failures == 0) printf("translated.h: all checks passed\n");
  return failures ? 1 : 0;
}
