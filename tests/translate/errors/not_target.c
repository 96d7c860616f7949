/* A CPU-only OpenMP loop has no accelerator branch to keep.
   expect 5:9: must be a combined OpenMP target loop */
void f(int n, double* x) {
#pragma tsar hetero(all) part_map(tofrom: x[i:1])
#pragma omp parallel for
  for (int i = 0; i < n; ++i) x[i] = 0;
}
