// SPDX-License-Identifier: BSD-3-Clause
// STREAM (McCalpin): copy, scale, add and triad over three arrays, ten times per run; an
// iteration is one element. Memory bound and regular. Checked the way STREAM checks itself:
// every element of each array must equal the scalar the same sequence gives.
#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

constexpr double kScalar = 3.0;

struct StreamView {
  double *a, *b, *c;
  StreamView translated(const Translate& t) const {
    return {translate(t, a), translate(t, b), translate(t, c)};
  }
};

#pragma omp declare target
void stream_copy(const StreamView& v, std::int64_t i) { v.c[i] = v.a[i]; }
void stream_scale(const StreamView& v, std::int64_t i) { v.b[i] = kScalar * v.c[i]; }
void stream_add(const StreamView& v, std::int64_t i) { v.c[i] = v.a[i] + v.b[i]; }
void stream_triad(const StreamView& v, std::int64_t i) { v.a[i] = v.b[i] + kScalar * v.c[i]; }
#pragma omp end declare target

class Stream final : public Kernel {
 public:
  const char* name() const override { return "stream"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "STREAM copy, scale, add, triad; an element per iteration";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 4096, 1 << 19, 1 << 22, 1 << 25);
    times_ = by_scale(scale, 2, 10, 10, 10);
    const auto n = static_cast<std::size_t>(n_);
    a_.assign(n, 1.0);
    b_.assign(n, 2.0);
    c_.assign(n, 0.0);
    view_ = {a_.data(), b_.data(), c_.data()};
    const auto in = [&](const char* name, std::vector<double>& x) {
      return rows_buffer(name, x.data(), n, 1, TSAR_MEM_IN);
    };
    const auto out = [&](const char* name, std::vector<double>& x) {
      return rows_buffer(name, x.data(), n, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
    };
    set_loops({make_loop<StreamView, stream_copy>("stream.copy", &view_, 16.0,
                                                  {in("a", a_), out("c", c_)}),
               make_loop<StreamView, stream_scale>("stream.scale", &view_, 16.0,
                                                   {in("c", c_), out("b", b_)}),
               make_loop<StreamView, stream_add>("stream.add", &view_, 24.0,
                                                 {in("a", a_), in("b", b_), out("c", c_)}),
               make_loop<StreamView, stream_triad>("stream.triad", &view_, 24.0,
                                                   {in("b", b_), in("c", c_), out("a", a_)})});
  }
  std::string size_text() const override {
    return std::to_string(n_) + " elements per array, " + std::to_string(times_) + " times";
  }
  std::int64_t passes_per_run() const override { return 4 * times_; }

  void reset() override {
    std::fill(a_.begin(), a_.end(), 1.0);
    std::fill(b_.begin(), b_.end(), 2.0);
    std::fill(c_.begin(), c_.end(), 0.0);
  }
  void run(const Parallel& parallel) override {
    for (int t = 0; t < times_; ++t)
      for (const auto& loop : loops()) parallel(loop, n_);
  }

  void compute_reference() override {
    double a = 1.0, b = 2.0, c = 0.0;
    for (int t = 0; t < times_; ++t) {
      c = a;
      b = kScalar * c;
      c = a + b;
      a = b + kScalar * c;
    }
    ref_a_ = a;
    ref_b_ = b;
    ref_c_ = c;
  }
  Check check() const override {
    return worse(worse(compare_to_value("a", a_.data(), a_.size(), ref_a_, 1e-13),
                       compare_to_value("b", b_.data(), b_.size(), ref_b_, 1e-13)),
                 compare_to_value("c", c_.data(), c_.size(), ref_c_, 1e-13));
  }

 private:
  std::int64_t n_ = 0;
  int times_ = 0;
  std::vector<double> a_, b_, c_;
  double ref_a_ = 0.0, ref_b_ = 0.0, ref_c_ = 0.0;
  StreamView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_stream() { return std::make_unique<Stream>(); }

}  // namespace tsar::kernels
