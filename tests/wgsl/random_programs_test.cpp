// Random well-typed programs (statements, expressions, built-ins, helper functions) through the whole
// pipeline: a validator failure on an accepted program is a compiler bug.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "program_generator.hpp"
#include "test_util.hpp"

namespace vkgemm::wgsl {
namespace {

TEST(RandomPrograms, AcceptedProgramsValidate) {
  int accepted = 0;
  // WGSL_RANDOM_PROGRAMS=N runs a longer sweep (CI keeps the default short).
  const char* env = std::getenv("WGSL_RANDOM_PROGRAMS");
  const int count = env ? std::atoi(env) : 200;
  const int first = env && std::getenv("WGSL_RANDOM_FIRST") ? std::atoi(std::getenv("WGSL_RANDOM_FIRST")) : 0;
  for (int seed = first; seed < first + count; ++seed) {
    std::mt19937 rng(static_cast<uint32_t>(seed));
    testing::ProgramGenerator gen([&] { return static_cast<uint32_t>(rng()); });
    std::string src = gen.generate();
    CompileOptions o;
    o.file_name = "random" + std::to_string(seed) + ".wgsl";
    CompileResult r = compile(src, o);
    ASSERT_FALSE(r.internal_error) << r.formatted_diagnostics << "\n" << src;
    if (r.ok) {
      ++accepted;
    } else {
      // Rejections may only come from constant evaluation (e.g. a constant division by zero).
      bool const_eval_error = r.formatted_diagnostics.find("division by zero") != std::string::npos ||
                              r.formatted_diagnostics.find("cannot be represented") != std::string::npos ||
                              r.formatted_diagnostics.find("out of domain") != std::string::npos ||
                              r.formatted_diagnostics.find("shift amount") != std::string::npos;
      EXPECT_TRUE(const_eval_error) << r.formatted_diagnostics << "\n" << src;
    }
    if (seed % 25 == 0 && r.ok) {
      o.optimize = true;  // and spirv-opt keeps them valid
      EXPECT_TRUE(compile(src, o).ok) << src;
    }
    if (seed % 10 == 0 && r.ok) {
      CompileOptions robust;
      robust.robust_access = true;
      EXPECT_TRUE(compile(src, robust).ok) << src;
    }
  }
  std::printf("[ random   ] %d of %d random programs accepted\n", accepted, count);
  EXPECT_GE(accepted, count * 3 / 4);  // the rest: constant overflow (shifts, exp2, products)
}

}  // namespace
}  // namespace vkgemm::wgsl
