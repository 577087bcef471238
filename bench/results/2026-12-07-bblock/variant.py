#!/usr/bin/env python3
"""Writes BUNDLE/kd/bb2 and BUNDLE/kd/bb4: copies of cl/ whose launch B computes y, g3 and dz2
with BBR outputs per work-item (2 or 4 rows of y and dz2, rows of g3) that share one read of w3
(y, dz2) or of dy (g3), so that a multiply-add reads 1 + 1/BBR floats of local memory in place of
2. Each output's sum runs in the same order as main's, so y, g3 and dz2 are the same; the loss adds
its squares in another order. Whether that takes launch B under cl/per-op's time at 63 x 100 x 500
x 64, where B's one work-group computes 3 x 63 x 64 x 64 multiply-adds from local memory
(bench/RESULTS.md, 2026-12-06, 19:46 UTC on). For cl/mlp.cl as of 8e0bf0c, with launch B's
work-groups of rows (BROWS) too. Usage, from the checkout's root:
    python3 bench/results/2026-12-07-bblock/variant.py BUNDLE"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import kernel_variants as kv  # noqa: E402

Y_MAIN = """  float ls = 0.0f;
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
"""
Y_BLOCK = """  float ls = 0.0f;
  /* BBR rows of y per work-item, one read of w3 for them (rows past the group's read its last) */
  const int nb = NO / DOUT;
  for (int b = l; b < (nb + BBR - 1) / BBR * DOUT; b += WGB) {
    const int n0 = b / DOUT * BBR, o = b % DOUT;
    float y[BBR];
    for (int i = 0; i < BBR; ++i) y[i] = 0.0f;
    for (int p = 0; p < DOUT; ++p) {
      const float w = B_W3(p, o);
      for (int i = 0; i < BBR; ++i) y[i] += B_H2(min(n0 + i, nb - 1) * DOUT + p) * w;
    }
    for (int i = 0; i < BBR && n0 + i < nb; ++i) {
      const int q = (n0 + i) * DOUT + o;
      const float d = y[i] - t[q0 + q];
      dy[q0 + q] = 2.0f * d;
#if BLOC == 2
      ldy[q] = 2.0f * d;
#endif
      ls += d * d;
    }
  }
"""
G3_MAIN = """  for (int q = l; q < DOUT * DOUT; q += WGB) {
    const int p = q / DOUT, o = q % DOUT;
    float s = 0.0f;
    for (int n = 0; n < NB; ++n) s += B_H2(n * DOUT + p) * B_DY(n * DOUT + o);
    g3[q] += s;
  }
"""
G3_BLOCK = """  /* BBR rows of g3 per work-item, one read of dy for them */
  for (int b = l; b < (DOUT + BBR - 1) / BBR * DOUT; b += WGB) {
    const int p0 = b / DOUT * BBR, o = b % DOUT;
    float s[BBR];
    for (int i = 0; i < BBR; ++i) s[i] = 0.0f;
    for (int n = 0; n < NB; ++n) {
      const float d = B_DY(n * DOUT + o);
      for (int i = 0; i < BBR; ++i) s[i] += B_H2(n * DOUT + min(p0 + i, DOUT - 1)) * d;
    }
    for (int i = 0; i < BBR && p0 + i < DOUT; ++i) g3[(p0 + i) * DOUT + o] += s[i];
  }
"""
DZ2_MAIN = """  for (int q = l; q < NO; q += WGB) {
    const int n = q / DOUT, p = q % DOUT;
    float s = 0.0f;
    for (int o = 0; o < DOUT; ++o) s += B_DY(n * DOUT + o) * B_W3(p, o);
    dz2[q0 + q] = B_H2(q) > 0.0f ? s : 0.0f;
  }
"""
DZ2_BLOCK = """  /* BBR rows of dz2 per work-item, one read of w3 for them */
  for (int b = l; b < (nb + BBR - 1) / BBR * DOUT; b += WGB) {
    const int n0 = b / DOUT * BBR, p = b % DOUT;
    float s[BBR];
    for (int i = 0; i < BBR; ++i) s[i] = 0.0f;
    for (int o = 0; o < DOUT; ++o) {
      const float w = B_W3(p, o);
      for (int i = 0; i < BBR; ++i) s[i] += B_DY(min(n0 + i, nb - 1) * DOUT + o) * w;
    }
    for (int i = 0; i < BBR && n0 + i < nb; ++i) {
      const int q = (n0 + i) * DOUT + p;
      dz2[q0 + q] = B_H2(q) > 0.0f ? s[i] : 0.0f;
    }
  }
"""
for bbr in (2, 4):
    name = f"bb{bbr}"
    text = kv.replaced(kv.mlp_source(), [(Y_MAIN, Y_BLOCK), (G3_MAIN, G3_BLOCK),
                                          (DZ2_MAIN, DZ2_BLOCK)], name)
    text = kv.replaced(text, [("#define PW3 (DOUT | 1)\n", f"#define PW3 (DOUT | 1)\n#define BBR {bbr}\n")], name)
    kv.write(sys.argv[1], name, text)
