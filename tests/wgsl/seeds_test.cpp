// The seeds' WGSL kernels compile to validator-clean SPIR-V (also after spirv-opt), with the expected
// reflection; compile times are measured, including a generated 2,000-line module.
#include <gtest/gtest.h>

#include <ostream>

#include <chrono>
#include <filesystem>

#include "program_generator.hpp"
#include "test_util.hpp"

namespace vkgemm::wgsl {
namespace {

using testing::compile_ok;
using testing::shader;

struct Seed {
  const char* file;
  std::array<uint32_t, 3> workgroup_size;
  size_t bindings;
};

void PrintTo(const Seed& s, std::ostream* os) {
  *os << s.file;
}

class Seeds : public ::testing::TestWithParam<Seed> {};

TEST_P(Seeds, CompileValidateOptimizeReflect) {
  const Seed& s = GetParam();
  std::string src = shader(s.file);
  ASSERT_FALSE(src.empty()) << s.file;
  CompileOptions o;
  o.file_name = s.file;
  auto start = std::chrono::steady_clock::now();
  CompileResult r = compile_ok(src, o);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok);
  std::printf("[ compile  ] %-28s %7.2f ms (incl. spirv-val), %zu words\n", s.file, ms, r.spirv.size());
  EXPECT_EQ(r.reflection.workgroup_size, s.workgroup_size);
  EXPECT_EQ(r.reflection.bindings.size(), s.bindings);
  o.optimize = true;
  o.target = TargetEnv::Vulkan1_2;
  CompileResult opt = compile_ok(src, o);
  EXPECT_TRUE(opt.ok);
}

INSTANTIATE_TEST_SUITE_P(Wgsl, Seeds,
                         ::testing::Values(Seed{"surfgrad_01_naive.wgsl", {1, 1, 1}, 4},
                                           Seed{"surfgrad_02_threads.wgsl", {256, 1, 1}, 4},
                                           Seed{"surfgrad_03_2d.wgsl", {8, 8, 1}, 4},
                                           Seed{"surfgrad_03b_2d_rowy.wgsl", {8, 8, 1}, 4},
                                           Seed{"surfgrad_04_tile1x4.wgsl", {16, 16, 1}, 4},
                                           Seed{"surfgrad_05_tile4x4.wgsl", {16, 16, 1}, 4},
                                           Seed{"istanbul_matmul.wgsl", {16, 16, 1}, 4},
                                           Seed{"gridwise_shuffle_emu.wgsl", {256, 1, 1}, 2},
                                           Seed{"gridwise_shuffle_hw.wgsl", {64, 1, 1}, 2}),
                         [](const ::testing::TestParamInfo<Seed>& p) {
                           std::string n = p.param.file;
                           return n.substr(0, n.find('.'));
                         });

TEST(Seeds, IstanbulReflection) {
  CompileResult r = compile_ok(shader("istanbul_matmul.wgsl"));
  ASSERT_TRUE(r.ok);
  const auto& b = r.reflection.bindings;
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].name, "X");
  EXPECT_EQ(b[0].kind, BindingKind::ReadOnlyStorageBuffer);
  EXPECT_EQ(b[0].runtime_array_stride, 16u);
  EXPECT_EQ(b[2].kind, BindingKind::StorageBuffer);
  EXPECT_EQ(b[3].kind, BindingKind::UniformBuffer);
  EXPECT_EQ(b[3].size, 16u);
  EXPECT_EQ(r.reflection.workgroup_memory_bytes, (2176u + 2048u) * 4u);
  EXPECT_EQ(r.reflection.entry_point, "matmul");
}

TEST(Seeds, GridwiseEmulationUsesTheShadowingFunction) {
  CompileResult r = compile_ok(shader("gridwise_shuffle_emu.wgsl"));
  ASSERT_TRUE(r.ok);
  std::string text = disassemble(r.spirv);
  EXPECT_EQ(text.find("GroupNonUniform"), std::string::npos) << "emulation must not use hardware subgroups";
  EXPECT_NE(text.find("OpFunctionCall"), std::string::npos);
  CompileResult hw = compile_ok(shader("gridwise_shuffle_hw.wgsl"));
  ASSERT_TRUE(hw.ok);
  EXPECT_NE(disassemble(hw.spirv).find("OpGroupNonUniformShuffle"), std::string::npos);
  EXPECT_TRUE(hw.reflection.uses_subgroups);
}

// A generated module of 2,000 lines: 100 helper functions of 18 lines each plus an entry point calling them.
std::string generated_module(int lines_target) {
  std::string src = "@group(0) @binding(0) var<storage, read_write> buf: array<f32>;\n";
  int lines = 1, functions = 0;
  // Each helper is 18 lines plus one call line in main; main's frame is 6 lines.
  while (lines + 19 + 6 <= lines_target) {
    std::string n = std::to_string(functions++);
    src += "fn helper" + n +
           "(x: f32, i: u32) -> f32 {\n"
           "  var acc = x;\n"
           "  for (var k = 0u; k < 4u; k++) {\n"
           "    let t = acc * 1.0001 + f32(k);\n"
           "    if (t > 100.0) {\n"
           "      acc = t - 1.0;\n"
           "    } else {\n"
           "      acc = t + sin(t);\n"
           "    }\n"
           "  }\n"
           "  switch i % 3u {\n"
           "    case 0u: { acc += 1.0; }\n"
           "    case 1u: { acc *= 2.0; }\n"
           "    default: { acc = max(acc, 0.5); }\n"
           "  }\n"
           "  let v = vec4<f32>(acc, x, f32(i), 1.0);\n"
           "  return dot(v, v) * 0.001 + buf[i % arrayLength(&buf)];\n"
           "}\n";
    lines += 19;
  }
  src +=
      "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n"
      "  var x = buf[gid.x];\n";
  for (int f = 0; f < functions; ++f) src += "  x = helper" + std::to_string(f) + "(x, gid.x);\n";
  // Pad with comment lines to exactly the target.
  for (int pad = lines + 5; pad < lines_target; ++pad) src += "  // padding\n";
  src += "  buf[gid.x] = x;\n}\n";
  return src;
}

TEST(Seeds, CompileTimeOfGenerated2000LineModule) {
  std::string src = generated_module(2000);
  size_t lines = static_cast<size_t>(std::count(src.begin(), src.end(), '\n'));
  EXPECT_EQ(lines, 2000u);
  CompileOptions o;
  auto start = std::chrono::steady_clock::now();
  CompileResult r = compile_ok(src, o);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok);
  o.validate = false;
  start = std::chrono::steady_clock::now();
  CompileResult r2 = compile(src, o);
  double ms_no_val =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r2.ok);
  std::printf("[ compile  ] generated %zu-line module: %.1f ms with spirv-val, %.1f ms without (%zu words)\n",
              lines, ms, ms_no_val, r.spirv.size());
  // Generous bound (debug builds, shared CI cores): compilation must stay interactive.
  EXPECT_LT(ms, 5000.0);
}

// The fuzzer's seed corpus, run as a plain test: no internal compiler errors, and every file that is not
// meant to be invalid compiles.
TEST(Corpus, EveryFileCompilesOrFailsCleanly) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(VKGEMM_WGSL_CORPUS_DIR)) {
    std::string name = entry.path().filename().string();
    std::string src = testing::read_file(entry.path().string());
    if (!src.empty() && src[0] == '#') {  // a structure-aware fuzzer input: bytes for the program generator
      src = testing::program_from_bytes(reinterpret_cast<const uint8_t*>(src.data()) + 1, src.size() - 1);
    }
    CompileResult r = compile(src, {.file_name = name});
    EXPECT_FALSE(r.internal_error) << name;
    bool meant_invalid = name.find("error") != std::string::npos;
    EXPECT_EQ(r.ok, !meant_invalid) << name << "\n" << r.formatted_diagnostics;
    ++files;
  }
  EXPECT_GE(files, 10u);
}

}  // namespace
}  // namespace vkgemm::wgsl
