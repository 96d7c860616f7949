# SPDX-License-Identifier: BSD-3-Clause
# cmake -P script: installs the build tree into a fresh prefix; the installed tsar-translate
# runs (--version), and a project outside the tree builds with the installed tsar_translate()
# and runs correctly on a CPU core and the host-as-device accelerator.
# Inputs: BINARY_DIR, SOURCE_DIR, WORK_DIR, CC, GENERATOR.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
unset(ENV{LD_LIBRARY_PATH})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})
run(${prefix}/bin/tsar-translate --version)
message(STATUS "installed: ${run_output}")
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/translate/consumer -B ${WORK_DIR}/build
    -G ${GENERATOR} -DCMAKE_C_COMPILER=${CC} -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
set(ENV{TSAR_DEVICES} "cpu:0,omphost:1")
run(${WORK_DIR}/build/consumer)
if(NOT run_output MATCHES "^ok")
  message(FATAL_ERROR "the consumer printed: ${run_output}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
