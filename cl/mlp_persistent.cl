/* The persistent mlp step: a run's iterations in one launch of G work-groups with two
 * device-wide barriers per iteration (cg_grid_wait, cl/grid_sync.cl), in place of the fused variant's two or
 * three launches per iteration (cl/mlp.cl). Built per shape (the macros below), so that every
 * array is sized and every loop bound known to the compiler.
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

#define NBP ((NB + 1) / 2 * 2) /* the batch padded to the forward part's pairs of rows */
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
  __local cg_grid_local gl;
  __local float xs[NBP][BI];     /* x[n][i0 + i], zero beyond the batch and DIN */
  __local float ws[BI][BJ];      /* the tile of w1, zero beyond DIN and HID */
  __local float zs[NBP][BJ];     /* h1[n][j0 + j], then dz1 */
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
  for (int q = lid; q < NBP * BI; q += WG) {
    const int n = q / BI, i = q % BI;
    xs[n][i] = tiled && n < NB && i0 + i < DIN ? x[n * DIN + i0 + i] : 0.0f;
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
  cg_grid_join(grid, &gl); /* its local barrier ends the loads */

  int ok = 1;
  for (int it = 0; it <= iters; ++it) {
    /* 1. the tile: the backward part of iteration it - 1, then the forward part of it */
    const int back = tiled && it > 0, fwd = tiled && it < iters;
    if (back)
      for (int q = lid; q < NBP * BJ; q += WG) {
        const int n = q / BJ, j = q % BJ;
        float d = 0.0f;
        if (zs[n][j] > 0.0f)
          for (int o = 0; o < DOUT; ++o) d += dz2s[n * DOUT + o] * w2j[j][o];
        zs[n][j] = d;
      }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (back)
      for (int q = lid; q < (BI / 2) * (BJ / 2); q += WG) {
        const int i = q / (BJ / 2) * 2, j = q % (BJ / 2) * 2;
        float a00 = 0.0f, a01 = 0.0f, a10 = 0.0f, a11 = 0.0f;
        for (int n = 0; n < NB; ++n) {
          const float x0 = xs[n][i], x1 = xs[n][i + 1], d0 = zs[n][j], d1 = zs[n][j + 1];
          a00 += x0 * d0;
          a01 += x0 * d1;
          a10 += x1 * d0;
          a11 += x1 * d1;
        }
        ws[i][j] -= lr * a00;
        ws[i][j + 1] -= lr * a01;
        ws[i + 1][j] -= lr * a10;
        ws[i + 1][j + 1] -= lr * a11;
      }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (fwd)
      for (int q = lid; q < (NBP / 2) * (BJ / 4); q += WG) {
        const int n = q / (BJ / 4) * 2, j = q % (BJ / 4) * 4;
        float4 a0 = (float4)(0.0f), a1 = (float4)(0.0f);
        for (int k = 0; k < BI; ++k) {
          const float4 w = vload4(0, &ws[k][j]);
          a0 += xs[n][k] * w;
          a1 += xs[n + 1][k] * w;
        }
        const float v[2][4] = {{a0.s0, a0.s1, a0.s2, a0.s3}, {a1.s0, a1.s1, a1.s2, a1.s3}};
        for (int r = 0; r < 2; ++r)
          for (int c = 0; c < 4; ++c)
            if (n + r < NB && j0 + j + c < HID) mine[(n + r) * HID + j0 + j + c] = v[r][c];
      }
    if (it == iters) break;
    if (cg_grid_wait(grid, G, spin, &gl)) {
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
        const int o = q % DOUT;
        float s = 0.0f;
        for (int j = q / DOUT; j < HID; j += JS) s += hr[j] * w2v[j * DOUT + o];
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
    if (cg_grid_wait(grid, G, spin, &gl)) {
      ok = 0;
      break;
    }

    /* 3. every group alike; first every load of the phase and of the next phase 1 */
    volatile __global const float *h1v = h1g, *h2v = h2g;
    for (int q = lid; q < NO; q += WG) h2s[q] = h2v[q];
    for (int q = lid; q < NBP * BJ; q += WG) {
      const int n = q / BJ, j = q % BJ;
      zs[n][j] = tiled && n < NB && j0 + j < HID ? h1v[n * HID + j0 + j] : 0.0f;
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
