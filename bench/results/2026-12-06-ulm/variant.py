#!/usr/bin/env python3
"""Writes BUNDLE/kd/ulm: a copy of cl/ whose mlp.cl runs launch A's w1 update and forward part
through local memory, half a tile at a time: the g1 block's rows of the half go into a local
half-tile (BI/2 x BJ), the group then updates that half of w1 with coalesced float4 reads and
writes (all of a work-item's reads in flight together, the half-tile left holding the updated
w1), and the forward part multiplies x's chunks by the half-tile straight from local memory, so
that the updated tile is not read back from global memory and the g1 block's half dies early.
Same arguments, same results; for the GPU defaults' path only (STAGE 1, DB 0, FWR 0, PF 0, TPG 1,
one row chunk of x, VW dividing RM/2, a row pitch of whole float4s), which it checks at build
time. Usage, from the checkout's root:
    python3 bench/results/2026-12-06-ulm/variant.py BUNDLE"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import kernel_variants as kv  # noqa: E402

ERROR = ("#error \"ulm: STAGE 1, DB 0, FWR 0, PF 0, TPG 1, one row chunk, RM/2 a multiple of VW, "
         "LDH, BJ a multiple of 4 only\"")
CHECKS = r"""
#if !STAGE || DB || FWR || PF || TPG != 1 || NCH != 1 || (RM / 2) % VW || RM % 2 || LDH % 4 \
    || BJ % 4 || BI % (2 * KC)
@ERROR@
#endif
#define HB (BI / 2)  /* rows of a half-tile */
#define LDW (BJ + 4) /* its row pitch */
""".replace("@ERROR@", ERROR)
REPLACEMENTS = [
    # Bs (the g1 chunks of dz1) inside the half-tile, which is not live while they are
    ("  __local float Bs[KA][BJ] __attribute__((aligned(16))); /* dz1[n0+k][j0+j], then w1 */\n",
     "  /* half a tile of g1, then of the updated w1; g1's chunks of dz1 (Bs) in its first"
     " rows */\n"
     "  __local float Ws[HB][LDW] __attribute__((aligned(16)));\n"
     "  __local float(*Bs)[BJ] = (__local float(*)[BJ]) & Ws[0][0];\n"),
]
START = "    /* w1 -= lr g1 on the tile, UR rows of the block at a time"
END = "  }\n}\n"
NEW_TAIL = r"""    if (tile == 0)
      for (int r = 0; r < RM2; ++r)
        for (int c = 0; c < RN; ++c) acc2[r][c] = 0.0f;
    for (int h = 0; h < 2; ++h) {
      /* the g1 block's rows in this half into Ws (its chunks of dz1 were last read before the
       * barrier that ended the g1 loop, or the last half's forward part) */
      if (backward)
        for (int r = h * (RM / 2); r < (h + 1) * (RM / 2); ++r) {
          const int row = SHARE_AT(r, ty, TY, VW) - h * HB;
          for (int c = 0; c < RN; ++c) Ws[row][SHARE_AT(c, tx, TX, VW)] = acc1[r][c];
        }
      barrier(CLK_LOCAL_MEM_FENCE);
      /* w1 -= lr g1 on the half, a float4 at a time: all reads, then all writes; Ws then holds
       * the half of w1 as updated (as read where not `backward`), zeros past DIN and HID */
      {
        float4 wv[(HB * BJ / 4 + WGA - 1) / WGA];
        for (int l = 0; l < (HB * BJ / 4 + WGA - 1) / WGA; ++l) {
          const int q = t + l * WGA, row = q / (BJ / 4), col = q % (BJ / 4) * 4;
          const int gi = i0 + h * HB + row, gj = j0 + col;
          float4 v = (float4)(0.0f);
          if (q < HB * BJ / 4 && gi < DIN) {
            if (gj + 3 < HID)
              v = *(__global const float4 *)(w1 + gi * LDH + gj);
            else {
              if (gj < HID) v.s0 = w1[gi * LDH + gj];
              if (gj + 1 < HID) v.s1 = w1[gi * LDH + gj + 1];
              if (gj + 2 < HID) v.s2 = w1[gi * LDH + gj + 2];
            }
          }
          wv[l] = v;
        }
        for (int l = 0; l < (HB * BJ / 4 + WGA - 1) / WGA; ++l) {
          const int q = t + l * WGA, row = q / (BJ / 4), col = q % (BJ / 4) * 4;
          if (q >= HB * BJ / 4) break;
          const int gi = i0 + h * HB + row, gj = j0 + col;
          float4 v = wv[l];
          if (backward) {
            v -= lr * *(__local const float4 *)&Ws[row][col];
            if (gi < DIN) {
              if (gj + 3 < HID)
                *(__global float4 *)(w1 + gi * LDH + gj) = v;
              else {
                if (gj < HID) w1[gi * LDH + gj] = v.s0;
                if (gj + 1 < HID) w1[gi * LDH + gj + 1] = v.s1;
                if (gj + 2 < HID) w1[gi * LDH + gj + 2] = v.s2;
              }
            }
          }
          *(__local float4 *)&Ws[row][col] = v;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      /* this half's share of the partial product x[:,I] w1[I,J], x in chunks of KC columns */
      for (int k0 = 0; k0 < HB; k0 += KC) {
        if (forward)
          for (int l = 0; l < LPA_FW; ++l) {
            const int q = t + l * WGA, n = q / KC, k = q % KC, i = i0 + h * HB + k0 + k;
            if (q < KC * NC) As[k][n] = n < NB && i < DIN ? x[n * DIN + i] : 0.0f;
          }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (forward)
          for (int k = 0; k < KC; ++k) {
            float a[RM2], b[RN];
            mlp_share(As[k], ty, TY, RM2, VW2, a);
            mlp_share(Ws[k0 + k], tx, TX, RN, VW, b);
            for (int r = 0; r < RM2; ++r)
              for (int c = 0; c < RN; ++c) acc2[r][c] += a[r] * b[c];
          }
        barrier(CLK_LOCAL_MEM_FENCE);
      }
    }
    if (forward)
      for (int r = 0; r < RM2; ++r) {
        const int n = SHARE_AT(r, ty, TY, VW2);
        for (int c = 0; c < RN; ++c) {
          const int col = j0 + SHARE_AT(c, tx, TX, VW);
          if (n < NB && col < HID) part[(rg * NB + n) * LDH + col] = acc2[r][c];
        }
      }
  }
}
"""
text = kv.replaced(kv.mlp_source(), REPLACEMENTS, "ulm")
if text.count(START) != 1:
    sys.exit("ulm: launch A's update not found once in cl/mlp.cl")
a = text.index(START)
b = text.index(END, a)
text = text[:a] + NEW_TAIL.lstrip("\n") + text[b + len(END):]
kv.write(sys.argv[1], "ulm", kv.before_launch_a(text, CHECKS, "ulm"))
