// Generates random, well-typed WGSL compute kernels (statements, expressions, built-ins, helper functions)
// from a byte source, for the random-program test and the structure-aware mode of the fuzzer. Programs may
// still be rejected for const-eval reasons (e.g. a constant division by zero); they must never produce
// invalid SPIR-V.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vkgemm::wgsl::testing {

class ProgramGenerator {
 public:
  // `next` returns successive random numbers (from an RNG or from fuzzer bytes).
  explicit ProgramGenerator(std::function<uint32_t()> next) : next_(std::move(next)) {}

  std::string generate() {
    std::string out;
    out += "@group(0) @binding(0) var<storage, read_write> outf: array<f32>;\n";
    out += "@group(0) @binding(1) var<storage, read_write> outi: array<i32>;\n";
    out += "@group(0) @binding(2) var<storage, read_write> outu: array<u32>;\n";
    out += "var<workgroup> shared_f: array<f32, 64>;\n";
    out += "var<private> private_u: u32;\n";
    out += "const K_U = 7u;\nconst K_F = 0.25;\n";
    out += "struct S { a: f32, v: vec4<f32>, n: u32, m: mat2x4<f32> }\n";
    out += "@group(0) @binding(3) var<storage, read_write> sbuf: array<S>;\n";
    out += "@group(0) @binding(4) var<uniform> ubuf: S;\n";
    out += "var<workgroup> counter: atomic<u32>;\n";
    out += "fn bump(p: ptr<function, f32>, d: f32) { *p += d; }\n";
    // Helper functions of one scalar parameter.
    int helpers = static_cast<int>(pick(3));
    for (int h = 0; h < helpers; ++h) {
      std::string t = scalar_types()[pick(3)];
      scopes_ = {{{"p", t, false}}};
      indent_ = "  ";
      std::string body = statements(3, 1);
      out += "fn helper" + std::to_string(h) + "(p: " + t + ") -> " + t + " {\n" + body + "  return " +
             expr(t, 2) + ";\n}\n";
      helper_types_.push_back(t);
    }
    scopes_ = {{{"gid", "vec3<u32>", false}, {"lidx", "u32", false}}};
    indent_ = "  ";
    std::string body = statements(8, 0);
    out +=
        "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>, "
        "@builtin(local_invocation_index) lidx: u32) {\n"
        "  var arr: array<f32, 8>;\n  var arrv: array<vec2<i32>, 4>;\n" +
        body;
    // The barrier stays in uniform control flow.
    out += "  shared_f[lidx] = f32(lidx);\n  workgroupBarrier();\n  outf[0] = shared_f[63u - lidx];\n}\n";
    return out;
  }

 private:
  struct Var {
    std::string name;
    std::string type;
    bool mutable_;
  };

  static const std::vector<std::string>& scalar_types() {
    static const std::vector<std::string> t = {"f32", "i32", "u32", "bool"};
    return t;
  }
  static const std::vector<std::string>& all_types() {
    static const std::vector<std::string> t = {"f32",       "i32",       "u32",       "bool",
                                               "vec2<f32>", "vec3<f32>", "vec4<f32>", "vec2<i32>",
                                               "vec4<u32>", "vec3<bool>"};
    return t;
  }

  uint32_t pick(uint32_t n) { return n == 0 ? 0 : next_() % n; }

  static bool is_vector(const std::string& t) { return t.rfind("vec", 0) == 0; }
  static std::string elem(const std::string& t) { return is_vector(t) ? t.substr(5, t.size() - 6) : t; }
  static int width(const std::string& t) { return is_vector(t) ? t[3] - '0' : 1; }
  static std::string with_elem(const std::string& t, const std::string& e) {
    return is_vector(t) ? "vec" + std::to_string(width(t)) + "<" + e + ">" : e;
  }

  std::vector<const Var*> vars_of(const std::string& t, bool want_mutable) {
    std::vector<const Var*> out;
    for (const auto& scope : scopes_) {
      for (const auto& v : scope) {
        if (v.type == t && (!want_mutable || v.mutable_)) out.push_back(&v);
      }
    }
    return out;
  }

  std::string literal(const std::string& t) {
    if (is_vector(t)) {
      std::string s = t + "(";
      for (int i = 0; i < width(t); ++i) s += (i ? ", " : "") + literal(elem(t));
      return s + ")";
    }
    if (t == "f32") return std::to_string(static_cast<int>(pick(200)) - 100) + ".5";
    if (t == "i32") return std::to_string(static_cast<int>(pick(200)) - 100) + "i";
    if (t == "u32") return std::to_string(pick(1000)) + "u";
    return pick(2) ? "true" : "false";
  }

  // A runtime value of type t derived from the invocation id (so it is not a constant expression).
  std::string runtime_leaf(const std::string& t) {
    std::string u = in_helper() ? "private_u" : "gid.x";
    if (t == "u32") return u;
    if (t == "i32") return "i32(" + u + ")";
    if (t == "f32") return "f32(" + u + ")";
    if (t == "bool") return "(" + u + " > " + std::to_string(pick(64)) + "u)";
    std::string s = t + "(";
    for (int i = 0; i < width(t); ++i) s += (i ? ", " : "") + runtime_leaf(elem(t));
    return s + ")";
  }

  std::string expr(const std::string& t, int depth) {
    if (depth <= 0) {
      auto vs = vars_of(t, false);
      uint32_t r = pick(4);
      if (!vs.empty() && r < 2) return vs[pick(static_cast<uint32_t>(vs.size()))]->name;
      if (r == 2) return runtime_leaf(t);
      return literal(t);
    }
    const std::string e = elem(t);
    const bool numeric = e != "bool";
    switch (pick(14)) {
      case 12:
      case 13:
        if (!in_helper()) {
          if (t == "f32") {
            switch (pick(4)) {
              case 0:
                return "arr[" + expr("u32", depth - 1) + " % 8u]";
              case 1:
                return "sbuf[" + expr("u32", depth - 1) + " % arrayLength(&sbuf)].a";
              case 2:
                return "(ubuf.m * vec2<f32>(" + expr("f32", depth - 1) + ", 1.0)).y";
              default:
                return "ubuf.v[" + expr("u32", depth - 1) + " % 4u]";
            }
          }
          if (t == "vec2<i32>") return "arrv[" + expr("u32", depth - 1) + " % 4u]";
          if (t == "vec4<f32>")
            return pick(2) ? "ubuf.v" : "sbuf[" + expr("u32", depth - 1) + " % arrayLength(&sbuf)].v";
          if (t == "u32")
            return pick(2) ? "atomicLoad(&counter)" : "atomicAdd(&counter, " + expr("u32", depth - 1) + ")";
          if (t == "vec2<f32>") return "(" + expr("vec4<f32>", depth - 1) + " * ubuf.m)";
        }
        return expr(t, depth - 1);
      case 0:
      case 1:
        if (numeric) {
          static const char* ops[] = {"+", "-", "*", "/", "%"};
          std::string op = ops[pick(5)];
          std::string rhs = expr(t, depth - 1);
          // Keep constant divisors away from zero (a constant division by zero is a shader-creation error).
          if (op == "/" || op == "%") {
            rhs = e == "f32" ? "(abs(" + rhs + ") + 0.5)" : "(" + rhs + " | " + with_elem(t, e) + "(1))";
          }
          return "(" + expr(t, depth - 1) + " " + op + " " + rhs + ")";
        }
        return "(" + expr(t, depth - 1) + (pick(2) ? " & " : " | ") + expr(t, depth - 1) + ")";
      case 2:
        if (t == "bool") {
          std::string ct = all_types()[pick(3)];
          static const char* cmp[] = {"<", "<=", ">", ">=", "==", "!="};
          return "(" + expr(ct, depth - 1) + " " + cmp[pick(6)] + " " + expr(ct, depth - 1) + ")";
        }
        if (is_vector(t) && e == "bool")
          return "(" + expr(with_elem(t, "f32"), depth - 1) + " < " + expr(with_elem(t, "f32"), depth - 1) +
                 ")";
        return "select(" + expr(t, depth - 1) + ", " + expr(t, depth - 1) + ", " + expr("bool", depth - 1) +
               ")";
      case 3:
        if (e == "f32") {
          static const char* fns[] = {"abs", "floor", "ceil",  "fract", "sin",
                                      "cos", "exp2",  "trunc", "sign",  "round"};
          return std::string(fns[pick(10)]) + "(" + expr(t, depth - 1) + ")";
        }
        if (e == "i32" || e == "u32") {
          static const char* fns[] = {"countOneBits",      "reverseBits",        "firstLeadingBit",
                                      "countLeadingZeros", "countTrailingZeros", "firstTrailingBit"};
          return std::string(fns[pick(6)]) + "(" + expr(t, depth - 1) + ")";
        }
        return "!" + expr(t, depth - 1);
      case 4:
        if (numeric) {
          static const char* fns[] = {"min", "max"};
          return std::string(fns[pick(2)]) + "(" + expr(t, depth - 1) + ", " + expr(t, depth - 1) + ")";
        }
        return is_vector(t) ? expr(t, depth - 1) : "all(" + expr("vec3<bool>", depth - 1) + ")";
      case 5:
        if (numeric && !is_vector(t)) {
          // Conversion from another scalar type.
          std::string from = scalar_types()[pick(3)];
          return t + "(" + expr(from, depth - 1) + ")";
        }
        if (is_vector(t) && numeric) return t + "(" + expr(e, depth - 1) + ")";  // splat
        return expr(t, depth - 1);
      case 6:
        if (!is_vector(t) && numeric) {
          // Component of a vector.
          std::string vt = "vec4<" + t + ">";
          static const char* comps[] = {"x", "y", "z", "w"};
          if (t == "f32") return expr("vec4<f32>", depth - 1) + "." + comps[pick(4)];
          return "(" + expr(vt, depth - 1) + ")[" + expr("u32", depth - 1) + " % 4u]";
        }
        if (t == "vec2<f32>") return expr("vec4<f32>", depth - 1) + ".zx";
        return expr(t, depth - 1);
      case 7:
        if (e == "i32" || e == "u32") {
          std::string amount =
              "(" + expr(with_elem(t, "u32"), depth - 1) + " % " + with_elem(t, "u32") + "(32))";
          return "(" + expr(t, depth - 1) + (pick(2) ? " << " : " >> ") + amount + ")";
        }
        if (t == "f32")
          return "dot(" + expr("vec3<f32>", depth - 1) + ", " + expr("vec3<f32>", depth - 1) + ")";
        return expr(t, depth - 1);
      case 8:
        for (size_t h = 0; h < helper_types_.size(); ++h) {
          if (helper_types_[h] == t && !in_helper())
            return "helper" + std::to_string(h) + "(" + expr(t, depth - 1) + ")";
        }
        return expr(t, depth - 1);
      case 9:
        if (t == "f32") return "clamp(" + expr(t, depth - 1) + ", -1.0, 1.0)";
        if (t == "u32") return "arrayLength(&outu)";
        if (t == "i32") return "-(" + expr(t, depth - 1) + ")";
        return expr(t, depth - 1);
      case 10:
        if (t == "f32")
          return "select(0.0, 1.0, " + expr("bool", depth - 1) + " && " + expr("bool", depth - 1) + ")";
        if (t == "bool") return "(" + expr("bool", depth - 1) + " || " + expr("bool", depth - 1) + ")";
        return expr(t, depth - 1);
      default:
        return expr(t, 0);
    }
  }

  bool in_helper() const { return scopes_.size() > 0 && !scopes_[0].empty() && scopes_[0][0].name == "p"; }

  std::string fresh() { return "v" + std::to_string(counter_++); }

  std::string statements(int count, int depth) {
    std::string out;
    for (int i = 0; i < count; ++i) out += statement(depth);
    return out;
  }

  std::string block(int count, int depth) {
    scopes_.emplace_back();
    std::string saved = indent_;
    indent_ += "  ";
    std::string body = statements(count, depth + 1);
    indent_ = saved;
    scopes_.pop_back();
    return "{\n" + body + indent_ + "}\n";
  }

  std::string statement(int depth) {
    const std::string& t = all_types()[pick(static_cast<uint32_t>(all_types().size()))];
    uint32_t r = depth >= 3 ? pick(5) : pick(14);
    if (r >= 11 && in_helper()) r = 0;
    switch (r) {
      case 11:
        if (pick(2)) return indent_ + "arr[" + expr("u32", 1) + " % 8u] = " + expr("f32", 2) + ";\n";
        return indent_ + "arrv[" + expr("u32", 1) + " % 4u].y += " + expr("i32", 2) + ";\n";
      case 12: {
        std::string i = "sbuf[" + expr("u32", 1) + " % arrayLength(&sbuf)]";
        switch (pick(3)) {
          case 0:
            return indent_ + i + ".v = " + expr("vec4<f32>", 2) + ";\n";
          case 1:
            return indent_ + i + ".n += " + expr("u32", 2) + ";\n";
          default:
            return indent_ + i + " = S(" + expr("f32", 1) + ", " + expr("vec4<f32>", 1) + ", " +
                   expr("u32", 1) + ", ubuf.m);\n";
        }
      }
      case 13: {
        auto vs = vars_of("f32", true);
        if (!vs.empty())
          return indent_ + "bump(&" + vs[pick(static_cast<uint32_t>(vs.size()))]->name + ", " +
                 expr("f32", 2) + ");\n";
        return indent_ + "atomicStore(&counter, " + expr("u32", 2) + ");\n";
      }
      case 0: {
        std::string n = fresh();
        std::string s = indent_ + "let " + n + " = " + expr(t, 3) + ";\n";
        scopes_.back().push_back({n, t, false});
        return s;
      }
      case 1: {
        std::string n = fresh();
        std::string s = indent_ + "var " + n + ": " + t + " = " + expr(t, 2) + ";\n";
        scopes_.back().push_back({n, t, true});
        return s;
      }
      case 2: {
        auto vs = vars_of(t, true);
        if (vs.empty()) return statement(depth);
        const Var* v = vs[pick(static_cast<uint32_t>(vs.size()))];
        if (elem(t) != "bool" && pick(2))
          return indent_ + v->name + " " + (pick(2) ? "+=" : "*=") + " " + expr(t, 2) + ";\n";
        return indent_ + v->name + " = " + expr(t, 2) + ";\n";
      }
      case 3: {
        static const char* outs[] = {"outf", "outi", "outu"};
        static const char* types[] = {"f32", "i32", "u32"};
        uint32_t k = pick(3);
        return indent_ + outs[k] + "[" + expr("u32", 1) + " % arrayLength(&" + outs[k] +
               ")] = " + expr(types[k], 3) + ";\n";
      }
      case 4: {
        auto vs = vars_of("i32", true);
        if (vs.empty()) return indent_ + "private_u++;\n";
        return indent_ + vs[pick(static_cast<uint32_t>(vs.size()))]->name + (pick(2) ? "++;\n" : "--;\n");
      }
      case 5:
        return indent_ + "if " + expr("bool", 2) + " " + block(2, depth) +
               (pick(2) ? indent_ + "else " + block(2, depth) : std::string());
      case 6: {
        std::string n = fresh();
        scopes_.emplace_back();
        scopes_.back().push_back({n, "u32", false});
        std::string body = block(2, depth);
        scopes_.pop_back();
        return indent_ + "for (var " + n + " = 0u; " + n + " < " + std::to_string(1 + pick(4)) + "u; " + n +
               "++) " + body;
      }
      case 7: {
        std::string n = fresh();
        std::string s = indent_ + "var " + n + " = 0;\n";
        s += indent_ + "loop {\n" + indent_ + "  if (" + n + " >= " + std::to_string(1 + pick(3)) +
             ") { break; }\n";
        std::string saved = indent_;
        indent_ += "  ";
        scopes_.emplace_back();
        s += statements(2, depth + 1);
        scopes_.pop_back();
        indent_ = saved;
        s += indent_ + "  continuing { " + n + "++; }\n" + indent_ + "}\n";
        return s;
      }
      case 8: {
        std::string s = indent_ + "switch " + expr("i32", 1) + " {\n";
        s += indent_ + "  case 0, 1: " + block(1, depth + 1);
        s += indent_ + "  case 2: { break; }\n";
        s += indent_ + "  default: " + block(1, depth + 1);
        return s + indent_ + "}\n";
      }
      case 9: {
        std::string n = fresh();
        std::string s = indent_ + "var " + n + " = 0u;\n";
        s += indent_ + "while " + n + " < 3u {\n" + indent_ + "  " + n + " += 1u;\n";
        s += indent_ + "  if " + expr("bool", 1) + " { continue; }\n" + indent_ + "}\n";
        return s;
      }
      default:
        return indent_ + "_ = " + expr(t, 2) + ";\n";
    }
  }

  std::function<uint32_t()> next_;
  std::vector<std::vector<Var>> scopes_;
  std::vector<std::string> helper_types_;
  std::string indent_;
  int counter_ = 0;
};

// The generator driven by a byte string (4 bytes per random number, zeros after the end): the fuzzer's
// structure-aware mode, for inputs starting with '#'.
inline std::string program_from_bytes(const uint8_t* data, size_t size) {
  size_t pos = 0;
  ProgramGenerator gen([&]() -> uint32_t {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | (pos < size ? data[pos++] : 0u);
    return v;
  });
  return gen.generate();
}

}  // namespace vkgemm::wgsl::testing
