#!/usr/bin/env python3
"""Writes BUNDLE/kd/bwdonly and BUNDLE/kd/fwdonly: copies of cl/ whose launch A runs only its
backward part (g1 and the w1 update) or only its forward part (the partial product x w1), its
`forward` or `backward` argument replaced by a constant 0, so that the compiler drops the other
part and its registers. Their results are wrong on purpose (records say `error`); their launch A
times are what a split of launch A into two launches of one part each would start from. For
cl/mlp.cl as of 6322cf9, the checkout of calls 1 and 2 (main's launch A has since taken a PART
macro that builds the same two kernels, and this replacement no longer applies). Usage, from that
checkout's root:
    python3 bench/results/2026-12-06-split/variant.py BUNDLE"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import kernel_variants as kv  # noqa: E402

SIGNATURE = "const float lr, const int backward, const int forward) {\n"
ONLY = {
    "bwdonly": "  const int backward = backward_arg + 0 * forward_arg, forward = 0;\n",
    "fwdonly": "  const int backward = 0 * backward_arg, forward = forward_arg;\n",
}
for name, flags in ONLY.items():
    text = kv.replaced(kv.mlp_source(), [(
        SIGNATURE,
        "const float lr, const int backward_arg, const int forward_arg) {\n" + flags)], name)
    kv.write(sys.argv[1], name, text)
