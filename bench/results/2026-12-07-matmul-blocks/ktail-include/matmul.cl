/* Hand-written fp32 matrix products C (M x N) = A (M x K) * B (K x N), row-major, in four
 * variants of increasing data reuse. OpenCL C 1.1, so that every driver builds them. Every
 * variant takes any M, N, K: work-items outside C load zeros and write nothing.
 * Build options: -DTS=<n> (tile edge of naive/tiled, and the work-group edge of regblock),
 * -DWPT=<n> (outputs per work-item per dimension in regblock), -DBK=<n> (k-slice of regblock);
 * matmul_pipelined is built only when -DMWG=<n> is given, with its own parameters (see there),
 * and then alone: a driver compiles every kernel of a program, and a first run that needs only
 * the pipelined kernel should not pay for the other three. */

#ifndef MWG
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

#else /* MWG */
/* Pipelined register blocking. A work-group computes an MWG x NWG block of C, each work-item
 * WM x WN elements of it in registers; the k dimension goes by slices of KWG. Local tiles are
 * double-buffered, and each work-item loads its share of slice s+1 from global memory into
 * registers before it multiplies slice s, so that one barrier per slice suffices and the loads'
 * latency hides behind the arithmetic. Local memory is read VW floats at a time: a work-item's
 * rows (and columns) come in runs of VW, runs DM (DN) vectors apart, so that neighbouring
 * work-items read neighbouring vectors.
 * Edges: rows and columns outside C are clamped to the last one when loading (their results are
 * never stored), so only the last, partial k-slice checks its loads; the main loop has no bounds
 * check. Global loads are scalar, so that any M, N, K (not only multiples of VW) take the same
 * path: they cost a few instructions per slice against WM*WN*KWG multiply-adds.
 * Build options: -DMWG, -DNWG (block of C per work-group), -DKWG (k-slice), -DWM, -DWN (outputs
 * per work-item; MWG % WM == 0, NWG % WN == 0), -DVW (1, 2 or 4, dividing WM and WN), -DPAD
 * (vectors added to each k-row of the A tile, against bank conflicts when it is filled). The
 * work-group is (NWG/WN) x (MWG/WM).
 * With -DSPLIT_TAIL the kernel also splits the blocks of a product's last, partial wave along k:
 * the work-groups take the blocks of C in row-major order by their linear index (a grid of one
 * row of groups), the first `whole` each all of k, storing into C as without the option; the
 * blocks after them (the tail) each by `splits` work-groups of `k_chunk` k (a multiple of KWG),
 * which store their partial blocks into `partial` for matmul_split_sum to add into C. Without
 * the option none of this is compiled: it cost the unsplit blocks 5 to 11% on an H100
 * (bench/RESULTS.md, 2026-12-07). */
#ifndef NWG
#define NWG MWG
#endif
#ifndef KWG
#define KWG 16
#endif
#ifndef WM
#define WM 8
#endif
#ifndef WN
#define WN 8
#endif
#ifndef VW
#define VW 4
#endif
#ifndef PAD
#define PAD 1
#endif

#if VW == 1
typedef float floatv;
#define LANE(x, v) (x)
#define VEC(f) (f(0))
#elif VW == 2
typedef float2 floatv;
#define LANE(x, v) ((v) == 0 ? (x).s0 : (x).s1)
#define VEC(f) ((float2)(f(0), f(1)))
#elif VW == 4
typedef float4 floatv;
#define LANE(x, v) ((v) == 0 ? (x).s0 : (v) == 1 ? (x).s1 : (v) == 2 ? (x).s2 : (x).s3)
#define VEC(f) ((float4)(f(0), f(1), f(2), f(3)))
#else
#error "VW must be 1, 2 or 4"
#endif

#define DM (MWG / WM) /* work-items along M (local id 1) */
#define DN (NWG / WN) /* work-items along N (local id 0) */
#define NT (DM * DN)
#define MV (MWG / VW) /* vectors per k-row of the A tile */
#define NV (NWG / VW)
#define LA ((MV * KWG + NT - 1) / NT) /* vectors of a slice of A each work-item loads */
/* The block's row of a work-item's i-th row of outputs, and column of its j-th column: runs of
 * VW, DM (DN) vectors apart. */
#define OUT_ROW(i) ((((i) / VW) * DM + ty) * VW + (i) % VW)
#define OUT_COL(j) ((((j) / VW) * DN + tx) * VW + (j) % VW)
#define LB ((NV * KWG + NT - 1) / NT)

/* Slice of A starting at column k0 + t into ra, of B starting at row k0 + t into rb (k0 = 0 and
 * k_len = K but for a split block's part); with `checked`, elements at t >= k_len load as zeros
 * (the last, partial slice). Where the work-items do not share
 * a slice evenly, the last vectors of some lie beyond it and load nothing. */
#define A_IN(l) (LA * NT == MV * KWG || lid + (l) * NT < MV * KWG)
#define B_IN(l) (LB * NT == NV * KWG || lid + (l) * NT < NV * KWG)
#define A_LANE(v) (A_IN(l) && (!(checked) || t + a_k[l] < k_len) ? A[a_off[l][v] + t] : 0.0f)
#define B_LANE(v) (B_IN(l) && (!(checked) || t + b_k[l] < k_len) ? B[b_off[l][v] + t * N] : 0.0f)
#define LOAD_SLICE(t_, checked_)                                                                  \
  do {                                                                                            \
    const int t = (t_), checked = (checked_);                                                     \
    for (int l = 0; l < LA; ++l) ra[l] = VEC(A_LANE);                           \
    for (int l = 0; l < LB; ++l) rb[l] = VEC(B_LANE);                           \
  } while (0)
/* Registers into local buffer b: A transposed to k-major (Al[b][k][m]), B as it is. */
#define STORE_SLICE(b)                                                                            \
  do {                                                                                            \
    for (int l = 0; l < LA; ++l) {                                              \
      const int e = lid + l * NT;                                                                 \
      if (A_IN(l)) Al[b][e % KWG][e / KWG] = ra[l];                   \
    }                                                                                             \
    for (int l = 0; l < LB; ++l) {                                              \
      const int e = lid + l * NT;                                                                 \
      if (B_IN(l)) Bl[b][e / NV][e % NV] = rb[l];                     \
    }                                                                                             \
  } while (0)

__kernel __attribute__((reqd_work_group_size(DN, DM, 1))) void
matmul_pipelined(const int M, const int N, const int K, __global const float *restrict A,
                 __global const float *restrict B, __global float *restrict C
#ifdef SPLIT_TAIL
                 , const int whole, const int splits, const int k_chunk,
                 __global float *restrict partial
#endif
                 ) {
  /* PAD shifts each k-row of the A tile by PAD vectors: work-items that fill it write down a
   * column (consecutive k), which without it would all fall into the same banks. */
  __local floatv Al[2][KWG][MV + PAD];
  __local floatv Bl[2][KWG][NV];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int lid = ty * DN + tx;
#ifdef SPLIT_TAIL
  const int tail = (int)get_group_id(0) - whole; /* >= 0: a part of a split block */
  const int block = tail < 0 ? (int)get_group_id(0) : whole + tail / splits;
  const int blocks_n = (N + NWG - 1) / NWG;
  const int row0 = block / blocks_n * MWG, col0 = block % blocks_n * NWG;
  if (tail >= 0) {
    const int k0 = tail % splits * k_chunk, k_len = min(k_chunk, K - k0);
#include "matmul_block.cl"
    /* a part stores its whole block, rows and columns outside C too (sums of clamped loads:
     * finite, and never added into C) */
    __global float *const part = partial + tail * (MWG * NWG);
    #pragma unroll
    for (int i = 0; i < WM; ++i) {
      #pragma unroll
      for (int j = 0; j < WN; ++j)
        part[OUT_ROW(i) * NWG + OUT_COL(j)] = acc[i][j];
    }
    return;
  }
#else
  const int row0 = get_group_id(1) * MWG, col0 = get_group_id(0) * NWG;
#endif
  /* a whole block: all of k, with 0 and K as bounds the compiler sees, as without -DSPLIT_TAIL
   * (a split kernel whose whole blocks took the parts' bounds at run time ran 3 to 4% slower
   * where the default splits, on an H100: bench/RESULTS.md, 2026-12-07) */
  const int k0 = 0, k_len = K;
#include "matmul_block.cl"
  #pragma unroll
  for (int i = 0; i < WM; ++i) {
    const int row = row0 + OUT_ROW(i);
    #pragma unroll
    for (int j = 0; j < WN; ++j) {
      const int col = col0 + OUT_COL(j);
      if (row < M && col < N) C[row * N + col] = acc[i][j];
    }
  }
}

#ifdef SPLIT_TAIL
/* C's elements of the split blocks: the sum of their `splits` parts, in order. One work-item per
 * element of a tail block, the blocks one after another (global size: the tail's blocks times
 * MWG * NWG, rounded up). */
__kernel void matmul_split_sum(const int M, const int N, const int whole, const int tail_blocks,
                               const int splits, __global const float *restrict partial,
                               __global float *restrict C) {
  const int e = get_global_id(0) % (MWG * NWG), t = get_global_id(0) / (MWG * NWG);
  if (t >= tail_blocks) return;
  const int blocks_n = (N + NWG - 1) / NWG, block = whole + t;
  const int row = block / blocks_n * MWG + e / NWG, col = block % blocks_n * NWG + e % NWG;
  if (row >= M || col >= N) return;
  __global const float *p = partial + t * splits * (MWG * NWG) + e;
  float sum = 0.0f;
  for (int s = 0; s < splits; ++s) sum += p[s * (MWG * NWG)];
  C[row * N + col] = sum;
}
#endif
#endif /* MWG */
