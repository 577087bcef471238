/* Products of the mlp step whose output is small beside their k (h1 w2: batch x dout outputs
 * over k = hidden), fp32, row-major, OpenCL C 1.1: a register-blocked product over one slice of
 * k per work-group (split-K), a fixed-order sum of the slices' partials, and the transpose that
 * gives the pipelined matmul kernel w2^T. No atomics: the sum is the same on every run.
 * Build options: -DBM, -DBN (block of C per work-group, multiples of 4), -DKT (k per tile). A
 * work-item computes 4 x 4 outputs; the work-group is (BN/4) x (BM/4). */

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef KT
#define KT 16
#endif

#define W 4           /* outputs per work-item along each dimension */
#define DM (BM / W)   /* work-items along M (local id 1) */
#define DN (BN / W)   /* work-items along N (local id 0) */
#define NT (DM * DN)
#define LDA (BM + 4)  /* a k-row of the A tile: padded, and float4-aligned for the reads */
#define LDB (BN + 4)
#define LA ((KT * BM + NT - 1) / NT) /* elements of an A tile each work-item loads */
#define LB ((KT * BN + NT - 1) / NT)

/* C (M x N, rows of N) = A (M x K) B (K x N) over k in [z KS, (z+1) KS), z = group id 2, into
 * C + z M N: with one slice, beta C is added (beta == 0 never reads C); with several, the caller
 * passes the partials' buffer and beta 0, and mlp_splitk_sum adds them up. A(m,k) = A[m*sam +
 * k*sak], B(k,n) = B[k*sbk + n*sbn], so that strides express the transposes; tiles are loaded
 * along whichever index has unit stride, so that neighbouring work-items read neighbouring
 * addresses. Each work-item loads its share of the next tile into registers before it
 * multiplies the current one, so that the loads' latency hides behind the arithmetic. */
__kernel __attribute__((reqd_work_group_size(DN, DM, 1))) void
mlp_splitk(const int M, const int N, const int K, const int KS, __global const float *A,
           const int sam, const int sak, __global const float *B, const int sbk, const int sbn,
           __global float *C, const float beta) {
  __local float As[KT * LDA]; /* As[k][m] */
  __local float Bs[KT * LDB]; /* Bs[k][n] */
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int lid = ty * DN + tx;
  const int row0 = get_group_id(1) * BM, col0 = get_group_id(0) * BN;
  const int z = get_group_id(2);
  const int k0 = z * KS, k1 = min(K, k0 + KS);
  C += (size_t)z * (size_t)M * (size_t)N;

  float acc[W][W];
  for (int i = 0; i < W; ++i)
    for (int j = 0; j < W; ++j) acc[i][j] = 0.0f;

  /* Element e of a tile: (k, m) with k fastest where A's rows run along k, else m fastest; the
   * same for B with n. Outside the operand (or past this slice's k) it loads zero. */
  float ra[LA], rb[LB];
#define LOAD(t)                                                                                 \
  do {                                                                                          \
    for (int l = 0; l < LA; ++l) {                                                              \
      const int e = lid + l * NT;                                                               \
      const int kk = sak == 1 ? e % KT : e / BM, mm = sak == 1 ? e / KT : e % BM;               \
      const int k = (t) + kk, m = row0 + mm;                                                    \
      ra[l] = e < KT * BM && k < k1 && m < M ? A[m * sam + k * sak] : 0.0f;                     \
    }                                                                                           \
    for (int l = 0; l < LB; ++l) {                                                              \
      const int e = lid + l * NT;                                                               \
      const int kk = sbn == 1 ? e / BN : e % KT, nn = sbn == 1 ? e % BN : e / KT;               \
      const int k = (t) + kk, n = col0 + nn;                                                    \
      rb[l] = e < KT * BN && k < k1 && n < N ? B[k * sbk + n * sbn] : 0.0f;                     \
    }                                                                                           \
  } while (0)

  if (k0 < k1) LOAD(k0);
  for (int t = k0; t < k1; t += KT) {
    /* the previous tile's products are done before its place is overwritten */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = 0; l < LA; ++l) {
      const int e = lid + l * NT;
      if (e < KT * BM) {
        const int kk = sak == 1 ? e % KT : e / BM, mm = sak == 1 ? e / KT : e % BM;
        As[kk * LDA + mm] = ra[l];
      }
    }
    for (int l = 0; l < LB; ++l) {
      const int e = lid + l * NT;
      if (e < KT * BN) {
        const int kk = sbn == 1 ? e / BN : e % KT, nn = sbn == 1 ? e % BN : e / KT;
        Bs[kk * LDB + nn] = rb[l];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t + KT < k1) LOAD(t + KT);
    for (int k = 0; k < KT; ++k) {
      const float4 a = vload4(0, As + k * LDA + ty * W);
      const float4 b = vload4(0, Bs + k * LDB + tx * W);
      const float av[W] = {a.s0, a.s1, a.s2, a.s3}, bv[W] = {b.s0, b.s1, b.s2, b.s3};
      for (int i = 0; i < W; ++i)
        for (int j = 0; j < W; ++j) acc[i][j] += av[i] * bv[j];
    }
  }
#undef LOAD

  for (int i = 0; i < W; ++i) {
    const int row = row0 + ty * W + i;
    for (int j = 0; j < W; ++j) {
      const int col = col0 + tx * W + j;
      if (row < M && col < N) {
        const int o = row * N + col;
        C[o] = beta == 0.0f ? acc[i][j] : beta * C[o] + acc[i][j];
      }
    }
  }
}

/* C[i] = beta C[i] + the sum of the S partials P[z count + i], z = 0 .. S-1 in that order
 * (beta == 0 never reads C). */
__kernel void mlp_splitk_sum(const int count, const int S, __global const float *P,
                             __global float *C, const float beta) {
  const int i = get_global_id(0);
  if (i >= count) return;
  float s = 0.0f;
  for (int z = 0; z < S; ++z) s += P[(size_t)z * (size_t)count + i];
  C[i] = beta == 0.0f ? s : beta * C[i] + s;
}

/* dst (cols x rows) = src (rows x cols)^T, through a square tile of local memory (one float of
 * padding per row against bank conflicts), so that both the reads and the writes are along rows.
 * Square work-groups of any edge; tile has edge * (edge + 1) floats. */
__kernel void mlp_transpose(const int rows, const int cols, __global const float *src,
                            __global float *dst, __local float *tile) {
  const int e = get_local_size(0);
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int c = get_group_id(0) * e + lx, r = get_group_id(1) * e + ly;
  if (r < rows && c < cols) tile[ly * (e + 1) + lx] = src[r * cols + c];
  barrier(CLK_LOCAL_MEM_FENCE);
  /* this work-item writes the element (row r2, column c2) of the source, read by another */
  const int r2 = get_group_id(1) * e + lx, c2 = get_group_id(0) * e + ly;
  if (r2 < rows && c2 < cols) dst[c2 * rows + r2] = tile[lx * (e + 1) + ly];
}
