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

# TSAR_OFFLOAD_ENABLED and tsar_enable_offload(<target>): TsarOffload.cmake, which the
# installed package carries too.
include(TsarOffload)
tsar_check_offload("${TSAR_OFFLOAD}")
