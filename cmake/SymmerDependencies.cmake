# SPDX-License-Identifier: BSD-3-Clause
# Every external dependency, found once. scripts/bootstrap.sh installs the Debian packages
# named beside each one.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED)                                        # gcc (libgomp)

pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc>=2.0)         # libhwloc-dev
pkg_check_modules(NUMA REQUIRED IMPORTED_TARGET numa)                # libnuma-dev
pkg_check_modules(PAPI REQUIRED IMPORTED_TARGET papi)                # libpapi-dev
find_package(Boost 1.74 REQUIRED)                                    # libboost-dev (Asio)
find_package(nlohmann_json 3.10 REQUIRED)                            # nlohmann-json3-dev
find_package(CLI11 REQUIRED)                                         # libcli11-dev
find_package(tomlplusplus REQUIRED)                                  # libtomlplusplus-dev
if(SYMMER_FUZZ)
  # Fuzzing compiles toml++ from its headers, so its code runs under the sanitizers too.
  set_target_properties(tomlplusplus::tomlplusplus PROPERTIES
    INTERFACE_COMPILE_OPTIONS "-DTOML_HEADER_ONLY=1")
endif()
find_package(spdlog REQUIRED)                                        # libspdlog-dev

# MPI: MPICH is the primary target; the PMPI shim is also built against Open MPI when present.
# Both are named explicitly because Debian's mpicc/mpiexec alternatives may point at either.
pkg_check_modules(MPICH REQUIRED IMPORTED_TARGET mpich)              # libmpich-dev
find_program(SYMMER_MPIEXEC NAMES mpiexec.mpich mpiexec.hydra REQUIRED)   # mpich
pkg_check_modules(OMPI IMPORTED_TARGET ompi-c)                       # libopenmpi-dev
find_program(SYMMER_OMPI_MPIEXEC NAMES mpiexec.openmpi)              # openmpi-bin

if(SYMMER_BUILD_TESTS)
  find_package(GTest REQUIRED)                                       # libgtest-dev libgmock-dev
endif()
if(SYMMER_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)                                   # libbenchmark-dev
endif()

include(TsarAccelerators)                                            # nvcc, gcc-12-offload-nvptx
