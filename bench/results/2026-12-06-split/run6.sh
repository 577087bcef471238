#!/usr/bin/env bash
# The sixth call: launch G's chunk of the batch as even halves where the batch takes two chunks
# of up to 64 (GKC = 40, 48, 56, 60 at batch 80, 96, 112, 120) in place of 64 and the rest, and
# the split at 24 x 3000 x 3000 x 8, below the rule's batches (fused launches).
#   ../shared/device/stage; bash bench/results/2026-12-06-split/run6.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split6
for sh in "80 5000 5000 8 200 40" "96 5000 5000 8 200 48" "112 4096 4096 8 200 56" \
          "120 5000 5000 8 100 60"; do
  set -- $sh
  mlp_shape $1 $2 $3 $4 $5
  variant_step "mlp-$1-$2-$3-$4-gkc$6" main "${shape[@]}" --kernel-param SPLIT=1,GKC=$6
done
settings_shapes "SPLIT=0 SPLIT=1" "24 3000 3000 8 400"
