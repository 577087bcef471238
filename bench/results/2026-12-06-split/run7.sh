#!/usr/bin/env bash
# The seventh call, the build as committed (209e71b): the big preset at the defaults twice, and
# the rule's choice at 24 x 5000 x 5000 x 8 (split) and 80 x 5000 x 5000 x 8 (not), fused
# launches at the defaults.
#   ../shared/device/stage; bash bench/results/2026-12-06-split/run7.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split7
for round in 1 2; do variant_step big-default-$round main "${big_preset[@]}"; done
for sh in "24 5000 5000 8 200" "80 5000 5000 8 100"; do
  mlp_shape $sh
  set -- $sh
  variant_step "mlp-$1-$2-$3-$4-default" main "${shape[@]}"
done
