// Kernels the project compiles itself (clang-22, no HIP headers) to run on the CPU emulator against C++
// references (tests/verify/project_kernels_test.cpp): a ragged saxpy, an LDS tree reduction with barriers,
// divergent loops with early exits, DPP / ds_bpermute cross-lane operations, integer division and f16 conversions.
// Builtins stand in for the HIP runtime headers: __builtin_amdgcn_workitem_id_x() is threadIdx.x,
// __builtin_amdgcn_workgroup_id_x() is blockIdx.x, __builtin_amdgcn_workgroup_size_x() is blockDim.x (read from
// the hidden kernel arguments), __attribute__((shared)) is __shared__, and sync_threads() below is __syncthreads().
#define KERNEL extern "C" __attribute__((global))  // __global__

// __syncthreads(): a workgroup-scope release fence, the barrier, an acquire fence (as HIP's __work_group_barrier).
// The fences matter: a bare s_barrier does not wait for this wave's LDS writes (on gfx90a+ LLVM inserts no
// s_waitcnt before it, SIInsertWaitcnts: only targets without back-off barriers need one), so without them another
// wave may read LDS before the write lands; the emulator's adversarial completion shows exactly that.
static inline __attribute__((always_inline, device)) void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

typedef unsigned int u32;

// (1) y[i] = a * x[i] + y[i] for i < n as one fused multiply-add (__builtin_fmaf), whatever the block
// size: the last workgroup is ragged when n is not a multiple of the block.
KERNEL void saxpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i < n) y[i] = __builtin_fmaf(a, x[i], y[i]);
}

// (2) partial[g] = sum of in[g*chunk .. min((g+1)*chunk, n)): each of the 256 work-items adds its strided share in
// order, then a tree reduction through LDS with a barrier (and its fences) after every level.
KERNEL __attribute__((amdgpu_flat_work_group_size(256, 256)))
void block_sum(const float* __restrict__ in, float* __restrict__ partial, int n, int chunk) {
  static __attribute__((shared)) float part[256];
  const int t = __builtin_amdgcn_workitem_id_x();
  const int g = __builtin_amdgcn_workgroup_id_x();
  const int begin = g * chunk;
  const int end = begin + chunk < n ? begin + chunk : n;
  float s = 0.f;
  for (int i = begin + t; i < end; i += 256) s += in[i];
  part[t] = s;
  sync_threads();
  for (int w = 128; w > 0; w >>= 1) {
    if (t < w) part[t] = part[t] + part[t + w];
    sync_threads();
  }
  if (t == 0) partial[g] = part[0];
}

// (3a) Collatz steps of start[i] until it reaches 1, capped at `cap` (a loop whose trip count differs per lane, with
// an early exit).
KERNEL void collatz(const u32* __restrict__ start, u32* __restrict__ steps, int n, u32 cap) {
  const int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i >= n) return;
  u32 x = start[i];
  u32 k = 0;
  for (; k < cap; ++k) {
    if (x <= 1) break;
    x = (x & 1) ? 3 * x + 1 : x >> 1;
  }
  steps[i] = k;
}

// (3b) The first index j < m with hay[j] == keys[i], or -1: a search loop that loads in divergent control flow
// and breaks out when found.
KERNEL void find_first(const int* __restrict__ keys, const int* __restrict__ hay, int* __restrict__ where, int n, int m) {
  const int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i >= n) return;
  const int key = keys[i];
  int found = -1;
  for (int j = 0; j < m; ++j) {
    if (hay[j] == key) {
      found = j;
      break;
    }
  }
  where[i] = found;
}

// (4a) Inclusive prefix sum over each wave of 64 with DPP (row_shr:1,2,4,8 inside rows of 16, then row_bcast:15
// and row_bcast:31 across rows, the gfx9 scan pattern), plus each wave's total through v_readlane. Elements at
// and past n count as 0 (every lane stays active so the cross-lane reads see defined values).
KERNEL __attribute__((amdgpu_flat_work_group_size(64, 256)))
void wave_scan(const u32* __restrict__ in, u32* __restrict__ out, u32* __restrict__ totals, int n) {
  const int t = __builtin_amdgcn_workitem_id_x();
  const int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + t;
  u32 v = i < n ? in[i] : 0u;
  // update_dpp(old, src, dpp_ctrl, row_mask, bank_mask, bound_ctrl): lanes with no source keep `old` (0).
  v += __builtin_amdgcn_update_dpp(0u, v, 0x111, 0xf, 0xf, false);  // row_shr:1
  v += __builtin_amdgcn_update_dpp(0u, v, 0x112, 0xf, 0xf, false);  // row_shr:2
  v += __builtin_amdgcn_update_dpp(0u, v, 0x114, 0xf, 0xf, false);  // row_shr:4
  v += __builtin_amdgcn_update_dpp(0u, v, 0x118, 0xf, 0xf, false);  // row_shr:8
  v += __builtin_amdgcn_update_dpp(0u, v, 0x142, 0xa, 0xf, false);  // row_bcast:15 into rows 1 and 3
  v += __builtin_amdgcn_update_dpp(0u, v, 0x143, 0xc, 0xf, false);  // row_bcast:31 into rows 2 and 3
  if (i < n) out[i] = v;
  const u32 total = __builtin_amdgcn_readlane(v, 63);
  if ((t & 63) == 0) totals[i >> 6] = total;
}

// (4b) The maximum over each wave by a butterfly of ds_bpermute (lane ^ 32, 16, 8, 4, 2, 1), broadcast with
// readfirstlane; every lane writes its wave's maximum. Elements past n are -inf.
KERNEL __attribute__((amdgpu_flat_work_group_size(64, 256)))
void wave_max(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int t = __builtin_amdgcn_workitem_id_x();
  const int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + t;
  float v = i < n ? in[i] : -__builtin_inff();
  const int lane = t & 63;
  for (int d = 32; d > 0; d >>= 1) {
    const int o = __builtin_amdgcn_ds_bpermute((lane ^ d) << 2, __builtin_bit_cast(int, v));
    const float w = __builtin_bit_cast(float, o);
    v = w > v ? w : v;
  }
  const float m = __builtin_bit_cast(float, __builtin_amdgcn_readfirstlane(__builtin_bit_cast(int, v)));
  if (i < n) out[i] = m;
}

// (5a) Unsigned and signed 32-bit division and remainder (no divide instruction: clang expands them into
// v_rcp_iflag_f32 estimates refined with mul_hi).
KERNEL void int_div(const u32* __restrict__ a, const u32* __restrict__ b, u32* __restrict__ q, u32* __restrict__ r,
                    int* __restrict__ sq, int* __restrict__ sr, int n) {
  const int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i >= n) return;
  const u32 x = a[i], y = b[i];
  q[i] = x / y;
  r[i] = x % y;
  const int sx = (int)x, sy = (int)y;
  sq[i] = sx / sy;
  sr[i] = sx % sy;
}

// (5b) f32 -> f16 (round to nearest even) -> f32, scaled: h[i] = (f16)in[i]; back[i] = (float)h[i] * 0.5f.
KERNEL void f16_round(const float* __restrict__ in, _Float16* __restrict__ h, float* __restrict__ back, int n) {
  const int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i >= n) return;
  const _Float16 v = (_Float16)in[i];
  h[i] = v;
  back[i] = (float)v * 0.5f;
}

// (6) Private (scratch) memory: each work-item fills a local array of 96 floats, updates it in a data-dependent
// order and folds it. The array is too large and too dynamically indexed to live in registers, so clang keeps it in
// the private segment: buffer_load/store_dword ... s[0:3] (the scratch V#) on gfx90a, scratch_load/store_* on
// gfx942 and gfx950. Explicit fmas keep the arithmetic independent of contraction choices.
KERNEL void private_scatter(const float* __restrict__ in, const u32* __restrict__ perm, float* __restrict__ out, int n) {
  const int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i >= n) return;
  float tmp[96];
  for (int k = 0; k < 96; ++k) tmp[k] = in[i + k * n];
  for (int k = 0; k < 96; ++k) {
    const u32 p = perm[i + k * n];
    tmp[p % 96] = __builtin_fmaf(tmp[(p >> 8) % 96], 0.5f, tmp[p % 96]);
  }
  float s = 0.f;
  for (int k = 0; k < 96; ++k) s = __builtin_fmaf(s, 0.75f, tmp[k]);
  out[i] = s;
}
