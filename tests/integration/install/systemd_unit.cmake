# SPDX-License-Identifier: BSD-3-Clause
# cmake -P script: installs the build tree into a fresh prefix and checks the systemd unit it
# got: in <prefix>/lib/systemd/system, naming the installed symmerd, configuration and
# documentation (all present), accepted by `systemd-analyze verify`, and rated at most 2.5 by
# `systemd-analyze security` (its exposure scale is 0-10; --threshold takes tenths).
# Inputs: BINARY_DIR, WORK_DIR, ANALYZE (systemd-analyze).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

run(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})
set(unit ${prefix}/lib/systemd/system/symmerd.service)
if(NOT EXISTS ${unit})
  message(FATAL_ERROR "cmake --install put no unit at ${unit}")
endif()
file(STRINGS ${unit} lines REGEX "^(ExecStart|ExecStartPre|Documentation)=")
foreach(line IN LISTS lines)
  string(REGEX MATCHALL "(file://)?/[^ ]+" paths "${line}")
  foreach(path IN LISTS paths)
    string(REGEX REPLACE "^file://" "" path "${path}")
    string(FIND "${path}" "${prefix}/" at)
    if(NOT at EQUAL 0)
      message(FATAL_ERROR "${unit}: ${line}: ${path} is not in the install prefix ${prefix}")
    endif()
    if(NOT EXISTS ${path})
      message(FATAL_ERROR "${unit}: ${line}: ${path} was not installed")
    endif()
  endforeach()
endforeach()
run(${ANALYZE} verify --man=no ${unit})
message(STATUS "systemd-analyze verify: ok ${run_output}")
run(${ANALYZE} security --offline=true --threshold=25 ${unit})
string(REGEX MATCH "Overall exposure level[^\n]*" overall "${run_output}")
message(STATUS "systemd-analyze security: ${overall}")
