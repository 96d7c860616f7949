# SPDX-License-Identifier: BSD-3-Clause
# Helpers every test directory uses, so labels, timeouts and core budgets stay uniform.
#   unit    - pure in-process tests (GoogleTest)
#   mpi     - real mpiexec runs; they reserve one core per rank (MPICH busy-polls)
#   daemon  - a real symmerd on a temporary socket
#   gpu     - need an accelerator; exit 77 (skipped) with a message where none exists
if(SYMMER_BUILD_TESTS)
  include(GoogleTest)
endif()

# symmer_add_gtest(<name> SOURCES <src...> [LIBRARIES <lib...>] [LABELS <label...>])
# Builds a GoogleTest binary into build/tests and registers each TEST as a ctest case.
function(symmer_add_gtest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;LABELS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE GTest::gmock GTest::gtest_main symmer_warnings ${ARG_LIBRARIES})
  target_compile_definitions(${name} PRIVATE
    SYMMER_SOURCE_DIR="${PROJECT_SOURCE_DIR}" SYMMER_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT 120 SKIP_RETURN_CODE 77)
endfunction()

# symmer_set_test_resources(<test> RANKS <n> [LABELS <label...>] [TIMEOUT <s>])
# Marks a test that runs <n> busy-polling processes: ctest -j never oversubscribes cores.
function(symmer_set_test_resources test)
  cmake_parse_arguments(ARG "" "RANKS;TIMEOUT" "LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set_tests_properties(${test} PROPERTIES PROCESSORS ${ARG_RANKS} LABELS "${ARG_LABELS}"
                       TIMEOUT ${ARG_TIMEOUT} SKIP_RETURN_CODE 77)
endfunction()

# symmer_add_subdirectories() adds every direct child folder that has a CMakeLists.txt, so
# each part of the project owns its own test/app folder without editing a shared list.
macro(symmer_add_subdirectories)
  file(GLOB _children LIST_DIRECTORIES true RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}
       ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT _children)
  foreach(_child IN LISTS _children)
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${_child}/CMakeLists.txt)
      add_subdirectory(${_child})
    endif()
  endforeach()
endmacro()
