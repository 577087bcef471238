/* The persistent linear kernel: every batch of an epoch in one launch over G work-groups, one
 * device-wide barrier per batch (cl/grid_sync.cl), resident rows gathered through the epoch's
 * order as in cl/linear.cl (CG_GATHER 1); or, in pinned mode (CG_GATHER 0), every batch of one
 * uploaded group of batches, dense: the group's rows, then their labels as ints from element
 * `loff` of the same buffer. SGD is a chain, each batch reading the model the one before it
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
 * The batch is a chain of latencies, not of arithmetic (a few microseconds on a GPU, of which a
 * global round trip is half of one), so the kernel keeps dependent steps off it:
 *  - CG_PREFETCH 1: the rows' indices are loaded two batches ahead and the rows' slices and
 *    labels one batch ahead, into registers, right after the barrier (they do not depend on
 *    the model), and stored into local memory at the top of their batch; the two dependent
 *    round trips (index, then row) overlap the sums, softmax and update of the batch before.
 *    Each work-item holds CG_XREG elements of a batch's slice; a slice larger than the group's
 *    registers takes the rest at the top of its batch, as with CG_PREFETCH 0, which loads
 *    everything there.
 *  - the partial logits: a work-item per (row, part of the slice's features) with an
 *    accumulator per class (CG_CLASSES, in registers), the parts then summed in local memory,
 *    instead of a work-item per (row, class) with one long dependent chain;
 *  - the G partials of a logit lie side by side (part[batch parity][row][class][G4], G4 = G
 *    rounded up to 4, the padding zero), read as float4 and all of an item's loads issued
 *    before the first add: one L2 round trip, not G;
 *  - the update of w likewise: a work-item per (feature, part of the rows) with an
 *    accumulator per class, the parts summed in local memory.
 *
 * Before anything, each group copies its slice of w to w_saved (group 0 also b and the loss
 * so far to b_saved): when a barrier fails (not every group resident) the groups stop, the
 * first failing group records the launch's number + 1 in fail_at, the host copies them back (a
 * group may have written its results when another timed out at the last barrier) and redoes
 * the launch's batches with launches. A launch that finds fail_at set by an earlier one (pinned
 * mode enqueues its launches before it learns of a failure) does nothing at all, so that the
 * copies stay those from before the failed launch. `first`: the launch holds the epoch's first
 * batch (the loss is set there, else added to the one in epoch_loss).
 *
 * Built with CG_CLASSES (C), CG_GROUPS (G, the launch's work-groups), CG_XREG, CG_PREFETCH,
 * CG_GATHER and CG_SYNC. With CG_SYNC 1 the launch's first barrier is number `base` (modulo 3)
 * of the barrier's counts (cl/grid_sync.cl), the host carrying the numbering over its launches.
 * Local memory, slice = ceil(F / G) features, L work-items: xs (rows x slice), ws (C x slice),
 * zs (rows x C: logits, then g), rl (rows: the rows' losses), bs (C), lb (rows ints: the rows'
 * labels), red (C x max(rows, L): the parts' sums). Any work-group size. */
#include "grid_sync.cl"
#include "linear_rows.cl"

#ifndef CG_CLASSES
#error "build with -DCG_CLASSES=<classes>"
#endif
#ifndef CG_GROUPS
#error "build with -DCG_GROUPS=<work-groups>"
#endif
#ifndef CG_XREG
#define CG_XREG 8
#endif
#ifndef CG_PREFETCH
#define CG_PREFETCH 1
#endif
#ifndef CG_GATHER
#define CG_GATHER 1
#endif
/* the device-wide barrier: 1 counts arrivals per barrier number (cg_grid_sync_count, fewer
 * round trips), 0 the generation barrier the other persistent kernels use */
#ifndef CG_SYNC
#define CG_SYNC 1
#endif
/* the sample of position o of the launch's batches: through the order, or the position */
#if CG_GATHER
#define CG_SAMPLE(o) idx[(o)]
#else
#define CG_SAMPLE(o) ((int)(o))
#endif

#define CG_C CG_CLASSES
#define CG_G4 ((CG_GROUPS + 3) / 4 * 4)
/* float4 loads per logit, and per batch of loads in flight */
#define CG_G4V (CG_G4 / 4)
#define CG_SUM_CHUNK 8

/* Element q's sum over `parts` partials in local memory, part p at red[p * stride + q]: the even
 * and the odd parts in two running sums, added at the end (steps 1 and 4 of the kernel). */
inline float cg_parts_sum(__local const float *red, const int parts, const int stride,
                          const int q) {
  float a0 = 0.0f, a1 = 0.0f;
  int p = 0;
  for (; p + 1 < parts; p += 2) {
    a0 += red[p * stride + q];
    a1 += red[(p + 1) * stride + q];
  }
  if (p < parts) a0 += red[p * stride + q];
  return a0 + a1;
}

__kernel void linear_persistent(const int S, const int batch, const int F,
                                __global const float *X, __global const int *lab,
                                __global const int *idx, const ulong loff, const float lr,
                                __global float *w, __global float *b, __global float *w_saved,
                                __global float *b_saved, __global float *part,
                                __global float *epoch_loss, __global int *grid,
                                __global int *fail_at, __global int *count, const int base,
                                const int spin, const int launch, const int first,
                                __local float *xs, __local float *ws, __local float *zs,
                                __local float *rl, __local float *bs, __local int *lb,
                                __local float *red) {
  __local int failed, skip;
  const int lid = get_local_id(0), L = get_local_size(0);
  if (cg_grid_leader()) {
    const int at = atomic_add(fail_at, 0);
    skip = at != 0 && at != launch + 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (skip) return; /* an earlier launch failed: the host redoes it and this one */
  const int g = get_group_id(0), G = CG_GROUPS;
  const int nb = (S + batch - 1) / batch, rows = min(batch, S), RC = rows * CG_C;
  const int slice = (F + G - 1) / G, f0 = min(F, g * slice), nf = min(F, f0 + slice) - f0;
  /* parts of the features per row (logits) and of the rows per feature (update) */
  const int P = max(1, min(L / rows, nf));
  const int RP = nf ? max(1, min(L / nf, rows)) : 1;
  for (int q = lid; q < CG_C * nf; q += L) {
    const int c = q / nf, i = q % nf;
    const float v = w[(size_t)c * F + f0 + i];
    w_saved[(size_t)c * F + f0 + i] = v;
    ws[c * slice + i] = v;
  }
  for (int c = lid; c < CG_C; c += L) {
    bs[c] = b[c];
    if (g == 0) b_saved[c] = b[c];
  }
  float sum = 0.0f, err = 0.0f;
  if (!first) {
    sum = epoch_loss[0];
    err = epoch_loss[1];
  }
  if (g == 0 && lid == 0) {
    b_saved[CG_C] = sum;
    b_saved[CG_C + 1] = err;
  }
  /* The work-item's elements of a batch's slice, e = lid + j L: row er[j], feature e % nf;
   * a row past the batch's end is no element. */
  int er[CG_XREG];
  for (int j = 0; j < CG_XREG; ++j) er[j] = nf ? (lid + j * L) / nf : rows;
  int ix[CG_XREG];  /* the elements' samples, of the batch after the one being fetched */
  float xr[CG_XREG]; /* the elements, of the batch to come */
  int lix = 0, lbl = 0; /* the sample and label of row lid, likewise */
#define CG_N(k) min(batch, S - (k) * batch)
/* The prefetch's loads are unguarded, and in bounds for every work-item: an element past the
 * batch reads the batch's last row (at its column e % nf, in the slice; column 0 where the group
 * has no features) and is never stored. Guarded each by its own row, as before, the kernel
 * crashed (signal 11, an index load out of bounds) on PoCL 5.0 with LLVM 16 on an AVX-512 host,
 * at every work-group size, while Oclgrind found no access out of bounds. The loops keep their
 * constant bound: with the group's own count of register rounds as the bound, the H200 took 9%
 * longer per batch (the registers indexed at run time). */
#define CG_FETCH_INDICES(k)                                                                      \
  do {                                                                                           \
    const int last_ = CG_N(k) - 1;                                                               \
    const ulong o_ = (ulong)(k) * (ulong)batch;                                                  \
    for (int j = 0; j < CG_XREG; ++j) ix[j] = CG_SAMPLE(o_ + (ulong)min(er[j], last_));          \
    lix = CG_SAMPLE(o_ + (ulong)min(lid, last_));                                                \
  } while (0)
#define CG_FETCH_ROWS(k)                                                                         \
  do {                                                                                           \
    for (int j = 0; j < CG_XREG; ++j)                                                            \
      xr[j] = X[(ulong)ix[j] * (ulong)F + (ulong)(nf ? f0 + lid + j * L - er[j] * nf : 0)];       \
    lbl = lab[loff + (ulong)lix];                                                                \
  } while (0)
#if CG_PREFETCH
  CG_FETCH_INDICES(0);
  CG_FETCH_ROWS(0);
  if (nb > 1) CG_FETCH_INDICES(1);
#endif
  int ok = 1;
#if CG_SYNC
  int count_reset = -1; /* cg_grid_sync_count's zeroing still due */
#endif
  for (int k = 0; k < nb; ++k) {
    const int n = CG_N(k);
    const ulong off = (ulong)k * (ulong)batch;
#if !CG_PREFETCH
    CG_FETCH_INDICES(k);
    CG_FETCH_ROWS(k);
#endif
    /* the batch's rows and labels into local memory: those fetched, then any beyond the
     * work-item's registers */
    for (int j = 0; j < CG_XREG; ++j)
      if (er[j] < n) xs[er[j] * slice + lid + j * L - er[j] * nf] = xr[j];
    for (int e = lid + CG_XREG * L; e < n * nf; e += L) {
      const int r = e / nf, i = e % nf;
      xs[r * slice + i] = X[(ulong)CG_SAMPLE(off + (ulong)r) * (ulong)F + (ulong)(f0 + i)];
    }
    for (int r = lid; r < n; r += L)
      lb[r] = r == lid ? lbl : lab[loff + (ulong)CG_SAMPLE(off + (ulong)r)];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* 1. partial logits of the slice: part p of the features of row r, every class */
    const int nC = n * CG_C;
    for (int q = lid; q < n * P; q += L) {
      const int r = q / P, p = q % P;
      __local const float *x = xs + r * slice;
      float acc[CG_C];
      for (int c = 0; c < CG_C; ++c) acc[c] = 0.0f;
      for (int i = p; i < nf; i += P) {
        const float xv = x[i];
        for (int c = 0; c < CG_C; ++c) acc[c] += xv * ws[c * slice + i];
      }
      for (int c = 0; c < CG_C; ++c) red[p * nC + r * CG_C + c] = acc[c];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global float *mine = part + (size_t)(k & 1) * RC * CG_G4 + g;
    for (int q = lid; q < nC; q += L) mine[(size_t)q * CG_G4] = cg_parts_sum(red, P, nC, q);
    /* 2. */
#if CG_SYNC
    const int fails =
        cg_grid_sync_count(grid, count, (base + k) % 3, G, spin, &failed, &count_reset);
#else
    const int fails = cg_grid_sync(grid, G, spin, &failed);
#endif
    if (fails) {
      ok = 0;
      break;
    }
#if CG_PREFETCH
    /* the next batch's rows, and the indices of the one after: in flight during steps 3-4 */
    if (k + 1 < nb) CG_FETCH_ROWS(k + 1);
    if (k + 2 < nb) CG_FETCH_INDICES(k + 2);
#endif
    /* 3. the logits, every group alike: two logits per work-item and round, every load of
     * both issued before the first add */
    volatile __global const float4 *all =
        (volatile __global const float4 *)(part + (size_t)(k & 1) * RC * CG_G4);
    for (int q0 = lid; q0 < nC; q0 += 2 * L) {
      const int q1 = q0 + L, two = q1 < nC;
      float4 s0 = (float4)(0.0f), s1 = (float4)(0.0f);
      for (int h0 = 0; h0 < CG_G4V; h0 += CG_SUM_CHUNK) {
        float4 v0[CG_SUM_CHUNK], v1[CG_SUM_CHUNK];
        for (int j = 0; j < CG_SUM_CHUNK; ++j)
          if (h0 + j < CG_G4V) v0[j] = all[(size_t)q0 * CG_G4V + h0 + j];
        for (int j = 0; j < CG_SUM_CHUNK; ++j)
          if (two && h0 + j < CG_G4V) v1[j] = all[(size_t)q1 * CG_G4V + h0 + j];
        for (int j = 0; j < CG_SUM_CHUNK; ++j)
          if (h0 + j < CG_G4V) {
            s0 += v0[j];
            if (two) s1 += v1[j];
          }
      }
      zs[q0] = bs[q0 % CG_C] + ((s0.x + s0.y) + (s0.z + s0.w));
      if (two) zs[q1] = bs[q1 % CG_C] + ((s1.x + s1.y) + (s1.z + s1.w));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const float inv_n = 1.0f / (float)n;
    for (int r = lid; r < n; r += L) {
      __local float *z = zs + r * CG_C;
      const int label = lb[r];
      CG_SOFTMAX_ROW(z, CG_C, label, inv_n, rl[r]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the loss by the last work-item, the bias by the first ones: in parallel where L > C */
    if (lid == L - 1) {
      float loss = 0.0f;
      for (int r = 0; r < n; ++r) loss += rl[r];
      const float v = loss * inv_n;
      cg_loss_add(&sum, &err, v, first && k == 0);
    }
    for (int c = lid; c < CG_C; c += L) {
      float db = 0.0f;
      for (int r = 0; r < n; ++r) db += zs[r * CG_C + c];
      bs[c] -= lr * db;
    }
    /* 4. the group's slice of w: part rp of the rows for feature i, every class */
    const int CF = CG_C * nf;
    for (int q = lid; q < nf * RP; q += L) {
      const int i = q % nf, rp = q / nf;
      float acc[CG_C];
      for (int c = 0; c < CG_C; ++c) acc[c] = 0.0f;
      for (int r = rp; r < n; r += RP) {
        const float xv = xs[r * slice + i];
        for (int c = 0; c < CG_C; ++c) acc[c] += zs[r * CG_C + c] * xv;
      }
      for (int c = 0; c < CG_C; ++c) red[rp * CF + c * nf + i] = acc[c];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = lid; q < CF; q += L) {
      const int c = q / nf, i = q % nf;
      ws[c * slice + i] -= lr * cg_parts_sum(red, RP, CF, q);
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* ws, zs, xs, lb and red rewritten by the next batch */
  }
#undef CG_N
#undef CG_FETCH_INDICES
#undef CG_FETCH_ROWS
  /* after the loop, not in the iteration that breaks out of it: rusticl on llvmpipe (Mesa
   * 22.3) drops what that iteration does (see cl/grid_sync.cl) */
  if (!ok && cg_grid_leader()) atomic_cmpxchg(fail_at, 0, launch + 1);
#if CG_SYNC
  cg_grid_sync_count_end(count, count_reset);
#endif
  if (ok) {
    for (int q = lid; q < CG_C * nf; q += L) {
      const int c = q / nf, i = q % nf;
      w[(size_t)c * F + f0 + i] = ws[c * slice + i];
    }
    if (g == 0) {
      for (int c = lid; c < CG_C; c += L) b[c] = bs[c];
      if (lid == L - 1) {
        epoch_loss[0] = sum;
        epoch_loss[1] = err;
      }
    }
  }
}
