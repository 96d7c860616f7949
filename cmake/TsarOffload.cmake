# SPDX-License-Identifier: BSD-3-Clause
# GCC OpenMP offloading to NVIDIA GPUs for programs with TSAR bodies, in TSAR's build and in
# projects using the installed package (find_package(TSAR) includes this file):
#   tsar_check_offload(<none|nvptx|auto>)  sets TSAR_OFFLOAD_ENABLED: whether the compiler
#                                          offloads to nvptx-none (gcc-12-offload-nvptx);
#                                          nvptx requires it, auto says so when it cannot
#   tsar_enable_offload(<target>)          compiles the target's OpenMP target regions (C and
#                                          C++) for NVIDIA GPUs when TSAR_OFFLOAD_ENABLED
#                                          (otherwise they run on the host) and defines
#                                          TSAR_OFFLOAD_NVPTX=1 there
include_guard(GLOBAL)

# GCC 12 defaults to sm_35, which CUDA 12+ ptxas rejects ("Value 'sm_35' is not defined")
# when it is on PATH; sm_80 PTX is JIT-compiled for newer GPUs by the driver.
set(TSAR_OFFLOAD_FLAGS -foffload=nvptx-none -foffload-options=nvptx-none=-misa=sm_80)

macro(tsar_check_offload mode)
  string(TOLOWER "${mode}" _tsar_offload)
  set(TSAR_OFFLOAD_ENABLED OFF)
  if(_tsar_offload STREQUAL "nvptx" OR _tsar_offload STREQUAL "auto")
    get_property(_tsar_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    set(CMAKE_REQUIRED_FLAGS "-fopenmp ${TSAR_OFFLOAD_FLAGS}")
    string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${CMAKE_REQUIRED_FLAGS}")
    set(CMAKE_REQUIRED_LINK_OPTIONS -fopenmp ${TSAR_OFFLOAD_FLAGS} -Wl,-z,notext)
    set(_tsar_probe [=[
      int main(void) {
        int x = 0;
      #pragma omp target map(tofrom: x)
        x = 1;
        return x == 1 ? 0 : 1;
      }]=])
    if("CXX" IN_LIST _tsar_languages)
      include(CheckCXXSourceCompiles)
      check_cxx_source_compiles("${_tsar_probe}" TSAR_HAVE_NVPTX_OFFLOAD)
    else()
      include(CheckCSourceCompiles)
      check_c_source_compiles("${_tsar_probe}" TSAR_HAVE_NVPTX_OFFLOAD)
    endif()
    unset(CMAKE_REQUIRED_FLAGS)
    unset(CMAKE_REQUIRED_LINK_OPTIONS)
    if(TSAR_HAVE_NVPTX_OFFLOAD)
      set(TSAR_OFFLOAD_ENABLED ON)
      message(STATUS "TSAR: OpenMP offloading to nvptx on")
    elseif(_tsar_offload STREQUAL "auto")
      message(STATUS "TSAR: the compiler cannot offload to nvptx-none (gcc-12-offload-nvptx); "
                     "target regions run on the host")
    else()
      message(FATAL_ERROR "TSAR_OFFLOAD=nvptx but the compiler cannot offload to nvptx-none: "
                          "install gcc-12-offload-nvptx")
    endif()
  elseif(NOT _tsar_offload STREQUAL "none")
    message(FATAL_ERROR "TSAR_OFFLOAD is '${mode}': expected none, nvptx or auto")
  endif()
endmacro()

function(tsar_enable_offload target)
  foreach(lang C CXX)
    if(TARGET OpenMP::OpenMP_${lang})
      target_link_libraries(${target} PRIVATE OpenMP::OpenMP_${lang})
    endif()
  endforeach()
  if(NOT TSAR_OFFLOAD_ENABLED)
    # GCC built with offloading would otherwise compile target regions for its default
    # device (sm_35), which recent ptxas rejects.
    if(CMAKE_C_COMPILER_ID STREQUAL "GNU" OR CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:-foffload=disable>)
      target_link_options(${target} PRIVATE -foffload=disable)
    endif()
    return()
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:${TSAR_OFFLOAD_FLAGS}>)
  # -z notext: Debian's crtoffloadtable.o is not position-independent (harmless text
  # relocations, which the linker would warn about).
  # -lm for the GPU as well: bodies may call sqrt, exp...
  target_link_options(${target} PRIVATE -fopenmp ${TSAR_OFFLOAD_FLAGS} -foffload-options=-lm
                      -Wl,-z,notext)
  target_compile_definitions(${target} PRIVATE TSAR_OFFLOAD_NVPTX=1)
endfunction()
