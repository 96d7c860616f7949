// SPDX-License-Identifier: BSD-3-Clause
// C++: the loop may not use members through 'this' (copy them into locals first).
//   expect 11:25: the loop uses members of 'this'
struct Grid {
  int n;
  double scale;
  double* v;
  void run() {
#pragma tsar hetero(all) part_map(tofrom: v[i:1])
#pragma omp target teams distribute parallel for map(tofrom: v[0:n])
    for (int i = 0; i < n; ++i) v[i] *= scale;
  }
};
