/* A device-wide barrier for persistent kernels (every work-group of the launch waits until all
 * have arrived), OpenCL C 1.1 core: 32-bit global atomics and memory fences. Included by the
 * kernel files that use it with `#include "grid_sync.cl"` (expanded by src/opencl/program.c from
 * the same kernel store, embedded or --kernel-dir); it defines no kernel of its own.
 *
 * OpenCL does not promise that the work-groups of one launch run at the same time: a group
 * that waits for one that has not started would wait for ever. So the wait is bounded: after
 * `spin` polls without progress the waiting group sets the failure flag and leaves, and every
 * later barrier of the launch (in any group) returns at once with the flag set. A kernel must
 * then stop, and the host redo its work another way (the residency check of
 * src/opencl/grid.c decides beforehand whether to try; the flag catches what it missed).
 *
 * state (3 ints in global memory, zero before the first launch, reset by the host after a
 * failure): [0] arrivals at the current barrier, [1] its generation, [2] the failure flag. The
 * last group to arrive resets the arrivals, then bumps the generation; the others poll the
 * generation they read before arriving. Every access to state is atomic (a poll is an atomic
 * add of zero), so that no group reads a stale copy from a cache that is not coherent across
 * compute units, and so that Oclgrind sees no race on it. The fences order each group's data
 * writes before its arrival and its data reads after the release; the local barriers around
 * them make every work-item of the group part of it. */
#ifndef CG_GRID_SYNC_CL
#define CG_GRID_SYNC_CL

/* The work-item that arrives for its group: the last one, (size - 1, 0, 0). Any one would do;
 * with work-item 0 leading, rusticl on llvmpipe (Mesa 22.3.6, 2 cores) returned wrong results
 * from the persistent mlp with two work-groups, never flagged as a failed barrier, in 5 of 50
 * test processes of 120 instances (four launches each) under load: a tile of w1 wrong in the
 * columns that work-items 0 to 7 (the leader's 8-wide SIMD row) load from h1, or a wrong loss,
 * as if read before the other group wrote them; with the last one leading, in none of 60. The
 * cause inside llvmpipe was not found; test_fused_persistent (tests/test_mlp.c) is the check. */
inline int cg_grid_leader(void) {
  return get_local_id(0) == get_local_size(0) - 1 && get_local_id(1) == 0 &&
         get_local_id(2) == 0;
}

/* Wait until all `groups` work-groups of the launch have called it (every work-item of a group
 * must call it, in uniform control flow, like barrier()). Returns 0 when they have, 1 when the
 * launch has failed (this or an earlier barrier timed out in some group). failed: one int of
 * local memory for the group's verdict. */
inline int cg_grid_sync(__global int *state, const int groups, const int spin,
                        __local int *failed) {
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  /* a single group: the local barrier is the whole of it */
  if (groups == 1) return 0;
  if (cg_grid_leader()) {
    /* both reads in flight at once: the generation does not wait for the flag's round trip
     * (read for nothing when the flag is set) */
    int f = atomic_add(&state[2], 0);
    const int gen = atomic_add(&state[1], 0);
    if (!f) {
      mem_fence(CLK_GLOBAL_MEM_FENCE); /* the group's writes before its arrival */
      if (atomic_inc(&state[0]) == groups - 1) {
        atomic_xchg(&state[0], 0);
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_inc(&state[1]);
      } else {
        /* No break and no side effect inside the loop but its own variables: rusticl on
         * llvmpipe (Mesa 22.3) drops what the body of a loop of a single work-item does in the
         * iteration that leaves it through a break (the flag was never set). */
        int released = 0, polls = 0;
        while (!released && !f && polls < spin) {
          released = atomic_add(&state[1], 0) != gen;
          f = atomic_add(&state[2], 0);
          ++polls;
        }
        if (!released) {
          atomic_xchg(&state[2], 1);
          f = 1;
        }
      }
      mem_fence(CLK_GLOBAL_MEM_FENCE); /* the others' writes before the group's reads */
    }
    *failed = f;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  return *failed;
}

/* The same barrier for kernels that pass many, cheaper: barrier number k (from 0) of a launch
 * whose arrivals count on in state[0] from zero (the host zeroes it before each launch,
 * cg_grid_rearm) ends when state[0] reaches (k + 1) groups. The last arrival is itself the
 * release, and the flag is not read before an arrival (a group that arrives after a failure
 * sees it in its first poll): cg_grid_sync's path has four atomics one after the other more
 * (the flag, the generation, the reset and the bump), each an L2 round trip of hundreds of
 * cycles on a GPU: on an H200 the seed mlp's iteration, two barriers, took 12.6 us with this
 * one against 13.0-13.4 with cg_grid_sync less its first two (bench/RESULTS.md, 2026-12-04). */
inline int cg_grid_count(__global int *state, const int groups, const int spin, const int k,
                         __local int *failed) {
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (groups == 1) return 0;
  if (cg_grid_leader()) {
    const int target = (k + 1) * groups;
    mem_fence(CLK_GLOBAL_MEM_FENCE); /* the group's writes before its arrival */
    int n = atomic_inc(&state[0]) + 1, f = 0, polls = 0;
    /* as in cg_grid_sync: no break, nothing but its own variables in the loop */
    while (n < target && !f && polls < spin) {
      n = atomic_add(&state[0], 0);
      f = atomic_add(&state[2], 0);
      ++polls;
    }
    /* a group that gives up also sends the arrivals far below any target, so that no group
     * arriving later completes a barrier that some group has left: each of them waits, sees the
     * flag and leaves */
    if (n < target && !f) {
      atomic_xchg(&state[0], -(1 << 30));
      atomic_xchg(&state[2], 1);
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE); /* the others' writes before the group's reads */
    *failed = n < target;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  return *failed;
}

/* The same wait with fewer round trips on its critical path, for a kernel that numbers its
 * barriers: barrier number k counts its arrivals in count[k % 3] (3 ints, zero before a launch's
 * first two barriers), and the waiting groups poll that count, where cg_grid_sync's last group
 * resets the arrivals, then bumps a generation behind a fence, and its groups read the flag and
 * the generation before they arrive. The last group to arrive at barrier k zeroes the count of
 * barrier k+2 (that of k-1, which every group has left, since all have arrived at k), not at
 * once but at its next arrival, before the fence that precedes it (*reset carries the count's
 * index from one call to the next: -1 at first, then the work-item's own): a group arrives at
 * k+2 only after barrier k+1, which waits for that arrival, and the zeroing stays off the
 * critical path (at once, the fence behind the release would wait a round trip for it). The
 * kernel calls cg_grid_sync_count_end after its last barrier for the zeroing still due. So a
 * caller that continues the numbering across its launches (k3 = its barrier number modulo 3)
 * finds its counts ready; after a failure the host zeroes them with the state and starts the
 * numbering again. state[2] is the failure flag, as above (state[0] and [1] unused). */
inline int cg_grid_sync_count(__global int *state, __global int *count, const int k3,
                              const int groups, const int spin, __local int *failed,
                              int *reset) {
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (groups == 1) return 0;
  if (cg_grid_leader()) {
    if (*reset >= 0) atomic_xchg(&count[*reset], 0);
    *reset = -1;
    mem_fence(CLK_GLOBAL_MEM_FENCE); /* the group's writes before its arrival */
    /* the flag and the arrival in flight at once; a group that finds the flag set arrives all
     * the same, and the launch ends (the host zeroes the counts after it) */
    int f = atomic_add(&state[2], 0);
    if (atomic_inc(&count[k3]) == groups - 1) {
      *reset = k3 == 0 ? 2 : k3 - 1;
    } else if (!f) {
      /* as in cg_grid_sync: no break, no side effect in the loop but its own variables */
      int released = 0, polls = 0;
      while (!released && !f && polls < spin) {
        released = atomic_add(&count[k3], 0) >= groups;
        f = atomic_add(&state[2], 0);
        ++polls;
      }
      if (!released) {
        atomic_xchg(&state[2], 1);
        f = 1;
      }
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE); /* the others' writes before the group's reads */
    *failed = f;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  return *failed;
}

/* After a kernel's last cg_grid_sync_count (passed or failed): the zeroing still due. */
inline void cg_grid_sync_count_end(__global int *count, const int reset) {
  if (cg_grid_leader() && reset >= 0) atomic_xchg(&count[reset], 0);
}

#endif
