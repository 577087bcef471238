#!/usr/bin/env python3
"""Writes BUNDLE/kd/sum8: a copy of cl/ whose launch B, with three launches, sums launch R's
shares for eight of a work-item's outputs at once (the shares in the same order for each output,
so the same sums), eight loads in flight where main's loop has one output's chain. Whether that
makes launch B's sum of the shares cheaper than RC's bound does (bench/RESULTS.md, 2026-12-06,
17:33 UTC on). For cl/mlp.cl as of 365de71. Usage, from the checkout's root:
    python3 bench/results/2026-12-06-rc2/variant.py BUNDLE"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import kernel_variants as kv  # noqa: E402

MAIN = """    for (int q = l; q < NO; q += WGB) {
      float z = 0.0f;
#if THREE
      for (int g = 0; g < RCB; ++g) z += sums[g * NO + q];
#else
"""
SUM8 = """#if THREE
    for (int q0 = l; q0 < NO; q0 += 8 * WGB) {
      float z8[8];
      for (int k = 0; k < 8; ++k) z8[k] = 0.0f;
      for (int g = 0; g < RCB; ++g)
        for (int k = 0; k < 8; ++k)
          if (q0 + k * WGB < NO) z8[k] += sums[g * NO + q0 + k * WGB];
      for (int k = 0; k < 8; ++k)
        if (q0 + k * WGB < NO) {
          h2[q0 + k * WGB] = fmax(z8[k], 0.0f);
#if BLOC
          lh2[q0 + k * WGB] = fmax(z8[k], 0.0f);
#endif
        }
    }
#endif
    for (int q = l; q < NO && !THREE; q += WGB) {
      float z = 0.0f;
#if THREE
#else
"""
kv.write(sys.argv[1], "sum8", kv.replaced(kv.mlp_source(), [(MAIN, SUM8)], "sum8"))
