/* The persistent linear kernel: every batch of an epoch in one launch over G work-groups, one
 * device-wide barrier per batch (cl/grid_sync.cl), resident rows gathered through the epoch's
 * order as in cl/linear.cl. SGD is a chain, each batch reading the model the one before it
 * wrote; with launches that costs two per batch (cl/linear.cl), with one work-group (the epoch
 * variant) one compute unit does it all. Here the features are split among the groups:
 *  1. group g computes the partial logits of its slice of features for every row and class
 *     and stores them in its slot of `part` (double-buffered by batch parity);
 *  2. one device-wide barrier;
 *  3. every group sums the G partials (in the same order) plus the bias, and computes the
 *     softmax, g = (p - onehot) / n, the batch's loss and the bias update itself: all groups
 *     hold the same numbers, so none waits for another;
 *  4. group g updates its own slice of w (no other group reads it).
 * The next batch's partials go to the other buffer, which no group still reads: a group
 * writes them only after the next barrier, which every group reaches after its reads.
 * Each group keeps its slice of w, the batch's rows of that slice and the bias in local memory
 * for the whole epoch (the bias updated identically in all groups) and writes them back at the
 * end: the only global traffic per batch is the gather of the rows' slices and the partials.
 * The partials are read through volatile pointers: NVIDIA's L1 cache is not coherent across
 * compute units, and a group that read a buffer two batches ago finds its old lines there
 * (wrong results, seen on an H200, without it); volatile loads go to L2.
 *
 * Before anything, each group copies its slice of w to w_saved (group 0 also b to b_saved):
 * when a barrier fails (not every group resident) the groups stop, the host copies them back
 * (a group may have written its results when another timed out at the last barrier) and redoes
 * the epoch with launches.
 *
 * Local memory, slice = ceil(F / G) features: xs (rows x slice), ws (C x slice), zs (rows x C:
 * logits, then g), rl (rows: the rows' losses), bs (C), ro (rows ints: the rows' samples). Any
 * work-group size. */
#include "grid_sync.cl"
#include "linear_rows.cl"

__kernel void linear_persistent(const int S, const int batch, const int F, const int C,
                                __global const float *X, __global const int *lab,
                                __global const int *idx, const float lr, __global float *w,
                                __global float *b, __global float *w_saved,
                                __global float *b_saved, __global float *part,
                                __global float *epoch_loss, __global int *grid, const int spin,
                                __local float *xs, __local float *ws, __local float *zs,
                                __local float *rl, __local float *bs, __local int *ro) {
  __local int failed;
  const int lid = get_local_id(0), L = get_local_size(0);
  const int g = get_group_id(0), G = get_num_groups(0);
  const int nb = (S + batch - 1) / batch, rows = min(batch, S), RC = rows * C;
  const int slice = (F + G - 1) / G, f0 = min(F, g * slice), nf = min(F, f0 + slice) - f0;
  for (int q = lid; q < C * nf; q += L) {
    const int c = q / nf, i = q % nf;
    const float v = w[(size_t)c * F + f0 + i];
    w_saved[(size_t)c * F + f0 + i] = v;
    ws[c * slice + i] = v;
  }
  for (int c = lid; c < C; c += L) {
    bs[c] = b[c];
    if (g == 0) b_saved[c] = b[c];
  }
  float sum = 0.0f, err = 0.0f;
  int ok = 1;
  for (int k = 0; k < nb; ++k) {
    const int n = min(batch, S - k * batch);
    const ulong off = (ulong)k * (ulong)batch;
    /* the batch's rows, then their slices */
    for (int r = lid; r < n; r += L) ro[r] = idx[off + (ulong)r];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = lid; q < n * nf; q += L) {
      const int r = q / nf, i = q % nf;
      xs[r * slice + i] = X[(ulong)ro[r] * (ulong)F + (ulong)(f0 + i)];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* 1. partial logits of the slice */
    __global float *mine = part + ((size_t)(k & 1) * G + g) * RC;
    for (int q = lid; q < n * C; q += L) {
      const int r = q / C, c = q % C;
      __local const float *x = xs + r * slice, *wc = ws + c * slice;
      float acc = 0.0f;
      for (int i = 0; i < nf; ++i) acc += x[i] * wc[i];
      mine[q] = acc;
    }
    /* 2. */
    if (cg_grid_sync(grid, G, spin, &failed)) {
      ok = 0;
      break;
    }
    /* 3. the logits, every group alike */
    volatile __global const float *all = part + (size_t)(k & 1) * G * RC;
    for (int q = lid; q < n * C; q += L) {
      /* four sums in flight: the loads are L2 round trips */
      float z0 = 0.0f, z1 = 0.0f, z2 = 0.0f, z3 = 0.0f;
      int h = 0;
      for (; h + 3 < G; h += 4) {
        z0 += all[(size_t)h * RC + q];
        z1 += all[(size_t)(h + 1) * RC + q];
        z2 += all[(size_t)(h + 2) * RC + q];
        z3 += all[(size_t)(h + 3) * RC + q];
      }
      for (; h < G; ++h) z0 += all[(size_t)h * RC + q];
      zs[q] = bs[q % C] + ((z0 + z1) + (z2 + z3));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const float inv_n = 1.0f / (float)n;
    for (int r = lid; r < n; r += L) {
      __local float *z = zs + r * C;
      const int label = lab[ro[r]];
      CG_SOFTMAX_ROW(z, C, label, inv_n, rl[r]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the loss by the last work-item, the bias by the first ones: in parallel where L > C */
    if (lid == L - 1) {
      float loss = 0.0f;
      for (int r = 0; r < n; ++r) loss += rl[r];
      const float v = loss * inv_n;
      cg_loss_add(&sum, &err, v, k == 0);
    }
    for (int c = lid; c < C; c += L) {
      float db = 0.0f;
      for (int r = 0; r < n; ++r) db += zs[r * C + c];
      bs[c] -= lr * db;
    }
    /* 4. the group's slice of w */
    for (int q = lid; q < C * nf; q += L) {
      const int c = q / nf, i = q % nf;
      float acc = 0.0f;
      for (int r = 0; r < n; ++r) acc += zs[r * C + c] * xs[r * slice + i];
      ws[c * slice + i] -= lr * acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* ws, zs, xs and ro rewritten by the next batch */
  }
  if (ok) {
    for (int q = lid; q < C * nf; q += L) {
      const int c = q / nf, i = q % nf;
      w[(size_t)c * F + f0 + i] = ws[c * slice + i];
    }
    if (g == 0) {
      for (int c = lid; c < C; c += L) b[c] = bs[c];
      if (lid == L - 1) {
        epoch_loss[0] = sum;
        epoch_loss[1] = err;
      }
    }
  }
}
