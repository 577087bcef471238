#!/usr/bin/env python3
"""Writes BUNDLE/kd/xonce: a copy of cl/ whose mlp.cl stages launch A's block of x (all NB rows of
the tile's BI columns) into local memory once per tile, where main's stages it twice in chunks
(as x^T for g1, KC rows at a time, and as x for the forward part, KC columns at a time); the
chunks then carry only dz1 (g1) and w1 (the forward part). Same arguments, same results; for the
GPU defaults' path only (STAGE 1, DB 0, FWR 0, PF 0, TPG 1, one row chunk of x), which it checks
at build time. Usage, from the checkout's root:
    python3 bench/results/2026-12-06-xonce/variant.py BUNDLE"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import kernel_variants as kv  # noqa: E402

REPLACEMENTS = [
    # the block of x in place of As (NC >= NB rows with one row chunk), row pitch a multiple of 4
    ("  __local float As[KA][LDS] __attribute__((aligned(16)));\n",
     "  /* x[n][i0+i], zero past NB and DIN */\n"
     "  __local float Xs[NC][LDX] __attribute__((aligned(16)));\n"),
    # staged once at the tile's start
    ("    const int i0 = (rg * TPG + tile) * BI;\n",
     "    const int i0 = (rg * TPG + tile) * BI;\n"
     "    for (int q = t; q < NC * BI; q += WGA) {\n"
     "      const int n = q / BI, i = q % BI;\n"
     "      Xs[n][i] = n < NB && i0 + i < DIN ? x[n * DIN + i0 + i] : 0.0f;\n"
     "    }\n"
     "    barrier(CLK_LOCAL_MEM_FENCE);\n"),
    # g1's rows of x from the block
    ("          mlp_share(As[k], ty, TY, RM, VW, a);\n",
     "          mlp_share(Xs[n0 + k], ty, TY, RM, VW, a);\n"),
]
# after the chunk macros: chunks of dz1 and w1 alone, the forward part's x from the block
REDEFINE = r"""
#if !STAGE || DB || FWR || PF || TPG != 1 || NCH != 1
#error "xonce: STAGE 1, DB 0, FWR 0, PF 0, TPG 1 and one row chunk of x only"
#endif
#define LDX ((BI + 3) / 4 * 4 + 4)
#undef FETCH_G1
#define FETCH_G1(n0_)                                                                             \
  do {                                                                                            \
    const int n0f = (n0_);                                                                        \
    for (int l = 0; l < LPB; ++l) {                                                               \
      const int q = t + l * WGA, k = q / BJ, j = q % BJ;                                          \
      pb[l] = q < KC * BJ && n0f + k < NB && j0 + j < HID ? DZ1_AT(n0f + k, j0 + j) : 0.0f;       \
    }                                                                                             \
  } while (0)
#undef FETCH_FW
#define FETCH_FW(n0_, k0_)                                                                        \
  do {                                                                                            \
    const int k0f = (k0_);                                                                        \
    for (int l = 0; l < LPB; ++l) {                                                               \
      const int q = t + l * WGA, k = q / BJ, j = q % BJ, i = i0 + k0f + k;                        \
      pb[l] = q < KC * BJ && k0f + k < BI && i < DIN && j0 + j < HID ? w1[i * LDH + j0 + j]       \
                                                                     : 0.0f;                      \
    }                                                                                             \
  } while (0)
#define STORE_B()                                                                                 \
  do {                                                                                            \
    for (int l = 0; l < LPB; ++l) {                                                               \
      const int e = t + l * WGA;                                                                  \
      if (e < KC * BJ) Bs[e / BJ][e % BJ] = pb[l];                                                \
    }                                                                                             \
  } while (0)
#undef STORE_G1
#define STORE_G1() STORE_B()
#undef STORE_FW
#define STORE_FW() STORE_B()
#undef FORWARD_PRODUCT
#define FORWARD_PRODUCT(K)                                                                        \
  do {                                                                                            \
    for (int k = 0; k < (K); ++k) {                                                               \
      float a[RM2], b[RN];                                                                        \
      for (int r = 0; r < RM2; ++r) a[r] = Xs[SHARE_AT(r, ty, TY, VW2)][k0 + k];                  \
      mlp_share(Bs[k], tx, TX, RN, VW, b);                                                        \
      for (int r = 0; r < RM2; ++r)                                                               \
        for (int c = 0; c < RN; ++c) acc2[r][c] += a[r] * b[c];                                   \
    }                                                                                             \
  } while (0)
"""

text = kv.replaced(kv.mlp_source(), REPLACEMENTS, "xonce")
kv.write(sys.argv[1], "xonce", kv.before_launch_a(text, REDEFINE + "\n", "xonce"))
