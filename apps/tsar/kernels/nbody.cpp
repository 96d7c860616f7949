// SPDX-License-Identifier: BSD-3-Clause
// GEM-like n-body potential (thesis 4.5.3): the electrostatic potential at each vertex of a
// molecular surface from every atom's charge (softened Coulomb sum), one pass per run like
// GEM. Iteration v computes vertex v; regular and compute bound.
#include <cmath>

#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct NbodyView {
  const double* vertex;  // nvert x 3
  const double* atom;    // natoms x 4: x, y, z, charge
  double* phi;           // nvert
  std::int64_t natoms;
  NbodyView translated(const Translate& t) const {
    NbodyView v = *this;
    v.vertex = translate(t, vertex);
    v.atom = translate(t, atom);
    v.phi = translate(t, phi);
    return v;
  }
};

constexpr double kSoftening = 1e-3;

#pragma omp declare target
void nbody_vertex(const NbodyView& v, std::int64_t i) {
  const double x = v.vertex[3 * i], y = v.vertex[3 * i + 1], z = v.vertex[3 * i + 2];
  double phi = 0.0;
  for (std::int64_t a = 0; a < v.natoms; ++a) {
    const double* at = v.atom + 4 * a;
    const double dx = x - at[0], dy = y - at[1], dz = z - at[2];
    phi += at[3] / std::sqrt(dx * dx + dy * dy + dz * dz + kSoftening);
  }
  v.phi[i] = phi;
}
#pragma omp end declare target

class Nbody final : public Kernel {
 public:
  const char* name() const override { return "nbody"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "GEM-like electrostatic potential: every atom's charge at every surface vertex";
  }

  void setup(Scale scale) override {
    nvert_ = by_scale<std::int64_t>(scale, 256, 4096, 16384, 65536);
    natoms_ = by_scale<std::int64_t>(scale, 64, 512, 2048, 8192);
    vertex_ = uniform(static_cast<std::size_t>(3 * nvert_), 31, -10.0, 10.0);
    atom_ = uniform(static_cast<std::size_t>(4 * natoms_), 32, -8.0, 8.0);
    for (std::int64_t a = 0; a < natoms_; ++a) atom_[4 * a + 3] /= 8.0;  // charges in [-1, 1)
    phi_.assign(static_cast<std::size_t>(nvert_), 0.0);
    view_ = {vertex_.data(), atom_.data(), phi_.data(), natoms_};
    const auto nv = static_cast<std::size_t>(nvert_);
    set_loops({make_loop<NbodyView, nbody_vertex>(
        "nbody", &view_, 32.0,
        {rows_buffer("vertex", vertex_.data(), nv, 3, TSAR_MEM_IN),
         full_buffer("atom", atom_.data(), static_cast<std::size_t>(natoms_), 4),
         rows_buffer("phi", phi_.data(), nv, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)})});
  }
  std::string size_text() const override {
    return std::to_string(nvert_) + " vertices, " + std::to_string(natoms_) + " atoms";
  }
  std::int64_t passes_per_run() const override { return 1; }

  void reset() override { std::fill(phi_.begin(), phi_.end(), 0.0); }
  void run(const Parallel& parallel) override { parallel(loops()[0], nvert_); }

  void compute_reference() override {
    ref_.assign(phi_.size(), 0.0);
    for (std::int64_t i = 0; i < nvert_; ++i) {
      double phi = 0.0;
      for (std::int64_t a = 0; a < natoms_; ++a) {
        const double dx = vertex_[3 * i] - atom_[4 * a];
        const double dy = vertex_[3 * i + 1] - atom_[4 * a + 1];
        const double dz = vertex_[3 * i + 2] - atom_[4 * a + 2];
        phi += atom_[4 * a + 3] / std::sqrt(dx * dx + dy * dy + dz * dz + kSoftening);
      }
      ref_[i] = phi;
    }
  }
  Check check() const override {
    return compare("phi", phi_.data(), ref_.data(), phi_.size(), 1e-12);
  }

 private:
  std::int64_t nvert_ = 0, natoms_ = 0;
  std::vector<double> vertex_, atom_, phi_, ref_;
  NbodyView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_nbody() { return std::make_unique<Nbody>(); }

}  // namespace tsar::kernels
