// SPDX-License-Identifier: BSD-3-Clause
#include <stdint.h>
void saxpy(int64_t n, double a, const double* x, double* y);
