// wgslc: compile a WGSL compute shader to SPIR-V.
//   wgslc in.wgsl -o out.spv [--entry NAME] [--reflect out.json] [--disasm] [-O] [--target
//   vulkan1.1|vulkan1.2]
// Exit code 1 with diagnostics on stderr for invalid input, 2 for usage or I/O errors.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "wgsl/compiler.hpp"

namespace {

int usage() {
  std::cerr
      << "usage: wgslc in.wgsl -o out.spv [--entry NAME] [--reflect out.json] [--disasm] [-O] [--robust]\n"
         "             [--target vulkan1.1|vulkan1.2] [--time]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, output, reflect_path;
  bool disasm = false, show_time = false;
  vkgemm::wgsl::CompileOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "wgslc: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-o") {
      output = next();
    } else if (a == "--entry") {
      options.entry_point = next();
    } else if (a == "--reflect") {
      reflect_path = next();
    } else if (a == "--disasm") {
      disasm = true;
    } else if (a == "-O") {
      options.optimize = true;
    } else if (a == "--robust") {
      options.robust_access = true;
    } else if (a == "--time") {
      show_time = true;
    } else if (a == "--target") {
      std::string t = next();
      if (t == "vulkan1.1") {
        options.target = vkgemm::wgsl::TargetEnv::Vulkan1_1;
      } else if (t == "vulkan1.2") {
        options.target = vkgemm::wgsl::TargetEnv::Vulkan1_2;
      } else {
        return usage();
      }
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "wgslc: unknown option " << a << "\n";
      return usage();
    } else if (input.empty()) {
      input = a;
    } else {
      return usage();
    }
  }
  if (input.empty() || (output.empty() && !disasm && reflect_path.empty())) return usage();
  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::cerr << "wgslc: cannot read " << input << "\n";
    return 2;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  options.file_name = input;
  auto start = std::chrono::steady_clock::now();
  vkgemm::wgsl::CompileResult result = vkgemm::wgsl::compile(ss.str(), options);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok) {
    std::cerr << result.formatted_diagnostics;
    return 1;
  }
  if (show_time) std::cerr << "wgslc: compiled " << input << " in " << ms << " ms\n";
  if (!output.empty()) {
    std::ofstream out(output, std::ios::binary);
    out.write(reinterpret_cast<const char*>(result.spirv.data()),
              static_cast<std::streamsize>(result.spirv.size() * sizeof(uint32_t)));
    if (!out) {
      std::cerr << "wgslc: cannot write " << output << "\n";
      return 2;
    }
  }
  if (!reflect_path.empty()) {
    std::ofstream out(reflect_path);
    out << vkgemm::wgsl::reflection_to_json(result.reflection) << "\n";
    if (!out) {
      std::cerr << "wgslc: cannot write " << reflect_path << "\n";
      return 2;
    }
  }
  if (disasm) std::cout << vkgemm::wgsl::disassemble(result.spirv);
  return 0;
}
