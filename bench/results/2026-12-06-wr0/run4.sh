#!/usr/bin/env bash
# One call after run3.sh (whose PTX showed wr0p's update loop rolled and the g1 block in a 256-byte
# stack frame): wr0q, the update's first round written out before the loop (BUNDLE/kd/wr0q,
# written by variant.py beside this file; correct on PoCL 3.1 at five shapes with two and three
# launches, clean under Oclgrind at 9 x 37 x 41 x 3), against main's kernels: ptxas's counts
# first, then the big preset twice each in turn, then 64 x 2048 x 2048 x 8 once each.
#   python3 bench/results/2026-12-06-wr0/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-wr0/run4.sh BUNDLE OUT       (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" wr0q
variants_regs_first main wr0q
variants_big 2 main wr0q
variants_shapes "main wr0q" "64 2048 2048 8 400"
