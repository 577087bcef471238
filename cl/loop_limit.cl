/* How many loop iterations a work-item runs in one launch (src/opencl/loop_limit.c): n in two
 * loops, each iteration adding a value read from memory, so that no compiler folds a loop into
 * a closed form. A driver that cuts loops stores fewer (Mesa 22.3's llvmpipe: 65535). */
__kernel void loop_limit(__global const int *ones, const int n, __global int *count) {
  int c = 0;
  for (int i = 0; i < n / 2; ++i) c += ones[i & 7];
  for (int i = n / 2; i < n; ++i) c += ones[i & 7];
  if (get_global_id(0) == 0) count[0] = c;
}
