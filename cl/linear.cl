/* Kernels of the linear workload (see cg_linear_ops in include/clgauge/backend.h): one batch of
 * softmax-regression SGD, fp32, row-major, OpenCL C 1.1 core.
 *
 * A batch's rows come from one of two places, chosen per launch:
 *  - dense (pageable, pinned, and clblast after linear_gather): a buffer of rows (F floats each)
 *    followed by their labels as ints, passed as both X and lab; the batch's rows start at row
 *    off and its labels at element loff (pinned keeps a group of batches in one buffer);
 *  - gathered (resident): X and lab are the whole dataset on the device, and row r of the batch
 *    is sample idx[off + r] of the epoch's order.
 *
 * The fused variant takes two launches per batch: linear_forward (logits, stable softmax,
 * per-row loss and g = (p - onehot)/n, one work-group per row) and linear_update (w and b
 * updated from g, and the batch's mean loss added into the epoch's accumulator). Two is the
 * fewest that pays: the update of w needs every row's g, and OpenCL 1.x has no grid-wide barrier,
 * so a single launch would need atomics on floats (not core) or one work-group doing all the
 * work. The clblast variant replaces the two products by CLBlastSgemm calls and keeps the rest:
 * linear_softmax after the logits product, linear_update restricted to the bias column after the
 * update product, and linear_gather in front when the rows must be made dense for CLBlast.
 *
 * Work-group sizes are chosen at run time (powers of two, no reqd_work_group_size), so that a
 * driver that allows few work-items per kernel (rusticl on llvmpipe: 32) runs them unchanged. */
#include "group_sum.cl"
#include "linear_rows.cl"

/* Offset of row r's first element, and its label. */
inline ulong row_offset(const int F, __global const int *idx, const int gather, const ulong off,
                        const int r) {
  return (gather ? (ulong)idx[off + (ulong)r] : off + (ulong)r) * (ulong)F;
}
inline int row_label(__global const int *lab, __global const int *idx, const int gather,
                     const ulong off, const ulong loff, const int r) {
  return gather ? lab[idx[off + (ulong)r]] : lab[loff + (ulong)r];
}

/* Maximum of v over the work-group, as group_sum (cl/group_sum.cl) sums. */
inline float group_max(float v, __local float *scratch) {
  const int lid = get_local_id(0), L = get_local_size(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = L / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] = fmax(scratch[lid], scratch[lid + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float m = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return m;
}

/* The softmax cross-entropy of one row whose logits z (C floats, bias included) are in global
 * memory and visible to the whole work-group: overwrites z with g = (p - onehot)/n and stores the
 * row's loss, logsumexp(z) - z[label]. The row maximum is subtracted before exp, so that large
 * logits do not overflow. */
inline void softmax_row(__global float *z, const int C, const int label, const int n,
                        __global float *loss_out, __local float *scratch) {
  const int lid = get_local_id(0), L = get_local_size(0);
  const float zlabel = z[label]; /* read before any work-item overwrites it */
  float m = -INFINITY;
  for (int c = lid; c < C; c += L) m = fmax(m, z[c]);
  m = group_max(m, scratch);
  float s = 0.0f;
  for (int c = lid; c < C; c += L) s += exp(z[c] - m);
  s = group_sum(s, scratch);
  /* Relative to the row maximum throughout: m + log(s) - z[label] would round away the digits
   * of log(s) when the logits are large. */
  const float inv_n = 1.0f / (float)n, inv_s = 1.0f / s;
  /* Every work-item has read z[label] above, and the loop below overwrites it. The barriers of
   * group_max and group_sum fence local memory only, which orders no access to global memory:
   * without this one a work-item may overwrite z[label] before another has read it. */
  barrier(CLK_GLOBAL_MEM_FENCE);
  for (int c = lid; c < C; c += L)
    z[c] = (exp(z[c] - m) * inv_s - (c == label ? 1.0f : 0.0f)) * inv_n;
  if (lid == 0) *loss_out = log(s) - (zlabel - m);
}

/* Fused forward pass: work-group r computes row r's logits z = x_r w^T + b into g (n x C),
 * then its softmax, loss and g. Classes go four at a time, each work-item summing a strided
 * share of the features, so that x_r is read once per four classes. scratch: 4 floats per
 * work-item. */
__kernel void linear_forward(const int n, const int F, const int C, __global const float *X,
                             __global const int *lab, __global const int *idx, const int gather,
                             const ulong off, const ulong loff, __global const float *w,
                             __global const float *b, __global float *g,
                             __global float *rowloss, __local float4 *scratch4) {
  const int r = get_group_id(0);
  const int lid = get_local_id(0), L = get_local_size(0);
  __global const float *x = X + row_offset(F, idx, gather, off, r);
  __global float *z = g + (size_t)r * (size_t)C;
  for (int c0 = 0; c0 < C; c0 += 4) {
    /* Classes past C repeat the last one and are not stored. */
    __global const float *w0 = w + (size_t)c0 * F;
    __global const float *w1 = w + (size_t)min(c0 + 1, C - 1) * F;
    __global const float *w2 = w + (size_t)min(c0 + 2, C - 1) * F;
    __global const float *w3 = w + (size_t)min(c0 + 3, C - 1) * F;
    float4 acc = (float4)(0.0f);
    for (int f = lid; f < F; f += L) {
      const float xv = x[f];
      acc += xv * (float4)(w0[f], w1[f], w2[f], w3[f]);
    }
    scratch4[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = L / 2; s > 0; s >>= 1) {
      if (lid < s) scratch4[lid] += scratch4[lid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
      const float4 t = scratch4[0];
      z[c0] = t.x + b[c0];
      if (c0 + 1 < C) z[c0 + 1] = t.y + b[c0 + 1];
      if (c0 + 2 < C) z[c0 + 2] = t.z + b[c0 + 2];
      if (c0 + 3 < C) z[c0 + 3] = t.w + b[c0 + 3];
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* scratch4[0] read before the next chunk writes it */
  }
  barrier(CLK_GLOBAL_MEM_FENCE); /* z written by work-item 0, read by all */
  softmax_row(z, C, row_label(lab, idx, gather, off, loff, r), n, rowloss + r,
              (__local float *)scratch4);
}

/* After the logits product of the clblast variant: work-group r adds the bias to row r of g
 * (n x C, logits without bias) and turns it into the row's g and loss. Dense rows only.
 * scratch: 1 float per work-item. */
__kernel void linear_softmax(const int n, const int C, __global const int *lab, const ulong loff,
                             __global const float *b, __global float *g,
                             __global float *rowloss, __local float *scratch) {
  const int r = get_group_id(0);
  const int lid = get_local_id(0), L = get_local_size(0);
  __global float *z = g + (size_t)r * (size_t)C;
  for (int c = lid; c < C; c += L) z[c] += b[c];
  barrier(CLK_GLOBAL_MEM_FENCE);
  softmax_row(z, C, lab[loff + (ulong)r], n, rowloss + r, scratch);
}

/* The update: work-item (j, c) with f = f_begin + j updates w[c][f] -= lr sum_r g[r][c] x_r[f]
 * for f < F, and b[c] -= lr sum_r g[r][c] for f == F (f_begin = F updates the bias only, as the
 * clblast variant does after its product). Work-group (0, 0) also adds the batch's mean loss
 * into the epoch's accumulator (or sets it, on the epoch's first batch), summing the per-row
 * losses in a fixed order, so that the epoch's loss is the same from run to run. The accumulator
 * is a compensated (Kahan) float pair, since OpenCL 1.x has no core double: epoch_loss[0] is the
 * sum and epoch_loss[1] its running error, the total is their difference.
 * Global size (multiple of the local one, L x 1) >= (F + 1 - f_begin) x C. scratch: L floats. */
__kernel void linear_update(const int n, const int F, const int C, const int f_begin,
                            __global const float *X, __global const int *idx, const int gather,
                            const ulong off, __global const float *g, const float lr,
                            __global float *w, __global float *b,
                            __global const float *rowloss, __global float *epoch_loss,
                            const int reset, __local float *scratch) {
  const int f = f_begin + (int)get_global_id(0);
  const int c = get_global_id(1);
  if (f < F) {
    float acc = 0.0f;
    for (int r = 0; r < n; ++r)
      acc += g[(size_t)r * C + c] * X[row_offset(F, idx, gather, off, r) + (ulong)f];
    w[(size_t)c * F + f] -= lr * acc;
  } else if (f == F) {
    float acc = 0.0f;
    for (int r = 0; r < n; ++r) acc += g[(size_t)r * C + c];
    b[c] -= lr * acc;
  }
  /* Every group takes part in the reduction, with nothing to sum but in group (0, 0): barriers
   * stay out of conditional code, which some compilers (PoCL) do not handle inside branches. */
  const int lid = get_local_id(0), L = get_local_size(0);
  const int loss_group = get_group_id(0) == 0 && get_group_id(1) == 0;
  float s = 0.0f;
  if (loss_group)
    for (int r = lid; r < n; r += L) s += rowloss[r];
  s = group_sum(s, scratch);
  if (loss_group && lid == 0) {
    const float v = s / (float)n;
    if (reset) {
      epoch_loss[0] = v;
      epoch_loss[1] = 0.0f;
    } else {
      const float sum = epoch_loss[0], y = v - epoch_loss[1];
      const float t = sum + y;
      epoch_loss[1] = (t - sum) - y;
      epoch_loss[0] = t;
    }
  }
}

/* Resident rows for CLBlast, which cannot gather: work-item (f, r) copies element f of sample
 * idx[off + r] into a dense batch buffer (rows, then labels at element n*F), f == F the label.
 * out and out_lab are the same buffer. Global size >= (F + 1) x n. */
__kernel void linear_gather(const int n, const int F, __global const float *X,
                            __global const int *lab, __global const int *idx, const ulong off,
                            __global float *out, __global int *out_lab) {
  const int f = get_global_id(0);
  const int r = get_global_id(1);
  if (r >= n) return;
  const ulong src = (ulong)idx[off + (ulong)r];
  if (f < F)
    out[(ulong)r * F + f] = X[src * F + f];
  else if (f == F)
    out_lab[(ulong)n * F + r] = lab[src];
}

/* The epoch variant: one work-group runs every batch of the epoch in order, rows gathered from
 * the resident dataset by the epoch's order, so that an epoch is one launch instead of two per
 * batch. SGD is a chain (each batch reads the model the one before it wrote), and one batch of
 * the seed shape is about 0.6 MFLOP: on a GPU two launches per batch cost more than the batch's
 * arithmetic, and a work-group's barriers cost far less than a launch, while OpenCL 1.x has no
 * barrier across work-groups. The trade: the batches' work runs on one compute unit.
 *
 * Per batch, three steps separated by barriers that fence global memory (g, w and b are read by
 * other work-items of the group after them):
 *  1. the logits z = x_r w^T + b into g (rows x C): the work-group is R rows at a time, each row
 *     split into P = L / R parts of its features (R the batch's rows rounded up to a power of
 *     two, at most L), classes four at a time, the parts summed in local memory;
 *  2. each row's stable softmax, loss and g = (p - onehot) / n, a work-item per row;
 *  3. the update of w and b from g, a work-item per feature (and one for the bias), classes four
 *     at a time.
 * The batch's mean loss goes into the epoch's Kahan pair as linear_update adds it.
 * Work-group size L a power of two; scratch: L float4. */
__kernel void linear_epoch(const int S, const int batch, const int F, const int C,
                           __global const float *X, __global const int *lab,
                           __global const int *idx, const float lr, __global float *w,
                           __global float *b, __global float *g, __global float *epoch_loss,
                           __local float4 *scratch4) {
  const int lid = get_local_id(0), L = get_local_size(0);
  __local float *scratch = (__local float *)scratch4;
  const int nb = (S + batch - 1) / batch, most = min(batch, S);
  int R = 1;
  while (R < most && R < L) R <<= 1;
  const int P = L / R, part = lid % P, rr = lid / P;
  float sum = 0.0f, err = 0.0f;
  for (int k = 0; k < nb; ++k) {
    const int n = min(batch, S - k * batch);
    const ulong off = (ulong)k * (ulong)batch;
    /* 1. logits */
    for (int r0 = 0; r0 < n; r0 += R) {
      const int r = r0 + rr;
      const int live = r < n;
      __global const float *x = X + (live ? (ulong)idx[off + (ulong)r] * (ulong)F : 0);
      for (int c0 = 0; c0 < C; c0 += 4) {
        __global const float *w0 = w + (size_t)c0 * F;
        __global const float *w1 = w + (size_t)min(c0 + 1, C - 1) * F;
        __global const float *w2 = w + (size_t)min(c0 + 2, C - 1) * F;
        __global const float *w3 = w + (size_t)min(c0 + 3, C - 1) * F;
        float4 acc = (float4)(0.0f);
        if (live)
          for (int f = part; f < F; f += P) acc += x[f] * (float4)(w0[f], w1[f], w2[f], w3[f]);
        scratch4[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = P / 2; s > 0; s >>= 1) {
          if (part < s) scratch4[lid] += scratch4[lid + s];
          barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (live && part == 0) {
          const float4 t = scratch4[lid];
          __global float *z = g + (size_t)r * (size_t)C;
          z[c0] = t.x + b[c0];
          if (c0 + 1 < C) z[c0 + 1] = t.y + b[c0 + 1];
          if (c0 + 2 < C) z[c0 + 2] = t.z + b[c0 + 2];
          if (c0 + 3 < C) z[c0 + 3] = t.w + b[c0 + 3];
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* scratch4 read before the next chunk writes it */
      }
    }
    barrier(CLK_GLOBAL_MEM_FENCE); /* the logits written, read below by other work-items */
    /* 2. softmax, loss and g of each row */
    float loss = 0.0f;
    const float inv_n = 1.0f / (float)n;
    for (int r = lid; r < n; r += L) {
      __global float *z = g + (size_t)r * (size_t)C;
      const int label = lab[idx[off + (ulong)r]];
      float row_loss;
      CG_SOFTMAX_ROW(z, C, label, inv_n, row_loss);
      loss += row_loss;
    }
    loss = group_sum(loss, scratch);
    barrier(CLK_GLOBAL_MEM_FENCE); /* g written, read below by other work-items */
    /* 3. the update: w[c][f] -= lr sum_r g[r][c] x_r[f], and b[c] -= lr sum_r g[r][c] */
    for (int f = lid; f <= F; f += L) {
      for (int c0 = 0; c0 < C; c0 += 4) {
        float4 acc = (float4)(0.0f);
        for (int r = 0; r < n; ++r) {
          __global const float *gr = g + (size_t)r * (size_t)C;
          const float xv = f < F ? X[(ulong)idx[off + (ulong)r] * (ulong)F + (ulong)f] : 1.0f;
          const float4 gv = (float4)(gr[c0], c0 + 1 < C ? gr[c0 + 1] : 0.0f,
                                     c0 + 2 < C ? gr[c0 + 2] : 0.0f,
                                     c0 + 3 < C ? gr[c0 + 3] : 0.0f);
          acc += xv * gv;
        }
        if (f < F) {
          w[(size_t)c0 * F + f] -= lr * acc.x;
          if (c0 + 1 < C) w[(size_t)(c0 + 1) * F + f] -= lr * acc.y;
          if (c0 + 2 < C) w[(size_t)(c0 + 2) * F + f] -= lr * acc.z;
          if (c0 + 3 < C) w[(size_t)(c0 + 3) * F + f] -= lr * acc.w;
        } else {
          b[c0] -= lr * acc.x;
          if (c0 + 1 < C) b[c0 + 1] -= lr * acc.y;
          if (c0 + 2 < C) b[c0 + 2] -= lr * acc.z;
          if (c0 + 3 < C) b[c0 + 3] -= lr * acc.w;
        }
      }
    }
    barrier(CLK_GLOBAL_MEM_FENCE); /* the model written before the next batch reads it */
    if (lid == 0) {
      const float v = loss / (float)n;
      cg_loss_add(&sum, &err, v, k == 0);
    }
  }
  if (lid == 0) {
    epoch_loss[0] = sum;
    epoch_loss[1] = err;
  }
}
