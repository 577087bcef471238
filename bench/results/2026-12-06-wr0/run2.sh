#!/usr/bin/env bash
# One call after run.sh (where wr0 took 165 registers): the same early reads with the g1 loop's
# last chunk peeled off (BUNDLE/kd/wr0p, written by variant.py beside this file; correct on PoCL
# 3.1 at five shapes with two and three launches, clean under Oclgrind at 9 x 37 x 41 x 3) against
# main's kernels, in turn: ptxas's register counts first, then the big preset three times each,
# then three shapes once each.
#   python3 bench/results/2026-12-06-wr0/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-wr0/run2.sh BUNDLE OUT       (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" wr0p
variants_regs_first main wr0p
variants_big 3 main wr0p
variants_shapes "main wr0p" "64 2048 2048 8 400" "16 4096 4096 16 100" "64 8192 8192 8 60"
