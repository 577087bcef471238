#!/usr/bin/env bash
# The second call: each part of launch A alone (bwdonly, fwdonly from variant.py) at the big
# preset with other blockings, to find each part's best before a split of launch A is built;
# main's kernels first and last.
#   python3 bench/results/2026-12-06-split/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-split/run2.sh BUNDLE OUT      (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split2
variants_big 1 main
for p in R=4 R=2 R=4,TX=32,TY=8 R=4,TX=8,TY=32 R=4,KC=32 R=4,KC=64 R=4,VW=4 R=4,UR=4 \
         R=4,WPF=1 R=4,RN=8 R=4,RN=2 R=2,RN=4; do
  variant_step "big-bwdonly-${p//[=,]/}" bwdonly "${big_preset[@]}" --kernel-param "$p"
done
for p in R=4 R=4,TPG=2 RN=4 KC=32 VW=4 TX=32,TY=8 RN=4,TPG=2 RN=16 TX=8,TY=32 UR=4; do
  variant_step "big-fwdonly-${p//[=,]/}" fwdonly "${big_preset[@]}" --kernel-param "$p"
done
variants_big 1 main
