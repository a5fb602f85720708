#include "test_support.hpp"

#include <cmath>
#include <memory>
#include <random>
#include <sstream>

namespace vkgemm::test {

namespace {
std::vector<std::string>& messages() {
  static std::vector<std::string> m;
  return m;
}
std::unique_ptr<Context>& context_slot() {
  static std::unique_ptr<Context> ctx;
  return ctx;
}

// Destroys the context after the last test and fails the run if teardown produced validation messages
// (e.g. leaked objects reported at vkDestroyDevice).
class ContextEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    size_t before = messages().size();
    context_slot().reset();
    EXPECT_EQ(messages().size(), before) << "validation messages at context teardown:\n"
                                         << (messages().empty() ? "" : messages().back());
  }
};
[[maybe_unused]] auto* const environment = ::testing::AddGlobalTestEnvironment(new ContextEnvironment);
}  // namespace

Context& context() {
  auto& slot = context_slot();
  if (!slot) {
    ContextOptions options;
    options.validation = true;
    options.on_validation_message = [](const std::string& m) { messages().push_back(m); };
    slot = std::make_unique<Context>(options);
  }
  return *slot;
}

const std::vector<std::string>& validation_messages() {
  return messages();
}

void GpuTest::SetUp() {
  context();
  messages_before_ = messages().size();
}

void GpuTest::TearDown() {
  const auto& m = messages();
  for (size_t i = messages_before_; i < m.size(); ++i) ADD_FAILURE() << "validation message: " << m[i];
}

std::vector<float> random_floats(size_t count, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(rng);
  return v;
}

namespace {
// C = A @ B in double, or sum |A||B| with `absolute`.
std::vector<double> gemm_in_double(const std::vector<float>& a, const std::vector<float>& b, uint32_t m,
                                   uint32_t n, uint32_t k, bool absolute) {
  std::vector<double> c(size_t(m) * n, 0.0);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t p = 0; p < k; ++p) {
      double av = a[size_t(i) * k + p];
      if (absolute) av = std::fabs(av);
      const float* brow = &b[size_t(p) * n];
      double* crow = &c[size_t(i) * n];
      for (uint32_t j = 0; j < n; ++j) crow[j] += av * (absolute ? std::fabs(brow[j]) : brow[j]);
    }
  return c;
}
}  // namespace

std::vector<double> reference_gemm(const std::vector<float>& a, const std::vector<float>& b, uint32_t m,
                                   uint32_t n, uint32_t k) {
  return gemm_in_double(a, b, m, n, k, false);
}

std::vector<double> reference_gemm_abs(const std::vector<float>& a, const std::vector<float>& b, uint32_t m,
                                       uint32_t n, uint32_t k) {
  return gemm_in_double(a, b, m, n, k, true);
}

::testing::AssertionResult near_reference(const std::vector<float>& got, const std::vector<double>& want,
                                          const std::vector<double>& abs_scale, uint32_t k,
                                          double tol_per_term) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != expected " << want.size();
  size_t bad = 0;
  std::ostringstream first;
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::fabs(double(got[i]) - want[i]);
    double tol = tol_per_term * k * abs_scale[i] + 1e-30;
    if (!(err <= tol)) {  // also catches NaN
      if (bad < 5)
        first << "\n  [" << i << "] got " << got[i] << ", want " << want[i] << " (tol " << tol << ")";
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements wrong:" << first.str();
}

}  // namespace vkgemm::test
