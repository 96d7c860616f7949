/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tsar/status.h
 * Status codes and the calling thread's last error. Part of tsar.h. */
#ifndef TSAR_STATUS_H
#define TSAR_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup tsar_status Status codes and errors
 * Every TSAR call returns a tsar_status (TSAR_OK = 0 on success) unless its documentation
 * says otherwise. A failing call records a message naming what was wrong, which
 * tsar_last_error() returns; calls that return something else (a pointer, a count) report
 * their failure the same way, through tsar_last_status().
 * @{ */

/** What a TSAR call returns. */
typedef enum tsar_status {
  TSAR_OK = 0,              /**< success */
  TSAR_ERR_NULL = 1,        /**< a required pointer argument is NULL */
  TSAR_ERR_INVALID = 2,     /**< an argument is out of range (negative size, bad flags...) */
  TSAR_ERR_SCHEDULE = 3,    /**< unknown schedule name or bad schedule parameter */
  TSAR_ERR_DEVICES = 4,     /**< no device of the allowed kinds, or a bad device list */
  TSAR_ERR_REGISTERED = 5,  /**< buffer or reduction already registered (or overlapping one) */
  TSAR_ERR_UNKNOWN = 6,     /**< buffer or reduction not registered with this region */
  TSAR_ERR_THREADS = 7,     /**< called from a thread that is not a worker of the region */
  TSAR_ERR_STATE = 8,       /**< not allowed now (e.g. registering memory during a pass) */
  TSAR_ERR_CANCELED = 9,    /**< the pass was canceled (tsar_cancel or a failing body) */
  TSAR_ERR_IO = 10,         /**< cache or trace file could not be read or written */
  TSAR_ERR_SYSTEM = 11,     /**< out of memory, thread creation or binding failed */
  TSAR_ERR_UNSUPPORTED = 12 /**< the device kind cannot do this in this build */
} tsar_status;

/** A static description of a status code ("invalid argument").
 * @return never NULL; "unknown status code" for a value that is no tsar_status. */
const char* tsar_status_string(int status);

/** The message of the last failing TSAR call in the calling thread, naming the call and what
 * was wrong.
 * @return "" when no call failed; valid until the thread's next failing call. */
const char* tsar_last_error(void);

/** The status of the last failing TSAR call in the calling thread. Calls that return no
 * status (tsar_loop, tsar_mem, tsar_num_devices...) set it too.
 * @return TSAR_OK when no call failed. */
int tsar_last_status(void);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSAR_STATUS_H */
