#!/usr/bin/env python3
"""Writes BUNDLE/kd/wr0: a copy of cl/ whose mlp.cl has launch A read the first UR rows of each
work-item's block of the w1 tile (the update's first round) during the last chunk of the g1
product, into registers that the chunk's staging has left dead, so that the first round of the
update finds its old w1 in registers instead of waiting on device memory. Each work-item reads its
own elements, which no other work-item writes in the launch. BUNDLE/kd/wr0p: the same with the
last chunk peeled off the chunk loop, so that the early reads' registers are not live around the
loop (in wr0 they are: ptxas gave it 165 registers). BUNDLE/kd/wr0q: wr0p with the update's first
round written out before the update's loop (in wr0p the choice between the early values and
w1 in the loop's body left the loop rolled and the g1 block in a 256-byte stack frame). Same
arguments, same results; for the GPU defaults' path (STAGE 1, DB 0, FWR 0; wr0p and wr0q also PF
0), which they check at build time. Usage, from the checkout's root:
    python3 bench/results/2026-12-06-wr0/variant.py BUNDLE"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import kernel_variants as kv  # noqa: E402

GUARD = ("#if !STAGE || DB || FWR\n"
         "#error \"wr0: STAGE 1, DB 0, FWR 0 only\"\n"
         "#endif\n")
REPLACEMENTS = [
    ("    float acc1[RM][RN];\n",
     "    float acc1[RM][RN];\n"
     "    float pre[UR][RN]; /* the old w1 of the update's first UR rows, read early */\n"),
    ("      if (backward && PF && n0 + KC < NB) FETCH_G1(n0 + KC);\n",
     "      if (backward && PF && n0 + KC < NB) FETCH_G1(n0 + KC);\n"
     "      if (backward && n0 + KC >= NB)\n"
     "        for (int r = 0; r < UR && r < RM; ++r) {\n"
     "          const int row = i0 + SHARE_AT(r, ty, TY, VW);\n"
     "          for (int c = 0; c < RN; ++c) {\n"
     "            const int col = j0 + SHARE_AT(c, tx, TX, VW);\n"
     "            pre[r][c] = row < DIN && col < HID ? w1[row * LDH + col] : 0.0f;\n"
     "          }\n"
     "        }\n"),
    ("            acc1[r][c] = (row < DIN && col < HID ? w1[row * LDH + col] : 0.0f) - lr * acc1[r][c];\n",
     "            const float old = r0 == 0 && backward ? pre[r - r0][c]\n"
     "                              : row < DIN && col < HID ? w1[row * LDH + col] : 0.0f;\n"
     "            acc1[r][c] = old - lr * acc1[r][c];\n"),
]
text = kv.replaced(kv.mlp_source(), REPLACEMENTS, "wr0")
kv.write(sys.argv[1], "wr0", kv.before_launch_a(text, GUARD, "wr0"))

# wr0p: main's chunk loop (STAGE 1, DB 0, PF 0) as a macro, run for all chunks but the last, then
# for the last with the early reads
LOOP_START = "    for (int n0 = 0; n0 < NB; n0 += KC) {\n#if DB\n"
LOOP_END = "      barrier(CLK_LOCAL_MEM_FENCE);\n    }\n#if WPF\n"
CHUNK = r"""
#define G1_CHUNK(n0, LAST)                                                                        \
  do {                                                                                            \
    if (backward) {                                                                               \
      FETCH_G1(n0);                                                                               \
      STORE_G1();                                                                                 \
    }                                                                                             \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                 \
    if ((LAST) && backward)                                                                       \
      for (int r = 0; r < UR && r < RM; ++r) {                                                    \
        const int row = i0 + SHARE_AT(r, ty, TY, VW);                                             \
        for (int c = 0; c < RN; ++c) {                                                            \
          const int col = j0 + SHARE_AT(c, tx, TX, VW);                                           \
          pre[r][c] = row < DIN && col < HID ? w1[row * LDH + col] : 0.0f;                        \
        }                                                                                         \
      }                                                                                           \
    if (backward)                                                                                 \
      for (int k = 0; k < KC; ++k) {                                                              \
        if (NB % KC != 0 && (n0) + k >= NB) break;                                                \
        float a[RM], b[RN];                                                                       \
        mlp_share(As[k], ty, TY, RM, VW, a);                                                      \
        mlp_share(Bs[k], tx, TX, RN, VW, b);                                                      \
        for (int r = 0; r < RM; ++r)                                                              \
          for (int c = 0; c < RN; ++c) acc1[r][c] += a[r] * b[c];                                 \
      }                                                                                           \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                 \
  } while (0)
"""
PEELED = ("    int n0 = 0;\n"
          "    for (; n0 + KC < NB; n0 += KC) G1_CHUNK(n0, 0);\n"
          "    G1_CHUNK(n0, 1);\n"
          "#if WPF\n")
FIRST_ROUND = (
    "      for (int r0 = 0; r0 < RM; r0 += UR) {\n",
    "      if (backward)\n"
    "        for (int r = 0; r < UR && r < RM; ++r) {\n"
    "          const int row = i0 + SHARE_AT(r, ty, TY, VW);\n"
    "          for (int c = 0; c < RN; ++c) {\n"
    "            const int col = j0 + SHARE_AT(c, tx, TX, VW);\n"
    "            acc1[r][c] = pre[r][c] - lr * acc1[r][c];\n"
    "            if (row < DIN && col < HID) w1[row * LDH + col] = acc1[r][c];\n"
    "          }\n"
    "        }\n"
    "      for (int r0 = UR; r0 < RM; r0 += UR) {\n")
for name, update in (("wr0p", REPLACEMENTS[2]), ("wr0q", FIRST_ROUND)):
    text = kv.replaced(kv.mlp_source(), [REPLACEMENTS[0], update], name)
    if text.count(LOOP_START) != 1:
        sys.exit(f"{name}: launch A's g1 loop not found once in cl/mlp.cl")
    a = text.index(LOOP_START)
    b = text.index(LOOP_END, a)
    text = text[:a] + PEELED + text[b + len(LOOP_END):]
    guard = GUARD.replace("DB || FWR", "DB || FWR || PF").replace("wr0:", name + ":").replace(
        "FWR 0 only", "FWR 0, PF 0 only")
    kv.write(sys.argv[1], name, kv.before_launch_a(text, guard + CHUNK.lstrip("\n"), name))
