#!/usr/bin/env python3
"""Writes two kernel directories beside a bundle, copies of cl/ whose mlp.cl changes launch A's
forward part alone (x[:,I] w1[I,J] after the update), where the registers of the g1 block are
dead and the 4 x 8 block of the partial product leaves room:
  BUNDLE/kd/pff: the next chunk of x and w1 fetched into registers right after the barrier that
                 publishes this one (PF 1's scheme, which costs the g1 part registers it does not
                 have), the g1 part as main's;
  BUNDLE/kd/dbf: the forward part's chunks in two local buffers (DB 1's scheme there alone): the
                 next chunk fetched, then stored into the other buffer after the product, one
                 barrier per chunk in place of two.
Same arguments, same results; for the GPU defaults' path (STAGE 1, DB 0, FWR 0, PF 0), which they
check at build time. Usage, from the checkout's root:
    python3 bench/results/2026-12-06-fwpf/variant.py BUNDLE"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import kernel_variants as kv  # noqa: E402

GUARD = ("#if !STAGE || DB || FWR || PF\n"
         "#error \"{name}: STAGE 1, DB 0, FWR 0, PF 0 only\"\n"
         "#endif\n")
VARIANTS = {
    "pff": [
        ("          if (!PF || (ch == 0 && k0 == 0)) FETCH_FW(n0, k0);\n",
         "          if (ch == 0 && k0 == 0) FETCH_FW(n0, k0);\n"),
        ("        if (forward && PF && FW_MORE(ch, k0)) FETCH_FW_NEXT(n0, k0);\n",
         "        if (forward && FW_MORE(ch, k0)) FETCH_FW_NEXT(n0, k0);\n"),
    ],
    "dbf": [
        # both buffers always, the g1 part in the first
        ("#if DB\n  __local float As2[2][KA][LDS]", "#if 1\n  __local float As2[2][KA][LDS]"),
        # the forward part's first chunk, and its loop, as DB 1's
        ("#if DB\n    if (forward) {\n      FETCH_FW(0, 0);",
         "#if 1\n    if (forward) {\n      FETCH_FW(0, 0);"),
        ("#if DB\n        const bool more = FW_MORE(ch, k0);",
         "#if 1\n        const bool more = FW_MORE(ch, k0);"),
    ],
}
for name, replacements in VARIANTS.items():
    text = kv.replaced(kv.mlp_source(), replacements, name)
    kv.write(sys.argv[1], name, kv.before_launch_a(text, GUARD.format(name=name), name))
