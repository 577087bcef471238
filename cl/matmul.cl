/* Hand-written fp32 matrix products C (M x N) = A (M x K) * B (K x N), row-major, in three
 * variants of increasing data reuse. OpenCL C 1.1, so that every driver builds them. Every
 * variant takes any M, N, K: work-items outside C load zeros and write nothing.
 * Build options: -DTS=<n> (tile edge of naive/tiled, and the work-group edge of regblock),
 * -DWPT=<n> (outputs per work-item per dimension in regblock), -DBK=<n> (k-slice of regblock). */

#ifndef TS
#define TS 16
#endif
#ifndef WPT
#define WPT 4
#endif
#ifndef BK
#define BK 16
#endif

/* One work-item per element of C, all operands from global memory: each element of A and B is
 * read N and M times over. Work-groups of TS x TS. */
__kernel void matmul_naive(const int M, const int N, const int K, __global const float *A,
                           __global const float *B, __global float *C) {
  const int col = get_global_id(0);
  const int row = get_global_id(1);
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int p = 0; p < K; ++p) acc += A[row * K + p] * B[p * N + col];
  C[row * N + col] = acc;
}

/* One work-item per element; the work-group stages TS x TS tiles of A and B in local memory, so
 * each global element is read M/TS or N/TS times instead of M or N. */
__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void
matmul_tiled(const int M, const int N, const int K, __global const float *A,
             __global const float *B, __global float *C) {
  __local float As[TS][TS];
  __local float Bs[TS][TS];
  const int lc = get_local_id(0);
  const int lr = get_local_id(1);
  const int col = get_group_id(0) * TS + lc;
  const int row = get_group_id(1) * TS + lr;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TS) {
    As[lr][lc] = (row < M && t + lc < K) ? A[row * K + t + lc] : 0.0f;
    Bs[lr][lc] = (t + lr < K && col < N) ? B[(t + lr) * N + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int p = 0; p < TS; ++p) acc += As[lr][p] * Bs[p][lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

/* Register blocking: a TS x TS work-group computes a (TS*WPT) x (TS*WPT) block of C, each
 * work-item WPT x WPT elements held in registers, so every value loaded from local memory feeds
 * WPT multiply-adds. A work-item's elements are TS apart, so neighbouring work-items touch
 * neighbouring addresses on every load and store. */
#define BM (TS * WPT)
__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void
matmul_regblock(const int M, const int N, const int K, __global const float *A,
                __global const float *B, __global float *C) {
  __local float As[BK][BM]; /* As[p][r] = A[row0 + r][t + p]: k-major for broadcast reads */
  __local float Bs[BK][BM]; /* Bs[p][c] = B[t + p][col0 + c] */
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  const int lid = ty * TS + tx;
  const int row0 = get_group_id(1) * BM;
  const int col0 = get_group_id(0) * BM;
  float acc[WPT][WPT];
  for (int i = 0; i < WPT; ++i)
    for (int j = 0; j < WPT; ++j) acc[i][j] = 0.0f;
  float a[WPT], b[WPT];

  for (int t = 0; t < K; t += BK) {
    for (int i = lid; i < BK * BM; i += TS * TS) {
      const int ar = i / BK, ap = i % BK; /* consecutive work-items walk along a row of A */
      As[ap][ar] = (row0 + ar < M && t + ap < K) ? A[(row0 + ar) * K + t + ap] : 0.0f;
      const int bp = i / BM, bc = i % BM; /* ... and along a row of B */
      Bs[bp][bc] = (t + bp < K && col0 + bc < N) ? B[(t + bp) * N + col0 + bc] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int p = 0; p < BK; ++p) {
      for (int w = 0; w < WPT; ++w) {
        a[w] = As[p][ty + w * TS];
        b[w] = Bs[p][tx + w * TS];
      }
      for (int i = 0; i < WPT; ++i)
        for (int j = 0; j < WPT; ++j) acc[i][j] += a[i] * b[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = 0; i < WPT; ++i) {
    const int row = row0 + ty + i * TS;
    for (int j = 0; j < WPT; ++j) {
      const int col = col0 + tx + j * TS;
      if (row < M && col < N) C[row * N + col] = acc[i][j];
    }
  }
}
