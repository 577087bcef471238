/* The persistent mlp step: a run's iterations in one launch over G work-groups with two
 * device-wide barriers per iteration (cl/grid_sync.cl), in place of the fused variant's two or
 * three launches per iteration (cl/mlp.cl). Group g owns `slice` rows of w1 (features of x) and
 * keeps them, its columns of x, and its own copies of w2, w3 and g3 in local memory for the run:
 *  A. the group's partial product x[:, I] w1[I, :] (NB x HID) into its slot of `part`;
 *  barrier;
 *  B. h1 = relu(sum of the partials), each group summing its share of the elements into h1g;
 *  barrier;
 *  C. every group alike: h1 into local memory, h2 = relu(h1 w2), y = h2 w3, dy = 2 (y - t),
 *     g3 += h2^T dy, dz2 = (dy w3^T) * (h2 > 0), the w3 update when asked, g2 = h1^T dz2,
 *     dz1 = (dz2 w2^T) * (h1 > 0) (w2 before its update), w2 -= lr g2; then its own rows:
 *     w1[I, :] -= lr x[:, I]^T dz1.
 * The small part (C) runs in every group on the same numbers in the same order, so that their
 * copies of w2, w3 and g3 stay equal and no group waits for another; only the partials and h1
 * cross groups, read through volatile pointers (NVIDIA's L1 is not coherent across compute
 * units), double-buffered by the iteration's parity (a buffer is rewritten two barriers after
 * its last reader has passed). The loss of the run's first iteration goes to loss[0], summed
 * in a fixed order. Every result is written back at the end; each group first copies what it
 * will write (its rows of w1; group 0 w2, w3 and g3) to the *_saved buffers, so that after a
 * failed barrier the host restores them and redoes the run with launches.
 *
 * Local memory (floats): xs NB x slice, w1s slice x HID, hs NB x HID (h1, then dz1), w2s HID x
 * DOUT, w3s and g3s DOUT x DOUT, h2s (h2, then dz2) and dys NB x DOUT. g2 lives in registers,
 * G2MAX entries per work-item: HID x DOUT <= G2MAX x the work-group size. */
#include "grid_sync.cl"

#define G2MAX 8

__kernel void mlp_persistent(const int NB, const int DIN, const int HID, const int DOUT,
                             const int iters, const int update_w3, const float lr,
                             __global const float *x, __global const float *t,
                             __global float *w1, __global float *w2, __global float *w3,
                             __global float *g3, __global float *loss,
                             __global float *w1_saved, __global float *small_saved,
                             __global float *part, __global float *h1g, __global int *grid,
                             const int spin, __local float *xs, __local float *w1s,
                             __local float *hs, __local float *w2s, __local float *w3s,
                             __local float *g3s, __local float *h2s, __local float *dys) {
  __local int failed;
  const int lid = get_local_id(0), L = get_local_size(0);
  const int g = get_group_id(0), G = get_num_groups(0);
  const int slice = (DIN + G - 1) / G, i0 = min(DIN, g * slice), ni = min(DIN, i0 + slice) - i0;
  const int NH = NB * HID, HO = HID * DOUT, OO = DOUT * DOUT, NO = NB * DOUT;
  const int share = (NH + G - 1) / G, e0 = min(NH, g * share), e1 = min(NH, e0 + share);
  for (int q = lid; q < ni * HID; q += L) {
    const float v = w1[(size_t)i0 * HID + q];
    w1_saved[(size_t)i0 * HID + q] = v;
    w1s[q] = v;
  }
  for (int q = lid; q < NB * ni; q += L) {
    const int n = q / ni, i = q % ni;
    xs[n * slice + i] = x[(size_t)n * DIN + i0 + i];
  }
  for (int q = lid; q < HO; q += L) {
    w2s[q] = w2[q];
    if (g == 0) small_saved[q] = w2[q];
  }
  for (int q = lid; q < OO; q += L) {
    w3s[q] = w3[q];
    g3s[q] = g3[q];
    if (g == 0) {
      small_saved[HO + q] = w3[q];
      small_saved[HO + OO + q] = g3[q];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int ok = 1;
  for (int it = 0; it < iters; ++it) {
    /* A. the partial product of the group's rows */
    __global float *mine = part + ((size_t)(it & 1) * G + g) * NH;
    for (int e = lid; e < NH; e += L) {
      const int n = e / HID, j = e % HID;
      float acc = 0.0f;
      for (int i = 0; i < ni; ++i) acc += xs[n * slice + i] * w1s[i * HID + j];
      mine[e] = acc;
    }
    if (cg_grid_sync(grid, G, spin, &failed)) {
      ok = 0;
      break;
    }
    /* B. the group's share of h1 */
    volatile __global const float *all = part + (size_t)(it & 1) * G * NH;
    __global float *h1 = h1g + (size_t)(it & 1) * NH;
    for (int e = e0 + lid; e < e1; e += L) {
      float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
      int h = 0;
      for (; h + 3 < G; h += 4) {
        s0 += all[(size_t)h * NH + e];
        s1 += all[(size_t)(h + 1) * NH + e];
        s2 += all[(size_t)(h + 2) * NH + e];
        s3 += all[(size_t)(h + 3) * NH + e];
      }
      for (; h < G; ++h) s0 += all[(size_t)h * NH + e];
      h1[e] = fmax((s0 + s1) + (s2 + s3), 0.0f);
    }
    if (cg_grid_sync(grid, G, spin, &failed)) {
      ok = 0;
      break;
    }
    /* C. every group alike */
    volatile __global const float *h1v = h1;
    for (int e = lid; e < NH; e += L) hs[e] = h1v[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = lid; q < NO; q += L) {
      const int n = q / DOUT, o = q % DOUT;
      float z = 0.0f;
      for (int j = 0; j < HID; ++j) z += hs[n * HID + j] * w2s[j * DOUT + o];
      h2s[q] = fmax(z, 0.0f);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = lid; q < NO; q += L) {
      const int n = q / DOUT, o = q % DOUT;
      float y = 0.0f;
      for (int p = 0; p < DOUT; ++p) y += h2s[n * DOUT + p] * w3s[p * DOUT + o];
      dys[q] = 2.0f * (y - t[q]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (it == 0 && g == 0 && lid == 0) {
      float s = 0.0f;
      for (int q = 0; q < NO; ++q) s += 0.25f * dys[q] * dys[q];
      loss[0] = s;
    }
    for (int q = lid; q < OO; q += L) {
      const int p = q / DOUT, o = q % DOUT;
      float s = 0.0f;
      for (int n = 0; n < NB; ++n) s += h2s[n * DOUT + p] * dys[n * DOUT + o];
      g3s[q] += s;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* h2 read above before dz2 replaces it */
    for (int q = lid; q < NO; q += L) {
      const int n = q / DOUT, p = q % DOUT;
      float s = 0.0f;
      for (int o = 0; o < DOUT; ++o) s += dys[n * DOUT + o] * w3s[p * DOUT + o];
      h2s[q] = h2s[q] > 0.0f ? s : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (update_w3)
      for (int q = lid; q < OO; q += L) {
        w3s[q] -= lr * g3s[q];
        g3s[q] = 0.0f;
      }
    float g2[G2MAX];
    for (int k = 0; k < G2MAX; ++k) {
      const int q = lid + k * L, j = q / DOUT, o = q % DOUT;
      float s = 0.0f;
      if (q < HO)
        for (int n = 0; n < NB; ++n) s += hs[n * HID + j] * h2s[n * DOUT + o];
      g2[k] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* h1 read above before dz1 replaces it */
    for (int e = lid; e < NH; e += L) {
      const int n = e / HID, j = e % HID;
      float s = 0.0f;
      for (int o = 0; o < DOUT; ++o) s += h2s[n * DOUT + o] * w2s[j * DOUT + o];
      hs[e] = hs[e] > 0.0f ? s : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* w2 read above before its update */
    for (int k = 0; k < G2MAX; ++k) {
      const int q = lid + k * L;
      if (q < HO) w2s[q] -= lr * g2[k];
    }
    for (int q = lid; q < ni * HID; q += L) {
      const int i = q / HID, j = q % HID;
      float s = 0.0f;
      for (int n = 0; n < NB; ++n) s += xs[n * slice + i] * hs[n * HID + j];
      w1s[q] -= lr * s;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* every local array is rewritten by the next iteration */
  }
  if (ok) {
    for (int q = lid; q < ni * HID; q += L) w1[(size_t)i0 * HID + q] = w1s[q];
    if (g == 0) {
      for (int q = lid; q < HO; q += L) w2[q] = w2s[q];
      for (int q = lid; q < OO; q += L) {
        w3[q] = w3s[q];
        g3[q] = g3s[q];
      }
    }
  }
}
