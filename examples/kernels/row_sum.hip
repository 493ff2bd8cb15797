// Row sums of a row-major [rows x cols] float matrix: one 64-lane wave per row, y[row] = sum of x[row][*]. cols is a
// multiple of 64; each lane adds every 64th element of its row, then the wave adds its lanes (ds_bpermute, a
// butterfly), and lane 0 writes the sum. Built by examples/CMakeLists.txt with clang-22 -O3 and `#pragma unroll 1`
// on the row loop, so the loop keeps one load in flight per wave: the README's main job gives it to `asmevo optimize`.
// No HIP headers: plain clang builtins.
#define __global__ __attribute__((global))

static __attribute__((device)) float lane_sum(float v, int lane) {
  for (int o = 32; o > 0; o >>= 1)
    v += __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute((lane ^ o) << 2, __builtin_bit_cast(int, v)));
  return v;
}

extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(64, 64)))
void row_sum(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const int lane = __builtin_amdgcn_workitem_id_x();
  const unsigned row = __builtin_amdgcn_workgroup_id_x();
  const float* r = x + (long)row * cols + lane;
  const int n = cols >> 6;
  float acc = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) acc += r[i * 64];
  acc = lane_sum(acc, lane);
  if (lane == 0) y[row] = acc;
}
