// Every subgroup operation in both builds (hw: lavapipe's subgroups of 8; emu: subgroup = workgroup) against
// a CPU reference on random data, for workgroup sizes 32, 64, 128 and 256 and the types u32, i32 and f32.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <tuple>

#include "subgroup/subgroup.hpp"
#include "test_support.hpp"

namespace vkgemm::test {
namespace {

using subgroup::Build;
using subgroup::Op;
using subgroup::OpType;

constexpr uint32_t kWorkgroups = 4;

float as_float(uint32_t bits) {
  return std::bit_cast<float>(bits);
}
uint32_t bits_of(float f) {
  return std::bit_cast<uint32_t>(f);
}

bool is_float_arith(Op op) {
  switch (op) {
    case Op::Add:
    case Op::Mul:
    case Op::InclusiveAdd:
    case Op::ExclusiveAdd:
    case Op::InclusiveMul:
    case Op::ExclusiveMul:
      return true;
    default:
      return false;
  }
}
bool is_mul(Op op) {
  return op == Op::Mul || op == Op::InclusiveMul || op == Op::ExclusiveMul;
}

// Random inputs suited to the operation: products of odd integers stay non-zero; float factors stay away
// from 1 (so a lost factor shows) and from overflow.
std::vector<uint32_t> make_values(Op op, OpType type, size_t n, std::mt19937& rng) {
  std::vector<uint32_t> v(n);
  for (auto& x : v) {
    if (type != OpType::F32) {
      x = rng();
      if (is_mul(op)) x |= 1u;
    } else if (is_mul(op)) {
      float f = std::uniform_real_distribution<float>(0.5f, 0.95f)(rng);
      x = bits_of(rng() & 1u ? f : 1.0f / f);
    } else if (op == Op::Min || op == Op::Max || op == Op::InclusiveMin || op == Op::ExclusiveMin ||
               op == Op::InclusiveMax || op == Op::ExclusiveMax) {
      x = bits_of(std::uniform_real_distribution<float>(-1000.0f, 1000.0f)(rng));
    } else {
      x = bits_of(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng));
    }
  }
  return v;
}

// Per-lane arguments below 2^24 (exact as floats); bit 0 is the predicate: workgroup 0 all true, 1 all false,
// 2 random, 3 mostly true.
std::vector<uint32_t> make_args(size_t n, uint32_t wg, std::mt19937& rng) {
  std::vector<uint32_t> a(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t r = rng() & 0xfffffeu;
    uint32_t mode = static_cast<uint32_t>(i / wg) % 4;
    bool pred = mode == 0 ? true : mode == 1 ? false : mode == 2 ? (rng() & 1u) : (rng() % 16 != 0);
    a[i] = r | (pred ? 1u : 0u);
  }
  return a;
}

// Combines two values of `type` with the operation's operator (integer ops wrap like the GPU's).
uint32_t combine(Op op, OpType type, uint32_t a, uint32_t b) {
  switch (op) {
    case Op::Add:
    case Op::InclusiveAdd:
    case Op::ExclusiveAdd:
      return type == OpType::F32 ? bits_of(as_float(a) + as_float(b)) : a + b;
    case Op::Mul:
    case Op::InclusiveMul:
    case Op::ExclusiveMul:
      return type == OpType::F32 ? bits_of(as_float(a) * as_float(b)) : a * b;
    case Op::Min:
    case Op::InclusiveMin:
    case Op::ExclusiveMin:
      if (type == OpType::F32) return bits_of(std::min(as_float(a), as_float(b)));
      if (type == OpType::I32) return uint32_t(std::min(int32_t(a), int32_t(b)));
      return std::min(a, b);
    default:  // max
      if (type == OpType::F32) return bits_of(std::max(as_float(a), as_float(b)));
      if (type == OpType::I32) return uint32_t(std::max(int32_t(a), int32_t(b)));
      return std::max(a, b);
  }
}

uint32_t identity(Op op, OpType type) {
  switch (op) {
    case Op::Add:
    case Op::InclusiveAdd:
    case Op::ExclusiveAdd:
      return 0;
    case Op::Mul:
    case Op::InclusiveMul:
    case Op::ExclusiveMul:
      return type == OpType::F32 ? bits_of(1.0f) : 1u;
    case Op::Min:
    case Op::InclusiveMin:
    case Op::ExclusiveMin:
      return type == OpType::F32   ? bits_of(std::numeric_limits<float>::infinity())
             : type == OpType::I32 ? 0x7fffffffu
                                   : 0xffffffffu;
    default:
      return type == OpType::F32   ? bits_of(-std::numeric_limits<float>::infinity())
             : type == OpType::I32 ? 0x80000000u
                                   : 0u;
  }
}

struct Expected {
  std::vector<uint32_t> words;  // 4 per lane
  // Float sums and products: the value in double and the scale of its rounding error (sum of |terms| or
  // the product's magnitude times the number of factors).
  std::vector<double> value, scale;
};

Expected reference(Op op, OpType type, uint32_t s, uint32_t broadcast_lane,
                   const std::vector<uint32_t>& values, const std::vector<uint32_t>& args) {
  size_t n = values.size();
  Expected e;
  e.words.assign(n * 4, 0);
  e.value.assign(n, 0);
  e.scale.assign(n, 0);
  for (size_t base = 0; base < n; base += s) {
    for (uint32_t lane = 0; lane < s; ++lane) {
      size_t i = base + lane;
      uint32_t* w = &e.words[i * 4];
      switch (op) {
        case Op::Shuffle:
          w[0] = values[base + args[i] % s];
          break;
        case Op::Broadcast:
          w[0] = values[base + broadcast_lane % s];
          break;
        case Op::BroadcastFirst:
          w[0] = values[base];
          break;
        case Op::Elect:
          w[0] = lane == 0 ? 1 : 0;
          break;
        case Op::All:
        case Op::Any: {
          bool all = true, any = false;
          for (uint32_t l = 0; l < s; ++l) {
            all = all && (args[base + l] & 1u);
            any = any || (args[base + l] & 1u);
          }
          w[0] = (op == Op::All ? all : any) ? 1 : 0;
          break;
        }
        case Op::Ballot:
          for (uint32_t l = 0; l < s; ++l)
            if (args[base + l] & 1u) w[l / 32] |= 1u << (l % 32);
          break;
        case Op::ShuffleVec4: {
          size_t src = base + args[i] % s;
          w[0] = values[src];
          w[1] = bits_of(float(src));
          w[2] = bits_of(float(args[src]));
          w[3] = bits_of(-float(src));
          break;
        }
        default: {
          bool reduce = op == Op::Add || op == Op::Mul || op == Op::Min || op == Op::Max;
          bool exclusive = op == Op::ExclusiveAdd || op == Op::ExclusiveMul || op == Op::ExclusiveMin ||
                           op == Op::ExclusiveMax;
          uint32_t end = reduce ? s : exclusive ? lane : lane + 1;
          uint32_t acc = identity(op, type);
          double value = is_mul(op) ? 1.0 : 0.0, scale = 0.0;
          for (uint32_t l = 0; l < end; ++l) {
            uint32_t x = values[base + l];
            acc = combine(op, type, acc, x);
            if (is_mul(op)) {
              value *= as_float(x);
            } else {
              value += as_float(x);
              scale += std::fabs(as_float(x));
            }
          }
          if (is_mul(op)) scale = std::fabs(value) * (end + 1);
          w[0] = acc;
          e.value[i] = value;
          e.scale[i] = scale;
        }
      }
    }
  }
  return e;
}

::testing::AssertionResult matches(Op op, OpType type, uint32_t s, const Expected& want,
                                   const std::vector<uint32_t>& got) {
  // f32 sums/products: hw and emu combine in different orders (a tree of depth log2(s) at most); the
  // rounding error is at most depth x 2^-24 per unit of scale.
  double per_scale = (std::log2(double(s)) + 2.0) * 5.96e-8;
  size_t n = want.value.size();
  int bad = 0;
  std::ostringstream msg;
  for (size_t i = 0; i < n; ++i) {
    for (int w = 0; w < 4; ++w) {
      uint32_t g = got[i * 4 + w], e = want.words[i * 4 + w];
      bool ok;
      if (type == OpType::F32 && is_float_arith(op) && w == 0) {
        double tol = per_scale * want.scale[i] + 1e-30;
        ok = std::fabs(double(as_float(g)) - want.value[i]) <= tol;
      } else {
        ok = g == e;
      }
      if (!ok && bad++ < 5)
        msg << "\n  lane " << i << " word " << w << ": got 0x" << std::hex << g << " want 0x" << e << std::dec
            << (type == OpType::F32
                    ? " (" + std::to_string(as_float(g)) + " vs " + std::to_string(want.value[i]) + ")"
                    : std::string());
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " mismatches" << msg.str();
}

// One test per (build, type, workgroup size) runs every operation (one process per case under ctest keeps
// the suite short; failures name the operation).
using OpParam = std::tuple<Build, OpType, uint32_t>;

class SubgroupOps : public GpuTest, public ::testing::WithParamInterface<OpParam> {};

TEST_P(SubgroupOps, EveryOperationMatchesCpuReference) {
  auto [build, type, wg] = GetParam();
  const DeviceInfo& info = ctx().info();
  uint32_t s = subgroup::effective_subgroup_size(info, build, wg);
  ASSERT_GT(s, 0u);
  int ran = 0;
  for (uint32_t index = 0; index < subgroup::kOpCount; ++index) {
    Op op = static_cast<Op>(index);
    SCOPED_TRACE(std::string(subgroup::op_name(op)) + " " + subgroup::build_name(build) + " " +
                 subgroup::op_type_name(type) + " wg" + std::to_string(wg) + " subgroup size " +
                 std::to_string(s));
    if (build == Build::Hardware && !info.has_subgroup_ops(subgroup::required_ops(op))) continue;
    // The emulated ballot exists for u32 and <= 128 invocations (refusal tested below).
    if (op == Op::Ballot && build == Build::Emulated && (wg > 128 || type != OpType::U32)) continue;
    std::mt19937 rng(1000 * wg + 10 * index + static_cast<uint32_t>(type));
    size_t n = size_t(wg) * kWorkgroups;
    auto values = make_values(op, type, n, rng);
    auto args = make_args(n, wg, rng);
    subgroup::OpRun run{op, type, build, wg, 5};
    auto got = subgroup::run_op(ctx(), run, values, args);
    ASSERT_EQ(got.size(), n * 4);
    EXPECT_TRUE(matches(op, type, s, reference(op, type, s, run.broadcast_lane, values, args), got));
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << info.name << " has none of the subgroup operations in compute";
}

std::string op_case_name(const ::testing::TestParamInfo<OpParam>& info) {
  auto [build, type, wg] = info.param;
  return std::string(subgroup::build_name(build)) + "_" + subgroup::op_type_name(type) + "_wg" +
         std::to_string(wg);
}

INSTANTIATE_TEST_SUITE_P(BothBuilds, SubgroupOps,
                         ::testing::Combine(::testing::Values(Build::Hardware, Build::Emulated),
                                            ::testing::Values(OpType::U32, OpType::I32, OpType::F32),
                                            ::testing::Values(32u, 64u, 128u, 256u)),
                         op_case_name);

class SubgroupOpsLimits : public GpuTest {};

TEST_F(SubgroupOpsLimits, EmulatedBallotRefusesMoreThan128Invocations) {
  std::vector<uint32_t> values(256, 1), args(256, 1);
  subgroup::OpRun run{Op::Ballot, OpType::U32, Build::Emulated, 256, 0};
  EXPECT_THROW(subgroup::run_op(ctx(), run, values, args), InvalidArgument);
}

TEST_F(SubgroupOpsLimits, RejectsSizesThatAreNotWholeWorkgroups) {
  std::vector<uint32_t> values(100, 1), args(100, 1);
  subgroup::OpRun run{Op::Add, OpType::U32, Build::Emulated, 64, 0};
  EXPECT_THROW(subgroup::run_op(ctx(), run, values, args), InvalidArgument);
}

}  // namespace
}  // namespace vkgemm::test
