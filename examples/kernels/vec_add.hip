// Example kernels asmevo compiles itself (clang-22, no HIP headers) to exercise fmt/encode/decode.
// Builtins stand in for the HIP runtime headers: __builtin_amdgcn_workitem_id_x() is threadIdx.x,
// sync_threads() below is __syncthreads(), __attribute__((shared)) is __shared__.
#define KERNEL extern "C" __attribute__((global))  // __global__

// __syncthreads(): release fence, barrier, acquire fence at workgroup scope. A bare s_barrier is not enough: on
// gfx90a+ LLVM puts no s_waitcnt before it (SIInsertWaitcnts: targets with back-off barriers need none), so a wave
// could pass the barrier before its LDS writes land; the fences make the compiler wait for them.
static inline __attribute__((always_inline, device)) void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

KERNEL void vec_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}

KERNEL void saxpy_fma(float alpha, const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  for (; i < n; i += 256 * 64) y[i] = __builtin_fmaf(alpha, x[i], y[i]);
}

KERNEL void row_sum(const float* __restrict__ in, float* __restrict__ out, int cols) {
  static __attribute__((shared)) float part[256];
  int row = __builtin_amdgcn_workgroup_id_x();
  int t = __builtin_amdgcn_workitem_id_x();
  float s = 0.f;
  for (int c = t; c < cols; c += 256) s += in[row * cols + c];
  part[t] = s;
  sync_threads();
  for (int w = 128; w > 0; w >>= 1) {
    if (t < w) part[t] += part[t + w];
    sync_threads();
  }
  if (t == 0) out[row] = part[0];
}

// A kernel that calls a function and reads a constant table and a global: its code computes addresses
// PC-relatively (s_getpc_b64, then s_add_u32/s_addc_u32 of a relocated offset), which recovery makes symbolic.
__attribute__((constant)) float poly_coeffs[8] = {1.0f, 0.5f, 0.25f, 0.125f, -1.0f, -0.5f, -0.25f, -0.125f};
__attribute__((device)) float poly_bias[4];
__attribute__((device, noinline)) float poly_term(float x, int k) { return x * poly_coeffs[k & 7] + poly_bias[k & 3]; }

KERNEL void poly_eval(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = poly_term(in[i], i);
}
