#!/usr/bin/env bash
# One call after run2.sh (wr0p at main's 128 registers and still 44 us slower in launch A): the PTX
# of launch A's kernel, main's and wr0p's, each taken from a binary cache of its own after a short
# big-preset run, into ptx-main.txt and ptx-wr0p.txt, to read where each issues the g1 chunks'
# global reads against the barriers.
#   python3 bench/results/2026-12-06-wr0/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-wr0/run3.sh BUNDLE OUT       (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" wr0ptx
for v in main wr0p; do
  variant_step big-$v $v mlp --device nvidia --backend cl --variant fused --preset big \
    --iters 20 --print-every 10 --binary-cache "$o/bin-$v"
  step ptx-$v 30 python3 - "$o/bin-$v" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for name in sorted(files):
        text = open(os.path.join(root, name), "rb").read().decode("latin-1")
        at = text.find(".entry mlp_fused_wide")
        if at >= 0:
            end = text.find(".entry", at + 1)
            print(text[at:end if end > 0 else len(text)])
PY
done
