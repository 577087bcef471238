#!/usr/bin/env python3
"""cl/matmul.cl with the block's product in a function, called with k from 0 to K as constants
for whole blocks and with the part's k range for a split block's part. usage: kconst.py IN OUT"""
import sys
src = open(sys.argv[1]).read()
start = src.index("__kernel __attribute__((reqd_work_group_size(DN, DM, 1))) void\nmatmul_pipelined(")
body_start = src.index("  /* This work-item's share of every slice", start)
body_end = src.index("#ifdef SPLIT_TAIL\n  if (tail >= 0) {", body_start)
body = src[body_start:body_end]
acc_decl = """  float acc[WM][WN];
  #pragma unroll
  for (int i = 0; i < WM; ++i) {
    #pragma unroll
    for (int j = 0; j < WN; ++j) acc[i][j] = 0.0f;
  }

"""
assert acc_decl in body
body = body.replace(acc_decl, "")
func = """/* acc: the product of the MWG x NWG block of C at (row0, col0) over k0 .. k0 + k_len - 1, through
 * the local tiles Al and Bl. A function, so that a split kernel's whole blocks run it with k from
 * 0 to K as constants, as the kernel built without -DSPLIT_TAIL does. */
void block_product(const int M, const int N, const int K, __global const float *restrict A,
                   __global const float *restrict B, const int row0, const int col0,
                   const int k0, const int k_len, __local floatv (*Al)[KWG][MV + PAD],
                   __local floatv (*Bl)[KWG][NV], float acc[WM][WN]) {
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int lid = ty * DN + tx;
""" + acc_decl.replace("  float acc[WM][WN];\n", "") + body.rstrip() + "\n}\n\n"
head = src[start:body_start]
old_ranges = """  const int k0 = tail < 0 ? 0 : tail % splits * k_chunk;
  const int k_len = tail < 0 ? K : min(k_chunk, K - k0);
#else
  const int row0 = get_group_id(1) * MWG, col0 = get_group_id(0) * NWG;
  const int k0 = 0, k_len = K;
#endif
"""
assert old_ranges in head
head = head.replace("  const int lid = ty * DN + tx;\n", "")
head = head.replace(old_ranges, """#else
  const int row0 = get_group_id(1) * MWG, col0 = get_group_id(0) * NWG;
#endif
  float acc[WM][WN];
#ifdef SPLIT_TAIL
  if (tail >= 0) {
    const int k0 = tail % splits * k_chunk;
    block_product(M, N, K, A, B, row0, col0, k0, min(k_chunk, K - k0), Al, Bl, acc);
  } else
#endif
    block_product(M, N, K, A, B, row0, col0, 0, K, Al, Bl, acc);
""")
out = src[:start] + func + head + src[body_end:]
open(sys.argv[2], "w").write(out)
