/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tsar/translated.h - the bookkeeping behind code that tsar-translate(1) generates. Not an API
 * for hand-written code (use tsar.h); the generated code shows the registrations, the pass
 * and the two branches itself, and calls these helpers for what every translated loop shares:
 *
 *  - its region, created at the loop's first execution and kept for the program's life, so
 *    the split TSAR learns carries over from one execution of the loop to the next (and is
 *    saved to TSAR_CACHE when the program exits);
 *  - its registrations, kept while the loop's buffers stay the same: an execution with the
 *    same arrays registers nothing; arrays exchanged between two of the loop's buffers (a
 *    double-buffered stencil) are swapped with tsar_swap_mem, so persistent device copies
 *    follow them; any other change unregisters the old array and registers the new one. As
 *    the program may free an array whose registration is kept, none is page-locked
 *    (TSAR_MEM_NO_PIN);
 *  - what happens when TSAR cannot run the loop (no device, a registration refused, aliased
 *    arrays): the generated code runs the loop as written, and the reason is said once on
 *    stderr ("tsar: file.c:12: ...; the loop runs as written").
 *
 * One execution of a translated loop:
 *
 *   if (tsar_tr_begin(&loop, buffers)) {   // region ready, buffers registered, loop locked
 *     ... reduction proxies set to their identity ...
 *     tsar_tr_run(&loop, first, end, body, &args);  // one pass (exits the program if it fails)
 *     ... reductions combined into the program's variables ...
 *     tsar_tr_end(&loop);                  // unlocks
 *   } else {
 *     ... the loop as written ...
 *   }
 *
 * A `#pragma tsar data` block is a data environment (tsar/data.h) of its own, made at its first
 * execution and kept: its arrays are mapped at each entry (a changed array replaces the old
 * one), the device copies dropped there (the host wins, as OpenMP's map(to:) copies in), and
 * at the exit the rows devices own are brought back for map(from:)/map(tofrom:) arrays and
 * dropped for map(to:) ones. The loops of the block attach their regions to it, so their
 * arrays stay on the devices from one loop to the next.
 *
 *   tsar_tr_data_enter(&data, arrays);  ... the block's loops ...  tsar_tr_data_exit(&data);
 *
 * Executions of one loop, or of one data block, from several threads run one after the other
 * (a mutex each).
 */
#ifndef TSAR_TRANSLATED_H
#define TSAR_TRANSLATED_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsar/tsar.h"

#ifndef TSAR_VERSION_NUMBER
#error "tsar/translated.h needs TSAR's headers with tsar/version.h (tsar_run_range, tsar_chunk.region)"
#endif

#ifdef __cplusplus
#include <type_traits> /* std::decay_t: the generated argument structs copy variables' types */

extern "C" {
#endif

/* One array of a translated loop, as its directive maps it in this execution. */
typedef struct tsar_tr_buffer {
  const char* name; /* the variable, for messages */
  void* host;       /* its address now; NULL in a loop's held table: nothing registered */
  tsar_mem_desc desc;
} tsar_tr_buffer;

/* One reduction of a translated loop: TSAR combines the devices' accumulators into `result`,
 * a proxy the generated code owns (static, so it is registered once); the generated code
 * sets it to the identity before each pass and combines it into the program's variable after. */
typedef struct tsar_tr_reduction {
  void* result;
  const void* identity;
  size_t size;
  tsar_combine_fn combine;
} tsar_tr_reduction;

enum { TSAR_TR_NEW = 0, TSAR_TR_READY = 1, TSAR_TR_OFF = 2 };

struct tsar_tr_loop;

/* A data block: static storage in the generated code, made by TSAR_TR_DATA. */
typedef struct tsar_tr_data {
  const char* where; /* "file.c:12", the prefix of messages */
  int num_buffers;
  tsar_tr_buffer* held; /* num_buffers entries: what the environment maps (host NULL: none) */
  pthread_mutex_t lock; /* held from the block's entry to its exit */
  int state;            /* TSAR_TR_NEW, _READY, or _OFF (the environment cannot be made) */
  tsar_data* env;
  struct tsar_tr_loop* loops;  /* the loops attached to it */
  struct tsar_tr_data* next;   /* the translation unit's data blocks (exit) */
  char said[512];
} tsar_tr_data;

#define TSAR_TR_DATA(where, held, num_buffers) \
  {(where), (num_buffers), (held), PTHREAD_MUTEX_INITIALIZER, TSAR_TR_NEW, NULL, NULL, NULL, {0}}

/* A translated loop: static storage in the generated code, made by TSAR_TR_LOOP. */
typedef struct tsar_tr_loop {
  const char* where;    /* "file.c:12": the region's name and the prefix of messages */
  const char* schedule; /* NULL: TSAR_SCHEDULE, else adaptive */
  unsigned kinds;       /* TSAR_DEVICE_* the region may use */
  int div;              /* sub-passes of split/quick; 0: the schedule's default */
  int num_buffers;
  tsar_tr_buffer* held; /* num_buffers entries: what the region has registered */
  int num_reductions;
  const tsar_tr_reduction* reductions;
  tsar_tr_data* data; /* the data block the loop is in, or NULL */
  pthread_mutex_t lock;
  int state;           /* TSAR_TR_NEW, _READY, or _OFF (the loop runs as written for good) */
  tsar_region* region; /* once READY */
  int* cores;          /* cores of each of the region's devices (a team shares a range) */
  struct tsar_tr_loop* next;      /* the translation unit's loops (depersist, exit) */
  struct tsar_tr_loop* data_next; /* the loops of its data block */
  char said[512];                 /* the last message, so each is said once */
} tsar_tr_loop;

#define TSAR_TR_LOOP(where, schedule, kinds, div, held, num_buffers, reductions, num_reductions, \
                     data)                                                                   \
  {(where),     (schedule), (kinds), (div), (num_buffers), (held), (num_reductions),         \
   (reductions), (data),    PTHREAD_MUTEX_INITIALIZER, TSAR_TR_NEW, NULL, NULL, NULL, NULL, \
   {0}}

/* The translation unit's loops and data blocks that have a region or an environment (pushed
 * once, never removed). */
static tsar_tr_loop* tsar_tr_loops_ = NULL;
static tsar_tr_data* tsar_tr_datas_ = NULL;

/* Says "tsar: <where>: <what><then>" on stderr, unless `what` was the last thing said in
 * `said` (512 bytes). */
static inline void tsar_tr_say_once_(char* said, const char* where, const char* what,
                                     const char* then) {
  if (strncmp(said, what, 511) == 0) return;
  snprintf(said, 512, "%s", what);
  fprintf(stderr, "tsar: %s: %s%s\n", where, what, then);
}

/* Says what the last TSAR call refused about `loop`, naming the variable when there is one. */
static inline void tsar_tr_refused_(tsar_tr_loop* loop, const char* name) {
  char what[512];
  if (name)
    snprintf(what, sizeof what, "%s: %s", name, tsar_last_error());
  else
    snprintf(what, sizeof what, "%s", tsar_last_error());
  tsar_tr_say_once_(loop->said, loop->where, what, "; the loop runs as written");
}

/* Says what the last TSAR call refused about data block `data`. */
static inline void tsar_tr_data_refused_(tsar_tr_data* data, const char* name) {
  char what[512];
  snprintf(what, sizeof what, "%s: %s", name, tsar_last_error());
  tsar_tr_say_once_(data->said, data->where, what,
                    "; the loops of the block copy it themselves");
}

/* atexit: frees the translation unit's regions, which saves what they learned (TSAR_CACHE),
 * and its data environments. */
static inline void tsar_tr_exit_(void) {
  for (tsar_tr_loop* l = __atomic_load_n(&tsar_tr_loops_, __ATOMIC_ACQUIRE); l; l = l->next) {
    pthread_mutex_lock(&l->lock);
    if (l->state == TSAR_TR_READY) {
      tsar_free(l->region);
      free(l->cores);
      l->region = NULL;
      l->cores = NULL;
      l->state = TSAR_TR_OFF;
    }
    pthread_mutex_unlock(&l->lock);
  }
  for (tsar_tr_data* d = __atomic_load_n(&tsar_tr_datas_, __ATOMIC_ACQUIRE); d; d = d->next) {
    pthread_mutex_lock(&d->lock);
    if (d->state == TSAR_TR_READY) {
      tsar_data_free(d->env);
      d->env = NULL;
      d->state = TSAR_TR_OFF;
    }
    pthread_mutex_unlock(&d->lock);
  }
}

/* Registers tsar_tr_exit_ once per translation unit. */
static inline void tsar_tr_at_exit_(void) {
  static int registered = 0;
  if (!__atomic_exchange_n(&registered, 1, __ATOMIC_ACQ_REL)) atexit(tsar_tr_exit_);
}

/* Creates the loop's region, registers its reductions and attaches it to its data block's
 * environment (called locked; the data block's lock is held too when there is one). */
static inline void tsar_tr_open_(tsar_tr_loop* loop) {
  loop->state = TSAR_TR_OFF;
  if (tsar_init(&loop->region, loop->where, loop->schedule, loop->kinds, NULL, 0, loop->div) !=
      TSAR_OK) {
    tsar_tr_refused_(loop, NULL);
    return;
  }
  const int devices = tsar_num_devices(loop->region);
  loop->cores = (int*)malloc(sizeof(int) * (size_t)devices);
  for (int d = 0; loop->cores && d < devices; ++d) {
    tsar_device_info info;
    loop->cores[d] = tsar_get_device_info(loop->region, d, &info) == TSAR_OK ? info.num_cores : 1;
  }
  for (int k = 0; loop->cores && k < loop->num_reductions; ++k) {
    const tsar_tr_reduction* r = &loop->reductions[k];
    if (tsar_reg_reduction(loop->region, r->result, r->identity, r->size, r->combine, NULL) !=
        TSAR_OK) {
      tsar_tr_refused_(loop, NULL);
      free(loop->cores);
      loop->cores = NULL;
    }
  }
  if (!loop->cores) {
    tsar_free(loop->region);
    loop->region = NULL;
    return;
  }
  tsar_tr_data* data = loop->data;
  if (data && data->state == TSAR_TR_READY) {
    if (tsar_data_attach(loop->region, data->env) == TSAR_OK) {
      loop->data_next = data->loops; /* under the data block's lock */
      data->loops = loop;
    } else {
      tsar_tr_data_refused_(data, "attaching a loop");
    }
  }
  memset(loop->held, 0, sizeof(tsar_tr_buffer) * (size_t)loop->num_buffers);
  loop->state = TSAR_TR_READY;
  loop->next = __atomic_load_n(&tsar_tr_loops_, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&tsar_tr_loops_, &loop->next, loop, 0, __ATOMIC_RELEASE,
                                      __ATOMIC_RELAXED)) {
  }
  tsar_tr_at_exit_();
}

static inline int tsar_tr_same_shape_(const tsar_mem_desc* a, const tsar_mem_desc* b) {
  return a->elem_size == b->elem_size && a->rows == b->rows && a->cols == b->cols &&
         a->row_stride == b->row_stride && a->assoc == b->assoc;
}

static inline int tsar_tr_same_(const tsar_tr_buffer* held, const tsar_tr_buffer* want) {
  return held->host == want->host && tsar_tr_same_shape_(&held->desc, &want->desc) &&
         held->desc.halo == want->desc.halo && held->desc.flags == want->desc.flags;
}

/* Brings the region's registrations to `want` (called locked); 0 when TSAR refused one. */
static inline int tsar_tr_register_(tsar_tr_loop* loop, const tsar_tr_buffer* want) {
  tsar_tr_buffer* held = loop->held;
  const int n = loop->num_buffers;
  int stale = 0;
  for (int k = 0; k < n; ++k) stale += !tsar_tr_same_(&held[k], &want[k]);
  if (stale == 0) return 1;
  /* Two buffers whose arrays were exchanged: swap the registrations (device copies follow). */
  for (int k = 0; k < n; ++k) {
    for (int m = k + 1; m < n && held[k].host && !tsar_tr_same_(&held[k], &want[k]); ++m) {
      if (held[m].host && held[k].host == want[m].host && held[m].host == want[k].host &&
          tsar_tr_same_shape_(&held[k].desc, &held[m].desc) &&
          tsar_tr_same_shape_(&want[k].desc, &held[k].desc) &&
          tsar_tr_same_shape_(&want[m].desc, &held[m].desc) &&
          tsar_swap_mem(loop->region, held[k].host, held[m].host) == TSAR_OK) {
        held[k].host = want[k].host;
        held[m].host = want[m].host;
      }
    }
  }
  /* Everything else that changed: out first (a new array may overlap an old one), then in. */
  for (int k = 0; k < n; ++k) {
    if (!held[k].host || tsar_tr_same_(&held[k], &want[k])) continue;
    if (tsar_unreg_mem(loop->region, held[k].host) != TSAR_OK) {
      tsar_tr_refused_(loop, held[k].name);
      return 0;
    }
    held[k].host = NULL;
  }
  for (int k = 0; k < n; ++k) {
    if (held[k].host) continue;
    /* Kept after this execution, while the program may free the array: never page-locked. */
    tsar_mem_desc desc = want[k].desc;
    desc.flags |= TSAR_MEM_NO_PIN;
    if (tsar_reg_mem_desc(loop->region, want[k].host, &desc) != TSAR_OK) {
      tsar_tr_refused_(loop, want[k].name);
      return 0;
    }
    held[k] = want[k];
  }
  return 1;
}

/* Starts an execution of `loop` with its arrays `want` (num_buffers entries). Returns 1 with
 * the loop locked when TSAR runs it (tsar_tr_run, then tsar_tr_end), 0 when the loop must
 * run as written this time (the reason said once on stderr): a region that cannot be made
 * (no device of the allowed kinds, a bad schedule) stays off for good; a registration TSAR
 * refuses (e.g. two of the loop's arrays overlap) is tried again at the next execution. */
static inline int tsar_tr_begin(tsar_tr_loop* loop, const tsar_tr_buffer* want) {
  pthread_mutex_lock(&loop->lock);
  if (loop->state == TSAR_TR_NEW) tsar_tr_open_(loop);
  if (loop->state == TSAR_TR_READY && tsar_tr_register_(loop, want)) return 1;
  pthread_mutex_unlock(&loop->lock);
  return 0;
}

/* Runs one pass of iterations [first, end) of a loop tsar_tr_begin accepted (iteration i uses
 * row i of its arrays, tsar_run_range). A pass that fails leaves the loop's results
 * incomplete, so it ends the program with TSAR's reason. */
static inline void tsar_tr_run(tsar_tr_loop* loop, int64_t first, int64_t end, tsar_body_fn body,
                               void* args) {
  if (tsar_run_range(loop->region, first, end, body, args) != TSAR_OK) {
    fprintf(stderr, "tsar: %s: the pass failed: %s\n", loop->where, tsar_last_error());
    abort();
  }
}

/* Ends an execution tsar_tr_begin accepted (unlocks the loop). */
static inline void tsar_tr_end(tsar_tr_loop* loop) { pthread_mutex_unlock(&loop->lock); }

/* #pragma tsar depersist(x): every loop of this translation unit forgets array `host`, so its
 * device copies are freed and the next execution copies it anew. */
static inline void tsar_tr_depersist(const void* host) {
  for (tsar_tr_loop* l = __atomic_load_n(&tsar_tr_loops_, __ATOMIC_ACQUIRE); l; l = l->next) {
    pthread_mutex_lock(&l->lock);
    for (int k = 0; l->state == TSAR_TR_READY && k < l->num_buffers; ++k) {
      if (l->held[k].host != host) continue;
      if (tsar_unreg_mem(l->region, host) != TSAR_OK) tsar_tr_refused_(l, l->held[k].name);
      l->held[k].host = NULL;
    }
    pthread_mutex_unlock(&l->lock);
  }
}

/* Every loop of data block `data` forgets array `host` (called with the block's lock). */
static inline void tsar_tr_data_forget_(tsar_tr_data* data, const void* host) {
  for (tsar_tr_loop* l = data->loops; l; l = l->data_next) {
    pthread_mutex_lock(&l->lock);
    for (int k = 0; k < l->num_buffers; ++k) {
      if (l->held[k].host != host) continue;
      if (tsar_unreg_mem(l->region, host) != TSAR_OK) tsar_tr_refused_(l, l->held[k].name);
      l->held[k].host = NULL;
    }
    pthread_mutex_unlock(&l->lock);
  }
}

/* Enters data block `data` with its arrays `want` (num_buffers entries), and holds its lock
 * until tsar_tr_data_exit: the environment is made at the first entry; an array mapped at the
 * last entry has its device copies dropped (the host wins); a changed one replaces the old
 * one (which the block's loops forget). What TSAR refuses is said once; the loops then
 * register that array on their own. */
static inline void tsar_tr_data_enter(tsar_tr_data* data, const tsar_tr_buffer* want) {
  pthread_mutex_lock(&data->lock);
  if (data->state == TSAR_TR_NEW) {
    data->state = TSAR_TR_OFF;
    if (tsar_data_create(&data->env) == TSAR_OK) {
      memset(data->held, 0, sizeof(tsar_tr_buffer) * (size_t)data->num_buffers);
      data->state = TSAR_TR_READY;
      data->next = __atomic_load_n(&tsar_tr_datas_, __ATOMIC_RELAXED);
      while (!__atomic_compare_exchange_n(&tsar_tr_datas_, &data->next, data, 0,
                                          __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
      }
      tsar_tr_at_exit_();
    } else {
      tsar_tr_data_refused_(data, "the data environment");
    }
  }
  if (data->state != TSAR_TR_READY) return;
  for (int k = 0; k < data->num_buffers; ++k) {
    tsar_tr_buffer* held = &data->held[k];
    if (held->host == want[k].host && tsar_tr_same_shape_(&held->desc, &want[k].desc)) {
      if (tsar_data_update_device(data->env, held->host) != TSAR_OK)
        tsar_tr_data_refused_(data, held->name);
      continue;
    }
    if (held->host) {
      tsar_tr_data_forget_(data, held->host);
      if (tsar_data_unmap(data->env, held->host) != TSAR_OK) tsar_tr_data_refused_(data, held->name);
      held->host = NULL;
    }
    if (tsar_data_map(data->env, want[k].host, &want[k].desc) == TSAR_OK)
      *held = want[k];
    else
      tsar_tr_data_refused_(data, want[k].name);
  }
}

/* Leaves data block `data`: the rows devices own come back to the host for arrays mapped
 * from or tofrom; devices' copies of map(to:) arrays are dropped (the host keeps its values,
 * as OpenMP never copies those back). Unlocks the block. */
static inline void tsar_tr_data_exit(tsar_tr_data* data) {
  for (int k = 0; data->state == TSAR_TR_READY && k < data->num_buffers; ++k) {
    const tsar_tr_buffer* held = &data->held[k];
    if (!held->host) continue;
    const int status = (held->desc.flags & TSAR_MEM_OUT)
                           ? tsar_data_update_host(data->env, held->host)
                           : tsar_data_update_device(data->env, held->host);
    if (status != TSAR_OK) {
      fprintf(stderr, "tsar: %s: %s: bringing it back failed: %s\n", data->where, held->name,
              tsar_last_error());
      abort(); /* the program would read stale rows */
    }
  }
  pthread_mutex_unlock(&data->lock);
}

/* #pragma tsar update to(x) / from(x) inside data block `data`: to_device drops the devices'
 * copies of x (the program changed it on the host), else the rows devices own come back. An
 * array the block does not map is up to date on the host already. */
static inline void tsar_tr_data_update(tsar_tr_data* data, const void* host, int to_device) {
  for (int k = 0; data->state == TSAR_TR_READY && k < data->num_buffers; ++k) {
    if (data->held[k].host != host) continue;
    const int status = to_device ? tsar_data_update_device(data->env, host)
                                 : tsar_data_update_host(data->env, host);
    if (status != TSAR_OK) {
      fprintf(stderr, "tsar: %s: %s: update failed: %s\n", data->where, data->held[k].name,
              tsar_last_error());
      abort();
    }
  }
}

/* Rows of an array mapped as `total` elements in rows of `row` elements (0 when row is 0:
 * registration then refuses the array, with TSAR's message). */
static inline size_t tsar_tr_rows(size_t total, size_t row) { return row ? total / row : 0; }

#ifdef __cplusplus
} /* extern "C" */

#include <limits>

/* Identities of OpenMP's max and min reductions for any arithmetic T: -inf and +inf where T
 * has them, else its lowest and highest value. */
template <class T>
constexpr T tsar_tr_lowest() {
  return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::lowest();
}
template <class T>
constexpr T tsar_tr_highest() {
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::max();
}
#endif

#endif /* TSAR_TRANSLATED_H */
