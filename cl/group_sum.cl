/* The sum over a work-group, in a fixed order, shared by the kernel files that include it with
 * `#include "group_sum.cl"` (expanded by src/opencl/program.c); it defines no kernel of its own. */
#ifndef CG_GROUP_SUM_CL
#define CG_GROUP_SUM_CL

/* Sum of v over the work-group (local size a power of two; scratch one float per work-item), a
 * tree over halves, so that it is the same on every run; every work-item gets the result. */
inline float group_sum(float v, __local float *scratch) {
  const int lid = get_local_id(0), L = get_local_size(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = L / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE); /* scratch is reused by the next call */
  return total;
}

#endif
