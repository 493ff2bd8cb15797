// Calibration kernels for the cost model (issue 27): each one isolates one figure that published microbenchmarks
// measure on MI300X (gfx942) and MI210/MI250X (gfx90a), so that bench/calibrate can put the model's figure beside
// the published one. Compiled by clang-22 like the other example kernels (HIP source, no HIP headers); each kernel
// has a launch file in bench/calibrate/launch/. Builtins stand in for the runtime headers (see
// examples/kernels/emu_kernels.hip): __builtin_amdgcn_workitem_id_x() is threadIdx.x, and so on.
//
// Latency kernels follow the published pointer chases: one lane loads the index of its next load from what it just
// loaded, so every load waits for the previous one. The chain visits the units (128-byte lines, or 4 KiB pages) of
// a power-of-two working set in the order of a full-period linear congruential sequence (unit' = 5 * unit + 1 mod
// units), so that each pass touches every unit once, in an order no stride prefetcher follows, as the random
// permutations of RRZE's gpu-latency and of mt4g do. The launch file fills the buffer with that sequence: an "iota"
// with start s and step 5 holds 5 * e + s at element e, which for e = u * s (unit u of s elements) is s * (5u + 1);
// the kernel masks it into the working set, so a step is one load and one AND (and the address arithmetic), as in
// the published chases.
#define KERNEL extern "C" __attribute__((global))

typedef unsigned int u32;
typedef unsigned long long u64;
typedef float float4_t __attribute__((ext_vector_type(4)));
typedef float float2_t __attribute__((ext_vector_type(2)));
typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef float float16_t __attribute__((ext_vector_type(16)));
typedef short short4_t __attribute__((ext_vector_type(4)));
typedef u32 uint4_t __attribute__((ext_vector_type(4)));

static inline __attribute__((always_inline, device)) u32 tid() { return __builtin_amdgcn_workitem_id_x(); }
static inline __attribute__((always_inline, device)) u32 gid() { return __builtin_amdgcn_workgroup_id_x(); }

// __syncthreads(), as examples/kernels/emu_kernels.hip writes it.
static inline __attribute__((always_inline, device)) void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// ---- latency ---------------------------------------------------------------------------------------------------

// Vector-memory pointer chase: `steps` dependent global loads by lane 0 (the launch has one work-item). `mask` is the
// working set's element count minus one (a power of two). `zero` is 0 from the launch file: it makes the index a
// per-lane (VGPR) value, so the loads are vector loads, not scalar ones.
KERNEL void chase_vector(const u32* __restrict__ chain, u32 mask, u32 steps, u32 zero, u32* __restrict__ out) {
  u32 x = tid() * zero;
  // Unrolled as RRZE's gpu-latency unrolls its chase, so that the loop's branch is not part of every step.
#pragma unroll 8
  for (u32 s = 0; s < steps; ++s) x = chain[x] & mask;
  out[tid()] = x;
}

// Scalar-cache pointer chase: the same chain through s_load (a uniform index from a read-only, non-aliased buffer).
KERNEL void chase_scalar(const u32* __restrict__ chain, u32 mask, u32 steps, u32* __restrict__ out) {
  u32 x = 0;
#pragma unroll 8
  for (u32 s = 0; s < steps; ++s) x = chain[x] & mask;
  out[0] = x;
}

// LDS pointer chase: the workgroup (one wave) fills 16 KiB of LDS with a chain that steps 33 dwords at a time (33
// and 4096 are coprime, so it visits every dword), then lane 0 follows it for `steps` loads.
KERNEL void chase_lds(u32 steps, u32 zero, u32* __restrict__ out) {
  static __attribute__((shared)) u32 lds[4096];
  for (u32 k = tid(); k < 4096; k += 64) lds[k] = (k + 33u) & 4095u;
  sync_threads();
  u32 x = tid() * zero;
  if (tid() == 0)
#pragma unroll 8
    for (u32 s = 0; s < steps; ++s) x = lds[x];
  out[tid()] = x;
}

// Global atomics: lane 0 of each workgroup adds to one counter, `steps` times, each add waiting for the previous
// one's returned value (so the loop runs at the latency of an atomic at L2, where the device performs it).
KERNEL void atomic_chain(u32* __restrict__ counter, u32 steps, u32 zero, u32* __restrict__ out) {
  u32 x = tid() * zero;
  if (tid() == 0)
    for (u32 s = 0; s < steps; ++s) x = __hip_atomic_fetch_add(counter + (x & zero), 1u, __ATOMIC_RELAXED,
                                                                __HIP_MEMORY_SCOPE_AGENT);
  out[gid() * 64 + tid()] = x;
}

// s_barrier round trip: every wave of the workgroup passes `steps` barriers with no work between them.
KERNEL void barrier_loop(u32 steps, u32* __restrict__ out) {
  for (u32 s = 0; s < steps; ++s) __builtin_amdgcn_s_barrier();
  out[gid() * 256 + tid()] = steps;
}

// ---- bandwidth -------------------------------------------------------------------------------------------------

// Streaming read: every wave reads `per_wave` 16-byte elements per lane with `N` 16-byte loads (global_load_dwordx4)
// issued before it waits for the first, as FLEET's stream_read probe and RRZE's gpu-stream "read" do; it xors what
// it read, so no load is dead. One launch covers every CU; the launch file sets the waves per SIMD. With `passes` > 1
// the wave reads its part again, which then comes from whichever cache holds it (the L2 and Infinity Cache rows).
// Waves w and w + wrap read the same part (the L1 row: every workgroup reads the same few kilobytes, as RRZE's
// gpu-cache does; 0xffffffff: every wave its own part).
template <int N>
static inline __attribute__((always_inline, device)) void stream_read(const uint4_t* __restrict__ in, u32 per_wave,
                                                                     u32 passes, u32 wrap, uint4_t* __restrict__ out) {
  const u32 wave = gid() * (__builtin_amdgcn_workgroup_size_x() / 64) + tid() / 64, lane = tid() % 64;
  const uint4_t* p = in + u64{wave % wrap} * per_wave * 64 + lane;
  uint4_t acc = {0, 0, 0, 0};
  for (u32 pass = 0; pass < passes; ++pass)
    for (u32 i = 0; i < per_wave; i += N) {
      uint4_t v[N];
#pragma unroll
      for (int k = 0; k < N; ++k) v[k] = __builtin_nontemporal_load(p + (i + k) * 64);
#pragma unroll
      for (int k = 0; k < N; ++k) acc ^= v[k];
    }
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9e3779b9u) out[wave * 64 + lane] = acc;  // never true for zeroed input
}
KERNEL void stream_read_1(const uint4_t* __restrict__ in, u32 per_wave, u32 passes, u32 wrap,
                                 uint4_t* __restrict__ out) {
  stream_read<1>(in, per_wave, passes, wrap, out);
}
KERNEL void stream_read_2(const uint4_t* __restrict__ in, u32 per_wave, u32 passes, u32 wrap,
                                 uint4_t* __restrict__ out) {
  stream_read<2>(in, per_wave, passes, wrap, out);
}
KERNEL void stream_read_4(const uint4_t* __restrict__ in, u32 per_wave, u32 passes, u32 wrap,
                                 uint4_t* __restrict__ out) {
  stream_read<4>(in, per_wave, passes, wrap, out);
}
KERNEL void stream_read_8(const uint4_t* __restrict__ in, u32 per_wave, u32 passes, u32 wrap,
                                 uint4_t* __restrict__ out) {
  stream_read<8>(in, per_wave, passes, wrap, out);
}

// Streaming copy (BabelStream "Copy"): work-item i of the launch copies elements i, i + n, i + 2n, ..., `per_item`
// 16-byte elements (`n`: the launch's work-items, from the launch file).
KERNEL void stream_copy(const uint4_t* __restrict__ in, uint4_t* __restrict__ out, u32 per_item, u32 n) {
  u32 i = gid() * __builtin_amdgcn_workgroup_size_x() + tid();
  for (u32 k = 0; k < per_item; ++k, i += n) out[i] = in[i];
}

// LDS bandwidth: every lane reads 16 dwords per repetition at lds[lane * stride + 64 k] (k = 0..15; the 64 k is the
// instruction's immediate offset, so no address arithmetic runs between the reads): stride 1 has the 32 lanes of a
// half-wave on 32 different banks, 2, 4 and 32 put 2, 4 and 32 of them on one bank. The empty asm keeps the compiler
// from reusing the values of the previous repetition.
KERNEL void lds_read(u32 stride, u32 reps, u32* __restrict__ out) {
  static __attribute__((shared)) u32 lds[4096];
  for (u32 k = tid(); k < 4096; k += __builtin_amdgcn_workgroup_size_x()) lds[k] = k;
  sync_threads();
  const u32* base = lds + ((tid() % 64) * stride) % 2048;
  u32 acc = 0;
  for (u32 r = 0; r < reps; ++r) {
    __asm__ volatile("" ::: "memory");
#pragma unroll
    for (u32 k = 0; k < 16; ++k) acc ^= base[64 * k];
  }
  out[gid() * __builtin_amdgcn_workgroup_size_x() + tid()] = acc;
}

// ---- compute throughput -----------------------------------------------------------------------------------------

// Packed f32 FMA (v_pk_fma_f32): 8 independent chains per lane, so the SIMD never waits on a result; the repetition
// loop is unrolled four times so that its branch is a small part of the work, as peak-rate benchmarks make it.
KERNEL void valu_pk_fma_f32(float a, u32 reps, float* __restrict__ out) {
  float2_t x[8];
  for (int k = 0; k < 8; ++k) x[k] = (float2_t){float(tid() + k), float(k)};
  const float2_t av = {a, a};
#pragma unroll 4
  for (u32 r = 0; r < reps; ++r)
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = __builtin_elementwise_fma(x[k], av, av);
  float s = 0;
  for (int k = 0; k < 8; ++k) s += x[k].x + x[k].y;
  out[gid() * 256 + tid()] = s;
}

// f64 FMA (v_fma_f64), 8 independent chains.
KERNEL void valu_fma_f64(double a, u32 reps, double* __restrict__ out) {
  double x[8];
  for (int k = 0; k < 8; ++k) x[k] = double(tid() + k);
#pragma unroll 4
  for (u32 r = 0; r < reps; ++r)
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = __builtin_fma(x[k], a, a);
  double s = 0;
  for (int k = 0; k < 8; ++k) s += x[k];
  out[gid() * 256 + tid()] = s;
}

// Transcendental (v_exp_f32 through __builtin_amdgcn_exp2f), 8 independent chains.
KERNEL void valu_exp_f32(u32 reps, float* __restrict__ out) {
  float x[8];
  for (int k = 0; k < 8; ++k) x[k] = -float(tid() + k) * 1e-3f;
#pragma unroll 4
  for (u32 r = 0; r < reps; ++r)
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = __builtin_amdgcn_exp2f(x[k]) - 1.0f;
  float s = 0;
  for (int k = 0; k < 8; ++k) s += x[k];
  out[gid() * 256 + tid()] = s;
}

// MFMA peak: 4 independent accumulators per wave, so back-to-back MFMAs never wait on each other's results.
KERNEL void mfma_f16_32x32x8(u32 reps, float* __restrict__ out) {
  const half4_t a = {(_Float16)1, (_Float16)0, (_Float16)0, (_Float16)0};
  float16_t c[4] = {};
  for (u32 r = 0; r < reps; ++r)
#pragma unroll
    for (int k = 0; k < 4; ++k) c[k] = __builtin_amdgcn_mfma_f32_32x32x8f16(a, a, c[k], 0, 0, 0);
  float s = 0;
  for (int k = 0; k < 4; ++k) s += c[k][0];
  out[gid() * 256 + tid()] = s;
}

KERNEL void mfma_bf16_32x32x8(u32 reps, float* __restrict__ out) {
  const short4_t a = {16256, 0, 0, 0};  // bf16 1.0
  float16_t c[4] = {};
  for (u32 r = 0; r < reps; ++r)
#pragma unroll
    for (int k = 0; k < 4; ++k) c[k] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, a, c[k], 0, 0, 0);
  float s = 0;
  for (int k = 0; k < 4; ++k) s += c[k][0];
  out[gid() * 256 + tid()] = s;
}

#if defined(__gfx942__) || defined(__gfx950__)
KERNEL void mfma_fp8_32x32x16(u32 reps, float* __restrict__ out) {
  const long a = 0x38;  // fp8 e4m3fnuz 1.0 in the low byte
  float16_t c[4] = {};
  for (u32 r = 0; r < reps; ++r)
#pragma unroll
    for (int k = 0; k < 4; ++k) c[k] = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, a, c[k], 0, 0, 0);
  float s = 0;
  for (int k = 0; k < 4; ++k) s += c[k][0];
  out[gid() * 256 + tid()] = s;
}
#endif
