# SPDX-License-Identifier: BSD-3-Clause
# cmake -P script: installs the build tree into a fresh prefix, then proves the install works
# for users: a CMake project (find_package(Symmer), and TSAR when installed) and a pkg-config
# build compile against it and run with no LD_LIBRARY_PATH (RPATH), as does installed symmerctl.
# TSAR, when installed: the CMake consumer's C program with tsar_enable_offload runs; a C
# program builds with `pkg-config tsar` alone (no other package's .pc is found) and runs with
# the libdir on LD_LIBRARY_PATH (tsar.pc sets no run path); the Fortran test programs (a
# region, NUMA partitions) build against the installed module and run.
# Inputs: BINARY_DIR, SOURCE_DIR, WORK_DIR, CXX, CC, FC (empty without Fortran), GENERATOR.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
unset(ENV{LD_LIBRARY_PATH})

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

run(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})
file(GLOB_RECURSE pcs ${prefix}/*/symmer.pc)
list(GET pcs 0 symmer_pc)
get_filename_component(pc_dir ${symmer_pc} DIRECTORY)
set(expect_tsar OFF)
if(EXISTS ${pc_dir}/tsar.pc)
  set(expect_tsar ON)
endif()

# 1. CMake consumer.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/integration/install/consumer -B ${WORK_DIR}/cmake-build
    -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${CC}
    -DCMAKE_PREFIX_PATH=${prefix}
    -DEXPECT_TSAR=${expect_tsar})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run(${WORK_DIR}/cmake-build/consumer)
message(STATUS "find_package(Symmer) consumer: ${run_output}")
if(expect_tsar)
  # The GPU branch runs too: an OpenMP target device on the host (omphost).
  set(ENV{TSAR_DEVICES} "cpu:0,omphost:0")
  run(${WORK_DIR}/cmake-build/tsar-consumer)
  unset(ENV{TSAR_DEVICES})
  message(STATUS "find_package(TSAR) consumer: ${run_output}")
endif()

# 2. pkg-config consumer.
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
run(${PKG_CONFIG} --cflags --libs symmer)
string(STRIP "${run_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} -std=c++20 ${SOURCE_DIR}/tests/integration/install/consumer/main.cpp ${flags}
    -o ${WORK_DIR}/pc-consumer)
run(${WORK_DIR}/pc-consumer)
message(STATUS "pkg-config consumer: ${run_output}")
if(expect_tsar)
  # Only TSAR's own .pc files: symmer.pc removed, the system's directories not searched.
  file(REMOVE ${pc_dir}/symmer.pc)
  set(ENV{PKG_CONFIG_PATH} "")
  set(ENV{PKG_CONFIG_LIBDIR} ${pc_dir})
  run(${PKG_CONFIG} --cflags --libs tsar)
  string(STRIP "${run_output}" flags)
  if(flags MATCHES "rpath")
    message(FATAL_ERROR "tsar.pc sets a run path: ${flags}")
  endif()
  # The offloading flags tsar.pc carries (the compiler here may offload to nvptx).
  run(${PKG_CONFIG} --variable=offload_libs tsar)
  string(STRIP "${run_output}" offload)
  separate_arguments(flags UNIX_COMMAND "${flags} ${offload}")
  run(${CC} -std=c11 ${SOURCE_DIR}/tests/integration/install/consumer/tsar_consumer.c ${flags}
      -o ${WORK_DIR}/tsar-pc-consumer)
  run(${PKG_CONFIG} --variable=libdir tsar)
  string(STRIP "${run_output}" libdir)
  set(ENV{LD_LIBRARY_PATH} ${libdir})
  run(${WORK_DIR}/tsar-pc-consumer)
  message(STATUS "pkg-config tsar consumer (C): ${run_output}")
  if(FC)
    foreach(program fortran_example fortran_partition)
      run(${FC} -fopenmp -I${prefix}/include/tsar/fortran
          ${SOURCE_DIR}/tests/unit/tsar/${program}.f90 -L${libdir} -ltsar_fortran -ltsar
          -o ${WORK_DIR}/tsar-${program})
      run(${WORK_DIR}/tsar-${program})
      message(STATUS "Fortran consumer (use tsar): ${run_output}")
    endforeach()
  endif()
  unset(ENV{LD_LIBRARY_PATH})
endif()

# 3. The installed program finds its library through its RUNPATH.
run(${prefix}/bin/symmerctl topology --synthetic "pack:1 core:2 pu:1")
if(NOT run_output MATCHES "2 core\\(s\\)")
  message(FATAL_ERROR "installed symmerctl printed: ${run_output}")
endif()
message(STATUS "installed symmerctl runs: ${run_output}")
file(REMOVE_RECURSE ${WORK_DIR})
