/* The product of one MWG x NWG block of C over part of k, into acc: the body of
 * matmul_pipelined (cl/matmul.cl), which includes it with `#include "matmul_block.cl"`
 * (expanded by src/opencl/program.c) where it has declared the block's first row and column
 * (row0, col0), the k range (k0, k_len), the local tiles Al and Bl and the work-item's place (tx,
 * ty, lid). Declares acc, a WM x WN array. Included once for the whole blocks, with k0 = 0 and
 * k_len = K, and in kernels built with -DSPLIT_TAIL once more for the parts of split blocks, so
 * that the whole blocks' loop bounds stay those of the kernel without the option. */
  /* This work-item's share of every slice: the same places, shifted by the slice's start.
   * Consecutive work-items take consecutive k of A (its rows are contiguous in k) and
   * consecutive columns of B. */
  int a_k[LA], a_off[LA][VW], b_k[LB], b_off[LB][VW];
  #pragma unroll
  for (int l = 0; l < LA; ++l) {
    const int e = lid + l * NT;
    a_k[l] = e % KWG;
    #pragma unroll
    for (int v = 0; v < VW; ++v)
      a_off[l][v] = min(row0 + (e / KWG) * VW + v, M - 1) * K + k0 + a_k[l];
  }
  #pragma unroll
  for (int l = 0; l < LB; ++l) {
    const int e = lid + l * NT;
    b_k[l] = e / NV;
    #pragma unroll
    for (int v = 0; v < VW; ++v)
      b_off[l][v] = (k0 + b_k[l]) * N + min(col0 + (e % NV) * VW + v, N - 1);
  }

  float acc[WM][WN];
  #pragma unroll
  for (int i = 0; i < WM; ++i) {
    #pragma unroll
    for (int j = 0; j < WN; ++j) acc[i][j] = 0.0f;
  }

  const int full = k_len / KWG, slices = (k_len + KWG - 1) / KWG;
  floatv ra[LA], rb[LB];
  if (full > 0)
    LOAD_SLICE(0, 0);
  else
    LOAD_SLICE(0, 1);
  STORE_SLICE(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 0; s < slices; ++s) {
    const int b = s & 1;
    if (s + 1 < full)
      LOAD_SLICE((s + 1) * KWG, 0);
    else if (s + 1 < slices)
      LOAD_SLICE((s + 1) * KWG, 1);
    #pragma unroll
    for (int k = 0; k < KWG; ++k) {
      floatv a[WM / VW], bv[WN / VW];
      #pragma unroll
      for (int i = 0; i < WM / VW; ++i) a[i] = Al[b][k][i * DM + ty];
      #pragma unroll
      for (int j = 0; j < WN / VW; ++j) bv[j] = Bl[b][k][j * DN + tx];
      #pragma unroll
      for (int i = 0; i < WM; ++i) {
        #pragma unroll
        for (int j = 0; j < WN; ++j)
          acc[i][j] += LANE(a[i / VW], i % VW) * LANE(bv[j / VW], j % VW);
      }
    }
    /* Buffer 1-b was last read before the previous barrier; the next slice reads it after the
     * barrier below. */
    if (s + 1 < slices) STORE_SLICE(1 - b);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
