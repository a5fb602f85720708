// Subgroup operations under their GL_KHR_shader_subgroup names, in two builds (the Gridwise strategy):
//
//   hw  (default):       the GL_KHR_shader_subgroup_* built-ins themselves.
//   emu (-DSG_EMULATE):  the same names, emulated through workgroup memory with one slot per invocation; the
//                        emulated subgroup is the whole workgroup (size = workgroup size, one subgroup).
//
// Kernels are written once against this file:
//   - call SG_INIT() first thing in every entry point;
//   - use SG_SIZE, SG_ID, SG_COUNT, SG_GROUP (and SG_MAX_SUBGROUPS for array sizes) instead of gl_SubgroupSize, gl_SubgroupInvocationID,
//     gl_NumSubgroups, gl_SubgroupID (GLSL cannot redefine built-in variables);
//   - call every subgroup operation in workgroup-uniform control flow with all invocations active (the emu
//     build synchronises the workgroup with barrier() inside each operation);
//   - the emu build sizes its slots by SG_MAX_WORKGROUP_SIZE (default 256); the host must not specialise a
//     larger workgroup. subgroupBallot in the emu build returns 128 bits, so it refuses to compile unless
//     SG_MAX_WORKGROUP_SIZE <= 128.
// Types: uint, int and float for every operation; additionally vec4 and uvec4 for shuffle and broadcasts.
// Non-add scans (min, max, mul) keep the GLSL names: subgroupInclusiveMin, subgroupExclusiveMul, ...
#ifndef VKGEMM_SUBGROUP_GLSL
#define VKGEMM_SUBGROUP_GLSL

#ifndef SG_MAX_WORKGROUP_SIZE
#define SG_MAX_WORKGROUP_SIZE 256
#endif

#ifndef SG_EMULATE
// ---------------------------------------------------------------------------------------------- hw build
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require

#define SG_INIT()
#define SG_SIZE gl_SubgroupSize
#define SG_ID gl_SubgroupInvocationID
#define SG_COUNT gl_NumSubgroups
#define SG_GROUP gl_SubgroupID
// Upper bound of SG_COUNT, for arrays with one entry per subgroup.
#define SG_MAX_SUBGROUPS SG_MAX_WORKGROUP_SIZE

#else
// ---------------------------------------------------------------------------------------------- emu build
// Two slot buffers used alternately: every operation writes the buffer its predecessor did not read last,
// so a single barrier per step suffices (a write to a buffer is always separated from the previous reads
// of that buffer by the barrier of the operation in between).
shared uint sg_emu_slots[2][SG_MAX_WORKGROUP_SIZE];
shared uvec4 sg_emu_slots4[2][SG_MAX_WORKGROUP_SIZE];
shared uint sg_emu_ballot_words[2][4];

uint sg_emu_size;  // the emulated subgroup size = workgroup size
uint sg_emu_id;    // the emulated subgroup invocation id = local invocation index
uint sg_emu_cur;   // which slot buffer was read last

// Takes the workgroup size from the call site: in a function defined here, before the kernel's
// layout(local_size_x_id = ...) declaration, gl_WorkGroupSize would still be the default (1, 1, 1).
void sg_emu_init(uvec3 workgroup_size) {
  sg_emu_size = workgroup_size.x * workgroup_size.y * workgroup_size.z;
  sg_emu_id = gl_LocalInvocationIndex;
  sg_emu_cur = 0u;
}

#define SG_INIT() sg_emu_init(gl_WorkGroupSize)
#define SG_SIZE sg_emu_size
#define SG_ID sg_emu_id
#define SG_COUNT 1u
#define SG_GROUP 0u
#define SG_MAX_SUBGROUPS 1

// Writes v into this invocation's slot of the next buffer, waits for the workgroup, returns that buffer.
uint sg_emu_publish(uint v) {
  uint b = sg_emu_cur ^ 1u;
  sg_emu_slots[b][sg_emu_id] = v;
  memoryBarrierShared();
  barrier();
  sg_emu_cur = b;
  return b;
}

uint sg_emu_publish4(uvec4 v) {
  uint b = sg_emu_cur ^ 1u;
  sg_emu_slots4[b][sg_emu_id] = v;
  memoryBarrierShared();
  barrier();
  sg_emu_cur = b;
  return b;
}

uint sg_emu_lane(uint lane) { return min(lane, uint(SG_MAX_WORKGROUP_SIZE) - 1u); }

#define SG_EMU_ADD(a, b) ((a) + (b))
#define SG_EMU_MUL(a, b) ((a) * (b))
#define SG_EMU_MIN(a, b) min((a), (b))
#define SG_EMU_MAX(a, b) max((a), (b))

// Hillis-Steele inclusive scan over the slots (any workgroup size; log2(size) barriers), then the exclusive
// scan and the reduction from one more exchange each.
#define SG_EMU_SCANS(T, TO_U, FROM_U, NAME, OP, IDENTITY)                  \
  T sg_emu_inclusive_##NAME(T x) {                                          \
    T acc = x;                                                              \
    for (uint off = 1u; off < sg_emu_size; off <<= 1u) {                    \
      uint b = sg_emu_publish(TO_U(acc));                                   \
      if (sg_emu_id >= off) acc = OP(FROM_U(sg_emu_slots[b][sg_emu_id - off]), acc); \
    }                                                                       \
    return acc;                                                             \
  }                                                                         \
  T sg_emu_exclusive_##NAME(T x) {                                          \
    uint b = sg_emu_publish(TO_U(sg_emu_inclusive_##NAME(x)));              \
    return sg_emu_id == 0u ? (IDENTITY) : FROM_U(sg_emu_slots[b][sg_emu_id - 1u]); \
  }                                                                         \
  T sg_emu_reduce_##NAME(T x) {                                             \
    uint b = sg_emu_publish(TO_U(sg_emu_inclusive_##NAME(x)));              \
    return FROM_U(sg_emu_slots[b][sg_emu_size - 1u]);                       \
  }

#define SG_EMU_TYPE_OPS(T, TO_U, FROM_U, SUFFIX, MIN_IDENTITY, MAX_IDENTITY)               \
  T sg_emu_shuffle(T x, uint lane) {                                                        \
    uint b = sg_emu_publish(TO_U(x));                                                       \
    return FROM_U(sg_emu_slots[b][sg_emu_lane(lane)]);                                      \
  }                                                                                         \
  T sg_emu_broadcast_first(T x) { return sg_emu_shuffle(x, 0u); }                           \
  SG_EMU_SCANS(T, TO_U, FROM_U, add_##SUFFIX, SG_EMU_ADD, T(0))                             \
  SG_EMU_SCANS(T, TO_U, FROM_U, mul_##SUFFIX, SG_EMU_MUL, T(1))                             \
  SG_EMU_SCANS(T, TO_U, FROM_U, min_##SUFFIX, SG_EMU_MIN, MIN_IDENTITY)                     \
  SG_EMU_SCANS(T, TO_U, FROM_U, max_##SUFFIX, SG_EMU_MAX, MAX_IDENTITY)                     \
  T sg_emu_add(T x) { return sg_emu_reduce_add_##SUFFIX(x); }                               \
  T sg_emu_mul(T x) { return sg_emu_reduce_mul_##SUFFIX(x); }                               \
  T sg_emu_min(T x) { return sg_emu_reduce_min_##SUFFIX(x); }                               \
  T sg_emu_max(T x) { return sg_emu_reduce_max_##SUFFIX(x); }                               \
  T sg_emu_inclusive_add(T x) { return sg_emu_inclusive_add_##SUFFIX(x); }                  \
  T sg_emu_exclusive_add(T x) { return sg_emu_exclusive_add_##SUFFIX(x); }                  \
  T sg_emu_inclusive_mul(T x) { return sg_emu_inclusive_mul_##SUFFIX(x); }                  \
  T sg_emu_exclusive_mul(T x) { return sg_emu_exclusive_mul_##SUFFIX(x); }                  \
  T sg_emu_inclusive_min(T x) { return sg_emu_inclusive_min_##SUFFIX(x); }                  \
  T sg_emu_exclusive_min(T x) { return sg_emu_exclusive_min_##SUFFIX(x); }                  \
  T sg_emu_inclusive_max(T x) { return sg_emu_inclusive_max_##SUFFIX(x); }                  \
  T sg_emu_exclusive_max(T x) { return sg_emu_exclusive_max_##SUFFIX(x); }

#define SG_EMU_U2U(x) (x)
#define SG_EMU_I2U(x) uint(x)
#define SG_EMU_U2I(x) int(x)

SG_EMU_TYPE_OPS(uint, SG_EMU_U2U, SG_EMU_U2U, u32, 0xffffffffu, 0u)
SG_EMU_TYPE_OPS(int, SG_EMU_I2U, SG_EMU_U2I, i32, 0x7fffffff, int(0x80000000u))
SG_EMU_TYPE_OPS(float, floatBitsToUint, uintBitsToFloat, f32, uintBitsToFloat(0x7f800000u),
                uintBitsToFloat(0xff800000u))

uvec4 sg_emu_shuffle(uvec4 x, uint lane) {
  uint b = sg_emu_publish4(x);
  return sg_emu_slots4[b][sg_emu_lane(lane)];
}
vec4 sg_emu_shuffle(vec4 x, uint lane) { return uintBitsToFloat(sg_emu_shuffle(floatBitsToUint(x), lane)); }
uvec4 sg_emu_broadcast_first(uvec4 x) { return sg_emu_shuffle(x, 0u); }
vec4 sg_emu_broadcast_first(vec4 x) { return sg_emu_shuffle(x, 0u); }

bool sg_emu_elect() { return sg_emu_id == 0u; }
bool sg_emu_all(bool p) { return sg_emu_reduce_min_u32(p ? 1u : 0u) == 1u; }
bool sg_emu_any(bool p) { return sg_emu_reduce_max_u32(p ? 1u : 0u) == 1u; }

#define subgroupShuffle sg_emu_shuffle
#define subgroupBroadcast sg_emu_shuffle
#define subgroupBroadcastFirst sg_emu_broadcast_first
#define subgroupElect sg_emu_elect
#define subgroupAll sg_emu_all
#define subgroupAny sg_emu_any
#define subgroupAdd sg_emu_add
#define subgroupMul sg_emu_mul
#define subgroupMin sg_emu_min
#define subgroupMax sg_emu_max
#define subgroupInclusiveAdd sg_emu_inclusive_add
#define subgroupExclusiveAdd sg_emu_exclusive_add
#define subgroupInclusiveMul sg_emu_inclusive_mul
#define subgroupExclusiveMul sg_emu_exclusive_mul
#define subgroupInclusiveMin sg_emu_inclusive_min
#define subgroupExclusiveMin sg_emu_exclusive_min
#define subgroupInclusiveMax sg_emu_inclusive_max
#define subgroupExclusiveMax sg_emu_exclusive_max

#if SG_MAX_WORKGROUP_SIZE <= 128
// One bit per invocation in 4 words (the 128-bit limit of the ballot type).
uvec4 sg_emu_ballot(bool p) {
  uint b = sg_emu_cur ^ 1u;
  if (sg_emu_id < 4u) sg_emu_ballot_words[b][sg_emu_id] = 0u;
  memoryBarrierShared();
  barrier();
  if (p) atomicOr(sg_emu_ballot_words[b][sg_emu_id >> 5u], 1u << (sg_emu_id & 31u));
  memoryBarrierShared();
  barrier();
  sg_emu_cur = b;
  return uvec4(sg_emu_ballot_words[b][0], sg_emu_ballot_words[b][1], sg_emu_ballot_words[b][2],
               sg_emu_ballot_words[b][3]);
}
#define subgroupBallot sg_emu_ballot
#else
// Build-time refusal: an emulated ballot over more than 128 invocations does not fit the uvec4 result.
#define subgroupBallot(p) SG_EMULATED_BALLOT_NEEDS_SG_MAX_WORKGROUP_SIZE_AT_MOST_128
#endif

#endif  // SG_EMULATE
#endif  // VKGEMM_SUBGROUP_GLSL
