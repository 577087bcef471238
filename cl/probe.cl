/* The device's own ceilings (clgauge probe): FP32 arithmetic in independent multiply-add chains,
 * memory bandwidth of reads, writes and copies, and an empty kernel for the launch cost. Each
 * kernel comes in the vector widths 1, 2, 4, 8 and 16 (suffix _1 ... _16).
 *
 * The chains cannot be folded away: they start from the work-item's id, their multiplier and
 * addend are kernel arguments, the number of rounds is an argument, and their sum is stored.
 * Float multiply-adds are not associative, so no compiler may merge rounds. The written data is
 * a hash of the index and a seed: a device that compresses memory gains nothing from it. */

/* One round: every chain advances by 16 dependent multiply-adds. */
#define CHAIN16(x)                                                                                 \
  x = mad(x, a, b); x = mad(x, a, b); x = mad(x, a, b); x = mad(x, a, b);                          \
  x = mad(x, a, b); x = mad(x, a, b); x = mad(x, a, b); x = mad(x, a, b);                          \
  x = mad(x, a, b); x = mad(x, a, b); x = mad(x, a, b); x = mad(x, a, b);                          \
  x = mad(x, a, b); x = mad(x, a, b); x = mad(x, a, b); x = mad(x, a, b)

/* Sum of a vector's lanes. */
inline float lanes_1(float v) { return v; }
inline float lanes_2(float2 v) { return v.s0 + v.s1; }
inline float lanes_4(float4 v) { return lanes_2(v.s01) + lanes_2(v.s23); }
inline float lanes_8(float8 v) { return lanes_4(v.s0123) + lanes_4(v.s4567); }
inline float lanes_16(float16 v) { return lanes_8(v.s01234567) + lanes_8(v.s89abcdef); }

/* An integer hash of the element index (lowbias32), as a float in [0, 1). */
inline float hashed(uint i) {
  i ^= i >> 16;
  i *= 0x7feb352du;
  i ^= i >> 15;
  i *= 0x846ca68bu;
  i ^= i >> 16;
  return (float)(i >> 8) * (1.0f / 16777216.0f);
}
inline float hashed_1(uint i) { return hashed(i); }
inline float2 hashed_2(uint i) { return (float2)(hashed(2 * i), hashed(2 * i + 1)); }
inline float4 hashed_4(uint i) { return (float4)(hashed_2(2 * i), hashed_2(2 * i + 1)); }
inline float8 hashed_8(uint i) { return (float8)(hashed_4(2 * i), hashed_4(2 * i + 1)); }
inline float16 hashed_16(uint i) { return (float16)(hashed_8(2 * i), hashed_8(2 * i + 1)); }

/* FP32: four independent chains per work-item, 16 x rounds multiply-adds each, that is
 * 4 x 16 x 2 x rounds x width FLOPs per work-item. */
#define FMA_KERNEL(T, W)                                                                           \
  __kernel void fma_##W(__global float *out, float a, float b, int rounds) {                      \
    const float id = (float)get_global_id(0);                                                      \
    T x0 = (T)(id * 1e-7f), x1 = x0 + (T)(0.25f), x2 = x0 + (T)(0.5f), x3 = x0 + (T)(0.75f);       \
    for (int r = 0; r < rounds; ++r) {                                                             \
      CHAIN16(x0);                                                                                 \
      CHAIN16(x1);                                                                                 \
      CHAIN16(x2);                                                                                 \
      CHAIN16(x3);                                                                                 \
    }                                                                                              \
    out[get_global_id(0)] = lanes_##W(x0 + x1 + x2 + x3);                                          \
  }

/* Memory: every work-item moves PER_ITEM elements of width W, the work-items of a group
 * interleaved over one contiguous block (neighbours touch neighbouring elements at each step:
 * coalesced on a GPU, a straight line through memory for a CPU driver that runs a group's
 * work-items in a loop). The global size is the element count over PER_ITEM. read keeps one
 * float per work-item, its sum, so the loads must happen. */
#define PER_ITEM 16
#define BLOCK_START (get_group_id(0) * get_local_size(0) * PER_ITEM + get_local_id(0))
#define MEMORY_KERNELS(T, W)                                                                       \
  __kernel void read_##W(__global const T *in, __global float *sums) {                             \
    const size_t at = BLOCK_START, step = get_local_size(0);                                       \
    T s = (T)(0.0f);                                                                               \
    for (int j = 0; j < PER_ITEM; ++j) s += in[at + j * step];                                     \
    sums[get_global_id(0)] = lanes_##W(s);                                                         \
  }                                                                                                \
  __kernel void write_##W(__global T *out, uint seed) {                                            \
    const size_t at = BLOCK_START, step = get_local_size(0);                                       \
    for (int j = 0; j < PER_ITEM; ++j)                                                             \
      out[at + j * step] = hashed_##W((uint)(at + j * step) ^ seed);                               \
  }                                                                                                \
  __kernel void copy_##W(__global const T *in, __global T *out) {                                  \
    const size_t at = BLOCK_START, step = get_local_size(0);                                       \
    for (int j = 0; j < PER_ITEM; ++j) out[at + j * step] = in[at + j * step];                     \
  }

FMA_KERNEL(float, 1)
FMA_KERNEL(float2, 2)
FMA_KERNEL(float4, 4)
FMA_KERNEL(float8, 8)
FMA_KERNEL(float16, 16)
MEMORY_KERNELS(float, 1)
MEMORY_KERNELS(float2, 2)
MEMORY_KERNELS(float4, 4)
MEMORY_KERNELS(float8, 8)
MEMORY_KERNELS(float16, 16)

/* The launch cost: a kernel that does next to nothing. */
__kernel void empty(__global float *out) {
  if (get_global_id(0) == 0) out[0] = 1.0f;
}
