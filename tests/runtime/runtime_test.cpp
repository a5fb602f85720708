// The runtime on its own: device choice, buffers, pipelines, recording, timing, error reporting, validation.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "kernels/embedded.hpp"
#include "runtime/context.hpp"
#include "runtime/recorder.hpp"
#include "test_support.hpp"

namespace vkgemm::test {
namespace {


TEST(Devices, ListHasAtLeastOneDeviceWithFacts) {
  auto devices = Context::list_devices();
  ASSERT_FALSE(devices.empty());
  for (const auto& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.max_workgroup_invocations, 0u);
    EXPECT_GT(d.shared_memory_bytes, 0u);
    EXPECT_NE(d.describe().find(d.name), std::string::npos);
  }
}

TEST(Devices, SelectByIndexAndName) {
  auto devices = Context::list_devices();
  ContextOptions by_index;
  by_index.device = "0";
  Context a(by_index);
  EXPECT_EQ(a.info().name, devices[0].name);
  ContextOptions by_name;
  by_name.device = devices[0].name.substr(0, 4);  // case-insensitive substring
  for (auto& c : by_name.device) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Context b(by_name);
  EXPECT_EQ(b.info().name, devices[0].name);
}

TEST(Devices, UnknownSelectorListsTheDevices) {
  ContextOptions o;
  o.device = "no-such-gpu-xyz";
  try {
    Context c(o);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-gpu-xyz"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("[0]"), std::string::npos) << e.what();
  }
  o.device = "99";
  EXPECT_THROW(Context c(o), InvalidArgument);
}

TEST(Validation, MessagesReachTheCallback) {
  // A deliberately invalid call (buffer with no usage bits) must be reported through our callback.
  std::vector<std::string> seen;
  ContextOptions o;
  o.validation = true;
  o.on_validation_message = [&](const std::string& m) { seen.push_back(m); };
  Context ctx(o);
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = 16;
  bci.usage = 0;
  VkBuffer buffer = VK_NULL_HANDLE;
  if (vkCreateBuffer(ctx.device(), &bci, nullptr, &buffer) == VK_SUCCESS) vkDestroyBuffer(ctx.device(), buffer, nullptr);
  ASSERT_FALSE(seen.empty());
  EXPECT_NE(seen[0].find("usage"), std::string::npos) << seen[0];
  EXPECT_EQ(ctx.validation_message_count(), seen.size());
}

class Buffers : public GpuTest {};

TEST_F(Buffers, RoundTripIsExact) {
  auto data = random_floats(1027, 7);
  Buffer b = ctx().create_buffer(data.size() * 4);
  ctx().upload(b, data.data(), data.size() * 4);
  auto back = ctx().download<float>(b, data.size());
  EXPECT_EQ(0, std::memcmp(back.data(), data.data(), data.size() * 4));
}

TEST_F(Buffers, OffsetsAndFill) {
  Buffer b = ctx().create_buffer(64);
  ctx().fill(b, 0xdeadbeefu);
  uint32_t v = 42;
  ctx().upload(b, &v, 4, 60);
  auto back = ctx().download<uint32_t>(b, 16);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(back[i], 0xdeadbeefu);
  EXPECT_EQ(back[15], 42u);
}

TEST_F(Buffers, SizeErrorsThrowBeforeCopying) {
  EXPECT_THROW(ctx().create_buffer(0), InvalidArgument);
  Buffer b = ctx().create_buffer(16);
  std::vector<float> big(5);
  EXPECT_THROW(ctx().upload(b, big.data(), 20), InvalidArgument);
  EXPECT_THROW(ctx().upload(b, big.data(), 4, 13), InvalidArgument);
  EXPECT_THROW(ctx().download(b, big.data(), 20), InvalidArgument);
  Buffer empty;
  EXPECT_THROW(ctx().download(empty, big.data(), 4), InvalidArgument);
}

class Pipelines : public GpuTest {
 protected:
  // Ladder kernel 2 as a plain pipeline: uniform dims at 0, A, B, C at 1..3.
  PipelineDesc desc() {
    PipelineDesc d;
    d.spirv = kernels::embedded_spirv("ladder_02_threads256");
    d.debug_name = "threads256";
    d.bindings = {{0, 0, BindingKind::UniformBuffer},
                  {0, 1, BindingKind::StorageBuffer},
                  {0, 2, BindingKind::StorageBuffer},
                  {0, 3, BindingKind::StorageBuffer}};
    return d;
  }
};

TEST_F(Pipelines, CachedPerDescription) {
  const Pipeline& a = ctx().pipeline(desc());
  const Pipeline& b = ctx().pipeline(desc());
  EXPECT_EQ(&a, &b);
  auto other = desc();
  other.specialization = {{7, 1}};  // a different specialization is a different pipeline
  EXPECT_NE(&ctx().pipeline(other), &a);
}

TEST_F(Pipelines, RejectsNonSpirv) {
  std::vector<uint32_t> junk(16, 0x12345678u);
  PipelineDesc d = desc();
  d.spirv = junk;
  EXPECT_THROW(ctx().pipeline(d), InvalidArgument);
}

TEST_F(Pipelines, DispatchChecksBindingsGroupsAndPushConstants) {
  const Pipeline& p = ctx().pipeline(desc());
  Buffer dims = ctx().create_buffer(16, BufferUsage::Uniform);
  Buffer a = ctx().create_buffer(64), b = ctx().create_buffer(64), c = ctx().create_buffer(64);
  Recorder rec(ctx());
  std::vector<BufferBinding> ok = {{0, 0, &dims}, {0, 1, &a}, {0, 2, &b}, {0, 3, &c}};
  std::vector<BufferBinding> missing = {{0, 0, &dims}, {0, 1, &a}, {0, 2, &b}};
  std::vector<BufferBinding> wrong_kind = {{0, 0, &a}, {0, 1, &a}, {0, 2, &b}, {0, 3, &c}};
  EXPECT_THROW(rec.dispatch(p, missing, {1, 1, 1}), InvalidArgument);
  EXPECT_THROW(rec.dispatch(p, wrong_kind, {1, 1, 1}), InvalidArgument);
  uint32_t over = ctx().info().max_workgroup_count[0];
  if (over < UINT32_MAX) {
    try {
      rec.dispatch(p, ok, {over + 1, 1, 1});
      FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("maxComputeWorkGroupCount"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(rec.dispatch(p, ok, {0, 1, 1}), InvalidArgument);
  uint32_t push = 1;
  EXPECT_THROW(rec.dispatch(p, ok, {1, 1, 1}, &push, 4), InvalidArgument);
  EXPECT_EQ(rec.dispatch_count(), 0u);  // nothing was recorded by the refused calls
}

TEST_F(Pipelines, RecorderTimesAndOrdersDispatches) {
  // C = A @ B twice in one submission with a copy in between; the copy must see the first result.
  const uint32_t m = 33, n = 17, k = 9;
  auto av = random_floats(m * k, 3), bv = random_floats(k * n, 4);
  uint32_t dims_host[4] = {m, k, n, 0};
  Buffer dims = ctx().create_buffer(16, BufferUsage::Uniform);
  ctx().upload(dims, dims_host, 16);
  Buffer a = ctx().create_buffer(av.size() * 4), b = ctx().create_buffer(bv.size() * 4),
         c = ctx().create_buffer(m * n * 4), copy = ctx().create_buffer(m * n * 4);
  ctx().upload(a, av.data(), av.size() * 4);
  ctx().upload(b, bv.data(), bv.size() * 4);
  ctx().fill(c, kPoison);
  const Pipeline& p = ctx().pipeline(desc());
  Recorder rec(ctx(), 4);
  std::vector<BufferBinding> bind = {{0, 0, &dims}, {0, 1, &a}, {0, 2, &b}, {0, 3, &c}};
  uint32_t t0 = rec.timestamp();
  rec.dispatch(p, bind, {(m * n + 255) / 256, 1, 1});
  rec.barrier();
  uint32_t t1 = rec.timestamp();
  rec.copy(c, copy, m * n * 4);
  rec.barrier();
  rec.fill(c, kPoison);
  EXPECT_THROW(rec.elapsed_ms(t0, t1), InvalidArgument);  // not yet run
  rec.run();
  EXPECT_GE(rec.elapsed_ms(t0, t1), 0.0);
  EXPECT_THROW(rec.dispatch(p, bind, {1, 1, 1}), InvalidArgument);  // already submitted
  auto got = ctx().download<float>(copy, m * n);
  EXPECT_TRUE(near_reference(got, reference_gemm(av, bv, m, n, k), reference_gemm_abs(av, bv, m, n, k), k));
}

TEST(Errors, VulkanErrorNamesTheCallAndResult) {
  VulkanError e("vkCreateBuffer", VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(std::string(e.what()), "vkCreateBuffer failed: VK_ERROR_OUT_OF_DEVICE_MEMORY");
  EXPECT_EQ(e.result(), VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

}  // namespace
}  // namespace vkgemm::test
