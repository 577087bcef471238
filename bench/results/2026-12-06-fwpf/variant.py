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
import shutil
import sys

src = open("cl/mlp.cl").read()
GUARD = ("#if !STAGE || DB || FWR || PF\n"
         "#error \"{name}: STAGE 1, DB 0, FWR 0, PF 0 only\"\n"
         "#endif\n")
ANCHOR = "__kernel __attribute__((reqd_work_group_size(WGA, 1, 1))) void\nmlp_fused_wide("
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
    text = src
    for old, new in replacements:
        if text.count(old) != 1:
            sys.exit(f"variant.py: cl/mlp.cl has {text.count(old)} of '{old.strip()[:60]}', not one")
        text = text.replace(old, new)
    if text.count(ANCHOR) != 1:
        sys.exit("variant.py: launch A's kernel not found once in cl/mlp.cl")
    text = text.replace(ANCHOR, GUARD.format(name=name) + ANCHOR)
    out = os.path.join(sys.argv[1], "kd", name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree("cl", out)
    with open(os.path.join(out, "mlp.cl"), "w") as f:
        f.write(text)
