#!/usr/bin/env bash
# One call: launch A's forward part with its next chunk prefetched (BUNDLE/kd/pff) or double
# buffered (BUNDLE/kd/dbf), both written by variant.py beside this file from the checkout's cl/,
# against main's kernels (embedded), in turn: the big preset three times each, then five shapes
# once each; then ptxas's register counts of the three at the big preset.
#   python3 bench/results/2026-12-06-fwpf/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-fwpf/run.sh BUNDLE OUT        (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" fwpf
variants_big 3 main pff dbf
variants_shapes "main pff dbf" "64 2048 2048 8 400" "256 2048 1024 16 200" "16 4096 4096 16 100" \
  "8 1024 1024 8 800" "512 1024 1024 8 200"
variants_regs "$o/big-main-1.json" main pff dbf
