// SPDX-License-Identifier: BSD-3-Clause
// A program that does not use MPI: symmer-run must run it unmonitored, unchanged.
#include <cstdio>

int main(int argc, char** argv) {
  std::printf("not an MPI program, %d arguments\n", argc - 1);
  return argc > 1 && argv[1][0] == 'x' ? 3 : 0;
}
