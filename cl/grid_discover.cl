/* The residency check of src/opencl/grid.c and the barrier's own test kernel. */
#include "grid_sync.cl"

/* Launched with the work-group count, size and local memory of a persistent kernel: every group
 * passes one device-wide barrier. When not every group can be resident at once, the first ones
 * time out and set state[2]; the host reads it. `scratch` takes the persistent kernel's local
 * memory, so that as many groups fit on a compute unit as of the real kernel; one float of it is
 * written so that the allocation is not optimised away. */
__kernel void grid_discover(__global int *state, const int spin, __local float *scratch,
                            __global float *sink) {
  __local int failed;
  scratch[get_local_id(0)] = (float)get_group_id(0);
  cg_grid_sync(state, (int)get_num_groups(0), spin, &failed);
  if (cg_grid_leader() && get_group_id(0) == 0) sink[0] = scratch[0];
}

/* The barrier's test: `rounds` barriers; before barrier k each group writes k + its id into its
 * slot of seen[k % 2][.], after it each group checks every other group's slot of that round (the
 * double buffer keeps round k+1's writes off the slots a slow group still reads). wrong[group]
 * counts the slots that did not hold what their group wrote; past a failed barrier nothing is
 * checked (the host sees state[2]). The slots are read through a volatile pointer, as the
 * persistent kernels read what other groups wrote: NVIDIA's L1 is not coherent across compute
 * units, and plain loads there returned a slot's value of two rounds before (seen on an H200:
 * 100 wrong slots in 101 rounds). */
__kernel void grid_test(__global int *state, const int spin, const int rounds,
                        __global int *seen, __global int *wrong) {
  __local int failed;
  const int g = get_group_id(0), G = get_num_groups(0), lid = get_local_id(0);
  const int L = get_local_size(0);
  int bad = 0;
  for (int k = 0; k < rounds; ++k) {
    volatile __global int *slots = seen + (k % 2) * G;
    if (lid == 0) slots[g] = k + g;
    if (cg_grid_sync(state, G, spin, &failed)) break;
    for (int h = lid; h < G; h += L) bad += slots[h] != k + h;
  }
  /* every work-item's count, summed by the leader after a local barrier */
  __local int count;
  if (lid == 0) count = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (bad) atomic_add(&count, bad);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) wrong[g] = count;
}
