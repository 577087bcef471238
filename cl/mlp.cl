/* Kernels of the mlp training step (see cg_mlp_shape in include/clgauge/backend.h), fp32,
 * row-major, OpenCL C 1.1. Two sets:
 *  - per-op: a strided matrix product and small elementwise kernels, launched one per operation
 *    as an eager framework does (the clblast backend uses the elementwise ones next to CLBlast);
 *  - fused (built with -DMLP_FUSED and the shape as macros): two or three launches per iteration
 *    (see the MLP_FUSED section for which and why).
 * Build options of the per-op set: -DTS=<n>, the edge of mlp_gemm's square work-group. */

#include "group_sum.cl"

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

/* dst[r ldd + c] = src[r lds + c] for r < rows, c < cols: w1 between its dense rows and the rows
 * of the fused launches (LDH apart, on a GPU), whose padding stays unwritten and is never read. */
__kernel void mlp_copy_rows(const int rows, const int cols, __global const float *src,
                            const int lds, __global float *dst, const int ldd) {
  const size_t c = get_global_id(0), r = get_global_id(1);
  if (r < (size_t)rows && c < (size_t)cols) dst[r * (size_t)ldd + c] = src[r * (size_t)lds + c];
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

/* dy = 2 (y - t) and, when keep is set, the sum of (y - t)^2 over this work-group's run of
 * `chunk` elements into part[group]: with one work-group that is the loss itself, with several a
 * partial that mlp_loss_sum adds up. Work-groups of a power-of-two size; red has one float per
 * work-item. Every sum runs in a fixed order (a strided partial per work-item, then a tree), so
 * that the loss is the same on every run. Several work-groups, because one runs on one compute
 * unit of many (98 us of an H200's step at batch x dout = 65536, on one of its 132). */
__kernel void mlp_loss_dy(const int count, __global const float *y, __global const float *t,
                          __global float *dy, __global float *part, const int keep,
                          __local float *red, const int chunk) {
  const int l = get_local_id(0);
  const int size = get_local_size(0);
  const int begin = get_group_id(0) * chunk;
  const int end = min(count, begin + chunk);
  float s = 0.0f;
  for (int i = begin + l; i < end; i += size) {
    const float d = y[i] - t[i];
    dy[i] = 2.0f * d;
    s += d * d;
  }
  if (!keep) return; /* uniform across the work-group: no barrier is skipped by some only */
  s = group_sum(s, red);
  if (l == 0) part[get_group_id(0)] = s;
}

/* loss[0] = the sum of mlp_loss_dy's n partials, in a fixed order; one work-group of a
 * power-of-two size, red one float per work-item. */
__kernel void mlp_loss_sum(const int n, __global const float *part, __global float *loss,
                           __local float *red) {
  const int l = get_local_id(0);
  const int size = get_local_size(0);
  float s = 0.0f;
  for (int i = l; i < n; i += size) s += part[i];
  s = group_sum(s, red);
  if (l == 0) loss[0] = s;
}

#ifdef MLP_FUSED
/* The fused step: two to five launches per iteration, no device-wide barrier (OpenCL 1.2 cannot
 * provide one portably: work-groups need not be co-resident), so every sum that crosses
 * work-groups ends a launch.
 *
 * Launch A ("wide", 2-D): a work-group owns a column block J of w1 (BJ columns) and TPG
 * consecutive row tiles I of it (BI rows each). For each tile it runs the backward part of the
 * previous iteration, g1 = x[:,I]^T dz1[:,J] (K = NB) and w1[I,J] -= lr g1, then this
 * iteration's forward part, the partial product x[:,I] w1[I,J] (NB x BJ, K = BI), summed over its
 * tiles in registers and written to `part` for its row group. Each element of w1 is read and
 * written once per iteration; x and dz1 go through local memory in chunks of KC, and each
 * work-item keeps an RM x RN block of g1 and an RM2 x RN block of the partial product.
 * h1 = relu(sum over the row groups of the partials) needs all row groups, so it ends launch A.
 * A split iteration (PART below) runs the backward part over all of w1 first, as a launch G of
 * its own build and blocking, then launch A with the forward part alone: w1 is read twice, but
 * each work-item keeps one register block, not two.
 *
 * Then either
 *  - two launches (THREE == 0, the partials small enough for one work-group): launch B ("small",
 *    one work-group) sums the partials into h1, and runs h2, y, loss, dy, g3, dz2, w3, then
 *    dz1 = (dz2 w2^T) * (h1 > 0) and g2 = h1^T dz2 and the w2 update (after dz1 has read w2);
 *  - or three (THREE == 1, large partials, or a large H): launch R ("reduce", wide, a work-group
 *    per column block) first finishes the previous iteration's w2 update for its rows of w2
 *    (g2 = h1^T dz2, after launch A has read w2 for dz1), then sums the partials into h1 and
 *    writes the block's share of h1 w2; launch B sums those into h2 and runs the N x O part
 *    (h2, y, loss, dy, g3, dz2, w3); dz1 is left to launch A, each work-group computing its own
 *    columns from h1, dz2 and w2 (DZ1A == 1), which costs DOUT / (2 BI) of A's arithmetic, or
 *    to a launch D of its own between B and A (DZ1A == 0). So launch B never touches an N x H
 *    or H x O array: on a GPU a single work-group streaming those takes hundreds of
 *    microseconds at H = 5000. Launch B may run as BRG work-groups of BROWS rows each (its N x
 *    O part is 3 N O O multiply-adds on one compute unit otherwise); g3 and the w3 update, which
 *    need every row, then move to the next launch R (or the closing one).
 * With two launches DZ1A may be set too (B then keeps the w2 of dz1 in w2p for launch A).
 * A batch of k iterations is A(forward only), then k times [R,] B, [D,] A(backward [+ forward of
 * the next iteration]), or split, [R,] B, [D,] G, [A(forward of the next)]; the last A (G) only
 * finishes the backward part, and with three launches a last
 * R(w2 update only, and g3 and w3 with BRG > 1) follows it, so the weights after the batch are
 * those of k full steps.
 * Barriers stay outside conditionals, even uniform ones, which some drivers mishandle; the flags
 * only gate the work between them.
 *
 * Macros (set by src/backends/cl/mlp_fused_config.c): NB, DIN, HID, DOUT the shape; TX x TY
 * work-items of A (of G in G's build); RM, RN, RM2, KC, TPG as above; PART, VW, VW2, PF, STAGE,
 * DB, FWR, KV, UR, WPF below;
 * RGROUPS the row groups of A (partials); NCH = ceil(NB / NC); THREE, DZ1A; WR, RR, RC, RCB:
 * launch R's work-items, rows, columns and column blocks; WGB: work-items of launch B, a power of
 * two; BROWS, BRG: launch B's rows per work-group and its work-groups, ceil(NB / BROWS); BLOC:
 * launch B's copies in local memory (1: h2 and w3, 2: dy too); LDH: the row pitch, HID or more,
 * of w1, h1, dz1 and each row group's partials (rows that start on a 128-byte line; the elements
 * past HID are never read or written). */
#define BI (TY * RM)
#define BJ (TX * RN)
#define NC (TY * RM2)
#define WGA (TX * TY)
#define LDA (BI > NC ? BI : NC)
#ifndef BROWS
#define BROWS NB
#endif
#ifndef BRG
#define BRG 1
#endif
/* Local-memory reads of launch A come VW floats at a time (VW2 for the rows of x in the forward
 * part, where RM2 may not be a multiple of VW): a work-item's rows (columns) lie in runs of VW,
 * TY (TX) runs apart, so that a warp's neighbouring work-items read neighbouring vectors and one
 * vector read replaces VW scalar ones (on an H200 the scalar reads, two per multiply-add of a
 * 1 x RN block, bound the product). With vectors, a row of As is whole vectors plus one of
 * padding (the forward part fills it down a column, consecutive k); with VW = VW2 = 1, one
 * float. */
#ifndef VW
#define VW 1
#endif
#ifndef VW2
#define VW2 1
#endif
#if VW == 1 && VW2 == 1
#define LDS (LDA + 1)
#else
#define LDS ((LDA + 3) / 4 * 4 + 4)
#endif
/* The place of a work-item's r-th row (column) in its tile: `lane` of `lanes`, runs of V. */
#define SHARE_AT(r, lane, lanes, V) ((((r) / (V)) * (lanes) + (lane)) * (V) + (r) % (V))

/* dst[0..count) = a work-item's share of local row p (count a multiple of V), by vectors of V. */
inline void mlp_share(__local const float *p, const int lane, const int lanes, const int count,
                      const int V, float *dst) {
  for (int r = 0; r < count; r += V) {
    const int at = SHARE_AT(r, lane, lanes, V);
    if (V == 4) {
      const float4 v = *(__local const float4 *)(p + at);
      dst[r] = v.s0;
      dst[r + 1] = v.s1;
      dst[r + 2] = v.s2;
      dst[r + 3] = v.s3;
    } else if (V == 2) {
      const float2 v = *(__local const float2 *)(p + at);
      dst[r] = v.s0;
      dst[r + 1] = v.s1;
    } else {
      dst[r] = p[at];
    }
  }
}

/* Chunks of launch A go through registers: FETCH_* loads a work-item's share of one (element
 * q = t + l WGA of the KC x BI (or NC) part of As, and of the KC x BJ part of Bs) into pa and pb,
 * STORE writes them to local memory. With PF = 1 the next chunk is fetched after the barrier that
 * publishes this one, so that its global loads are in flight while this one is multiplied (the
 * pipelined matmul's scheme, with one local buffer); with PF = 0 each chunk is fetched just
 * before it is stored. */
#ifndef PF
#define PF 0
#endif
#ifndef STAGE
#define STAGE 1
#endif
/* DB 1 (with STAGE 1 and FWR 0): two local buffers of each chunk. While a chunk is multiplied
 * from one, the next is fetched into registers and then stored into the other, so that one
 * barrier per chunk publishes it (two with one buffer: before the product, and after it so that
 * the buffer may be written again); PF has no effect. */
#ifndef DB
#define DB 0
#endif
#if DB && (!STAGE || FWR)
#error "DB = 1 needs STAGE = 1 and FWR = 0"
#endif
/* FWR 1: the forward part takes w1 from the registers of the update (each work-item writes its
 * rows of the updated tile into Bs, KV of them per chunk: KF = TY KV rows of the tile) instead of
 * reading the tile back from global memory in chunks of KC; x goes straight into As. FWR 2: the
 * same with the chunk loop unrolled. */
#ifndef FWR
#define FWR 0
#endif
#ifndef KV
#define KV 1
#endif
#define KF (TY * KV)
#if FWR && KF > KC
#define KA KF
#else
#define KA KC
#endif
#define LPB ((KC * BJ + WGA - 1) / WGA)
#define LPA_G1 ((KC * BI + WGA - 1) / WGA)
#define LPA_FW ((KC * NC + WGA - 1) / WGA)
#define LPA (LPA_G1 > LPA_FW ? LPA_G1 : LPA_FW)
/* UR: the w1 update takes UR rows of a work-item's block at a time (their reads, then their
 * writes), so that UR rows of reads are in flight together; 1 keeps the fewest addresses live,
 * RM all of them. WPF 1: at each tile's start, before the backward part, each work-item reads
 * the first element of each run of its own block of w1 with plain loads, so that the update
 * finds those lines in the caches instead of waiting on device memory row after row (its own
 * elements, so that no other work-item's update races with these reads); their sum, times 0,
 * goes into the g1 block after the backward product, so that the loads cannot be dropped and
 * nothing waits for them before then (w1 finite, it adds a zero). OpenCL's prefetch() in their
 * place did nothing on NVIDIA's driver (no prefetch in its binary, no change in time). */
#ifndef UR
#define UR 1
#endif
#ifndef WPF
#define WPF 0
#endif
/* g1's chunk at batch row n0: x[n0+k][i0+i] in As[k][i], dz1[n0+k][j0+j] in Bs[k][j] (with
 * DZ1A, dz1 from h1, dz2 and w2p) */
/* dz1[n][col] = (dz2 w2^T)[n][col] * (h1[n][col] > 0): in launch A (DZ1A), B or D */
inline float mlp_dz1(__global const float *h1, __global const float *dz2,
                     __global const float *w2, const int n, const int col) {
  float d = 0.0f;
  if (h1[n * LDH + col] > 0.0f)
    for (int o = 0; o < DOUT; ++o) d += dz2[n * DOUT + o] * w2[col * DOUT + o];
  return d;
}
#if DZ1A
#define DZ1_AT(n, col) mlp_dz1(h1, dz2, w2p, n, col)
#else
#define DZ1_AT(n, col) dz1[(n) * LDH + (col)]
#endif
#define FETCH_G1(n0_)                                                                             \
  do {                                                                                            \
    const int n0f = (n0_);                                                                        \
    for (int l = 0; l < LPA_G1; ++l) {                                                            \
      const int q = t + l * WGA, k = q / BI, i = q % BI;                                          \
      pa[l] = q < KC * BI && n0f + k < NB && i0 + i < DIN ? x[(n0f + k) * DIN + i0 + i] : 0.0f;   \
    }                                                                                             \
    for (int l = 0; l < LPB; ++l) {                                                               \
      const int q = t + l * WGA, k = q / BJ, j = q % BJ;                                          \
      pb[l] = q < KC * BJ && n0f + k < NB && j0 + j < HID ? DZ1_AT(n0f + k, j0 + j) : 0.0f;       \
    }                                                                                             \
  } while (0)
/* the forward part's chunk at rows n0 of x and rows k0 of the tile: x[n0+n][i0+k0+k] in As[k][n]
 * (element q: n = q / KC, k = q % KC, so that neighbouring work-items read neighbouring
 * addresses), w1[i0+k0+k][j0+j] in Bs[k][j] */
#define FETCH_FW(n0_, k0_)                                                                        \
  do {                                                                                            \
    const int n0f = (n0_), k0f = (k0_);                                                           \
    for (int l = 0; l < LPA_FW; ++l) {                                                            \
      const int q = t + l * WGA, n = q / KC, k = q % KC, i = i0 + k0f + k;                        \
      pa[l] = q < KC * NC && n0f + n < NB && k0f + k < BI && i < DIN ? x[(n0f + n) * DIN + i]     \
                                                                     : 0.0f;                      \
    }                                                                                             \
    for (int l = 0; l < LPB; ++l) {                                                               \
      const int q = t + l * WGA, k = q / BJ, j = q % BJ, i = i0 + k0f + k;                        \
      pb[l] = q < KC * BJ && k0f + k < BI && i < DIN && j0 + j < HID ? w1[i * LDH + j0 + j]       \
                                                                     : 0.0f;                      \
    }                                                                                             \
  } while (0)
/* STAGE 0: the same chunks loaded straight into As and Bs, without the registers (faster on
 * CPU drivers, where a work-item's private array costs memory traffic) */
#define LOAD_G1(n0_)                                                                              \
  do {                                                                                            \
    for (int q = t; q < KC * BI; q += WGA) {                                                      \
      const int k = q / BI, i = q % BI;                                                           \
      As[k][i] = (n0_) + k < NB && i0 + i < DIN ? x[((n0_) + k) * DIN + i0 + i] : 0.0f;           \
    }                                                                                             \
    for (int q = t; q < KC * BJ; q += WGA) {                                                      \
      const int k = q / BJ, j = q % BJ;                                                           \
      Bs[k][j] = (n0_) + k < NB && j0 + j < HID ? DZ1_AT((n0_) + k, j0 + j) : 0.0f;               \
    }                                                                                             \
  } while (0)
#define LOAD_FW(n0_, k0_)                                                                         \
  do {                                                                                            \
    for (int q = t; q < KC * NC; q += WGA) {                                                      \
      const int n = q / KC, k = q % KC, i = i0 + (k0_) + k;                                       \
      As[k][n] = (n0_) + n < NB && (k0_) + k < BI && i < DIN ? x[((n0_) + n) * DIN + i] : 0.0f;   \
    }                                                                                             \
    for (int q = t; q < KC * BJ; q += WGA) {                                                      \
      const int k = q / BJ, j = q % BJ, i = i0 + (k0_) + k;                                       \
      Bs[k][j] = (k0_) + k < BI && i < DIN && j0 + j < HID ? w1[i * LDH + j0 + j] : 0.0f;         \
    }                                                                                             \
  } while (0)
/* pa into As at A_AT (of element e of a KC x ROWS part), pb into Bs[k][j] */
#define STORE(ROWS, COLS, A_AT)                                                                   \
  do {                                                                                            \
    for (int l = 0; l < LPA; ++l) {                                                               \
      const int e = t + l * WGA;                                                                  \
      if (e < KC * (ROWS)) A_AT = pa[l];                                                          \
    }                                                                                             \
    for (int l = 0; l < LPB; ++l) {                                                               \
      const int e = t + l * WGA;                                                                  \
      if (e < KC * (COLS)) Bs[e / (COLS)][e % (COLS)] = pb[l];                                    \
    }                                                                                             \
  } while (0)

/* The two chunks' places in As (Bs[k][j] for both): g1's x[n0+k][i0+i] in As[k][i], the
 * forward part's x[n0+n][i0+k0+k] in As[k][n] */
#define STORE_G1() STORE(BI, BJ, As[e / BI][e % BI])
#define STORE_FW() STORE(NC, BJ, As[e % KC][e / KC])
/* The forward part's chunk after the one at rows n0 of x and k0 of the tile (row chunk ch): the
 * next KC rows of the tile, else the next rows of x; FW_MORE: whether there is one */
#define FW_MORE(ch, k0) ((k0) + KC < BI || (ch) + 1 < NCH)
#define FETCH_FW_NEXT(n0, k0)                                                                     \
  FETCH_FW((k0) + KC >= BI ? (n0) + NC : (n0), (k0) + KC >= BI ? 0 : (k0) + KC)

/* The forward part's product over the first K rows of As and Bs, into acc2 */
#define FORWARD_PRODUCT(K)                                                                        \
  do {                                                                                            \
    for (int k = 0; k < (K); ++k) {                                                               \
      float a[RM2], b[RN];                                                                        \
      mlp_share(As[k], ty, TY, RM2, VW2, a);                                                      \
      mlp_share(Bs[k], tx, TX, RN, VW, b);                                                        \
      for (int r = 0; r < RM2; ++r)                                                               \
        for (int c = 0; c < RN; ++c) acc2[r][c] += a[r] * b[c];                                   \
    }                                                                                             \
  } while (0)

/* PART: which of launch A's parts this build of it runs, 0 both (as `backward` and `forward`
 * ask), 1 the backward part alone (launch G of a split iteration), 2 the forward part alone
 * (launch A of a split iteration). A split gives each part a build of its own, with a blocking
 * of its own and without the other part's code and registers. */
#ifndef PART
#define PART 0
#endif

__kernel __attribute__((reqd_work_group_size(WGA, 1, 1))) void
mlp_fused_wide(__global const float *x, __global float *w1, __global const float *dz1,
               __global const float *h1, __global const float *dz2, __global const float *w2p,
               __global float *part, const float lr, const int backward_asked,
               const int forward_asked) {
  const int backward = PART != 2 && backward_asked, forward = PART != 1 && forward_asked;
  /* x[n0+k][i0+i] (g1), then x[n0+n][i0+k0+k] as As[k][n]; aligned for the vector reads */
#if DB
  __local float As2[2][KA][LDS] __attribute__((aligned(16)));
  __local float Bs2[2][KA][BJ] __attribute__((aligned(16)));
  /* the buffer of the chunk being multiplied, and after SWAP the one of the next chunk */
  __local float(*As)[LDS] = As2[0];
  __local float(*Bs)[BJ] = Bs2[0];
  int buf = 0;
#define SWAP()                                                                                    \
  do {                                                                                            \
    buf ^= 1;                                                                                     \
    As = As2[buf];                                                                                \
    Bs = Bs2[buf];                                                                                \
  } while (0)
#else
  __local float As[KA][LDS] __attribute__((aligned(16)));
  __local float Bs[KA][BJ] __attribute__((aligned(16))); /* dz1[n0+k][j0+j], then w1 */
#endif
  const int t = get_local_id(0);
  const int tx = t % TX, ty = t / TX;
  const int j0 = get_group_id(0) * BJ;
  const int rg = get_group_id(1);

  /* zeroed where the first tile's forward part begins (and after each store), not here: with one
   * tile per work-group it is then not live during the backward part, whose RM x RN block
   * alone sets the registers a work-item needs */
  float acc2[RM2][RN];
  float pa[LPA], pb[LPB]; /* a work-item's share of the next chunk of As and Bs (STAGE 1) */

  for (int tile = 0; tile < TPG; ++tile) {
    const int i0 = (rg * TPG + tile) * BI;
    /* g1 tile and the w1 update, in registers */
    float acc1[RM][RN];
    for (int r = 0; r < RM; ++r)
      for (int c = 0; c < RN; ++c) acc1[r][c] = 0.0f;
#if WPF
    float touched = 0.0f;
    if (backward)
      for (int r = 0; r < RM; ++r) {
        const int row = i0 + SHARE_AT(r, ty, TY, VW);
        for (int c = 0; c < RN; c += VW) {
          const int col = j0 + SHARE_AT(c, tx, TX, VW);
          if (row < DIN && col < HID) touched += w1[row * LDH + col];
        }
      }
#endif
#if DB
    if (backward) {
      FETCH_G1(0);
      STORE_G1();
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    for (int n0 = 0; n0 < NB; n0 += KC) {
#if DB
      if (backward && n0 + KC < NB) FETCH_G1(n0 + KC);
#else
      if (backward) {
#if STAGE
        if (!PF || n0 == 0) FETCH_G1(n0);
        STORE_G1();
#else
        LOAD_G1(n0);
#endif
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (backward && PF && n0 + KC < NB) FETCH_G1(n0 + KC);
#endif
      if (backward) {
        for (int k = 0; k < KC; ++k) {
          /* the last chunk of a batch that is not a multiple of KC stops at the batch's end
           * (at batch 8 and KC = 16, half the products would be of zeros) */
          if (NB % KC != 0 && n0 + k >= NB) break;
          float a[RM], b[RN];
          mlp_share(As[k], ty, TY, RM, VW, a);
          mlp_share(Bs[k], tx, TX, RN, VW, b);
          for (int r = 0; r < RM; ++r)
            for (int c = 0; c < RN; ++c) acc1[r][c] += a[r] * b[c];
        }
      }
#if DB
      SWAP();
      if (backward && n0 + KC < NB) STORE_G1();
#endif
      barrier(CLK_LOCAL_MEM_FENCE);
    }
#if WPF
    acc1[0][0] += 0.0f * touched;
#endif
    /* w1 -= lr g1 on the tile, UR rows of the block at a time: their elements read, then
     * written, so that those reads are in flight together (read and written element by element,
     * each read waits for the store before it unless the compiler proves the two apart), without
     * the addresses of the whole block live at once. With FWR the tile as it now is (updated
     * where `backward`) stays in acc1 for the forward part, read even when not `backward`. */
    if (backward || FWR) {
      for (int r0 = 0; r0 < RM; r0 += UR) {
        for (int r = r0; r < r0 + UR && r < RM; ++r) {
          const int row = i0 + SHARE_AT(r, ty, TY, VW);
          for (int c = 0; c < RN; ++c) {
            const int col = j0 + SHARE_AT(c, tx, TX, VW);
            acc1[r][c] = (row < DIN && col < HID ? w1[row * LDH + col] : 0.0f) - lr * acc1[r][c];
          }
        }
        for (int r = r0; r < r0 + UR && r < RM; ++r) {
          const int row = i0 + SHARE_AT(r, ty, TY, VW);
          for (int c = 0; c < RN; ++c) {
            const int col = j0 + SHARE_AT(c, tx, TX, VW);
            if (backward && row < DIN && col < HID) w1[row * LDH + col] = acc1[r][c];
          }
        }
      }
    }
#if FWR
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    /* the updated w1 tile is read back below by other work-items of this group */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#endif

    /* the partial product x[:,I] w1[I,J], in row chunks of NC */
    if (tile == 0)
      for (int r = 0; r < RM2; ++r)
        for (int c = 0; c < RN; ++c) acc2[r][c] = 0.0f;
#if DB
    if (forward) {
      FETCH_FW(0, 0);
      STORE_FW();
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    for (int ch = 0; ch < NCH; ++ch) {
      const int n0 = ch * NC;
#if FWR
      /* chunk q: the rows r in [q KV, (q + 1) KV) of every work-item's block, KF rows of the
       * tile */
#if FWR == 2
      /* unrolled, the compiler can see each row of acc1 die after its chunk (PoCL 3.1 takes
       * minutes to build it so, its barriers multiplied) */
      #pragma unroll
#endif
      for (int q = 0; q < RM / KV; ++q) {
        if (forward) {
          for (int r = q * KV; r < (q + 1) * KV; ++r)
            for (int c = 0; c < RN; ++c)
              Bs[ty * KV + r % KV][SHARE_AT(c, tx, TX, VW)] = acc1[r][c];
          for (int e = t; e < KF * NC; e += WGA) {
            const int n = e / KF, k = e % KF;
            const int i = i0 + SHARE_AT(q * KV + k % KV, k / KV, TY, VW);
            As[k][n] = n0 + n < NB && i < DIN ? x[(n0 + n) * DIN + i] : 0.0f;
          }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (forward) FORWARD_PRODUCT(KF);
        barrier(CLK_LOCAL_MEM_FENCE);
      }
#else
      for (int k0 = 0; k0 < BI; k0 += KC) {
#if DB
        const bool more = FW_MORE(ch, k0);
        if (forward && more) FETCH_FW_NEXT(n0, k0);
        if (forward) FORWARD_PRODUCT(KC);
        SWAP();
        if (forward && more) STORE_FW();
        barrier(CLK_LOCAL_MEM_FENCE);
#else
        if (forward) {
#if STAGE
          if (!PF || (ch == 0 && k0 == 0)) FETCH_FW(n0, k0);
          STORE_FW();
#else
          LOAD_FW(n0, k0);
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (forward && PF && FW_MORE(ch, k0)) FETCH_FW_NEXT(n0, k0);
        if (forward) FORWARD_PRODUCT(KC);
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
      }
#endif
      /* with TPG > 1 there is one chunk (NCH == 1) and the sum runs on over the tiles to the
       * last (with TPG == 1 every tile is the last) */
      if (forward && tile == TPG - 1) {
        for (int r = 0; r < RM2; ++r) {
          const int n = n0 + SHARE_AT(r, ty, TY, VW2);
          for (int c = 0; c < RN; ++c) {
            const int col = j0 + SHARE_AT(c, tx, TX, VW);
            if (n < NB && col < HID) part[(rg * NB + n) * LDH + col] = acc2[r][c];
            acc2[r][c] = 0.0f;
          }
        }
      }
    }
  }
}

/* the other launches, which launch G's build (PART 1) leaves out */
#if PART != 1
#if THREE
/* Launch R: a work-group per RC columns of h1 (all NB rows). First, when `pending`, the w2
 * update of the previous iteration for its rows of w2 (g2 = h1^T dz2 from the h1 and dz2 that
 * iteration left, after launch A has read w2 for dz1); then, when `forward`,
 * h1 = relu(sum of the row groups' partials) and its share of h1 w2 for launch B,
 * part2[column block][n][o]. When a block has fewer elements than work-items, S work-items share
 * each element's sum over the row groups. */
#define RE (NB * RC)
__kernel __attribute__((reqd_work_group_size(WR, 1, 1))) void
mlp_fused_reduce(__global const float *part, __global float *w2, __global float *h1,
                 __global const float *dz2, __global float *part2, const float lr,
                 const int pending, const int forward, __global const float *h2,
                 __global const float *dy, __global float *g3, __global float *w3,
                 const int update_w3) {
  __local float Hs[NB][RC + 1];
  __local float red[WR];
  const int t = get_local_id(0);
  const int j0 = get_group_id(0) * RC;
  if (pending) {
    for (int q = t; q < RE; q += WR) {
      const int n = q / RC, j = q % RC;
      Hs[n][j] = j0 + j < HID ? h1[n * LDH + j0 + j] : 0.0f;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (pending) {
    for (int q = t; q < RC * DOUT; q += WR) {
      const int j = q / DOUT, o = q % DOUT;
      if (j0 + j < HID) {
        float g = 0.0f;
        for (int n = 0; n < NB; ++n) g += Hs[n][j] * dz2[n * DOUT + o];
        w2[(j0 + j) * DOUT + o] -= lr * g;
      }
    }
  }
#if BRG > 1
  /* launch B's row groups left g3 += h2^T dy and the w3 update (they need all rows): spread
   * over all of R's work-items, each output's sum in the order launch B's would be */
  if (pending) {
    const int groups = get_num_groups(0) * get_num_groups(1);
    const int id = (get_group_id(1) * get_num_groups(0) + get_group_id(0)) * WR + t;
    for (int q = id; q < DOUT * DOUT; q += groups * WR) {
      const int p = q / DOUT, o = q % DOUT;
      float s = 0.0f;
      for (int n = 0; n < NB; ++n) s += h2[n * DOUT + p] * dy[n * DOUT + o];
      const float g = g3[q] + s;
      if (update_w3) {
        w3[q] -= lr * g;
        g3[q] = 0.0f;
      } else {
        g3[q] = g;
      }
    }
  }
#endif
  /* the updated rows of w2 are read below by other work-items of this group */
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  const int S = RE < WR ? WR / RE : 1;
  if (RE < WR && forward) {
    const int slice = t / RE, q = t % RE, n = q / RC, col = j0 + q % RC;
    float s = 0.0f;
    if (slice < S && col < HID)
      for (int g = slice; g < RGROUPS; g += S) s += part[(g * NB + n) * LDH + col];
    red[t] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (forward) {
    for (int q = t; q < RE; q += WR) {
      const int n = q / RC, j = q % RC, col = j0 + j;
      float v = 0.0f;
      if (col < HID) {
        float s = 0.0f;
        if (RE < WR) {
          for (int k = 0; k < S; ++k) s += red[k * RE + q];
        } else {
          for (int g = 0; g < RGROUPS; ++g) s += part[(g * NB + n) * LDH + col];
        }
        v = fmax(s, 0.0f);
        h1[n * LDH + col] = v;
      }
      Hs[n][j] = v;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (forward) {
    for (int q = t; q < NB * DOUT; q += WR) {
      const int n = q / DOUT, o = q % DOUT;
      float s = 0.0f;
      for (int j = 0; j < RC && j0 + j < HID; ++j) s += Hs[n][j] * w2[(j0 + j) * DOUT + o];
      part2[(get_group_id(0) * NB + n) * DOUT + o] = s;
    }
  }
}
#endif

#if THREE && !DZ1A
/* Launch D (three launches, DZ1A == 0): dz1 = (dz2 w2^T) * (h1 > 0), an element per work-item,
 * between B (dz2) and A, with w2 before its update (launch R of the next iteration). */
__kernel void mlp_fused_dz1(__global const float *h1, __global const float *dz2,
                            __global const float *w2, __global float *dz1) {
  const int q = get_global_id(0), n = q / HID, col = q % HID;
  if (q < NB * HID) dz1[n * LDH + col] = mlp_dz1(h1, dz2, w2, n, col);
}
#endif

/* Launch B's batch x dout part (y, g3, dz2: 3 NB DOUT DOUT multiply-adds on one compute unit)
 * reads h2, w3 and dy over and over: with BLOC from local memory, where they are copied as they
 * are made (on an H100 at 54 x 46 x 367 x 59 the launch took 100 us from global memory). w3's
 * rows lie PW3 apart, PW3 odd, so that dz2's reads down a column of w3 fall in distinct banks. */
#define PW3 (DOUT | 1)
#if BLOC
#define B_H2(i) lh2[i]
#define B_W3(p, o) lw3[(p) * PW3 + (o)]
#else
#define B_H2(i) h2[q0 + (i)]
#define B_W3(p, o) w3[(p) * DOUT + (o)]
#endif
#if BLOC == 2
#define B_DY(i) ldy[i]
#else
#define B_DY(i) dy[q0 + (i)]
#endif

/* Launch B: work-groups of WGB work-items, each of BROWS rows of the batch (its local index q
 * of those rows' outputs is q0 + q of the whole). BRG work-groups (BRG > 1 needs THREE == 1)
 * see only their rows: g3 = h2^T dy and the w3 update need all of them, so launch R does those
 * for the iteration before (its `pending` part), and each group writes its part of the loss to
 * lossp, which mlp_loss_sum adds up. With one group (BRG == 1) launch B does all of it. Every
 * sum runs in a fixed order. `sums` is A's partials (THREE == 0) or R's part2 (THREE == 1). */
__kernel __attribute__((reqd_work_group_size(WGB, 1, 1))) void
mlp_fused_small(__global const float *sums, __global float *h1, __global float *w2,
                __global float *w2p, __global const float *t, __global float *w3,
                __global float *g3, __global float *h2, __global float *dy, __global float *dz2,
                __global float *dz1, __global float *loss, const float lr, const int keep,
                const int update_w3, __global float *lossp) {
  __local float red[WGB];
#if BLOC
  __local float lh2[BROWS * DOUT], lw3[DOUT * PW3];
#endif
#if BLOC == 2
  __local float ldy[BROWS * DOUT];
#endif
  const int l = get_local_id(0);
#if BRG > 1
  const int n0 = get_group_id(0) * BROWS;
  const int NO = min(BROWS, NB - n0) * DOUT;
#else
  const int n0 = 0; /* one work-group: NO a constant the compiler may unroll by */
  const int NO = NB * DOUT;
#endif
  const int q0 = n0 * DOUT;
#if BLOC
  /* w3 before its update, for y and dz2 (the barrier after h2 covers it) */
  for (int q = l; q < DOUT * DOUT; q += WGB) lw3[q / DOUT * PW3 + q % DOUT] = w3[q];
#endif
  /* When there are fewer outputs of h2 than work-items, S work-items share each output's sum,
   * then add their parts. */
  const int S = NO < WGB ? WGB / NO : 1;
#if THREE
  /* h2 = relu(sum of R's column-block shares of h1 w2) */
  if (NO < WGB) {
    const int slice = l / NO, q = l % NO;
    float s = 0.0f;
    if (slice < S)
      for (int g = slice; g < RCB; g += S) s += sums[g * (NB * DOUT) + q0 + q];
    red[l] = s;
  }
#else
  /* h1 = relu(sum of A's row-group partials), then h2 = relu(h1 w2) */
  for (int q = l; q < NB * HID; q += WGB) {
    const int n = q / HID, col = q % HID;
    float s = 0.0f;
    for (int g = 0; g < RGROUPS; ++g) s += sums[(g * NB + n) * LDH + col];
    h1[n * LDH + col] = fmax(s, 0.0f);
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (NO < WGB) {
    const int slice = l / NO, q = l % NO, n = q / DOUT, o = q % DOUT;
    float s = 0.0f;
    if (slice < S)
      for (int j = slice; j < HID; j += S) s += h1[n * LDH + j] * w2[j * DOUT + o];
    red[l] = s;
  }
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  if (NO < WGB) {
    if (l < NO) {
      float z = 0.0f;
      for (int k = 0; k < S; ++k) z += red[k * NO + l];
      h2[q0 + l] = fmax(z, 0.0f);
#if BLOC
      lh2[l] = fmax(z, 0.0f);
#endif
    }
  } else {
    for (int q = l; q < NO; q += WGB) {
      float z = 0.0f;
#if THREE
      for (int g = 0; g < RCB; ++g) z += sums[g * (NB * DOUT) + q0 + q];
#else
      const int n = q / DOUT, o = q % DOUT;
      for (int j = 0; j < HID; ++j) z += h1[n * LDH + j] * w2[j * DOUT + o];
#endif
      h2[q0 + q] = fmax(z, 0.0f);
#if BLOC
      lh2[q] = fmax(z, 0.0f);
#endif
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  /* y = h2 w3, dy = 2 (y - t), loss. */
  float ls = 0.0f;
  for (int q = l; q < NO; q += WGB) {
    const int n = q / DOUT, o = q % DOUT;
    float y = 0.0f;
    for (int p = 0; p < DOUT; ++p) y += B_H2(n * DOUT + p) * B_W3(p, o);
    const float d = y - t[q0 + q];
    dy[q0 + q] = 2.0f * d;
#if BLOC == 2
    ldy[q] = 2.0f * d;
#endif
    ls += d * d;
  }
  red[l] = ls;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  for (int width = WGB / 2; width > 0; width /= 2) {
    if (l < width) red[l] += red[l + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#if BRG > 1
  if (l == 0 && keep) lossp[get_group_id(0)] = red[0];
#else
  if (l == 0 && keep) loss[0] = red[0];

  /* g3 += h2^T dy */
  for (int q = l; q < DOUT * DOUT; q += WGB) {
    const int p = q / DOUT, o = q % DOUT;
    float s = 0.0f;
    for (int n = 0; n < NB; ++n) s += B_H2(n * DOUT + p) * B_DY(n * DOUT + o);
    g3[q] += s;
  }
#endif
  /* dz2 = (dy w3^T) * (h2 > 0) with w3 before its update */
  for (int q = l; q < NO; q += WGB) {
    const int n = q / DOUT, p = q % DOUT;
    float s = 0.0f;
    for (int o = 0; o < DOUT; ++o) s += B_DY(n * DOUT + o) * B_W3(p, o);
    dz2[q0 + q] = B_H2(q) > 0.0f ? s : 0.0f;
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
#if BRG == 1
  if (update_w3) {
    for (int q = l; q < DOUT * DOUT; q += WGB) {
      w3[q] -= lr * g3[q];
      g3[q] = 0.0f;
    }
  }
#endif
#if DZ1A && !THREE
  /* launch A computes dz1 from w2 as it is now: keep it */
  for (int q = l; q < HID * DOUT; q += WGB) w2p[q] = w2[q];
#endif
#if !DZ1A && !THREE
  /* dz1 = (dz2 w2^T) * (h1 > 0), with w2 before its update */
  for (int q = l; q < NB * HID; q += WGB) {
    const int n = q / HID, col = q % HID;
    dz1[n * LDH + col] = mlp_dz1(h1, dz2, w2, n, col);
  }
#endif
  barrier(CLK_GLOBAL_MEM_FENCE);
#if !THREE
  /* g2 = h1^T dz2; w2 -= lr g2 (with three launches, launch R does it after launch A) */
  for (int q = l; q < HID * DOUT; q += WGB) {
    const int j = q / DOUT, o = q % DOUT;
    float g = 0.0f;
    for (int n = 0; n < NB; ++n) g += h1[n * LDH + j] * dz2[n * DOUT + o];
    w2[q] -= lr * g;
  }
#endif
}
#endif /* PART != 1 */
#endif
