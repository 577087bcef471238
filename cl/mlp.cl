/* Kernels of the mlp training step (see cg_mlp_shape in include/clgauge/backend.h), fp32,
 * row-major, OpenCL C 1.1. Two sets:
 *  - per-op: a strided matrix product and small elementwise kernels, launched one per operation
 *    as an eager framework does (the clblast backend uses the elementwise ones next to CLBlast);
 *  - fused (built with -DMLP_FUSED and the shape as macros): two launches per iteration.
 * Build options of the per-op set: -DTS=<n>, the edge of mlp_gemm's square work-group. */

#ifndef TS
#define TS 16
#endif

/* C (M x N) = A (M x K) * B (K x N) + beta C, with A(m,k) = A[m*sam + k*sak] and
 * B(k,n) = B[k*sbk + n*sbn], so that strides express the transposes. C is dense (row length N).
 * beta == 0 never reads C. Tiles are loaded along whichever index has unit stride, so that
 * neighbouring work-items read neighbouring addresses for plain and transposed operands alike. */
__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void
mlp_gemm(const int M, const int N, const int K, __global const float *A, const int sam,
         const int sak, __global const float *B, const int sbk, const int sbn,
         __global float *C, const float beta) {
  __local float As[TS][TS + 1]; /* As[m][k] */
  __local float Bs[TS][TS + 1]; /* Bs[k][n] */
  const int lc = get_local_id(0);
  const int lr = get_local_id(1);
  const int r0 = get_group_id(1) * TS;
  const int c0 = get_group_id(0) * TS;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TS) {
    if (sak == 1) {
      As[lr][lc] = (r0 + lr < M && t + lc < K) ? A[(r0 + lr) * sam + t + lc] : 0.0f;
    } else {
      As[lc][lr] = (r0 + lc < M && t + lr < K) ? A[(r0 + lc) * sam + (t + lr) * sak] : 0.0f;
    }
    if (sbn == 1) {
      Bs[lr][lc] = (t + lr < K && c0 + lc < N) ? B[(t + lr) * sbk + c0 + lc] : 0.0f;
    } else {
      Bs[lc][lr] = (t + lc < K && c0 + lr < N) ? B[(t + lc) * sbk + (c0 + lr) * sbn] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int p = 0; p < TS; ++p) acc += As[lr][p] * Bs[p][lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const int row = r0 + lr, col = c0 + lc;
  if (row < M && col < N) C[row * N + col] = beta == 0.0f ? acc : beta * C[row * N + col] + acc;
}

/* v = max(v, 0) in place. */
__kernel void mlp_relu(const int n, __global float *v) {
  const int i = get_global_id(0);
  if (i < n) v[i] = fmax(v[i], 0.0f);
}

/* d = d * (h > 0) in place: the gradient through relu, h being relu's output. */
__kernel void mlp_relu_backward(const int n, __global float *d, __global const float *h) {
  const int i = get_global_id(0);
  if (i < n && !(h[i] > 0.0f)) d[i] = 0.0f;
}

/* w -= lr g; with zero_g, g = 0 afterwards (the w3 update, which consumes the accumulated g3). */
__kernel void mlp_sgd(const int n, const float lr, __global float *g, __global float *w,
                      const int zero_g) {
  const int i = get_global_id(0);
  if (i < n) {
    w[i] -= lr * g[i];
    if (zero_g) g[i] = 0.0f;
  }
}

/* dy = 2 (y - t) and, when keep is set, loss[0] = sum((y - t)^2). One work-group whose size is a
 * power of two; red has one float per work-item. The sum runs in a fixed order (a strided
 * partial per work-item, then a tree), so that it is the same on every run. */
__kernel void mlp_loss_dy(const int count, __global const float *y, __global const float *t,
                          __global float *dy, __global float *loss, const int keep,
                          __local float *red) {
  const int l = get_local_id(0);
  const int size = get_local_size(0);
  float s = 0.0f;
  for (int i = l; i < count; i += size) {
    const float d = y[i] - t[i];
    dy[i] = 2.0f * d;
    s += d * d;
  }
  red[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = size / 2; width > 0; width /= 2) {
    if (l < width) red[l] += red[l + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0 && keep) loss[0] = red[0];
}

#ifdef MLP_FUSED
/* The fused step: two launches per iteration, no device-wide barrier.
 *
 * Why two: h2 = relu(h1 w2) sums over all H columns of h1, and every later quantity (y, loss,
 * dy, dz2, then dz1, g1, g2) depends on h2; without a device-wide barrier, which OpenCL 1.2 cannot
 * provide portably (work-groups need not be co-resident), the sum over H needs the end of a launch.
 * Everything else is column-local in H:
 *  - h1[:,j] needs only column j of w1;
 *  - dz1[:,j] = (dz2 w2[j,:]^T) * (h1[:,j] > 0), g2[j,:] = h1[:,j]^T dz2, and
 *    g1[:,j] = x^T dz1[:,j] need only column j of h1 and w1 and row j of w2, besides x and the
 *    small dz2 (N x O);
 *  - the partial products h1[:,J] w2[J,:] of a column block J can be summed later.
 * So launch A ("wide", one work-group per block J of BN columns) runs, for its columns, the
 * backward part of the previous iteration (dz1, g2 and the w2 update, then g1 and the w1 update)
 * followed by this iteration's forward part (h1 and the partial products for h2), reading each
 * element of w1 once and writing it once; launch B ("small", one work-group) sums the partials and
 * does the N x O and O x O rest: h2, y, loss, dy, g3, dz2 and the w3 update. A batch of k
 * iterations is A(forward only), B, then k-1 times A(backward+forward), B, and a last
 * A(backward only): 2k + 1 launches, and the weights after it are those of k full steps.
 *
 * Shape and blocking macros (set by src/backends/cl_mlp.c):
 *   NB, DIN, HID, DOUT  the shape; GROUPS = ceil(HID / BN)
 *   TXC x TYR = WG      work-items of launch A; TXC across columns, TYR across rows
 *   TN                  columns per work-item: BN = TXC * TN
 *   TM                  batch rows per work-item in the forward product: NBP = TYR * TM >= NB
 *   GK                  rows of w1 per work-item in the g1 tile: BK = TYR * GK rows per tile
 *   WGB                 work-items of launch B, a power of two */
#define BN (TXC * TN)
#define BK (TYR * GK)
#define NBP (TYR * TM)
#define WG (TXC * TYR)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
mlp_fused_wide(__global const float *x, __global float *w1, __global float *w2,
               __global float *h1, __global const float *dz2, __global float *part,
               const float lr, const int backward, const int forward) {
  __local float Xs[NBP][BK + 1]; /* x[:, k0:k0+BK]; +1 keeps column reads off one bank */
  __local float Ws[BK][BN];      /* the updated w1[k0:k0+BK, J] */
  __local float Ds[NBP][BN];     /* dz1[:, J] during the backward part, then relu(h1)[:, J] */
  const int t = get_local_id(0);
  const int tx = t % TXC, ty = t / TXC;
  const int j0 = get_group_id(0) * BN;

  if (backward) {
    /* dz1 with w2 and h1 as the previous iteration left them. */
    for (int q = t; q < NBP * BN; q += WG) {
      const int n = q / BN, j = q % BN, col = j0 + j;
      float d = 0.0f;
      if (n < NB && col < HID && h1[n * HID + col] > 0.0f) {
        for (int o = 0; o < DOUT; ++o) d += dz2[n * DOUT + o] * w2[col * DOUT + o];
      }
      Ds[n][j] = d;
    }
  }
  /* Barriers stay outside conditionals, even uniform ones, which some drivers mishandle. */
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (backward) {
    /* g2[J,:] and the update of the rows of w2 that this work-group alone reads. */
    for (int q = t; q < BN * DOUT; q += WG) {
      const int j = q / DOUT, o = q % DOUT, col = j0 + j;
      if (col < HID) {
        float g = 0.0f;
        for (int n = 0; n < NB; ++n) g += h1[n * HID + col] * dz2[n * DOUT + o];
        w2[col * DOUT + o] -= lr * g;
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  float acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int jj = 0; jj < TN; ++jj) acc[i][jj] = 0.0f;

  for (int k0 = 0; k0 < DIN; k0 += BK) {
    for (int q = t; q < NBP * BK; q += WG) {
      const int n = q / BK, kk = q % BK;
      Xs[n][kk] = (n < NB && k0 + kk < DIN) ? x[n * DIN + k0 + kk] : 0.0f;
    }
    if (!backward) {
      for (int q = t; q < BK * BN; q += WG) {
        const int kk = q / BN, j = q % BN;
        Ws[kk][j] = (k0 + kk < DIN && j0 + j < HID) ? w1[(k0 + kk) * HID + j0 + j] : 0.0f;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (backward) {
      /* g1 tile = x[:, k0:k0+BK]^T dz1[:, J], then w1 -= lr g1 on the work-item's elements. */
      float g[GK][TN];
      for (int i = 0; i < GK; ++i)
        for (int jj = 0; jj < TN; ++jj) g[i][jj] = 0.0f;
      for (int n = 0; n < NB; ++n) {
        float a[GK], b[TN];
        for (int i = 0; i < GK; ++i) a[i] = Xs[n][ty + i * TYR];
        for (int jj = 0; jj < TN; ++jj) b[jj] = Ds[n][tx + jj * TXC];
        for (int i = 0; i < GK; ++i)
          for (int jj = 0; jj < TN; ++jj) g[i][jj] += a[i] * b[jj];
      }
      for (int i = 0; i < GK; ++i) {
        const int kk = ty + i * TYR, row = k0 + kk;
        for (int jj = 0; jj < TN; ++jj) {
          const int j = tx + jj * TXC, col = j0 + j;
          float w = 0.0f;
          if (row < DIN && col < HID) {
            w = w1[row * HID + col] - lr * g[i][jj];
            w1[row * HID + col] = w;
          }
          Ws[kk][j] = w;
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (forward) {
      for (int kk = 0; kk < BK; ++kk) {
        float a[TM], b[TN];
        for (int i = 0; i < TM; ++i) a[i] = Xs[ty + i * TYR][kk];
        for (int jj = 0; jj < TN; ++jj) b[jj] = Ws[kk][tx + jj * TXC];
        for (int i = 0; i < TM; ++i)
          for (int jj = 0; jj < TN; ++jj) acc[i][jj] += a[i] * b[jj];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (forward) {
    for (int i = 0; i < TM; ++i) {
      const int n = ty + i * TYR;
      for (int jj = 0; jj < TN; ++jj) {
        const int j = tx + jj * TXC;
        const float v = fmax(acc[i][jj], 0.0f);
        Ds[n][j] = v;
        if (n < NB && j0 + j < HID) h1[n * HID + j0 + j] = v;
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (forward) {
    /* This block's share of h1 w2 (w2 rows of J, updated above), summed by launch B. */
    for (int q = t; q < NB * DOUT; q += WG) {
      const int n = q / DOUT, o = q % DOUT;
      float s = 0.0f;
      for (int j = 0; j < BN && j0 + j < HID; ++j) s += Ds[n][j] * w2[(j0 + j) * DOUT + o];
      part[(get_group_id(0) * NB + n) * DOUT + o] = s;
    }
  }
}

/* Launch B: one work-group of WGB work-items. Every sum runs in a fixed order. */
__kernel __attribute__((reqd_work_group_size(WGB, 1, 1))) void
mlp_fused_small(__global const float *part, __global const float *t, __global float *w3,
                __global float *g3, __global float *h2, __global float *dy, __global float *dz2,
                __global float *loss, const float lr, const int keep, const int update_w3) {
  __local float red[WGB];
  const int l = get_local_id(0);
  const int NO = NB * DOUT;

  /* h2 = relu(sum of the partial products over the column blocks). When there are fewer
   * outputs than work-items, S work-items share each output's sum, then add their parts. */
  const int S = NO < WGB ? WGB / NO : 1;
  if (NO < WGB) {
    const int slice = l / NO, q = l % NO;
    float s = 0.0f;
    if (slice < S)
      for (int g = slice; g < GROUPS; g += S) s += part[g * NO + q];
    red[l] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (NO < WGB) {
    if (l < NO) {
      float z = 0.0f;
      for (int k = 0; k < S; ++k) z += red[k * NO + l];
      h2[l] = fmax(z, 0.0f);
    }
  } else {
    for (int q = l; q < NO; q += WGB) {
      float z = 0.0f;
      for (int g = 0; g < GROUPS; ++g) z += part[g * NO + q];
      h2[q] = fmax(z, 0.0f);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  /* y = h2 w3, dy = 2 (y - t), loss. */
  float ls = 0.0f;
  for (int q = l; q < NO; q += WGB) {
    const int n = q / DOUT, o = q % DOUT;
    float y = 0.0f;
    for (int p = 0; p < DOUT; ++p) y += h2[n * DOUT + p] * w3[p * DOUT + o];
    const float d = y - t[q];
    dy[q] = 2.0f * d;
    ls += d * d;
  }
  red[l] = ls;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  for (int width = WGB / 2; width > 0; width /= 2) {
    if (l < width) red[l] += red[l + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0 && keep) loss[0] = red[0];

  /* g3 += h2^T dy; dz2 = (dy w3^T) * (h2 > 0) with w3 before its update. */
  for (int q = l; q < DOUT * DOUT; q += WGB) {
    const int p = q / DOUT, o = q % DOUT;
    float s = 0.0f;
    for (int n = 0; n < NB; ++n) s += h2[n * DOUT + p] * dy[n * DOUT + o];
    g3[q] += s;
  }
  for (int q = l; q < NO; q += WGB) {
    const int n = q / DOUT, p = q % DOUT;
    float s = 0.0f;
    for (int o = 0; o < DOUT; ++o) s += dy[n * DOUT + o] * w3[p * DOUT + o];
    dz2[q] = h2[q] > 0.0f ? s : 0.0f;
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (update_w3) {
    for (int q = l; q < DOUT * DOUT; q += WGB) {
      w3[q] -= lr * g3[q];
      g3[q] = 0.0f;
    }
  }
}
#endif
