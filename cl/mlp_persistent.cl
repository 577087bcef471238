/* The persistent mlp step: a run's iterations in one launch of G work-groups with two
 * device-wide barriers per iteration (cg_grid_count, cl/grid_sync.cl), in place of the fused
 * variant's two or three launches per iteration (cl/mlp.cl). Built per shape (the macros
 * below), so that every array is sized and every loop bound known to the compiler.
 *
 * w1 is cut into TI x TJ tiles of BI rows by BJ columns; group g < TI TJ owns tile
 * (g / TJ, g % TJ) and keeps it, with its rows' columns of x, in local memory for the run (the
 * groups beyond the tiles, when asked for, only share the reductions). An iteration:
 *  1. tile groups: the previous iteration's backward part for the tile, dz1[:, J] from the
 *     h1[:, J], w2[J, :] and dz2 that phase 3 left in local memory, then g1 = x[:, I]^T dz1[:, J]
 *     and the update of the tile; then this iteration's partial product x[:, I] w1[I, J] into
 *     the tile's slot of `part`;
 *  barrier;
 *  2. group g takes rows n = g, g + G, ... of the batch: h1[n, :] = relu(sum of the TI partials
 *     of the row), into h1g, and h2[n, :] = relu(h1[n, :] w2) into h2g;
 *  barrier;
 *  3. every group alike (the same numbers in the same order, so that their copies stay equal
 *     and no group waits for another): h2 into local memory, y = h2 w3, dy = 2 (y - t),
 *     g3 += h2^T dy, dz2 = (dy w3^T) * (h2 > 0), the w3 update when asked; then group g's own
 *     W2R rows of w2: w2 -= lr h1^T dz2 for them, written to the next iteration's w2 buffer.
 *     It also loads what the next phase 1 needs (the tile's h1[:, J] and w2[J, :]).
 * The small part runs in every group, so one barrier less than a launch per phase; the large
 * ones (the first layer's products, the sums of the partials) are spread over the groups.
 *
 * w2 has two buffers, w2 itself and w2x: the w2 of iteration k lives in buffer (iters - k) & 1,
 * so that the last one lands in w2. A phase 3 writes the next iteration's w2 while other groups
 * may still read this iteration's (phase 1 of the next iteration reads w2[J, :] of this one
 * through local memory; phase 2 reads the whole next one after the barrier). Data that crosses
 * groups (part, h1g, h2g and the w2 buffers) is read through volatile pointers: NVIDIA's L1 is
 * not coherent across compute units, and a plain load may find an old line there (seen on an
 * H200); volatile loads go to L2. The barriers order every write before every later read:
 * part is read in phase 2 only, h1g and h2g are rewritten in phase 2 after the barrier that
 * follows their last reads (phase 3 and the next phase 1 take what they need into local memory
 * before it).
 *
 * After the last iteration a phase 1 without forward part finishes its backward part; the loss
 * of the run's first iteration goes to loss[0] (sum of (y - t)^2, in a fixed order). Every result
 * is written back at the end; each group first copies what it will write (its tile of w1; group
 * 0 w2, w3 and g3) to the *_saved buffers, so that after a failed barrier the host restores them
 * and redoes the run with launches.
 *
 * Macros (src/backends/cl/mlp_persistent.c): NB, DIN, HID, DOUT the shape; BI (even), BJ (a
 * multiple of 4), TI, TJ the tiles; G the work-groups (at least TI TJ), WG their work-items;
 * W2R = ceil(HID / G) rows of w2 per group; PS, JS, KS, GS how many work-items share each sum
 * (phase 2's partials and h2, phase 3's g3 and g2), each at most WG / (the sums) and at least 1;
 * RED the floats of their parts, at least WG. */
#include "grid_sync.cl"

/* The batch's columns of x and of h1 (then dz1) are kept transposed, a row per feature (per
 * hidden unit) with the batch along it, padded to a multiple of 4: phase 1 reads them 4 rows of
 * the batch at a time, one 16-byte local load in place of four (the loads of local memory,
 * not the multiply-adds, bound phase 1). LDX, their row length, is 4 more, so that the rows that
 * neighbouring work-items read start 4 banks apart. */
#define NB4 ((NB + 3) / 4 * 4)
#define LDX (NB4 + 4)
#define LD4(p) (*(__local const float4 *)(p))
#define NO (NB * DOUT)
#define OO (DOUT * DOUT)
#define W2O (W2R * DOUT)
/* this iteration's w2 (k = it) or the next one's (k = it + 1) */
#define W2B(k) (((iters - (k)) & 1) ? w2x : w2)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
mlp_persistent(const int iters, const int update_w3, const float lr, __global const float *x,
               __global const float *t, __global float *w1, __global float *w2,
               __global float *w2x, __global float *w3, __global float *g3,
               __global float *loss, __global float *w1_saved, __global float *small_saved,
               __global float *part, __global float *h1g, __global float *h2g,
               __global int *grid, const int spin) {
  __local int failed;
  /* x[n][i0 + i] at xt[i][n], h1[n][j0 + j] (then dz1) at zt[j][n], zero beyond the batch,
   * DIN and HID; the tile of w1 */
  __local float xt[BI][LDX] __attribute__((aligned(16)));
  __local float zt[BJ][LDX] __attribute__((aligned(16)));
  __local float ws[BI][BJ] __attribute__((aligned(16)));
  __local float w2j[BJ][DOUT];   /* w2[j0 + j][o] of the iteration */
  __local float hr[HID];         /* phase 2: a row of h1 */
  __local float red[RED];        /* the parts of shared sums */
  __local float ts[NO], h2s[NO], dys[NO], dz2s[NO], dy0[NO];
  __local float w3s[OO], g3s[OO];
  __local float w2own[W2O];      /* the group's rows of w2 */
  __local float hcol[NB * W2R];  /* h1[n][r0 + r], for their g2 */
  const int lid = get_local_id(0), g = get_group_id(0);
  const int tiled = g < TI * TJ;
  const int i0 = (g / TJ) * BI, j0 = (g % TJ) * BJ, r0 = g * W2R;
  __global float *const mine = part + (size_t)(g / TJ) * NB * HID;

  /* the run's inputs into local memory, the saved copies first */
  for (int q = lid; q < BI * BJ; q += WG) {
    const int i = q / BJ, j = q % BJ, at = (i0 + i) * HID + j0 + j;
    const int in = tiled && i0 + i < DIN && j0 + j < HID;
    const float v = in ? w1[at] : 0.0f;
    if (in) w1_saved[at] = v;
    ws[i][j] = v;
  }
  for (int q = lid; q < LDX * BI; q += WG) {
    const int n = q / BI, i = q % BI;
    xt[i][n] = tiled && n < NB && i0 + i < DIN ? x[n * DIN + i0 + i] : 0.0f;
  }
  for (int q = lid; q < NO; q += WG) ts[q] = t[q];
  for (int q = lid; q < OO; q += WG) {
    w3s[q] = w3[q];
    g3s[q] = g3[q];
    if (g == 0) {
      small_saved[HID * DOUT + q] = w3[q];
      small_saved[HID * DOUT + OO + q] = g3[q];
    }
  }
  if (g == 0)
    for (int q = lid; q < HID * DOUT; q += WG) small_saved[q] = w2[q];
  for (int q = lid; q < W2O; q += WG) {
    const int r = r0 + q / DOUT, at = r * DOUT + q % DOUT;
    const float v = r < HID ? w2[at] : 0.0f;
    w2own[q] = v;
    /* the first iteration's w2 in its buffer (iters & 1), read after the first barrier */
    if (r < HID && (iters & 1)) w2x[at] = v;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  int ok = 1;
  for (int it = 0; it <= iters; ++it) {
    /* 1. the tile: the backward part of iteration it - 1, then the forward part of it */
    const int back = tiled && it > 0, fwd = tiled && it < iters;
    if (back)
      for (int q = lid; q < BJ * NB; q += WG) {
        const int j = q / NB, n = q % NB;
        float d = 0.0f;
        if (zt[j][n] > 0.0f)
          for (int o = 0; o < DOUT; ++o) d += dz2s[n * DOUT + o] * w2j[j][o];
        zt[j][n] = d;
      }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* g1 by blocks of rows i, i + 1 and columns j, j + BJ / 2 (the columns of neighbouring
     * work-items neighbouring rows of zt), 4 rows of the batch per step, each lane of the
     * accumulators its own sum over the batch's rows, added at the end in a fixed order */
    if (back)
      for (int q = lid; q < (BI / 2) * (BJ / 2); q += WG) {
        const int i = q / (BJ / 2) * 2, j = q % (BJ / 2), j2 = j + BJ / 2;
        float4 a00 = (float4)(0.0f), a01 = a00, a10 = a00, a11 = a00;
        for (int n = 0; n < NB4; n += 4) {
          const float4 x0 = LD4(&xt[i][n]), x1 = LD4(&xt[i + 1][n]);
          const float4 d0 = LD4(&zt[j][n]), d1 = LD4(&zt[j2][n]);
          a00 += x0 * d0;
          a01 += x0 * d1;
          a10 += x1 * d0;
          a11 += x1 * d1;
        }
        ws[i][j] -= lr * ((a00.s0 + a00.s1) + (a00.s2 + a00.s3));
        ws[i][j2] -= lr * ((a01.s0 + a01.s1) + (a01.s2 + a01.s3));
        ws[i + 1][j] -= lr * ((a10.s0 + a10.s1) + (a10.s2 + a10.s3));
        ws[i + 1][j2] -= lr * ((a11.s0 + a11.s1) + (a11.s2 + a11.s3));
      }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the partial product by blocks of 4 rows of the batch and 4 columns: two 16-byte loads
     * per 16 multiply-adds */
    if (fwd)
      for (int q = lid; q < (NB4 / 4) * (BJ / 4); q += WG) {
        const int n = q / (BJ / 4) * 4, j = q % (BJ / 4) * 4;
        float4 a[4] = {(float4)(0.0f), (float4)(0.0f), (float4)(0.0f), (float4)(0.0f)};
        for (int k = 0; k < BI; ++k) {
          const float4 xv = LD4(&xt[k][n]), w = LD4(&ws[k][j]);
          a[0] += xv.s0 * w;
          a[1] += xv.s1 * w;
          a[2] += xv.s2 * w;
          a[3] += xv.s3 * w;
        }
        for (int r = 0; r < 4 && n + r < NB; ++r) {
          __global float *row = mine + (n + r) * HID + j0 + j;
          if (j0 + j + 3 < HID) {
            vstore4(a[r], 0, row);
          } else {
            const float v[4] = {a[r].s0, a[r].s1, a[r].s2, a[r].s3};
            for (int c = 0; j0 + j + c < HID; ++c) row[c] = v[c];
          }
        }
      }
    if (it == iters) break;
    if (cg_grid_count(grid, G, spin, 2 * it, &failed)) {
      ok = 0;
      break;
    }

    /* 2. rows of h1 and h2 */
    volatile __global const float *parts = part;
    volatile __global const float *w2v = W2B(it);
    for (int n = g; n < NB; n += G) {
      for (int q = lid; q < PS * HID; q += WG) {
        const int j = q % HID;
        float s = 0.0f;
        for (int b = q / HID; b < TI; b += PS) s += parts[(b * NB + n) * HID + j];
        red[q] = s;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int j = lid; j < HID; j += WG) {
        float s = 0.0f;
        for (int p = 0; p < PS; ++p) s += red[p * HID + j];
        s = fmax(s, 0.0f);
        hr[j] = s;
        h1g[n * HID + j] = s;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int q = lid; q < JS * DOUT; q += WG) {
        float s = 0.0f;
        for (int j = q / DOUT; j < HID; j += JS) s += hr[j] * w2v[j * DOUT + q % DOUT];
        red[q] = s;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int o = lid; o < DOUT; o += WG) {
        float s = 0.0f;
        for (int p = 0; p < JS; ++p) s += red[p * DOUT + o];
        h2g[n * DOUT + o] = fmax(s, 0.0f);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (cg_grid_count(grid, G, spin, 2 * it + 1, &failed)) {
      ok = 0;
      break;
    }

    /* 3. every group alike; first every load of the phase and of the next phase 1 */
    volatile __global const float *h1v = h1g, *h2v = h2g;
    for (int q = lid; q < NO; q += WG) h2s[q] = h2v[q];
    for (int q = lid; q < NB4 * BJ; q += WG) {
      const int n = q / BJ, j = q % BJ;
      zt[j][n] = tiled && n < NB && j0 + j < HID ? h1v[n * HID + j0 + j] : 0.0f;
    }
    for (int q = lid; q < BJ * DOUT; q += WG) {
      const int j = q / DOUT, o = q % DOUT;
      w2j[j][o] = tiled && j0 + j < HID ? w2v[(j0 + j) * DOUT + o] : 0.0f;
    }
    for (int q = lid; q < NB * W2R; q += WG) {
      const int n = q / W2R, r = r0 + q % W2R;
      hcol[q] = r < HID ? h1v[n * HID + r] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = lid; q < NO; q += WG) {
      const int n = q / DOUT, o = q % DOUT;
      float y = 0.0f;
      for (int p = 0; p < DOUT; ++p) y += h2s[n * DOUT + p] * w3s[p * DOUT + o];
      const float d = 2.0f * (y - ts[q]);
      dys[q] = d;
      if (it == 0) dy0[q] = d;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = lid; q < KS * OO; q += WG) {
      const int p = q % OO / DOUT, o = q % DOUT;
      float s = 0.0f;
      for (int n = q / OO; n < NB; n += KS) s += h2s[n * DOUT + p] * dys[n * DOUT + o];
      red[q] = s;
    }
    /* dz2 with w3 before its update */
    for (int q = lid; q < NO; q += WG) {
      const int n = q / DOUT, p = q % DOUT;
      float s = 0.0f;
      for (int o = 0; o < DOUT; ++o) s += dys[n * DOUT + o] * w3s[p * DOUT + o];
      dz2s[q] = h2s[q] > 0.0f ? s : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = lid; q < OO; q += WG) {
      float s = 0.0f;
      for (int p = 0; p < KS; ++p) s += red[p * OO + q];
      g3s[q] += s;
      if (update_w3) {
        w3s[q] -= lr * g3s[q];
        g3s[q] = 0.0f;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = lid; q < GS * W2O; q += WG) {
      const int r = q % W2O / DOUT, o = q % DOUT;
      float s = 0.0f;
      for (int n = q / W2O; n < NB; n += GS) s += hcol[n * W2R + r] * dz2s[n * DOUT + o];
      red[q] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global float *w2next = W2B(it + 1);
    for (int q = lid; q < W2O; q += WG) {
      float s = 0.0f;
      for (int p = 0; p < GS; ++p) s += red[p * W2O + q];
      const int r = r0 + q / DOUT;
      const float v = w2own[q] - lr * s;
      w2own[q] = v;
      if (r < HID) w2next[r * DOUT + q % DOUT] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* red is rewritten by the next phase 2 */
  }

  if (ok) {
    for (int q = lid; q < BI * BJ; q += WG) {
      const int i = q / BJ, j = q % BJ;
      if (tiled && i0 + i < DIN && j0 + j < HID) w1[(i0 + i) * HID + j0 + j] = ws[i][j];
    }
    if (g == 0)
      for (int q = lid; q < OO; q += WG) {
        w3[q] = w3s[q];
        g3[q] = g3s[q];
      }
  }
  /* the first iteration's loss, summed in a fixed order */
  float s = 0.0f;
  for (int q = lid; q < (ok ? NO : 0); q += WG) s += 0.25f * dy0[q] * dy0[q];
  red[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (ok && g == 0 && lid == 0) {
    float total = 0.0f;
    for (int p = 0; p < WG; ++p) total += red[p];
    loss[0] = total;
  }
}
