#!/usr/bin/env bash
# One call: launch A split by part (BUNDLE/kd/bwdonly, BUNDLE/kd/fwdonly, written by variant.py
# beside this file) against main's kernels at the big preset: ptxas's counts first, then each
# twice in turn, then the forward part alone with 2 to 10 row tiles per work-group (fewer
# partials) and the backward part alone with smaller register blocks; then wr0q
# (../2026-12-06-wr0) against main at five more shapes.
#   python3 bench/results/2026-12-06-split/variant.py .device
#   python3 bench/results/2026-12-06-wr0/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-split/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split
variants_regs_first main bwdonly fwdonly
variants_big 2 main bwdonly fwdonly
for tpg in 2 4 5 8 10; do
  variant_step big-fwdonly-tpg$tpg fwdonly "${big_preset[@]}" --kernel-param TPG=$tpg
done
for p in R=4 RN=4; do
  variant_step big-bwdonly-${p/=/} bwdonly "${big_preset[@]}" --kernel-param $p
done
variants_big 1 wr0q main
variants_shapes "main wr0q" "128 2048 2048 8 400" "16 4096 4096 16 400" "8 8192 8192 64 200" \
  "256 2048 1024 16 400" "64 4992 4992 8 200"
