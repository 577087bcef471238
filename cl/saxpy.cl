/* y = a*x + y over n floats, in place: memory-bound, so each work-item moves one float4 of x and
 * of y (16-byte loads and stores: a quarter of the memory instructions of scalar ones), and the
 * last 0..3 elements of an n that is not a multiple of 4 go to one more work-item. OpenCL C
 * 1.1. Any n from 1: the host launches at least n/4 + 1 work-items, rounded up to a multiple of
 * WG, and the ones past the end do nothing.
 * Build options: -DWG=<n>, the work-group size the host launches with. */

#ifndef WG
#define WG 256
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
saxpy(const uint n, const float a, __global const float *x, __global float *y) {
  const uint n4 = n / 4;
  const size_t i = get_global_id(0);
  /* x and y are whole buffers (offset 0): aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 64
   * bytes on any device, so float4 accesses are aligned. */
  __global const float4 *x4 = (__global const float4 *)x;
  __global float4 *y4 = (__global float4 *)y;
  if (i < n4) {
    y4[i] = a * x4[i] + y4[i];
  } else if (i == n4) {
    for (uint t = 4 * n4; t < n; ++t) y[t] = a * x[t] + y[t];
  }
}
