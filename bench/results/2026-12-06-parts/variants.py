#!/usr/bin/env python3
"""Writes the kernel directories of run.sh: BUNDLE/kd/<variant>, each a copy of cl/ whose mlp.cl
leaves out one part of launch A (a condition that never holds, `lr == 12345.0f`, keeps the
compiler from dropping the work around it). Their results are wrong on purpose: only their
times count. Usage, from the checkout's root:
    python3 bench/results/2026-12-06-parts/variants.py .device"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import kernel_variants as kv  # noqa: E402

UPD_LOAD = ("acc1[r][c] = (row < DIN && col < HID ? w1[row * LDH + col] : 0.0f) - lr * acc1[r][c];",
            "acc1[r][c] = 0.5f - lr * acc1[r][c];")
UPD_STORE = ("if (backward && row < DIN && col < HID) w1[row * LDH + col] = acc1[r][c];",
             "if (backward && row < DIN && col < HID && lr == 12345.0f) "
             "w1[row * LDH + col] = acc1[r][c];")
BWD = ("      if (backward) {\n        for (int k = 0; k < KC; ++k) {",
       "      if (backward && lr == 12345.0f) {\n        for (int k = 0; k < KC; ++k) {")
FWD = ("        if (forward && PF && FW_MORE(ch, k0)) FETCH_FW_NEXT(n0, k0);\n"
       "        if (forward) FORWARD_PRODUCT(KC);",
       "        if (forward && PF && FW_MORE(ch, k0)) FETCH_FW_NEXT(n0, k0);\n"
       "        if (forward && lr == 12345.0f) FORWARD_PRODUCT(KC);")
PART = ("if (n < NB && col < HID) part[(rg * NB + n) * LDH + col] = acc2[r][c];",
        "if (n < NB && col < HID && lr == 12345.0f) part[(rg * NB + n) * LDH + col] = acc2[r][c];")
VARIANTS = {
    "same": [],
    "noupdmem": [UPD_LOAD, UPD_STORE],
    "nobwd": [BWD],
    "nofwd": [FWD],
    "nopart": [PART],
    "computeonly": [UPD_LOAD, UPD_STORE, PART],
    "memonly": [BWD, FWD],
}

for name, replacements in VARIANTS.items():
    kv.write(sys.argv[1], name, kv.replaced(kv.mlp_source(), replacements, name))
