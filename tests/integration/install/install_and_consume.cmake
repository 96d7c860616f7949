# SPDX-License-Identifier: BSD-3-Clause
# cmake -P script: installs the build tree into a fresh prefix, then proves the install works
# for users: a CMake project (find_package(Symmer), and TSAR when installed) and a pkg-config
# build compile against it and run with no LD_LIBRARY_PATH (RPATH), as does installed symmerctl.
# Inputs: BINARY_DIR, SOURCE_DIR, WORK_DIR, CXX, GENERATOR.
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
    -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix}
    -DEXPECT_TSAR=${expect_tsar})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run(${WORK_DIR}/cmake-build/consumer)
message(STATUS "find_package(Symmer) consumer: ${run_output}")

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
  run(${PKG_CONFIG} --exists --print-errors tsar)
endif()

# 3. The installed program finds its library through its RUNPATH.
run(${prefix}/bin/symmerctl topology --synthetic "pack:1 core:2 pu:1")
if(NOT run_output MATCHES "2 core\\(s\\)")
  message(FATAL_ERROR "installed symmerctl printed: ${run_output}")
endif()
message(STATUS "installed symmerctl runs: ${run_output}")
file(REMOVE_RECURSE ${WORK_DIR})
