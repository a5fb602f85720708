// libFuzzer target over the whole pipeline: lex -> parse -> resolve -> write SPIR-V -> spirv-val.
// Any crash, hang, sanitizer report, or validator failure on accepted input (a compiler bug) is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "program_generator.hpp"
#include "wgsl/compiler.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;  // keep individual runs fast
  std::string source(reinterpret_cast<const char*>(data), size);
  // Structure-aware mode: inputs starting with '#' drive the random program generator, whose programs are
  // well-typed, so the writer and validator get exercised far more than by byte-level mutations alone.
  if (size > 1 && data[0] == '#') source = vkgemm::wgsl::testing::program_from_bytes(data + 1, size - 1);
  vkgemm::wgsl::CompileOptions options;
  options.file_name = "fuzz.wgsl";
  options.validate = true;
  vkgemm::wgsl::CompileResult result = vkgemm::wgsl::compile(source, options);
  if (result.internal_error) {
    std::fprintf(stderr, "accepted program produced invalid SPIR-V:\n%s\n--- source ---\n%s\n",
                 result.formatted_diagnostics.c_str(), source.c_str());
    std::abort();
  }
  if (result.ok && result.spirv.empty()) std::abort();
  return 0;
}
