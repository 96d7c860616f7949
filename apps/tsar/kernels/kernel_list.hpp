// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The constructor of each kernel (one per source file), for kernel_list.cpp.

#include <memory>

#include "kernel.hpp"

namespace tsar::kernels {

std::unique_ptr<Kernel> make_gemm();
std::unique_ptr<Kernel> make_kmeans();
std::unique_ptr<Kernel> make_jacobi();
std::unique_ptr<Kernel> make_cg();
std::unique_ptr<Kernel> make_nbody();
std::unique_ptr<Kernel> make_stream();
std::unique_ptr<Kernel> make_atax();
std::unique_ptr<Kernel> make_bicg();
std::unique_ptr<Kernel> make_corr();
std::unique_ptr<Kernel> make_covar();
std::unique_ptr<Kernel> make_gesummv();
std::unique_ptr<Kernel> make_mvt();
std::unique_ptr<Kernel> make_syrk();
std::unique_ptr<Kernel> make_syr2k();
std::unique_ptr<Kernel> make_2mm();
std::unique_ptr<Kernel> make_3mm();
std::unique_ptr<Kernel> make_2dconv();
std::unique_ptr<Kernel> make_3dconv();
std::unique_ptr<Kernel> make_fdtd2d();
std::unique_ptr<Kernel> make_gramschmidt();
std::unique_ptr<Kernel> make_bicgstab();
std::unique_ptr<Kernel> make_residual();
std::unique_ptr<Kernel> make_wave();

}  // namespace tsar::kernels
