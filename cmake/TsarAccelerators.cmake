# SPDX-License-Identifier: BSD-3-Clause
# TSAR's accelerator backends, resolved once:
#   TSAR_CUDA     ON | OFF | AUTO   CUDA device backend and CUDA kernels (nvcc; /usr/local/cuda
#                                   is looked at when nvcc is not on PATH). AUTO builds it where
#                                   nvcc works and says so where it does not; ON requires it.
#   TSAR_OFFLOAD  none | nvptx | auto   GCC OpenMP offloading to NVIDIA GPUs for the targets that
#                                   hold target regions (gcc-12-offload-nvptx); auto as above.
# Results: TSAR_CUDA_ENABLED, TSAR_OFFLOAD_ENABLED, and tsar_enable_offload(<target>).
# The release preset asks for AUTO/auto, so CI builds both wherever the tools exist.

string(TOUPPER "${TSAR_CUDA}" _tsar_cuda)
set(TSAR_CUDA_ENABLED OFF)
if(_tsar_cuda STREQUAL "AUTO" OR _tsar_cuda)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(TSAR_CUDA_ENABLED ON)
  elseif(_tsar_cuda STREQUAL "AUTO")
    message(STATUS "TSAR: no working CUDA compiler (nvcc); the CUDA backend is not built")
  else()
    message(FATAL_ERROR "TSAR_CUDA=ON but no working CUDA compiler was found: install the CUDA "
                        "toolkit (nvcc, e.g. /usr/local/cuda) or set CMAKE_CUDA_COMPILER")
  endif()
endif()
if(TSAR_CUDA_ENABLED)
  # Hopper (H100/H200) machine code plus PTX, which newer GPUs compile when they load it.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  # One shared CUDA runtime for libtsar and the application's kernels (scripts/bundle.sh
  # ships it beside them).
  set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
  if(NOT CMAKE_CUDA_HOST_COMPILER)
    set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "TSAR: CUDA backend on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES})")
endif()

string(TOLOWER "${TSAR_OFFLOAD}" _tsar_offload)
set(TSAR_OFFLOAD_ENABLED OFF)
# GCC 12 defaults to sm_35, which CUDA 12+ ptxas rejects ("Value 'sm_35' is not defined")
# when it is on PATH; sm_80 PTX is JIT-compiled for newer GPUs by the driver.
set(TSAR_OFFLOAD_FLAGS -foffload=nvptx-none -foffload-options=nvptx-none=-misa=sm_80)
if(_tsar_offload STREQUAL "nvptx" OR _tsar_offload STREQUAL "auto")
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fopenmp ${TSAR_OFFLOAD_FLAGS}")
  string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${CMAKE_REQUIRED_FLAGS}")
  set(CMAKE_REQUIRED_LINK_OPTIONS -fopenmp ${TSAR_OFFLOAD_FLAGS} -Wl,-z,notext)
  check_cxx_source_compiles([=[
    int main() {
      int x = 0;
    #pragma omp target map(tofrom: x)
      x = 1;
      return x == 1 ? 0 : 1;
    }]=] TSAR_HAVE_NVPTX_OFFLOAD)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(TSAR_HAVE_NVPTX_OFFLOAD)
    set(TSAR_OFFLOAD_ENABLED ON)
    message(STATUS "TSAR: OpenMP offloading to nvptx on")
  elseif(_tsar_offload STREQUAL "auto")
    message(STATUS "TSAR: the compiler cannot offload to nvptx-none (gcc-12-offload-nvptx); "
                   "target regions run on the host")
  else()
    message(FATAL_ERROR "TSAR_OFFLOAD=nvptx but ${CMAKE_CXX_COMPILER} cannot offload to "
                        "nvptx-none: install gcc-12-offload-nvptx (scripts/bootstrap.sh)")
  endif()
elseif(NOT _tsar_offload STREQUAL "none")
  message(FATAL_ERROR "TSAR_OFFLOAD is '${TSAR_OFFLOAD}': expected none, nvptx or auto")
endif()

# tsar_enable_offload(<target>): compiles the target's OpenMP target regions (C and C++) for
# NVIDIA GPUs (when TSAR_OFFLOAD_ENABLED; otherwise they run on the host) and defines
# TSAR_OFFLOAD_NVPTX.
function(tsar_enable_offload target)
  target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C OpenMP::OpenMP_CXX)
  if(NOT TSAR_OFFLOAD_ENABLED)
    # GCC built with offloading would otherwise compile target regions for its default
    # device (sm_35), which recent ptxas rejects.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
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
